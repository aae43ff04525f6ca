"""A fake of torch.cuda's timing surface: GPUs that run queued work asynchronously on a fake
clock, CUDA events, synchronize, the current device.

Each GPU's stream holds work in order; a call launched at CPU time t starts when the stream is
free (or at t) and takes its duration. An event recorded on a device's stream completes when
the work queued there before it is done; ``synchronize`` moves the CPU clock to that moment.
So events recorded on a GPU with no work on it bracket nothing, as on real hardware.

``event_scale`` makes ``Event.elapsed_time`` deliberately wrong (``inner``: the figure a lost
division by ``inner`` gives); 1.0 is a right timer.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator


def _index(device: object, current: int) -> int:
    if device is None:
        return current
    if isinstance(device, int):
        return device
    text = str(device)
    return int(text.split(":")[1]) if ":" in text else current


class FakeGpus:
    def __init__(self, count: int = 1, event_scale: float = 1.0) -> None:
        self.now = 0.0  # the CPU clock, seconds
        self.free_at = [0.0] * count  # when each stream has finished its queued work
        self.current = 0
        self.count = count
        self.event_scale = event_scale
        self.launches = [0] * count

    def clock(self) -> float:
        return self.now

    def launch(self, index: int, seconds: float) -> None:
        self.free_at[index] = max(self.free_at[index], self.now) + seconds
        self.launches[index] += 1

    def work(self, device: str, seconds: Callable[[int], float] | float) -> Callable[[], None]:
        """A call that queues work on ``device``; ``seconds`` per call, or a function of the
        call's number on that device (0, 1, ...) for a GPU whose speed changes."""
        index = _index(device, self.current)

        def call() -> None:
            n = self.launches[index]
            self.launch(index, seconds(n) if callable(seconds) else seconds)

        return call

    def install(self, monkeypatch) -> FakeGpus:
        import torch

        gpus = self

        class Event:
            def __init__(self, enable_timing: bool = False) -> None:
                assert enable_timing
                self.at: float | None = None

            def record(self) -> None:
                self.at = max(gpus.free_at[gpus.current], gpus.now)

            def synchronize(self) -> None:
                assert self.at is not None
                gpus.now = max(gpus.now, self.at)

            def elapsed_time(self, end: Event) -> float:
                assert self.at is not None and end.at is not None
                return (end.at - self.at) * 1e3 * gpus.event_scale

        @contextlib.contextmanager
        def device(d: object) -> Iterator[None]:
            before, gpus.current = gpus.current, _index(d, gpus.current)
            try:
                yield
            finally:
                gpus.current = before

        def synchronize(device: object = None) -> None:
            gpus.now = max(gpus.now, gpus.free_at[_index(device, gpus.current)])

        def set_device(d: object) -> None:
            index = _index(d, gpus.current)
            if not 0 <= index < gpus.count:
                raise RuntimeError("CUDA error: invalid device ordinal\nCUDA kernel errors "
                                   "might be asynchronously reported at some other API call")
            gpus.current = index

        monkeypatch.setattr(torch.cuda, "Event", Event)
        monkeypatch.setattr(torch.cuda, "device", device)
        monkeypatch.setattr(torch.cuda, "synchronize", synchronize)
        monkeypatch.setattr(torch.cuda, "set_device", set_device)
        monkeypatch.setattr(torch.cuda, "device_count", lambda: gpus.count)
        monkeypatch.setattr(torch.cuda, "current_device", lambda: gpus.current)
        return self

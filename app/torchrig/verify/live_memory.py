"""The peak of live tensor bytes while a function runs, where no allocator keeps statistics.

An inference pass keeps nothing for backward, so the saved-tensor count that measures training
sees nothing, and a CPU (or MPS) has no ``max_memory_allocated``. What a forward pass holds at
its worst moment is still countable from the tensors themselves: a ``TorchDispatchMode`` sees
every tensor an operator returns, counts its storage once (views and in-place results share
it) and releases it when the last tensor using it is freed. Tensors that existed before - the
weights, the inputs - are not counted: the figure is the working set the pass adds, what the
planner's inference activations predict. ``scripts/calibrate_diffusion.py`` measures the
diffusion presets' inference figures with the same counter, on the meta device.

Imports torch: import lazily.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode


def storage_key(t: torch.Tensor) -> int:
    """One number per storage, on any device (a meta tensor has no data pointer)."""
    return int(t.untyped_storage()._cdata)


class LiveBytes(TorchDispatchMode):
    """Counts the bytes of the storages created under it that are still referenced;
    ``existing``: tensors from before, whose storages are never counted."""

    def __init__(self, existing: list[torch.Tensor] | None = None) -> None:
        super().__init__()
        self.live = 0
        self.peak = 0
        self._refs: dict[int, int] = {}
        self._sizes: dict[int, int] = {}
        self._before = {storage_key(t) for t in existing or []}

    def _release(self, key: int) -> None:
        self._refs[key] -= 1
        if self._refs[key] == 0:
            self.live -= self._sizes.pop(key)
            del self._refs[key]

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (),  # noqa: D105
                           kwargs: Any = None) -> Any:
        out = func(*args, **(kwargs or {}))
        for t in out if isinstance(out, (tuple, list)) else (out,):
            if not isinstance(t, torch.Tensor):
                continue
            storage = t.untyped_storage()
            key = storage_key(t)
            if key in self._before or storage.nbytes() == 0:
                continue  # an in-place result or a view of a tensor from before the pass
            if key not in self._refs:
                self._sizes[key] = storage.nbytes()
                self._refs[key] = 0
                self.live += self._sizes[key]
                self.peak = max(self.peak, self.live)
            self._refs[key] += 1
            weakref.finalize(t, self._release, key)
        return out


def peak_live_bytes(fn: Callable[[], Any], existing: list[torch.Tensor]) -> int:
    """The most bytes of tensors created by ``fn`` alive at once; ``existing`` (the weights,
    buffers and inputs) are left out even where an operator writes into them in place. What
    ``fn`` returns is dropped before the count ends, so it is counted while it was alive."""
    mode = LiveBytes(existing)
    with mode:
        out = fn()
    del out
    return mode.peak

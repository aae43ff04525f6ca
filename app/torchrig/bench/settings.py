"""What the user asked the benchmark suite to do, validated before anything runs.

Validation happens up front so a typo ("cuda:3" on a one-GPU machine, an unknown benchmark id,
a dataset folder that does not exist) is reported as an InputError in under a second instead of
after minutes of measuring.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from torchrig.errors import InputError

Preset = Literal["smoke", "quick", "full"]
PRESETS: tuple[Preset, ...] = ("smoke", "quick", "full")

PEAK_KEYS = ("fp32", "tf32", "fp16", "bf16", "mem_bw", "pcie_bps")
"""Catalog peaks the caller may pass: FLOP/s for the dtypes, B/s for memory and PCIe
(per direction). The runner never looks peaks up itself: the catalog owns them."""

# Whole-suite time budgets in seconds. "quick" must finish a full run, including torch import
# and detection, within 30 s on a 2-core CPU and 20 s on a GPU machine; "full" stays under
# 3 minutes. "smoke" only proves every code path works (tests, installation checks).
_BUDGETS: dict[Preset, dict[str, float]] = {
    "smoke": {"cpu": 8.0, "accel": 8.0},
    "quick": {"cpu": 21.0, "accel": 14.0},
    "full": {"cpu": 150.0, "accel": 150.0},
}

_STARTUP_ALLOWANCE_S: dict[str, float] = {"cpu": 9.0, "accel": 6.0}
"""Wall time the whole run may spend outside the benchmarks (child start, torch import,
detection, the report): with the budgets above, quick's whole run is 21 + 9 = 30 s on a CPU
and 14 + 6 = 20 s on a GPU machine, the figures the comment above promises."""

WALL_OVERRUN = 0.2
"""The whole run ends within its wall budget + 20 %, however busy the machine: the parent
stops the benchmark child at the budget + 10 % (process/deadline.py), and the last report
and the kill itself fit in the other 10 %."""

END_RESERVE_S = 1.0
"""Wall time kept back at the end of the run for the last report, saving and exiting: the
benchmarks end this long before the wall budget."""

_DEVICE_RE = re.compile(r"^(cpu|mps|cuda|auto)(?::(\d{1,3}))?$")


def device_kind(device: str) -> str:
    """``"cuda:1"`` -> ``"cuda"``; the kind decides which benchmarks apply."""
    return device.split(":", 1)[0]


@dataclass(frozen=True)
class BenchSettings:
    """Settings of one suite run.

    Attributes:
        preset: ``quick`` (<= 30 s), ``full`` (< 3 min) or ``smoke`` (tiny sizes, tests).
        device: ``"cpu"``, ``"cuda"``/``"cuda:N"``, ``"mps"`` or ``"auto"`` (the first GPU
            torch can use, else the CPU).
        only: benchmark ids to run (None: all); order follows the registry, not this tuple.
        dataset_dir: folder the storage benchmark writes its test files into (None: temp dir).
        peaks: catalog peaks for the device (see PEAK_KEYS); None when the catalog has none.
        budget_s: whole-suite time budget override; None uses the preset's.
    """

    preset: Preset = "quick"
    device: str = "cpu"
    only: tuple[str, ...] | None = None
    dataset_dir: Path | None = None
    peaks: Mapping[str, float] | None = None
    budget_s: float | None = None

    def suite_budget_s(self, device: str | None = None) -> float:
        if self.budget_s is not None:
            return self.budget_s
        kind = device_kind(device or self.device)
        return _BUDGETS[self.preset]["cpu" if kind == "cpu" else "accel"]

    def wall_budget_s(self, device: str | None = None) -> float:
        """The whole run's stated budget, start-up included: the benchmarks' budget plus the
        start-up allowance of the device kind."""
        kind = device_kind(device or self.device)
        return self.suite_budget_s(device) + _STARTUP_ALLOWANCE_S[
            "cpu" if kind == "cpu" else "accel"]

    def peak(self, key: str) -> float | None:
        if not self.peaks:
            return None
        value = self.peaks.get(key)
        return float(value) if value is not None else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "preset": self.preset,
            "device": self.device,
            "only": list(self.only) if self.only is not None else None,
            "dataset_dir": str(self.dataset_dir) if self.dataset_dir is not None else None,
            "peaks": dict(self.peaks) if self.peaks else None,
            "budget_s": self.suite_budget_s(),
        }

    def validated(self, known_ids: Iterable[str]) -> BenchSettings:
        """Check everything that needs no torch; returns a normalised copy.

        Device existence needs torch and is checked by :func:`resolve_device`.
        """
        if self.preset not in PRESETS:
            raise InputError(
                f"unknown preset {self.preset!r}: use one of {', '.join(PRESETS)}"
            )
        match = _DEVICE_RE.match(self.device.strip().lower())
        if not match:
            raise InputError(
                f"device {self.device!r} is not valid: use auto, cpu, cuda, cuda:N or mps"
            )
        known = list(known_ids)
        only = None
        if self.only is not None:
            ids = [i.strip() for i in self.only if i.strip()]
            unknown = [i for i in ids if i not in known]
            if unknown:
                raise InputError(
                    f"unknown benchmark {', '.join(unknown)}: choose from {', '.join(known)}"
                )
            if not ids:
                raise InputError("no benchmark selected: the list given to 'only' is empty")
            only = tuple(dict.fromkeys(ids))
        dataset_dir = self.dataset_dir
        if dataset_dir is not None:
            dataset_dir = Path(dataset_dir).expanduser()
            if not dataset_dir.exists():
                raise InputError(f"dataset folder {dataset_dir} does not exist")
            if not dataset_dir.is_dir():
                raise InputError(f"dataset folder {dataset_dir} is a file, not a folder")
        peaks = None
        if self.peaks:
            peaks = {}
            for key, value in self.peaks.items():
                if key not in PEAK_KEYS:
                    raise InputError(f"peaks: unknown key {key!r}: use {', '.join(PEAK_KEYS)}")
                if value is None:
                    continue
                if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
                    math.isfinite(value) and value > 0
                ):
                    raise InputError(f"peaks: {key} must be a positive number, got {value!r}")
                peaks[key] = float(value)
        if self.budget_s is not None and not (
            isinstance(self.budget_s, (int, float)) and 0 < self.budget_s <= 3600
        ):
            raise InputError(f"budget must be between 0 and 3600 s, got {self.budget_s!r}")
        return replace(
            self,
            device=self.device.strip().lower(),
            only=only,
            dataset_dir=dataset_dir,
            peaks=peaks or None,
        )


def resolve_device(device: str) -> str:
    """Turn ``"cuda"`` into ``"cuda:0"`` (``"auto"`` into the best device) and check the
    device exists on this machine.

    Imports torch (the only authority on which devices it can use). Raises InputError naming
    the devices that do exist, so ``--device cuda:3`` on a one-GPU box explains itself.
    """
    match = _DEVICE_RE.match(device.strip().lower())
    if not match:
        raise InputError(f"device {device!r} is not valid: use auto, cpu, cuda, cuda:N or mps")
    kind, index = match.group(1), match.group(2)
    if kind == "auto":
        if index is not None:
            raise InputError(f"device {device!r} is not valid: 'auto' takes no index")
        return _auto_device()
    if kind == "cpu":
        if index is not None:
            raise InputError(f"device {device!r} is not valid: the CPU device is just 'cpu'")
        return "cpu"
    try:
        import torch
    except ImportError:
        raise InputError(
            f"device {device!r} needs PyTorch, which is not installed: install a torch build "
            "for this GPU (see README) or use --device cpu"
        ) from None
    if kind == "mps":
        backend = getattr(torch.backends, "mps", None)
        if backend is None or not backend.is_available():
            raise InputError("device 'mps' is not available: this is not an Apple-silicon Mac "
                             "with an MPS-enabled PyTorch")
        return "mps"
    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if count == 0:
        build = "a CPU-only build" if torch.version.cuda is None and not getattr(
            torch.version, "hip", None) else "a GPU build but no usable GPU"
        raise InputError(
            f"device {device!r} is not available: PyTorch {torch.__version__} is {build}; "
            "use --device cpu"
        )
    n = int(index) if index is not None else 0
    if n >= count:
        valid = ", ".join(f"cuda:{i}" for i in range(count))
        raise InputError(f"device {device!r} does not exist on this machine: use {valid}")
    return f"cuda:{n}"


def _auto_device() -> str:
    """cuda:0, else mps, else cpu - what a user running ``torchrig bench`` on a GPU machine
    expects to measure."""
    try:
        import torch
    except ImportError:
        return "cpu"
    if torch.cuda.is_available() and torch.cuda.device_count() > 0:
        return "cuda:0"
    backend = getattr(torch.backends, "mps", None)
    if backend is not None and backend.is_available():
        return "mps"
    return "cpu"

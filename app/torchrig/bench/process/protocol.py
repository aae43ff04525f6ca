"""The benchmark child's messages, as both ends encode and decode them.

The parent (:mod:`torchrig.bench.process.isolated`) sends one request: the settings, the
profile it already has, and optionally another benchmark list (``"module:attribute"``). The
child (:mod:`torchrig.bench.process.child`) answers with progress lines among others. Both
sides read and write those with the functions here, so neither imports the other.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from torchrig.bench.base import Benchmark, Progress
from torchrig.bench.process.channel import parse_request
from torchrig.bench.settings import BenchSettings
from torchrig.errors import InputError
from torchrig.i18n import Msg


def progress_to_dict(p: Progress) -> dict[str, Any]:
    return {"bench_id": p.bench_id, "step": p.step, "steps_total": p.steps_total,
            "message": p.message.to_dict(), "bench_index": p.bench_index,
            "bench_count": p.bench_count}


def progress_from_dict(d: Mapping[str, Any]) -> Progress:
    message = d["message"]
    return Progress(str(d["bench_id"]), int(d["step"]), int(d["steps_total"]),
                    Msg(str(message["en"]), str(message["zh"])), int(d["bench_index"]),
                    int(d["bench_count"]))


def settings_to_dict(settings: BenchSettings) -> dict[str, Any]:
    return {"preset": settings.preset, "device": settings.device,
            "only": list(settings.only) if settings.only is not None else None,
            "dataset_dir": str(settings.dataset_dir) if settings.dataset_dir else None,
            "peaks": dict(settings.peaks) if settings.peaks else None,
            "budget_s": settings.budget_s}


def settings_from_dict(d: Mapping[str, Any]) -> BenchSettings:
    return BenchSettings(
        preset=d["preset"], device=d["device"],
        only=tuple(d["only"]) if d.get("only") is not None else None,
        dataset_dir=Path(d["dataset_dir"]) if d.get("dataset_dir") else None,
        peaks=d.get("peaks"), budget_s=d.get("budget_s"))


def read_request(line: str) -> dict[str, Any]:
    return parse_request(line, "settings", "benchmark child")


def load_registry(spec: str | None) -> list[Benchmark] | None:
    """``"module:attribute"`` naming a sequence of benchmarks (tests, or a site's own suite);
    None: the built-in suite."""
    if spec is None:
        return None
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise InputError(f"benchmark registry {spec!r}: expected module:attribute")
    try:
        found = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as exc:
        raise InputError(f"benchmark registry {spec!r}: {exc}") from None
    return list(found)

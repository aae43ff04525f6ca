"""The benchmark report: measurements with units and references, as versioned JSON.

A report is what a lab admin keeps and compares later, what the PDF export embeds and what
``torchrig bench --json`` prints, so every number carries its unit (SI base units), what it is
compared with (a catalog peak, a seed claim, a theoretical link rate) and notes on how it was
counted. Nothing here imports torch.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from torchrig import jsonio
from torchrig.errors import InputError
from torchrig.i18n import Msg
from torchrig.paths import data_dir

REPORT_FORMAT = "torchrig.bench-report"
REPORT_VERSION = 1

MAX_RATIO = 1e6
"""Largest measured/reference ratio a report may hold: no benchmark beats its reference a
million times, and larger ratios overflow to infinity in percents and in JSON."""

UNITS = ("FLOP/s", "B/s", "s", "B", "samples/s", "ratio", "count")
"""SI base units only, so JSON consumers never parse "GB/s" strings."""

LIKE_FOR_LIKE = ("spec_peak", "theoretical")
"""Reference kinds a measurement can be given as a percentage of."""

STATES = ("ok", "partial", "skipped", "error", "cancelled")
"""``partial``: some figures were measured, others were left out (time budget, a crash); the
reason says which."""


@dataclass(frozen=True)
class Reference:
    """What a measurement is compared with.

    ``value`` is a single figure (a spec peak, a theoretical link rate); ``low``/``high`` a
    claimed range (seed 3.1: AMP is 30-50 % faster -> 1.3 .. 1.5; a single claimed figure is a
    range with low == high). Seed claims always use low/high, never ``value``. ``kind`` says
    which sort of figure it is so the GUI can word it: ``spec_peak``, ``theoretical``,
    ``seed_claim``, ``reference`` (a published typical figure), ``measured`` (another
    benchmark's result).
    """

    kind: str
    label: Msg
    source: str
    value: float | None = None
    low: float | None = None
    high: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "label": self.label.to_dict(),
            "source": self.source,
            "value": self.value,
            "low": self.low,
            "high": self.high,
        }

    @classmethod
    def from_dict(cls, data: Any, where: str) -> Reference:
        if not isinstance(data, dict):
            raise InputError(f"{where}: expected an object")
        return cls(
            kind=jsonio.get_str(data, "kind", where, max_len=40),
            label=Msg.from_json(jsonio.req(data, "label", where), f"{where}.label"),
            source=jsonio.get_str(data, "source", where, default=""),
            value=jsonio.get_num(data, "value", where, optional=True),
            low=jsonio.get_num(data, "low", where, optional=True),
            high=jsonio.get_num(data, "high", where, optional=True),
        )


@dataclass(frozen=True)
class Measurement:
    """One measured figure.

    Attributes:
        id: stable within its benchmark, e.g. ``"bf16"``, ``"pinned_h2d"``.
        label: what it is, for people.
        value: in ``unit``; None when it could not be measured (the notes say why).
        unit: one of :data:`UNITS`.
        reference: what to compare it with, or None (the notes say why there is none).
        notes: how it was counted ("bytes counted once (read) + once (write)").
        details: problem size and method facts (matrix size, batch, repeats).
    """

    id: str
    label: Msg
    value: float | None
    unit: str
    reference: Reference | None = None
    notes: tuple[Msg, ...] = ()
    details: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.unit not in UNITS:
            raise ValueError(f"measurement {self.id}: unit {self.unit!r} is not one of {UNITS}")
        if self.value is not None and not math.isfinite(self.value):
            # JSON cannot hold NaN/inf and a non-finite timing is a measuring bug, never a result.
            raise ValueError(f"measurement {self.id}: value {self.value!r} is not finite")

    @property
    def ratio(self) -> float | None:
        """value / reference value where the two are like for like: the same quantity of the
        same device (a spec peak, a theoretical link rate). None otherwise - a CPU loader rate
        against the training rate, or a page-cache read against a typical drive, reads as
        thousands of percent and means nothing."""
        if self.value is None or self.reference is None or not self.reference.value:
            return None
        if self.reference.kind not in LIKE_FOR_LIKE:
            return None
        return self.value / self.reference.value

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "label": self.label.to_dict(),
            "value": self.value,
            "unit": self.unit,
            "reference": self.reference.to_dict() if self.reference else None,
            "ratio": self.ratio,
            "notes": [n.to_dict() for n in self.notes],
            "details": dict(self.details),
        }

    @classmethod
    def from_dict(cls, data: Any, where: str) -> Measurement:
        if not isinstance(data, dict):
            raise InputError(f"{where}: expected an object")
        unit = jsonio.get_str(data, "unit", where, max_len=20)
        if unit not in UNITS:
            raise InputError(f"{where}: field 'unit' is {unit!r}, expected one of {UNITS}")
        ref = data.get("reference")
        details = data.get("details", {})
        if not isinstance(details, dict):
            raise InputError(f"{where}: field 'details' must be an object")
        measurement = cls(
            id=jsonio.get_str(data, "id", where, max_len=80),
            label=Msg.from_json(jsonio.req(data, "label", where), f"{where}.label"),
            value=jsonio.get_num(data, "value", where, optional=True),
            unit=unit,
            reference=Reference.from_dict(ref, f"{where}.reference") if ref is not None else None,
            notes=_msgs(data.get("notes", []), f"{where}.notes"),
            details=details,
        )
        ratio = measurement.ratio
        if ratio is not None and not abs(ratio) <= MAX_RATIO:
            # 1e307 against 1.0 overflowed the chart's percent axis and saved as Infinity.
            raise InputError(f"{where}: value {measurement.value:g} is {ratio:.3g} times its "
                             f"reference; more than {MAX_RATIO:g} times is not a measurement")
        return measurement


@dataclass
class BenchResult:
    """One benchmark's outcome: a status and whatever it measured.

    ``status`` is ``"ok"``, ``"partial: <reason>"``, ``"skipped: <reason>"``,
    ``"error: <reason>"`` or ``"cancelled"``; ``reason`` is the same reason in both languages
    where one exists.
    """

    id: str
    title: Msg
    status: str = "ok"
    reason: Msg | None = None
    measurements: list[Measurement] = field(default_factory=list)
    notes: list[Msg] = field(default_factory=list)
    seconds: float = 0.0
    budget_s: float = 0.0

    @property
    def state(self) -> str:
        return self.status.split(":", 1)[0]

    @property
    def ok(self) -> bool:
        """Its figures can be used: complete (``ok``) or ``partial`` (the ones measured)."""
        return self.state in ("ok", "partial")

    def measurement(self, measurement_id: str) -> Measurement | None:
        for m in self.measurements:
            if m.id == measurement_id:
                return m
        return None

    def value(self, measurement_id: str) -> float | None:
        m = self.measurement(measurement_id)
        return m.value if m is not None else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title.to_dict(),
            "status": self.status,
            "reason": self.reason.to_dict() if self.reason else None,
            "seconds": round(self.seconds, 4),
            "budget_s": round(self.budget_s, 4),
            "notes": [n.to_dict() for n in self.notes],
            "measurements": [m.to_dict() for m in self.measurements],
        }

    @classmethod
    def from_dict(cls, data: Any, where: str) -> BenchResult:
        if not isinstance(data, dict):
            raise InputError(f"{where}: expected an object")
        status = jsonio.get_str(data, "status", where, max_len=2000)
        if status.split(":", 1)[0] not in STATES:
            raise InputError(
                f"{where}: field 'status' is {status!r}, expected ok, skipped: ..., "
                "partial: ..., error: ... or cancelled"
            )
        reason = data.get("reason")
        measurements = data.get("measurements", [])
        if not isinstance(measurements, list):
            raise InputError(f"{where}: field 'measurements' must be a list")
        return cls(
            id=jsonio.get_str(data, "id", where, max_len=80),
            title=Msg.from_json(jsonio.req(data, "title", where), f"{where}.title"),
            status=status,
            reason=Msg.from_json(reason, f"{where}.reason") if reason is not None else None,
            measurements=[
                Measurement.from_dict(m, f"{where}.measurements[{i}]")
                for i, m in enumerate(measurements)
            ],
            notes=list(_msgs(data.get("notes", []), f"{where}.notes")),
            seconds=jsonio.get_num(data, "seconds", where, default=0.0, minimum=0),
            budget_s=jsonio.get_num(data, "budget_s", where, default=0.0, minimum=0),
        )


@dataclass
class BenchReport:
    """A whole suite run: machine, software versions, settings, timing and every result.

    Every benchmark the run selected appears in ``results``, whatever happened to it.
    """

    settings: dict[str, Any]
    started: str
    finished: str | None = None
    device: str = "cpu"
    device_name: str | None = None
    environment: dict[str, Any] = field(default_factory=dict)
    profile: dict[str, Any] | None = None
    profile_error: str | None = None
    results: list[BenchResult] = field(default_factory=list)
    cancelled: bool = False
    torchrig_version: str = ""
    machine_state: dict[str, Any] | None = None
    interrupted: Msg | None = None

    @property
    def busy_warnings(self) -> list[Msg]:
        """Why the figures may not be this machine's best (machine_state.busy_warnings)."""
        if not self.machine_state:
            return []
        return list(_msgs(self.machine_state.get("warnings", []), "machine_state.warnings"))

    def result(self, bench_id: str) -> BenchResult | None:
        for r in self.results:
            if r.id == bench_id:
                return r
        return None

    def value(self, bench_id: str, measurement_id: str) -> float | None:
        r = self.result(bench_id)
        return r.value(measurement_id) if r is not None else None

    def to_dict(self) -> dict[str, Any]:
        # Keep REPORT_FIELDS in step: the loader refuses any other top-level field.
        return {
            "format": REPORT_FORMAT,
            "version": REPORT_VERSION,
            "torchrig_version": self.torchrig_version,
            "started": self.started,
            "finished": self.finished,
            "cancelled": self.cancelled,
            "device": self.device,
            "device_name": self.device_name,
            "settings": dict(self.settings),
            "environment": dict(self.environment),
            "profile": self.profile,
            "profile_error": self.profile_error,
            "results": [r.to_dict() for r in self.results],
            "machine_state": self.machine_state,
            "interrupted": self.interrupted.to_dict() if self.interrupted else None,
        }

    @classmethod
    def from_dict(cls, data: Any, where: str = "bench report") -> BenchReport:
        data = jsonio.upgrade_document(data, REPORT_FORMAT, REPORT_VERSION, where=where)
        jsonio.check_keys(data, REPORT_FIELDS, where)
        settings = jsonio.req(data, "settings", where)
        if not isinstance(settings, dict):
            raise InputError(f"{where}: field 'settings' must be an object")
        environment = data.get("environment", {})
        if not isinstance(environment, dict):
            raise InputError(f"{where}: field 'environment' must be an object")
        profile = data.get("profile")
        if profile is not None:
            # Validate the embedded profile now so a broken one is reported with its field
            # name here, not as a crash in whatever reads it later.
            from torchrig.hardware.model import SystemProfile

            SystemProfile.from_dict(profile, f"{where}.profile")
        results = jsonio.req(data, "results", where)
        if not isinstance(results, list):
            raise InputError(f"{where}: field 'results' must be a list")
        cancelled = data.get("cancelled", False)
        if not isinstance(cancelled, bool):
            raise InputError(f"{where}: field 'cancelled' must be true or false")
        machine_state = data.get("machine_state")
        if machine_state is not None:
            if not isinstance(machine_state, dict):
                raise InputError(f"{where}: field 'machine_state' must be an object")
            _msgs(machine_state.get("warnings", []), f"{where}.machine_state.warnings")
        interrupted = data.get("interrupted")
        return cls(
            settings=settings,
            started=jsonio.get_str(data, "started", where, max_len=64),
            finished=_opt_str(data, "finished", where, 64),
            device=jsonio.get_str(data, "device", where, max_len=40),
            device_name=_opt_str(data, "device_name", where, 200),
            environment=environment,
            profile=profile,
            profile_error=_opt_str(data, "profile_error", where, 10_000),
            results=[BenchResult.from_dict(r, f"{where}.results[{i}]")
                     for i, r in enumerate(results)],
            cancelled=cancelled,
            torchrig_version=jsonio.get_str(data, "torchrig_version", where, default=""),
            machine_state=machine_state,
            interrupted=(Msg.from_json(interrupted, f"{where}.interrupted")
                         if interrupted is not None else None),
        )


def _opt_str(data: dict[str, Any], key: str, where: str, max_len: int) -> str | None:
    if data.get(key) is None:
        return None
    return jsonio.get_str(data, key, where, max_len=max_len)


def _msgs(data: Any, where: str) -> tuple[Msg, ...]:
    if not isinstance(data, list):
        raise InputError(f"{where}: expected a list")
    return tuple(Msg.from_json(item, f"{where}[{i}]") for i, item in enumerate(data))


# --- files ---------------------------------------------------------------------------------


REPORT_FIELDS = {"format", "version", "torchrig_version", "started", "finished", "cancelled",
                 "device", "device_name", "settings", "environment", "profile", "profile_error",
                 "results", "machine_state", "interrupted"}


def save_report(report: BenchReport, path: Path) -> None:
    """Write atomically (a crash leaves the old file or the new one, never half)."""
    jsonio.atomic_write_json(Path(path), report.to_dict())


def load_report(path: Path) -> BenchReport:
    """Load and validate; InputError names the file and the field that is wrong."""
    path = Path(path)
    data = jsonio.load_versioned(path, REPORT_FORMAT, REPORT_VERSION)
    return BenchReport.from_dict(data, str(path))


def reports_dir() -> Path:
    """Where every run is kept for the history view (``<data dir>/bench``)."""
    return data_dir() / "bench"


def utc_now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


_SAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def save_to_history(report: BenchReport) -> Path:
    """Save under reports_dir() with a timestamped, never-clobbering name; returns the path."""
    folder = reports_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"{folder}: cannot create the reports folder ({exc.strerror})") from None
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    preset = _SAFE.sub("-", str(report.settings.get("preset", "run")))
    device = _SAFE.sub("-", report.device)
    base = f"bench-{stamp}-{preset}-{device}"
    path = folder / f"{base}.json"
    n = 1
    while True:
        # Claim the name atomically: checking exists() first let two reports saved in the
        # same second (two windows, two CLI runs) pick the same name, and one was lost.
        try:
            os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
            break
        except FileExistsError:
            n += 1
            path = folder / f"{base}-{n}.json"
        except OSError as exc:
            raise InputError(f"{path}: cannot write ({exc.strerror})") from None
    try:
        save_report(report, path)
    except BaseException:
        with contextlib.suppress(OSError):
            path.unlink()  # the empty claim, not a report
        raise
    return path


def list_reports() -> list[Path]:
    """Saved runs, newest first (names start with a UTC timestamp, so name order is time
    order); an absent folder simply means no history yet."""
    folder = reports_dir()
    if not folder.is_dir():
        return []
    return sorted(folder.glob("bench-*.json"), key=lambda p: p.name, reverse=True)

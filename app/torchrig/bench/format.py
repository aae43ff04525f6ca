"""Human text for measurements, shared by the CLI and the GUI so both word figures alike.

Values stay in SI base units in the report; only here do they get prefixes, and every figure
keeps an explicit unit (GB/s decimal for rates, GiB binary for memory, as units.py explains).
The progress and result lines of the benchmark log are worded here too, in either language.
"""

from __future__ import annotations

from torchrig.bench.base import Progress
from torchrig.bench.report import BenchResult, Measurement, Reference
from torchrig.i18n import Msg
from torchrig.units import fmt_flops, fmt_gib, fmt_rate, fmt_seconds

RESULT_STATES = {  # BenchResult.state
    "ok": Msg("ok", "完成"),
    "partial": Msg("partial", "部分完成"),
    "skipped": Msg("skipped", "已跳过"),
    "error": Msg("error", "出错"),
    "cancelled": Msg("cancelled", "已取消"),
}
_NOT_MEASURED = Msg("not measured", "未测得")
_SAMPLES_PER_S = Msg("samples/s", "样本/秒")


def _is_multiplier(measurement_id: str) -> bool:
    """Speed-ups read as "1.35x"; other ratios (savings, fractions) read as percentages."""
    return measurement_id.endswith("speedup")


def format_value(value: float | None, unit: str, measurement_id: str = "",
                 lang: str = "en") -> str:
    if value is None:
        return _NOT_MEASURED.get(lang)
    if unit == "FLOP/s":
        return fmt_flops(value)
    if unit == "B/s":
        return fmt_rate(value, 2 if value >= 1e9 else 1)
    if unit == "B":
        return fmt_gib(value, 2)
    if unit == "s":
        return fmt_seconds(value, lang)
    if unit == "samples/s":
        return f"{value:,.1f} {_SAMPLES_PER_S.get(lang)}"
    if unit == "count":
        return f"{value:.0f}"
    if unit == "ratio":
        return f"{value:.2f}x" if _is_multiplier(measurement_id) else f"{value:.0%}"
    return f"{value:g} {unit}"


def format_reference(ref: Reference, unit: str, measurement_id: str, lang: str = "en") -> str:
    label = ref.label.get(lang)
    if ref.value is not None:
        return f"{label}: {format_value(ref.value, unit, measurement_id, lang)}"
    if ref.low is not None and ref.high is not None:
        if unit == "ratio" or ref.kind == "seed_claim":
            return label
        low = format_value(ref.low, unit, measurement_id, lang)
        return f"{label}: {low} - {format_value(ref.high, unit, measurement_id, lang)}"
    return label


def format_measurement(m: Measurement, lang: str = "en") -> str:
    """One line: label, value, and how it compares with its reference."""
    text = f"{m.label.get(lang)}: {format_value(m.value, m.unit, m.id, lang)}"
    if m.reference is not None:
        ref = format_reference(m.reference, m.unit, m.id, lang)
        if m.ratio is not None and m.unit != "ratio":
            text += (f"  ({m.ratio:.0%} of {ref})" if lang != "zh"
                     else f"（为{ref}的 {m.ratio:.0%}）")
        else:
            text += f"  [{ref}]" if lang != "zh" else f"［{ref}］"
    return text


def _title(bench_id: str) -> Msg:
    from torchrig.bench.benchmarks.registry import BENCHMARKS

    return next((b.title for b in BENCHMARKS if b.id == bench_id), Msg.verbatim(bench_id))


def state_text(result: BenchResult, lang: str = "en") -> str:
    """"partial: AMP skipped for the time budget", in ``lang``."""
    state = RESULT_STATES.get(result.state, Msg.verbatim(result.state)).get(lang)
    if result.reason is None or result.state == "ok":
        return state
    return f"{state}：{result.reason.zh}" if lang == "zh" else f"{state}: {result.reason.en}"


def progress_line(p: Progress, lang: str = "en") -> str:
    """The log line of one step: ``[2/8] Memory bandwidth 3/5: copying 1 GiB``."""
    colon = "：" if lang == "zh" else ": "
    return (f"[{p.bench_index + 1}/{p.bench_count}] {_title(p.bench_id).get(lang)} "
            f"{p.step}/{p.steps_total}{colon}{p.message.get(lang)}")


def result_line(r: BenchResult, lang: str = "en") -> str:
    """The log line of a finished benchmark, with how long it took."""
    if lang == "zh":
        return f"-> {r.title.zh}：{state_text(r, lang)}（{fmt_seconds(r.seconds, lang)}）"
    return f"-> {r.title.en}: {state_text(r, lang)} ({fmt_seconds(r.seconds)})"

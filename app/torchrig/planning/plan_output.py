"""Human-readable plan (``torchrig plan``) in English or Chinese, with explicit units.

Memory (VRAM, RAM) is shown in binary GiB, storage and rates in decimal GB and GB/s, as
``torchrig.units`` prescribes. The JSON form (``torchrig plan --json``) is
``Requirements.to_dict()``; its keys are documented in docs/plan-json.md.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from torchrig.i18n import Msg, plural
from torchrig.labels import (
    MODELS,
    MODES,
    OPTIMIZERS,
    STRATEGIES,
    TASKS,
    citation,
    cores,
    label,
    precision_label,
)
from torchrig.planning.assumed_settings import AssumedSetting, assumed_lines
from torchrig.planning.item_labels import LABELS
from torchrig.planning.plan_parameters import parameters_line, plan_parameters
from torchrig.planning.requirements import Item, Requirements
from torchrig.planning.workload import Workload, resolve_model
from torchrig.units import fmt_flops, fmt_gb, fmt_gib, fmt_rate, fmt_seconds

if TYPE_CHECKING:
    # Types only: the advice and the solver import the whole catalog and GPU choice, which a
    # plan without --gpu or --recommend never uses.
    from torchrig.planning.advice import Advice
    from torchrig.planning.solver import SolverAnswer

Formatter = Callable[[float | None, str], str]
"""(value, language) -> text: durations are worded ("3.2 days" / "3.2 天"), other units are
symbols that read the same in both languages."""


def _symbols(fmt: Callable[[float | None], str]) -> Formatter:
    """A unit written with symbols (GiB, GB/s, TFLOP): the language does not change it."""
    return lambda value, lang: fmt(value)


def _count(value: float | None) -> str:
    return "unknown" if value is None else f"{value:,.1f}".rstrip("0").rstrip(".")


def _flop(value: float | None) -> str:
    if value is None:
        return "unknown"
    for unit, scale in (("PFLOP", 1e15), ("TFLOP", 1e12), ("GFLOP", 1e9), ("MFLOP", 1e6)):
        if abs(value) >= scale:
            return f"{value / scale:.2f} {unit}"
    return f"{value:.0f} FLOP"


def _per_s(value: float | None) -> str:
    """A count per second; the row's label names what is counted, in the reader's language."""
    return "unknown" if value is None else f"{value:,.1f}/s"


def _fraction(value: float | None) -> str:
    return "unknown" if value is None else f"{value:.0%}"


SECTIONS: tuple[tuple[str, Msg, Formatter], ...] = (
    ("vram_per_gpu", Msg("VRAM per GPU", "每 GPU 显存"), _symbols(fmt_gib)),
    ("system_ram", Msg("System RAM per node", "每节点内存"), _symbols(fmt_gib)),
    ("storage", Msg("Storage", "存储"), _symbols(fmt_gb)),
    ("cpu", Msg("CPU cores per node", "每节点 CPU 核心"), _symbols(_count)),
    ("interconnect", Msg("Interconnect (per step)", "互联（每步）"), _symbols(fmt_gb)),
    ("throughput", Msg("Throughput and time", "吞吐与时间"), _symbols(_count)),
    ("references", Msg("What other estimators print", "其他估算工具的结果"), _symbols(fmt_gib)),
)


# Keys whose unit differs from their section's default.
FORMATS: dict[str, Formatter] = {
    "read_rate_bps": _symbols(fmt_rate),
    "flops_per_sample": _symbols(_flop),
    "prefill_flops": _symbols(_flop),
    "peak_flops": _symbols(fmt_flops),
    "utilisation": _symbols(_fraction),
    "fp8_flops_share": _symbols(_fraction),
    "samples_per_s_per_gpu": _symbols(_per_s),
    "samples_per_s": _symbols(_per_s),
    "tokens_per_s": _symbols(_per_s),
    "tokens_per_s_upper_bound": _symbols(_per_s),
    "step_time_s": fmt_seconds,
    "time_per_epoch_s": fmt_seconds,
    "total_time_s": fmt_seconds,
    "prefill_time_s": fmt_seconds,
    "time_per_image_s": fmt_seconds,
    "bytes_read_per_step": _symbols(fmt_gib),
    "prefill_tokens_per_s": _symbols(_per_s),
    "time_to_first_token_s": fmt_seconds,
    "decode_tokens_per_s": _symbols(_per_s),
    "time_per_output_token_s": fmt_seconds,
    "output_tokens_per_s": _symbols(_per_s),
    "max_output_tokens_per_s": _symbols(_per_s),
    "kv_cache_budget_bytes": _symbols(fmt_gib),
    "scaling_efficiency": _symbols(_fraction),
    "offload_time_s": fmt_seconds,
    "environment_steps_per_s": _symbols(_per_s),
}

_UNKNOWN = Msg("unknown", "未知")


def format_plan_text(workload: Workload, req: Requirements, lang: str = "en",
                     answer: SolverAnswer | None = None,
                     assumed: list[AssumedSetting] | None = None) -> str:
    """The plan as plain text, one figure per line with its unit and the reason behind it;
    with the solver's ``answer``, the changes that make it fit; with ``assumed``, the settings
    taken from the task's defaults, named under the header."""
    def t(message: Msg) -> str:
        return message.get(lang)

    lines = [_header(workload, req, lang), parameters_line(plan_parameters(workload), lang)]
    if assumed:
        lines.extend(assumed_lines(assumed, lang))
    lines.append("")
    if answer is not None and answer.changes:
        lines.extend(_solver_lines(answer, lang))
    for key, title, default in SECTIONS:
        items: Mapping[str, Item] = getattr(req, key)
        if not items:
            continue
        lines.append(t(title))
        for name, item in items.items():
            label = t(LABELS.get(name, Msg(name, name)))
            fmt = FORMATS.get(name, default)
            value = fmt(item.value, lang)
            if value == "unknown":
                value = t(_UNKNOWN)
            lines.append(f"  {label:<30} {value:>18}   {t(item.note)}")
        if key == "vram_per_gpu":
            lines.append(_fit_line(req, lang))
        lines.append("")
    if req.incomplete:
        lines.append(t(Msg("Incomplete (unknown items): ", "不完整（未知项）："))
                     + ", ".join(req.incomplete))
        lines.append("")
    if req.seed_claims:
        lines.append(t(Msg("Seed document's claims vs this plan", "种子文档的说法与本计划对比")))
        for claim in req.seed_claims:
            computed = _claim_value(claim.computed, claim.unit, lang)
            lines.append(f"  [{citation(claim.section, lang)}] {t(claim.claim)}: "
                         f"{claim.seed_value} -> {computed}. {t(claim.note)}")
        lines.append("")
    if req.rules_of_thumb:
        lines.append(t(Msg("Rules of thumb", "经验法则")))
        for rule in req.rules_of_thumb:
            value = rule["value"]
            shown = "" if value is None else (
                f" = {fmt_gib(value)}" if rule["topic"] == "ram" else f" = {cores(value, lang)}")
            lines.append(f"  {citation(rule['source'], lang)}: "
                         f"{rule['text'][lang if lang == 'zh' else 'en']}{shown}")
        lines.append("")
    if req.assumptions:
        lines.append(t(Msg("Assumptions", "假设")))
        lines.extend(f"  - {t(a.text)}" for a in req.assumptions)
    return "\n".join(lines).rstrip() + "\n"


_CLI_NAMES = {"batch_size": "batch", "gradient_checkpointing": "checkpointing",
              "kv_cache_dtype": "kv_dtype", "gpus_per_node": "gpus"}
"""Workload fields whose ``torchrig plan`` option has another name."""


def _cli_option(field: str, value: object) -> str:
    name = _CLI_NAMES.get(field, field).replace("_", "-")
    if isinstance(value, bool):
        value = "on" if value else "off"
    return f"--{name} {value}"


def _solver_lines(answer: SolverAnswer, lang: str) -> list[str]:
    lines = [Msg("Changes that make it fit (re-planned; apply with the options shown)",
                 "可使其装下的改动（已重新估算；用所示选项应用）").get(lang)]
    for change in answer.changes:
        how = (" ".join(_cli_option(k, v) for k, v in change.fields.items())
               if change.kind == "setting" else f"--gpu {change.part_id}")
        lines.append(f"  {change.label.get(lang)}: {fmt_gib(change.vram_needed)}, "
                     f"{change.time_text(lang)} ({change.time_note.get(lang)})  [{how}]")
    lines.append("")
    return lines


def _header(workload: Workload, req: Requirements, lang: str) -> str:
    """What is planned, in words: the workload's name (the user's own text) or its task, the
    model, and the settings as their labels, not the file's codes."""
    def t(message: Msg) -> str:
        return message.get(lang)

    model = resolve_model(workload)
    name = (label(MODELS, model.preset.id, lang) if model.preset
            else t(Msg("custom model", "自定义模型")))
    params = f"{model.params / 1e6:,.1f}M"
    settings = [label(MODES, workload.mode, lang),
                precision_label(workload.precision, workload.is_training, lang)]
    if workload.is_training:
        settings.append(label(OPTIMIZERS, workload.optimizer, lang))
    nodes = plural(workload.nodes, Msg("{n} node", "{n} 个节点"), Msg("{n} nodes", "{n} 个节点"),
                   lang)
    colon, comma = ("：", "，") if lang == "zh" else (": ", ", ")
    parts = [
        f"{workload.name or label(TASKS, workload.task, lang)}{colon}{name}"
        + t(Msg(f" ({params} parameters)", f"（{params} 参数）")),
        comma.join(settings),
        t(Msg(f"batch {workload.batch_size} per GPU", f"每 GPU 批大小 {workload.batch_size}")),
        f"{workload.gpus_per_node} GPU × {nodes}{comma}"
        f"{label(STRATEGIES, workload.strategy, lang)}",
    ]
    if workload.vp_size > 1:
        parts.append(t(Msg(f"{workload.pp_size} pipeline stages × {workload.vp_size} virtual "
                           "stages per GPU (interleaved 1F1B)",
                           f"{workload.pp_size} 个流水线阶段 × 每 GPU {workload.vp_size} 个"
                           "虚拟阶段（交错 1F1B）")))
    if model.seq_len:
        parts.append(t(Msg(f"sequence {model.seq_len}", f"序列长度 {model.seq_len}")))
    if model.image_size:
        parts.append(f"{model.image_size} px")
    if workload.gradient_checkpointing:
        parts.append(t(Msg("gradient checkpointing", "梯度检查点")))
    head = t(Msg("Plan", "计划")) + " - " + ("；" if lang == "zh" else "; ").join(parts)
    if req.device is None:
        gpu = Msg("GPU: none chosen (throughput needs one)", "GPU：未选择（估算吞吐需要选择）")
    else:
        gpu = Msg(f"GPU: {req.device.name} ({fmt_gib(req.device.vram_bytes)})",
                  f"GPU：{req.device.name}（{fmt_gib(req.device.vram_bytes)}）")
    return head + "\n" + gpu.get(lang)


def _fit_line(req: Requirements, lang: str) -> str:
    fits = req.fits
    if fits is None:
        return "  " + Msg("(no GPU chosen: fit not checked)",
                          "（未选择 GPU：未检查是否装得下）").get(lang)
    assert req.device is not None and req.device.vram_bytes is not None
    spare = req.device.vram_bytes - req.vram_total
    unknown = [LABELS.get(key.split(".", 1)[1], Msg(key, key)) for key in req.incomplete
               if key.startswith("vram_per_gpu.")]
    if fits and unknown:
        # The sum leaves the unknown items out: it fits only if they take less than the rest
        # (issue 24: a params-only 2.85B model "fit" with its activations unknown).
        names = Msg(", ".join(m.en.lower() for m in unknown), "、".join(m.zh for m in unknown))
        return "  " + Msg(f"fits in {fmt_gib(req.device.vram_bytes)} without the {names.en}, "
                          f"which are unknown: {fmt_gib(spare)} left for them",
                          f"不计未知的{names.zh}可装入 {fmt_gib(req.device.vram_bytes)}：为其"
                          f"剩余 {fmt_gib(spare)}").get(lang)
    if fits:
        return "  " + Msg(f"fits in {fmt_gib(req.device.vram_bytes)} ({fmt_gib(spare)} spare)",
                          f"可装入 {fmt_gib(req.device.vram_bytes)}（剩余 {fmt_gib(spare)}）"
                          ).get(lang)
    if req.vram_verdict == "tight":
        return "  " + Msg(f"TIGHT in {fmt_gib(req.device.vram_bytes)}: only the fragmentation "
                          f"margin is short ({fmt_gib(-spare)})",
                          f"很紧：{fmt_gib(req.device.vram_bytes)} 只缺碎片余量"
                          f"（{fmt_gib(-spare)}）").get(lang)
    return "  " + Msg(f"DOES NOT FIT in {fmt_gib(req.device.vram_bytes)} "
                      f"({fmt_gib(-spare)} short)",
                      f"装不下：{fmt_gib(req.device.vram_bytes)}（缺 {fmt_gib(-spare)}）"
                      ).get(lang)


def _claim_value(value: float | None, unit: str, lang: str) -> str:
    if value is None:
        return _UNKNOWN.get(lang)
    if unit == "B":
        return f"{fmt_gb(value, 2)}"
    if unit == "fraction":
        return f"{value:+.0%}"
    return f"{value:g} {unit}"


_VERDICTS = {"fits": Msg("fits", "装得下"), "tight": Msg("tight", "很紧"),
             "does_not_fit": Msg("does not fit", "装不下")}


def format_advice_text(advice: Advice, lang: str = "en") -> str:
    """``plan --recommend``: the tier, then one line per catalog GPU with time and money."""
    from torchrig.planning.gpu_choice import PICK_BASES  # loaded with the advice already

    rec = advice.recommendation
    lines = [Msg("Recommendation (time and money)", "推荐（兼顾时间与费用）").get(lang),
             "  " + rec.tier_reason.get(lang)]
    if rec.time_s is not None:
        lines.append("  " + Msg(f"time on the tier's GPU: {fmt_seconds(rec.time_s)}",
                                f"在该档位 GPU 上用时：{fmt_seconds(rec.time_s, 'zh')}").get(lang))
    if rec.gpu is not None:
        basis = PICK_BASES[rec.gpu_basis or "price"]
        lines.append("  " + Msg(f"catalog GPU ({basis.en}): {rec.gpu.name}",
                                f"目录 GPU（{basis.zh}）：{rec.gpu.name}").get(lang))
    if advice.bought_for.en:  # the machine the GPU is for, or what the workload assumed
        lines.append("  " + advice.bought_for.get(lang))
    if advice.time_target_s is not None:
        lines.append("  " + Msg(f"time target: {fmt_seconds(advice.time_target_s)}",
                                f"目标时间：{fmt_seconds(advice.time_target_s, 'zh')}").get(lang))
    lines.append("")
    gpus = advice.options[0].gpus if advice.options else 1
    as_many = "1 GPU" if gpus == 1 else f"{gpus} GPUs"
    lines.append("  " + Msg(f"each GPU model as {as_many}, the workload's layout; time = the "
                            "whole run (training) or the batch's prefill (inference)",
                            f"每种 GPU 均按 {gpus} 块（工作负载的布局）；用时为整个训练或该批的"
                            "预填充").get(lang))
    head = Msg(f"{'GPU':<28} {'memory':>12} {'time':>10} {'price/GPU':>12} "
               f"{'cost/epoch':>11} {'cost/Mtok':>10}",
               f"{'GPU':<28} {'显存':>12} {'用时':>10} {'单卡价格':>12} {'每 epoch 费用':>11} "
               f"{'每百万 token':>10}")
    lines.append("  " + head.get(lang))
    for o in advice.options:
        price = "-" if o.price is None else f"{o.price:,.0f} {o.currency}"
        epoch = "-" if o.cost_per_epoch is None else f"{o.cost_per_epoch:,.2f}"
        mtok = "-" if o.cost_per_million_tokens is None else f"{o.cost_per_million_tokens:,.3f}"
        verdict = _VERDICTS.get(o.verdict or "", Msg("?", "?")).get(lang)
        miss = (" " + Msg("(misses the target)", "（超出目标时间）").get(lang)
                if o.meets_target is False else "")
        time = fmt_seconds(o.time_s, lang)
        lines.append(f"  {o.part.name:<28} {verdict:>12} {time:>10} "
                     f"{price:>12} {epoch:>11} {mtok:>10}{miss}")
    lines.append("  " + Msg("- = unknown: no catalog price (or no exchange rate), or no "
                            "--gpu-hour-price for that GPU",
                            "- = 未知：无目录价格（或无汇率），或未给该 GPU 的 --gpu-hour-price"
                            ).get(lang))
    return "\n".join(lines) + "\n"

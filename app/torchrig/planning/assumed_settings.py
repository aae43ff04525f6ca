"""The settings of a plan that the user did not choose, said out loud.

``torchrig plan --hf-config gpt2/config.json --task llm_finetune_full`` used to plan 8 GPUs,
ZeRO-3 and gradient checkpointing for a 124M model without a word: those are the task's
defaults (chosen for the task's default model, a 7B one), not the user's. Every setting that
changes the figures and that came from the task's defaults is listed as an assumption in the
plan's text and JSON and in the Wizard, with what changes it: the option on the command line,
the field in the Wizard. A workload file is the user's own choice of every setting, so a plan
of a file assumes nothing here.

What counts as given is one table, :data:`SETTINGS`: a setting is given on the command line
when its option was typed, and in the Wizard when its field no longer holds the value the
Wizard filled in (:func:`changed_options`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from torchrig.i18n import Msg, counted
from torchrig.labels import MODELS, OPTIMIZERS, STRATEGIES, label, precision_label
from torchrig.planning.requirements.network import NETWORK_ASSUMPTION
from torchrig.planning.workload import TEXT_TASKS, Workload, default_workload
from torchrig.records import record

if TYPE_CHECKING:
    from torchrig.planning.requirements.types import Assumption


@record
class _Setting:
    field: str                     # the workload's field ("dataset.x": the dataset's)
    flag: str                      # the `torchrig plan` option that sets it
    applies: Callable[[Workload], bool]
    shown: Callable[[Workload, str], str]


def value_of(w: Workload, field: str) -> Any:
    """A workload field by the key its document and the Wizard use (``dataset.samples``)."""
    if field.startswith("dataset."):
        return getattr(w.dataset, field.removeprefix("dataset."))
    return getattr(w, field)


def _on_off(value: bool, lang: str) -> str:
    return {True: Msg("on", "开"), False: Msg("off", "关")}[value].get(lang)


def _model(w: Workload, lang: str) -> str:
    name = label(MODELS, w.model, lang) if w.model in MODELS else (w.name or w.model)
    return Msg(f"model {name}", f"模型 {name}").get(lang)


DATASETS: dict[str, Msg] = {
    "image_classification": Msg("ImageNet-1k's training images", "ImageNet-1k 训练集"),
    "detection_segmentation": Msg("COCO train2017", "COCO train2017"),
    "nlp_transformer": Msg("GLUE SST-2's training sentences", "GLUE SST-2 训练集"),
    "llm_finetune_full": Msg("Alpaca's instruction examples", "Alpaca 指令数据"),
    "llm_finetune_lora": Msg("Alpaca's instruction examples", "Alpaca 指令数据"),
    "image_generation": Msg("BK-SDM's LAION-Aesthetics image-text pairs",
                            "BK-SDM 所用 LAION-Aesthetics 图文对"),
    "reinforcement_learning": Msg("PPO's 10M Atari environment steps",
                                  "PPO 的 1000 万步 Atari 环境交互"),
}
"""The published dataset each task's default sample count is (planning/workload.py's
defaults): the reason a plan that was given no size counts that many."""


def _samples(w: Workload, lang: str) -> str:
    text = Msg(f"{w.dataset.samples:,} samples per epoch",
               f"每 epoch {w.dataset.samples:,} 个样本").get(lang)
    source = DATASETS.get(w.task)
    if source is not None and w.dataset.samples == default_workload(w.task).dataset.samples:
        text += Msg(f" ({source.en})", f"（{source.zh}）").get(lang)
    return text


def _sample_bytes(w: Workload, lang: str) -> str:
    size = w.dataset.sample_bytes
    if not size:
        return Msg("nothing read from disk per sample", "每样本不从磁盘读取数据").get(lang)
    return Msg(f"{size:,.0f} B per sample on disk", f"每样本磁盘上 {size:,.0f} 字节").get(lang)


def _kv_dtype(w: Workload, lang: str) -> str:
    if w.kv_cache_dtype != "auto":
        return Msg(f"KV cache {w.kv_cache_dtype}", f"KV 缓存 {w.kv_cache_dtype}").get(lang)
    size = 4 if w.precision in ("fp32", "tf32") else 2  # requirements.kv_cache's "auto"
    return Msg(f"KV cache in the model's activation type ({size} B an element)",
               f"KV 缓存用模型的激活类型（每元素 {size} 字节）").get(lang)


def _has_data(w: Workload) -> bool:
    return w.dataset.samples > 0


SETTINGS: tuple[_Setting, ...] = (
    _Setting("model", "--model", lambda w: True, _model),
    _Setting("gpus_per_node", "--gpus", lambda w: True,
             lambda w, lang: Msg(f"{counted(w.gpus_per_node, 'GPU', 'GPUs')} per node",
                                 f"每节点 {w.gpus_per_node} 个 GPU").get(lang)),
    _Setting("nodes", "--nodes", lambda w: True,
             lambda w, lang: Msg(f"{w.nodes} node(s)", f"{w.nodes} 个节点").get(lang)),
    _Setting("strategy", "--strategy", lambda w: True,
             lambda w, lang: label(STRATEGIES, w.strategy, lang)),
    _Setting("tp_size", "--tp-size", lambda w: w.strategy == "tensor_parallel",
             lambda w, lang: Msg(f"tensor-parallel size {w.tp_size}",
                                 f"张量并行规模 {w.tp_size}").get(lang)),
    _Setting("gradient_checkpointing", "--checkpointing", lambda w: w.is_training,
             lambda w, lang: Msg("gradient checkpointing ", "梯度检查点").get(lang)
             + _on_off(w.gradient_checkpointing, lang)),
    _Setting("precision", "--precision", lambda w: True,
             lambda w, lang: precision_label(w.precision, w.is_training, lang)),
    _Setting("optimizer", "--optimizer", lambda w: w.is_training,
             lambda w, lang: label(OPTIMIZERS, w.optimizer, lang)),
    _Setting("batch_size", "--batch", lambda w: True,
             lambda w, lang: Msg(f"batch {w.batch_size} per GPU",
                                 f"每 GPU 批大小 {w.batch_size}").get(lang)),
    _Setting("grad_accumulation", "--grad-accumulation", lambda w: w.is_training,
             lambda w, lang: Msg(f"{counted(w.grad_accumulation, 'micro-batch', 'micro-batches')}"
                                 " per optimizer step (gradient accumulation)",
                                 f"每次优化器更新 {w.grad_accumulation} 个微批次（梯度累积）"
                                 ).get(lang)),
    _Setting("seq_len", "--seq-len", lambda w: w.task in TEXT_TASKS and w.seq_len is not None,
             lambda w, lang: Msg(f"sequence {w.seq_len}", f"序列长度 {w.seq_len}").get(lang)),
    _Setting("image_size", "--image-size", lambda w: w.image_size is not None,
             lambda w, lang: Msg(f"image {w.image_size} px",
                                 f"图像 {w.image_size} 像素").get(lang)),
    _Setting("lora_rank", "--lora-rank", lambda w: w.is_lora and w.lora_rank is not None,
             lambda w, lang: Msg(f"LoRA rank {w.lora_rank}", f"LoRA 秩 {w.lora_rank}").get(lang)),
    _Setting("output_tokens", "--output-tokens", lambda w: w.task == "llm_inference",
             lambda w, lang: Msg("no output length (the sequence is the whole context)",
                                 "未给输出长度（序列即全部上下文）").get(lang)
             if w.output_tokens is None else
             Msg(f"{w.output_tokens} output tokens per request",
                 f"每请求输出 {w.output_tokens} 个 token").get(lang)),
    _Setting("kv_cache_dtype", "--kv-dtype", lambda w: w.task == "llm_inference", _kv_dtype),
    _Setting("epochs", "--epochs", _has_data,
             lambda w, lang: Msg(f"{w.epochs:g} epoch" + ("" if w.epochs == 1 else "s"),
                                 f"{w.epochs:g} 个 epoch").get(lang)),
    _Setting("dataset.samples", "--dataset-samples", lambda w: w.is_training or _has_data(w),
             _samples),
    _Setting("dataset.sample_bytes", "--sample-bytes", _has_data, _sample_bytes),
)
"""The settings that change a plan's figures, in the order the plan's header names them
(then the run's length and data). ``flag`` names also say which command-line option counts as
"given" for a setting; ``field`` is the Wizard's field for it."""


@record
class AssumedSetting:
    """One setting the user did not choose: the field, its value, the option that changes it,
    the words for it, and its basis - "task" (the task's defaults) or "sized" (chosen for the
    model's size by :mod:`torchrig.planning.sized_defaults`, with ``reason``)."""

    field: str
    flag: str
    value: Any
    text: Msg
    basis: str = "task"
    reason: Msg | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"field": self.field, "option": self.flag, "value": self.value,
                "text": self.text.to_dict(), "basis": self.basis,
                "reason": None if self.reason is None else self.reason.to_dict()}


NO_NETWORK = Msg("no network given: perfect scaling assumed",
                 "未给出网络：按理想扩展计算")


def assumed_settings(workload: Workload, given: Collection[str], sized: Collection[str] = (),
                     reason: Msg | None = None, planned: Sequence[Assumption] = ()
                     ) -> list[AssumedSetting]:
    """The settings of ``workload`` that apply to its task and whose option is not among
    ``given`` (the options the user gave, spelled as on the command line, e.g. "--gpus");
    those in ``sized`` (fields) were chosen for the model's size, for ``reason``.

    ``planned``: the plan's assumptions. When the planner assumed perfect scaling across
    nodes for want of a network (its "network" assumption, requirements/network.py), the
    network is listed too, after the nodes: that assumption is the one rule of when a
    multi-node plan lacks a network (a GPU's own link counts; a plan with no GPU times
    nothing), so it is read here rather than decided again."""
    out = [AssumedSetting(s.field, s.flag, value_of(workload, s.field),
                          Msg(s.shown(workload, "en"), s.shown(workload, "zh")),
                          *(("sized", reason) if s.field in sized else ()))
           for s in SETTINGS if s.applies(workload) and s.flag not in given]
    if any(a.key == NETWORK_ASSUMPTION for a in planned):
        network = AssumedSetting("network", "--network", workload.network, NO_NETWORK)
        after = next((i + 1 for i, a in enumerate(out) if a.field == "nodes"), len(out))
        out.insert(after, network)
    return out


def options_for(fields: Collection[str]) -> set[str]:
    """The options of the settings of ``fields`` (workload fields, as :class:`Sizing` names
    them)."""
    return {s.flag for s in SETTINGS if s.field in fields}


def changed_options(workload: Workload, start: Workload) -> set[str]:
    """The options (as :func:`assumed_settings` takes them) of the settings whose value in
    ``workload`` is not the one in ``start``, the workload the Wizard filled its fields with:
    the Wizard's "given"."""
    return {s.flag for s in SETTINGS if value_of(workload, s.field) != value_of(start, s.field)}


def assumed_lines(assumed: list[AssumedSetting], lang: str,
                  fields: Mapping[str, str] | None = None) -> list[str]:
    """The plan text's lines: the settings sized to the model (with the rule's reason), then
    those taken from the task's defaults, each saying what changes them - the command-line
    options, or with ``fields`` (a setting's field -> the name a face shows for it, e.g. the
    Wizard's field labels) those fields."""
    lines = []
    sized = [a for a in assumed if a.basis == "sized"]
    if sized:
        what = _joined([a.text.get(lang) for a in sized], lang)
        why = sized[0].reason.get(lang) if sized[0].reason else ""
        lines.append(Msg(f"Assumed (not given) - {why}: {what}",
                         f"假设（未指定）——{why}：{what}").get(lang)
                     + _change_with(sized, lang, fields))
    line = assumed_line([a for a in assumed if a.basis != "sized"], lang, fields)
    return [*lines, *([line] if line else [])]


def assumed_line(assumed: list[AssumedSetting], lang: str,
                 fields: Mapping[str, str] | None = None) -> str:
    """One line for the plan's text: what was assumed and what changes it."""
    if not assumed:
        return ""
    what = _joined([a.text.get(lang) for a in assumed], lang)
    return (Msg(f"Assumed (the task's defaults, not given): {what}",
                f"假设（任务默认值，未指定）：{what}").get(lang)
            + _change_with(assumed, lang, fields))


def _joined(texts: list[str], lang: str) -> str:
    return ("，" if lang == "zh" else ", ").join(texts)


def _change_with(assumed: list[AssumedSetting], lang: str,
                 fields: Mapping[str, str] | None) -> str:
    """"; change with --gpus --strategy" on the command line; in a face with ``fields``, the
    fields by their names there, quoted as the face shows them."""
    if fields is None:
        flags = " ".join(dict.fromkeys(a.flag for a in assumed))
        return Msg(f"; change with {flags}", f"；可用 {flags} 修改").get(lang)
    names = list(dict.fromkeys(fields.get(a.field, a.field) for a in assumed))
    return Msg("; change them in the fields " + ", ".join(f"\u201c{n}\u201d" for n in names),
               "；可在字段" + "、".join(f"\u201c{n}\u201d" for n in names) + "中修改").get(lang)


__all__ = ["DATASETS", "NO_NETWORK", "SETTINGS", "AssumedSetting", "assumed_line", "assumed_lines",
           "assumed_settings", "changed_options", "options_for", "value_of"]

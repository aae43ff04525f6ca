"""The settings of a plan that the user did not choose, said out loud.

``torchrig plan --hf-config gpt2/config.json --task llm_finetune_full`` used to plan 8 GPUs,
ZeRO-3 and gradient checkpointing for a 124M model without a word: those are the task's
defaults (chosen for the task's default model, a 7B one), not the user's. Every setting that
changes the figures and that came from the task's defaults is listed as an assumption in the
plan's text and JSON, with the option that changes it. A workload file is the user's own choice
of every setting, so a plan of a file assumes nothing here.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from torchrig.i18n import Msg
from torchrig.labels import OPTIMIZERS, STRATEGIES, label, precision_label
from torchrig.planning.workload import TEXT_TASKS, Workload


@dataclass(frozen=True)
class _Setting:
    field: str                     # the workload's field
    flag: str                      # the `torchrig plan` option that sets it
    applies: Callable[[Workload], bool]
    shown: Callable[[Workload, str], str]


def _on_off(value: bool, lang: str) -> str:
    return {True: Msg("on", "开"), False: Msg("off", "关")}[value].get(lang)


SETTINGS: tuple[_Setting, ...] = (
    _Setting("gpus_per_node", "--gpus", lambda w: True,
             lambda w, lang: Msg(f"{w.gpus_per_node} GPU per node",
                                 f"每节点 {w.gpus_per_node} 个 GPU").get(lang)),
    _Setting("nodes", "--nodes", lambda w: True,
             lambda w, lang: Msg(f"{w.nodes} node(s)", f"{w.nodes} 个节点").get(lang)),
    _Setting("strategy", "--strategy", lambda w: True,
             lambda w, lang: label(STRATEGIES, w.strategy, lang)),
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
    _Setting("seq_len", "--seq-len", lambda w: w.task in TEXT_TASKS and w.seq_len is not None,
             lambda w, lang: Msg(f"sequence {w.seq_len}", f"序列长度 {w.seq_len}").get(lang)),
)
"""The settings that change a plan's figures most, in the order the plan's header names them.
``flag`` names also say which command-line option counts as "given" for a setting."""


@dataclass(frozen=True)
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


def assumed_settings(workload: Workload, given: Collection[str], sized: Collection[str] = (),
                     reason: Msg | None = None) -> list[AssumedSetting]:
    """The settings of ``workload`` that apply to its task and whose option is not among
    ``given`` (the options the user gave, spelled as on the command line, e.g. "--gpus");
    those in ``sized`` (fields) were chosen for the model's size, for ``reason``."""
    return [AssumedSetting(s.field, s.flag, getattr(workload, s.field),
                           Msg(s.shown(workload, "en"), s.shown(workload, "zh")),
                           *(("sized", reason) if s.field in sized else ()))
            for s in SETTINGS if s.applies(workload) and s.flag not in given]


def assumed_lines(assumed: list[AssumedSetting], lang: str) -> list[str]:
    """The plan text's lines: the settings sized to the model (with the rule's reason), then
    those taken from the task's defaults, each with the options that change them."""
    sep = "，" if lang == "zh" else ", "
    lines = []
    sized = [a for a in assumed if a.basis == "sized"]
    if sized:
        what = sep.join(a.text.get(lang) for a in sized)
        flags = " ".join(dict.fromkeys(a.flag for a in sized))
        why = sized[0].reason.get(lang) if sized[0].reason else ""
        lines.append(Msg(f"Assumed (not given) - {why}: {what}; change with {flags}",
                         f"假设（未指定）——{why}：{what}；可用 {flags} 修改").get(lang))
    line = assumed_line([a for a in assumed if a.basis != "sized"], lang)
    return [*lines, *([line] if line else [])]


def assumed_line(assumed: list[AssumedSetting], lang: str) -> str:
    """One line for the plan's text: what was assumed and the options that change it."""
    if not assumed:
        return ""
    sep = "，" if lang == "zh" else ", "
    what = sep.join(a.text.get(lang) for a in assumed)
    flags = " ".join(dict.fromkeys(a.flag for a in assumed))
    return Msg(f"Assumed (the task's defaults, not given): {what}; change with {flags}",
               f"假设（任务默认值，未指定）：{what}；可用 {flags} 修改").get(lang)


__all__ = ["SETTINGS", "AssumedSetting", "assumed_line", "assumed_lines", "assumed_settings"]

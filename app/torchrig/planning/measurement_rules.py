"""Rules for a measurement's context (``measured_*``, written by ``torchrig verify --apply``
beside the measured figures), part of the one workload validation (planning/workload.py)
used for load and save: each value checked, then all or none of the context, only with the
figures it describes; a transformer's also names the attention and the length measured, a
vision model's the image size (the planner corrects and scales by them,
requirements/activations.py)."""

from __future__ import annotations

from collections.abc import Callable

from torchrig.planning.rule_kit import Facts, Rule, given_without_arch, group
from torchrig.planning.workload_fields import MEASURED_ATTENTIONS, MEASURED_DEVICES, PRECISIONS


def _measured_date_broken(c: Facts) -> bool:
    value = c.w.measured_date
    if value is None:
        return False
    if not isinstance(value, str) or len(value) != 10:
        return True
    import datetime  # only for a workload that gives a measurement's date (issue 27)

    try:
        datetime.date.fromisoformat(value)
    except ValueError:
        return True
    return False


def _given_none(name: str) -> Callable[[Facts], bool]:
    return lambda c: getattr(c.w, name) is None


def _measured(c: Facts) -> bool:
    return any(getattr(c.w, n) is not None for n in MEASUREMENT_FIELDS)


MEASUREMENT_FIELDS = ("measured_device", "measured_attention", "measured_precision",
                      "measured_batch", "measured_seq_len", "measured_image_size",
                      "measured_checkpointing", "measured_date")
"""The measurement's context (torchrig verify --apply writes them with the figures)."""
_MEASUREMENT_REQUIRED = ("measured_device", "measured_precision", "measured_batch",
                         "measured_date")

MEASUREMENT_RULES: tuple[Rule, ...] = (
    Rule("measured_device", lambda c: c.w.measured_device is not None
                                       and c.w.measured_device not in MEASURED_DEVICES,
          f"must be one of {', '.join(MEASURED_DEVICES)}"),
    Rule("measured_attention", lambda c: c.w.measured_attention is not None
                                          and c.w.measured_attention not in MEASURED_ATTENTIONS,
          f"must be one of {', '.join(MEASURED_ATTENTIONS)}"),
    Rule("measured_precision", lambda c: c.w.measured_precision is not None
                                          and c.w.measured_precision not in PRECISIONS,
          f"must be one of {', '.join(PRECISIONS)}"),
    Rule("measured_checkpointing", lambda c: c.w.measured_checkpointing is not None
                                              and not isinstance(c.w.measured_checkpointing,
                                                                 bool),
          "must be true or false"),
    Rule("measured_date", _measured_date_broken, "must be a date as YYYY-MM-DD"),
    *group(
        _measured,
        Rule("activation_bytes_per_sample", lambda c: c.w.activation_bytes_per_sample is None
                                                       and c.w.forward_flops_per_sample is None,
              "is required with a measurement's context (measured_*): the context describes "
              "it or forward_flops_per_sample"),
        *(Rule(n, _given_none(n), "is required with the other measured_* fields (the "
                "measurement's context)") for n in _MEASUREMENT_REQUIRED),
        *(Rule(n, given_without_arch(n), "applies to transformer models only")
          for n in ("measured_attention", "measured_seq_len")),
        Rule("measured_seq_len", lambda c: c.model.arch is not None
                                            and c.w.measured_seq_len is None,
              "is required for a transformer's measurement (the planner scales by it)"),
        Rule("measured_image_size", lambda c: c.w.measured_image_size is not None
                                               and c.model.family not in ("cnn", "vit"),
              "applies to vision models (CNN, ViT) only"),
    ),
)

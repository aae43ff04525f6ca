"""The workload a verify run writes back (issue 23): ``verify --apply`` and the Wizard's "Use
the measured figures" (:func:`measured_workload`, with the measurement's context the planner
matches the figures to the plan by), and ``--write-back`` (:func:`feedback_workload`, for a
model the planner cannot size)."""

from __future__ import annotations

from torchrig.planning.workload import MEASURED_DEVICES, Workload, resolve_model
from torchrig.verify.compare import VerifyResult


def feedback_workload(result: VerifyResult) -> Workload | None:
    """For a model the planner cannot size (``result.feedback`` says so), the workload as
    :func:`measured_workload` writes it: the same figures with the same context, so a file
    written back is planned as one written by --apply is (None when the planner can size it)."""
    if result.feedback is None:
        return None
    return measured_workload(result)


def measured_workload(result: VerifyResult) -> Workload:
    """The workload with the measured activation bytes and forward FLOPs per sample, marked
    where and when they were measured (``verify --apply``, the Wizard's "Use the measured
    figures"); the planner uses them where it has no calibration of its own for the model."""
    m = result.measured
    batch = max(1, m.batch)
    doc = result.workload.to_dict()
    source = result.source.get("label", "")
    v = result.verified
    resolved = resolve_model(v)
    transformer = resolved.arch is not None
    vision = resolved.family in ("cnn", "vit")
    doc.update(
        activation_bytes_per_sample=round(m.activations / batch),
        forward_flops_per_sample=max(1, round(m.forward_flops / batch)),
        figures_source=(f"measured on {result.device_name} ({result.device_kind}), "
                        f"{result.date}: {source}, torch {result.torch_version}, "
                        f"{result.verified.precision}, batch {m.batch}"
                        + ("; extrapolated from a reduced copy" if result.reduction else "")
                        )[:500])
    if result.device_kind in MEASURED_DEVICES:
        # The context the planner matches the figures to the plan by (planning/requirements/
        # activations.py): the figures are at the full size verified (extrapolated there when
        # a reduced copy ran), on one device. A device of another kind writes none: its
        # figures are then taken as they are.
        doc.update(
            measured_device=result.device_kind,
            measured_attention=result.attention_used if transformer else None,
            measured_precision=v.precision, measured_batch=batch,
            measured_seq_len=v.seq_len if transformer else None,
            measured_image_size=result.image_size_used if vision else None,
            measured_checkpointing=v.gradient_checkpointing, measured_date=result.date)
    return Workload.from_dict(doc, where="workload")

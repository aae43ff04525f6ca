"""The measurement's context (measured_*): written by torchrig verify --apply beside the
measured figures, and refused alike by reading a document and by saving a workload built in
code - the one validation (Workload._check) ends both."""

from __future__ import annotations

import dataclasses

import pytest

from torchrig.errors import InputError
from torchrig.planning.workload import Workload, save_workload, workload_from_options

CONTEXT = dict(measured_device="cpu", measured_precision="fp32", measured_batch=2,
               measured_checkpointing=False, measured_date="2026-12-03")


def custom_cnn(**extra) -> dict:
    w = workload_from_options(task="image_classification", model="custom", params=5_000_000,
                              image_size=64, batch=4)
    return w.to_dict() | dict(activation_bytes_per_sample=1e6) | CONTEXT | extra


def gpt(**extra) -> dict:
    w = workload_from_options(task="nlp_transformer", mode="train", model="custom",
                              style="gpt", layers=2, hidden=64, heads=4, vocab=128, seq_len=32,
                              batch=2, precision="fp32")
    return w.to_dict() | dict(activation_bytes_per_sample=1e6) | CONTEXT | dict(
        measured_attention="sdpa_math", measured_seq_len=32) | extra


def test_the_context_round_trips_through_a_file(tmp_path):
    w = Workload.from_dict(gpt())
    assert (w.measured_device, w.measured_attention, w.measured_precision, w.measured_batch,
            w.measured_seq_len, w.measured_checkpointing, w.measured_date) == (
        "cpu", "sdpa_math", "fp32", 2, 32, False, "2026-12-03")
    save_workload(w, tmp_path / "w.json")
    from torchrig.planning.workload import load_workload

    assert load_workload(tmp_path / "w.json") == w
    cnn = Workload.from_dict(custom_cnn(measured_image_size=64))
    save_workload(cnn, tmp_path / "cnn.json")
    assert load_workload(tmp_path / "cnn.json").measured_image_size == 64


BAD = [
    (custom_cnn, dict(measured_device="tpu"), "measured_device' must be one of cpu, cuda, mps"),
    (gpt, dict(measured_attention="flash"), "measured_attention' must be one of sdpa, "
                                            "sdpa_math, eager"),
    (custom_cnn, dict(measured_precision="fp64"), "measured_precision' must be one of"),
    (custom_cnn, dict(measured_checkpointing="no"), "measured_checkpointing' must be true or "
                                                    "false"),
    (custom_cnn, dict(measured_date="2026-13-01"), "measured_date' must be a date as "
                                                   "YYYY-MM-DD"),
    (custom_cnn, dict(measured_date="3 Dec 2026"), "must be a date as YYYY-MM-DD"),
    (custom_cnn, dict(measured_batch=0), "measured_batch' must be between 1 and"),
    (custom_cnn, dict(activation_bytes_per_sample=None),
     "activation_bytes_per_sample' is required with a measurement's context"),
    (custom_cnn, dict(measured_date=None), "measured_date' is required with the other "
                                           "measured_\\* fields"),
    (custom_cnn, dict(measured_device=None), "measured_device' is required"),
    (custom_cnn, dict(measured_attention="sdpa"), "measured_attention' applies to transformer "
                                                  "models only"),
    (custom_cnn, dict(measured_seq_len=32), "measured_seq_len' applies to transformer"),
    (gpt, dict(measured_seq_len=None), "measured_seq_len' is required for a transformer"),
    (gpt, dict(measured_image_size=224), "measured_image_size' applies to vision models"),
    (custom_cnn, dict(measured_image_size=0), "measured_image_size' must be between 1 and"),
]


@pytest.mark.parametrize(("make", "extra", "words"), BAD)
def test_reading_refuses_a_bad_context_naming_the_field(make, extra, words):
    with pytest.raises(InputError, match=words):
        Workload.from_dict(make(**extra))


@pytest.mark.parametrize(("make", "extra", "words"), BAD)
def test_saving_refuses_the_same_context_with_the_same_words(make, extra, words, tmp_path):
    good = Workload.from_dict(make())
    bad = dataclasses.replace(good, **extra)  # built in code: not read through the fields
    with pytest.raises(InputError, match=words):
        save_workload(bad, tmp_path / "w.json")
    assert not (tmp_path / "w.json").exists()  # nothing half-written


def test_a_workload_without_a_measurement_needs_no_context():
    w = workload_from_options(task="image_classification", model="custom", params=5_000_000,
                              image_size=64, batch=4)
    assert w.measured_device is None and Workload.from_dict(w.to_dict()) == w

"""figures_source: where a workload's activation bytes / FLOPs per sample came from."""

from __future__ import annotations

import pytest

from torchrig.errors import InputError
from torchrig.planning.workload import Workload, workload_from_options


def custom_cnn(**extra) -> dict:
    w = workload_from_options(task="image_classification", model="custom", params=5_000_000,
                              image_size=64, batch=4)
    doc = w.to_dict()
    doc.update(extra)
    return doc


def test_source_round_trips_with_its_figures():
    doc = custom_cnn(activation_bytes_per_sample=1e6, figures_source="measured by torchrig verify")
    w = Workload.from_dict(doc)
    assert w.figures_source == "measured by torchrig verify"
    assert Workload.from_dict(w.to_dict()) == w


@pytest.mark.parametrize("extra,words", [
    (dict(figures_source="measured"), "give one of them"),
    (dict(activation_bytes_per_sample=1.0, figures_source=""), "1 to 500"),
    (dict(activation_bytes_per_sample=1.0, figures_source=5), "text"),
])
def test_bad_source_names_the_field(extra, words):
    with pytest.raises(InputError, match=f"figures_source.*{words}"):
        Workload.from_dict(custom_cnn(**extra))

"""What the Wizard's model counts as assumed (issue 24, "no silent defaults"): the fields that
still hold what the Wizard filled in, one rule with ``torchrig plan`` (planning.assumed_settings)
- and the page rebuilt for another language says the same (snapshot and restore carry it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from torchrig.catalog import load_catalog
from torchrig.planning.wizard_model import WizardModel

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def _options(model: WizardModel) -> list[str]:
    return [a.flag for a in model.assumed()]


def test_the_fields_left_as_filled_in_are_assumed_and_typed_ones_are_not(catalog):
    model = WizardModel(catalog)
    model.load(model.for_task("llm_finetune_lora"))
    assert _options(model) == [
        "--model", "--gpus", "--nodes", "--strategy", "--checkpointing", "--precision",
        "--optimizer", "--batch", "--grad-accumulation", "--seq-len", "--lora-rank",
        "--epochs", "--dataset-samples", "--sample-bytes"]
    model.fields["epochs"] = "1"
    model.fields["dataset.samples"] = "1000"
    model.check()
    assert "--epochs" not in _options(model) and "--dataset-samples" not in _options(model)
    # A rebuilt page (another language) restores the same model state: same assumptions.
    other = WizardModel(catalog)
    other.restore(model.snapshot())
    other.load(other.workload)
    assert _options(other) == _options(model)
    assert other.assumed_note("zh").startswith("假设（任务默认值，未指定）：模型 Llama 2 7B")


def test_a_workload_file_and_an_import_are_the_users(catalog):
    model = WizardModel(catalog)
    model.load(model.load_file(ROOT / "workloads" / "llama2-7b-lora.json"))
    assert model.assumed() == [] and model.assumed_note("en") == ""
    model.load(model.workload_from_config(ROOT / "tests" / "planning" / "hf_configs"
                                          / "llama-2-70b"))
    assert model.workload.task == "llm_finetune_lora"  # the import keeps a text task
    sized = [a.flag for a in model.assumed() if a.basis == "sized"]
    assert sized == ["--gpus", "--strategy", "--checkpointing"]
    assert "--model" not in _options(model)  # the imported config is the user's model

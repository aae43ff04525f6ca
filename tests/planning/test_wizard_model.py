"""The Wizard's model without widgets (planning/wizard_model.py): what typed values become,
which field an error lands on, staleness, plan generations, money terms, the subject, and
snapshot/restore.

Expected values are worked out here by hand, or taken from the source that owns them (the
workload loader's own message for a hand-made document); never from the model itself.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import pytest

from torchrig.builds.capabilities import Capabilities
from torchrig.catalog import load_catalog
from torchrig.errors import InputError
from torchrig.i18n import Msg
from torchrig.planning.wizard_model import (
    FIELD_KINDS,
    FieldError,
    MoneyFields,
    PlanRequest,
    WizardModel,
    compute_plan,
    fields_of,
    parse_number,
    scaling_for,
)
from torchrig.planning.workload import Dataset, Workload, default_workload

HF_CONFIGS = Path(__file__).resolve().parent / "hf_configs"


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


@pytest.fixture
def model(catalog):
    return WizardModel(catalog)


def _loader_message(doc: dict) -> str:
    """What the workload loader says about ``doc`` (the Wizard passes it on unchanged, less
    the leading "workload: ")."""
    with pytest.raises(InputError) as caught:
        Workload.from_dict(doc, where="workload")
    return str(caught.value).removeprefix("workload: ")


# --- typed text -> values ---------------------------------------------------------------------


@pytest.mark.parametrize(("text", "kind", "value"), [
    ("64", "int", 64),
    (" 1,024 ", "int", 1024),           # thousands separators are ignored
    ("1_000_000", "int", 1_000_000),
    ("1.5e9", "int", 1_500_000_000),    # 1.5 x 10^9 is a whole number
    ("1e3", "int", 1000),
    ("2.5", "float", 2.5),
    ("110,000", "float", 110_000.0),
    ("", "int", None),                  # empty: not set
    ("   ", "float", None),
])
def test_typed_numbers_parse(text, kind, value):
    parsed, error = parse_number(text, kind)
    assert error is None
    assert parsed == value and type(parsed) is type(value)


@pytest.mark.parametrize(("text", "kind", "error"), [
    ("1.5", "int", FieldError("not_whole", "1.5")),
    ("1.5e0", "int", FieldError("not_whole", "1.5e0")),
    ("inf", "int", FieldError("not_whole", "inf")),
    ("abc", "int", FieldError("not_a_number", "abc")),
    (" 12 GB ", "float", FieldError("not_a_number", "12 GB")),   # as read: stripped
    ("1,2x", "float", FieldError("not_a_number", "1,2x")),       # shown as typed
])
def test_typed_numbers_that_do_not_parse_say_why(text, kind, error):
    assert parse_number(text, kind) == (None, error)


def test_a_workloads_fields_are_codes_flags_and_numbers_as_text():
    workload = replace(default_workload("image_generation"), mode="infer", optimizer="adamw",
                       gradient_checkpointing=False, batch_size=4, epochs=2.0,
                       guidance=False, denoising_steps=30,
                       dataset=Dataset(samples=1000, sample_bytes=1.5e5))
    fields = fields_of(workload)
    assert list(fields) == list(FIELD_KINDS)
    assert fields["task"] == "image_generation" and fields["model"] == "sd-1.5"
    assert fields["batch_size"] == "4"
    assert fields["epochs"] == "2"                      # 2.0 shows as a whole number
    assert fields["dataset.sample_bytes"] == "150000"
    assert fields["dataset.decoded_bytes"] == ""        # None: empty
    assert fields["denoising_steps"] == "30"
    assert fields["guidance"] == "off"                  # False is the "off" choice
    assert fields["gradient_checkpointing"] is False
    assert fields["dataset.cache_in_ram"] is False
    assert fields_of(replace(workload, guidance=None))["guidance"] == "default"
    assert fields_of(replace(workload, guidance=True))["guidance"] == "on"


# --- validation -------------------------------------------------------------------------------


def test_the_typed_values_become_the_workload(model):
    model.fields["batch_size"] = "128"
    model.fields["epochs"] = "10"
    model.fields["dataset.cache_in_ram"] = True
    result = model.check()
    assert result.errors == {} and result.general == ""
    assert result.workload is model.workload
    assert model.workload.batch_size == 128 and model.workload.epochs == 10.0
    assert model.workload.dataset.cache_in_ram is True
    assert model.stale is False


def test_a_field_that_does_not_parse_is_named_and_nothing_else_changes(model):
    before = model.workload
    model.fields["batch_size"] = "lots"
    model.fields["epochs"] = "1,5x"
    model.fields["seq_len"] = "12.5"
    result = model.check()
    assert result.workload is None
    assert result.errors == {"batch_size": FieldError("not_a_number", "lots"),
                             "epochs": FieldError("not_a_number", "1,5x"),
                             "seq_len": FieldError("not_whole", "12.5")}
    assert model.stale is True
    assert model.workload is before      # the last valid workload stays


def test_a_value_the_loader_refuses_gets_the_loaders_message_on_its_field(model):
    doc = default_workload("image_classification").to_dict()
    doc["batch_size"] = -3
    expected = _loader_message(doc)
    assert "'batch_size'" in expected
    model.fields["batch_size"] = "-3"
    result = model.validate()
    assert result.errors == {"batch_size": FieldError("rejected", expected)}
    assert result.general == ""


def test_a_dataset_field_is_found_by_its_short_name(model):
    doc = default_workload("image_classification").to_dict()
    doc["dataset"] = {**doc["dataset"], "samples": -1}
    expected = _loader_message(doc)
    model.fields["dataset.samples"] = "-1"
    assert model.validate().errors == {"dataset.samples": FieldError("rejected", expected)}


def test_a_loader_message_that_names_no_field_is_general(catalog):
    # The attention kernel has no Wizard field: its error cannot sit next to one.
    broken = replace(default_workload("image_classification"), attention="bogus")
    expected = _loader_message(broken.to_dict())
    assert "'attention'" in expected
    model = WizardModel(catalog, workload=broken)
    result = model.check()
    assert result.workload is None and result.errors == {}
    assert result.general == expected
    assert model.stale is True


def test_stale_until_the_values_are_valid_again(model):
    model.fields["batch_size"] = "7"
    assert model.check().workload is not None and not model.stale
    model.fields["batch_size"] = "-3"
    model.check()
    assert model.stale and model.workload.batch_size == 7
    model.fields["batch_size"] = "8"
    model.check()
    assert not model.stale and model.workload.batch_size == 8


def test_a_preset_model_ignores_the_custom_fields_and_drops_an_imported_shape(model):
    model.load(model.workload_from_config(HF_CONFIGS / "llama-2-7b" / "config.json"))
    assert model.custom
    assert (model.workload.layers, model.workload.hidden, model.workload.vocab) == \
        (32, 4096, 32000)
    # Custom: what is typed counts.
    model.fields["layers"] = "16"
    doc, errors = model.document()
    assert errors == {} and doc["layers"] == 16 and doc["ffn"] == 11008
    # A preset instead: the custom fields and the config's shape are dropped.
    model.fields["model"] = "llama-2-7b"
    doc, errors = model.document()
    assert errors == {}
    assert doc["model"] == "llama-2-7b"
    assert all(doc[key] is None for key in ("params", "layers", "hidden", "heads",
                                            "kv_heads", "vocab", "ffn", "style"))
    assert model.check().workload.layers is None


def test_loading_a_workload_shows_it_in_every_field(model):
    bert = default_workload("nlp_transformer")
    model.fields["batch_size"] = "oops"
    model.load(bert)
    assert model.workload is bert
    assert model.fields["task"] == "nlp_transformer" and model.fields["batch_size"] == "32"
    assert model.check().workload == bert


def test_the_models_offered_follow_the_task(model):
    assert model.models_for("image_classification") == ["resnet18", "resnet50", "resnet152",
                                                        "vit-b-16"]
    assert "llama-2-7b" in model.models_for("llm_finetune_lora")
    assert "llama-2-7b" not in model.models_for("nlp_transformer")
    assert model.for_task("llm_inference").mode == "infer"


# --- an imported Hugging Face config ----------------------------------------------------------


def test_a_config_takes_its_own_task_unless_the_current_one_suits_it(model):
    llama = HF_CONFIGS / "llama-2-7b" / "config.json"
    # Image classification does not suit a causal LM: the config's own suggestion.
    workload = model.workload_from_config(llama)
    assert (workload.task, workload.model) == ("llm_inference", "custom")
    assert (workload.layers, workload.heads, workload.kv_heads) == (32, 32, 32)
    # An LLM task stays.
    model.load(default_workload("llm_finetune_lora"))
    assert model.workload_from_config(llama).task == "llm_finetune_lora"
    # A BERT config takes its own task even on an LLM task.
    bert = model.workload_from_config(HF_CONFIGS / "bert-base-uncased" / "config.json")
    assert bert.task == "nlp_transformer"


def test_a_config_that_cannot_be_read_raises_input_error(model, tmp_path):
    bad = tmp_path / "config.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(InputError):
        model.workload_from_config(bad)


# --- money terms ------------------------------------------------------------------------------


def test_money_terms_read_hours_rates_and_prices(model):
    model.money = MoneyFields(time_target="30", currency="CNY", rate="7.1",
                              hourly_gpu="nvidia-a100-80gb-sxm", hourly_price="1,012.5")
    terms = model.money_terms()
    assert terms.time_target_s == 30 * 3600.0
    assert terms.currency == "CNY" and terms.cny_per_usd == Decimal("7.1")
    assert terms.hourly == {"nvidia-a100-80gb-sxm": Decimal("1012.5")}
    assert terms.errors == ()


def test_money_fields_left_empty_are_no_terms(model):
    # ... but the rate: an empty rate field stands for the shipped reference (next tests).
    terms = model.money_terms()
    assert (terms.time_target_s, terms.currency, terms.hourly) == (None, "USD", {})


def test_money_fields_that_do_not_parse_are_left_out_and_named_in_order(model):
    model.money = MoneyFields(time_target="-2", rate="0", hourly_gpu="x", hourly_price="abc")
    terms = model.money_terms()
    assert terms.errors == ("time_target", "rate", "hourly_price")
    assert (terms.time_target_s, terms.cny_per_usd, terms.hourly) == (None, None, {})
    model.money = MoneyFields(time_target="soon", rate="7", hourly_gpu="x", hourly_price="-1")
    terms = model.money_terms()
    assert terms.errors == ("time_target", "hourly_price")
    assert terms.cny_per_usd == Decimal("7")
    model.money = MoneyFields(time_target="inf")
    assert model.money_terms().errors == ("time_target",)


def test_the_settings_rate_fills_the_field_until_the_user_types_one(catalog):
    model = WizardModel(catalog, default_cny_per_usd=Decimal("7.25"))
    assert model.money.rate == "7.25"
    assert model.set_default_rate(Decimal("7.3")) is True
    assert model.money.rate == "7.3"
    model.money = replace(model.money, rate="6.9")        # typed by the user
    assert model.set_default_rate(Decimal("7.4")) is False
    assert model.money.rate == "6.9" and model.default_cny_per_usd == Decimal("7.4")
    model.money = replace(model.money, rate=" 7.4 ")      # the default again
    assert model.set_default_rate(None) is True
    assert model.money.rate == ""
    assert WizardModel(catalog).money.rate == ""


# --- subject ----------------------------------------------------------------------------------


def test_the_subject_is_the_machine_a_tier_or_the_build(model, catalog):
    assert model.subject_choice == "machine" and model.subject() is None  # not detected yet
    model.subject_choice = "tier:professional"
    caps = model.subject()
    assert caps.kind == "tier" and caps.label.en == "Professional research"
    build = Capabilities(label=Msg.verbatim("my build"), kind="build")
    assert model.set_build_caps(build) is False      # the plan is for the tier
    model.subject_choice = "build"
    assert model.subject() is build
    assert model.set_build_caps(None) is True
    assert model.subject() is None


# --- plan requests and results ----------------------------------------------------------------


def _request(model: WizardModel, subject: str = "tier:professional") -> PlanRequest:
    model.subject_choice = subject
    model.check()
    return model.request_plan(model.subject(), model.money_terms())


def test_only_the_newest_plan_is_shown(model, catalog):
    model.money = MoneyFields(hourly_gpu="nvidia-a100-80gb-sxm", hourly_price="2")
    first = _request(model)
    model.fields["batch_size"] = "64"
    second = _request(model)
    assert (first.generation, second.generation) == (1, 2)
    assert model.pending is second                      # the first never started
    assert second.workload.batch_size == 64
    assert model.priced == ("nvidia-a100-80gb-sxm",)
    assert model.take_pending() is second and model.pending is None
    assert model.take_pending() is None
    old = compute_plan(replace(second, generation=1), catalog)
    assert model.accept(old) is False and model.analysis is None
    new = compute_plan(second, catalog)
    assert model.accept(new) is True
    assert model.analysis is new.analysis and model.last_plan_ms == new.ms
    assert model.analysis.requirements.workload.batch_size == 64


def test_the_plan_is_for_the_request_and_models_scaling_with_a_catalog_gpu(model, catalog):
    # On a tier's GPU the scaling curves use that GPU.
    on_tier = compute_plan(_request(model), catalog)
    assert on_tier.analysis.subject.kind == "tier"
    assert on_tier.analysis.requirements.workload == model.workload
    assert on_tier.ms > 0
    series, modelled_with = scaling_for(on_tier.analysis, on_tier.advice)
    assert series and modelled_with == ""
    # A subject without a GPU has no step time: the recommended catalog GPU models them.
    model.check()
    bare = Capabilities(label=Msg.verbatim("no GPU"), kind="machine")
    result = compute_plan(model.request_plan(bare, model.money_terms()), catalog)
    gpu = result.advice.recommendation.gpu
    series, modelled_with = scaling_for(result.analysis, result.advice)
    assert gpu is not None and modelled_with == gpu.name
    assert series
    # Inference has no scaling curve.
    model.load(default_workload("llm_inference"))
    inference = compute_plan(_request(model), catalog)
    assert scaling_for(inference.analysis, inference.advice)[0] == []


# --- snapshot / restore -----------------------------------------------------------------------


def test_snapshot_and_restore_round_trip_with_typed_text(model, catalog):
    model.load(default_workload("llm_finetune_lora"))
    model.fields["batch_size"] = "8 please"          # not valid yet: kept as typed
    model.subject_choice = "tier:enterprise"
    model.collective_report = {"kind": "collective"}
    model.money = MoneyFields("12", "CNY", "7.2", "nvidia-a100-80gb-sxm", "3")
    state = model.snapshot()
    assert state["fields"]["batch_size"] == "8 please"
    assert state["money"] == {"time_target": "12", "currency": "CNY", "rate": "7.2",
                              "hourly_gpu": "nvidia-a100-80gb-sxm", "hourly_price": "3"}
    other = WizardModel(catalog)
    other.restore(state)
    assert other.snapshot() == state
    assert other.workload == default_workload("llm_finetune_lora")
    assert other.validate().errors == {"batch_size": FieldError("not_a_number", "8 please")}
    # The snapshot is a copy: editing the model afterwards does not change it.
    model.fields["batch_size"] = "9"
    assert state["fields"]["batch_size"] == "8 please"


def test_a_snapshot_without_money_keeps_the_money_fields(model, catalog):
    state = model.snapshot()
    del state["money"]
    other = WizardModel(catalog, default_cny_per_usd=Decimal("7"))
    other.restore(state)
    assert other.money == MoneyFields(rate="7")


def test_every_field_has_a_label_and_help_in_the_page():
    pytest.importorskip("PySide6")
    from torchrig.gui.pages.wizard_texts import FIELD_HELP, FIELDS

    assert list(FIELDS) == list(FIELD_KINDS)
    assert set(FIELD_HELP) == set(FIELD_KINDS)


def test_an_empty_rate_means_the_shipped_reference_and_a_typed_one_wins(catalog):
    # resources/catalog/exchange_rates.json read here directly: the one shipped rate.
    import json
    from pathlib import Path

    [shipped] = json.loads((Path(catalog.root) / "catalog" / "exchange_rates.json").read_text(
        encoding="utf-8"))["rates"]
    model = WizardModel(catalog)
    assert model.money_terms().cny_per_usd == Decimal(shipped["rate"])
    model.money = MoneyFields(rate="6.5")
    assert model.money_terms().cny_per_usd == Decimal("6.5")


def test_a_task_change_keeps_a_custom_transformer_and_cuts_the_context(model):
    # A 1,024-position custom transformer on inference; LoRA's default context is 2,048
    # tokens (default_workload), more than the model has: it becomes 1,024.
    doc = default_workload("llm_inference").to_dict()
    doc.update(model="custom", name="mine", layers=12, hidden=768, heads=12, vocab=50257,
               max_positions=1024, seq_len=512)
    model.load(Workload.from_dict(doc, where="t"))
    lora = model.for_task("llm_finetune_lora")
    assert (lora.task, lora.model, lora.name, lora.layers, lora.hidden, lora.heads) == (
        "llm_finetune_lora", "custom", "mine", 12, 768, 12)
    assert lora.seq_len == 1024
    assert lora.precision == default_workload("llm_finetune_lora").precision
    # Across families the task's own default model comes back.
    assert model.for_task("image_classification").model == default_workload(
        "image_classification").model

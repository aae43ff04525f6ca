"""verify runs a preset's published model, not TorchRig's copy (issue 23): the transformer
presets' Hugging Face configs as the Hub publishes them, torchvision's classifiers, and the
reference copy only where no library model exists or when asked for (--reference-model)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from torchrig.cli import main
from torchrig.planning.presets import load_presets
from torchrig.planning.workload import workload_from_options
from torchrig.verify.preset_models import (
    CONFIG_SOURCES,
    TRANSFORMER_CONFIGS,
    preset_config,
    preset_model_source,
)

HUB_COPIES = {  # the test oracle: tests/planning/hf_configs/<folder>/config.json
    "bert-base": "bert-base-uncased", "bert-base-cased": "bert-base-cased",
    "bert-large": "bert-large-uncased", "gpt2": "gpt2", "llama-2-7b": "llama-2-7b",
    "llama-2-13b": "llama-2-13b", "llama-2-70b": "llama-2-70b", "llama-3-8b": "llama-3-8b",
    "llama-3-70b": "llama-3-70b",
}


HUB_FILES = Path(__file__).resolve().parents[1] / "planning" / "hf_configs"


def hub_config(pid: str) -> dict:
    return json.loads((HUB_FILES / HUB_COPIES[pid] / "config.json").read_text())


def test_every_transformer_preset_with_a_published_config_has_one():
    transformers = {p for p, preset in load_presets().items() if preset.family == "transformer"}
    # GPT-3 alone has no published config (OpenAI released none).
    assert set(TRANSFORMER_CONFIGS) == transformers - {"gpt-3-175b"} == set(CONFIG_SOURCES)


@pytest.mark.parametrize("pid", sorted(HUB_COPIES))
def test_shipped_config_equals_the_hub_files_keys(pid):
    hub = hub_config(pid)
    shipped = TRANSFORMER_CONFIGS[pid]
    # Every architecture key the Hub file gives is shipped with its value (the copy in the
    # tests was written from the Hub independently); load hints are not architecture.
    hints = {"architectures", "_name_or_path", "torch_dtype", "attention_bias"}
    for key, value in hub.items():
        if key not in hints:
            assert (key, shipped.get(key)) == (key, value)


@pytest.mark.parametrize("pid,head_class,count", [
    # Each published count is the class the preset counts (param_parts.PRESET_HEAD):
    # BERT-base 110M with its pooler (BertModel), GPT-2 124M and Llama-2-7B as causal LMs.
    ("bert-base", "BertModel", 109_482_240),
    ("gpt2", "GPT2LMHeadModel", 124_439_808),
    ("llama-2-7b", "LlamaForCausalLM", 6_738_415_616),
    ("llama-3-8b", "LlamaForCausalLM", 8_030_261_248),
])
def test_the_shipped_config_builds_the_published_parameter_count(pid, head_class, count):
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    data = dict(TRANSFORMER_CONFIGS[pid])
    config = transformers.AutoConfig.for_model(data.pop("model_type"), **data)
    with torch.device("meta"):  # no memory, no weights
        model = getattr(transformers, head_class)(config)
    assert sum(p.numel() for p in model.parameters()) == count


def test_the_class_follows_the_planned_head_and_the_config_the_workload():
    bert = workload_from_options(task="nlp_transformer", mode="finetune", model="bert-base")
    assert preset_config(bert)["architectures"] == ["BertForSequenceClassification"]
    pre = workload_from_options(task="nlp_transformer", mode="train", model="bert-base")
    assert preset_model_source(pre).name == "BertForMaskedLM"
    gpt = workload_from_options(task="nlp_transformer", mode="train", model="gpt2",
                                attention_dropout=0.0, hidden_dropout=0.05)
    config = preset_config(gpt)
    assert config["architectures"] == ["GPT2LMHeadModel"]
    assert (config["attn_pdrop"], config["resid_pdrop"], config["embd_pdrop"]) == \
        (0.0, 0.05, 0.1)
    classifier = workload_from_options(task="nlp_transformer", mode="finetune", model="gpt2",
                                       head="sequence_classification", num_labels=5)
    config = preset_config(classifier)
    assert config["architectures"] == ["GPT2ForSequenceClassification"]
    # GPT-2 pools its last non-pad token and refuses batches over 1 without a pad token.
    assert config["num_labels"] == 5 and config["pad_token_id"] == 50256
    llama = workload_from_options(task="llm_finetune_full", model="llama-3-8b")
    assert preset_model_source(llama).name == "LlamaForCausalLM"


def test_vision_presets_run_torchvision_and_the_rest_say_why_not():
    rn = workload_from_options(task="image_classification", model="resnet50")
    assert (preset_model_source(rn).kind, preset_model_source(rn).name) == \
        ("torchvision", "resnet50")
    vit = workload_from_options(task="image_classification", model="vit-b-16")
    assert preset_model_source(vit).name == "vit_b_16"
    for task, model, why in (
            ("reinforcement_learning", "nature-cnn", "defined in its paper"),
            ("detection_segmentation", "yolov8m", "Ultralytics"),
            ("llm_finetune_full", "gpt-3-175b", "no Hugging Face config"),
            ("detection_segmentation", "resnet50", "no library model stands for")):
        source = preset_model_source(workload_from_options(task=task, model=model))
        assert source.kind == "reference" and why in source.fallback.en
        assert source.fallback.zh and source.fallback.zh != source.fallback.en


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.slow  # BERT-base on transformers and as the reference copy, smallest sizes
def test_a_preset_verifies_on_transformers_and_the_reference_model_on_request():
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from torchrig.verify import measure as v
    from torchrig.verify.sources import REFERENCE

    # Plain SGD, not the default AdamW: the two moments of BERT's 23.4M-parameter embedding
    # made each probe about 2 s instead of 1 (9 probes over the two runs); the weights and
    # the model's source, what this checks, do not depend on the optimizer.
    w = workload_from_options(task="nlp_transformer", mode="finetune", model="bert-base",
                              batch=2, seq_len=16, precision="fp32", optimizer="sgd")
    runtime = v.Runtime("cpu", "cpu", "test CPU", None, 2**32)
    library = v.verify(w, "cpu", runtime=runtime, quick=True)
    assert library.source == {"kind": "transformers",
                              "label": "transformers BertForSequenceClassification",
                              "fallback": None}
    copy = v.verify(w, "cpu", runtime=runtime, quick=True, source=REFERENCE)
    assert copy.source["kind"] == "reference"
    assert copy.source["fallback"]["en"] == "asked for with --reference-model"
    # The same BERT-base with a 2-way classifier, the same parameters; transformers also
    # keeps position_ids and token_type_ids buffers, 2 x 512 int64 (the preset's 8,192
    # buffer bytes), which the reference copy does not.
    assert library.row("weights").measured - copy.row("weights").measured == 2 * 512 * 8


def test_the_reference_model_flag_asks_for_the_copy(monkeypatch, capsys):
    # The CLI's --reference-model reaches verify as the reference source (the run itself is
    # the test above); the fake measures nothing, so the command then fails in one line.
    import torchrig.verify.measure as measure
    from torchrig.verify.sources import REFERENCE

    asked = {}

    def fake_verify(workload, device, *args, **kwargs):
        asked.update(kwargs, workload=workload)
        raise measure.VerifyError(measure.Msg("not measured here", "此处未测量"))

    monkeypatch.setattr(measure, "verify", fake_verify)
    assert main(["verify", "--task", "nlp_transformer", "--model", "bert-base",
                 "--reference-model", "--device", "cpu"]) != 0
    assert asked["source"] is REFERENCE and asked["workload"].model == "bert-base"
    assert "not measured here" in capsys.readouterr().err


def test_reference_model_with_a_library_model_flag_is_bad_input(capsys, tmp_path):
    code, out, err = _run(capsys, "verify", "--model", "torchvision:resnet18",
                          "--reference-model", "--device", "cpu")
    assert code == 2 and out == "" and "--reference-model" in err

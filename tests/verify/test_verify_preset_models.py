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


@pytest.mark.slow  # a two-layer BERT and its reference copy, trained a few steps each
def test_a_preset_verifies_on_transformers_and_reference_model_on_request(capsys, tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    flags = ["--task", "nlp_transformer", "--mode", "finetune", "--model", "bert-base",
             "--batch", "2", "--seq-len", "16", "--precision", "fp32", "--device", "cpu"]
    code, out, err = _run(capsys, "verify", *flags, "--json", str(tmp_path / "lib.json"))
    assert code == 0, err
    doc = json.loads((tmp_path / "lib.json").read_text())
    assert doc["source"] == {"kind": "transformers",
                             "label": "transformers BertForSequenceClassification",
                             "fallback": None}
    assert "Model source: transformers BertForSequenceClassification" in out
    code, out, err = _run(capsys, "verify", *flags, "--reference-model", "--json",
                          str(tmp_path / "ref.json"))
    assert code == 0, err
    ref = json.loads((tmp_path / "ref.json").read_text())
    assert ref["source"]["kind"] == "reference"
    assert ref["source"]["fallback"]["en"] == "asked for with --reference-model"
    assert "Model source: TorchRig reference model" in out
    # Both are BERT-base with a 2-way classifier, the same parameters; transformers also
    # keeps position_ids and token_type_ids buffers, 2 x 512 int64 (the preset's 8,192
    # buffer bytes), which the reference copy does not.
    weights = [next(r for r in d["rows"] if r["key"] == "weights")["measured"]
               for d in (doc, ref)]
    assert weights[0] - weights[1] == 2 * 512 * 8


def test_reference_model_with_a_library_model_flag_is_bad_input(capsys, tmp_path):
    code, out, err = _run(capsys, "verify", "--model", "torchvision:resnet18",
                          "--reference-model", "--device", "cpu")
    assert code == 2 and out == "" and "--reference-model" in err

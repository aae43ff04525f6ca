"""Parameter counts in the plan (total, trainable, embeddings / blocks / head, LoRA adapters)
against the real transformers model's ``sum(p.numel())`` and peft's LoRA count - the library
is the independent oracle: each model is built from its config on the meta device."""

from __future__ import annotations

import json
import warnings

import pytest
from cfg24_hf_oracle import build, config_dict, count

from torchrig.cli import main
from torchrig.planning.hf_config import hf_workload_fields, parse_hf_config
from torchrig.planning.plan_parameters import plan_parameters
from torchrig.planning.workload import workload_from_options

pytestmark = pytest.mark.slow  # imports transformers (about 10 s once per process)


def _plan(config: dict, task: str, **extra) -> object:
    fields = hf_workload_fields(parse_hf_config(config), task)
    fields.pop("name")
    return plan_parameters(workload_from_options(**{**fields, **extra}))


def test_gpt2_lm_head_model_total_and_parts():
    config = config_dict("gpt2")
    hf = build(config, "GPT2LMHeadModel")
    ours = _plan(config, "llm_finetune_full")
    assert ours.total == count(hf) == 124_439_808
    assert ours.trainable == ours.total
    t = hf.transformer
    assert ours.parts.embeddings == count(t.wte) + count(t.wpe)
    assert ours.parts.blocks == count(t.h) + count(t.ln_f)
    assert ours.parts.head == 0  # lm_head.weight is wte.weight (tied): counted once


def test_bert_sequence_classifier_is_not_given_the_masked_lm_head():
    config = {**config_dict("bert-base-uncased"),
              "architectures": ["BertForSequenceClassification"],
              "id2label": {"0": "neg", "1": "neutral", "2": "pos"}}
    hf = build(config, "BertForSequenceClassification")
    assert hf.config.num_labels == 3
    ours = _plan(config, "nlp_transformer")
    assert ours.head == "sequence_classification"
    assert ours.total == count(hf)
    assert ours.parts.embeddings == count(hf.bert.embeddings)
    assert ours.parts.blocks == count(hf.bert.encoder)
    assert ours.parts.head == count(hf.bert.pooler) + count(hf.classifier)
    # The masked-LM class the shipped config names: transform + 30,522 decoder biases, no
    # pooler (BertForMaskedLM builds BertModel without one).
    mlm = build(config_dict("bert-base-uncased"), "BertForMaskedLM")
    assert _plan(config_dict("bert-base-uncased"), "nlp_transformer").total == count(mlm)
    assert count(mlm) - count(hf) == (768 * 768 + 768 + 2 * 768 + 30_522) - (
        768 * 768 + 768 + 3 * 768 + 3)


@pytest.mark.parametrize("name, class_name", [
    ("llama-2-7b", "LlamaForCausalLM"),
    ("qwen2-0.5b", "Qwen2ForCausalLM"),   # tied embeddings, q/k/v biases
    ("mixtral-8x7b", "MixtralForCausalLM"),  # 8 experts, router
])
def test_decoders_total_and_parts(name, class_name):
    config = config_dict(name)
    hf = build(config, class_name)
    ours = _plan(config, "llm_finetune_full")
    assert ours.total == count(hf)
    assert ours.parts.embeddings == count(hf.model.embed_tokens)
    assert ours.parts.blocks == count(hf.model.layers) + count(hf.model.norm)
    tied = hf.lm_head.weight is hf.model.embed_tokens.weight
    assert ours.parts.head == (0 if tied else hf.lm_head.weight.numel())


def test_moe_with_a_gated_shared_expert_misses_only_its_gate():
    # Qwen1.5-MoE-A2.7B: each layer's shared expert has a 1-output sigmoid gate (hidden
    # weights) that TorchRig's MoE layer does not count: 24 layers x 2048.
    config = config_dict("qwen1.5-moe-a2.7b")
    hf = build(config, "Qwen2MoeForCausalLM")
    ours = _plan(config, "llm_inference")
    assert count(hf) - ours.total == 24 * 2048
    assert ours.trainable == 0


def test_lora_adapters_equal_peft_all_linear_count():
    peft = pytest.importorskip("peft")
    config = {**config_dict("llama-2-7b"), "hidden_size": 256, "intermediate_size": 688,
              "num_hidden_layers": 3, "num_attention_heads": 8, "num_key_value_heads": 2,
              "vocab_size": 1000}
    hf = build(config, "LlamaForCausalLM", meta=False)
    with warnings.catch_warnings():  # peft 0.21 reads a property transformers 5 deprecates
        warnings.simplefilter("ignore", FutureWarning)
        model = peft.get_peft_model(hf, peft.LoraConfig(r=16, target_modules="all-linear"))
    trainable, total = model.get_nb_trainable_parameters()
    ours = _plan(config, "llm_finetune_lora", lora_rank=16, seq_len=256)
    assert ours.trainable == trainable
    assert ours.total == total
    assert ours.parts.lora == trainable
    # by hand: rank x (in + out) per adapted matrix, q/o 256->256, k/v 256->64, MLP 256<->688
    assert trainable == 16 * 3 * (2 * 512 + 2 * 320 + 3 * 944)


def test_gpt2_lora_adapts_the_packed_qkv_layer_once_as_peft_does():
    peft = pytest.importorskip("peft")
    config = {**config_dict("gpt2"), "n_layer": 2, "n_embd": 64, "n_head": 4,
              "vocab_size": 96, "n_positions": 128}
    hf = build(config, "GPT2LMHeadModel", meta=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        model = peft.get_peft_model(hf, peft.LoraConfig(r=8, target_modules="all-linear",
                                                         fan_in_fan_out=True))  # Conv1D
    trainable, total = model.get_nb_trainable_parameters()
    ours = _plan(config, "llm_finetune_lora", lora_rank=8)
    assert (ours.trainable, ours.total) == (trainable, total)
    # by hand: c_attn 64 -> 192, attn c_proj 64 -> 64, mlp c_fc 64 -> 256, c_proj 256 -> 64
    assert trainable == 8 * 2 * ((64 + 192) + (64 + 64) + (64 + 256) + (256 + 64))


def test_plan_json_and_text_carry_the_parts(capsys, tmp_path):
    config = {**config_dict("bert-base-uncased"),
              "architectures": ["BertForTokenClassification"], "num_labels": 9}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    assert main(["plan", "--hf-config", str(path), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)["parameters"]
    hf = build(config, "BertForTokenClassification")
    assert got["params_total"] == got["total"] == count(hf)
    assert got["head"] == "token_classification"
    assert got["parts"]["head"] == count(hf.classifier) == 768 * 9 + 9
    assert got["params_trainable"] == count(hf)  # nlp_transformer fine-tunes every weight
    assert main(["plan", "--hf-config", str(path)]) == 0
    text = capsys.readouterr().out
    assert f"Parameters: {count(hf) / 1e6:,.1f}M total" in text
    assert "token-classification head 0.0M" in text

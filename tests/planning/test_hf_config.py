"""Hugging Face config.json import: each family's fields, checked against the parameter counts
the model cards publish (configs written here from the published values; nothing downloaded)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from torchrig.cli import main
from torchrig.errors import InputError
from torchrig.planning.hf_config import FAMILIES, hf_workload_fields, load_hf_config
from torchrig.planning.presets import load_calibration
from torchrig.planning.requirements import plan
from torchrig.planning.requirements.activations import (
    layer_bytes_per_token,
    transformer_activations,
)
from torchrig.planning.workload import resolve_model, workload_from_options

CONFIGS = Path(__file__).parent / "hf_configs"


def _workload(name, task=None, **extra):
    fields = hf_workload_fields(load_hf_config(CONFIGS / name), task)
    fields.pop("name")
    return workload_from_options(**{**fields, **extra})


# Published totals: the model cards' / safetensors' parameter counts of the base model.
@pytest.mark.parametrize("name, family, params, rel", [
    ("llama-2-7b", "llama", 6_738_415_616, 0),
    ("mistral-7b-v0.1", "mistral", 7_241_732_096, 0),
    ("mixtral-8x7b", "mixtral", 46_702_792_704, 0),
    ("qwen2-0.5b", "qwen2", 494_032_768, 0),  # tied embeddings counted once
    ("qwen2.5-7b", "qwen2", 7_615_616_512, 0),
    ("qwen3-8b", "qwen3", 8_190_735_360, 1e-5),  # q/k norms not counted
    ("qwen3-30b-a3b", "qwen3_moe", 30_532_122_624, 1e-5),
    ("qwen1.5-moe-a2.7b", "qwen2_moe", 14_315_784_192, 1e-5),  # shared-expert gate
    ("gemma-2-9b", "gemma2", 9_241_705_984, 1e-4),  # 4 norms per layer, 2 counted
    ("gemma-3-1b", "gemma3_text", 999_885_952, 1e-4),
    ("phi-3-mini-4k", "phi3", 3_821_079_552, 0),
    ("deepseek-v2-lite", "deepseek_v2", 15.7e9, 0.01),
    ("deepseek-v3", "deepseek_v3", 671e9, 0.01),  # without the 14B multi-token module
    ("gpt2", "gpt2", 124_439_808, 0),
    ("bert-base-uncased", "bert", 109_482_240, 0),
    ("roberta-base", "roberta", 124_645_632, 1e-5),  # one token type, two counted
])
def test_each_family_reads_to_its_published_parameter_count(name, family, params, rel):
    model = load_hf_config(CONFIGS / name / "config.json")
    assert model.family == family
    # The encoders' published counts are the bare model's (with pooler); their configs name
    # the masked-LM class, whose head tests/planning/test_cfg24_params.py checks.
    extra = {"head": "base"} if family in ("bert", "roberta") else {}
    counted = resolve_model(_workload(name, **extra)).params
    assert counted == pytest.approx(params, rel=rel, abs=0)


def test_every_listed_family_has_a_fixture():
    read = {load_hf_config(d).family for d in CONFIGS.iterdir()}
    assert set(FAMILIES) - read == {"gemma"}  # Gemma 1 shares Gemma 2's fields


def test_moe_memory_holds_every_expert_and_compute_uses_the_active_ones():
    """Mixtral 8x7B: 46.7B parameters, 12.9B active per token (Mistral AI's announcement);
    DeepSeek-V3: 671B, 37B active (its technical report)."""
    mixtral = resolve_model(_workload("mixtral-8x7b")).arch
    assert mixtral.active_param_count() == pytest.approx(12.9e9, rel=0.01)
    v3 = resolve_model(_workload("deepseek-v3")).arch
    assert v3.active_param_count() == pytest.approx(37e9, rel=0.02)
    w = _workload("mixtral-8x7b", precision="bf16")
    req = plan(w)
    assert req.vram_per_gpu["weights"].value == pytest.approx(2 * 46_702_792_704)
    flops = req.throughput["prefill_flops"].value
    active = mixtral.forward_matmul_params(lm_head=True)
    assert active < mixtral.total_matmul_params() / 3
    assert flops == pytest.approx((2 * active + 4 * 32 * 4096 * w.seq_len) * w.seq_len)


def test_latent_attention_caches_the_latent_and_the_rotary_key():
    """DeepSeek-V2 sec. 2.1: (d_c + d_h^R) x layers elements per token."""
    arch = resolve_model(_workload("deepseek-v3")).arch
    assert arch.kv_cache_bytes_per_token(2) == 61 * (512 + 64) * 2


def test_sliding_window_layers_keep_only_their_window():
    gemma = resolve_model(_workload("gemma-2-9b")).arch
    assert (gemma.sliding_window, gemma.sliding_layers) == (4096, 21)
    per_layer = gemma.kv_cache_bytes_per_token(2) / 42
    assert gemma.kv_cache_bytes_per_sequence(8192, 2) == per_layer * (21 * 8192 + 21 * 4096)
    gemma3 = resolve_model(_workload("gemma-3-1b")).arch
    assert gemma3.sliding_layers == 26 - 26 // 6
    qwen = resolve_model(_workload("qwen2-0.5b")).arch
    assert qwen.sliding_window == 0  # use_sliding_window is false


def test_tied_embeddings_are_counted_once_in_the_model_states():
    """Qwen2-0.5B ties its LM head to the embeddings: 494M parameters, not 630M."""
    tied = _workload("qwen2-0.5b", task="llm_finetune_full", strategy="ddp", gpus=1,
                     precision="amp_bf16")
    untied = replace(tied, tied_embeddings=False)
    states = lambda w: sum(plan(w).vram_per_gpu[k].value  # noqa: E731
                           for k in ("weights", "gradients", "optimizer_states"))
    assert states(tied) == pytest.approx(16 * 494_032_768)
    assert states(untied) / states(tied) == pytest.approx(1 + 151936 * 896 / 494_032_768)


def test_gqa_under_sdpa_saves_k_and_v_at_the_kv_width():
    cal = load_calibration()
    w = _workload("mistral-7b-v0.1", task="llm_finetune_lora", lora_rank=16,
                  precision="amp_bf16", seq_len=2048)
    arch = resolve_model(w).arch
    tc = cal.transformer_cal("llama", "sdpa", "lm", "amp")
    sdpa, note = layer_bytes_per_token(w, arch, tc, 2048)
    eager, _ = layer_bytes_per_token(replace(w, attention="eager"),
                                     arch, cal.transformer_cal("llama", "eager", "lm", "amp"),
                                     2048)
    assert tc.layer_bytes_per_token(arch, 2048) - sdpa == 2 * 2 * (4096 - 1024)
    assert "KV width" in note.en
    assert eager > sdpa


def test_gpt2_gelu_new_saves_three_more_ffn_wide_tensors():
    cal = load_calibration()
    w = _workload("gpt2", task="nlp_transformer", mode="train", precision="amp_fp16",
                  seq_len=1024)
    arch = resolve_model(w).arch
    assert arch.activation == "gelu_new"
    tc = cal.transformer_cal("gpt", "sdpa", "lm", "amp")
    per_token, _ = layer_bytes_per_token(w, arch, tc, 1024)
    assert per_token - tc.layer_bytes_per_token(arch, 1024) == 3 * 2 * 3072


def test_bert_mlm_loss_under_amp_keeps_6_bytes_per_vocabulary_entry():
    cal = load_calibration()
    w = _workload("bert-base-uncased", mode="train", precision="amp_fp16", seq_len=128,
                  batch=1)
    arch = resolve_model(w).arch
    tc = cal.transformer_cal("bert", "sdpa", "lm", "amp")
    acts = transformer_activations(w, arch, 128, cal, False)
    layers = arch.layers * layer_bytes_per_token(w, arch, tc, 128)[0] * 128
    copies = 2.0 * (arch.total_matmul_params() + arch.vocab * arch.hidden)
    outside = acts.bytes - layers - copies
    # + the masked-LM head transform: 2 + 4 + 2 B per hidden unit + 8 B per token (AMP)
    assert outside - tc.outside_bytes_per_sequence(arch, 128) == 2 * 30522 * 128 + (
        8 * 768 + 8) * 128
    assert tc.outside_per_token["vocab"] + 2 == 6


def test_the_task_follows_the_model_and_the_context_caps_the_sequence():
    assert _workload("bert-base-uncased").task == "nlp_transformer"
    assert _workload("llama-2-7b").task == "llm_inference"
    assert _workload("gpt2").seq_len == 1024  # llm_inference's 4096 > GPT-2's 1024 positions
    with pytest.raises(InputError, match="1024 positions"):
        _workload("gpt2", seq_len=2048)


def test_an_unknown_family_is_refused_naming_what_is_missing(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps(
        {"model_type": "falcon", "hidden_size": 4544, "num_hidden_layers": 32}))
    with pytest.raises(InputError, match="model_type 'falcon' is not a family"):
        load_hf_config(tmp_path)
    (tmp_path / "config.json").write_text(json.dumps(
        {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
         "vocab_size": 32000, "intermediate_size": 11008, "max_position_embeddings": 4096}))
    with pytest.raises(InputError, match="'num_hidden_layers' is missing .*number of layers"):
        load_hf_config(tmp_path / "config.json")
    (tmp_path / "config.json").write_text(json.dumps(
        {"_class_name": "DiTTransformer2DModel", "num_layers": 28}))
    with pytest.raises(InputError, match=r"a diffusers model config \(DiTTransformer2DModel\): "
                       r"the planner sizes diffusion models from its measured presets "
                       r"\(sd-1.5, sdxl-base-1.0, dit-xl-2-256\)"):
        load_hf_config(tmp_path)
    (tmp_path / "config.json").write_text("{not json")
    with pytest.raises(InputError, match="cannot read the Hugging Face config: not valid JSON"):
        load_hf_config(tmp_path)
    with pytest.raises(InputError, match="cannot read"):
        load_hf_config(tmp_path / "missing")


def test_cli_plans_from_a_config_with_flags_on_top(capsys):
    code = main(["plan", "--hf-config", str(CONFIGS / "mixtral-8x7b"), "--precision", "int4",
                 "--seq-len", "8192", "--gpus", "2", "--strategy", "tensor_parallel",
                 "--tp-size", "2", "--gpu", "nvidia-h100-sxm", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    data = json.loads(out)
    w = data["workload"]
    assert (w["model"], w["task"], w["experts"], w["active_experts"]) == (
        "custom", "llm_inference", 8, 2)
    assert (w["precision"], w["seq_len"], w["tp_size"]) == ("int4", 8192, 2)
    assert data["vram_verdict"] == "fits" and data["solver"]["changes"] == []
    assert data["throughput"]["max_concurrent_sequences"] > 0


def test_cli_moe_and_shape_flags_for_a_custom_model(capsys):
    code = main(["plan", "--task", "llm_inference", "--model", "custom", "--layers", "4",
                 "--hidden", "1024", "--heads", "8", "--kv-heads", "2", "--ffn", "2048",
                 "--vocab", "32000", "--experts", "8", "--active-experts", "2",
                 "--expert-ffn", "1024", "--tied-embeddings", "on", "--attention", "eager",
                 "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    w = json.loads(out)["workload"]
    assert (w["experts"], w["tied_embeddings"], w["attention"]) == (8, True, "eager")
    code = main(["plan", "--task", "llm_inference", "--model", "custom", "--layers", "4",
                 "--hidden", "1024", "--heads", "8", "--experts", "8"])
    _, err = capsys.readouterr()
    assert code == 2 and "'active_experts' is required" in err and "\n" not in err.strip()


def test_cli_unknown_family_exits_2_with_one_line(tmp_path, capsys):
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "mamba"}))
    code = main(["plan", "--hf-config", str(tmp_path)])
    _, err = capsys.readouterr()
    assert code == 2 and "mamba" in err and err.count("\n") == 1


def test_expert_parallelism_splits_the_routed_experts_over_the_gpus():
    """Mixtral 8x7B over 8 GPUs, one expert each: every GPU keeps attention, norms and
    embeddings (1.6B) and one eighth of the 45.1B of routed experts."""
    base = _workload("mixtral-8x7b", precision="bf16", gpus=8)
    arch = resolve_model(base).arch
    experts = arch.routed_expert_params()
    assert experts == 32 * 8 * 3 * 4096 * 14336
    ep = replace(base, strategy="expert_parallel", ep_size=8).validate()
    weights = plan(ep).vram_per_gpu["weights"].value
    assert weights == pytest.approx(2 * (46_702_792_704 - experts + experts / 8))
    traffic = plan(ep).interconnect["expert_parallel_bytes_per_step_per_gpu"].value
    # Serving: the batch's tokens are spread over the 8 GPUs, each sends its eighth.
    tokens = base.batch_size * base.seq_len / 8
    assert traffic == pytest.approx(2 * 32 * tokens * 2 * 4096 * 2 * 7 / 8)
    with pytest.raises(InputError, match="must divide the 8 experts"):
        replace(base, strategy="expert_parallel", ep_size=3, gpus_per_node=6).validate()
    with pytest.raises(InputError, match="mixture-of-experts"):
        replace(_workload("llama-2-7b", gpus=2), strategy="expert_parallel",
                ep_size=2).validate()


def test_the_solver_offers_expert_parallelism_for_a_moe_model():
    from torchrig.planning.device import DeviceSpec
    from torchrig.planning.solver import solve
    from torchrig.units import GiB

    w = _workload("mixtral-8x7b", precision="bf16", gpus=8, seq_len=4096)
    answer = solve(w, DeviceSpec("80 GiB GPU", 80 * GiB))
    ep = next(c for c in answer.settings if c.fields.get("strategy") == "expert_parallel")
    assert ep.fields["ep_size"] == 8 and ep.verdict == "fits"

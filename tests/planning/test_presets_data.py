"""Model presets: published parameter counts, architecture consistency, calibration present."""

from __future__ import annotations

import json

import pytest

from torchrig.errors import InputError
from torchrig.planning import presets as presets_mod
from torchrig.planning.presets import (
    TransformerArch,
    get_preset,
    load_calibration,
    load_presets,
)

REQUIRED = ("resnet18", "resnet50", "resnet152", "vit-b-16", "bert-base", "bert-large", "gpt2",
            "llama-2-7b", "llama-2-13b", "llama-2-70b", "llama-3-8b", "llama-3-70b",
            "gpt-3-175b")

# Published counts: torchvision model docs, Hugging Face configs / model cards, papers.
PUBLISHED = {
    "resnet18": 11_689_512,
    "resnet50": 25_557_032,
    "resnet152": 60_192_808,
    "vit-b-16": 86_567_656,
    "bert-base": 109_482_240,
    "bert-base-cased": 108_310_272,
    "gpt2": 124_439_808,
    "llama-2-7b": 6_738_415_616,
    "llama-2-13b": 13_015_864_320,
    "llama-2-70b": 68_976_648_192,
    "llama-3-8b": 8_030_261_248,
    "llama-3-70b": 70_553_706_496,
    # Ultralytics' model summaries (yolov8*.yaml): "225 layers, 3157200 parameters" etc.
    "yolov8n": 3_157_200,
    "yolov8s": 11_166_560,
    "yolov8m": 25_902_640,
    # diffusers configs built as published (diffusers counts); DiT: the official models.py.
    "sd-1.5": 859_520_964,
    "sdxl-base-1.0": 2_567_463_684,
    "dit-xl-2-256": 675_129_632,
}


def test_required_presets_exist_with_sources():
    presets = load_presets()
    for pid in REQUIRED:
        assert pid in presets, pid
        assert len(presets[pid].source) > 20, pid


@pytest.mark.parametrize("pid,count", sorted(PUBLISHED.items()))
def test_parameter_counts_match_published(pid, count):
    assert get_preset(pid).params == count


def test_rounded_headline_figures():
    assert get_preset("bert-large").params == pytest.approx(335e6, rel=0.01)
    # GPT-3's architecture gives 174.6B; the paper rounds it to 175.0B.
    assert get_preset("gpt-3-175b").params == pytest.approx(175.0e9, rel=0.003)


@pytest.mark.parametrize("pid", [p for p, v in load_presets().items() if v.arch])
def test_transformer_counts_follow_from_the_architecture(pid):
    preset = get_preset(pid)
    assert preset.arch.param_count() == preset.params


def test_architecture_facts():
    llama3 = get_preset("llama-3-8b").arch
    assert (llama3.layers, llama3.hidden, llama3.heads, llama3.kv_heads, llama3.ffn,
            llama3.vocab) == (32, 4096, 32, 8, 14336, 128256)
    assert llama3.head_dim == 128 and llama3.kv_dim == 1024
    assert get_preset("llama-2-70b").arch.kv_heads == 8
    assert get_preset("gpt2").arch.tied_embeddings is True


def test_kv_cache_bytes_per_token_vectors():
    # vLLM paper and docs/estimation.md sec. 2: OPT-13B 819,200 B; Llama-2-7B 524,288; Llama-3-8B
    # 131,072 (8 KV heads).
    opt13b = TransformerArch("gpt", 40, 5120, 40, 40, 20480, 50272, 2048)
    assert opt13b.kv_cache_bytes_per_token(2) == 819_200
    assert opt13b.kv_cache_bytes_per_token(2) * 2048 == 1.5625 * 2**30
    assert get_preset("llama-2-7b").arch.kv_cache_bytes_per_token(2) == 524_288
    assert get_preset("llama-3-8b").arch.kv_cache_bytes_per_token(2) == 131_072


def test_lora_parameter_count():
    # rank 16 on all linear layers of Llama-2-7B: 16 x (9h + 2kv + 3ffn) x 32 layers.
    arch = get_preset("llama-2-7b").arch
    assert arch.lora_params(16) == 16 * (9 * 4096 + 2 * 4096 + 3 * 11008) * 32
    assert arch.lora_params(16) == pytest.approx(40.0e6, rel=0.01)


def test_largest_layer_is_the_embedding_for_llms():
    assert get_preset("llama-2-7b").largest_layer_params == 32000 * 4096
    # A ResNet's largest layer is a 3x3 512->512 convolution (DeepSpeed's definition).
    assert get_preset("resnet50").largest_layer_params == 512 * 512 * 9


def test_calibration_is_present_for_every_vision_preset_and_style():
    cal = load_calibration()
    assert cal is not None
    for pid, preset in load_presets().items():
        if preset.family in ("cnn", "vit") and preset.activation_bytes_per_sample is None:
            # Detection presets carry published figures instead (see their source).
            assert pid in cal.vision, pid
            for precision in ("fp32", "amp", "bf16"):
                assert cal.vision[pid].precisions[precision].bytes_per_sample > 0
    for style in ("gpt", "bert", "llama"):
        for attention in ("sdpa", "eager"):
            for precision in ("fp32", "amp", "bf16"):
                assert cal.transformer_cal(style, attention, "lm", precision) is not None


def test_measured_coefficients_are_physical():
    cal = load_calibration()
    # 16-bit activations are half the fp32 ones for a CNN, except the max-pool indices
    # (int64 whatever the precision: 64 x 56 x 56 x 8 B per image).
    r50 = cal.vision["resnet50"].precisions
    indices = 64 * 56 * 56 * 8
    assert 2 * (r50["bf16"].bytes_per_sample - indices) == r50["fp32"].bytes_per_sample - indices
    # Autocast keeps a 16-bit copy of every weight: ~2 bytes per parameter per step.
    assert r50["amp"].bytes_per_step == pytest.approx(2 * get_preset("resnet50").params,
                                                      rel=0.01)
    # GPT-2 style, pure bf16, fused attention: 18h + 4*ffn per token = Korthikanti's 34h when
    # ffn = 4h (his formula without the attention-score term that flash attention drops).
    gpt = cal.transformer_cal("gpt", "sdpa", "lm", "bf16").layer
    assert gpt["hidden"] + 4 * gpt["ffn"] == 34


def test_unknown_preset_is_an_input_error():
    with pytest.raises(InputError, match="unknown model preset 'resnet51'"):
        get_preset("resnet51")


def test_bad_presets_file_names_the_field(tmp_path, monkeypatch):
    bad = {"format": "torchrig.model-presets", "version": 1,
           "presets": [{"id": "x", "name": "X", "family": "rnn", "tasks": [], "params": 1,
                        "source": "s"}]}
    (tmp_path / "model_presets.json").write_text(json.dumps(bad), encoding="utf-8")
    monkeypatch.setenv("TORCHRIG_RESOURCES", str(tmp_path))
    presets_mod.clear_cache()
    try:
        with pytest.raises(InputError, match=r"presets\[0\] \(x\): field 'family'"):
            load_presets()
    finally:
        monkeypatch.delenv("TORCHRIG_RESOURCES")
        presets_mod.clear_cache()


def test_planner_against_the_recorded_peak_of_real_training_steps():
    """calibrate_activations.py --peak recorded the measured peak of real CPU training steps;
    today's planner must stay within 0-10% above them (docs/calibration.md)."""
    import json

    from torchrig.planning.presets import presets_path
    from torchrig.planning.requirements import plan
    from torchrig.planning.workload import workload_from_options

    checks = json.loads(presets_path().read_text(encoding="utf-8"))["calibration"][
        "peak_checks"]
    workloads = {
        "gpt2-width-2-layers": workload_from_options(
            task="nlp_transformer", mode="train", model="custom", style="gpt", layers=2,
            hidden=768, heads=12, vocab=50257, ffn=3072, seq_len=128, batch=2,
            params=TransformerArch("gpt", 2, 768, 12, 12, 3072, 50257, 1024).param_count(),
            precision="fp32", gpus=1),
        "resnet18-112px": workload_from_options(
            task="image_classification", model="resnet18", image_size=112, batch=4,
            optimizer="sgd_momentum", precision="fp32", gpus=1),
    }
    assert len(checks) == 4
    for key, check in checks.items():
        v = plan(workloads[key.split("/")[0]]).vram_per_gpu
        planned = sum(i.value for k, i in v.items()
                      if k not in ("kv_cache", "comm_buffers", "overhead", "fragmentation",
                                   "total"))
        assert 1.0 <= planned / check["measured_peak_bytes"] <= 1.10, key

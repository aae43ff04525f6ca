"""verify on diffusers' own denoisers (docs/verify.md sec. 1): a Stable Diffusion U-Net and a DiT
built from their configs, fed as diffusers' training scripts feed them.

Expected values come from outside the code under test: an autograd graph walk over a model built
and fed here (``saved_walk``), parameter counts published with the models (SDXL paper Table 1,
DiT paper Table 4 and the official DiT code's count) and a hand count of what diffusers' DiT
holds that the official one does not.
"""

from __future__ import annotations

import json
import sys
import threading

import pytest

torch = pytest.importorskip("torch")
diffusers = pytest.importorskip("diffusers")

from saved_walk import independent_saved_bytes, wrapped_numbers  # noqa: E402
from torch.nn import functional as F  # noqa: E402, N812

from torchrig.cli import main  # noqa: E402
from torchrig.planning.workload import workload_from_options  # noqa: E402
from torchrig.verify import measure as v  # noqa: E402
from torchrig.verify.diffusion_configs import PRESET_CONFIGS  # noqa: E402
from torchrig.verify.diffusion_models import build_denoiser, matching_preset  # noqa: E402
from torchrig.verify.probe import Size, run_probe  # noqa: E402
from torchrig.verify.sources import ModelSource, diffusers_source  # noqa: E402

pytestmark = pytest.mark.slow  # builds and runs torch models

TINY_UNET = {  # the shape of diffusers' own unit-test U-Net: two levels, 32 and 64 channels
    "_class_name": "UNet2DConditionModel", "block_out_channels": [32, 64],
    "layers_per_block": 1, "sample_size": 8, "in_channels": 4, "out_channels": 4,
    "down_block_types": ["CrossAttnDownBlock2D", "DownBlock2D"],
    "up_block_types": ["UpBlock2D", "CrossAttnUpBlock2D"], "cross_attention_dim": 32,
    "attention_head_dim": 8, "norm_num_groups": 8}
TINY_SDXL_UNET = {**TINY_UNET, "addition_embed_type": "text_time",
                  "addition_time_embed_dim": 8, "projection_class_embeddings_input_dim": 80,
                  "use_linear_projection": True}
TINY_DIT = {"_class_name": "DiTTransformer2DModel", "num_attention_heads": 2,
            "attention_head_dim": 16, "in_channels": 4, "out_channels": 8, "num_layers": 2,
            "sample_size": 8, "patch_size": 2, "num_embeds_ada_norm": 10,
            "norm_type": "ada_norm_zero", "norm_num_groups": 8}

# runwayml/stable-diffusion-v1-5 unet/config.json as published (diffusers 0.6.0): every key
# spelled out, defaults included, so matching must read it as diffusers does.
SD15_PUBLISHED = {
    "_class_name": "UNet2DConditionModel", "_diffusers_version": "0.6.0", "act_fn": "silu",
    "attention_head_dim": 8, "block_out_channels": [320, 640, 1280, 1280],
    "center_input_sample": False, "cross_attention_dim": 768,
    "down_block_types": ["CrossAttnDownBlock2D", "CrossAttnDownBlock2D",
                         "CrossAttnDownBlock2D", "DownBlock2D"],
    "downsample_padding": 1, "flip_sin_to_cos": True, "freq_shift": 0, "in_channels": 4,
    "layers_per_block": 2, "mid_block_scale_factor": 1, "norm_eps": 1e-05,
    "norm_num_groups": 32, "out_channels": 4, "sample_size": 64,
    "up_block_types": ["UpBlock2D", "CrossAttnUpBlock2D", "CrossAttnUpBlock2D",
                       "CrossAttnUpBlock2D"]}


def diffusion_workload(model: str = "sd-1.5", **extra):
    options = dict(task="image_generation", mode="finetune", model=model, image_size=64,
                   batch=2, precision="fp32", optimizer="adamw", checkpointing=False)
    options.update(extra)
    return workload_from_options(**options)


def params(model) -> int:
    return sum(p.numel() for p in model.parameters())


@pytest.mark.parametrize("config", [TINY_UNET, TINY_SDXL_UNET, TINY_DIT],
                         ids=["unet", "sdxl-unet", "dit"])
def test_saved_bytes_of_a_diffusers_denoiser_equal_the_graph_walk(config):
    source = diffusers_source(config, "config")
    mp, spec = v.library_plan(source, diffusion_workload(), "cpu")
    dit = config is TINY_DIT
    assert (mp.layers == 2) if dit else mp.layers is None
    measured = run_probe(spec, Size(mp.layers, 2, None), "cpu", 3, threading.Event())

    # Independently: the class built here from the same keys, fed by hand at 64 px (8 x 8
    # latents), the noise regressed as diffusers' train_text_to_image.py does.
    cls = getattr(diffusers, config["_class_name"])
    model = cls(**{k: val for k, val in config.items() if not k.startswith("_")}).train()
    latents, t = torch.randn(2, 4, 8, 8), torch.randint(0, 1000, (2,))
    if dit:
        out = model(hidden_states=latents, timestep=t, class_labels=torch.tensor([1, 2]))
    else:
        kwargs = {}
        if config is TINY_SDXL_UNET:
            # pooled text width = projection input - 6 time ids x their embedding width
            kwargs["added_cond_kwargs"] = {"text_embeds": torch.randn(2, 80 - 6 * 8),
                                           "time_ids": torch.randn(2, 6)}
        out = model(sample=latents, timestep=t,
                    encoder_hidden_states=torch.randn(2, 77, 32), **kwargs)
    loss = F.mse_loss(out.sample[:, :4].float(), torch.randn(2, 4, 8, 8))
    expected = independent_saved_bytes(loss, model)
    assert expected > 0
    assert measured.saved_bytes == expected
    assert sum(wrapped_numbers) <= 256  # Python numbers autograd keeps outside the hooks
    assert measured.weights == sum(x.numel() * x.element_size()
                                   for x in [*model.parameters(), *model.buffers()])
    # AdamW's two fp32 moments per trained parameter and a 4-byte step count per tensor.
    tensors = len(list(model.parameters()))
    assert measured.optimizer_states == 8 * params(model) + 4 * tensors


def test_unet_parameter_counts_are_the_published_ones():
    # SDXL paper (Podell et al. 2023, arXiv 2307.01952) Table 1: 860M and 2.6B.
    with torch.device("meta"):
        sd15 = params(build_denoiser(diffusers_source(PRESET_CONFIGS["sd-1.5"], "sd")))
        sdxl = params(build_denoiser(diffusers_source(PRESET_CONFIGS["sdxl-base-1.0"], "xl")))
    assert sd15 == pytest.approx(860e6, rel=0.001)
    assert sdxl == pytest.approx(2.6e9, rel=0.02)


def test_diffusers_dit_xl2_has_an_embedder_in_every_block():
    """The official DiT-XL/2 has 675,129,632 parameters (DiT paper Table 4: 675M; its code's
    count includes the fixed 256 x 1152 sin-cos position table). diffusers' DiT gives each of
    the 28 blocks its own timestep and class embedders and keeps the position table as a
    buffer, so it holds 27 more of each and 256 x 1152 fewer parameters."""
    hidden = 16 * 72
    timestep_embedder = (256 * hidden + hidden) + (hidden * hidden + hidden)
    class_embedder = (1000 + 1) * hidden  # + the "no class" row of classifier-free guidance
    expected = 675_129_632 + 27 * (timestep_embedder + class_embedder) - 256 * hidden
    with torch.device("meta"):
        model = build_denoiser(diffusers_source(PRESET_CONFIGS["dit-xl-2-256"], "dit"))
    assert params(model) == expected == 749_826_464


def test_a_dit_preset_is_verified_on_diffusers_reduced_by_its_blocks():
    w = diffusion_workload("dit-xl-2-256", mode="train", image_size=64, batch=1)
    result = v.verify(w, "cpu", quick=True)
    assert result.source["kind"] == "diffusers"
    assert result.source["label"] == "diffusers DiTTransformer2DModel"
    layers = sorted({size[0] for size in result.sizes})
    assert len(layers) == 2 and layers[-1] < 28
    # Weights extrapolated per block from two block counts are exact: every block is the same.
    with torch.device("meta"):
        full = build_denoiser(diffusers_source(PRESET_CONFIGS["dit-xl-2-256"], "dit"))
    counted = sum(x.numel() for x in [*full.parameters(), *full.buffers()]) * 4
    weights = result.row("weights")
    assert weights.measured == pytest.approx(counted, rel=1e-9)
    # The planner counts the official model's 675,129,632 parameters at 4 B.
    assert weights.predicted == 675_129_632 * 4
    assert any("denoiser measured on latents" in n.en for n in result.notes)
    assert result.verified.precomputed_latents and not w.precomputed_latents


def test_a_published_config_is_matched_to_its_preset_and_another_is_not():
    assert matching_preset(diffusers_source(SD15_PUBLISHED, "sd15")) == "sd-1.5"
    sd2 = {**SD15_PUBLISHED, "cross_attention_dim": 1024, "attention_head_dim": [5, 10, 20, 20]}
    assert matching_preset(diffusers_source(sd2, "sd2")) is None
    assert matching_preset(diffusers_source(TINY_DIT, "dit")) is None


def test_verify_hf_config_of_a_unet_plans_the_preset_it_matches(capsys, tmp_path, monkeypatch):
    folder = tmp_path / "unet"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(SD15_PUBLISHED))
    seen = {}

    def fake_verify(workload, device, steps, **kwargs):
        seen.update(workload=workload, source=kwargs["source"])
        raise v.VerifyError(v.Msg("stopped by the test", "测试停止"))

    monkeypatch.setattr(v, "verify", fake_verify)
    code = main(["verify", "--hf-config", str(folder), "--mode", "finetune", "--batch", "1",
                 "--device", "cpu"])
    assert code == 2 and "stopped by the test" in capsys.readouterr().err
    assert seen["workload"].model == "sd-1.5"
    assert seen["workload"].task == "image_generation"
    assert seen["source"].kind == "diffusers" and seen["source"].name == "UNet2DConditionModel"

    (folder / "config.json").write_text(json.dumps(TINY_UNET))
    assert main(["verify", "--hf-config", str(folder), "--device", "cpu"]) == 2
    err = capsys.readouterr().err
    assert "none of the architectures the planner has measured" in err and "sd-1.5" in err
    (folder / "config.json").write_text(json.dumps(SD15_PUBLISHED))
    assert main(["verify", "--hf-config", str(folder), "--task", "nlp_transformer"]) == 2
    assert "image generation model, not --task nlp_transformer" in capsys.readouterr().err


def test_generation_is_refused_with_the_reason():
    w = diffusion_workload("sdxl-base-1.0", mode="infer", optimizer="sgd")
    with pytest.raises(v.VerifyError, match="generation .* is not measured yet"):
        v.verify(w, "cpu")


def test_without_diffusers_the_message_names_the_models_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "diffusers", None)  # import diffusers -> ImportError
    with pytest.raises(v.VerifyError) as caught:
        v.verify(diffusion_workload(), "cpu")
    assert str(caught.value) == ("diffusers UNet2DConditionModel: diffusers is not installed "
                                 "(install the models extra: pip install -e .[models])")
    assert caught.value.msg.zh.startswith("diffusers UNet2DConditionModel：未安装 diffusers")


def test_lora_adapts_the_attention_projections_as_diffusers_scripts_do():
    source = diffusers_source(TINY_UNET, "config")
    w = diffusion_workload(lora_rank=4)
    _mp, spec = v.library_plan(source, w, "cpu")
    model = spec.build(None)
    trained = {n for n, p in model.named_parameters() if p.requires_grad}
    assert trained and all(".lora_A." in n or ".lora_B." in n for n in trained)
    adapted = {n.split(".lora_")[0] for n in trained}
    assert {a.rsplit(".", 1)[-1] for a in adapted} <= {"to_q", "to_k", "to_v", "0"}
    # rank 4 on each adapted Linear: 4 x (in + out) parameters (train_text_to_image_lora.py).
    linears = dict(model.named_modules())
    expected = sum(4 * (linears[a].base_layer.in_features + linears[a].base_layer.out_features)
                   for a in adapted)
    assert sum(p.numel() for n, p in model.named_parameters() if n in trained) == expected
    assert ModelSource("diffusers", "UNet2DConditionModel").label == \
        "diffusers UNet2DConditionModel"


@pytest.mark.parametrize("key,value", [("layers_per_block", 100_000), ("num_layers", -3),
                                       ("block_out_channels", [320, 640, True]),
                                       ("cross_attention_dim", 1e308)])
def test_a_config_of_absurd_sizes_is_refused_before_anything_is_built(key, value):
    # 100,000 layers per block would build on the meta device for minutes.
    from torchrig.errors import InputError

    with pytest.raises(InputError, match=f"{key} must be a whole number from 1 to"):
        diffusers_source({**TINY_UNET, key: value}, "config.json")

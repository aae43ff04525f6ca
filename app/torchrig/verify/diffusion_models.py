"""A diffusers denoiser for ``verify``: the U-Net of Stable Diffusion or a DiT, built from its
config with random weights, fed as diffusers' training scripts feed it.

A latent diffusion training step runs the denoiser on VAE latents (8x smaller than the image on
each side) at a random timestep and regresses the noise: ``F.mse_loss(model_pred.float(),
target.float())`` in diffusers' ``train_text_to_image.py``; DiT's ``train.py`` does the same on
the noise half of its output (the other half, the learned variance, is trained by a
variational-bound term this leaves out: it changes no saved tensor of the network). Conditioning
as the pipelines give it: 77 text-feature vectors of the config's ``cross_attention_dim`` for a
U-Net (SDXL also its pooled text embedding and the six size / crop numbers), a class label for
DiT. The frozen VAE and text encoder(s) are not run: verify measures the denoiser, as with
precomputed latents (:func:`torchrig.verify.measure.measured_layout` says so).

A DiT is reduced by its blocks (``num_layers``); a U-Net only by its batch.

Imports torch and diffusers: import lazily.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn
from torch.nn import functional as F  # noqa: N812 - the name PyTorch's docs use

from torchrig.errors import InputError
from torchrig.i18n import Msg
from torchrig.planning.presets import get_preset
from torchrig.planning.workload import Workload
from torchrig.verify import diffusion_configs as dc
from torchrig.verify.library_models import Batch, LibraryModel, import_library
from torchrig.verify.sources import ModelSource

TIMESTEPS = 1000
"""Training timesteps of the DDPM schedule Stable Diffusion and DiT use."""


def _class(source: ModelSource) -> Any:
    diffusers = import_library("diffusers")
    cls = getattr(diffusers, source.name, None)
    if cls is None or source.name not in dc.CLASSES:
        raise InputError(f"diffusers {diffusers.__version__} has no model class "
                         f"{source.name!r} verify can feed")
    return cls


def build_denoiser(source: ModelSource, layers: int | None = None) -> Any:
    """The model from its config; ``layers``: a DiT with that many blocks."""
    cls = _class(source)
    config = {k: v for k, v in source.config.items() if not k.startswith("_")}
    if layers is not None and source.name == dc.DIT:
        config["num_layers"] = layers
    try:
        return cls.from_config(config)
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise InputError(f"diffusers cannot build {source.name} from this config: "
                         f"{str(exc).splitlines()[0][:200]}") from None


def matching_preset(source: ModelSource) -> str | None:
    """The diffusion preset whose architecture the config describes, compared as diffusers
    reads both (every constructor argument, defaults filled in, the latent size aside); built
    on the meta device, so nothing is allocated."""
    with torch.device("meta"):
        mine = _architecture(build_denoiser(source))
        for preset_id, config in dc.PRESET_CONFIGS.items():
            if config["_class_name"] != source.name:
                continue
            if _architecture(build_denoiser(ModelSource("diffusers", source.name,
                                                        config=config))) == mine:
                return preset_id
    return None


def _architecture(model: Any) -> dict[str, Any]:
    config = dict(model.config)
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in config.items()
            if not k.startswith("_") and k not in dc.IGNORED_KEYS}


def diffusers_model(source: ModelSource, w: Workload) -> LibraryModel:
    cls = _class(source)
    del cls  # checked here, so a missing class fails before any run
    with torch.device("meta"):
        probe = build_denoiser(source)
    config: Any = probe.config  # diffusers' FrozenDict: every argument, defaults filled in
    preset = get_preset(w.model)
    image = w.image_size or preset.image_size or dc.LATENT_FACTOR * int(
        config.get("sample_size") or 64)
    latent = max(1, image // dc.LATENT_FACTOR)
    channels = int(config.get("in_channels") or 4)
    dit = source.name == dc.DIT
    full_layers = int(config["num_layers"]) if dit else None
    checkpointing = w.gradient_checkpointing and w.is_training

    def build(layers: int | None) -> nn.Module:
        model = build_denoiser(source, layers)  # a diffusers ModelMixin
        if checkpointing:
            model.enable_gradient_checkpointing()
        if w.is_lora:
            model = _lora(model, w)
        return model

    def batch(size: int, _seq: int | None) -> Batch:
        gen = torch.Generator().manual_seed(0)
        sample = torch.randn(size, channels, latent, latent, generator=gen)
        timestep = torch.randint(0, TIMESTEPS, (size,), generator=gen)
        inputs: dict[str, Any] = {"timestep": timestep}
        if dit:
            inputs["hidden_states"] = sample
            labels = int(config.get("num_embeds_ada_norm") or 1000)
            inputs["class_labels"] = torch.randint(0, labels, (size,), generator=gen)
        else:
            inputs["sample"] = sample
            inputs["encoder_hidden_states"] = torch.randn(
                size, dc.TEXT_TOKENS, int(config["cross_attention_dim"]), generator=gen)
            added = _added_conditions(config, size, gen)
            if added:
                inputs["added_cond_kwargs"] = added
        noise = torch.randn(size, channels, latent, latent, generator=gen)
        return inputs, (noise if w.is_training else None)

    if dit:
        shape = Msg(f"{full_layers} blocks, {config['num_attention_heads']} heads of "
                    f"{config['attention_head_dim']}, patch {config['patch_size']}",
                    f"{full_layers} 个块，{config['num_attention_heads']} 个 "
                    f"{config['attention_head_dim']} 维注意力头，patch {config['patch_size']}")
    else:
        widths = "/".join(str(c) for c in config["block_out_channels"])
        shape = Msg(f"channels {widths}, cross-attention {config['cross_attention_dim']}",
                    f"通道 {widths}，交叉注意力 {config['cross_attention_dim']}")
    return LibraryModel(build, batch, full_layers, False, image_size=image, loss=noise_loss,
                        description=Msg(
        f"diffusers {source.name} from the config: {shape.en}, latents {channels} x {latent} x "
        f"{latent} ({image}px), random weights",
        f"diffusers {source.name}（由配置构建）：{shape.zh}，潜变量 {channels} × {latent} × "
        f"{latent}（{image}px），随机权重"))


def _added_conditions(config: Any, size: int, gen: torch.Generator) -> dict[str, Any]:
    """SDXL's extra conditioning ("text_time"): the pooled text embedding and the six numbers
    (original size, crop, target size), embedded to ``projection_class_embeddings_input_dim``
    together; other U-Nets take none."""
    if config.get("addition_embed_type") != "text_time":
        if config.get("addition_embed_type"):
            raise InputError(f"verify feeds the U-Net conditioning 'text_time' (SDXL) or none, "
                             f"not {config.get('addition_embed_type')!r}")
        return {}
    time_ids = 6
    pooled = int(config["projection_class_embeddings_input_dim"]) \
        - time_ids * int(config["addition_time_embed_dim"])
    return {"text_embeds": torch.randn(size, pooled, generator=gen),
            "time_ids": torch.randn(size, time_ids, generator=gen)}


def noise_loss(output: Any, targets: Any) -> torch.Tensor:
    """Mean squared error of the predicted noise (the first channels of the output: DiT
    predicts the variance in the rest)."""
    sample = output.sample if hasattr(output, "sample") else output[0]
    if targets is None:  # inference: no loss is taken
        return sample.float().mean()
    predicted = sample[:, : targets.shape[1]]
    return F.mse_loss(predicted.float(), targets.to(sample.device).float())


def _lora(model: Any, w: Workload) -> nn.Module:
    """LoRA on every attention projection, as diffusers' train_text_to_image_lora.py adds it
    (the frozen model, then ``add_adapter`` of a peft ``LoraConfig`` on to_q, to_k, to_v and
    to_out.0: the modules the planner counts)."""
    peft = import_library("peft")
    rank = int(w.lora_rank or 4)
    model.requires_grad_(False)
    model.add_adapter(peft.LoraConfig(r=rank, lora_alpha=rank, init_lora_weights="gaussian",
                                      target_modules=["to_k", "to_q", "to_v", "to_out.0"]))
    return model

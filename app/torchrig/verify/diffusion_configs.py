"""The published diffusers configs of the diffusion presets (torch-free).

The planner's diffusion presets (resources/model_presets.json) were measured on these models
as diffusers builds them (``scripts/calibrate_diffusion.py``), and ``torchrig verify`` builds
the same classes from the same configs to run them for real - or from the user's own
diffusers ``config.json`` (``--hf-config``) when it describes one of these architectures. Each
config lists the keys that differ from the class's defaults in diffusers 0.42, as the model
repositories' ``config.json`` files give them:

- sd-1.5: runwayml/stable-diffusion-v1-5, ``unet/config.json`` (diffusers' defaults but a
  768-wide cross-attention for CLIP ViT-L/14's text features);
- sdxl-base-1.0: stabilityai/stable-diffusion-xl-base-1.0, ``unet/config.json``;
- dit-xl-2-256: facebook/DiT-XL-2-256, ``transformer/config.json``.
"""

from __future__ import annotations

from typing import Any

from torchrig.errors import InputError

UNET = "UNet2DConditionModel"
DIT = "DiTTransformer2DModel"
CLASSES = (UNET, DIT)
"""The diffusers classes verify knows how to feed: a text-conditioned U-Net (Stable Diffusion
1.x/2.x/XL) and a class-conditioned DiT."""

LATENT_FACTOR = 8
"""Image pixels per latent position along a side: the Stable Diffusion VAE (and DiT's, the
same architecture) downsamples 8x."""

TEXT_TOKENS = 77
"""CLIP's context length: every Stable Diffusion prompt is padded to 77 tokens."""

PRESET_CONFIGS: dict[str, dict[str, Any]] = {
    "sd-1.5": {"_class_name": UNET, "cross_attention_dim": 768, "sample_size": 64},
    "sdxl-base-1.0": {
        "_class_name": UNET,
        "addition_embed_type": "text_time", "addition_embed_type_num_heads": 64,
        "addition_time_embed_dim": 256, "attention_head_dim": [5, 10, 20],
        "block_out_channels": [320, 640, 1280], "cross_attention_dim": 2048,
        "down_block_types": ["DownBlock2D", "CrossAttnDownBlock2D", "CrossAttnDownBlock2D"],
        "projection_class_embeddings_input_dim": 2816, "sample_size": 128,
        "transformer_layers_per_block": [1, 2, 10],
        "up_block_types": ["CrossAttnUpBlock2D", "CrossAttnUpBlock2D", "UpBlock2D"],
        "use_linear_projection": True,
    },
    "dit-xl-2-256": {
        "_class_name": DIT,
        "num_attention_heads": 16, "attention_head_dim": 72, "in_channels": 4,
        "out_channels": 8, "num_layers": 28, "sample_size": 32, "patch_size": 2,
        "num_embeds_ada_norm": 1000, "norm_type": "ada_norm_zero",
        "activation_fn": "gelu-approximate", "norm_elementwise_affine": False,
    },
}
"""Preset id -> its denoiser's diffusers config."""

IGNORED_KEYS = ("sample_size",)
"""Config keys that do not change the architecture verify compares: the latent size a model
was trained at (the workload's image size decides what is fed)."""


SIZE_LIMITS = {
    "layers_per_block": 64, "num_layers": 1024, "transformer_layers_per_block": 64,
    "block_out_channels": 65_536, "cross_attention_dim": 65_536, "attention_head_dim": 65_536,
    "num_attention_heads": 65_536, "in_channels": 4096, "out_channels": 4096,
    "sample_size": 4096, "patch_size": 64, "norm_num_groups": 4096,
    "projection_class_embeddings_input_dim": 65_536, "addition_time_embed_dim": 65_536,
    "num_embeds_ada_norm": 1_000_000,
}
"""The most a size key of a config may hold (a list: each entry, at most 16 of them). Far above
any published model; they stop a config of 100,000 layers per block from building for ever."""


def check_sizes(config: dict[str, Any], where: str) -> None:
    """Refuse a size key that is not a whole number (or list of them) in its range."""
    for key, limit in SIZE_LIMITS.items():
        value = config.get(key)
        if value is None:
            continue
        values = value if isinstance(value, list) else [value]
        if len(values) > 16 or not all(
                isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= limit
                for v in values):
            raise InputError(f"{where}: {key} must be a whole number from 1 to {limit:,} (or a "
                             f"list of at most 16 of them), got {str(value)[:80]}")


def is_diffusers_config(doc: dict[str, Any]) -> bool:
    """A diffusers model config names its class in ``_class_name``; a transformers one has a
    ``model_type``."""
    return isinstance(doc.get("_class_name"), str) and "model_type" not in doc


def class_name(doc: dict[str, Any]) -> str:
    return str(doc.get("_class_name", ""))

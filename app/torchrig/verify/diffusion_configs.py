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


def is_diffusers_config(doc: dict[str, Any]) -> bool:
    """A diffusers model config names its class in ``_class_name``; a transformers one has a
    ``model_type``."""
    return isinstance(doc.get("_class_name"), str) and "model_type" not in doc


def class_name(doc: dict[str, Any]) -> str:
    return str(doc.get("_class_name", ""))

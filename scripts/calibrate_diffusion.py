#!/usr/bin/env python3
"""Measure the diffusion presets (Stable Diffusion 1.5 and XL U-Nets, DiT-XL/2) and store the
figures in their entries of ``resources/model_presets.json``.

Why a second script: these models are built from Hugging Face ``diffusers`` (their reference
implementation), from the published configs in ``torchrig.verify.diffusion_configs`` - the
ones ``torchrig verify`` builds too; diffusers comes with the ``models`` extra (``./dev setup``).
No weights are downloaded:
the models are built from their published configs on PyTorch's ``meta`` device, so nothing is
allocated and a 2.6B-parameter U-Net at 1024 px is measured in seconds on any machine.

What is measured, per preset, at its native resolution:

* parameters (checked against the preset) and forward FLOPs by ``torch.utils.flop_counter``
  (2 per multiply-add), at the native latent size and at half of it, so the planner can split
  the FLOPs into a part linear in latent area and self-attention's part quadratic in it;
* bytes autograd saves for backward (``saved_tensors_hooks``), deduplicated by storage,
  parameters excluded, per sample (batch 2 minus batch 1) and per step, for fp32, CUDA autocast
  (emulated, ``torchrig.verify.cuda_emulation.CudaEmulation``) and a bf16 model. Attention is
  counted as the CUDA flash / memory-efficient kernels save it (query, key, value, output and
  an fp32 log-sum-exp per query row), not as the CPU math path would (the whole score matrix);
* with gradient checkpointing as diffusers applies it (every ResNet block and every
  transformer block recomputed): what stays saved outside those blocks, each block's input, and
  the largest block's own saved bytes (recomputed one at a time);
* the peak of live tensor bytes in a forward pass without autograd (inference working set),
  for the denoiser and for the frozen VAE's encoder and decoder, by tracking every tensor the
  dispatcher creates until it is freed.

Run from the repository root:  ``.venv/bin/python scripts/calibrate_diffusion.py``
(``--check`` prints without writing).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import torch
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "app"))

from torchrig.verify.cuda_emulation import CudaEmulation  # noqa: E402 - set-up
from torchrig.verify.live_memory import LiveBytes, storage_key  # noqa: E402 - after the path

META = torch.device("meta")
PRECISIONS = ("fp32", "amp", "bf16")


# --- the models, from their published configs ------------------------------------------------


def _denoiser(preset_id: str) -> Callable[[], nn.Module]:
    """The preset's denoiser from its published config (``torchrig.verify.diffusion_configs``,
    the configs ``torchrig verify`` builds too). diffusers gives every DiT block its own copy of
    the timestep and class embedders (the official DiT shares one), so its DiT-XL/2 parameter
    count is higher; the blocks, their FLOPs and their activations are the same."""
    def build() -> nn.Module:
        from torchrig.verify.diffusion_models import build_denoiser
        from torchrig.verify.sources import preset_source

        source = preset_source(preset_id)
        assert source is not None
        return build_denoiser(source)
    return build


def sd_vae() -> nn.Module:
    """The Stable Diffusion VAE (AutoencoderKL, 8x downsampling, 4 latent channels); SDXL's
    and DiT's (sd-vae-ft-ema/mse) have the same architecture."""
    from diffusers import AutoencoderKL

    return AutoencoderKL(down_block_types=["DownEncoderBlock2D"] * 4,
                         up_block_types=["UpDecoderBlock2D"] * 4,
                         block_out_channels=[128, 256, 512, 512], layers_per_block=2,
                         latent_channels=4, sample_size=512)


def _unet_inputs(text_width: int, sdxl: bool) -> Callable[[int, int, torch.dtype], tuple]:
    def make(batch: int, latent: int, dtype: torch.dtype) -> tuple:
        x = torch.randn(batch, 4, latent, latent, device=META, dtype=dtype)
        t = torch.full((batch,), 10, device=META, dtype=torch.long)
        text = torch.randn(batch, 77, text_width, device=META, dtype=dtype)
        kwargs: dict[str, Any] = {}
        if sdxl:
            kwargs["added_cond_kwargs"] = {
                "text_embeds": torch.randn(batch, 1280, device=META, dtype=dtype),
                "time_ids": torch.randn(batch, 6, device=META, dtype=dtype)}
        return (x, t, text), kwargs
    return make


def _dit_inputs(batch: int, latent: int, dtype: torch.dtype) -> tuple:
    x = torch.randn(batch, 4, latent, latent, device=META, dtype=dtype)
    t = torch.full((batch,), 10, device=META, dtype=torch.long)
    y = torch.ones(batch, device=META, dtype=torch.long)
    return (x, t, y), {}


MODELS: dict[str, tuple[Callable[[], nn.Module], Callable[..., tuple], int]] = {
    # preset id: (builder, inputs(batch, latent, dtype), native latent size)
    "sd-1.5": (_denoiser("sd-1.5"), _unet_inputs(768, False), 64),
    "sdxl-base-1.0": (_denoiser("sdxl-base-1.0"), _unet_inputs(2048, True), 128),
    "dit-xl-2-256": (_denoiser("dit-xl-2-256"), _dit_inputs, 32),
}


# --- attention as the CUDA fused kernels save it ---------------------------------------------


class _FusedAttention(torch.autograd.Function):
    """Stands in for scaled_dot_product_attention: the output has the right shape, and what is
    saved is what the flash / memory-efficient CUDA kernels keep (q, k, v, out, log-sum-exp)."""

    @staticmethod
    def forward(ctx: Any, q: torch.Tensor, k: torch.Tensor,  # type: ignore[override]
                v: torch.Tensor) -> torch.Tensor:
        out = torch.empty(*q.shape[:-1], v.shape[-1], device=q.device, dtype=q.dtype)
        lse = torch.empty(*q.shape[:-1], device=q.device, dtype=torch.float32)
        ctx.save_for_backward(q, k, v, out, lse)
        return out

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> Any:  # pragma: no cover - never run
        raise NotImplementedError


@contextmanager
def fused_attention() -> Iterator[None]:
    original = nn.functional.scaled_dot_product_attention

    def sdpa(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *args: Any,
             **kwargs: Any) -> torch.Tensor:
        return _FusedAttention.apply(q, k, v)

    nn.functional.scaled_dot_product_attention = sdpa
    try:
        yield
    finally:
        nn.functional.scaled_dot_product_attention = original


# --- counting ---------------------------------------------------------------------------------


class SavedCounter:
    """Distinct storages saved for backward, attributed to the checkpointed block running."""

    def __init__(self, model: nn.Module, units: list[nn.Module]) -> None:
        self.excluded = {storage_key(p) for p in model.parameters()}
        self.excluded |= {storage_key(b) for b in model.buffers()}
        self.units = units
        self.current: int | None = None
        self.saved: dict[int, tuple[int, int | None]] = {}  # storage -> (bytes, unit)
        self.inputs: dict[int, int] = {}  # storage of a block's input -> bytes
        # Inputs that are not saved could be freed and their storage address reused by a later
        # tensor, which would then be mistaken for them: keep them alive while counting.
        self._alive: list[torch.Tensor] = []

    def pack(self, t: torch.Tensor) -> torch.Tensor:
        sid = storage_key(t)
        if sid not in self.excluded and sid not in self.saved:
            self.saved[sid] = (t.untyped_storage().nbytes(), self.current)
        return t

    @contextmanager
    def counting(self) -> Iterator[None]:
        handles = []
        for i, unit in enumerate(self.units):
            handles.append(unit.register_forward_pre_hook(self._enter(i)))
            handles.append(unit.register_forward_hook(self._leave))
        try:
            with torch.autograd.graph.saved_tensors_hooks(self.pack, lambda t: t):
                yield
        finally:
            for h in handles:
                h.remove()

    def _enter(self, index: int) -> Callable[..., None]:
        def hook(_m: nn.Module, args: tuple[Any, ...]) -> None:
            self.current = index
            if args and isinstance(args[0], torch.Tensor):
                self._alive.append(args[0])
                self.inputs[storage_key(args[0])] = args[0].untyped_storage().nbytes()
        return hook

    def _leave(self, *_: Any) -> None:
        self.current = None

    def total(self) -> int:
        return sum(b for b, _ in self.saved.values())

    def checkpointed(self) -> int:
        """Saved bytes when every unit is checkpointed: what is saved outside units, each unit's
        input (once per storage), and the largest unit recomputed during backward."""
        outside = {s: b for s, (b, u) in self.saved.items() if u is None}
        per_unit: dict[int, int] = {}
        for b, u in self.saved.values():
            if u is not None:
                per_unit[u] = per_unit.get(u, 0) + b
        inputs = sum(b for s, b in self.inputs.items() if s not in outside)
        return sum(outside.values()) + inputs + max(per_unit.values(), default=0)


def checkpoint_units(model: nn.Module) -> list[nn.Module]:
    """The modules diffusers' gradient checkpointing recomputes: ResNet blocks and transformer
    blocks."""
    from diffusers.models.attention import BasicTransformerBlock
    from diffusers.models.resnet import ResnetBlock2D

    return [m for m in model.modules() if isinstance(m, (ResnetBlock2D, BasicTransformerBlock))]


def lora_params_per_rank(model: nn.Module) -> int:
    """LoRA parameters per unit of rank with adapters on every attention projection (to_q, to_k,
    to_v, to_out: diffusers' train_text_to_image_lora.py default target modules): in + out
    features of each adapted Linear."""
    from diffusers.models.attention_processor import Attention

    total = 0
    for m in model.modules():
        if isinstance(m, Attention):
            for lin in (m.to_q, m.to_k, m.to_v, m.to_out[0]):
                total += lin.in_features + lin.out_features
    return total


def forward_flops(model: nn.Module, args: tuple, kwargs: dict) -> int:
    counter = FlopCounterMode(display=False)
    with torch.no_grad(), counter:
        model(*args, **kwargs)
    return int(counter.get_total_flops())


def saved(model: nn.Module, make: Callable[..., tuple], batch: int, latent: int,
          precision: str) -> SavedCounter:
    dtype = torch.bfloat16 if precision == "bf16" else torch.float32
    model = model.to(dtype)
    model.train()
    args, kwargs = make(batch, latent, dtype)
    counter = SavedCounter(model, checkpoint_units(model))
    emulation = CudaEmulation(torch.bfloat16 if precision == "amp" else None)
    with fused_attention(), counter.counting(), emulation:
        model(*args, **kwargs)
    return counter


def live_peak(fn: Callable[..., object], *args: Any, **kwargs: Any) -> int:
    mode = LiveBytes()
    with torch.no_grad(), fused_attention(), mode:
        fn(*args, **kwargs)
    return mode.peak


def measure(pid: str) -> dict[str, Any]:
    build, make, latent = MODELS[pid]
    with META:
        model = build()
    args, kwargs = make(1, latent, torch.float32)
    full = forward_flops(model, args, kwargs)
    half_args, half_kwargs = make(1, latent // 2, torch.float32)
    half = forward_flops(model, half_args, half_kwargs)
    # F(s) = a*s + b*s^2 over latent area s (1 at native size, 1/4 at half): b is the
    # self-attention part quadratic in the number of latent positions.
    quadratic = (half - full / 4) / (1 / 16 - 1 / 4)
    out: dict[str, Any] = {
        "latent_size": latent,
        "forward_flops_per_sample": full,
        "attention_quadratic_flops": int(round(quadratic)),
        "built_params": sum(p.numel() for p in model.parameters()),
        "largest_layer_params": max(sum(p.numel() for p in m.parameters(recurse=False))
                                    for m in model.modules()),
        "lora_params_per_rank": lora_params_per_rank(model),
    }
    for precision in PRECISIONS:
        one = saved(model, make, 1, latent, precision)
        two = saved(model, make, 2, latent, precision)
        per_sample = two.total() - one.total()
        ck_sample = two.checkpointed() - one.checkpointed()
        dtype = torch.bfloat16 if precision == "bf16" else torch.float32
        a, k = make(1, latent, dtype)
        out[precision] = {
            "bytes_per_sample": per_sample,
            "bytes_per_step": one.total() - per_sample,
            "checkpointed_bytes_per_sample": ck_sample,
            "checkpointed_bytes_per_step": one.checkpointed() - ck_sample,
            "inference_peak_bytes_per_sample": live_peak(model, *a, **k),
        }
    return out


def measure_vae(image: int) -> dict[str, int]:
    with META:
        vae = sd_vae()
    out: dict[str, int] = {"params": sum(p.numel() for p in vae.parameters())}
    for precision, dtype in (("fp32", torch.float32), ("bf16", torch.bfloat16)):
        vae = vae.to(dtype)
        x = torch.randn(1, 3, image, image, device=META, dtype=dtype)
        z = torch.randn(1, 4, image // 8, image // 8, device=META, dtype=dtype)
        out[f"encode_peak_bytes_{precision}"] = live_peak(vae.encode, x)
        out[f"decode_peak_bytes_{precision}"] = live_peak(vae.decode, z)
    vae = vae.float()
    x = torch.randn(1, 3, image, image, device=META)
    z = torch.randn(1, 4, image // 8, image // 8, device=META)
    out["encode_flops"] = forward_flops(vae.encoder, (x,), {})
    out["decode_flops"] = forward_flops(vae.decoder, (z,), {})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="measure and print, do not write")
    args = parser.parse_args(argv)
    from torchrig.jsonio import atomic_write_json, load_versioned
    from torchrig.planning.presets import PRESETS_FORMAT, PRESETS_VERSION, presets_path
    from torchrig.verify.library_models import import_library

    # As verify imports it: a torchvision built for another torch imported without its
    # compiled operators, diffusers' casting advice silenced.
    diffusers = import_library("diffusers")
    path = presets_path()
    document = load_versioned(path, PRESETS_FORMAT, PRESETS_VERSION)
    entries = {p["id"]: p for p in document["presets"]}
    stamp = {"generated_by": "scripts/calibrate_diffusion.py",
             "date": _dt.date.today().isoformat(), "torch_version": torch.__version__,
             "diffusers_version": diffusers.__version__}
    vae_cache: dict[int, dict[str, int]] = {}
    for pid in MODELS:
        entry = entries[pid]
        result = measure(pid)
        built = result.pop("built_params")
        if pid != "dit-xl-2-256" and built != entry["params"]:
            raise SystemExit(f"{pid}: built model has {built} parameters, preset says "
                             f"{entry['params']}")
        image = entry["image_size"]
        if image not in vae_cache:
            vae_cache[image] = measure_vae(image)
        vae = vae_cache[image]
        if vae["params"] != entry["vae_params"]:
            raise SystemExit(f"{pid}: VAE has {vae['params']} parameters, preset says "
                             f"{entry['vae_params']}")
        result["vae"] = {k: v for k, v in vae.items() if k != "params"}
        result.update(stamp)
        print(pid, result, flush=True)
        if not args.check:
            entry["largest_layer_params"] = result.pop("largest_layer_params")
            entry["lora_params_per_rank"] = result.pop("lora_params_per_rank")
            entry["measured"] = result
    if not args.check:
        atomic_write_json(path, document)
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""What one verification process runs in place of the workload it was given (torch-free).

One process measures one GPU: a multi-GPU layout is measured as one GPU of plain data
parallelism, and a diffusion training step as its denoiser on latents. Each function returns
the workload to measure and plan, and the note the result prints (None: nothing changed).
"""

from __future__ import annotations

from torchrig.i18n import Msg
from torchrig.planning.workload import Workload
from torchrig.verify.preset_models import preset_model_source
from torchrig.verify.sources import ModelSource, preset_source


def default_source(w: Workload) -> ModelSource:
    """Whose model runs when the user names none: the preset's own library model - a
    diffusion preset's diffusers denoiser, a transformer's published config in transformers,
    a vision classifier from torchvision - or the reference model with the reason none runs
    (:mod:`torchrig.verify.preset_models`)."""
    found = preset_source(w.model) if w.task == "image_generation" else None
    return found or preset_model_source(w)


def denoiser_only(w: Workload) -> tuple[Workload, Msg | None]:
    """A diffusion training workload as verify runs it: the denoiser on latents, the frozen
    VAE and text encoder(s) not run - the plan of the same with precomputed latents."""
    if w.task != "image_generation" or not w.is_training or w.precomputed_latents:
        return w, None
    doc = w.to_dict()
    doc.update(precomputed_latents=True)
    return Workload.from_dict(doc, where="workload"), Msg(
        "the denoiser measured on latents (the frozen VAE and text encoder are not run); "
        "compared with the plan of the same workload with precomputed latents",
        "在潜变量上测量去噪网络（不运行冻结的 VAE 与文本编码器）；与同一工作负载在预先计算潜变量时"
        "的规划对比")


def single_gpu(w: Workload) -> tuple[Workload, Msg | None]:
    """The workload on one GPU with plain data parallelism (what one process measures)."""
    if w.total_gpus == 1 and w.strategy == "ddp" and w.offload == "none":
        return w, None
    doc = w.to_dict()
    doc.update(gpus_per_node=1, nodes=1, strategy="ddp", tp_size=1, pp_size=1, vp_size=1,
               offload="none")
    return Workload.from_dict(doc, where="workload"), Msg(
        f"measured as one GPU of plain data parallelism (the workload plans {w.total_gpus} "
        f"GPUs, {w.strategy}); compared with the plan of that one GPU",
        f"按单 GPU 普通数据并行测量（工作负载规划 {w.total_gpus} 个 GPU，{w.strategy}）；"
        "与该单 GPU 的规划对比")

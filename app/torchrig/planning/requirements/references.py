"""What others say, beside what the planner computes: published rules of thumb (Puget
Systems, Tim Dettmers, the seed document), what HF accelerate and DeepSpeed's estimators would
print for this workload, and the seed document's claims recomputed for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from torchrig.i18n import Msg
from torchrig.planning.presets import Calibration
from torchrig.planning.requirements.activations import training_activations
from torchrig.planning.requirements.assumptions import IMAGE_TASKS
from torchrig.planning.requirements.estimators import (
    accelerate_estimate,
    deepspeed_zero2_estimate,
    deepspeed_zero3_estimate,
)
from torchrig.planning.requirements.host import decoded_bytes
from torchrig.planning.requirements.model_states import model_state_bytes
from torchrig.planning.requirements.types import Item, SeedClaim
from torchrig.planning.requirements.vram import VramExtras
from torchrig.planning.workload import ResolvedModel, Workload
from torchrig.records import replace
from torchrig.units import GB, fmt_gb, fmt_gib

if TYPE_CHECKING:
    # Annotations only: a plan without a GPU never imports the device model or its links.
    from torchrig.planning.device import DeviceSpec


def rules_of_thumb(w: Workload, gpu: DeviceSpec | None) -> list[dict[str, Any]]:
    """Published rules of thumb for CPU cores and RAM, for comparison with the plan."""
    g = w.gpus_per_node
    vram = gpu.vram_bytes if gpu else None
    return [
        {"topic": "cpu_cores", "source": "Puget Systems", "value": max(4 * g, 16 if g > 1 else 4),
         "text": Msg(">= 4 cores per GPU, 16+ for a multi-GPU workstation",
                     "每 GPU 至少 4 核，多 GPU 工作站 16 核以上").to_dict()},
        {"topic": "cpu_cores", "source": "Tim Dettmers", "value": 2 * g,
         "text": Msg("1-2 cores per GPU when data is preprocessed",
                     "数据已预处理时每 GPU 1-2 核").to_dict()},
        {"topic": "cpu_cores", "source": "seed 1.1", "value": 8,
         "text": Msg(">= 8 cores with SMT", "至少 8 核且支持超线程").to_dict()},
        {"topic": "ram", "source": "Tim Dettmers", "value": vram,
         "text": Msg("RAM >= the largest GPU's VRAM", "内存 ≥ 最大 GPU 显存").to_dict()},
        {"topic": "ram", "source": "Puget Systems", "value": None if vram is None
         else 2 * vram * g,
         "text": Msg("RAM >= 2x total VRAM", "内存 ≥ 显存总量的 2 倍").to_dict()},
        {"topic": "ram", "source": "seed 1.2", "value": 32 * GB,
         "text": Msg(">= 32 GB, enable swap", "至少 32 GB，并启用交换空间").to_dict()},
    ]


def reference_items(w: Workload, model: ResolvedModel) -> dict[str, Item]:
    """What two well-known estimators would print, to show why our figure differs."""
    items: dict[str, Item] = {}
    fp32_total = model.params * 4.0 + model.buffer_bytes
    # fp8 training keeps 16-bit weights (Transformer Engine quantizes per GEMM), and accelerate
    # has no fp8 dtype: its bf16 column is the comparable one.
    fp8_train = w.precision == "fp8" and w.is_training
    acc_model, acc_train = accelerate_estimate(fp32_total,
                                               "amp_bf16" if fp8_train else w.precision)
    why = Msg("; fp8 training: its bf16 figure (the weights Transformer Engine keeps)"
              if fp8_train else "", "；fp8 训练：取其 bf16 数值（Transformer Engine 保留的权重）"
              if fp8_train else "")
    items["accelerate_model_bytes"] = Item(acc_model, Msg(
        f"HF accelerate estimate-memory: parameters + buffers at the dtype{why.en}",
        f"HF accelerate estimate-memory：参数 + 缓冲区（按数据类型）{why.zh}"))
    items["accelerate_training_bytes"] = Item(acc_train if w.is_training else None, Msg(
        "its 'training using Adam' column: the largest of four components, no activations or "
        "overhead (ours sums them)", "其“Adam 训练”列：四个组件的最大值，不含激活和开销"
        "（本工具逐项相加）"))
    if w.strategy in ("zero2", "zero3") and w.is_training and not w.is_lora:
        g, nodes = w.gpus_per_node, w.nodes
        if w.strategy == "zero2":
            cpu, gpu = deepspeed_zero2_estimate(model.params, g, nodes, w.offload != "none")
        elif model.largest_layer_params:
            cpu, gpu = deepspeed_zero3_estimate(
                model.params, model.largest_layer_params, g, nodes, w.offload != "none",
                w.offload == "optimizer_and_params")
        else:
            cpu = gpu = None  # type: ignore[assignment]
        note = Msg("DeepSpeed's model-states estimator (no activations), per GPU / per node",
                   "DeepSpeed 模型状态估算器（不含激活），每 GPU / 每节点")
        items["deepspeed_gpu_bytes"] = Item(None if gpu is None else float(gpu), note)
        items["deepspeed_cpu_bytes"] = Item(None if cpu is None else float(cpu), note)
    return items


def seed_claims(w: Workload, model: ResolvedModel, cal: Calibration | None,
                vram: dict[str, Item], extras: VramExtras) -> list[SeedClaim]:
    """The seed document's claims, each beside what the planner computes for this workload."""
    claims: list[SeedClaim] = []
    seed_ds = 100_000 * 224 * 224 * 3
    decoded = decoded_bytes(w, model)
    mine = Msg("", "")
    if w.dataset.samples and w.task in IMAGE_TASKS:
        mine = Msg(f"; this workload: {w.dataset.samples:,} x {decoded:,.0f} B = "
                   f"{fmt_gb(w.dataset.samples * decoded)}",
                   f"；本工作负载：{w.dataset.samples:,} × {decoded:,.0f} 字节 = "
                   f"{fmt_gb(w.dataset.samples * decoded)}")
    claims.append(SeedClaim(
        "seed 1.2", Msg("100,000 RGB images of 224x224 need about 15 GB of RAM",
                        "10 万张 224×224 RGB 图像约需 15GB 内存"),
        "~15 GB", float(seed_ds), "B",
        Msg(f"100,000 x 150,528 B (uint8) = {fmt_gb(seed_ds, 2)} ({fmt_gib(seed_ds, 2)}); as "
            f"float32 tensors 4x that{mine.en}",
            f"100,000 × 150,528 字节（uint8）= {fmt_gb(seed_ds, 2)}（{fmt_gib(seed_ds, 2)}）；"
            f"若存为 float32 张量则为 4 倍{mine.zh}")))
    if w.is_training and not w.is_lora and w.precision in ("fp32", "tf32", "amp_fp16",
                                                          "amp_bf16"):
        fp32 = _vram_body(replace(w, precision="fp32"), model, cal)
        amp = _vram_body(replace(w, precision="amp_bf16"), model, cal)
        saving = None if not fp32 or amp is None else 1 - amp / fp32
        claims.append(SeedClaim(
            "seed 3.1", Msg("mixed precision cuts memory by 50%", "混合精度减少 50% 显存"),
            "-50%", None if saving is None else -saving, "fraction",
            _amp_note(w.strategy)))
    if w.is_training and extras.activations.without_checkpointing:
        on = _activation_bytes(replace(w, gradient_checkpointing=True), model, cal)
        off = extras.activations.without_checkpointing
        saving = None if on is None or not off else 1 - on / off
        claims.append(SeedClaim(
            "seed 3.3", Msg("gradient checkpointing: 60-80% less memory, 10-20% more time",
                            "梯度检查点：显存减少 60%-80%，时间增加 10%-20%"),
            "-60..-80%, +10..20%", None if saving is None else -saving, "fraction",
            Msg("activation saving computed for this workload; the recompute costs one extra "
                "forward, ~+33% compute (Chen et al.), more than the seed's 10-20%",
                "按本工作负载计算的激活节省；重算需多一次前向，约增加 33% 计算量（Chen 等），"
                "高于文档所说的 10%-20%")))
    return claims


def _amp_note(strategy: str) -> Msg:
    """Why AMP saves so little of the model states under this strategy."""
    if strategy in ("zero1", "zero2", "zero3"):
        return Msg("this workload, fp32 vs AMP: under ZeRO DeepSpeed's mixed precision holds "
                   "18-20 B/param (16-bit weights and gradients, fp32 master copy, gradient "
                   "shard and Adam states) against fp32's 16; only activations shrink (~half)",
                   "本工作负载 fp32 与 AMP 对比：ZeRO 下 DeepSpeed 混合精度每参数占 18-20 字节"
                   "（16 位"
                   "权重和梯度、fp32 主副本、梯度分片与 Adam 状态），fp32 为 16 字节；"
                   "只有激活减半左右")
    return Msg("this workload, fp32 vs AMP: weights, gradients and Adam states stay fp32 "
               "(16 B/param either way); only activations shrink (~half)",
               "本工作负载 fp32 与 AMP 对比：权重、梯度和 Adam 状态仍为 fp32（两种方式均为每参数 "
               "16 字节）；只有激活减半左右")


def _activation_bytes(w: Workload, model: ResolvedModel, cal: Calibration | None
                      ) -> float | None:
    return training_activations(w, model, cal).bytes


def _vram_body(w: Workload, model: ResolvedModel, cal: Calibration | None) -> float | None:
    """Weights + gradients + states + activations of a variant of the workload."""
    states = model_state_bytes(model.params, w.precision, w.optimizer, w.strategy,
                               w.data_parallel, w.tp_size * w.pp_size)
    acts = _activation_bytes(w, model, cal)
    if acts is None:
        return None
    return states.weights + states.gradients + states.optimizer_states + acts

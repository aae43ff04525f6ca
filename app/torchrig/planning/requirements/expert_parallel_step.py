"""Expert parallelism's effect on a training step: each micro-batch's compute plus its MoE
all-to-alls (:mod:`.expert_parallel`), then the data-parallel gradient sync of
:func:`.scaling.scaling_curve`. Its own module because the traffic model
(:mod:`.expert_parallel`) is used by :mod:`.interconnect`, which :mod:`.scaling` imports."""

from __future__ import annotations

from typing import TYPE_CHECKING

from torchrig.errors import InputError
from torchrig.i18n import Msg
from torchrig.planning.requirements.expert_parallel import micro_batch_seconds
from torchrig.planning.requirements.scaling import scaling_curve
from torchrig.planning.requirements.types import Item
from torchrig.planning.workload import Workload, resolve_model

if TYPE_CHECKING:
    from torchrig.planning.device import DeviceSpec


def expert_parallel_efficiency(w: Workload, gpu: DeviceSpec, per_gpu: float) -> Item:
    """Training with expert parallelism: each micro-batch's compute plus its all-to-alls (not
    overlapped), then the data-parallel gradient sync behind the last backward
    (:func:`.scaling.scaling_curve`, DDP bucket by bucket). The efficiency is the compute's
    share of the step."""
    assert gpu.intra_link is not None
    model = resolve_model(w)
    compute = w.batch_size / per_gpu
    links = gpu.intra_link.name + (f" + {gpu.inter_link.name}" if w.nodes > 1 and gpu.inter_link
                                   else "")
    try:
        a2a = micro_batch_seconds(w, model, gpu.intra_link, gpu.inter_link, gpu.nics_per_node)
        point = scaling_curve(w, compute + a2a, gpu.intra_link, [w.total_gpus],
                              w.gpus_per_node, gpu.inter_link, gpu.nics_per_node)[0]
    except InputError as exc:
        return Item(None, Msg(f"not modelled: {exc}; time assumes perfect scaling",
                              f"未建模：{exc}；时间按理想扩展计算"))
    m = w.grad_accumulation
    per_step = m * a2a * 1e3
    return Item(m * compute / point.step_time_s, Msg(
        f"scaling model over {links}: {per_step:.1f} ms of expert-parallel all-to-all per "
        f"optimizer step the passes wait for ({w.ep_size} GPUs per expert group, not overlapped "
        f"as Megatron-Core and DeepSpeed-MoE run by default), {point.comm_time_s * 1e3:.1f} ms "
        "of gradient traffic partly hidden behind backward (an upper bound: communication only)",
        f"扩展模型（{links}）：每个优化器步专家并行 all-to-all {per_step:.1f} ms，前向反向需等待"
        f"（每个专家组 {w.ep_size} 个 GPU，按 Megatron-Core 与 DeepSpeed-MoE 默认不重叠），"
        f"梯度通信 {point.comm_time_s * 1e3:.1f} ms，部分与反向重叠（上界：只计通信）"))

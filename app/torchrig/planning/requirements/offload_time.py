"""What ZeRO-Offload costs a training step: the host-link copies and the CPU's Adam update, and
which of them hide behind the GPU's passes (docs/estimation.md sec. 6.2).

DeepSpeed's schedule (Ren et al., "ZeRO-Offload", USENIX ATC 2021, sec. 4; and the code,
deepspeed/runtime/zero/stage_1_and_2.py and stage3.py):

- backward copies each rank's 16-bit gradient shard to the CPU as its buckets are reduced, on a
  side stream while backward goes on (``async_inplace_copy_grad_to_fp32_buffer_from_gpu``);
  with gradient accumulation every micro-batch does, and from the second on the sum so far
  comes back up to be added on the GPU (``async_accumulate_grad_in_cpu_via_gpu``);
- after backward, the step waits for the CPU's Adam over the shard (DeepSpeedCPUAdam), then
  for the updated 16-bit shard going back up (``bit16_partitions[...].copy_``): neither
  overlaps the GPU's work (the paper's one-step delayed update, which would, is not what
  DeepSpeed runs);
- with the parameters offloaded too (ZeRO-3 ``offload_param``), the 16-bit shard stays in CPU
  memory: forward and backward fetch it again, prefetched behind the passes, and nothing goes
  up after the step.

Copies in one direction share the link; the two directions do not (PCIe is full duplex).
"""

from __future__ import annotations

from torchrig.i18n import Msg
from torchrig.planning.links import LINKS, Link
from torchrig.planning.requirements.model_states import lora_trainable_params
from torchrig.planning.requirements.scaling import BACKWARD_SHARE, BACKWARD_SHARE_CHECKPOINTED
from torchrig.planning.requirements.types import Assumption, Item
from torchrig.planning.workload import ResolvedModel, Workload
from torchrig.records import record
from torchrig.units import fmt_seconds

CPU_ADAM_PARAMS_PER_S = 11.6e9 / 8.2
"""Parameters DeepSpeedCPUAdam updates per second on one node's CPU: 11.6 billion in 8.2 s
(GPT-2 11.6B; torch.optim.Adam took 56 s), DeepSpeed PR #735 by R. Yazdani Aminabadi, a
ZeRO-Offload author, 2021-02-08 (https://github.com/deepspeedai/DeepSpeed/pull/735). The CPU is
not named there; the update is bound by the host's memory bandwidth, so a node's ranks share
this rate rather than each getting it (docs/estimation.md sec. 6.2)."""

CPU_ADAM_SOURCE = Msg(
    "DeepSpeedCPUAdam: 11.6B parameters in 8.2 s, DeepSpeed PR #735",
    "DeepSpeedCPUAdam：116 亿参数 8.2 秒，DeepSpeed PR #735")

ASSUMED_HOST_LINK = LINKS["pcie4_x16"]
"""The host link when the GPU's is unknown (a detected GPU, a module without a PCIe figure)."""


@record
class OffloadStep:
    """One optimizer step of ZeRO-Offload, in seconds unless named.

    Attributes:
        shard_params: parameters each rank updates (all / data-parallel ranks).
        copy_s: the rank's 16-bit shard over the host link once, one direction.
        cpu_adam_s: the node's CPU updating the shards of all its ranks.
        exposed_s: what the step waits for beyond the GPU's compute, per optimizer step.
    """

    shard_params: float
    copy_s: float
    cpu_adam_s: float
    exposed_s: float


def offload_step(w: Workload, trained: float, params: float, compute_s: float,
                 link_bps: float) -> OffloadStep:
    """ZeRO-Offload's wait per optimizer step for ``w``: ``trained`` parameters (their
    gradients, Adam and update), ``params`` in all (fetched when they are offloaded too), one
    micro-batch's GPU compute ``compute_s``, the host link at ``link_bps`` per direction."""
    ranks = max(1, w.data_parallel)
    shard = trained / ranks
    element = 4.0 if w.precision in ("fp32", "tf32") else 2.0  # the GPU's weights and grads
    copy = element * shard / link_bps
    share = BACKWARD_SHARE_CHECKPOINTED if w.gradient_checkpointing else BACKWARD_SHARE
    backward = compute_s * share
    forward = compute_s - backward
    params_out = w.offload == "optimizer_and_params"
    # The weights fetched again in each pass (a LoRA's frozen base too).
    fetch = element * params / ranks / link_bps if params_out else 0.0
    # Backward sends the gradients down and, with the parameters out, fetches them up; from
    # the second micro-batch on, the sum so far comes up too (two directions, one each).
    first = max(0.0, fetch - forward) + max(0.0, max(copy, fetch) - backward)
    later = max(0.0, fetch - forward) + max(0.0, max(copy, fetch + copy) - backward)
    waits = first + (w.grad_accumulation - 1) * later
    # The node's CPU runs the Adam of every rank on it (gpus_per_node shards).
    adam = shard * w.gpus_per_node / CPU_ADAM_PARAMS_PER_S
    after = 0.0 if params_out else copy  # the updated weights up to the GPU
    return OffloadStep(shard, copy, adam, waits + adam + after)


def offload_item(w: Workload, model: ResolvedModel, compute_s: float, host: Link | None,
                 optimizer_step_s: float, assumptions: list[Assumption]) -> tuple[Item, float]:
    """The plan's "offload_time_s" item - seconds per optimizer step the GPU waits for
    ZeRO-Offload - and the share of the time left to the step's own work
    (``optimizer_step_s`` without offload over the step with it)."""
    link = host if host is not None else ASSUMED_HOST_LINK
    trained = lora_trainable_params(w, model) if w.is_lora else float(model.params)
    step = offload_step(w, trained, float(model.params), compute_s, link.busbw_bps)
    rate = CPU_ADAM_PARAMS_PER_S
    assumed = Msg("", "") if host is not None else Msg(
        " (assumed: the GPU's own is unknown)", "（假设：GPU 自身链路未知）")
    assumptions.append(Assumption("cpu_adam", Msg(
        f"ZeRO-Offload's CPU Adam updates {rate / 1e9:.2f}B parameters/s per node "
        f"({CPU_ADAM_SOURCE.en}; the CPU is not named there: measure yours), the node's ranks "
        f"sharing it; host copies over {link.name}{assumed.en} at {link.busbw_bps / 1e9:.1f} "
        "GB/s per direction",
        f"ZeRO-Offload 的 CPU Adam 每节点每秒更新 {rate / 1e9:.2f}B 参数（{CPU_ADAM_SOURCE.zh}；"
        f"原文未给出 CPU 型号，请实测），同节点各进程共用；主机拷贝经 {link.name}{assumed.zh}，"
        f"每方向 {link.busbw_bps / 1e9:.1f} GB/s"), rate))
    params_out = w.offload == "optimizer_and_params"
    what = Msg("weights fetched in forward and backward, ", "前向与反向各取回一次权重，") \
        if params_out else Msg("", "")
    up = Msg("", "") if params_out else Msg(f" + the weights up {fmt_seconds(step.copy_s)}",
                                            f" + 权重上传 {fmt_seconds(step.copy_s, 'zh')}")
    note = Msg(
        f"per optimizer step: CPU Adam {fmt_seconds(step.cpu_adam_s)}{up.en} after backward; "
        f"{what.en}16-bit gradients down ({fmt_seconds(step.copy_s)} a micro-batch) hidden "
        f"behind the passes where they fit ({step.shard_params / 1e9:.2f}B parameters a rank, "
        f"{link.name})",
        f"每个优化器步：反向后 CPU Adam {fmt_seconds(step.cpu_adam_s, 'zh')}{up.zh}；{what.zh}"
        f"16 位梯度下传（每微批次 {fmt_seconds(step.copy_s, 'zh')}）能重叠处藏在前向/反向之后"
        f"（每进程 {step.shard_params / 1e9:.2f}B 参数，{link.name}）")
    return Item(step.exposed_s, note), optimizer_step_s / (optimizer_step_s + step.exposed_s)


__all__ = ["ASSUMED_HOST_LINK", "CPU_ADAM_PARAMS_PER_S", "CPU_ADAM_SOURCE", "OffloadStep",
           "offload_item", "offload_step"]

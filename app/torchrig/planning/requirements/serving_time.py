"""What one serving group (the tensor x pipeline x expert-parallel GPUs that hold one copy of
the model) gets from its GPUs, and what the deployment (its replicas) serves: prefill
compute-bound, decode bandwidth-bound, each at a utilisation fitted on TensorRT-LLM's published
measurements (docs/estimation.md sec. 8.6), tensor-parallel all-reduces, pipeline hand-offs and
expert-parallel all-to-alls in every forward pass, the KV budget of vLLM's
gpu_memory_utilization and the requests that fit in it.

Expert parallelism over e GPUs (docs/estimation.md sec. 12.1): each GPU holds 1/e of the
routed experts and all the rest (attention replicated, as vLLM runs data-parallel attention
with ``--enable-expert-parallel``), so the e GPUs serve one batch together: each runs the
attention of 1/e of the requests and holds their KV cache, the experts compute every GPU's
tokens routed to them, and each MoE layer's dispatch and combine all-to-all move the tokens.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from torchrig.i18n import Msg
from torchrig.planning.presets import TransformerArch
from torchrig.planning.requirements import expert_parallel
from torchrig.planning.requirements.assumptions import (
    DECODE_BANDWIDTH_UTILISATION,
    DECODE_COMPUTE_UTILISATION,
    ENGINE_MAX_BATCH,
    GPU_MEMORY_UTILIZATION,
    PREFILL_UTILISATION,
)
from torchrig.planning.requirements.kv_cache import (
    kv_element_bytes,
    kv_share_per_gpu,
    request_tokens,
)
from torchrig.planning.requirements.types import Item
from torchrig.planning.workload import Workload
from torchrig.records import record
from torchrig.units import fmt_gib

if TYPE_CHECKING:
    # Annotations only: a plan without a GPU never imports the device model or its links.
    from torchrig.planning.device import DeviceSpec
    from torchrig.planning.links import Link


def serving_peak(w: Workload, gpu: DeviceSpec | None) -> tuple[float | None, Msg | None]:
    """The dense peak serving computes at, or None with the reason when the GPU's tensor cores
    lack the precision's format (fp8 on an A100) - never a silent 16-bit peak."""
    if gpu is None:
        return None, None
    from torchrig.planning.device import missing_tensor_format

    why = missing_tensor_format(gpu, w.precision)
    if why is not None:
        return None, why
    peak, key = gpu.peak_for(w.precision)
    if peak is None:
        return None, Msg(f"{gpu.name}: its dense {key} peak is unknown",
                         f"{gpu.name}：稠密 {key} 峰值未知")
    return peak, None


def serving_groups(w: Workload) -> int:
    """Copies of the model the deployment serves: GPUs / (t x p x expert-parallel group). An
    expert-parallel group holds one copy between its GPUs (issue 24: it was counted as e)."""
    return max(1, w.total_gpus // (w.tp_size * w.pp_size * expert_parallel.ep_group(w)))


@record
class _Group:
    """One tensor x pipeline x expert-parallel group serving ``arch`` on ``gpu``."""

    w: Workload
    arch: TransformerArch
    peak: float | None
    bandwidth: float | None
    weights_per_gpu: float
    link: Link | None
    gpu: DeviceSpec | None = None

    @property
    def t(self) -> int:
        return max(1, self.w.tp_size)

    @property
    def p(self) -> int:
        return max(1, self.w.pp_size)

    @property
    def e(self) -> int:
        """GPUs of the expert-parallel group (1 without expert parallelism)."""
        return expert_parallel.ep_group(self.w)

    @property
    def act(self) -> float:
        """Bytes of one activation element sent between GPUs (16-bit, fp32 under fp32)."""
        return 4.0 if self.w.precision in ("fp32", "tf32") else 2.0

    def comm(self, tokens: float) -> float:
        """Seconds of one forward pass of ``tokens`` spent between GPUs: Megatron tensor
        parallelism's two all-reduces of tokens x hidden per layer (ring: 2(t-1)/t of it sent
        per GPU) and the pipeline's p-1 hand-offs of tokens x hidden; 0 on one GPU or when the
        link is unknown."""
        link, t, p = self.link, self.t, self.p
        if link is None:
            return 0.0
        h = self.arch.hidden * self.act * tokens
        tp = 0.0 if t == 1 else 2 * self.arch.layers * (
            link.latency_s + h * 2 * (t - 1) / t / link.busbw_bps)
        pp = 0.0 if p == 1 else (p - 1) * (link.latency_s + h / link.busbw_bps)
        return tp + pp

    def ep_comm(self, tokens: float) -> float:
        """Seconds of the dispatch and combine all-to-alls of every MoE layer when one GPU of
        the expert-parallel group holds ``tokens`` (:mod:`.expert_parallel`); 0 without expert
        parallelism or a GPU with known links."""
        gpu, e = self.gpu, self.e
        if e <= 1 or gpu is None or gpu.intra_link is None:
            return 0.0
        payload = expert_parallel.all_to_all_payload(self.w, self.arch, tokens)
        one = expert_parallel.all_to_all_seconds(payload, e, self.w.gpus_per_node,
                                                 gpu.intra_link, gpu.inter_link,
                                                 gpu.nics_per_node)
        return expert_parallel.A2A_PER_MOE_LAYER * self.arch.moe_layers * one

    def _expert_flops_elsewhere(self, tokens: float) -> float:
        """FLOPs of ``tokens``' routed experts the group's other GPUs compute: (e-1)/e of
        2 x the active routed weights per token."""
        a = self.arch
        routed = a.moe_layers * a.active_experts * 3 * a.hidden * a.expert_ffn
        return 2 * routed * tokens * (self.e - 1) / self.e

    def prefill_flops(self, prompt: int) -> float:
        # (2N + 4·L·s·h) per token: the causal attention averages s/2 keys per query.
        n = self.arch.forward_matmul_params(lm_head=True)
        return float((2 * n + 4 * self.arch.layers * self.arch.hidden * prompt) * prompt)

    def time_to_first_token(self, prompt: int) -> float | None:
        """One prompt on an idle group: its stages run one after the other; with expert
        parallelism its attention runs on one GPU and its routed experts on all e."""
        if not self.peak:
            return None
        flops = self.prefill_flops(prompt) - self._expert_flops_elsewhere(prompt)
        return (flops / (self.peak * PREFILL_UTILISATION * self.t) + self.comm(prompt)
                + self.ep_comm(prompt))

    def prefill_per_request(self, prompt: int) -> float | None:
        """Group time one request's prefill takes in a full engine: the pipeline's stages work
        on different prompts at once, and so do an expert-parallel group's e GPUs (each with
        1/e of the prompts, its all-to-alls at the same time as theirs)."""
        if not self.peak:
            return None
        return (self.prefill_flops(prompt)
                / (self.peak * PREFILL_UTILISATION * self.t * self.p * self.e)
                + self.comm(prompt) / self.p + self.ep_comm(prompt) / self.e)

    def kv_per_gpu(self, sequences: float, context: float) -> float:
        # A mean context need not be a whole number of tokens: the formula is linear in it.
        per = self.arch.kv_cache_bytes_per_sequence(context, kv_element_bytes(self.w))  # type: ignore[arg-type]
        return per * sequences * kv_share_per_gpu(self.w, self.arch)

    def read_per_step(self, sequences: float, context: float) -> float:
        """Bytes one GPU reads while every sequence advances one token: its weights once per
        micro-batch in flight (p of them) and its share of every sequence's cache."""
        return self.p * self.weights_per_gpu + self.kv_per_gpu(sequences, context)

    def time_per_output_token(self, sequences: float, context: float) -> float | None:
        """A decode step: reading at the fitted share of the bandwidth, or computing
        (2N + 4·L·h·c) per sequence at the decode share of the peak, whichever is slower,
        plus the step's communication."""
        if not self.peak or not self.bandwidth:
            return None
        n = self.arch.forward_matmul_params(lm_head=True)
        flops = (2 * n + 4 * self.arch.layers * self.arch.hidden * context) * sequences
        memory = self.read_per_step(sequences, context) / (
            self.bandwidth * DECODE_BANDWIDTH_UTILISATION)
        compute = flops / (self.t * self.p * self.e) / (self.peak * DECODE_COMPUTE_UTILISATION)
        # Megatron TP and the pipeline move every sequence's token; an expert-parallel GPU
        # sends only its 1/e of the sequences' tokens.
        return max(memory, compute) + self.comm(sequences) + self.ep_comm(sequences / self.e)

    def output_rate(self, sequences: float) -> float | None:
        """Output tokens per second of the group with ``sequences`` requests at once: with an
        output length, each request's prefill and its share of the decode steps; without, the
        decode steps alone."""
        prompt, out = self.w.seq_len or 1, self.w.output_tokens
        context = prompt + out / 2 if out else prompt
        tpot = self.time_per_output_token(sequences, context)
        if tpot is None:
            return None
        if not out:
            return sequences / tpot
        prefill = self.prefill_per_request(prompt)
        assert prefill is not None  # tpot needs the peak too
        return sequences * out / (sequences * prefill + out * tpot)


def _link(w: Workload, gpu: DeviceSpec | None) -> Link | None:
    if gpu is None:
        return None
    inside = w.tp_size * w.pp_size <= w.gpus_per_node
    return gpu.intra_link if inside else gpu.inter_link


def llm_serving_items(w: Workload, arch: TransformerArch, gpu: DeviceSpec | None,
                      vram: dict[str, Item], no_gpu: Msg) -> dict[str, Item]:
    """Prefill, decode, the KV budget and the deployment's output rate for ``w`` on ``gpu``."""
    peak, refused = serving_peak(w, gpu)
    unknown = refused or no_gpu
    group = _Group(w, arch, peak, gpu.memory_bandwidth_bps if gpu else None,
                   vram["weights"].value or 0.0, _link(w, gpu), gpu)
    items = _prefill_items(w, group, unknown)
    items.update(_decode_items(w, group, unknown, gpu))
    items.update(_budget_items(w, group, gpu, vram, unknown))
    return items


def _prefill_items(w: Workload, g: _Group, unknown: Msg) -> dict[str, Item]:
    prompt, batch, t = w.seq_len or 1, w.batch_size, g.t
    items: dict[str, Item] = {"prefill_flops": Item(g.prefill_flops(prompt) * batch, Msg(
        "(2N + 4·L·s·h) per token x prompt tokens x batch, N = active matmul parameters",
        "每 token (2N + 4·L·s·h) × 提示 token × 批大小，N 为激活的矩阵乘参数"))}
    each = g.prefill_per_request(prompt)
    prefill = None if each is None else each * batch + g.comm(prompt) * (1 - 1 / g.p)
    comm = (Msg("", "") if g.comm(prompt) == 0 else
            Msg(" + tensor/pipeline-parallel transfers", " + 张量/流水线并行通信"))
    gpus = Msg(f"{t} tensor-parallel GPUs", f"{t} 个张量并行 GPU")
    if g.e > 1:
        gpus = Msg(f"{g.e} expert-parallel GPUs", f"{g.e} 个专家并行 GPU")
        if g.ep_comm(prompt):
            comm = Msg(" + the MoE layers' all-to-alls", " + MoE 层的 all-to-all")
    items["prefill_time_s"] = Item(prefill, Msg(
        f"FLOPs / ({PREFILL_UTILISATION:.0%} of the dense peak x {gpus.en}){comm.en}",
        f"FLOPs /（稠密峰值的 {PREFILL_UTILISATION:.0%} × {gpus.zh}）{comm.zh}")
        if prefill else unknown)
    items["prefill_tokens_per_s"] = Item(
        None if not prefill else prompt * batch / prefill,
        Msg("prompt tokens / prefill time", "提示 token / 预填充时间") if prefill else unknown)
    items["time_to_first_token_s"] = Item(g.time_to_first_token(prompt), Msg(
        f"prefill of one {prompt:,}-token prompt on an idle engine",
        f"空闲时一个 {prompt:,} token 提示的预填充时间") if g.peak else unknown)
    return items


def _decode_items(w: Workload, g: _Group, unknown: Msg, gpu: DeviceSpec | None
                  ) -> dict[str, Item]:
    batch, prompt, out = w.batch_size, w.seq_len or 1, w.output_tokens
    context = prompt + out / 2 if out else prompt
    read = g.read_per_step(batch, context)
    items: dict[str, Item] = {"bytes_read_per_step": Item(read, Msg(
        "weights + the whole KV cache are read once per decode step"
        + (f" (mean context {context:,.0f} tokens)" if out else ""),
        "每个解码步读取一次全部权重和 KV 缓存"
        + (f"（平均上下文 {context:,.0f} token）" if out else "")))}
    bw = g.bandwidth
    upper = None if not bw or not read else bw / read * batch
    no_bw = unknown if gpu is None or not g.peak else Msg(
        f"{gpu.name}: memory bandwidth unknown", f"{gpu.name}：显存带宽未知")
    items["tokens_per_s_upper_bound"] = Item(upper, Msg(
        "memory bandwidth / bytes read per step x batch (bandwidth-bound decoding; "
        "docs/estimation.md sec. 7)", "显存带宽 / 每步读取字节 × 批大小（解码受带宽限制）")
        if upper else (unknown if gpu is None else no_bw))
    tpot = g.time_per_output_token(batch, context)
    moved = Msg("tensor/pipeline-parallel transfers", "张量/流水线并行通信")
    if g.e > 1:
        moved = Msg(f"the MoE layers' all-to-alls ({batch / g.e:g} requests per GPU of "
                    f"{g.e})", f"MoE 层的 all-to-all（{g.e} 个 GPU 每个 {batch / g.e:g} 个请求）")
    items["time_per_output_token_s"] = Item(tpot, Msg(
        f"a decode step of {batch} requests: reading the GPU's weights and KV cache "
        f"({fmt_gib(read)}) at {DECODE_BANDWIDTH_UTILISATION:.0%} of the bandwidth, or "
        f"computing 2N per request at {DECODE_COMPUTE_UTILISATION:.0%} of the peak, whichever "
        f"is slower, + {moved.en}",
        f"{batch} 个请求的一个解码步：以带宽的 {DECODE_BANDWIDTH_UTILISATION:.0%} 读取本 GPU 的"
        f"权重与 KV 缓存（{fmt_gib(read)}），或以峰值的 {DECODE_COMPUTE_UTILISATION:.0%} "
        f"每请求计算 2N，取较慢者，再加{moved.zh}") if tpot else no_bw)
    items["decode_tokens_per_s"] = Item(None if not tpot else batch / tpot, Msg(
        f"batch {batch} / time per output token (one serving group)",
        f"批大小 {batch} / 每输出 token 时间（一个服务组）") if tpot else no_bw)
    rate = g.output_rate(batch)
    replicas = serving_groups(w)
    items["output_tokens_per_s"] = Item(None if rate is None else rate * replicas, Msg(
        f"{replicas} serving group(s) x {batch} requests at once"
        + (f", each {prompt:,} prompt + {out:,} output tokens: prefill and decode in turn"
           if out else ": decode steps (no output length given)"),
        f"{replicas} 个服务组 × 同时 {batch} 个请求"
        + (f"，每个 {prompt:,} 提示 + {out:,} 输出 token：预填充与解码交替" if out else
           "：仅解码步（未给出输出长度）")) if rate is not None else no_bw)
    return items


def _budget_items(w: Workload, g: _Group, gpu: DeviceSpec | None, vram: dict[str, Item],
                  unknown: Msg) -> dict[str, Item]:
    """The KV cache gets :data:`GPU_MEMORY_UTILIZATION` of the GPU's memory less the weights,
    activations and CUDA context; how many requests fit in it, and what they serve."""
    items: dict[str, Item] = {}
    tokens = max(1, request_tokens(w))
    vram_bytes = gpu.vram_bytes if gpu else None
    fixed = sum(vram[k].value or 0.0 for k in ("weights", "activations", "overhead"))
    budget = None if vram_bytes is None else max(0.0, vram_bytes * GPU_MEMORY_UTILIZATION
                                                 - fixed)
    no_gpu = unknown if gpu is None else Msg(f"{gpu.name}: memory unknown",
                                             f"{gpu.name}：显存未知")
    items["kv_cache_budget_bytes"] = Item(budget, Msg(
        f"{GPU_MEMORY_UTILIZATION:.0%} of GPU memory - weights, prefill activations and CUDA "
        "overhead", f"显存的 {GPU_MEMORY_UTILIZATION:.0%} - 权重、预填充激活和 CUDA 开销")
        if budget is not None else no_gpu)
    per_request = g.kv_per_gpu(1, tokens)
    fit = None if budget is None else float(math.floor(budget / per_request))
    items["max_concurrent_sequences"] = Item(fit, Msg(
        f"KV budget / {fmt_gib(per_request)} per {tokens:,}-token sequence on each GPU",
        f"KV 预算 / 每个 {tokens:,} token 序列在每 GPU 上占 {fmt_gib(per_request)}")
        if fit is not None else no_gpu)
    most = None if fit is None else min(fit, ENGINE_MAX_BATCH)
    rate = g.output_rate(most) if most else None
    groups = serving_groups(w)
    items["max_output_tokens_per_s"] = Item(
        None if rate is None else rate * groups, Msg(
            f"output tokens/s with the requests that fit ({most:,.0f}, at most the engine's "
            f"{ENGINE_MAX_BATCH:,}) on each of {groups} serving group(s)",
            f"装得下的请求数（{most:,.0f}，至多引擎的 {ENGINE_MAX_BATCH:,}）下每秒输出 token，"
            f"{groups} 个服务组") if rate is not None else (
            Msg("no request fits in the KV budget", "KV 预算装不下一个请求") if most == 0
            else unknown if gpu is None or not g.peak else no_gpu))
    return items

"""The inference KV cache (vLLM, arXiv 2309.06180, sec. 3; DeepSeek-V2 sec. 2.1 for latent
attention): its element type (the workload's ``kv_cache_dtype``), the tokens one request keeps
(prompt + generated tokens) and the share of it one GPU holds under tensor / pipeline
parallelism. Both the memory plan and the serving time model read it from here.
"""

from __future__ import annotations

from torchrig.i18n import Msg
from torchrig.planning.presets import TransformerArch
from torchrig.planning.requirements.types import Item
from torchrig.planning.workload import ResolvedModel, Workload

KV_ELEMENT_BYTES = {"fp16": 2.0, "bf16": 2.0, "fp8": 1.0}
"""Bytes per cached key/value element of an explicit ``kv_cache_dtype``."""


def kv_element_bytes(w: Workload) -> float:
    """The KV cache's element size: the chosen ``kv_cache_dtype``, or for "auto" the model's
    activation type as vLLM's ``--kv-cache-dtype auto`` takes it (docs.vllm.ai, "Quantized KV
    Cache"): 4 B under fp32/tf32, 2 B otherwise - also for int8/int4/fp8/fp4 weights, whose
    activations stay 16-bit."""
    if w.kv_cache_dtype in KV_ELEMENT_BYTES:
        return KV_ELEMENT_BYTES[w.kv_cache_dtype]
    return 4.0 if w.precision in ("fp32", "tf32") else 2.0


def request_tokens(w: Workload) -> int:
    """Tokens one request holds in the cache at its end: the prompt (``seq_len``) and the
    generated tokens (``output_tokens``; none when not given)."""
    return (w.seq_len or 0) + (w.output_tokens or 0)


def kv_cache_bytes(arch: TransformerArch, tokens: int, batch: int,
                   bytes_per_element: float) -> float:
    """vLLM (arXiv 2309.06180, sec. 3): 2 x layers x KV heads x head size x bytes x tokens."""
    return arch.kv_cache_bytes_per_token(bytes_per_element) * tokens * batch


def kv_share_per_gpu(w: Workload, arch: TransformerArch) -> float:
    """Share of the KV cache one GPU holds: tensor parallelism splits the KV heads (a head
    cannot be split, so fewer heads than GPUs are replicated; a latent cache is replicated),
    pipeline parallelism the layers; an expert-parallel serving group the requests (each GPU
    runs the attention of 1/e of them, :mod:`.serving_time`)."""
    share = 1.0
    if w.tp_size > 1 and not arch.is_mla:
        share = max(1, arch.kv_heads // w.tp_size) / arch.kv_heads
    if not w.is_training and w.strategy == "expert_parallel":
        share /= w.ep_size
    return share / w.pp_size


def kv_cache_item(w: Workload, model: ResolvedModel) -> Item:
    arch = model.arch
    if w.is_training or arch is None or arch.style == "bert":
        return Item(0.0, Msg("none (training, or an encoder)", "无（训练或编码器模型）"))
    elem = kv_element_bytes(w)
    tokens = request_tokens(w) if model.seq_len is not None else 0
    total = arch.kv_cache_bytes_per_sequence(tokens, elem) * w.batch_size
    share = kv_share_per_gpu(w, arch)
    window = Msg("", "")
    if arch.sliding_window and arch.sliding_layers:
        window = Msg(f"; {arch.sliding_layers} sliding-window layers keep {arch.sliding_window:,} "
                     "tokens", f"；{arch.sliding_layers} 个滑动窗口层只保留 "
                     f"{arch.sliding_window:,} 个 token")
    if w.output_tokens:
        window = Msg(f"; {w.seq_len:,} prompt + {w.output_tokens:,} generated tokens{window.en}",
                     f"；{w.seq_len:,} 个提示 token + {w.output_tokens:,} 个生成 token{window.zh}")
    if arch.is_mla:
        return Item(total * share, Msg(
            f"latent attention: {arch.layers} layers x ({arch.kv_lora_rank} latent + "
            f"{arch.rope_head_dim} rotary) x {elem:g} B = "
            f"{arch.kv_cache_bytes_per_token(elem):,.0f} B/token x {tokens} tokens x batch "
            f"{w.batch_size} (DeepSeek-V2 sec. 2.1){window.en}",
            f"潜在注意力：{arch.layers} 层 × （{arch.kv_lora_rank} 潜在 + {arch.rope_head_dim} "
            f"旋转）× {elem:g} 字节 = 每 token {arch.kv_cache_bytes_per_token(elem):,.0f} 字节 × "
            f"{tokens} token × 批大小 {w.batch_size}（DeepSeek-V2 第 2.1 节）{window.zh}"))
    tp, pp = w.tp_size, w.pp_size
    if not w.is_training and w.strategy == "expert_parallel":
        tp = w.ep_size  # the requests split over the expert-parallel group (pp is 1)
    return Item(total * share, Msg(
        f"2 x {arch.layers} layers x {arch.kv_heads} KV heads x {arch.head_dim} x {elem:g} B = "
        f"{arch.kv_cache_bytes_per_token(elem):,.0f} B/token x {tokens} tokens x batch "
        f"{w.batch_size} (vLLM paper sec. 3){window.en}"
        + (f"; split over {tp * pp} GPUs" if tp * pp > 1 else ""),
        f"2 × {arch.layers} 层 × {arch.kv_heads} 个 KV 头 × {arch.head_dim} × {elem:g} 字节 = "
        f"每 token {arch.kv_cache_bytes_per_token(elem):,.0f} 字节 × {tokens} token × 批大小 "
        f"{w.batch_size}（vLLM 论文第 3 节）{window.zh}"
        + (f"；切分到 {tp * pp} 个 GPU" if tp * pp > 1 else "")))

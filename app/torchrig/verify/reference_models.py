"""The torch.nn models TorchRig measures, and the tools that measure them.

Shared by ``scripts/calibrate_activations.py`` (which fits the planner's activation
coefficients) and :mod:`torchrig.verify.measure` (which runs a workload's own model and puts the
measurement beside the plan), so both measure the same architectures the same way:

* ResNet-18/34/50/101/152 and ViT-B/16 as torchvision defines them, BERT / GPT-2 / Llama-style
  transformer blocks as the Hugging Face implementations compute them, and the Nature DQN CNN,
  written with ``torch.nn`` (no torchvision, no transformers, no downloads, random weights).
* :class:`SavedTensorCounter` counts what autograd saves for backward
  (``saved_tensors_hooks``), deduplicated by storage, parameters and buffers excluded.
* The counting runs under :mod:`torchrig.verify.cuda_emulation`, so a CPU forward pass saves
  what CUDA autocast would save (the CPU's own autocast uses different op lists).

This module imports torch at import time: import it lazily, inside the functions that need it
(the GUI must not load torch on start-up).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.nn.functional as F  # noqa: N812 - the name PyTorch's docs use
from torch import nn
from torch.utils.checkpoint import checkpoint

from torchrig.verify.cuda_emulation import recompute_context, run_context

# --------------------------------------------------------------------------------------------
# Counting saved tensors
# --------------------------------------------------------------------------------------------


@dataclass
class SavedCount:
    """Bytes saved for backward, attributed to the unit (top-level block) that saved them first.

    ``units`` keeps insertion order: the order in which the blocks ran.
    """

    total: int = 0
    units: dict[str, int] = field(default_factory=dict)
    unit_inputs: dict[str, int] = field(default_factory=dict)


class SavedTensorCounter:
    """Count the distinct storages autograd saves during a forward pass.

    ``model`` parameters and buffers are excluded. ``units`` are (name, module) pairs; a forward
    pre-hook on each marks which unit is running, so per-block figures come out too (used for
    checkpointing segments).
    """

    def __init__(self, model: nn.Module, units: Sequence[tuple[str, nn.Module]] = ()) -> None:
        self.model = model
        self.units = list(units)
        self.result = SavedCount()
        self._current = "other"
        self._seen: set[int] = set()
        self._excluded = {p.untyped_storage().data_ptr() for p in model.parameters()}
        self._excluded |= {b.untyped_storage().data_ptr() for b in model.buffers()}

    def _pack(self, tensor: torch.Tensor) -> torch.Tensor:
        self.count(tensor)
        return tensor

    def count(self, tensor: torch.Tensor) -> None:
        """Count ``tensor``'s storage once. Also called for what a checkpointed block keeps
        alive for its recomputation (its input), which autograd's hooks do not see."""
        storage = tensor.untyped_storage()
        ptr = storage.data_ptr()
        if ptr not in self._excluded and ptr not in self._seen:
            self._seen.add(ptr)
            nbytes = storage.nbytes()
            self.result.total += nbytes
            self.result.units[self._current] = self.result.units.get(self._current, 0) + nbytes

    @contextlib.contextmanager
    def counting(self) -> Iterator[SavedCount]:
        handles = []
        for name, module in self.units:
            handles.append(module.register_forward_pre_hook(self._enter(name)))
            handles.append(module.register_forward_hook(self._leave()))
        try:
            with torch.autograd.graph.saved_tensors_hooks(self._pack, _unpack):
                yield self.result
        finally:
            for handle in handles:
                handle.remove()

    def _enter(self, name: str) -> Callable[..., None]:
        def hook(_module: nn.Module, args: tuple[Any, ...]) -> None:
            self._current = name
            self.result.units.setdefault(name, 0)
            first = args[0] if args else None
            if isinstance(first, torch.Tensor):
                self.result.unit_inputs[name] = first.untyped_storage().nbytes()
        return hook

    def _leave(self) -> Callable[..., None]:
        def hook(_module: nn.Module, _args: Any, _out: Any) -> None:
            self._current = "other"
        return hook


def _unpack(tensor: torch.Tensor) -> torch.Tensor:
    return tensor


# --------------------------------------------------------------------------------------------
# Architectures
# --------------------------------------------------------------------------------------------


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, cin: int, width: int, stride: int) -> None:
        super().__init__()
        cout = width * self.expansion
        self.conv1 = nn.Conv2d(cin, width, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU(inplace=True)
        self.down = _downsample(cin, cout, stride)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x if self.down is None else self.down(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + identity)


class Bottleneck(nn.Module):
    """torchvision's ResNet v1.5 bottleneck: the stride sits on the 3x3 convolution."""

    expansion = 4

    def __init__(self, cin: int, width: int, stride: int) -> None:
        super().__init__()
        cout = width * self.expansion
        self.conv1 = nn.Conv2d(cin, width, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, 3, stride, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3 = nn.Conv2d(width, cout, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU(inplace=True)
        self.down = _downsample(cin, cout, stride)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x if self.down is None else self.down(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        return self.relu(out + identity)


def _downsample(cin: int, cout: int, stride: int) -> nn.Module | None:
    if stride == 1 and cin == cout:
        return None
    return nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))


class Stem(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
        self.bn = nn.BatchNorm2d(64)
        self.relu = nn.ReLU(inplace=True)
        self.pool = nn.MaxPool2d(3, 2, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(self.relu(self.bn(self.conv(x))))


class ClassifierHead(nn.Module):
    def __init__(self, features: int, classes: int) -> None:
        super().__init__()
        self.fc = nn.Linear(features, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


RESNET_BLOCKS: dict[int, tuple[type[nn.Module], tuple[int, ...]]] = {
    18: (BasicBlock, (2, 2, 2, 2)),
    34: (BasicBlock, (3, 4, 6, 3)),
    50: (Bottleneck, (3, 4, 6, 3)),
    101: (Bottleneck, (3, 4, 23, 3)),
    152: (Bottleneck, (3, 8, 36, 3)),
}
"""Blocks per stage, He et al. 2016 (arXiv 1512.03385) Table 1."""


def resnet(depth: int, classes: int = 1000) -> nn.Sequential:
    """ResNet-18/34/50/101/152 as torchvision builds them; every residual block is one unit."""
    block, counts = RESNET_BLOCKS[depth]
    layers: list[nn.Module] = [Stem()]
    cin = 64
    for stage, count in enumerate(counts):
        width = 64 * 2**stage
        for i in range(count):
            layers.append(block(cin, width, 2 if (i == 0 and stage > 0) else 1))
            cin = width * block.expansion  # type: ignore[attr-defined]
    layers.append(ClassifierHead(cin, classes))
    model = nn.Sequential(*layers)
    for m in model.modules():
        if isinstance(m, nn.Conv2d):
            nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
    return model


class NatureCnnPolicy(nn.Module):
    """Mnih et al. (2015) DQN network with PPO's actor and critic heads (Schulman et al. 2017)."""

    def __init__(self, actions: int = 18) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(4, 32, 8, 4), nn.ReLU(), nn.Conv2d(32, 64, 4, 2), nn.ReLU(),
            nn.Conv2d(64, 64, 3, 1), nn.ReLU(), nn.Flatten(), nn.Linear(3136, 512), nn.ReLU(),
        )
        self.actor = nn.Linear(512, actions)
        self.critic = nn.Linear(512, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.features(x)
        return torch.cat([self.actor(h), self.critic(h)], dim=1)


# --- transformers -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Shape:
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    ffn: int
    vocab: int
    positions: int

    @property
    def head_dim(self) -> int:
        return self.hidden // self.heads


def eager_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool,
                    dropout: float, training: bool) -> torch.Tensor:
    """Attention as the Hugging Face "eager" implementations compute it (fp32 softmax)."""
    scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
    if causal:
        s = q.shape[-2]
        mask = torch.ones(s, s, dtype=torch.bool, device=q.device).triu(1)
        scores = scores.masked_fill(mask, torch.finfo(scores.dtype).min)
    probs = F.softmax(scores, dim=-1, dtype=torch.float32).to(q.dtype)
    probs = F.dropout(probs, dropout, training)
    return torch.matmul(probs, v)


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, impl: str, causal: bool,
              dropout: float, training: bool, grouped_kv: bool = True) -> torch.Tensor:
    """Grouped K/V (fewer K/V heads than query heads) are repeated to every head for "eager",
    as Hugging Face's eager code does; sdpa takes them at their own width (``enable_gqa``),
    so only the K/V width is saved for backward - what the planner counts. ``grouped_kv=False``
    repeats them for sdpa too: the calibration model was fitted that way, and the planner
    corrects its figure for the KV width (requirements.layer_bytes_per_token)."""
    rep = q.shape[1] // k.shape[1]
    if rep > 1 and (impl == "eager" or not grouped_kv):
        k, v = k.repeat_interleave(rep, dim=1), v.repeat_interleave(rep, dim=1)
        rep = 1
    if impl == "eager":
        return eager_attention(q, k, v, causal, dropout, training)
    # dropout_p=0: see the module docstring (fused CUDA kernels do not save dropout masks).
    return F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=rep > 1)


class GptBlock(nn.Module):
    """GPT-2 block: pre-LayerNorm, packed QKV with bias, GELU(tanh) MLP, dropout 0.1."""

    def __init__(self, s: Shape, impl: str, dropout: float = 0.1) -> None:
        super().__init__()
        h = s.hidden
        self.shape, self.impl, self.p = s, impl, dropout
        self.ln1 = nn.LayerNorm(h)
        self.qkv = nn.Linear(h, 3 * h)
        self.proj = nn.Linear(h, h)
        self.ln2 = nn.LayerNorm(h)
        self.fc = nn.Linear(h, s.ffn)
        self.out = nn.Linear(s.ffn, h)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, h = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(h, dim=2)
        q, k, v = (y.view(b, t, self.shape.heads, -1).transpose(1, 2) for y in (q, k, v))
        a = attention(q, k, v, self.impl, True, self.p, self.training)
        a = a.transpose(1, 2).reshape(b, t, h)
        x = x + F.dropout(self.proj(a), self.p, self.training)
        m = self.out(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))
        return x + F.dropout(m, self.p, self.training)


class BertBlock(nn.Module):
    """BERT block: post-LayerNorm, separate Q/K/V with bias, GELU MLP, dropout 0.1."""

    def __init__(self, s: Shape, impl: str, dropout: float = 0.1) -> None:
        super().__init__()
        h = s.hidden
        self.shape, self.impl, self.p = s, impl, dropout
        self.q, self.k, self.v = nn.Linear(h, h), nn.Linear(h, h), nn.Linear(h, h)
        self.o = nn.Linear(h, h)
        self.ln1 = nn.LayerNorm(h)
        self.fc = nn.Linear(h, s.ffn)
        self.out = nn.Linear(s.ffn, h)
        self.ln2 = nn.LayerNorm(h)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, h = x.shape
        q, k, v = (p(x).view(b, t, self.shape.heads, -1).transpose(1, 2)
                   for p in (self.q, self.k, self.v))
        a = attention(q, k, v, self.impl, False, self.p, self.training)
        a = a.transpose(1, 2).reshape(b, t, h)
        x = self.ln1(x + F.dropout(self.o(a), self.p, self.training))
        m = self.out(F.gelu(self.fc(x)))
        return self.ln2(x + F.dropout(m, self.p, self.training))


def run_block(block: nn.Module, args: tuple[Any, ...], checkpointed: bool) -> torch.Tensor:
    """One block, checkpointed as Hugging Face / timm do it (every block keeps only its input;
    ``use_reentrant=False`` is the form PyTorch recommends)."""
    if not checkpointed:
        return block(*args)  # type: ignore[no-any-return]
    return checkpoint(block, *args, use_reentrant=False,  # type: ignore[no-any-return]
                      context_fn=recompute_context)


class CheckpointedSequential(nn.Module):
    """A sequential model checkpointed in sqrt(n) segments (Chen et al. 2016), the planner's
    model of checkpointing a CNN: what ``checkpoint_sequential`` does (every segment but the
    last keeps only its input), through :func:`run_block` so CUDA emulation also applies to
    the recomputation."""

    def __init__(self, body: nn.Sequential) -> None:
        super().__init__()
        self.body = body
        self.segments = max(1, round(math.sqrt(len(body))))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training:
            return self.body(x)  # type: ignore[no-any-return]
        size = len(self.body) // self.segments
        for first in range(0, size * (self.segments - 1), size):
            x = run_block(self.body[first:first + size], (x,), True)
        return self.body[size * (self.segments - 1):](x)  # type: ignore[no-any-return]


class RmsNorm(nn.Module):
    """RMSNorm as Hugging Face's Llama computes it: in float32, then back to the input type."""

    def __init__(self, h: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(h))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dtype = x.dtype
        y = x.to(torch.float32)
        y = y * torch.rsqrt(y.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * y.to(dtype)


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    a, b = x.chunk(2, dim=-1)
    return torch.cat((-b, a), dim=-1)


class LlamaBlock(nn.Module):
    """Llama block: RMSNorm, Q/K/V without bias (grouped K/V), rotary embeddings, attention
    with grouped K/V (see :func:`attention`), SwiGLU MLP, no dropout."""

    def __init__(self, s: Shape, impl: str, grouped_kv: bool = True) -> None:
        super().__init__()
        h, kv = s.hidden, s.kv_heads * s.head_dim
        self.shape, self.impl, self.grouped_kv = s, impl, grouped_kv
        self.norm1 = RmsNorm(h)
        self.q = nn.Linear(h, h, False)
        self.k, self.v = nn.Linear(h, kv, False), nn.Linear(h, kv, False)
        self.o = nn.Linear(h, h, False)
        self.norm2 = RmsNorm(h)
        self.gate = nn.Linear(h, s.ffn, False)
        self.up = nn.Linear(h, s.ffn, False)
        self.down = nn.Linear(s.ffn, h, False)

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        b, t, h = x.shape
        s = self.shape
        y = self.norm1(x)
        q = self.q(y).view(b, t, s.heads, s.head_dim).transpose(1, 2)
        k = self.k(y).view(b, t, s.kv_heads, s.head_dim).transpose(1, 2)
        v = self.v(y).view(b, t, s.kv_heads, s.head_dim).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        a = attention(q, k, v, self.impl, True, 0.0, self.training, self.grouped_kv)
        x = x + self.o(a.transpose(1, 2).reshape(b, t, h))
        y = self.norm2(x)
        return x + self.down(F.silu(self.gate(y)) * self.up(y))


class TransformerModel(nn.Module):
    """Embeddings + blocks + head, for the three styles.

    head="lm": logits over the vocabulary and a cross-entropy loss computed in float32, as the
    Hugging Face causal-LM / masked-LM losses do (logits are upcast before the loss).
    head="cls": a pooled two-class classifier (fine-tuning BERT for a sentence task).
    head="last": serving's prefill, the logits of the last position (no loss).
    grouped_kv=False: Llama's grouped K/V repeated to every head under sdpa too, as the
    calibration model was fitted (see :func:`attention`).
    """

    def __init__(self, style: str, s: Shape, impl: str = "sdpa", head: str = "lm",
                 checkpointing: bool = False, grouped_kv: bool = True) -> None:
        super().__init__()
        self.style, self.shape, self.head_kind = style, s, head
        self.checkpointing = checkpointing
        h = s.hidden
        self.tok = nn.Embedding(s.vocab, h)
        if style == "gpt":
            self.pos = nn.Embedding(s.positions, h)
            self.blocks = nn.ModuleList(GptBlock(s, impl) for _ in range(s.layers))
            self.final_norm: nn.Module = nn.LayerNorm(h)
        elif style == "bert":
            self.pos = nn.Embedding(s.positions, h)
            self.typ = nn.Embedding(2, h)
            self.emb_norm = nn.LayerNorm(h)
            self.blocks = nn.ModuleList(BertBlock(s, impl) for _ in range(s.layers))
            self.final_norm = nn.Identity()
            self.pooler = nn.Linear(h, h)
        else:
            self.blocks = nn.ModuleList(LlamaBlock(s, impl, grouped_kv)
                                        for _ in range(s.layers))
            self.final_norm = RmsNorm(h)
            inv = 1.0 / (10000.0 ** (torch.arange(0, s.head_dim, 2).float() / s.head_dim))
            self.register_buffer("inv_freq", inv, persistent=False)
        if head in ("lm", "last") and style == "llama":
            self.lm_head = nn.Linear(h, s.vocab, bias=False)
        elif head == "cls":
            self.classifier = nn.Linear(h, 2)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        b, t = ids.shape
        x = self.tok(ids)
        cos = sin = None
        if self.style == "gpt":
            x = F.dropout(x + self.pos(torch.arange(t, device=ids.device)), 0.1, self.training)
        elif self.style == "bert":
            x = x + self.pos(torch.arange(t, device=ids.device)) + self.typ(torch.zeros_like(ids))
            x = F.dropout(self.emb_norm(x), 0.1, self.training)
        else:
            inv_freq: torch.Tensor = self.inv_freq  # type: ignore[assignment]
            ang = torch.outer(torch.arange(t, dtype=torch.float32, device=ids.device), inv_freq)
            emb = torch.cat((ang, ang), dim=-1)
            cos, sin = emb.cos().to(x.dtype), emb.sin().to(x.dtype)
        for block in self.blocks:
            args = (x, cos, sin) if self.style == "llama" else (x,)
            x = run_block(block, args, self.checkpointing and self.training)
        x = self.final_norm(x)
        if self.head_kind == "cls":
            pooled = torch.tanh(self.pooler(x[:, 0])) if self.style == "bert" else x[:, 0]
            logits = self.classifier(F.dropout(pooled, 0.1, self.training))
            return F.cross_entropy(logits.float(),
                                   torch.zeros(b, dtype=torch.long, device=ids.device))
        weight = self.lm_head.weight if self.style == "llama" else self.tok.weight
        if self.head_kind == "last":
            # Serving's prefill: the logits of the last position only, the next token's (what
            # vLLM and TensorRT-LLM compute, and the planner counts).
            return F.linear(x[:, -1], weight).float()
        logits = F.linear(x, weight).float()
        return F.cross_entropy(logits.view(-1, logits.shape[-1]), ids.view(-1))


class VitModel(nn.Module):
    """ViT-B/16 as torchvision builds it (conv patch embedding, class token, learned positions,
    pre-LN encoder blocks with packed in-projection, GELU MLP, dropout 0)."""

    def __init__(self, image: int = 224, patch: int = 16, layers: int = 12, hidden: int = 768,
                 heads: int = 12, mlp: int = 3072, classes: int = 1000,
                 checkpointing: bool = False) -> None:
        super().__init__()
        self.checkpointing = checkpointing
        self.patch_embed = nn.Conv2d(3, hidden, patch, patch)
        tokens = (image // patch) ** 2 + 1
        self.cls = nn.Parameter(torch.zeros(1, 1, hidden))
        self.pos = nn.Parameter(torch.zeros(1, tokens, hidden))
        self.blocks = nn.ModuleList(VitBlock(hidden, heads, mlp) for _ in range(layers))
        self.norm = nn.LayerNorm(hidden, eps=1e-6)
        self.head = nn.Linear(hidden, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.patch_embed(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1) + self.pos
        for block in self.blocks:
            x = run_block(block, (x,), self.checkpointing and self.training)
        return self.head(self.norm(x)[:, 0])


class VitBlock(nn.Module):
    def __init__(self, hidden: int, heads: int, mlp: int) -> None:
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(hidden, eps=1e-6)
        self.in_proj = nn.Linear(hidden, 3 * hidden)
        self.out_proj = nn.Linear(hidden, hidden)
        self.ln2 = nn.LayerNorm(hidden, eps=1e-6)
        self.fc1 = nn.Linear(hidden, mlp)
        self.fc2 = nn.Linear(mlp, hidden)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, h = x.shape
        q, k, v = self.in_proj(self.ln1(x)).split(h, dim=2)
        q, k, v = (y.view(b, t, self.heads, -1).transpose(1, 2) for y in (q, k, v))
        a = F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(b, t, h)
        x = x + self.out_proj(a)
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


# --------------------------------------------------------------------------------------------
# Measurements
# --------------------------------------------------------------------------------------------


def param_count(model: nn.Module) -> int:
    return sum({p.untyped_storage().data_ptr(): p.numel() for p in model.parameters()}.values())


def largest_layer_params(model: nn.Module) -> int:
    """DeepSpeed's definition: the most parameters any single module owns directly."""
    return max(sum(p.numel() for p in m.parameters(recurse=False)) for m in model.modules())


def buffer_bytes(model: nn.Module) -> int:
    return sum(b.numel() * b.element_size() for b in model.buffers())


def saved_bytes(model: nn.Module, inputs: torch.Tensor, precision: str,
                units: Sequence[tuple[str, nn.Module]] = ()) -> SavedCount:
    """Saved-for-backward bytes of one forward pass in training mode (backward is not needed:
    everything backward will use is saved during the forward)."""
    model.train()
    counter = SavedTensorCounter(model, units)
    with counter.counting() as result, run_context(precision):
        model(inputs)
    return result


def forward_flops(model: nn.Module, inputs: torch.Tensor) -> int:
    """FLOPs of one forward pass counted by torch.utils.flop_counter (2 per multiply-add, for
    matmuls, convolutions and attention; elementwise ops are not counted)."""
    from torch.utils.flop_counter import FlopCounterMode

    counter = FlopCounterMode(display=False)
    with torch.no_grad(), counter:
        model(inputs)
    return int(counter.get_total_flops())


def vision_units(model: nn.Module) -> list[tuple[str, nn.Module]]:
    from torchrig.verify.yolo_model import YoloV8

    if isinstance(model, YoloV8):
        # Layer by layer in yolov8.yaml's order (the skip connections keep some outputs
        # alive: the sqrt(n) checkpointing estimate is only approximate for YOLO).
        return [(f"layer{i}", m) for i, m in enumerate(model.layers)] + [("detect",
                                                                          model.detect)]
    if isinstance(model, VitModel):
        units: list[tuple[str, nn.Module]] = [("patch_embed", model.patch_embed)]
        units += [(f"block{i}", b) for i, b in enumerate(model.blocks)]
        return units + [("head", model.head)]
    if isinstance(model, nn.Sequential):
        return [(f"unit{i}", m) for i, m in enumerate(model)]
    return [(name, model.get_submodule(name)) for name in ("features", "actor", "critic")]




def profiled_peak_bytes(fn: Callable[[], object]) -> int:
    """Peak bytes allocated on the CPU while ``fn`` runs, on top of what was allocated before
    it started, from the profiler's allocation events (the CPU has no allocator statistics
    like ``torch.cuda.max_memory_allocated``)."""
    from torch.profiler import ProfilerActivity, profile

    with _quiet_native_stderr(), profile(activities=[ProfilerActivity.CPU],
                                         profile_memory=True) as prof:
        fn()
    events = sorted((e.start_ns(), e.nbytes()) for e in prof.profiler.kineto_results.events()
                    if e.name() == "[memory]")
    current = peak = 0
    for _, delta in events:
        current += delta
        peak = max(peak, current)
    return peak


@contextlib.contextmanager
def _quiet_native_stderr() -> Iterator[None]:
    """Kineto writes "profiler_start/stop" lines to file descriptor 2 from C++ (its log level
    is read once, when torch loads); hide them while the profiler starts and stops."""
    import os

    try:
        saved = os.dup(2)
    except OSError:
        yield
        return
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 2)
        os.close(null)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)

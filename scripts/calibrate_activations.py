#!/usr/bin/env python3
"""Measure what autograd saves for backward, per preset, and store it with the model presets.

Why: activation memory decides whether a workload fits in VRAM, and no published per-image or
per-token figure matches what real PyTorch code keeps (Korthikanti et al. count the minimum for
Megatron kernels; eager PyTorch, autocast casts, fp32 losses and logits add to it). The bytes
autograd saves are exact and can be counted on the CPU, without a GPU:

* ``torch.autograd.graph.saved_tensors_hooks`` sees every tensor saved for backward during the
  forward pass; tensors are deduplicated by storage (``untyped_storage().data_ptr()``) because
  views and in-place ops share one allocation, and parameters and buffers are excluded (they are
  model state, counted separately by the planner).
* Mixed precision is measured with a small emulation of CUDA autocast's op lists (the PyTorch AMP
  docs, "CUDA Ops that can autocast to float16 / float32"), because CPU autocast uses different
  lists (it keeps layer_norm and softmax in 16 bit) and would under-count what a GPU keeps.
* Fused attention (``scaled_dot_product_attention``) is measured with ``dropout_p=0``: the CUDA
  flash / memory-efficient kernels regenerate dropout masks from the RNG state instead of saving
  them, while the CPU kernel falls back to the math path when dropout is on.

The architectures are written here with ``torch.nn`` (torchvision and transformers are not
needed): ResNet-18/50/152 and ViT-B/16 as torchvision defines them, BERT / GPT-2 / Llama-style
transformer blocks as the Hugging Face implementations compute them, and the Nature DQN CNN.
Parameter counts are checked against the presets, so a wrong architecture cannot pass silently.

Results go into the ``calibration`` object of ``resources/model_presets.json`` (atomic write).
Run from the repository root:  ``.venv/bin/python scripts/calibrate_activations.py``
(``--check`` measures and compares without writing; ``--quick`` skips the slow checks).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as _dt
import math
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn
from torch.overrides import TorchFunctionMode

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "app"))

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
        storage = tensor.untyped_storage()
        ptr = storage.data_ptr()
        if ptr not in self._excluded and ptr not in self._seen:
            self._seen.add(ptr)
            nbytes = storage.nbytes()
            self.result.total += nbytes
            self.result.units[self._current] = self.result.units.get(self._current, 0) + nbytes
        return tensor

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
# CUDA autocast emulation (op lists from the PyTorch AMP documentation, "Autocast Op Reference")
# --------------------------------------------------------------------------------------------

_LOWER_PRECISION_OPS = {
    "linear", "matmul", "__matmul__", "__rmatmul__", "mm", "bmm", "addmm", "addbmm", "baddbmm",
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "prelu", "scaled_dot_product_attention", "einsum", "mv", "addmv", "addr",
}
_FP32_OPS = {
    "layer_norm", "group_norm", "softmax", "log_softmax", "softmin", "cross_entropy",
    "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "binary_cross_entropy_with_logits",
    "kl_div", "pow", "__pow__", "__rpow__", "rsqrt", "exp", "log", "log1p", "sum", "prod",
    "cumsum", "cumprod", "norm", "normalize", "reciprocal", "softplus", "__rtruediv__",
    "cosine_similarity", "erfinv", "expm1", "log2", "log10", "sinh", "cosh", "tan", "acos", "asin",
}


class CudaEmulation(TorchFunctionMode):
    """Make a CPU forward pass save what the CUDA kernels would save.

    * Dropout: CUDA runs ``native_dropout``, which saves a 1-byte bool mask; the CPU path
      multiplies by a float noise tensor and would save 4 bytes per element.
    * With ``autocast`` set: matmul-class ops run in that 16-bit type, the fp32-list ops in
      float32, everything else in the widest input type (ordinary type promotion). As autocast
      does, the 16-bit copy of a weight is cached for the region, so it is made once per step.
    """

    def __init__(self, autocast: torch.dtype | None = None) -> None:
        super().__init__()
        self.autocast = autocast
        self._cache: dict[int, torch.Tensor] = {}

    def _cast(self, value: Any, dtype: torch.dtype) -> Any:
        if isinstance(value, torch.Tensor) and value.is_floating_point() and value.dtype != dtype:
            if value.dtype == torch.float64:
                return value
            if isinstance(value, nn.Parameter) and value.requires_grad:
                key = id(value)
                if key not in self._cache:
                    self._cache[key] = value.to(dtype)
                return self._cache[key]
            return value.to(dtype)
        if isinstance(value, (list, tuple)):
            return type(value)(self._cast(v, dtype) for v in value)
        return value

    def __torch_function__(self, func, types, args=(), kwargs=None):  # type: ignore[override]
        kwargs = kwargs or {}
        name = getattr(func, "__name__", "")
        if name == "dropout":
            return self._dropout(*args, **kwargs)
        if self.autocast is not None:
            if name in _LOWER_PRECISION_OPS:
                args = self._cast(args, self.autocast)
                kwargs = {k: self._cast(v, self.autocast) for k, v in kwargs.items()}
            elif name in _FP32_OPS and "dtype" not in kwargs:
                args = self._cast(args, torch.float32)
                kwargs = {k: self._cast(v, torch.float32) for k, v in kwargs.items()}
        return func(*args, **kwargs)

    @staticmethod
    def _dropout(x: torch.Tensor, p: float = 0.5, training: bool = True,
                 inplace: bool = False) -> torch.Tensor:
        if not training or p == 0.0:
            return x
        return torch.native_dropout(x, p, True)[0]


PRECISIONS = ("fp32", "amp", "bf16")
"""fp32 (also tf32: same tensors), amp (CUDA autocast to a 16-bit type, fp32 weights), bf16 (the
whole model cast to bfloat16; fp16 has the same sizes)."""


def run_context(precision: str) -> CudaEmulation:
    return CudaEmulation(torch.bfloat16 if precision == "amp" else None)


def prepare(model: nn.Module, precision: str) -> nn.Module:
    return model.to(torch.bfloat16) if precision == "bf16" else model.float()


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


def resnet(depth: int, classes: int = 1000) -> nn.Sequential:
    """ResNet-18/50/152 as torchvision builds them; every residual block is one unit."""
    block, counts = {
        18: (BasicBlock, (2, 2, 2, 2)),
        50: (Bottleneck, (3, 4, 6, 3)),
        152: (Bottleneck, (3, 8, 36, 3)),
    }[depth]
    layers: list[nn.Module] = [Stem()]
    cin = 64
    for stage, count in enumerate(counts):
        width = 64 * 2**stage
        for i in range(count):
            layers.append(block(cin, width, 2 if (i == 0 and stage > 0) else 1))
            cin = width * block.expansion
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
        mask = torch.ones(s, s, dtype=torch.bool).triu(1)
        scores = scores.masked_fill(mask, torch.finfo(scores.dtype).min)
    probs = F.softmax(scores, dim=-1, dtype=torch.float32).to(q.dtype)
    probs = F.dropout(probs, dropout, training)
    return torch.matmul(probs, v)


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, impl: str, causal: bool,
              dropout: float, training: bool) -> torch.Tensor:
    if impl == "eager":
        return eager_attention(q, k, v, causal, dropout, training)
    # dropout_p=0: see the module docstring (fused CUDA kernels do not save dropout masks).
    return F.scaled_dot_product_attention(q, k, v, is_causal=causal)


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
    """Llama block: RMSNorm, Q/K/V without bias (grouped K/V), rotary embeddings, K/V repeated
    to all heads before attention, SwiGLU MLP, no dropout."""

    def __init__(self, s: Shape, impl: str) -> None:
        super().__init__()
        h, kv = s.hidden, s.kv_heads * s.head_dim
        self.shape, self.impl = s, impl
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
        rep = s.heads // s.kv_heads
        if rep > 1:
            k = k[:, :, None].expand(b, s.kv_heads, rep, t, s.head_dim).reshape(b, s.heads, t, -1)
            v = v[:, :, None].expand(b, s.kv_heads, rep, t, s.head_dim).reshape(b, s.heads, t, -1)
        a = attention(q, k, v, self.impl, True, 0.0, self.training)
        x = x + self.o(a.transpose(1, 2).reshape(b, t, h))
        y = self.norm2(x)
        return x + self.down(F.silu(self.gate(y)) * self.up(y))


class TransformerModel(nn.Module):
    """Embeddings + blocks + head, for the three styles.

    head="lm": logits over the vocabulary and a cross-entropy loss computed in float32, as the
    Hugging Face causal-LM / masked-LM losses do (logits are upcast before the loss).
    head="cls": a pooled two-class classifier (fine-tuning BERT for a sentence task).
    """

    def __init__(self, style: str, s: Shape, impl: str = "sdpa", head: str = "lm") -> None:
        super().__init__()
        self.style, self.shape, self.head_kind = style, s, head
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
            self.blocks = nn.ModuleList(LlamaBlock(s, impl) for _ in range(s.layers))
            self.final_norm = RmsNorm(h)
            inv = 1.0 / (10000.0 ** (torch.arange(0, s.head_dim, 2).float() / s.head_dim))
            self.register_buffer("inv_freq", inv, persistent=False)
        if head == "lm" and style == "llama":
            self.lm_head = nn.Linear(h, s.vocab, bias=False)
        elif head == "cls":
            self.classifier = nn.Linear(h, 2)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        b, t = ids.shape
        x = self.tok(ids)
        cos = sin = None
        if self.style == "gpt":
            x = F.dropout(x + self.pos(torch.arange(t)), 0.1, self.training)
        elif self.style == "bert":
            x = x + self.pos(torch.arange(t)) + self.typ(torch.zeros_like(ids))
            x = F.dropout(self.emb_norm(x), 0.1, self.training)
        else:
            ang = torch.outer(torch.arange(t, dtype=torch.float32), self.inv_freq)
            emb = torch.cat((ang, ang), dim=-1)
            cos, sin = emb.cos().to(x.dtype), emb.sin().to(x.dtype)
        for block in self.blocks:
            x = block(x, cos, sin) if self.style == "llama" else block(x)
        x = self.final_norm(x)
        if self.head_kind == "cls":
            pooled = torch.tanh(self.pooler(x[:, 0])) if self.style == "bert" else x[:, 0]
            logits = self.classifier(F.dropout(pooled, 0.1, self.training))
            return F.cross_entropy(logits.float(), torch.zeros(b, dtype=torch.long))
        weight = self.lm_head.weight if self.style == "llama" else self.tok.weight
        logits = F.linear(x, weight).float()
        return F.cross_entropy(logits.view(-1, logits.shape[-1]), ids.view(-1))


class VitModel(nn.Module):
    """ViT-B/16 as torchvision builds it (conv patch embedding, class token, learned positions,
    pre-LN encoder blocks with packed in-projection, GELU MLP, dropout 0)."""

    def __init__(self, image: int = 224, patch: int = 16, layers: int = 12, hidden: int = 768,
                 heads: int = 12, mlp: int = 3072, classes: int = 1000) -> None:
        super().__init__()
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
            x = block(x)
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
    if isinstance(model, VitModel):
        units: list[tuple[str, nn.Module]] = [("patch_embed", model.patch_embed)]
        units += [(f"block{i}", b) for i, b in enumerate(model.blocks)]
        return units + [("head", model.head)]
    if isinstance(model, nn.Sequential):
        return [(f"unit{i}", m) for i, m in enumerate(model)]
    return [("features", model.features), ("actor", model.actor), ("critic", model.critic)]


def measure_vision(model: nn.Module, image: int, channels: int = 3) -> dict[str, Any]:
    """Per-sample saved bytes from batches of 1 and 2: the difference is exactly per sample; the
    rest is per step (the 16-bit weight copies autocast keeps for backward)."""
    out: dict[str, Any] = {"image_size": image}
    x1 = torch.randn(1, channels, image, image)
    out["forward_flops_per_sample"] = forward_flops(prepare(model, "fp32"), x1)
    for precision in PRECISIONS:
        m = prepare(model, precision)
        dtype = torch.bfloat16 if precision == "bf16" else torch.float32
        units = vision_units(m)
        one = saved_bytes(m, x1.to(dtype), precision, units)
        two = saved_bytes(m, torch.randn(2, channels, image, image, dtype=dtype), precision, units)
        per_sample = two.total - one.total
        out[precision] = {
            "bytes_per_sample": per_sample,
            "bytes_per_step": one.total - per_sample,
            # Per-unit [saved bytes, input bytes] per sample: the planner sizes checkpointing
            # segments from them (Chen et al.'s sqrt(n) segments).
            "units": [[two.units.get(n, 0) - one.units.get(n, 0),
                       two.unit_inputs.get(n, 0) - one.unit_inputs.get(n, 0)]
                      for n, _ in units],
        }
    model.float()
    return out


@dataclass(frozen=True)
class TransformerBytes:
    """Saved bytes per sequence (batch 2 minus batch 1) and per step (the remainder)."""

    layer_per_sequence: int
    outside_per_sequence: int
    layer_input_per_sequence: int
    per_step: int


def transformer_shape_bytes(style: str, s: Shape, impl: str, precision: str, seq: int,
                            head: str = "lm") -> TransformerBytes:
    """Measure one middle layer and everything outside the layers for ``seq`` tokens."""
    torch.manual_seed(0)
    model = prepare(TransformerModel(style, s, impl, head), precision)
    units = [(f"layer{i}", b) for i, b in enumerate(model.blocks)]
    middle = f"layer{s.layers // 2}"
    counts = []
    for batch in (1, 2):
        ids = torch.randint(0, s.vocab, (batch, seq))
        counts.append(saved_bytes(model, ids, precision, units))
    one, two = counts

    def layers(c: SavedCount) -> int:
        return sum(c.units[n] for n, _ in units)

    layer = two.units[middle] - one.units[middle]
    outside = (two.total - layers(two)) - (one.total - layers(one))
    return TransformerBytes(
        layer_per_sequence=layer,
        outside_per_sequence=outside,
        layer_input_per_sequence=two.unit_inputs[middle] - one.unit_inputs[middle],
        per_step=one.total - (two.total - one.total),
    )


# Small shapes that vary hidden size, MLP width, heads, K/V heads and sequence independently, so
# the per-token coefficients can be solved exactly (3 layers so the middle one is typical).
_FIT_SHAPES: tuple[tuple[int, int, int, int, int, int], ...] = (
    # hidden, ffn, heads, kv_heads, vocab, seq
    (64, 256, 4, 4, 96, 32),
    (128, 256, 4, 4, 96, 32),
    (64, 512, 4, 4, 96, 32),
    (64, 256, 8, 8, 96, 32),
    (64, 256, 4, 2, 96, 32),
    (64, 256, 4, 4, 160, 32),
    (64, 256, 4, 4, 96, 64),
    (96, 384, 6, 6, 128, 48),
    (128, 256, 4, 4, 96, 64),
    (96, 384, 6, 3, 128, 40),
)


LAYER_TERMS = ("constant", "hidden", "ffn", "heads", "kv_dim", "heads_x_seq")
OUTSIDE_TOKEN_TERMS = ("constant", "hidden", "vocab")
OUTSIDE_SEQUENCE_TERMS = ("constant", "hidden")


def _layer_terms(style: str, impl: str) -> tuple[str, ...]:
    """Columns solved for one style: styles without grouped K/V have kv_dim == hidden (collinear,
    so dropped), and the seq-proportional score term exists only for eager attention."""
    return tuple(t for t in LAYER_TERMS
                 if not (t == "kv_dim" and style != "llama")
                 and not (t == "heads_x_seq" and impl != "eager"))


def _layer_row(terms: Sequence[str], h: int, f: int, a: int, kv: int, s: int) -> list[float]:
    values = {"constant": 1.0, "hidden": h, "ffn": f, "heads": a, "kv_dim": kv * (h // a),
              "heads_x_seq": a * s}
    return [float(values[t]) for t in terms]


def _solve(rows: list[list[float]], values: list[float]) -> tuple[list[float], float]:
    """Least squares (normal equations with a pivoting solve); returns coefficients and the
    largest relative residual, which must be ~0 because saved sizes are exactly linear."""
    n = len(rows[0])
    ata = [[sum(r[i] * r[j] for r in rows) for j in range(n)] for i in range(n)]
    atb = [sum(r[i] * v for r, v in zip(rows, values, strict=True)) for i in range(n)]
    coef = _gauss(ata, atb)
    worst = max(abs(sum(c * x for c, x in zip(coef, r, strict=True)) - v) / v
                for r, v in zip(rows, values, strict=True))
    return coef, worst


def _gauss(a: list[list[float]], b: list[float]) -> list[float]:
    n = len(b)
    m = [row[:] + [bv] for row, bv in zip(a, b, strict=True)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(n):
            if r != col:
                factor = m[r][col] / m[col][col]
                m[r] = [x - factor * y for x, y in zip(m[r], m[col], strict=True)]
    return [m[i][n] / m[i][i] for i in range(n)]


def fit_transformer(style: str, impl: str, precision: str, head: str = "lm") -> dict[str, Any]:
    """Per-token coefficients for one style/attention/precision, solved from the small shapes.

    Layer bytes per token = sum of coefficient x term over LAYER_TERMS. Outside the layers
    (embeddings, final norm, and either the LM head with its fp32 loss or the pooled classifier)
    bytes per sequence = seq x (per-token terms) + per-sequence terms.
    """
    terms = _layer_terms(style, impl)
    layer_rows, layer_vals, head_rows, head_vals, boundary = [], [], [], [], []
    per_step: list[tuple[int, int]] = []
    for h, f, a, kv, vocab, seq in _FIT_SHAPES:
        if style != "llama" and kv != a:
            continue
        shape = Shape(3, h, a, kv, f, vocab, 128)
        got = transformer_shape_bytes(style, shape, impl, precision, seq, head)
        per_step.append((got.per_step, _matmul_weights(style, shape, head)))
        layer_rows.append(_layer_row(terms, h, f, a, kv, seq))
        layer_vals.append(got.layer_per_sequence / seq)
        head_rows.append([1.0, float(h), float(vocab), 1.0 / seq, h / seq])
        head_vals.append(got.outside_per_sequence / seq)
        boundary.append(got.layer_input_per_sequence / (seq * h))
    layer_coef, layer_err = _solve(layer_rows, layer_vals)
    head_coef, head_err = _solve(head_rows, head_vals)
    layer = dict.fromkeys(LAYER_TERMS, 0.0)
    layer.update({k: _tidy(v) for k, v in zip(terms, layer_coef, strict=True)})
    return {
        "layer_bytes_per_token": layer,
        "outside_layers_bytes_per_token": {
            k: _tidy(v) for k, v in zip(OUTSIDE_TOKEN_TERMS, head_coef[:3], strict=True)
        },
        "outside_layers_bytes_per_sequence": {
            k: _tidy(v) for k, v in zip(OUTSIDE_SEQUENCE_TERMS, head_coef[3:], strict=True)
        },
        "layer_input_bytes_per_hidden": _tidy(max(boundary)),
        "fit_max_relative_error": max(layer_err, head_err),
        # Batch-independent saved bytes vs weights that enter a matmul: under autocast the
        # ratio is ~2 (the cached 16-bit weight copies), which the planner uses.
        "per_step_bytes_per_matmul_weight": max(s / m for s, m in per_step),
    }


def _matmul_weights(style: str, s: Shape, head: str) -> int:
    model = TransformerModel(style, s, "sdpa", head)
    total = sum(m.weight.numel() for m in model.modules() if isinstance(m, nn.Linear))
    return total + (s.vocab * s.hidden if head == "lm" and style != "llama" else 0)


def _tidy(value: float) -> float:
    """Coefficients are sums of element sizes, so they are (near) multiples of 1/8 byte; keep
    them exact in the JSON instead of 0.49999999."""
    rounded = round(value * 8) / 8
    return rounded if abs(rounded - value) < 1e-6 * max(1.0, abs(value)) else value


# --------------------------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------------------------

VISION_PRESETS: dict[str, Callable[[], nn.Module]] = {
    "resnet18": lambda: resnet(18),
    "resnet50": lambda: resnet(50),
    "resnet152": lambda: resnet(152),
    "vit-b-16": VitModel,
    "nature-cnn": NatureCnnPolicy,
}
VISION_INPUT = {"nature-cnn": (84, 4)}

TRANSFORMER_FITS = (
    # style, attention, head kind
    ("gpt", "sdpa", "lm"), ("gpt", "eager", "lm"),
    ("bert", "sdpa", "lm"), ("bert", "eager", "lm"), ("bert", "sdpa", "cls"),
    ("bert", "eager", "cls"),
    ("llama", "sdpa", "lm"), ("llama", "eager", "lm"),
)


def preset_params() -> dict[str, dict[str, Any]]:
    from torchrig.planning.presets import load_presets

    return {p.id: p.to_dict() for p in load_presets().values()}


def run(check_only: bool, quick: bool) -> dict[str, Any]:
    torch.set_num_threads(max(1, torch.get_num_threads()))
    started = time.perf_counter()
    presets = preset_params()
    result: dict[str, Any] = {
        "generated_by": "scripts/calibrate_activations.py",
        "date": _dt.date.today().isoformat(),
        "torch_version": torch.__version__,
        "method": (
            "bytes of distinct storages saved for backward (saved_tensors_hooks), parameters "
            "and buffers excluded; CUDA autocast emulated for 'amp'"
        ),
        "vision": {},
        "transformer": {},
        "architecture_checks": {},
    }
    for pid, build in VISION_PRESETS.items():
        model = build()
        count, largest = param_count(model), largest_layer_params(model)
        buffers = buffer_bytes(model)
        expected = presets[pid]["params"]
        result["architecture_checks"][pid] = {
            "params": count, "preset_params": expected, "largest_layer_params": largest,
            "buffer_bytes": buffers,
        }
        if count != expected:
            raise SystemExit(f"{pid}: built model has {count} parameters, preset says {expected}")
        image, channels = VISION_INPUT.get(pid, (224, 3))
        t0 = time.perf_counter()
        result["vision"][pid] = measure_vision(model, image, channels)
        print(f"{pid:12s} {result['vision'][pid]['fp32']['bytes_per_sample'] / 2**20:8.1f} MiB/"
              f"sample fp32, {result['vision'][pid]['amp']['bytes_per_sample'] / 2**20:7.1f} "
              f"amp  ({time.perf_counter() - t0:.1f} s)", flush=True)
    for style, impl, head in TRANSFORMER_FITS:
        for precision in PRECISIONS:
            key = f"{style}/{impl}/{head}/{precision}"
            result["transformer"][key] = fit_transformer(style, impl, precision, head)
            err = result["transformer"][key]["fit_max_relative_error"]
            print(f"{key:28s} fit error {err:.1e}", flush=True)
            if err > 1e-6:
                raise SystemExit(f"{key}: saved bytes are not linear in the shape (error {err})")
    if not quick:
        result["full_size_checks"] = full_size_checks(result)
    print(f"done in {time.perf_counter() - started:.0f} s")
    return result


def full_size_checks(result: dict[str, Any]) -> dict[str, Any]:
    """Measure GPT-2 and BERT-base at their real sizes (short sequences) and compare with the
    coefficients fitted on small shapes: proves the fit extrapolates."""
    checks: dict[str, Any] = {}
    cases = (
        ("gpt2", "gpt", Shape(12, 768, 12, 12, 3072, 50257, 1024), 256, "lm"),
        ("bert-base", "bert", Shape(12, 768, 12, 12, 3072, 30522, 512), 128, "cls"),
    )
    for pid, style, shape, seq, head in cases:
        for precision in ("fp32", "amp"):
            got = transformer_shape_bytes(style, shape, "sdpa", precision, seq, head)
            layer, rest = got.layer_per_sequence, got.outside_per_sequence
            coef = result["transformer"][f"{style}/sdpa/{head}/{precision}"]
            c = coef["layer_bytes_per_token"]
            predicted = seq * (c["constant"] + c["hidden"] * shape.hidden
                               + c["ffn"] * shape.ffn + c["heads"] * shape.heads)
            t, q = coef["outside_layers_bytes_per_token"], coef["outside_layers_bytes_per_sequence"]
            outside = (seq * (t["constant"] + t["hidden"] * shape.hidden
                              + t["vocab"] * shape.vocab)
                       + q["constant"] + q["hidden"] * shape.hidden)
            checks[f"{pid}/{precision}"] = {
                "seq_len": seq, "measured_layer_bytes": layer, "fitted_layer_bytes": predicted,
                "measured_outside_layers_bytes": rest, "fitted_outside_layers_bytes": outside,
            }
            print(f"check {pid}/{precision}: layer measured {layer} vs fit {predicted:.0f}; "
                  f"outside {rest} vs {outside:.0f}")
    return checks


def _peak_of_step(model: nn.Module, batch: Callable[[], torch.Tensor],
                  optimizer: torch.optim.Optimizer) -> tuple[int, int]:
    """(bytes of weights + buffers + optimizer states, peak bytes allocated on top of them
    during one steady-state step), from the profiler's CPU allocation events."""
    from torch.profiler import ProfilerActivity, profile

    def step() -> None:
        optimizer.zero_grad(set_to_none=True)
        out = model(batch())
        loss = out if out.dim() == 0 else out.float().square().mean()
        loss.backward()
        optimizer.step()

    step()  # the optimizer creates its states on the first step
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        step()
    events = sorted((e.start_ns(), e.nbytes()) for e in prof.profiler.kineto_results.events()
                    if e.name() == "[memory]")
    current = peak = 0
    for _, delta in events:
        current += delta
        peak = max(peak, current)
    state = sum(t.numel() * t.element_size()
                for t in list(model.parameters()) + list(model.buffers()))
    state += sum(t.numel() * t.element_size() for st in optimizer.state.values()
                 for t in st.values() if torch.is_tensor(t) and t.dim())
    return state, peak


def peak_checks() -> dict[str, Any]:
    """End-to-end check of the planner's training memory: measured peak of a real step on the
    CPU (profiler allocation events) vs the planner's weights + gradients + optimizer states +
    activations + backward peak (no CUDA overhead or fragmentation on a CPU)."""
    from torchrig.planning.requirements import plan
    from torchrig.planning.workload import workload_from_options

    checks: dict[str, Any] = {}
    torch.manual_seed(0)
    shape = Shape(2, 768, 12, 12, 3072, 50257, 1024)
    gpt = TransformerModel("gpt", shape, "sdpa", "lm")
    net = resnet(18)
    cases = (
        ("gpt2-width-2-layers/fp32/adamw", gpt,
         lambda: torch.randint(0, shape.vocab, (2, 128)),
         dict(task="nlp_transformer", mode="train", model="custom", style="gpt", layers=2,
              hidden=768, heads=12, vocab=50257, ffn=3072, seq_len=128, batch=2,
              params=param_count(gpt))),
        ("resnet18-112px/fp32/sgd_momentum", net, lambda: torch.randn(4, 3, 112, 112),
         dict(task="image_classification", model="resnet18", image_size=112, batch=4,
              optimizer="sgd_momentum")),
    )
    for name, model, batch, options in cases:
        w = workload_from_options(precision="fp32", gpus=1, **options)
        optimizer_name = w.optimizer
        for foreach in (False, True):
            if optimizer_name == "adamw":
                opt: torch.optim.Optimizer = torch.optim.AdamW(model.parameters(),
                                                               foreach=foreach)
            else:
                opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9,
                                      foreach=foreach)
            state, peak = _peak_of_step(model, batch, opt)
            v = plan(w).vram_per_gpu
            planned = sum((v[k].value or 0.0) for k in (
                "weights", "gradients", "optimizer_states", "activations"))
            for extra in ("backward_transient", "optimizer_step_transient"):
                planned += v[extra].value if extra in v else 0.0
            key = f"{name}/foreach={foreach}"
            checks[key] = {"measured_peak_bytes": state + peak, "planned_bytes": planned,
                           "planned_over_measured": planned / (state + peak)}
            print(f"peak {key}: measured {(state + peak) / 2**20:.1f} MiB, planned "
                  f"{planned / 2**20:.1f} MiB ({planned / (state + peak) - 1:+.1%})", flush=True)
    return checks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="measure and print, do not write")
    parser.add_argument("--quick", action="store_true", help="skip the full-size checks")
    parser.add_argument("--peak", action="store_true",
                        help="also measure the peak memory of real training steps (~1 min)")
    args = parser.parse_args(argv)
    result = run(args.check, args.quick)
    if args.peak:
        result["peak_checks"] = peak_checks()
    if args.check:
        return 0
    from torchrig.jsonio import atomic_write_json, load_versioned
    from torchrig.planning.presets import PRESETS_FORMAT, PRESETS_VERSION, presets_path

    path = presets_path()
    document = load_versioned(path, PRESETS_FORMAT, PRESETS_VERSION)
    previous = document.get("calibration") or {}
    if "peak_checks" not in result and "peak_checks" in previous:
        result["peak_checks"] = previous["peak_checks"]  # keep the last --peak results
    document["calibration"] = result
    atomic_write_json(path, document)
    print(f"wrote calibration to {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

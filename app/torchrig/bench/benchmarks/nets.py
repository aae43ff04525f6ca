"""Reference networks for the training benchmarks, built in code (no downloads, no weights).

A small ResNet (basic blocks, batch norm) stands for CNN training and a pre-norm transformer
encoder for transformer training; their sizes follow the device so a step takes a fraction of a
second on a 2-core CPU and saturates a data-centre GPU. The module classes are created inside a
cached function because torch may only be imported lazily (the GUI must not load torch on
start-up), and a class body needs ``torch.nn`` at definition time.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class CnnShape:
    image: int  # square input side in pixels, 3 channels
    width: int  # channels of the first stage (doubles per stage)
    blocks: tuple[int, ...]  # basic blocks per stage
    batch: int
    classes: int = 1000


@dataclass(frozen=True)
class TransformerShape:
    d_model: int
    heads: int
    layers: int
    seq: int
    batch: int
    vocab: int = 8192


def cnn_shape(kind: str, preset: str, scale: float = 1.0) -> CnnShape:
    """ResNet-18-like on a GPU at ImageNet resolution; a narrow, low-resolution one on a CPU."""
    if kind == "cpu" or preset == "smoke":
        if preset == "smoke":
            return CnnShape(image=32, width=8, blocks=(1, 1), batch=4, classes=10)
        return CnnShape(image=64, width=16, blocks=(1, 1, 1, 1),
                        batch=max(2, int(16 * scale)), classes=100)
    batch = {"quick": 64, "full": 128}[preset]
    return CnnShape(image=224, width=64, blocks=(2, 2, 2, 2), batch=max(4, int(batch * scale)))


def transformer_shape(kind: str, preset: str, scale: float = 1.0,
                      layers: int | None = None) -> TransformerShape:
    """GPT-2-small-like on a GPU; a 4-layer, 256-wide model on a CPU."""
    if preset == "smoke":
        return TransformerShape(d_model=32, heads=2, layers=layers or 2, seq=16, batch=2,
                                vocab=256)
    if kind == "cpu":
        return TransformerShape(d_model=192, heads=4, layers=layers or 4, seq=128,
                                batch=max(1, int(8 * scale)), vocab=2048)
    batch = {"quick": 16, "full": 32}[preset]
    return TransformerShape(d_model=768, heads=12, layers=layers or 12, seq=512,
                            batch=max(1, int(batch * scale)))


BatchMaker = Callable[[int], tuple[Any, Any]]
"""n -> (inputs, targets) of batch size n on the benchmark's device."""


def image_batch_maker(shape: CnnShape, device: str) -> BatchMaker:
    def make(n: int) -> tuple[Any, Any]:
        import torch

        return (torch.randn(n, 3, shape.image, shape.image, device=device),
                torch.randint(0, shape.classes, (n,), device=device))

    return make


def token_batch_maker(shape: TransformerShape, device: str) -> BatchMaker:
    def make(n: int) -> tuple[Any, Any]:
        import torch

        return (torch.randint(0, shape.vocab, (n, shape.seq), device=device),
                torch.randint(0, shape.vocab, (n, shape.seq), device=device))

    return make


@functools.cache
def _classes() -> dict[str, Any]:
    import torch
    from torch import nn
    from torch.nn import functional as F  # noqa: N812 - the name PyTorch's docs use
    from torch.utils.checkpoint import checkpoint

    class BasicBlock(nn.Module):
        def __init__(self, cin: int, cout: int, stride: int) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.down: nn.Module = nn.Identity()
            if stride != 1 or cin != cout:
                self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                          nn.BatchNorm2d(cout))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            y = F.relu(self.bn1(self.conv1(x)))
            y = self.bn2(self.conv2(y))
            return F.relu(y + self.down(x))

    class ResNet(nn.Module):
        def __init__(self, shape: CnnShape) -> None:
            super().__init__()
            w = shape.width
            self.stem = nn.Sequential(nn.Conv2d(3, w, 7, 2, 3, bias=False), nn.BatchNorm2d(w),
                                      nn.ReLU(inplace=True), nn.MaxPool2d(3, 2, 1))
            stages: list[nn.Module] = []
            cin = w
            for i, n in enumerate(shape.blocks):
                cout = w * 2**i
                for j in range(n):
                    stages.append(BasicBlock(cin, cout, 2 if (j == 0 and i > 0) else 1))
                    cin = cout
            self.stages = nn.Sequential(*stages)
            self.head = nn.Linear(cin, shape.classes)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            x = self.stages(self.stem(x))
            return self.head(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))

    class Block(nn.Module):
        """Pre-norm encoder block; attention through scaled_dot_product_attention."""

        def __init__(self, d: int, heads: int) -> None:
            super().__init__()
            self.heads = heads
            self.ln1 = nn.LayerNorm(d)
            self.qkv = nn.Linear(d, 3 * d)
            self.proj = nn.Linear(d, d)
            self.ln2 = nn.LayerNorm(d)
            self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            b, s, d = x.shape
            q, k, v = self.qkv(self.ln1(x)).view(b, s, 3, self.heads, d // self.heads).unbind(2)
            a = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2),
                                               v.transpose(1, 2), is_causal=True)
            x = x + self.proj(a.transpose(1, 2).reshape(b, s, d))
            return x + self.mlp(self.ln2(x))

    class Transformer(nn.Module):
        def __init__(self, shape: TransformerShape, checkpointing: bool = False) -> None:
            super().__init__()
            self.checkpointing = checkpointing
            self.embed = nn.Embedding(shape.vocab, shape.d_model)
            self.pos = nn.Parameter(torch.zeros(shape.seq, shape.d_model))
            self.blocks = nn.ModuleList(Block(shape.d_model, shape.heads)
                                        for _ in range(shape.layers))
            self.ln = nn.LayerNorm(shape.d_model)
            self.head = nn.Linear(shape.d_model, shape.vocab)

        def forward(self, tokens: torch.Tensor) -> torch.Tensor:
            x = self.embed(tokens) + self.pos
            for block in self.blocks:
                # use_reentrant=False is the form PyTorch recommends (works with autocast
                # and with inputs that do not require grad).
                x = checkpoint(block, x, use_reentrant=False) if self.checkpointing else block(x)
            return self.head(self.ln(x))

    return {"ResNet": ResNet, "Transformer": Transformer}


def build_cnn(shape: CnnShape) -> Any:
    return _classes()["ResNet"](shape)


def build_transformer(shape: TransformerShape, checkpointing: bool = False) -> Any:
    return _classes()["Transformer"](shape, checkpointing)


class SavedTensorMeter:
    """Bytes autograd keeps for backward, counted with saved_tensors_hooks.

    Each storage is counted once (views share one), parameters are excluded (they exist with or
    without training). This is the activation memory between forward and backward, exact and
    device-independent; it does not see transient buffers (workspaces, a checkpointed block's
    recomputation during backward), which only a device allocator's peak shows.
    """

    def __init__(self, params: Any) -> None:
        self._param_ptrs = {p.untyped_storage().data_ptr() for p in params}
        self._seen: set[int] = set()
        self.bytes = 0

    def _pack(self, tensor: Any) -> Any:
        storage = tensor.untyped_storage()
        ptr = storage.data_ptr()
        if ptr not in self._param_ptrs and ptr not in self._seen:
            self._seen.add(ptr)
            self.bytes += storage.nbytes()
        return tensor

    def hooks(self) -> Any:
        import torch

        return torch.autograd.graph.saved_tensors_hooks(self._pack, lambda t: t)

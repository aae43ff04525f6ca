"""CUDA autocast, emulated on the CPU, so a CPU pass saves for backward what a GPU would.

Measuring on the CPU what a GPU keeps needs the GPU's casts: the CPU's own autocast uses other op
lists and its dropout saves a float mask. :class:`CudaEmulation` applies CUDA autocast's op lists
(from the PyTorch AMP documentation, "Autocast Op Reference") and CUDA's bool dropout mask;
:class:`FastCudaEmulation` keeps the 16-bit tensors but computes in fp32 (the CPU's bf16 matmuls
are slow). Used by :mod:`torchrig.verify.reference_models`, :mod:`torchrig.verify.probe` and the
calibration scripts.

This module imports torch at import time: import it lazily (the GUI must not load torch on
start-up).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import torch
from torch import nn
from torch.overrides import TorchFunctionMode

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

    def __enter__(self) -> CudaEmulation:
        ACTIVE_EMULATION.append(self)
        return super().__enter__()  # type: ignore[no-any-return]

    def __exit__(self, *exc: Any) -> None:
        ACTIVE_EMULATION.remove(self)
        super().__exit__(*exc)

    def cached_copies(self) -> list[torch.Tensor]:
        """The 16-bit weight copies made so far (autocast keeps them until the region ends)."""
        return list(self._cache.values())

    def for_recomputation(self) -> CudaEmulation:
        """The same casts (and the same cached weight copies) for a checkpointed block's
        recomputation: it runs inside backward, where this mode is not applied."""
        again = CudaEmulation(self.autocast)
        again._cache = self._cache
        return again

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


ACTIVE_EMULATION: list[CudaEmulation] = []


def recompute_context() -> tuple[contextlib.AbstractContextManager[Any],
                                 contextlib.AbstractContextManager[Any]]:
    """``torch.utils.checkpoint``'s ``context_fn``: the forward as it runs, and the
    recomputation - inside backward, where no mode is applied - under the active emulation's
    casts, so it recomputes the tensors it saved (else the checkpoint refuses: "Recomputed
    values ... have different metadata")."""
    mode = ACTIVE_EMULATION[-1] if ACTIVE_EMULATION else None
    return contextlib.nullcontext(), (mode.for_recomputation() if mode is not None
                                      else contextlib.nullcontext())


class FastCudaEmulation(CudaEmulation):
    """:class:`CudaEmulation` that computes matmul-class ops in float32 but keeps what they save
    for backward in 16 bit, so the CPU runs at fp32 speed (its bf16 matmuls are often 10-20x
    slower) while the memory matches a GPU's.

    Inside a matmul-class op, a saved-tensor hook swaps the op's fp32 inputs for their 16-bit
    originals; backward gets them back as fp32. ``on_save`` sees every tensor kept this way (an
    outer saved-tensor hook does not: the innermost hook wins). Attention runs in 16 bit as
    before: its kernel also saves its output, which must stay the tensor the graph continues
    from. Not for checkpointed models: the inner hook would hide these tensors from
    checkpointing's own hooks.
    """

    def __init__(self, autocast: torch.dtype,
                 on_save: Callable[[torch.Tensor], None] | None = None) -> None:
        super().__init__(autocast)
        self.on_save = on_save

    def __torch_function__(self, func, types, args=(), kwargs=None):  # type: ignore[override]
        kwargs = kwargs or {}
        name = getattr(func, "__name__", "")
        if name not in _LOWER_PRECISION_OPS or name == "scaled_dot_product_attention" \
                or self.autocast is None:
            return super().__torch_function__(func, types, args, kwargs)
        low = self.autocast
        # storage of each fp32 upcast -> (the upcast, its 16-bit original); ops save views of
        # their inputs (a linear saves input.view(-1, h) and weight.t()), found by storage.
        originals: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}

        def up(value: Any) -> Any:
            if isinstance(value, torch.Tensor) and value.dtype == low:
                wide = value.float()
                if wide.stride() == value.stride():
                    originals[wide.untyped_storage().data_ptr()] = (wide, value)
                return wide
            if isinstance(value, (list, tuple)):
                return type(value)(up(v) for v in value)
            return value

        args = up(self._cast(args, low))
        kwargs = {k: up(self._cast(v, low)) for k, v in kwargs.items()}

        def pack(tensor: torch.Tensor) -> torch.Tensor:
            kept = tensor
            if tensor.dtype == torch.float32:
                entry = originals.get(tensor.untyped_storage().data_ptr())
                if entry is None:
                    kept = tensor.to(low)
                else:
                    wide, narrow = entry
                    offset = narrow.storage_offset() + tensor.storage_offset() \
                        - wide.storage_offset()
                    kept = narrow.as_strided(tensor.size(), tensor.stride(), offset)
            if self.on_save is not None:
                self.on_save(kept)
            return kept

        def unpack(tensor: torch.Tensor) -> torch.Tensor:
            return tensor.float() if tensor.dtype == low else tensor

        with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
            out = func(*args, **kwargs)
        if isinstance(out, torch.Tensor) and out.dtype == torch.float32:
            return out.to(low)
        return out


PRECISIONS = ("fp32", "amp", "bf16")
"""fp32 (also tf32: same tensors), amp (CUDA autocast to a 16-bit type, fp32 weights), bf16 (the
whole model cast to bfloat16; fp16 has the same sizes)."""


def run_context(precision: str) -> CudaEmulation:
    return CudaEmulation(torch.bfloat16 if precision == "amp" else None)


def prepare(model: nn.Module, precision: str) -> nn.Module:
    return model.to(torch.bfloat16) if precision == "bf16" else model.float()

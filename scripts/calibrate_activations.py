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

The architectures live in ``torchrig.verify.reference_models`` (shared with ``torchrig verify``),
written with ``torch.nn`` (torchvision and transformers are not needed): ResNet-18/50/152 and
ViT-B/16 as torchvision defines them, BERT / GPT-2 / Llama-style transformer blocks as the
Hugging Face implementations compute them, and the Nature DQN CNN.
Parameter counts are checked against the presets, so a wrong architecture cannot pass silently.

Results go into the ``calibration`` object of ``resources/model_presets.json`` (atomic write).
Run from the repository root:  ``.venv/bin/python scripts/calibrate_activations.py``
(``--check`` measures and compares without writing; ``--quick`` skips the slow checks).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "app"))

from torchrig.verify.cuda_emulation import PRECISIONS, prepare  # noqa: E402 - after the path set-up
from torchrig.verify.reference_models import (  # noqa: E402 - after the path set-up above
    NatureCnnPolicy,
    SavedCount,
    Shape,
    TransformerModel,
    VitModel,
    buffer_bytes,
    forward_flops,
    largest_layer_params,
    param_count,
    profiled_peak_bytes,
    resnet,
    saved_bytes,
    vision_units,
)
from torchrig.verify.yolo_model import YoloV8  # noqa: E402 - after the path set-up above


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
    model = prepare(TransformerModel(style, s, impl, head, grouped_kv=False), precision)
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
    model = TransformerModel(style, s, "sdpa", head, grouped_kv=False)
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
    "yolov8n": lambda: YoloV8("n"),
    "yolov8s": lambda: YoloV8("s"),
    "yolov8m": lambda: YoloV8("m"),
}
VISION_INPUT = {"nature-cnn": (84, 4), "yolov8n": (640, 3), "yolov8s": (640, 3),
                "yolov8m": (640, 3)}

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


def measure_vision_preset(pid: str, presets: dict[str, dict[str, Any]]
                          ) -> tuple[dict[str, Any], dict[str, Any]]:
    """(architecture check, measured figures) of one vision preset."""
    model = VISION_PRESETS[pid]()
    count, largest = param_count(model), largest_layer_params(model)
    expected = presets[pid]["params"]
    check = {"params": count, "preset_params": expected, "largest_layer_params": largest,
             "buffer_bytes": buffer_bytes(model)}
    if count != expected:
        raise SystemExit(f"{pid}: built model has {count} parameters, preset says {expected}")
    image, channels = VISION_INPUT.get(pid, (224, 3))
    t0 = time.perf_counter()
    measured = measure_vision(model, image, channels)
    print(f"{pid:12s} {measured['fp32']['bytes_per_sample'] / 2**20:8.1f} MiB/sample fp32, "
          f"{measured['amp']['bytes_per_sample'] / 2**20:7.1f} amp  "
          f"({time.perf_counter() - t0:.1f} s)", flush=True)
    return check, measured


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
    for pid in VISION_PRESETS:
        check, result["vision"][pid] = measure_vision_preset(pid, presets)
        result["architecture_checks"][pid] = check
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

    def step() -> None:
        optimizer.zero_grad(set_to_none=True)
        out = model(batch())
        loss = out if out.dim() == 0 else out.float().square().mean()
        loss.backward()
        optimizer.step()

    step()  # the optimizer creates its states on the first step
    peak = profiled_peak_bytes(step)
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


def update_vision(ids: list[str], check_only: bool) -> int:
    """Measure a few vision presets (a new one, say) without re-running everything."""
    from torchrig.jsonio import atomic_write_json, load_versioned
    from torchrig.planning.presets import PRESETS_FORMAT, PRESETS_VERSION, presets_path

    unknown = [pid for pid in ids if pid not in VISION_PRESETS]
    if unknown:
        raise SystemExit(f"not a vision preset this script builds: {', '.join(unknown)}")
    path = presets_path()
    document = load_versioned(path, PRESETS_FORMAT, PRESETS_VERSION)
    calibration = document.get("calibration")
    if not calibration:
        raise SystemExit("no stored calibration to update: run the whole script first")
    if calibration["torch_version"] != torch.__version__:
        raise SystemExit(f"the stored calibration was measured with torch "
                         f"{calibration['torch_version']}: re-run the whole script")
    presets = preset_params()
    for pid in ids:
        check, measured = measure_vision_preset(pid, presets)
        calibration["architecture_checks"][pid] = check
        calibration["vision"][pid] = measured
    if not check_only:
        atomic_write_json(path, document)
        print(f"updated {', '.join(ids)} in {path}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="measure and print, do not write")
    parser.add_argument("--quick", action="store_true", help="skip the full-size checks")
    parser.add_argument("--peak", action="store_true",
                        help="also measure the peak memory of real training steps (~1 min)")
    parser.add_argument("--vision", metavar="ID,...",
                        help="measure only these vision presets and update their entries, "
                             "keeping the rest of the stored calibration")
    args = parser.parse_args(argv)
    if args.vision:
        return update_vision(args.vision.split(","), args.check)
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

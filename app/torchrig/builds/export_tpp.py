"""Total processing performance (TPP) of a catalog GPU against US export rule ECCN 3A090.a.

The rule: BIS interim final rule "Implementation of Additional Export Controls: Certain
Advanced Computing Items; Supercomputer and Semiconductor End Use; Updates and Corrections"
(announced 2023-10-17, Federal Register document 2023-23055, published 2023-10-25,
https://www.federalregister.gov/d/2023-23055). As it amended ECCN 3A090, item a covers
integrated circuits having one or more digital processing units with

- a.1: a 'total processing performance' of 4800 or more, or
- a.2: a 'total processing performance' of 1600 or more and a 'performance density' of 5.92
  or more

(the Commerce Control List text as reproduced on eccnfinder.com/eccn/3a090). The rule defines
TPP = 2 x MacTOPS x the bit length of the operation, the highest over the operations the chip
runs, and notes that "2 x MacTOPS may correspond to the reported TOPS or FLOPS on a
datasheet"; 'performance density' is TPP divided by the die area in mm². So TPP is a *dense*
datasheet TFLOPS/TOPS figure times its bit length (sparsity is not counted): H100 SXM 1,979
dense FP8 TFLOPS x 8 = 15,832; RTX 4090 1,321 dense INT4 TOPS x 4 = 5,284 (root.cz,
2023-12-29). docs/hardware-sources.md section 8.3 lists the pages read.

What TorchRig computes here, from the catalog's figures only (never a guess):

- a.1, from the dense figures the catalog holds (:data:`TPP_FIELDS`). Derived figures count:
  each is a vendor figure with its stated arithmetic (e.g. the B200's datasheet FP8 9 PFLOPS
  with sparsity / 2); the finding says when the figure is derived.
- GeForce cards: the catalog gives their FP16/BF16/FP8 tensor figures with FP32 accumulate
  (the rate PyTorch AMP sees), which is *half* the FP16-accumulate rate the card also runs and
  TPP counts (the catalog's ``conventions``; Ada whitepaper: RTX 4090 FP8 330.3 TFLOPS with
  FP32 accumulate, 660.6 with FP16 accumulate). For those cards the catalog gives a range:
  its figures as stored (:attr:`Tpp.low`) up to twice its FP32-accumulate figures
  (:attr:`Tpp.high`); dense FP4 (Blackwell: NVIDIA's "AI TOPS" / 2) is already the top rate
  and is not doubled. Where 4,800 falls inside that range the catalog lacks the figure that
  decides: the export-control list must name the part (the RTX 4090 is listed with its
  published TPP), and a part it does not name is reported as undecided.
- a.2 is not computed: the catalog holds no die areas, and reports say the density test is
  not applied to consumer GPUs (meterpreter.org on the RTX 4090 D: "this metric does not apply
  to consumer GPUs"). The datacenter parts it catches below 4,800 (the L4: TPP 1,936,
  performance density about 6.6) are named in the list instead.
"""

from __future__ import annotations

import math
from typing import Literal

from torchrig.catalog.model import Part
from torchrig.catalog.specs import GpuSpec
from torchrig.i18n import Msg
from torchrig.records import record
from torchrig.units import TERA

TPP_THRESHOLD = 4800.0
"""ECCN 3A090.a.1: a 'total processing performance' of 4800 or more (rule 2023-23055)."""

RULE = Msg("ECCN 3A090.a.1 (BIS interim final rule on advanced computing items, Federal "
           "Register document 2023-23055, 2023-10-25)",
           "ECCN 3A090.a.1（BIS 先进计算物项暂行最终规则，联邦公报文件号 2023-23055，2023-10-25）")
RULE_URL = "https://www.federalregister.gov/d/2023-23055"

TPP_FIELDS: tuple[tuple[str, str, str, int, bool], ...] = (
    # (GpuSpec attribute, the catalog's key, the figure in words, bit length,
    #  a tensor figure with FP32 accumulate)
    ("fp4_tensor_flops", "fp4_tensor_tflops", "FP4 Tensor", 4, False),
    ("fp8_tensor_flops", "fp8_tensor_tflops", "FP8 Tensor", 8, True),
    ("fp16_tensor_flops", "fp16_tensor_tflops", "FP16 Tensor", 16, True),
    ("bf16_tensor_flops", "bf16_tensor_tflops", "BF16 Tensor", 16, True),
    ("fp16_flops", "fp16_tflops", "FP16", 16, False),
    ("fp32_matrix_flops", "fp32_matrix_tflops", "FP32 matrix", 32, False),
    ("fp32_flops", "fp32_tflops", "FP32", 32, False),
)
"""The dense figures TPP is taken from. Not used: the ``*_sparse_*`` figures (2:4 sparsity,
which TPP does not count) and TF32, whose bit length the stored sources do not settle (19
bits held in 32) and whose rate is half the FP16 rate on every catalog part, so it is never
the highest."""

GEFORCE = "GeForce "
"""The product line whose tensor figures the catalog stores at half the FP16-accumulate rate
(the catalog's ``conventions``: "GeForce cards run FP16 with FP16 accumulate at twice this")."""

Status = Literal["over", "under", "undecided"]


@record
class Tpp:
    """A GPU's TPP as far as the catalog tells it. ``low`` is the highest dense catalog figure
    times its bit length (``field``: its catalog key, ``words``: the figure as a finding names
    it, ``rate``: that figure in TFLOPS/TOPS, ``bits``); ``high`` is the most the rule's TPP
    can be: ``low`` itself, or for a GeForce card (``half_rate``) twice its FP32-accumulate
    tensor figures. ``derived``: the figure that gives ``low`` is derived in the catalog (a
    vendor figure with stated arithmetic)."""

    low: float
    high: float
    field: str
    words: str
    rate: float
    bits: int
    derived: bool
    half_rate: bool

    @property
    def status(self) -> Status:
        """Against 4,800: over (the catalog's own figures reach it), under (even ``high``
        does not), or undecided (only ``high`` does: the deciding figure is not held)."""
        if self.low >= TPP_THRESHOLD:
            return "over"
        if self.high < TPP_THRESHOLD:
            return "under"
        return "undecided"


def half_rate_accumulate(part: Part) -> bool:
    """The part is a GeForce card: its stored tensor figures are with FP32 accumulate, half
    the rate it runs with FP16 accumulate (:data:`GEFORCE`)."""
    return part.vendor == "NVIDIA" and part.name.startswith(GEFORCE)


def gpu_tpp(part: Part) -> Tpp | None:
    """The TPP of catalog GPU ``part`` (see module doc); None for a part that is not a GPU or
    whose catalog entry has no dense figure at all (e.g. only a sparse INT8 rate)."""
    spec = part.specs
    if part.category != "gpu" or not isinstance(spec, GpuSpec):
        return None
    half = half_rate_accumulate(part)
    best: tuple[float, str, str, float, int, bool] | None = None
    high = 0.0
    for attr, key, words, bits, fp32_accumulate in TPP_FIELDS:
        flops = getattr(spec, attr)
        if flops is None:
            continue
        rate = flops / TERA
        tpp = rate * bits
        high = max(high, tpp * 2 if half and fp32_accumulate else tpp)
        if best is None or tpp > best[0]:
            best = (tpp, key, words, rate, bits, part.is_derived(attr))
    if best is None:
        return None
    low, key, words, rate, bits, derived = best
    return Tpp(low=low, high=max(low, high), field=key, words=words, rate=rate, bits=bits,
               derived=derived, half_rate=half)


def tpp_words(tpp: Tpp) -> Msg:
    """How ``tpp`` was counted, for a finding: "36,000 (dense FP4 Tensor 9,000 TFLOPS x 4
    bits, a derived catalog figure)"."""
    unit = "TOPS" if tpp.words.startswith("INT") else "TFLOPS"
    figure = f"{tpp.words} {rate_text(tpp.rate)} {unit} × {tpp.bits}"
    if tpp.derived:
        return Msg(f"{tpp_text(tpp.low)} (dense {figure} bits, a derived catalog figure)",
                   f"{tpp_text(tpp.low)}（稠密 {figure} 位，目录中的推算值）")
    return Msg(f"{tpp_text(tpp.low)} (dense {figure} bits)",
               f"{tpp_text(tpp.low)}（稠密 {figure} 位）")


def tpp_text(value: float) -> str:
    """A TPP in whole units, rounded down so a figure under 4,800 never reads as 4,800:
    15,832; 4,707."""
    return f"{math.floor(value + 1e-9):,}"


def rate_text(value: float) -> str:
    """A TFLOPS/TOPS figure as the catalog writes it: 4,500; 330.3; 1,187.5."""
    rounded = round(value, 2)
    if rounded == int(rounded):
        return f"{int(rounded):,}"
    return f"{rounded:,.2f}".rstrip("0").rstrip(".")

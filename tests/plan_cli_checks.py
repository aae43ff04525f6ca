"""Shared by the tests of ``torchrig plan`` that name machines (issue 24): the catalog's GPUs
sorted by how they are bought, read by hand from resources/catalog/gpus.json, and the one-line
refusal every bad option gets.

* SXM modules (``form_factor`` sxm4/sxm5/sxm6): A100 80GB SXM4, H100 SXM, H200 SXM, H20, B200
  SXM6. A workstation never takes one.
* PCIe server cards (NVIDIA, ``cooling`` blower or passive): L4, L40S, A100 40GB PCIe, H100
  PCIe, RTX PRO 5000/4500/4000 Blackwell.
* 600 W cards the Entry build's 850 W supply cannot take beside its 117 W CPU and the power
  check's 150 W for the rest (117 + 600 + 150 = 867 W): RTX PRO 6000 Blackwell, H200 NVL.
"""

from __future__ import annotations

from typing import Any

from torchrig.cli import main

SXM = {"nvidia-a100-80gb-sxm", "nvidia-h100-sxm", "nvidia-h200-sxm", "nvidia-h20",
       "nvidia-b200-sxm"}
SERVER_CARDS = {"nvidia-l4", "nvidia-l40s", "nvidia-a100-40gb-pcie", "nvidia-h100-pcie",
                "nvidia-rtx-pro-5000-blackwell", "nvidia-rtx-pro-4500-blackwell",
                "nvidia-rtx-pro-4000-blackwell"}
TOO_HOT_FOR_ENTRY = {"nvidia-rtx-pro-6000-blackwell", "nvidia-h200-nvl"}


def refused(capsys: Any, *argv: str) -> str:
    """``plan ARGV`` exits 2 with one line on stderr and nothing on stdout: that line."""
    assert main(["plan", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in captured.err
    return lines[0]

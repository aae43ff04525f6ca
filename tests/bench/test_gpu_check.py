"""scripts/gpu_check.py refuses clearly on a machine without CUDA (the CI machines)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "gpu_check.py"


@pytest.mark.slow  # a fresh interpreter importing torch: several seconds on 2 cores
def test_without_cuda_exits_2_with_a_message(tmp_path: Path):
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA: run the script itself")
    out = subprocess.run([sys.executable, str(SCRIPT), "--json", str(tmp_path / "g.json")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    assert out.stderr.startswith("gpu_check: no CUDA device")
    assert not (tmp_path / "g.json").exists()

"""Suite settings: validation before anything runs, device resolution, budgets."""

from __future__ import annotations

from pathlib import Path

import pytest

from torchrig.bench.settings import BenchSettings, resolve_device
from torchrig.errors import InputError

IDS = ["matmul", "storage"]


@pytest.mark.parametrize(("settings", "message"), [
    (BenchSettings(preset="huge"), "unknown preset"),  # type: ignore[arg-type]
    (BenchSettings(device="gpu0"), "device 'gpu0' is not valid"),
    (BenchSettings(device="cuda:x"), "is not valid"),
    (BenchSettings(only=("matmul", "bogus")), "unknown benchmark bogus"),
    (BenchSettings(only=(" ",)), "no benchmark selected"),
    (BenchSettings(dataset_dir=Path("/no/such/folder")), "does not exist"),
    (BenchSettings(peaks={"fp64": 1.0}), "unknown key 'fp64'"),
    (BenchSettings(peaks={"fp32": -1.0}), "must be a positive number"),
    (BenchSettings(budget_s=0), "budget"),
])
def test_bad_settings_are_input_errors(settings, message):
    with pytest.raises(InputError, match=message):
        settings.validated(IDS)


def test_dataset_dir_must_be_a_folder(tmp_path: Path):
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(InputError, match="is a file"):
        BenchSettings(dataset_dir=f).validated(IDS)


def test_validated_normalises():
    s = BenchSettings(device=" CPU ", only=("storage", "matmul", "storage"),
                      peaks={"fp32": 1e12, "bf16": None}).validated(IDS)
    assert s.device == "cpu" and s.only == ("storage", "matmul") and s.peaks == {"fp32": 1e12}
    assert s.peak("fp32") == 1e12 and s.peak("bf16") is None


def test_budgets_follow_preset_and_device():
    assert BenchSettings(preset="quick").suite_budget_s("cpu") <= 25
    assert BenchSettings(preset="quick").suite_budget_s("cuda:0") <= 20
    assert BenchSettings(preset="full").suite_budget_s("cpu") < 180
    assert BenchSettings(budget_s=3).suite_budget_s("cpu") == 3


def test_resolve_device_on_this_machine():
    assert resolve_device("cpu") == "cpu"
    with pytest.raises(InputError, match="not valid"):
        resolve_device("cpu:1")
    torch = pytest.importorskip("torch")
    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    with pytest.raises(InputError, match=f"cuda:{count}"):
        resolve_device(f"cuda:{count}")
    if count:
        assert resolve_device("cuda") == "cuda:0"


def test_auto_picks_a_usable_device():
    torch = pytest.importorskip("torch")
    expected = "cuda:0" if torch.cuda.is_available() and torch.cuda.device_count() else None
    got = resolve_device("auto")
    assert got == expected or (expected is None and got in ("cpu", "mps"))
    with pytest.raises(InputError, match="takes no index"):
        resolve_device("auto:1")

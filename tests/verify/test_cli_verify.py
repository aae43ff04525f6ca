"""torchrig verify on the command line: bad input is one line and exit 2; a tiny run prints
the table, writes --json and, for a model the planner cannot size, --write-back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from torchrig.cli import main
from torchrig.planning.workload import load_workload, save_workload, workload_from_options


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_missing_file_is_exit_2_with_one_line(capsys, tmp_path):
    code, out, err = run(capsys, "verify", str(tmp_path / "nope.json"), "--device", "cpu")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "nope.json" in err


def test_a_workload_verify_cannot_build_is_exit_2(capsys, tmp_path):
    path = tmp_path / "w.json"
    save_workload(workload_from_options(task="image_classification", model="custom",
                                        params=5_000_000, image_size=32, batch=2), path)
    code, _out, err = run(capsys, "verify", str(path), "--device", "cpu")
    assert code == 2 and "cannot build" in err and len(err.strip().splitlines()) == 1


def test_steps_below_three_is_exit_2(capsys, tmp_path):
    pytest.importorskip("torch")
    path = tmp_path / "w.json"
    save_workload(workload_from_options(task="image_classification", model="resnet18",
                                        image_size=32, batch=2), path)
    code, _out, err = run(capsys, "verify", str(path), "--device", "cpu", "--steps", "2")
    assert code == 2 and "steps" in err


@pytest.mark.slow
def test_tiny_custom_resnet_table_json_and_write_back(capsys, tmp_path):
    pytest.importorskip("torch")
    path = tmp_path / "w.json"
    save_workload(workload_from_options(task="image_classification", model="custom",
                                        params=11_689_512, layers=18, image_size=64, batch=2,
                                        precision="fp32", optimizer="sgd"), path)
    out_json = tmp_path / "v.json"
    code, out, err = run(capsys, "verify", str(path), "--device", "cpu", "--json",
                         str(out_json), "--write-back")
    assert code == 0, err
    assert "Weights" in out and "Planned" in out and "Measured" in out
    doc = json.loads(out_json.read_text())
    assert doc["format"] == "torchrig.verify" and doc["feedback"] is not None
    updated = load_workload(Path(path))
    assert updated.activation_bytes_per_sample == doc["feedback"]["activation_bytes_per_sample"]
    # written as --apply writes it: the figures with the measurement's context, so a later
    # plan scales them (here from the 64 px the run fed)
    assert updated.figures_source.startswith(f"measured on {doc['device_name']} (cpu), ")
    assert (updated.measured_device, updated.measured_batch, updated.measured_image_size,
            updated.measured_precision, updated.measured_date) == (
        "cpu", doc["measured"]["batch"], 64, "fp32", doc["date"])
    code, out, err = run(capsys, "plan", "--workload", str(path), "--image-size", "128",
                         "--json")
    assert code == 0, err
    planned = json.loads(out)["vram_per_gpu"]["activations"]
    assert planned == pytest.approx(updated.activation_bytes_per_sample * 2 * 4, rel=1e-12)

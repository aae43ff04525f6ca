"""verify on the user's own code (--model-factory FILE.py:FUNC): a model of this test's own,
with and without a batch(batch_size); the bytes verify counts equal a hand count; a factory
that fails is one line and exit 2 on the command line, never a traceback."""

from __future__ import annotations

import json
import textwrap
import threading

import pytest

torch = pytest.importorskip("torch")

from torchrig.cli import main  # noqa: E402
from torchrig.planning.workload import load_workload, workload_from_options  # noqa: E402
from torchrig.verify import measure as v  # noqa: E402 - after the torch check
from torchrig.verify.probe import Size, run_probe  # noqa: E402
from torchrig.verify.sources import parse_factory  # noqa: E402

pytestmark = pytest.mark.slow  # runs torch models

# One linear layer 16 -> 64, then ReLU, then a linear layer 64 -> 4; batch() gives float inputs
# and integer class targets.
FACTORY = textwrap.dedent('''
    import torch
    from torch import nn

    def make():
        torch.manual_seed(0)
        return nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 4))

    def batch(batch_size):
        g = torch.Generator().manual_seed(1)
        return torch.randn(batch_size, 16, generator=g), torch.randint(0, 4, (batch_size,),
                                                                        generator=g)
    ''')


PARAMS = 16 * 64 + 64 + 64 * 4 + 4  # 1,348: weights and biases of the two layers


def hand_count(batch: int) -> int:
    """What backward needs, by hand, fp32 (4 bytes) each:
    Linear(16->64): its input x (batch x 16) - addmm saves mat1 for the weight's gradient;
    ReLU: its output (batch x 64), reused by the second Linear as its input (one storage);
    cross_entropy: log_softmax's output (batch x 4), the targets (int64, batch x 8 bytes) and
    nll_loss's total_weight (one fp32 number, 4 bytes, whatever the batch)."""
    return 4 * (batch * 16) + 4 * (batch * 64) + 4 * (batch * 4) + 8 * batch + 4


def write_factory(tmp_path, text=FACTORY):
    path = tmp_path / "my_model.py"
    path.write_text(text)
    return path


def workload(batch=4):
    return workload_from_options(task="image_classification", model="custom", params=PARAMS,
                                 image_size=32, batch=batch, precision="fp32", optimizer="sgd")


def test_factory_model_saved_bytes_equal_a_hand_count(tmp_path):
    source = parse_factory(f"{write_factory(tmp_path)}:make")
    mp, spec = v.library_plan(source, workload(), "cpu")
    assert mp.layers is None and "your factory make()" in mp.description.en
    assert mp.image_size is None  # its own batch() makes the inputs: their size is not known
    measured = run_probe(spec, Size(None, 4), "cpu", 3, threading.Event())
    assert measured.saved_bytes == hand_count(4)
    assert measured.weights == PARAMS * 4 and measured.gradients == PARAMS * 4


def test_factory_end_to_end_names_the_file_and_function_and_extrapolates_per_sample(tmp_path):
    path = write_factory(tmp_path)
    r = v.verify(workload(batch=64), "cpu", runtime=v.Runtime("cpu", "cpu", "t", None, 2**33),
                 source=parse_factory(f"{path}:make"))
    assert r.source["kind"] == "factory" and r.source["label"] == f"factory {path}:make"
    assert r.to_dict()["source"]["label"] == f"factory {path}:make"
    # Saved bytes are linear in the batch: measured at the sizes it ran, extrapolated to 64.
    assert r.measured.saved_bytes == pytest.approx(hand_count(64))


def test_without_batch_the_inputs_come_from_the_task(tmp_path):
    text = FACTORY.replace("def batch(", "def not_batch(").replace(
        "nn.Linear(16, 64)", "nn.Flatten(), nn.Linear(3 * 32 * 32, 64)")
    source = parse_factory(f"{write_factory(tmp_path, text)}:make")
    mp, spec = v.library_plan(source, workload(), "cpu")
    assert mp.image_size == 32  # verify makes the 32 px images the workload asks for
    measured = run_probe(spec, Size(None, 2), "cpu", 3, threading.Event())
    # Flatten's view shares the image's storage: 2 x 3 x 32 x 32 floats once; then as above
    # with 3072 inputs instead of 16 (targets: fixed pseudo-random classes, int64).
    assert measured.saved_bytes == 4 * 2 * 3072 + 4 * 2 * 64 + 4 * 2 * 4 + 8 * 2 + 4


@pytest.mark.parametrize("text, expected", [
    ("def make():\n    raise RuntimeError('no GPU here')\n", "RuntimeError: no GPU here"),
    ("def make():\n    return 42\n", "not a torch.nn.Module"),
    ("import not_a_module_anywhere\n", "ModuleNotFoundError"),
    ("def other():\n    pass\n", "no function make"),
])
def test_a_failing_factory_is_one_line_and_exit_2(tmp_path, capsys, text, expected):
    path = write_factory(tmp_path, text)
    code = main(["verify", "--model-factory", f"{path}:make", "--task",
                 "image_classification", "--image-size", "32", "--batch", "2",
                 "--device", "cpu"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0] and "Traceback" not in err


def test_a_model_whose_forward_fails_is_one_line_and_exit_2(tmp_path, capsys):
    text = FACTORY + "\ndef broken():\n    return torch.nn.Linear(3, 400)\n"
    path = write_factory(tmp_path, text)  # batch() gives 16 features: a shape error
    code = main(["verify", "--model-factory", f"{path}:broken", "--task",
                 "image_classification", "--batch", "2", "--device", "cpu"])
    err = capsys.readouterr().err
    # progress lines ("verify: pilot run ...") first, then the one line of the error
    errors = [line for line in err.strip().splitlines() if not line.startswith("verify: ")]
    assert code == 2 and len(errors) == 1
    assert "the model failed: RuntimeError" in errors[0] and "Traceback" not in err


def test_cli_factory_apply_writes_a_workload_plan_reads_back(tmp_path, capsys):
    path = write_factory(tmp_path)
    out_path, json_path = tmp_path / "measured.json", tmp_path / "v.json"
    code = main(["verify", "--model-factory", f"{path}:make", "--task",
                 "image_classification", "--image-size", "32", "--batch", "4",
                 "--precision", "fp32", "--optimizer", "sgd", "--device", "cpu",
                 "--apply", str(out_path), "--json", str(json_path)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert f"Model source: factory {path}:make" in out
    doc = json.loads(json_path.read_text())
    w = load_workload(out_path)
    assert w.activation_bytes_per_sample == round(hand_count(4) / 4)
    assert w.forward_flops_per_sample == doc["measured"]["forward_flops"] / 4
    assert w.figures_source.startswith("measured on ") and doc["date"] in w.figures_source
    assert w.params == PARAMS  # counted from the real model, the planner's size for it
    assert w.measured_image_size is None  # the factory's batch() made the inputs
    code = main(["plan", "--workload", str(out_path), "--json"])
    planned = json.loads(capsys.readouterr().out)
    assert code == 0
    # the measured figure, used by the planner (per sample x batch 4)
    assert planned["vram_per_gpu"]["activations"] == round(hand_count(4) / 4) * 4

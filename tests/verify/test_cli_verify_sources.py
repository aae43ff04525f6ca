"""torchrig verify's model flags: --hf-config runs the transformers class the config names
(JSON "source"), --model LIB:NAME where the library cannot be used is one line and exit 2 or
the named fallback, and conflicting model flags are bad input."""

from __future__ import annotations

import json
import sys

import pytest

from torchrig.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def errors(err: str) -> list[str]:
    return [line for line in err.strip().splitlines() if not line.startswith("verify: ")]


def test_two_model_flags_are_bad_input(capsys, tmp_path):
    code, out, err = run(capsys, "verify", "--model", "timm:resnet50", "--model-factory",
                         f"{tmp_path / 'm.py'}:make", "--device", "cpu")
    assert code == 2 and out == "" and "give one model" in err
    assert len(errors(err)) == 1


def test_a_library_flag_of_an_unknown_library_is_bad_input(capsys):
    code, _out, err = run(capsys, "verify", "--model", "keras:resnet", "--device", "cpu")
    assert code == 2 and "torchvision:NAME or timm:NAME" in err and len(errors(err)) == 1


def test_a_config_without_architectures_is_bad_input(capsys, tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "gpt2", "n_embd": 64, "n_head": 4,
                                "n_layer": 2, "n_positions": 64, "vocab_size": 128}))
    code, _out, err = run(capsys, "verify", "--hf-config", str(path), "--device", "cpu")
    assert code == 2 and "architectures" in err and len(errors(err)) == 1


def test_a_torchvision_model_without_torchvision_or_reference_is_one_line(capsys,
                                                                          monkeypatch):
    pytest.importorskip("torch")
    monkeypatch.setitem(sys.modules, "torchvision", None)  # "import torchvision" fails here
    code, out, err = run(capsys, "verify", "--model", "torchvision:convnext_tiny",
                         "--image-size", "32", "--batch", "2", "--device", "cpu")
    assert code == 2 and out == "" and "Traceback" not in err
    assert errors(err) == ["torchrig verify: torchvision convnext_tiny: torchvision is not "
                           "installed (install a build that matches this torch)"]


@pytest.mark.slow
def test_hf_config_runs_the_transformers_class_and_names_it(capsys, tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    path = tmp_path / "config.json"
    path.write_text(json.dumps({
        "architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "n_embd": 64,
        "n_head": 4, "n_layer": 2, "n_positions": 64, "vocab_size": 128,
        "activation_function": "gelu_new"}))
    out_json = tmp_path / "v.json"
    code, out, err = run(capsys, "verify", "--hf-config", str(path), "--task",
                         "nlp_transformer", "--mode", "train", "--batch", "2", "--seq-len",
                         "32", "--precision", "fp32", "--device", "cpu", "--json",
                         str(out_json))
    assert code == 0, err
    assert "Model source: transformers GPT2LMHeadModel" in out
    doc = json.loads(out_json.read_text())
    assert doc["source"] == {"kind": "transformers", "label": "transformers GPT2LMHeadModel",
                             "fallback": None}
    # The plan is of the same config: 2 layers, hidden 64 (the planner's own reading).
    assert doc["verified"]["layers"] == 2 and doc["verified"]["hidden"] == 64
    weights = next(r for r in doc["rows"] if r["key"] == "weights")
    # GPT-2's tied embeddings: wte 128x64 + wpe 64x64 + 2 blocks + ln_f, as the model has them
    assert weights["measured"] == weights["predicted"]

"""Whose model verify runs (torchrig.verify.sources): the flag forms, what each is called in
the text and JSON, and the round trip the child process relies on."""

from __future__ import annotations

import pytest

from torchrig.errors import InputError
from torchrig.i18n import Msg
from torchrig.verify.sources import (
    ModelSource,
    parse_factory,
    parse_library_model,
    transformers_source,
)


def test_library_and_factory_flags_name_library_and_class_or_file_and_function():
    assert parse_library_model("torchvision:convnext_tiny").label == "torchvision convnext_tiny"
    assert parse_library_model("timm:resnet50").label == "timm resnet50"
    factory = parse_factory("models/my_net.py:build")
    assert (factory.path, factory.function) == ("models/my_net.py", "build")
    assert factory.label == "factory models/my_net.py:build"
    assert parse_factory("pkg.module:make").path == "pkg.module"
    hf = transformers_source({"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2"}, "c")
    assert hf.label == "transformers GPT2LMHeadModel"


@pytest.mark.parametrize("spec", ["keras:resnet", "torchvision:", "resnet50"])
def test_a_library_flag_that_is_not_one_is_bad_input(spec):
    with pytest.raises(InputError, match="torchvision:NAME or timm:NAME"):
        parse_library_model(spec)


@pytest.mark.parametrize("spec", ["net.py", ":build", "net.py:1st"])
def test_a_factory_flag_without_file_and_function_is_bad_input(spec):
    with pytest.raises(InputError, match="FILE.py:FUNCTION"):
        parse_factory(spec)


def test_a_config_without_architectures_or_model_type_is_bad_input():
    with pytest.raises(InputError, match="architectures"):
        transformers_source({"model_type": "gpt2"}, "cfg.json")
    with pytest.raises(InputError, match="model_type"):
        transformers_source({"architectures": ["GPT2LMHeadModel"]}, "cfg.json")


def test_the_reference_fallback_says_it_is_not_the_library_and_why():
    why = Msg("torchvision is not installed", "未安装 torchvision")
    ref = ModelSource("reference", fallback=why)
    assert "not the library you train" in ref.describe().en
    assert "torchvision is not installed" in ref.describe().en
    assert "未安装 torchvision" in ref.describe().zh


def test_round_trip_and_bad_documents():
    src = ModelSource("transformers", name="BertForSequenceClassification",
                      config={"model_type": "bert", "architectures": ["X"]},
                      fallback=Msg("a", "乙"))
    assert ModelSource.from_dict(src.to_dict()) == src
    with pytest.raises(InputError, match="kind"):
        ModelSource.from_dict({"kind": "keras"})
    with pytest.raises(InputError, match="config"):
        ModelSource.from_dict({"kind": "transformers", "config": [1]})

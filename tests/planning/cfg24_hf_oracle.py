"""The real Hugging Face model as an independent oracle: built from a config on the meta device
(no weights, no download) or tiny on the CPU, its parameters counted and its saved tensors
measured. Shared by the tests/planning/test_cfg24_*.py modules."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

CONFIGS = Path(__file__).parent / "hf_configs"


def config_dict(name: str) -> dict[str, Any]:
    return json.loads((CONFIGS / name / "config.json").read_text(encoding="utf-8"))


def transformers() -> Any:
    """transformers, importable even when the environment's torchvision does not match its
    torch: torchvision imported first the way verify imports it (docs/verify.md sec. 3)."""
    pytest.importorskip("torch")
    from torchrig.verify.library_models import torchvision_without_ops

    torchvision_without_ops()
    return pytest.importorskip("transformers")


def build(config: dict[str, Any], class_name: str, meta: bool = True, **overrides: Any) -> Any:
    """``class_name`` (e.g. "BertForSequenceClassification") built from ``config``."""
    import torch

    tf = transformers()
    data = {k: v for k, v in {**config, **overrides}.items() if not k.startswith("_")}
    cfg = tf.AutoConfig.for_model(data.pop("model_type"), **data)
    cls = getattr(tf, class_name)
    if meta:
        with torch.device("meta"):
            return cls(cfg)
    torch.manual_seed(0)
    return cls(cfg)


def count(module: Any) -> int:
    """sum(p.numel()) over distinct parameters (a tied matrix once, as model.parameters())."""
    return sum(p.numel() for p in module.parameters())

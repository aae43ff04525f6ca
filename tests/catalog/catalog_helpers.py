"""Helpers for catalog tests: a private, editable copy of the shipped resources."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from torchrig.catalog import load_catalog
from torchrig.catalog.loader import default_resources_dir

Editor = Callable[[str, Callable[[dict[str, Any]], None]], Path]


@pytest.fixture
def resources_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of resources/catalog and resources/tiers.json under tmp_path."""
    monkeypatch.delenv("TORCHRIG_RESOURCES", raising=False)
    src = default_resources_dir()
    dst = tmp_path / "resources"
    shutil.copytree(src / "catalog", dst / "catalog")
    shutil.copy(src / "tiers.json", dst / "tiers.json")
    return dst


@pytest.fixture
def edit(resources_copy: Path) -> Editor:
    """edit("catalog/gpus.json", fn) loads that JSON, lets fn mutate it, writes it back."""

    def _edit(rel: str, fn: Callable[[dict[str, Any]], None]) -> Path:
        path = resources_copy / rel
        data = json.loads(path.read_text(encoding="utf-8"))
        fn(data)
        path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        return resources_copy

    return _edit


def part(data: dict[str, Any], part_id: str) -> dict[str, Any]:
    return next(p for p in data["parts"] if p["id"] == part_id)


def price_facts(pid: str) -> list[tuple[Decimal, str, str, str]]:
    """(amount, currency, date, kind) of each catalog price of ``pid``, for price tables."""
    return [(p.amount, p.currency, p.date, p.kind) for p in load_catalog().get(pid).prices]

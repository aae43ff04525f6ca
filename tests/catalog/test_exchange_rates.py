"""The reference exchange-rate file (catalog/exchange_rates.py): the exact schema, strictly."""

from __future__ import annotations

import datetime
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from torchrig.catalog.exchange_rates import (
    age_days,
    load_exchange_rates,
    reference_rate,
    shipped_rates_path,
)
from torchrig.errors import InputError

URL = "https://www.pbc.gov.cn/zhengcehuobisi/125207/125217/125925/index.html"


def rate_entry(**changes: Any) -> dict[str, Any]:
    entry = {"base": "USD", "quote": "CNY", "rate": "7.1234", "date": "2026-11-28",
             "kind": "PBOC central parity", "source": URL,
             "note": {"en": "central parity of the day", "zh": "当日中间价"}}
    entry.update(changes)
    return entry


def write(tmp_path: Path, *rates: dict[str, Any], **top: Any) -> Path:
    doc = {"format": "torchrig-exchange-rates", "version": 1, "rates": list(rates), **top}
    path = tmp_path / "exchange_rates.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_reads_a_rate_with_its_source_and_date(tmp_path: Path) -> None:
    [rate] = load_exchange_rates(write(tmp_path, rate_entry()))
    assert rate.rate == Decimal("7.1234") and rate.date == "2026-11-28"
    assert rate.origin.en == f"PBOC central parity 2026-11-28, {URL}"
    assert "2026-11-28" in rate.origin.zh and rate.note.zh == "当日中间价"


def test_newest_rate_first(tmp_path: Path) -> None:
    rates = load_exchange_rates(write(tmp_path, rate_entry(date="2026-10-01", rate="7.2000"),
                                      rate_entry()))
    assert [r.date for r in rates] == ["2026-11-28", "2026-10-01"]


@pytest.mark.parametrize(("change", "message"), [
    ({"rate": 7.1234}, "decimal string"),
    ({"rate": "seven"}, "amount like"),
    ({"rate": "0"}, "from 0.01 to 1000"),
    ({"rate": "1e3"}, "amount like"),
    ({"date": "2026-11"}, "YYYY-MM-DD"),
    ({"date": "2026-02-30"}, "YYYY-MM-DD"),
    ({"source": "pbc.gov.cn"}, "http(s) URL"),
    ({"quote": "EUR"}, "only USD -> CNY"),
    ({"note": {"en": "only English"}}, "'en' and 'zh'"),
    ({"kind": ""}, "non-empty text"),
    ({"extra": 1}, "unknown field 'extra'"),
])
def test_a_bad_rate_entry_is_refused_with_the_field(tmp_path: Path, change: dict[str, Any],
                                                   message: str) -> None:
    with pytest.raises(InputError, match="rates\\[0\\]") as err:
        load_exchange_rates(write(tmp_path, rate_entry(**change)))
    assert message in str(err.value)


def test_a_missing_field_is_named(tmp_path: Path) -> None:
    entry = rate_entry()
    del entry["kind"]
    with pytest.raises(InputError, match="missing field 'kind'"):
        load_exchange_rates(write(tmp_path, entry))


def test_document_level_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="non-empty list"):
        load_exchange_rates(write(tmp_path))
    with pytest.raises(InputError, match="unknown field 'rate'"):
        load_exchange_rates(write(tmp_path, rate_entry(), rate={}))
    path = tmp_path / "exchange_rates.json"
    path.write_text('{"format": "torchrig.exchange-rates", "version": 1, "rates": []}')
    with pytest.raises(InputError, match="expected 'torchrig-exchange-rates'"):
        load_exchange_rates(path)
    path.write_text('{"format": "torchrig-exchange-rates", "version": 2, "rates": []}')
    with pytest.raises(InputError, match="newer than this TorchRig"):
        load_exchange_rates(path)


def test_reference_rate_is_none_without_a_file_and_the_newest_with_one(tmp_path: Path) -> None:
    assert reference_rate(tmp_path) is None
    (tmp_path / "catalog").mkdir()
    write(tmp_path / "catalog", rate_entry(date="2026-10-01"), rate_entry())
    ref = reference_rate(tmp_path)
    assert ref is not None and ref.date == "2026-11-28"
    assert shipped_rates_path(tmp_path) == tmp_path / "catalog" / "exchange_rates.json"


def test_age_in_days() -> None:
    # November has 30 days: 2026-11-28 -> 2026-12-28 is 30 days, -> 2026-12-29 is 31.
    assert age_days("2026-11-28", datetime.date(2026, 12, 28)) == 30
    assert age_days("2026-11-28", datetime.date(2026, 12, 29)) == 31
    assert age_days("2026-11", datetime.date(2026, 11, 11)) == 10  # a month counts from day 1


def test_the_catalog_loader_does_not_read_the_rate_file_as_parts(tmp_path: Path) -> None:
    import shutil

    from torchrig.catalog import clear_catalog_cache, load_catalog

    root = Path(__file__).resolve().parents[2] / "resources"
    copy = tmp_path / "resources"
    shutil.copytree(root, copy)
    write(copy / "catalog", rate_entry())
    (copy / "catalog" / "export_controls.json").write_text("{}")
    try:
        assert len(load_catalog(copy).parts) == len(load_catalog(root).parts)
    finally:
        clear_catalog_cache()

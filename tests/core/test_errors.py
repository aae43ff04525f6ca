from __future__ import annotations

import pytest

from torchrig.bench.collective.report import REPORT_FIELDS, report_from_dict
from torchrig.bench.report import BenchReport
from torchrig.catalog.fields import parse_money
from torchrig.errors import MAX_MESSAGE, InputError
from torchrig.planning.workload import Workload, default_workload


def test_huge_quoted_values_do_not_make_huge_messages():
    error = InputError("field 'x' got " + "9" * 100_000)
    assert len(str(error)) <= MAX_MESSAGE and str(error).endswith("(shortened)")
    assert str(InputError("short")) == "short"


@pytest.mark.parametrize("text", ["1_000", "١٢", "1e3", " ", "12.5.1", "NaN"])
def test_money_is_plain_ascii_digits(text):
    with pytest.raises(InputError, match="amount like"):
        parse_money(text, "price")
    assert str(parse_money("12999.00", "price")) == "12999.00"


def test_reports_refuse_unknown_top_level_fields():
    doc = BenchReport(settings={}, started="2026-01-01T00:00:00+00:00").to_dict()
    doc["resutls"] = []
    with pytest.raises(InputError, match="unknown field 'resutls'"):
        BenchReport.from_dict(doc)
    with pytest.raises(InputError, match="unknown field 'extra'"):
        report_from_dict({k: None for k in REPORT_FIELDS} | {"extra": 1}, "c.json")


def test_unknown_workload_field_with_a_line_break_stays_on_one_line():
    doc = default_workload("image_classification").to_dict()
    doc["bad\nname"] = 1
    with pytest.raises(InputError) as info:
        Workload.from_dict(doc)
    assert "\n" not in str(info.value) and "bad\\nname" in str(info.value)

"""Prices older than six months are flagged by ``torchrig check`` (the Build page's origin
cell is tested in tests/gui/test_user_journeys.py); the customer PDF is another matter."""

from __future__ import annotations

import datetime
from pathlib import Path

from torchrig.builds.build import Build, LineItem, save_build
from torchrig.builds.check_output import format_check_text
from torchrig.builds.pricing import price_build
from torchrig.catalog import load_catalog

# RTX 4090: its USD catalog price is dated 2022-09-20. To 2026-12-01: (2026 - 2022) x 12 +
# (12 - 9) = 51 months, less one because the 1st is before the 20th: 50 months.
TODAY = datetime.date(2026, 12, 1)


def test_check_text_flags_an_old_price_with_its_age() -> None:
    build = Build(name="t", currency="USD", line_items=[LineItem(part_id="nvidia-rtx-4090")])
    priced = price_build(build, load_catalog(), TODAY)
    assert "! price from 2022-09-20 is 50 months old: check the current price" in (
        format_check_text(priced, [], "en"))
    assert "价格日期 2022-09-20，已 50 个月" in format_check_text(priced, [], "zh")
    # Six months exactly is not flagged: 2022-09-20 -> 2023-03-20.
    fresh = price_build(build, load_catalog(), datetime.date(2023, 3, 20))
    assert "months old" not in format_check_text(fresh, [], "en")
    assert "months old" in format_check_text(
        price_build(build, load_catalog(), datetime.date(2023, 4, 20)), [], "en")


def test_the_cli_prints_it(tmp_path: Path, capsys) -> None:
    from torchrig.cli import main

    path = tmp_path / "b.json"
    save_build(Build(name="t", currency="USD", line_items=[LineItem(part_id="nvidia-rtx-4090")]),
               path)
    assert main(["check", str(path)]) == 0
    assert "! price from 2022-09-20 is" in capsys.readouterr().out  # run after 2023-03-20

"""A tax rate's label reads the same everywhere (CLI check, text/markdown export, PDF, .xlsx):
"10%" and "13%", never "1e+1%" or "13.00%" (reported by the builds mutation round)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from torchrig.builds.build import Build, LineItem, save_build
from torchrig.cli import main
from torchrig.units import fmt_percent_number


@pytest.mark.parametrize(("percent", "text"), [
    (Decimal("13"), "13"), (Decimal("13.00"), "13"), (Decimal("10"), "10"),
    (Decimal("0.10") * 100, "10"), (Decimal("6.5"), "6.5"), (Decimal("100"), "100"),
])
def test_the_number_is_written_plainly(percent, text):
    assert fmt_percent_number(percent) == text


def test_a_ten_percent_tax_prints_as_ten_in_check_and_exports(tmp_path: Path, capsys):
    path = tmp_path / "b.json"
    save_build(Build(name="b", currency="CNY", tax_rate=Decimal("0.10"),
                     line_items=[LineItem(part_id="nvidia-rtx-4090d")]), path)
    assert main(["check", str(path)]) == 0
    assert "(10%)" in capsys.readouterr().out
    for fmt in ("text", "md"):
        assert main(["export", str(path), "-o", "-", "--format", fmt]) == 0
        out = capsys.readouterr().out
        assert "10%" in out and "1e+1" not in out, fmt

"""CNY prices and the reference exchange rate (docs/hardware-sources.md sec. 4 and 8).

The expected values are the figures the cited pages give, written out here.
"""

from __future__ import annotations

import datetime
import json
import re
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest

from torchrig.catalog.loader import default_resources_dir, load_catalog

ROOT = Path(__file__).resolve().parents[2]
RATES = default_resources_dir() / "catalog" / "exchange_rates.json"


def _rates() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(RATES.read_text(encoding="utf-8"))
    return data


def test_exchange_rate_file_has_exactly_the_agreed_shape() -> None:
    doc = _rates()
    assert set(doc) == {"format", "version", "rates"}
    assert (doc["format"], doc["version"]) == ("torchrig-exchange-rates", 1)
    assert doc["rates"]
    for rate in doc["rates"]:
        assert set(rate) == {"base", "quote", "rate", "date", "kind", "source", "note"}
        assert (rate["base"], rate["quote"], rate["kind"]) == ("USD", "CNY", "PBOC central parity")
        assert re.fullmatch(r"\d+\.\d{4}", rate["rate"]), rate["rate"]  # four decimals, as fixed
        datetime.date.fromisoformat(rate["date"])
        assert rate["source"].startswith("https://")
        assert set(rate["note"]) == {"en", "zh"} and all(rate["note"].values())


def test_reference_rate_is_the_sourced_fixing() -> None:
    # devdiscourse.com, 2026-01-23 ("China's Yuan Strengthens Above Key Level"): "The People's
    # Bank of China (PBOC) set the midpoint rate at 6.9929 per dollar, marking the strongest
    # level since May 17, 2023"; todaymarkets.ae: "The PBoC fixed the yuan at 6.9929 per
    # dollar". No dated fixing nearer 2026-12-01 was found in the stored sources.
    (rate,) = _rates()["rates"]
    assert (Decimal(rate["rate"]), rate["date"]) == (Decimal("6.9929"), "2026-01-23")
    assert rate["source"] == ("https://www.devdiscourse.com/article/headlines/"
                              "3779790-chinas-yuan-strengthens-above-key-level")
    assert "6.9929" in rate["note"]["en"] and "6.9929" in rate["note"]["zh"]


def test_every_cny_price_cites_a_page_and_a_day() -> None:
    catalog = load_catalog()
    seen = 0
    for part in catalog.parts.values():
        for price in part.prices:
            if price.currency != "CNY":
                continue
            seen += 1
            assert urlparse(price.source.split()[0]).scheme in {"http", "https"}, part.id
            assert re.fullmatch(r"\d{4}-\d{2}(-\d{2})?", price.date), part.id
            assert price.kind in {"retail", "launch-msrp"}, part.id
    assert seen >= 8


# JD.com listings with the price and day Pyrad/pyradnotes (source/Notes/BuildYourOwnComputer.md)
# recorded for each: id: (CNY, day, JD item number).
JD_PRICES = {
    "intel-core-i5-12400f": ("1189", "2023-08-30", "100031035610"),
    "intel-core-i5-13400f": ("1489", "2023-08-30", "100049450275"),
    "intel-core-i5-13400": ("1749", "2023-08-30", "100049450205"),
    "intel-core-i5-13600k": ("2349", "2023-08-30", "100040185485"),
    "amd-ryzen-7-7800x3d": ("2999", "2023-08-28", "100046394400"),
    "amd-ryzen-7-7700x": ("1999", "2023-08-28", "100039537657"),
    "amd-ryzen-5-7600x": ("1449", "2023-08-25", "100039537655"),
    "amd-ryzen-5-7600": ("1399", "2023-08-25", "100051589597"),
    "amd-ryzen-5-5600g": ("839", "2023-08-25", "100012989127"),
    "amd-ryzen-7-5700g": ("1149", "2023-08-25", "100012989117"),
}


def _cny(pid: str) -> list[Any]:
    return [p for p in load_catalog().get(pid).prices if p.currency == "CNY"]


@pytest.mark.parametrize("pid", sorted(JD_PRICES))
def test_jd_listing_prices(pid: str) -> None:
    amount, day, item = JD_PRICES[pid]
    (price,) = _cny(pid)
    assert (price.amount, price.date, price.kind) == (Decimal(amount), day, "retail")
    assert price.source == f"https://item.jd.com/{item}.html"
    assert price.reliability == "low"  # a third party's record of the listing, not JD itself


def test_china_market_gpu_prices() -> None:
    # svethardware.cz / guru3d: NVIDIA's China price for the RTX 4090 D, RMB 12,999 (Dec 2023).
    (price,) = _cny("nvidia-rtx-4090d")
    assert (price.amount, price.date, price.kind) == (Decimal("12999"), "2023-12", "launch-msrp")
    # xbdblog.top / news.43u.com.cn: RTX 5060 on sale 2025-05-20 at CNY 2,499.
    (price,) = _cny("nvidia-rtx-5060")
    assert (price.amount, price.date, price.kind) == (Decimal("2499"), "2025-05-20", "launch-msrp")


def test_parts_of_the_cny_sample_builds_without_a_cny_price_are_known() -> None:
    # The gap is listed in docs/hardware-sources.md sec. 4; a part that gains a CNY price leaves
    # this set, a new build part without one joins it.
    catalog = load_catalog()
    ids: set[str] = set()
    for path in sorted((ROOT / "builds").glob("*.json")):
        build = json.loads(path.read_text(encoding="utf-8"))
        if build["currency"] == "CNY":
            ids |= {li["part_id"] for li in build["line_items"] if "part_id" in li}
    priced = {pid for pid in ids
              if any(p.currency == "CNY" for p in catalog.get(pid).prices)}
    # professional.json quotes the China-market RTX 4090 D (NVIDIA China's 12,999) since the
    # RTX 4090 left it (out of production, export-controlled). The Samsung 990 PRO 1TB/2TB
    # carry the 2023-01 domestic prices of 快科技's report (test_cny_prices_cny25.py).
    assert priced == {"intel-core-i5-12400f", "nvidia-rtx-3060-12gb", "nvidia-rtx-4090d",
                      "samsung-990-pro-1tb", "samsung-990-pro-2tb"}

"""Mainland CNY prices added for issue 25 by the cny25 pass (docs/hardware-sources.md sec. 4).

Each expected amount is the figure the cited page states, with its words quoted beside it; the
test does not read the amount from the catalog to build the expectation.
"""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from torchrig.catalog.loader import load_catalog

# The dated price table of a 2025-05-15 build post that cites each China price with the title
# and URL of its mainland report; the reports themselves are not in the stored corpora.
RECORD = ("YuanpingSong/yuanpingsong.github.io:"
          "_posts/2025-05-15-katago-workstation-build-and-bench-zh.md")
KUAIKEJI = "https://www.itiger.com/news/2305576169"

# id: (CNY, date, kind, reliability, source URL, words of the page the note must quote)
CNY25 = {
    # 快科技 2023-01-24 (reposted by itiger.com): "国内主要提供1TB、2TB两种配置，售价分别为1099元
    # 和2299元"
    "samsung-990-pro-1tb": ("1099", "2023-01-24", "retail", "low", KUAIKEJI,
                            "售价分别为1099元和2299元"),
    "samsung-990-pro-2tb": ("2299", "2023-01-24", "retail", "low", KUAIKEJI,
                            "售价分别为1099元和2299元"),
    # IT之家 (as cited in RECORD): "16499 元起，英伟达RTX 5090 D 旗舰显卡国行定价公布"
    "nvidia-rtx-5090d": ("16499", "2025-01", "launch-msrp", "low",
                         "https://www.ithome.com/0/822/842.htm", "16499 元起"),
    # Sina Finance 2025-01-07 (as cited in RECORD):
    # "RTX 5090显卡国内售价超16000元！还有5080 8299起！"
    "nvidia-rtx-5080": ("8299", "2025-01-07", "launch-msrp", "low",
                        "https://finance.sina.com.cn/tech/roll/2025-01-07/"
                        "doc-ineecrxc4892622.shtml",
                        "还有5080 8299起"),
    # Sina Finance 2025-02-19 (as cited in RECORD): "6299元起！国行版RTX 5070 Ti显卡价格公布"
    "nvidia-rtx-5070-ti": ("6299", "2025-02-19", "launch-msrp", "low",
                           "https://finance.sina.com.cn/tech/roll/2025-02-19/"
                           "doc-inekytki4990871.shtml",
                           "6299元起"),
}


@pytest.mark.parametrize("pid", sorted(CNY25))
def test_cny25_price_is_the_figure_the_page_states(pid: str) -> None:
    amount, date, kind, reliability, source, words = CNY25[pid]
    (price,) = [p for p in load_catalog().get(pid).prices if p.currency == "CNY"]
    assert (price.amount, price.date, price.kind, price.reliability) == (
        Decimal(amount), date, kind, reliability)
    assert price.source == source
    # The note quotes the page's words and, for a second-hand citation, names the record.
    assert price.note is not None and words in price.note
    if source != KUAIKEJI:
        assert RECORD in price.note


def test_sina_days_are_the_days_in_their_urls() -> None:
    # A Sina Finance URL carries its publication day (/tech/roll/YYYY-MM-DD/); the catalog date
    # of those two prices is that day, not a later one.
    for pid in ("nvidia-rtx-5080", "nvidia-rtx-5070-ti"):
        (price,) = [p for p in load_catalog().get(pid).prices if p.currency == "CNY"]
        day = re.search(r"/roll/(\d{4}-\d{2}-\d{2})/", price.source)
        assert day is not None and day.group(1) == price.date, pid


def test_partner_boards_are_not_claimed_for_reference_prices() -> None:
    # NVIDIA's "起" (from) price is the reference card's; the GPU notes say partner boards differ.
    for pid in ("nvidia-rtx-5090d", "nvidia-rtx-5080", "nvidia-rtx-5070-ti"):
        (price,) = [p for p in load_catalog().get(pid).prices if p.currency == "CNY"]
        assert price.note is not None and "partner boards differ" in price.note, pid


def test_cny_priced_part_count() -> None:
    # 24 parts had a CNY price before cny25; these five add to them (60 were asked for; what
    # was searched and not found is in docs/hardware-sources.md sec. 4).
    catalog = load_catalog()
    cny = {p.id for p in catalog.parts.values() if any(x.currency == "CNY" for x in p.prices)}
    assert set(CNY25) <= cny
    assert len(cny) >= 29

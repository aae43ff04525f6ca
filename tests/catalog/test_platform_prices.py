"""Prices found for the platform parts that asked for one, and the list of parts still asking.

Each entry below was read from the source its catalog record names; the test pins the figure,
so a later edit of the catalog cannot change a price without changing this table too.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from torchrig.catalog import load_catalog

PCPP = "PCPP-DS data/csv/"
TURIN_1KU = "https://www.storagereview.com/fr/review/amd-epyc-turin-review-192-cores-of-zen-5"
TR_PRO_9000 = "RajanSandha/auto_blog:_posts/2025-07-17-amds-beastly-96-core-threadripper-pro"
PCPP_2024_05 = "PCPP-DS-2024 "  # the 2024-05-14 PCPartPicker scrape, then the category file

# id: (amount, currency, date, kind, reliability, start of the source).
PLATFORM_PRICES = {
    "amd-epyc-9575f": ("11791", "USD", "2024-10-10", "launch-msrp", "medium", TURIN_1KU),
    "amd-epyc-9555": ("9826", "USD", "2024-10-10", "launch-msrp", "medium", TURIN_1KU),
    "amd-epyc-9655": ("11852", "USD", "2024-10-10", "launch-msrp", "medium", TURIN_1KU),
    "amd-ryzen-9-9900x": ("359", "USD", "2025-07-23", "retail", "high", PCPP + "cpu.csv"),
    "amd-ryzen-7-9700x": ("305.89", "USD", "2025-07-23", "retail", "high", PCPP + "cpu.csv"),
    "intel-core-ultra-7-265k": ("269.99", "USD", "2025-07-23", "retail", "high",
                                PCPP + "cpu.csv"),
    "amd-ryzen-threadripper-7960x": ("1499", "USD", "2023-10", "launch-msrp", "medium",
                                     "https://www.tomshardware.com/"),
    "amd-ryzen-threadripper-pro-9985wx": ("7999", "USD", "2025-07", "launch-msrp", "medium",
                                          TR_PRO_9000),
    "amd-ryzen-threadripper-pro-9995wx": ("11699", "USD", "2025-07", "launch-msrp", "medium",
                                          TR_PRO_9000),
    "asus-rog-strix-x870e-e-gaming-wifi": ("478.01", "USD", "2025-07-23", "retail", "high",
                                           PCPP + "motherboard.csv"),
    "gigabyte-z890-aorus-master": ("484.01", "USD", "2025-07-23", "retail", "high",
                                   PCPP + "motherboard.csv"),
    "amd-radeon-pro-w7900": ("3640", "USD", "2025-07-23", "retail", "high",
                             PCPP + "video-card.csv"),
    "deepcool-ak620": ("54.99", "USD", "2024-05-14", "retail", "medium", PCPP_2024_05),
    "deepcool-ls720-se": ("92.18", "USD", "2024-05-14", "retail", "medium", PCPP_2024_05),
}

# Parts with no sourced price yet: they stay in the catalog and the quote asks for a price.
# Keep this set exact: a part that gains a price leaves it, a new unpriced part joins it.
UNPRICED = {
    # CPUs
    "amd-ryzen-threadripper-7980x", "amd-ryzen-threadripper-9970x",
    "amd-ryzen-threadripper-9980x", "intel-xeon-w9-3595x", "intel-xeon-platinum-8570",
    "intel-xeon-w5-2455x", "intel-xeon-6972p",
    # Boards and systems (NVIDIA sells the DGX B200 only whole; its sample quotes the system)
    "asus-pro-ws-trx50-sage-wifi", "asrock-rack-4u8g-turin2", "nvidia-dgx-b200",
    "asus-pro-ws-wrx90e-sage-se", "asus-pro-ws-w790e-sage-se", "asrock-rack-genoad12m3-2q-h",
    # GPUs
    "nvidia-l4", "nvidia-a100-40gb-pcie", "nvidia-h100-pcie", "nvidia-jetson-agx-orin-64gb",
    "nvidia-rtx-pro-5000-blackwell", "nvidia-h100-nvl", "nvidia-h200-nvl",
    "amd-instinct-mi325x",
    # China-market GPUs without a usable price source (docs/hardware-sources.md sec. 4); the
    # RTX 5090 D has NVIDIA China's CNY 16,499 since cny25 (test_cny_prices_cny25.py)
    "nvidia-rtx-5090d-v2", "nvidia-h20", "nvidia-l20", "nvidia-l2",
    # Memory
    "corsair-vengeance-lpx-32gb-ddr4-3200-cmk32gx4m2z3200c16w",
    "samsung-32gb-ddr5-5600-rdimm-m321r4ga0pb0-cwm",
    "samsung-96gb-ddr5-5600-rdimm-m321ryga0pb0-cwm",
    # Network
    "nvidia-mellanox-connectx-6-hdr-mcx653106a-hdat", "intel-e810-cqda2", "intel-x520-da2",
    "nvidia-connectx-7-25gbe-sfp56", "nvidia-nvlink-bridge-2way-ga102",
    "nvidia-nvlink-bridge-a100-pcie", "nvidia-bluefield-3-b3220", "nvidia-bluefield-3-b3240",
    # Storage
    "samsung-pm9d3a-7-68tb-mzwl67t6hblc", "samsung-pm9a3-7-68tb-e1s",
    # Power supplies
    "nfortec-sagitta-x2-1000w", "seasonic-prime-px-2200",
    # Cases
    "nfortec-krater-x", "nfortec-caelum",
    # CPU coolers
    "arctic-liquid-freezer-ws360-sp5",
    "arctic-liquid-freezer-ws360-sp6", "arctic-liquid-freezer-ws360-4710",
}
# China-sold parts (issue 25) whose sources give no dated price; the quote asks for one.
UNPRICED |= {
    "msi-pro-b760m-a-wifi",
    "kingbank-sharpblade-32gb-ddr5-6800-cl34",
    "kingston-fury-beast-32gb-ddr5-6000-kf560c36bbek2-32",
    "zhitai-tipro7000-1tb", "zhitai-tipro7000-2tb", "zhitai-tipro9000-2tb", "samsung-990-evo-2tb",
    "lian-li-o11-dynamic-evo", "jonsbo-d41-mesh",
    "thermalright-assassin-x-120-v2", "deepcool-ak400", "deepcool-ag400", "deepcool-lt720",
}


@pytest.mark.parametrize("pid", sorted(PLATFORM_PRICES))
def test_platform_price(pid: str) -> None:
    amount, currency, date, kind, reliability, source = PLATFORM_PRICES[pid]
    prices = load_catalog().get(pid).prices
    assert [(p.amount, p.currency, p.date, p.kind, p.reliability) for p in prices] == [
        (Decimal(amount), currency, date, kind, reliability)]
    assert prices[0].source.startswith(source)
    # The note says what the figure is (a 1KU tray price, a shop's lowest listing...).
    assert prices[0].note


def test_unpriced_parts_are_listed_exactly() -> None:
    catalog = load_catalog()
    unpriced = {pid for pid, part in catalog.parts.items() if not part.prices}
    assert unpriced == UNPRICED


def test_no_part_is_both_priced_here_and_listed_unpriced() -> None:
    assert not set(PLATFORM_PRICES) & UNPRICED
    catalog = load_catalog()
    assert all(pid in catalog.parts for pid in UNPRICED | set(PLATFORM_PRICES))

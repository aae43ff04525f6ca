"""A price's source in one language (builds/source_text.py), as mutation testing
(scripts/mutate.py builds.source_text) found it unpinned: each label TorchRig writes, in both
languages; the "estimate (sheet): ..." form in Chinese, and without its "):" ; the Build page's
mark in either language and with spaces; a bilingual tier source; text that only contains a
label, or none.
"""

from __future__ import annotations

import pytest

from torchrig.builds.source_text import EDITED_HERE, LABELS, is_edited_here, source_text


@pytest.mark.parametrize(("text", "en", "zh"), [
    ("estimate: PCPartPicker", "estimate: PCPartPicker", "估算：PCPartPicker"),
    ("reported figure: Tom's", "reported figure: Tom's", "公开报道数字：Tom's"),
    ("catalog JD.com 2025-06", "catalog JD.com 2025-06", "目录 JD.com 2025-06"),
    ("estimate (Aug 2024 sheet): vendor", "estimate (Aug 2024 sheet): vendor",
     "估算（Aug 2024 sheet）：vendor"),
    # The "):" splits once, and the space after it goes.
    ("estimate (a): b): c", "estimate (a): b): c", "估算（a）：b): c"),
    # No "):": the prefix alone is translated, the rest stays.
    ("estimate (rough", "estimate (rough", "估算（rough"),
    # Only at the start.
    ("from the catalog ", "from the catalog", "from the catalog"),
    ("  Supplier A  ", "Supplier A", "Supplier A"),
    ("", "", ""),
])
def test_each_label_in_each_language(text: str, en: str, zh: str) -> None:
    assert source_text(text, "en") == en
    assert source_text(text, "zh") == zh


def test_the_build_pages_mark_in_either_language() -> None:
    for text in ("edited in TorchRig", " 在 TorchRig 中修改 ", "在 TorchRig 中修改"):
        assert is_edited_here(text)
        assert source_text(text, "en") == "edited in TorchRig"
        assert source_text(text, "zh") == "在 TorchRig 中修改"
    assert not is_edited_here("edited in TorchRig by Ann")
    assert source_text("edited in TorchRig by Ann", "zh") == "edited in TorchRig by Ann"
    assert EDITED_HERE.en == "edited in TorchRig" and EDITED_HERE.zh == "在 TorchRig 中修改"


def test_a_tier_source_in_two_languages() -> None:
    # i18n.one_language: "English / Chinese" shows the reader's half.
    text = "included in the platform / 已含于平台"
    assert source_text(text, "en") == "included in the platform"
    assert source_text(text, "zh") == "已含于平台"


def test_the_label_table() -> None:
    assert [(p.en, s.en, s.zh) for p, s in LABELS] == [
        ("estimate: ", "estimate: ", "估算："), ("estimate (", "estimate (", "估算（"),
        ("reported figure: ", "reported figure: ", "公开报道数字："),
        ("catalog ", "catalog ", "目录 ")]

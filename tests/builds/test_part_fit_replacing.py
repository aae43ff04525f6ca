"""A candidate in one line's place (builds/part_fit.py ``replacing``), as the Build page's
"Replace part…" asks it."""

from __future__ import annotations

from decimal import Decimal

from torchrig.builds.build import Build, LineItem
from torchrig.builds.build_editor import BuildEditor
from torchrig.builds.part_fit import compatible_parts, with_candidate
from torchrig.catalog import load_catalog


def _build() -> Build:
    return Build(name="t", currency="USD", line_items=[
        LineItem(part_id="intel-core-i9-13900k"),
        LineItem(part_id="nvidia-rtx-4090", quantity=2, unit_price=Decimal("1999"),
                 currency="USD", price_source="supplier", price_date="2026-11-20"),
        LineItem(part_id="nvidia-rtx-3090", quantity=1),
        LineItem(part_id="asus-rog-maximus-z790-formula"),
        LineItem(part_id="corsair-rm1000x", quantity=2)])


def test_the_line_keeps_its_place_quantity_and_scope_not_its_price() -> None:
    cat = load_catalog()
    out = with_candidate(_build(), cat.get("nvidia-rtx-5090"), cat, replacing=1)
    assert [(i.part_id, i.quantity) for i in out.line_items] == [
        ("intel-core-i9-13900k", 1), ("nvidia-rtx-5090", 2), ("nvidia-rtx-3090", 1),
        ("asus-rog-maximus-z790-formula", 1), ("corsair-rm1000x", 2)]
    assert out.line_items[1].unit_price is None  # the typed price was for the RTX 4090
    # Without ``replacing`` a GPU replaces every GPU line, in their total number (3).
    every = with_candidate(_build(), cat.get("nvidia-rtx-5090"), cat)
    assert [(i.part_id, i.quantity) for i in every.line_items if "nvidia" in (i.part_id or "")
            ] == [("nvidia-rtx-5090", 3)]


def test_compatible_in_that_lines_place() -> None:
    cat = load_catalog()
    gpus = cat.by_category("gpu")
    ok = compatible_parts(gpus, _build(), cat, replacing=2)
    assert "nvidia-rtx-4090" in ok and "nvidia-h100-sxm" not in ok  # SXM needs an HGX board


def test_the_editor_replaces_through_the_same_function() -> None:
    cat = load_catalog()
    editor = BuildEditor(cat, _build())
    out = editor.with_replacement(2, "nvidia-rtx-4080-super")
    assert out == with_candidate(_build(), cat.get("nvidia-rtx-4080-super"), cat, replacing=2)

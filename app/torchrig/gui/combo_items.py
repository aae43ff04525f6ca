"""Greying out the items of a combo box the current input does not allow, so a list offers
only what its checker accepts (the Wizard's precisions: planning.wizard_model.precisions_for).
A greyed item stays in the list, in its place, so the user sees it exists and not that it was
forgotten."""

from __future__ import annotations

from collections.abc import Collection

from torchrig.gui.qt import QComboBox


def enable_items(combo: QComboBox, allowed: Collection[object]) -> None:
    """Enable the items whose data is in ``allowed``, disable the others."""
    items = combo.model()  # a QStandardItemModel, as QComboBox makes by default
    for i in range(combo.count()):
        items.item(i).setEnabled(combo.itemData(i) in allowed)  # type: ignore[attr-defined]

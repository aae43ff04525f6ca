"""The Build page's editing without widgets (the page in ``gui/pages/build_page.py`` is widgets
bound to a :class:`BuildEditor`).

The editor holds the build being edited, the file it belongs to and whether it has unsaved
edits, and it makes every edit: a part added, a custom line, lines removed, a quantity or unit
price typed into the table, the quote's header fields. An edit is a new :class:`Build` (builds
are edited by copy); an edit the build file could not hold is refused with the loader's own
message (:func:`validate_build` decides, so nothing is accepted that would not open again).
The editor also keeps the priced build and its findings for the current state, and the crash
recovery copy of unsaved edits (the page's timer decides *when* it is written).

Undo stays with the page (a QUndoStack of before/after builds); the editor only learns, through
:meth:`BuildEditor.reached_clean_state`, that the history is back where it was saved.

Words the user reads are the page's (it translates them with Qt) and come in as
:class:`EditorWords`; the English defaults are the source texts.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from dataclasses import dataclass, replace
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

from torchrig.builds.build import (
    Build,
    Discount,
    ExchangeRate,
    LineItem,
    Scope,
    build_from_tier,
    save_build,
    validate_build,
)
from torchrig.builds.compat import check_build
from torchrig.builds.part_fit import with_candidate
from torchrig.builds.pricelist import load_price_list
from torchrig.builds.pricing import DefaultRate, PricedBuild, price_build
from torchrig.builds.recovery import (
    Recovered,
    clear_recovery,
    find_recoveries,
    new_recovery_path,
    save_recovery,
)
from torchrig.catalog.model import Catalog
from torchrig.catalog.money_text import parse_amount_text
from torchrig.errors import InputError
from torchrig.findings import Finding

MAX_QUANTITY = 10_000
PRICE_PREFIXES = ("CNY", "USD", "¥", "$", "￥")
"""Currency marks a typed price may start with (they are dropped; the build has one currency)."""
HEADER_FIELDS = ("name", "customer", "project", "nodes", "currency", "rate", "rate_date", "tax",
                 "discount")
"""The header fields a :class:`HeaderError` may name."""
Column = Literal["quantity", "unit_price"]
DiscountKind = Literal["amount", "percent"]


@dataclass(frozen=True)
class EditorWords:
    """Texts the editor puts into builds and messages, in the user's language."""

    new_build: str = "New build"
    untitled: str = "Untitled build"
    unit_price: str = "Unit price"
    """The field a refused price is named by (in the price parser's message)."""
    edited_here: str = "edited in TorchRig"
    """The price source of a price typed into the table."""
    bad_quantity: str = "Quantity must be a whole number from 1 to 10,000."
    no_description: str = "A custom line needs a description."


@dataclass(frozen=True)
class NewBuildDefaults:
    """What a new build starts with, from the Settings: its currency and a default exchange
    rate (0: none) with the day it was taken."""

    currency: str = "CNY"
    exchange_rate: float = 0.0
    exchange_rate_date: str = ""


@dataclass(frozen=True)
class HeaderValues:
    """The quote's header fields as the page's widgets hold them: the rate, tax and discount as
    the spin boxes show them (0 for none; tax in percent)."""

    name: str
    customer: str
    project: str
    nodes: int
    currency: str
    rate: float
    rate_date: str
    tax_percent: float
    discount: float
    discount_kind: DiscountKind = "percent"


class HeaderError(InputError):
    """A header edit the build file could not hold: the loader's message, and the field that
    caused it (one of :data:`HEADER_FIELDS`)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def new_build(defaults: NewBuildDefaults, name: str) -> Build:
    """An empty build with the Settings' currency and exchange rate."""
    rate = None
    if defaults.exchange_rate > 0:
        rate = ExchangeRate(Decimal(str(round(defaults.exchange_rate, 4))),
                            defaults.exchange_rate_date)
    build = Build(name=name, currency=defaults.currency, exchange_rate=rate)
    try:
        return validate_build(build)
    except InputError:
        # A default rate a build file cannot hold (settings from before the Settings dialog
        # required a date): start without it rather than with a file that won't open again.
        return replace(build, exchange_rate=None)


def parse_price(text: str, field: str = "Unit price") -> Decimal | None:
    """A typed unit price: None for empty (use the catalog's), else the amount as every file
    reads money (catalog/money_text.py: plain or comma-grouped, never a decimal comma), with
    its message naming ``field``. A leading currency mark is dropped."""
    text = text.strip()
    for prefix in PRICE_PREFIXES:
        text = text.removeprefix(prefix).strip()
    if not text:
        return None
    return parse_amount_text(text, field)


class BuildEditor:
    """One build being edited.

    Attributes:
        build: the build as it is now; path: its file (None until saved, or when it was read
            from a PDF sheet, which Save must not overwrite); dirty: it has unsaved edits.
        clean_state_is_saved: the undo history's clean point is the saved file (False for a
            build started from a tier or recovered: undoing back to it leaves it unsaved).
        priced / findings: the priced build and the compatibility findings for ``build``.
        recovery_file: this editor's own copy of unsaved edits (builds/recovery.py).
        region / default_rate: where the build is plugged in (the wall-circuit check) and the
            rate for a build without one; set by :meth:`set_context`.
    """

    def __init__(self, catalog: Catalog, build: Build, words: EditorWords | None = None,
                 recovery_file: Path | None = None) -> None:
        self.catalog = catalog
        self.words = words or EditorWords()
        self.path: Path | None = None
        self.dirty = False
        self.clean_state_is_saved = True
        self.recovery_file = recovery_file or new_recovery_path()
        self.build = build
        self.region: str | None = None
        self.default_rate: DefaultRate | None = None
        self.priced: PricedBuild = price_build(build, catalog)
        self.findings: list[Finding] = check_build(build, catalog)

    def set_context(self, region: str | None, default_rate: DefaultRate | None) -> None:
        """The region and default rate the build is checked and priced with (Settings)."""
        self.region, self.default_rate = region, default_rate
        self._evaluate()

    def _evaluate(self) -> None:
        self.priced = price_build(self.build, self.catalog, default_rate=self.default_rate)
        self.findings = check_build(self.build, self.catalog, region=self.region)

    # --- the document -------------------------------------------------------------------------

    def set_build(self, build: Build, *, dirty: bool = True) -> None:
        """Make ``build`` the current state (an edit, an undo or redo, or a new document). A
        clean build has no recovery copy."""
        self.build = build
        self.dirty = dirty
        self._evaluate()
        if not dirty:
            clear_recovery(self.recovery_file)

    def begin_document(self, saved: bool) -> None:
        """A build that replaces the document comes next (opened, new, from a tier, recovered,
        restored); ``saved``: it is what its file holds."""
        self.clean_state_is_saved = saved

    def blank(self, defaults: NewBuildDefaults) -> Build:
        """A new, empty build (named in the user's language)."""
        return new_build(defaults, self.words.new_build)

    def from_tier(self, tier_id: str) -> Build:
        """A tier's starter build."""
        return build_from_tier(tier_id, self.catalog)

    def opened(self, path: Path) -> bool:
        """The build was read from ``path``: it becomes the file, unless it is a PDF sheet the
        build came attached to (Save must not write JSON over it). True: the build is what the
        file holds (saved)."""
        if path.suffix.lower() == ".pdf":
            self.path = None
            return False
        self.path = path
        return True

    def reached_clean_state(self) -> bool:
        """The undo history is back at its clean point. If that is the saved file the build
        is clean again and its recovery copy goes; True when that happened."""
        if not (self.clean_state_is_saved and self.dirty):
            return False
        self.dirty = False
        clear_recovery(self.recovery_file)
        return True

    def save(self, path: Path) -> None:
        """Write the build to ``path`` (raises InputError or OSError): it is the file now, and
        clean."""
        save_build(self.build, path)
        self.path = path
        self.dirty = False
        self.clean_state_is_saved = True
        clear_recovery(self.recovery_file)

    def discard(self) -> None:
        """The user threw the unsaved edits away: no recovery copy of them."""
        clear_recovery(self.recovery_file)

    def snapshot(self) -> dict[str, Any]:
        return {"build": self.build, "path": self.path, "dirty": self.dirty}

    def restore(self, state: dict[str, Any]) -> None:
        """Take back a :meth:`snapshot` as the document (unsaved edits stay unsaved, and keep
        a recovery copy; saved ones have none)."""
        self.path = state["path"]
        self.begin_document(not state["dirty"])
        self.set_build(state["build"], dirty=state["dirty"])

    # --- crash recovery -----------------------------------------------------------------------

    def autosave(self) -> None:
        """Copy unsaved edits to this editor's recovery file (nothing when clean)."""
        if self.dirty:
            save_recovery(self.recovery_file, self.build, self.path)

    def recoveries(self) -> list[Recovered]:
        """Builds left by editors that did not close cleanly, oldest first."""
        return find_recoveries()

    def decline(self, found: Recovered) -> None:
        """The user does not want a recovered build back: its copy goes."""
        clear_recovery(found.path)

    def take_recovery(self, found: Recovered) -> Build:
        """Take over a recovered build: it belongs to its original file again. Show it as an
        unsaved document, then call :meth:`took_recovery`."""
        assert found.build is not None
        self.path = found.original
        return found.build

    def took_recovery(self, found: Recovered) -> None:
        """The recovered build is this editor's: copied to its own recovery file first, and
        only then is the old copy removed (a damaged one is kept where it was moved)."""
        self.autosave()
        if not found.damaged:
            clear_recovery(found.path)

    # --- edits: each returns the edited build, or raises InputError with the reason -------------

    def check(self, build: Build) -> Build:
        """``build`` if the build file can hold it; else the loader's InputError."""
        return validate_build(build)

    def with_part(self, part_id: str, quantity: int = 1) -> Build:
        """A catalog part added: one more of a part already listed, else a new line."""
        lines = list(self.build.line_items)
        for i, item in enumerate(lines):
            if item.part_id == part_id:
                lines[i] = replace(item, quantity=item.quantity + quantity)
                break
        else:
            lines.append(LineItem(part_id=part_id, quantity=quantity))
        return replace(self.build, line_items=lines)

    def with_replacement(self, row: int, part_id: str) -> Build:
        """Line ``row``'s part replaced by ``part_id``, keeping its quantity and scope (the
        picker's "fits this build" question asks the same: part_fit.with_candidate); whether
        the file can hold it is :meth:`check`'s to say."""
        return with_candidate(self.build, self.catalog.get(part_id), self.catalog, replacing=row)

    def without_lines(self, rows: Iterable[int]) -> Build:
        lines = list(self.build.line_items)
        for r in sorted(set(rows), reverse=True):
            del lines[r]
        return replace(self.build, line_items=lines)

    def parse_price(self, text: str) -> Decimal | None:
        return parse_price(text, self.words.unit_price)

    def with_custom_line(self, text: str, category: str, quantity: int, price_text: str,
                         scope: Scope) -> Build:
        """A custom line (free text) appended; empty price text leaves it needing a price.
        Raises InputError for no description or a price that does not parse; whether the file
        can hold the line is :meth:`check`'s to say."""
        text = text.strip()
        if not text:
            raise InputError(self.words.no_description)
        price = self.parse_price(price_text)
        item = LineItem(text=text, category=category, quantity=quantity, unit_price=price,
                        currency=self.build.currency if price is not None else None,
                        scope=scope)
        return replace(self.build, line_items=[*self.build.line_items, item])

    def with_cell(self, row: int, column: Column, text: str,
                  today: datetime.date | None = None) -> Build:
        """Line ``row`` with its quantity or unit price as typed into the table. A typed price
        is the shop's own as of ``today`` (not the published figure it replaces); an empty one
        goes back to the catalog's. Raises InputError (the edit is refused)."""
        line = self.build.line_items[row]
        if column == "quantity":
            try:
                qty = int(text.strip())
                if not 1 <= qty <= MAX_QUANTITY:
                    raise ValueError
            except ValueError:
                raise InputError(self.words.bad_quantity) from None
            new = replace(line, quantity=qty)
        else:
            price = self.parse_price(text)
            if price is None:
                new = replace(line, unit_price=None, currency=None, price_source="",
                              price_date="", price_kind="", price_remark="")
            else:
                new = replace(line, unit_price=price, currency=self.build.currency,
                              price_source=self.words.edited_here,
                              price_date=(today or datetime.date.today()).isoformat(),
                              price_kind="", price_remark="")
        lines = list(self.build.line_items)
        lines[row] = new
        return self.check(replace(self.build, line_items=lines))

    def with_header(self, values: HeaderValues) -> Build:
        """The quote's header as the fields show it. Each field is checked alone against the
        loader first, so the message can sit next to the field that caused it; nothing is
        applied while any field is refused (raises :class:`HeaderError`)."""
        rate = None
        if values.rate > 0:
            rate = ExchangeRate(Decimal(str(round(values.rate, 4))), values.rate_date.strip())
        discount = None
        if values.discount > 0:
            discount = Discount(values.discount_kind, Decimal(str(round(values.discount, 2))))
        fields: list[tuple[str, dict[str, Any]]] = [
            ("name", {"name": values.name.strip() or self.words.untitled}),
            ("customer", {"customer": values.customer}),
            ("project", {"project": values.project}),
            ("nodes", {"nodes": values.nodes}),
            ("currency", {"currency": values.currency}),
            ("rate", {"exchange_rate": rate}),
            ("tax", {"tax_rate": Decimal(str(round(values.tax_percent, 4))) / 100}),
            ("discount", {"discount": discount}),
        ]
        for field, change in fields:
            try:
                validate_build(replace(self.build, **change))
            except InputError as exc:
                if "exchange_rate.date" in str(exc):
                    field = "rate_date"
                raise HeaderError(field, str(exc)) from None
        changes = {key: value for _field, change in fields for key, value in change.items()}
        return replace(self.build, **changes)

    def with_price_list(self, path: str | Path) -> tuple[Build, int, list[str]]:
        """A CSV price list applied to the lines: the build, how many prices were applied, and
        the list's warnings. Raises InputError when the list cannot be read."""
        prices = load_price_list(path, self.catalog)
        build, applied = prices.apply(self.build)
        return build, applied, list(prices.warnings)

"""Builds: a quote/parts list for one machine (or ``nodes`` identical machines), as a user file.

A build holds catalog parts and custom lines, with the user's own prices (overrides), currency,
exchange rate, tax and discount. The shipped catalog is never modified: a price the user types
lives on the line item. Files are versioned JSON (``"format": "torchrig.build"``), validated on
load with messages that name the field (``line_items[2].quantity``), and saved atomically.
"""

from __future__ import annotations

import hashlib
import json
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

from torchrig.catalog.fields import check_date, parse_money
from torchrig.catalog.line_price import MAX_SOURCE, PRICE_KEYS, parse_line_price
from torchrig.catalog.model import CURRENCIES, Catalog, Tier
from torchrig.catalog.specs import CATEGORIES
from torchrig.errors import InputError
from torchrig.i18n import Msg
from torchrig.jsonio import atomic_write_json, load_versioned, upgrade_document
from torchrig.records import field, mutable_record, record, replace

BUILD_FORMAT = "torchrig.build"
BUILD_VERSION = 2
"""Version 2 keeps a tier's starter note apart from the user's notes (``tier_note``); version 1
files are upgraded on load (:func:`_upgrade_v1`)."""

SERVER_PLATFORM = "server-platform"
"""A complete server platform quoted as one custom line (system board, host CPUs, chassis and
power supplies as the vendor configures them). It stands in for those categories; the checks
that need their specs are skipped and say so."""

CUSTOM_CATEGORIES: tuple[str, ...] = (
    *CATEGORIES, SERVER_PLATFORM, "cooling", "storage-system", "switch", "software",
    "service", "other",
)
"""Categories a custom line may use: the catalog's, plus things the catalog does not stock."""

MAX_LINES = 500
MAX_QUANTITY = 10_000
MAX_NODES = 10_000
MAX_HEADER_TEXT = 200
"""Longest name, customer or project."""
MAX_LINE_TEXT = 500

Scope = Literal["node", "cluster"]


@record
class ExchangeRate:
    """CNY per USD as the user set it, with the date (and optionally where it came from)."""

    cny_per_usd: Decimal
    date: str
    source: str = ""

    def to_dict(self) -> dict[str, str]:
        return {"cny_per_usd": plain_decimal(self.cny_per_usd), "date": self.date,
                "source": self.source}


@record
class Discount:
    """A discount on the subtotal: a fixed amount in the build's currency, or a percentage."""

    kind: Literal["amount", "percent"]
    value: Decimal

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "value": plain_decimal(self.value)}


@record
class LineItem:
    """A catalog part (``part_id``) or a custom line (``text`` + ``category``).

    ``unit_price``/``currency`` override the catalog price for this build; ``price_source`` and
    ``price_date`` say where an override came from (a price list, a supplier quote);
    ``price_kind`` is set when it is a published figure (a tier's sourced estimate), not the
    user's own price; ``price_remark`` is the shop's remark on that figure (internal sheet and
    ``torchrig check`` only, never the customer's quote).
    ``scope`` "node" lines are multiplied by the build's node count; "cluster" lines (a switch,
    a storage system) are bought once.
    """

    part_id: str | None = None
    quantity: int = 1
    unit_price: Decimal | None = None
    currency: str | None = None
    price_source: str = ""
    price_date: str = ""
    price_kind: str = ""
    price_remark: str = ""
    text: str = ""
    category: str = ""
    scope: Scope = "node"
    note: str = ""

    @property
    def is_custom(self) -> bool:
        return self.part_id is None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.part_id is not None:
            out["part_id"] = self.part_id
        else:
            out["text"] = self.text
            out["category"] = self.category
        out["quantity"] = self.quantity
        if self.unit_price is not None:
            out["unit_price"] = plain_decimal(self.unit_price)
            out["currency"] = self.currency
            if self.price_source:
                out["price_source"] = self.price_source
            if self.price_date:
                out["price_date"] = self.price_date
            if self.price_kind:
                out["price_kind"] = self.price_kind
            if self.price_remark:
                out["price_remark"] = self.price_remark
        if self.scope != "node":
            out["scope"] = self.scope
        if self.note:
            out["note"] = self.note
        return out


@record
class TierNote:
    """A tier's starter note, with the fingerprint (:func:`lines_fingerprint`) of the lines and
    node count it describes: it speaks of those parts ("the 1,300 W supply covers the 853 W
    draw of the RTX 4090"), so it holds only while the build still has them."""

    text: Msg
    lines: str

    def to_dict(self) -> dict[str, str]:
        return {"en": self.text.en, "zh": self.text.zh, "lines": self.lines}


def lines_fingerprint(items: list[LineItem] | tuple[LineItem, ...], nodes: int) -> str:
    """What a tier note depends on, as 16 hex digits: each line's part (or custom text and
    category), quantity and scope, and the node count. Prices and notes are left out - a new
    price does not change what the parts are - and so is the order of the lines."""
    keys = sorted(json.dumps([item.part_id, item.text, item.category, item.quantity,
                              item.scope]) for item in items)
    blob = json.dumps({"nodes": nodes, "lines": keys}).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()[:16]


@mutable_record
class Build:
    """A build (see module doc). ``tier`` is the tier id it started from, if any."""

    name: str
    currency: str = "CNY"
    customer: str = ""
    project: str = ""
    exchange_rate: ExchangeRate | None = None
    tax_rate: Decimal = Decimal("0")
    discount: Discount | None = None
    nodes: int = 1
    line_items: list[LineItem] = field(default_factory=list)
    notes: str = ""
    tier: str | None = None
    tier_note: TierNote | None = None

    def current_tier_note(self) -> Msg | None:
        """The tier's starter note while the build still has the lines it describes, else
        None (a note about one RTX 4090 must not sit next to the two RTX 5090s that replaced
        it)."""
        note = self.tier_note
        if note is None or note.lines != lines_fingerprint(self.line_items, self.nodes):
            return None
        return note.text

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": BUILD_FORMAT,
            "version": BUILD_VERSION,
            "name": self.name,
            "customer": self.customer,
            "project": self.project,
            "tier": self.tier,
            "currency": self.currency,
            "exchange_rate": self.exchange_rate.to_dict() if self.exchange_rate else None,
            "tax_rate": plain_decimal(self.tax_rate),
            "discount": self.discount.to_dict() if self.discount else None,
            "nodes": self.nodes,
            "line_items": [item.to_dict() for item in self.line_items],
            "notes": self.notes,
            "tier_note": self.tier_note.to_dict() if self.tier_note else None,
        }

    @classmethod
    def from_dict(cls, data: Any, where: str = "build") -> Build:
        """Validate a build document (already at the current version); errors name the field."""
        doc = upgrade_document(data, BUILD_FORMAT, BUILD_VERSION, MIGRATIONS, where=where)
        unknown = sorted(set(doc) - _BUILD_KEYS)
        if unknown:
            # A misspelt field ("tax_rat") would otherwise be dropped without a word.
            raise InputError(f"{where}: {_shown(unknown[0])} is not a build field")
        name = _str(doc, "name", where, required=True, max_len=MAX_HEADER_TEXT)
        currency = doc.get("currency", "CNY")
        if currency not in CURRENCIES:
            raise InputError(f"{where}: currency must be CNY or USD, got {currency!r}")
        rate = _exchange_rate(doc.get("exchange_rate"), where)
        tax = _decimal(doc.get("tax_rate", "0"), f"{where}: tax_rate")
        if not Decimal(0) <= tax < Decimal(1):
            raise InputError(f"{where}: tax_rate must be a fraction from 0 to below 1 "
                             f"(0.13 for 13%), got {doc.get('tax_rate')!r}")
        nodes = _whole(doc.get("nodes", 1), f"{where}: nodes", 1, MAX_NODES)
        raw_lines = doc.get("line_items", [])
        if not isinstance(raw_lines, list):
            raise InputError(f"{where}: line_items must be a list")
        if len(raw_lines) > MAX_LINES:
            raise InputError(f"{where}: line_items has {len(raw_lines)} lines, more than "
                             f"{MAX_LINES}")
        lines = [_line(item, f"{where}: line_items[{i}]") for i, item in enumerate(raw_lines)]
        tier = doc.get("tier")
        if tier is not None and not isinstance(tier, str):
            raise InputError(f"{where}: tier must be a tier id or null")
        return cls(
            name=name, currency=currency,
            customer=_str(doc, "customer", where, max_len=MAX_HEADER_TEXT),
            project=_str(doc, "project", where, max_len=MAX_HEADER_TEXT),
            exchange_rate=rate, tax_rate=tax,
            discount=_discount(doc.get("discount"), where),
            nodes=nodes, line_items=lines,
            notes=_str(doc, "notes", where, max_len=20_000), tier=tier,
            tier_note=_tier_note(doc.get("tier_note"), where),
        )

    def check_parts(self, catalog: Catalog, where: str = "build") -> None:
        """Every catalog line must name a known part (and the tier a known tier)."""
        for i, item in enumerate(self.line_items):
            if item.part_id is not None and item.part_id not in catalog.parts:
                raise InputError(f"{where}: line_items[{i}].part_id {item.part_id!r} is not in "
                                 "the catalog")
        if self.tier is not None and self.tier not in catalog.tiers:
            raise InputError(f"{where}: tier {self.tier!r} is not a known tier "
                             f"({', '.join(catalog.tiers)})")


_BUILD_KEYS = {"format", "version", "name", "customer", "project", "tier", "currency",
               "exchange_rate", "tax_rate", "discount", "nodes", "line_items", "notes",
               "tier_note"}


def load_build(path: str | Path, catalog: Catalog | None = None) -> Build:
    """Load and validate a build file; part ids are checked against ``catalog`` (default: the
    shipped catalog). The file is never modified."""
    path = Path(path)
    doc = load_versioned(path, BUILD_FORMAT, BUILD_VERSION, MIGRATIONS)
    build = Build.from_dict(doc, where=str(path))
    if catalog is None:
        from torchrig.catalog import load_catalog

        catalog = load_catalog()
    build.check_parts(catalog, where=str(path))
    return build


def validate_build(build: Build, where: str = "build") -> Build:
    """The build as :func:`load_build` would read it back, or the loader's InputError.

    Editors call this before they accept an edit and :func:`save_build` before it writes, so
    the one validation of the file format decides both directions: nothing is saved that would
    not open again.
    """
    return Build.from_dict(build.to_dict(), where=where)


def with_default_rate(build: Build, cny_per_usd: str | None, date: str | None,
                      where: str = "--cny-per-usd") -> Build:
    """``build`` with a default CNY-per-USD rate where it has none of its own (a build's own
    rate, set for its quote, always wins). The rate needs the day it was taken, as in a build
    file; both are checked by the build's own validation."""
    if cny_per_usd is None:
        if date:
            raise InputError(f"{where}: a rate date was given without a rate")
        return build
    if not date:
        raise InputError(f"{where}: give the day the rate was taken (YYYY-MM-DD) with it")
    if build.exchange_rate is not None:
        return build
    try:
        rate = Decimal(cny_per_usd)
    except ArithmeticError:
        raise InputError(f"{where}: {cny_per_usd!r} is not a number") from None
    return validate_build(replace(build, exchange_rate=ExchangeRate(rate, date)), where=where)


def validate_line(item: LineItem, where: str) -> LineItem:
    """One line as the loader would read it back, or the loader's InputError (for importers
    that make lines, such as price lists)."""
    return _line(item.to_dict(), where)


def plain_decimal(value: Decimal) -> str:
    """``1000`` and ``0.0000001``, never ``1E+3``/``1E-7``: the loader reads money as plain
    digits (no exponent), so that is how it is written."""
    return format(value, "f")


def save_build(build: Build, path: str | Path) -> None:
    """Validate, then write atomically (temp file + fsync + rename): a crash leaves the old
    file intact, and a build the loader would refuse is refused here instead."""
    validate_build(build, where=str(path))
    atomic_write_json(Path(path), build.to_dict())


def build_from_tier(tier_id: str, catalog: Catalog) -> Build:
    """"Start a build from this tier": the tier's starter parts, node count and note."""
    return starter_build(catalog.tier(tier_id))


def starter_build(tier: Tier) -> Build:
    """``tier``'s starter build (:func:`build_from_tier` for a tier in hand)."""
    lines = _starter_items(tier)
    return Build(
        name=f"{tier.name.en} / {tier.name.zh}",
        currency="CNY",
        nodes=tier.starter_nodes,
        line_items=lines,
        tier=tier.id,
        tier_note=TierNote(tier.starter_note, lines_fingerprint(lines, tier.starter_nodes)),
    )


def _starter_items(tier: Tier) -> list[LineItem]:
    return [LineItem(part_id=line.part_id, quantity=line.quantity, scope=line.scope,
                     text=line.text, category=line.category, unit_price=line.price.unit_price,
                     currency=line.price.currency, price_source=line.price.price_source,
                     price_date=line.price.price_date, price_kind=line.price.price_kind,
                     price_remark=line.price.price_remark)
            for line in tier.starter_lines]


def _upgrade_v1(doc: dict[str, Any]) -> dict[str, Any]:
    """Version 1 wrote a tier's note into ``notes`` as "English\nChinese" (the user's own
    notes, if any, after it). Where the notes still begin with the shipped tier's note, that
    part becomes the ``tier_note`` of the tier's starter lines, so it is dropped once those
    lines change; anything else stays the user's."""
    notes, tier_id = doc.get("notes"), doc.get("tier")
    if not isinstance(notes, str) or not isinstance(tier_id, str):
        return doc
    from torchrig.catalog import load_catalog

    # The tiers only: loaded with the catalog whichever way, so no need to parse all parts.
    tier = load_catalog(lazy=True).tiers.get(tier_id)
    if tier is None:
        return doc
    written = f"{tier.starter_note.en}\n{tier.starter_note.zh}"
    if not notes.startswith(written):
        return doc
    lines = _starter_items(tier)
    doc["notes"] = notes[len(written):].strip("\n")
    doc["tier_note"] = TierNote(tier.starter_note,
                                lines_fingerprint(lines, tier.starter_nodes)).to_dict()
    return doc


MIGRATIONS = {1: _upgrade_v1}


def with_line(build: Build, index: int, item: LineItem) -> Build:
    """A copy of ``build`` with line ``index`` replaced (builds are edited by copy in the GUI)."""
    lines = list(build.line_items)
    lines[index] = item
    return replace(build, line_items=lines)


# --- field readers: every message names the field ----------------------------------------


def _str(doc: dict[str, Any], key: str, where: str, required: bool = False,
         max_len: int = 1000) -> str:
    value = doc.get(key)
    if value is None:
        if required:
            raise InputError(f"{where}: {key} is missing")
        return ""
    if not isinstance(value, str):
        raise InputError(f"{where}: {key} must be text, got {type(value).__name__}")
    if required and not value.strip():
        raise InputError(f"{where}: {key} must not be empty")
    if len(value) > max_len:
        raise InputError(f"{where}: {key} is longer than {max_len} characters")
    return value


def _shown(name: str) -> str:
    """A field name from the file as is, or quoted when it holds a line break, a control
    character or edge spaces (a message must stay one readable line)."""
    return name if name and name.isprintable() and name.strip() == name else repr(name)


def _decimal(value: Any, where: str) -> Decimal:
    return parse_money(value, where)


def _whole(value: Any, where: str, lo: int, hi: int) -> int:
    ok = (not isinstance(value, bool) and isinstance(value, (int, float))
          and float(value).is_integer() and lo <= value <= hi)
    if not ok:
        raise InputError(f"{where} must be a whole number >= {lo} (at most {hi}), got {value!r}")
    return int(value)


def _exchange_rate(raw: Any, where: str) -> ExchangeRate | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise InputError(f"{where}: exchange_rate must be an object with cny_per_usd and date")
    _no_other_keys(raw, {"cny_per_usd", "date", "source"}, f"{where}: exchange_rate")
    rate = _decimal(raw.get("cny_per_usd"), f"{where}: exchange_rate.cny_per_usd")
    if not Decimal("0.01") <= rate <= Decimal("1000"):
        raise InputError(f"{where}: exchange_rate.cny_per_usd must be a positive rate "
                         f"(CNY per USD), got {raw.get('cny_per_usd')!r}")
    date = check_date(raw.get("date"), f"{where}: exchange_rate.date")
    source = raw.get("source", "")
    if not isinstance(source, str) or len(source) > MAX_SOURCE:
        raise InputError(f"{where}: exchange_rate.source must be text (at most {MAX_SOURCE} "
                         "characters)")
    return ExchangeRate(cny_per_usd=rate, date=date, source=source)


def _tier_note(raw: Any, where: str) -> TierNote | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise InputError(f"{where}: tier_note must be an object with en, zh and lines")
    _no_other_keys(raw, {"en", "zh", "lines"}, f"{where}: tier_note")
    for key in ("en", "zh", "lines"):
        if not isinstance(raw.get(key), str) or len(raw[key]) > 20_000:
            raise InputError(f"{where}: tier_note.{key} must be text (at most 20000 "
                             "characters)")
    return TierNote(Msg(raw["en"], raw["zh"]), raw["lines"])


def _discount(raw: Any, where: str) -> Discount | None:
    if raw is None:
        return None
    if not isinstance(raw, dict) or raw.get("kind") not in ("amount", "percent"):
        raise InputError(f"{where}: discount.kind must be 'amount' or 'percent'")
    _no_other_keys(raw, {"kind", "value"}, f"{where}: discount")
    value = _decimal(raw.get("value"), f"{where}: discount.value")
    if value < 0:
        raise InputError(f"{where}: discount.value must not be negative")
    if raw["kind"] == "percent" and value > 100:
        raise InputError(f"{where}: discount.value must be at most 100 (percent)")
    return Discount(kind=raw["kind"], value=value)


def _no_other_keys(raw: dict[str, Any], allowed: set[str], where: str) -> None:
    unknown = sorted(set(raw) - allowed)
    if unknown:
        raise InputError(f"{where}.{_shown(unknown[0])} is not a field of {where.split(': ')[-1]}")


_LINE_KEYS = {"part_id", "quantity", "text", "category", "scope", "note", *PRICE_KEYS}


def _line(raw: Any, where: str) -> LineItem:
    if not isinstance(raw, dict):
        raise InputError(f"{where} must be an object")
    unknown = sorted(set(raw) - _LINE_KEYS)
    if unknown:
        raise InputError(f"{where}.{_shown(unknown[0])} is not a line item field")
    qty = _whole(raw.get("quantity"), f"{where}.quantity", 1, MAX_QUANTITY)
    part_id = raw.get("part_id")
    text = raw.get("text", "")
    category = raw.get("category", "")
    if part_id is not None:
        if not isinstance(part_id, str) or not part_id:
            raise InputError(f"{where}.part_id must be a catalog part id")
        if text or category:
            raise InputError(f"{where}: a catalog line has part_id; text/category are for "
                             "custom lines only")
    else:
        if not isinstance(text, str) or not text.strip():
            raise InputError(f"{where}: needs part_id (catalog part) or text (custom line)")
        if len(text) > MAX_LINE_TEXT:
            raise InputError(f"{where}.text is longer than {MAX_LINE_TEXT} characters")
        if category not in CUSTOM_CATEGORIES:
            raise InputError(f"{where}.category must be one of {', '.join(CUSTOM_CATEGORIES)}, "
                             f"got {category!r}")
    price = parse_line_price(raw, where)
    note = raw.get("note", "")
    if not isinstance(note, str) or len(note) > MAX_SOURCE:
        raise InputError(f"{where}.note must be text (at most {MAX_SOURCE} characters)")
    scope = raw.get("scope", "node")
    if scope not in ("node", "cluster"):
        raise InputError(f"{where}.scope must be 'node' or 'cluster', got {scope!r}")
    return LineItem(part_id=part_id, quantity=qty, unit_price=price.unit_price,
                    currency=price.currency, price_source=price.price_source,
                    price_date=price.price_date, price_kind=price.price_kind,
                    price_remark=price.price_remark, text=text, category=category, scope=scope,
                    note=note)

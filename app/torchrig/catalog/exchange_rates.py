"""The shipped reference exchange rate (``resources/catalog/exchange_rates.json``).

A shop sets its own CNY-per-USD rate for a quote; a fresh install has none, so a build of
USD-only catalog parts could not be priced in CNY. The catalog ships one published reference
(the PBOC central parity, with its date and source) that pricing falls back to when a build
has no rate of its own. The file is validated strictly, field by field, like every catalog
document: a misspelt field or a malformed rate is an error naming the file and the entry.

Schema (exact)::

    {"format": "torchrig-exchange-rates", "version": 1,
     "rates": [{"base": "USD", "quote": "CNY", "rate": "7.1234", "date": "YYYY-MM-DD",
                "kind": "PBOC central parity", "source": "<url>", "note": {"en", "zh"}}]}
"""

from __future__ import annotations

import datetime
import functools
import re
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from torchrig.catalog.fields import msg_field, parse_money, text_field
from torchrig.errors import InputError
from torchrig.i18n import Msg
from torchrig.jsonio import check_keys, parse_json_text, read_text_file, upgrade_document
from torchrig.records import record

if TYPE_CHECKING:
    from torchrig.catalog.model import Catalog

EXCHANGE_RATES_FORMAT = "torchrig-exchange-rates"
EXCHANGE_RATES_VERSION = 1
FILE_NAME = "exchange_rates.json"
"""In ``resources/catalog/``."""

_DOC_KEYS = {"format", "version", "rates"}
_RATE_KEYS = {"base", "quote", "rate", "date", "kind", "source", "note"}
DAY_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
URL_RE = re.compile(r"^https?://\S+$")
CURRENCY_PAIRS = {("USD", "CNY")}
"""The pair a build converts with (CNY per USD); another pair has no use and is refused."""
RATE_MIN, RATE_MAX = Decimal("0.01"), Decimal("1000")
"""What a build file's own exchange rate may be (builds/build.py): the reference must fit in
one."""
STALE_AFTER_DAYS = 30
"""A rate older than this is flagged where it is used (Build page, ``check``): TorchRig's own
limit, as six months is for prices (``catalog/alerts.py``)."""


KIND_ZH = {
    # The rate China's foreign-exchange market publishes each morning on the PBOC's authority.
    "PBOC central parity": "中国人民银行人民币汇率中间价",
}
"""Chinese names of the rate kinds the shipped file uses (the file's ``kind`` is English)."""

@record
class ReferenceRate:
    """One published rate: ``rate`` units of ``quote`` per ``base`` on ``date``."""

    base: str
    quote: str
    rate: Decimal
    date: str
    kind: str
    source: str
    note: Msg

    def kind_name(self, lang: str) -> str:
        """What kind of rate this is, in ``lang`` (e.g. "PBOC central parity")."""
        return KIND_ZH.get(self.kind, self.kind) if lang == "zh" else self.kind

    @property
    def origin(self) -> Msg:
        """Where the rate comes from, as a quote or a table names it (the kind in the
        reader's language where TorchRig knows its Chinese name)."""
        return Msg(f"{self.kind} {self.date}, {self.source}",
                   f"{self.kind_name('zh')}（{self.date}），{self.source}")


def day(value: Any, where: str) -> str:
    """A full ``YYYY-MM-DD`` date that exists (a rate is of one day, not of a month)."""
    if not isinstance(value, str) or not DAY_RE.match(value):
        raise InputError(f"{where} must be a date YYYY-MM-DD, got {value!r}")
    try:
        datetime.date.fromisoformat(value)
    except ValueError:
        raise InputError(f"{where} must be a date YYYY-MM-DD, got {value!r}") from None
    return value


def url(value: Any, where: str) -> str:
    if not isinstance(value, str) or not URL_RE.match(value):
        raise InputError(f"{where} must be an http(s) URL, got {value!r}")
    return value


def age_days(date: str, today: datetime.date) -> int:
    """Days from ``date`` (``YYYY-MM-DD``; a ``YYYY-MM`` date counts from its first day) to
    ``today``."""
    full = date if len(date) == 10 else f"{date[:7]}-01"
    return (today - datetime.date.fromisoformat(full)).days


def load_exchange_rates(path: str | Path) -> tuple[ReferenceRate, ...]:
    """Every rate in the file at ``path``, newest first; raises InputError naming the file,
    the entry and the field for anything the schema does not allow."""
    path = Path(path)
    where = str(path)
    doc = upgrade_document(parse_json_text(read_text_file(path), where),
                           EXCHANGE_RATES_FORMAT, EXCHANGE_RATES_VERSION, where=where)
    check_keys(doc, _DOC_KEYS, where)
    entries = doc.get("rates")
    if not isinstance(entries, list) or not entries:
        raise InputError(f"{where}: field 'rates' must be a non-empty list")
    rates = [_rate(entry, f"{where}: rates[{i}]") for i, entry in enumerate(entries)]
    return tuple(sorted(rates, key=lambda r: r.date, reverse=True))


def _rate(entry: Any, where: str) -> ReferenceRate:
    if not isinstance(entry, dict):
        raise InputError(f"{where}: must be an object")
    check_keys(entry, _RATE_KEYS, where)
    missing = sorted(_RATE_KEYS - set(entry))
    if missing:
        raise InputError(f"{where}: missing field {missing[0]!r}")
    base, quote = text_field(entry, "base", where), text_field(entry, "quote", where)
    if (base, quote) not in CURRENCY_PAIRS:
        raise InputError(f"{where}: only USD -> CNY rates are used, got {base} -> {quote}")
    if not isinstance(entry["rate"], str):
        # A JSON number would pass through a binary float; the schema holds rates as text.
        raise InputError(f"{where}: field 'rate' must be a decimal string like \"7.1234\"")
    rate = parse_money(entry["rate"], f"{where}: field 'rate'")
    if not RATE_MIN <= rate <= RATE_MAX:
        raise InputError(f"{where}: field 'rate' must be a rate from {RATE_MIN} to {RATE_MAX} "
                         f"CNY per USD, got {entry['rate']!r}")
    return ReferenceRate(
        base=base, quote=quote, rate=rate, date=day(entry["date"], f"{where}: field 'date'"),
        kind=text_field(entry, "kind", where),
        source=url(entry["source"], f"{where}: field 'source'"),
        note=msg_field(entry, "note", where))


def shipped_rates_path(root: str | Path | None = None) -> Path:
    """The shipped file, in the catalog folder of ``root`` (default: this run's resources)."""
    if root is None:
        from torchrig.resources import resources_dir

        root = resources_dir()
    return Path(root) / "catalog" / FILE_NAME


def catalog_reference(catalog: Catalog) -> ReferenceRate | None:
    """The reference rate shipped beside ``catalog`` (None for a catalog without a folder or
    a rate file), read once per folder: every place that prices a build asks for it, and
    the shipped file does not change while TorchRig runs."""
    return _reference_in(catalog.root) if catalog.root else None


@functools.lru_cache(maxsize=8)
def _reference_in(root: str) -> ReferenceRate | None:
    return reference_rate(root)


def reference_rate(root: str | Path | None = None) -> ReferenceRate | None:
    """The newest shipped USD -> CNY rate, None when the install ships no rate file (a file
    that is there but damaged raises: the catalog is broken and must say so)."""
    path = shipped_rates_path(root)
    if not path.exists():
        return None
    return load_exchange_rates(path)[0]

"""Load and validate the shipped catalog (``resources/catalog/*.json``) and tiers.

Every entry is checked (types, units, ranges, unique ids, source references, tier references)
and a failure raises :class:`InputError` naming the file, the entry id and the field, because a
catalog edited by hand must never produce a wrong number silently.

Resource folder, first match wins: the ``root`` argument, ``$TORCHRIG_RESOURCES``, then
``resources/`` at the repository root (``app/torchrig/../../resources``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from torchrig.catalog import spec_objects
from torchrig.catalog.fields import (
    CATALOG_VERSION,
    check_date,
    msg_field,
    parse_money,
    text_field,
)
from torchrig.catalog.model import (
    CURRENCIES,
    PRICE_KINDS,
    Catalog,
    EndOfLife,
    Part,
    Price,
    SourceRef,
)
from torchrig.catalog.specs import (
    CATEGORIES,
    SCHEMAS,
    SPEC_CLASSES,
    FieldDef,
    GpuSlot,
    MemorySupport,
)
from torchrig.errors import InputError
from torchrig.i18n import Msg
from torchrig.jsonio import check_keys, parse_json_text, read_text_file, upgrade_document

CATALOG_FORMAT = "torchrig.catalog"
SOURCES_FORMAT = "torchrig.sources"

NOT_PART_FILES = ("sources.json", "export_controls.json", "exchange_rates.json")
"""Catalog-folder documents that are not parts files: their own loaders read them
(``catalog/exchange_rates.py``, ``catalog/export_controls.py``)."""

ID_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
MEM_RE = re.compile(r"^(DDR[45])(?:-(\d{3,5}))?$")
REPO_PATH_RE = re.compile(r"^[\w.-]+/[\w.-]+:\S+$")


def default_resources_dir() -> Path:
    """The shipped resources: checkout, PyInstaller bundle or installed wheel alike."""
    from torchrig.resources import resources_dir

    return resources_dir()


def load_catalog(root: str | Path | None = None, *, lazy: bool = False) -> Catalog:
    """Load parts, sources, seed rules and tiers from ``root`` (see module doc); cached per
    resolved folder, so callers may call it freely. ``clear_catalog_cache()`` forgets it.

    Every part is parsed and checked before this returns, unless ``lazy``: then the part
    files are read and each entry's id checked (form and uniqueness), but a part is parsed,
    with the very same checks, the first time it is looked up (:class:`PartEntries`). A
    process that needs a few parts - an export quotes about ten of 200, and the tiers name
    25 - does not pay for the rest (most of the load; issue 27); a bad part it looks up is
    reported as the full load reports it. Iterating the parts' values parses them all."""
    folder = Path(root) if root is not None else default_resources_dir()
    key = str(folder.resolve())
    catalog = _CATALOGS.get(key)
    if catalog is None:
        catalog = _read_catalog(Path(key), lazy)
        if len(_CATALOGS) >= 8:  # a bounded cache, as it was (tests load many copies)
            del _CATALOGS[next(iter(_CATALOGS))]
        _CATALOGS[key] = catalog
    if not lazy and isinstance(catalog.parts, PartEntries):
        catalog.parts.parse_all()  # loaded lazily before: now every part is checked
    return catalog


def clear_catalog_cache() -> None:
    _CATALOGS.clear()


_CATALOGS: dict[str, Catalog] = {}
"""Resolved resources folder -> its catalog."""


class PartEntries(Mapping[str, Part]):
    """The catalog's parts by id, in file order; each parsed (``_parse_part``: the one
    validation path) the first time it is looked up, and kept. Ids, membership and length
    need no parsing."""

    def __init__(self, sources: dict[str, SourceRef]) -> None:
        self._sources = sources
        self._raw: dict[str, tuple[Path, int, dict[str, Any], str]] = {}
        self._parsed: dict[str, Part] = {}

    def add(self, part_id: str, path: Path, index: int, entry: dict[str, Any], category: str,
            part: Part | None = None) -> None:
        self._raw[part_id] = (path, index, entry, category)
        if part is not None:
            self._parsed[part_id] = part

    def __getitem__(self, part_id: str) -> Part:
        part = self._parsed.get(part_id)
        if part is None:
            path, index, entry, category = self._raw[part_id]  # KeyError: not in the catalog
            part = self._parsed[part_id] = _parse_part(path, index, entry, category,
                                                       self._sources)
        return part

    def __contains__(self, part_id: object) -> bool:
        return part_id in self._raw

    def __iter__(self) -> Iterator[str]:
        return iter(self._raw)

    def __len__(self) -> int:
        return len(self._raw)

    def parse_all(self) -> None:
        """Parse (and so check) every part not parsed yet, in file order."""
        for part_id in self._raw:
            self[part_id]


def _read_catalog(root: Path, lazy: bool) -> Catalog:
    from torchrig.catalog.tiers import load_tiers

    cat_dir = root / "catalog"
    if not cat_dir.is_dir():
        raise InputError(f"{cat_dir}: catalog folder not found (set TORCHRIG_RESOURCES?)")
    sources = _load_sources(cat_dir / "sources.json")
    parts = PartEntries(sources)
    origin: dict[str, Path] = {}
    for path in sorted(cat_dir.glob("*.json")):
        if path.name in NOT_PART_FILES:
            continue
        category, entries = _parts_document(path)
        # A full load checks a file's parts in order, then their ids against the files
        # before (the order of the messages a bad catalog gets, as before); a lazy one checks
        # only each entry's id here.
        found = [(_part_id(path, i, entry), i, entry,
                  None if lazy else _parse_part(path, i, entry, category, sources))
                 for i, entry in enumerate(entries)]
        for part_id, i, entry, part in found:
            if part_id in parts:
                raise InputError(
                    f"{path}: part {part_id!r}: id already used in {origin[part_id].name}"
                )
            parts.add(part_id, path, i, entry, category, part)
            origin[part_id] = path
    catalog = Catalog(parts=parts, tiers={}, seed_rules={}, sources=sources, root=str(root))
    tiers, rules = load_tiers(root / "tiers.json", catalog)
    catalog.tiers = tiers
    catalog.seed_rules = rules
    return catalog


_DOCUMENT_KEYS = {
    CATALOG_FORMAT: {"format", "version", "category", "conventions", "parts"},
    SOURCES_FORMAT: {"format", "version", "note", "sources"},
}


def _load_document(path: Path, fmt: str) -> dict[str, Any]:
    data = parse_json_text(read_text_file(path), str(path))
    doc = upgrade_document(data, fmt, CATALOG_VERSION, where=str(path))
    check_keys(doc, _DOCUMENT_KEYS[fmt], str(path))
    return doc


def _load_sources(path: Path) -> dict[str, SourceRef]:
    doc = _load_document(path, SOURCES_FORMAT)
    entries = doc.get("sources")
    if not isinstance(entries, dict):
        raise InputError(f"{path}: field 'sources' must be an object of key -> source")
    out: dict[str, SourceRef] = {}
    for key, entry in entries.items():
        where = f"{path}: source {key!r}"
        if not isinstance(entry, dict):
            raise InputError(f"{where}: must be an object with 'url' and 'what'")
        check_keys(entry, {"url", "what", "name"}, where)
        url = entry.get("url")
        # A few sources (vendor whitepapers quoted in other files) have no URL we could verify;
        # they stay null rather than carrying a guessed link.
        if url is not None and (not isinstance(url, str) or not _is_url_or_repo(url)):
            raise InputError(f"{where}: field 'url' must be a URL, owner/repo:path or null, "
                             f"got {url!r}")
        name = text_field(entry, "name", where) if "name" in entry else None
        out[key] = SourceRef(key=key, url=url, what=text_field(entry, "what", where), name=name)
    return out


def load_parts_file(path: Path, sources: dict[str, SourceRef]) -> list[Part]:
    """Parse one catalog file; every problem names ``path``, the part id and the field."""
    category, entries = _parts_document(path)
    return [_parse_part(path, i, e, category, sources) for i, e in enumerate(entries)]


def _parts_document(path: Path) -> tuple[str, list[Any]]:
    """(category, part entries) of a parts file, its document-level fields checked."""
    doc = _load_document(path, CATALOG_FORMAT)
    category = doc.get("category")
    if category not in CATEGORIES:
        raise InputError(
            f"{path}: field 'category' must be one of {', '.join(CATEGORIES)}, got {category!r}"
        )
    entries = doc.get("parts")
    if not isinstance(entries, list) or not entries:
        raise InputError(f"{path}: field 'parts' must be a non-empty list")
    return category, entries


_PART_KEYS = {"id", "vendor", "name", "specs", "sources", "prices", "notes", "match_names",
              "end_of_life"}


def _part_id(path: Path, index: int, entry: Any) -> str:
    if not isinstance(entry, dict):
        raise InputError(f"{path}: parts[{index}] must be an object")
    raw_id = entry.get("id")
    if not isinstance(raw_id, str) or not ID_RE.fullmatch(raw_id):  # "$" allows a final \n
        raise InputError(
            f"{path}: parts[{index}]: field 'id' must be kebab-case text "
            f"(e.g. 'nvidia-rtx-4090'), got {raw_id!r}"
        )
    return raw_id


def _parse_part(path: Path, index: int, entry: Any, category: str,
                sources: dict[str, SourceRef]) -> Part:
    raw_id = _part_id(path, index, entry)
    where = f"{path}: part {raw_id!r}"
    unknown = sorted(set(entry) - _PART_KEYS)
    if unknown:
        raise InputError(f"{where}: unknown field {unknown[0]!r}")
    vendor = text_field(entry, "vendor", where)
    vendor_slug = re.sub(r"[^a-z0-9]+", "-", vendor.lower()).strip("-")
    if not raw_id.startswith(vendor_slug + "-"):
        raise InputError(f"{where}: field 'id' must start with the vendor ('{vendor_slug}-')")
    name = text_field(entry, "name", where)
    src_list = _source_list(entry, "sources", where, sources)
    if not src_list:
        raise InputError(f"{where}: field 'sources' must list at least one source")
    specs_raw = entry.get("specs")
    if not isinstance(specs_raw, dict):
        raise InputError(f"{where}: field 'specs' must be an object")
    values, field_sources, derived, unknown_why = _parse_specs(specs_raw, category,
                                                               f"{where} specs", sources)
    spec = SPEC_CLASSES[category](**values)
    _cross_check(spec, category, f"{where} specs")
    prices = tuple(_parse_price(p, f"{where} prices[{i}]", sources)
                   for i, p in enumerate(_list(entry, "prices", where)))
    notes = msg_field(entry, "notes", where) if "notes" in entry else None
    match_names = tuple(_str_items(entry, "match_names", where))
    eol = _end_of_life(entry.get("end_of_life"), where, sources)
    return Part(
        id=raw_id, category=category, vendor=vendor, name=name, specs=spec,
        sources=tuple(src_list), field_sources=field_sources, derived_fields=derived,
        unknown_fields=unknown_why,
        prices=prices, notes=notes, match_names=match_names, end_of_life=eol,
    )


def _end_of_life(raw: Any, where: str, sources: dict[str, SourceRef]) -> EndOfLife | None:
    """``{"date": "2024-10", "source": ...}``: the maker stopped producing the part."""
    if raw is None:
        return None
    if not isinstance(raw, dict) or set(raw) - {"date", "source"}:
        raise InputError(f"{where}: field 'end_of_life' must be an object with date and source")
    date = check_date(raw.get("date"), f"{where}: field 'end_of_life.date'")
    source = _one_source(raw.get("source"), f"{where} field 'end_of_life.source'", sources)
    return EndOfLife(date=date, source=source)


def _parse_specs(raw: dict[str, Any], category: str, where: str,
                 sources: dict[str, SourceRef]) -> tuple[dict[str, Any], dict[str, str],
                                                          dict[str, str], dict[str, str]]:
    schema = {f.key: f for f in SCHEMAS[category]}
    unknown = sorted(set(raw) - set(schema))
    if unknown:
        raise InputError(f"{where}: unknown field {unknown[0]!r} for a {category} "
                         f"(known: {', '.join(schema)})")
    values: dict[str, Any] = {}
    field_sources: dict[str, str] = {}
    derived: dict[str, str] = {}
    unknown_why: dict[str, str] = {}
    for key, fdef in schema.items():
        value = raw.get(key)
        if isinstance(value, dict) and "unknown" in value:
            # {"unknown": "why"}: the sources were read and do not give the figure. The one
            # place this form is validated; checks see None, the completeness test the reason.
            why = value["unknown"]
            if set(value) != {"unknown"} or not isinstance(why, str) or len(why.strip()) < 10:
                raise InputError(f"{where}: field '{key}' must be {{\"unknown\": \"<why, at least "
                                 "10 characters>\"}} with no value, source or derived")
            if fdef.required:
                raise InputError(f"{where}: field '{key}' is required and cannot be unknown")
            unknown_why[fdef.attr] = why
            continue
        if isinstance(value, dict):
            extra = sorted(set(value) - {"value", "source", "derived"})
            if extra:
                raise InputError(f"{where}: field '{key}' has unknown key {extra[0]!r} "
                                 "(use value, source, derived)")
            if "source" in value:
                field_sources[fdef.attr] = _one_source(value["source"], f"{where} field '{key}'",
                                                       sources)
            if "derived" in value:
                basis = value["derived"]
                if not isinstance(basis, str) or not basis.strip():
                    raise InputError(f"{where}: field '{key}.derived' must say how it was derived")
                derived[fdef.attr] = basis
            value = value.get("value")
        if value is None:
            if fdef.required:
                raise InputError(f"{where}: missing field '{key}'")
            continue
        values[fdef.attr] = _convert(value, fdef, where)
    return values, field_sources, derived, unknown_why


def _convert(value: Any, fdef: FieldDef, where: str) -> Any:
    key = fdef.key
    if fdef.kind in ("num", "int"):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise InputError(f"{where}: field '{key}' must be a number, got {value!r}")
        if fdef.lo is not None and value < fdef.lo or fdef.hi is not None and value > fdef.hi:
            raise InputError(f"{where}: field '{key}' must be between {fdef.lo:g} and "
                             f"{fdef.hi:g} (unit in the name), got {value!r}")
        scaled = value * fdef.scale
        if fdef.kind == "int":
            rounded = round(scaled)
            if abs(rounded - scaled) > 1e-6 * max(1.0, abs(scaled)):
                raise InputError(f"{where}: field '{key}' must be a whole number, got {value!r}")
            return int(rounded)
        return float(scaled)
    if fdef.kind == "str":
        if not isinstance(value, str) or not value.strip():
            raise InputError(f"{where}: field '{key}' must be non-empty text, got {value!r}")
        if fdef.choices and value not in fdef.choices:
            raise InputError(f"{where}: field '{key}' must be one of "
                             f"{', '.join(fdef.choices)}, got {value!r}")
        return value
    if fdef.kind == "bool":
        if not isinstance(value, bool):
            raise InputError(f"{where}: field '{key}' must be true or false, got {value!r}")
        return value
    if fdef.kind in ("str_list", "int_list"):
        return _plain_list(value, fdef, where)
    if fdef.kind == "mem_support":
        return _mem_support(value, where, key)
    if fdef.kind == "lane_configs":
        return _lane_configs(value, where, key)
    if fdef.kind == "m2_map":
        return spec_objects.m2_map(value, where, key)
    if fdef.kind == "radiator_mounts":
        return spec_objects.radiator_mounts(value, where, key)
    if fdef.kind == "bios_reqs":
        return spec_objects.bios_requirements(value, where, key)
    raise AssertionError(fdef.kind)


def _plain_list(value: Any, fdef: FieldDef, where: str) -> tuple[Any, ...]:
    """A non-empty list of texts (``str_list``) or of whole numbers in range (``int_list``)."""
    if not isinstance(value, list) or not value:
        raise InputError(f"{where}: field '{fdef.key}' must be a non-empty list")
    if fdef.kind == "str_list":
        if not all(isinstance(v, str) and v.strip() for v in value):
            raise InputError(f"{where}: field '{fdef.key}' must list non-empty texts")
        return tuple(value)
    item = FieldDef(fdef.key, fdef.attr, "int", 1, fdef.lo, fdef.hi)
    return tuple(_convert(v, item, where) for v in value)


def _mem_support(value: Any, where: str, key: str) -> tuple[MemorySupport, ...]:
    if not isinstance(value, list) or not value:
        raise InputError(f"{where}: field '{key}' must be a list like [\"DDR5-5600\", \"DDR4\"]")
    out = []
    for item in value:
        m = MEM_RE.fullmatch(item) if isinstance(item, str) else None
        if not m:
            raise InputError(f"{where}: field '{key}' item {item!r} must look like "
                             "'DDR5-5600' or 'DDR4'")
        out.append(MemorySupport(m.group(1), int(m.group(2)) if m.group(2) else None))
    return tuple(out)


def _lane_configs(value: Any, where: str, key: str) -> tuple[tuple[GpuSlot, ...], ...]:
    if not isinstance(value, list):
        raise InputError(f"{where}: field '{key}' must be a list (one entry per GPU count)")
    configs = []
    for n, cfg in enumerate(value, start=1):
        if not isinstance(cfg, list) or len(cfg) != n:
            raise InputError(f"{where}: field '{key}[{n - 1}]' must list {n} slot(s) "
                             f"(the wiring with {n} GPU(s))")
        slots = []
        for j, slot in enumerate(cfg):
            sw = f"{where}: field '{key}[{n - 1}][{j}]'"
            if not isinstance(slot, dict):
                raise InputError(f"{sw} must be an object with lanes, gen, via")
            lanes = slot.get("lanes")
            if lanes not in (1, 2, 4, 8, 16) or isinstance(lanes, bool):
                raise InputError(f"{sw}.lanes must be 1, 2, 4, 8 or 16, got {lanes!r}")
            gen = slot.get("gen")
            if gen is not None and (isinstance(gen, bool) or gen not in (1, 2, 3, 4, 5, 6)):
                raise InputError(f"{sw}.gen must be 1-6 or null, got {gen!r}")
            via = slot.get("via")
            if via not in ("cpu", "chipset"):
                raise InputError(f"{sw}.via must be 'cpu' or 'chipset', got {via!r}")
            slots.append(GpuSlot(lanes=lanes, gen=gen, via=via))
        configs.append(tuple(slots))
    return tuple(configs)


def _cross_check(spec: Any, category: str, where: str) -> None:
    """Relations between fields that a single-field range check cannot see."""
    if category == "cpu":
        if spec.threads < spec.cores:
            raise InputError(f"{where}: field 'threads' ({spec.threads}) is below 'cores' "
                             f"({spec.cores})")
        if (spec.performance_cores is not None and spec.efficiency_cores is not None
                and spec.performance_cores + spec.efficiency_cores != spec.cores):
            raise InputError(f"{where}: performance_cores + efficiency_cores must equal cores")
        if (spec.base_clock_hz and spec.boost_clock_hz
                and spec.boost_clock_hz < spec.base_clock_hz):
            raise InputError(f"{where}: field 'boost_clock_ghz' is below 'base_clock_ghz'")
    if category == "motherboard" and spec.m2_slot_map and spec.m2_slots is not None \
            and len(spec.m2_slot_map) != spec.m2_slots:
        raise InputError(f"{where}: field 'm2_slot_map' lists {len(spec.m2_slot_map)} slots, "
                         f"'m2_slots' says {spec.m2_slots}")
    for attr in ("dimensions_mm", "max_board_mm"):
        if len(getattr(spec, attr, ()) or (0, 0)) != 2:
            raise InputError(f"{where}: field '{attr}' must be [width, depth] in mm")
    if category == "gpu" and spec.tensor_cores is False:
        for attr in ("fp16_tensor_flops", "bf16_tensor_flops", "tf32_tensor_flops",
                     "fp8_tensor_flops", "fp4_tensor_flops"):
            if getattr(spec, attr) is not None:
                raise InputError(f"{where}: a GPU without tensor cores cannot have '{attr}'")


_PRICE_KEYS = {"amount", "currency", "date", "kind", "source", "reliability", "note", "label",
               "remark"}


def _parse_price(raw: Any, where: str, sources: dict[str, SourceRef]) -> Price:
    if not isinstance(raw, dict):
        raise InputError(f"{where}: must be an object")
    check_keys(raw, _PRICE_KEYS, where)
    amount = parse_money(raw.get("amount"), f"{where}: field 'amount'")
    if amount <= 0:
        raise InputError(f"{where}: field 'amount' must be positive")
    currency = raw.get("currency")
    if currency not in CURRENCIES:
        raise InputError(f"{where}: field 'currency' must be CNY or USD, got {currency!r}")
    date = check_date(raw.get("date"), f"{where}: field 'date'")
    kind = raw.get("kind")
    if kind not in PRICE_KINDS:
        raise InputError(f"{where}: field 'kind' must be one of {', '.join(PRICE_KINDS)}, "
                         f"got {kind!r}")
    source = text_field(raw, "source", where)
    if kind == "estimate":
        if not source.startswith("estimate: ") or len(source) < 20:
            raise InputError(f"{where}: an estimate's 'source' must be 'estimate: <basis>'")
    else:
        _one_source(source, f"{where} field 'source'", sources)
    reliability = raw.get("reliability")
    if reliability not in (None, "low", "medium", "high"):
        raise InputError(f"{where}: field 'reliability' must be low, medium or high")
    note = raw.get("note")
    if note is not None and not isinstance(note, str):
        raise InputError(f"{where}: field 'note' must be text")
    label = _bilingual(raw, "label", where)
    if kind == "estimate" and label is None:
        # The estimate's source is the catalog's English record with its caveats; a document
        # prints the label in the reader's language (docs/hardware-sources.md sec. 7.3).
        raise InputError(f"{where}: an estimate needs a 'label' "
                         "({\"en\": ..., \"zh\": ...}): its source as a quote prints it")
    return Price(amount=amount, currency=currency, date=date, kind=kind, source=source,
                 reliability=reliability, note=note, label=label,
                 remark=_bilingual(raw, "remark", where))


def _bilingual(raw: dict[str, Any], key: str, where: str) -> Msg | None:
    """An optional ``{"en": ..., "zh": ...}`` text with both halves filled in."""
    if key not in raw:
        return None
    value = raw[key]
    if (not isinstance(value, dict) or set(value) != {"en", "zh"}
            or not all(isinstance(v, str) and v.strip() for v in value.values())):
        raise InputError(f"{where}: field '{key}' must be an object with non-empty 'en' and "
                         "'zh' texts and nothing else")
    return Msg(en=value["en"], zh=value["zh"])


def _is_url_or_repo(text: str) -> bool:
    return text.startswith(("https://", "http://")) or bool(REPO_PATH_RE.match(text))


def _one_source(value: Any, where: str, sources: dict[str, SourceRef]) -> str:
    """A source is a key from sources.json, a URL, or ``owner/repo:path`` (optionally followed
    by a note after " ; " or " (")."""
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{where}: a source must be non-empty text")
    head = re.split(r"\s", value.strip(), maxsplit=1)[0]
    if head in sources or _is_url_or_repo(head):
        return value
    raise InputError(f"{where}: source {value!r} is neither a known source key nor a URL")


def _source_list(obj: dict[str, Any], key: str, where: str,
                 sources: dict[str, SourceRef]) -> list[str]:
    return [_one_source(v, f"{where} field '{key}'", sources) for v in _list(obj, key, where)]


def _list(obj: dict[str, Any], key: str, where: str) -> list[Any]:
    value = obj.get(key, [])
    if value is None:
        return []
    if not isinstance(value, list):
        raise InputError(f"{where}: field '{key}' must be a list")
    return value


def _str_items(obj: dict[str, Any], key: str, where: str) -> list[str]:
    items = _list(obj, key, where)
    for item in items:
        if not isinstance(item, str) or not item.strip():
            raise InputError(f"{where}: field '{key}' must list non-empty texts")
    return items

"""US export controls on catalog parts (``resources/catalog/export_controls.json``).

A shop in mainland China cannot be sold some parts (data-centre GPUs under the US Export
Administration Regulations); each entry names the part, the rules that cover it (title, date,
source) and the China-market alternatives. The file is validated strictly: every field the
schema has, nothing else, rule and part ids that resolve, so a typo cannot drop a control
without a word.

Schema (exact)::

    {"format": "torchrig-export-controls", "version": 1, "note": {"en", "zh"},
     "rules": [{"id", "title": {"en", "zh"}, "date": "YYYY-MM-DD", "source": "<url>",
                "summary": {"en", "zh"}}],
     "parts": [{"part_id", "rules": [ids], "alternatives": [part ids], "note": {"en", "zh"}}]}
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Any

from torchrig.catalog.exchange_rates import day, url
from torchrig.catalog.fields import msg_field, text_field
from torchrig.errors import InputError
from torchrig.i18n import Msg
from torchrig.jsonio import check_keys, parse_json_text, read_text_file, upgrade_document
from torchrig.records import field, record

EXPORT_CONTROLS_FORMAT = "torchrig-export-controls"
EXPORT_CONTROLS_VERSION = 1
FILE_NAME = "export_controls.json"
"""In ``resources/catalog/``."""

_DOC_KEYS = {"format", "version", "note", "rules", "parts"}
_OPTIONAL_DOC_KEYS = {"tpp_alternatives"}
_TPP_ALTERNATIVE_KEYS = {"geforce", "other"}
_RULE_KEYS = {"id", "title", "date", "source", "summary"}
_PART_KEYS = {"part_id", "rules", "alternatives", "note"}


@record
class ExportRule:
    id: str
    title: Msg
    date: str
    source: str
    summary: Msg


@record
class ControlledPart:
    """A part under one or more rules, and what a China-market build uses instead."""

    part_id: str
    rules: tuple[ExportRule, ...]
    alternatives: tuple[str, ...]
    note: Msg


@record
class ExportControls:
    note: Msg
    rules: dict[str, ExportRule]
    parts: dict[str, ControlledPart]
    tpp_alternatives: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """``geforce`` / ``other`` -> the China-market parts named for a part found by its TPP."""

    def get(self, part_id: str) -> ControlledPart | None:
        return self.parts.get(part_id)


def load_export_controls(path: str | Path,
                         known_parts: Collection[str] | None = None) -> ExportControls:
    """The controls in the file at ``path``. ``known_parts`` (the catalog's ids) makes a part
    or alternative the catalog does not have an error. Raises InputError naming the file, the
    entry and the field."""
    path = Path(path)
    where = str(path)
    doc = upgrade_document(parse_json_text(read_text_file(path), where),
                           EXPORT_CONTROLS_FORMAT, EXPORT_CONTROLS_VERSION, where=where)
    check_keys(doc, _DOC_KEYS | _OPTIONAL_DOC_KEYS, where)
    _require(doc, _DOC_KEYS, where)
    rules: dict[str, ExportRule] = {}
    for i, raw in enumerate(_list(doc, "rules", where)):
        rule = _rule(raw, f"{where}: rules[{i}]")
        if rule.id in rules:
            raise InputError(f"{where}: rules[{i}]: rule id {rule.id!r} is used twice")
        rules[rule.id] = rule
    parts: dict[str, ControlledPart] = {}
    for i, raw in enumerate(_list(doc, "parts", where)):
        part = _part(raw, rules, known_parts, f"{where}: parts[{i}]")
        if part.part_id in parts:
            raise InputError(f"{where}: parts[{i}]: part {part.part_id!r} is listed twice")
        parts[part.part_id] = part
    return ExportControls(note=msg_field(doc, "note", where), rules=rules, parts=parts,
                          tpp_alternatives=_tpp_alternatives(doc, known_parts, where))


def _tpp_alternatives(doc: dict[str, Any], known: Collection[str] | None,
                      where: str) -> dict[str, tuple[str, ...]]:
    raw = doc.get("tpp_alternatives")
    if raw is None:
        return {}
    where = f"{where}: tpp_alternatives"
    if not isinstance(raw, dict):
        raise InputError(f"{where}: must be an object")
    check_keys(raw, _TPP_ALTERNATIVE_KEYS, where)
    _require(raw, _TPP_ALTERNATIVE_KEYS, where)
    out: dict[str, tuple[str, ...]] = {}
    for key in sorted(_TPP_ALTERNATIVE_KEYS):
        ids = _ids(raw, key, where)
        if known is not None:
            for pid in ids:
                if pid not in known:
                    raise InputError(f"{where}: part {pid!r} is not in the catalog")
        out[key] = tuple(ids)
    return out


def _require(obj: dict[str, Any], keys: set[str], where: str) -> None:
    missing = sorted(keys - set(obj))
    if missing:
        raise InputError(f"{where}: missing field {missing[0]!r}")


def _list(obj: dict[str, Any], key: str, where: str) -> list[Any]:
    value = obj[key]
    if not isinstance(value, list):
        raise InputError(f"{where}: field '{key}' must be a list")
    return value


def _ids(obj: dict[str, Any], key: str, where: str) -> list[str]:
    values = _list(obj, key, where)
    for value in values:
        if not isinstance(value, str) or not value.strip():
            raise InputError(f"{where}: field '{key}' must list ids (text), got {value!r}")
    return values


def _rule(raw: Any, where: str) -> ExportRule:
    if not isinstance(raw, dict):
        raise InputError(f"{where}: must be an object")
    check_keys(raw, _RULE_KEYS, where)
    _require(raw, _RULE_KEYS, where)
    return ExportRule(id=text_field(raw, "id", where), title=msg_field(raw, "title", where),
                      date=day(raw["date"], f"{where}: field 'date'"),
                      source=url(raw["source"], f"{where}: field 'source'"),
                      summary=msg_field(raw, "summary", where))


def _part(raw: Any, rules: dict[str, ExportRule], known: Collection[str] | None,
          where: str) -> ControlledPart:
    if not isinstance(raw, dict):
        raise InputError(f"{where}: must be an object")
    check_keys(raw, _PART_KEYS, where)
    _require(raw, _PART_KEYS, where)
    part_id = text_field(raw, "part_id", where)
    rule_ids = _ids(raw, "rules", where)
    if not rule_ids:
        raise InputError(f"{where}: field 'rules' must name at least one rule")
    for rule_id in rule_ids:
        if rule_id not in rules:
            raise InputError(f"{where}: rule {rule_id!r} is not in 'rules'")
    alternatives = _ids(raw, "alternatives", where)
    if known is not None:
        for pid in (part_id, *alternatives):
            if pid not in known:
                raise InputError(f"{where}: part {pid!r} is not in the catalog")
    if part_id in alternatives:
        raise InputError(f"{where}: part {part_id!r} is its own alternative")
    return ControlledPart(part_id=part_id, rules=tuple(rules[r] for r in rule_ids),
                          alternatives=tuple(alternatives), note=msg_field(raw, "note", where))


def shipped_controls_path(root: str | Path | None = None) -> Path:
    if root is None:
        from torchrig.resources import resources_dir

        root = resources_dir()
    return Path(root) / "catalog" / FILE_NAME


def shipped_export_controls(root: str | Path | None = None,
                            known_parts: Collection[str] | None = None) -> ExportControls | None:
    """The shipped controls; None when the install ships no such file."""
    path = shipped_controls_path(root)
    return load_export_controls(path, known_parts) if path.exists() else None

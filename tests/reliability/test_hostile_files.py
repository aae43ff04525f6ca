"""Every file TorchRig reads, damaged on purpose: one clear InputError, the file untouched.

Two layers: a table of named cases per kind of file (truncated, wrong types, huge numbers,
NaN/inf, negative quantities, unknown fields and part ids, wrong versions, absurd nesting, a
300 MB file, binary garbage, other encodings, things that are not files), and a hypothesis
property that mutates valid samples at random (see fuzz_targets.py; scripts/fuzz_files.py runs
the same property far longer).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fuzz_targets import (
    TARGETS,
    Target,
    assert_user_message,
    attempt,
    catalog,
    encode,
    hostile_payload,
    samples,
    target_path,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from torchrig.builds.pricelist import load_price_list
from torchrig.errors import InputError

CI = settings(max_examples=50, database=None, derandomize=True, deadline=None)
"""Deterministic and database-free, so CI runs the same cases every time (~8 s in all)."""

JSON_TARGETS = sorted(name for name, t in TARGETS.items() if t.is_json)


def _doc(name: str) -> dict[str, Any]:
    return json.loads(samples(name)[0].decode("utf-8"))


def _refused(target: Target, path: Path, payload: bytes) -> str:
    outcome = attempt(target, path, payload)
    assert not outcome.accepted, f"{target.name} accepted a file it should refuse"
    return outcome.message


# --- damage that every JSON file must survive ---------------------------------------------------


def _with(name: str, change: Callable[[dict[str, Any]], Any]) -> bytes:
    doc = _doc(name)
    change(doc)
    return encode(doc)


def _splice(name: str, extra: bytes) -> bytes:
    """The first sample with ``extra`` written right after its version field."""
    sample = samples(name)[0]
    marker = b'"version": 1'
    assert marker in sample, f"{name}: sample has no {marker!r} to splice at"
    return sample.replace(marker, marker + extra, 1)


GENERIC: dict[str, Callable[[str], bytes]] = {
    "truncated": lambda n: samples(n)[0][: len(samples(n)[0]) // 2],
    "root is a list": lambda n: b"[1, 2, 3]",
    "root is text": lambda n: b'"torchrig"',
    "NaN literal": lambda n: _splice(n, b', "x": NaN'),
    "-Infinity literal": lambda n: _splice(n, b', "x": -Infinity'),
    "1e400 overflows to inf": lambda n: _splice(n, b', "x": 1e400'),
    "5000-digit integer": lambda n: _splice(n, b', "x": 1' + b"0" * 5000),
    "integer beyond 64 bits": lambda n: _splice(n, b', "x": 18446744073709551616'),
    "lone surrogate escape": lambda n: _splice(n, b', "x": "\\ud800"'),
    "nested 100000 deep": lambda n: _splice(n, b', "x": ' + b"[" * 100_000 + b"]" * 100_000),
    "nested 65 deep": lambda n: _splice(n, b', "x": ' + b"[" * 65 + b"]" * 65),
    "format missing": lambda n: _with(n, lambda d: d.pop("format")),
    "format of another file": lambda n: _with(n, lambda d: d.update(format="torchrig.other")),
    "version missing": lambda n: _with(n, lambda d: d.pop("version")),
    "version 0": lambda n: _with(n, lambda d: d.update(version=0)),
    "version as text": lambda n: _with(n, lambda d: d.update(version="1")),
    "version true": lambda n: _with(n, lambda d: d.update(version=True)),
    "binary garbage": lambda n: bytes(range(256)) * 4,
    "latin-1 byte": lambda n: _splice(n, b', "x": "\xe9"'),
    "UTF-16": lambda n: samples(n)[0].decode("utf-8").encode("utf-16"),
    "empty": lambda n: b"",
    "only a BOM": lambda n: b"\xef\xbb\xbf",
    "NUL bytes": lambda n: b"\x00" * 64,
}


@pytest.mark.parametrize("case", sorted(GENERIC))
@pytest.mark.parametrize("name", JSON_TARGETS)
def test_damaged_json_is_refused_clearly(name: str, case: str, tmp_path: Path) -> None:
    target = TARGETS[name]
    _refused(target, target_path(target, tmp_path), GENERIC[case](name))


@pytest.mark.parametrize("name", JSON_TARGETS)
def test_newer_version_is_refused_naming_it(name: str, tmp_path: Path) -> None:
    target = TARGETS[name]
    message = _refused(target, target_path(target, tmp_path),
                       _with(name, lambda d: d.update(version=7)))
    assert "version 7" in message and "newer" in message


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_every_valid_sample_loads_and_is_usable(name: str, tmp_path: Path) -> None:
    """The baseline for everything else here: undamaged samples are accepted."""
    target = TARGETS[name]
    path = target_path(target, tmp_path)
    for sample in samples(name):
        assert attempt(target, path, sample).accepted


UNKNOWN_FIELD_REFUSED = sorted(set(JSON_TARGETS) - {"bench-report", "collective-report"})
"""Reports written by the benchmark ignore top-level fields they do not know (open, see
docs/reliability.md); every file people edit by hand refuses them."""


@pytest.mark.parametrize("name", UNKNOWN_FIELD_REFUSED)
def test_unknown_top_level_field_is_named(name: str, tmp_path: Path) -> None:
    target = TARGETS[name]
    message = _refused(target, target_path(target, tmp_path),
                       _with(name, lambda d: d.update(colour="red")))
    assert "colour" in message


@pytest.mark.parametrize("name", sorted(set(UNKNOWN_FIELD_REFUSED) - {"workload"}))
def test_unknown_field_with_a_line_break_keeps_the_message_on_one_line(
        name: str, tmp_path: Path) -> None:
    """The name is shown quoted. (workload.py prints it raw: open, see docs/reliability.md.)"""
    target = TARGETS[name]
    message = _refused(target, target_path(target, tmp_path),
                       _with(name, lambda d: d.update({"colour\n": "red"})))
    assert "'colour\\n'" in message


# --- damage specific to one kind of file ---------------------------------------------------------


def _line(field: str, value: Any, index: int = 0) -> Callable[[dict[str, Any]], None]:
    return lambda d: d["line_items"][index].update({field: value})


SPECIFIC: list[tuple[str, str, Callable[[dict[str, Any]], Any], str]] = [
    ("build", "negative quantity", _line("quantity", -1), "quantity"),
    ("build", "fractional quantity", _line("quantity", 1.5), "quantity"),
    ("build", "quantity as text", _line("quantity", "2"), "quantity"),
    ("build", "huge quantity", _line("quantity", 10**15), "quantity"),
    ("build", "unknown part id", _line("part_id", "nvidia-rtx-9999"), "nvidia-rtx-9999"),
    ("build", "negative price", lambda d: d["line_items"][-1].update(unit_price="-1"),
     "unit_price"),
    ("build", "price NaN text", lambda d: d["line_items"][-1].update(unit_price="NaN"),
     "unit_price"),
    ("build", "price 1e400 text", lambda d: d["line_items"][-1].update(unit_price="1e400"),
     "unit_price"),
    ("build", "nodes as text", lambda d: d.update(nodes="2"), "nodes"),
    ("build", "zero nodes", lambda d: d.update(nodes=0), "nodes"),
    ("build", "tax rate 1.5", lambda d: d.update(tax_rate="1.5"), "tax_rate"),
    ("build", "discount over 100 %", lambda d: d.update(
        discount={"kind": "percent", "value": "150"}), "discount"),
    ("build", "line items an object", lambda d: d.update(line_items={}), "line_items"),
    ("build", "unknown tier", lambda d: d.update(tier="galactic"), "galactic"),
    ("workload", "negative batch", lambda d: d.update(batch_size=-1), "batch_size"),
    ("workload", "batch as text", lambda d: d.update(batch_size="32"), "batch_size"),
    ("workload", "absurd GPU count", lambda d: d.update(gpus_per_node=10**9), "gpus_per_node"),
    ("workload", "unknown model", lambda d: d.update(model="gpt-17"), "gpt-17"),
    ("workload", "dataset a list", lambda d: d.update(dataset=[]), "dataset"),
    ("bench-report", "negative seconds", lambda d: d["results"][0].update(seconds=-1),
     "seconds"),
    ("bench-report", "unit not SI", lambda d: d["results"][0]["measurements"][0].update(
        unit="GB/s"), "unit"),
    ("bench-report", "results an object", lambda d: d.update(results={}), "results"),
    ("bench-report", "profile cores as text", lambda d: d["profile"]["cpu"].update(
        physical_cores="eight"), "physical_cores"),
    ("bench-report", "profile cache size null", lambda d: d["profile"]["cpu"][
        "cache_bytes"].update(L3=None), "cache_bytes"),
    ("bench-report", "profile reasons null", lambda d: d["profile"]["accelerator"].update(
        unknown=None), "unknown"),
    ("bench-report", "profile gpu without index", lambda d: d["profile"]["gpus"][0].pop(
        "index"), "index"),
    ("collective-report", "zero iterations", lambda d: d["settings"].update(iters=0), "iters"),
    ("collective-report", "negative bytes", lambda d: d["results"][0].update(bytes=-64),
     "bytes"),
    ("collective-report", "busbw edited", lambda d: d["results"][0].update(busbw=1e15),
     "busbw"),
    ("collective-report", "rank missing", lambda d: d["ranks"].pop(), "ranks"),
    ("catalog:catalog/gpus.json", "negative VRAM", lambda d: d["parts"][0]["specs"].update(
        vram_gb=-1), "vram_gb"),
    ("catalog:catalog/gpus.json", "unknown spec field", lambda d: d["parts"][0][
        "specs"].update(warp_drive=True), "warp_drive"),
    ("catalog:catalog/gpus.json", "duplicate part", lambda d: d["parts"].append(
        d["parts"][0]), "already used"),
    ("catalog:catalog/cpus.json", "threads below cores", lambda d: d["parts"][0][
        "specs"].update(threads=1), "threads"),
    ("catalog:catalog/psus.json", "spec field named with a line break", lambda d: d["parts"][
        0]["specs"].update({"\r": 1}), "'\\r'"),
    ("catalog:catalog/sources.json", "sources a list", lambda d: d.update(sources=[]),
     "sources"),
    ("catalog:tiers.json", "tier names an unknown part", lambda d: d["tiers"][0][
        "starter_build"]["lines"][0].update(part_id="nvidia-rtx-9999"), "nvidia-rtx-9999"),
]


@pytest.mark.parametrize(("name", "case", "change", "fragment"), SPECIFIC,
                         ids=[f"{n}-{c}" for n, c, _, _ in SPECIFIC])
def test_bad_field_is_refused_naming_it(name: str, case: str, change: Any, fragment: str,
                                        tmp_path: Path) -> None:
    target = TARGETS[name]
    message = _refused(target, target_path(target, tmp_path), _with(name, change))
    assert fragment in message


PRICE_LIST_CASES = {
    "negative price": ("nvidia-rtx-4090,-5,CNY,2025-06-01", "must not be negative"),
    "price NaN": ("nvidia-rtx-4090,NaN,CNY,2025-06-01", "amount like"),
    "price 1e400": ("nvidia-rtx-4090,1e400,CNY,2025-06-01", "amount like"),
    "price Infinity": ("nvidia-rtx-4090,Infinity,CNY,2025-06-01", "amount like"),
    "bad currency": ("nvidia-rtx-4090,5,EUR,2025-06-01", "currency"),
    "bad date": ("nvidia-rtx-4090,5,CNY,2025-02-30", "date"),
    "short row": ("nvidia-rtx-4090,5", "column"),
    "giant field": ("nvidia-rtx-4090," + "9" * 200_000 + ",CNY,2025-06-01", "CSV"),
}


@pytest.mark.parametrize("case", sorted(PRICE_LIST_CASES))
def test_bad_price_list_rows_are_refused(case: str, tmp_path: Path) -> None:
    row, fragment = PRICE_LIST_CASES[case]
    target = TARGETS["price-list"]
    text = "part_id,price,currency,date\n" + row + "\n"
    assert fragment in _refused(target, target_path(target, tmp_path), text.encode("utf-8"))


@pytest.mark.parametrize("payload", [b"", b"\xff\xfe\x00", b"part_id;price\n1;2\n",
                                     bytes(range(256)), b'"unterminated\n'])
def test_price_list_garbage_is_refused(payload: bytes, tmp_path: Path) -> None:
    target = TARGETS["price-list"]
    _refused(target, target_path(target, tmp_path), payload)


def test_price_list_unknown_ids_are_warnings_not_errors(tmp_path: Path) -> None:
    path = tmp_path / "prices.csv"
    path.write_text("part_id,price,currency,date\nnvidia-rtx-9999,5,CNY,2025-06-01\n")
    plist = load_price_list(path, catalog())
    assert plist.overrides == {} and "nvidia-rtx-9999" in plist.warnings[0]


# --- things that are not small regular files ---------------------------------------------------


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_300_mb_file_is_refused_by_size_before_reading(name: str, tmp_path: Path) -> None:
    """A sparse file: costs no disk, and proves the size check comes before any read."""
    target = TARGETS[name]
    path = target_path(target, tmp_path)
    with open(path, "wb") as handle:
        handle.truncate(300 * 1000 * 1000)
    before = (path.stat().st_size, path.stat().st_mtime_ns)
    # No clock: the size message (not a parse error of 300 MB of zeros) shows that the size
    # was checked first; benchmarks/ time things, tests do not.
    with pytest.raises(InputError) as caught:
        target.load(path)
    assert "MB" in assert_user_message(caught.value, str(path))
    assert (path.stat().st_size, path.stat().st_mtime_ns) == before


@pytest.mark.parametrize("name", ["build", "workload", "bench-report", "collective-report",
                                  "price-list"])
@pytest.mark.parametrize("kind", ["missing", "folder", "fifo", "device"])
def test_not_a_regular_file(name: str, kind: str, tmp_path: Path) -> None:
    """A FIFO would block forever and /dev/zero never ends; both must be refused at once."""
    target = TARGETS[name]
    path = tmp_path / target.filename
    if kind == "folder":
        path.mkdir()
    elif kind == "fifo":
        if not hasattr(os, "mkfifo"):
            pytest.skip("no FIFOs on this OS")
        os.mkfifo(path)
    elif kind == "device":
        if not Path("/dev/zero").exists():
            pytest.skip("no /dev/zero on this OS")
        path = Path("/dev/zero")
    with pytest.raises(InputError) as caught:
        target.load(path)
    assert_user_message(caught.value, str(path))


def test_unreadable_file_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Permission denied (simulated: tests may run as root, who can read anything)."""
    target = TARGETS["build"]
    path = target_path(target, tmp_path)
    path.write_bytes(samples("build")[0])
    real_open = open

    def deny(file: Any, *args: Any, **kwargs: Any) -> Any:
        if str(file) == str(path):
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr("builtins.open", deny)
    with pytest.raises(InputError) as caught:
        target.load(path)
    assert "Permission denied" in assert_user_message(caught.value, str(path))


# --- random damage ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_random_damage_never_escapes_as_another_error(name: str, tmp_path: Path) -> None:
    target = TARGETS[name]
    path = target_path(target, tmp_path)

    @CI
    @given(st.data())
    def run(data: st.DataObject) -> None:
        attempt(target, path, hostile_payload(data, target))

    run()

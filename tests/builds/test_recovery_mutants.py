"""Crash-recovery facts that mutation testing (scripts/mutate.py builds.recovery) found
unpinned: where the copies live and how they are named, whose copies are offered (a gone
process's, the legacy file, not a running process's, not a stranger file), oldest first, how a
damaged copy is moved aside (twice, onto a name already taken) and what is salvaged from it
field by field and line by line. The rules are builds/recovery.py's module doc; the loader's
messages are builds/build.py's, written out here.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from torchrig.builds.build import Build, LineItem
from torchrig.builds.recovery import (
    LEGACY_NAME,
    Recovered,
    find_recoveries,
    new_recovery_path,
    recovery_folder,
    save_recovery,
)
from torchrig.catalog import load_catalog

GPU = "nvidia-rtx-4090"
DEAD_PID = 2**31 - 2  # far above any Linux, macOS or Windows pid: its editor is gone


def _folder() -> Path:
    folder = recovery_folder()
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _write(name: str, doc: object) -> Path:
    path = _folder() / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _recovery_doc(build: dict, original: object = None) -> dict:
    return {"format": "torchrig.recovery", "version": 1, "original": original, "build": build}


def _build_doc(**fields: object) -> dict:
    doc = Build(name="Quote").to_dict()
    doc.update(fields)
    return doc


# --- where and whose ---------------------------------------------------------------------------


def test_the_folder_is_recovery_in_the_data_folder() -> None:
    # tests/conftest.py points TORCHRIG_DATA_DIR at a temporary folder (paths.data_dir).
    assert recovery_folder() == Path(os.environ["TORCHRIG_DATA_DIR"]) / "recovery"


def test_a_new_copy_is_named_after_this_process_with_eight_hex_digits() -> None:
    path = new_recovery_path()
    assert path.parent == recovery_folder()
    # secrets.token_hex(4): 4 random bytes, 8 hex digits.
    assert re.fullmatch(rf"build-{os.getpid()}-[0-9a-f]{{8}}\.json", path.name)


def test_only_copies_whose_owner_is_gone_are_offered() -> None:
    build = Build(name="b").to_dict()
    _write(f"build-{os.getpid()}-00000001.json", _recovery_doc(build))     # this process
    _write(f"build-{os.getppid()}-00000002.json", _recovery_doc(build))    # a running one
    _write("notes.json", _recovery_doc(build))                              # not a copy's name
    (_folder() / f"build-{DEAD_PID}-00000004.json").mkdir()                 # not a file
    gone = _write(f"build-{DEAD_PID}-00000003.json", _recovery_doc(build))
    legacy = _write(LEGACY_NAME, _recovery_doc(build))                      # older versions'
    os.utime(legacy, (1_000_000, 1_000_000))
    os.utime(gone, (2_000_000, 2_000_000))
    assert [found.path for found in find_recoveries()] == [legacy, gone]


def test_oldest_first_by_modification_time_not_by_name() -> None:
    names = [f"build-{DEAD_PID}-0000000{n}.json" for n in (1, 2, 3)]
    paths = [_write(name, _recovery_doc(Build(name=name).to_dict())) for name in names]
    # Modified 3rd, 1st, 2nd: the name order and the age order differ.
    for path, when in zip(paths, (3_000_000, 1_000_000, 2_000_000), strict=True):
        os.utime(path, (when, when))
    assert [found.build.name for found in find_recoveries() if found.build] == [
        names[1], names[2], names[0]]


def test_no_folder_no_recoveries() -> None:
    assert not recovery_folder().exists()
    assert find_recoveries() == []


def test_an_empty_original_is_no_original() -> None:
    _write(f"build-{DEAD_PID}-00000001.json",
           _recovery_doc(Build(name="b").to_dict(), original=""))
    _write(f"build-{DEAD_PID}-00000002.json",
           _recovery_doc(Build(name="c").to_dict(), original="/quotes/c.json"))
    found = {f.build.name: f for f in find_recoveries() if f.build}
    assert found["b"] == Recovered(found["b"].path, Build(name="b"), None)
    assert found["c"].original == Path("/quotes/c.json")


# --- damaged copies ----------------------------------------------------------------------------


def test_a_damaged_copy_is_moved_aside_with_the_loaders_message() -> None:
    path = _write(f"build-{DEAD_PID}-00000001.json",
                  _recovery_doc(_build_doc(name=5)))
    [found] = find_recoveries()
    moved = recovery_folder() / "unreadable" / path.name
    assert found.path == moved and found.moved_to == moved and found.damaged
    assert not path.exists() and moved.is_file()
    assert found.original is None
    # builds/build.py _str: "{where}: name must be text, got int"; where names the file.
    assert found.problem == f"{path}: build: name must be text, got int"
    # Salvaged: the name could not be kept, so the salvage's own name; nothing else was bad.
    assert found.build == Build(name="Recovered build")


def test_two_damaged_copies_in_turn_and_a_name_already_taken() -> None:
    first = _write(f"build-{DEAD_PID}-00000001.json", "not a recovery document")
    [one] = find_recoveries()
    assert one.moved_to == recovery_folder() / "unreadable" / first.name
    assert one.build is None  # the JSON is a string: nothing to salvage
    # The same name again (an "unreadable" folder that exists, and a name already used there).
    _write(first.name, [1, 2])
    [two] = find_recoveries()
    assert two.moved_to == recovery_folder() / "unreadable" / f"{first.stem}-2.json"
    assert two.build is None
    assert (recovery_folder() / "unreadable" / first.name).is_file()


def test_a_damaged_copy_whose_build_is_not_an_object_salvages_nothing() -> None:
    _write(f"build-{DEAD_PID}-00000001.json", _recovery_doc(["not", "a", "build"]))
    [found] = find_recoveries()
    assert found.damaged and found.build is None


def test_salvage_keeps_each_good_field_and_line() -> None:
    good_line = LineItem(part_id=GPU, quantity=2)
    custom = LineItem(text="rack rails", category="other", unit_price=None)
    doc = _build_doc(
        name="Lab quote", customer="ACME", project=7,        # project: not text
        currency="EUR",                                     # not a currency
        tax_rate="0.13", nodes=2,
        line_items=[good_line.to_dict(), {"part_id": GPU, "quantity": 0},
                    "not a line", custom.to_dict()],
        notes="keep me")
    _write(f"build-{DEAD_PID}-00000001.json", _recovery_doc(doc))
    [found] = find_recoveries()
    assert found.damaged
    assert found.build == Build(name="Lab quote", customer="ACME", tax_rate=_dec("0.13"),
                                nodes=2, line_items=[good_line, LineItem(
                                    text="rack rails", category="other")],
                                notes="keep me")


def test_salvage_of_a_copy_with_bad_line_items_keeps_the_header() -> None:
    doc = _build_doc(name="Header only", line_items="not a list", customer="C")
    _write(f"build-{DEAD_PID}-00000001.json", _recovery_doc(doc))
    [found] = find_recoveries()
    assert found.build == Build(name="Header only", customer="C")


def test_salvage_reads_the_copy_at_its_own_build_version() -> None:
    # A version-2 build keeps its notes as the user wrote them, even when they begin with the
    # tier's starter note (the version-1 upgrade, builds/build.py _upgrade_v1, would move that
    # text into tier_note). The salvage once read every copy as version 1.
    tier = load_catalog().tier("entry")
    notes = f"{tier.starter_note.en}\n{tier.starter_note.zh}\nmine"
    doc = _build_doc(tier="entry", notes=notes, currency="EUR")   # EUR: damaged
    assert doc["version"] == 2
    _write(f"build-{DEAD_PID}-00000001.json", _recovery_doc(doc))
    [found] = find_recoveries()
    assert found.build is not None and found.build.notes == notes
    assert found.build.tier == "entry" and found.build.tier_note is None


@pytest.mark.parametrize("version", [3, 0, True, "1", None])
def test_salvage_reads_an_unknown_version_as_the_current_one(version: object) -> None:
    # Not a build version this TorchRig knows (1 or 2; True is not a number in a file):
    # the current rules, so the notes stay whole as in version 2.
    tier = load_catalog().tier("entry")
    notes = f"{tier.starter_note.en}\n{tier.starter_note.zh}\nmine"
    doc = _build_doc(tier="entry", notes=notes, currency="EUR", version=version)
    _write(f"build-{DEAD_PID}-00000001.json", _recovery_doc(doc))
    [found] = find_recoveries()
    assert found.build is not None and found.build.notes == notes


def test_salvage_of_a_version_1_copy_upgrades_it() -> None:
    tier = load_catalog().tier("entry")
    notes = f"{tier.starter_note.en}\n{tier.starter_note.zh}\nmine"
    doc = _build_doc(tier="entry", notes=notes, currency="EUR", version=1)
    del doc["tier_note"]
    _write(f"build-{DEAD_PID}-00000001.json", _recovery_doc(doc))
    [found] = find_recoveries()
    # _upgrade_v1: the tier's note leaves the notes, the user's own words stay.
    assert found.build is not None and found.build.notes == "mine"
    assert found.build.tier_note is not None
    assert found.build.tier_note.text == tier.starter_note


def test_a_copy_saved_here_reads_back_whole() -> None:
    build = Build(name="Whole", line_items=[LineItem(part_id=GPU)], notes="n")
    path = _folder() / f"build-{DEAD_PID}-00000001.json"
    save_recovery(path, build, Path("/q/whole.json"))
    assert find_recoveries() == [Recovered(path, build, Path("/q/whole.json"))]


def _dec(text: str):
    from decimal import Decimal

    return Decimal(text)


def test_a_copy_without_an_original_file_records_none() -> None:
    path = _folder() / f"build-{DEAD_PID}-00000001.json"
    save_recovery(path, Build(name="New"), None)
    assert json.loads(path.read_text(encoding="utf-8"))["original"] is None
    assert find_recoveries() == [Recovered(path, Build(name="New"), None)]


def test_saving_a_copy_never_raises(tmp_path: Path) -> None:
    # A safety net must not interrupt editing: a folder that cannot be made (its parent is a
    # file: OSError) and a target that is a folder (jsonio refuses it with InputError).
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    save_recovery(blocker / "recovery" / "copy.json", Build(name="b"), None)
    folder_target = tmp_path / "is-a-folder.json"
    folder_target.mkdir()
    save_recovery(folder_target, Build(name="b"), None)
    assert folder_target.is_dir() and blocker.read_text(encoding="utf-8") == "x"


def test_salvage_of_line_items_that_are_a_number() -> None:
    _write(f"build-{DEAD_PID}-00000001.json",
           _recovery_doc(_build_doc(name="N", line_items=5, customer="C")))
    [found] = find_recoveries()
    assert found.build == Build(name="N", customer="C")

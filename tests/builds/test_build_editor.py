"""The Build page's editor without widgets (builds/build_editor.py): each edit, the messages of
refused ones, the priced state, dirty/saved bookkeeping, recovery copies and snapshot/restore.

Expected values are worked out in the test (a line total is quantity x unit price, a rounded
rate is rounded by hand) or written from the source that owns a message (the money parser's
"must be an amount like"), never by asking the editor a second way.
"""

from __future__ import annotations

import datetime
import json
from decimal import Decimal

import pytest

from torchrig.builds.build import Build, Discount, ExchangeRate, LineItem, load_build
from torchrig.builds.build_editor import (
    BuildEditor,
    EditorWords,
    HeaderError,
    HeaderValues,
    NewBuildDefaults,
    new_build,
    parse_price,
)
from torchrig.builds.recovery import recovery_folder, save_recovery
from torchrig.catalog import load_catalog
from torchrig.errors import InputError

GPU = "nvidia-rtx-4090"
CPU = "intel-core-i9-13900k"
TODAY = datetime.date(2026, 3, 14)
DEAD_PID = 2**31 - 2  # far above any Linux, macOS or Windows pid: its editor is gone


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


@pytest.fixture
def editor(catalog, tmp_path):
    return BuildEditor(catalog, Build(name="Lab box", currency="CNY"),
                       recovery_file=tmp_path / "recovery" / "mine.json")


def _header(build: Build, **changes) -> HeaderValues:
    """The header fields as the page shows ``build``, with ``changes`` typed over them."""
    values = dict(name=build.name, customer=build.customer, project=build.project,
                  nodes=build.nodes, currency=build.currency, rate=0.0, rate_date="",
                  tax_percent=0.0, discount=0.0, discount_kind="percent")
    values.update(changes)
    return HeaderValues(**values)


# --- a new build ------------------------------------------------------------------------------


def test_a_new_build_takes_the_settings_currency_and_rounded_rate():
    build = new_build(NewBuildDefaults("USD", 7.123456, "2026-01-05"), "New build")
    assert (build.name, build.currency) == ("New build", "USD")
    assert build.exchange_rate == ExchangeRate(Decimal("7.1235"), "2026-01-05")
    assert build.line_items == []
    assert new_build(NewBuildDefaults("CNY", 0.0, ""), "x").exchange_rate is None


def test_a_default_rate_without_its_date_is_left_out():
    # Settings from before the dialog asked for the date: the file could not hold the rate.
    assert new_build(NewBuildDefaults("CNY", 7.1, ""), "x").exchange_rate is None


def test_the_editor_names_new_builds_in_the_users_language(catalog, tmp_path):
    editor = BuildEditor(catalog, Build(name="x"), EditorWords(new_build="新配置"),
                         recovery_file=tmp_path / "r.json")
    assert editor.blank(NewBuildDefaults()).name == "新配置"
    tier = editor.from_tier("professional")
    assert tier.tier == "professional" and "Professional research" in tier.name


# --- prices as typed --------------------------------------------------------------------------


@pytest.mark.parametrize(("typed", "amount"), [
    ("13,500", Decimal("13500")), ("¥12", Decimal("12")), ("USD 7.5", Decimal("7.5")),
    ("  CNY 1,234.50 ", Decimal("1234.50")), ("￥0.0000001", Decimal("0.0000001")),
    ("", None), ("   ", None), ("$", None),
])
def test_typed_prices(typed, amount):
    assert parse_price(typed) == amount


@pytest.mark.parametrize("typed", ["1e3", "abc", "12.5.1", "1_000"])
def test_a_price_the_file_cannot_hold_gets_the_money_parsers_message(typed):
    with pytest.raises(InputError) as caught:
        parse_price(typed, "Unit price")
    assert str(caught.value) == f'Unit price must be an amount like "12999.00", got {typed!r}'


def test_the_price_field_is_named_in_the_users_language(catalog, tmp_path):
    editor = BuildEditor(catalog, Build(name="x"), EditorWords(unit_price="单价"),
                         recovery_file=tmp_path / "r.json")
    with pytest.raises(InputError, match="^单价 must be an amount"):
        editor.parse_price("abc")


# --- line edits -------------------------------------------------------------------------------


def test_adding_a_part_twice_adds_to_its_line(editor):
    once = editor.with_part(GPU)
    assert once.line_items == [LineItem(part_id=GPU, quantity=1)]
    assert editor.build.line_items == []          # an edit is a new build, not applied yet
    editor.set_build(once)
    editor.set_build(editor.with_part(CPU))
    editor.set_build(editor.with_part(GPU, 2))
    assert [(i.part_id, i.quantity) for i in editor.build.line_items] == [(GPU, 3), (CPU, 1)]


def test_removing_lines(editor):
    editor.set_build(Build(name="b", line_items=[
        LineItem(part_id=GPU), LineItem(part_id=CPU),
        LineItem(text="Rails", category="other", quantity=1)]))
    assert editor.without_lines([2, 0]).line_items == [LineItem(part_id=CPU)]
    assert editor.without_lines([]).line_items == editor.build.line_items


@pytest.mark.parametrize("typed", ["0", "10001", "-1", "2.5", "abc", ""])
def test_a_quantity_outside_1_to_10000_is_refused_with_the_words_given(editor, typed):
    editor.set_build(editor.with_part(GPU))
    with pytest.raises(InputError) as caught:
        editor.with_cell(0, "quantity", typed)
    assert str(caught.value) == "Quantity must be a whole number from 1 to 10,000."


def test_a_typed_quantity_and_price_give_the_line_total(editor):
    editor.set_build(editor.with_part(GPU))
    editor.set_build(editor.with_cell(0, "quantity", " 3 "))
    editor.set_build(editor.with_cell(0, "unit_price", "1,234.50", today=TODAY))
    line = editor.build.line_items[0]
    assert (line.quantity, line.unit_price, line.currency) == (3, Decimal("1234.50"), "CNY")
    assert (line.price_source, line.price_date, line.price_kind) == \
        ("edited in TorchRig", "2026-03-14", "")
    assert editor.priced.lines[0].total == Decimal("3703.50")      # 3 x 1,234.50
    assert editor.priced.total == Decimal("3703.50")
    assert editor.with_cell(0, "quantity", "10000").line_items[0].quantity == 10_000


def test_clearing_a_price_goes_back_to_the_catalogs(editor):
    editor.set_build(editor.with_part(GPU))
    editor.set_build(editor.with_cell(0, "unit_price", "9", today=TODAY))
    cleared = editor.with_cell(0, "unit_price", "  ").line_items[0]
    assert cleared == LineItem(part_id=GPU, quantity=1)


def test_a_refused_price_keeps_the_line(editor):
    editor.set_build(editor.with_part(GPU))
    with pytest.raises(InputError, match="must be an amount like"):
        editor.with_cell(0, "unit_price", "1e3")
    # -5 parses as money; the build loader is the one that refuses it.
    with pytest.raises(InputError) as caught:
        editor.with_cell(0, "unit_price", "-5", today=TODAY)
    assert str(caught.value) == "build: line_items[0].unit_price must not be negative"
    assert editor.build.line_items == [LineItem(part_id=GPU, quantity=1)]


def test_a_custom_line(editor):
    build = editor.with_custom_line("  Rack rails ", "other", 2, "USD 80", "cluster")
    assert build.line_items == [LineItem(text="Rack rails", category="other", quantity=2,
                                         unit_price=Decimal("80"), currency="CNY",
                                         scope="cluster")]
    unpriced = editor.with_custom_line("Cables", "other", 1, "", "node").line_items[0]
    assert (unpriced.unit_price, unpriced.currency) == (None, None)


def test_a_custom_line_needs_a_description_first(editor):
    with pytest.raises(InputError) as caught:
        editor.with_custom_line("   ", "other", 1, "abc", "node")
    assert str(caught.value) == "A custom line needs a description."
    with pytest.raises(InputError, match="must be an amount like"):
        editor.with_custom_line("Rails", "other", 1, "abc", "node")


def test_a_custom_line_too_long_for_the_file_is_caught_by_check(editor):
    build = editor.with_custom_line("z" * 501, "other", 1, "", "node")
    with pytest.raises(InputError, match="text is longer than 500"):
        editor.check(build)
    assert editor.check(editor.with_custom_line("z" * 500, "other", 1, "", "node"))


# --- the header -------------------------------------------------------------------------------


def test_header_values_become_the_builds_fields(editor):
    build = editor.with_header(_header(
        editor.build, name="  ", customer="Lab A", project="ViT", nodes=2, currency="USD",
        rate=7.12345, rate_date=" 2026-01-05 ", tax_percent=13.0, discount=5.0))
    assert build.name == "Untitled build"              # an empty name
    assert (build.customer, build.project, build.nodes, build.currency) == \
        ("Lab A", "ViT", 2, "USD")
    assert build.exchange_rate == ExchangeRate(Decimal("7.1235"), "2026-01-05")
    assert build.tax_rate == Decimal("0.13")
    assert build.discount == Discount("percent", Decimal("5"))
    amount = editor.with_header(_header(editor.build, discount=120.456,
                                        discount_kind="amount"))
    assert amount.discount == Discount("amount", Decimal("120.46"))


@pytest.mark.parametrize(("changes", "field", "fragment"), [
    ({"customer": "c" * 201}, "customer", "customer is longer than 200"),
    ({"name": "n" * 201}, "name", "name is longer than 200"),
    ({"rate": 7.1}, "rate_date", "exchange_rate.date"),                 # a rate needs its day
    ({"rate": 7.1, "rate_date": "2025/06/01"}, "rate_date", "exchange_rate.date must be a date"),
    ({"rate": 0.001, "rate_date": "2025-06-01"}, "rate",
     "exchange_rate.cny_per_usd must be a positive rate"),
    ({"tax_percent": 100.0}, "tax", "tax_rate must be a fraction"),
    ({"discount": 150.0}, "discount", "discount.value must be at most 100"),
])
def test_a_header_value_the_file_cannot_hold_names_its_field(editor, changes, field, fragment):
    before = editor.build
    with pytest.raises(HeaderError) as caught:
        editor.with_header(_header(editor.build, **changes))
    assert caught.value.field == field and fragment in str(caught.value)
    assert editor.build is before


# --- dirty, saved, recovery -------------------------------------------------------------------


def test_edits_are_unsaved_until_saved(editor, tmp_path):
    assert not editor.dirty and editor.path is None
    editor.set_build(editor.with_part(GPU))
    assert editor.dirty
    editor.autosave()
    assert editor.recovery_file.is_file()
    target = tmp_path / "quote.json"
    editor.save(target)
    assert (editor.path, editor.dirty, editor.clean_state_is_saved) == (target, False, True)
    assert not editor.recovery_file.exists()
    assert load_build(target) == editor.build
    editor.autosave()                                  # clean: nothing to keep
    assert not editor.recovery_file.exists()


def test_a_build_the_file_cannot_hold_is_not_saved(editor, tmp_path):
    editor.set_build(editor.with_custom_line("z" * 501, "other", 1, "", "node"))
    with pytest.raises(InputError):
        editor.save(tmp_path / "bad.json")
    assert editor.dirty and editor.path is None and not (tmp_path / "bad.json").exists()


def test_undoing_back_to_the_saved_state_is_clean_only_for_a_saved_document(editor):
    editor.begin_document(saved=False)                 # e.g. started from a tier
    editor.set_build(editor.with_part(GPU))
    editor.autosave()
    assert editor.reached_clean_state() is False and editor.dirty
    assert editor.recovery_file.is_file()
    editor.begin_document(saved=True)                  # e.g. opened from its file
    editor.set_build(editor.build, dirty=False)
    editor.set_build(editor.with_part(CPU))
    editor.autosave()
    assert editor.reached_clean_state() is True
    assert not editor.dirty and not editor.recovery_file.exists()
    assert editor.reached_clean_state() is False       # already clean


def test_discarding_drops_the_recovery_copy(editor):
    editor.set_build(editor.with_part(GPU))
    editor.autosave()
    editor.discard()
    assert not editor.recovery_file.exists()


def test_a_clean_build_has_no_recovery_copy(editor):
    editor.set_build(editor.with_part(GPU))
    editor.autosave()
    editor.set_build(editor.build, dirty=False)
    assert not editor.recovery_file.exists()


@pytest.mark.parametrize(("name", "kept"), [
    ("quote.json", True), ("sheet.PDF", False), ("sheet.pdf", False)])
def test_a_pdf_sheet_is_not_the_builds_file(editor, tmp_path, name, kept):
    path = tmp_path / name
    assert editor.opened(path) is kept
    assert editor.path == (path if kept else None)


def test_a_crashed_editors_build_is_offered_and_taken_over(editor, tmp_path):
    left = Build(name="Left behind", line_items=[LineItem(part_id=GPU, quantity=2)])
    original = tmp_path / "original.json"
    theirs = recovery_folder() / f"build-{DEAD_PID}-abcd1234.json"
    save_recovery(theirs, left, original)
    [found] = editor.recoveries()
    assert found.build == left and found.original == original and not found.damaged
    build = editor.take_recovery(found)
    assert build == left and editor.path == original
    editor.begin_document(saved=False)
    editor.set_build(build, dirty=True)
    editor.took_recovery(found)
    assert not theirs.exists()
    saved = json.loads(editor.recovery_file.read_text(encoding="utf-8"))
    assert saved["build"] == left.to_dict() and saved["original"] == str(original)
    assert editor.recoveries() == []


def test_a_declined_recovery_is_removed_and_a_damaged_one_is_kept(editor):
    folder = recovery_folder()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"build-{DEAD_PID}-0001.json").write_text("{not json", encoding="utf-8")
    save_recovery(folder / f"build-{DEAD_PID}-0002.json", Build(name="Fine"), None)
    found = {f.build.name if f.build else None: f for f in editor.recoveries()}
    damaged = next(f for f in found.values() if f.damaged)
    editor.decline(found["Fine"])
    assert not found["Fine"].path.exists()
    editor.set_build(editor.with_part(GPU))
    editor.took_recovery(damaged)                      # kept where it was moved: user data
    assert damaged.path.exists()


# --- snapshot / restore -----------------------------------------------------------------------


@pytest.mark.parametrize("dirty", [True, False])
def test_snapshot_and_restore_round_trip(editor, catalog, tmp_path, dirty):
    editor.set_build(editor.with_part(GPU), dirty=dirty)
    editor.path = tmp_path / "quote.json"
    state = editor.snapshot()
    assert state == {"build": editor.build, "path": tmp_path / "quote.json", "dirty": dirty}
    other = BuildEditor(catalog, Build(name="other"), recovery_file=tmp_path / "other.json")
    other.set_build(other.build)                       # unsaved edits with a recovery copy
    other.autosave()
    assert other.recovery_file.is_file()
    other.restore(state)
    assert other.snapshot() == state
    assert other.clean_state_is_saved is (not dirty)
    assert other.priced.lines[0].part_id == GPU
    # A clean build's recovery copy goes; an unsaved one keeps it until the next autosave.
    assert other.recovery_file.exists() is dirty


def test_the_priced_state_and_findings_follow_the_build(editor):
    assert editor.priced.lines == () and editor.priced.total == Decimal("0")
    editor.set_build(editor.with_part(GPU))
    assert [line.part_id for line in editor.priced.lines] == [GPU]
    # A GPU alone: no CPU, board or power supply yet.
    assert any("cpu" in finding.code for finding in editor.findings)

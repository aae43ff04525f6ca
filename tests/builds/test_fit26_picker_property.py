"""One source of truth with the picker (issue 26): machines built only from the parts the
picker's "compatible with this build" filter offers (``part_fit.compatible_parts``), category
by category in a random order, never get a Blocker, and neither does replacing any line with
a part the filter offers for that line (``replacing``), as the Build page's Replace does.

A category the filter offers nothing for is left out (the catalog has, say, no SP3 board for
an EPYC 7543): the machine is then incomplete, which is a Warning, not a Blocker.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from torchrig.builds.build import Build, LineItem
from torchrig.builds.compat import check_build
from torchrig.builds.part_fit import compatible_parts, with_candidate
from torchrig.catalog import Catalog, load_catalog
from torchrig.findings import Severity

CATEGORIES = ("cpu", "motherboard", "memory", "storage", "gpu", "psu", "case", "cpu_cooler")
CAT: Catalog = load_catalog()


def _blockers(build: Build) -> list[str]:
    return [f.code for f in check_build(build, CAT) if f.severity is Severity.BLOCKER]


def _machine(order: tuple[str, ...] | list[str], pick) -> Build:  # type: ignore[no-untyped-def]
    build = Build(name="property", currency="USD", line_items=[])
    for category in order:
        offered = sorted(compatible_parts(CAT.by_category(category), build, CAT))
        if offered:
            build = Build(name="property", currency="USD",
                          line_items=[*build.line_items, LineItem(part_id=pick(category,
                                                                               offered))])
    return build


def _check_replacements(build: Build, pick) -> None:  # type: ignore[no-untyped-def]
    for i, item in enumerate(build.line_items):
        category = CAT.get(item.part_id or "").category
        offered = sorted(compatible_parts(CAT.by_category(category), build, CAT, replacing=i))
        assert item.part_id in offered  # the part in place is compatible with itself
        replaced = with_candidate(build, CAT.get(pick(category, offered)), CAT, replacing=i)
        assert _blockers(replaced) == [], replaced.line_items


def test_the_first_offer_in_every_category_makes_a_machine_without_blockers() -> None:
    """A fast, fixed example: always the first part offered (by id)."""
    first = lambda category, offered: offered[0]  # noqa: E731
    # The board first: the first CPU by id (an EPYC 7543) has no SP3 board in the catalog.
    order = ("motherboard", *(c for c in CATEGORIES if c != "motherboard"))
    build = _machine(order, first)
    assert {CAT.get(i.part_id or "").category for i in build.line_items} == set(CATEGORIES)
    assert _blockers(build) == []


@settings(max_examples=8, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(order=st.permutations(CATEGORIES), data=st.data())
def test_machines_from_the_pickers_offers_have_no_blocker(order: list[str],
                                                          data: st.DataObject) -> None:
    def pick(category: str, offered: list[str]) -> str:
        return data.draw(st.sampled_from(offered), label=category)

    build = _machine(order, pick)
    assert _blockers(build) == [], build.line_items
    _check_replacements(build, pick)


def test_every_desktop_board_is_offered_a_graphics_card() -> None:
    """A board whose slot wiring the catalog does not know is not a board with no slots: the
    picker offered no GPU at all for such boards while compat.gpu_slots read the missing wiring
    as "0 x16-size slots" (a false Blocker)."""
    rtx = CAT.get("nvidia-rtx-4090")
    for board in CAT.by_category("motherboard"):
        if board.motherboard.sxm_gpu_slots:
            continue  # an HGX system takes its own SXM modules
        build = Build(name="t", currency="USD", line_items=[LineItem(part_id=board.id)])
        assert compatible_parts([rtx], build, CAT) == {rtx.id}, board.id

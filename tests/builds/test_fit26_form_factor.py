"""Boards against cases by size, and radiators against the case's mounts (issue 26).

Sizes (width x depth, mm): ATX 305 x 244, Micro-ATX 244 x 244, Mini-ITX 170 x 170
(kitbuilder.io glossary); SSI CEB 305 x 266.7, SSI EEB 305 x 330, E-ATX no fixed size
(Corsair, "SSI-EEB and CEB motherboards explained"). The Pro WS TRX50-SAGE is SSI CEB; the
Corsair 7000D takes E-ATX, ATX, Micro-ATX and Mini-ITX (OpenDB); the Define 7 Compact ATX,
Micro-ATX and Mini-ITX (bug.hr).
"""

from __future__ import annotations

from catalog_variants import catalog_with as _cat

from torchrig.builds.build import Build, LineItem
from torchrig.builds.check_node import Node
from torchrig.builds.fit_checks import case_board_limit_mm, fit_checks
from torchrig.catalog import Catalog, load_catalog
from torchrig.catalog.specs import RadiatorMount
from torchrig.findings import Finding, Severity

TRX50 = "asus-pro-ws-trx50-sage-wifi"
C7000D = "corsair-7000d-airflow"
DEFINE7C = "fractal-design-define-7-compact"




def _found(*lines: tuple[str, int], cat: Catalog | None = None) -> dict[str, Finding]:
    build = Build(name="t", currency="USD",
                  line_items=[LineItem(part_id=p, quantity=q) for p, q in lines])
    return {f.code: f for f in fit_checks(Node(build, cat or load_catalog()))}


def test_an_ssi_ceb_board_in_an_e_atx_case_is_no_blocker() -> None:
    found = _found((TRX50, 1), (C7000D, 1))
    assert "fit.board_form" not in found  # the false Blocker
    # E-ATX has no fixed size and the catalog lacks the 7000D's largest board: a check note.
    note = found["fit.board_size_unknown"]
    assert note.severity is Severity.ADVICE
    assert note.numbers == {"board_width_mm": 305.0, "board_depth_mm": 266.7}
    assert "305 x 266.7 mm" in note.fix.en


def test_a_stated_case_maximum_decides() -> None:
    # A 7000D that states boards up to 305 x 277 mm takes the 305 x 266.7 mm CEB board...
    roomy = _cat(**{"corsair-test-277": (C7000D, {"max_board_mm": (305, 277)})})
    assert _found((TRX50, 1), ("corsair-test-277", 1), cat=roomy) == {}
    # ...one stating 305 x 260 mm does not (266.7 > 260).
    tight = _cat(**{"corsair-test-260": (C7000D, {"max_board_mm": (305, 260)})})
    blocker = _found((TRX50, 1), ("corsair-test-260", 1), cat=tight)["fit.board_form"]
    assert blocker.severity is Severity.BLOCKER
    assert blocker.numbers == {"board_width_mm": 305.0, "board_depth_mm": 266.7,
                               "case_width_mm": 305.0, "case_depth_mm": 260.0}


def test_a_ceb_board_in_an_atx_case_is_a_blocker() -> None:
    # ATX, Micro-ATX, Mini-ITX: the largest is 305 x 244 mm; CEB is 266.7 mm deep.
    assert case_board_limit_mm(load_catalog().get(DEFINE7C)) == (305.0, 244.0)
    blocker = _found((TRX50, 1), (DEFINE7C, 1))["fit.board_form"]
    assert blocker.severity is Severity.BLOCKER
    assert blocker.numbers["case_depth_mm"] == 244.0
    assert "305 x 266.7 mm" in blocker.detail.en and "305 x 244 mm" in blocker.detail.en


def test_a_smaller_board_fits_a_case_that_names_only_bigger_ones() -> None:
    # A Micro-ATX board (244 x 244) in a case listing only ATX (305 x 244): it fits by size.
    atx_only = _cat(**{"fractal-test-atx-only": (DEFINE7C, {"board_form_factors": ("ATX",)})})
    assert _found(("gigabyte-b650m-aorus-elite-ax-ice", 1), ("fractal-test-atx-only", 1),
                  cat=atx_only) == {}
    # An ATX board in a Micro-ATX/Mini-ITX case: 305 mm wide against 244.
    matx = _cat(**{"fractal-test-matx": (DEFINE7C, {"board_form_factors": ("Micro-ATX",
                                                                            "Mini-ITX")})})
    found = _found(("asus-rog-strix-x870e-e-gaming-wifi", 1), ("fractal-test-matx", 1),
                   cat=matx)
    assert found["fit.board_form"].numbers["board_width_mm"] == 305.0


MOUNTS = (RadiatorMount("front", (240, 280), 55.0), RadiatorMount("top", (240,), None))
LIQUID = "arctic-liquid-freezer-iii-pro-360"  # 360 mm radiator


def test_a_360_mm_radiator_in_a_case_without_a_360_mm_mount() -> None:
    cat = _cat(**{"fractal-test-240": (DEFINE7C, {"radiator_mounts": MOUNTS})})
    blocker = _found((LIQUID, 1), ("fractal-test-240", 1), cat=cat)["fit.radiator_mount"]
    assert blocker.severity is Severity.BLOCKER
    assert blocker.numbers == {"radiator_mm": 360.0}
    assert "front 240/280; top 240 mm" in blocker.detail.en
    # A case with a 360 mm front mount takes it.
    ok = _cat(**{"fractal-test-360": (DEFINE7C, {"radiator_mounts": (
        RadiatorMount("front", (240, 360), 60.0),)})})
    assert _found((LIQUID, 1), ("fractal-test-360", 1), cat=ok) == {}
    # The shipped case's mounts are unknown (with a reason): not judged.
    assert "radiator_mounts" in load_catalog().get(DEFINE7C).unknown_fields
    assert _found((LIQUID, 1), (DEFINE7C, 1)) == {}


def test_a_radiator_thicker_than_the_mount() -> None:
    cat = _cat(
        **{"fractal-test-360": (DEFINE7C, {"radiator_mounts": (
            RadiatorMount("front", (360,), 55.0),)}),
           "arctic-test-thick": (LIQUID, {"radiator_thickness_mm": 63.0})})
    blocker = _found(("arctic-test-thick", 1), ("fractal-test-360", 1),
                     cat=cat)["fit.radiator_thickness"]
    assert blocker.numbers == {"radiator_thickness_mm": 63.0, "max_thickness_mm": 55.0}
    # 55 mm of room for a 55 mm radiator is enough.
    fits = _cat(**{"fractal-test-360": (DEFINE7C, {"radiator_mounts": (
        RadiatorMount("front", (360,), 55.0),)}),
        "arctic-test-55": (LIQUID, {"radiator_thickness_mm": 55.0})})
    assert _found(("arctic-test-55", 1), ("fractal-test-360", 1), cat=fits) == {}

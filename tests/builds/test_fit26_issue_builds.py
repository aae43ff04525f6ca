"""Issue 26's builds as files (tests/builds/data/issue26/): each false alarm gone, each
missing finding there, with its severity. The other findings of these builds (the cooler's
unknown heat rating, the power checks) belong to other tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from torchrig.builds.build import load_build
from torchrig.builds.compat import check_build
from torchrig.catalog import load_catalog
from torchrig.findings import Severity

DATA = Path(__file__).parent / "data" / "issue26"
B, W, A = Severity.BLOCKER, Severity.WARNING, Severity.ADVICE

EXPECTED: dict[str, tuple[dict[str, Severity], set[str]]] = {
    # file: (findings it must have, codes it must not have)
    "x870e-one-drive": ({}, {"board.m2_gpu_lanes"}),
    "z890-one-drive": ({}, {"board.m2_gpu_lanes"}),
    "x870e-four-drives": ({"board.m2_gpu_lanes": W}, set()),
    "trx50-in-7000d": ({"fit.board_size_unknown": A}, {"fit.board_form"}),
    "trx50-in-define7c": ({"fit.board_form": B}, set()),
    "rdimm-on-am5": ({"compat.module_form": B}, {"board.m2_gpu_lanes"}),
    "wrx90-non-pro": ({"compat.cpu_family": B}, {"compat.dimm_slots_cpu"}),
    "am5-four-dimms": ({"board.memory_2dpc": A}, {"board.m2_gpu_lanes"}),
    "w2400-eight-rdimms": ({"compat.dimm_slots_cpu": B}, set()),
    "b660-14900k": ({"board.bios_update": W}, set()),
    "b650-9950x": ({"board.bios_update": W}, {"compat.gpu_slots"}),
    "f-series-no-gpu": ({"compat.no_display": W}, set()),
}


def test_every_file_is_listed() -> None:
    assert {p.stem for p in DATA.glob("*.json")} == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_issue_build(name: str) -> None:
    cat = load_catalog()
    found = {f.code: f.severity for f in check_build(load_build(DATA / f"{name}.json", cat), cat)}
    must, must_not = EXPECTED[name]
    assert {code: found.get(code) for code in must} == must
    assert not must_not & set(found)

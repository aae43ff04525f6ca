"""``torchrig plan --recommend --for BUILD|TIER|this`` (issue 24): the command line names the
machine a recommendation is bought for, as the Wizard's "Check against" box does, and the
recommendation follows it (planning/buying_for.py). Before, ``plan --recommend`` could name
none and always printed "No build to check against: assumed a workstation ...".

The expected parts are read by hand from the catalog entries (resources/catalog/*.json) and
the shipped builds, and written here:

* builds/entry.json: Corsair RM850x (850 W) and a Core i5-12400F (117 W maximum power). A
  600 W card needs 117 + 600 + 150 (the power check's rest of the system) = 867 W > 850 W,
  so the RTX PRO 6000 Blackwell (600 W) - the pick with no build - does not fit it, nor does
  the H200 NVL (600 W); the RTX 6000 Ada (300 W) does: 117 + 300 + 150 = 567 W.
* SXM modules (gpus.json ``form_factor`` sxm4/sxm5/sxm6): A100 80GB SXM4, H100 SXM, H200
  SXM, H20, B200 SXM6. A workstation never takes one.
* builds/hgx-b200.json: the DGX B200 system (motherboards.json: ``system_chassis``,
  ``sxm_gpu_slots`` 8, ``sxm_gpu_form`` sxm6) with 8 x B200 SXM6: a B200 for 8 GPUs a node is
  bought as that whole system, which the line names.
* PCIe server cards (NVIDIA, ``cooling`` blower or passive): L4, L40S, A100 40GB PCIe, H100
  PCIe, RTX PRO 5000/4500/4000 Blackwell - what a server without a whole SXM system for its
  node takes. The Enterprise tier's starter build is 4 x A100 SXM4 on a server-platform line
  (a server); the Entry and Professional tiers' are desktop workstations.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from plan_cli_checks import SERVER_CARDS, SXM, TOO_HOT_FOR_ENTRY, refused
from torchrig.cli import main

ROOT = Path(__file__).resolve().parents[1]
LORA_8B = ("--task", "llm_finetune_lora", "--model", "llama-3-8b", "--gpus", "1")
SERVE_70B_ON_8 = ("--task", "llm_inference", "--model", "llama-2-70b", "--gpus", "8")


def _recommend(capsys, *argv: str) -> dict:
    assert main(["plan", *argv, "--recommend", "--json"]) == 0
    return json.loads(capsys.readouterr().out)["recommendation"]


def _buyable(rec: dict) -> set[str]:
    return {g["part"] for g in rec["gpus"] if g["buyable"]}


def test_a_workstation_build_gets_only_cards_that_fit_it(capsys):
    """Entry build, Llama 3 8B LoRA on one GPU: with no --for the pick is the 600 W RTX PRO
    6000 Blackwell; for the Entry build it is a card its 850 W supply carries (module doc),
    never an SXM module."""
    before = _recommend(capsys, *LORA_8B)
    assert before["best_value_gpu"] == "nvidia-rtx-pro-6000-blackwell"
    assert before["bought_for"]["machine"] == "workload"
    rec = _recommend(capsys, *LORA_8B, "--for", str(ROOT / "builds" / "entry.json"))
    assert rec["bought_for"]["machine"] == "workstation"
    assert not _buyable(rec) & (SXM | TOO_HOT_FOR_ENTRY)
    assert "nvidia-rtx-6000-ada" in _buyable(rec)  # 567 W on 850 W
    assert rec["best_value_gpu"] not in SXM | TOO_HOT_FOR_ENTRY
    assert rec["bought_for"]["text"]["en"] == ("For this workstation: PCIe cards that fit its "
                                               "case and power supply.")


def test_a_workstation_build_never_gets_an_sxm_part_at_eight_gpus(capsys):
    """Eight GPUs a node with no build offer a B200 SXM module; the Professional workstation
    build (a desktop board) gets none, and the text says what the GPU is for."""
    assert _buyable(_recommend(capsys, *SERVE_70B_ON_8)) & SXM
    argv = ["plan", *SERVE_70B_ON_8, "--recommend", "--for",
            str(ROOT / "builds" / "professional.json")]
    assert main([*argv, "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)["recommendation"]
    assert not _buyable(rec) & SXM
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "For this workstation: PCIe cards that fit its case and power supply, 8 of them." \
        in text
    assert "No build to check against" not in text


def test_the_server_build_gets_the_whole_system(capsys):
    """The DGX B200 build, Llama 2 70B served on 8 GPUs: the B200 is bought only as the whole
    DGX B200 (8 sockets of sxm6), which both languages name."""
    build = str(ROOT / "builds" / "hgx-b200.json")
    rec = _recommend(capsys, *SERVE_70B_ON_8, "--for", build)
    assert rec["bought_for"]["machine"] == "server"
    assert _buyable(rec) & SXM == {"nvidia-b200-sxm"}
    assert main(["plan", *SERVE_70B_ON_8, "--recommend", "--for", build]) == 0
    assert ("For this server: B200 SXM6 180GB (HGX) only as the whole DGX B200"
            in capsys.readouterr().out)
    assert main(["plan", *SERVE_70B_ON_8, "--recommend", "--for", build, "--lang", "zh"]) == 0
    assert "适用于这台服务器：B200 SXM6 180GB (HGX) 只能随整机 DGX B200" in capsys.readouterr().out


@pytest.mark.parametrize(("tier", "machine", "cards"), [
    ("entry", "workstation", None),
    ("professional", "workstation", None),
    # 4 GPUs a node: the catalog's only SXM system has 8 sockets, so PCIe server cards only.
    ("enterprise", "server", SERVER_CARDS),
])
def test_a_tier_is_read_as_its_starter_build(capsys, tier, machine, cards):
    rec = _recommend(capsys, "--task", "llm_inference", "--model", "llama-2-13b", "--gpus", "4",
                     "--for", tier)
    assert rec["bought_for"]["machine"] == machine
    assert not _buyable(rec) & SXM
    if cards is not None:
        assert _buyable(rec) == cards


def test_a_file_named_like_a_tier_is_the_build(capsys, tmp_path, monkeypatch):
    """A path that exists is read as a build, even when its name is a tier's id."""
    (tmp_path / "enterprise").write_text((ROOT / "builds" / "entry.json").read_text("utf-8"),
                                         "utf-8")
    monkeypatch.chdir(tmp_path)
    rec = _recommend(capsys, *LORA_8B, "--for", "enterprise")
    assert rec["bought_for"]["machine"] == "workstation"


def test_bad_for_gives_one_line(capsys, tmp_path):
    bad = tmp_path / "broken.json"
    bad.write_text('{"format": "torchrig.build"', "utf-8")
    line = refused(capsys, *LORA_8B, "--recommend", "--for", "bogus")
    assert line == ("torchrig plan: --for bogus: not a build file, a tier (entry, professional, "
                    "enterprise) or 'this'")
    line = refused(capsys, *LORA_8B, "--recommend", "--for", str(tmp_path / "missing.json"))
    assert line.startswith("torchrig plan: --for ") and line.endswith("missing.json: no such file")
    line = refused(capsys, *LORA_8B, "--recommend", "--for", str(bad))
    assert line.startswith(f"torchrig plan: --for {bad}: not valid JSON")
    line = refused(capsys, *LORA_8B, "--for", "entry")
    assert line == ("torchrig plan: --for names the machine a recommendation is for: add "
                    "--recommend")

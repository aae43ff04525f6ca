"""A recommendation is bought for the machine in hand (issue 24): a workstation build gets only
PCIe cards its fit checks pass, a server build gets SXM modules only as the whole server the
catalog sells (else PCIe server cards), and with no build the workload decides as before -
each line saying, in English and Chinese, what the GPU is for.

The expected parts are read by hand from the catalog entries (resources/catalog/*.json) and
written here:

* SXM modules among the NVIDIA GPUs (``form_factor``): A100 80GB SXM4 (sxm4), H100 SXM and
  H200 SXM and H20 (sxm5), B200 SXM6 (sxm6); the Jetson AGX Orin is a "module" (a computer).
* The only whole system with SXM sockets (motherboards.json, ``system_chassis`` +
  ``sxm_gpu_slots``/``sxm_gpu_form``): NVIDIA DGX B200, 8 sockets of sxm6; so a B200 is
  bought as a DGX B200 for 8 GPUs a node, and no SXM module for 4.
* PCIe server cards (NVIDIA, ``cooling`` blower or passive; none is liquid): L4, L40S,
  A100 40GB PCIe, H100 PCIe (passive); RTX PRO 5000/4500/4000 Blackwell (blower).
* builds/entry.json: Corsair RM850x (850 W), Core i5-12400F (117 W maximum power): a 600 W
  card needs 117 + 600 + 150 (the power check's rest of the system) = 867 W > 850 W, so the
  RTX PRO 6000 Blackwell (600 W) and the H200 NVL (600 W) do not fit it; the RTX 6000 Ada
  (300 W) does: 117 + 300 + 150 = 567 W.
* builds/professional.json: ASUS ROG Maximus Z790 Formula, whose ``gpu_lane_configs`` wire
  at most 2 GPUs (x16, or x8 + x8): no 8 cards of any kind fit it.
* builds/hgx-b200.json: the DGX B200 system board, 8 x B200 SXM6 - a server whose baseboard
  takes SXM modules only (no PCIe GPU slots listed).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from plan_cli_checks import SERVER_CARDS, SXM, TOO_HOT_FOR_ENTRY
from torchrig.builds.build import load_build
from torchrig.builds.capabilities import from_build, from_tier
from torchrig.catalog import load_catalog
from torchrig.planning.advice import advise
from torchrig.planning.plan_output import format_advice_text
from torchrig.planning.workload import default_workload

ROOT = Path(__file__).resolve().parents[2]
WORKSTATION_EN = "For this workstation: PCIe cards that fit its case and power supply."
WORKSTATION_ZH = "适用于这台工作站：装得进其机箱、其电源带得动的 PCIe 显卡。"


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def _build(catalog, name):
    return from_build(load_build(ROOT / "builds" / name, catalog), catalog)


def _workload(model, task, gpus):
    return replace(default_workload(task), model=model, gpus_per_node=gpus, nodes=1)


def _buyable(advice):
    return {o.part.id for o in advice.options if o.buyable}


def test_the_catalog_reads_as_the_module_doc_says(catalog):
    """The hand-read facts above, checked against the catalog files themselves."""
    gpus = json.loads((ROOT / "resources/catalog/gpus.json").read_text("utf-8"))["parts"]

    def form(p):
        f = p["specs"].get("form_factor")
        return f.get("value") if isinstance(f, dict) else f

    assert {p["id"] for p in gpus if p["vendor"] == "NVIDIA"
            and str(form(p)).startswith("sxm")} == SXM
    boards = json.loads((ROOT / "resources/catalog/motherboards.json").read_text("utf-8"))
    with_sockets = [b["id"] for b in boards["parts"] if "sxm_gpu_slots" in b["specs"]]
    assert with_sockets == ["nvidia-dgx-b200"]


@pytest.mark.parametrize("gpus", [1, 8])
def test_a_workstation_build_never_gets_an_sxm_part(catalog, gpus):
    """The 70B fine-tune was told "B200 SXM6 at USD 40,000" for the Professional workstation
    build (a desktop board, case and PSU); now no SXM module is buyable for it, at 1 or 8
    GPUs a node, and the line says what the GPU is for."""
    w = _workload("llama-2-70b", "llm_finetune_full", gpus)
    advice = advise(w, catalog, subject=_build(catalog, "professional.json"))
    assert not _buyable(advice) & SXM
    assert "nvidia-jetson-agx-orin-64gb" not in _buyable(advice)
    rec = advice.recommendation
    assert rec.gpu is None or rec.gpu.id not in SXM
    # No card of that kind runs a 70B full fine-tune, which the line says beside the pick's
    # "no catalog GPU fits".
    none_en, none_zh = " None of them runs this workload.", "其中没有能运行此工作负载的 GPU。"
    if gpus == 1:
        assert advice.bought_for.en == WORKSTATION_EN + none_en
        assert advice.bought_for.zh == WORKSTATION_ZH + none_zh
    else:
        assert advice.bought_for.en == WORKSTATION_EN[:-1] + ", 8 of them." + none_en
        assert advice.bought_for.zh == WORKSTATION_ZH[:-1] + "，共 8 块。" + none_zh
        # Two GPU slots take no eight cards: nothing is buyable, as the headline's "fewer GPUs
        # than the workload uses" says; without the build the loose B200 module was offered.
        assert not _buyable(advice) and rec.gpu is None
        assert advise(w, catalog).recommendation.gpu.id == "nvidia-b200-sxm"


def test_a_workstation_gets_only_cards_that_fit_its_power_supply(catalog):
    """Llama 3 8B LoRA on one GPU: with no build the best value is the 600 W RTX PRO 6000
    Blackwell; the Entry build's 850 W supply cannot carry it (867 W, module doc), so the
    pick is a card that fits, and the two 600 W cards are not buyable for it."""
    w = _workload("llama-3-8b", "llm_finetune_lora", 1)
    assert advise(w, catalog).recommendation.gpu.id == "nvidia-rtx-pro-6000-blackwell"
    advice = advise(w, catalog, subject=_build(catalog, "entry.json"))
    assert not _buyable(advice) & TOO_HOT_FOR_ENTRY
    assert "nvidia-rtx-6000-ada" in _buyable(advice)
    assert advice.recommendation.gpu.id not in TOO_HOT_FOR_ENTRY | SXM
    assert advice.recommendation.gpu.gpu.form_factor == "pcie"


def test_a_server_build_gets_the_whole_system(catalog):
    """Llama 2 70B served on 8 GPUs a node on the DGX B200 build: the B200 is bought as the
    whole DGX B200 (8 x SXM6 sockets), which the line names; the catalog has no price for
    the system, and the line says the price shown is one module's."""
    w = _workload("llama-2-70b", "llm_inference", 8)
    advice = advise(w, catalog, subject=_build(catalog, "hgx-b200.json"))
    assert advice.recommendation.gpu.id == "nvidia-b200-sxm"
    assert _buyable(advice) & SXM == {"nvidia-b200-sxm"}
    line = advice.bought_for
    assert line.en.startswith("For this server: B200 SXM6 180GB (HGX) only as the whole DGX "
                              "B200")
    assert "8 GPUs - not as loose modules" in line.en
    assert "the price shown is one module's" in line.en
    assert line.zh.startswith("适用于这台服务器：B200 SXM6 180GB (HGX) 只能随整机 DGX B200")
    assert "不单独购买模组" in line.zh
    assert advice.to_dict()["bought_for"]["machine"] == "server"


def test_a_server_without_a_whole_system_for_its_node_gets_pcie_server_cards(catalog):
    """4 GPUs a node on the DGX build: the catalog's only SXM system has 8 sockets, so no SXM
    module at all (today's rule allowed a loose one for a 4-GPU node) - PCIe server cards
    instead, and the line says so."""
    w = _workload("llama-2-70b", "llm_inference", 4)
    advice = advise(w, catalog, subject=_build(catalog, "hgx-b200.json"))
    assert _buyable(advice) == SERVER_CARDS
    assert advise(w, catalog).options and _buyable(advise(w, catalog)) & SXM  # before: loose
    assert "the catalog sells no whole SXM server of 4 GPUs, so no SXM module" in \
        advice.bought_for.en
    assert "目录中没有 4 卡的 SXM 整机，因此不推荐 SXM 模组" in advice.bought_for.zh
    assert "this baseboard takes SXM modules only" in advice.bought_for.en


def test_the_enterprise_tier_is_a_server_read_from_its_starter_build(catalog):
    """The Enterprise tier's starter build (4 x A100 SXM4 on a server-platform line, no
    catalog system): a server with no whole SXM system for 4 GPUs, so PCIe server cards;
    the Professional tier's is a workstation."""
    w = _workload("llama-2-13b", "llm_inference", 4)
    advice = advise(w, catalog, subject=from_tier(catalog.tier("enterprise"), catalog))
    assert advice.buying.kind == "server"
    assert _buyable(advice) == SERVER_CARDS
    assert advice.bought_for.en.startswith("For this server: PCIe server cards (blower, "
                                           "passive or liquid cooling) that fit it")
    pro = advise(w, catalog, subject=from_tier(catalog.tier("professional"), catalog))
    assert pro.buying.kind == "workstation" and not _buyable(pro) & SXM


@pytest.mark.parametrize(("gpus", "en", "zh"), [
    (1, "No build to check against: assumed a workstation with 1 GPU - PCIe cards.",
     "没有可核对的配置单：按 1 卡工作站推荐——PCIe 显卡。"),
    (8, "No build to check against: assumed a server of 8 GPUs - PCIe cards, or SXM modules "
        "bought as a whole server.",
     "没有可核对的配置单：按 8 卡服务器推荐——PCIe 显卡，或整机购买的 SXM 模组。"),
])
def test_no_build_keeps_the_workload_rule_and_says_what_it_assumed(catalog, gpus, en, zh):
    """No build in hand: SXM modules only for a 4- or 8-GPU node, as before; the line says
    which machine that assumed, and plan --recommend prints it in either language."""
    w = _workload("llama-2-70b", "llm_inference", gpus)
    advice = advise(w, catalog)
    assert advice.buying.kind == "workload"
    assert (advice.bought_for.en, advice.bought_for.zh) == (en, zh)
    assert bool(_buyable(advice) & SXM) is (gpus == 8)
    assert en in format_advice_text(advice, "en")
    assert zh in format_advice_text(advice, "zh")


def test_the_solvers_other_gpu_is_one_the_build_takes(catalog):
    """The sizing solver's "or another GPU" (the Wizard's changes box and the memory
    finding's fix) offered the Entry build the 600 W RTX PRO 6000 Blackwell its 850 W supply
    cannot carry, and the Professional workstation a B200 SXM module, beside a recommendation
    that said otherwise; it now offers what the recommendation may."""
    from torchrig.planning.analysis import analyze

    entry = analyze(_workload("llama-3-8b", "llm_finetune_lora", 1),
                    _build(catalog, "entry.json"), catalog)
    others = {c.part_id for c in entry.solver.changes if c.kind == "gpu"}
    assert others and not others & (TOO_HOT_FOR_ENTRY | SXM)
    assert "nvidia-rtx-6000-ada" in others  # 117 + 300 + 150 = 567 W on 850 W
    pro = analyze(_workload("llama-2-70b", "llm_inference", 8),
                  _build(catalog, "professional.json"), catalog)
    assert not {c.part_id for c in pro.solver.changes if c.kind == "gpu"} & SXM


def test_the_overkill_finding_names_a_gpu_the_machine_takes(catalog):
    """A small RL network on the DGX B200 build is overkill; the finding named the GeForce
    GTX 1660 Super (a desktop card, cooler unknown) for a server whose baseboard takes SXM
    modules only. It now names a PCIe server card (module doc's list), with the cheapest
    priced one, the RTX PRO 4000 Blackwell at USD 1,500, the expected pick."""
    from torchrig.planning.analysis import analyze

    w = _workload("nature-cnn", "reinforcement_learning", 1)
    analysis = analyze(w, _build(catalog, "hgx-b200.json"), catalog)
    fix = next(f.fix.en for f in analysis.findings if f.code == "analysis.overkill_gpu")
    assert "GTX 1660" not in fix
    names = {catalog.get(pid).name for pid in SERVER_CARDS}
    assert any(fix.startswith(name + " (") for name in names)
    assert fix.startswith("RTX PRO 4000 Blackwell (24 GiB)")


@pytest.mark.parametrize(("lang", "said"), [
    ("en", "No build to check against: assumed a server of 8 GPUs - PCIe cards, or SXM "
           "modules bought as a whole server."),
    ("zh", "没有可核对的配置单：按 8 卡服务器推荐——PCIe 显卡，或整机购买的 SXM 模组。"),
])
def test_the_plan_sheet_says_which_machine_it_assumed(catalog, lang, said):
    """The plan sheet (a workload for a customer with no build yet) says, after its GPU, which
    machine the pick assumed."""
    from torchrig.report.plan_sheet import assemble_plan_sheet
    from torchrig.report.sheet import Header

    sheet = assemble_plan_sheet(_workload("llama-2-70b", "llm_inference", 8), catalog,
                                header=Header(kind="plan"), lang=lang)
    assert said in sheet.recommendation

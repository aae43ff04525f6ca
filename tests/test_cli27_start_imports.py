"""What a CLI process imports stays what its command uses (issue 27): each command line runs in
a fresh interpreter through ``python -m torchrig``'s entry point, and the modules it imported
are checked by name - never by time, which a busy machine makes meaningless.

A module named here as "not imported" is one the command does not use for that command line;
if one comes back, the import that brought it is at fault, not this list.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PLAN = ["plan", "--task", "llm_inference", "--model", "llama-2-7b"]
BUILD = str(ROOT / "builds" / "pro-dual-4090.json")

RUN = textwrap.dedent(
    """
    import contextlib, io, json, sys
    sys.argv = ["torchrig", *json.loads(sys.argv[1])]
    from torchrig.__main__ import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main()
        except SystemExit as exc:
            code = exc.code
    print(json.dumps({"code": code, "out": out.getvalue(), "err": err.getvalue(),
                      "modules": sorted(sys.modules)}))
    """
)

# Packages no plan of a workload alone reads: the catalog (only --gpu/--recommend), the builds,
# hardware detection, the report, benchmarks and verify.
NOT_FOR_A_PLAN = (
    "torchrig.catalog", "torchrig.builds", "torchrig.hardware", "torchrig.report",
    "torchrig.bench", "torchrig.verify", "torchrig.gui",
)
# Modules of the planner itself that only a GPU's plan needs: the device model and its links,
# the data-parallel scaling model and the collective maths under it, the solver and the advice.
ONLY_WITH_A_GPU = (
    "torchrig.planning.device", "torchrig.planning.links",
    "torchrig.planning.requirements.scaling", "torchrig.collective_math",
    "torchrig.planning.solver", "torchrig.planning.advice",
)
# What the planner's options and model come from: neither check nor export (without
# --workload) nor torchrig --help reads them.
PLANNER_INPUTS = ("torchrig.planning.presets", "torchrig.planning.workload")


def _run(args: list[str]) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "app")}
    done = subprocess.run([sys.executable, "-c", RUN, json.dumps(args)], env=env,
                          capture_output=True, text=True, timeout=120, check=True, cwd=ROOT)
    return json.loads(done.stdout)


def _under(modules: list[str], packages: tuple[str, ...]) -> list[str]:
    return [m for m in modules if any(m == p or m.startswith(p + ".") for p in packages)]


def test_a_plan_of_a_workload_alone_imports_no_catalog_no_device_and_no_scaling_model() -> None:
    done = _run(PLAN)
    assert done["code"] == 0 and "VRAM" in done["out"]
    modules = done["modules"]
    assert "torchrig.planning.requirements.planner" in modules  # the run did plan
    assert _under(modules, NOT_FOR_A_PLAN) == []
    assert _under(modules, ONLY_WITH_A_GPU) == []
    # tempfile (and random under it) is for saving files; a plan only reads its presets.
    assert "tempfile" not in modules
    assert "decimal" not in modules  # money is the catalog's and --recommend's
    # argparse's help layout asks the terminal's width (importing shutil, bz2, lzma) only when
    # it lays out help or an error; a plan that prints neither never does.
    assert [m for m in ("shutil", "bz2", "lzma") if m in modules] == []


def test_a_plan_imports_neither_dataclasses_nor_datetime() -> None:
    # The planner's value classes are torchrig.records classes: defining them compiles nothing,
    # and dataclasses (with inspect, ast and dis under it) is left out; datetime is read only
    # for a measurement's date, which this workload has none of.
    done = _run(PLAN)
    assert done["code"] == 0 and "VRAM" in done["out"]
    assert "torchrig.records" in done["modules"]  # its value classes were defined
    assert [m for m in ("dataclasses", "inspect", "ast", "dis", "datetime")
            if m in done["modules"]] == []


def test_an_unknown_gpu_is_refused_without_loading_the_catalog() -> None:
    done = _run([*PLAN, "--gpu", "no-such-gpu"])
    assert done["code"] == 2 and done["out"] == ""
    # The catalog's own words for an id it does not hold (Catalog.get).
    assert done["err"].strip() == "torchrig plan: unknown catalog part id 'no-such-gpu'"
    assert _under(done["modules"], ("torchrig.catalog",)) == []
    # A string the catalog's files hold that is no part id is left to the catalog to refuse.
    done = _run([*PLAN, "--gpu", "gpu"])
    assert done["code"] == 2
    assert done["err"].strip() == "torchrig plan: unknown catalog part id 'gpu'"
    assert "torchrig.catalog.loader" in done["modules"]


def test_a_multi_gpu_plan_without_a_gpu_still_skips_the_scaling_model() -> None:
    # Four GPUs of DDP training: efficiency is "unknown without a GPU", so the scaling model is
    # not consulted - and not imported.
    done = _run(["plan", "--task", "nlp_transformer", "--model", "bert-base", "--gpus", "4",
                 "--json"])
    assert done["code"] == 0
    throughput = json.loads(done["out"])["throughput"]
    assert throughput["scaling_efficiency"] is None
    assert throughput["notes"]["scaling_efficiency"]["en"] == "unknown without a GPU and its speed"
    assert _under(done["modules"], ONLY_WITH_A_GPU) == []


def test_a_plan_on_a_catalog_gpu_imports_what_it_needs() -> None:
    done = _run([*PLAN, "--gpus", "2", "--gpu", "nvidia-rtx-4090", "--json"])
    assert done["code"] == 0
    for name in ("torchrig.catalog.loader", "torchrig.planning.device", "torchrig.planning.links",
                 "torchrig.planning.solver"):
        assert name in done["modules"], name


@pytest.mark.parametrize("args", [
    ["check", BUILD],
    ["export", BUILD, "-o", "-", "--format", "md", "--cny-per-usd", "7.1",
     "--rate-date", "2026-11-30"],
])
def test_check_and_export_do_not_import_the_planner_for_plan_options(args: list[str]) -> None:
    done = _run(args)
    assert done["code"] == 0, done["err"]
    assert "torchrig.catalog.loader" in done["modules"]  # they did read the build's parts
    assert _under(done["modules"], PLANNER_INPUTS) == []


def test_the_top_level_help_imports_no_command_package() -> None:
    done = _run(["--help"])
    assert done["code"] == 0 and "COMMAND" in done["out"]
    for command in ("detect", "plan", "check", "export", "verify", "bench"):
        assert command in done["out"]
    assert _under(done["modules"], (*NOT_FOR_A_PLAN, "torchrig.planning")) == []


def test_a_pdf_export_imports_neither_dataclasses_nor_the_name_matcher(tmp_path: Path) -> None:
    # A 10-line quote, as benchmarks/bench_export_quote.py builds it: the catalog's, the
    # build's, the pricing's and the sheet's value classes are torchrig.records classes, so
    # the export compiles no dataclass methods and leaves dataclasses out (issue 27).
    build = json.loads(Path(BUILD).read_text(encoding="utf-8"))
    sample = build["line_items"]
    build["line_items"] = [sample[i % len(sample)] for i in range(10)]
    path = tmp_path / "quote.json"
    path.write_text(json.dumps(build, ensure_ascii=False), encoding="utf-8")
    out = tmp_path / "quote.pdf"
    done = _run(["export", str(path), "-o", str(out), "--format", "pdf", "--cny-per-usd", "7.1",
                 "--rate-date", "2026-11-30"])
    assert done["code"] == 0, done["err"]
    assert out.read_bytes().startswith(b"%PDF")
    modules = done["modules"]
    for name in ("torchrig.report.pdf", "torchrig.catalog.specs", "torchrig.builds.capabilities"):
        assert name in modules, name  # the quote's own path ran
    assert "dataclasses" not in modules
    # The name matcher is for a detected machine's GPU; a build names its parts by id.
    assert "torchrig.catalog.matching" not in modules

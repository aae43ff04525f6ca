"""``torchrig plan`` loads the catalog only for the flags that read it (issue 27), and says the
same thing either way: each case runs in a fresh interpreter, since what a process imported is
what is tested."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

APP = Path(__file__).resolve().parents[1] / "app"
PLAN = ["plan", "--task", "llm_inference", "--model", "llama-2-7b"]

RUN = textwrap.dedent(
    """
    import contextlib, io, json, sys
    args = json.loads(sys.argv[1])
    if sys.argv[2] == "catalog first":
        from torchrig.catalog import load_catalog
        load_catalog()
    from torchrig.cli import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    print(json.dumps({"code": code, "out": out.getvalue(), "err": err.getvalue(),
                      "catalog": "torchrig.catalog.loader" in sys.modules,
                      "advice": "torchrig.planning.advice" in sys.modules,
                      "planner": "torchrig.planning.requirements.planner" in sys.modules}))
    """
)


def _run(args: list[str], first: str = "") -> dict:
    env = {**os.environ, "PYTHONPATH": str(APP)}
    done = subprocess.run([sys.executable, "-c", RUN, json.dumps(args), first], env=env,
                          capture_output=True, text=True, timeout=120, check=True)
    return json.loads(done.stdout)


def test_a_plan_of_the_workload_alone_loads_no_catalog_and_reads_the_same():
    lazy = _run([*PLAN, "--json"])
    assert lazy["code"] == 0 and not lazy["catalog"] and not lazy["advice"]
    # The same plan in a process that had loaded the catalog before: the same document.
    loaded = _run([*PLAN, "--json"], "catalog first")
    assert loaded["catalog"]
    assert json.loads(lazy["out"]) == json.loads(loaded["out"])
    text = _run(PLAN)
    assert text["code"] == 0 and not text["catalog"] and "VRAM" in text["out"]


def test_a_catalog_gpu_and_the_recommendation_still_load_it():
    on_gpu = _run([*PLAN, "--gpu", "nvidia-rtx-4090", "--json"])
    assert on_gpu["code"] == 0 and on_gpu["catalog"]
    # The RTX 4090 has 24 GB of GDDR6X (NVIDIA's specifications), counted in GiB by the
    # catalog: the plan is for that card, which only the catalog knows.
    assert json.loads(on_gpu["out"])["device"]["vram_bytes"] == 24 * 2**30
    assert json.loads(_run([*PLAN, "--json"])["out"])["device"] is None
    advised = _run([*PLAN, "--recommend", "--json"])
    assert advised["code"] == 0 and advised["advice"]
    assert "recommendation" in json.loads(advised["out"])


def test_an_unknown_gpu_is_one_line_and_exit_2_before_any_planning():
    bad = _run([*PLAN, "--gpu", "no-such-gpu"])
    assert bad["code"] == 2 and bad["out"] == ""
    assert bad["err"].strip().splitlines() == [
        "torchrig plan: unknown catalog part id 'no-such-gpu'"]
    assert not bad["planner"]  # failed on the input, before the planner was imported

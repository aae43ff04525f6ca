"""benchmarks/bench_suite_verify.py's storage check against fio, with a fake fio (issue 27).

The real check times the suite and fio on the disk; here fio is a script that prints fio's
JSON with chosen rates and records its arguments, so the pairing, the ratios and the
verdicts are checked against hand computations, whatever the machine's load.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import stat
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_suite_verify.py"
DOC = Path(__file__).resolve().parents[2] / "docs" / "estimation.md"


@pytest.fixture(scope="module")
def verify():
    spec = importlib.util.spec_from_file_location("bench_suite_verify_under_test", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def _fio_json(rw: str, bw: int, error: int = 0) -> str:
    # the shape of fio 3.x's --output-format=json (the fields the script reads)
    job = {"jobname": "seq", "error": error, "read": {"bw_bytes": 0},
           "write": {"bw_bytes": 0}}
    job[rw]["bw_bytes"] = bw
    return json.dumps({"fio version": "fio-3.33", "jobs": [job]}, indent=2)


def test_fio_rate_reads_the_jobs_side_after_notes_fio_prints_first(verify):
    out = "fio: native_fallocate call failed: Operation not supported\n" + _fio_json(
        "read", 812_345_678)
    assert verify.fio_rate(out, "read") == 812_345_678.0
    with pytest.raises(RuntimeError, match="error 5"):
        verify.fio_rate(_fio_json("write", 1, error=5), "write")


def test_fio_commands_are_the_suites_method_and_the_docs(verify, tmp_path):
    write = verify.fio_command("fio", tmp_path / "f.bin", 256 << 20, "write")
    read = verify.fio_command("fio", tmp_path / "f.bin", 256 << 20, "read")
    for cmd in (write, read):
        assert {"--bs=8M", "--ioengine=psync", "--iodepth=1", f"--size={256 << 20}"} <= set(cmd)
    assert {"--rw=write", "--end_fsync=1"} <= set(write) and "--direct=1" not in write
    assert {"--rw=read", "--direct=1"} <= set(read)
    # the docs give the same commands (sec. 5.6)
    doc = DOC.read_text(encoding="utf-8")
    assert "--bs=8M --ioengine=psync --iodepth=1" in doc
    assert "--rw=write --end_fsync=1" in doc and "--rw=read --direct=1" in doc


def _round(verify, folder="/d", suite=(300e6, 900e6), fio_w=(200e6, 450e6),
           fio_r=(1000e6, 810e6), direct=True, cached=False):
    return verify.StorageRound(folder, suite[0], suite[1], fio_w, fio_r, 1 << 30, 1 << 30,
                               direct, cached)


def test_a_round_compares_the_suite_with_the_fio_runs_around_it(verify):
    r = _round(verify)
    # geometric mean of 200 and 450 is 300 (sqrt(90000)); of 1000 and 810 it is 900
    assert r.fio_write_around == pytest.approx(300e6)
    assert r.write_ratio == pytest.approx(1.0)
    assert r.fio_read_around == pytest.approx(900e6)
    assert r.read_ratio == pytest.approx(1.0)
    assert r.fio_write_noise == pytest.approx(2.25)  # fio disagreed with itself 2.25x
    assert r.fio_read_noise == pytest.approx(0.81)


def test_rows_take_the_median_of_the_rounds_ratios_and_judge_them(verify):
    rounds = [
        _round(verify, suite=(300e6, 900e6)),  # write 1.00, read 1.00
        _round(verify, suite=(360e6, 1200e6)),  # write 1.20, read 1.333
        _round(verify, suite=(330e6, 450e6)),  # write 1.10, read 0.50
        # fio agreed with itself in /e (300 and 300, 900 and 900): a disagreement is the suite's
        _round(verify, folder="/e", suite=(150e6, 990e6), fio_w=(300e6, 300e6),
               fio_r=(900e6, 900e6), direct=False, cached=True),
    ]
    rows = verify.storage_rows(rounds)
    assert [r.name.rsplit(", ", 1)[1] for r in rows] == ["/d (B/s)"] * 2 + ["/e (B/s)"] * 2
    write_d, read_d, write_e, read_e = rows
    assert write_d.suite_over_indep == pytest.approx(1.10)  # median of 1.00, 1.20, 1.10
    assert write_d.suite == 330e6 and write_d.indep == pytest.approx(300e6)
    assert write_d.verdict == "ok"
    assert read_d.suite_over_indep == pytest.approx(1.0)  # median of 1.00, 1.333, 0.50
    assert "range 0.50-1.33" in read_d.method and "fio after/before 0.81-0.81" in read_d.method
    assert "O_DIRECT" in read_d.name
    assert write_e.suite_over_indep == pytest.approx(0.5) and write_e.verdict == "OFF"
    assert "evicted, mincore-checked; CACHED in some round" in read_e.name
    assert read_e.suite_over_indep == pytest.approx(1.1) and read_e.verdict == "ok"


def test_a_disagreement_where_fio_disagrees_with_itself_is_noisy_not_off(verify):
    # fio's write 200 then 450 (x2.25), read 1000 then 810 (x1/0.81 = 1.235): both beyond 15 %
    rows = verify.storage_rows([_round(verify, suite=(450e6, 1200e6))])
    write, read = rows
    assert write.suite_over_indep == pytest.approx(1.5)  # 450 / sqrt(200 x 450) = 450 / 300
    assert write.noise == pytest.approx(2.25) and write.verdict == "noisy"
    assert read.noise == pytest.approx(1 / 0.81) and read.verdict == "noisy"
    # fio within 15 % of itself (300 then 330: x1.10): the same disagreement is OFF
    quiet = verify.storage_rows([_round(verify, suite=(450e6, 900e6),
                                        fio_w=(300e6, 330e6))])[0]
    assert quiet.noise == pytest.approx(1.1) and quiet.verdict == "OFF"
    # and agreement is ok however noisy fio was
    assert verify.storage_rows([_round(verify)])[0].verdict == "ok"


def test_verdicts_at_the_tolerance_edges(verify):
    assert verify.TOLERANCE == 0.15
    row = verify.Row
    assert row("a", 115.0, 100.0, "m").verdict == "ok"
    assert row("a", 116.0, 100.0, "m").verdict == "OFF"
    assert row("a", 84.0, 100.0, "m").verdict == "OFF"
    assert row("a", 1.0, 100.0, "m", tolerance=None).verdict == "scale"
    assert row("a", None, 100.0, "m").verdict == "n/a"
    assert math.isnan(row("a", None, 100.0, "m").suite_over_indep)
    table = verify.format_table([row("copy", 2.0, 1.0, "Timer")])
    assert "2.00" in table and "OFF" in table and "suite/indep" in table


def _fake_fio(tmp_path: Path, rates: dict[str, list[int]]) -> Path:
    """A fio that writes the file it is asked to (so the read has one), prints the next
    chosen rate for its --rw and logs its arguments."""
    log = tmp_path / "fio-calls.jsonl"
    state = tmp_path / "fio-rates.json"
    state.write_text(json.dumps(rates))
    fake = tmp_path / "bin" / "fio"
    fake.parent.mkdir()
    fake.write_text(f"""#!{sys.executable}
import json, sys
args = sys.argv[1:]
opts = dict(a[2:].split("=", 1) for a in args if "=" in a)
with open({str(log)!r}, "a") as fh:
    fh.write(json.dumps(args) + "\\n")
rw = opts["rw"]
if rw == "write":
    with open(opts["filename"], "wb") as fh:
        fh.truncate(int(opts["size"]))
rates = json.load(open({str(state)!r}))
bw = rates[rw].pop(0)
json.dump(rates, open({str(state)!r}, "w"))
job = {{"jobname": "seq", "error": 0, "read": {{"bw_bytes": 0}}, "write": {{"bw_bytes": 0}}}}
job[rw]["bw_bytes"] = bw
print(json.dumps({{"jobs": [job]}}))
""")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    return log


@pytest.mark.skipif(sys.platform == "win32", reason="a script as fio needs a shebang")
def test_rounds_run_fio_before_and_after_the_real_suite_in_each_folder(verify, tmp_path,
                                                                       monkeypatch):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    log = _fake_fio(tmp_path, {"write": [100, 200, 300, 400], "read": [10, 20, 30, 40]})
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(verify, "_settle_disk", lambda: None)
    rounds = verify.storage_rounds([a, b], 1, "smoke")
    assert [r.folder for r in rounds] == [str(a), str(b)]
    # fio before and after the suite: a gets the 1st and 2nd rates, b the 3rd and 4th
    assert [r.fio_write for r in rounds] == [(100.0, 200.0), (300.0, 400.0)]
    assert [r.fio_read for r in rounds] == [(10.0, 20.0), (30.0, 40.0)]
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(calls) == 8  # (write, read) x (before, after) x 2 folders
    files = [next(x for x in c if x.startswith("--filename=")) for c in calls]
    assert all(f.startswith(f"--filename={a}") for f in files[:4])
    assert all(f.startswith(f"--filename={b}") for f in files[4:])
    # the smoke plan's 8 MiB: the same size as the suite's file
    assert all(f"--size={8 << 20}" in c for c in calls)
    for r in rounds:  # the real suite measured its own figures in the same folder
        assert r.suite_bytes == r.fio_bytes == 8 << 20
        assert r.suite_write > 0 and r.suite_read > 0
        assert r.write_ratio == pytest.approx(r.suite_write / math.sqrt(
            r.fio_write[0] * r.fio_write[1]))
    assert sorted(p.name for p in a.iterdir()) == [] == sorted(p.name for p in b.iterdir())


def test_bad_folders_and_round_counts_are_one_clear_message(verify, tmp_path, capsys):
    with pytest.raises(SystemExit):
        verify.main(["--only", "storage", "--storage-folders", str(tmp_path / "nope")])
    assert "no such folder" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        verify.main(["--only", "storage", "--storage-rounds", "0"])
    assert "at least 1" in capsys.readouterr().err


def test_alternated_figures_become_rows_of_medians_judged_on_the_rounds_ratio(verify):
    paired = verify.verify_loops.Paired("DataLoader, num_workers=2 (samples/s)",
                                        (900.0, 1000.0, 1300.0), (1000.0, 800.0, 1000.0),
                                        "plain DataLoader loop")
    (row,) = verify.paired_rows([paired])
    assert row.suite == 1000.0 and row.indep == 1000.0  # medians of each side
    # rounds 0.9, 1.25, 1.3 -> median 1.25: OFF, though the medians' ratio is 1.00
    assert row.suite_over_indep == pytest.approx(1.25) and row.verdict == "OFF"
    assert "range 0.90-1.30" in row.method


def test_a_zero_round_count_for_the_alternated_checks_is_one_clear_message(verify, capsys):
    with pytest.raises(SystemExit):
        verify.main(["--only", "dataload", "--rounds", "0"])
    assert "at least 1" in capsys.readouterr().err

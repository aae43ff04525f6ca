"""Per-rank entry point: launch environment, option errors, MASTER_ADDR locality."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from torchrig.bench.collective.options import CollectiveOptions, parse_options
from torchrig.bench.collective.worker import (
    FAULT_ENV,
    STORE_ENV,
    main,
    master_addr_is_local,
    ops_per_timing,
    read_launch_env,
)
from torchrig.errors import InputError

TORCHRUN_ENV = {"RANK": "1", "WORLD_SIZE": "4", "LOCAL_RANK": "1", "MASTER_ADDR": "127.0.0.1",
                "MASTER_PORT": "29500", "LOCAL_WORLD_SIZE": "2", "GROUP_WORLD_SIZE": "2"}


def test_reads_torchrun_environment():
    env = read_launch_env(TORCHRUN_ENV)
    assert (env.rank, env.world_size, env.local_rank, env.local_world_size, env.nnodes) == \
        (1, 4, 1, 2, 2)
    assert (env.master_addr, env.master_port) == ("127.0.0.1", 29500)


def test_node_count_falls_back_to_world_over_local_world():
    env = {k: v for k, v in TORCHRUN_ENV.items() if k != "GROUP_WORLD_SIZE"}
    env["WORLD_SIZE"] = "6"
    env["LOCAL_WORLD_SIZE"] = "4"
    assert read_launch_env(env).nnodes == 2


def test_missing_environment_says_how_to_launch():
    with pytest.raises(InputError, match="torchrun") as info:
        read_launch_env({"RANK": "0"})
    assert "WORLD_SIZE" in str(info.value)
    assert "torchrig bench --collective" in str(info.value)


@pytest.mark.parametrize(
    ("changes", "message"),
    [({"WORLD_SIZE": "1", "RANK": "0"}, "at least 2 ranks"),
     ({"RANK": "4"}, "not below WORLD_SIZE"),
     ({"RANK": "one"}, "RANK='one'"),
     ({"MASTER_PORT": "0"}, "MASTER_PORT")],
)
def test_bad_environment(changes, message):
    with pytest.raises(InputError, match=message):
        read_launch_env({**TORCHRUN_ENV, **changes})


@pytest.mark.parametrize(
    ("addr", "expected"),
    [("127.0.0.1", True), ("::1", True), ("[::1]", True), ("localhost", True),
     ("10.0.0.5", True), ("10.0.0.6", False), ("myhost", True), ("myhost.lab.example", True),
     ("node17", None)],
)
def test_master_addr_is_local(addr, expected):
    assert master_addr_is_local(addr, local_addresses=["10.0.0.5", "fe80::1%eth0"],
                                hostname="myhost.lab.example") is expected


def test_options_defaults_and_round_trip():
    options = parse_options([])
    assert options.iters == 20 and options.timeout_s == 60
    # nccl-tests' -w 5 on GPUs; 20 for gloo ranks on CPUs, as the plain loop warms up
    # (docs/collective.md, "How it is timed")
    assert options.warmup is None
    assert (options.warmup_for("nccl"), options.warmup_for("gloo")) == (5, 20)
    assert parse_options(["--warmup", "7"]).warmup_for("gloo") == 7
    assert parse_options(options.to_argv()) == options
    assert options.sizes_for("gloo")[-1] == 1024**2
    assert options.sizes_for("nccl")[-1] == 256 * 1024**2
    given = parse_options(["--sizes", "1K..4K", "--ops", "all_gather", "--iters", "3",
                           "--warmup", "0", "--backend", "gloo", "--json", "r.json",
                           "--timeout", "5"])
    assert given == CollectiveOptions(sizes=(1024, 2048, 4096), ops=("all_gather",), iters=3,
                                      warmup=0, backend="gloo", json_path=Path("r.json"),
                                      timeout_s=5.0)
    assert parse_options(given.to_argv()) == given


@pytest.mark.parametrize(
    ("argv", "message"),
    [(["--iters", "0"], "--iters"), (["--warmup", "x"], "--warmup"),
     (["--timeout", "0.5"], "--timeout"), (["--backend", "mpi"], "mpi"),
     (["--bogus"], "--bogus"), (["--sizes", "1Q"], "--sizes")],
)
def test_option_errors(argv, message):
    with pytest.raises(InputError, match=message):
        parse_options(argv)


def test_main_without_torchrun_exits_2_with_one_line(capsys):
    assert main([], environ={}) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "torchrun" in err[0] and "torchrig bench --collective" in err[0]


def test_main_bad_option_exits_2(capsys):
    assert main(["--ops", "broadcast"], environ={}) == 2
    assert "broadcast" in capsys.readouterr().err


def test_main_json_folder_missing_exits_2(tmp_path, capsys):
    env = {**TORCHRUN_ENV, "RANK": "0", "LOCAL_RANK": "0"}
    assert main(["--json", str(tmp_path / "nope" / "r.json")], environ=env) == 2
    assert "does not exist" in capsys.readouterr().err


def test_module_run_directly_exits_2_within_seconds():
    """``python -m torchrig.bench.collective`` without torchrun: the real process path."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT",
                        FAULT_ENV)}
    done = subprocess.run([sys.executable, "-m", "torchrig.bench.collective"], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "not started by torchrun" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(("per_op_s", "expected"), [
    (0.5, 1),        # a slow op: one per interval
    (0.004, 3),      # 3 x 4 ms reaches the 10 ms interval
    (1e-6, 1000),    # a tiny message: capped
    (0.0, 1000),     # below timer resolution: the cap
])
def test_ops_per_timing_makes_each_interval_long_enough(per_op_s, expected):
    assert ops_per_timing(per_op_s) == expected
    if expected < 1000:
        assert expected * per_op_s >= 0.01 or expected == 1


def test_file_store_launch_needs_no_master_address():
    env = {"RANK": "1", "WORLD_SIZE": "2", "LOCAL_RANK": "1", STORE_ENV: "/tmp/s"}
    launch = read_launch_env(env)
    assert (launch.rank, launch.world_size, launch.master_addr, launch.master_port) == (
        1, 2, "127.0.0.1", 0)

"""TorchRig never touches the network: checked at run time and in the source.

Run time: the main code paths run with every way of reaching another machine (connect,
sendto, name resolution) replaced by a recorder that refuses; the recorder must stay empty.
Catching the refusal would hide an attempt, so the test looks at the record, not at errors.

Source: no module under app/torchrig imports a network client library; ``socket`` only where
listed below, for local facts.
"""

from __future__ import annotations

import argparse
import ast
import json
import socket
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from fuzz_targets import (
    PRICE_LIST,
    REPO,
    SAMPLE_BUILDS,
    SAMPLE_WORKLOADS,
    bench_report_doc,
    collective_report_doc,
    encode,
)

APP = REPO / "app" / "torchrig"


class NetworkAttempt(AssertionError):
    pass


def install_recorder(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record (and refuse) every attempt to reach another host or resolve a name."""
    attempts: list[str] = []

    def refuse(name: str) -> Any:
        def call(*args: Any, **_kwargs: Any) -> Any:
            attempts.append(f"{name}{args[1:] if name.startswith('socket.') else args}")
            raise NetworkAttempt(f"network access attempted: {name}")

        return call

    for name in ("connect", "connect_ex", "sendto", "sendmsg"):
        monkeypatch.setattr(socket.socket, name, refuse(f"socket.{name}"))
    for name in ("create_connection", "getaddrinfo", "gethostbyname", "gethostbyname_ex",
                 "gethostbyaddr", "getnameinfo", "getfqdn"):
        monkeypatch.setattr(socket, name, refuse(name))
    return attempts


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    attempts = install_recorder(monkeypatch)
    yield attempts
    assert attempts == [], attempts


def test_the_recorder_sees_every_kind_of_attempt(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above could not fail if the recorder missed these."""
    import urllib.request

    attempts = install_recorder(monkeypatch)

    def udp() -> None:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            sock.sendto(b"x", ("192.0.2.1", 9))

    def tcp() -> None:
        with socket.socket() as sock:
            sock.connect(("192.0.2.1", 80))

    tries = [
        lambda: socket.create_connection(("192.0.2.1", 80), timeout=0.1),
        lambda: socket.getaddrinfo("example.com", 443),
        udp, tcp,
        lambda: urllib.request.urlopen("http://192.0.2.1/", timeout=0.1),
    ]
    for attempt in tries:
        with pytest.raises(Exception):  # noqa: B017 - whatever the caller makes of the refusal
            attempt()
    assert len(attempts) == len(tries)


def test_core_paths_make_no_network_access(no_network: list[str], tmp_path: Path) -> None:
    from torchrig.bench.collective.report import load_collective_report
    from torchrig.bench.findings import bench_findings
    from torchrig.bench.report import load_report
    from torchrig.builds.build import load_build, save_build
    from torchrig.builds.check_output import check_json
    from torchrig.builds.compat import check_build
    from torchrig.builds.pricelist import load_price_list
    from torchrig.builds.pricing import price_build
    from torchrig.catalog import clear_catalog_cache, load_catalog
    from torchrig.hardware import detect, format_profile_text
    from torchrig.planning.requirements import plan
    from torchrig.planning.workload import load_workload

    format_profile_text(detect())
    clear_catalog_cache()
    catalog = load_catalog()
    prices = tmp_path / "prices.csv"
    prices.write_text(PRICE_LIST, encoding="utf-8")
    price_list = load_price_list(prices, catalog)
    for path in SAMPLE_BUILDS:
        build, _ = price_list.apply(load_build(path, catalog))
        json.dumps(check_json(price_build(build, catalog), check_build(build, catalog)))
        save_build(build, tmp_path / path.name)
    for path in SAMPLE_WORKLOADS:
        plan(load_workload(path))
    bench = tmp_path / "bench.json"
    bench.write_bytes(encode(bench_report_doc()))
    bench_findings(load_report(bench))
    collective = tmp_path / "collective.json"
    collective.write_bytes(encode(collective_report_doc()))
    load_collective_report(collective)


def test_detection_with_torch_makes_no_network_access(no_network: list[str]) -> None:
    """Importing torch and asking it about CUDA happens here for real (seconds)."""
    pytest.importorskip("torch")
    from torchrig.hardware import detect

    profile = detect(use_torch=True)
    assert profile.accelerator.torch_loaded or "torch" in profile.probe_errors


def _commands() -> set[str]:
    from torchrig.cli import build_parser

    parser = build_parser()
    return {name for action in parser._actions if isinstance(action, argparse._SubParsersAction)
            for name in action.choices}


def test_cli_makes_no_network_access(no_network: list[str], tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Every subcommand the CLI has today (plan and export join once they are wired up)."""
    from torchrig.cli import main

    build, workload = str(SAMPLE_BUILDS[0]), str(SAMPLE_WORKLOADS[0])
    runs = {
        "detect": [["detect", "--json"], ["detect", "--lang", "zh"]],
        "check": [["check", build, "--json"], ["check", build]],
        "plan": [["plan", "--workload", workload, "--json"]],
        # --draft: the sample has unpriced lines (a draft, refused without it: exit 3).
        "export": [["export", build, "-o", str(tmp_path / "sheet.pdf"), "--workload",
                    workload, "--draft"]],
    }
    available = _commands()
    assert {"detect", "check"} <= available
    for command in sorted(available & set(runs)):
        for argv in runs[command]:
            assert main(argv) in (0, 1), argv  # 1: a check with blocker findings
    capsys.readouterr()


# --- the source -----------------------------------------------------------------------------------

NETWORK_MODULES = {
    "urllib.request", "urllib3", "http.client", "http.server", "requests", "httpx", "aiohttp",
    "ftplib", "smtplib", "poplib", "imaplib", "telnetlib", "xmlrpc", "socketserver", "ssl",
    "websocket", "websockets", "PySide6.QtNetwork", "shiboken6.QtNetwork",
}

SOCKET_ALLOWED: dict[str, set[str]] = {
    # hostname for the profile: a local system call, no lookup
    "hardware/detection.py": {"gethostname"},
    # the collective benchmark: a free port on 127.0.0.1 for torch.distributed's local
    # rendezvous, and which interface holds 127.0.0.1
    "bench/collective/launch.py": {"socket", "AF_INET", "SOCK_STREAM"},
    # each rank reports its host name
    "bench/collective/worker.py": {"gethostname"},
}
"""Modules that may import ``socket``, and the only ``socket.<name>`` each may use."""


def _imported(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif (isinstance(node, ast.Call) and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
              and (isinstance(node.func, ast.Name) and node.func.id == "__import__"
                   or isinstance(node.func, ast.Attribute)
                   and node.func.attr == "import_module")):
            names.add(node.args[0].value)
    return names


def _matches(name: str, modules: set[str]) -> bool:
    return any(name == m or name.startswith(m + ".") for m in modules)


@cache
def _sources() -> tuple[tuple[str, ast.AST], ...]:
    """Every app module, parsed once per test session."""
    return tuple((path.relative_to(APP).as_posix(), ast.parse(path.read_text(encoding="utf-8")))
                 for path in sorted(APP.rglob("*.py")))


def test_no_module_imports_a_network_library() -> None:
    offenders = [f"{rel}: {name}" for rel, tree in _sources() for name in sorted(_imported(tree))
                 if _matches(name, NETWORK_MODULES)]
    assert offenders == []


def test_socket_only_where_allowed_and_only_for_local_facts() -> None:
    offenders = []
    for rel, tree in _sources():
        if not _matches("socket", {n.split(".")[0] for n in _imported(tree)}):
            continue
        if rel not in SOCKET_ALLOWED:
            offenders.append(f"{rel} imports socket")
            continue
        used = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name) and node.value.id == "socket"}
        offenders += [f"{rel} uses socket.{name}" for name in sorted(used - SOCKET_ALLOWED[rel])]
        offenders += [f"{rel}: from socket import ..." for node in ast.walk(tree)
                      if isinstance(node, ast.ImportFrom) and node.module == "socket"]
    assert offenders == []


def test_allow_list_is_not_stale() -> None:
    """An entry for a module that no longer uses socket should go (the list stays honest)."""
    users = {rel for rel, tree in _sources() if "socket" in _imported(tree)}
    assert set(SOCKET_ALLOWED) <= users


def test_static_checks_see_the_imports_they_look_for() -> None:
    tree = ast.parse("import urllib.request\nfrom http import client\n"
                     "import importlib\nimportlib.import_module('requests')\n")
    found = {n for n in _imported(tree) if _matches(n, NETWORK_MODULES)}
    assert found == {"urllib.request", "http.client", "requests"}

"""Source checks for unsafe patterns that a runtime test would only catch by luck.

tests/test_boundaries.py already refuses pickle/marshal/shelve/dill imports, eval/exec calls and
torch.load. This adds: the other ways to run code from a file (yaml.load, numpy's
allow_pickle, joblib, cloudpickle, builtins.eval, shell=True), and temp files made safely
(mkstemp/mkdtemp/TemporaryDirectory; never mktemp or a predictable name in the temp folder),
and every file the app writes for the user written atomically through jsonio.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "app" / "torchrig"

CODE_LOADING_MODULES = {"cloudpickle", "jsonpickle", "joblib", "yaml", "ruamel", "pandas"}
"""Not used today; each can run code from a file (yaml.load without SafeLoader, pickles)."""

UNSAFE_CALLS = {
    ("os", "system"), ("os", "popen"), ("os", "tempnam"), ("os", "tmpnam"),
    ("tempfile", "mktemp"), ("yaml", "load"), ("yaml", "unsafe_load"), ("yaml", "full_load"),
    ("pd", "read_pickle"), ("pandas", "read_pickle"), ("builtins", "eval"),
    ("builtins", "exec"), ("builtins", "compile"),
}
"""``module.function`` calls with no safe use on user data here (a shell, a racy temp name,
code from text)."""

TEMP_PREFIXES = ("/tmp", "/var/tmp", "/dev/shm")
"""A name below one of these is predictable (the folders themselves are fine: storage
detection lists them as mount points)."""


@cache
def _sources() -> tuple[tuple[str, ast.AST], ...]:
    """Every app module, parsed once per test session."""
    return tuple((path.relative_to(APP).as_posix(), ast.parse(path.read_text(encoding="utf-8")))
                 for path in sorted(APP.rglob("*.py")))


def _docstrings(tree: ast.AST) -> set[int]:
    ids: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
                and isinstance(body[0].value, ast.Constant):
            ids.add(id(body[0].value))
    return ids


def _called_name(call: ast.Call) -> str | None:
    if isinstance(call.func, ast.Name):
        return call.func.id
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return None


def _is_gettempdir(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and _called_name(node) == "gettempdir"


def _findings(tree: ast.AST) -> list[str]:
    found: list[str] = []
    docs = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [f"imports {a.name}" for a in node.names
                      if a.name.split(".")[0] in CODE_LOADING_MODULES]
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module.split(".")[0] in CODE_LOADING_MODULES:
                found.append(f"imports {node.module}")
            found += [f"from {node.module} import {a.name}" for a in node.names
                      if a.name in {"eval", "exec", "load", "loads"}
                      and node.module in {"builtins", "torch", "numpy", "pickle"}]
        elif isinstance(node, ast.Call):
            name = _called_name(node)
            if isinstance(node.func, ast.Name) and name == "compile":
                found.append("calls compile()")
            if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) \
                    and (node.func.value.id, node.func.attr) in UNSAFE_CALLS:
                found.append(f"calls {node.func.value.id}.{node.func.attr}()")
            for kw in node.keywords:
                if kw.arg in {"shell", "allow_pickle"} and not (
                        isinstance(kw.value, ast.Constant) and kw.value.value is False):
                    found.append(f"{name}({kw.arg}=...)")
            if name == "join" and any(_is_gettempdir(a) for a in node.args) and any(
                    isinstance(a, (ast.Constant, ast.JoinedStr)) for a in node.args):
                found.append("a fixed name in the temp folder (os.path.join)")
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            sides = (node.left, node.right)
            temp_side = any(_is_gettempdir(s) or isinstance(s, ast.Call) and s.args
                            and _is_gettempdir(s.args[0]) for s in sides)
            if temp_side and any(isinstance(s, (ast.Constant, ast.JoinedStr)) for s in sides):
                found.append("a fixed name in the temp folder (Path / name)")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and id(node) not in docs \
                and node.value.startswith(tuple(f"{p}/" for p in TEMP_PREFIXES)):
            found.append(f"hard-coded temp path {node.value!r}")
    return found


def test_no_unsafe_loading_or_temp_file_patterns_in_app() -> None:
    offenders = [f"{rel}: {what}" for rel, tree in _sources() for what in _findings(tree)]
    assert offenders == []


def test_the_checks_catch_what_they_look_for() -> None:
    bad = """
import yaml
import tempfile, os, subprocess, builtins
from pathlib import Path
from numpy import load
tempfile.mktemp()
open("/tmp/torchrig.json", "w")
os.path.join(tempfile.gettempdir(), "torchrig.lock")
Path(tempfile.gettempdir()) / "cache.json"
subprocess.run("ls", shell=True)
numpy.load("x.npy", allow_pickle=True)
builtins.eval("1")
os.system("ls")
compile("1", "f", "eval")
re.compile("fine")
"""
    found = _findings(ast.parse(bad))
    assert len(found) == 11, found


def test_temp_files_use_the_safe_creators() -> None:
    """Every tempfile call in the app creates the file or folder itself (mkstemp, mkdtemp,
    TemporaryDirectory, NamedTemporaryFile) or asks where the temp folder is."""
    safe = {"mkstemp", "mkdtemp", "TemporaryDirectory", "NamedTemporaryFile",
            "SpooledTemporaryFile", "TemporaryFile", "gettempdir"}
    used = {(rel, node.func.attr) for rel, tree in _sources() for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "tempfile"}
    assert {(rel, name) for rel, name in used if name not in safe} == set()
    assert used, "the scan found no tempfile use at all; is it still looking at app/?"


DIRECT_WRITERS = {
    # the disk benchmark's own scratch files, in a folder it made with mkdtemp
    "bench/benchmarks/storage.py",
    # the collective launcher's log, a mkstemp file it unlinks at once
    "bench/collective/launch.py",
    # the crash log is appended to, line by line (losing a half line to a crash is fine)
    "gui/crash.py",
}
"""Modules that may open files for writing themselves; everything else saves through
``jsonio.atomic_write_*`` (temp file + fsync + rename), so a crash never leaves half a file."""


def _writes_directly(tree: ast.AST) -> bool:
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = _called_name(node)
        if name in {"write_text", "write_bytes"}:
            return True
        if name == "open" and not (isinstance(node.func, ast.Attribute)
                                   and isinstance(node.func.value, ast.Name)
                                   and node.func.value.id == "os"):
            mode = node.args[1] if len(node.args) > 1 else next(
                (kw.value for kw in node.keywords if kw.arg == "mode"), None)
            if isinstance(mode, ast.Constant) and isinstance(mode.value, str) \
                    and set(mode.value) & set("wax+"):
                return True
    return False


def test_user_files_are_saved_atomically() -> None:
    writers = {rel for rel, tree in _sources() if _writes_directly(tree)} - {"jsonio.py"}
    assert writers <= DIRECT_WRITERS, sorted(writers - DIRECT_WRITERS)
    assert _writes_directly(ast.parse("open(p, 'w')")) and _writes_directly(
        ast.parse("Path(p).write_text('x')")) and not _writes_directly(ast.parse("open(p)"))

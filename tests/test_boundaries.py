"""Architecture rules that keep TorchRig easy to change (docs/architecture.md, "Boundaries").

The import graph is read from the source (every ``import``, at module level, inside functions
and under ``TYPE_CHECKING``): no module may reach itself through its imports, and each package
imports only from the layers below it.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

APP = Path(__file__).resolve().parents[1] / "app" / "torchrig"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_only_gui_imports_qt():
    offenders = []
    for path in APP.rglob("*.py"):
        if "gui" in path.relative_to(APP).parts:
            continue
        qt = _imports(path) & {"PySide6", "PyQt5", "PyQt6", "PySide2", "shiboken6"}
        if qt:
            offenders.append(f"{path.relative_to(APP)} imports {sorted(qt)}")
    assert not offenders, offenders


def test_gui_imports_qt_only_through_qt_module():
    offenders = []
    for path in (APP / "gui").rglob("*.py"):
        if path.name == "qt.py":
            continue
        if _imports(path) & {"PySide6", "shiboken6"}:
            offenders.append(str(path.relative_to(APP)))
    assert not offenders, offenders


def test_no_pickle_or_eval_in_app():
    offenders = []
    for path in APP.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        if _imports(path) & {"pickle", "marshal", "shelve", "dill"}:
            offenders.append(f"{path.name}: pickle-like import")
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                    and node.func.id in {"eval", "exec"}:
                offenders.append(f"{path.name}: {node.func.id}()")
            if isinstance(node, ast.Attribute) and node.attr == "load" \
                    and isinstance(node.value, ast.Name) and node.value.id == "torch":
                offenders.append(f"{path.name}: torch.load")
    assert not offenders, offenders


def test_core_import_does_not_load_torch_or_qt():
    """Importing the CLI and running detection must not pull in torch or Qt (start-up speed)."""
    code = (
        "import sys, torchrig.cli, torchrig.hardware as h; h.detect(); "
        "bad = [m for m in ('torch', 'PySide6') if m in sys.modules]; "
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, check=True)
    assert out.stdout.strip() == ""


# --- the module import graph --------------------------------------------------------------------


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolve(name: str, modules: set[str]) -> str | None:
    """The module ``name`` refers to: itself, or the package or module that holds it."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _outer_packages(module: str, importer: str) -> list[str]:
    """The packages Python runs first when ``importer`` imports ``module``: every enclosing
    package's ``__init__`` below the root, except those ``importer`` is itself inside (they
    ran before it did)."""
    parts = module.split(".")
    outer = (".".join(parts[:i]) for i in range(2, len(parts)))
    return [p for p in outer if importer != p and not importer.startswith(p + ".")]


def import_graph(root: Path = APP) -> dict[str, set[str]]:
    """torchrig module -> the torchrig modules it imports (``from pkg import submodule``
    counts as importing the submodule; any other name as importing ``pkg``). Importing
    ``a.b.c`` also imports the packages ``a.b`` and ``a`` on the way, so an ``__init__`` that
    re-exports its modules is an import of each of them."""
    files = {_module_name(p, root): p for p in root.rglob("*.py")}
    modules = set(files)
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in files.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [_resolve(alias.name, modules) for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [_resolve(f"{node.module}.{alias.name}", modules)
                           for alias in node.names]
            else:
                continue
            for target in targets:
                if target is not None and target != module:
                    graph[module].add(target)
                    graph[module].update(p for p in _outer_packages(target, module)
                                         if p in modules)
    return graph


def import_cycles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """Every set of modules that import each other (strongly connected components of more
    than one module), each as one cycle through them, found with Tarjan's algorithm."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(start: str) -> None:
        # Iterative depth-first search: the graph is a few hundred modules deep at most, but a
        # recursive one would make the test depend on the recursion limit.
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        components.append(component)

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return [_cycle_through(sorted(c), graph) for c in components]


def _cycle_through(component: list[str], graph: Mapping[str, Iterable[str]]) -> list[str]:
    """One import path from the component's first module back to itself (breadth first)."""
    members = set(component)
    start = component[0]
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for nxt in sorted(graph[node]):
                if nxt == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [start, *reversed(path[:-1]), start]
                if nxt in members and nxt not in came_from:
                    came_from[nxt] = node
                    following.append(nxt)
        frontier = following
    raise AssertionError(f"no cycle through {component}")


def test_cycle_finder_finds_a_planted_cycle_and_names_its_path():
    """The checker itself: a graph with a three-module cycle beside a clean chain."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"d"}}
    assert import_cycles(graph) == [["a", "b", "c", "a"]]
    assert import_cycles({"x": {"y"}, "y": set()}) == []


def test_graph_counts_imports_inside_functions_and_for_type_checking(tmp_path):
    pkg = tmp_path / "torchrig"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "one.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from torchrig.sub.two import Thing\n")
    (pkg / "sub" / "two.py").write_text(
        "def f():\n    from torchrig.sub import one\n    return one\n")
    graph = import_graph(pkg)
    assert graph["torchrig.sub.one"] == {"torchrig.sub.two"}
    assert graph["torchrig.sub.two"] == {"torchrig.sub.one"}
    assert import_cycles(graph) == [["torchrig.sub.one", "torchrig.sub.two", "torchrig.sub.one"]]


def test_graph_counts_the_package_init_an_import_runs_first(tmp_path):
    """``low`` imports ``pkg.inner``; Python runs ``pkg/__init__`` first, which imports ``user``,
    which imports ``low``: a cycle no single import line shows."""
    pkg = tmp_path / "torchrig"
    (pkg / "pkg").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "pkg" / "__init__.py").write_text("from torchrig.pkg.user import f\n")
    (pkg / "pkg" / "user.py").write_text("from torchrig.low import g\n")
    (pkg / "pkg" / "inner.py").write_text("")
    (pkg / "low.py").write_text("from torchrig.pkg.inner import *\n")
    graph = import_graph(pkg)
    assert graph["torchrig.low"] == {"torchrig.pkg.inner", "torchrig.pkg"}
    assert graph["torchrig.pkg.user"] == {"torchrig.low"}  # inside pkg: its __init__ ran already
    assert import_cycles(graph) == [["torchrig.low", "torchrig.pkg", "torchrig.pkg.user",
                                     "torchrig.low"]]


def test_no_module_imports_itself_back():
    """docs/architecture.md: no module imports another that imports it back, even inside a
    function or only for type checking. A shared piece moves down a level instead."""
    cycles = import_cycles(import_graph())
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


LAYERS: tuple[tuple[str, ...], ...] = (
    ("torchrig", "torchrig.errors", "torchrig.records"),
    ("torchrig.i18n", "torchrig.jsonio", "torchrig.resources", "torchrig.terminal",
     "torchrig.units", "torchrig.paths", "torchrig.file_names", "torchrig.collective_math",
     "torchrig.process_exit"),
    ("torchrig.labels", "torchrig.file_kinds", "torchrig.part_id_scan"),
    ("torchrig.findings",),
    ("torchrig.hardware", "torchrig.catalog"),
    ("torchrig.builds",),
    ("torchrig.planning", "torchrig.bench"),
    ("torchrig.verify",),
    ("torchrig.report",),
    ("torchrig.cli", "torchrig.gui"),
    ("torchrig.__main__",),
)
"""The packages from the bottom up (docs/architecture.md, "Layers"). A module imports its own
package and the layers below; packages side by side in one layer do not import each other.
So the builder's domain (builds) never imports the workload's (planning), the plan and the
benchmark suite are independent, and the plan check (verify) joins them from above."""


def _layer_of(module: str) -> tuple[int, str]:
    """(layer, top-level package) of a module: ``torchrig.bench.collective.report`` is in
    ``torchrig.bench``'s layer."""
    for rank, packages in enumerate(LAYERS):
        for package in packages:
            if package != "torchrig" and (module == package or module.startswith(package + ".")):
                return rank, package
    if module == "torchrig":
        return 0, "torchrig"
    raise AssertionError(f"{module} is in no layer: add its package to LAYERS")


def test_every_import_goes_down_the_layers():
    offenders = []
    for module, targets in sorted(import_graph().items()):
        rank, package = _layer_of(module)
        for target in sorted(targets):
            target_rank, target_package = _layer_of(target)
            if target_package != package and target_rank >= rank:
                offenders.append(f"{module} imports {target}")
    assert not offenders, offenders


def test_no_module_over_800_lines():
    """Long modules mix concerns; past 800 lines one is split by what it does."""
    long = [f"{p.relative_to(APP)}: {n} lines" for p in sorted(APP.rglob("*.py"))
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 800]
    assert not long, long


def test_bench_keeps_its_subsystems_in_packages():
    """The suite's own modules stay flat in bench/; the benchmarks, the collective benchmark
    and the child process live in their packages (at most 12 modules flat)."""
    flat = sorted(p.name for p in (APP / "bench").glob("*.py"))
    assert len(flat) <= 12, flat
    assert {p.name for p in (APP / "bench").iterdir() if p.is_dir() and p.name != "__pycache__"} \
        == {"benchmarks", "collective", "process"}

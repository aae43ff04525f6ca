"""Architecture rules that keep TorchRig easy to change (design.md, "Boundaries")."""

from __future__ import annotations

import ast
import subprocess
import sys
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


def _module_imports(path: Path) -> set[str]:
    """Full dotted names of every absolute import in ``path``, including lazy ones."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_builder_domain_never_imports_workload_domain():
    """design.md: the workload side may use the builder's, never the other way round."""
    offenders = []
    for path in (APP / "builds").rglob("*.py"):
        bad = {m for m in _module_imports(path) if m.startswith("torchrig.planning")}
        if bad:
            offenders.append(f"{path.relative_to(APP)} imports {sorted(bad)}")
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

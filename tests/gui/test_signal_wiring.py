"""Every button, action and check box is wired to a slot whose signature fits its signal.

``clicked``, ``triggered`` and ``toggled`` hand their ``checked`` flag to the slot. PySide6 fills
a Python slot's parameters from the signal's arguments, so a slot whose first parameter means
something else receives ``False`` there: that is how the Benchmark page's Run button called
``start(work=False)`` on every click while every test called ``start()`` directly (issue #12).

The rule this test enforces, statically over ``app/torchrig/gui``: a checked-carrying signal is
connected to a lambda, to a method that takes nothing but ``self`` (or whose first parameter is
named ``checked``), or to a method declared ``@Slot()``. A slot held in a variable cannot be
checked here, so it must be wrapped in a lambda at the connection.
"""

from __future__ import annotations

import ast
from pathlib import Path

GUI = Path(__file__).resolve().parents[2] / "app" / "torchrig" / "gui"
CHECKED_SIGNALS = {"clicked", "triggered", "toggled"}


def _declares_empty_slot(func: ast.FunctionDef) -> bool:
    for deco in func.decorator_list:
        if isinstance(deco, ast.Call) and getattr(deco.func, "id", None) == "Slot" \
                and not deco.args:
            return True
    return False


def _fits(func: ast.FunctionDef) -> bool:
    params = [a.arg for a in func.args.posonlyargs + func.args.args][1:]  # drop self
    if func.args.vararg is not None:
        return False
    return not params or params[0] == "checked" or _declares_empty_slot(func)


def _offenders(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        methods = {f.name: f for f in cls.body if isinstance(f, ast.FunctionDef)}
        for call in (n for n in ast.walk(cls) if isinstance(n, ast.Call)):
            func = call.func
            if not (isinstance(func, ast.Attribute) and func.attr == "connect"
                    and isinstance(func.value, ast.Attribute)
                    and func.value.attr in CHECKED_SIGNALS and call.args):
                continue
            slot = call.args[0]
            where = f"{path.relative_to(GUI)}:{call.lineno}"
            if isinstance(slot, ast.Lambda):
                continue
            if isinstance(slot, ast.Attribute) and isinstance(slot.value, ast.Name) \
                    and slot.value.id == "self":
                target = methods.get(slot.attr)
                if target is None or _fits(target):
                    # Not defined here: a Qt method (close, accept...) or a signal's emit.
                    continue
                found.append(f"{where}: {slot.attr}() would receive 'checked'")
            elif isinstance(slot, ast.Name):
                found.append(f"{where}: slot in variable {slot.id!r}: wrap it in a lambda")
    return found


def test_checked_signals_reach_slots_that_expect_them():
    offenders = [o for path in sorted(GUI.rglob("*.py")) for o in _offenders(path)]
    assert not offenders, "\n".join(offenders)


def test_the_check_catches_the_run_button_bug(tmp_path):
    """The rule would have failed on the shipped Benchmark page."""
    bad = tmp_path / "page.py"
    bad.write_text(
        "class Page:\n"
        "    def __init__(self):\n"
        "        self.run_button.clicked.connect(self.start)\n"
        "    def start(self, work=None):\n"
        "        pass\n", encoding="utf-8")
    global GUI
    saved, GUI = GUI, tmp_path
    try:
        assert _offenders(bad) == ["page.py:3: start() would receive 'checked'"]
    finally:
        GUI = saved

"""Sort mutmut's mutants into kinds: message text, logic, and reviewed equivalents.

mutmut writes every mutant of a module as a function beside the original
(``x_round_cents__mutmut_orig``, ``x_round_cents__mutmut_3``; methods as
``xǁClassǁmethod__mutmut_3``) in ``mutants/src/<package path>.py``. Comparing each mutant's
syntax tree with the original's tells what changed, without running ``mutmut show`` once per
mutant:

- ``text``: only string literals changed, each inside a call that makes a message for people
  (``Msg(...)``, ``InputError(...)``, ``ValueError(...)``...). A test that pins every word of
  every message would be brittle; these still count in the raw score.
- ``logic``: anything else - an operator, a number, a dropped argument, a finding code or a
  dictionary key (strings that programs compare are logic, not text).

A surviving logic mutant may be *equivalent*: no input can tell it from the original (``x >= 0``
for ``x > 0`` where 0 was refused earlier). Those are written down, with why, in the table of
docs/testing.md ("Equivalent mutants"), one row per mutant: its name, the mutated line and the
reason. A row whose line no longer matches the mutant (the code changed and mutmut renumbered)
is reported as stale, and the survivor counts as unexplained again.
"""

from __future__ import annotations

import ast
import difflib
import re
from dataclasses import dataclass
from pathlib import Path

MESSAGE_CALLS = frozenset({"Msg", "InputError", "ValueError", "TypeError", "SystemExit",
                           "AssertionError"})
"""Calls whose string arguments are words for people (torchrig.i18n.Msg, the errors)."""

_MUTANT_NAME = re.compile(r"^(?P<stem>x.+)__mutmut_(?P<n>orig|\d+)$")
_EQUIVALENT_ROW = re.compile(
    r"^\|\s*`(?P<name>torchrig\.[^`]+__mutmut_\d+)`\s*\|\s*`(?P<line>(?:[^`]|``)*)`\s*\|"
    r"(?P<why>.*)\|\s*$")


@dataclass(frozen=True)
class Mutant:
    name: str  # mutmut's key, e.g. torchrig.builds.pricing.x_round_cents__mutmut_3
    kind: str  # "text" or "logic"
    removed: tuple[str, ...]  # the original lines that changed, stripped
    added: tuple[str, ...]  # what the mutant has there, stripped

    @property
    def change(self) -> str:
        """The mutated line(s) as one line: how docs/testing.md names the change."""
        if self.added:
            return " / ".join(self.added)
        return "(removed) " + " / ".join(self.removed)


def module_name(mutants_root: Path, path: Path) -> str:
    """``mutants/src/torchrig/builds/pricing.py`` -> ``torchrig.builds.pricing``."""
    rel = path.relative_to(mutants_root).with_suffix("")
    return ".".join(rel.parts)


def _functions(tree: ast.Module) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    out: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _MUTANT_NAME.match(
                node.name):
            out[node.name] = node
    return out


def _differences(a: object, b: object) -> list[tuple[object, object]]:
    """The outermost places where two syntax trees differ (a node, or a list that changed
    length as a pair of parents)."""
    if type(a) is not type(b):
        return [(a, b)]
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [(a, b)]
        return [d for x, y in zip(a, b, strict=True) for d in _differences(x, y)]
    if not isinstance(a, ast.AST):
        return [] if a == b else [(a, b)]
    out: list[tuple[object, object]] = []
    for field in a._fields:
        va, vb = getattr(a, field, None), getattr(b, field, None)
        if isinstance(va, list) and isinstance(vb, list) and len(va) != len(vb):
            out.append((a, b))  # an argument or element dropped: the parent changed
        elif isinstance(va, (ast.AST, list)) or isinstance(vb, (ast.AST, list)):
            out += _differences(va, vb)
        elif va != vb:
            out.append((a, b))  # a value of this node (a constant, an operator name)
    return out


def _call_name(node: ast.Call) -> str | None:
    if isinstance(node.func, ast.Name):
        return node.func.id
    if isinstance(node.func, ast.Attribute):
        return node.func.attr
    return None


def _in_message(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """True when ``node`` sits in the arguments of a message-making call, within its own
    statement (a string that reaches a message only through a variable is counted as logic)."""
    current = parents.get(node)
    while current is not None and not isinstance(current, ast.stmt):
        if isinstance(current, ast.Call) and _call_name(current) in MESSAGE_CALLS:
            return True
        current = parents.get(current)
    return False


def classify(original: ast.FunctionDef | ast.AsyncFunctionDef,
             mutant: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """``text`` when only message strings differ, else ``logic`` (see module doc)."""
    diffs = [d for field in ("args", "body", "decorator_list", "returns")
             for d in _differences(getattr(original, field), getattr(mutant, field))]
    if not diffs:
        return "logic"  # nothing visible changed: let a person look
    parents: dict[ast.AST, ast.AST] = {}
    for node in ast.walk(original):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    for a, b in diffs:
        both_text = (isinstance(a, ast.Constant) and isinstance(b, ast.Constant)
                     and isinstance(a.value, str) and isinstance(b.value, str))
        if not both_text or not _in_message(a, parents):  # type: ignore[arg-type]
            return "logic"
    return "text"


def _changed_lines(lines: list[str], original: ast.FunctionDef | ast.AsyncFunctionDef,
                   mutant: ast.FunctionDef | ast.AsyncFunctionDef
                   ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The differing lines of two functions, their headers included (a changed default
    argument is a mutant too) with mutmut's names put back to the function's own. ``lines``
    is the file split once: ast.get_source_segment re-splits the whole file per call, which
    takes seconds for a mutated module of thousands of lines."""
    own = _MUTANT_NAME.match(original.name)
    shown = own["stem"].split("ǁ")[-1].removeprefix("x_") if own else original.name
    a = lines[original.lineno - 1:original.end_lineno]
    b = lines[mutant.lineno - 1:mutant.end_lineno]
    a[0] = a[0].replace(original.name, shown, 1)
    b[0] = b[0].replace(mutant.name, shown, 1)
    removed: list[str] = []
    added: list[str] = []
    for line in difflib.unified_diff(a, b, lineterm="", n=0):
        if line.startswith(("---", "+++", "@@")):
            continue
        (removed if line.startswith("-") else added).append(line[1:].strip())
    return tuple(removed), tuple(added)


def mutants_of_file(mutants_root: Path, path: Path) -> dict[str, Mutant]:
    """Every mutant mutmut generated in one mutated source file, by mutmut's name."""
    source = path.read_text(encoding="utf-8")
    functions = _functions(ast.parse(source))
    lines = source.splitlines()
    module = module_name(mutants_root, path)
    out: dict[str, Mutant] = {}
    for fname, node in functions.items():
        m = _MUTANT_NAME.match(fname)
        assert m is not None
        if m["n"] == "orig":
            continue
        original = functions.get(f"{m['stem']}__mutmut_orig")
        if original is None:
            continue
        removed, added = _changed_lines(lines, original, node)
        name = f"{module}.{fname}"
        out[name] = Mutant(name, classify(original, node), removed, added)
    return out


def all_mutants(mutants_root: Path) -> dict[str, Mutant]:
    """Every mutant under ``mutants_root`` (the workspace's ``mutants/src``)."""
    out: dict[str, Mutant] = {}
    for path in sorted(mutants_root.rglob("*.py")):
        if "__mutmut_orig" in path.read_text(encoding="utf-8"):
            out.update(mutants_of_file(mutants_root, path))
    return out


@dataclass(frozen=True)
class Equivalent:
    name: str
    line: str
    why: str


def reviewed_equivalents(doc: Path) -> dict[str, Equivalent]:
    """The rows of docs/testing.md's equivalent-mutant tables: ``| `name` | `line` | why |``
    (a ``|`` inside the code is written ``\\|``)."""
    out: dict[str, Equivalent] = {}
    if not doc.is_file():
        return out
    for raw in doc.read_text(encoding="utf-8").splitlines():
        m = _EQUIVALENT_ROW.match(raw.strip())
        if m:
            line = m["line"].replace("\\|", "|")
            out[m["name"]] = Equivalent(m["name"], line, m["why"].strip().replace("\\|", "|"))
    return out


def sort_survivors(survivors: list[str], mutants: dict[str, Mutant],
                   equivalents: dict[str, Equivalent]) -> dict[str, list[str]]:
    """Survivors by kind: ``text``, ``equivalent`` (reviewed, line still matching),
    ``stale`` (reviewed, but the mutant changed since), ``logic`` (unexplained)."""
    out: dict[str, list[str]] = {"text": [], "equivalent": [], "stale": [], "logic": []}
    for name in survivors:
        mutant = mutants.get(name)
        review = equivalents.get(name)
        if mutant is not None and mutant.kind == "text":
            out["text"].append(name)
        elif review is not None and mutant is not None:
            out["equivalent" if review.line == mutant.change else "stale"].append(name)
        else:
            out["logic"].append(name)
    return out

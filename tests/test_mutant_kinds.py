"""scripts/mutant_kinds.py sorts mutmut's mutants: a changed message word is "text", anything
else "logic"; reviewed equivalents come from docs/testing.md rows and go stale when the
mutated line no longer matches. The mutated modules here are written by hand in mutmut's
layout (``x_<function>__mutmut_orig`` beside ``x_<function>__mutmut_<n>``)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def _kinds() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mutant_kinds",
                                                  ROOT / "scripts" / "mutant_kinds.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["mutant_kinds"] = module
    spec.loader.exec_module(module)
    return module


MUTATED = '''
def x_check__mutmut_orig(n):
    if n < 0:
        raise InputError(f"{n}: negative", "more words")
    label = Msg("price needed", "需要价格")
    return {"status": "ok", "n": n + 1}

def x_check__mutmut_1(n):
    if n <= 0:
        raise InputError(f"{n}: negative", "more words")
    label = Msg("price needed", "需要价格")
    return {"status": "ok", "n": n + 1}

def x_check__mutmut_2(n):
    if n < 0:
        raise InputError(f"{n}: negative", "XXmore wordsXX")
    label = Msg("price needed", "需要价格")
    return {"status": "ok", "n": n + 1}

def x_check__mutmut_3(n):
    if n < 0:
        raise InputError(f"{n}: negative", "more words")
    label = Msg("PRICE NEEDED", "需要价格")
    return {"status": "ok", "n": n + 1}

def x_check__mutmut_4(n):
    if n < 0:
        raise InputError(f"{n}: negative", "more words")
    label = Msg("price needed", "需要价格")
    return {"XXstatusXX": "ok", "n": n + 1}

def x_check__mutmut_5(n):
    if n < 0:
        raise InputError(f"{n}: negative", "more words")
    label = Msg(None, "需要价格")
    return {"status": "ok", "n": n + 1}

def x_check__mutmut_6(n):
    if n < 0:
        raise InputError(f"{n}: negative", )
    label = Msg("price needed", "需要价格")
    return {"status": "ok", "n": n + 1}

class Thing:
    def xǁThingǁname__mutmut_orig(self):
        return "ok" if self else "no"

    def xǁThingǁname__mutmut_1(self):
        return "XXokXX" if self else "no"
'''


def _mutants(tmp_path: Path) -> dict[str, object]:
    path = tmp_path / "src" / "torchrig" / "demo.py"
    path.parent.mkdir(parents=True)
    path.write_text(MUTATED, encoding="utf-8")
    return _kinds().all_mutants(tmp_path / "src")  # type: ignore[no-any-return]


def test_message_words_are_text_and_everything_else_logic(tmp_path: Path) -> None:
    found = _mutants(tmp_path)
    kind = {name.rsplit(".", 1)[1]: m.kind for name, m in found.items()}  # type: ignore[attr-defined]
    assert kind == {
        "x_check__mutmut_1": "logic",   # an operator
        "x_check__mutmut_2": "text",    # a word in an InputError
        "x_check__mutmut_3": "text",    # a word in a Msg
        "x_check__mutmut_4": "logic",   # a dictionary key other code reads
        "x_check__mutmut_5": "logic",   # a message replaced by None
        "x_check__mutmut_6": "logic",   # an argument dropped
        "xǁThingǁname__mutmut_1": "logic",  # a returned value, not a message
    }
    assert "torchrig.demo.x_check__mutmut_1" in found


def test_the_change_is_the_mutated_line(tmp_path: Path) -> None:
    mutant = _mutants(tmp_path)["torchrig.demo.x_check__mutmut_1"]
    assert mutant.removed == ("if n < 0:",)  # type: ignore[attr-defined]
    assert mutant.change == "if n <= 0:"  # type: ignore[attr-defined]


def test_reviewed_equivalents_and_stale_rows(tmp_path: Path) -> None:
    kinds = _kinds()
    doc = tmp_path / "testing.md"
    doc.write_text(
        "| mutant | change | why |\n|---|---|---|\n"
        "| `torchrig.demo.x_check__mutmut_1` | `if n <= 0:` | 0 is refused earlier |\n"
        "| `torchrig.demo.x_check__mutmut_4` | `return {\"other\": 1}` | wrong line |\n"
        "| `torchrig.demo.x_check__mutmut_6` | `a \\| b` | a pipe in the code |\n",
        encoding="utf-8")
    reviewed = kinds.reviewed_equivalents(doc)
    assert reviewed["torchrig.demo.x_check__mutmut_1"].why == "0 is refused earlier"
    assert reviewed["torchrig.demo.x_check__mutmut_6"].line == "a | b"
    found = _mutants(tmp_path)
    survivors = ["torchrig.demo.x_check__mutmut_1", "torchrig.demo.x_check__mutmut_2",
                 "torchrig.demo.x_check__mutmut_4", "torchrig.demo.x_check__mutmut_5",
                 "torchrig.demo.gone__mutmut_1"]
    assert kinds.sort_survivors(survivors, found, reviewed) == {
        "text": ["torchrig.demo.x_check__mutmut_2"],
        "equivalent": ["torchrig.demo.x_check__mutmut_1"],
        "stale": ["torchrig.demo.x_check__mutmut_4"],
        # Not reviewed, or not found in the mutated source: counted as logic.
        "logic": ["torchrig.demo.x_check__mutmut_5", "torchrig.demo.gone__mutmut_1"],
    }
    assert kinds.reviewed_equivalents(tmp_path / "missing.md") == {}

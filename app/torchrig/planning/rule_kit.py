"""The pieces the workload's cross-field rules are made of (planning/workload.py holds the
rules themselves, planning/measurement_rules.py those of a measurement's context).

A rule reads the *facts* of one workload: ``c.w`` (the workload) and ``c.model`` (the model
it names, resolved on first use) - workload.py's ``_Facts``. They are typed ``Any`` here so
this module needs nothing from workload.py (which imports it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from torchrig.records import record, replace

Facts = Any
"""workload._Facts: ``w``, ``model``, ``arch``, ``preset``."""


@record
class Rule:
    """A cross-field rule: when ``broken`` holds, the workload is refused with ``message``
    (text, or made from the facts) naming ``field``, the one the user can change."""

    field: str
    broken: Callable[[Facts], object]
    message: str | Callable[[Facts], str]

    def text(self, c: Facts) -> str:
        return self.message if isinstance(self.message, str) else self.message(c)


def group(guard: Callable[[Facts], object], *rules: Rule) -> tuple[Rule, ...]:
    """``rules``, each applying only where ``guard`` holds (checked first, as a nested if)."""

    def both(broken: Callable[[Facts], object]) -> Callable[[Facts], object]:
        return lambda c: guard(c) and broken(c)

    return tuple(replace(r, broken=both(r.broken)) for r in rules)


def given(name: str) -> Callable[[Facts], bool]:
    return lambda c: getattr(c.w, name) is not None


def given_without_arch(name: str) -> Callable[[Facts], bool]:
    return lambda c: getattr(c.w, name) is not None and c.model.arch is None

"""reportlab's page layout classes (platypus), imported for TorchRig with one costly pattern
compiled when first used instead of at import.

At import, ``reportlab.platypus.paragraph`` compiles ``uri_pat``, a web-address pattern
(Django's URL validator, whose character classes span U+00A1 to U+FFFF): 40-60 ms of CPU, a
sixth of a whole 10-line quote's process (issue 27). reportlab matches it only to break a long
web address at its slashes when a paragraph style asks for that (``uriWasteReduce``), which no
style of TorchRig's does. So platypus is imported here with that one pattern wrapped in a
:class:`LazyPattern`, which compiles it the first time anything uses it and from then on is
the compiled pattern; every other pattern compiles as usual.

Every TorchRig module takes platypus's names from this module, so the first import of platypus
in a process is this one (``tests/report/test_platypus_import.py`` checks both). Where reportlab
changes the pattern, it compiles at import as before: slower, never wrong.
"""

from __future__ import annotations

import re
import sys
import threading
from typing import Any

URI_PATTERN_START = "(^(?:[a-z0-9\\.\\-\\+]*)://)"
"""How reportlab's ``uri_pat`` source begins (reportlab 4 and 5)."""


class LazyPattern:
    """A compiled pattern made on first use: attribute access (``match``, ``pattern``...)
    compiles it once and answers from the compiled pattern."""

    def __init__(self, pattern: str, flags: int, compile_: Any) -> None:
        self._source = (pattern, flags)
        self._compile = compile_
        self._lock = threading.Lock()
        self.compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:
        # only called for names not set in __init__: the pattern's own methods and attributes
        compiled = self.compiled
        if compiled is None:
            with self._lock:
                if self.compiled is None:
                    self.compiled = self._compile(*self._source)
                compiled = self.compiled
        return getattr(compiled, name)


def _import_platypus() -> None:
    if "reportlab.platypus.paragraph" in sys.modules:
        return  # imported before this module (a script's own import): nothing to save
    real = re.compile

    def compile_(pattern: Any, flags: int = 0) -> Any:
        if isinstance(pattern, str) and pattern.startswith(URI_PATTERN_START):
            return LazyPattern(pattern, flags, real)
        return real(pattern, flags)

    setattr(re, "compile", compile_)  # noqa: B010 - an assignment mypy would refuse
    try:
        import reportlab.platypus  # noqa: F401 - imports reportlab.platypus.paragraph
    finally:
        setattr(re, "compile", real)  # noqa: B010


_import_platypus()

# ruff: noqa: E402 - the imports below must follow the one above
from reportlab.platypus import (
    CondPageBreak,
    Flowable,
    Image,
    KeepTogether,
    LongTable,
    Paragraph,
    SimpleDocTemplate,
    Spacer,
    Table,
    TableStyle,
)
from reportlab.platypus.flowables import HRFlowable
from reportlab.platypus.paragraph import cleanBlockQuotedText, textTransformFrags
from reportlab.platypus.paraparser import ParaFrag, ParaParser

__all__ = [
    "CondPageBreak",
    "Flowable",
    "HRFlowable",
    "Image",
    "KeepTogether",
    "LongTable",
    "ParaFrag",
    "ParaParser",
    "Paragraph",
    "SimpleDocTemplate",
    "Spacer",
    "Table",
    "TableStyle",
    "cleanBlockQuotedText",
    "textTransformFrags",
]

"""Bilingual text for the Qt-free core.

Findings, requirement labels and PDF text are produced by the core, which cannot use Qt's
translation system, and the PDF language is chosen independently of the UI language. So the
core carries both languages side by side in a :class:`Msg` and the caller picks one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from torchrig.errors import InputError
from torchrig.records import record

Lang = Literal["en", "zh"]
LANGS: tuple[Lang, ...] = ("en", "zh")


@record
class Msg:
    """One piece of user-facing text in English and Simplified Chinese."""

    en: str
    zh: str

    def get(self, lang: str) -> str:
        return self.zh if lang == "zh" else self.en

    def to_dict(self) -> dict[str, str]:
        return {"en": self.en, "zh": self.zh}

    @classmethod
    def verbatim(cls, text: str) -> Msg:
        """Text nobody can translate (a path, a library's own error message, a value from an
        older file that stored one language): shown as it is in both languages."""
        return cls(text, text)

    @classmethod
    def from_json(cls, data: Any, where: str) -> Msg:
        """The saved form, ``{"en": .., "zh": ..}``; a plain string (what older files stored)
        loads as :meth:`verbatim`."""
        if isinstance(data, str):
            return cls.verbatim(data)
        if not isinstance(data, dict) or not isinstance(data.get("en"), str):
            raise InputError(f"{where}: expected text or an object with texts 'en' and 'zh'")
        zh = data.get("zh", data["en"])
        if not isinstance(zh, str):
            raise InputError(f"{where}: field 'zh' must be text")
        return cls(data["en"], zh)

    def __add__(self, other: Msg) -> Msg:
        """Join two texts language by language (a reason and what it was caused by)."""
        return Msg(self.en + other.en, self.zh + other.zh)

    def format(self, **values: Any) -> Msg:
        """Fill ``{name}`` fields in both languages; a Msg value contributes its own language."""
        return Msg(
            self.en.format(**{k: v.en if isinstance(v, Msg) else v for k, v in values.items()}),
            self.zh.format(**{k: v.zh if isinstance(v, Msg) else v for k, v in values.items()}),
        )


def pick(table: Mapping[str, tuple[str, str]], key: str, lang: str) -> str:
    """The ``lang`` text of ``table[key]``, for modules that keep their fixed words as
    ``{key: (english, chinese)}`` tables."""
    en, zh = table[key]
    return zh if lang == "zh" else en


def plural(n: int, one: Msg, many: Msg, lang: str) -> str:
    """``n`` with the right noun form, ``{n}`` in each template: "1 GPU", "8 GPUs" (Chinese
    has one form, so both Msgs usually share their zh text)."""
    return (one if n == 1 else many).get(lang).format(n=n)


def parse_lang(value: str) -> Lang:
    if value not in LANGS:
        raise InputError(f"unknown language {value!r}: use one of {', '.join(LANGS)}")
    return value  # type: ignore[return-value]


def counted(n: int, one: str, many: str) -> str:
    """``n`` and an English noun in the right number, for the English side of a Msg whose
    Chinese side needs no plural: ``counted(1, "slot", "slots")`` -> "1 slot"."""
    return f"{n} {one if n == 1 else many}"


_CJK = r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]"
"""Chinese characters and punctuation. Kept as text: compiling a class of ranges this wide
costs milliseconds that every process paid at import; ``re`` caches it on first use."""
_HALF_SEPARATORS = ("\n", " / ")
"""How TorchRig itself has joined a text's two languages into one user field: a tier's note
as "English\\nChinese", a tier's name as "English / Chinese" (build_from_tier)."""


def one_language(value: str | Msg | Mapping[str, Any], lang: str) -> str:
    """The ``lang`` half of a text that holds both languages, else the text as it is.

    ``value`` is a :class:`Msg`, a ``{"en": .., "zh": ..}`` mapping, or a string joined as
    ``"English\\nChinese"`` or ``"English / Chinese"``. A string counts as bilingual only when
    it splits into exactly two non-empty halves of which the first has no Chinese character
    and the second has one: a user's own two English lines, or a name such as "RTX 4090 /
    4x", stay whole. This is the one place that decides it, for the PDF, ``torchrig check``
    and the Build page alike.
    """
    if isinstance(value, Msg):
        return value.get(lang)
    if isinstance(value, Mapping):
        en = value.get("en")
        zh = value.get("zh", en)
        chosen = zh if lang == "zh" else en
        return chosen if isinstance(chosen, str) else ""
    for separator in _HALF_SEPARATORS:
        halves = value.split(separator)
        if len(halves) != 2:
            continue
        en, zh = (half.strip() for half in halves)
        if en and zh and not re.search(_CJK, en) and re.search(_CJK, zh):
            return zh if lang == "zh" else en
    return value

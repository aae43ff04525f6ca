"""Bilingual text for the Qt-free core.

Findings, requirement labels and PDF text are produced by the core, which cannot use Qt's
translation system, and the PDF language is chosen independently of the UI language. So the
core carries both languages side by side in a :class:`Msg` and the caller picks one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

Lang = Literal["en", "zh"]
LANGS: tuple[Lang, ...] = ("en", "zh")


@dataclass(frozen=True)
class Msg:
    """One piece of user-facing text in English and Simplified Chinese."""

    en: str
    zh: str

    def get(self, lang: str) -> str:
        return self.zh if lang == "zh" else self.en

    def to_dict(self) -> dict[str, str]:
        return {"en": self.en, "zh": self.zh}

    @classmethod
    def from_dict(cls, data: dict[str, str]) -> Msg:
        return cls(en=str(data["en"]), zh=str(data.get("zh", data["en"])))


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
        from torchrig.errors import InputError

        raise InputError(f"unknown language {value!r}: use one of {', '.join(LANGS)}")
    return value  # type: ignore[return-value]

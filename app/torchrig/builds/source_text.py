"""A price's source in one language: the words TorchRig or the catalog wrote in English put in
the reader's language, the rest (names, web addresses, a supplier's own words) as written.

Price sources are text on a catalog price or a build line. Most of each is a name or an
address nobody translates, but some of it is TorchRig's own wording: the label in front
("estimate: ...", "reported figure: ..."), the two halves of a tier's bilingual source
("included in ... / 已含于 ..."), and the mark the Build page writes when a price is typed
("edited in TorchRig", in the window's language at the time). ``torchrig check`` and the PDF
both show a source through :func:`source_text`, so a Chinese quote does not say "estimate".
"""

from __future__ import annotations

from torchrig.i18n import Msg, one_language

EDITED_HERE = Msg("edited in TorchRig", "在 TorchRig 中修改")
"""What the Build page records as the source of a price typed into the table (its English is
the page's source text, its Chinese the page's translation of it)."""

LABELS: tuple[tuple[Msg, Msg], ...] = (
    (Msg("estimate: ", ""), Msg("estimate: ", "估算：")),
    (Msg("estimate (", ""), Msg("estimate (", "估算（")),
    (Msg("reported figure: ", ""), Msg("reported figure: ", "公开报道数字：")),
    (Msg("catalog ", ""), Msg("catalog ", "目录 ")),
)
"""(the English prefix as the catalog writes it, the prefix in each language)."""


def is_edited_here(text: str) -> bool:
    """The source is only the Build page's "edited in TorchRig" mark (in either language)."""
    return text.strip() in (EDITED_HERE.en, EDITED_HERE.zh)


def source_text(text: str, lang: str) -> str:
    """``text`` (a price's source) in ``lang`` where TorchRig wrote the words (see module doc)."""
    text = one_language(text, lang).strip()
    if is_edited_here(text):
        return EDITED_HERE.get(lang)
    for prefix, shown in LABELS:
        if text.startswith(prefix.en):
            rest = text[len(prefix.en):]
            if prefix.en.endswith("(") and lang == "zh" and "):" in rest:
                # "estimate (Aug 2024 sheet): ..." -> "估算（Aug 2024 sheet）：..."
                inner, _, after = rest.partition("):")
                return f"{shown.zh}{inner}）：{after.lstrip()}"
            return shown.get(lang) + rest
    return text

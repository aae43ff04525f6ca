"""User text must reach reportlab as literal text, never as markup."""

from __future__ import annotations

import pytest
from reportlab.lib.styles import ParagraphStyle
from reportlab.platypus import Paragraph

from torchrig.report.fonts import font_set
from torchrig.report.markup import clean_text, escape_text, needs_wide_font, user_markup


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("A & B", "A &amp; B"),
        ("<b>bold</b>", "&lt;b&gt;bold&lt;/b&gt;"),
        ("</para>", "&lt;/para&gt;"),
        ("&amp;", "&amp;amp;"),
        ("line1\nline2", "line1<br/>line2"),
        ("crlf\r\nend", "crlf<br/>end"),
        ('say "hi"', 'say "hi"'),
    ],
)
def test_escape_text(raw: str, expected: str) -> None:
    assert escape_text(raw) == expected


def test_clean_text_drops_controls_and_lone_surrogates() -> None:
    assert clean_text("a\x00b\x07c\x9fd") == "abcd"
    assert clean_text("x\ud800y") == "x\ufffdy"
    assert clean_text("tab\there") == "tab    here"


def test_wide_font_only_for_text_outside_latin1() -> None:
    assert not needs_wide_font("Café Zürich ½")
    assert needs_wide_font("张三")
    assert needs_wide_font("emoji 😀")
    assert user_markup("Café", "STSong-Light") == "Café"
    assert user_markup("张 & 三", "STSong-Light") == '<font name="STSong-Light">张 &amp; 三</font>'
    # A sheet already in a wide font needs no switch.
    assert user_markup("张三", None) == "张三"


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("raw", ["<font name=x>", "<b>", "&", "</para>", "😀", "张三 <i>"])
def test_escaped_markup_parses_in_reportlab(lang: str, raw: str) -> None:
    """The escaped text is accepted by reportlab's paragraph parser in both languages."""
    fonts = font_set(lang)
    wide = None if fonts.body == fonts.wide else fonts.wide
    style = ParagraphStyle("t", fontName=fonts.body)
    para = Paragraph(user_markup(raw, wide), style)
    width, height = para.wrap(200, 1000)
    assert height > 0


def test_every_fixed_string_exists_in_both_languages_with_the_same_fields() -> None:
    import string

    from torchrig.report.strings import STRINGS

    def fields(template: str) -> set[str]:
        return {name for _, name, _, _ in string.Formatter().parse(template) if name}

    for key, msg in STRINGS.items():
        assert msg.en.strip() and msg.zh.strip(), key
        assert fields(msg.en) == fields(msg.zh), key

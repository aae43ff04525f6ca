"""The PDF renderer: hostile text, long tables, byte stability, the attached build, fonts."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import pypdf
import pytest

from torchrig.errors import InputError
from torchrig.report.pdf import render_sheet, render_sheet_bytes
from torchrig.report.pdf_files import extract_build_json
from torchrig.report.sheet import BomRow, Header, Sheet, SheetOptions

from .conftest import bom_rows, full_sheet, with_lang

HOSTILE_LATIN = [
    "A & B <Co>",
    "say \"hi\" and 'bye'",
    "<b>bold</b>",
    "<font name=x>",
    "</para>",
    "&amp; &lt; &#65;",
    "<br/><img src=x/>",
]
HOSTILE_OTHER = ["emoji 😀🚀", "张三科技有限公司", "\x00\x07ctrl", "lone \ud800 surrogate"]
LONG_WORD = "W" * 500


def page_texts(pdf: bytes) -> list[str]:
    return [page.extract_text() for page in pypdf.PdfReader(io.BytesIO(pdf)).pages]


def all_text(pdf: bytes) -> str:
    return "\n".join(page_texts(pdf))


def hostile_sheet(lang: str) -> Sheet:
    texts = [*HOSTILE_LATIN, *HOSTILE_OTHER, LONG_WORD, "line one\nline two"]
    bom = tuple(BomRow(category=t[:30], part=t, key_spec=t, qty=1, unit_price=None,
                       line_total=None, price_source=t, note=t) for t in texts)
    header = Header(kind="quote", title="<b>Title & Co</b>", number="N<1>", date="2025-03-01",
                    validity_days=7, shop="Shop & Co </para>", customer="张三 😀",
                    project="P" * 500)
    return with_lang(full_sheet(header=header, build_name="<font name=Bogus>x", bom=bom), lang)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_hostile_text_renders_literally(lang: str) -> None:
    text = all_text(render_sheet_bytes(hostile_sheet(lang)))
    for raw in HOSTILE_LATIN:
        assert raw in text, raw
    for raw in ("<b>Title & Co</b>", "Shop & Co </para>", "<font name=Bogus>x", "N<1>"):
        assert raw in text, raw
    # Long words are broken over lines, never clipped: every character is still there.
    joined = text.replace("\n", "")
    assert LONG_WORD in joined
    assert "P" * 500 in joined
    assert "line one" in text and "line two" in text


def _fonts(pdf: bytes) -> dict[str, bool]:
    """Every font the PDF's pages use: base name -> whether its program is embedded."""
    fonts: dict[str, bool] = {}
    for page in pypdf.PdfReader(io.BytesIO(pdf)).pages:
        for font in page["/Resources"]["/Font"].values():
            font = font.get_object()
            descriptor = font.get("/FontDescriptor")
            if descriptor is None and "/DescendantFonts" in font:
                descriptor = font["/DescendantFonts"][0].get_object().get("/FontDescriptor")
            descriptor = descriptor.get_object() if descriptor is not None else {}
            fonts[str(font["/BaseFont"])] = any(
                key in descriptor for key in ("/FontFile", "/FontFile2", "/FontFile3"))
    return fonts


def test_cjk_user_text_in_an_english_sheet_uses_the_embedded_cjk_font() -> None:
    pdf = render_sheet_bytes(hostile_sheet("en"))
    fonts = _fonts(pdf)
    assert any("WenQuanYi" in name and embedded for name, embedded in fonts.items()), fonts
    assert not any("STSong" in name for name in fonts)
    assert "张三科技有限公司" in all_text(pdf).replace("\n", "")


def test_chinese_sheet_embeds_its_font_so_latin_text_keeps_its_spacing() -> None:
    """STSong-Light is not embedded: the reader's substitute mis-spaced Latin text
    ("V iT-B/16"). The packaged TrueType font travels with the PDF, as a subset."""
    pdf = render_sheet_bytes(with_lang(full_sheet(build_name="ViT-B/16 训练机"), "zh"))
    fonts = _fonts(pdf)
    cjk = [name for name in fonts if "WenQuanYi" in name]
    assert cjk and all(fonts[name] for name in cjk), fonts
    assert all(re.match(r"/[A-Z]{6}\+", name) for name in cjk)  # a subset, not the 5 MB font
    assert not any("STSong" in name for name in fonts)
    assert "ViT-B/16 训练机" in all_text(pdf)
    assert len(pdf) < 500_000


def test_without_a_cjk_font_the_sheet_falls_back_to_stsong(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from torchrig.report import fonts

    monkeypatch.setattr(fonts, "find_cjk_font", lambda: None)
    assert fonts.font_set("zh").embedded is False
    pdf = render_sheet_bytes(with_lang(full_sheet(), "zh"))
    assert any("STSong-Light" in name for name in _fonts(pdf))


def test_english_sheet_without_cjk_text_still_renders_and_is_small() -> None:
    pdf = render_sheet_bytes(full_sheet())
    assert len(pdf) < 500_000
    assert pdf.startswith(b"%PDF-")


def test_long_bom_splits_over_pages_with_the_header_repeated() -> None:
    sheet = full_sheet(bom=bom_rows(200))
    pages = page_texts(render_sheet_bytes(sheet))
    bom_pages = [t for t in pages if "Part number" in t]
    assert len(bom_pages) >= 4
    for text in bom_pages:
        assert "Unit price" in text and "Line total" in text
    # Every row made it, in order.
    numbers = [int(n) for t in bom_pages for n in re.findall(r"Part number (\d{3})", t)]
    assert numbers == list(range(200))


def test_invariant_output_is_byte_stable() -> None:
    sheet = full_sheet()
    first = render_sheet_bytes(sheet)
    assert render_sheet_bytes(sheet) == first
    changed = full_sheet(header=replace(sheet.header, customer="Another customer"))
    assert render_sheet_bytes(changed) != first


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_invariant_output_is_byte_stable_in_both_languages(lang: str) -> None:
    sheet = with_lang(full_sheet(), lang)
    assert render_sheet_bytes(sheet) == render_sheet_bytes(sheet)


def test_attached_build_round_trips(tmp_path: Path) -> None:
    sheet = full_sheet()
    out = tmp_path / "sheet.pdf"
    render_sheet(sheet, out)
    assert extract_build_json(out) == sheet.build_json
    assert "build.json" in all_text(out.read_bytes())


def test_render_to_an_open_file() -> None:
    buf = io.BytesIO()
    render_sheet(full_sheet(), buf)
    assert buf.getvalue() == render_sheet_bytes(full_sheet())


def test_no_attachment_when_the_section_is_off(tmp_path: Path) -> None:
    sheet = full_sheet()
    sections = frozenset(sheet.options.sections - {"attachment"})
    out = tmp_path / "sheet.pdf"
    render_sheet(replace(sheet, options=replace(sheet.options, sections=sections)), out)
    with pytest.raises(InputError, match="no attached build.json"):
        extract_build_json(out)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such file"),
        (b"not a pdf at all", "not a readable PDF"),
        (b"%PDF-1.4\n%garbage", "not a readable PDF"),
    ],
)
def test_extract_build_json_errors(tmp_path: Path, content: bytes | None, message: str) -> None:
    path = tmp_path / "x.pdf"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(InputError, match=message):
        extract_build_json(path)


def test_page_x_of_y_on_every_page() -> None:
    pages = page_texts(render_sheet_bytes(full_sheet(bom=bom_rows(60))))
    total = len(pages)
    assert total >= 2
    for number, text in enumerate(pages, start=1):
        assert f"Page {number} of {total}" in text
        assert "Generated by TorchRig" in text


def test_page_x_of_y_in_chinese() -> None:
    pages = page_texts(render_sheet_bytes(with_lang(full_sheet(), "zh")))
    for number, text in enumerate(pages, start=1):
        assert f"第 {number} 页，共 {len(pages)} 页" in text


def test_totals_are_printed_exactly() -> None:
    text = all_text(render_sheet_bytes(full_sheet()))
    assert "CNY 1,638.50" in text
    assert "CNY 1,500.00" in text
    assert "Tax (13%)" in text
    assert "1 USD = 7.1 CNY" in text


def test_unpriced_lines_say_so_and_totals_say_incomplete() -> None:
    sheet = full_sheet()
    bom = (*sheet.bom, BomRow("other", "Custom rack", "", 1, None, None))
    totals = replace(sheet.totals, missing_prices=1)
    text = all_text(render_sheet_bytes(full_sheet(bom=bom, totals=totals)))
    assert "no price" in text
    assert "Total is incomplete: 1 line has no price." in text


def test_money_with_more_than_two_decimals_is_not_rounded() -> None:
    sheet = full_sheet()
    totals = replace(sheet.totals, total=Decimal("1638.505"))
    assert "CNY 1,638.505" in all_text(render_sheet_bytes(full_sheet(totals=totals)))


def test_findings_are_grouped_worst_first_with_fix_and_source() -> None:
    text = all_text(render_sheet_bytes(full_sheet()))
    order = [text.index(f"{label} (1)") for label in
             ("Blocker", "Bottleneck", "Warning", "Overkill", "Advice")]
    assert order == sorted(order)
    assert "Fix: Use gradient checkpointing or a 48 GiB GPU." in text
    assert "Source: seed 3.3" in text


def test_charts_are_labelled() -> None:
    text = all_text(render_sheet_bytes(full_sheet()))
    for label in ("VRAM per GPU", "GiB", "Measured vs reference", "% of reference",
                  "Scaling efficiency vs GPU count", "GPUs", "efficiency (%)",
                  "seed 2.3 target (80%)", "optimizer states: 8.0 GiB", "available: 24.0 GiB"):
        assert label in text, label


def test_sections_can_be_left_out() -> None:
    sheet = full_sheet()
    options = replace(sheet.options, sections=frozenset({"bom", "totals"}))
    text = all_text(render_sheet_bytes(replace(sheet, options=options)))
    assert "Bill of materials" in text
    assert "Benchmark results" not in text
    assert "Findings" not in text


def test_sections_without_their_optional_parts_render() -> None:
    sheet = full_sheet(requirement_notes=(), bench_context=None, comparison_tier=None,
                       totals=None, notes="")
    text = all_text(render_sheet_bytes(sheet))
    assert "Workload requirements" in text
    assert "Subtotal" not in text


def test_empty_sheet_renders() -> None:
    sheet = Sheet(header=Header(), options=SheetOptions(invariant=True))
    text = all_text(render_sheet_bytes(sheet))
    assert "Build sheet" in text
    assert "The build has no parts." in text
    assert "No findings." in text


def test_logo_is_drawn_and_a_broken_logo_is_a_clear_error(tmp_path: Path) -> None:
    from PIL import Image as PILImage

    logo = tmp_path / "logo.png"
    PILImage.new("RGB", (120, 40), (31, 78, 121)).save(logo)
    sheet = full_sheet()
    with_logo = render_sheet_bytes(replace(sheet, header=replace(sheet.header,
                                                                 logo_path=str(logo))))
    assert b"/Subtype /Image" in with_logo
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"not an image")
    for path, message in ((broken, "cannot read the logo"), (tmp_path / "nope.png", "not found")):
        bad = replace(sheet, header=replace(sheet.header, logo_path=str(path)))
        with pytest.raises(InputError, match=message):
            render_sheet_bytes(bad)


DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
NOTO_CFF = Path("/usr/share/fonts/opentype/noto/NotoSerifCJK-Bold.ttc")


@pytest.mark.skipif(not DEJAVU.exists(), reason="DejaVu Sans not installed")
def test_user_ttf_font_is_embedded() -> None:
    sheet = full_sheet(header=replace(full_sheet().header, customer="Ђорђе Петровић"))
    options = replace(sheet.options, ttf_path=str(DEJAVU))
    pdf = render_sheet_bytes(replace(sheet, options=options))
    assert b"/FontFile2" in pdf  # an embedded TrueType font program
    assert "Ђорђе Петровић" in all_text(pdf)


@pytest.mark.skipif(not NOTO_CFF.exists(), reason="Noto CJK (CFF) not installed")
def test_cff_font_is_refused_with_a_clear_message() -> None:
    sheet = full_sheet()
    options = replace(sheet.options, ttf_path=str(NOTO_CFF))
    with pytest.raises(InputError, match="CFF"):
        render_sheet_bytes(replace(sheet, options=options))


def test_missing_font_file_is_a_clear_error(tmp_path: Path) -> None:
    sheet = full_sheet()
    options = replace(sheet.options, ttf_path=str(tmp_path / "none.ttf"))
    with pytest.raises(InputError, match="font file not found"):
        render_sheet_bytes(replace(sheet, options=options))


@pytest.mark.parametrize(
    ("payload", "message"),
    [(b"[1, 2]", "not a JSON object"), (b"{oops", "not valid JSON"),
     (b"\xff\xfe", "not UTF-8")],
)
def test_extract_build_json_refuses_a_bad_attachment(tmp_path: Path, payload: bytes,
                                                     message: str) -> None:
    writer = pypdf.PdfWriter(clone_from=io.BytesIO(render_sheet_bytes(Sheet(header=Header()))))
    writer.add_attachment("build.json", payload)
    path = tmp_path / "x.pdf"
    with path.open("wb") as handle:
        writer.write(handle)
    with pytest.raises(InputError, match=message):
        extract_build_json(path)


def test_long_sources_and_notes_are_shortened_in_the_table_and_kept_in_the_file(
        tmp_path: Path) -> None:
    """500 rows of 2,000-character sources and notes made thousands of pages (minutes)."""
    from torchrig.report.pdf import CELL_TEXT_LIMIT

    source = "S" * (CELL_TEXT_LIMIT + 1234)
    row = replace(bom_rows(1)[0], price_source=source, note="short note")
    pdf = render_sheet_bytes(full_sheet(bom=(row,), options=SheetOptions(internal=True)))
    text = all_text(pdf)
    assert max(len(run) for run in re.findall(r"S+", text.replace("\n", ""))) == CELL_TEXT_LIMIT
    assert "1,234 more characters in the build file" in " ".join(text.split())
    assert "short note" in text
    # The customer's copy is cut with "…" only: the build file is the shop's business.
    customer = " ".join(all_text(render_sheet_bytes(full_sheet(bom=(row,)))).split())
    assert "…" in customer and "more characters" not in customer


def test_a_paragraph_lays_out_once_per_width() -> None:
    from reportlab.lib.styles import ParagraphStyle

    from torchrig.report.pdf_layout import CachedParagraph

    style = ParagraphStyle("s", fontName="Helvetica", fontSize=8, leading=10,
                           splitLongWords=1)
    para = CachedParagraph("W" * 400 + " tail", style)
    calls = []
    real = para.breakLines
    para.breakLines = lambda widths: calls.append(widths) or real(widths)  # type: ignore
    first = para.wrap(100, 1000)
    assert para.wrap(100, 50) == first and len(calls) == 1
    assert para.wrap(200, 1000) != first and len(calls) == 2


_PEAK_RSS = """
import sys
from dataclasses import replace
sys.path.insert(0, sys.argv[2])
from tests.report.conftest import full_sheet
from torchrig.report.pdf import render_sheet_bytes
sheet = full_sheet()
render_sheet_bytes(replace(sheet, header=replace(sheet.header, logo_path=sys.argv[1])))
# VmHWM, not ru_maxrss: Linux carries ru_maxrss over exec from the forking (pytest) process.
status = open("/proc/self/status", encoding="ascii").read()
print(int(status.split("VmHWM:")[1].split()[0]) // 1024)
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="peak memory read from /proc")
def test_a_huge_jpeg_logo_is_decoded_scaled_down(tmp_path: Path) -> None:
    """A 12,000 x 12,000 logo cost 1.4 GB; decoded at full size, this 8,000 x 8,000 one took
    over 600 MB. Measured in a fresh process (peak resident memory, not time)."""
    logo = tmp_path / "huge.jpg"
    make = ("import sys; from PIL import Image; Image.MAX_IMAGE_PIXELS = None; "
            "Image.new('RGB', (8000, 8000), (31, 78, 121)).save(sys.argv[1], quality=60)")
    subprocess.run([sys.executable, "-c", make, str(logo)], check=True)
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=str(root / "app"))
    result = subprocess.run([sys.executable, "-c", _PEAK_RSS, str(logo), str(root)],
                            capture_output=True, text=True, env=env, check=True)
    assert int(result.stdout.split()[-1]) < 250, result.stdout  # MB


def test_a_png_logo_too_large_to_decode_is_refused_with_the_reason(tmp_path: Path) -> None:
    from PIL import Image as PILImage

    logo = tmp_path / "huge.png"
    PILImage.new("L", (8000, 6000)).save(logo)  # 48 MP, a few kB as a file
    sheet = full_sheet()
    with pytest.raises(InputError, match="8000 x 6000 pixels"):
        render_sheet_bytes(replace(sheet, header=replace(sheet.header, logo_path=str(logo))))


def test_addresses_quoted_in_a_source_show_their_site_linked() -> None:
    """A sourced estimate quotes its pages inside the text ("estimate: … https://…"): each
    address reads as its site, linked, instead of filling the narrow column."""
    address = "https://docs.google.com/spreadsheets/d/1Ft3RbeZ-w43kYSiLfYc1vxO41mK5ImjjpcP9GOYHAWc"
    source = f"estimate: a cost sheet ({address}), FS.com listing https://www.fs.com/p/123."
    row = replace(bom_rows(1)[0], price_source=source, price_source_url=None)
    pdf = render_sheet_bytes(full_sheet(bom=(row,)))
    text = " ".join(all_text(pdf).split())
    assert "docs.google.com" in text and "1Ft3RbeZ" not in text and "fs.com." in text
    links = [annot.get_object().get("/A", {}).get("/URI")
             for page in pypdf.PdfReader(io.BytesIO(pdf)).pages
             for annot in page.get("/Annots", [])]
    assert address in links and "https://www.fs.com/p/123" in links

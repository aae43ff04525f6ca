"""What goes into the PDF file besides the drawing: the attached build and the decoded logo.

The build file is attached as an embedded file (``build.json``). reportlab has no API for
document-level file attachments, so :func:`embed_file` writes the catalog's embedded-files
tree itself while reportlab writes the PDF; :func:`extract_build_json` reads it back with
pypdf.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path
from typing import Any

from reportlab.lib.units import mm

from torchrig import jsonio
from torchrig.errors import InputError
from torchrig.report.sheet import ATTACHMENT_NAME

MAX_LOGO_BYTES = 8 * 1024 * 1024
LOGO_BOX = (45 * mm, 16 * mm)
"""Largest size a logo is drawn at (points)."""
LOGO_DPI = 600
"""Pixels per inch a logo is kept at: sharp in print, a few hundred kB at most."""
MAX_LOGO_PIXELS = 40_000_000
"""A PNG (or other non-JPEG) logo is decoded whole; 40 MP is at most 160 MB as RGBA."""
MAX_PDF_BYTES = 64 * 1024 * 1024


def small_logo(path: Path, data: bytes) -> tuple[bytes, int, int]:
    """The logo as a PNG no larger than it is drawn (at :data:`LOGO_DPI`), with its size.

    A 12,000 x 12,000 logo, a few hundred kB as a file, cost 1.4 GB decoded at full size. JPEGs
    are decoded already scaled down (``draft``: 1/2 to 1/8 in the decoder); other formats
    cannot be, so over :data:`MAX_LOGO_PIXELS` they are refused with the reason.
    """
    from PIL import Image as PILImage

    with warnings.catch_warnings():
        # PIL warns of "decompression bombs" by pixel count; this function decodes big
        # images scaled down or refuses them, which is the point.
        warnings.simplefilter("ignore", PILImage.DecompressionBombWarning)
        im = PILImage.open(io.BytesIO(data))
    with im:
        width, height = im.size
        if width <= 0 or height <= 0:
            raise InputError(f"{path}: logo image is empty")
        target = tuple(max(1, round(side / 72 * LOGO_DPI)) for side in LOGO_BOX)
        if im.format == "JPEG":
            im.draft("RGB", target)  # type: ignore[arg-type]
        elif width * height > MAX_LOGO_PIXELS:
            raise InputError(f"{path}: logo is {width} x {height} pixels, more than this "
                             f"sheet decodes ({MAX_LOGO_PIXELS // 10**6} megapixels): use a "
                             "smaller image or a JPEG")
        im.thumbnail(target)  # type: ignore[arg-type]
        small = im if im.mode in ("RGB", "RGBA", "L", "LA", "P") else im.convert("RGB")
        out = io.BytesIO()
        small.save(out, "PNG")
    return out.getvalue(), width, height


def extract_build_json(pdf_path: str | Path) -> dict[str, Any]:
    """The build attached to a TorchRig sheet, as the JSON object it was saved as.

    The caller validates it like any build file; every failure here (not a PDF, no attached
    build, broken JSON) is an InputError naming the file.
    """
    import pypdf
    from pypdf.errors import PyPdfError

    path = Path(pdf_path)
    # The JSON loaders' reader: a FIFO hung here and /dev/zero was read until memory ran out.
    pdf = jsonio.read_file_bytes(path, MAX_PDF_BYTES)
    try:
        reader = pypdf.PdfReader(io.BytesIO(pdf))
        attachments = reader.attachments
        contents = attachments.get(ATTACHMENT_NAME)
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
        raise InputError(f"{path}: not a readable PDF") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror})") from None
    if not contents:
        raise InputError(f"{path}: no attached {ATTACHMENT_NAME} (not a TorchRig build sheet, "
                         "or exported without the build file)")
    raw = contents[0]
    if len(raw) > jsonio.MAX_FILE_BYTES:
        raise InputError(f"{path}: attached {ATTACHMENT_NAME} is too large")
    try:
        decoded = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(f"{path}: attached {ATTACHMENT_NAME} is not UTF-8 text") from None
    data = jsonio.parse_json_text(decoded, f"{path}: attached {ATTACHMENT_NAME}")
    if not isinstance(data, dict):
        raise InputError(f"{path}: attached {ATTACHMENT_NAME} is not a JSON object")
    return data


def embed_file(canvas: Any, name: str, payload: bytes) -> None:
    """Attach ``payload`` as the document-level file ``name`` while reportlab writes the PDF
    (the catalog's /Names /EmbeddedFiles tree, PDF 1.7 sec. 7.11.4), so an export needs no
    second pass through pypdf: its import and the re-parse and rewrite of the finished PDF
    were about a third of a 10-line export's time (issue 27). Call it once per document, from
    a page callback (it needs the canvas's document)."""
    from reportlab.pdfbase.pdfdoc import (
        PDFArray,
        PDFDictionary,
        PDFName,
        PDFStream,
        PDFStreamFilterZCompress,
        PDFString,
    )

    document = canvas._doc
    stream = PDFStream(PDFDictionary({"Type": PDFName("EmbeddedFile"),
                                      "Params": PDFDictionary({"Size": len(payload)})}),
                       content=payload, filters=[PDFStreamFilterZCompress()])
    spec = PDFDictionary({"Type": PDFName("Filespec"), "F": PDFString(name),
                          "UF": PDFString(name),
                          "EF": PDFDictionary({"F": document.Reference(stream)})})
    document.Catalog.Names = PDFDictionary({"EmbeddedFiles": PDFDictionary(
        {"Names": PDFArray([PDFString(name), document.Reference(spec)])})})

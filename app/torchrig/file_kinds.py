"""What kind of TorchRig file a path holds, so one "Open…" and drag and drop can take any of
them and hand each to the page that shows it.

JSON files say what they are in their ``"format"`` field; a PDF is a build sheet, whose attached
build opens on the Build page. The kind is decided from the content, not the file name.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from torchrig.errors import InputError
from torchrig.jsonio import parse_json_text, read_text_file

FileKind = Literal["build", "build-sheet", "workload", "bench-report", "collective-report"]

_JSON_KINDS: dict[str, FileKind] = {
    "torchrig.build": "build",
    "torchrig.workload": "workload",
    "torchrig.bench-report": "bench-report",
    "torchrig.collective-report": "collective-report",
}


PDF_MAGIC = b"%PDF-"


def is_pdf(path: Path) -> bool:
    """Whether ``path`` starts like a PDF (by content, so a renamed sheet is still found).

    Only regular files are read: a FIFO or a device must not block or stream here."""
    try:
        if not path.is_file():
            return False
        with path.open("rb") as handle:
            return handle.read(len(PDF_MAGIC)) == PDF_MAGIC
    except OSError:
        return False


def file_kind(path: str | Path) -> FileKind:
    """The kind of TorchRig file at ``path``; :class:`InputError` when it is none of them."""
    path = Path(path)
    if is_pdf(path):
        return "build-sheet"
    doc = parse_json_text(read_text_file(path), str(path))
    fmt = doc.get("format") if isinstance(doc, dict) else None
    if isinstance(fmt, str) and fmt in _JSON_KINDS:
        return _JSON_KINDS[fmt]
    shown = f"its format is {fmt!r}" if isinstance(fmt, str) else "it has no \"format\" field"
    raise InputError(f"{path}: not a file TorchRig opens ({shown}); TorchRig opens builds, "
                     "workloads, benchmark reports and its own PDF sheets")

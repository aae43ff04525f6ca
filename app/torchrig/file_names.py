"""File names suggested from what the user typed (a build's name, a workload's model).

A build started from a tier is called "Professional research / 专业级研究环境": used as a file
name as it is, the "/" made a folder of the English half and the file " 专业级研究环境.json".
Here every character a file system refuses (on Linux, macOS or Windows, so a file copied
between them keeps its name) becomes a dash, and nothing else is dropped: CJK and other
letters stay as typed.
"""

from __future__ import annotations

import re

_FORBIDDEN = re.compile(r'[\x00-\x1f\x7f/\\:*?"<>|]+')
_WINDOWS_RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)),
                     *(f"lpt{i}" for i in range(1, 10))}
MAX_NAME_BYTES = 200
"""Below the 255-byte limit of ext4, APFS and NTFS, leaving room for a suffix and a temp
file's extra characters (atomic saves write NAME.tmp-XXXX first)."""


def suggested_file_name(title: str, suffix: str, fallback: str = "build") -> str:
    """``title`` as a portable file name ending in ``suffix`` (e.g. ``".json"``).

    Forbidden characters become " - " between words and "-" inside them; whitespace runs
    become one space; leading and trailing spaces, dots and dashes go (Windows drops trailing
    dots and spaces itself, and a leading dot hides the file). Over :data:`MAX_NAME_BYTES` the
    name is cut at a character boundary: the user sees the suggestion before saving.
    """
    stem = _FORBIDDEN.sub(lambda m: "-", title)
    stem = re.sub(r"\s+-\s*|\s*-\s+", " - ", stem)
    stem = re.sub(r"\s+", " ", stem).strip(" .-")
    if stem.lower().split(".")[0] in _WINDOWS_RESERVED:
        stem = f"{stem}-{fallback}"
    encoded = stem.encode("utf-8")[:MAX_NAME_BYTES]
    stem = encoded.decode("utf-8", errors="ignore").rstrip(" .-")
    return f"{stem or fallback}{suffix}"

"""Extract the GUI's strings and compile the Chinese catalogue.

    python scripts/build_translations.py           # update the .ts, then compile the .qm
    python scripts/build_translations.py --check   # exit 1 if either is out of date

1. ``lupdate`` scans every ``.py`` under ``app/torchrig/gui`` for ``tr()``,
   ``QCoreApplication.translate()`` and ``QT_TRANSLATE_NOOP()`` and merges what it finds into
   ``resources/translations/torchrig_zh_CN.ts``: existing translations are kept, new strings
   arrive as ``type="unfinished"`` for a translator to fill in (Qt Linguist, or any editor),
   strings no longer in the code are dropped. No source locations are written, so moving code
   does not churn the file.
2. ``lrelease`` compiles the ``.ts`` to ``torchrig_zh_CN.qm``, which is committed so a fresh
   clone (and a wheel) works without running this script. lrelease output depends only on the
   ``.ts``, so the build is reproducible; tests/gui/test_i18n.py checks the committed ``.qm``
   against the ``.ts`` message by message.

Both tools ship with PySide6 (``pyside6-lupdate``/``pyside6-lrelease``); nothing else is needed.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GUI = ROOT / "app" / "torchrig" / "gui"
TRANSLATIONS = ROOT / "resources" / "translations"
TS = TRANSLATIONS / "torchrig_zh_CN.ts"
QM = TRANSLATIONS / "torchrig_zh_CN.qm"


def tool(name: str) -> Path:
    """PySide6's own copy of a Qt Linguist tool (``lupdate``, ``lrelease``)."""
    import PySide6

    folder = Path(PySide6.__file__).resolve().parent
    for candidate in (folder / name, folder / f"{name}.exe", folder / "Qt" / "libexec" / name):
        if candidate.is_file():
            return candidate
    found = shutil.which(f"pyside6-{name}")
    if found:
        return Path(found)
    raise SystemExit(f"{name} not found next to PySide6 ({folder}); install PySide6-Essentials")


def sources() -> list[Path]:
    return sorted(p for p in GUI.rglob("*.py") if "__pycache__" not in p.parts)


def _run(cmd: list[str]) -> None:
    result = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise SystemExit(f"{Path(cmd[0]).name} failed ({result.returncode}):\n"
                         f"{result.stdout}{result.stderr}")


def lupdate(ts: Path) -> None:
    """Merge the sources' strings into ``ts`` (created when missing)."""
    _run([str(tool("lupdate")), *map(str, sources()), "-locations", "none", "-no-obsolete",
          "-source-language", "en", "-target-language", "zh_CN", "-silent", "-ts", str(ts)])


def lrelease(ts: Path, qm: Path) -> None:
    _run([str(tool("lrelease")), "-silent", str(ts), "-qm", str(qm)])


def check() -> list[str]:
    """What is out of date: the .ts against the sources, the .qm against the .ts."""
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        fresh_ts = Path(tmp) / TS.name
        shutil.copyfile(TS, fresh_ts)
        lupdate(fresh_ts)
        if fresh_ts.read_bytes() != TS.read_bytes():
            problems.append(f"{TS.relative_to(ROOT)} is not up to date with the sources")
        fresh_qm = Path(tmp) / QM.name
        lrelease(TS, fresh_qm)
        if not QM.is_file() or not filecmp.cmp(fresh_qm, QM, shallow=False):
            problems.append(f"{QM.relative_to(ROOT)} does not match lrelease of the .ts")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="change nothing; exit 1 if the .ts or the .qm is out of date")
    args = parser.parse_args(argv)
    if args.check:
        problems = check()
        for problem in problems:
            print(problem, file=sys.stderr)
        if problems:
            print("run: python scripts/build_translations.py", file=sys.stderr)
        return 1 if problems else 0
    TRANSLATIONS.mkdir(parents=True, exist_ok=True)
    lupdate(TS)
    lrelease(TS, QM)
    text = TS.read_text(encoding="utf-8")
    unfinished = text.count('type="unfinished"')
    print(f"{TS.relative_to(ROOT)}: {text.count('<message>')} messages, "
          f"{unfinished} unfinished")
    print(f"{QM.relative_to(ROOT)}: {os.path.getsize(QM)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())

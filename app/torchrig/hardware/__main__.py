"""``python -m torchrig.hardware [--torch] [--no-nvml] [--text] [--lang zh]``.

A minimal entry point for timing detection in a fresh process and for debugging probes on a
machine without the full CLI; ``torchrig detect`` is the user-facing command.
"""

from __future__ import annotations

import argparse
import json

from torchrig.hardware import detect, format_profile_text
from torchrig.terminal import write_json, write_lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m torchrig.hardware")
    parser.add_argument("--torch", action="store_true", help="also ask torch (slow import)")
    parser.add_argument("--no-nvml", action="store_true", help="skip NVML")
    parser.add_argument("--text", action="store_true", help="readable summary instead of JSON")
    parser.add_argument("--lang", choices=("en", "zh"), default="en")
    args = parser.parse_args(argv)
    profile = detect(use_torch=args.torch, nvml=not args.no_nvml)
    if args.text:
        write_lines(format_profile_text(profile, lang=args.lang))
    else:
        write_json(json.dumps(profile.to_dict(), indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

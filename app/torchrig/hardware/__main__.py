"""``python -m torchrig.hardware [--torch] [--no-nvml] [--text] [--lang zh]``.

A minimal entry point for timing detection in a fresh process and for debugging probes on a
machine without the full CLI; ``torchrig detect`` is the user-facing command.
"""

from __future__ import annotations

import argparse
import json
import sys

from torchrig.hardware import detect, format_profile_text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m torchrig.hardware")
    parser.add_argument("--torch", action="store_true", help="also ask torch (slow import)")
    parser.add_argument("--no-nvml", action="store_true", help="skip NVML")
    parser.add_argument("--text", action="store_true", help="readable summary instead of JSON")
    parser.add_argument("--lang", choices=("en", "zh"), default="en")
    args = parser.parse_args(argv)
    profile = detect(use_torch=args.torch, nvml=not args.no_nvml)
    if args.text:
        print(format_profile_text(profile, lang=args.lang))
    else:
        json.dump(profile.to_dict(), sys.stdout, indent=2, ensure_ascii=False)
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

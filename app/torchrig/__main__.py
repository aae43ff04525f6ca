"""``torchrig`` with no arguments starts the GUI; with a subcommand it is the CLI."""

from __future__ import annotations

import sys


def main() -> int:
    if len(sys.argv) > 1:
        from torchrig.cli import main as cli_main

        return cli_main(sys.argv[1:])
    from torchrig.gui.app import run_gui

    return run_gui(sys.argv)


if __name__ == "__main__":
    sys.exit(main())

"""``torchrig`` with no arguments starts the GUI; with a subcommand it is the CLI."""

from __future__ import annotations

import sys

from torchrig import process_exit  # first: lists what the process inherited (process_exit.py)


def main() -> int:
    if len(sys.argv) > 1:
        from torchrig.cli import main as cli_main

        return cli_main(sys.argv[1:])
    from torchrig.gui.app import run_gui

    return run_gui(sys.argv)


def entry_point() -> None:
    """The ``torchrig`` script: :func:`main` as a process, ended by
    :func:`torchrig.process_exit.end_process` (no interpreter teardown after an export)."""
    process_exit.end_process(main())


if __name__ == "__main__":
    entry_point()

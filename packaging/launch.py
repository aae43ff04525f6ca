"""Entry script of the PyInstaller bundle (see torchrig.spec): ``torchrig.__main__:main``.

Two things a frozen app needs that ``python -m torchrig`` gets from the interpreter:

- ``multiprocessing.freeze_support()``: on Windows and macOS the benchmark's DataLoader workers
  are started with "spawn", which re-runs this executable; without it each worker would start
  another copy of the app.
- ``-m MODULE``: the collective benchmark runs ``sys.executable -m torch.distributed.run ...``
  and torchrun starts its workers with ``sys.executable -u -m MODULE ...``. In a bundle
  ``sys.executable`` is this program, so it accepts that form for the few modules the
  benchmark launches (nothing else: the bundle is not a general Python).
"""

from __future__ import annotations

import multiprocessing
import runpy
import sys
from collections.abc import Sequence

RUNNABLE_MODULES = ("torch.distributed.run", "torchrig.")
"""Modules the bundle runs for ``-m``: exact names, or prefixes ending in a dot."""


def module_invocation(argv: Sequence[str]) -> tuple[str, list[str], bool] | None:
    """``(module, its args, unbuffered)`` when ``argv`` (without the program name) is
    ``[-u] -m MODULE ARGS...`` for an allowed module; None for anything else, which then goes
    to the normal GUI/CLI entry point and gets its usual error for unknown arguments."""
    args = list(argv)
    unbuffered = False
    if args[:1] == ["-u"]:
        unbuffered = True
        args = args[1:]
    if len(args) < 2 or args[0] != "-m":
        return None
    module = args[1]
    allowed = any(
        module.startswith(rule) if rule.endswith(".") else module == rule
        for rule in RUNNABLE_MODULES
    )
    return (module, args[2:], unbuffered) if allowed else None


def _run_module(module: str, args: list[str], unbuffered: bool) -> int:
    if unbuffered:
        # What `python -u` does for text streams: torchrun relays worker output line by line.
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.reconfigure(write_through=True)  # type: ignore[union-attr]
    sys.argv = [module, *args]
    runpy.run_module(module, run_name="__main__", alter_sys=True)
    return 0


def launch() -> int:
    multiprocessing.freeze_support()
    invocation = module_invocation(sys.argv[1:]) if getattr(sys, "frozen", False) else None
    if invocation is not None:
        return _run_module(*invocation)
    from torchrig.__main__ import main

    return main()


if __name__ == "__main__":
    sys.exit(launch())

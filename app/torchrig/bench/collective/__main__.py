"""``torchrun ... -m torchrig.bench.collective``: what each rank runs (see the package)."""

from __future__ import annotations

from torchrig.bench.collective.worker import main

if __name__ == "__main__":
    raise SystemExit(main())

"""``python -m silent_child``: a child that never says anything, as one stopped or wedged
before its first line would be (the watchdog tests start it through run_child)."""

from __future__ import annotations

import time

time.sleep(600)

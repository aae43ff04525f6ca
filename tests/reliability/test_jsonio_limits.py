"""The limits jsonio enforces for every loader, at their edges (what is refused and what is not).

Each limit here was added after the fuzzer found a loader crashing past it (docs/reliability.md,
"Found and fixed"): integers too large for a float, 1e400 turning into infinity, lone
surrogates that cannot be written back, reads of files that are not regular files or that grow.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from torchrig.errors import InputError
from torchrig.jsonio import dumps, parse_json_text, read_text_file


@pytest.mark.parametrize("text", [
    str(2**63 - 1), str(-(2**63)), "1e308", "-1.7976931348623157e308", "5e-324", "1.0e-400",
    '"\\ud83d\\ude00"', '"\\u00e9"', '{"k\\u00e9y": ["\\ud83d\\ude00"]}',
])
def test_values_at_the_edge_still_load(text: str) -> None:
    value = parse_json_text(text, "edge.json")
    dumps(value).encode("utf-8")  # and can be written back


@pytest.mark.parametrize(("text", "fragment"), [
    (str(2**63), "64-bit range"),
    (str(-(2**63) - 1), "64-bit range"),
    ("1" + "0" * 5000, "64-bit range"),
    ("1e400", "too large"),
    ("-1e400", "too large"),
    ('"\\ud800"', "surrogate"),
    ('{"\\udfff": 1}', "surrogate"),
    ('["a", ["\\ud83d"]]', "surrogate"),
])
def test_values_past_the_edge_are_refused(text: str, fragment: str) -> None:
    with pytest.raises(InputError, match=fragment) as caught:
        parse_json_text(text, "edge.json")
    assert str(caught.value).startswith("edge.json: ")


def test_size_is_checked_on_what_is_read_too(tmp_path: Path) -> None:
    """A file whose size stat() does not tell (procfs says 0; a file may grow after stat)."""
    status = Path("/proc/self/status")
    if not status.exists():
        pytest.skip("needs Linux procfs")
    with pytest.raises(InputError, match="over 0.0 MB"):
        read_text_file(status, max_bytes=10)
    small = tmp_path / "small.json"
    small.write_text("{}", encoding="utf-8")
    assert read_text_file(small, max_bytes=2) == "{}"
    with pytest.raises(InputError, match="larger than"):
        read_text_file(small, max_bytes=1)

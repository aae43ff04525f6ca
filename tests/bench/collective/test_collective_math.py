"""Collective arithmetic against nccl-tests' conventions and the reference vector."""

from __future__ import annotations

import pytest

from torchrig.collective_math import (
    ELEMENT_BYTES,
    algbw,
    bus_factor,
    busbw,
    default_sizes,
    fmt_size,
    message_layout,
    parse_ops,
    parse_size,
    parse_sizes,
    power_of_two_sizes,
)
from torchrig.errors import InputError

GiB = 1024**3


def test_reference_vector_1gib_8_ranks_10ms():
    # docs/estimation.md section 5: 1 GiB, n = 8, 10 ms -> algbw 107.37 GB/s, busbw 187.90 GB/s.
    assert round(algbw(GiB, 0.010) / 1e9, 2) == 107.37
    assert round(busbw("all_reduce", GiB, 0.010, 8) / 1e9, 2) == 187.90


@pytest.mark.parametrize(
    ("op", "n", "factor"),
    [
        ("all_reduce", 2, 1.0),
        ("all_reduce", 8, 1.75),
        ("all_reduce", 1, 0.0),
        ("all_gather", 2, 0.5),
        ("all_gather", 8, 0.875),
        ("reduce_scatter", 4, 0.75),
    ],
)
def test_bus_factors(op, n, factor):
    assert bus_factor(op, n) == pytest.approx(factor)


def test_busbw_is_algbw_times_factor():
    assert busbw("reduce_scatter", 4096, 1e-3, 4) == algbw(4096, 1e-3) * 0.75


def test_bad_arithmetic_inputs_raise():
    with pytest.raises(ValueError, match="unknown collective"):
        bus_factor("broadcast", 4)
    with pytest.raises(ValueError):
        bus_factor("all_reduce", 0)
    with pytest.raises(ValueError):
        algbw(1024, 0.0)


def test_layout_all_reduce_counts_whole_buffer():
    layout = message_layout("all_reduce", 1024, 8)
    assert layout is not None
    assert (layout.count, layout.n_bytes) == (256, 1024)


def test_layout_all_gather_counts_gathered_buffer_rounded_down():
    # 3 ranks: 1024 bytes -> 85 floats per rank, 85 * 3 * 4 = 1020 bytes in total.
    layout = message_layout("all_gather", 1024, 3)
    assert layout is not None
    assert layout.count == 85
    assert layout.n_bytes == 85 * 3 * ELEMENT_BYTES
    assert layout.requested_bytes == 1024


def test_layout_too_small_for_one_float_per_rank_is_skipped():
    assert message_layout("reduce_scatter", 16, 8) is None
    assert message_layout("all_reduce", 2, 8) is None
    assert message_layout("reduce_scatter", 32, 8) is not None


@pytest.mark.parametrize(
    ("text", "expected"),
    [("8", 8), ("64K", 65536), ("1m", 1024**2), ("2GiB", 2 * GiB), (" 4 KB ", 4096),
     ("16G", 16 * GiB)],
)
def test_parse_size(text, expected):
    assert parse_size(text) == expected


@pytest.mark.parametrize("text", ["", "1.5M", "0", "-8", "8X", "17G", "K"])
def test_parse_size_rejects(text):
    with pytest.raises(InputError, match="--sizes"):
        parse_size(text)


def test_parse_sizes_range_and_list():
    assert parse_sizes("1K..8K") == [1024, 2048, 4096, 8192]
    assert parse_sizes("4K,1K,1K") == [1024, 4096]
    assert parse_sizes("8..32,1M") == [8, 16, 32, 1024**2]
    assert parse_sizes("3..12") == [3, 6, 12]


@pytest.mark.parametrize("text", ["8K..1K", "1K,,2K", ",".join(str(i) for i in range(1, 66))])
def test_parse_sizes_rejects(text):
    with pytest.raises(InputError, match="--sizes"):
        parse_sizes(text)


def test_default_sizes_follow_nccl_tests_sweep_and_stay_small_on_gloo():
    nccl = default_sizes("nccl")
    assert nccl[0] == 8 and nccl[-1] == 256 * 1024**2 and len(nccl) == 26
    gloo = default_sizes("gloo")
    assert gloo[0] == 8 and gloo[-1] <= 1024**2
    assert power_of_two_sizes(8, 8) == [8]


def test_parse_ops():
    assert parse_ops("all") == ["all_reduce", "all_gather", "reduce_scatter"]
    assert parse_ops("all-reduce, reduce_scatter,all_reduce") == ["all_reduce", "reduce_scatter"]
    with pytest.raises(InputError, match="broadcast"):
        parse_ops("all_reduce,broadcast")


def test_fmt_size():
    assert fmt_size(8) == "8 B"
    assert fmt_size(1020) == "1020 B"
    assert fmt_size(65536) == "64 KiB"
    assert fmt_size(1536 * 1024) == "1.5 MiB"
    assert fmt_size(GiB) == "1 GiB"

from torchrig import units


def test_memory_is_binary_and_storage_decimal():
    assert units.fmt_gib(24 * 2**30) == "24.0 GiB"
    assert units.fmt_gib(512 * 2**20) == "512.0 MiB"
    assert units.fmt_gb(512e9) == "512.0 GB"
    assert units.fmt_gb(4e12) == "4.0 TB"
    assert units.fmt_rate(7e9) == "7.0 GB/s"
    assert units.fmt_rate(560e6) == "560 MB/s"


def test_unknown_and_non_finite_values_say_unknown():
    for fmt in (units.fmt_gib, units.fmt_gb, units.fmt_rate, units.fmt_flops, units.fmt_hz):
        assert fmt(None) == "unknown"
        assert fmt(float("nan")) == "unknown"
    assert units.fmt_money(None, "CNY") == "CNY unknown"


def test_human_durations_and_money():
    assert units.fmt_seconds(0.0102) == "10.2 ms"
    assert units.fmt_seconds(3 * 3600) == "3.0 h"
    assert units.fmt_money(12999, "CNY") == "CNY 12,999.00"
    assert units.fmt_flops(165.2e12) == "165.2 TFLOP/s"

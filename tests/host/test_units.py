"""specnet_bench.units: rates, times and sizes as tc writes them; the same
spellings as specctl (C) accepts give the same values."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from specnet_bench import units  # noqa: E402


@pytest.mark.parametrize("text", ["1.5mbit", "1500kbit", "1500000bit", "1500000", "1.5Mbit",
                                  "187500bps", "187.5kbps", "0.0015gbit", " 1.5mbit "])
def test_rate_spellings_of_the_same_rate(text):
    assert units.rate_bps(text) == pytest.approx(1.5e6)


@pytest.mark.parametrize("text, want", [("1kibit", 1024), ("1mibit", 1024 ** 2), ("1KiBps", 8192),
                                        ("2MBps", 16e6), ("1e3kbit", 1e6), ("10GBIT", 1e10)])
def test_rate_units(text, want):
    assert units.rate_bps(text) == pytest.approx(want)


@pytest.mark.parametrize("text", ["59ms", "59000us", "0.059s", "59000", "59msec", "59 ms"])
def test_time_spellings_of_the_same_time(text):
    assert units.seconds(text) == pytest.approx(0.059)
    assert units.ms(text) == pytest.approx(59)


@pytest.mark.parametrize("text, want", [("1500", 1500), ("15k", 15360), ("15kb", 15360),
                                        ("1m", 1 << 20), ("64kbit", 8192), ("2b", 2)])
def test_sizes(text, want):
    assert units.size_bytes(text) == want


@pytest.mark.parametrize("fn, text", [(units.rate_bps, "1.5mbits"), (units.rate_bps, "mbit"),
                                      (units.rate_bps, ""), (units.rate_bps, "1.5 m bit"),
                                      (units.seconds, "59min"), (units.seconds, "-"),
                                      (units.size_bytes, "15kib"), (units.rate_bps, "1,5mbit")])
def test_bad_values_are_refused_with_the_value(fn, text):
    with pytest.raises(ValueError, match="bad .*" + repr(text).replace("\\", "\\\\")
                       .replace(".", r"\.").replace("+", r"\+")):
        fn(text)

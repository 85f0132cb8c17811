"""Rates, times and sizes written as tc(8) writes them, parsed in one place.

    rate_bps("1.5mbit") == 1.5e6     rate_bps("2MBps") == 16e6
    seconds("59ms") == 0.059         seconds("600") == 600e-6   (tc: usec)
    size_bytes("15k") == 15360       size_bytes("64kbit") == 8192

The units and their meaning are tc's (iproute2 tc/tc_util.c get_rate,
get_time, get_size): a bare rate is bit/s and a bare time microseconds, a
rate's "bps" is bytes per second, the binary prefixes (kibit, KiBps) are
powers of 1024, a size's k/m/g are powers of 1024 and its kbit/mbit/gbit
are bits. Case is ignored. A bad value raises ValueError naming it."""
import re

_NUM = re.compile(r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([a-zA-Z]*)\s*$")

RATE = {"": 1, "bit": 1, "kbit": 1e3, "mbit": 1e6, "gbit": 1e9, "tbit": 1e12,
        "kibit": 1024, "mibit": 1024 ** 2, "gibit": 1024 ** 3, "tibit": 1024 ** 4,
        "bps": 8, "kbps": 8e3, "mbps": 8e6, "gbps": 8e9, "tbps": 8e12,
        "kibps": 8 * 1024, "mibps": 8 * 1024 ** 2, "gibps": 8 * 1024 ** 3,
        "tibps": 8 * 1024 ** 4}
TIME = {"": 1e-6, "s": 1, "sec": 1, "secs": 1, "ms": 1e-3, "msec": 1e-3, "msecs": 1e-3,
        "us": 1e-6, "usec": 1e-6, "usecs": 1e-6}
SIZE = {"": 1, "b": 1, "k": 1024, "kb": 1024, "m": 1024 ** 2, "mb": 1024 ** 2,
        "g": 1024 ** 3, "gb": 1024 ** 3, "kbit": 1024 / 8, "mbit": 1024 ** 2 / 8,
        "gbit": 1024 ** 3 / 8}


def _parse(text, units, what, example):
    m = _NUM.match(str(text))
    unit = m.group(2).lower() if m else None
    if unit not in units:
        raise ValueError(f"bad {what} {text!r} (e.g. {example})")
    return float(m.group(1)) * units[unit]


def rate_bps(text):
    """@text ('1.5mbit', '800kbit', '2000000') in bit/s."""
    return _parse(text, RATE, "rate", "1.5mbit, 800kbit")


def seconds(text):
    """@text ('59ms', '1.5s', '250us') in seconds."""
    return _parse(text, TIME, "time", "59ms, 1.5s")


def ms(text):
    """@text ('59ms', '1.5s') in milliseconds."""
    return seconds(text) * 1e3


def size_bytes(text):
    """@text ('1500', '15k', '1mb') in bytes."""
    return _parse(text, SIZE, "size", "1500, 15k")

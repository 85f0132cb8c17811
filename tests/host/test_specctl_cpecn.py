"""Host tests of `specctl model cpecn` (userspace/specctl/model_cpecn.c), the
CLI view of kernel/include/specnet/cpecn.h, the header tcp_cpecn computes
with (docs/algorithms.md, CPECN).

The binary is built once per pytest session into a temporary directory with
`make -C userspace O=<dir>`. A small floating-point model cross-checks the
fixed-point results (CP in ppm, printed exactly).
"""
import itertools
import json
import random
import subprocess

import pytest



def run(specctl, *args):
    return subprocess.run([specctl, *args], capture_output=True, text=True, timeout=10)


def cpecn(specctl, *args):
    p = run(specctl, "model", "cpecn", *args)
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    return p.stdout


def cpecn_json(specctl, *args):
    out = cpecn(specctl, *args, "--json")
    assert out.count("\n") == 1 and out.endswith("\n"), out
    j = json.loads(out)
    assert list(j) == ["cp", "dcp"]
    return out, j


def rows(out):
    """Human output: one row per window, as a dict of its columns."""
    res = []
    for line in out.splitlines():
        f = line.split()
        assert len(f) == 9, line
        assert (f[1], f[3], f[5], f[7]) == ("cp", "dcp", "cpecn", "wecn"), line
        res.append(dict(window=f[0], cp=f[2], dcp=f[4], cpecn=f[6], wecn=f[8]))
    return res


def reference_cp(window, m=8, alpha=0.25):
    """CP of a window written newest ACK first, in floating point."""
    n = m // 4
    w = [alpha ** k * (1 - alpha) / (1 - alpha ** n) for k in range(n)]
    return sum(w[k] * window[4 * k:4 * k + 4].count("1") / 4 for k in range(n))


# ---- algorithms.md's example ----

def test_example(specctl):
    out = cpecn(specctl, "00011111")
    assert out == "00011111  cp 0.400     dcp +0.400     cpecn congestion  wecn corruption\n"


def test_example_json(specctl):
    out, j = cpecn_json(specctl, "00011111")
    assert out == '{"cp": [0.400], "dcp": [0.400]}\n'
    assert j == {"cp": [0.4], "dcp": [0.4]}


def test_example_paper_parameters_explicit(specctl):
    base = cpecn(specctl, "00011111")
    for args in (["--m", "8"], ["--alpha", "0.25"], ["--m", "8", "--alpha", "0.250"],
                 ["--alpha", ".25"], ["--alpha", "0.25000"]):
        assert cpecn(specctl, "00011111", *args) == base
        assert cpecn(specctl, *args, "00011111") == base


# ---- several windows: dCP against the previous one ----

SEQ = ["00011111", "10001111", "01000111", "10100011", "11010001", "11111111",
       "11111111", "00000000"]


def test_several_windows(specctl):
    r = rows(cpecn(specctl, *SEQ))
    assert [x["window"] for x in r] == SEQ
    assert [x["cp"] for x in r] == ["0.400", "0.400", "0.350", "0.500", "0.650", "1.000",
                                    "1.000", "0.000"]
    assert [x["dcp"] for x in r] == ["+0.400", "0.000", "-0.050", "+0.150", "+0.150",
                                     "+0.350", "0.000", "-1.000"]
    # cpecn: congestion iff dCP > 0; wecn: the newest ACK's ECE bit
    for x in r:
        assert x["cpecn"] == ("congestion" if x["dcp"].startswith("+") else "corruption")
        assert x["wecn"] == ("congestion" if x["window"][0] == "1" else "corruption")


def test_several_windows_json(specctl):
    _, j = cpecn_json(specctl, *SEQ)
    assert j["cp"] == [0.4, 0.4, 0.35, 0.5, 0.65, 1.0, 1.0, 0.0]
    assert j["dcp"] == [0.4, 0.0, -0.05, 0.15, 0.15, 0.35, 0.0, -1.0]


def test_first_window_against_empty(specctl):
    """The first dCP is against the all-zero window a connection starts with."""
    _, j = cpecn_json(specctl, "00000000", "10000000")
    assert j == {"cp": [0.0, 0.2], "dcp": [0.0, 0.2]}
    _, j = cpecn_json(specctl, "11111111")
    assert j["dcp"] == [1.0]


def test_options_anywhere_and_double_dash(specctl):
    a = cpecn(specctl, "--m", "4", "1000", "0100", "--alpha", "0.5")
    assert cpecn(specctl, "1000", "--json", "0100", "--m", "4")[0] == "{"
    assert cpecn(specctl, "1000", "--m", "4", "--", "0100") == a
    assert [x["window"] for x in rows(a)] == ["1000", "0100"]


def test_all_windows_m8_against_float(specctl):
    windows = ["".join(b) for b in itertools.product("01", repeat=8)]
    _, j = cpecn_json(specctl, *windows)
    assert len(j["cp"]) == len(j["dcp"]) == 256
    prev = 0
    for w, cp, dcp in zip(windows, j["cp"], j["dcp"]):
        assert abs(cp - reference_cp(w)) <= 8e-6, w
        # exact in ppm: dCP is the difference of the printed CPs
        assert round(dcp * 1e6) == round(cp * 1e6) - prev, w
        prev = round(cp * 1e6)
    # the paper's weights are exact: every CP is a multiple of 0.0125
    assert all(round(cp * 1e6) % 12500 == 0 for cp in j["cp"])


@pytest.mark.parametrize("m, alpha", [(4, "0.25"), (12, "0.5"), (16, "0.333"),
                                      (32, "0.1"), (32, "0.999"), (20, "0.001")])
def test_other_parameters_against_float(specctl, m, alpha):
    rnd = random.Random(m * 1000 + int(float(alpha) * 1000))
    windows = ["0" * m, "1" * m] + ["".join(rnd.choice("01") for _ in range(m))
                                    for _ in range(200)]
    _, j = cpecn_json(specctl, "--m", str(m), "--alpha", alpha, *windows)
    bound = m // 4 * 4e-6
    for w, cp in zip(windows, j["cp"]):
        assert abs(cp - reference_cp(w, m, float(alpha))) <= bound, (w, cp)
    assert j["cp"][:2] == [0.0, 1.0]


def test_m12_alpha_half(specctl):
    # weights 4/7, 2/7, 1/7 of the whole: one ACK of the newest segment is
    # 1/7, of the oldest 1/28; printed to the ppm
    r = rows(cpecn(specctl, "--m", "12", "--alpha", "0.5",
                   "100000000000", "000000000001", "111111111111"))
    assert [x["cp"] for x in r] == ["0.142857", "0.035714", "1.000"]
    assert [x["dcp"] for x in r] == ["+0.142857", "-0.107143", "+0.964286"]


def test_m4_one_segment(specctl):
    _, j = cpecn_json(specctl, "--m", "4", "0000", "1000", "1100", "0110", "1111")
    assert j == {"cp": [0.0, 0.25, 0.5, 0.5, 1.0], "dcp": [0.0, 0.25, 0.25, 0.0, 0.5]}


def test_alpha_changes_weights(specctl):
    # one ECE in the older half: 0.2 / 4 at alpha 0.25, (1/3) / 4 at 0.5
    assert cpecn_json(specctl, "00001000")[1]["cp"] == [0.05]
    assert cpecn_json(specctl, "--alpha", "0.5", "00001000")[1]["cp"] == [0.083333]
    assert cpecn_json(specctl, "--alpha", "0.999", "10000000")[1]["cp"] == [0.125063]


# ---- bad input: one line on stderr, exit 2, nothing on stdout ----

@pytest.mark.parametrize("args, reason", [
    ([], "missing window"),
    (["--m", "8"], "missing window"),
    (["0001111"], "invalid window '0001111': 7 bits, the window has m = 8 (--m)"),
    (["000111111"], "invalid window '000111111': 9 bits"),
    ([""], "invalid window '': 0 bits"),
    (["00011112"], "invalid window '00011112': only 0 and 1"),
    (["0001 111"], "invalid window '0001 111': only 0 and 1"),
    (["00011111", "oops"], "invalid window 'oops': only 0 and 1"),
    (["00011111", "--m", "4"], "invalid window '00011111': 8 bits, the window has m = 4"),
    (["1111", "--m", "12"], "invalid window '1111': 4 bits, the window has m = 12"),
    (["00011111", "--m", "0"], "invalid --m '0': m must be a multiple of 4 in 4..32"),
    (["00011111", "--m", "3"], "invalid --m '3': m must be a multiple of 4 in 4..32"),
    (["00011111", "--m", "5"], "invalid --m '5': m must be a multiple of 4 in 4..32"),
    (["00011111", "--m", "36"], "invalid --m '36': m must be a multiple of 4 in 4..32"),
    (["00011111", "--m", "eight"], "invalid --m 'eight': not an integer"),
    (["00011111", "--m", "99999999999"], "invalid --m '99999999999': out of range"),
    (["00011111", "--alpha", "0"], "invalid --alpha '0': alpha must be 1..999 per-mille "
                                   "(0 < alpha < 1)"),
    (["00011111", "--alpha", "1"], "invalid --alpha '1': alpha must be 1..999 per-mille"),
    (["00011111", "--alpha", "1.5"], "invalid --alpha '1.5': alpha must be 1..999"),
    (["00011111", "--alpha", "250"], "invalid --alpha '250': alpha must be 1..999"),
    (["00011111", "--alpha", "-0.25"], "invalid --alpha '-0.25': alpha must be 1..999"),
    (["00011111", "--alpha", "0.0001"], "invalid --alpha '0.0001': not a whole per-mille"),
    (["00011111", "--alpha", "0.2501"], "invalid --alpha '0.2501': not a whole per-mille"),
    (["00011111", "--alpha", "quarter"], "invalid --alpha 'quarter': not a number"),
    (["00011111", "--alpha", "."], "invalid --alpha '.': not a number"),
    (["00011111", "--alpha", "0.2.5"], "invalid --alpha '0.2.5': not a number"),
    (["00011111", "--alpha", "99999999999999999999"], "invalid --alpha"),
    (["00011111", "--m"], "option '--m' needs a value"),
    (["00011111", "--alpha"], "option '--alpha' needs a value"),
    (["00011111", "--bogus"], "unknown option '--bogus'"),
    (["00011111", "-x"], "unknown option '-x'"),
    (["-0011111"], "unknown option '-0'"),
    (["00011111", "-xy"], "unknown option '-x'"),
    (["00011111", "--alpha=0.5", "--mm", "8"], "unknown option '--mm'"),
    (["00011111", "--json=yes"], "option '--json' takes no value"),
    (["00011111", "--help=me"], "option '--help' takes no value"),
])
def test_bad_input(specctl, args, reason):
    p = run(specctl, "model", "cpecn", *args)
    assert p.returncode == 2, (args, p.stdout, p.stderr)
    assert p.stdout == ""
    assert p.stderr.count("\n") == 1, p.stderr
    assert p.stderr.startswith("specctl: ")
    assert reason in p.stderr, p.stderr


def test_bad_window_after_good_ones_prints_nothing(specctl):
    p = run(specctl, "model", "cpecn", "00011111", "11111111", "0000000x", "--json")
    assert p.returncode == 2 and p.stdout == ""
    assert "'0000000x'" in p.stderr


# ---- usage and dispatch ----

@pytest.mark.parametrize("flag", ["-h", "--help"])
def test_help(specctl, flag):
    p = run(specctl, "model", "cpecn", flag)
    assert p.returncode == 0 and p.stderr == ""
    assert p.stdout.startswith("usage: specctl model cpecn")
    for word in ("--m", "--alpha", "--json", "newest ACK first", "all-zero window"):
        assert word in p.stdout


def test_listed_in_main_help(specctl):
    p = run(specctl, "--help")
    assert p.returncode == 0
    assert "model cpecn" in p.stdout and "model red" in p.stdout

"""Host tests of `specctl model tp` (userspace/specctl/model_tp.c), the CLI
view of kernel/include/specnet/tp.h, the header tcp_tp computes with
(docs/algorithms.md, TCP-TP): the prediction of the next interval's
throughput from aggregated samples on stdin, N = round(C / prediction)
(--flows-round ceil: the paper's ceiling) and cwnd = C * RTT / (8 N mss).

The binary is built once per pytest session into a temporary directory with
`make -C userspace O=<dir>`. A floating-point LMMSE (the same estimator:
mean removal, biased autocovariance, Levinson-Durbin with the header's
stopping rules and clamps) cross-checks the predictions.
"""
import json
import math
import os
import random
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from specnet_bench import units  # noqa: E402

N_RING = 20
BASE = ["--capacity", "10mbit", "--rtt", "50ms"]
KEYS = ["prediction_bps", "n", "cwnd", "samples", "ready", "mean_bps", "order", "method",
        "flags"]


def run(specctl, args, stdin=""):
    return subprocess.run([specctl, "model", "tp", *args], input=stdin, capture_output=True,
                          text=True, timeout=10)


def lines(samples):
    return "".join(f"{s}\n" for s in samples)


def tp(specctl, samples, *args):
    p = run(specctl, [*BASE, *args] if "--capacity" not in args else list(args),
            lines(samples))
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    return p.stdout


def tp_json(specctl, samples, *args):
    out = tp(specctl, samples, *args, "--json")
    assert out.count("\n") == 1 and out.endswith("\n"), out
    j = json.loads(out)
    assert list(j) == KEYS
    return j


def flows(c, pred, ceil=False):
    if pred == 0:
        return 1000000
    n = -(-c // pred) if ceil else (c + pred // 2) // pred
    return min(max(n, 1), 1000000)


def cwnd(c, rtt_us, n, mss):
    return min(max(c * rtt_us // (8_000_000 * n * mss), 2), 2**32 - 1)


def ref_predict(samples, p=2):
    """LMMSE of the next sample from the last 20, in floating point."""
    w = [float(v) for v in samples[-N_RING:]]
    n = len(w)
    mean = sum(w) / n
    if all(v == w[0] for v in w):
        return mean, 0
    x = [v - mean for v in w]
    big_r = [sum(x[t] * x[t - i] for t in range(i, n)) for i in range(p + 1)]
    r = [v / big_r[0] for v in big_r]
    a, e, order = [], 1.0, 0
    for m in range(1, p + 1):
        if a and max(map(abs, a)) >= 2048 or e < 2 ** -10:
            break
        num = r[m] - sum(a[j] * r[m - 1 - j] for j in range(m - 1))
        if abs(num) >= e:
            break
        k = num / e
        a = [a[j] - k * a[m - 2 - j] for j in range(m - 1)] + [k]
        e -= k * num
        order = m
    pred = mean + sum(a[i] * x[n - 1 - i] for i in range(len(a)))
    return min(max(pred, 0.0), 2 * max(w)), order


def ar_series(phi, length, mean, cv, seed):
    rnd = random.Random(seed)
    hist, out = [0.0] * len(phi), []
    for t in range(length + 200):
        v = sum(p * h for p, h in zip(phi, hist)) + rnd.gauss(0, 1)
        hist = [v] + hist[:-1]
        if t >= 200:
            out.append(v)
    m = sum(out) / len(out)
    s = math.sqrt(sum((v - m) ** 2 for v in out) / len(out))
    return [max(0, round(mean * (1 + cv * (v - m) / s))) for v in out]


# ---- constant series: the rate itself, N and cwnd from C and RTT ----

def test_constant_json(specctl):
    j = tp_json(specctl, ["5mbit"] * 20)
    assert (j["prediction_bps"], j["n"], j["cwnd"]) == (5000000, 2, 21)
    assert j["samples"] == 20 and j["ready"] is True
    assert j["mean_bps"] == 5000000 and j["order"] == 0
    assert j["method"] == "levinson" and j["flags"] == ["constant"]


def test_constant_table(specctl):
    out = tp(specctl, ["5mbit"] * 25)
    rows = {ln.split()[0]: ln.split()[1] for ln in out.splitlines()[1:] if ln.startswith("  ")}
    assert rows["prediction"] == "5000000"
    assert rows["mean"] == "5000000"
    assert rows["N"] == "2"
    assert rows["cwnd"] == "21"
    assert out.startswith("TCP-TP prediction (levinson, order 0 of 2): 25 samples")
    assert "constant window" in out


@pytest.mark.parametrize("cap, rate, rtt, mss", [
    ("10mbit", "5mbit", "50ms", None),
    ("10mbit", "3.4mbit", "50ms", None),          # N = round(2.94) = 3: cwnd 14
    ("10mbit", "2.6mbit", "50ms", None),          # N = round(3.85) = 4
    ("10mbit", "9.9mbit", "50ms", None),          # a lone flow at 0.99 C: N = 1
    ("10mbit", "20mbit", "50ms", None),           # prediction above C: N = 1
    ("1gbit", "100mbit", "20ms", "9000"),
    ("100gbit", "12.5gbit", "100ms", "1448"),
    ("64kbit", "10kbit", "560ms", "1000"),        # the satellite link: cwnd floor 2
    ("200gbit", "1bit", "10s", "1"),              # N saturates at 1e6
])
def test_constant_n_cwnd(specctl, cap, rate, rtt, mss):
    c, f = round(units.rate_bps(cap)), round(units.rate_bps(rate))
    r = round(units.seconds(rtt) * 1e6)
    args = ["--capacity", cap, "--rtt", rtt] + (["--mss", mss] if mss else [])
    j = tp_json(specctl, [rate] * 20, *args)
    assert j["prediction_bps"] == f
    assert j["n"] == flows(c, f)
    assert j["cwnd"] == cwnd(c, r, j["n"], int(mss or 1448))


def test_flows_round_ceil(specctl):
    """The paper's ceiling counts a lone flow at 0.99 C as two."""
    base = ["--capacity", "10mbit", "--rtt", "50ms"]
    assert tp_json(specctl, ["9.9mbit"] * 20, *base)["n"] == 1
    assert tp_json(specctl, ["9.9mbit"] * 20, *base, "--flows-round", "ceil")["n"] == 2
    assert tp_json(specctl, ["2.6mbit"] * 20, *base, "--flows-round", "ceil")["n"] == 4
    assert tp_json(specctl, ["3.1mbit"] * 20, *base, "--flows-round", "ceil")["n"] == 4
    assert tp_json(specctl, ["3.1mbit"] * 20, *base, "--flows-round", "nearest")["n"] == 3


def test_n_cwnd_examples(specctl):
    assert tp_json(specctl, ["3.4mbit"] * 20)["n"] == 3
    assert tp_json(specctl, ["3.4mbit"] * 20)["cwnd"] == 14     # 500000 / (3 8 1448) = 14.4
    assert tp_json(specctl, ["20mbit"] * 20)["n"] == 1


def test_zeros(specctl):
    j = tp_json(specctl, [0] * 20)
    assert (j["prediction_bps"], j["n"], j["cwnd"]) == (0, 1000000, 2)


# ---- AR series: the LMMSE prediction, checked against floating point ----

@pytest.mark.parametrize("phi, order", [
    ([0.8], 19), ([0.8], 1), ([0.8], 2), ([0.6, 0.3], 19), ([0.6, 0.3], 2), ([0.6, 0.3], 8),
])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_ar_series(specctl, phi, order, seed):
    s = ar_series(phi, 60, 5e6, 0.1, seed)
    j = tp_json(specctl, s, "--order", str(order))
    ref, ref_order = ref_predict(s, order)
    assert j["ready"] and j["samples"] == 60 and j["order"] == ref_order
    assert abs(j["prediction_bps"] - ref) <= max(1, 1e-6 * ref), (j, ref)
    assert j["mean_bps"] == round(sum(s[-20:]) / 20)
    # plausible: within the window's range widened by its spread
    w = s[-20:]
    spread = max(w) - min(w)
    assert min(w) - spread <= j["prediction_bps"] <= max(w) + spread
    assert j["n"] == flows(10**7, j["prediction_bps"])
    assert j["cwnd"] == cwnd(10**7, 50000, j["n"], 1448)


def test_ar_at_100gbit(specctl):
    s = ar_series([0.6, 0.3], 40, 9e10, 0.1, 7)
    j = tp_json(specctl, s, "--capacity", "100gbit", "--rtt", "10ms")
    ref, _ = ref_predict(s)
    assert abs(j["prediction_bps"] - ref) <= 1e-6 * ref
    assert j["n"] == flows(10**11, j["prediction_bps"]) in (1, 2)


def test_lms(specctl):
    s = ar_series([0.8], 200, 5e6, 0.1, 11)
    j = tp_json(specctl, s, "--method", "lms")
    assert j["method"] == "lms" and j["order"] == 2 and j["ready"]
    w = s[-20:]
    assert min(w) - (max(w) - min(w)) <= j["prediction_bps"] <= 2 * max(w)
    # the first full window is the Levinson solve
    assert tp_json(specctl, s[:20], "--method", "lms")["prediction_bps"] == \
        tp_json(specctl, s[:20])["prediction_bps"]
    out = tp(specctl, s, "--method", "lms", "--order", "4")
    assert out.startswith("TCP-TP prediction (lms, order 4 of 4): 200 samples")


def test_one_spike(specctl):
    for pos in (0, 10, 19):
        s = ["5mbit"] * 20
        s[pos] = "100mbit"
        j = tp_json(specctl, s)
        assert 0 <= j["prediction_bps"] <= 200_000_000
        ref, _ = ref_predict([100_000_000 if i == pos else 5_000_000 for i in range(20)])
        assert abs(j["prediction_bps"] - ref) <= max(1, 1e-6 * ref)


def test_only_last_20_count(specctl):
    s = ar_series([0.8], 20, 5e6, 0.1, 5)
    assert tp_json(specctl, [1] * 30 + s)["prediction_bps"] == tp_json(specctl, s)["prediction_bps"]


# ---- fewer than 20 samples: no prediction, exit 0 ----

@pytest.mark.parametrize("k", [0, 1, 7, 19])
def test_not_ready(specctl, k):
    out = tp(specctl, ["5mbit"] * k)
    assert out == (f"TCP-TP: not ready: {k} of 20 samples, no prediction "
                   "(the module behaves as Reno until it has 20)\n")
    j = tp_json(specctl, ["5mbit"] * k)
    assert j["prediction_bps"] is None and j["n"] is None and j["cwnd"] is None
    assert j["ready"] is False and j["samples"] == k and j["mean_bps"] is None


def test_ready_at_20(specctl):
    assert tp_json(specctl, ["5mbit"] * 19)["ready"] is False
    assert tp_json(specctl, ["5mbit"] * 20)["ready"] is True


# ---- input format ----

def test_units_blank_lines_comments(specctl):
    ref = tp_json(specctl, [5000000] * 20)
    mixed = ["# throughput per interval", "5mbit", "5000000", "625kbps", "5Mbit", "  5mbit\t",
             "", "5000000bit", "0.005gbit", "5000kbit"] + ["5mbit"] * 12 + ["   "]
    j = tp_json(specctl, mixed)
    assert j == ref
    p = run(specctl, [*BASE, "--json"], "5mbit\r\n" * 20)      # CRLF
    assert p.returncode == 0 and json.loads(p.stdout) == ref


def test_no_trailing_newline(specctl):
    p = run(specctl, [*BASE, "--json"], "\n".join(["5mbit"] * 20))
    assert p.returncode == 0 and json.loads(p.stdout)["samples"] == 20


# ---- bad input: one line on stderr, exit 2, nothing on stdout ----

@pytest.mark.parametrize("bad, reason", [
    ("foo", "line 3: invalid sample 'foo': not a number"),
    ("5xbit", "line 3: invalid sample '5xbit': unknown unit"),
    ("-5mbit", "line 3: invalid sample '-5mbit': not a number"),
    ("5..0mbit", "line 3: invalid sample '5..0mbit'"),
    ("5 mbit", "line 3: invalid sample '5 mbit': unknown unit"),
    ("201gbit", "line 3: invalid sample '201gbit': out of range (0..200gbit)"),
    ("99999999999999999999tbit", "line 3: invalid sample"),
    ("5mbit # comment", "line 3: invalid sample"),
    ("x" * 300, "line 3: too long"),
    ("5\0mbit", "line 3: NUL byte"),
])
def test_bad_sample(specctl, bad, reason):
    p = run(specctl, BASE, f"5mbit\n5mbit\n{bad}\n" + "5mbit\n" * 20)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert p.stdout == ""
    assert p.stderr.count("\n") == 1, p.stderr
    assert p.stderr.startswith("specctl: " + reason), p.stderr


@pytest.mark.parametrize("args, reason", [
    (["--rtt", "50ms"], "missing --capacity"),
    (["--capacity", "10mbit"], "missing --rtt"),
    (BASE + ["--capacity", "0"], "invalid --capacity '0'"),
    (BASE + ["--capacity", "201gbit"], "invalid --capacity '201gbit': must be 1bit..200gbit"),
    (BASE + ["--capacity", "10xbit"], "invalid --capacity '10xbit': unknown unit"),
    (BASE + ["--rtt", "11s"], "invalid --rtt '11s': must be 1us..10s"),
    (BASE + ["--rtt", "5min"], "invalid --rtt '5min': unknown unit"),
    (BASE + ["--mss", "0"], "invalid --mss '0'"),
    (BASE + ["--mss", "65536"], "invalid --mss '65536': must be 1..65535 bytes"),
    (BASE + ["--mss", "big"], "invalid --mss 'big': not an integer"),
    (BASE + ["--method", "rls"], "invalid --method 'rls': must be levinson or lms"),
    (BASE + ["--order", "0"], "invalid --order '0': must be 1..19"),
    (BASE + ["--order", "20"], "invalid --order '20': must be 1..19"),
    (BASE + ["--flows-round", "floor"], "invalid --flows-round 'floor': must be nearest or ceil"),
    (BASE + ["--bogus"], "unknown option '--bogus'"),
    (BASE + ["--rtt"], "option '--rtt' needs a value"),
    (BASE + ["-xy"], "unknown option '-x' (see specctl model tp --help)"),
    (BASE + ["--json=yes"], "option '--json' takes no value"),
    (BASE + ["samples.txt"], "unexpected argument 'samples.txt'"),
])
def test_bad_options(specctl, args, reason):
    p = run(specctl, args, "5mbit\n" * 20)
    assert p.returncode == 2, (args, p.stdout, p.stderr)
    assert p.stdout == ""
    assert p.stderr.count("\n") == 1, p.stderr
    assert p.stderr.startswith("specctl: " + reason), p.stderr


# ---- usage ----

@pytest.mark.parametrize("flag", ["-h", "--help"])
def test_help(specctl, flag):
    p = run(specctl, [flag])
    assert p.returncode == 0 and p.stderr == ""
    assert p.stdout.startswith("usage: specctl model tp")
    for opt in ("--capacity", "--rtt", "--mss", "--method", "--order", "--json"):
        assert opt in p.stdout


def test_listed(specctl):
    p = subprocess.run([specctl, "--help"], capture_output=True, text=True, timeout=10)
    assert "model tp" in p.stdout

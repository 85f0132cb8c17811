"""Host tests of `specctl model red` (userspace/specctl), run on the host
against the binary built from the same model header as sch_redopt.

The binary is built once per pytest session into a temporary directory with
`make -C userspace O=<dir>`. A small floating-point model (docs/algorithms.md
the RED buffer model) cross-checks the integer results, with a per-arrival
simulation of the congestion-avoidance rounds for ca_peak and transient.
"""
import json
import math
import subprocess

import pytest


EXAMPLE = ["--bandwidth", "1.5mbit", "--rtt", "59ms", "--flows", "2",
           "--ssthresh", "15,15", "--min", "5", "--max-p", "0.1", "--window", "38"]


def run(specctl, *args):
    return subprocess.run([specctl, *args], capture_output=True, text=True, timeout=10)


def red(specctl, *args):
    p = run(specctl, "model", "red", *args)
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    return p.stdout


def red_json(specctl, *args):
    out = red(specctl, *args, "--json")
    assert out.count("\n") == 1 and out.endswith("\n"), out
    return out, json.loads(out)


def reference(bandwidth, rtt_s, flows, ssthresh, min_th, max_p, wlog=9, window=None,
              avpkt=1000):
    """The model in floating point: L, Qmax, max_th, limit."""
    pipe = rtt_s * bandwidth / (8 * avpkt)
    ss = ssthresh if isinstance(ssthresh, list) else [ssthresh] * flows
    buffer_raw = sum(ss) - pipe
    w = window if window else (pipe + min_th) / flows
    ppm = round(max_p * 1e6)                                # redopt_max_p_from_ppm()
    max_p = min(((ppm << 32) + 500000) // 10**6, 2**32 - 1) / 2**32
    k = max_p / (2 * min_th)
    a = (flows / w) / k
    b = flows * 2.0 ** -wlog
    qmax = min_th + (b + math.sqrt(b * b + 4 * a)) / 2
    buffer = max(1, math.ceil(buffer_raw))
    max_th = math.ceil(qmax)
    ca, tr = peaks(pipe, sum(ss), flows, min_th, max_p, wlog, max_th)
    return dict(buffer=buffer, buffer_raw=buffer_raw, qmax=qmax, max_th=max_th, ca=ca, tr=tr)


def peaks(pipe, sum_ss, m, min_th, max_p, wlog, max_th):
    """ca_peak and transient, one arrival at a time (red_model.h, the peaks):
    from the first round whose windows fill the pipe, u arrivals a round,
    the queue up by m / u each, RED's average from 0 updated before it.
    Every flow is marked when the summed probabilities reach m, or when the
    average reaches max_th (forced marks); the queue then grows one more
    round trip, m packets."""
    w, k = 2.0 ** -wlog, max_p / (2 * min_th)
    u = sum_ss
    if u < pipe:
        u += m * math.ceil((pipe - u) / m)
    q, avg, haz, ca, qm = u - pipe, 0.0, 0.0, None, None
    while True:
        g = m / u
        for _ in range(int(u)):
            avg += w * (q - avg)
            q += g
            if ca is None:
                if avg >= min_th:
                    ca = q
                continue
            if qm is None:
                haz += k * (avg - min_th)
                if haz >= m or avg >= max_th:
                    qm = q + m
            elif q >= qm:
                return ca, qm
        u += m


def close(got, want, min_th):
    """red_model.h's peaks against the simulation: 0.5 packet below to 3
    packets + 1/32 of (want - min_th) above (tests/unit/test_red_model.c)."""
    return -0.5 <= got - want <= 3 + (want - min_th) / 32


def limit_of(j):
    """The limit from the reported terms: max(peaks) + margin, or max_th + 1."""
    top = max(j["ss_peak"], j["ca_peak"], j["transient"])
    return max(top + 10 * j["flows"], j["max_th"] + 1)


# ---- the paper's examples ----

def test_example_json(specctl):
    out, j = red_json(specctl, *EXAMPLE)
    assert out.startswith('{"limit":53,"min_th":5,"max_th":8,"qavg_max":7.30,')
    assert list(j)[:4] == ["limit", "min_th", "max_th", "qavg_max"]
    assert j["buffer"] == j["ss_peak"] == 19
    assert (j["ca_peak"], j["transient"], j["transient_end"]) == (27, 33, "max_th")
    assert (j["margin"], j["limit_by"]) == (20, "transient")
    assert j["window"] == 38.0
    assert j["wlog"] == 9
    assert j["w"] == 0.001953125
    assert (j["wlog_follow"], j["w_follow"], j["max_th_follow"]) == (5, 0.03125, 8)
    assert (j["ca_peak_follow"], j["transient_follow"]) == (20, 23)
    assert (j["limit_follow"], j["limit_follow_by"]) == (43, "transient")
    assert j["m_bound"] is None


# (RTT, SSth): ss_peak, ca_peak, transient, limit, limit_by; at wlog_follow 5:
# ca_peak, transient, limit, limit_by (worked by hand in test_red_model.c)
WORKED = [
    ("59ms", "15,20", 24, 30, 35, 55, "transient", 25, 27, 47, "transient"),
    ("99ms", "15,15", 12, 22, 29, 49, "transient", 13, 16, 36, "transient"),
    ("59ms", "15,15", 19, 27, 33, 53, "transient", 20, 23, 43, "transient"),
]


@pytest.mark.parametrize("case", WORKED, ids=[f"{c[0]}-{c[1]}" for c in WORKED])
def test_worked_cases(specctl, case):
    rtt, ss, *want = case
    args = list(EXAMPLE)
    args[args.index("59ms")] = rtt
    args[args.index("15,15")] = ss
    _, j = red_json(specctl, *args)
    assert [j["ss_peak"], j["ca_peak"], j["transient"], j["limit"], j["limit_by"],
            j["ca_peak_follow"], j["transient_follow"], j["limit_follow"],
            j["limit_follow_by"]] == want
    assert (j["max_th"], j["qavg_max"], j["wlog_follow"], j["transient_end"]) == (8, 7.30, 5,
                                                                                 "max_th")
    assert j["limit"] == limit_of(j)


def test_explain(specctl):
    args = list(EXAMPLE)
    args[args.index("15,15")] = "15,20"
    out = red(specctl, *args, "--explain")
    terms = [line.split(" =")[0] for line in out.splitlines()
             if line and not line.startswith((" ", "RED model"))]
    assert terms == ["ss_peak", "max_th", "ca_peak", "transient", "limit", "wlog_follow"]
    for text in ["ss_peak = 24 packets", "ceil(35 - 11.062) = 24", "max_th = 8 packets",
                 "Qmax = 7.30", "ca_peak = 30 packets", "m / (w u) = 29.257 packets",
                 "transient = 35 packets", "reaches max_th = 8 first",
                 "with the queue at 33", "(forced marks)", "peaks at 35 packets (+2)",
                 "the queue stops at 33",
                 "limit = 55 packets, set by transient", "+ 20 (10 packets", "= 55;",
                 "wlog_follow = 5, limit_follow = 47 packets", "pipe + min_th = 16.062",
                 "w = 2^-5 = 0.03125", "limit 47 (transient)", "The qdisc runs Wlog 9"]:
        assert text in out, (text, out)


@pytest.mark.parametrize("other", [["--json"], ["--tc-red", "eth0"]])
def test_explain_excludes(specctl, other):
    p = run(specctl, "model", "red", *EXAMPLE, "--explain", *other)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr == f"specctl: --explain does not combine with {other[0]}\n"


def test_example_table(specctl):
    out = red(specctl, *EXAMPLE)
    rows = {line.split()[0]: line.split()[1] for line in out.splitlines()[1:]}
    assert rows["limit"] == "53"
    assert "set by transient (+ 20 packets margin" in out
    assert rows["ss_peak"] == "19"
    assert rows["ca_peak"] == "27"
    assert rows["transient"] == "33"
    assert "(ends: max_th)" in out
    assert rows["follow"] == "5"
    assert "max_th 8, limit 43 (transient); not in force" in out
    assert rows["min_th"] == "5"
    assert rows["max_th"] == "8"
    assert rows["Qmax"] == "7.30"
    assert "r C / (8 s) = 11.062" in out      # 2 x 5.53 packets in flight


@pytest.mark.parametrize("ewma", ["0.002", "0.001953125", "0.0019"])
def test_ewma_rounds_to_wlog_9(specctl, ewma):
    _, j = red_json(specctl, *EXAMPLE, "--ewma", ewma)
    assert j["wlog"] == 9
    assert (j["limit"], j["min_th"], j["max_th"], j["qavg_max"]) == (53, 5, 8, 7.30)


def test_ewma_other_weights(specctl):
    assert red_json(specctl, *EXAMPLE, "--ewma", "0.5")[1]["wlog"] == 1
    assert red_json(specctl, *EXAMPLE, "--ewma", "0.004")[1]["wlog"] == 8


def test_one_ssthresh_for_all_flows(specctl):
    args = list(EXAMPLE)
    args[args.index("15,15")] = "15"
    assert red_json(specctl, *args)[0] == red_json(specctl, *EXAMPLE)[0]


def test_per_flow_ssthresh(specctl):
    args = list(EXAMPLE)
    args[args.index("15,15")] = "10,20"
    assert red_json(specctl, *args)[1]["buffer"] == 19
    args[args.index("10,20")] = "10,30"
    assert red_json(specctl, *args)[1]["buffer"] == 29


@pytest.mark.parametrize("bw", ["1.5mbit", "1500kbit", "1500000bit", "1500000", "1.5Mbit",
                                "187500bps", "187.5kbps", "0.0015gbit"])
@pytest.mark.parametrize("rtt", ["59ms", "59000us", "0.059s", "59000", "59msec"])
def test_units_like_tc(specctl, bw, rtt):
    args = list(EXAMPLE)
    args[1], args[3] = bw, rtt
    assert red_json(specctl, *args)[0] == red_json(specctl, *EXAMPLE)[0]


def test_derived_window(specctl):
    args = EXAMPLE[:-2]
    _, j = red_json(specctl, *args)
    assert j["window"] == 8.031          # (11.0625 + 5) / 2
    ref = reference(1.5e6, 0.059, 2, 15, 5, 0.1)
    assert j["max_th"] == ref["max_th"] == 10
    assert abs(j["qavg_max"] - ref["qmax"]) <= 0.006


def test_loss_rate_bound(specctl):
    # alpha = pipe lambda r / 2 = 11.0625 * 0.5 * 0.059 / 2 = 0.163 flows
    _, j = red_json(specctl, *EXAMPLE, "--loss-rate", "0.5")
    assert j["m_bound"] == 0.163
    out = red(specctl, *EXAMPLE, "--loss-rate", "0.5")
    assert "exceeded by --flows" in out
    _, j = red_json(specctl, *EXAMPLE, "--loss-rate", "1000")
    assert j["m_bound"] == 326.343        # 11.0625 * 1000 * 0.059 / 2 = 326.34375
    assert "exceeded" not in red(specctl, *EXAMPLE, "--loss-rate", "1000")


def test_tc_red(specctl):
    out = red(specctl, *EXAMPLE, "--tc-red", "eth0")
    assert out == ("tc qdisc add dev eth0 root red limit 53000 min 5000 max 8000 "
                   "avpkt 1000 burst 6 bandwidth 1500000bit probability 0.1 ecn\n")
    _, j = red_json(specctl, *EXAMPLE, "--tc-red", "eth0")
    assert j["tc_red"] == out.strip()


def test_tc_red_avpkt_and_limit(specctl):
    # the limit in force (51 packets) in bytes
    args = list(EXAMPLE)
    args[args.index("15,15")] = "1"
    out = red(specctl, *args, "--avpkt", "1500", "--tc-red", "veth0")
    assert " limit 76500 min 7500 max 12000 avpkt 1500 burst 6 " in out


def test_limit_terms(specctl):
    # a small L: the congestion-avoidance peaks set the limit
    args = list(EXAMPLE)
    args[args.index("15,15")] = "1"
    _, j = red_json(specctl, *args)
    assert (j["buffer"], j["ca_peak"], j["transient"], j["max_th"]) == (1, 23, 29, 8)
    assert (j["limit"], j["limit_by"]) == (49, "transient")
    # max_th + 1 sets it: one flow, W 1, max_p 0.01, w 1/2 (the marks end the transient)
    _, j = red_json(specctl, "--bandwidth", "1.5mbit", "--rtt", "59ms", "--flows", "1",
                    "--ssthresh", "1", "--min", "5", "--max-p", "0.01", "--window", "1",
                    "--ewma", "0.5")
    assert (j["max_th"], j["transient"], j["transient_end"]) == (37, 16, "marks")
    assert (j["limit"], j["limit_by"], j["margin"]) == (38, "max_th", 10)


@pytest.mark.parametrize("case", [
    dict(bandwidth=64e3, rtt_s=0.56, flows=1, ssthresh=30, min_th=5, max_p=0.1),
    dict(bandwidth=10e6, rtt_s=0.02, flows=10, ssthresh=64, min_th=20, max_p=0.02, wlog=9),
    dict(bandwidth=1e9, rtt_s=0.1, flows=100, ssthresh=1000, min_th=300, max_p=0.05,
         window=120),
    dict(bandwidth=100e6, rtt_s=0.6, flows=3, ssthresh=[100, 2000, 50], min_th=30,
         max_p=1.0, wlog=5, avpkt=1500),
    dict(bandwidth=2e6, rtt_s=0.25, flows=1024, ssthresh=4, min_th=1, max_p=0.5, wlog=12,
         window=1),
])
def test_against_float_model(specctl, case):
    ref = reference(**case)
    args = ["--bandwidth", f"{case['bandwidth']:.0f}bit",
            "--rtt", f"{case['rtt_s'] * 1e6:.0f}us", "--flows", str(case["flows"]),
            "--ssthresh", ",".join(map(str, case["ssthresh"]))
            if isinstance(case["ssthresh"], list) else str(case["ssthresh"]),
            "--min", str(case["min_th"]), "--max-p", str(case["max_p"])]
    if "wlog" in case:
        args += ["--ewma", f"{2.0 ** -case['wlog']:.6f}"]
    if case.get("window"):
        args += ["--window", str(case["window"])]
    if "avpkt" in case:
        args += ["--avpkt", str(case["avpkt"])]
    _, j = red_json(specctl, *args)
    assert abs(j["qavg_max"] - ref["qmax"]) <= 0.006, (j, ref)
    assert j["qmax_milli"] == math.ceil(ref["qmax"] * 1000 - 1e-9)
    assert j["max_th"] == ref["max_th"]
    assert j["buffer"] == j["ss_peak"] == ref["buffer"]
    assert close(j["ca_peak"], ref["ca"], case["min_th"]), (j, ref)
    assert close(j["transient"], ref["tr"], case["min_th"]), (j, ref)
    assert j["limit"] == limit_of(j)


# ---- bad input: one line on stderr, exit 2, nothing on stdout ----

@pytest.mark.parametrize("args, reason", [
    (["--bogus"], "unknown option '--bogus'"),
    (["-x"], "unknown option '-x'"),
    (["-xy"], "unknown option '-x'"),
    (["--json=yes"], "option '--json' takes no value"),
    (["--rtt"], "option '--rtt' needs a value"),
    (["extra"], "unexpected argument 'extra'"),
    (["--bandwidth", "1.5xbit"], "invalid --bandwidth '1.5xbit': unknown unit"),
    (["--bandwidth", "fast"], "invalid --bandwidth 'fast': not a number"),
    (["--bandwidth", "0bit"], "invalid --bandwidth '0bit'"),
    (["--bandwidth", "101gbit"], "invalid --bandwidth '101gbit'"),
    (["--bandwidth", "99999999999999999999tbit"], "invalid --bandwidth"),
    (["--rtt", "5min"], "invalid --rtt '5min': unknown unit"),
    (["--rtt", "11s"], "invalid --rtt '11s'"),
    (["--rtt", "1..2ms"], "invalid --rtt"),
    (["--flows", "two"], "invalid --flows 'two': not an integer"),
    (["--flows", "1025"], "flows must be 1..1024"),
    (["--flows", "0"], "invalid --flows '0'"),
    (["--flows", "99999999999"], "invalid --flows '99999999999': out of range"),
    (["--ssthresh", "15,15,15"], "ssthresh needs one value for all flows or one per flow"),
    (["--ssthresh", "15,,15"], "invalid --ssthresh '15,,15': empty value"),
    (["--ssthresh", "15,"], "invalid --ssthresh"),
    (["--ssthresh", "1000001"], "ssthresh must be 1..1000000 packets"),
    (["--ssthresh", "0"], "ssthresh must be 1..1000000 packets"),
    (["--min", "0"], "invalid --min '0'"),
    (["--min", "1000001"], "min_th must be 1..1000000 packets"),
    (["--max-p", "0"], "invalid --max-p '0'"),
    (["--max-p", "1.5"], "invalid --max-p '1.5'"),
    (["--max-p", "-0.1"], "invalid --max-p '-0.1'"),
    (["--ewma", "1"], "invalid --ewma '1'"),
    (["--ewma", "0"], "invalid --ewma '0'"),
    (["--ewma", "0.0000001"], "invalid --ewma"),
    (["--window", "0"], "invalid --window '0'"),
    (["--window", "10000001"], "window must be 1..10000000 packets"),
    (["--avpkt", "63"], "avpkt must be 64..65535 bytes"),
    (["--loss-rate", "0"], "invalid --loss-rate '0'"),
    (["--tc-red", "eth0;reboot"], "invalid --tc-red device 'eth0;reboot'"),
    (["--tc-red", "averyveryverylongname"], "invalid --tc-red device"),
    # rejections that come from the model's results (redopt_check_params)
    # (--ewma 0.000001 is Wlog 20: max_th must stay below 2^11)
    (["--min", "5000", "--ewma", "0.000001"], "max_th << Wlog exceeds 32 bits"),
])
def test_bad_input(specctl, args, reason):
    base = dict(zip(EXAMPLE[::2], EXAMPLE[1::2]))
    extra = []
    i = 0
    while i < len(args):
        if args[i] in base and i + 1 < len(args):
            base[args[i]] = args[i + 1]
            i += 2
        else:
            extra.append(args[i])
            i += 1
    argv = [x for kv in base.items() for x in kv] + extra
    p = run(specctl, "model", "red", *argv)
    assert p.returncode == 2, (argv, p.stdout, p.stderr)
    assert p.stdout == ""
    assert p.stderr.count("\n") == 1, p.stderr
    assert p.stderr.startswith("specctl: ")
    assert reason in p.stderr, p.stderr


@pytest.mark.parametrize("missing", ["--bandwidth", "--rtt", "--flows", "--ssthresh",
                                     "--min", "--max-p"])
def test_missing_required(specctl, missing):
    i = EXAMPLE.index(missing)
    p = run(specctl, "model", "red", *(EXAMPLE[:i] + EXAMPLE[i + 2:]))
    assert p.returncode == 2
    assert p.stderr == f"specctl: missing {missing}\n"
    assert p.stdout == ""


# ---- usage and dispatch ----

@pytest.mark.parametrize("args", [["-h"], ["--help"], ["help"]])
def test_help(specctl, args):
    p = run(specctl, *args)
    assert p.returncode == 0 and p.stderr == ""
    assert p.stdout.startswith("usage: specctl")
    assert "model red" in p.stdout


@pytest.mark.parametrize("flag", ["-h", "--help"])
def test_model_red_help(specctl, flag):
    p = run(specctl, "model", "red", flag)
    assert p.returncode == 0 and p.stderr == ""
    assert p.stdout.startswith("usage: specctl model red")
    for opt in ("--bandwidth", "--rtt", "--flows", "--ssthresh", "--min", "--max-p",
                "--window", "--ewma", "--avpkt", "--loss-rate", "--json", "--tc-red",
                "--explain"):
        assert opt in p.stdout


def test_no_args(specctl):
    p = run(specctl)
    assert p.returncode == 2
    assert p.stdout == ""
    assert p.stderr.startswith("usage: specctl")


@pytest.mark.parametrize("args, reason", [
    (["frobnicate"], "unknown command 'frobnicate'"),
    (["model"], "'model' needs one of: red, cpecn, tp"),
    (["model", "frob"], "unknown model 'frob' (known: red, cpecn, tp)"),
])
def test_dispatch_errors(specctl, args, reason):
    p = run(specctl, *args)
    assert p.returncode == 2
    assert p.stdout == ""
    assert p.stderr.startswith(f"specctl: {reason}")
    assert p.stderr.count("\n") == 1

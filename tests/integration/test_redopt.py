"""sch_redopt (qdisc redopt) with its tc plugin, on the real stack.

* tc-testing-style cases (tools/testing/selftests/tc-testing's shape): each
  case has setup commands, one command with its expected exit code, a
  verify command with a regex its output must (or must not) match, and
  teardown; negative cases check the error and that nothing was created.
* raw netlink cases: what tc never sends (malformed, missing, read-only
  attributes) must be refused with an extack message, nothing created.
* model agreement: the dump's limit/max_th/Qmax equal `specctl model red`.
* traffic: two ECN flows through redopt dimensioned by the model get CE
  marks and no congestion drop, with a smaller average queue than classic
  RED (max = 3 min) at equal goodput; non-ECN flows are early-dropped;
  adaptive mode follows 1 -> 4 -> 2 active flows.
"""
import json
import math
import os
import re
import shlex
import statistics
import struct
import subprocess
import threading
import time

import pytest

from specnet_bench import specnet_lab as lab

import nlraw        # tests/integration/, on pytest's path

TC_LIB = lab.TC_LIB
SPECCTL = os.path.join(lab.TOP, "build", "userspace", "specctl")
TC = f"TC_LIB_DIR={TC_LIB} tc"
UAPI = os.path.join(lab.TOP, "kernel", "include", "uapi", "specnet", "redopt.h")
EXAMPLE = "bandwidth 1.5mbit rtt 59ms flows 2 ssthresh 15 min 5 probability 0.1 window 38"


@pytest.fixture(scope="module")
def _redopt_module():
    lab.load_module("sch_redopt")
    yield
    lab.unload_module("sch_redopt")


@pytest.fixture
def redopt(_redopt_module):
    """sch_redopt loaded (once for the module; reloaded if a test unloaded it)."""
    if not os.path.exists(os.path.join(TC_LIB, "q_redopt.so")):
        pytest.fail("tc plugin not built: make userspace")
    if not lab.module_loaded("sch_redopt"):
        lab.load_module("sch_redopt")


@pytest.fixture(scope="module")
def _tc_netns():
    """One namespace for the control-plane cases of this file."""
    ns = lab.uniq("sn") + "-tc"
    lab.run("modprobe dummy")
    lab.sh(f"ip netns add {ns}")
    yield ns
    lab.run(f"ip netns del {ns}")


def tc(ns, args):
    """`tc -n @ns @args` with the plugin (TC_LIB_DIR); its stdout."""
    return lab.sh(f"{TC} -n {ns} {args}")


@pytest.fixture
def dummy(_tc_netns):
    """A fresh dummy device d0 (the cases' DEV) in the file's namespace,
    which this fixture returns: a device of its own per test, so that no
    qdisc outlives its test. Under TCG a namespace per test and
    `ip netns exec` per command cost 2.5 s a test (a process start each is
    0.3-0.5 s, python3's 1 s), hence one namespace and `tc -n`."""
    ns = _tc_netns
    lab.sh(f"ip -n {ns} link add d0 up type dummy")
    try:
        yield ns
    finally:
        lab.run(f"ip -n {ns} link del d0")


# ---- tc-testing-style cases ---------------------------------------------------
# (id, name, setup, cmd, exit code, verify cmd, regex, match count)
# DEV is the dummy device; "TC" runs tc with the plugin.
CASES = [
    ("a1", "add with the paper's example", [],
     f"TC qdisc add dev DEV root handle 1: redopt {EXAMPLE}", 0,
     "TC qdisc show dev DEV",
     r"qdisc redopt 1: root .*limit 53p qth_min 5p qth_max 8p qavg_max 7\.30", 1),
    ("a2", "ecn and adaptive flags", [],
     f"TC qdisc add dev DEV root redopt {EXAMPLE} ecn adaptive", 0,
     "TC qdisc show dev DEV", r"qdisc redopt .* ecn .*adaptive|qdisc redopt .*adaptive.* ecn", 1),
    ("a3", "per-flow ssthresh list", [],
     "TC qdisc add dev DEV root redopt bandwidth 1.5mbit rtt 59ms flows 2 ssthresh 15,20 "
     "min 5 probability 0.1 window 38", 0,
     "TC qdisc show dev DEV", r"ssthresh 15,20 .*buffer 24p limit 55p", 1),
    ("a4", "window derived from the path", [],
     "TC qdisc add dev DEV root redopt bandwidth 1.5mbit rtt 59ms flows 2 ssthresh 15 "
     "min 5 probability 0.1", 0,
     "TC qdisc show dev DEV", r"qdisc redopt .*qth_max \d+p", 1),
    ("a5", "flows auto", [],
     "TC qdisc add dev DEV root redopt bandwidth 10mbit rtt 20ms flows auto ssthresh 20 "
     "min 5 probability 0.1 ecn", 0,
     "TC qdisc show dev DEV", r"flows auto \(est 1\)", 1),
    ("a6", "ewma and avpkt", [],
     f"TC qdisc add dev DEV root redopt {EXAMPLE} ewma 0.004 avpkt 1500", 0,
     "TC -d qdisc show dev DEV", r"avpkt 1500 .*Wlog 8", 1),
    ("c1", "change min recomputes max_th",
     [f"TC qdisc add dev DEV root handle 1: redopt {EXAMPLE}"],
     "TC qdisc change dev DEV root handle 1: redopt min 6", 0,
     "TC qdisc show dev DEV", r"min 6 .*qth_min 6p qth_max 9p", 1),
    ("c2", "replace",
     [f"TC qdisc add dev DEV root handle 1: redopt {EXAMPLE}"],
     "TC qdisc replace dev DEV root handle 1: redopt bandwidth 10mbit rtt 20ms flows 4 "
     "ssthresh 40 min 10 probability 0.05", 0,
     "TC qdisc show dev DEV", r"flows 4 .*min 10 .*qth_min 10p", 1),
    ("c3", "a rejected change changes nothing",
     [f"TC qdisc add dev DEV root handle 1: redopt {EXAMPLE}"],
     "TC qdisc change dev DEV root handle 1: redopt min 2000000", 1,
     "TC qdisc show dev DEV", r"min 5 .*qth_max 8p", 1),
    ("d1", "del",
     [f"TC qdisc add dev DEV root handle 1: redopt {EXAMPLE}"],
     "TC qdisc del dev DEV root", 0,
     "TC qdisc show dev DEV", r"redopt", 0),
    ("a7", "loss-rate gives the bound on m", [],
     f"TC qdisc add dev DEV root redopt {EXAMPLE} loss-rate 12.5", 0,
     "TC qdisc show dev DEV",
     r"avpkt 1000 loss-rate 12\.5 buffer 19p limit 53p qth_min 5p qth_max 8p qavg_max 7\.30 "
     r"m_bound 4 ", 1),
    ("a8", "without loss-rate the bound is n/a (-d)", [],
     f"TC qdisc add dev DEV root redopt {EXAMPLE}", 0,
     "TC -d qdisc show dev DEV", r"qavg_max 7\.30 Wlog 9 m_bound n/a", 1),
    ("c4", "change of bandwidth alone",
     [f"TC qdisc add dev DEV root handle 1: redopt {EXAMPLE}"],
     "TC qdisc change dev DEV root handle 1: redopt bandwidth 3mbit", 0,
     "TC qdisc show dev DEV",
     r"bandwidth 3Mbit rtt 59ms .*avpkt 1000 buffer 8p limit 47p qth_min 5p qth_max 8p", 1),
    ("c5", "change of ewma alone",
     [f"TC qdisc add dev DEV root handle 1: redopt {EXAMPLE}"],
     "TC qdisc change dev DEV root handle 1: redopt ewma 0.004", 0,
     "TC -d qdisc show dev DEV", r"bandwidth 1500Kbit .*ewma 0\.00391 avpkt 1000 .*Wlog 8", 1),
    ("c6", "change of loss-rate alone",
     [f"TC qdisc add dev DEV root handle 1: redopt {EXAMPLE}"],
     "TC qdisc change dev DEV root handle 1: redopt loss-rate 1000", 0,
     "TC qdisc show dev DEV", r"min 5 .*loss-rate 1000 buffer 19p .*m_bound 326 ", 1),
    ("c7", "replace without loss-rate clears it",
     [f"TC qdisc add dev DEV root handle 1: redopt {EXAMPLE} loss-rate 2"],
     f"TC qdisc replace dev DEV root handle 1: redopt {EXAMPLE}", 0,
     "TC qdisc show dev DEV", r"loss-rate|m_bound", 0),
    ("j1", "json dump", [],
     f"TC qdisc add dev DEV root redopt {EXAMPLE} ecn", 0,
     "TC -j qdisc show dev DEV", r'"kind":"redopt".*"buffer":19,"limit":53.*"qth_max":8', 1),
    ("j2", "json dump with loss rate", [],
     f"TC qdisc add dev DEV root redopt {EXAMPLE} ecn loss-rate 12.5", 0,
     "TC -j qdisc show dev DEV", r'"loss_rate":12\.5,.*"buffer":19,"limit":53,.*"m_bound":4\b', 1),
    ("s1", "stats show xstats", [],
     f"TC qdisc add dev DEV root redopt {EXAMPLE} ecn", 0,
     "TC -s qdisc show dev DEV", r"marked 0 early 0 forced 0 forced_mark 0 overflow 0 flows_est 2", 1),
    ("s2", "stats show: inputs, computed values, then xstats", [],
     f"TC qdisc add dev DEV root redopt {EXAMPLE} ecn loss-rate 12.5", 0,
     "TC -s qdisc show dev DEV",
     r"bandwidth 1500Kbit rtt 59ms flows 2 ssthresh 15 min 5 probability 0\.1 window 38 "
     r"ewma 0\.00195 avpkt 1000 loss-rate 12\.5 ecn buffer 19p limit 53p qth_min 5p "
     r"qth_max 8p qavg_max 7\.30 m_bound 4 [\s\S]*marked 0 early 0 forced 0 forced_mark 0 "
     r"overflow 0 flows_est 2 qavg 0\.000 recomputes 0", 1),
    # negative: tc refuses before the kernel (exit 1), nothing created
    ("n1", "missing bandwidth", [],
     "TC qdisc add dev DEV root redopt rtt 59ms flows 2 ssthresh 15 min 5 probability 0.1", 1,
     "TC qdisc show dev DEV", r"redopt", 0),
    ("n2", "illegal bandwidth", [],
     "TC qdisc add dev DEV root redopt bandwidth fast rtt 59ms flows 2 ssthresh 15 min 5 "
     "probability 0.1", 1, "TC qdisc show dev DEV", r"redopt", 0),
    ("n3", "probability above 1", [],
     "TC qdisc add dev DEV root redopt bandwidth 1mbit rtt 59ms flows 2 ssthresh 15 min 5 "
     "probability 1.5", 1, "TC qdisc show dev DEV", r"redopt", 0),
    ("n4", "ssthresh count neither 1 nor m", [],
     "TC qdisc add dev DEV root redopt bandwidth 1mbit rtt 59ms flows 3 ssthresh 15,15 min 5 "
     "probability 0.1", 1, "TC qdisc show dev DEV", r"redopt", 0),
    ("n5", "unknown keyword", [],
     f"TC qdisc add dev DEV root redopt {EXAMPLE} turbo", 1,
     "TC qdisc show dev DEV", r"redopt", 0),
    ("n6", "flows beyond 1024", [],
     "TC qdisc add dev DEV root redopt bandwidth 1mbit rtt 59ms flows 5000 ssthresh 15 min 5 "
     "probability 0.1", 1, "TC qdisc show dev DEV", r"redopt", 0),
    ("n7", "illegal loss-rate", [],
     f"TC qdisc add dev DEV root redopt {EXAMPLE} loss-rate 0", 1,
     "TC qdisc show dev DEV", r"redopt", 0),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] + "-" + c[1].replace(" ", "_") for c in CASES])
def test_tc_case(redopt, dummy, case):
    cid, name, setup, cmd, want_rc, verify, regex, count = case

    def expand(c):
        return c.replace("TC ", f"{TC} -n {dummy} ").replace("DEV", "d0")
    for s in setup:
        lab.sh(expand(s))
    rc, out, err = lab.run(expand(cmd))
    assert rc == want_rc, f"{cid} {name}: `{cmd}` exit {rc} (want {want_rc}): {out}{err}"
    if want_rc:
        assert err.strip(), f"{cid}: failed without a message"
    _, vout, _ = lab.run(expand(verify))
    found = len(re.findall(regex, vout))
    assert found == count, f"{cid} {name}: /{regex}/ matched {found}x (want {count}) in:\n{vout}"


# ---- raw netlink: what tc never sends ------------------------------------------

GOOD = [["BANDWIDTH", "u64", 1500000], ["RTT", "u32", 59000], ["FLOWS", "u32", 2],
        ["SSTHRESH", "u32s", [15]], ["MIN", "u32", 5], ["MAX_P", "u32", 429496730],
        ["WINDOW", "u32", 38]]


def without(name):
    return [a for a in GOOD if a[0] != name]


def uapi_numbers():
    """{NAME: number} of TCA_REDOPT_NAME, from the uapi header the qdisc,
    the tc plugin and nlraw.py compile or read."""
    body = re.search(r"enum \{(.*?)\};", open(UAPI).read(), re.S).group(1)
    names = re.findall(r"^\s*TCA_REDOPT_(\w+)", body, re.M)
    return {n: i for i, n in enumerate(names)}


NUM = uapi_numbers()
REDOPT_MAX = max(NUM.values())


# (name, attributes, the errno the kernel returns, its extack message). Each
# errno is the one the code returns for that input, and the message tells
# which check refused it:
#   lib/nlattr.c under redopt_policy (sch_redopt.c), strict nla_parse_nested:
#     a type beyond the policy's maxtype   EINVAL "Unknown attribute type"
#     NLA_U* of the wrong length           EINVAL "invalid attribute length"
#     NLA_POLICY_MAX / _RANGE exceeded     ERANGE "integer out of range"
#     NLA_POLICY_MASK, a bit outside it    EINVAL "reserved bit set"
#     NLA_REJECT (the computed values)     EINVAL "Attribute failed policy validation"
#   redopt__check_inputs() (red_model.h): EINVAL for a missing (zero) or
#   inconsistent input, ERANGE for one out of its range, with its reason;
#   redopt_change(): EINVAL for an SSTHRESH that is not whole u32s.
NL_CASES = [
    ("good", GOOD, 0, ""),
    ("missing bandwidth", without("BANDWIDTH"), 22, "bandwidth is required"),
    ("missing ssthresh", without("SSTHRESH"), 22, "ssthresh is required"),
    ("missing min", without("MIN"), 22, "min_th is required"),
    ("ssthresh not u32s", without("SSTHRESH") + [["SSTHRESH", "raw", "0f0000"]], 22,
     "ssthresh must be an array of u32"),
    ("ssthresh count", without("SSTHRESH") + [["SSTHRESH", "u32s", [15, 15, 15]]], 22,
     "one value for all flows or one per flow"),
    ("flows above max", without("FLOWS") + [["FLOWS", "u32", 5000]], 34, "integer out of range"),
    ("wlog out of range", GOOD + [["WLOG", "u8", 30]], 34, "integer out of range"),
    ("unknown flag", GOOD + [["FLAGS", "u32", 0x80]], 22, "reserved bit set"),
    ("good with loss rate", GOOD + [["LOSS_RATE", "u32", 500]], 0, ""),
    # redopt keeps no idle table (no STAB/SCELL_LOG): strict nla_parse_nested
    # (NL_VALIDATE_MAXTYPE) refuses a type beyond TCA_REDOPT_MAX, 6.1 and 6.12.
    # With "read-only m_bound" (M_BOUND is the header's TCA_REDOPT_MAX,
    # refused by its policy, not as unknown) this pins the module's maxtype
    # to the header's.
    ("attribute beyond TCA_REDOPT_MAX", GOOD + [[REDOPT_MAX + 1, "raw", "00" * 256]], 22,
     "Unknown attribute type"),
    ("loss rate not u32", GOOD + [["LOSS_RATE", "raw", "00" * 256]], 22,
     "invalid attribute length"),
    ("read-only limit", GOOD + [["LIMIT", "u32", 5]], 22, "Attribute failed policy validation"),
    ("read-only m_bound", GOOD + [["M_BOUND", "u32", 5]], 22,
     "Attribute failed policy validation"),
    ("bandwidth too short", without("BANDWIDTH") + [["BANDWIDTH", "u32", 1500000]], 22,
     "invalid attribute length"),
    ("zero rtt", without("RTT") + [["RTT", "u32", 0]], 22, "rtt is required"),
    ("unknown attribute", GOOD + [[99, "u32", 1]], 22, "Unknown attribute type"),
]


@pytest.mark.parametrize("case", NL_CASES, ids=[c[0].replace(" ", "_") for c in NL_CASES])
def test_netlink_validation(redopt, dummy, case):
    name, spec, want_err, want_msg = case
    with lab.in_netns(dummy):
        res = nlraw.request("d0", spec)
    if want_err == 0:
        assert res["error"] == 0, res
        return
    assert res["error"] == want_err, f"{name}: errno {res['error']} (want {want_err}): {res}"
    assert want_msg in res["msg"], f"{name}: extack {res['msg']!r} (want {want_msg!r}): {res}"
    assert "redopt" not in tc(dummy, "qdisc show dev d0"), "created anyway"


def raw_options(ns, dev):
    """The kernel's own dump of @dev's root redopt in @ns, read raw from
    rtnetlink: {attribute type: payload} of its TCA_OPTIONS."""
    with lab.in_netns(ns):
        got = nlraw.root_options(dev)
    assert got is not None, f"no redopt root qdisc on {dev}"
    return got


def test_uapi_header_is_the_modules(redopt, dummy):
    """The header (kernel/include/uapi/specnet/redopt.h) that the tc plugin,
    nlraw.py and these cases number the attributes by is the one the loaded
    module was built with: the kernel's own dump of a qdisc of known values
    (the paper's example through tc), read raw from rtnetlink, carries each
    value under the number the header gives its name, and nothing else. The
    values are the example's (docs/algorithms.md, RED model), not the header's."""
    tc(dummy, f"qdisc add dev d0 root handle 1: redopt {EXAMPLE} ecn "
           "loss-rate 12.5")
    got = raw_options(dummy, "d0")

    def u32(v):
        return struct.pack("=I", v)
    want = {"BANDWIDTH": struct.pack("=Q", 1500000), "RTT": u32(59000), "FLOWS": u32(2),
            "SSTHRESH": u32(15), "WINDOW": u32(38), "MIN": u32(5), "WLOG": struct.pack("=B", 9),
            "AVPKT": u32(1000), "FLAGS": u32(1), "LOSS_RATE": u32(12500),
            "BUFFER": u32(19), "LIMIT": u32(53), "QTH_MIN": u32(5), "QTH_MAX": u32(8),
            "FLOWS_EST": u32(2), "M_BOUND": u32(4)}
    seen = {n: got.get(NUM[n]) for n in (*want, "MAX_P", "QMAX")}
    for n, v in want.items():
        assert seen[n] == v, f"{n} (header: {NUM[n]}): {seen[n]!r}, want {v!r}; dump {got}"
    # max_p = 0.1 x 2^32 (rounded either way), Qmax = 7.30 packets in 1/1000
    assert seen["MAX_P"] and abs(struct.unpack("=I", seen["MAX_P"])[0] - 0.1 * 2**32) <= 1, got
    assert seen["QMAX"] and 7295 <= struct.unpack("=I", seen["QMAX"])[0] <= 7304, got
    # nothing under another number (PAD: alignment of the u64, if any)
    assert set(got) - {NUM["PAD"]} == {NUM[n] for n in seen}, got


# ---- kernel and specctl agree ---------------------------------------------------

MODEL_GRID = [
    ("1.5mbit", "59ms", 2, "15", 5, "0.1", "38"),
    ("1.5mbit", "59ms", 2, "15,15", 5, "0.1", None),
    ("10mbit", "100ms", 4, "30", 8, "0.05", None),
    ("100mbit", "20ms", 10, "64", 20, "0.1", "100"),
    ("1gbit", "5ms", 32, "100", 30, "0.02", None),
    ("64kbit", "560ms", 1, "30", 5, "0.1", None),
]


LOSS_RATES = ["0.5", "12.5", "1000", "0.001"]


def test_kernel_and_specctl_agree(redopt, dummy):
    """The dump's buffer, limit, thresholds, Qmax, loss rate and bound on m
    equal `specctl model red --json`'s (with and without --loss-rate)."""
    if not os.access(SPECCTL, os.X_OK):
        pytest.fail("specctl not built: make userspace")
    for i, (bw, rtt, m, ss, mn, p, w) in enumerate(MODEL_GRID):
        for lr in (None, LOSS_RATES[i % len(LOSS_RATES)]):
            wopt = f" window {w}" if w else ""
            lopt = f" loss-rate {lr}" if lr else ""
            tc(dummy, f"qdisc replace dev d0 root redopt bandwidth {bw} "
                   f"rtt {rtt} flows {m} ssthresh {ss} min {mn} probability {p}{wopt}{lopt}")
            q = json.loads(tc(dummy, "-j qdisc show dev d0"))[0]["options"]
            wcli = f" --window {w}" if w else ""
            lcli = f" --loss-rate {lr}" if lr else ""
            ref = json.loads(lab.sh(f"{SPECCTL} model red --bandwidth {bw} --rtt {rtt} "
                                    f"--flows {m} --ssthresh {ss} --min {mn} --max-p {p}"
                                    f"{wcli}{lcli} --json"))
            for k in ("buffer", "limit", "min_th", "max_th"):
                qk = {"min_th": "qth_min", "max_th": "qth_max"}.get(k, k)
                assert q[qk] == ref[k], \
                    f"{bw} {rtt} m={m}: kernel {qk}={q[qk]} specctl {k}={ref[k]}"
            assert abs(q["qavg_max"] - ref["qavg_max"]) < 0.005, (q, ref)
            if lr:
                assert q["loss_rate"] == float(lr), (q, lr)
                # specctl prints alpha to 1/1000 (floor); the qdisc floor(alpha)
                assert q["m_bound"] == math.floor(ref["m_bound"]), (q, ref)
            else:
                assert "loss_rate" not in q and "m_bound" not in q, q
                assert ref["m_bound"] is None


def test_dump_text_and_json(redopt, dummy):
    """What `tc qdisc show` prints, plain, -s, -d and -j (valid JSON with
    every flag combination), on the qdisc itself."""
    tc(dummy, f"qdisc add dev d0 root handle 1: redopt {EXAMPLE} ecn loss-rate 12.5")
    inputs = ("bandwidth 1500Kbit rtt 59ms flows 2 ssthresh 15 min 5 probability 0.1 "
              "window 38 ewma 0.00195 avpkt 1000 loss-rate 12.5 ecn")
    computed = "buffer 19p limit 53p qth_min 5p qth_max 8p qavg_max 7.30 m_bound 4"
    xstats = ("marked 0 early 0 forced 0 forced_mark 0 overflow 0 flows_est 2 qavg 0.000 "
              "recomputes 0")
    out = tc(dummy, "qdisc show dev d0")
    assert f"{inputs} {computed} " in out and "Wlog" not in out, out
    out = tc(dummy, "-s qdisc show dev d0")
    assert f"{inputs} {computed} " in out and xstats in out, out
    assert out.index(computed) < out.index(xstats), out
    out = tc(dummy, "-s -d qdisc show dev d0")
    assert f"{computed} Wlog 9 " in out, out
    assert f"{xstats} limit 53p qth_min 5p qth_max 8p" in out, out
    for flags in ("", "-s", "-d", "-s -d"):
        q = json.loads(tc(dummy, f"-j {flags} qdisc show dev d0"))
        assert len(q) == 1 and q[0]["kind"] == "redopt", q
        o = q[0]["options"]
        assert o["bandwidth"] == 1500000 // 8 and o["rtt"] == 59000, o
        assert o["loss_rate"] == 12.5 and o["ecn"] is True, o
        assert (o["buffer"], o["limit"], o["qth_min"], o["qth_max"]) == (19, 53, 5, 8), o
        assert o["m_bound"] == 4 and "Scell_log" not in o, o
        assert ("Wlog" in o) == ("-d" in flags), o
        assert ("marked" in q[0]) == ("-s" in flags), q
    # without a loss rate: no bound; -d says n/a (JSON null)
    tc(dummy, f"qdisc replace dev d0 root handle 1: redopt {EXAMPLE}")
    out = tc(dummy, "-d qdisc show dev d0")
    assert "loss-rate" not in out and "qavg_max 7.30 Wlog 9 m_bound n/a" in out, out
    o = json.loads(tc(dummy, "-j -d qdisc show dev d0"))[0]["options"]
    assert "loss_rate" not in o and o["m_bound"] is None, o


def test_autoload_by_tc(redopt, dummy):
    """tc loads sch_redopt by itself: the kernel asks modprobe for
    "net-sch-redopt" (6.9+, NET_SCH_ALIAS_PREFIX; our MODULE_ALIAS) or
    "sch_redopt" (older: "sch_%s"), the one name its version asks. A
    modprobe of our own (lab.modprobe_from()) finds it and logs what was
    asked."""
    lab.unload_module("sch_redopt")
    rel = lab.kernel_release()
    try:
        with lab.modprobe_from("sch_redopt") as asked:
            tc(dummy, f"qdisc add dev d0 root redopt {EXAMPLE}")
            assert lab.module_loaded("sch_redopt")
            major, minor = (int(x) for x in re.match(r"(\d+)\.(\d+)", rel).groups())
            want, other = (("net-sch-redopt", "sch_redopt") if (major, minor) >= (6, 9)
                           else ("sch_redopt", "net-sch-redopt"))
            assert want in asked() and other not in asked(), (rel, asked())
            tc(dummy, "qdisc del dev d0 root")
    finally:
        lab.unload_module("sch_redopt")
        lab.load_module("sch_redopt")


def test_rmmod_in_use_then_clean(redopt, dummy):
    tc(dummy, f"qdisc add dev d0 root redopt {EXAMPLE}")
    rc, _, err = lab.run("rmmod sch_redopt")
    assert rc != 0 and "in use" in err
    tc(dummy, "qdisc del dev d0 root")
    lab.unload_module("sch_redopt")
    assert not lab.module_loaded("sch_redopt")
    lab.load_module("sch_redopt")


# ---- traffic ------------------------------------------------------------------------

S = 1052            # bytes per packet on the wire: MTU 1052 = MSS 1000 + 52
SETTLE_S = 10       # slow start and the first climb of the average are over
ECN_FLOW_S = SETTLE_S + 20     # the two ECN flows: 20 s judged after SETTLE_S
LATE_DROPS_MAX = 5  # drops after SETTLE_S (measured: 0-1, retransmissions)
BW = "1.5mbit"
RTT_MS = 59


def bottleneck_chain(qdisc_line, ecn=True, bw=BW, rtt_ms=RTT_MS, ssthresh=15):
    """snd -- rtr -- rcv, an HTB of @bw at rtr toward rcv with @qdisc_line
    as its child, @rtt_ms RTT (on the ACK path), MTU S, initial ssthresh
    @ssthresh (the model's SSth) on the sender's route, locked, and in
    force from the first flow (lab.route_ssthresh)."""
    c = lab.Chain(["snd", "rtr", "rcv"])
    c.build()
    try:
        for a, b in (("snd", "rtr"), ("rtr", "snd"), ("rtr", "rcv"), ("rcv", "rtr")):
            lab.sh(f"ip link set {c.ifname(a, b)} mtu {S}", ns=c.ns(a))
        c.tc("rtr", "snd", f"root netem delay {rtt_ms}ms limit 10000")
        c.tc("rtr", "rcv", f"""
            root handle 1: htb default 1
            class parent 1: classid 1:1 htb rate {bw} ceil {bw}
        """)
        lab.sh(f"{TC} qdisc add dev {c.ifname('rtr', 'rcv')} parent 1:1 handle 10: {qdisc_line}",
               ns=c.ns("rtr"))
        c.sysctl("snd", "net.ipv4.tcp_ecn", 1 if ecn else 0)
        net = c.ip("rcv").rsplit(".", 1)[0] + ".0/24"
        lab.route_ssthresh(lambda x: lab.sh(x, ns=c.ns("snd")), c.ns("snd"), c.ns("rcv"),
                           f"replace {net} via {c.addr('rtr', 'snd')}", c.ip("rcv"), ssthresh)
    except Exception:
        c.destroy()
        raise
    return c


def red_qdisc(out):
    """The redopt (or classic RED) qdisc of `tc -s -j qdisc show` @out."""
    for q in json.loads(out):
        if q["kind"] in ("redopt", "red"):
            return q
    raise AssertionError(out)


def qstats(chain):
    return red_qdisc(lab.sh(f"{TC} -s -j qdisc show dev {chain.ifname('rtr', 'rcv')}",
                            ns=chain.ns("rtr")))


def run_flows(chain, n, seconds, cc="reno", sample=None):
    """@n parallel iperf3 flows (one client -P n); sample(chain) every 100 ms."""
    lab.iperf3_server(chain.ns("rcv"))
    samples = []
    stop = threading.Event()

    def sampler():
        while not stop.is_set():
            samples.append(sample(chain))
            time.sleep(0.1)
    t = threading.Thread(target=sampler) if sample else None
    if t:
        t.start()
    try:
        rep = lab.iperf3_client(chain.ns("snd"), chain.ip("rcv"), cc, seconds, extra=f"-P {n}")
    finally:
        stop.set()
        if t:
            t.join()
    return lab.goodput_bps(rep), samples


DROP_KINDS = ("early", "forced", "overflow")


def backlog_drops(chain):
    """(time, backlog in packets, the qdisc's drops so far, and redopt's
    drops so far by kind: {} for classic RED)."""
    q = qstats(chain)
    return (time.monotonic(), q.get("qlen", 0), q.get("drops", 0),
            {k: q[k] for k in DROP_KINDS if k in q})


_ECN_RUN = {}


def ecn_two_flows():
    """Two ECN flows through redopt dimensioned by the model and, in the
    same run on a twin path, through classic RED (min 5, max 3 min = 15,
    the same limit): goodput, average queue, redopt's counters. Run once,
    shared by the tests below."""
    if _ECN_RUN:
        return _ECN_RUN
    # the paper's example: max_th 8 (W = 38), about half of 3 min_th
    model = (f"bandwidth {BW} rtt {RTT_MS}ms flows 2 ssthresh 15 min 5 probability 0.1 "
             f"window 38 avpkt {S} ecn")
    lim = json.loads(lab.sh(f"{SPECCTL} model red --bandwidth {BW} --rtt {RTT_MS}ms --flows 2 "
                            f"--ssthresh 15 --min 5 --max-p 0.1 --window 38 --avpkt {S} "
                            f"--json"))["limit"]
    # burst 60 gives stock red the same EWMA weight as redopt's default
    # (Wlog 9, checked below): the comparison is of thresholds, not averages
    classic = (f"red limit {lim * S} min {5 * S} max {15 * S} avpkt {S} burst 60 "
               f"bandwidth {BW} probability 0.1 ecn")
    res = {}
    chains = {"redopt": bottleneck_chain(f"redopt {model}"), "red": bottleneck_chain(classic)}
    try:
        c = chains["red"]
        out = lab.sh(f"tc -d qdisc show dev {c.ifname('rtr', 'rcv')}", ns=c.ns("rtr"))
        assert "ewma 9 " in out, out

        def go(k):
            res[k] = run_flows(chains[k], 2, ECN_FLOW_S, sample=backlog_drops)
        ts = [threading.Thread(target=go, args=(k,)) for k in chains]
        [t.start() for t in ts]
        [t.join() for t in ts]
        st = {k: qstats(c) for k, c in chains.items()}
    finally:
        for c in chains.values():
            c.destroy()
    rate = 1.5e6 / 8 / S                      # packets per second
    avgq = {k: sum(x[1] for x in v[1][20:]) / max(1, len(v[1][20:])) for k, v in res.items()}
    # drops after the first SETTLE_S seconds of the flows: the end of slow
    # start is over, with its overflow (test_ecn_flows_no_ect_packet_dropped)
    late, late_kinds = {}, {}
    for k, (_, smp) in res.items():
        t0 = smp[0][0] if smp else 0
        early = [x for x in smp if x[0] - t0 <= SETTLE_S]
        late[k] = (st[k].get("drops", 0) - early[-1][2]) if early else None
        late_kinds[k] = {d: st[k][d] - early[-1][3][d] for d in early[-1][3]} if early else {}
    _ECN_RUN.update(goodput={k: v[0] for k, v in res.items()}, avgq=avgq, late_drops=late,
                    late_kinds=late_kinds,
                    delay_ms={k: v / rate * 1000 for k, v in avgq.items()},
                    redopt=st["redopt"], red=st["red"])
    return _ECN_RUN


@pytest.mark.quiet
def test_ecn_flows_marked_same_goodput(redopt, figure):
    """CE marks, and no goodput lost against classic RED beyond the noise
    of one pair under TCG (at least 0.85x its goodput; measured 0.95-0.97x
    in the same run on 6.1 with 45 s flows, 1.31-1.33 against 1.36-1.39
    Mbit/s, and 0.94x on a slower host; with the 30 s flows 0.94-0.96x in
    two runs on each of 6.1 and 6.12 side by side, 1.30-1.32 against
    1.38-1.40 Mbit/s; the bench's 15 repetitions give 0.98-0.99x and judge
    equal goodput within 5%). The average queue against classic RED's is
    reported, not asserted: the bench judges it over 15 repetitions (make
    bench SUITE=red; docs/algorithms.md, redopt: known limits)."""
    r = ecn_two_flows()
    o, g = r["redopt"], r["goodput"]
    figure("redopt goodput Mbit/s", round(g["redopt"] / 1e6, 3))
    figure("red goodput Mbit/s", round(g["red"] / 1e6, 3))
    figure("redopt avg queueing delay ms", round(r["delay_ms"]["redopt"], 1))
    figure("red avg queueing delay ms", round(r["delay_ms"]["red"], 1))
    assert o["marked"] > 0, o
    assert g["redopt"] >= 0.85 * g["red"], g


def test_ecn_flows_no_ect_packet_dropped(redopt, figure):
    """The model's promise, slow start included: no ECT packet is dropped.
    With ecn and without harddrop an ECT packet is marked wherever RED
    acts (forced marks above max_th), so the one way to lose one is a full
    buffer (overflow), which the limit (the transient plus a margin) must
    prevent. Early and forced drops are of packets Linux sends without
    ECT (retransmissions, RFC 3168 6.1.5): reported, not the model's
    failure. The flows start with the model's SSth (bottleneck_chain):
    without it they slow-start to 38-40 packets each, and the queue
    overflowed the limit by 64-65 packets a run."""
    o = ecn_two_flows()["redopt"]
    figure("redopt marked/forced_mark, non-ECT drops early/forced, overflow",
           f"{o['marked']}/{o['forced_mark']}, {o['early']}/{o['forced']}, {o['overflow']}")
    assert o["marked"] > 0, o
    assert o["overflow"] == 0, o


@pytest.mark.quiet
def test_ecn_flows_few_congestion_drops_after_slow_start(redopt, figure):
    """The model's claim where it nearly holds on Linux: past the end of
    slow start (the first SETTLE_S seconds), redopt at the model's max_th
    and limit marks instead of dropping: at most LATE_DROPS_MAX drops in
    the remaining 20 s. Measured: none, or one early drop of a
    retransmission (Linux sends them without ECT, RFC 3168 6.1.5, so RED
    drops rather than marks them). Without marks, each flow's sawtooth
    ends in a drop every few seconds: redopt without `ecn` dropped 93
    packets in those 20 s (6.1)."""
    r = ecn_two_flows()
    figure(f"drops after the first {SETTLE_S} s: redopt, red",
           [r["late_drops"]["redopt"], r["late_drops"]["red"]])
    figure(f"redopt drops after the first {SETTLE_S} s by kind", r["late_kinds"]["redopt"])
    assert r["late_drops"]["redopt"] <= LATE_DROPS_MAX, (r["late_drops"], r["late_kinds"],
                                                         r["redopt"])


def test_non_ecn_flows_early_dropped_not_marked(redopt):
    model = f"bandwidth {BW} rtt {RTT_MS}ms flows 2 ssthresh 15 min 5 probability 0.1 avpkt {S} ecn"
    c = bottleneck_chain(f"redopt {model}", ecn=False)
    try:
        run_flows(c, 2, 15)
        o = qstats(c)
    finally:
        c.destroy()
    assert o["marked"] == 0, o
    assert o["early"] > 0, o


def backlog_bytes(chain):
    """(backlog in packets, in bytes) of the redopt qdisc."""
    q = qstats(chain)
    return q.get("qlen", 0), q.get("backlog", 0)


@pytest.mark.quiet
def test_gso_packets_meet_red_as_segments(redopt, figure):
    """With the offloads on (TSO and GSO at the sender, GSO at the router's
    egress), TCP hands the stack aggregates of several segments, and the
    router forwards them as they are: redopt must count what goes on the
    wire, as the model does, so it segments them on enqueue. Every sample
    of the queue then holds at most one wire packet (MTU + Ethernet header)
    per counted packet; counted as one, an aggregate would hide most of the
    queue from RED (at 2 segments per aggregate, 2 x 1066 bytes each).

    A sample is not atomic: the core's dump (tc_fill_qdisc()) reads qlen
    first and the byte backlog later, without the qdisc lock, so a packet
    enqueued in between shows as bytes without its count (one sample of a
    6.12 run held 1279 bytes a packet). The median sample is judged: an
    unsegmented aggregate is in most samples, that race in few."""
    model = f"bandwidth {BW} rtt {RTT_MS}ms flows 2 ssthresh 15 min 5 probability 0.1 avpkt {S} ecn"
    c = bottleneck_chain(f"redopt {model}")
    try:
        for a, b in (("snd", "rtr"), ("rtr", "rcv")):
            lab.sh(f"ethtool -K {c.ifname(a, b)} sg on tso on gso on", ns=c.ns(a))
        good, smp = run_flows(c, 2, 20, sample=backlog_bytes)
        o = qstats(c)
    finally:
        c.destroy()
    per = [b / n for n, b in smp if n]
    figure("redopt with offloads: goodput Mbit/s", round(good / 1e6, 3))
    figure("redopt with offloads: median bytes per queued packet",
           round(statistics.median(per)) if per else 0)
    figure("redopt with offloads: most bytes per queued packet", round(max(per or [0])))
    figure("redopt with offloads: marked/early/forced/overflow",
           f"{o['marked']}/{o['early']}/{o['forced']}/{o['overflow']}")
    assert len(per) >= 5, smp      # a queue was there to weigh
    assert statistics.median(per) <= S + 14, (statistics.median(per), smp)
    assert o["marked"] > 0, o
    assert good >= 0.5 * 1.5e6, good


def adaptive_run():
    """Four reno flows in phases of 1, 4, 2 and 1 through redopt in adaptive
    mode: the samples of flows_est (t0, t1, estimate) and the flows' spans."""
    c = lab.Chain(["snd", "rtr", "rcv"])
    c.build()
    try:
        c.tc("rtr", "rcv", """
            root handle 1: htb default 1
            class parent 1: classid 1:1 htb rate 10mbit ceil 10mbit
        """)
        lab.sh(f"{TC} qdisc add dev {c.ifname('rtr', 'rcv')} parent 1:1 handle 10: redopt "
               f"bandwidth 10mbit rtt 20ms flows auto ssthresh 20 min 5 probability 0.1 ecn",
               ns=c.ns("rtr"))
        c.ecn_sender("snd")
        for port in range(5301, 5305):
            lab.iperf3_server(c.ns("rcv"), port=port)
        # The sampler is a bash loop inside the router's namespace, not a
        # Python thread calling tc: under a starved TCG guest each
        # subprocess from Python cost 1-4 s (enough to leave no sample fully
        # inside the 4-flow phase). $EPOCHREALTIME brackets each read on
        # the same clock as time.time(), without a fork.
        dev = c.ifname("rtr", "rcv")
        log = f"/tmp/redopt-adaptive-{os.getpid()}.log"
        loop = (f"while :; do a=$EPOCHREALTIME; s=$({TC} -s -j qdisc show dev {dev} parent 1:1); "
                f"b=$EPOCHREALTIME; echo \"$a $b $s\"; sleep 0.1; done")
        t0 = time.time()
        with open(log, "w") as f:
            sampler = subprocess.Popen(["ip", "netns", "exec", c.ns("rtr"), "bash", "-c", loop],
                                       stdout=f, stderr=subprocess.STDOUT)
        ended = {}

        def flow(port, start, secs):
            time.sleep(start)
            lab.iperf3_client(c.ns("snd"), c.ip("rcv"), "reno", secs, port=port)
            ended[port] = time.time() - t0
        # phases of 6, 16, 14 and 20 s as planned: under a loaded TCG guest
        # the three later clients have started 7-12 s late and apart; with
        # 12 s for the 4-flow phase and 4 s for the last, the 4-flow phase
        # kept one settled sample, and the 2-flow phase none once (the
        # first flow ended before the second); with 10 s planned for the
        # 2-flow phase, the second client 9 s late and the others 11-12 s
        # left it 5.4 s and no settled sample
        plan = [(5301, 0, 56), (5302, 6, 30), (5303, 6, 16), (5304, 6, 16)]
        ts = [threading.Thread(target=flow, args=p) for p in plan]
        [t.start() for t in ts]
        [t.join() for t in ts]
        sampler.kill()
        sampler.wait()
        est = []
        with open(log) as f:
            lines = f.read().split("\n")
            # the kill may cut the last line short
            for line in lines[:-1]:
                a, b, js = line.split(" ", 2)
                est.append((float(a) - t0, float(b) - t0, red_qdisc(js)["flows_est"]))
        os.unlink(log)
    finally:
        c.destroy()
    return est, [(ended[port], secs) for port, _, secs in plan]


def adaptive_judge(est, ends):
    """The samples per settled phase ({flows: [estimates]}) and a trace.

    Which flows were sending when: a client ran its data for its -t
    seconds, ending at most EXCH before it returned (result exchange,
    process exit: more than 0.7 s has been seen); iperf3's start-up under
    TCG varies by seconds, so the starts come from the ends too. A sample
    is read some time between the two instants around the tc call (~0.5 s
    under TCG); it is judged only when that whole span is more than SLACK
    from an uncertain boundary: the published estimate covers the last
    full 500 ms window, so it lags by up to 1 s."""
    EXCH, SLACK = 1.5, 1.0
    spans = [(end - secs - EXCH, end - secs, end - EXCH, end) for end, secs in ends]

    def expected(t0, t1):
        n = 0
        for s_lo, s_hi, e_lo, e_hi in spans:
            if t0 <= s_hi + SLACK and t1 >= s_lo - SLACK or \
               t0 <= e_hi + SLACK and t1 >= e_lo - SLACK:
                return None
            n += s_hi < t0 and t1 < e_lo
        return n
    phases = {}
    for t0, t1, e in est:
        n = expected(t0, t1)
        if n is not None:
            phases.setdefault(n, []).append(e)
    trace = (f"spans {[tuple(round(x, 1) for x in sp) for sp in spans]} "
             f"samples {[(round(t0, 1), round(t1, 1), e) for t0, t1, e in est]}")
    return phases, trace


@pytest.mark.quiet
def test_adaptive_estimate_follows_active_flows(redopt, figure):
    """flows_est follows the active flows through phases of 1, 4, 2 and 1:
    in each settled phase the median sample is exact and none is off by
    more than one (a flow in RTO backoff under TCG may send nothing for a
    whole window).

    The bitmap cannot tell two flows whose hashes share a bit: with the
    qdisc's random key, two of the four share one of the 1024 bits in
    about 0.6% of runs (1 - (1023 * 1022 * 1021) / 1024^3), and that run
    reads one flow short for as long as both send (seen once: 3 all
    through the 4-flow phase, then 2 and 1 exact). Such a run, one short
    in a phase of several flows and right elsewhere, is taken again with
    a fresh qdisc, hence a fresh key; a second such run (p < 0.004%) or
    any other error fails. A run that left a phase without a settled
    sample is taken again, twice at most: a loaded host delays the
    clients' starts and the sampler's tc calls (one sample each in the 4-
    and 2-flow phases, 6.12 beside a second guest; in a make test 30%
    slower than usual, tc calls of 2-9 s and no sample of the 4-flow phase
    in two runs)."""
    def median(got):
        return sorted(got)[len(got) // 2]

    def failure(phases, trace):
        """(why, "unjudged" or "collision" where that explains it, else
        None) or (None, None)."""
        bad = []
        for want in (1, 4, 2):
            got = phases.get(want, [])
            if not got:     # the host's delays left it unjudged
                return f"phase {want}: no settled sample; {trace}", "unjudged"
            if median(got) != want or not all(abs(e - want) <= 1 for e in got):
                bad.append((want, got))
        if not bad:
            return None, None
        collision = all(want > 1 and median(got) == want - 1 for want, got in bad)
        return "; ".join(f"phase {w}: {g}" for w, g in bad) + f"; {trace}", \
            "collision" if collision else None

    again = {"unjudged": 2, "collision": 1}     # runs taken again, at most
    for attempt in (1, 2, 3):
        phases, trace = adaptive_judge(*adaptive_run())
        figure(f"flows_est samples 1/4/2 phases (run {attempt})",
               f"{phases.get(1, [])} {phases.get(4, [])} {phases.get(2, [])}")
        why, kind = failure(phases, trace)
        if why is None:
            return
        if not again.get(kind) or attempt == 3:
            raise AssertionError(why)
        again[kind] -= 1
        figure(f"run {attempt} {kind}, taken again", why)


@pytest.mark.quiet
def test_change_under_traffic_trims_queue(redopt, figure):
    """A standing queue (UDP at 3x the 1 Mbit/s bottleneck, thresholds far
    above it): a change that shrinks the limit trims the queue at once,
    the trimmed packets counted as overflow and the parent's backlog kept
    right; then changes back and forth while it flows leave it working."""
    c = lab.Chain(["snd", "rtr", "rcv"])
    c.build()
    dev, ns = c.ifname("rtr", "rcv"), c.ns("rtr")
    try:
        c.tc("rtr", "rcv", """
            root handle 1: htb default 1
            class parent 1: classid 1:1 htb rate 1mbit ceil 1mbit
        """)
        big = "bandwidth 1mbit rtt 20ms flows 2 ssthresh 400 min 300 probability 0.1"
        lab.sh(f"{TC} qdisc add dev {dev} parent 1:1 handle 10: redopt {big}", ns=ns)
        lab.iperf3_server(c.ns("rcv"))
        res = {}
        t = threading.Thread(target=lambda: res.update(rep=lab.sh(
            f"iperf3 -c {c.ip('rcv')} -u -b 3M -t 25 -J", ns=c.ns("snd"), timeout=150)))
        t.start()
        time.sleep(5)
        # stats, change, stats in one shell: under TCG separate commands
        # left seconds between them (the queue drained, the sender stopped)
        show = f"{TC} -s -j qdisc show dev {dev} parent 1:1"
        for run in (1, 2):
            # bash: $EPOCHREALTIME brackets them without a fork
            cmd = (f"a=$EPOCHREALTIME; {show}; echo; {TC} qdisc change dev {dev} "
                   f"parent 1:1 handle 10: redopt ssthresh 30 min 5; b=$EPOCHREALTIME; "
                   f"{show}; echo; echo $a $b")
            out = lab.sh(f"bash -c {shlex.quote(cmd)}", ns=ns)
            lines = [x for x in out.split("\n") if x.strip()]
            before, after = (json.loads(x)[0] for x in lines[:2])
            took = float(lines[2].split()[1]) - float(lines[2].split()[0])
            limit = after["options"]["limit"]
            # the queue moves between the first dump and the change: the
            # link sends at most took x 1 Mbit/s of it (HTB charges what
            # backlog counts), a few packets of burst beside. The qdisc's
            # own sent counter cannot say how far: the trim dequeues
            # through qdisc_dequeue_head(), which counts its packets as
            # sent
            slack = took * 1e6 / 8 / (before["backlog"] / max(before["qlen"], 1)) + 10
            excess = before["qlen"] - limit
            figure(f"run {run}: qlen before/after, new limit; s between the dump and the change",
                   f"{before['qlen']}/{after['qlen']}, {limit}; {took:.2f}")
            assert before["qlen"] > limit, (before, limit)
            assert after["qlen"] <= limit, after
            # the second run is judged whatever its slack: the checks below
            # read the queue at its trimmed limit (with the big limit put
            # back, the parent's backlog was 523 packets against 84)
            if slack <= excess / 2 or run == 2:
                break
            # a stall there (0.85 s once: 71 packets of 258 sent) leaves
            # too little to judge: the queue back (it grows by 2 Mbit/s,
            # 170 packets a second), and again
            lab.sh(f"{TC} qdisc change dev {dev} parent 1:1 handle 10: redopt {big}", ns=ns)
            time.sleep(3)
        # a trim not counted as overflow misses by the whole excess (~300
        # packets; 46 counted, 318 asked, with the count removed from the
        # trim)
        figure("overflow counted by the trim, excess at the first dump, slack",
               (after["overflow"] - before["overflow"], excess, round(slack)))
        assert after["overflow"] - before["overflow"] >= excess - slack, \
            (excess, round(slack), before, after)
        # the parent's count follows (qdisc_tree_reduce_backlog); text, as
        # iproute2 6.1's JSON for htb is malformed
        out = lab.sh(f"tc -s qdisc show dev {dev}", ns=ns)
        m = re.search(r"qdisc htb 1: .*?backlog \S+ (\d+)p", out, re.S)
        assert m and int(m.group(1)) <= limit + 1, out
        for i in range(10):
            lab.sh(f"{TC} qdisc change dev {dev} parent 1:1 handle 10: redopt min {5 + i % 2}",
                   ns=ns)
            time.sleep(0.2)
        t.join()
        json.loads(res["rep"])
        # still forwarding after the trim and the changes: packets the qdisc
        # sent from the trimming change on (the UDP sender's own byte count
        # says nothing of the queue). The flow had >= 10 s left at the
        # trim; 200 packets are 2.4 s of the 1 Mbit/s link.
        end = json.loads(lab.sh(show, ns=ns))[0]
        figure("packets sent after the trim", end["packets"] - after["packets"])
        assert end["packets"] - after["packets"] >= 200, (after, end)
        assert "WARNING" not in lab.sh("dmesg | tail -n 50")
    finally:
        c.destroy()

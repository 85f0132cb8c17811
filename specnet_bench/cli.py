#!/usr/bin/env python3
"""specnet-bench: scenario x congestion control x parameter x repetition on
the Mininet topologies of specnet_bench/topos.py, with iperf3 --json per flow.
Runs in the VM as root (make bench / make demo boot it); see README.

    specnet-bench --suite tiny|demo|headline|full [--out DIR] [--seconds S] [--reps N]
    specnet-bench --scenario cpecn [...]        (the full suite's cases of it)
    specnet-bench --scenario geo --param 1,5,20 --ccs spec,reno,bbr [...]

Cases of one scenario with the same options run side by side, each on its
own independent path (a dumbbell case: its own bottleneck with all its
flows) of one Mininet, as long as their emulated rates fit the rate budget
and the guest CPU keeps up (it is sampled during every batch; above 90%
busy the next batches get half the paths, and the records say so). onoff
runs one case at a time: its UDP background shares the bottleneck.

Output <out>/results.json (meta + one record per flow and case),
summary.md (per value the nominal and realized PER and the realized
ceiling; goodput as a ratio to reno, to the best baseline and to the
realized ceiling C(1-PER); Jain for multi-flow cases; the paper's figure
beside ours; every figure the median [min-max] over repetitions, ratios
taken inside a repetition; a failed flow, an iperf3 report with an error
or without an end, counts as 0 and marks its scenario FAILED), and PNG
plots (goodput vs loss per algorithm, cwnd and queue over time). The
expected run time is printed first. results.json is rewritten after every
batch: a run stopped half way resumes with the same --out, skipping the
cases it has. A congestion control whose module is missing is skipped
with a message. The exit code is 1 when a flow failed.
"""
import argparse
import datetime
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time

from specnet_bench import specnet_lab as lab
from specnet_bench.records import FlowRecord, FlowResult
from specnet_bench.records import record_failed as failed

HERE = os.path.dirname(os.path.abspath(__file__))

BASELINES = ["reno", "cubic", "bbr", "westwood", "hybla"]
OURS = {"spec": "tcp_spec", "cpecn": "tcp_cpecn", "wecn": "tcp_cpecn", "tp": "tcp_tp"}
ECN_CCS = ("spec", "cpecn", "wecn")     # TCP_CONG_NEEDS_ECN: ECN on their connections
# the figure ours are held against besides reno and the best baseline:
# bbr on geo (the published ~0.7 of the ceiling), wecn for cpecn (the paper's)
REFS = {"geo": "bbr", "geo-aqm": "bbr", "geo-taildrop": "bbr", "leo": "bbr", "hybrid": "wecn",
        "cpecn": "wecn"}
GEO = ("geo", "geo-aqm", "geo-taildrop", "leo")     # long paths: queueing delay reported
LIMITED_SHOWN = 0.05    # rwnd- or sndbuf-limited shown from this part of the busy time
SCHEMA = os.path.join(HERE, "results.schema.json")

# name -> topology class name, the swept parameter, its unit, whether the
# senders ask for ECN, whether cases can run side by side, and the flows of
# a case when not one (dumbbell: the parameter)
SCENARIOS = {
    "satellite": dict(topo="SatelliteTopo", param="ber", unit="BER", ecn=True, side=True,
                      log=True),
    "geo": dict(topo="GeoTopo", param="loss", unit="corruption %", ecn=False, side=True,
                log=True),
    "geo-aqm": dict(topo="GeoAqmTopo", param="loss", unit="corruption %", ecn=True, side=True,
                    log=True),
    "geo-taildrop": dict(topo="GeoTaildropTopo", param="loss", unit="corruption %", ecn=False,
                         side=True, log=True),
    "leo": dict(topo="LeoTopo", param="loss", unit="random loss %", ecn=True, side=True,
                log=True),
    "hybrid": dict(topo="HybridTopo", param="bad", unit="bad-state loss %", ecn=True,
                   side=True, log=False),
    "cpecn": dict(topo="CpecnTopo", param="bad", unit="bad-state loss %", ecn=True,
                  side=True, log=False),
    "dumbbell": dict(topo="DumbbellTopo", param="flows", unit="flows", ecn=True, side=True,
                     log=False),
    "onoff": dict(topo="OnoffTopo", param="sources", unit="on/off sources", ecn=False,
                  side=False, log=False),
    "red": dict(topo="RedTopo", param="max_th", unit="RED max_th (packets)", ecn=True,
                side=True, log=False),
    # one case at a time: two 10 Mbit/s paths of two flows kept the 6.12
    # guest 87-95% busy, and its stalls (every ACK late at once) read as
    # path steps to a delay-based sender, 6-65 a minute; alone (43-70%
    # busy) 0-2 in 8 runs of 9, 50 and 146 in one (docs/algorithms.md,
    # "Path steps")
    "fifo-share": dict(topo="FifoTopo", param="bdp", unit="FIFO (BDPs; 0: fq_codel, no ECN)",
                       ecn=False, side=False, log=False),
    # two flows of the case's cc, 50 ms and rtt2_ms, through one 20 Mbit/s
    # bottleneck: a path fills the guest's rate budget alone
    "rtt-mix": dict(topo="RttMixTopo", param="rtt2_ms", unit="second flow's RTT (ms)",
                    ecn=True, side=False, log=False),
}
# opts that are the runner's, not the topology's, and the scenarios that
# take them: the competing flow's cc, tcp_cpecn's base algorithm
RUNNER_OPTS = {"vs": ("dumbbell", "fifo-share"), "base": ("hybrid", "cpecn")}
# the share a flow of ours must hold against one of these on the dumbbell's
# loss-free ECN bottleneck: at most 60% of it against cubic (fair to the
# standard), at least 30% against bbr (which ignores marks)
DUMBBELL_SHARE = {"cubic": ("<=", 0.6), "bbr": (">=", 0.3)}
RTT_MIX_JAIN = 0.8      # rtt-mix: Jain of two flows of ours, 50 ms and 600 ms
# fifo-share: each of these against one cubic flow; cubic's own case
# (cubic + cubic) is the reference for drops and retransmissions
FIFO_CCS = ["spec", "cpecn", "cubic", "bbr"]
ONOFF_SIZE = 1200       # UDP payload of the onoff background (+ 28 bytes UDP/IP)
# Build, teardown and bookkeeping of one batch under TCG, measured on the
# 2-core bed (6.1 guest): 8 s a batch plus 7 s a path (geo 2 paths: 21 s;
# cpecn 2 paths: 18-20 s, 4 paths: 44 s), a satellite path 13 s (12 paths:
# 160 s, of which 133 s to build and 10 s to tear down)
BATCH_FIXED_S = 8
PATH_S = {"satellite": 13}
PATH_S_DEFAULT = 7
HEADLINE_SECONDS = 90   # the headline suite's flows (satellite twice that): ~3h20m

# satellite: spec's least share of the realized ceiling at every BER up to
# SAT_CEIL_BER (where the paper's Reno has lost three quarters of its goodput)
SAT_CEIL_WANT = 0.95
SAT_CEIL_BER = 5e-5

PAPER = {
    "satellite": "SpecTCP paper (ns-2): ~5x the goodput of Reno+ECN at BER 5e-5; from BER "
                 "1e-5 to 5e-5 Reno loses 77% of its goodput, SpecTCP 12% (on Linux the "
                 "ceiling bounds the ratio: spec >= 0.95 ceil at every BER up to 5e-5 is the "
                 "target)",
    "geo": "BBR (published): ~0.7 of the ceiling up to 10% loss, collapses near 20%; "
           "target: spec >= 0.9 ceil up to 10%, >= 0.7 at 20%",
    "geo-aqm": "GEO path (20 Mbit/s, 600 ms) behind a gateway that marks (fq_codel, "
               "CAKE, RED or redopt, with ECN); targets: spec >= 0.9 of the ceiling up to "
               "10% corruption, >= 0.8 at 20%, at least bbr's goodput (>= 1.2x where bbr is "
               "below 0.75 of the ceiling), queueing delay p95 <= max(50 ms, 1.5x bbr's)",
    "geo-taildrop": "GEO path behind a tail-drop FIFO of 1 or 4 BDPs that never marks; "
                    "targets: spec's goodput >= bbr's, queueing delay p95 <= max(100 ms, "
                    "1.5x bbr's)",
    "leo": "LEO path (20 Mbit/s; every 15 s a new RTT from 25-60 ms and a 50-100 ms loss "
           "burst) behind fq_codel with ECN or a FIFO; targets: spec >= 0.9 of the ceiling, "
           "at least bbr's goodput (>= 1.2x where bbr is below 0.75 of the ceiling), "
           "queueing delay p95 <= max(50 ms, 1.5x bbr's)",
    "hybrid": "CPECN paper (ns-2): over WECN with the Reno base at 0.5% loss up to 1.18x "
              "(marking at 1/4 of the buffer, mark 7) and 1.72x (3/4, mark 22); with the "
              "Westwood base +17-24% at 1% loss",
    "cpecn": "CPECN paper (ns-2), its gateway: RED marking on the average queue, min_th at "
             "1/4 (mark 7) or 3/4 (mark 22) of a 30-packet buffer, max_th at the buffer; "
             "cpecn over wecn with the Reno base at 0.5% bad-state loss up to 1.18x (1/4) "
             "and 1.72x (3/4); with the Westwood base +17-24% at 1%",
    "dumbbell": "CPECN paper: Jain ~0.99 with 10 flows; TCP-TP paper: 0.98-0.99; target: "
                "Jain >= 0.95 among 10 flows of one algorithm, and on a loss-free ECN "
                "bottleneck our share <= 60% against cubic, >= 30% against bbr",
    "rtt-mix": "two flows of one algorithm, 50 ms and 600 ms RTT, sharing 20 Mbit/s behind "
               "fq_codel with ECN; target: Jain >= 0.8 for two spec flows",
    "onoff": "TCP-TP paper: up to 75% lower packet loss ratio than NewReno, prediction error "
             "below 15% with 10+ background flows; target: tp's retransmitted fraction below "
             "reno's beside it, at >= 0.9x reno's goodput",
    "fifo-share": "safety where the bottleneck never marks (tail-drop FIFO, fq_codel "
                  "without ECN): against cubic, a share between 35% and 60%, bottleneck drops "
                  "at most 2x those of cubic + cubic in the same run, a retransmitted "
                  "fraction at most 2x cubic's plus the realized corruption rate",
    "red": "RED model paper (ns-2): at the model's max_th (8, about half of 3 min_th = 15) "
           "zero congestion drops, drops at max_th 7; targets: no ECT packet dropped in any "
           "run (no overflow at redopt) and an average queue <= 0.8x classic RED's (max_th "
           "15) at equal goodput (within 5%)",
}


def red_cases(default=False):
    """The red scenario's cases, or with @default the one `case` defaults to."""
    from specnet_bench import topos
    return topos.RedTopo.DEFAULT_CASE if default else list(topos.RedTopo.CASES)


def red_model_max(case=None):
    from specnet_bench import topos
    return topos.RedTopo.model(case)["max_th"]

def suite(name, seconds=None, reps=None):
    """The runs of a suite: (scenario, fixed opts, param values, ccs, seconds,
    reps, flow ccs). flow ccs: None = one flow of the case's cc; a list of
    cc templates per flow ("{cc}" = the case's cc)."""
    ours_sat = ["spec"] + BASELINES
    if name == "tiny":
        # every scenario once; two paths side by side only on geo (the
        # cheapest to build: under TCG a satellite path takes 15 s), at 10
        # Mbit/s so that both fit the rate budget
        s, r = seconds or 4, reps or 1
        return [
            ("satellite", {}, [1e-5], ["spec"], max(s, 8), r, None),
            ("geo", {"rate": "10mbit"}, [1.0], ["reno", "cubic"], s, r, None),
            ("hybrid", {"mark": 15}, [1.0], ["cpecn"], s, r, None),
            ("cpecn", {"mark": 7}, [1.0], ["cpecn"], s, r, None),
            ("dumbbell", {}, [2], ["reno"], s, r, None),
            ("onoff", {}, [4], ["tp"], s, r, None),
            ("red", {}, [red_model_max()], ["reno"], s, r, None),
            ("fifo-share", {"vs": "cubic"}, [1], ["spec"], s, r, ["{cc}", "cubic"]),
            ("geo-aqm", {"gw": "fq_codel"}, [1.0], ["spec"], s, r, None),
            ("geo-taildrop", {"bdp": 1}, [1.0], ["spec"], s, r, None),
            ("leo", {"gw": "fq_codel", "epoch_s": 2}, [1.0], ["spec"], s, r, None),
            # long enough for the 600 ms flow's data connection to be busy
            # when its sender's ss is read (3 s before the end)
            ("rtt-mix", {}, [600], ["cubic"], max(s, 6), r, None),
        ]
    if name == "headline":
        # the figures the README quotes, 3 repetitions: medians with their
        # range; at the defaults about 3h20m under TCG (expected_seconds)
        s, r = seconds or HEADLINE_SECONDS, reps or 3
        return [
            ("satellite", {}, [1e-6, 1e-5, 5e-5], ours_sat, 2 * s, r, None),
            ("geo-aqm", {"gw": "fq_codel"}, [1, 10, 20], ["spec", "cubic", "bbr", "hybla"], s,
             r, None),
            ("geo-taildrop", {"bdp": 1}, [1, 10, 20], ["spec", "cubic", "bbr"],
             s, r, None),
            ("dumbbell", {"vs": "cubic"}, [2], ["spec", "cpecn", "tp"], s, r,
             ["{cc}", "cubic"]),
            ("dumbbell", {}, [10], ["spec", "cpecn", "tp", "reno"], s, r, None),
            ("red", {}, [red_model_max(), 15], ["reno", "spec"], s, r, None),
            *[("cpecn", {"mark": k}, [0.5], ["cpecn", "wecn"], s, r, None) for k in (7, 22)],
            ("fifo-share", {"vs": "cubic"}, [1, 0], ["spec", "cpecn", "cubic"], s, r,
             ["{cc}", "cubic"]),
        ]
    if name == "red":
        # the RED model's cases, redopt beside classic RED (max_th 15) in
        # each repetition: 15 repetitions of 60 s (about 40 min under TCG
        # with --max-paths 6 --rate-budget 20e6)
        s, r = seconds or 60, reps or 15
        return [("red", {"case": k}, [red_model_max(k), 15], ["reno"], s, r, None)
                for k in red_cases()]
    if name == "demo":
        s, r = seconds or 60, reps or 1
        return [("satellite", {}, [1e-6, 1e-5, 5e-5], ours_sat, s, r, None),
                ("geo", {}, [1, 10, 20], ["spec"] + BASELINES, s, r, None)]
    if name == "full":
        # every figure a median over 3 repetitions: about 10h in all
        # under TCG; make bench SCENARIO=<name> runs one scenario's share
        s, r = seconds or 60, reps or 3
        return [
            ("satellite", {}, [1e-7, 1e-6, 1e-5, 5e-5, 1.2e-4], ours_sat, 2 * s, r, None),
            ("geo", {}, [0.1, 1, 5, 10, 20], ["spec"] + BASELINES, s, r, None),
            *[("geo-aqm", {"gw": gw}, [0.1, 1, 5, 10, 20], ["spec"] + BASELINES, s, r, None)
              for gw in ("fq_codel", "red")],
            *[("geo-taildrop", {"bdp": b}, [1, 10, 20], ["spec"] + BASELINES, s,
               r, None) for b in (1, 4)],
            *[("leo", {"gw": gw}, [0.1, 0.5, 1, 2], ["spec"] + BASELINES, s, r, None)
              for gw in ("fq_codel", "fifo")],
            *[("hybrid", {"mark": k}, [0.1, 0.5, 1, 2], ["cpecn", "wecn", "reno", "westwood"],
               s, r, None) for k in (7, 15, 22)],
            *[("hybrid", {"mark": k, "base": "westwood"}, [0.1, 0.5, 1, 2], ["cpecn", "wecn"],
               s, r, None) for k in (7, 15, 22)],
            *[("cpecn", {"mark": k, "base": b}, [0.5, 1], ["cpecn", "wecn"], s, r, None)
              for k in (7, 22) for b in ("reno", "westwood")],
            *[("red", {"case": k}, [red_model_max(k) - 1, red_model_max(k), 15],
               ["reno", "spec"], s, r, None) for k in red_cases()],
            ("dumbbell", {}, [10], ["spec", "cpecn", "tp", "reno", "cubic"], s, r, None),
            ("dumbbell", {"vs": "cubic"}, [2], ["spec", "cpecn", "tp"], s, r,
             ["{cc}", "cubic"]),
            ("dumbbell", {"vs": "bbr", "delay_ms": 25}, [2], ["spec", "cpecn"], s, r,
             ["{cc}", "bbr"]),
            ("rtt-mix", {}, [600], ["spec", "cpecn", "cubic", "bbr"], 3 * s, r, None),
            ("onoff", {}, [10, 30, 100], ["tp", "reno"], s, r, None),
            *[("fifo-share", {"vs": "cubic", "rate": rate, "rtt_ms": rtt}, [0.5, 1, 4, 0],
               FIFO_CCS, 2 * s if rtt >= 600 else s, r, ["{cc}", "cubic"])
              for rate, rtt in (("10mbit", 20), ("10mbit", 50), ("20mbit", 50),
                                ("10mbit", 600))],
        ]
    raise SystemExit(f"unknown suite '{name}' (tiny, demo, headline, red, full)")


def kept_results_name(commit):
    """The name a run's results.json is kept under when a run of other code
    takes its place: results.<commit>.json, " (modified)" as "-modified"."""
    return f"results.{commit.replace(' (modified)', '-modified')}.json"


def case_key(c):
    return f"{c['scenario']}|{json.dumps(c['opts'], sort_keys=True)}|{c['value']}|{c['cc']}|{c['rep']}"


def expand(runs):
    """The cases of @runs, repetition by repetition: the ccs of one
    repetition at one value come next to each other and so share a batch
    (one Mininet, the same minutes) wherever the batch has room; ratios
    between algorithms are taken inside a repetition (case_stats)."""
    cases = []
    for scen, opts, values, ccs, seconds, reps, flows in runs:
        for rep in range(1, reps + 1):
            for v in values:
                for cc in ccs:
                    cases.append(dict(scenario=scen, opts=opts, value=v, cc=cc, rep=rep,
                                      seconds=seconds, flows=flows))
    return cases


def batch_overhead(b):
    """Seconds to build, tear down and account batch @b under TCG."""
    return BATCH_FIXED_S + len(b) * PATH_S.get(b[0]["scenario"], PATH_S_DEFAULT)


def expected_seconds(bs):
    """Expected run time of batches @bs under TCG: each batch's flow
    duration plus its overhead (batch_overhead)."""
    return sum(b[0]["seconds"] + batch_overhead(b) for b in bs)


def expected_line(name, bs, n_cases, n_todo, n_skipped=0):
    t = expected_seconds(bs)
    flows = sum(b[0]["seconds"] for b in bs)
    n_done = n_cases - n_todo - n_skipped
    done = f", {n_done} of {n_cases} already done" if n_done else ""
    done += f", {n_skipped} of {n_cases} skipped" if n_skipped else ""
    return (f"specnet-bench {name}: {n_todo} case(s) to run in {len(bs)} batch(es){done}; "
            f"expected run time {fmt_dur(t)} ({flows} s of flows + {t - flows} s to build "
            f"and tear down {sum(len(b) for b in bs)} path(s), under TCG)")


# ---- measurements --------------------------------------------------------

def uses_redopt(c):
    """Whether case @c's bottleneck is our redopt: red at the model's max_th,
    or geo-aqm behind gw=redopt."""
    if c["scenario"] == "red":
        return c["value"] == red_model_max(c["opts"].get("case"))
    return c["opts"].get("gw") == "redopt"


def ensure_redopt():
    """Load our sch_redopt (tc would autoload it only from /lib/modules)."""
    if not lab.module_loaded("sch_redopt") and os.path.exists(lab.module_path("sch_redopt")):
        lab.run(f"insmod {lab.module_path('sch_redopt')}")
    return lab.module_loaded("sch_redopt")


def cpu_sample():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return sum(v), v[3] + v[4]          # total, idle + iowait


def cpu_busy(a, b):
    total, idle = b[0] - a[0], b[1] - a[1]
    return 1 - idle / total if total else 0.0


def flow_record(rep_json, stream=None):
    """The FlowResult of an iperf3 report: goodput, retransmits, RTT and the
    cwnd/RTT series; or, for a failed flow, only the error: a report with an "error"
    (iperf3 may write one beside a partial "end"), without an "end", or
    one that does not parse. A failed flow counts as 0 goodput in every
    figure (failed()); a partial report is never taken as a result.
    @stream: the flow is that stream (0-based) of a report of several
    (iperf3 -P), its figures the stream's own; None: the report's one flow."""
    try:
        rep = json.loads(rep_json)
    except ValueError:
        return FlowResult(error="iperf3: no JSON: " + rep_json.strip()[-300:])
    if not isinstance(rep, dict):
        return FlowResult(error="iperf3: not a report: " + rep_json.strip()[-300:])
    if "error" in rep:
        return FlowResult(error=f"iperf3: {rep['error']}" +
                    ("" if "end" in rep else " (no end)"))
    if "end" not in rep:
        return FlowResult(error="iperf3: report without end")
    k = stream or 0
    try:
        end = rep["end"]["streams"][k]
        snd = end["sender"]
        if stream is None:
            goodput, rtx = lab.goodput_bps(rep), lab.retransmits(rep)
        else:
            goodput, rtx = end["receiver"]["bits_per_second"], snd.get("retransmits", 0)
        rcv = [iv["sum"] if stream is None else iv["streams"][k]
               for iv in (rep.get("server_output_json") or {}).get("intervals", [])]
        return FlowResult(
            goodput_bps=goodput, retransmits=rtx,
            bytes_sent=snd.get("bytes", 0), mean_rtt_ms=snd.get("mean_rtt", 0) / 1000,
            series=[[round((iv["sum"] if stream is None else iv["streams"][k])["end"], 2),
                     iv["streams"][k].get("snd_cwnd", 0),
                     iv["streams"][k].get("rtt", 0) / 1000,
                     iv["streams"][k]["bits_per_second"]]
                    for iv in rep.get("intervals", [])],
            rcv_series=[[round(x["end"], 3), x["bits_per_second"]] for x in rcv] or None)
    except (KeyError, IndexError, TypeError) as e:
        return FlowResult(error=f"iperf3 report: {e!r}")


def flow_goodput(r):
    """A flow record's goodput, 0 for a failed flow."""
    return 0.0 if failed(r) else r["goodput_bps"]


def jain(xs):
    """Jain's index over flows' goodputs; None (a failed flow) counts as 0.
    0 when nothing was delivered at all, None for no flows."""
    xs = [0.0 if x is None else x for x in xs]
    if not xs:
        return None
    if not any(xs):
        return 0.0
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs))


# ---- running -------------------------------------------------------------

def topo_opts(scen):
    """The options @scen's topology takes: the keywords of its chain_links()
    (or of build(), for satellite), and its extra_opts, but the swept
    parameter and what the runner sets."""
    import inspect
    from specnet_bench import topos
    cls = getattr(topos, SCENARIOS[scen]["topo"])
    fn = cls.chain_links if hasattr(cls, "chain_links") else cls.build
    names = {q.name for q in inspect.signature(fn).parameters.values()
             if q.kind == q.POSITIONAL_OR_KEYWORD}
    return ((names | set(getattr(cls, "extra_opts", ()))) -
            {"self", "paths", "per_path", "mss", SCENARIOS[scen]["param"]})


def topo_for(cases):
    from specnet_bench import topos
    scen = cases[0]["scenario"]
    cls = getattr(topos, SCENARIOS[scen]["topo"])
    param = SCENARIOS[scen]["param"]
    opts = {k: v for k, v in cases[0]["opts"].items() if k not in RUNNER_OPTS}
    per_path = [{param: c["value"]} if param != "flows" else {} for c in cases]
    if scen == "satellite":
        opts["mss"] = cls.mss_for(cases[0]["value"])
    return cls(paths=len(cases), per_path=per_path, **opts)


def flow_ports(ccs, dsts):
    """The [(cc, server port)] of a path's flows of congestion controls
    @ccs to addresses @dsts: flows of one congestion control to one
    address share a port, and run as the streams of one iperf3 client
    (-P), which connects them all before any sends. As clients of their
    own, started one after another, ten flows began up to seconds apart
    under TCG (a SYN lost in the queue the first ones filled waits a second
    to be sent again), and the last ran alone at the end."""
    ports, out = {}, []
    for fc, dst in zip(ccs, dsts):
        out.append((fc, ports.setdefault((fc, dst), 5201 + len(ports))))
    return out


def port_clients(flows):
    """{server port: [the indexes of its flows]} of flow_ports()'s @flows,
    in the order of their first flows: one iperf3 client a port, a flow
    its stream at its place in the list."""
    out = {}
    for i, (_, port) in enumerate(flows):
        out.setdefault(port, []).append(i)
    return out


def stream_port(rep_json, k):
    """The local port of stream @k of an iperf3 --json report, or None."""
    try:
        return json.loads(rep_json)["start"]["connected"][k]["local_port"]
    except (ValueError, KeyError, IndexError, TypeError):
        return None


def run_batch(cases, log):
    """One Mininet for @cases (side by side, one path each): returns the
    records (one per flow) and the guest CPU busy fraction."""
    from mininet.net import Mininet

    scen = cases[0]["scenario"]
    seconds = cases[0]["seconds"]
    topo = topo_for(cases)
    base = cases[0]["opts"].get("base")
    tb = time.time()
    net = Mininet(topo=topo, controller=None, build=True, waitConnected=False)
    records, procs, stops, started, clients = [], [], [], {}, {}
    tp_kbps = tp_prev = None
    sampler = lab.QueueSampler(period=0.5)
    try:
        if base:
            lab.set_param("tcp_cpecn", "base", base)
        net.start()
        topo.configure(net)
        plan = []                       # (case, path, [(flow cc, port)])
        for p, c in enumerate(cases, start=1):
            snd, rcv = topo.sender(net, p), topo.receiver(net, p)
            # ECN: where the case uses it, and always for ours that request
            # it from the SYN (spec, cpecn, wecn: iperf3 -C sets the CC only
            # after the SYN options are chosen, so the host must ask)
            ecn = SCENARIOS[scen]["ecn"] or c["cc"] in ECN_CCS
            topo._cmd(snd, f"sysctl -qw {lab.sender_ecn_sysctls(ecn)} "
                      "net.ipv4.tcp_no_metrics_save=1")
            if c["flows"]:
                fccs = [f.format(cc=c["cc"]) for f in c["flows"]]
            elif scen == "dumbbell":
                fccs = [c["cc"]] * int(c["value"])
            else:
                fccs = [c["cc"]] * (topo.flows(p) or 1)
            flows = flow_ports(fccs, [topo.flow_dst(p, i) for i in range(len(fccs))])
            clients[p] = port_clients(flows)
            for port in clients[p]:
                topo._cmd(rcv, f"iperf3 -s -1 -D -J -p {port} "
                               f"--logfile /tmp/iperf3-{rcv.name}-{port}.log")
            plan.append((c, p, flows))
        if any(fc == "tp" for _, _, fl in plan for fc, _ in fl):
            # tp's C: the bottleneck's rate, known, as the paper assumes
            # (0, the per-connection estimate, is a flow's own best rate:
            # with others sharing it counts N = 1 and holds what it has)
            caps = {topo.capacity_bps(p) for _, p, _ in plan}
            tp_kbps = int(caps.pop() // 1000) if len(caps) == 1 else 0
            tp_prev = lab.get_param("tcp_tp", "capacity_kbps")
            lab.set_param("tcp_tp", "capacity_kbps", tp_kbps)
            log(f"tcp_tp capacity_kbps {tp_kbps}")
        # the receivers' iperf3 servers listening (a client that came
        # before would be refused); one that never listens fails its flows
        late = lab.in_threads(lambda x: lab.not_listening(
            lab.node_netns(topo.receiver(net, x[1])), clients[x[1]]), plan)
        for (c, p, _), ports in zip(plan, late):
            if ports:
                log(f"path {p} ({c['cc']} {c['value']}): no iperf3 server listening on "
                    f"port(s) {', '.join(map(str, sorted(ports)))} after 10 s")
        unreachable = set()
        reach = lab.in_threads(lambda x: lab.node_reachable(topo.sender(net, x[1]),
                                                            topo.dst_ip(x[1])), plan)
        for (c, p, _), (ok, n) in zip(plan, reach):
            if not ok:
                unreachable.add(p)
                log(f"path {p} ({c['cc']} {c['value']}): no ping reply in {n} tries: "
                    "its flows count as failed")
        for c, p, _ in plan:
            node, intf = topo.bottleneck(net, p)
            sampler.add(p, lab.node_netns(node), str(intf))
        log(f"{len(cases)} path(s) built in {time.time() - tb:.0f}s")
        c0 = cpu_sample()
        sampler.start()
        if hasattr(topo, "dynamics"):   # leo's epochs, the same schedule per repetition
            stops = [topo.dynamics(net, p, seconds, c["rep"]) for c, p, _ in plan]
        for c, p, flows in plan:
            if scen == "onoff":
                n = int(c["value"])
                rate = 0.5 * topo.capacity_bps(p) * 3 / n     # duty cycle 1/3: mean 50%
                procs.append(((p, "onoff"), topo.sender(net, p).popen(
                    ["python3", os.path.join(HERE, "onoff.py"), "--dst", topo.dst_ip(p),
                     "--sources", str(n), "--rate", str(int(rate)), "--duration",
                     str(seconds + 2), "--seed", str(c["rep"]), "--size", str(ONOFF_SIZE),
                     "--json"],
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)))
            for port, ids in clients[p].items():
                i, fc = ids[0], flows[ids[0]][0]
                procs.append(((p, fc, port), topo.sender(net, p).popen(
                    ["iperf3", "-c", topo.flow_dst(p, i), "-p", str(port), "-t", str(seconds),
                     "-C", fc, "-J", "-i", "1", "--connect-timeout", "10000",
                     "--get-server-output"] + (["-P", str(len(ids))] if len(ids) > 1 else []),
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)))
                # when the client began (popen returns once it is exec'd):
                # the clients of a path start one after another, and their
                # common window (common_window()) is taken from these
                started[(p, port)] = time.monotonic()
        # what held each sender back (tcp_info's chronos), read 3 s before
        # iperf3 ends its flows
        limits = {}
        grab = threading.Timer(max(1, seconds - 3), sender_limits,
                               (topo, net, plan, limits, time.monotonic()))
        grab.start()
        outs = {}
        for tag, pr in procs:
            out, err = pr.communicate(timeout=seconds * 3 + 180)
            if tag:
                outs[tag] = (out, err)
        grab.cancel()
        grab.join()
        busy = cpu_busy(c0, cpu_sample())
        series = sampler.stop()
        while stops:
            stops.pop()()
        log(f"flows done, guest CPU {busy:.0%} busy")
        for c, p, flows in plan:
            node, intf = topo.bottleneck(net, p)
            rcv = topo.receiver(net, p)
            qs = series[p]
            real = topo.realized(net, p)
            shared = dict(
                queue=lab.node_qdisc_stats(node, intf), queue_series=qs,
                **avg_queue(qs, seconds, topo.capacity_bps(p), topo.wire_frame()),
                csum_errors=lab.node_nstat(rcv, "TcpInCsumErrors", "IpExtInCsumErrors"),
                per_nominal=topo.per(p), ceiling_nominal_bps=topo.ceiling_bps(p),
                **real, rtt_ms=topo.rtt_ms(p), guest_cpu_busy=round(busy, 3))
            if (p, "onoff") in outs:
                shared.update(background(outs[(p, "onoff")][0], seconds + 2))
            counters = {}
            for fc in {fc for fc, _ in flows}:
                if fc in OURS:
                    counters[fc] = lab.parse_counters(
                        topo.sender(net, p).cmd(f"cat /proc/net/tcp_{fc} 2>/dev/null"))
            frecs = []
            t0 = min(started[(p, port)] for _, port in flows)
            for i, (fc, port) in enumerate(flows):
                out, err = outs[(p, fc, port)]
                ids = clients[p][port]
                k = ids.index(i) if len(ids) > 1 else None
                lim = limits.get((p, port))
                if k is not None:
                    lport = stream_port(out, k)
                    lim = limits.get((p, port, lport)) if lport else None
                r = FlowRecord(scenario=scen, opts=c["opts"], param=SCENARIOS[scen]["param"],
                               value=c["value"], cc=c["cc"], flow_cc=fc, flow=i, rep=c["rep"],
                               seconds=seconds, key=case_key(c), **shared,
                               counters=counters.get(fc, {}),
                               tcp_limited=lim,
                               tp_capacity_kbps=tp_kbps if fc == "tp" else None)
                if hasattr(topo, "flow_rtt_ms"):
                    r.rtt_ms = topo.flow_rtt_ms(p, i)
                r.set_result(flow_record(out, k))
                r.start_s = round(started[(p, port)] - t0, 3)
                if r.error is not None and err.strip():
                    r.error += " " + err.strip()[-200:]
                if p in unreachable:
                    r.error = "; ".join(x for x in ("no connectivity before the flows", r.error)
                                        if x)
                frecs.append(r)
            if len(frecs) > 1:
                gs = flow_goodputs([vars(r) for r in frecs])
                j, tot = jain(gs), sum(gs)
                for r, g in zip(frecs, gs):
                    r.jain = j
                    r.share = g / tot if tot else None
            records.extend(r.to_json() for r in frecs)
        return records, busy
    finally:
        sampler.stop()
        for stop in stops:
            try:
                stop()
            except Exception:           # noqa: BLE001 - the batch failed already
                pass
        for _, pr in procs:
            if pr.poll() is None:
                pr.kill()
        ts = time.time()
        net.stop()
        log(f"torn down in {time.time() - ts:.0f}s")
        if base:
            lab.set_param("tcp_cpecn", "base", "reno")
        if tp_prev is not None:
            lab.set_param("tcp_tp", "capacity_kbps", tp_prev)


def sender_limits(topo, net, plan, limits, t0):
    """Into @limits {(path, port): ss_limits() + "at_s", the seconds since
    @t0 (the flows' start) when read}: the data connection (the one that
    has carried most) of each flow of @plan, and {(path, port, local
    port): ...} of every connection (the streams of one client), read on
    its sender with one `ss` a path, all paths at once (about a second each under TCG: read one
    after the other, the last paths of a batch were read after their flows
    had ended)."""
    procs = []
    for _, p, flows in plan:
        ports = " or ".join(f"dport = :{port}" for _, port in flows)
        try:
            procs.append((p, topo.sender(net, p).popen(
                ["ss", "-tinH", "state", "established", f"( {ports} )"],
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)))
        except OSError:
            continue
    for p, pr in procs:
        try:
            out = pr.communicate(timeout=30)[0]
        except subprocess.TimeoutExpired:
            pr.kill()
            continue
        at = round(time.monotonic() - t0, 1)
        best = {}                       # port -> (bytes acked, limits): the socket that carried most
        for sock in lab.parse_ss(out):
            try:
                port = int(sock["socket"][3].rsplit(":", 1)[1])
                lport = int(sock["socket"][2].rsplit(":", 1)[1])
            except (IndexError, ValueError):
                continue
            lim = lab.ss_limits(sock)
            if lim:                     # a stream of a client of several (iperf3 -P)
                limits[(p, port, lport)] = dict(lim, at_s=at)
            acked = sock.get("bytes_acked", 0)
            if acked >= best.get(port, (-1, None))[0]:
                best[port] = (acked, lim)
        for port, (_, lim) in best.items():
            if lim:
                limits[(p, port)] = dict(lim, at_s=at)


def background(report, seconds):
    """Offered and sent load of specnet_bench/onoff.py's --json report."""
    try:
        b = json.loads(report)
    except ValueError:
        return dict(background_error=report.strip()[-200:])
    return dict(background_offered_bps=round(b["mean_bps"]),
                background_sent_bps=round(b["packets_sent"] * 8 * (ONOFF_SIZE + 28) / seconds))


def avg_queue(series, seconds, capacity_bps, frame):
    """Mean bottleneck queue (packets) over the last 5/6 of the flows (the
    first sixth is slow start) and the queueing delay it makes at full-sized
    frames."""
    qs = [s[2] for s in series if seconds / 6 <= s[0] <= seconds]
    if not qs:
        return {}
    q = sum(qs) / len(qs)
    p95 = sorted(qs)[min(len(qs) - 1, int(0.95 * len(qs)))]
    ms = frame * 8 / capacity_bps * 1000
    return dict(avg_queue_pkts=round(q, 2), avg_queue_delay_ms=round(q * ms, 1),
                p95_queue_delay_ms=round(p95 * ms, 1))


# The sum of the bottleneck rates of one batch: a TCG guest forwards about
# 30 Mbit/s in all, and two 20 Mbit/s paths side by side kept it 81-90%
# busy (leo and geo-aqm, spec beside bbr); its stalls then read as queue to
# spec's delay signal (39 delay verdicts in the worst leo run, 0.62 of the
# ceiling; 0.89 alone). 25 Mbit/s runs a 20 Mbit/s path alone.
RATE_BUDGET = 25e6


def batches(cases, max_paths, rate_budget_bps):
    """Cases in run order, grouped: side by side where the scenario allows,
    within @max_paths and the rate budget; satellite by MSS."""
    from specnet_bench import topos
    out, cur, load = [], [], 0.0

    def flush():
        nonlocal cur, load
        if cur:
            out.append(cur)
        cur, load = [], 0.0

    for c in cases:
        sc = SCENARIOS[c["scenario"]]
        if not sc["side"]:
            flush()
            out.append([c])
            continue
        rate = topo_for([c]).capacity_bps(1)
        same = cur and (cur[0]["scenario"], cur[0]["seconds"], json.dumps(cur[0]["opts"])) == \
            (c["scenario"], c["seconds"], json.dumps(c["opts"]))
        if c["scenario"] == "satellite" and cur:
            mss = topos.SatelliteTopo.mss_for
            same = same and mss(cur[0]["value"]) == mss(c["value"])
        if not same or len(cur) >= max_paths or load + rate > rate_budget_bps:
            flush()
        cur.append(c)
        load += rate
    flush()
    return out


def fmt_dur(s):
    s = int(s)
    return f"{s // 3600}h{s % 3600 // 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s"


# ---- output --------------------------------------------------------------

def save(out, meta, records):
    tmp = os.path.join(out, "results.json.tmp")
    with open(tmp, "w") as f:
        json.dump(dict(meta=meta, records=records), f, indent=1)
    os.replace(tmp, os.path.join(out, "results.json"))


def validate(path):
    import jsonschema
    with open(SCHEMA) as f:
        schema = json.load(f)
    with open(path) as f:
        jsonschema.validate(json.load(f), schema)


def mean(xs):
    """Mean of @xs; None entries are missing figures (not failed flows:
    those are 0 by then, flow_goodput) and are left out."""
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def median(xs):
    """Median of @xs (the mean of the middle two for an even count); None
    entries are missing figures and are left out."""
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


class Spread(tuple):
    """A figure over repetitions: median, min, max and how many."""
    __slots__ = ()

    def __new__(cls, med, lo, hi, n):
        return super().__new__(cls, (med, lo, hi, n))

    med = property(lambda s: s[0])
    lo = property(lambda s: s[1])
    hi = property(lambda s: s[2])
    n = property(lambda s: s[3])

    def fmt(self, f="{:.2f}", scale=1.0):
        """'0.93 [0.90-0.95]' (median [min-max]); one repetition: '0.93'."""
        v = f.format(self.med * scale)
        if self.n > 1:
            v += f" [{f.format(self.lo * scale)}-{f.format(self.hi * scale)}]"
        return v


def spread(xs):
    """Median, min and max of @xs (None entries left out); None if empty."""
    xs = [x for x in xs if x is not None]
    return Spread(median(xs), min(xs), max(xs), len(xs)) if xs else None


def fmt_spread(s, f="{:.2f}", scale=1.0):
    return s.fmt(f, scale) if s is not None else "?"


def module_params(sysfs="/sys/module"):
    """The parameters of our modules that are loaded: {module: {name: value}}
    (a run's results depend on them, e.g. tcp_spec's hystart)."""
    got = {}
    for m in sorted(set(OURS.values()) | {"sch_redopt"}):
        d = os.path.join(sysfs, m, "parameters")
        if os.path.isdir(d):
            got[m] = {}
            for k in sorted(os.listdir(d)):
                with open(os.path.join(d, k)) as f:
                    got[m][k] = f.read().strip()
    return got


def summary(meta, records):
    lines = [f"# specnet-bench {meta['suite']} ({meta['date']}, kernel {meta['kernel']}, "
             f"commit {meta['commit']})", ""]
    if meta.get("skipped"):
        lines += ["Skipped (module missing): " + ", ".join(meta["skipped"]), ""]
    if meta.get("module_params"):
        lines += ["Module parameters: " + "; ".join(
            f"{m} " + " ".join(f"{k}={v}" for k, v in sorted(ps.items()))
            for m, ps in sorted(meta["module_params"].items())), ""]
    st = case_stats(records)
    groups = {}
    for r in records:
        groups.setdefault((r["scenario"], json.dumps(r["opts"], sort_keys=True)), []).append(r)
    for (scen, opts), rs in groups.items():
        sc = SCENARIOS[scen]
        ccs = list(dict.fromkeys(r["cc"] for r in rs))
        values = sorted({r["value"] for r in rs})
        o = json.loads(opts)
        bad = [r for r in rs if failed(r)]
        reps = sorted({r["rep"] for r in rs})
        lines += [f"## {scen}" + (f" ({', '.join(f'{k} {v}' for k, v in o.items())})" if o else ""),
                  ""]
        if bad:
            lines += [f"FAILED: {len(bad)} flow{'s' if len(bad) != 1 else ''} (each counted as "
                      "0 goodput in every figure below): " +
                      "; ".join(f"{r['cc']} at {r['value']:g} rep {r['rep']} flow {r['flow']} "
                                f"({r['flow_cc']}): {r.get('error', 'no goodput')[:160]}"
                                for r in bad[:8]) +
                      (f"; and {len(bad) - 8} more" if len(bad) > 8 else ""), ""]
        lines += [f"Paper: {PAPER[scen]}.", "",
                  f"{len(reps)} repetition{'s' if len(reps) != 1 else ''}"
                  + ("; figures: median [min-max] over them" if len(reps) > 1 else "") + ".", ""]
        multi = any(len({r["flow"] for r in rs if r["cc"] == cc}) > 1 for cc in ccs)
        ceil_max = max(x.get("ceiling_nominal_bps") or x.get("ceiling_bps") or 0 for x in rs)
        k, u, gf = (1e3, "kbit/s", "{:.1f}") if ceil_max < 1e6 else (1e6, "Mbit/s", "{:.3f}")
        ref = REFS.get(scen)
        head = (f"| {sc['unit']} | PER nominal | PER realized | ceiling {u} (realized) |" +
                "".join(f" {cc} |" for cc in ccs))
        lines += [head, "|---|---|---|---|" + "---|" * len(ccs)]
        for v in values:
            at = [r for r in rs if r["value"] == v]
            paths = [p for cc in ccs for p in st.get((scen, opts, v, cc), {"reps": {}})
                     ["reps"].values()]
            pr = [p for p in paths if p["per_realized"] is not None]
            per_real = fmt_spread(spread([p["per_realized"] for p in pr]), "{:.3g}")
            if pr and all(p["lossy_pkts"] is not None for p in pr):
                per_real += (f" ({sum(p['lossy_discarded'] or 0 for p in pr)}/"
                             f"{sum(p['lossy_pkts'] for p in pr)})")
            ceil = fmt_spread(spread([p["ceil"] for p in paths]), gf, 1 / k)
            best = best_per_rep(st, scen, opts, v, BASELINES)
            cells = []
            for cc in ccs:
                x = st.get((scen, opts, v, cc))
                if x is None:
                    cells.append(" - |")
                    continue
                parts = [x["goodput"].fmt(gf, 1 / k)]
                rr = ratio(x, st.get((scen, opts, v, "reno"))) if cc != "reno" else None
                if rr:
                    parts.append(f"{rr.fmt()}x reno")
                rb = ratio(x, best) if cc not in BASELINES else None
                if rb:
                    parts.append(f"{rb.fmt()}x best")
                rf = ratio(x, st.get((scen, opts, v, ref))) if ref and cc not in BASELINES \
                    and cc != ref else None
                if rf:
                    parts.append(f"{rf.fmt()}x {ref}")
                parts.append(f"{fmt_spread(x['xceil'])} ceil")
                if scen in GEO and x["xceil_late"] is not None:
                    parts.append(f"{x['xceil_late'].fmt()} ceil from {late_from(x):.3g} s")
                if multi and x["jain"] is not None:
                    parts.append(f"Jain {x['jain'].fmt()}")
                if multi and (o.get("vs") or scen == "rtt-mix") and x["share"] is not None:
                    parts.append(f"share {x['share'].fmt()}")
                if scen == "red":
                    parts += red_cells(x)
                if scen in GEO and x["delay_ms"] is not None:
                    # what a window that ignores losses costs in delay
                    parts.append(f"queue {x['delay_ms'].fmt('{:.0f}')} ms")
                    if x["p95_ms"] is not None:
                        parts.append(f"p95 {x['p95_ms'].fmt('{:.0f}')} ms")
                if x["handover"] is not None:
                    parts.append(f"a handover {x['handover'].fmt('{:.1f}', 1e-6)} Mbit "
                                 f"({x['handover'].n})")
                if scen == "fifo-share":
                    if x["drop_frac"] is not None:
                        parts.append(f"drops/pkt {x['drop_frac'].fmt('{:.4f}')}")
                    if x["rtx"] is not None:
                        parts.append(f"rtx {x['rtx'].fmt('{:.4f}')}")
                if scen == "onoff" and x["rtx"] is not None:
                    parts.append(f"rtx {x['rtx'].fmt('{:.4f}')}")
                    if x["background_sent_bps"] is not None:
                        parts.append(f"background {x['background_sent_bps'].fmt('{:.1f}', 1e-6)}"
                                     " Mbit/s sent")
                for f, what in (("rwnd_frac", "rwnd"), ("sndbuf_frac", "sndbuf")):
                    if x[f] is not None and x[f].hi >= LIMITED_SHOWN:
                        parts.append(f"{what}-limited {x[f].fmt('{:.0%}')}")
                if x["failed"]:
                    parts.append(f"**FAILED: {len(x['failed'])} of {x['flows']} flows**")
                cells.append(" " + ", ".join(parts) + " |")
            label = f"{v:g}"
            if scen == "red":
                label += " (redopt)" if any(r["queue"].get("kind") == "redopt" for r in at) \
                    else " (red)"
            per_nom = median([r.get("per_nominal") for r in at])
            lines.append(f"| {label} | {'?' if per_nom is None else f'{per_nom:.3g}'} | "
                         f"{per_real} | {ceil} |" + "".join(cells))
        lines.append("")
    tl = targets(records)
    if tl:
        lines += ["## Targets", ""] + tl + [""]
    lines += ["Cells: goodput in the ceiling's unit (per repetition the sum over the case's "
              "flows of its own cc, a failed flow counting 0), its ratio to reno, to the best "
              "baseline (reno, cubic, bbr, westwood, hybla) for ours, to the reference of the "
              "scenario (geo: bbr; hybrid, cpecn: wecn), and to the realized ceiling "
              "C(1-PER realized) x payload / wire frame ('ceil'); every ratio is taken inside a "
              "repetition (the same scenario, options, value and repetition), then its median. "
              "Each case runs on its own path: PER realized is, per path, the frames the lossy "
              "hop discarded or lost over those through it (in brackets: summed over the "
              "row's paths), the ceiling the realized one (the nominal one where the counters "
              "gave no PER); the row gives their median [min-max] over the row's paths, a "
              "cell's 'ceil' is against its own path's. A case of several flows is taken over "
              "their common window (the seconds all of them ran; its clients start one "
              "after another). Jain over a case's flows; share of "
              "the first flow (against cubic or bbr; rtt-mix: the shorter RTT's); rtx: "
              "retransmitted bytes / bytes sent; red: CE marks, congestion drops (all the "
              "bottleneck queue's drops: early/forced/overflow for redopt), average queue in "
              "packets and its queueing delay, after the first "
              "sixth of the flows; geo: the bottleneck's average and 95th-percentile queueing "
              "delay (one flow a path: the flow's own), and 'ceil from T s': the goodput at "
              "the receiver (iperf3's server intervals) from the first sixth of the flows on, "
              "over the ceiling: past the start, which on a 600 ms path takes 4-5 s whatever "
              "the congestion control; leo, 'a handover': what each handover cost a flow, "
              f"the Mbit its receiver got in the {HANDOVER_S:g} s before it less those of "
              f"the {HANDOVER_S:g} s after, median [min-max] over every handover of the "
              "case's repetitions (how many); fifo-share: "
              "the bottleneck's drops per packet offered; rwnd-limited, sndbuf-limited: "
              "the part of the senders' busy time (tcp_info, read 3 s before the flows end) "
              "that the receiver's window or the sender's own buffer held them back, shown "
              "where a repetition reached 5%: a limit of the hosts, not of the path or the "
              "congestion control. FAILED: flows "
              "whose iperf3 report had an error or no end; they count as 0.",
              ""]
    return "\n".join(lines)


def received_bits(r, a, b):
    """Bits the receiver of flow record @r got between @a and @b s into the
    flow, from its intervals (rcv_series), each at its own rate and
    counted for the part of it inside [a, b]."""
    prev, bits = 0.0, 0.0
    for end, bps in r["rcv_series"]:
        bits += bps * max(0.0, min(end, b) - max(prev, a))
        prev = end
    return bits


def late_goodput(r):
    """A flow's goodput at the receiver from the first sixth of its time on
    (the receiver's intervals, rcv_series, that start there or later),
    bit/s: the flow past its start, which on a long path takes seconds
    whatever the congestion control (a window doubling each round trip
    from 10 packets fills a 20 Mbit/s, 600 ms path in 7 round trips, 4.2
    s). 0 for a failed flow; None without the receiver's intervals (a
    record of a run before they were taken)."""
    if failed(r):
        return 0.0
    series = r.get("rcv_series")
    if not series:
        return None
    starts = [0.0] + [end for end, _ in series[:-1]]
    a = next((t for t in starts if t >= r["seconds"] / 6 - 1e-3), None)
    if a is None or series[-1][0] <= a:
        return None
    return received_bits(r, a, series[-1][0]) / (series[-1][0] - a)


def common_window(rs):
    """The seconds that all the flows @rs of one repetition of a case ran
    together, (a, b) on the clock of the first flow's start: from the
    latest start (start_s) to the earliest end (its start plus the end of
    its receiver's last interval). Failed flows are left out (they count
    as 0 anyway). None for a single flow, where a flow that did not fail
    lacks its start or its receiver's intervals (a record of a run before
    they were taken), or where the flows never overlapped."""
    live = [r for r in rs if not failed(r)]
    if len(rs) < 2 or not live or any(r.get("start_s") is None or not r.get("rcv_series")
                                      for r in live):
        return None
    a = max(r["start_s"] for r in live)
    b = min(r["start_s"] + r["rcv_series"][-1][0] for r in live)
    return (a, b) if b > a else None


def flow_goodputs(rs, frm=0.0):
    """The goodput of each flow of @rs (one repetition of a case), bit/s,
    a failed flow's 0: where the flows have a common window
    (common_window()), what each flow's receiver got in it, from @frm s
    after the first start on; otherwise iperf3's own over each flow's
    whole length. The clients of a path are started one after another
    (flow_ports(): the streams of one client together), and a flow that
    began later ran its last seconds alone: whole-length goodputs sum to
    more than the link carried at any moment, and Jain counts the seconds
    a flow had the link to itself. None where @frm leaves nothing of the
    window."""
    return goodputs_in(rs, common_window(rs), frm)


def goodputs_in(rs, w, frm=0.0):
    """flow_goodputs() of @rs, given their common window @w as
    common_window(rs) gives it (None: they have none)."""
    if w is None:
        return [flow_goodput(r) for r in rs]
    a, b = max(w[0], frm), w[1]
    if b <= a:
        return None
    return [0.0 if failed(r) else
            received_bits(r, a - r["start_s"], b - r["start_s"]) / (b - a) for r in rs]


# handover_costs(): the windows either side of a handover, s: longer than
# the 4-7 s a slow recovery took, shorter than half the 15 s epoch
HANDOVER_S = 7.0


def handover_costs(r):
    """What each handover of a leo flow record @r cost it, in bits: what
    its receiver got in the HANDOVER_S seconds before the handover less
    what it got in the HANDOVER_S after (0 for a flow the handover left
    as it was), for every handover of its schedule (LeoTopo.schedule(),
    seeded with its repetition) with both windows inside the flow. The
    schedule starts a moment before the flow (the connection's set-up), so
    the windows are late by that much. [] for a failed flow (its cell
    says FAILED) and for other scenarios; None without the receiver's
    intervals."""
    if r["scenario"] != "leo" or failed(r):
        return []
    if not r.get("rcv_series"):
        return None
    from specnet_bench import topos
    w, end = HANDOVER_S, r["seconds"]
    sched = topos.LeoTopo.schedule(end, r["rep"], r["opts"].get("epoch_s", 15))
    return [received_bits(r, t - w, t) - received_bits(r, t, t + w)
            for t, _, burst in sched if burst and t - w >= 0 and t + w <= end]


def rep_stats(rs):
    """The figures of one repetition of one case from its flow records @rs
    (one path: the path's figures are on every flow record). A failed flow
    counts as 0 goodput, in the case's goodput, Jain and the share."""
    rs = sorted(rs, key=lambda r: r["flow"])
    r0, cc = rs[0], rs[0]["cc"]
    w = common_window(rs)
    gs = goodputs_in(rs, w)
    own = [r for r in rs if r["flow_cc"] == cc]
    g = sum(x for r, x in zip(rs, gs) if r["flow_cc"] == cc)
    ceil = r0.get("ceiling_bps", r0.get("ceiling_nominal_bps"))
    q = r0.get("queue") or {}
    sent = sum(r.get("bytes_sent", 0) for r in own if not failed(r))
    rtx = sum(r.get("retransmits", 0) for r in own if not failed(r))
    if w:
        lg = goodputs_in(rs, w, r0["seconds"] / 6)
        late = None if lg is None else [x for r, x in zip(rs, lg) if r["flow_cc"] == cc]
    else:
        late = [late_goodput(r) for r in own]
    late = None if late is None or None in late or not ceil else sum(late) / ceil
    costs = [handover_costs(r) for r in own]
    return dict(
        goodput=g, ceil=ceil, xceil=g / ceil if ceil else None, xceil_late=late,
        late_from=r0["seconds"] / 6,
        ceil_nominal=r0.get("ceiling_nominal_bps"), per_nominal=r0.get("per_nominal"),
        per_realized=r0.get("per_realized"), lossy_pkts=r0.get("lossy_pkts"),
        lossy_discarded=r0.get("lossy_discarded"),
        jain=jain(gs) if len(rs) > 1 else None,
        share=gs[0] / sum(gs) if len(rs) > 1 and sum(gs) else None,
        kind=q.get("kind"), marked=q.get("marked"), drops=q.get("drops"),
        drop_frac=(q["drops"] / (q["drops"] + q["sent_pkts"])
                   if q.get("drops") is not None and q.get("sent_pkts") else None),
        early=q.get("early"), forced=q.get("forced"), overflow=q.get("overflow"),
        avg_queue_pkts=r0.get("avg_queue_pkts"), delay_ms=r0.get("avg_queue_delay_ms"),
        rtt_ms=r0.get("rtt_ms"),
        p95_ms=r0.get("p95_queue_delay_ms"),
        rtx=rtx * 1448 / sent if sent else None,
        handover=None if None in costs else [c for cs in costs for c in cs],
        **limited_fractions(own),
        background_sent_bps=r0.get("background_sent_bps"),
        flows=len(rs), failed=[r for r in rs if failed(r)])


def limited_fractions(rs):
    """rwnd_frac and sndbuf_frac: the parts of the busy time of the flows
    @rs that the receive window and the send buffer held the senders back
    (None where no flow has the figures)."""
    lim = [r["tcp_limited"] for r in rs if r.get("tcp_limited")]
    busy = sum(x["busy_ms"] for x in lim)
    if not busy:
        return dict(rwnd_frac=None, sndbuf_frac=None)
    return dict(rwnd_frac=sum(x["rwnd_limited_ms"] for x in lim) / busy,
                sndbuf_frac=sum(x["sndbuf_limited_ms"] for x in lim) / busy)


def case_stats(records):
    """(scenario, opts json, value, cc) -> the case's figures: "reps" (rep ->
    rep_stats: goodput = the sum over the case's flows of its own cc, 0 for
    a failed flow; the realized ceiling ceil and xceil = goodput / ceil of
    that repetition; jain, share, queue figures), and over repetitions the
    Spread (median, min, max) of each: goodput, ceil, xceil, jain, share,
    drops, delay_ms, ...; "failed": the failed flow records, "flows": how
    many flows in all. Ratios between cases: ratio()."""
    idx = {}
    for r in records:
        k = (r["scenario"], json.dumps(r["opts"], sort_keys=True), r["value"], r["cc"])
        idx.setdefault(k, {}).setdefault(r["rep"], []).append(r)
    out = {}
    for k, reps in idx.items():
        per = {rep: rep_stats(rs) for rep, rs in sorted(reps.items())}
        x = dict(reps=per, n=len(per),
                 kind=next((p["kind"] for p in per.values() if p["kind"]), None),
                 failed=[r for p in per.values() for r in p["failed"]],
                 flows=sum(p["flows"] for p in per.values()))
        for f in ("goodput", "ceil", "xceil", "xceil_late", "ceil_nominal", "per_nominal",
                  "per_realized", "jain", "share", "marked", "drops", "drop_frac", "early",
                  "forced", "overflow",
                  "avg_queue_pkts", "delay_ms", "p95_ms", "rtx", "background_sent_bps",
                  "rwnd_frac", "sndbuf_frac"):
            x[f] = spread([p[f] for p in per.values()])
        # every handover of every repetition: a handful per flow
        x["handover"] = spread([c for p in per.values() for c in p["handover"] or ()])
        out[k] = x
    return out


def ratio(a, b, field="goodput"):
    """Spread over repetitions of a's @field / b's @field, each ratio taken
    inside one repetition (the same rep of the same scenario, opts and
    value), then the median: not a ratio of medians. Repetitions where b's
    figure is 0 or missing are left out. @b may be a dict rep -> figure
    (e.g. the best baseline of each repetition)."""
    if a is None or b is None:
        return None
    bs = b if "reps" not in b else {rep: p[field] for rep, p in b["reps"].items()}
    return spread([p[field] / bs[rep] for rep, p in a["reps"].items()
                   if p[field] is not None and bs.get(rep)])


def best_per_rep(st, scen, opts, value, ccs, field="goodput"):
    """rep -> the best of @ccs' @field in that repetition (None if none ran)."""
    best = {}
    for cc in ccs:
        x = st.get((scen, opts, value, cc))
        for rep, p in (x["reps"].items() if x else ()):
            if p[field] is not None:
                best[rep] = max(best.get(rep, p[field]), p[field])
    return best or None


def late_from(x):
    """When a case's late goodput starts (s): the first sixth of its flows."""
    return next(iter(x["reps"].values()))["late_from"]


def late_note(x):
    """'; from T s on 0.93 [..]' for a target's figure: the goodput over the
    ceiling past the start (late_goodput()); "" where it was not taken."""
    if x["xceil_late"] is None:
        return ""
    return f"; from {late_from(x):.3g} s on {x['xceil_late'].fmt()}"


def margin(m, f="{:.2f}"):
    """(met, 'met by 0.03' or 'missed by 0.03') for the signed margin @m,
    formatted by @f (a miss too small for @f in two significant digits)."""
    by = f.format(abs(m))
    if m < 0 and by == f.format(0):
        by = f"{abs(m):.2g}"
    return m >= 0, f"{'met' if m >= 0 else 'missed'} by {by}"


def verdict(got, op, want, f="{:.2f}"):
    """(met, 'target >= 0.9: missed by 0.03'): @got against @want, @op
    '>=' or '<='; the margin is by how much it is met or missed."""
    ok, by = margin(got - want if op == ">=" else want - got, f)
    return ok, f"target {op} {f.format(want)}: {by}"


def verdict_within(got, lo, hi, f="{:.2f}"):
    """verdict() for a range [@lo, @hi]: the margin is to the nearer bound
    (met by the lesser of the two margins, missed by the distance to the
    bound passed)."""
    ok, by = margin(min(got - lo, hi - got), f)
    return ok, f"target {f.format(lo)}-{f.format(hi)}: {by}"


def targets(records):
    """The targets, each judged on the median over repetitions (the
    realized ceiling, ratios inside a repetition) and printed with its
    min-max, the target and by how much it is met or missed (figures, not
    assertions: a run that misses one still succeeds)."""
    return [r["line"] for r in target_rows(records)]


def target_rows(records):
    """targets() as rows: 'what' (the target, the same words in every run
    that measures it), 'figure', 'note' (repetitions, failed flows),
    'judged' (the target and the margin), 'status' ('met', 'missed', or
    None where a target could not be judged) and 'line', the summary's
    line."""
    st = case_stats(records)
    lines = []

    def line(what, figure, judged, cases=()):
        # @judged: verdict()'s (met, text); (None, text): not judged
        ok, judged = judged
        fl = sum(len(x["failed"]) for x in cases if x)
        n = max((x["n"] for x in cases if x), default=0)
        note = f"{n} rep{'s' if n != 1 else ''}" + (
            f"; FAILED: {fl} flow{'s' if fl != 1 else ''} counted as 0" if fl else "")
        lines.append({"what": what, "figure": figure, "note": note, "judged": judged,
                      "status": None if ok is None else ("met" if ok else "missed"),
                      "line": f"- {what}: {figure} ({note}), {judged}"})

    def get(scen, value, cc, opts="{}"):
        return st.get((scen, opts, value, cc))

    sat = sorted({k[2] for k in st if k[0] == "satellite" and k[1] == "{}"})
    for v in sat:
        x = get("satellite", v, "spec")
        if v > SAT_CEIL_BER or not x or not x["xceil"]:
            continue
        xr = ratio(x, get("satellite", v, "reno"))
        rr = f"; {xr.fmt()}x reno" if xr else ""
        line(f"satellite BER {v:g}: spec >= {SAT_CEIL_WANT} of the ceiling",
             f"{x['xceil'].fmt()} of the ceiling{rr}",
             verdict(x["xceil"].med, ">=", SAT_CEIL_WANT), [x])
    # spec against every baseline: baseline / spec inside each repetition,
    # its median per BER and baseline, within 3% (the spread of equal
    # algorithms in one run here); the figure is the closest baseline
    worst, used = None, []
    for v in sat:
        x = get("satellite", v, "spec")
        if not x:
            continue
        used.append(x)
        for b in BASELINES:
            y = get("satellite", v, b)
            rb = ratio(y, x)
            if y:
                used.append(y)
            if rb and (worst is None or rb.med > worst[2].med):
                worst = (b, v, rb)
    if worst:
        b, v, rb = worst
        line("satellite: spec >= every baseline at every BER (within 3%)",
             f"the closest, {b} at BER {v:g}: {rb.fmt()}x spec",
             verdict(rb.med, "<=", 1.03), used)
    elif used:
        line("satellite: spec >= every baseline at every BER (within 3%)",
             "no baseline ran beside spec", (None, "not judged"), used)
    for v in sorted({k[2] for k in st if k[0] == "geo" and k[1] == "{}"}):
        x = get("geo", v, "spec")
        if x and x["xceil"]:
            want = 0.9 if v <= 10 else 0.7
            q = f"; average queue {x['delay_ms'].fmt('{:.0f}')} ms" if x["delay_ms"] else ""
            xb = ratio(x, get("geo", v, "bbr"))
            q += f"; {xb.fmt()}x bbr" if xb else ""
            line(f"geo {v:g}% loss: spec >= {want} of the ceiling",
                 f"{x['xceil'].fmt()} of the ceiling{late_note(x)}{q}",
                 verdict(x["xceil"].med, ">=", want), [x])
    for (scen, opts, v, cc), x in sorted(st.items(), key=str):
        if scen not in ("geo-aqm", "geo-taildrop", "leo") or cc != "spec" or not x["xceil"]:
            continue
        o = json.loads(opts)
        # the path's other options (a variant run's, e.g. initrwnd 1000)
        # are named: its targets are not the scenario's own
        where = (scen + (f" {o['gw']}" if "gw" in o else "") +
                 (f" {o['bdp']} BDP" if "bdp" in o else "") +
                 "".join(f" {k} {o[k]}" for k in sorted(o) if k not in ("gw", "bdp")) +
                 f", {v:g}% loss")
        b = get(scen, v, "bbr", opts)
        xb = ratio(x, b)
        if scen in ("geo-aqm", "leo"):
            want = 0.9 if v <= 10 else 0.8
            line(f"{where}: spec >= {want} of the ceiling",
                 f"{x['xceil'].fmt()} of the ceiling{late_note(x)}",
                 verdict(x["xceil"].med, ">=", want), [x])
            if xb:
                need = 1.2 if b["xceil"] and b["xceil"].med < 0.75 else 1.0
                line(f"{where}: spec >= {need}x bbr", f"{xb.fmt()}x bbr",
                     verdict(xb.med, ">=", need), [x, b])
        elif xb:
            line(f"{where}: spec >= bbr", f"{xb.fmt()}x bbr", verdict(xb.med, ">=", 1.0),
                 [x, b])
        if x["p95_ms"] is not None and b and b["p95_ms"] is not None:
            floor = 100 if scen == "geo-taildrop" else 50
            cap = max(floor, 1.5 * b["p95_ms"].med)
            line(f"{where}: spec's queueing delay p95 <= max({floor} ms, 1.5x bbr's)",
                 f"{x['p95_ms'].fmt('{:.0f}')} ms, bbr {b['p95_ms'].fmt('{:.0f}')} ms",
                 verdict(x["p95_ms"].med, "<=", cap, "{:.0f}"), [x, b])
    for (scen, opts, v, cc), x in sorted(st.items(), key=str):
        if scen == "dumbbell" and opts == "{}" and v >= 10 and x["jain"] is not None:
            line(f"dumbbell, {v:g} {cc} flows: Jain >= 0.95", f"Jain {x['jain'].fmt('{:.3f}')}",
                 verdict(x["jain"].med, ">=", 0.95, "{:.3f}"), [x])
        vs = json.loads(opts).get("vs")
        if scen == "dumbbell" and vs in DUMBBELL_SHARE and x["share"] is not None:
            op, want = DUMBBELL_SHARE[vs]
            rtt = x["reps"][min(x["reps"])]["rtt_ms"]
            line(f"dumbbell {rtt:g} ms, {cc} against {vs}: {cc}'s share {op} {want:.0%}",
                 f"share {x['share'].fmt()}", verdict(x["share"].med, op, want), [x])
        if scen == "rtt-mix" and cc == "spec" and x["jain"] is not None:
            rtt = x["reps"][min(x["reps"])]["rtt_ms"]      # the first flow's
            line(f"rtt-mix, two spec flows, {rtt:g} ms and {v:g} ms: Jain >= {RTT_MIX_JAIN}",
                 f"Jain {x['jain'].fmt('{:.3f}')}, share of the {rtt:g} ms flow "
                 f"{x['share'].fmt()}",
                 verdict(x["jain"].med, ">=", RTT_MIX_JAIN, "{:.3f}"), [x])
    for (scen, opts, v, cc), x in sorted(st.items(), key=str):
        if scen != "fifo-share" or cc not in ("spec", "cpecn"):
            continue
        o = json.loads(opts)
        where = (f"fifo-share {o.get('rate', '10mbit')} {o.get('rtt_ms', 50)} ms, "
                 + (f"FIFO {v:g} BDP" if v else "fq_codel without ECN"))
        ref = get(scen, v, "cubic", opts)
        if x["share"] is not None:
            line(f"{where}: {cc}'s share against cubic within 35-60%",
                 f"share {x['share'].fmt()}", verdict_within(x["share"].med, 0.35, 0.6),
                 [x])
        dr = ratio(x, ref, "drop_frac")
        if dr:
            line(f"{where}: bottleneck drops with {cc} <= 2x cubic + cubic's",
                 f"{dr.fmt()}x (drops per packet {x['drop_frac'].fmt('{:.4f}')}, cubic + "
                 f"cubic {ref['drop_frac'].fmt('{:.4f}')})", verdict(dr.med, "<=", 2.0),
                 [x, ref])
        if x["rtx"] and ref and ref["rtx"]:
            per = x["per_realized"].med if x["per_realized"] else 0.0
            want = 2 * ref["rtx"].med + (per or 0.0)
            line(f"{where}: {cc}'s retransmitted fraction <= 2x cubic's + corruption",
                 f"{x['rtx'].fmt('{:.4f}')} (cubic {ref['rtx'].fmt('{:.4f}')})",
                 verdict(x["rtx"].med, "<=", want, "{:.4f}"), [x, ref])
    # tp beside reno over the self-similar background: fewer losses (the
    # TCP-TP paper's claim) for at most 10% of reno's goodput; ratios
    # inside each repetition
    for (scen, opts, v, cc), x in sorted(st.items(), key=str):
        if scen != "onoff" or cc != "tp":
            continue
        ref = get(scen, v, "reno", opts)
        xr = ratio(x, ref)
        if xr:
            line(f"onoff, {v:g} sources: tp's goodput >= 0.9x reno's", f"{xr.fmt()}x reno",
                 verdict(xr.med, ">=", 0.9), [x, ref])
        rr = ratio(x, ref, "rtx")
        if rr:
            line(f"onoff, {v:g} sources: tp's retransmitted fraction below reno's",
                 f"{rr.fmt()}x reno's ({x['rtx'].fmt('{:.4f}')}, reno "
                 f"{ref['rtx'].fmt('{:.4f}')})", verdict(rr.med, "<=", 1.0), [x, ref])
    # cpecn over wecn on the paper's gateway: the paper's figure where it
    # gives one; the target is not to fall below wecn (within 3%)
    paper_x = {("reno", 7, 0.5): "1.18x", ("reno", 22, 0.5): "1.72x",
               ("westwood", 7, 1.0): "1.17-1.24x", ("westwood", 22, 1.0): "1.17-1.24x"}
    for (scen, opts, v, cc), x in sorted(st.items(), key=str):
        if scen != "cpecn" or cc != "cpecn":
            continue
        o = json.loads(opts)
        base, mark = o.get("base", "reno"), int(o.get("mark", 0))
        xr = ratio(x, get(scen, v, "wecn", opts))
        if not xr:
            continue
        px = paper_x.get((base, mark, float(v)))
        line(f"cpecn ({base}, mark {mark}) at {v:g}% bad-state loss: cpecn >= wecn "
             f"(within 3%){'; paper ' + px if px else ''}",
             f"{xr.fmt()}x wecn", verdict(xr.med, ">=", 0.97), [x])
    for opts, cc in sorted({(k[1], k[3]) for k in st if k[0] == "red"}):
        case = json.loads(opts).get("case") or red_cases(default=True)
        model = [x for k, x in sorted(st.items(), key=str)
                 if k[0] == "red" and k[1] == opts and k[3] == cc and x["kind"] == "redopt"]
        if not model or model[0]["overflow"] is None:
            continue
        m = model[0]
        worst = max(p["overflow"] or 0 for p in m["reps"].values())
        ok, judged = verdict(worst, "<=", 0, "{:.0f}")
        line(f"red {case}, {cc}: no ECT packet dropped (redopt: no overflow in any run; "
             "its early and forced drops are of non-ECT retransmissions)",
             f"overflow {m['overflow'].fmt('{:.0f}')}, non-ECT drops early "
             f"{fmt_spread(m['early'], '{:.0f}')} forced {fmt_spread(m['forced'], '{:.0f}')}",
             (ok, judged + " (the worst run)"), [m])
        classic = get("red", 15, cc, opts)
        # the average queue as the queueing delay it makes: the same ratio
        dr, gr = ratio(m, classic, "delay_ms"), ratio(m, classic, "goodput")
        if dr and gr:
            ok1, j1 = verdict(dr.med, "<=", 0.8)
            ok2, j2 = verdict(abs(gr.med - 1), "<=", 0.05)
            per = ", ".join(f"{p['delay_ms'] / classic['reps'][rep]['delay_ms']:.2f}"
                            for rep, p in sorted(m["reps"].items())
                            if p["delay_ms"] is not None and rep in classic["reps"]
                            and classic["reps"][rep]["delay_ms"])
            ok = ok1 and ok2
            line(f"red {case}, {cc}: redopt's average queue <= 0.8x classic RED's (max_th 15) "
                 "at equal goodput (within 5%)",
                 f"average queue {dr.fmt()}x classic RED's (per run: {per}), goodput "
                 f"{gr.fmt()}x", (ok, f"queue {j1}; goodput |ratio - 1| {j2}; "
                                  f"{'met' if ok else 'missed'}"), [m, classic])
    return lines


def red_cells(x):
    """marks, drops and average queue of one case's bottleneck, the median
    [min-max] over repetitions (@x: the case's case_stats entry)."""
    out = [f"marks {fmt_spread(x['marked'], '{:.0f}')}",
           f"drops {fmt_spread(x['drops'], '{:.0f}')}"]
    if x["kind"] == "redopt":
        out[-1] += " ({}/{}/{})".format(*(f"{x[f].med:.0f}" if x[f] else "0"
                                         for f in ("early", "forced", "overflow")))
    if x["avg_queue_pkts"] is not None:
        out.append(f"avg queue {x['avg_queue_pkts'].fmt('{:.1f}')} pkts = "
                   f"{fmt_spread(x['delay_ms'], '{:.0f}')} ms")
    return out


def plots(out, records):
    os.environ.setdefault("MPLCONFIGDIR", os.path.join(lab.TOP, "build", "mpl"))
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    written = []
    groups = {}
    for r in records:
        groups.setdefault((r["scenario"], json.dumps(r["opts"], sort_keys=True)), []).append(r)
    st = case_stats(records)
    for n, ((scen, opts), rs) in enumerate(groups.items()):
        sc = SCENARIOS[scen]
        tag = scen + ("-" + re.sub(r"[^a-z0-9]+", "", opts.lower()) if opts != "{}" else "")
        fig, ax = plt.subplots(1, 3, figsize=(16, 4.5))
        for cc in dict.fromkeys(r["cc"] for r in rs):
            # the median over repetitions (a failed flow counts 0), min-max bars
            g = sorted((k[2], x["goodput"]) for k, x in st.items()
                       if k[:2] == (scen, opts) and k[3] == cc)
            ax[0].errorbar([v for v, _ in g], [s.med / 1e6 for _, s in g],
                           yerr=[[(s.med - s.lo) / 1e6 for _, s in g],
                                 [(s.hi - s.med) / 1e6 for _, s in g]],
                           marker="o", capsize=3, label=cc)
            first = next((r for r in rs if r["cc"] == cc and r.get("series")), None)
            if first:
                ax[1].plot([s[0] for s in first["series"]], [s[1] / 1000 for s in first["series"]],
                           label=f"{cc} ({sc['param']} {first['value']:g})")
            q = next((r for r in rs if r["cc"] == cc and r.get("queue_series")), None)
            if q:
                ax[2].plot([s[0] for s in q["queue_series"]], [s[2] for s in q["queue_series"]],
                           label=f"{cc} ({sc['param']} {q['value']:g})")
        xs = sorted({r["value"] for r in rs})
        for f, style, what in (("ceiling_bps", "k--", "ceiling (realized, median)"),
                               ("ceiling_nominal_bps", "k:", "ceiling (nominal)")):
            ys = [median([r.get(f) for r in rs if r["value"] == v]) for v in xs]
            if any(y is not None for y in ys):
                ax[0].plot([v for v, y in zip(xs, ys) if y is not None],
                           [y / 1e6 for y in ys if y is not None], style, label=what)
        if sc["log"]:
            ax[0].set_xscale("log")
        ax[0].set_xlabel(sc["unit"])
        ax[0].set_ylabel("goodput (Mbit/s)")
        ax[1].set_xlabel("time (s)")
        ax[1].set_ylabel("cwnd (kB, iperf3 snd_cwnd)")
        ax[2].set_xlabel("time (s)")
        ax[2].set_ylabel("bottleneck queue (packets)")
        for a in ax:
            a.grid(True, alpha=0.3)
            a.legend(fontsize=7)
        fig.suptitle(f"{scen} {opts if opts != '{}' else ''}")
        # fixed margins: tight_layout cost a TCG guest seconds per figure
        fig.subplots_adjust(left=0.05, right=0.99, bottom=0.12, top=0.9, wspace=0.22)
        path = os.path.join(out, f"{tag or n}.png")
        fig.savefig(path, dpi=100)
        plt.close(fig)
        written.append(path)
    return written


def report(a, ap):
    """--report DIR: the summary (and plots) of a run already made, from its
    results.json alone; nothing runs, root is not needed."""
    run_opts = ("suite", "scenario", "param", "ccs", "seconds", "reps", "out")
    given = [o for o in run_opts if getattr(a, o)] + ["opt"] * bool(a.opt)
    if given:
        ap.error(f"--report runs nothing: not with --{given[0]}")
    res = os.path.join(a.report, "results.json")
    if not os.path.isfile(res):
        raise SystemExit(f"specnet-bench: {a.report} has no results.json")
    import jsonschema
    from specnet_bench import publish
    try:
        validate(res)
    except (ValueError, jsonschema.ValidationError) as e:
        raise SystemExit(f"specnet-bench: {res}: not a bench run: "
                         f"{getattr(e, 'message', e)}")
    with open(res) as f:
        run = json.load(f)
    text = summary(run["meta"], run["records"])
    path = os.path.join(a.report, "summary.md")
    head = ""
    if os.path.exists(path):
        # a published run (docs/results/...) keeps publish.py's head: where,
        # when and on what it ran
        with open(path) as f:
            old = f.read()
        if re.match(publish.HEAD_RE, old) and "\n\n" in old:
            head = old[:old.index("\n\n") + 2]
    commit = lab.git_commit()
    if run["meta"]["commit"] != commit:
        head += (f"Summary remade from results.json by `specnet-bench --report` at "
                 f"commit {commit}: the run's figures, judged with that "
                 "commit's targets.\n\n")
    with open(path, "w") as f:
        f.write(head + text)
    pngs = [] if a.no_plots else plots(a.report, run["records"])
    print(text)
    print(f"report: {a.report}/summary.md" + "".join(f", {os.path.basename(p)}" for p in pngs))
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(prog="specnet-bench", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", default=None, help="tiny, demo, headline, red or full")
    ap.add_argument("--scenario", choices=sorted(SCENARIOS), help="one scenario: the full suite's cases of it, or those of --param and --ccs")
    ap.add_argument("--param", help="its parameter values, comma separated")
    ap.add_argument("--ccs", help="congestion controls, comma separated")
    ap.add_argument("--seconds", type=int, help="flow duration (suite default otherwise)")
    ap.add_argument("--reps", type=int, help="repetitions")
    ap.add_argument("--opt", action="append", default=[], metavar="KEY=VALUE",
                    help="with --scenario: a topology option (e.g. geo's step=1000, "
                         "hostbuf_mb=32; see specnet_bench/topos.py), or dumbbell's vs=CC (one "
                         "flow of each case's cc against one of CC), hybrid's base=reno|"
                         "westwood (cpecn's); repeatable")
    ap.add_argument("--out", help="output directory (resumes if it has results.json)")
    ap.add_argument("--max-paths", type=int, default=12, help="cases side by side, at most")
    ap.add_argument("--no-plots", action="store_true",
                    help="results.json and summary.md only (no matplotlib)")
    ap.add_argument("--rate-budget", type=float, default=RATE_BUDGET,
                    help="sum of side-by-side bottleneck rates, bit/s")
    ap.add_argument("--report", metavar="DIR",
                    help="run nothing: remake DIR's summary.md (and plots unless "
                         "--no-plots) from its results.json, with today's figures "
                         "and targets")
    a = ap.parse_args(argv)
    if a.report:
        return report(a, ap)
    from specnet_bench import topos
    if a.scenario and not (a.param or a.ccs or a.opt):
        # the full suite's runs of this scenario (make bench SCENARIO=...)
        if a.suite:
            raise SystemExit("specnet-bench: --suite or --scenario, not both")
        runs = [r for r in suite("full", a.seconds, a.reps) if r[0] == a.scenario]
        if not runs:
            raise SystemExit(f"specnet-bench: the full suite has no {a.scenario} runs; "
                             "give --param and --ccs")
        name = a.scenario
    elif a.scenario:
        if not (a.param and a.ccs):
            raise SystemExit("specnet-bench: --scenario needs both --param and --ccs "
                             "(or neither: the full suite's cases)")
        try:
            values = [float(v) if SCENARIOS[a.scenario]["param"] in ("ber", "loss", "bad", "bdp")
                      else int(v) for v in a.param.split(",")]
        except ValueError:
            raise SystemExit(f"specnet-bench: bad --param '{a.param}'")
        opts = {}
        for kv in a.opt:
            k, sep, v = kv.partition("=")
            if not sep or not re.fullmatch(r"[a-z_]+", k) or not v:
                raise SystemExit(f"specnet-bench: bad --opt '{kv}' (KEY=VALUE)")
            opts[k] = v
        known = topo_opts(a.scenario) | {k for k, sc in RUNNER_OPTS.items()
                                         if a.scenario in sc}
        bad = sorted(set(opts) - known)
        if bad:
            raise SystemExit(f"specnet-bench: {a.scenario} has no option {', '.join(bad)} "
                             f"(it has: {', '.join(sorted(known))})")
        flows = ["{cc}", opts["vs"]] if "vs" in opts else None
        runs = [(a.scenario, opts, values, a.ccs.split(","), a.seconds or 30, a.reps or 1,
                 flows)]
        name = a.scenario
    else:
        if a.opt:
            raise SystemExit("specnet-bench: --opt needs --scenario")
        name = a.suite or "demo"
        runs = suite(name, a.seconds, a.reps)

    if os.geteuid() != 0:
        raise SystemExit("specnet-bench: needs root (Mininet); run it in the VM: make bench")
    # tc in the nodes' shells (inherited) reads redopt's options and xstats
    os.environ.setdefault("TC_LIB_DIR", topos.TC_LIB)
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    out = a.out or os.path.join(lab.TOP, "results", f"bench-{name}-{stamp}")
    os.makedirs(out, exist_ok=True)
    records, meta = [], None
    prev = os.path.join(out, "results.json")
    if os.path.exists(prev):
        with open(prev) as f:
            old = json.load(f)
        records, meta = old["records"], old["meta"]
        commit = lab.git_commit()
        if meta.get("commit", commit) != commit:
            # its records measured other code: never mixed with this run's
            kept = os.path.join(out, kept_results_name(meta["commit"]))
            os.replace(prev, kept)
            print(f"specnet-bench: {out} holds a run at commit {meta['commit']}, the tree is "
                  f"at {commit}: starting over (that run kept as {kept})")
            records, meta = [], None
        else:
            print(f"specnet-bench: resuming {out}: {len({r['key'] for r in records})} "
                  "cases done")
    meta = meta or dict(suite=name, date=stamp, kernel=lab.kernel_release(),
                        commit=lab.git_commit(), skipped=[])

    cases = expand(runs)
    wanted = {c["cc"] for c in cases} | {f.format(cc=c["cc"]) for c in cases
                                          for f in (c["flows"] or [])}
    skipped = sorted(cc for cc in wanted if not lab.ensure_cc(cc))
    for cc in skipped:
        print(f"specnet-bench: skipping {cc}: congestion control not available "
              f"(module {OURS.get(cc, 'tcp_' + cc)} missing)", flush=True)
    no_redopt = any(uses_redopt(c) for c in cases) and not ensure_redopt()
    if no_redopt:
        print("specnet-bench: skipping red at the model's max_th and geo-aqm gw=redopt: "
              "qdisc redopt not available (module sch_redopt missing)", flush=True)
        skipped.append("redopt")
    meta["skipped"] = sorted(set(meta.get("skipped", [])) | set(skipped))
    params = module_params()
    if meta.get("module_params", params) != params:
        raise SystemExit(f"specnet-bench: {out} was run with other module parameters "
                         f"({meta['module_params']}, now {params}): use another --out")
    meta["module_params"] = params
    done = {r["key"] for r in records}
    todo = [c for c in cases if case_key(c) not in done and c["cc"] not in skipped and
            not any(f.format(cc=c["cc"]) in skipped for f in (c["flows"] or [])) and
            not (no_redopt and uses_redopt(c))]
    max_paths = a.max_paths
    bs = batches(todo, max_paths, a.rate_budget)
    n_skipped = sum(case_key(c) not in done for c in cases) - len(todo)
    print(expected_line(name, bs, len(cases), len(todo), n_skipped), flush=True)
    if todo:        # Mininet's leftovers of an earlier run (~10 s under TCG)
        subprocess.run("mn -c >/dev/null 2>&1", shell=True)

    t_start, n_done, total = time.time(), 0, len(todo)
    i = 0
    while i < len(bs):
        b = bs[i]
        if len(b) > max_paths:                 # the CPU check halved it
            bs[i:i + 1] = [b[:max_paths], b[max_paths:]]
            b = bs[i]
        el = time.time() - t_start
        eta = (el / n_done * (total - n_done)) if n_done else None
        print(f"[{n_done}/{total}] {b[0]['scenario']}: {len(b)} case(s) "
              f"({', '.join(sorted({c['cc'] for c in b}))}; {b[0]['seconds']}s flows); "
              f"elapsed {fmt_dur(el)}, ETA {fmt_dur(eta) if eta is not None else '?'}",
              flush=True)
        recs, busy = run_batch(b, lambda m: print("  " + m, flush=True))
        if busy > 0.9 and len(b) > 1:
            max_paths = max(1, len(b) // 2)
            for r in recs:
                r["cpu_saturated"] = True
            print(f"  guest CPU {busy:.0%} busy: at most {max_paths} cases side by side "
                  "from now on", flush=True)
        records.extend(recs)
        n_done += len(b)
        save(out, meta, records)
        i += 1
    print(f"[{n_done}/{total}] flows done ({fmt_dur(time.time() - t_start)}); summary and plots",
          flush=True)
    save(out, meta, records)        # also when nothing ran (all skipped or done)
    validate(prev)
    text = summary(meta, records)
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write(text)
    pngs = [os.path.join(out, f) for f in sorted(os.listdir(out)) if f.endswith(".png")]
    if a.no_plots:
        pngs = []
    elif todo or not pngs:
        pngs = plots(out, records)
    else:
        print("nothing new to run: the plots are up to date", flush=True)
    print("\n" + text)
    print(f"results: {out}/results.json, summary.md, " +
          ", ".join(os.path.basename(p) for p in pngs) +
          f" ({fmt_dur(time.time() - t_start)})")
    bad = [r for r in records if failed(r)]
    if bad:
        print(f"specnet-bench: FAILED: {len(bad)} flow(s) (counted as 0 in every figure)",
              flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

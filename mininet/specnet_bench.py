#!/usr/bin/env python3
"""specnet-bench: scenario x congestion control x parameter x repetition on
the Mininet topologies of mininet/topos.py, with iperf3 --json per flow.
Runs in the VM as root (make bench / make demo boot it); see README.

    specnet-bench --suite tiny|demo|full [--out DIR] [--seconds S] [--reps N]
    specnet-bench --scenario geo --param 1,5,20 --ccs spec,reno,bbr [...]

Cases of one scenario run side by side on independent paths of one
Mininet (satellite, geo, hybrid) as long as their emulated rates fit the
rate budget and the guest CPU keeps up (it is sampled during every batch;
above 90% busy the next batches get half the paths, and the records say
so). dumbbell and onoff cases share one bottleneck by design: one case at a
time, its flows together.

Output <out>/results.json (meta + one record per flow and case),
summary.md (goodput as a ratio to reno, to the best baseline and to the
physical ceiling C(1-PER); Jain for multi-flow cases; the paper's figure
beside ours), and PNG plots (goodput vs loss per algorithm, cwnd and queue
over time). results.json is rewritten after every batch: a run stopped
half way resumes with the same --out, skipping the cases it has.
A congestion control whose module is missing is skipped with a message.
"""
import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import specnet_lab as lab  # noqa: E402

BASELINES = ["reno", "cubic", "bbr", "westwood", "hybla"]
OURS = {"spec": "tcp_spec", "cpecn": "tcp_cpecn", "wecn": "tcp_cpecn", "tp": "tcp_tp"}
ECN_CCS = ("spec", "cpecn", "wecn")     # TCP_CONG_NEEDS_ECN: ECN on their connections
SCHEMA = os.path.join(HERE, "results.schema.json")

# name -> topology class name, the swept parameter, its unit, whether the
# senders ask for ECN, whether cases can run side by side, and the flows of
# a case when not one (dumbbell: the parameter)
SCENARIOS = {
    "satellite": dict(topo="SatelliteTopo", param="ber", unit="BER", ecn=True, side=True,
                      log=True),
    "geo": dict(topo="GeoTopo", param="loss", unit="corruption %", ecn=False, side=True,
                log=True),
    "hybrid": dict(topo="HybridTopo", param="bad", unit="bad-state loss %", ecn=True,
                   side=True, log=False),
    "dumbbell": dict(topo="DumbbellTopo", param="flows", unit="flows", ecn=True, side=True,
                     log=False),
    "onoff": dict(topo="OnoffTopo", param="sources", unit="on/off sources", ecn=False,
                  side=False, log=False),
    "red": dict(topo="RedTopo", param="max_th", unit="RED max_th (packets)", ecn=True,
                side=True, log=False, flows=2),
}
# opts that are the runner's, not the topology's, and the scenarios that
# take them: the competing flow's cc, tcp_cpecn's base algorithm
RUNNER_OPTS = {"vs": ("dumbbell",), "base": ("hybrid",)}
ONOFF_SIZE = 1200       # UDP payload of the onoff background (+ 28 bytes UDP/IP)

PAPER = {
    "satellite": "SpecTCP paper (ns-2): ~5x the goodput of Reno+ECN at BER 5e-5; from BER "
                 "1e-5 to 5e-5 Reno loses 77% of its goodput, SpecTCP 12% (on Linux the "
                 "ceiling bounds the ratio: spec >= 0.9 ceil, about 3.7x reno, is the target)",
    "geo": "BBR (published): ~0.7 of the ceiling up to 10% loss, collapses near 20%; "
           "target: spec >= 0.9 ceil up to 10%, >= 0.7 at 20%",
    "hybrid": "CPECN paper (ns-2): over WECN with the Reno base at 0.5% loss up to 1.18x "
              "(marking at 1/4 of the buffer, mark 7) and 1.72x (3/4, mark 22); with the "
              "Westwood base +17-24% at 1% loss",
    "dumbbell": "CPECN paper: Jain ~0.99 with 10 flows; TCP-TP paper: 0.98-0.99; target: "
                "Jain >= 0.95 among 10 flows of one algorithm, and against cubic on a "
                "loss-free ECN bottleneck our share <= 60%",
    "onoff": "TCP-TP paper: up to 75% lower packet loss ratio than NewReno, prediction error "
             "below 15% with 10+ background flows",
    "red": "RED model paper (ns-2): at the model's max_th (8, about half of 3 min_th = 15) "
           "zero congestion drops, drops at max_th 7; target: zero congestion drops and an "
           "average queueing delay <= 0.6x classic RED's at equal goodput (within 5%)",
}


def red_model_max():
    import topos
    return topos.RedTopo.model()["max_th"]

def suite(name, seconds=None, reps=None):
    """The runs of a suite: (scenario, fixed opts, param values, ccs, seconds,
    reps, flow ccs). flow ccs: None = one flow of the case's cc; a list of
    cc templates per flow ("{cc}" = the case's cc)."""
    ours_sat = ["spec"] + BASELINES
    if name == "tiny":
        # every scenario once; two paths side by side only on geo (the
        # cheapest to build: under TCG a satellite path takes 15 s)
        s, r = seconds or 4, reps or 1
        return [
            ("satellite", {}, [1e-5], ["spec"], max(s, 8), r, None),
            ("geo", {}, [1.0], ["reno", "cubic"], s, r, None),
            ("hybrid", {"mark": 15}, [1.0], ["cpecn"], s, r, None),
            ("dumbbell", {}, [2], ["reno"], s, r, None),
            ("onoff", {}, [4], ["tp"], s, r, None),
            ("red", {}, [red_model_max()], ["reno"], s, r, None),
        ]
    if name == "demo":
        s, r = seconds or 60, reps or 1
        return [("satellite", {}, [1e-6, 1e-5, 5e-5], ours_sat, s, r, None),
                ("geo", {}, [1, 10, 20], ["spec"] + BASELINES, s, r, None)]
    if name == "full":
        s, r = seconds or 60, reps or 1
        return [
            ("satellite", {}, [1e-7, 1e-6, 1e-5, 5e-5, 1.2e-4], ours_sat, 2 * s, r, None),
            ("geo", {}, [0.1, 1, 5, 10, 20], ["spec"] + BASELINES, s, r, None),
            *[("hybrid", {"mark": k}, [0.1, 0.5, 1, 2], ["cpecn", "wecn", "reno", "westwood"],
               s, r, None) for k in (7, 15, 22)],
            *[("hybrid", {"mark": k, "base": "westwood"}, [0.1, 0.5, 1, 2], ["cpecn", "wecn"],
               s, r, None) for k in (7, 15, 22)],
            ("red", {}, [red_model_max() - 1, red_model_max(), 15], ["reno", "spec"], s, r,
             None),
            ("dumbbell", {}, [10], ["spec", "cpecn", "tp", "reno", "cubic"], s, r, None),
            ("dumbbell", {"vs": "cubic"}, [2], ["spec", "cpecn", "tp"], s, r,
             ["{cc}", "cubic"]),
            ("onoff", {}, [10, 30, 100], ["tp", "reno"], s, r, None),
        ]
    raise SystemExit(f"unknown suite '{name}' (tiny, demo, full)")


def case_key(c):
    return f"{c['scenario']}|{json.dumps(c['opts'], sort_keys=True)}|{c['value']}|{c['cc']}|{c['rep']}"


def expand(runs):
    cases = []
    for scen, opts, values, ccs, seconds, reps, flows in runs:
        for v in values:
            for cc in ccs:
                for rep in range(1, reps + 1):
                    cases.append(dict(scenario=scen, opts=opts, value=v, cc=cc, rep=rep,
                                      seconds=seconds, flows=flows))
    return cases


# ---- measurements --------------------------------------------------------

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


def flow_record(rep_json):
    """goodput, retransmits, RTT and the cwnd/RTT series of an iperf3 report."""
    rec = {}
    try:
        rep = json.loads(rep_json)
    except ValueError:
        return dict(error="iperf3: no JSON: " + rep_json.strip()[-300:])
    if "error" in rep and "end" not in rep:
        return dict(error=f"iperf3: {rep['error']}")
    try:
        rec["goodput_bps"] = lab.goodput_bps(rep)
        rec["retransmits"] = lab.retransmits(rep)
        snd = rep["end"]["streams"][0]["sender"]
        rec["bytes_sent"] = snd.get("bytes", 0)
        rec["mean_rtt_ms"] = snd.get("mean_rtt", 0) / 1000
        rec["series"] = [[round(iv["sum"]["end"], 2), iv["streams"][0].get("snd_cwnd", 0),
                          iv["streams"][0].get("rtt", 0) / 1000,
                          iv["streams"][0]["bits_per_second"]]
                         for iv in rep.get("intervals", [])]
    except (KeyError, IndexError, TypeError) as e:
        rec["error"] = f"iperf3 report: {e!r}: {rep.get('error', '')}"
    return rec


def jain(xs):
    xs = [x for x in xs if x is not None]
    if not xs or not any(xs):
        return None
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs))


# ---- running -------------------------------------------------------------

def topo_opts(scen):
    """The options @scen's topology takes: the keywords of its chain_links()
    (or of build(), for satellite), and its extra_opts, but the swept
    parameter and what the runner sets."""
    import inspect
    import topos
    cls = getattr(topos, SCENARIOS[scen]["topo"])
    fn = cls.chain_links if hasattr(cls, "chain_links") else cls.build
    names = {q.name for q in inspect.signature(fn).parameters.values()
             if q.kind == q.POSITIONAL_OR_KEYWORD}
    return ((names | set(getattr(cls, "extra_opts", ()))) -
            {"self", "paths", "per_path", "mss", SCENARIOS[scen]["param"]})


def topo_for(cases):
    import topos
    scen = cases[0]["scenario"]
    cls = getattr(topos, SCENARIOS[scen]["topo"])
    param = SCENARIOS[scen]["param"]
    opts = {k: v for k, v in cases[0]["opts"].items() if k not in RUNNER_OPTS}
    per_path = [{param: c["value"]} if param != "flows" else {} for c in cases]
    if scen == "satellite":
        opts["mss"] = cls.mss_for(cases[0]["value"])
    return cls(paths=len(cases), per_path=per_path, **opts)


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
    records, procs = [], []
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
            snd.cmd(f"sysctl -qw {lab.sender_ecn_sysctls(ecn)} "
                    "net.ipv4.tcp_no_metrics_save=1")
            if c["flows"]:
                fccs = [f.format(cc=c["cc"]) for f in c["flows"]]
            elif scen == "dumbbell":
                fccs = [c["cc"]] * int(c["value"])
            else:
                fccs = [c["cc"]] * SCENARIOS[scen].get("flows", 1)
            flows = [(fc, 5201 + i) for i, fc in enumerate(fccs)]
            for _, port in flows:
                rcv.cmd(f"iperf3 -s -1 -D -p {port} --logfile /tmp/iperf3-{rcv.name}-{port}.log")
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
        time.sleep(1)
        for c, p, _ in plan:
            out = topo.sender(net, p).cmd(f"ping -c 1 -W 5 {topo.dst_ip(p)}")
            if " 0% packet loss" not in out and scen != "geo":
                log(f"path {p} ({c['cc']} {c['value']}): no ping reply before the flows")
        for c, p, _ in plan:
            node, intf = topo.bottleneck(net, p)
            sampler.add(p, node.pid, str(intf))
        log(f"{len(cases)} path(s) built in {time.time() - tb:.0f}s")
        c0 = cpu_sample()
        sampler.start()
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
            for fc, port in flows:
                procs.append(((p, fc, port), topo.sender(net, p).popen(
                    ["iperf3", "-c", topo.dst_ip(p), "-p", str(port), "-t", str(seconds),
                     "-C", fc, "-J", "-i", "1", "--connect-timeout", "10000"],
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)))
        outs = {}
        for tag, pr in procs:
            out, err = pr.communicate(timeout=seconds * 3 + 180)
            if tag:
                outs[tag] = (out, err)
        busy = cpu_busy(c0, cpu_sample())
        series = sampler.stop()
        log(f"flows done, guest CPU {busy:.0%} busy")
        for c, p, flows in plan:
            node, intf = topo.bottleneck(net, p)
            rcv = topo.receiver(net, p)
            qs = series[p]
            shared = dict(
                queue=lab.node_qdisc_stats(node, intf), queue_series=qs,
                **avg_queue(qs, seconds, topo.capacity_bps(p), frame_bytes(topo)),
                csum_errors=lab.node_nstat(rcv, "TcpInCsumErrors", "IpExtInCsumErrors"),
                ceiling_bps=topo.ceiling_bps(p), per=topo.per(p), rtt_ms=topo.rtt_ms(p),
                guest_cpu_busy=round(busy, 3))
            if (p, "onoff") in outs:
                shared.update(background(outs[(p, "onoff")][0], seconds + 2))
            counters = {}
            for fc in {fc for fc, _ in flows}:
                if fc in OURS:
                    counters[fc] = lab.parse_counters(
                        topo.sender(net, p).cmd(f"cat /proc/net/tcp_{fc} 2>/dev/null"))
            frecs = []
            for i, (fc, port) in enumerate(flows):
                out, err = outs[(p, fc, port)]
                r = dict(scenario=scen, opts=c["opts"], param=SCENARIOS[scen]["param"],
                         value=c["value"], cc=c["cc"], flow_cc=fc, flow=i, rep=c["rep"],
                         seconds=seconds, key=case_key(c))
                r.update(flow_record(out))
                if "error" in r and err.strip():
                    r["error"] += " " + err.strip()[-200:]
                frecs.append(r)
            j = jain([r.get("goodput_bps") for r in frecs]) if len(frecs) > 1 else None
            for r in frecs:
                r.update(shared)
                r["counters"] = counters.get(r["flow_cc"], {})
                if r["flow_cc"] == "tp":
                    r["tp_capacity_kbps"] = tp_kbps
                if j is not None:
                    r["jain"] = j
                    tot = sum(x.get("goodput_bps", 0) for x in frecs)
                    r["share"] = r.get("goodput_bps", 0) / tot if tot else None
            records.extend(frecs)
        return records, busy
    finally:
        sampler.stop()
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


def background(report, seconds):
    """Offered and sent load of mininet/onoff.py's --json report."""
    try:
        b = json.loads(report)
    except ValueError:
        return dict(background_error=report.strip()[-200:])
    return dict(background_offered_bps=round(b["mean_bps"]),
                background_sent_bps=round(b["packets_sent"] * 8 * (ONOFF_SIZE + 28) / seconds))


def frame_bytes(topo):
    """Ethernet frame of a full-sized packet on @topo's paths."""
    return topo.frame() + 14


def avg_queue(series, seconds, capacity_bps, frame):
    """Mean bottleneck queue (packets) over the last 5/6 of the flows (the
    first sixth is slow start) and the queueing delay it makes at full-sized
    frames."""
    qs = [s[2] for s in series if seconds / 6 <= s[0] <= seconds]
    if not qs:
        return {}
    q = sum(qs) / len(qs)
    return dict(avg_queue_pkts=round(q, 2),
                avg_queue_delay_ms=round(q * frame * 8 / capacity_bps * 1000, 1))


def batches(cases, max_paths, rate_budget_bps):
    """Cases in run order, grouped: side by side where the scenario allows,
    within @max_paths and the rate budget; satellite by MSS."""
    import topos
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
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def summary(meta, records):
    lines = [f"# specnet-bench {meta['suite']} ({meta['date']}, kernel {meta['kernel']}, "
             f"commit {meta['commit']})", ""]
    if meta.get("skipped"):
        lines += ["Skipped (module missing): " + ", ".join(meta["skipped"]), ""]
    st = case_stats(records)
    groups = {}
    for r in records:
        groups.setdefault((r["scenario"], json.dumps(r["opts"], sort_keys=True)), []).append(r)
    for (scen, opts), rs in groups.items():
        sc = SCENARIOS[scen]
        ccs = list(dict.fromkeys(r["cc"] for r in rs))
        values = sorted({r["value"] for r in rs})
        o = json.loads(opts)
        lines += [f"## {scen}" + (f" ({', '.join(f'{k} {v}' for k, v in o.items())})" if o else ""),
                  "", f"Paper: {PAPER[scen]}.", ""]
        multi = any("jain" in r for r in rs)
        head = f"| {sc['unit']} | ceiling Mbit/s |" + "".join(f" {cc} |" for cc in ccs)
        lines += [head, "|---|---|" + "---|" * len(ccs)]
        for v in values:
            at = [r for r in rs if r["value"] == v]
            ceil = at[0]["ceiling_bps"]
            g = {cc: st.get((scen, opts, v, cc), {}).get("goodput") for cc in ccs}
            base = [g[b] for b in BASELINES if g.get(b)]
            best = max(base) if base else None
            cells = []
            for cc in ccs:
                x = g[cc]
                if x is None:
                    cells.append(" failed |")
                    continue
                parts = [f"{x / 1e6:.3f}"]
                if g.get("reno"):
                    parts.append(f"{x / g['reno']:.2f}x reno")
                if best and cc not in BASELINES:
                    parts.append(f"{x / best:.2f}x best")
                parts.append(f"{x / ceil:.2f} ceil")
                if multi:
                    jv = mean([r.get("jain") for r in at if r["cc"] == cc])
                    sh_ = mean([r.get("share") for r in at if r["cc"] == cc and r["flow"] == 0])
                    if jv is not None:
                        parts.append(f"Jain {jv:.2f}")
                    if o.get("vs") and sh_ is not None:
                        parts.append(f"share {sh_:.2f}")
                if scen == "red":
                    parts += red_cells([r for r in at if r["cc"] == cc])
                if scen == "geo":
                    # a 3000-packet tail-drop buffer and no ECN: what a
                    # window that ignores losses costs in delay
                    d = st.get((scen, opts, v, cc), {}).get("delay_ms")
                    if d is not None:
                        parts.append(f"queue {d:.0f} ms")
                rtx = mean([r.get("retransmits") for r in at if r["cc"] == cc])
                if scen == "onoff" and rtx is not None:
                    sent = mean([r.get("bytes_sent") for r in at if r["cc"] == cc]) or 1
                    parts.append(f"rtx {rtx * 1448 / sent:.4f}")
                    bg = mean([r.get("background_sent_bps") for r in at if r["cc"] == cc])
                    if bg is not None:
                        parts.append(f"background {bg / 1e6:.1f} Mbit/s sent")
                cells.append(" " + ", ".join(parts) + " |")
            label = f"{v:g}"
            if scen == "red":
                label += " (redopt)" if at[0]["queue"].get("kind") == "redopt" else " (red)"
            lines.append(f"| {label} | {ceil / 1e6:.3f} |" + "".join(cells))
        lines.append("")
    tl = targets(records)
    if tl:
        lines += ["## Targets", ""] + tl + [""]
    lines += ["Cells: goodput Mbit/s (mean over repetitions), its ratio to reno, to the best "
              "baseline (reno, cubic, bbr, westwood, hybla) for ours, and to the physical "
              "ceiling C(1-PER); Jain over a case's flows; share of the first flow against "
              "cubic; rtx: retransmitted bytes / bytes sent; red: CE marks, congestion drops "
              "(all the bottleneck queue's drops: early/forced/overflow for redopt), average "
              "queue in packets and its queueing delay, after the first sixth of the flows; "
              "geo: the bottleneck's average queueing delay.",
              ""]
    return "\n".join(lines)


def case_stats(records):
    """(scenario, opts json, value, cc) -> dict(goodput: mean over reps of
    the case's flows of its own cc, ceil, jain, share, drops, delay_ms)."""
    idx = {}
    for r in records:
        idx.setdefault((r["scenario"], json.dumps(r["opts"], sort_keys=True), r["value"],
                        r["cc"]), []).append(r)
    out = {}
    for k, rs in idx.items():
        per_rep = {}
        for r in rs:
            if r["flow_cc"] == r["cc"] and "goodput_bps" in r:
                per_rep[r["rep"]] = per_rep.get(r["rep"], 0) + r["goodput_bps"]
        firsts = [r for r in rs if r["flow"] == 0]
        out[k] = dict(goodput=mean(per_rep.values()), ceil=rs[0]["ceiling_bps"],
                      jain=mean([r.get("jain") for r in firsts]),
                      share=mean([r.get("share") for r in firsts]),
                      drops=mean([r["queue"].get("drops") for r in firsts]),
                      kind=rs[0]["queue"].get("kind"),
                      delay_ms=mean([r.get("avg_queue_delay_ms") for r in firsts]))
    return out


def targets(records):
    """The issue's targets, each with the measured figure (figures, not
    assertions: a run that misses one still succeeds)."""
    st = case_stats(records)
    lines = []

    def line(what, got, ok):
        lines.append(f"- {what}: {got} -> {'met' if ok else 'NOT met'}")

    def get(scen, value, cc, opts="{}"):
        return st.get((scen, opts, value, cc))

    sat = sorted({k[2] for k in st if k[0] == "satellite"})
    x = get("satellite", 5e-5, "spec")
    if x and x["goodput"] is not None:
        reno = get("satellite", 5e-5, "reno")
        rr = f", {x['goodput'] / reno['goodput']:.2f}x reno" if reno and reno["goodput"] else ""
        line("satellite BER 5e-5: spec >= 0.9 of the ceiling",
             f"{x['goodput'] / x['ceil']:.2f}{rr}", x["goodput"] >= 0.9 * x["ceil"])
    beaten = []
    for v in sat:
        x = get("satellite", v, "spec")
        if not x or x["goodput"] is None:
            continue
        for b in BASELINES:
            y = get("satellite", v, b)
            # within 3%: the spread of equal algorithms in one run here
            if y and y["goodput"] and y["goodput"] > 1.03 * x["goodput"]:
                beaten.append(f"{b} at {v:g} ({y['goodput'] / x['goodput']:.2f}x spec)")
    if any(get("satellite", v, "spec") for v in sat):
        line("satellite: spec >= every baseline at every BER (within 3%)",
             "above spec: " + ", ".join(beaten) if beaten else "yes", not beaten)
    for v in sorted({k[2] for k in st if k[0] == "geo"}):
        x = get("geo", v, "spec")
        if x and x["goodput"] is not None:
            want = 0.9 if v <= 10 else 0.7
            q = f" (average queue {x['delay_ms']:.0f} ms)" if x["delay_ms"] is not None else ""
            line(f"geo {v:g}% loss: spec >= {want} of the ceiling",
                 f"{x['goodput'] / x['ceil']:.2f}{q}", x["goodput"] >= want * x["ceil"])
    for (scen, opts, v, cc), x in sorted(st.items(), key=str):
        if scen == "dumbbell" and opts == "{}" and v >= 10 and x["jain"] is not None:
            line(f"dumbbell, {v:g} {cc} flows: Jain >= 0.95", f"{x['jain']:.3f}",
                 x["jain"] >= 0.95)
        if scen == "dumbbell" and '"vs"' in opts and x["share"] is not None:
            line(f"dumbbell, {cc} against cubic: {cc}'s share <= 60%",
                 f"{x['share'] * 100:.0f}%", x["share"] <= 0.6)
    for cc in sorted({k[3] for k in st if k[0] == "red"}):
        model = [x for k, x in st.items() if k[0] == "red" and k[3] == cc and
                 x["kind"] == "redopt"]
        classic = get("red", 15, cc)
        if not model:
            continue
        m = model[0]
        line(f"red, {cc}: zero congestion drops at the model's max_th (redopt)",
             f"{m['drops']:.0f} drops", m["drops"] == 0)
        if classic and classic["delay_ms"] and m["delay_ms"] is not None and \
                classic["goodput"] and m["goodput"] is not None:
            dr = m["delay_ms"] / classic["delay_ms"]
            gr = m["goodput"] / classic["goodput"]
            line(f"red, {cc}: redopt's queueing delay <= 0.6x classic RED's at equal goodput",
                 f"{m['delay_ms']:.0f} vs {classic['delay_ms']:.0f} ms = {dr:.2f}x, goodput "
                 f"{gr:.2f}x", dr <= 0.6 and abs(gr - 1) <= 0.05)
    return lines


def red_cells(rs):
    """marks, drops and average queue of one case's bottleneck (one path:
    every flow record of the case carries the same queue stats)."""
    per_rep = {r["rep"]: r for r in rs}.values()
    marks = mean([r["queue"].get("marked") for r in per_rep])
    drops = mean([r["queue"].get("drops") for r in per_rep])
    q = mean([r.get("avg_queue_pkts") for r in per_rep])
    d = mean([r.get("avg_queue_delay_ms") for r in per_rep])
    out = [f"marks {marks:.0f}" if marks is not None else "marks ?",
           f"drops {drops:.0f}" if drops is not None else "drops ?"]
    kinds = [r["queue"] for r in per_rep if r["queue"].get("kind") == "redopt"]
    if kinds:
        out[-1] += " ({}/{}/{})".format(*(round(mean([k.get(x, 0) for k in kinds]))
                                         for x in ("early", "forced", "overflow")))
    if q is not None:
        out.append(f"avg queue {q:.1f} pkts = {d:.0f} ms")
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
    for n, ((scen, opts), rs) in enumerate(groups.items()):
        sc = SCENARIOS[scen]
        tag = scen + ("-" + re.sub(r"[^a-z0-9]+", "", opts.lower()) if opts != "{}" else "")
        fig, ax = plt.subplots(1, 3, figsize=(16, 4.5))
        for cc in dict.fromkeys(r["cc"] for r in rs):
            pts = {}
            for r in rs:
                if r["cc"] == cc and r["flow_cc"] == cc and "goodput_bps" in r:
                    pts.setdefault(r["value"], []).append(r["goodput_bps"] / 1e6)
            xs = sorted(pts)
            ax[0].plot(xs, [mean(pts[x]) for x in xs], marker="o", label=cc)
            first = next((r for r in rs if r["cc"] == cc and r.get("series")), None)
            if first:
                ax[1].plot([s[0] for s in first["series"]], [s[1] / 1000 for s in first["series"]],
                           label=f"{cc} ({sc['param']} {first['value']:g})")
            q = next((r for r in rs if r["cc"] == cc and r.get("queue_series")), None)
            if q:
                ax[2].plot([s[0] for s in q["queue_series"]], [s[2] for s in q["queue_series"]],
                           label=f"{cc} ({sc['param']} {q['value']:g})")
        ceil = sorted({(r["value"], r["ceiling_bps"] / 1e6) for r in rs})
        ax[0].plot([c[0] for c in ceil], [c[1] for c in ceil], "k--", label="ceiling")
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


def main(argv=None):
    ap = argparse.ArgumentParser(prog="specnet-bench", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", default=None, help="tiny, demo or full")
    ap.add_argument("--scenario", choices=sorted(SCENARIOS), help="one scenario instead")
    ap.add_argument("--param", help="its parameter values, comma separated")
    ap.add_argument("--ccs", help="congestion controls, comma separated")
    ap.add_argument("--seconds", type=int, help="flow duration (suite default otherwise)")
    ap.add_argument("--reps", type=int, help="repetitions")
    ap.add_argument("--opt", action="append", default=[], metavar="KEY=VALUE",
                    help="with --scenario: a topology option (e.g. geo's step=1000, "
                         "hostbuf_mb=32; see mininet/topos.py), or dumbbell's vs=CC (one "
                         "flow of each case's cc against one of CC), hybrid's base=reno|"
                         "westwood (cpecn's); repeatable")
    ap.add_argument("--out", help="output directory (resumes if it has results.json)")
    ap.add_argument("--max-paths", type=int, default=12, help="cases side by side, at most")
    ap.add_argument("--no-plots", action="store_true",
                    help="results.json and summary.md only (no matplotlib)")
    ap.add_argument("--rate-budget", type=float, default=40e6,
                    help="sum of side-by-side bottleneck rates, bit/s")
    a = ap.parse_args(argv)
    import topos
    if a.scenario:
        if not (a.param and a.ccs):
            raise SystemExit("specnet-bench: --scenario needs --param and --ccs")
        try:
            values = [float(v) if SCENARIOS[a.scenario]["param"] in ("ber", "loss", "bad")
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
        print(f"specnet-bench: resuming {out}: {len({r['key'] for r in records})} cases done")
    meta = meta or dict(suite=name, date=stamp, kernel=lab.kernel_release(),
                        commit=lab.git_commit(), skipped=[])

    cases = expand(runs)
    wanted = {c["cc"] for c in cases} | {f.format(cc=c["cc"]) for c in cases
                                          for f in (c["flows"] or [])}
    skipped = sorted(cc for cc in wanted if not lab.ensure_cc(cc))
    for cc in skipped:
        print(f"specnet-bench: skipping {cc}: congestion control not available "
              f"(module {OURS.get(cc, 'tcp_' + cc)} missing)", flush=True)
    no_redopt = any(c["scenario"] == "red" for c in cases) and not ensure_redopt()
    if no_redopt:
        print(f"specnet-bench: skipping red at max_th {red_model_max()}: qdisc redopt not "
              "available (module sch_redopt missing)", flush=True)
        skipped.append("redopt")
    meta["skipped"] = sorted(set(meta.get("skipped", [])) | set(skipped))
    done = {r["key"] for r in records}
    todo = [c for c in cases if case_key(c) not in done and c["cc"] not in skipped and
            not any(f.format(cc=c["cc"]) in skipped for f in (c["flows"] or [])) and
            not (no_redopt and c["scenario"] == "red" and c["value"] == red_model_max())]
    if todo:        # Mininet's leftovers of an earlier run (~10 s under TCG)
        subprocess.run("mn -c >/dev/null 2>&1", shell=True)

    max_paths = a.max_paths
    t_start, n_done, total = time.time(), 0, len(todo)
    bs = batches(todo, max_paths, a.rate_budget)
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
    return 1 if any("error" in r for r in records) else 0


if __name__ == "__main__":
    sys.exit(main())

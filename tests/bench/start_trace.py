#!/usr/bin/env python3
"""Benchmark probe: how a flow starts on a long path. One flow at a time
over a single netem hop (--rate, --rtt, a 3000-packet queue, --loss %
corruption), traced by tcp_probe: per round trip (a bin of --rtt), the
largest cwnd, the least ssthresh and the packets snd_una moved, then the
flow's goodput over --seconds, and tcp_spec's counters for a spec flow.
--gw fq_codel|cake puts that gateway, built as the geo-aqm scenario
builds it (ECN; fq_codel's interval and CAKE's rtt the path's RTT, or
--interval; a limit of four BDPs), at the --rate bottleneck, under HTB,
with the delay and the corruption on a hop after it; --gw fifo a
tail-drop FIFO of one BDP at that RTT (the leo scenario's FIFO: --interval
60), which never marks.

--handover T:RTT:BURST (with --gw) traces a LEO satellite handover as the
leo scenario runs one: T s into the flow the data path loses everything
for BURST ms, then the RTT becomes RTT ms. The delay then sits on the
ACK path's netem, changed in place, so that ACKs in flight keep theirs;
the corruption stays on the data path. The summary adds the time of the
handover; --bin MS sets the width of a "round" of the per-round lines (default
the RTT), e.g. 500 for a 12 s flow on a 33 ms path.

Runs inside the VM (root; tcp_spec built for the running kernel and
loaded, as the integration tests load it):

    python3 tests/vm/vm.py --kernel <release> -- sh -c \\
      'insmod build/<release>/src/tcp_spec/tcp_spec.ko; \\
       .venv/bin/python tests/bench/start_trace.py --loss 1 --ccs spec,cubic,bbr'

Both hosts' TCP buffers are the bench's (--buffers, tcp_rmem and tcp_wmem;
Mininet's 16 MB maximum), so that a round's receive window is the one a
bench flow meets.

--param NAME=VALUE sets a tcp_spec parameter for the run (e.g.
qd_enable=0), put back afterwards. --loss takes a list (0,1). --out DIR
writes DIR/results.json (the records, with the run's date, kernel, commit
and arguments) and DIR/summary.md (--summarize DIR writes it again from
DIR/results.json); `make start-trace` runs it in the VM
and publishes DIR under docs/results/start-<name>/, where the figures
docs/algorithms.md quotes from these traces live.
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
sys.path.insert(0, os.path.join(HERE, "..", ".."))

from specnet_bench import specnet_lab as lab  # noqa: E402
from specnet_bench import topos, units  # noqa: E402
from specnet_bench.cli import spread  # noqa: E402
from cwnd import INFINITE_SSTHRESH, rounds, run_flow  # noqa: E402


GATEWAYS = ("fq_codel", "cake", "fifo")
# the bench's hosts' tcp_rmem and tcp_wmem: Mininet raises both to this
# (mininet.util.fixLimits()), and every namespace made after it inherits them
BENCH_BUFFERS = "10240 87380 16777216"


def gateway_tc(gw, rate, rtt_ms, interval_ms=None):
    """tc words of gateway @gw as the geo-aqm scenario builds it
    (specnet_bench.topos.gateway(): ECN, fq_codel's interval and CAKE's rtt
    @interval_ms, by default the path's RTT, a limit of four BDPs in
    1514-byte frames), or as the leo scenario builds its FIFO: one BDP at
    @interval_ms (tail drop, no ECN)."""
    bdp_ms = interval_ms if gw == "fifo" and interval_ms else rtt_ms
    bdp = units.rate_bps(rate) * bdp_ms / 1e3 / 8 / (topos.MTU + topos.ETH_HDR)
    q, limit = topos.gateway("start-trace", gw, bdp, interval_ms or rtt_ms, 1, GATEWAYS)
    return topos.queue_tc(q, limit, rate)


def summary(meta, recs):
    """The markdown of a run: per case (gateway, loss, cc) the goodput of
    each repetition and their median [min-max], then each flow's largest
    window per round trip, the round and value of its first ssthresh, and
    tcp_spec's non-zero counters."""
    a = meta["args"]
    ho = parse_handover(a.get("handover"))
    if a["gw"] == "fifo":
        gw = (f"a tail-drop FIFO of one BDP at {a.get('interval') or a['rtt']} ms "
              f"({gateway_tc('fifo', a['rate'], a['rtt'], a.get('interval'))})")
    elif a["gw"]:
        interval = f", interval {a['interval']} ms" if a.get("interval") else ""
        gw = f"{a['gw']} (ECN{interval})"
    if ho:
        path = (f"{gw} under HTB at {a['rate']}, then the corruption on a netem hop "
                f"after it and {a['rtt']:g} ms on the ACK path's; {ho[0]:g} s into each "
                f"flow a handover: everything lost for {ho[2]} ms, then the RTT {ho[1]:g} ms")
    elif a["gw"]:
        path = (f"{gw} under HTB at {a['rate']}, then {a['rtt']:g} ms and the "
                f"corruption on a netem hop after it")
    else:
        path = (f"one netem hop: {a['rate']}, {a['rtt']:g} ms, a 3000-packet queue and the "
                f"corruption (a corrupted packet still takes its time on the link)")
    bufs = (f"Both hosts' tcp_rmem and tcp_wmem: {a['buffers']}" if a.get("buffers") else
            "The hosts keep the kernel's default buffers (tcp_rmem's maximum 6 MB, "
            "tcp_wmem's 4 MB)")
    out = [f"# start-trace {meta['name']} ({meta['date']}, kernel {meta['kernel']}, "
           f"commit {meta['commit']})", "",
           f"`tests/bench/start_trace.py {meta['argv']}`", "",
           f"Path: {path}. Each flow alone, {a['seconds']} s, traced by tcp:tcp_probe; "
           f"a round is a {a.get('bin') or a['rtt']:g} ms bin from the flow's first event. Module "
           f"parameters set: {', '.join(a['param']) or 'none (defaults)'}. {bufs}.", "",
           "| gateway | loss % | cc | goodput Mbit/s per repetition | median [min-max] |",
           "|---|---|---|---|---|"]
    cases = {}
    for r in recs:
        cases.setdefault((r["gw"] or "-", r["loss"], r["cc"]), []).append(r)
    for (g, loss, cc), rs in cases.items():
        mb = [r["goodput_bps"] / 1e6 for r in rs]
        out.append(f"| {g} | {loss:g} | {cc} | {', '.join(f'{x:.2f}' for x in mb)} | "
                   f"{spread(mb).fmt()} |")
    out += ["", "Largest cwnd per round (packets), and the least (a cut shows "
            "there); `ssthresh` the first one set and its round; the packets acked "
            "per round; the largest flight (snd_nxt - snd_una, packets) per round and "
            "the share of the round's ACKs that found the next segment outside the "
            "receiver's window (traces from before these were recorded lack them).", ""]
    for (g, loss, cc), rs in cases.items():
        for i, r in enumerate(rs, 1):
            first = next(((x[0], x[2]) for x in r["rounds"] if x[2] < INFINITE_SSTHRESH),
                         None)
            out.append(f"* {g}, {loss:g}%, {cc}, repetition {i}: "
                       f"{r['goodput_bps'] / 1e6:.2f} Mbit/s; ssthresh "
                       + (f"{first[1]} in round {first[0]}" if first else "never set"))
            if r.get("handover_s") is not None:
                out.append(f"  * handover at {r['handover_s']:.2f} s")
            out.append(f"  * cwnd: {', '.join(str(x[1]) for x in r['rounds'])}")
            if r["rounds"] and len(r["rounds"][0]) > 6:   # traced with the least one
                out.append(f"  * least cwnd: {', '.join(str(x[6]) for x in r['rounds'])}")
            if r["rounds"] and len(r["rounds"][0]) > 7:   # traced with the RTT
                out.append("  * largest srtt, ms: "
                           f"{', '.join(str(x[7]) for x in r['rounds'])}")
            out.append(f"  * acked: {', '.join(str(x[3]) for x in r['rounds'])}")
            if r["rounds"] and len(r["rounds"][0]) > 4:   # traced with the window
                out.append(f"  * flight: {', '.join(str(x[4]) for x in r['rounds'])}")
                out.append("  * receive-window limited, % of the round's ACKs: "
                           f"{', '.join(str(x[5]) for x in r['rounds'])}")
            if r["counters"]:
                nz = ", ".join(f"{k} {v}" for k, v in r["counters"].items() if v)
                out.append(f"  * counters: {nz or 'all 0'}")
    return "\n".join(out) + "\n"


def parse_handover(text):
    """(T s, RTT ms, burst ms) of a --handover T:RTT:BURST, None for None;
    ValueError for anything else."""
    if text is None:
        return None
    try:
        t, rtt, burst = text.split(":")
        ho = (float(t), float(rtt), int(burst))
    except ValueError:
        raise ValueError(f"T:RTT:BURST (s, ms, ms), not {text!r}") from None
    if not (0 < ho[0] and 0 < ho[1] <= 10000 and 0 <= ho[2] <= 10000):
        raise ValueError(f"T > 0 s, 0 < RTT <= 10000 ms, 0 <= BURST <= 10000 ms, "
                         f"not {text!r}")
    return ho


def write_run(out_dir, meta, recs):
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "results.json"), "w") as f:
        json.dump(dict(meta=meta, records=recs), f)
    with open(os.path.join(out_dir, "summary.md"), "w") as f:
        f.write(summary(meta, recs))


def one_flow(cc, loss, args):
    hops = ["snd", "rtr", "rcv"] if not args.gw else ["snd", "gw", "rtr", "rcv"]
    c = lab.Chain(hops)
    c.build()
    try:
        imp = f" corrupt {loss:g}%" if loss else ""
        ho = parse_handover(args.handover)
        if args.gw:
            c.tc("gw", "rtr", f"""root handle 1: htb default 1
                                  class add parent 1: classid 1:1 htb rate {args.rate}
                                  parent 1:1 {gateway_tc(args.gw, args.rate, args.rtt,
                                                         args.interval)}""")
        if ho:
            c.tc("rtr", "rcv", f"root netem limit 10000{imp}")
            c.tc("rtr", "gw", f"root netem delay {args.rtt:g}ms limit 10000")
        elif args.gw:
            c.tc("rtr", "rcv", f"root netem delay {args.rtt:g}ms limit 10000{imp}")
        else:
            c.tc("rtr", "rcv", f"root netem delay {args.rtt:g}ms rate {args.rate} "
                               f"limit 3000{imp}")
        c.ecn_sender("snd")
        for host in ("snd", "rcv"):
            for key in ("net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"):
                c.sysctl(host, key, args.buffers)
        lab.iperf3_server(c.ns("rcv"))
        at = {}

        def handover(ch):
            time.sleep(ho[0])
            at["t"] = time.monotonic()     # tcp_probe's clock (TcpProbe)
            ch.tc("rtr", "rcv", "qdisc change root netem limit 10000 loss 100%")
            time.sleep(ho[2] / 1e3)
            ch.tc("rtr", "gw", f"qdisc change root netem delay {ho[1]:g}ms limit 10000")
            ch.tc("rtr", "rcv", f"qdisc change root netem limit 10000{imp}")
        evs, rep = run_flow(c, cc, seconds=args.seconds, during=handover if ho else None)
        n = lab.counters("tcp_spec", ns=c.ns("snd")) if cc == "spec" else None
        r = dict(cc=cc, loss=loss, gw=args.gw, goodput_bps=lab.goodput_bps(rep),
                 rounds=rounds(evs, (args.bin or args.rtt) / 1000), counters=n)
        if ho:
            r["handover_s"] = round(at["t"] - evs[0]["t"], 3)
        return r
    finally:
        c.destroy()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ccs", default="spec,cubic,bbr")
    ap.add_argument("--loss", default="0", help="corruption, percent; a list: 0,1")
    ap.add_argument("--rate", default="20mbit")
    ap.add_argument("--gw", choices=GATEWAYS)
    ap.add_argument("--rtt", type=float, default=600, help="ms")
    ap.add_argument("--interval", type=int, metavar="MS",
                    help="fq_codel's interval, CAKE's rtt, the RTT of the FIFO's one BDP "
                         "(default: --rtt)")
    ap.add_argument("--handover", metavar="T:RTT:BURST",
                    help="T s in, BURST ms of total loss, then the RTT RTT ms (with --gw)")
    ap.add_argument("--bin", type=int, metavar="MS", help="a round's width (default: --rtt)")
    ap.add_argument("--seconds", type=int, default=8)
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--param", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--buffers", default=BENCH_BUFFERS, metavar="MIN DEFAULT MAX",
                    help="both hosts' tcp_rmem and tcp_wmem (default: the bench's hosts')")
    ap.add_argument("--out", metavar="DIR", help="results.json and summary.md here")
    ap.add_argument("--name", help="the run's name in summary.md (default: DIR's)")
    ap.add_argument("--summarize", metavar="DIR",
                    help="only write DIR/summary.md again from DIR/results.json")
    argv = sys.argv[1:] if argv is None else argv
    args = ap.parse_args(argv)
    if args.summarize:
        with open(os.path.join(args.summarize, "results.json")) as f:
            run = json.load(f)
        write_run(args.summarize, run["meta"], run["records"])
        return
    try:
        losses = [float(x) for x in args.loss.split(",")]
    except ValueError:
        ap.error(f"--loss: a list of percentages, not {args.loss!r}")
    if any(not 0 <= x < 100 for x in losses):
        ap.error(f"--loss: each in [0, 100), not {args.loss}")
    try:
        ho = parse_handover(args.handover)
    except ValueError as e:
        ap.error(f"--handover: {e}")
    if ho and not args.gw:
        ap.error("--handover: with --gw (the netem hop of the path without one "
                 "holds the rate, the queue and the delay together)")
    if ho and ho[0] >= args.seconds:
        ap.error(f"--handover: T ({ho[0]:g} s) within the flow's --seconds ({args.seconds})")
    for name in ("interval", "bin"):
        v = getattr(args, name)
        if v is not None and not 0 < v <= 60000:
            ap.error(f"--{name}: 0 < MS <= 60000, not {v}")
    try:
        lo, default, hi = (int(x) for x in args.buffers.split())
    except ValueError:
        ap.error(f"--buffers: three sizes in bytes, min default max, not {args.buffers!r}")
    if not 0 < lo <= default <= hi:
        ap.error(f"--buffers: 0 < min <= default <= max, not {args.buffers!r}")
    params = []
    for kv in args.param:
        if "=" not in kv:
            ap.error(f"--param: NAME=VALUE, not {kv!r}")
        params.append(kv.split("=", 1))
    meta = dict(kind="start-trace", date=time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()),
                kernel=lab.kernel_release(), commit=lab.git_commit(),
                name=args.name or os.path.basename(os.path.normpath(args.out or "start-trace")),
                argv=" ".join(argv), args=vars(args))
    lab.sh("modprobe tcp_bbr")
    if "spec" in args.ccs.split(",") and not lab.module_loaded("tcp_spec"):
        lab.load_module("tcp_spec")
    saved = {}
    for name, value in params:
        saved[name] = lab.get_param("tcp_spec", name)
        lab.set_param("tcp_spec", name, value)
    recs = []
    try:
        for _ in range(args.reps):
            for loss in losses:
                for cc in args.ccs.split(","):
                    r = one_flow(cc, loss, args)
                    recs.append(r)
                    print(f"{cc} loss {loss:g}%: {r['goodput_bps'] / 1e6:.2f} Mbit/s; "
                          f"per round (cwnd, ssthresh, acked, flight, rwnd-limited %): "
                          f"{[x[1:] for x in r['rounds']]}", flush=True)
                    if r["counters"]:
                        print(f"  counters {r['counters']}", flush=True)
    finally:
        for name, value in saved.items():
            lab.set_param("tcp_spec", name, value)
    if args.out:
        write_run(args.out, meta, recs)
        print(f"start-trace: {args.out}/summary.md, results.json", flush=True)


if __name__ == "__main__":
    main()

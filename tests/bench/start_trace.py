#!/usr/bin/env python3
"""Benchmark probe: how a flow starts on a long path. One flow at a time
over a single netem hop (--rate, --rtt, a 3000-packet queue, --loss %
corruption), traced by tcp_probe: per round trip (a bin of --rtt), the
largest cwnd, the least ssthresh and the packets snd_una moved, then the
flow's goodput over --seconds, and tcp_spec's counters for a spec flow.
--gw fq_codel|cake puts that gateway (ECN; fq_codel's interval and
CAKE's rtt the path's RTT, as the geo-aqm scenario sets them) at the
--rate bottleneck, under HTB, with the delay and the corruption on a
hop after it.

Runs inside the VM (root; tcp_spec built for the running kernel and
loaded, as the integration tests load it):

    python3 tests/vm/vm.py --kernel <release> -- sh -c \\
      'insmod build/<release>/src/tcp_spec/tcp_spec.ko; \\
       .venv/bin/python tests/bench/start_trace.py --loss 1 --ccs spec,cubic,bbr'

--param NAME=VALUE sets a tcp_spec parameter for the run (e.g.
qd_enable=0), put back afterwards. --json FILE writes the records.
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
sys.path.insert(0, os.path.join(HERE, "..", ".."))

from specnet_bench import specnet_lab as lab  # noqa: E402
from cwnd import MSS, run_flow  # noqa: E402


def rounds(evs, rtt_s):
    """[(round, max cwnd, min ssthresh, packets acked)] from tcp_probe
    events, a round being a bin of @rtt_s from the first event."""
    t0 = evs[0]["t"]
    bins = {}
    for e in evs:
        bins.setdefault(int((e["t"] - t0) / rtt_s), []).append(e)
    out = []
    for b in sorted(bins):
        es = bins[b]
        acked = (es[-1]["snd_una"] - es[0]["snd_una"]) % 2**32 // MSS
        out.append((b, max(x["cwnd"] for x in es), min(x["ssthresh"] for x in es), acked))
    return out


GATEWAYS = {
    "fq_codel": "fq_codel target 5ms interval {rtt}ms ecn limit 10000",
    "cake": "cake unlimited rtt {rtt}ms besteffort",
}


def one_flow(cc, args):
    hops = ["snd", "rtr", "rcv"] if not args.gw else ["snd", "gw", "rtr", "rcv"]
    c = lab.Chain(hops)
    c.build()
    try:
        imp = f" corrupt {args.loss:g}%" if args.loss else ""
        if args.gw:
            c.tc("gw", "rtr", f"""root handle 1: htb default 1
                                  class add parent 1: classid 1:1 htb rate {args.rate}
                                  parent 1:1 {GATEWAYS[args.gw].format(rtt=args.rtt)}""")
            c.tc("rtr", "rcv", f"root netem delay {args.rtt}ms limit 10000{imp}")
        else:
            c.tc("rtr", "rcv", f"root netem delay {args.rtt}ms rate {args.rate} "
                               f"limit 3000{imp}")
        c.ecn_sender("snd")
        lab.iperf3_server(c.ns("rcv"))
        evs, rep = run_flow(c, cc, seconds=args.seconds)
        n = lab.counters("tcp_spec", ns=c.ns("snd")) if cc == "spec" else None
        return dict(cc=cc, loss=args.loss, gw=args.gw, goodput_bps=lab.goodput_bps(rep),
                    rounds=rounds(evs, args.rtt / 1000), counters=n)
    finally:
        c.destroy()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ccs", default="spec,cubic,bbr")
    ap.add_argument("--loss", type=float, default=0.0, help="corruption, percent")
    ap.add_argument("--rate", default="20mbit")
    ap.add_argument("--gw", choices=sorted(GATEWAYS))
    ap.add_argument("--rtt", type=int, default=600, help="ms")
    ap.add_argument("--seconds", type=int, default=8)
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--param", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--json")
    args = ap.parse_args()
    lab.sh("modprobe tcp_bbr")
    saved = {}
    for kv in args.param:
        name, value = kv.split("=", 1)
        saved[name] = lab.get_param("tcp_spec", name)
        lab.set_param("tcp_spec", name, value)
    recs = []
    try:
        for _ in range(args.reps):
            for cc in args.ccs.split(","):
                r = one_flow(cc, args)
                recs.append(r)
                print(f"{cc} loss {args.loss:g}%: {r['goodput_bps'] / 1e6:.2f} Mbit/s; "
                      f"per round (cwnd, ssthresh, acked): "
                      f"{[x[1:] for x in r['rounds']]}", flush=True)
                if r["counters"]:
                    print(f"  counters {r['counters']}", flush=True)
    finally:
        for name, value in saved.items():
            lab.set_param("tcp_spec", name, value)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(recs, f)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Benchmark: which RTT tcp_tp puts in cwnd = C RTT / N (module parameter
rtt=min|srtt), over the self-similar background of the tp test, each beside
a reno flow on an identical path at the same time.

Runs inside the VM (root, tcp_tp built for the running kernel):

    python3 tests/vm/vm.py --kernel <release> -- python3 tests/bench/tp_rtt.py [--seconds 25]

Prints one line per case: goodput, retransmissions per
100 segments, mean RTT (iperf3's), and the tp/reno goodput ratio of that
round; --json for the records.
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
sys.path.insert(0, os.path.join(HERE, "..", ".."))

from specnet_bench import specnet_lab as lab  # noqa: E402
from test_tp import (RATE_MBIT, bottleneck_chain, retrans_ratio, side_by_side,  # noqa: E402
                     start_onoff)


def one_round(rtt, seconds, seed, sources):
    lab.set_param("tcp_tp", "rtt", rtt)
    chains = {cc: bottleneck_chain() for cc in ("tp", "reno")}
    try:
        for ch in chains.values():
            lab.iperf3_server(ch.ns("rcv"))
        bg = [start_onoff(ch, seconds + 3, seed=seed, sources=sources) for ch in chains.values()]
        res = side_by_side(chains, seconds)
        for p in bg:
            p.communicate(timeout=60)
    finally:
        for ch in chains.values():
            ch.destroy()
    out = {}
    for cc, r in res.items():
        s = r["end"]["streams"][0]["sender"]
        out[cc] = {"goodput_bps": lab.goodput_bps(r), "retrans_ratio": retrans_ratio(r),
                   "mean_rtt_ms": s.get("mean_rtt", 0) / 1000}
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=int, default=25)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--sources", type=int, default=6, help="on/off background sources")
    ap.add_argument("--rtt", default="min,srtt", help="choices to run, comma-separated")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    if not lab.ensure_cc("tp"):
        sys.exit("tp_rtt: tcp_tp is not available for this kernel (make)")
    lab.set_param("tcp_tp", "capacity_kbps", RATE_MBIT * 1000)
    rows = []
    for rtt in a.rtt.split(","):
        r = one_round(rtt, a.seconds, a.seed, a.sources)
        rows.append({"rtt": rtt, **r})
    lab.set_param("tcp_tp", "rtt", "min")
    lab.set_param("tcp_tp", "capacity_kbps", 0)
    if a.json:
        json.dump({"kernel": lab.kernel_release(), "rounds": rows}, sys.stdout, indent=1)
        print()
        return
    print(f"tcp_tp rtt= choice, {RATE_MBIT} Mbit/s, 100-packet FIFO, 40 ms, self-similar "
          f"background ({a.sources} sources, seed {a.seed}), {a.seconds} s, kernel {lab.kernel_release()}")
    print(f"{'case':<16} {'goodput Mbit/s':>14} {'retrans %':>10} {'mean RTT ms':>12}")
    for row in rows:
        for cc in ("tp", "reno"):
            x = row[cc]
            name = f"tp rtt={row['rtt']}" if cc == "tp" else "  reno (beside)"
            print(f"{name:<16} {x['goodput_bps'] / 1e6:>14.2f} {100 * x['retrans_ratio']:>10.2f} "
                  f"{x['mean_rtt_ms']:>12.1f}")
        print(f"{'  tp/reno':<16} {row['tp']['goodput_bps'] / row['reno']['goodput_bps']:>14.2f}")


if __name__ == "__main__":
    main()

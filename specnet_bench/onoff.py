#!/usr/bin/env python3
"""Self-similar background load: N on/off UDP sources with heavy-tailed
(Pareto) on and off periods, aggregated in one process.

The superposition of many on/off sources whose periods are Pareto with
shape 1 < alpha < 2 is asymptotically self-similar with Hurst parameter
H = (3 - alpha_min) / 2 (Taqqu, Willinger, Sherman 1997): alpha 1.4 gives
H = 0.8, the long-range dependence TCP-TP's predictor is built for.

Each source sends at --rate while on. The schedule of every source is drawn
from --seed first, so two runs with the same arguments offer the same load
at the same moments (tp and reno compared over identical background). All
sources share one socket and one loop that sends, every --tick, the packets
the active sources owe (fractions carried over), so the CPU cost is per
packet, not per source.

    python3 specnet_bench/onoff.py --dst 10.0.0.2 --sources 16 --rate 0.8mbit \
        --duration 30 --seed 1 [--json]

prints the offered load (mean, and per second with --json) when it ends.
"""
import argparse
import json
import random
import socket
import sys
import time

try:
    from specnet_bench.units import rate_bps
except ImportError:             # run by path in a Mininet host, beside units.py
    from units import rate_bps


def parse_rate(text):
    """'800kbit', '1.5mbit', '2000000' -> bit/s (tc's units)."""
    try:
        v = rate_bps(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e))
    if v <= 0:
        raise argparse.ArgumentTypeError(f"rate must be positive: '{text}'")
    return v


def pareto(rng, mean, alpha):
    """Pareto period with shape @alpha > 1 and the given mean."""
    xm = mean * (alpha - 1) / alpha
    return xm / (rng.random() ** (1.0 / alpha))


def schedule(sources, duration, mean_on, mean_off, alpha_on, alpha_off, seed):
    """Per source, a sorted list of (start, end) on-periods within
    [0, duration). Each source starts at a random phase of its cycle."""
    rng = random.Random(seed)
    out = []
    for _ in range(sources):
        spans = []
        t = -rng.random() * (mean_on + mean_off)
        on = rng.random() < mean_on / (mean_on + mean_off)
        while t < duration:
            d = pareto(rng, mean_on if on else mean_off, alpha_on if on else alpha_off)
            if on and t + d > 0:
                spans.append((max(t, 0.0), min(t + d, duration)))
            t += d
            on = not on
        out.append(spans)
    return out


def offered(sched, rate, duration):
    """Offered load per whole second (bit/s), from the schedule."""
    per_s = [0.0] * int(duration + 0.999)
    for spans in sched:
        for a, b in spans:
            s = a
            while s < b:
                e = min(b, int(s) + 1)
                per_s[int(s)] += (e - s) * rate
                s = e
    return per_s


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dst", required=True, help="destination address")
    ap.add_argument("--port", type=int, default=9, help="UDP port (default 9, discard)")
    ap.add_argument("--sources", type=int, default=16)
    ap.add_argument("--rate", type=parse_rate, default=parse_rate("800kbit"),
                    help="rate of one source while on (default 800kbit)")
    ap.add_argument("--duration", type=float, default=30.0, help="seconds")
    ap.add_argument("--mean-on", type=float, default=0.5, help="mean on period, s")
    ap.add_argument("--mean-off", type=float, default=1.0, help="mean off period, s")
    ap.add_argument("--alpha-on", type=float, default=1.4, help="Pareto shape of on periods")
    ap.add_argument("--alpha-off", type=float, default=1.2, help="Pareto shape of off periods")
    ap.add_argument("--size", type=int, default=1200, help="UDP payload bytes")
    ap.add_argument("--tick", type=float, default=0.005, help="send loop period, s")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true", help="print the offered load as JSON")
    ap.add_argument("--dry-run", action="store_true", help="print the schedule's load only")
    a = ap.parse_args(argv)
    for name in ("alpha_on", "alpha_off"):
        if not 1.0 < getattr(a, name) < 2.0:
            ap.error(f"--{name.replace('_', '-')} must be in (1, 2) for a heavy tail with a mean")
    if a.sources < 1 or a.duration <= 0 or a.mean_on <= 0 or a.mean_off <= 0:
        ap.error("--sources, --duration, --mean-on and --mean-off must be positive")
    if not 28 <= a.size <= 65000 or not 0.0005 <= a.tick <= 0.1:
        ap.error("--size must be 28..65000 bytes and --tick 0.0005..0.1 s")

    sched = schedule(a.sources, a.duration, a.mean_on, a.mean_off,
                     a.alpha_on, a.alpha_off, a.seed)
    per_s = offered(sched, a.rate, a.duration)
    sent = 0
    if not a.dry_run:
        # (start, +1) / (end, -1) events; the active count between them
        events = sorted([(s, 1) for sp in sched for s, _ in sp] +
                        [(e, -1) for sp in sched for _, e in sp])
        sock = socket.socket(socket.AF_INET6 if ":" in a.dst else socket.AF_INET,
                             socket.SOCK_DGRAM)
        payload = bytes(a.size)
        bits = 8 * (a.size + 28)
        t0 = time.monotonic()
        last, owed, active, i = 0.0, 0.0, 0, 0
        while True:
            now = time.monotonic() - t0
            if now >= a.duration:
                break
            while i < len(events) and events[i][0] <= now:
                active += events[i][1]
                i += 1
            owed += active * a.rate * (now - last) / bits
            last = now
            while owed >= 1:
                try:
                    sock.sendto(payload, (a.dst, a.port))
                    sent += 1
                except OSError:
                    pass    # ICMP unreachable from an earlier datagram, queue full
                owed -= 1
            time.sleep(a.tick)
    mean = sum(per_s) / a.duration
    if a.json:
        json.dump({"sources": a.sources, "mean_bps": mean, "per_second_bps": per_s,
                   "packets_sent": sent}, sys.stdout)
        print()
    else:
        print(f"onoff: {a.sources} sources, offered {mean / 1e6:.2f} Mbit/s mean, "
              f"{max(per_s) / 1e6:.2f} peak second, {sent} packets sent")
    return 0


if __name__ == "__main__":
    sys.exit(main())

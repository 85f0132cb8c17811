#!/usr/bin/env python3
"""The SpecTCP paper's satellite scenario on the real stack (runs in the VM).

    python3 -m specnet_bench.satellite --ccs spec,reno,cubic --ber 1e-6,1e-5,5e-5 --seconds 150 \\
        --out results/demo-<stamp>

Every (BER, congestion control) pair gets its own path of SatelliteTopo, and
all flows run at once (the emulated links are 64 kbit/s, so the guest CPU
is idle: parallel flows don't disturb each other). Every sender requests
ECN and keeps it (tcp_ecn=1, tcp_ecn_fallback=0), so reno and cubic are
"Reno+ECN" and "CUBIC+ECN" as in the paper (bbr ignores the marks); the
receivers accept ECN (tcp_ecn=2, the default).

Writes <out>/results.json (one record per flow), <out>/summary.md and
<out>/goodput.png, and prints the table. Exit 0 when every flow ran.
"""
import argparse
import datetime
import json
import os
import subprocess
import sys
import time

from specnet_bench import specnet_lab as lab

PAPER = {  # SpecTCP paper, Reno+ECN vs SpecTCP at BER 5e-5: "~5x"
    "note": "paper (ns-2): SpecTCP ~5x Reno+ECN at BER 5e-5; Reno loses 77% "
            "of its goodput from 1e-5 to 5e-5, SpecTCP 12%",
}


def run(args):
    from mininet.log import setLogLevel, info
    from mininet.net import Mininet
    from specnet_bench.topos import SatelliteTopo

    setLogLevel("info")
    ccs = args.ccs.split(",")
    bers = [float(b) for b in args.ber.split(",")]
    missing = [cc for cc in ccs if not lab.ensure_cc(cc)]
    for cc in missing:
        info(f"*** skipping {cc}: congestion control not available (module missing)\n")
    ccs = [cc for cc in ccs if cc not in missing]
    if not ccs:
        raise SystemExit("no congestion control available")

    records = []
    # one network per MSS (the MTU is per path but the topology's frame is global)
    groups = {}
    for b in bers:
        groups.setdefault(SatelliteTopo.mss_for(b), []).append(b)
    for mss, group in groups.items():
        cases = [(b, cc) for b in group for cc in ccs]
        topo = SatelliteTopo(paths=len(cases), mss=mss,
                             per_path=[dict(ber=b) for b, _ in cases])
        net = Mininet(topo=topo, controller=None, build=True, waitConnected=False)
        try:
            net.start()
            topo.configure(net)
            info(f"*** {len(cases)} satellite paths up (MSS {mss}); {args.seconds}s flows\n")
            procs = []
            for i, (b, cc) in enumerate(cases):
                p = i + 1
                h1, h2 = net[f"h1p{p}"], net[f"h2p{p}"]
                topo._cmd(h1, f"sysctl -qw {lab.sender_ecn_sysctls()}")
                topo._cmd(h2, f"iperf3 -s -1 -D --logfile /tmp/iperf3-s-{p}.log")
            time.sleep(1)
            unreachable = set()
            reach = lab.in_threads(lambda p: lab.node_reachable(net[f"h1p{p}"], topo.dst_ip(p)),
                                   range(1, len(cases) + 1))
            for p, (ok, n) in enumerate(reach, start=1):
                if not ok:
                    unreachable.add(p)
                    info(f"*** path {p}: no connectivity h1 -> h2 in {n} pings: "
                         "its flow counts as failed\n")
            t0 = time.time()
            for i, (b, cc) in enumerate(cases):
                p = i + 1
                h1 = net[f"h1p{p}"]
                procs.append(h1.popen(
                    ["iperf3", "-c", f"10.{p}.4.1", "-t", str(args.seconds), "-C", cc,
                     "-J", "--connect-timeout", "10000"],
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
            for i, ((b, cc), pr) in enumerate(zip(cases, procs)):
                out, err = pr.communicate(timeout=args.seconds * 3 + 120)
                p = i + 1
                rec = dict(scenario="satellite", cc=cc, ber=b, mss=mss,
                           frame=topo.wire_frame(), seconds=args.seconds,
                           per_nominal=topo.per(p), ceiling_nominal_bps=topo.ceiling_bps(p))
                rec.update(topo.realized(net, p))
                try:
                    rep = json.loads(out)
                except ValueError:
                    rep = dict(error="no JSON: " + out.strip()[-300:])
                if "error" in rep or "end" not in rep:
                    # a failed flow, even with a partial report: counts as 0
                    rec["error"] = f"iperf3: {rep.get('error', 'no end')} {err.strip()[-300:]}"
                else:
                    rec["goodput_bps"] = lab.goodput_bps(rep)
                    rec["retransmits"] = lab.retransmits(rep)
                if p in unreachable:
                    rec["error"] = "no connectivity before the flow; " + rec.get("error", "")
                gw1, h2 = net[f"gw1p{p}"], net[f"h2p{p}"]
                rec["red"] = lab.node_qdisc_stats(gw1, gw1.intfList()[1])
                rec["csum_errors"] = lab.node_nstat(h2, "TcpInCsumErrors", "IpExtInCsumErrors")
                rec["hdr_errors_gw2"] = lab.node_nstat(net[f"gw2p{p}"], "IpInHdrErrors")
                if cc == "spec":
                    rec["spec_counters"] = lab.parse_counters(net[f"h1p{p}"].cmd("cat /proc/net/tcp_spec"))
                records.append(rec)
            info(f"*** flows done in {time.time() - t0:.0f}s\n")
        finally:
            net.stop()
    return records, ccs, bers


def goodput(r):
    """A flow's goodput; a failed flow (an error) counts as 0."""
    return 0.0 if "error" in r else r["goodput_bps"]


def table(records, ccs, bers):
    """One row per (BER, cc): nominal and realized PER of the cc's own path,
    the realized ceiling, goodput, and goodput over reno's and over the
    realized ceiling (every path has its own lossy hop and counters)."""
    by = {(r["ber"], r["cc"]): r for r in records}
    lines = ["| BER | cc | PER nominal | PER realized (discarded/frames) | "
             "ceiling kbit/s (realized) | goodput kbit/s | x reno | x ceiling |",
             "|---|---|---|---|---|---|---|---|"]
    for b in bers:
        reno = by.get((b, "reno"))
        for cc in ccs:
            r = by.get((b, cc))
            if r is None:
                continue
            g = goodput(r)
            pr = (f"{r['per_realized']:.3f} ({r['lossy_discarded']}/{r['lossy_pkts']})"
                  if r.get("per_realized") is not None else "n/a")
            xr = f"{g / goodput(reno):.2f}" if reno and goodput(reno) else "-"
            gtxt = f"{g / 1e3:.1f}" + (" FAILED" if "error" in r else "")
            lines.append(f"| {b:g} | {cc} | {r['per_nominal']:.3f} | {pr} | "
                         f"{r['ceiling_bps'] / 1e3:.1f} | {gtxt} | {xr} | "
                         f"{g / r['ceiling_bps']:.2f} |")
    return "\n".join(lines)


def plot(records, ccs, bers, path):
    # a writable, persistent cache: the guest's $HOME is read-only, and
    # rebuilding matplotlib's font cache costs a minute under TCG
    os.environ.setdefault("MPLCONFIGDIR", os.path.join(lab.TOP, "build", "mpl"))
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for cc in ccs:
        pts = sorted((r["ber"], goodput(r) / 1e3) for r in records if r["cc"] == cc)
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=cc)
    ceil = sorted({(r["ber"], r["ceiling_nominal_bps"] / 1e3) for r in records})
    ax.plot([c[0] for c in ceil], [c[1] for c in ceil], "k--",
            label="ceiling C(1-PER), nominal PER")
    for cc in ccs:
        real = sorted((r["ber"], r["ceiling_bps"] / 1e3) for r in records if r["cc"] == cc)
        ax.plot([c[0] for c in real], [c[1] for c in real], "k:", marker="x", alpha=0.5,
                label="ceiling from the realized PER" if cc == ccs[0] else None)
    ax.set_xscale("log")
    ax.set_xlabel("bit error rate")
    ax.set_ylabel("goodput (kbit/s)")
    ax.set_title("satellite: 64 kbit/s, 280 ms one way, RED+ECN gateway")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ccs", default="spec,reno,cubic")
    ap.add_argument("--ber", default="1e-6,1e-5,5e-5")
    ap.add_argument("--seconds", type=int, default=120)
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    out = a.out or os.path.join(lab.TOP, "results", f"demo-{stamp}")
    os.makedirs(out, exist_ok=True)
    subprocess.run("mn -c >/dev/null 2>&1", shell=True)
    records, ccs, bers = run(a)
    meta = dict(date=stamp, kernel=lab.kernel_release(), commit=lab.git_commit(),
                scenario="satellite", seconds=a.seconds, ccs=ccs, bers=bers,
                paper=PAPER["note"])
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(dict(meta=meta, records=records), f, indent=1)
    tab = table(records, ccs, bers)
    summary = (f"# satellite scenario ({meta['date']}, kernel {meta['kernel']}, "
               f"commit {meta['commit']}, {a.seconds}s flows)\n\n{tab}\n\n"
               f"Ceilings: C (1 - PER) x payload / wire frame ({records[0]['frame'] if records else '-'}"
               f" bytes with the Ethernet header); the realized PER is, per path, the IPv4 "
               f"frames that entered the corrupting hop and did not reach the receiver intact "
               f"over those that entered (docs/bench.md); x ceiling is judged on the realized "
               f"one. A failed flow counts as 0.\n"
               f"{PAPER['note']}.\n")
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write(summary)
    plot(records, ccs, bers, os.path.join(out, "goodput.png"))
    print("\n" + summary)
    print(f"results: {os.path.relpath(out, lab.TOP)}/results.json, summary.md, goodput.png")
    return 1 if any("error" in r for r in records) else 0


if __name__ == "__main__":
    sys.exit(main())

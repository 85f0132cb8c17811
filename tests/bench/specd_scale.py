"""specd at scale: N managed destinations, all ECN capable
(addresses on a dummy device behind a router, one banner service on
0.0.0.0:5201), probed and routed from a fresh start. Prints the time until
every destination has its route, specd's RSS and CPU time.

Run in the VM (tcp_spec loaded by this script):
    tests/vm/vm.py --kernel <release> -- .venv/bin/python tests/bench/specd_scale.py [-n 1000]
tests/integration/test_specd.py runs measure() and asserts on it.
"""
import argparse
import os
import re
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))

from specnet_bench import specnet_lab as lab  # noqa: E402

SPECD = os.path.join(lab.TOP, "build", "userspace", "specd")
BANNER = os.path.join(HERE, "..", "integration", "tcp_banner.py")


def proc_stats(pid):
    """(VmRSS in KiB, user + system CPU seconds) of @pid."""
    with open(f"/proc/{pid}/status") as f:
        rss = next(int(l.split()[1]) for l in f if l.startswith("VmRSS:"))
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return rss, (int(fields[11]) + int(fields[12])) / ticks


def spec_routes(ns):
    """Routes of protocol 245 that say congctl spec and features ecn."""
    out = lab.sh("ip route show proto 245", ns=ns)
    # iproute2 prints the metrics in RTAX order: features before congctl
    return sum(1 for l in out.splitlines()
               if "features ecn" in l and re.search(r"congctl spec( |$)", l))


def measure(n=1000, interval_s=10, parallel=None, limit_s=600, steady_s=10, log=sys.stderr):
    """Start specd on @n capable destinations; wait until all have their
    route (at most @limit_s). Returns a dict: routed, took_s (from specd's
    start), rss_kib, cpu_s, and the steady state of the next @steady_s
    seconds (none measured at 0)."""
    net = lab.Star(["rtr", "snd", "r"])
    proc = banner = None
    tmp = tempfile.mkdtemp(prefix="specd-scale-")
    try:
        net.build()
        r, snd = net.ns("r"), net.ns("snd")
        lab.sh("ip link add d0 type dummy && ip link set d0 up", ns=r)
        dests = [f"10.200.{i // 250}.{i % 250 + 1}" for i in range(n)]
        batch = os.path.join(tmp, "addr.batch")
        with open(batch, "w") as f:
            f.writelines(f"addr add {d}/32 dev d0\n" for d in dests)
        lab.sh(f"ip -batch {batch}", ns=r)
        lab.sh(f"ip route add 10.200.0.0/16 via {net.ip('r')}", ns=net.ns("rtr"))
        net.sysctl("r", "net.ipv4.tcp_ecn", 1)
        banner = lab.popen_in(r, ["python3", BANNER, "5201"])
        # the path works before specd is blamed for anything
        for d in (dests[0], dests[-1]):
            lab.sh("python3 -c 'import socket, time\n"
                   "for _ in range(50):\n"
                   "    try: socket.create_connection((\"%s\", 5201), 5).recv(64); break\n"
                   "    except OSError: time.sleep(0.2)\n"
                   "else: raise SystemExit(\"no service at %s\")'" % (d, d), ns=snd)

        conf = os.path.join(tmp, "specd.conf")
        with open(conf, "w") as f:
            f.writelines(f"manage = {d}\n" for d in dests)
            # every destination in one tick: probe_max at least their number
            f.write(f"probe_interval = {interval_s}s\nverdict_ttl = 1h\n"
                    f"probe_timeout = 2s\nstate_file = {tmp}/specd.state\n"
                    f"probe_max = {min(len(dests), 1024)}\n")
            if parallel:
                f.write(f"probe_parallel = {parallel}\n")
        logf = open(os.path.join(tmp, "specd.log"), "w")
        t0 = time.time()
        proc = lab.popen_in(snd, [SPECD, "-c", conf], stderr=logf, stdout=logf)
        routed = 0
        while time.time() - t0 < limit_s and proc.poll() is None:
            # each look is an `ip route show` of up to n routes, which
            # takes the one vCPU from specd for ~0.5 s under TCG: once a
            # second (polled every 0.25 s, specd took 24-27 s, not 19-22)
            routed = spec_routes(snd)
            if routed == n:
                break
            time.sleep(1)
        took = time.time() - t0
        if proc.poll() is not None:
            raise RuntimeError(f"specd exited {proc.returncode}")
        rss, cpu = proc_stats(proc.pid)
        if routed != n:
            logf.flush()
            with open(logf.name) as f:
                print("specd log, last 20 lines:\n" + "".join(f.readlines()[-20:]), file=log)
        m = dict(n=n, routed=routed, took_s=took, interval_s=interval_s,
                 rss_kib=rss, cpu_s=cpu, steady_s=steady_s)
        if steady_s:
            time.sleep(steady_s)
            rss2, cpu2 = proc_stats(proc.pid)
            m.update(steady_cpu_s=cpu2 - cpu, steady_rss_kib=rss2)
        return m
    finally:
        for p in (proc, banner):
            if p and p.poll() is None:
                p.terminate()
                p.wait(30)
        net.destroy()
        lab.sh(f"rm -rf {tmp}")


def report(m):
    within = "within" if m["routed"] == m["n"] and m["took_s"] <= m["interval_s"] else "NOT within"
    return (f"specd scale ({lab.kernel_release()}): {m['routed']}/{m['n']} destinations probed "
            f"and routed (congctl spec features ecn) in {m['took_s']:.1f} s from start, "
            f"{within} one probe interval ({m['interval_s']} s)\n"
            f"specd RSS {m['rss_kib']} KiB, CPU {m['cpu_s']:.2f} s "
            f"({m['cpu_s'] / m['took_s'] * 100:.0f}% of one vCPU over that time)" +
            (f"; steady state, next {m['steady_s']} s: CPU {m['steady_cpu_s']:.2f} s, "
             f"RSS {m['steady_rss_kib']} KiB" if m.get("steady_s") else ""))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=1000, help="destinations (<= 1024)")
    ap.add_argument("--interval", type=int, default=10, help="specd probe_interval, s")
    ap.add_argument("--parallel", type=int, help="specd probe_parallel (default: specd's)")
    args = ap.parse_args()

    lab.load_module("tcp_spec")
    try:
        m = measure(args.n, args.interval, args.parallel)
    finally:
        lab.unload_module("tcp_spec")
    print(report(m))
    return 0 if m["routed"] == m["n"] else 1


if __name__ == "__main__":
    sys.exit(main())

"""specd at scale (issue 6): N managed destinations, all ECN capable
(addresses on a dummy device behind a router, one banner service on
0.0.0.0:5201), probed and routed from a fresh start. Prints the time until
every destination has its route, specd's RSS and CPU time.

Run in the VM (tcp_spec loaded by this script):
    tests/vm/vm.py --kernel <release> -- .venv/bin/python tests/bench/specd_scale.py [-n 1000]
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "mininet"))

import specnet_lab as lab  # noqa: E402

SPECD = os.path.join(lab.TOP, "build", "userspace", "specd")
BANNER = os.path.join(HERE, "..", "integration", "tcp_banner.py")


def proc_stats(pid):
    with open(f"/proc/{pid}/status") as f:
        rss = next(int(l.split()[1]) for l in f if l.startswith("VmRSS:"))
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    cpu = (int(fields[11]) + int(fields[12])) / ticks   # utime + stime
    return rss, cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=1000, help="destinations (<= 1024)")
    ap.add_argument("--interval", default="10s", help="specd probe_interval")
    args = ap.parse_args()

    lab.load_module("tcp_spec")
    net = lab.Star(["rtr", "snd", "r"])
    proc = None
    try:
        net.build()
        r, snd = net.ns("r"), net.ns("snd")
        lab.sh("ip link add d0 type dummy && ip link set d0 up", ns=r)
        dests = [f"10.200.{i // 250}.{i % 250 + 1}" for i in range(args.n)]
        with tempfile.NamedTemporaryFile("w", suffix=".batch", delete=False) as f:
            for d in dests:
                f.write(f"addr add {d}/32 dev d0\n")
        lab.sh(f"ip -batch {f.name}", ns=r)
        os.unlink(f.name)
        lab.sh(f"ip route add 10.200.0.0/16 via {net.ip('r')}", ns=net.ns("rtr"))
        net.sysctl("r", "net.ipv4.tcp_ecn", 1)
        subprocess.Popen(["ip", "netns", "exec", r, "python3", BANNER, "5201"])
        time.sleep(2)

        tmp = tempfile.mkdtemp()
        conf = os.path.join(tmp, "specd.conf")
        with open(conf, "w") as f:
            for d in dests:
                f.write(f"manage = {d}\n")
            f.write(f"probe_interval = {args.interval}\nverdict_ttl = 1h\n"
                    f"probe_timeout = 2s\nstate_file = {tmp}/specd.state\n")
        log = open(os.path.join(tmp, "specd.log"), "w")
        t0 = time.time()
        proc = subprocess.Popen(["ip", "netns", "exec", snd, SPECD, "-c", conf],
                                stderr=log, stdout=log)
        n = 0
        while time.time() - t0 < 600:
            out = lab.sh("ip route show proto 245 | grep -c 'congctl spec features ecn' "
                         "|| true", ns=snd)
            n = int(out.strip() or 0)
            if n == args.n:
                break
            time.sleep(0.5)
        took = time.time() - t0
        rss, cpu = proc_stats(proc.pid)
        print(f"specd scale ({lab.kernel_release()}): {n}/{args.n} destinations probed and "
              f"routed (congctl spec features ecn) in {took:.1f} s from start; "
              f"probe_interval {args.interval}")
        print(f"specd RSS {rss} KiB, CPU {cpu:.2f} s ({cpu / took * 100:.0f}% of one vCPU "
              f"over that time)")
        time.sleep(10)
        rss2, cpu2 = proc_stats(proc.pid)
        print(f"steady state, next 10 s: CPU {cpu2 - cpu:.2f} s, RSS {rss2} KiB")
    finally:
        if proc and proc.poll() is None:
            proc.terminate()
            proc.wait(30)
        net.destroy()
        lab.unload_module("tcp_spec")


if __name__ == "__main__":
    main()

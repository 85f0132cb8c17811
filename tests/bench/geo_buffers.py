#!/usr/bin/env python3
"""Probe: the geo scenario with LFN-tuned host buffers and/or ECN step
marking at the bottleneck, through the benchmark runner (specnet-bench
arguments after --). Not part of a suite: it answers "what limits spec on
geo" (README, issue 7's geo target).

    MB     tcp_rmem/tcp_wmem maximum of every host on geo's paths, in MB
           (0: Linux's defaults, 6 MB / 4 MB)
    STEP   environment: K > 0 puts an ECN step marker (CE above K packets,
           a drop for non-ECT) at the 20 Mbit/s queue, the corruption and
           the delay on a link after it

Runs inside the VM (root, our modules built for the running kernel):

    python3 tests/vm/vm.py --kernel <release> -- python3 tests/bench/geo_buffers.py 32 -- \\
        --scenario geo --param 1,10,20 --ccs spec,bbr --seconds 60 --no-plots --out results/X
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "mininet"))
import topos  # noqa: E402
import specnet_bench  # noqa: E402


def main():
    if "--" not in sys.argv or len(sys.argv) < 3:
        raise SystemExit(__doc__)
    mb = int(sys.argv[1])
    args = sys.argv[sys.argv.index("--") + 1:]
    step = int(os.environ.get("STEP", "0"))
    orig = topos.ChainTopo.configure

    def configure(self, net, *a, **k):
        orig(self, net, *a, **k)
        if not isinstance(self, topos.GeoTopo) or not mb:
            return
        for p in range(1, self.paths + 1):
            for n in self.nodes_of(net, p):
                n.cmd(f"sysctl -qw net.ipv4.tcp_rmem='4096 131072 {mb << 20}' "
                      f"net.ipv4.tcp_wmem='4096 16384 {mb << 20}'")
        print(f"geo hosts: tcp_rmem/wmem max {mb} MB", flush=True)
    topos.ChainTopo.configure = configure

    if step:
        def chain_links(self, loss=1.0, rate="20mbit", rtt_ms=600, **_):
            L = topos.link
            return [L("100mbit"), L(rate, 0, queue=("step", step), limit=3000),
                    L("1000mbit", float(rtt_ms) / 2, impair=f"corrupt {float(loss):g}%",
                      limit=10000)]
        topos.GeoTopo.chain_links = chain_links
        print(f"geo: ECN step marking above {step} packets at the 20 Mbit/s queue", flush=True)
    return specnet_bench.main(args)


if __name__ == "__main__":
    sys.exit(main())

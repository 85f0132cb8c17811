"""The soak (make stress): SOAK_SECONDS of long flows of every congestion
control through a redopt bottleneck, with the suite's other loads running
beside them the whole time.

Beside the flows, four workers loop until the end:
* redopt's parameters changed on the bottleneck (tc change) every second;
* fuzzed netlink messages (tests/stress/nlfuzz.py) to a redopt on a dummy
  device in another namespace, in rounds of FUZZ_ROUND;
* network namespaces created with a connection of each of our congestion
  controls, their per-namespace counters read, and destroyed;
* every module parameter written with the value it has (accepted; it
  must read back unchanged).
Every flow must carry data (a flow that fails or stalls fails the soak) and every
worker must finish its rounds without an error; after them the
bottleneck, idle, holds no packet, and a flow alone takes a fair part of
it (a change that left the qdisc wedged fails here); the runner fails the run
on any kernel report. test_zz_memory then unloads the modules and checks
kmemleak and the slab.
"""
import os
import sys
import threading
import time

from specnet_bench import specnet_lab as lab
import stresslib

HERE = os.path.dirname(os.path.abspath(__file__))
SOAK_SECONDS = 1800
FLOW_SECONDS = 30
FUZZ_ROUND = 200
CCS = ("spec", "cpecn", "tp", "cubic", "bbr")
RATE_BPS = 10_000_000
# a flow under 1% of the bottleneck's rate is stalled (a debug guest under
# the other workers carries about 25%)
STALLED = 0.01
# after the soak, a cubic flow alone takes at least 20% of it
HEALTHY = 0.2
MODEL = "bandwidth 10mbit rtt 50ms ssthresh 40 min 5 probability 0.1"


class Worker(threading.Thread):
    """Calls @step(i) for i = 0, 1, ... until @stop is set; the first
    exception ends it and is kept."""

    def __init__(self, name, step, stop, pause=0.0):
        super().__init__(name=name, daemon=True)
        self.step, self.stop, self.pause = step, stop, pause
        self.rounds, self.error = 0, None

    def run(self):
        try:
            while not self.stop.is_set():
                self.step(self.rounds)
                self.rounds += 1
                self.stop.wait(self.pause)
        except Exception as e:      # noqa: BLE001 -- reported by the test
            self.error = f"{self.name}, round {self.rounds}: {type(e).__name__}: {e}"


def test_soak(figure):
    seconds = stresslib.scaled(SOAK_SECONDS, "SOAK_SCALE")
    os.environ["TC_LIB_DIR"] = lab.TC_LIB
    for m in lab.MODULES:
        lab.load_module(m)
    for cc in CCS:
        lab.ensure_cc(cc)
    chain = lab.bottleneck_chain(f"{RATE_BPS // 1_000_000}mbit", 50, below=(
        f"parent 1:1 handle 10: redopt {MODEL} ecn adaptive"))
    dummy = lab.uniq("sn") + "-sk"
    stop = threading.Event()
    workers = []
    try:
        for a in ("snd", "rcv"):
            chain.sysctl(a, "net.ipv4.tcp_ecn", 1)
        lab.sh(f"ip netns add {dummy}")
        lab.sh("ip link set lo up && ip link add d0 type dummy && "
               "ip addr add 10.99.0.1/24 dev d0 && ip link set d0 up", ns=dummy)
        lab.sh("iperf3 -s -D -p 5201", ns=chain.ns("rcv"))
        time.sleep(0.5)

        def change(i):
            chain.tc("rtr", "rcv", f"change parent 1:1 handle 10: redopt min {4 + i % 4}")

        def fuzz(i):
            rc, out, err = lab.run(f"{sys.executable} {HERE}/nlfuzz.py d0 10.99.0.2 "
                                   f"{FUZZ_ROUND} {1000 + i}", ns=dummy, timeout=1800)
            assert rc == 0, (out[-2000:], err[-2000:])

        def netns(i):
            stresslib.netns_cycle(("spec", "cpecn", "tp"), 64 << 10, lab.CC_MODULES)

        def params(i):
            m = lab.CC_MODULES[i % 3]   # sch_redopt has no parameters
            d = f"/sys/module/{m}/parameters"
            for p in sorted(os.listdir(d)):
                if not os.access(os.path.join(d, p), os.W_OK):
                    continue
                v = lab.get_param(m, p)
                lab.set_param(m, p, v)
                assert lab.get_param(m, p) == v, (m, p, v)

        workers = [Worker("tc change", change, stop, 1.0), Worker("netlink fuzz", fuzz, stop),
                   Worker("netns churn", netns, stop, 1.0),
                   Worker("module parameters", params, stop, 1.0)]
        for w in workers:
            w.start()
        flows, moved, failed = 0, 0, []
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            cc = CCS[flows % len(CCS)]
            t = max(5, min(FLOW_SECONDS, int(end - time.monotonic())))
            try:
                r = lab.iperf3_client(chain.ns("snd"), chain.ip("rcv"), cc, t)
                got = r["end"]["sum_received"]["bytes"]
                moved += got
                if got * 8 < STALLED * RATE_BPS * t:
                    failed.append((cc, f"stalled: {got} bytes in {t} s"))
            except Exception as e:      # noqa: BLE001 -- a failed flow fails the soak
                failed.append((cc, str(e)[-300:]))
            flows += 1
            if any(w.error for w in workers):
                break
        stop.set()
        for w in workers:
            w.join(timeout=1800)
        # the bottleneck after the churn: idle, it holds nothing, and one
        # flow alone still takes a fair part of the link
        time.sleep(2)
        idle = lab.sh(f"tc -s qdisc show dev {chain.ifname('rtr', 'rcv')} parent 1:1",
                      ns=chain.ns("rtr"))
        r = lab.iperf3_client(chain.ns("snd"), chain.ip("rcv"), "cubic", 10)
        after = lab.goodput_bps(r)
    finally:
        stop.set()
        for w in workers:
            w.join(timeout=1800)
        lab.run("pkill -f 'iperf3 -s -D -p 5201'")
        lab.run(f"ip netns del {dummy}")
        chain.destroy()
    figure("soak: seconds, flows, bytes moved", [seconds, flows, moved])
    figure("soak: rounds of tc change, netlink fuzz (messages), netns, parameter writes",
           [workers[0].rounds, workers[1].rounds * FUZZ_ROUND, workers[2].rounds,
            workers[3].rounds])
    figure("soak: one cubic flow after it, Mbit/s", round(after / 1e6, 2))
    errors = [w.error for w in workers if w.error]
    assert not errors, errors
    assert not failed, failed
    assert flows >= seconds // (FLOW_SECONDS + 30) and moved > 0, (flows, moved)
    assert all(w.rounds > 0 for w in workers), [(w.name, w.rounds) for w in workers]
    assert "backlog 0b 0p" in idle, idle
    assert after >= HEALTHY * RATE_BPS, f"{after / 1e6:.2f} Mbit/s after the soak"

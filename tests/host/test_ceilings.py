"""The physical ceiling and the PER, by hand (docs/algorithms.md, Metrics).

ceiling = C (1 - PER) x payload / wire frame, PER = 1 - (1 - BER)^(8 frame),
the wire frame being what HTB and netem charge (skb->len): the IP packet
plus the 14-byte Ethernet header. A 1000-byte MSS with timestamps is a
1052-byte IP packet (the MTU) and a 1066-byte wire frame.
"""
import math
import os
import re
import subprocess
import sys
from types import SimpleNamespace

import pytest

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(TOP))
from specnet_bench import specnet_lab as lab  # noqa: E402
from specnet_bench import topos  # noqa: E402


def test_per_from_ber_by_hand():
    # 1066 bytes = 8528 bits. BER 1e-5: (1 - 1e-5)^8528 = exp(8528 ln(1 - 1e-5))
    # = exp(-0.0852804264) = 0.918255..., PER 0.081745
    assert lab.per_from_ber(1e-5, 1066) == pytest.approx(0.081745, abs=2e-6)
    # BER 5e-5: exp(8528 x -5.0000125e-5) = exp(-0.4264107) = 0.652848, PER 0.347152
    assert lab.per_from_ber(5e-5, 1066) == pytest.approx(0.347152, abs=2e-6)
    # the IP packet alone (1052 bytes, the old frame) gives less:
    # exp(8416 x -5.0000125e-5) = exp(-0.4208105) = 0.656514, PER 0.343486
    assert lab.per_from_ber(5e-5, 1052) == pytest.approx(0.343486, abs=2e-6)
    assert lab.per_from_ber(0.0, 1066) == 0.0
    # one bit, BER 0.5: half the frames
    assert lab.per_from_ber(0.5, 1 / 8) == pytest.approx(0.5)


def test_ceiling_by_hand():
    # 64 kbit/s, no loss: 64000 x 1000 / 1066 = 60037.52 bit/s of goodput
    assert lab.ceiling_bps(64000, 0.0, 1000, 1066) == pytest.approx(60037.52, abs=0.01)
    # PER 0.1: 0.9 of it, 54033.77
    assert lab.ceiling_bps(64000, 0.1, 1000, 1066) == pytest.approx(54033.77, abs=0.01)
    # 20 Mbit/s, MTU 1500: 1448 / 1514 of the link at 1% loss
    # 20e6 x 0.99 x 1448 / 1514 = 28670400000 / 1514 = 18936856.0
    assert lab.ceiling_bps(20e6, 0.01, 1448, 1514) == pytest.approx(18936856.0, abs=1)


def test_realized_per_by_hand():
    assert lab.realized_per(1000, 74) == pytest.approx(0.074)
    assert lab.realized_per(1000, 0) == 0.0
    assert lab.realized_per(0, 0) is None           # nothing went through
    assert lab.realized_per(None, 3) is None        # no qdisc counters
    assert lab.realized_per(500, None) is None
    with pytest.raises(ValueError, match="counters disagree"):
        lab.realized_per(10, 11)
    with pytest.raises(ValueError, match="counters disagree"):
        lab.realized_per(10, -1)


def test_satellite_ceiling_counts_the_ethernet_header():
    t = topos.SatelliteTopo(paths=2, mss=1000, per_path=[dict(ber=0.0), dict(ber=5e-5)])
    assert t.frame() == 1052            # the MTU (sets RED's byte thresholds)
    assert t.wire_frame() == 1066
    assert t.payload() == 1000
    assert t.per(1) == 0.0
    assert t.per(2) == pytest.approx(0.347152, abs=2e-6)
    assert t.ceiling_bps(1) == pytest.approx(60037.52, abs=0.01)
    assert t.ceiling_bps(2) == pytest.approx(60037.52 * (1 - 0.347152), abs=0.1)
    small = topos.SatelliteTopo(paths=1, mss=512, per_path=[dict(ber=0.0)])
    # 512 + 52 + 14 = 578 bytes: 64000 x 512 / 578 = 32768000 / 578 = 56692.04
    assert small.ceiling_bps(1) == pytest.approx(56692.04, abs=0.01)


def test_chain_ceilings():
    geo = topos.GeoTopo(paths=1, per_path=[dict(loss=10)])
    assert geo.wire_frame() == 1514 and geo.payload() == 1448
    # 20e6 x 0.9 x 1448 / 1514 = 26064000000 / 1514 = 17215323.6
    assert geo.ceiling_bps(1) == pytest.approx(17215323.6, abs=1)
    red = topos.RedTopo.__new__(topos.RedTopo)      # its build() runs specctl
    assert red.wire_frame() == 1066 and red.payload() == 1000


FILTER = ('[{"protocol":"ip","pref":1,"kind":"matchall","chain":0},{"protocol":"ip","pref":1,'
          '"kind":"matchall","chain":0,"options":{"handle":1,"actions":[{"order":1,'
          '"kind":"gact","control_action":{"type":"pass"},"index":1,"ref":1,"bind":1,'
          '"stats":{"bytes":%d,"packets":%d,"drops":0,"overlimits":0}}]}}]')


class FakeNode:
    """A Mininet node whose shell answers tc and nstat from tables."""

    def __init__(self, name, qdisc=None, entered=None, nstat=None):
        self.name, self._qdisc, self._nstat = name, qdisc, nstat or {}
        self._filter = FILTER % (entered * 1000, entered) if entered is not None else "[]"

    def cmd(self, c):
        if c.startswith("tc -s -j qdisc show"):
            return self._qdisc
        if c.startswith("tc -s -j filter show"):
            assert c.endswith(" egress")
            return self._filter
        if c.startswith("nstat -az"):
            names = c.split()[2:]
            return "#kernel\n" + "".join(f"{k} {self._nstat.get(k, 0)} 0.0\n" for k in names)
        raise AssertionError(c)


def test_realized_from_deliveries_after_a_corrupting_hop():
    # 1000 IPv4 frames entered the satellite hop, netem dropped 0 for its
    # limit; the receiver accepted 900 TCP segments of 930 (30 bad checksums)
    # and 5 pings: 1000 - 905 = 95 lost, PER 0.095. The error counters
    # (3 bad IP headers at gw2, 30 at the receiver) see 33: the other 62
    # went without a counter (destination MAC or EtherType).
    t = topos.SatelliteTopo(paths=1, mss=1000, per_path=[dict(ber=1e-5)])
    sat = FakeNode("satp1", qdisc='[{"kind":"netem","handle":"8001:","packets":1000,"drops":0}]',
                   entered=1000)
    sat.intfList = lambda: ["satp1-eth0", "satp1-eth1"]
    net = {"satp1": sat,
           "gw2p1": FakeNode("gw2p1", nstat={"IpInHdrErrors": 3}),
           "h2p1": FakeNode("h2p1", nstat={"TcpInSegs": 930, "TcpInErrs": 30,
                                           "IcmpInMsgs": 5})}
    r = t.realized(net, 1)
    assert (r["lossy_pkts"], r["lossy_discarded"], r["lossy_errors"]) == (1000, 95, 33)
    assert r["per_realized"] == pytest.approx(0.095)
    assert r["ceiling_bps"] == pytest.approx(60037.52 * 0.905, abs=0.1)
    # netem's own queue drops (congestion) leave the count: 20 of 1000
    sat._qdisc = '[{"kind":"netem","handle":"8001:","packets":980,"drops":20}]'
    net["h2p1"]._nstat["TcpInSegs"] = 910
    r = t.realized(net, 1)
    assert (r["lossy_pkts"], r["lossy_discarded"]) == (980, 95)
    # counters that cannot both be right: the nominal PER stands, and says so
    net["h2p1"]._nstat["TcpInSegs"] = 5000
    r = t.realized(net, 1)
    assert r["per_realized"] is None and "counters disagree" in r["lossy_note"]
    assert r["ceiling_bps"] == pytest.approx(t.ceiling_bps(1))


def test_realized_from_deliveries_after_a_lossy_hop():
    # netem loss: 1000 frames entered, 10 dropped by netem, 990 accepted
    t = topos.DumbbellTopo(paths=1, per_path=[dict(loss=1.0)])
    nodes = [FakeNode("h1p1"), FakeNode("r1p1"),
             FakeNode("r2p1", qdisc='[{"kind":"htb","packets":990},{"kind":"netem",'
                                    '"parent":"1:1","packets":990,"drops":10}]',
                      entered=1000),
             FakeNode("h2p1", nstat={"TcpInSegs": 990})]
    t.nodes_of = lambda net, p: nodes
    t.receiver = lambda net, p: nodes[-1]
    t.intf = staticmethod(lambda a, b: f"{a.name}-to-{b.name}")
    r = t.realized(None, 1)
    assert (r["lossy_pkts"], r["lossy_discarded"], r["per_realized"]) == (1000, 10, 0.01)
    assert t.lossy_hop(None, 1)[2] == "loss"
    clean = topos.DumbbellTopo(paths=1, per_path=[dict(loss=0.0)])
    assert clean.lossy_hop(None, 1) is None
    assert clean.realized(None, 1)["per_realized"] == 0.0


def test_node_reachable_counts_the_pings():
    class Shell:
        def __init__(self, answer):
            self.answer = answer

        def cmd(self, c):
            assert "seq 10" in c and "ping -n -c 1" in c
            return self.answer
    assert lab.node_reachable(Shell("reach=3\n"), "10.1.4.1") == (True, 3)
    assert lab.node_reachable(Shell("reach=fail\n"), "10.1.4.1") == (False, 10)
    assert lab.node_reachable(Shell(""), "10.1.4.1") == (False, 10)
    assert math.isclose(0.347152 ** 10, 2.56e-5, rel_tol=0.01)    # the docstring's 2e-5


def test_configure_checks_return_codes():
    n = SimpleNamespace(name="gw1p1", cmd=lambda c: "RTNETLINK answers: File exists\nrc=2\n")
    with pytest.raises(RuntimeError, match=r"gw1p1: `ip route add x` failed: RTNETLINK"):
        topos.PathsTopo._cmd(n, "ip route add x")
    ok = SimpleNamespace(name="h1p1", cmd=lambda c: "out\nrc=0\n")
    assert topos.PathsTopo._cmd(ok, "true").strip() == "out"


class BatchNode:
    """A Mininet node's shell as Cmds.run() meets it: records each command
    line and the batch files it names (read while they exist)."""

    def __init__(self, name, answer="rc=0\n"):
        self.name, self.answer, self.lines, self.files = name, answer, [], {}

    def cmd(self, c):
        self.lines.append(c)
        for f in re.findall(r"-batch (\S+)", c):
            with open(f) as fh:
                self.files[f] = fh.read().splitlines()
        return self.answer.format(*self.files)


def test_cmds_one_shell_line_a_node_batches_in_order():
    a, b = BatchNode("r1p1"), BatchNode("h2p1")
    c = topos.Cmds()
    c.tc(a, "qdisc add dev r1p1-eth1 root handle 1: htb default 1")
    c.ip(a, "route add 10.1.3.0/24 via 10.1.2.2")
    c.sh(a, "ethtool -K r1p1-eth1 tso off gso off gro off >/dev/null")
    c.tc(a, "class add dev r1p1-eth1 parent 1: classid 1:1 htb rate 20mbit")
    c.ip(b, "addr add 10.1.2.10/24 dev h2p1-eth0")
    c.run()
    assert len(a.lines) == 1 and len(b.lines) == 1, (a.lines, b.lines)
    # the shell commands first, then ip's batch, then tc's (with our plugins)
    parts = a.lines[0].split(" 2>&1; echo rc=$?")[0].split(" && ")
    assert parts[0] == "ethtool -K r1p1-eth1 tso off gso off gro off >/dev/null", parts
    assert re.fullmatch(r"ip -batch \S+\.ip", parts[1]), parts
    assert re.fullmatch(rf"TC_LIB_DIR={re.escape(topos.TC_LIB)} tc -batch \S+\.tc", parts[2])
    files = list(a.files.values())
    assert files == [["route add 10.1.3.0/24 via 10.1.2.2"],
                     ["qdisc add dev r1p1-eth1 root handle 1: htb default 1",
                      "class add dev r1p1-eth1 parent 1: classid 1:1 htb rate 20mbit"]]
    assert list(b.files.values()) == [["addr add 10.1.2.10/24 dev h2p1-eth0"]]
    assert not any(os.path.exists(f) for f in a.files)     # removed after the run
    c.run()                                                 # nothing left to run
    assert len(a.lines) == 1


def test_cmds_failure_names_the_node_and_the_line():
    # tc -batch stops at the line that failed and names it FILE:N
    n = BatchNode("r1p1", "Error: Specified qdisc kind is unknown.\n"
                          "Command failed {0}:2\nrc=1\n")
    c = topos.Cmds()
    c.tc(n, "qdisc add dev r1p1-eth1 root handle 1: htb default 1")
    c.tc(n, "qdisc add dev r1p1-eth1 parent 1:1 handle 10: redopt limit 10")
    with pytest.raises(RuntimeError, match=r"(?s)r1p1: .*qdisc kind is unknown.* "
                       r"\[tc qdisc add dev r1p1-eth1 parent 1:1 handle 10: redopt limit 10\]"):
        c.run()


class ShellHost(topos.BatchHost):
    """A BatchHost without Mininet's shell: cmd() runs the line in bash with
    `ip` standing for `cat`, so that it returns the batch ip would read."""

    def __init__(self, name, intfs):
        self.name, self.lines = name, []
        self.intfs = dict(enumerate(intfs))
        self.ports = {x: i for i, x in self.intfs.items()}
        self.nameToIntf = {x.name: x for x in intfs}

    def cmd(self, c):
        self.lines.append(c)
        return subprocess.run(["bash", "-c", "ip() { cat; }; " + c], capture_output=True,
                              text=True).stdout


def test_batch_intf_and_host_one_ip_batch_as_ifconfig_did():
    # Mininet's Link sets each end's address and state (Intf.config: setIP,
    # isUp(setUp=True)); the host's config() sets its first interface's
    # address again and its default route
    e0 = topos.BatchIntf("h1p1-eth0", ip="10.1.1.1/24")
    e1 = topos.BatchIntf("h1p1-eth1", up=True)
    assert e0.IP() == "10.1.1.1" and e0.prefixLen == "24"
    h = ShellHost("h1p1", [e0, e1])
    h.config(ip="10.1.1.1/24", defaultRoute="via 10.1.1.2")
    assert len(h.lines) == 1, h.lines
    out = h.cmd(h.lines[0].replace("; echo rc=$?", ""))
    # lo, the one address with its broadcast, the links up, then the route
    assert out.splitlines() == ["link set lo up",
                                "addr add 10.1.1.1/24 brd + dev h1p1-eth0",
                                "link set h1p1-eth0 up",
                                "link set h1p1-eth1 up",
                                "route replace default via 10.1.1.2"]
    # a router's line goes on in the same shell; a bare address needs its prefix
    assert topos.LinuxRouter.config_more(None) == " && echo 1 > /proc/sys/net/ipv4/ip_forward"
    with pytest.raises(ValueError, match="no prefix length"):
        e1.setIP("10.1.2.1")
    e1.setIP("10.1.2.1", 24)
    assert e1.batch_lines() == ["addr add 10.1.2.1/24 brd + dev h1p1-eth1",
                                "link set h1p1-eth1 up"]


def test_in_threads_at_once_in_order_first_error_after_all():
    import threading
    import time
    ended = []
    barrier = threading.Barrier(5, timeout=5)

    def work(x):
        barrier.wait()          # only returns when all five run at once
        ended.append(x)
        if x in (2, 4):
            raise ValueError(f"path {x}")
        return 2 * x
    assert lab.in_threads(lambda x: 2 * x, []) == []
    t0 = time.monotonic()
    assert lab.in_threads(lambda x: (time.sleep(0.3), 2 * x)[1], range(5)) == [0, 2, 4, 6, 8]
    assert time.monotonic() - t0 < 1.2
    with pytest.raises(ValueError, match="path 2"):
        lab.in_threads(work, range(5))
    assert sorted(ended) == [0, 1, 2, 3, 4]

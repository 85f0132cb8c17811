"""The physical ceiling and the PER, by hand (algorithms.md section 6).

ceiling = C (1 - PER) x payload / wire frame, PER = 1 - (1 - BER)^(8 frame),
the wire frame being what HTB and netem charge (skb->len): the IP packet
plus the 14-byte Ethernet header. A 1000-byte MSS with timestamps is a
1052-byte IP packet (the MTU) and a 1066-byte wire frame.
"""
import math
import os
import sys
from types import SimpleNamespace

import pytest

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(TOP, "mininet"))
import specnet_lab as lab  # noqa: E402
import topos  # noqa: E402


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


class FakeNode:
    """A Mininet node whose shell answers tc and nstat from tables."""

    def __init__(self, name, tc=None, nstat=None):
        self.name, self._tc, self._nstat = name, tc, nstat or {}

    def cmd(self, c):
        if c.startswith("tc -s -j qdisc show"):
            return self._tc
        if c.startswith("nstat -az"):
            return "#kernel\n" + "".join(f"{k} {v} 0.0\n" for k, v in self._nstat.items())
        raise AssertionError(c)


def test_realized_from_the_counters_of_a_corrupting_hop():
    # 1000 frames through the satellite hop; the next hop drops 3 with a bad
    # IP header, the receiver 70 with a bad TCP checksum: PER 0.073
    t = topos.SatelliteTopo(paths=1, mss=1000, per_path=[dict(ber=1e-5)])
    sat = FakeNode("satp1", tc='[{"kind":"netem","handle":"8001:","packets":1000,"drops":0}]')
    sat.intfList = lambda: ["satp1-eth0", "satp1-eth1"]
    net = {"satp1": sat,
           "gw2p1": FakeNode("gw2p1", nstat={"IpInHdrErrors": 3, "TcpInErrs": 0}),
           "h2p1": FakeNode("h2p1", nstat={"IpInHdrErrors": 0, "TcpInErrs": 70})}
    r = t.realized(net, 1)
    assert (r["lossy_pkts"], r["lossy_discarded"]) == (1000, 73)
    assert r["per_realized"] == pytest.approx(0.073)
    assert r["ceiling_bps"] == pytest.approx(60037.52 * 0.927, abs=0.1)


def test_realized_from_netem_drops_of_a_lossy_hop():
    # netem loss: 990 sent, 10 dropped -> 10 / 1000
    t = topos.DumbbellTopo(paths=1, per_path=[dict(loss=1.0)])
    nodes = [FakeNode(n) for n in ("h1p1", "r1p1", "r2p1", "h2p1")]
    nodes[2]._tc = '[{"kind":"htb","packets":990},{"kind":"netem","parent":"1:1",' \
                   '"packets":990,"drops":10}]'
    t.nodes_of = lambda net, p: nodes
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

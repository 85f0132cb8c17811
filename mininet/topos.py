"""specnet Mininet topologies.

    mn --custom mininet/topos.py --topo satellite,ber=5e-5 --controller none \\
       --switch lxbr --link tc

(or, as the runner does, `SatelliteTopo(...)` with `Mininet(topo,
controller=None)` and `configure_satellite(net, topo)` after start).

satellite: the SpecTCP paper's path, once per (flow) "path" so that several
  congestion controls run side by side without sharing anything:

      h1_i --10 Mbit/s-- gw1_i ==64 kbit/s== sat_i ==.== gw2_i --10 Mbit/s-- h2_i
                          RED+ECN          280 ms one way
                          queue            BER -> per-packet corruption
                                           (netem corrupt, data direction)

  * the gateway queue (gw1 -> sat) is HTB at 64 kbit/s with an ECN-marking
    RED child (min 5, max 15 packets, max_p 0.1 by default), or pfifo;
  * the satellite hop (sat) adds 280 ms each way and corrupts the data
    direction with PER = 1 - (1 - BER)^(8 * frame);
  * the return link (gw2 -> sat) is 64 kbit/s too;
  * MTU = frame size (1052 bytes: MSS 1000 + 52 bytes of TCP/IP headers
    with timestamps; 564 for MSS 512), so one TCP segment is one frame;
  * rwnd = 30 segments (window metric on the receiver's route back) and
    initial ssthresh = 30 segments (ssthresh metric on the sender's route).
"""
from mininet.link import TCLink
from mininet.node import Node
from mininet.topo import Topo

import specnet_lab as lab

TCPIP_HDR = 52      # IPv4 20 + TCP 20 + timestamps 12


class LinuxRouter(Node):
    """A node that forwards IPv4 (Mininet's examples/linuxrouter.py)."""

    def config(self, **params):
        super().config(**params)
        self.cmd("sysctl -qw net.ipv4.ip_forward=1")

    def terminate(self):
        self.cmd("sysctl -qw net.ipv4.ip_forward=0")
        super().terminate()


class SatelliteTopo(Topo):
    """@paths independent satellite paths (see the module docstring)."""

    def build(self, paths=1, ber=0.0, mss=1000, sat_bw_kbit=64, delay_ms=280,
              lan_bw_mbit=10, window=30, red=True):
        self.paths = int(paths)
        self.opts = dict(ber=float(ber), mss=int(mss), sat_bw_kbit=float(sat_bw_kbit),
                         delay_ms=float(delay_ms), lan_bw_mbit=float(lan_bw_mbit),
                         window=int(window), red=red not in (False, "0", "false", "no"))
        for i in range(self.paths):
            p = i + 1
            h1 = self.addHost(f"h1p{p}", ip=f"10.{p}.1.1/24", defaultRoute=f"via 10.{p}.1.254")
            h2 = self.addHost(f"h2p{p}", ip=f"10.{p}.4.1/24", defaultRoute=f"via 10.{p}.4.254")
            gw1 = self.addNode(f"gw1p{p}", cls=LinuxRouter, ip=f"10.{p}.1.254/24")
            sat = self.addNode(f"satp{p}", cls=LinuxRouter, ip=f"10.{p}.2.2/24")
            gw2 = self.addNode(f"gw2p{p}", cls=LinuxRouter, ip=f"10.{p}.3.2/24")  # first intf: toward sat
            lan = dict(cls=TCLink, bw=self.opts["lan_bw_mbit"])
            self.addLink(h1, gw1, params2=dict(ip=f"10.{p}.1.254/24"), **lan)
            self.addLink(gw1, sat, params1=dict(ip=f"10.{p}.2.1/24"),
                         params2=dict(ip=f"10.{p}.2.2/24"))
            self.addLink(sat, gw2, params1=dict(ip=f"10.{p}.3.1/24"),
                         params2=dict(ip=f"10.{p}.3.2/24"))
            self.addLink(gw2, h2, params1=dict(ip=f"10.{p}.4.254/24"), **lan)

    # -- after net.start() ------------------------------------------------
    def frame(self):
        return self.opts["mss"] + TCPIP_HDR

    def per(self):
        return lab.per_from_ber(self.opts["ber"], self.frame())

    def ceiling_bps(self):
        return lab.ceiling_bps(self.opts["sat_bw_kbit"] * 1000, self.per(),
                               self.opts["mss"], self.frame())

    def configure(self, net, ber=None):
        """Routes, MTU, qdiscs and TCP metrics of every path. @ber may be a
        list, one BER per path."""
        o = self.opts
        frame = self.frame()
        for i in range(self.paths):
            p = i + 1
            b = ber[i] if isinstance(ber, (list, tuple)) else (o["ber"] if ber is None else ber)
            per = lab.per_from_ber(b, frame)
            h1, h2 = net[f"h1p{p}"], net[f"h2p{p}"]
            gw1, sat, gw2 = net[f"gw1p{p}"], net[f"satp{p}"], net[f"gw2p{p}"]
            for n in (h1, h2, gw1, sat, gw2):
                for intf in n.intfList():
                    if intf.name != "lo":
                        n.cmd(f"ip link set {intf} mtu {frame}")
                        n.cmd(f"ethtool -K {intf} tso off gso off gro off >/dev/null 2>&1")
            gw1.cmd(f"ip route add 10.{p}.3.0/24 via 10.{p}.2.2")
            gw1.cmd(f"ip route add 10.{p}.4.0/24 via 10.{p}.2.2")
            sat.cmd(f"ip route add 10.{p}.1.0/24 via 10.{p}.2.1")
            sat.cmd(f"ip route add 10.{p}.4.0/24 via 10.{p}.3.2")
            gw2.cmd(f"ip route add 10.{p}.1.0/24 via 10.{p}.3.1")
            gw2.cmd(f"ip route add 10.{p}.2.0/24 via 10.{p}.3.1")
            # rwnd and initial ssthresh of 30 segments, no cached metrics
            h1.cmd("sysctl -qw net.ipv4.tcp_no_metrics_save=1 net.ipv4.tcp_no_ssthresh_metrics_save=0")
            h1.cmd(f"ip route change default via 10.{p}.1.254 ssthresh {o['window']}")
            h2.cmd(f"ip route change default via 10.{p}.4.254 window {o['window'] * o['mss']}")
            rate = f"{o['sat_bw_kbit']:g}kbit"
            gq = gw1.intfList()[1]
            gw1.cmd(f"tc qdisc add dev {gq} root handle 1: htb default 1")
            gw1.cmd(f"tc class add dev {gq} parent 1: classid 1:1 htb rate {rate} ceil {rate} burst 2k cburst 2k")
            if o["red"]:
                gw1.cmd(f"tc qdisc add dev {gq} parent 1:1 handle 10: red limit {30 * frame} "
                        f"min {5 * frame} max {15 * frame} avpkt {frame} burst 7 "
                        f"bandwidth {rate} probability 0.1 ecn")
            else:
                gw1.cmd(f"tc qdisc add dev {gq} parent 1:1 handle 10: pfifo limit 30")
            d = f"{o['delay_ms']:g}ms"
            sat.cmd(f"tc qdisc add dev {sat.intfList()[1]} root netem delay {d} "
                    f"corrupt {per * 100:.6f}% limit 1000")
            sat.cmd(f"tc qdisc add dev {sat.intfList()[0]} root netem delay {d} limit 1000")
            rq = gw2.intfList()[0]
            gw2.cmd(f"tc qdisc add dev {rq} root handle 1: htb default 1")
            gw2.cmd(f"tc class add dev {rq} parent 1: classid 1:1 htb rate {rate} ceil {rate} burst 2k cburst 2k")


topos = {"satellite": SatelliteTopo}

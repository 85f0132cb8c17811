"""specnet Mininet topologies.

    PYTHONPATH=. mn --custom specnet_bench/topos.py --topo satellite,ber=5e-5 --controller none \\
       --switch lxbr --link tc

(or, as the runner does, `SatelliteTopo(...)` with `Mininet(topo,
controller=None)` and `topo.configure(net)` after start: the shaping,
queues, impairments and routes are set there).

satellite: the SpecTCP paper's path, once per (flow) "path" so that several
  congestion controls run side by side without sharing anything:

      h1_i --10 Mbit/s-- gw1_i ==64 kbit/s== sat_i ==.== gw2_i --10 Mbit/s-- h2_i
                          RED+ECN          280 ms one way
                          queue            BER -> per-packet corruption
                                           (netem corrupt, data direction)

  * the gateway queue (gw1 -> sat) is HTB at 64 kbit/s with an ECN-marking
    RED child (min 5, max 15 packets, max_p 0.1 by default), or pfifo;
  * the satellite hop (sat) adds 280 ms each way and corrupts the data
    direction with PER = 1 - (1 - BER)^(8 * wire frame), the wire frame
    being the Ethernet frame the shaper charges (MTU + 14 bytes);
  * the return link (gw2 -> sat) is 64 kbit/s too;
  * MTU = frame size (1052 bytes: MSS 1000 + 52 bytes of TCP/IP headers
    with timestamps; 564 for MSS 512), so one TCP segment is one frame;
  * rwnd = 30 segments (window metric on the receiver's route back) and
    initial ssthresh = 30 segments (ssthresh metric on the sender's route,
    locked, and in force from the first flow: lab.route_ssthresh).

geo, hybrid, dumbbell, onoff: ChainTopo, one chain of links per path,

      h1p<p> --link 1-- r1p<p> --link 2-- ... --link k-- h2p<p>

  link j joins 10.<p>.<j>.1 (left) and 10.<p>.<j>.2 (right). Its data
  direction (left to right) is HTB at the link rate with one leaf: the
  queue (pfifo, RED with ECN, or a step ECN marker) or, on a lossy link,
  netem with the impairment (corrupt, random or Gilbert-Elliott loss) and a
  tail-drop limit. Propagation delay goes on the ACK direction (netem, 2x
  the one-way delay), so the RTT is right and the data direction keeps its
  queue; nothing is lost on the ACK direction or on a sender's interface.
  Offloads (TSO, GSO, GRO) are off everywhere.
  * geo:      h1 -100 Mbit/s- gw -20 Mbit/s, 300 ms one way, corruption- h2
  * leo:      h1 -100 Mbit/s- gw -20 Mbit/s- r2 -RTT of each 15 s epoch
              drawn from 25-60 ms, corruption, a 50-100 ms loss burst at
              each change- h2 (LeoTopo.dynamics() runs the epochs)
  * hybrid:   h1 -100 Mbit/s 3 ms- r1 -5 Mbit/s 40 ms, 30-packet buffer,
              ECN marking at K- r2 -10 Mbit/s 3 ms, 2-state Markov loss- h2
  * dumbbell: h1 -100 Mbit/s- r1 -10 Mbit/s bottleneck (RED+ECN or pfifo)-
              r2 [-lossy last hop-] h2; N flows h1 -> h2 share it
  * onoff:    h1 -100 Mbit/s- r1 -20 Mbit/s, 100-packet buffer- h2, with
              on/off background (specnet_bench/onoff.py) from h1
  * rtt-mix:  h1 -100 Mbit/s- r1 -20 Mbit/s, fq_codel with ECN- h2; two
              flows to two addresses of h2, one with a 50 ms RTT, one with
              600 ms (the receiver delays the ACKs of each by its RTT)
  * red:      h1 -100 Mbit/s- r1 -1.5 Mbit/s, 59 ms RTT- h2, MTU 1052: the
              RED model's example path (docs/algorithms.md, RED model), 2 ECN
              flows with initial ssthresh 15; the queue is redopt at the
              model's max_th, or stock RED at another max_th
"""
import json
import os
import random
import re
import shlex
import subprocess
import tempfile
import threading
import time

from mininet.link import Intf
from mininet.node import Node
from mininet.topo import Topo

from specnet_bench import specnet_lab as lab
from specnet_bench import units

TCPIP_HDR = 52      # IPv4 20 + TCP 20 + timestamps 12
ETH_HDR = 14        # HTB and netem charge skb->len: the Ethernet header counts


class BatchIntf(Intf):
    """A Mininet interface whose address and up state are set by its node's
    BatchHost.config(), in the node's one `ip -batch`. Mininet's Intf runs
    `ifconfig X ADDR up` and `ifconfig X up` for each interface, each a
    process of about 0.1 s under TCG, and deletes each end of a veth pair
    with a process of its own."""

    pending_up = False

    def setIP(self, ipstr, prefixLen=None):
        if "/" in ipstr:
            self.ip, self.prefixLen = ipstr.split("/")
        elif prefixLen is None:
            raise ValueError(f"{self.name}: no prefix length for {ipstr}")
        else:
            self.ip, self.prefixLen = ipstr, prefixLen
        self.pending_up = True
        return ""

    def isUp(self, setUp=False):
        if setUp:
            self.pending_up = True
            return True
        return super().isUp()

    def batch_lines(self):
        """What setIP() and isUp(setUp=True) asked for, as `ip -batch`
        lines, as ifconfig left it: the last address given (Mininet gives a
        host's first interface its address twice), with the broadcast
        address of its prefix, and the link up."""
        out = []
        if self.ip:
            out.append(f"addr add {self.ip}/{self.prefixLen} brd + dev {self.name}")
        if self.pending_up:
            out.append(f"link set {self.name} up")
        self.pending_up = False
        return out

    def delete(self):
        # deleting one end of a veth pair deletes the other
        link = self.link
        if not (link and None in (link.intf1, link.intf2)):
            self.cmd("ip link del " + self.name)
        self.node.delIntf(self)
        self.link = None


class BatchHost(Node):
    """A Mininet host configured by one `ip -batch` (lo up, its interfaces'
    addresses and states from BatchIntf, its default route) where Node.config()
    runs an ifconfig for each and two `ip route` processes. Links between
    BatchHosts take intf=BatchIntf (PathsTopo.add_link())."""

    def config(self, mac=None, ip=None, defaultRoute=None, lo="up", **_params):
        r = {}
        self.setParam(r, "setMAC", mac=mac)
        self.setParam(r, "setIP", ip=ip)
        lines = [f"link set lo {lo}"]
        for intf in self.intfList():
            if isinstance(intf, BatchIntf):
                lines += intf.batch_lines()
        if defaultRoute:
            route = defaultRoute if " " in defaultRoute else f"dev {defaultRoute}"
            lines.append(f"route replace default {route}")
        words = " ".join(shlex.quote(line) for line in lines)
        PathsTopo._cmd(self, f"printf '%s\\n' {words} | ip -batch -{self.config_more()}")
        return r

    def config_more(self):
        """More of config()'s shell line (' && cmd'), in the same shell."""
        return ""


class LinuxRouter(BatchHost):
    """A node that forwards IPv4 (Mininet's examples/linuxrouter.py)."""

    def config_more(self):
        # the shell's own echo: sysctl is a process, ~0.1 s under TCG
        return " && echo 1 > /proc/sys/net/ipv4/ip_forward"

    def terminate(self):
        self.cmd("echo 0 > /proc/sys/net/ipv4/ip_forward")
        super().terminate()


class Cmds:
    """Configuration commands for Mininet nodes, run together by run(): per
    node, in one shell line, its shell commands (sh()), then one `ip
    -batch` of its ip() lines and one `tc -batch` of its tc() lines, each
    in the order given. Every process a node's shell starts costs about
    0.1 s under TCG (`ip link show` 143 ms; five of them in one `ip -batch`
    149 ms), and a path has tens of such commands. A batch stops at its
    first line that fails; run() raises with the node, the line and the
    tool's message (a configuration that failed must not be measured)."""

    KINDS = ("sh", "ip", "tc")

    def __init__(self):
        self.todo = {}                  # node -> {kind: [lines]}

    def _add(self, node, kind, line):
        self.todo.setdefault(node, {k: [] for k in self.KINDS})[kind].append(line)

    def sh(self, node, cmd):
        self._add(node, "sh", cmd)

    def ip(self, node, line):
        """An `ip` command's words after `ip` ('route add ...')."""
        self._add(node, "ip", line)

    def tc(self, node, line):
        """A `tc` command's words after `tc` ('qdisc add dev ...'); our
        redopt's tc plugin is found (TC_LIB_DIR)."""
        self._add(node, "tc", line)

    def run(self):
        with tempfile.TemporaryDirectory(prefix="specnet-topo-") as d:
            for k, (node, c) in enumerate(self.todo.items()):
                parts, files = list(c["sh"]), {}
                for kind in ("ip", "tc"):
                    if c[kind]:
                        files[kind] = f = os.path.join(d, f"{k}.{kind}")
                        with open(f, "w") as fh:
                            fh.write("\n".join(c[kind]) + "\n")
                        env = f"TC_LIB_DIR={TC_LIB} " if kind == "tc" else ""
                        parts.append(f"{env}{kind} -batch {f}")
                if not parts:
                    continue
                try:
                    PathsTopo._cmd(node, " && ".join(parts))
                except RuntimeError as e:
                    raise RuntimeError(self.explain(str(e), c, files)) from None
        self.todo.clear()

    @staticmethod
    def explain(msg, lines, files):
        """@msg with the batch line it names ('Command failed F:N') added."""
        m = re.search(r"Command failed (\S+):(\d+)", msg)
        for kind, f in files.items():
            if m and m.group(1) == f:
                return f"{msg} [{kind} {lines[kind][int(m.group(2)) - 1]}]"
        return msg


class PathsTopo(Topo):
    """Independent paths p = 1..paths, each from sender h1p<p> to receiver
    h2p<p>; subclasses give dst_ip(p), bottleneck(net, p), frame(),
    payload(), per(p) (the nominal PER), capacity_bps(p), rtt_ms(p), and
    lossy_hop(net, p) (where the impairment is applied, if anywhere).

    Ceilings (docs/algorithms.md, Metrics): C (1 - PER) payload / wire frame,
    the wire frame being what the shaper charges (the IP packet plus the
    Ethernet header). ceiling_bps(p) is the nominal one; realized(net, p)
    reads the lossy hop's counters after a run and gives the realized PER
    and the ceiling from it, the one figures are judged on."""

    def add_host(self, name, cls=None, **opts):
        """A node of BatchHost (or its subclass @cls): configured with one
        `ip -batch`."""
        return self.addHost(name, cls=cls or BatchHost, **opts)

    def add_link(self, a, b, **opts):
        """A veth pair between nodes of add_host(), its addresses and state
        set by their `ip -batch`."""
        return self.addLink(a, b, intf=BatchIntf, **opts)

    @staticmethod
    def intf(a, b):
        """@a's interface toward @b."""
        return a.connectionsTo(b)[0][0]

    def sender(self, net, p):
        return net[f"h1p{p}"]

    def receiver(self, net, p):
        return net[f"h2p{p}"]

    def flows(self, p):
        """Flows per path where the topology fixes them (None: the
        scenario's or the case's)."""
        return None

    def flow_dst(self, p, i):
        """The address flow @i of path @p sends to."""
        return self.dst_ip(p)

    def wire_frame(self):
        """Ethernet frame of a full-sized segment: the IP MTU + 14."""
        return self.frame() + ETH_HDR

    def bdp_frames(self, rate, rtt_ms):
        """The BDP of @rate (tc's syntax) over @rtt_ms in full-sized wire
        frames, the unit the shaper charges and the queues count."""
        return units.rate_bps(rate) * float(rtt_ms) / 1e3 / 8 / self.wire_frame()

    def payload(self):
        """TCP payload of a full-sized segment (timestamps on)."""
        return self.frame() - TCPIP_HDR

    def ceiling_bps(self, p=1):
        """The nominal ceiling C (1 - PER) payload / wire frame."""
        return lab.ceiling_bps(self.capacity_bps(p), self.per(p), self.payload(),
                               self.wire_frame())

    def lossy_hop(self, net, p):
        """(node, interface, kind) of path @p's impairment (a netem root or
        leaf qdisc on the data direction), kind 'corrupt' or 'loss'; None on
        a loss-free path."""
        return None

    def count_lossy_hop(self, net, cmds):
        """Count the IPv4 frames that enter each path's lossy hop: a
        matchall filter on the interface's clsact egress hook (it runs
        before the root qdisc), so ARP and IPv6 frames, which netem also
        corrupts, stay out of the realized PER. Into Cmds @cmds."""
        for p in range(1, self.paths + 1):
            hop = self.lossy_hop(net, p)
            if hop:
                node, intf, _ = hop
                cmds.tc(node, f"qdisc add dev {intf} clsact")
                cmds.tc(node, f"filter add dev {intf} egress protocol ip pref 1 "
                              "matchall action pass")

    def realized(self, net, p):
        """After a run: the IPv4 frames that entered path @p's lossy hop,
        those that did not arrive intact, the realized PER and the ceiling
        from it. On a loss-free path the PER is 0.

        Arrived intact = what the receiver's TCP, ICMP and UDP accepted
        (InSegs - InErrs, InMsgs - InErrors, InDatagrams). netem corrupt
        flips one bit of the linear part, which for TCP with scatter-gather
        is the headers only: a flip in an IP or TCP header is counted by a
        header/checksum error (lossy_errors), one in the destination MAC
        or EtherType is dropped without any counter, one in the source MAC
        is harmless. Counting deliveries takes all three right; frames a
        corrupting netem drops for its own queue limit (congestion) are
        taken out of the frames that entered."""
        hop = self.lossy_hop(net, p)
        if hop is None:
            return dict(lossy_pkts=0, lossy_discarded=0, lossy_errors=0, per_realized=0.0,
                        ceiling_bps=self.ceiling_bps(p))
        node, intf, kind = hop
        entered = lab.node_filter_packets(node, intf)
        overflow = lab.node_netem_stats(node, intf).get("drops", 0) if kind == "corrupt" else 0
        rcv = self.receiver(net, p)
        got = lab.parse_nstat(rcv.cmd("nstat -az " + " ".join(lab.DELIVERY_COUNTERS)),
                              lab.DELIVERY_COUNTERS)
        delivered = (got.get("TcpInSegs", 0) - got.get("TcpInErrs", 0) +
                     got.get("IcmpInMsgs", 0) - got.get("IcmpInErrors", 0) +
                     got.get("UdpInDatagrams", 0))
        errors = sum(lab.node_nstat(n, *lab.DISCARD_COUNTERS)
                     for n in self.nodes_after(net, p, node))
        through = None if entered is None else entered - overflow
        discarded = None if through is None else through - delivered
        try:
            per = lab.realized_per(through, discarded)
        except ValueError:
            per = None
        out = dict(lossy_pkts=through, lossy_discarded=discarded, lossy_errors=errors,
                   per_realized=per,
                   ceiling_bps=lab.ceiling_bps(self.capacity_bps(p),
                                               self.per(p) if per is None else per,
                                               self.payload(), self.wire_frame()))
        if per is None:
            out["lossy_note"] = (f"counters disagree (entered {entered}, overflow {overflow}, "
                                 f"delivered {delivered}): nominal PER used")
        return out

    @staticmethod
    def _cmd(node, cmd):
        """Run @cmd in @node's shell; a non-zero exit raises with the
        command and its output (a configuration that failed must not be
        measured)."""
        out = node.cmd(cmd + " 2>&1; echo rc=$?")
        if not out.rstrip().endswith("rc=0"):
            raise RuntimeError(f"{node.name}: `{cmd}` failed: {out.strip()}")
        return out.rstrip()[:-len("rc=0")]


class SatelliteTopo(PathsTopo):
    """@paths independent satellite paths (see the module docstring)."""

    def build(self, paths=1, ber=0.0, mss=1000, sat_bw_kbit=64, delay_ms=280,
              lan_bw_mbit=10, window=30, red=True, per_path=None):
        self.paths = int(paths)
        # the runner's cases side by side: one BER per path
        self.bers = [float((per_path[i] if per_path else {}).get("ber", ber))
                     for i in range(self.paths)]
        self.opts = dict(ber=float(ber), mss=int(mss), sat_bw_kbit=float(sat_bw_kbit),
                         delay_ms=float(delay_ms), lan_bw_mbit=float(lan_bw_mbit),
                         window=int(window), red=red not in (False, "0", "false", "no"))
        for i in range(self.paths):
            p = i + 1
            h1 = self.add_host(f"h1p{p}", ip=f"10.{p}.1.1/24", defaultRoute=f"via 10.{p}.1.254")
            h2 = self.add_host(f"h2p{p}", ip=f"10.{p}.4.1/24", defaultRoute=f"via 10.{p}.4.254")
            gw1 = self.add_host(f"gw1p{p}", cls=LinuxRouter, ip=f"10.{p}.1.254/24")
            sat = self.add_host(f"satp{p}", cls=LinuxRouter, ip=f"10.{p}.2.2/24")
            gw2 = self.add_host(f"gw2p{p}", cls=LinuxRouter, ip=f"10.{p}.3.2/24")  # first intf: toward sat
            self.add_link(h1, gw1, params2=dict(ip=f"10.{p}.1.254/24"))
            self.add_link(gw1, sat, params1=dict(ip=f"10.{p}.2.1/24"),
                          params2=dict(ip=f"10.{p}.2.2/24"))
            self.add_link(sat, gw2, params1=dict(ip=f"10.{p}.3.1/24"),
                          params2=dict(ip=f"10.{p}.3.2/24"))
            self.add_link(gw2, h2, params1=dict(ip=f"10.{p}.4.254/24"))

    # -- after net.start() ------------------------------------------------
    def frame(self):
        """The IP MTU: one TCP segment of MSS + headers (sets the MTU and
        RED's byte thresholds)."""
        return self.opts["mss"] + TCPIP_HDR

    def per(self, p=None):
        """Nominal PER of path @p's BER on the wire frame."""
        return lab.per_from_ber(self.bers[p - 1] if p else self.opts["ber"], self.wire_frame())

    def lossy_hop(self, net, p):
        sat = net[f"satp{p}"]
        return sat, sat.intfList()[1], "corrupt"

    def nodes_after(self, net, p, node):
        return [net[f"gw2p{p}"], net[f"h2p{p}"]]

    @staticmethod
    def mss_for(ber):
        """The paper's segment size: 512 bytes above BER 5e-5, else 1000."""
        return 512 if ber > 5e-5 else 1000

    def capacity_bps(self, p=1):
        return self.opts["sat_bw_kbit"] * 1000

    def dst_ip(self, p):
        return f"10.{p}.4.1"

    def bottleneck(self, net, p):
        gw1 = net[f"gw1p{p}"]
        return gw1, gw1.intfList()[1]

    def rtt_ms(self, p=1):
        return 2 * self.opts["delay_ms"]

    def configure(self, net, ber=None):
        """Routes, MTU, qdiscs and TCP metrics of every path. @ber may be a
        list, one BER per path."""
        o = self.opts
        frame = self.frame()
        cmds = Cmds()
        for i in range(self.paths):
            p = i + 1
            b = ber[i] if isinstance(ber, (list, tuple)) else (self.bers[i] if ber is None else ber)
            self.bers[i] = float(b)         # per(p) and the ceiling follow
            per = self.per(p)
            h1, h2 = net[f"h1p{p}"], net[f"h2p{p}"]
            gw1, sat, gw2 = net[f"gw1p{p}"], net[f"satp{p}"], net[f"gw2p{p}"]
            # the LANs: HTB at lan_bw_mbit both ways (as Mininet's TCLink bw=)
            for a, b in ((h1, gw1), (gw1, h1), (gw2, h2), (h2, gw2)):
                intf = self.intf(a, b)
                cmds.tc(a, f"qdisc add dev {intf} root handle 5:0 htb default 1")
                cmds.tc(a, f"class add dev {intf} parent 5:0 classid 5:1 htb "
                           f"rate {o['lan_bw_mbit']:f}Mbit burst 15k")
            for n in (h1, h2, gw1, sat, gw2):
                for intf in n.intfList():
                    if intf.name != "lo":
                        cmds.ip(n, f"link set {intf} mtu {frame}")
                        cmds.sh(n, f"ethtool -K {intf} tso off gso off gro off >/dev/null")
            cmds.ip(gw1, f"route add 10.{p}.3.0/24 via 10.{p}.2.2")
            cmds.ip(gw1, f"route add 10.{p}.4.0/24 via 10.{p}.2.2")
            cmds.ip(sat, f"route add 10.{p}.1.0/24 via 10.{p}.2.1")
            cmds.ip(sat, f"route add 10.{p}.4.0/24 via 10.{p}.3.2")
            cmds.ip(gw2, f"route add 10.{p}.1.0/24 via 10.{p}.3.1")
            cmds.ip(gw2, f"route add 10.{p}.2.0/24 via 10.{p}.3.1")
            # rwnd of 30 segments (and the initial ssthresh: configure's end)
            cmds.ip(h2, f"route change default via 10.{p}.4.254 window {o['window'] * o['mss']}")
            rate = f"{o['sat_bw_kbit']:g}kbit"
            gq = gw1.intfList()[1]
            cmds.tc(gw1, f"qdisc add dev {gq} root handle 1: htb default 1")
            cmds.tc(gw1, f"class add dev {gq} parent 1: classid 1:1 htb rate {rate} ceil {rate} burst 2k cburst 2k")
            if o["red"]:
                cmds.tc(gw1, f"qdisc add dev {gq} parent 1:1 handle 10: red limit {30 * frame} "
                        f"min {5 * frame} max {15 * frame} avpkt {frame} burst 7 "
                        f"bandwidth {rate} probability 0.1 ecn")
            else:
                cmds.tc(gw1, f"qdisc add dev {gq} parent 1:1 handle 10: pfifo limit 30")
            d = f"{o['delay_ms']:g}ms"
            cmds.tc(sat, f"qdisc add dev {sat.intfList()[1]} root netem delay {d} "
                    f"corrupt {per * 100:.6f}% limit 1000")
            cmds.tc(sat, f"qdisc add dev {sat.intfList()[0]} root netem delay {d} limit 1000")
            rq = gw2.intfList()[0]
            cmds.tc(gw2, f"qdisc add dev {rq} root handle 1: htb default 1")
            cmds.tc(gw2, f"class add dev {rq} parent 1: classid 1:1 htb rate {rate} ceil {rate} burst 2k cburst 2k")
        # before the routes are primed: the priming's frames count on both
        # sides of the realized PER (docs/bench.md, "Realized PER")
        self.count_lossy_hop(net, cmds)
        cmds.run()

        def prime(p):
            h1, h2 = self.sender(net, p), self.receiver(net, p)
            lab.route_ssthresh(lambda c: self._cmd(h1, c), lab.node_netns(h1), lab.node_netns(h2),
                               f"change default via 10.{p}.1.254", self.dst_ip(p),
                               self.opts["window"])
            # nothing the flows learn is cached after this
            self._cmd(h1, "sysctl -qw net.ipv4.tcp_no_metrics_save=1")
        lab.in_threads(prime, range(1, self.paths + 1))


MTU = 1500
TC_LIB = lab.TC_LIB
SPECCTL = os.path.join(lab.TOP, "build", "userspace", "specctl")


def link(rate, delay_ms=0.0, queue=None, impair=None, limit=1000):
    """One link of a ChainTopo. @rate: tc rate ('20mbit'); @queue: None
    (pfifo of @limit packets), ('red', min, max, prob) in packets with ECN,
    or ('step', K): CE on ECT (drop otherwise) above K packets; @impair:
    netem loss words ('corrupt 1%', 'loss 2%', 'loss gemodel 1% 10% 2% 0.1%'),
    then @limit is netem's tail-drop queue. A link has a queue or an
    impairment, not both."""
    assert not (queue and impair), "a link has a queue or an impairment, not both"
    return dict(rate=rate, delay_ms=float(delay_ms), queue=queue, impair=impair,
                limit=int(limit))


def queue_tc(q, limit, rate, mtu=MTU):
    """tc words of a leaf queue (parent 1:1 handle 10:): @q None (pfifo),
    ('red', min, max, prob[, burst]) in packets, ('step', K), ('redopt',
    its tc words), ('fq_codel', interval ms[, 'ecn']): without ECN unless
    'ecn' is given, or ('cake', rtt ms)."""
    if not q:
        return f"pfifo limit {limit}"
    kind = q[0]
    if kind == "red":
        mn, mx, prob = q[1], q[2], q[3]
        burst = q[4] if len(q) > 4 else int((2 * mn + mx) / 3) + 1
        return (f"red limit {limit * mtu} min {mn * mtu} max {mx * mtu} avpkt {mtu} "
                f"burst {burst} bandwidth {rate} probability {prob} ecn")
    if kind == "step":
        # a DCTCP-style marker: RED whose average follows the instant queue
        # (burst 1 -> the smallest EWMA weight tc allows is avoided by
        # min = K, max = K + 1, probability 1: marks all above K)
        k = q[1]
        return (f"red limit {limit * mtu} min {k * mtu} max {(k + 1) * mtu} avpkt {mtu} "
                f"burst {k + 1} bandwidth {rate} probability 1.0 ecn")
    if kind == "redopt":
        return f"redopt {q[1]}"
    if kind == "fq_codel":
        # the interval covers the path's RTT; drops, never marks, unless 'ecn'
        ecn = "ecn" if len(q) > 2 and q[2] == "ecn" else "noecn"
        return f"fq_codel limit {limit} target 5ms interval {q[1]}ms {ecn}"
    if kind == "cake":
        # the HTB above shapes; cake marks ECT packets (its default) and
        # counts its memory in skb truesize, about twice a frame
        return f"cake unlimited rtt {q[1]}ms besteffort memlimit {2 * limit * mtu}"
    raise ValueError(f"unknown queue {q!r}")


class ChainTopo(PathsTopo):
    """@paths independent chains of links (link() dicts, from chain_links(**opts)),
    see the module docstring; @per_path: one dict of opts per path that
    overrides @opts there (the runner's cases side by side). configure(net)
    after net.start(). @mtu: of every interface (1500 by default)."""

    mtu = MTU

    def chain_links(self, **opts):
        raise NotImplementedError

    def build(self, paths=1, per_path=None, **opts):
        self.paths = int(paths)
        self.opts = opts
        self.path_opts = [dict(opts, **(per_path[i] if per_path else {}))
                          for i in range(self.paths)]
        self.chains = [self.chain_links(**o) for o in self.path_opts]
        for p in range(1, self.paths + 1):
            k = len(self.chains[p - 1])
            names = [f"h1p{p}"] + [f"r{i}p{p}" for i in range(1, k)] + [f"h2p{p}"]
            self.add_host(names[0], ip=f"10.{p}.1.1/24", defaultRoute=f"via 10.{p}.1.2")
            for n in names[1:-1]:
                self.add_host(n, cls=LinuxRouter, ip=None)
            self.add_host(names[-1], ip=f"10.{p}.{k}.2/24", defaultRoute=f"via 10.{p}.{k}.1")
            for j in range(1, k + 1):
                self.add_link(names[j - 1], names[j], params1=dict(ip=f"10.{p}.{j}.1/24"),
                              params2=dict(ip=f"10.{p}.{j}.2/24"))

    # -- after net.start() ------------------------------------------------
    def nodes_of(self, net, p):
        k = len(self.chains[p - 1])
        return ([net[f"h1p{p}"]] + [net[f"r{i}p{p}"] for i in range(1, k)] +
                [net[f"h2p{p}"]])

    def dst_ip(self, p):
        return f"10.{p}.{len(self.chains[p - 1])}.2"

    def bottleneck(self, net, p):
        """(node, interface) of path @p's first link with a queue of its own
        (the marking queue), else of its slowest link."""
        chain, nodes = self.chains[p - 1], self.nodes_of(net, p)
        j = next((j for j, l in enumerate(chain) if l["queue"]), None)
        if j is None:
            j = min(range(len(chain)), key=lambda j: units.rate_bps(chain[j]["rate"]))
        return nodes[j], self.intf(nodes[j], nodes[j + 1])

    def rtt_ms(self, p=1):
        return 2 * sum(l["delay_ms"] for l in self.chains[p - 1])

    def capacity_bps(self, p=1):
        return min(units.rate_bps(l["rate"]) for l in self.chains[p - 1])

    def per(self, p=1):
        """Nominal packet loss rate of path @p's impairments."""
        return 0.0

    def frame(self):
        """IP packet of a full-sized segment: the MTU (at 1500, MSS 1448
        with timestamps in a 1514-byte wire frame)."""
        return self.mtu

    def lossy_hop(self, net, p):
        chain = self.chains[p - 1]
        j = next((j for j, l in enumerate(chain) if l["impair"]), None)
        if j is None or not float(self.per(p)):
            return None
        nodes = self.nodes_of(net, p)
        kind = "corrupt" if chain[j]["impair"].startswith("corrupt") else "loss"
        return nodes[j], self.intf(nodes[j], nodes[j + 1]), kind

    def nodes_after(self, net, p, node):
        nodes = self.nodes_of(net, p)
        return nodes[nodes.index(node) + 1:]

    def configure(self, net):
        cmds = Cmds()
        for p in range(1, self.paths + 1):
            chain, nodes = self.chains[p - 1], self.nodes_of(net, p)
            k = len(chain)
            for n in nodes:
                for i in n.intfList():
                    if i.name != "lo":
                        cmds.sh(n, f"ethtool -K {i} tso off gso off gro off >/dev/null")
                        if self.mtu != MTU:
                            cmds.ip(n, f"link set {i} mtu {self.mtu}")
            for i, n in enumerate(nodes[1:-1], start=1):
                # router i sits on links i and i + 1; the hosts' subnets are 1 and k
                if i > 1:
                    cmds.ip(n, f"route add 10.{p}.1.0/24 via 10.{p}.{i}.1")
                if i + 1 < k:
                    cmds.ip(n, f"route add 10.{p}.{k}.0/24 via 10.{p}.{i + 1}.2")
            for j, l in enumerate(chain):
                a, b = nodes[j], nodes[j + 1]
                ia, ib = self.intf(a, b), self.intf(b, a)
                leaf = (f"netem {l['impair']} limit {l['limit']}" if l["impair"]
                        else queue_tc(l["queue"], l["limit"], l["rate"], self.mtu))
                cmds.tc(a, f"qdisc add dev {ia} root handle 1: htb default 1")
                cmds.tc(a, f"class add dev {ia} parent 1: classid 1:1 htb "
                           f"rate {l['rate']} ceil {l['rate']} burst 15k cburst 15k")
                cmds.tc(a, f"qdisc add dev {ia} parent 1:1 handle 10: {leaf}")
                if l["delay_ms"]:
                    cmds.tc(b, f"qdisc add dev {ib} root netem "
                               f"delay {2 * l['delay_ms']:g}ms limit 100000")
        self.count_lossy_hop(net, cmds)
        self.configure_more(net, cmds)
        cmds.run()

    def configure_more(self, net, cmds):
        """A subclass's own configuration, into Cmds @cmds, each node's
        lines after the chain's."""


def redopt_gateway_words(rate, rtt_ms, bdp_pkts):
    """redopt's words for one flow on a path of @rate and @rtt_ms whose BDP
    is @bdp_pkts wire frames, as its model dimensions it (limit and max_th
    from the inputs): min_th 5% of the BDP and max_p 0.1, as the 'red'
    gateway, 1500-byte packets, and the flow's slow start taken to end at
    the BDP (the initial ssthresh is infinite; HyStart++ ends it near the
    BDP)."""
    return (f"bandwidth {rate} rtt {round(rtt_ms)}ms flows 1 ssthresh {round(bdp_pkts)} "
            f"min {max(1, round(0.05 * bdp_pkts))} probability 0.1 avpkt {MTU} ecn")


def gateway(scen, gw, bdp_pkts, interval_ms, bdp, kinds, rate=None):
    """(queue, limit) of the bottleneck's gateway @gw, one of @kinds, for a
    BDP of @bdp_pkts wire frames: 'fq_codel' (ECN, target 5 ms, interval
    @interval_ms, limit 4 BDPs), 'cake' (unshaped under the link's HTB,
    ECN as its default, rtt @interval_ms, best effort, memory for 4 BDPs),
    'red' (ECN, thresholds 5% and 20% of the BDP, max_p 0.1, limit 2
    BDPs), 'redopt' (redopt_gateway_words() for @rate and an RTT of
    @interval_ms; limit and max_th its model's) or 'fifo' (tail drop, @bdp
    BDPs)."""
    if gw not in kinds:
        raise ValueError(f"{scen}: unknown gateway {gw!r} ({', '.join(kinds)})")
    if gw == "fq_codel":
        return ("fq_codel", round(interval_ms), "ecn"), max(100, round(4 * bdp_pkts))
    if gw == "cake":
        return ("cake", round(interval_ms)), max(100, round(4 * bdp_pkts))
    if gw == "red":
        return ("red", round(0.05 * bdp_pkts), round(0.2 * bdp_pkts), 0.1), round(2 * bdp_pkts)
    if gw == "redopt":
        # the limit is the qdisc's own, from its model; this one is unused
        return ("redopt", redopt_gateway_words(rate, interval_ms, bdp_pkts)), 0
    return None, max(4, round(float(bdp) * bdp_pkts))


class GeoTopo(ChainTopo):
    """GEO satellite: 20 Mbit/s, 600 ms RTT, random corruption @loss percent
    on the data direction (netem corrupt; the receiver drops the segment on
    its checksum).

    @gw, the gateway at the 20 Mbit/s bottleneck, with the delay and the
    corruption on a link after it: 'fq_codel' (ECN, target 5 ms, interval
    the RTT), 'red' (ECN, thresholds 5% and 20% of the BDP, max_p 0.1, the
    average's weight from tc's burst rule) or 'fifo' (tail drop, @bdp
    times the BDP in wire frames). Without @gw: the netem of the delay
    link queues, 3000 packets (about 2 BDPs), the 'geo' scenario's path.

    Probes (not the scenario's defaults): @step K > 0 puts an ECN step
    marker (CE above K packets, a drop for non-ECT) at the 20 Mbit/s queue,
    with the delay and the corruption on a link after it; @hostbuf_mb M > 0
    sets every node's tcp_rmem/tcp_wmem maximum to M MB (Linux's defaults
    are 6 MB and 4 MB); @initrwnd N > 0 sets the initial receive window of
    the receiver's routes to N segments (`ip route change ... initrwnd N`;
    Linux advertises 10 segments first, then grows the window as data
    arrives)."""

    extra_opts = ("hostbuf_mb", "initrwnd")

    def chain_links(self, loss=1.0, rate="20mbit", rtt_ms=600, step=0, gw="", bdp=1.0,
                    **_):
        impair = f"corrupt {float(loss):g}%"
        if gw:
            bdp_pkts = self.bdp_frames(rate, rtt_ms)
            q, limit = gateway("geo", gw, bdp_pkts, float(rtt_ms), bdp,
                               ("fq_codel", "cake", "red", "redopt", "fifo"), rate)
            return [link("100mbit"), link(rate, 0, queue=q, limit=limit),
                    link("1000mbit", float(rtt_ms) / 2, impair=impair, limit=10000)]
        if int(step) > 0:
            return [link("100mbit"), link(rate, 0, queue=("step", int(step)), limit=3000),
                    link("1000mbit", float(rtt_ms) / 2, impair=impair, limit=10000)]
        return [link("100mbit"), link(rate, float(rtt_ms) / 2, impair=impair, limit=3000)]

    def configure(self, net):
        super().configure(net)
        for p in range(1, self.paths + 1):
            mb = int(self.path_opts[p - 1].get("hostbuf_mb", 0))
            if mb <= 0:
                continue
            for n in self.nodes_of(net, p):
                self._cmd(n, f"sysctl -qw net.ipv4.tcp_rmem='4096 131072 {mb << 20}' "
                             f"net.ipv4.tcp_wmem='4096 16384 {mb << 20}'")
        for p in range(1, self.paths + 1):
            n = int(self.path_opts[p - 1].get("initrwnd", 0))
            if n <= 0:
                continue
            rcv = self.receiver(net, p)
            for route in rcv.cmd("ip -4 route show").splitlines():
                if route.strip():
                    self._cmd(rcv, f"ip route change {route.strip()} initrwnd {n}")

    def per(self, p=1):
        return float(self.path_opts[p - 1].get("loss", 1.0)) / 100


class GeoAqmTopo(GeoTopo):
    """The geo path behind a gateway that marks: @gw 'fq_codel' (the
    default), 'cake', 'red' or 'redopt', all with ECN (gateway() says how
    they are set)."""

    MARKING = ("fq_codel", "cake", "red", "redopt")

    def chain_links(self, loss=1.0, rate="20mbit", rtt_ms=600, gw="fq_codel", **_):
        if gw not in self.MARKING:
            raise ValueError(f"geo-aqm: gateway {gw!r} does not mark "
                             f"({', '.join(self.MARKING)})")
        return super().chain_links(loss=loss, rate=rate, rtt_ms=rtt_ms, gw=gw)


class GeoTaildropTopo(GeoTopo):
    """The geo path behind a tail-drop FIFO of @bdp BDPs that never marks."""

    def chain_links(self, loss=1.0, rate="20mbit", rtt_ms=600, bdp=1.0, **_):
        return super().chain_links(loss=loss, rate=rate, rtt_ms=rtt_ms, gw="fifo", bdp=bdp)


class LeoTopo(ChainTopo):
    """A LEO constellation path, Starlink-like: 20 Mbit/s (the most the
    TCG bed forwards for one flow with room to spare), random corruption of
    @loss percent, and every @epoch_s seconds (15, Starlink's reallocation
    interval) a new satellite: the propagation RTT of the epoch is drawn
    from 25-60 ms and the change comes with a loss burst of 50-100 ms (the
    handover), both from random.Random(seed), seed the repetition, so that
    each repetition runs the same schedule for every congestion control.

    @gw, the gateway at the 20 Mbit/s bottleneck: 'fq_codel' (ECN, target
    5 ms, interval 100 ms, its default, which covers the longest RTT) or
    'fifo' (tail drop, @bdp BDPs at the longest RTT). The delay and the
    corruption sit on the link after it, as on the GEO paths; the RTT is
    the ACK path's netem delay, changed in place (`tc qdisc change`), so
    ACKs already in flight keep theirs. The burst is the corrupting
    netem's `loss 100%`; its drops count as the path's losses in the
    realized PER (its queue, 10000 packets, never fills at this rate)."""

    RTT_RANGE_MS = (25.0, 60.0)
    BURST_RANGE_MS = (50.0, 100.0)
    extra_opts = ("epoch_s",)

    def chain_links(self, loss=0.5, rate="20mbit", gw="fq_codel", bdp=1.0, **_):
        impair = f"corrupt {float(loss):g}%"
        bdp_pkts = self.bdp_frames(rate, self.RTT_RANGE_MS[1])
        q, limit = gateway("leo", gw, bdp_pkts, 100, bdp, ("fq_codel", "fifo"))
        mid = sum(self.RTT_RANGE_MS) / 2
        return [link("100mbit"), link(rate, 0, queue=q, limit=limit),
                link("1000mbit", mid / 2, impair=impair, limit=10000)]

    def epoch_s(self, p=1):
        return float(self.path_opts[p - 1].get("epoch_s", 15))

    def epochs(self, seconds, seed, p=1):
        """The schedule of a flow of @seconds on path @p: [(t s, RTT ms,
        burst ms)], one entry per epoch, the first at 0 without a burst."""
        return self.schedule(seconds, seed, self.epoch_s(p))

    @classmethod
    def schedule(cls, seconds, seed, epoch_s=15.0):
        """epochs() from the figures a flow record keeps (its seconds, its
        repetition as @seed, its epoch_s option): the summary's handovers."""
        rng = random.Random(int(seed))
        out, t, e = [], 0.0, float(epoch_s)
        while t <= seconds:
            rtt = round(rng.uniform(*cls.RTT_RANGE_MS), 1)
            burst = round(rng.uniform(*cls.BURST_RANGE_MS))
            out.append((t, rtt, burst if t else 0))
            t += e
        return out

    def per(self, p=1):
        """Nominal: the corruption and, on average, 75 ms of each epoch."""
        burst = sum(self.BURST_RANGE_MS) / 2 / 1e3 / self.epoch_s(p)
        return 1 - (1 - float(self.path_opts[p - 1].get("loss", 0.5)) / 100) * (1 - burst)

    def lossy_hop(self, net, p):
        # 'loss': every frame the netem drops is the path's (burst), none
        # is its queue's
        hop = super().lossy_hop(net, p)
        return hop and (hop[0], hop[1], "loss")

    def dynamics(self, net, p, seconds, seed):
        """Run path @p's epochs in a thread from now; returns stop(), which
        ends it and raises what a tc change raised (a path that did not
        follow its schedule must not be measured)."""
        chain, nodes = self.chains[p - 1], self.nodes_of(net, p)
        j = next(j for j, l in enumerate(chain) if l["impair"])
        a, b = nodes[j], nodes[j + 1]
        ia, ib = self.intf(a, b), self.intf(b, a)
        leaf = f"tc qdisc change dev {ia} parent 1:1 handle 10: netem"
        words, limit = chain[j]["impair"], chain[j]["limit"]
        halt, failed = threading.Event(), []

        def run():
            t0 = time.time()
            try:
                for t, rtt, burst in self.epochs(seconds, seed, p):
                    if halt.wait(max(0.0, t0 + t - time.time())):
                        return
                    if burst:
                        self._cmd(a, f"{leaf} loss 100% limit {limit}")
                        halt.wait(burst / 1e3)
                    self._cmd(b, f"tc qdisc change dev {ib} root netem delay {rtt:g}ms "
                                 "limit 100000")
                    if burst:
                        self._cmd(a, f"{leaf} {words} limit {limit}")
            except Exception as e:      # noqa: BLE001 - raised again by stop()
                failed.append(e)

        th = threading.Thread(target=run, daemon=True)
        th.start()

        def stop():
            halt.set()
            th.join(timeout=30)
            if failed:
                raise failed[0]
        return stop


class HybridTopo(ChainTopo):
    """Wired access, ECN-marking bottleneck, wireless last hop: 100 Mbit/s
    3 ms; 5 Mbit/s 40 ms with a 30-packet buffer marking CE above @mark
    packets (7, 15, 22: 1/4, 1/2, 3/4 of it); 10 Mbit/s 3 ms with
    Gilbert-Elliott loss: good state 0.1%, bad state @bad percent,
    p(good->bad) 1%, p(bad->good) 10%."""

    def chain_links(self, mark=15, bad=1.0, **_):
        return [link("100mbit", 3),
                link("5mbit", 40, queue=("step", int(mark)), limit=30),
                link("10mbit", 3, impair=f"loss gemodel 1% 10% {float(bad):g}% 0.1%",
                     limit=1000)]

    def per(self, p=1):
        # stationary: pi_bad = p / (p + r) = 1/11
        bad = float(self.path_opts[p - 1].get("bad", 1.0)) / 100
        return (10 / 11) * 0.001 + (1 / 11) * bad


def red_wlog(min_pkts, burst):
    """The EWMA weight's log2 that tc red derives from @burst (iproute2's
    tc_red_eval_ewma, with min in packets): the smallest wlog with
    burst + 1 - min <= (1 - (1 - W)^burst) / W, W = 2^-wlog."""
    a = burst + 1 - min_pkts
    if a < 1:
        raise ValueError(f"burst {burst} too small for min {min_pkts} packets")
    for wlog in range(1, 32):
        w = 2.0 ** -wlog
        if a <= (1 - (1 - w) ** burst) / w:
            return wlog
    raise ValueError(f"no EWMA weight for burst {burst}")


def red_burst_for(min_pkts, wlog):
    """The smallest burst for which tc red picks EWMA weight 2^-@wlog."""
    for burst in range(int(min_pkts), 100000):
        if burst + 1 - min_pkts >= 1 and red_wlog(min_pkts, burst) == wlog:
            return burst
    raise ValueError(f"no burst gives wlog {wlog} at min {min_pkts}")


class CpecnTopo(HybridTopo):
    """The CPECN paper's gateway: as hybrid (100 Mbit/s access, a 5 Mbit/s
    40 ms bottleneck with a 30-packet buffer, a 10 Mbit/s wireless last hop
    with two-state Markov loss), but the bottleneck is RED marking from the
    EWMA average: min_th @mark packets (7 or 22: 1/4 or 3/4 of the buffer),
    max_th at the buffer (30), max_p 0.1 and weight 2^-9 = 0.00195 (ns-2's
    RED defaults, linterm 10 and q_weight 0.002: the paper names neither),
    ECN on (CE for ECT, a drop otherwise)."""

    BUFFER, MAX_P, WLOG = 30, 0.1, 9

    def chain_links(self, mark=7, bad=1.0, **_):
        mark = int(mark)
        if not 1 <= mark < self.BUFFER:
            raise ValueError(f"cpecn: mark {mark} must be 1..{self.BUFFER - 1} packets")
        red = ("red", mark, self.BUFFER, self.MAX_P, red_burst_for(mark, self.WLOG))
        return [link("100mbit", 3),
                link("5mbit", 40, queue=red, limit=self.BUFFER),
                link("10mbit", 3, impair=f"loss gemodel 1% 10% {float(bad):g}% 0.1%",
                     limit=1000)]

    def configure(self, net):
        super().configure(net)
        for p in range(1, self.paths + 1):
            node, intf = self.bottleneck(net, p)
            shown = self._cmd(node, f"tc -d qdisc show dev {intf} parent 1:1")
            if f"ewma {self.WLOG} " not in shown + " ":
                raise RuntimeError(f"{node.name}: RED's EWMA weight is not 2^-{self.WLOG}: "
                                   f"{shown.strip()}")


class DumbbellTopo(ChainTopo):
    """N flows (the runner's) over a 10 Mbit/s bottleneck (@red: RED+ECN
    with min 5, max 15 of 50 packets, else pfifo 50), @delay_ms one way,
    and, with @loss > 0, a 100 Mbit/s last hop that loses @loss percent."""

    def chain_links(self, rate="10mbit", delay_ms=20, red=True, loss=0.0, **_):
        red = red not in (False, "0", "false", "no")
        chain = [link("100mbit"),
                 link(rate, float(delay_ms), queue=("red", 5, 15, 0.1) if red else None,
                      limit=50)]
        if float(loss) > 0:
            chain.append(link("100mbit", impair=f"loss {float(loss):g}%"))
        return chain

    def per(self, p=1):
        return float(self.path_opts[p - 1].get("loss", 0.0)) / 100


class FifoTopo(ChainTopo):
    """A bottleneck that never marks: @rate, @rtt_ms, and a tail-drop FIFO
    of @bdp times the path's BDP in wire frames (at least 4 packets), or,
    with @bdp 0, fq_codel without ECN (target 5 ms, interval the larger of
    100 ms and the RTT, limit 4 BDP). No corruption unless @loss percent
    (on a 100 Mbit/s last hop)."""

    def chain_links(self, rate="10mbit", rtt_ms=50, bdp=1.0, loss=0.0, **_):
        bdp_pkts = self.bdp_frames(rate, rtt_ms)
        if float(bdp) > 0:
            neck = link(rate, float(rtt_ms) / 2, limit=max(4, round(float(bdp) * bdp_pkts)))
        else:
            neck = link(rate, float(rtt_ms) / 2,
                        queue=("fq_codel", max(100, round(float(rtt_ms)))),
                        limit=max(64, round(4 * bdp_pkts)))
        chain = [link("100mbit"), neck]
        if float(loss) > 0:
            chain.append(link("100mbit", impair=f"loss {float(loss):g}%"))
        return chain

    def per(self, p=1):
        return float(self.path_opts[p - 1].get("loss", 0.0)) / 100


class FlowAddrTopo(ChainTopo):
    """A chain whose flows each send to an address of their own on the
    receiver (10.<path>.<last link>.<10 + flow>), so that a route or a
    filter can tell them apart."""

    def flow_dst(self, p, i):
        """Flow @i's address on path @p's receiver."""
        return f"10.{p}.{len(self.chains[p - 1])}.{10 + i}"

    def add_flow_addresses(self, net, p, cmds):
        """Give path @p's receiver its flows' addresses (into Cmds @cmds);
        returns its interface."""
        rcv = self.receiver(net, p)
        intf = rcv.intfList()[0]
        for i in range(self.flows(p)):
            cmds.ip(rcv, f"addr add {self.flow_dst(p, i)}/24 dev {intf}")
        return intf


class RttMixTopo(FlowAddrTopo):
    """Two flows of different RTTs through one bottleneck: h1 -100 Mbit/s-
    r1 -@rate, fq_codel with ECN- h2. Flow 0 has the RTT @rtt_ms, flow 1
    @rtt2_ms; each sends to its own address of the receiver, and the
    receiver's ACKs from the second address take the longer delay (its
    egress: a prio qdisc with a netem band for each RTT, a u32 filter on
    the source address). fq_codel's interval is the longer RTT (tc-fq_codel:
    the worst-case RTT through the bottleneck), target 5 ms, limit 4 BDPs
    at the longer RTT."""

    RTT_MS, RTT2_MS = 50, 600

    def chain_links(self, rtt2_ms=RTT2_MS, rate="20mbit", rtt_ms=RTT_MS, **_):
        long = max(float(rtt_ms), float(rtt2_ms))
        return [link("100mbit"),
                link(rate, float(rtt_ms) / 2, queue=("fq_codel", round(long), "ecn"),
                     limit=max(64, round(4 * self.bdp_frames(rate, long))))]

    def flows(self, p):
        return 2

    def flow_rtt_ms(self, p, i):
        """The base RTT of flow @i of path @p."""
        o = self.path_opts[p - 1]
        return float(o.get("rtt2_ms", self.RTT2_MS) if i else o.get("rtt_ms", self.RTT_MS))

    def configure_more(self, net, cmds):
        for p in range(1, self.paths + 1):
            rcv = self.receiver(net, p)
            intf = self.add_flow_addresses(net, p, cmds)
            # in place of the link's netem: band 1 (everything, ARP too) at
            # flow 0's RTT, band 2 at flow 1's
            cmds.tc(rcv, f"qdisc replace dev {intf} root handle 1: prio bands 2 "
                         "priomap " + " ".join(["0"] * 16))
            for band in (0, 1):
                cmds.tc(rcv, f"qdisc add dev {intf} parent 1:{band + 1} netem "
                             f"delay {self.flow_rtt_ms(p, band):g}ms limit 100000")
            cmds.tc(rcv, f"filter add dev {intf} parent 1: protocol ip prio 1 u32 "
                         f"match ip src {self.flow_dst(p, 1)}/32 flowid 1:2")


class OnoffTopo(ChainTopo):
    """One 20 Mbit/s bottleneck with a 100-packet tail-drop buffer, 50 ms
    RTT; the runner adds heavy-tailed on/off UDP background from h1."""

    def chain_links(self, rate="20mbit", rtt_ms=50, **_):
        return [link("100mbit"), link(rate, float(rtt_ms) / 2, limit=100)]


class RedTopo(FlowAddrTopo):
    """The RED model's paths (docs/algorithms.md, RED model), one of CASES
    (@case): a bottleneck of the case's rate and RTT, MTU 1052 (MSS 1000),
    and one ECN flow per entry of the case's ssthresh list, each to its own
    address of the receiver, whose host route on the sender carries that
    flow's initial ssthresh (locked, and in force from the first flow:
    lab.route_ssthresh). The bottleneck queue is redopt, dimensioned
    by the model from the case's inputs (the paper's s = 1000 bytes), when
    @max_th is the model's; otherwise stock RED with @max_th, the same
    min_th, limit, max_p and EWMA weight (burst 60: Wlog 9, as redopt's
    default), so the thresholds are the only difference (classic: max_th =
    3 min_th = 15)."""

    mtu = 1052
    # the model's inputs per case: tc word (specctl option) -> value
    CASES = {
        # the paper's example: two flows with thresholds 15 and 20 and the
        # window W = 38 at the first mark that its max_th assumes
        "59ms": {"bandwidth": "1.5mbit", "rtt": "59ms", "ssthresh": "15,20", "min": "5",
                 "probability": "0.1", "window": "38"},
        # the paper's second case, at max_p 0.2; W from the path
        "99ms": {"bandwidth": "1.5mbit", "rtt": "99ms", "ssthresh": "15,15", "min": "5",
                 "probability": "0.2"},
        # a larger path: four flows whose slow starts overshoot a
        # 125-packet BDP by 35 packets
        "10mbit": {"bandwidth": "10mbit", "rtt": "100ms", "ssthresh": "40,40,40,40",
                   "min": "5", "probability": "0.1"},
    }
    DEFAULT_CASE = "59ms"
    AVPKT = "1000"
    _models = {}

    @classmethod
    def inputs(cls, case=None):
        """The model's inputs of @case, flows and avpkt included."""
        c = cls.CASES[case or cls.DEFAULT_CASE]
        return dict(c, flows=str(len(c["ssthresh"].split(","))), avpkt=cls.AVPKT)

    @classmethod
    def model(cls, case=None):
        """limit, min_th, max_th and qavg_max of @case, from `specctl model
        red` (the header the qdisc uses)."""
        case = case or cls.DEFAULT_CASE
        if case not in cls._models:
            opt = {"probability": "max-p"}
            args = [a for k, v in cls.inputs(case).items() for a in (f"--{opt.get(k, k)}", v)]
            out = subprocess.run([SPECCTL, "model", "red", *args, "--json"],
                                 capture_output=True, text=True, check=True).stdout
            cls._models[case] = json.loads(out)
        return cls._models[case]

    @classmethod
    def redopt_words(cls, case=None):
        return " ".join(f"{k} {v}" for k, v in cls.inputs(case).items()) + " ecn"

    def chain_links(self, max_th=None, case=None, **_):
        if (case or self.DEFAULT_CASE) not in self.CASES:
            raise ValueError(f"red: unknown case {case!r} ({', '.join(self.CASES)})")
        i, m = self.inputs(case), self.model(case)
        mx = int(max_th) if max_th is not None else m["max_th"]
        q = (("redopt", self.redopt_words(case)) if mx == m["max_th"]
             else ("red", m["min_th"], mx, float(i["probability"]), 60))
        rtt = units.ms(i["rtt"])
        return [link("100mbit"), link(i["bandwidth"], rtt / 2, queue=q, limit=m["limit"])]

    def ssthresh(self, p):
        return [int(x) for x in self.inputs(self.path_opts[p - 1].get("case"))["ssthresh"]
                .split(",")]

    def flows(self, p):
        return len(self.ssthresh(p))

    def configure_more(self, net, cmds):
        for p in range(1, self.paths + 1):
            self.add_flow_addresses(net, p, cmds)

    def configure(self, net):
        super().configure(net)

        def prime(p):               # the paths at once, a path's flows in turn
            snd, rcv = self.sender(net, p), self.receiver(net, p)
            for i, sst in enumerate(self.ssthresh(p)):
                dst = self.flow_dst(p, i)
                lab.route_ssthresh(lambda c: self._cmd(snd, c), lab.node_netns(snd),
                                   lab.node_netns(rcv), f"add {dst}/32 via 10.{p}.1.2", dst, sst,
                                   port=lab.PRIMER_PORT + i)
        lab.in_threads(prime, range(1, self.paths + 1))


topos = {"satellite": SatelliteTopo, "geo": GeoTopo, "geo-aqm": GeoAqmTopo,
         "geo-taildrop": GeoTaildropTopo, "leo": LeoTopo, "hybrid": HybridTopo,
         "cpecn": CpecnTopo, "dumbbell": DumbbellTopo, "onoff": OnoffTopo, "red": RedTopo,
         "fifo-share": FifoTopo, "rtt-mix": RttMixTopo}

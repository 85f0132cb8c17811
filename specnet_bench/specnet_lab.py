"""specnet_lab: what the integration tests, the demo and the benchmarks
share inside the guest.

* modules: load/unload ours from build/<release>/, read their counters;
* Chain: a line of network namespaces joined by veth pairs (the
  integration tests' topologies), with tc qdiscs per interface;
* inject: nftables rules that drop or CE-mark chosen packets of a flow, by
  its conntrack packet count (deterministic, not random);
* TcpProbe: the tcp:tcp_probe tracepoint (cwnd, ssthresh, srtt per ACK) in
  a private tracefs instance;
* QueueSampler and sock_readings: qdisc backlogs over rtnetlink and
  sockets' tcp_info over sock_diag, sampled from a thread in this process
  (no process per sample);
* iperf3 helpers and the satellite-link arithmetic (PER, ceiling).

Everything runs as root inside the VM; nothing here is used on the host.
"""
import contextlib
import functools
import json
import os
import re
import shlex
import socket
import subprocess
import time

from specnet_bench import netlink

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
# the project's modules, and tc's plugin directory (q_redopt.so)
CC_MODULES = ("tcp_spec", "tcp_cpecn", "tcp_tp")
MODULES = CC_MODULES + ("sch_redopt",)
TC_LIB = os.path.join(TOP, "build", "userspace", "tc")
TRACEFS = "/sys/kernel/tracing"


class CmdError(RuntimeError):
    pass


def _shell(cmd, ns, timeout, capture):
    """subprocess.run of the shell command @cmd, in the network namespace
    @ns (a name of `ip netns`, or a path) if given. The shell is forked
    from this thread while the thread is in @ns (in_netns()), and so starts
    there: under TCG that costs 150 ms a command where `ip netns exec NS sh
    -c` cost 490 ms (three process starts, not one). Unlike ip netns exec,
    the command shares the guest's mounts: /proc/net and /proc/sys/net are
    the namespace's, /sys/class/net stays the root namespace's (nothing run
    here reads it)."""
    def go():
        return subprocess.run(cmd, shell=True, text=True, timeout=timeout,
                              capture_output=capture)
    if not ns:
        return go()
    with in_netns(ns):
        return go()


def sh(cmd, ns=None, check=True, timeout=120, capture=True):
    """Run a shell command (in netns @ns). Returns stdout (str)."""
    p = _shell(cmd, ns, timeout, capture)
    if check and p.returncode != 0:
        where = f" in {ns}" if ns else ""
        raise CmdError(f"`{cmd}`{where} exited {p.returncode}: "
                       f"{(p.stderr or '').strip()}")
    return p.stdout if capture else ""


def script(cmds, timeout=120):
    """Run the shell commands @cmds (a list) in one shell that stops at the
    first failure. Under TCG every process start costs ~0.1-0.3 s: building
    a three-node chain with one sh() per step took 11 s, so the builders
    put their steps here, with `ip -n NS` / `tc -n NS` / `ip netns exec NS
    tool` inside."""
    return sh("set -e\n" + "\n".join(cmds), timeout=timeout)


def run(cmd, ns=None, timeout=120):
    """Run and return (rc, stdout, stderr) without raising."""
    p = _shell(cmd, ns, timeout, True)
    return p.returncode, p.stdout, p.stderr


# ---- modules ------------------------------------------------------------

def kernel_release():
    return os.uname().release


def module_path(name, release=None):
    return os.path.join(TOP, "build", release or kernel_release(), f"{name}.ko")


def module_loaded(name):
    return os.path.isdir(f"/sys/module/{name}")


def load_module(name, **params):
    """insmod our module from build/<release>/ (reloading with @params)."""
    if module_loaded(name):
        unload_module(name)
    args = " ".join(f"{k}={v}" for k, v in params.items())
    sh(f"insmod {module_path(name)} {args}")


def unload_module(name, tries=20):
    for _ in range(tries):
        if not module_loaded(name):
            return
        rc, _, _ = run(f"rmmod {name}")
        if rc == 0:
            return
        time.sleep(0.5)     # sockets in TIME_WAIT/closing still hold it
    raise CmdError(f"rmmod {name} failed")


@contextlib.contextmanager
def modprobe_from(*names):
    """For the block, the kernel's modprobe helper (/proc/sys/kernel/modprobe)
    is a wrapper that logs what the kernel asks for and loads from a small
    module tree holding our modules @names (a depmod of the whole distro
    tree takes minutes over 9p); yields a function that returns the
    arguments asked so far."""
    rel = kernel_release()
    root, wrapper, log = "/tmp/specnet-modroot", "/tmp/specnet-modprobe", "/tmp/specnet-modprobe.log"
    mdir = f"{root}/lib/modules/{rel}"
    sh(f"rm -rf {root} && mkdir -p {mdir}/extra && : > {log} && "
       f"cp {' '.join(module_path(n) for n in names)} {mdir}/extra/ && "
       f"cp /lib/modules/{rel}/modules.builtin* {mdir}/ && depmod -b {root} {rel}")
    with open(wrapper, "w") as f:
        f.write(f'#!/bin/sh\necho "$@" >> {log}\nexec /sbin/modprobe -d {root} "$@"\n')
    os.chmod(wrapper, 0o755)
    with open("/proc/sys/kernel/modprobe") as f:
        old = f.read().strip()
    with open("/proc/sys/kernel/modprobe", "w") as f:
        f.write(wrapper)
    try:
        yield lambda: open(log).read().split()
    finally:
        with open("/proc/sys/kernel/modprobe", "w") as f:
            f.write(old)


def set_param(module, param, value):
    with open(f"/sys/module/{module}/parameters/{param}", "w") as f:
        f.write(str(value))


def get_param(module, param, default=None):
    """A module parameter's value (a string); @default while the module is
    not loaded, if given."""
    try:
        with open(f"/sys/module/{module}/parameters/{param}") as f:
            return f.read().strip()
    except FileNotFoundError:
        if default is None:
            raise
        return default


def parse_counters(text):
    """Our modules' counter files: "name value" lines -> dict."""
    out = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) == 2 and f[1].isdigit():
            out[f[0]] = int(f[1])
    return out


def counters(proc_name, ns=None):
    """Read /proc/net/<proc_name> in netns @ns."""
    return parse_counters(sh(f"cat /proc/net/{proc_name}", ns=ns))


def available_ccs():
    with open("/proc/sys/net/ipv4/tcp_available_congestion_control") as f:
        return f.read().split()


# congestion controls registered by a module of another name
OUR_CC_MODULES = {"wecn": "tcp_cpecn"}


def ensure_cc(name):
    """Make CC @name available: our build for ours, modprobe for the kernel's."""
    if name in available_ccs():
        return True
    ours = module_path(OUR_CC_MODULES.get(name, f"tcp_{name}"))
    if os.path.exists(ours):
        run(f"insmod {ours}")
    else:
        run(f"modprobe tcp_{name}")
    return name in available_ccs()


# ---- topology -------------------------------------------------------------

_uniq = [0]


def uniq(prefix):
    _uniq[0] += 1
    return f"{prefix}{os.getpid() % 1000}{_uniq[0]}"


class Chain:
    """Namespaces n0 - n1 - ... - nk in a line, veth between neighbours.

    Link i joins node i (address 10.<base>.<i>.1) and node i+1
    (10.<base>.<i>.2). Middle nodes forward; end nodes route everything via
    their single neighbour. Offloads that defeat shaping are off.
    """

    def __init__(self, nodes, base=None, name=None):
        self.name = name or uniq("sn")
        self.base = base if base is not None else (_uniq[0] % 200) + 20
        self.nodes = [f"{self.name}-{n}" for n in nodes]
        self.alias = dict(zip(nodes, self.nodes))
        self.links = []   # (left ns, left if, right ns, right if)
        self.up = False

    def ns(self, alias):
        return self.alias[alias]

    def ip(self, alias):
        """The address of node @alias on its first link (toward n0 side for
        the last node, toward the next node otherwise)."""
        i = list(self.alias).index(alias)
        if i == len(self.nodes) - 1:
            return f"10.{self.base}.{i - 1}.2"
        return f"10.{self.base}.{i}.1"

    def addr(self, alias, toward):
        """The address of node @alias on its link with neighbour @toward."""
        a = list(self.alias).index(alias)
        b = list(self.alias).index(toward)
        assert abs(a - b) == 1
        return f"10.{self.base}.{min(a, b)}.{1 if a < b else 2}"

    def ifname(self, alias, toward):
        """The interface on node @alias that faces neighbour @toward."""
        a = list(self.alias).index(alias)
        b = list(self.alias).index(toward)
        assert abs(a - b) == 1
        return f"e{a}{'r' if b > a else 'l'}"

    def __enter__(self):
        self.build()
        return self

    def __exit__(self, *exc):
        self.destroy()

    def _build(self, forward, links, routes):
        """Make the namespaces (@forward: the ones that route), the veth
        pairs @links [(left ns, left if, right ns, right if, subnet)] with
        10.<base>.<subnet>.1/24 and .2, up, with the offloads that defeat
        shaping off, and @routes {ns: ['ROUTE ARGS', ...]}. One `ip -batch`
        for the namespaces and links, one per namespace for its addresses
        and routes, one shell per namespace for sysctl and ethtool: each
        process start costs ~0.1 s under TCG."""
        root = [f"netns add {n}" for n in self.nodes]
        ipb = {n: ["link set lo up"] for n in self.nodes}
        shc = {n: ["echo 1 > /proc/sys/net/ipv4/ip_forward"] if n in forward else []
               for n in self.nodes}
        for l, li, r, ri, subnet in links:
            root.append(f"link add {li} netns {l} type veth peer name {ri} netns {r}")
            for ns, ifn, host in ((l, li, 1), (r, ri, 2)):
                ipb[ns] += [f"addr add 10.{self.base}.{subnet}.{host}/24 dev {ifn}",
                            f"link set {ifn} up"]
                shc[ns].append(f"ethtool -K {ifn} tso off gso off gro off >/dev/null 2>&1 || true")
            self.links.append((l, li, r, ri))
        for n, rs in routes.items():
            ipb[n] += [f"route add {x}" for x in rs]

        def batch(opts, lines):
            return f"ip {opts}-batch - <<'EOF'\n" + "\n".join(lines) + "\nEOF"
        cmds = [batch("", root)]
        cmds += [batch(f"-n {n} ", ipb[n]) for n in self.nodes]
        self.up = True          # destroy() cleans up what a failed step left
        script(cmds)
        # a shell forked inside each namespace (sh(ns=)), not `ip netns
        # exec NS sh -c` in the script: 0.15 s a node where that took 0.49
        for n in self.nodes:
            if shc[n]:
                sh("; ".join(shc[n]), ns=n)

    def build(self):
        last = len(self.nodes) - 1
        links = [(self.nodes[i], f"e{i}r", self.nodes[i + 1], f"e{i + 1}l", i)
                 for i in range(last)]
        # routes: everything left of node i via its left neighbour, right via right
        routes = {}
        for i, n in enumerate(self.nodes):
            for j in range(last):
                if j == i or j == i - 1:
                    continue      # directly connected
                via = f"10.{self.base}.{i}.2" if j > i else f"10.{self.base}.{i - 1}.1"
                routes.setdefault(n, []).append(f"10.{self.base}.{j}.0/24 via {via}")
        self._build(self.nodes, links, routes)
        return self

    def destroy(self):
        """Abort the TCP sockets of the namespaces that run processes, kill
        the processes, delete the namespaces. Killing alone is not enough:
        a socket closed with data unacknowledged becomes an orphan in
        FIN-WAIT-1 that retransmits, its timer backing off, for minutes on
        a path that lost the data (a test that failed in a blackout), and
        keeps its namespace and its congestion control module with it: the
        next rmmod would fail. `ss -K` (SOCK_DESTROY) ends the sockets at
        once, before the close can orphan them."""
        if not self.up:
            return
        pids = netns_pids(self.nodes)
        cmds = [f"ip netns exec {n} ss -K -t -a >/dev/null 2>&1" for n in self.nodes if pids[n]]
        every = " ".join(str(p) for n in self.nodes for p in pids[n])
        if every:
            cmds.append(f"kill -9 {every} 2>/dev/null")
        dels = "\n".join(f"netns del {n}" for n in self.nodes)
        cmds.append(f"ip -force -batch - <<'EOF'\n{dels}\nEOF")
        run("\n".join(cmds))
        self.up = False

    def sysctl(self, alias, key, value):
        set_sysctls(self.ns(alias), {key: value})

    def ecn_sender(self, alias):
        """@alias requests ECN and keeps it when a SYN is retransmitted
        (sender_ecn_sysctls()): on a lossy path a lost SYN would otherwise
        start the connection without ECN, and spec as Reno."""
        set_sysctls(self.ns(alias), sender_ecn_sysctls())

    def tc(self, alias, toward, spec):
        """tc qdisc command(s) on @alias's interface toward @toward.
        @spec: e.g. 'root netem delay 50ms', one command a line; a line may
        start with qdisc (default), class or filter, then add (default),
        change, replace or del."""
        dev, ns = self.ifname(alias, toward), self.ns(alias)
        cmds = []
        for line in spec.strip().splitlines():
            line = line.strip()
            if not line:
                continue
            obj, verb = "qdisc", "add"
            if line.split()[0] in ("qdisc", "class", "filter"):
                obj, line = line.split(None, 1)
            if line.split()[0] in ("add", "change", "replace", "del"):
                verb, line = line.split(None, 1)
            cmds.append(f"tc -n {ns} {obj} {verb} dev {dev} {line}")
        script(cmds)


class Star(Chain):
    """A hub namespace with leaves around it: nodes[0] is the hub (it
    forwards), each leaf i >= 1 is joined to it by a veth pair, leaf address
    10.<base>.<i>.2/24, hub 10.<base>.<i>.1, and every leaf's default
    route goes via the hub. Chain's sysctl(), tc() and destroy() apply."""

    def ip(self, alias):
        i = list(self.alias).index(alias)
        return f"10.{self.base}.{i}.{1 if i == 0 else 2}"

    def addr(self, alias, toward):
        a = list(self.alias).index(alias)
        b = list(self.alias).index(toward)
        assert 0 in (a, b) and a != b
        return f"10.{self.base}.{max(a, b)}.{1 if a == 0 else 2}"

    def ifname(self, alias, toward):
        a = list(self.alias).index(alias)
        b = list(self.alias).index(toward)
        assert 0 in (a, b) and a != b
        return f"h{b}" if a == 0 else "e0"

    def build(self):
        hub = self.nodes[0]
        leaves = list(enumerate(self.nodes[1:], start=1))
        self._build([hub], [(hub, f"h{i}", leaf, "e0", i) for i, leaf in leaves],
                    {leaf: [f"default via 10.{self.base}.{i}.1"] for i, leaf in leaves})
        return self


def bottleneck_chain(rate, rtt_ms, below=""):
    """snd -- rtr -- rcv, built: @rtt_ms of netem delay on the ACK path
    (rtr -> snd) and an HTB class 1:1 of @rate at rtr toward rcv, with
    @below (Chain.tc lines, the first one 'parent 1:1 handle 10: ...') as
    its queue. Destroyed again if a step fails."""
    c = Chain(["snd", "rtr", "rcv"])
    c.build()
    try:
        c.tc("rtr", "snd", f"root netem delay {rtt_ms}ms limit 10000")
        c.tc("rtr", "rcv", f"""
            root handle 1: htb default 1
            class parent 1: classid 1:1 htb rate {rate} ceil {rate}
            {below}
        """)
    except Exception:
        c.destroy()
        raise
    return c


# ---- deterministic loss / CE injection ------------------------------------

def inject(chain, router, drop=(), ce=(), dport=5201, blackout=False,
           cwr_blackout=False, drop_first=None, ce_first=False, drop_nth=None):
    """Install nftables rules on @router's forward path that drop the
    packets whose conntrack original-direction count is in @drop and mark
    those in @ce with CE. Counts are per connection, 1-based, and include
    retransmissions, so a retransmitted packet is never hit twice. With
    @blackout, drop every forwarded TCP data packet to @dport (use
    clear_inject to end it). With @cwr_blackout, the first data packet
    with the CWR flag starts a blackout of its sender (its answer to an
    ECN-Echo never arrives; clear_inject ends it). With @drop_first =
    (count, length), drop the first packet of IP length @length from the
    @count-th on, once per sender (a packet picked by its size when the
    count is not exact). With @ce_first, mark CE on the next data packet
    of each sender, once. With @drop_nth = k, drop the data packet that
    is the k-th (0-based) to reach the rule once it is installed, whatever
    the connection's count (a blackout's drops count there too).
    """
    ns = chain.ns(router)
    run("modprobe nf_conntrack")
    set_sysctls(ns, {"net.netfilter.nf_conntrack_acct": 1})
    rules = []
    if drop:
        rules.append(f"tcp dport {dport} ct original packets {{ {', '.join(map(str, drop))} }} counter drop")
    if ce:
        rules.append(f"tcp dport {dport} ct original packets {{ {', '.join(map(str, ce))} }} counter ip ecn set ce")
    if blackout:
        rules.append(f"tcp dport {dport} meta length > 200 counter drop")
    sets = ""
    if cwr_blackout:
        sets += "set blk {\n    type ipv4_addr\n    flags dynamic\n  }\n  "
        rules.append(f"tcp dport {dport} ip saddr @blk meta length > 200 counter drop")
        rules.append(f"tcp dport {dport} tcp flags & (cwr | syn) == cwr add @blk {{ ip saddr }} counter drop")
    if drop_first:
        n, length = drop_first
        sets += "set once {\n    type ipv4_addr\n    flags dynamic\n  }\n  "
        rules.append(f"tcp dport {dport} ct original packets >= {n} ip length {length} "
                     f"ip saddr != @once add @once {{ ip saddr }} counter drop")
    if ce_first:
        sets += "set ceonce {\n    type ipv4_addr\n    flags dynamic\n  }\n  "
        rules.append(f"tcp dport {dport} meta length > 200 ip saddr != @ceonce "
                     f"add @ceonce {{ ip saddr }} counter ip ecn set ce")
    if drop_nth is not None:
        rules.append(f"tcp dport {dport} meta length > 200 numgen inc mod 1000000 == {drop_nth} "
                     "counter drop")
    body = "\n    ".join(rules)
    # one transaction: the old rules (a blackout, say) give way to the new
    # ones with no gap between them
    nft = f"""table inet specnet
delete table inet specnet
table inet specnet {{
  {sets}chain inject {{
    type filter hook forward priority 0; policy accept;
    {body}
  }}
}}
"""
    path = f"/tmp/{ns}.nft"
    with open(path, "w") as f:
        f.write(nft)
    sh(f"nft -f {path}", ns=ns)


def clear_inject(chain, router):
    run("nft delete table inet specnet", ns=chain.ns(router))


def nft_counters(chain, router):
    out = sh("nft list table inet specnet", ns=chain.ns(router))
    return [int(m) for m in re.findall(r"counter packets (\d+)", out)]


# ---- tcp:tcp_probe ----------------------------------------------------------

PROBE_RE = re.compile(
    r"\s(\d+\.\d+): tcp_probe: .*?src=(\S+) dest=(\S+) .*?snd_nxt=(0x[0-9a-f]+) "
    r"snd_una=(0x[0-9a-f]+) snd_cwnd=(\d+) ssthresh=(\d+) snd_wnd=(\d+) "
    r"srtt=(\d+)")


class TcpProbe:
    """tcp:tcp_probe events of one flow, in a private tracefs instance.

    Each event is taken when the sender processes an incoming segment,
    before the ACK is applied: (t [s], snd_nxt, snd_una, cwnd, ssthresh,
    snd_wnd [bytes: the receiver's window], srtt [us]).
    t is CLOCK_MONOTONIC (the instance's trace_clock "mono"), the clock of
    time.monotonic(): a test places what it did in the flow's timeline.
    """

    def __init__(self, dport=5201, name=None):
        self.dport = dport
        self.name = name or uniq("specnet")
        self.dir = f"{TRACEFS}/instances/{self.name}"

    def __enter__(self):
        if not os.path.isdir(TRACEFS + "/events"):
            run(f"mount -t tracefs nodev {TRACEFS}")
        os.mkdir(self.dir)
        ev = f"{self.dir}/events/tcp/tcp_probe"
        with open(f"{self.dir}/buffer_size_kb", "w") as f:
            f.write("8192")
        with open(f"{self.dir}/trace_clock", "w") as f:
            f.write("mono")
        with open(f"{ev}/filter", "w") as f:
            f.write(f"dport == {self.dport}")
        with open(f"{ev}/enable", "w") as f:
            f.write("1")
        return self

    def __exit__(self, *exc):
        self.stop()
        try:
            os.rmdir(self.dir)
        except OSError:
            pass

    def stop(self):
        try:
            with open(f"{self.dir}/events/tcp/tcp_probe/enable", "w") as f:
                f.write("0")
        except OSError:
            pass

    def events(self):
        with open(f"{self.dir}/trace") as f:
            text = f.read()
        evs = []
        for m in PROBE_RE.finditer(text):
            evs.append(dict(t=float(m.group(1)), src=m.group(2), dst=m.group(3),
                            snd_nxt=int(m.group(4), 16), snd_una=int(m.group(5), 16),
                            cwnd=int(m.group(6)), ssthresh=int(m.group(7)),
                            snd_wnd=int(m.group(8)), srtt=int(m.group(9))))
        return evs


def data_flow(events):
    """Keep the events of the flow that moved most data (iperf3's data
    connection, not its control connection)."""
    by = {}
    for e in events:
        by.setdefault(e["src"], []).append(e)
    if not by:
        return []
    return max(by.values(), key=lambda es: (es[-1]["snd_una"] - es[0]["snd_una"]) % 2**32)


# ---- iperf3 ---------------------------------------------------------------

def sender_ecn_sysctls(ecn=True):
    """The sysctl assignments (for `sysctl -qw`) of a sending host: ECN
    requested and kept, or neither. Kept means no fallback: a SYN
    retransmitted after a corruption loss would otherwise turn ECN off for
    the connection (tcp_ecn_fallback is for middleboxes that drop ECN SYNs),
    and spec would run as Reno on exactly the lossy paths it is for."""
    return (f"net.ipv4.tcp_ecn={1 if ecn else 0} "
            f"net.ipv4.tcp_ecn_fallback={0 if ecn else 1}")


PRIMER_PORT = 5299


def route_ssthresh(on_sender, snd_ns, rcv_ns, route, dst_ip, ssthresh, port=PRIMER_PORT,
                   wait_s=120.0, attempt_s=8.0):
    """Start the sender's connections to @dst_ip with an ssthresh of
    @ssthresh segments. @on_sender runs a shell command on the sender,
    returns its output and raises when it fails; @snd_ns and @rcv_ns are
    the sender's and the receiver's network namespaces (in_netns()); @route
    is the rest of an `ip route` command on the sender ('add 10.1.2.10/32
    via 10.1.1.2', 'change default via 10.1.1.254').

    The route carries the metric locked (`ssthresh lock N`), so that the
    flows' own closes do not rewrite it. The kernel reads it only from the
    TCP metrics cache, which gets an entry when a connection to the
    destination closes (tcp_init_metrics() looks the destination up
    without creating an entry; tcp_update_metrics(), on entering TIME-WAIT,
    creates one with the route's metrics and lock bits): without one,
    every connection to a fresh destination starts with an infinite
    ssthresh whatever the route says. So one connection is opened and
    closed first, from this process, with no data (the handshake gives the
    RTT sample the kernel requires before it caches anything, so a lossy or
    slow path primes as fast as a clean one).

    On a lossy path the handshake itself can fail: netem's corruption
    takes a SYN as readily as a data packet (a third of them at a BER of
    5e-5 on 1000-byte frames), and one connect() sends its SYNs 1, 2, 4,
    8 s apart. So a connect() that has not succeeded within @attempt_s
    (its SYNs at 0, 1, 3 and 7 s) gives way to a fresh one, until
    @wait_s: a deadline, not a wait; a clean path primes in one round
    trip. Raises RuntimeError unless the entry appears by then."""
    on_sender("sysctl -qw net.ipv4.tcp_no_ssthresh_metrics_save=0")
    on_sender(f"ip route {route} ssthresh lock {int(ssthresh)}")
    end = time.monotonic() + wait_s

    def left():
        return max(0.1, end - time.monotonic())

    with in_netns(rcv_ns):
        srv = socket.create_server(("", port))
    with srv:
        attempts = 0
        while True:
            attempts += 1
            with in_netns(snd_ns):
                cli = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            cli.settimeout(min(attempt_s, left()))
            try:
                cli.connect((dst_ip, port))
                break
            except OSError as e:
                cli.close()
                if time.monotonic() >= end:
                    raise RuntimeError(f"route_ssthresh: no connection to {dst_ip}:{port} "
                                       f"in {wait_s:.0f} s ({attempts} connect()s): {e}") from e
        with cli:
            srv.settimeout(left())
            try:
                conn, _ = srv.accept()
            except OSError as e:
                raise RuntimeError(f"route_ssthresh: {dst_ip}:{port} accepted nothing: {e}") from e
            with conn:
                conn.settimeout(left())
                cli.close()         # the sender closes first: its TIME-WAIT caches
                try:
                    conn.recv(1)    # its FIN
                except OSError as e:
                    raise RuntimeError(f"route_ssthresh: no FIN from the sender: {e}") from e
    # the entry appears when the close completes: one round trip, or more
    # when the path loses the FIN or its ACK
    # (`ip tcp_metrics show` fails with ESRCH while there is none)
    show = f"ip tcp_metrics show {dst_ip} 2>/dev/null || true"
    while " ssthresh " not in f" {on_sender(show)} ":
        if time.monotonic() > end:
            raise RuntimeError(f"route_ssthresh: {dst_ip} is not in the TCP metrics cache "
                               "(tcp_no_metrics_save set, or no route metric to cache?)")
        time.sleep(0.2)


def not_listening(ns, ports, timeout=10.0):
    """Wait until a TCP socket listens on each of @ports in the network
    namespace @ns (a name of `ip netns`, or a path), at most @timeout s;
    returns the ports that are still not listening (an empty set once all
    are). `iperf3 -s -D` returns when its parent exits, before the daemon
    has called listen(), and a client that connects then is refused at
    once: this waits for the socket itself where a fixed sleep guessed.
    Reads the namespace's /proc/net/tcp and tcp6 (iperf3 listens on the
    IPv6 wildcard where the namespace has IPv6) from this thread, inside
    it: /proc/thread-self/net is this thread's namespace, /proc/net the
    process leader's."""
    want = {int(p) for p in ports}
    end = time.monotonic() + timeout
    with in_netns(ns):
        while True:
            have = set()
            for f in ("tcp", "tcp6"):
                try:
                    with open(f"/proc/thread-self/net/{f}") as fh:
                        next(fh, None)                  # the header
                        for line in fh:
                            x = line.split()
                            if len(x) > 3 and x[3] == "0A":     # TCP_LISTEN
                                have.add(int(x[1].rsplit(":", 1)[1], 16))
                except FileNotFoundError:               # no IPv6 here
                    pass
            left = want - have
            if not left or time.monotonic() >= end:
                return left
            time.sleep(0.02)


def iperf3_server(ns, port=5201):
    sh(f"iperf3 -s -D -1 -p {port} --logfile /tmp/iperf3-{ns}-{port}.log", ns=ns)
    if not_listening(ns, [port]):
        raise CmdError(f"iperf3 server on port {port} in {ns}: not listening after 10 s "
                       f"(its log: /tmp/iperf3-{ns}-{port}.log)")


def iperf3_client(ns, server_ip, cc, seconds, port=5201, extra="", timeout=None):
    """Run an iperf3 client; returns the parsed --json report."""
    out = sh(f"iperf3 -c {server_ip} -p {port} -t {seconds} -C {cc} -J {extra}",
             ns=ns, timeout=timeout or seconds * 3 + 60)
    return json.loads(out)


def goodput_bps(report):
    """Receiver-side goodput of an iperf3 --json report (bit/s)."""
    end = report["end"]
    return end["sum_received"]["bits_per_second"]


def retransmits(report):
    return report["end"]["sum_sent"].get("retransmits", 0)


def git_commit(top=TOP):
    """Short commit of the tree at @top, for results records, with
    " (modified)" when its tracked files differ from that commit outside
    the results (docs/results/, results/): a run of a modified tree did not
    measure the commit. "unknown" outside git."""
    try:
        r = subprocess.run(["git", "-C", top, "rev-parse", "--short", "HEAD"],
                           capture_output=True, text=True)
        # stat data: size and mtime only; in a guest the tree is the host's
        # over 9p, with other inode and device numbers than the index
        # holds, and a full comparison reread every file (5 s a call under
        # TCG, 1 s like this)
        d = subprocess.run(["git", "-C", top, "-c", "core.checkStat=minimal",
                            "-c", "core.trustctime=false", "diff", "--quiet", "HEAD", "--", ".",
                            ":(exclude)docs/results", ":(exclude)results"],
                           capture_output=True)
    except OSError:
        return "unknown"
    head = r.stdout.strip()
    if not head:
        return "unknown"
    return head + (" (modified)" if d.returncode else "")


# ---- ss -ti ------------------------------------------------------------------

SS_FLAGS = {"ts", "sack", "ecn", "ecnseen", "fastopen", "app_limited"}
SS_RATES = ("send", "pacing_rate", "pacing_rate_max", "delivery_rate")


def _ss_value(v):
    """One `ss -ti` value: a number, a rate ('2.3Mbps', '154752000000bps':
    bit/s, ss's K/M/G are powers of 1000 of bits, unlike tc's bps), a
    parenthesised info block ('(bw:1bps,mrtt:0.019)' -> dict), or the text."""
    if v.startswith("(") and v.endswith(")"):
        return {k: _ss_value(x) for k, _, x in (kv.partition(":") for kv in v[1:-1].split(","))}
    m = re.fullmatch(r"([\d.]+)([KMG]?)bps", v)
    if m:
        return float(m[1]) * {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}[m[2]]
    for kind in (int, float):
        try:
            return kind(v)
        except ValueError:
            pass
    return v


def parse_ss(text):
    """The sockets of `ss -ti` output (with or without -n, -H and filters),
    one dict each: "socket", the fields of its first line; "cc", the
    congestion control's name; "flags", the bare words ss prints before it
    (ts, sack, ecn, ecnseen, ...); every key:value field as a number or text
    ("rtt" split into "rtt" and "rttvar", in ms as ss prints them; "wscale"
    and "retrans" stay text); the rates ("send", "pacing_rate",
    "delivery_rate") in bit/s; and a congestion control's info block
    ("bbr:(bw:..,mrtt:..)", "dctcp:(...)") as a dict under its name."""
    socks = []
    for block in re.split(r"\n(?=\S)", text.strip("\n")):
        first, _, info = block.partition("\n")
        if not first.strip() or first.startswith(("Recv-Q", "State", "Netid")):
            continue
        d = {"socket": first.split(), "cc": None, "flags": set()}
        toks = info.split()
        i = 0
        while i < len(toks):
            t = toks[i]
            i += 1
            k, sep, v = t.partition(":")
            if t in SS_RATES and i < len(toks):
                d[t] = _ss_value(toks[i])
                i += 1
            elif sep and k == "rtt" and "/" in v:
                d["rtt"], d["rttvar"] = (float(x) for x in v.split("/", 1))
            elif sep and k not in ("wscale", "retrans"):
                d[k] = _ss_value(v)
            elif sep:
                d[k] = v
            elif t in SS_FLAGS:
                d["flags"].add(t)
            elif d["cc"] is None:
                d["cc"] = t
        socks.append(d)
    return socks


def ss_limits(sock):
    """What limited a sender, from one parse_ss() socket: {"busy_ms",
    "rwnd_limited_ms", "sndbuf_limited_ms"}, the kernel's cumulative
    tcp_info chronos (busy: time with data to send; rwnd/sndbuf limited:
    the part of it the peer's receive window or the own send buffer held
    it back; ss prints a chrono only when it is not zero), and
    "min_rtt_ms", the connection's least RTT, where ss shows it. None for
    a socket that has not been busy."""
    def ms(key):
        m = re.match(r"(\d+)ms", str(sock.get(key, "0ms")))
        return int(m[1]) if m else 0
    if not ms("busy"):
        return None
    out = {"busy_ms": ms("busy"), "rwnd_limited_ms": ms("rwnd_limited"),
           "sndbuf_limited_ms": ms("sndbuf_limited")}
    if isinstance(sock.get("minrtt"), (int, float)):
        out["min_rtt_ms"] = sock["minrtt"]
    return out


# ---- Mininet nodes (anything with .cmd()) ----------------------------------

def parse_nstat(text, names):
    """{name: value} of the counters @names in `nstat -az` output @text."""
    got = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 2 and f[0] in names:
            got[f[0]] = int(f[1])
    return got


def nstat(ns, *names):
    """The absolute values of the nstat counters @names in namespace @ns
    (of a namespace made for one test, that test's own), as {name: int}."""
    return parse_nstat(sh("nstat -az " + " ".join(names), ns=ns), names)


def node_nstat(node, *names):
    """Sum of the nstat counters @names in @node's namespace."""
    return sum(parse_nstat(node.cmd("nstat -az " + " ".join(names)), names).values())


def in_threads(fn, items):
    """[fn(x) for x in @items], each call in a thread of its own, all at
    once; the first exception (in the order of @items) is raised once all
    have ended. For waits on the paths' round trips (a satellite path's
    ping or route priming takes seconds of its 560 ms RTT): one path
    after the other, twelve took 12 and 31 s. A Mininet node's shell
    serves one thread at a time: no two calls may use the same node."""
    import concurrent.futures
    items = list(items)
    if not items:
        return []
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(items)) as ex:
        futs = [ex.submit(fn, x) for x in items]
    return [f.result() for f in futs]       # the with waited for all


def node_reachable(node, ip, tries=10, wait_s=3):
    """Whether @node reaches @ip: pings one at a time until one is answered,
    at most @tries, each given @wait_s. One ping across a lossy path fails
    with the path's PER (1 in 3 at BER 5e-5 on the satellite); ten fail
    together with PER^10 (2e-5 there). Returns (reached, pings sent)."""
    out = node.cmd(f"n=0; for i in $(seq {int(tries)}); do n=$i; "
                   f"ping -n -c 1 -W {int(wait_s)} {ip} >/dev/null 2>&1 && break; n=fail; "
                   "done; echo reach=$n")
    m = re.search(r"reach=(\d+|fail)", out)
    if not m or m.group(1) == "fail":
        return False, int(tries)
    return True, int(m.group(1))


def qdisc_marks(q):
    """The CE marks of one qdisc of `tc -s -j qdisc show`: RED's "marked"
    (redopt's with its "forced_mark", the marks above max_th, which it
    shows only when there were some), fq_codel's "ecn_mark", the sum of
    cake's per-tin "ecn_mark"; 0 for a queue that does not mark."""
    if "marked" in q:
        return q["marked"] + q.get("forced_mark", 0)
    if "ecn_mark" in q:
        return q["ecn_mark"]
    if q.get("tins"):
        return sum(t.get("ecn_mark", 0) for t in q["tins"])
    return q.get("options", {}).get("marked", 0)


def node_qdisc_stats(node, intf):
    """marks, drops and packets of the leaf queue (parent 1:1, else the
    first that is not HTB) on @node's @intf, from tc -s -j."""
    try:
        qs = json.loads(node.cmd(f"tc -s -j qdisc show dev {intf}"))
    except ValueError:
        return {}
    leaf = next((q for q in qs if q.get("parent") == "1:1"), None) or next(
        (q for q in qs if q.get("kind") != "htb"), None)
    if not leaf:
        return {}
    st = dict(kind=leaf["kind"], marked=qdisc_marks(leaf),
              early=leaf.get("early", 0), pdrop=leaf.get("pdrop", 0),
              drops=leaf.get("drops", 0), overlimits=leaf.get("overlimits", 0),
              sent_pkts=leaf.get("packets", 0))
    for k in ("forced", "overflow"):        # redopt's xstats
        if k in leaf:
            st[k] = leaf[k]
    return st


CLONE_NEWNET = 0x40000000


@functools.lru_cache(maxsize=1)
def _libc():
    import ctypes
    return ctypes.CDLL(None, use_errno=True)


def _libc_netns_call(fn, *args, what):
    import ctypes
    if getattr(_libc(), fn)(*args) != 0:
        raise OSError(ctypes.get_errno(), f"{fn}: {what}")


def popen_in(ns, argv, **kw):
    """subprocess.Popen(@argv, **@kw) in the network namespace @ns (a name
    of `ip netns`, or a path): forked from this thread while it is in @ns,
    as _shell() does, where `ip netns exec` took three process starts.
    The child shares the guest's mounts (see _shell())."""
    with in_netns(ns):
        return subprocess.Popen(argv, **kw)


def set_sysctls(ns, settings):
    """Write the sysctls @settings ({key: value}, or `sysctl -w`'s "k=v
    k=v" of single words) in the network namespace @ns (a name of `ip
    netns`, or a path), in order, as `sysctl -qw` does: from this thread
    inside it, where /proc/sys/net is the namespace's, with no process
    started (a sysctl each cost ~0.15 s under TCG). The first that fails
    raises CmdError, naming it."""
    if isinstance(settings, str):
        settings = dict(x.split("=", 1) for x in settings.split())
    with in_netns(ns):
        for key, value in settings.items():
            try:
                with open("/proc/sys/" + key.replace(".", "/"), "w") as f:
                    f.write(str(value))
            except OSError as e:
                raise CmdError(f"sysctl {key}={value} in {ns}: {e.strerror}") from None


def netns_names():
    """The named network namespaces, what `ip netns list` names: the
    entries of /run/netns (its NETNS_RUN_DIR), read with no process."""
    try:
        return set(os.listdir("/run/netns"))
    except FileNotFoundError:
        return set()


def netns_pids(names):
    """{name: [pid, ...]}: the processes in each named network namespace
    (/run/netns/NAME), what `ip netns pids` says (the same test: the
    namespace file's device and inode), read from /proc with no process
    started per namespace."""
    which = {}
    for n in names:
        try:
            st = os.stat(f"/run/netns/{n}")
        except OSError:
            continue
        which[(st.st_dev, st.st_ino)] = n
    out = {n: [] for n in names}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            st = os.stat(f"/proc/{d}/ns/net")
        except OSError:
            continue        # gone, or a kernel thread's
        n = which.get((st.st_dev, st.st_ino))
        if n is not None:
            out[n].append(int(d))
    return out


def node_netns(node):
    """The network namespace of Mininet node @node, for in_netns()."""
    return f"/proc/{node.pid}/ns/net"


@contextlib.contextmanager
def in_netns(ns):
    """This thread in the network namespace @ns for the block, then back in
    its own: @ns is a name of `ip netns` or a path (/proc/PID/ns/net). A
    socket made in the block stays in the namespace it was made in."""
    path = ns if ns.startswith("/") else f"/run/netns/{ns}"
    own = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    try:
        other = os.open(path, os.O_RDONLY)
        try:
            _libc_netns_call("setns", other, CLONE_NEWNET, what=f"into {path}")
        finally:
            os.close(other)
        try:
            yield
        finally:
            _libc_netns_call("setns", own, CLONE_NEWNET, what="back")
    finally:
        os.close(own)


def unshare_netns():
    """This process in a new network namespace of its own, which the kernel
    destroys when nothing holds it any more (the process exits)."""
    _libc_netns_call("unshare", CLONE_NEWNET, what="a new network namespace")


class QueueSampler:
    """The backlog of chosen qdiscs in other network namespaces (Mininet
    nodes), every @period seconds, from one thread over rtnetlink (the
    netlink module): no process per sample (a `tc` per path and sample
    saturated a TCG guest).

    add(key, ns, ifname) opens an rtnetlink socket inside network namespace
    @ns (in_netns(); a socket keeps the netns it was made in); start(); stop()
    returns {key: [[t, backlog bytes, qlen packets], ...]}, t from start()."""

    def __init__(self, period=0.5, parent=0x00010001):
        self.period, self.parent = period, parent
        self.socks, self.series = {}, {}
        self._stop = None
        self._thread = None

    def add(self, key, ns, ifname):
        with in_netns(ns):
            sock = netlink.open_socket(netlink.NETLINK_ROUTE)
            ifindex = socket.if_nametoindex(ifname)
        self.socks[key] = (sock, ifindex)
        self.series[key] = []

    def sample(self, key):
        """(backlog, qlen) of the qdisc under @parent on the key's device;
        None when it has none."""
        sock, ifindex = self.socks[key]
        for q in netlink.qdiscs(sock):
            if q["ifindex"] == ifindex and q["parent"] == self.parent and q["queue"]:
                return q["queue"]["backlog"], q["queue"]["qlen"]
        return None

    def start(self):
        import threading
        self._stop = threading.Event()
        self.t0 = time.time()

        def loop():
            while not self._stop.is_set():
                t = round(time.time() - self.t0, 2)
                for key in self.socks:
                    try:
                        q = self.sample(key)
                    except OSError:
                        q = None        # a path being torn down: no sample
                    if q:
                        self.series[key].append([t, q[0], q[1]])
                self._stop.wait(self.period)
        self._thread = threading.Thread(target=loop, daemon=True)
        self._thread.start()

    def stop(self):
        if self._thread:
            self._stop.set()
            self._thread.join(10)
        for sock, _ in self.socks.values():
            sock.close()
        self.socks = {}
        return self.series


@contextlib.contextmanager
def sock_readings(ns, pick, period=0.25):
    """The established IPv4 TCP sockets of network namespace @ns, read
    every @period seconds while the block runs, over sock_diag with the
    request `ss -ti` makes (tcp_info, the congestion control's info and
    name), from one thread of this process: no `ss` per reading, which
    under a TCG guest busy with a flow took 1.5-4 s to start. Yields a
    list that gets pick(sock, t) for each socket and reading where that is
    not None (@sock: a dict of netlink.tcp_sockets(): dst, cong, info,
    'bbr' etc.; @t: the reading's time.time()). A reading that fails fails
    the block."""
    import threading

    seen, failed, stop = [], [], threading.Event()
    with in_netns(ns):
        sock = netlink.open_socket(netlink.NETLINK_SOCK_DIAG)

    def loop():
        try:
            while not stop.is_set():
                now = time.time()
                for m in netlink.tcp_sockets(sock):
                    r = pick(m, now)
                    if r is not None:
                        seen.append(r)
                stop.wait(period)
        except Exception as e:          # noqa: BLE001 - raised in the caller's thread
            failed.append(e)
    w = threading.Thread(target=loop)
    w.start()
    try:
        yield seen
    finally:
        stop.set()
        w.join()
        sock.close()
    if failed:
        raise RuntimeError(f"sock_diag reading in {ns} failed") from failed[0]


def node_netem_stats(node, intf):
    """sent_pkts and drops of the netem qdisc (root or leaf) on @node's
    @intf, from tc -s -j; {} when there is none."""
    try:
        qs = json.loads(node.cmd(f"tc -s -j qdisc show dev {intf}"))
    except ValueError:
        return {}
    q = next((q for q in qs if q.get("kind") == "netem"), None)
    if not q:
        return {}
    return dict(sent_pkts=q.get("packets", 0), drops=q.get("drops", 0))


def node_filter_packets(node, intf, direction="egress"):
    """Packets counted by the first filter action on @node's @intf
    (clsact @direction), from tc -s -j; None when there is none."""
    try:
        fs = json.loads(node.cmd(f"tc -s -j filter show dev {intf} {direction}"))
    except ValueError:
        return None
    for f in fs:
        for act in f.get("options", {}).get("actions", []):
            st = act.get("stats", {})
            if "packets" in st:
                return st["packets"]
    return None


# ---- lossy-link arithmetic (docs/algorithms.md, Metrics) ---------------

# What a node counts when it discards a corrupted frame: IP header errors
# (a bad header checksum, version or length; counted by the first node after
# the lossy hop, which drops the packet) and TCP segment errors (a bad
# checksum; counted by the receiver, routers do not check it). A flip in the
# destination MAC or the EtherType is dropped without either counter, so the
# realized PER counts deliveries instead (PathsTopo.realized); these are
# recorded beside it as a cross-check.
DISCARD_COUNTERS = ("IpInHdrErrors", "TcpInErrs")
# What a receiver counts when it accepts a packet (PathsTopo.realized)
DELIVERY_COUNTERS = ("TcpInSegs", "TcpInErrs", "IcmpInMsgs", "IcmpInErrors", "UdpInDatagrams")


def per_from_ber(ber, frame_bytes):
    """Packet error rate of a frame of @frame_bytes at bit error rate @ber:
    1 - (1 - BER)^(8 frame)."""
    return 1.0 - (1.0 - ber) ** (8 * frame_bytes)


def ceiling_bps(capacity_bps, per, payload, frame):
    """Physical ceiling C (1 - PER) payload/frame, @frame the wire frame
    (what the shaper charges: the IP packet + 14 bytes of Ethernet)."""
    return capacity_bps * (1.0 - per) * payload / frame


def realized_per(through, discarded):
    """The PER a run realized: frames @discarded (errors counted after a
    corrupting hop, or a lossy hop's drops) over the frames that entered the
    lossy hop (@through). None when nothing was counted."""
    if not through or discarded is None:
        return None
    if not 0 <= discarded <= through:
        raise ValueError(f"{discarded} discarded of {through} frames: counters disagree")
    return discarded / through

"""specnet_lab.Chain on the host: the namespaces it builds, the processes
in them (netns_pids()), and a destroy() that leaves nothing behind, not
even the orphaned socket of a flow whose path went dark (it would keep its
congestion control module in use in a guest)."""
import os
import subprocess
import sys
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from specnet_bench import specnet_lab as lab  # noqa: E402

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (network namespaces)")

# a receiver that accepts one connection on port sys.argv[1] and never
# reads, and a sender that keeps 256 KiB unacknowledged to it (address
# sys.argv[1], port sys.argv[2]); both wait to be killed
PORT = 5301
RECEIVER = """import socket, sys, time
s = socket.create_server(("", int(sys.argv[1])))
c, _ = s.accept()
time.sleep(600)
"""
SENDER = """import socket, sys, time
s = socket.create_connection((sys.argv[1], int(sys.argv[2])))
s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 20)
s.setblocking(False)
try:
    s.send(b"x" * (1 << 18))
except BlockingIOError:
    pass
time.sleep(600)
"""

# a listener on port sys.argv[1] that starts half a second late (as a
# daemonized iperf3 server does after its parent returned)
PY_LISTEN_LATE = ("-c 'import socket, sys, time; time.sleep(0.5); "
                  "s = socket.create_server((\"\", int(sys.argv[1])), family=socket.AF_INET6, "
                  "dualstack_ipv6=True); time.sleep(30)'")


def orphans():
    """The kernel's count of orphaned TCP sockets (all namespaces)."""
    with open("/proc/net/sockstat") as f:
        for line in f:
            if line.startswith("TCP:"):
                w = line.split()
                return int(w[w.index("orphan") + 1])
    raise AssertionError("no TCP line in /proc/net/sockstat")


def test_netns_pids_finds_the_processes_of_each_namespace():
    c = lab.Chain(["snd", "rtr", "rcv"]).build()
    try:
        lab.sh("sleep 300 >/dev/null 2>&1 &", ns=c.ns("snd"))
        pids = lab.netns_pids(c.nodes + ["specnet-no-such-ns"])
        assert len(pids[c.ns("snd")]) == 1 and not pids[c.ns("rtr")], pids
        assert pids["specnet-no-such-ns"] == []
        with open(f"/proc/{pids[c.ns('snd')][0]}/cmdline") as f:
            assert f.read().startswith("sleep")
    finally:
        c.destroy()
    assert not set(c.nodes) & set(lab.sh("ip netns list").split())


def test_destroy_leaves_no_orphan_of_a_flow_in_a_blackout(tmp_path):
    """The receiver's router drops everything once the connection is up:
    the sender holds 256 KiB it can never get acknowledged. Killed, its
    socket would be an orphan retransmitting for minutes; destroy() aborts
    it first."""
    c = lab.Chain(["snd", "rtr", "rcv"]).build()
    try:
        (tmp_path / "rcv.py").write_text(RECEIVER)
        (tmp_path / "snd.py").write_text(SENDER)
        lab.sh(f"python3 {tmp_path}/rcv.py {PORT} >/dev/null 2>&1 &", ns=c.ns("rcv"))
        time.sleep(0.5)
        lab.sh("nft add table inet t && "
               "nft add chain inet t fw '{ type filter hook forward priority 0; }' && "
               "nft add rule inet t fw 'tcp flags & syn == 0' counter drop", ns=c.ns("rtr"))
        lab.sh(f"python3 {tmp_path}/snd.py {c.ip('rcv')} {PORT} >/dev/null 2>&1 &",
               ns=c.ns("snd"))
        deadline = time.monotonic() + 10
        while True:     # established, with data unacknowledged (Send-Q)
            est = lab.sh("ss -tnH state established", ns=c.ns("snd")).split()
            if len(est) > 1 and int(est[1]) > 0:
                break
            assert time.monotonic() < deadline, lab.sh("ss -tan", ns=c.ns("snd"))
            time.sleep(0.2)
        before = orphans()
    finally:
        c.destroy()
    time.sleep(0.5)
    assert orphans() <= before, f"an orphan outlived the chain: {before} -> {orphans()}"


def test_every_node_forwards_with_the_offloads_off():
    """build() turns forwarding on in every node of a chain and the
    segmentation and receive offloads off on every link (a shaper meets
    the wire's frames, not 64 KB super-packets), each node's settings run
    in its own namespace."""
    c = lab.Chain(["snd", "rtr", "rcv"]).build()
    try:
        for a in ("snd", "rtr", "rcv"):
            assert lab.sh("cat /proc/sys/net/ipv4/ip_forward", ns=c.ns(a)).strip() == "1", a
        for a, ifn in (("snd", "e0r"), ("rtr", "e1l"), ("rtr", "e1r"), ("rcv", "e2l")):
            k = lab.sh(f"ethtool -k {ifn}", ns=c.ns(a))
            for feat in ("tcp-segmentation-offload", "generic-segmentation-offload",
                         "generic-receive-offload"):
                assert f"{feat}: off" in k, (a, ifn, feat, k)
    finally:
        c.destroy()


def test_netns_names_are_what_ip_netns_lists():
    c = lab.Chain(["snd", "rcv"]).build()
    try:
        listed = {line.split()[0] for line in lab.sh("ip netns list").splitlines() if line}
        assert lab.netns_names() == listed and set(c.nodes) <= listed
    finally:
        c.destroy()
    assert not set(c.nodes) & lab.netns_names()


def test_not_listening_waits_for_the_socket_in_its_namespace():
    """A server that listens half a second late is waited for; a port
    nobody listens on, or one that listens in another namespace, is
    returned once the timeout has passed."""
    c = lab.Chain(["snd", "rcv"]).build()
    try:
        lab.sh(f"python3 {PY_LISTEN_LATE} {PORT} >/dev/null 2>&1 &", ns=c.ns("rcv"))
        t = time.monotonic()
        assert lab.not_listening(c.ns("rcv"), [PORT]) == set()
        assert time.monotonic() - t >= 0.3
        t = time.monotonic()
        assert lab.not_listening(c.ns("snd"), [PORT], timeout=0.5) == {PORT}
        assert lab.not_listening(c.ns("rcv"), [PORT, PORT + 1], timeout=0.5) == {PORT + 1}
        assert time.monotonic() - t >= 1.0
    finally:
        c.destroy()


def test_set_sysctls_writes_in_the_namespace_and_names_a_bad_key():
    c = lab.Chain(["snd", "rcv"]).build()
    try:
        root = lab.sh("sysctl -n net.ipv4.tcp_ecn")
        c.sysctl("snd", "net.ipv4.tcp_rmem", "4096 131072 1200000")
        c.ecn_sender("rcv")
        assert lab.sh("sysctl -n net.ipv4.tcp_rmem", ns=c.ns("snd")).split() == \
            ["4096", "131072", "1200000"]
        assert lab.sh("sysctl -n net.ipv4.tcp_ecn net.ipv4.tcp_ecn_fallback",
                      ns=c.ns("rcv")).split() == ["1", "0"]
        assert lab.sh("sysctl -n net.ipv4.tcp_ecn") == root
        with pytest.raises(lab.CmdError, match=r"sysctl net.ipv4.no_such_key=1 in sn"):
            lab.set_sysctls(c.ns("rcv"), "net.ipv4.tcp_ecn=2 net.ipv4.no_such_key=1")
        # in order, as sysctl -w: the first was written
        assert lab.sh("sysctl -n net.ipv4.tcp_ecn", ns=c.ns("rcv")).strip() == "2"
    finally:
        c.destroy()


def test_popen_in_starts_the_process_in_the_namespace():
    c = lab.Chain(["snd", "rcv"]).build()
    try:
        p = lab.popen_in(c.ns("rcv"), ["readlink", "/proc/self/ns/net"],
                         stdout=subprocess.PIPE, text=True)
        out, _ = p.communicate(timeout=30)
        assert out.strip() == f"net:[{os.stat('/run/netns/' + c.ns('rcv')).st_ino}]"
        assert os.readlink("/proc/thread-self/ns/net") != out.strip()   # this thread is back
    finally:
        c.destroy()

"""specnet_lab.Chain on the host: the namespaces it builds, the processes
in them (netns_pids()), and a destroy() that leaves nothing behind, not
even the orphaned socket of a flow whose path went dark (it would keep its
congestion control module in use in a guest)."""
import os
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

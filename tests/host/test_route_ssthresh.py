"""specnet_lab.route_ssthresh() on the host, between two network
namespaces joined by a veth pair: after it, the TCP metrics cache holds the
route's locked ssthresh, and the next connection starts with it."""
import os
import socket
import subprocess
import sys
import threading
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from specnet_bench import netlink, specnet_lab as lab  # noqa: E402

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (network namespaces)")


@pytest.fixture
def pair():
    a, b = f"specnet-rs{os.getpid()}a", f"specnet-rs{os.getpid()}b"
    for ns in (a, b):
        subprocess.run(["ip", "netns", "add", ns], check=True)
    lab.sh(f"ip -n {a} link add va type veth peer name vb netns {b} && "
           f"ip -n {a} addr add 10.77.0.1/24 dev va && ip -n {b} addr add 10.77.0.2/24 dev vb && "
           f"ip -n {a} link set va up && ip -n {b} link set vb up && "
           f"ip -n {a} link set lo up && ip -n {b} link set lo up")
    yield a, b
    for ns in (a, b):
        subprocess.run(["ip", "netns", "del", ns], check=True)


def test_the_next_connection_starts_with_the_routes_ssthresh(pair):
    a, b = pair
    rc, _, err = lab.run(f"ip -n {a} tcp_metrics show 10.77.0.2")
    assert rc != 0 and "No such process" in err, (rc, err)
    lab.route_ssthresh(lambda c: lab.sh(c, ns=a), a, b, "add 10.77.0.2/32 dev va", "10.77.0.2",
                       23, port=5299)
    assert "ssthresh 23" in lab.sh(f"ip -n {a} tcp_metrics show 10.77.0.2")
    assert "ssthresh lock 23" in lab.sh(f"ip -n {a} route show 10.77.0.2")
    with lab.in_netns(b):
        srv = socket.create_server(("", 5300))
    with lab.in_netns(a):
        cli = socket.socket()
        nl = netlink.open_socket(netlink.NETLINK_SOCK_DIAG)
    # reno: bbr (this host's default, maybe) sets an infinite ssthresh of its own
    cli.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, b"reno")
    cli.connect(("10.77.0.2", 5300))
    try:
        s = [x for x in netlink.tcp_sockets(nl) if x["dport"] == 5300]
        assert len(s) == 1 and s[0]["info"]["snd_ssthresh"] == 23, s
    finally:
        for x in (cli, srv, nl):
            x.close()


def test_no_entry_is_an_error(pair):
    """With tcp_no_metrics_save the close caches nothing: it must say so,
    not let the flows start with an infinite ssthresh."""
    a, b = pair
    lab.sh("sysctl -qw net.ipv4.tcp_no_metrics_save=1", ns=a)
    with pytest.raises(RuntimeError, match="not in the TCP metrics cache"):
        lab.route_ssthresh(lambda c: lab.sh(c, ns=a), a, b, "add 10.77.0.2/32 dev va",
                           "10.77.0.2", 23, wait_s=2)


def test_no_listener_path_is_an_error(pair):
    """A destination nobody on the receiver's side answers for."""
    a, b = pair
    with pytest.raises(RuntimeError, match="no connection to 10.77.0.9"):
        lab.route_ssthresh(lambda c: lab.sh(c, ns=a), a, b, "add 10.77.0.9/32 dev va",
                           "10.77.0.9", 23, wait_s=2)


def test_a_path_that_loses_the_first_syns_primes(pair):
    """Every SYN lost for 3.5 s (a lossy path's corruption takes SYNs too):
    one connect() would send its next SYN at 7 s, past the 6.5 s deadline;
    fresh connect()s every 2 s get through at 4 s. (Kernels from 6.7 on
    retry a SYN every second at first, tcp_syn_linear_timeouts; the test
    turns that off to have the guests' 6.1 and 6.12 doubling.)"""
    a, b = pair
    lab.sh("[ ! -e /proc/sys/net/ipv4/tcp_syn_linear_timeouts ] || "
           "sysctl -qw net.ipv4.tcp_syn_linear_timeouts=0", ns=a)
    lab.sh("nft add table inet rs && "
           "nft add chain inet rs in '{ type filter hook input priority 0; }' && "
           "nft add rule inet rs in tcp dport 5299 'tcp flags & syn == syn' counter drop", ns=b)
    drops = []

    def heal():
        drops.append(lab.sh("nft list table inet rs", ns=b))
        lab.sh("nft delete table inet rs", ns=b)
    timer = threading.Timer(3.5, heal)
    timer.start()
    t0 = time.monotonic()
    try:
        lab.route_ssthresh(lambda c: lab.sh(c, ns=a), a, b, "add 10.77.0.2/32 dev va",
                           "10.77.0.2", 23, port=5299, wait_s=6.5, attempt_s=2)
    finally:
        timer.join()
    took = time.monotonic() - t0
    assert "ssthresh 23" in lab.sh(f"ip -n {a} tcp_metrics show 10.77.0.2")
    assert "counter packets 4 " in drops[0], drops     # SYNs at 0, 1, 2, 3 s
    assert 3.5 < took < 6.5, took

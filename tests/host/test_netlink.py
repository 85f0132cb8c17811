"""specnet_bench.netlink on the host: sock_diag's TCP sockets and
rtnetlink's qdiscs read over raw sockets in another network namespace,
against what `ss` and `tc` print for the same objects; and a request with
its acknowledgement and extack message."""
import errno
import json
import os
import socket
import struct
import sys
import threading

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from specnet_bench import netlink, specnet_lab as lab  # noqa: E402

def test_tcp_info_fields_hand_built():
    """The fields at the header's offsets: snd_cwnd at 80, pacing_rate (u64)
    at 104, min_rtt at 148, snd_wnd at 228; the bit fields of byte 6 and 7;
    a shorter struct (an older kernel's) gives the fields it holds."""
    buf = bytearray(232)
    buf[0], buf[6], buf[7] = 1, 0x97, 0x5
    struct.pack_into("=I", buf, 80, 42)
    struct.pack_into("=Q", buf, 104, 1 << 40)
    struct.pack_into("=I", buf, 148, 50123)
    struct.pack_into("=I", buf, 228, 65535)
    t = netlink.tcp_info(bytes(buf))
    assert (t["state"], t["snd_cwnd"], t["pacing_rate"], t["min_rtt"], t["snd_wnd"]) == \
        (1, 42, 1 << 40, 50123, 65535), t
    assert (t["snd_wscale"], t["rcv_wscale"]) == (7, 9), t
    assert (t["delivery_rate_app_limited"], t["fastopen_client_fail"]) == (1, 2), t
    short = netlink.tcp_info(bytes(buf[:104]))
    assert short["snd_cwnd"] == 42 and "total_retrans" in short and "pacing_rate" not in short


def test_attrs_stop_at_a_malformed_length():
    good = struct.pack("=HH", 8, 0x8002) + b"abcd"        # nested flag masked off
    assert list(netlink.attrs(good + struct.pack("=HH", 2, 5) + b"zz")) == [(2, b"abcd")]


def test_tcp_sockets_as_ss_sees_them(named_ns):
    ns = named_ns
    with lab.in_netns(ns):
        srv = socket.create_server(("127.0.0.1", 0))
        cli = socket.socket()
        cli.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, b"reno")
        nl = netlink.open_socket(netlink.NETLINK_SOCK_DIAG)
    port = srv.getsockname()[1]
    try:
        cli.connect(("127.0.0.1", port))
        conn, _ = srv.accept()
        cli.sendall(b"x" * 1000)
        conn.recv(1000)
        socks = netlink.tcp_sockets(nl)
        mine = [s for s in socks if s["dport"] == port]
        assert len(mine) == 1, socks
        s = mine[0]
        assert (s["state"], s["src"], s["dst"], s["cong"]) == (1, "127.0.0.1", "127.0.0.1", "reno")
        assert s["sport"] == cli.getsockname()[1]
        assert s["info"]["state"] == 1 and s["info"]["snd_cwnd"] >= 10, s["info"]
        assert s["info"]["bytes_acked"] >= 1000, s["info"]
        out = lab.sh(f"ss -tin state established dport = :{port}", ns=ns)
        assert f"cwnd:{s['info']['snd_cwnd']}" in out and "reno" in out, (out, s)
        # the listening socket is not ESTABLISHED; with its state asked, it is there
        assert not [x for x in socks if x["sport"] == port and x["dport"] == 0]
        ls = netlink.tcp_sockets(nl, states=1 << 10)
        assert [x["sport"] for x in ls] == [port], ls
        conn.close()
    finally:
        cli.close()
        srv.close()
        nl.close()


def test_sock_readings_pick_and_a_failing_pick(named_ns):
    ns = named_ns
    with lab.in_netns(ns):
        srv = socket.create_server(("127.0.0.1", 0))
        cli = socket.create_connection(srv.getsockname())
    conn, _ = srv.accept()
    port = srv.getsockname()[1]
    try:
        done = threading.Event()
        with lab.sock_readings(ns, lambda m, t: (t, m["info"]["snd_cwnd"])
                               if m["dport"] == port else None, period=0.05) as seen:
            done.wait(0.3)
        assert len(seen) >= 2 and all(c >= 10 for _, c in seen), seen

        def broken(m, t):
            raise KeyError("broken pick")
        with pytest.raises(RuntimeError, match=f"sock_diag reading in {ns} failed"):
            with lab.sock_readings(ns, broken, period=0.05):
                done.wait(0.2)
    finally:
        for s in (conn, cli, srv):
            s.close()


def test_qdiscs_as_tc_sees_them(named_ns):
    ns = named_ns
    lab.sh(f"tc -n {ns} qdisc add dev lo root handle 1: htb default 1 && "
           f"tc -n {ns} class add dev lo parent 1: classid 1:1 htb rate 8kbit && "
           f"tc -n {ns} qdisc add dev lo parent 1:1 handle 10: pfifo limit 77")
    with lab.in_netns(ns):
        nl = netlink.open_socket(netlink.NETLINK_ROUTE)
        lo = socket.if_nametoindex("lo")
    with nl:
        qs = {(q["ifindex"], q["parent"]): q for q in netlink.qdiscs(nl)}
    want = {q["parent"] if "parent" in q else "root": q
            for q in json.loads(lab.sh(f"tc -n {ns} -s -j qdisc show dev lo"))}
    root_q, leaf = qs[(lo, 0xFFFFFFFF)], qs[(lo, 0x00010001)]
    assert (root_q["kind"], root_q["handle"]) == ("htb", 0x00010000), root_q
    assert (leaf["kind"], leaf["handle"]) == ("pfifo", 0x00100000), leaf
    # pfifo's options: struct tc_fifo_qopt, its limit
    assert leaf["options"] == struct.pack("=I", 77), leaf
    assert leaf["queue"] is not None and leaf["queue"]["qlen"] == want["1:1"]["qlen"], (leaf, want)


def test_request_acknowledged_and_refused_with_its_extack(named_ns):
    """netlink.request(): a pfifo the kernel takes (0, ""), the same again
    with NLM_F_EXCL refused with EEXIST and the kernel's extack message (none
    on a socket without ext_ack), an unknown kind refused with ENOENT."""
    ns = named_ns
    with lab.in_netns(ns):
        nl = netlink.open_socket(netlink.NETLINK_ROUTE, ext_ack=True)
        plain = netlink.open_socket(netlink.NETLINK_ROUTE)
        lo = socket.if_nametoindex("lo")

    def body(kind, opts):
        return (netlink.TCMSG.pack(socket.AF_UNSPEC, lo, 0, 0xFFFFFFFF, 0)
                + struct.pack("=HH", 4 + len(kind), netlink.TCA_KIND) + kind + b"\0" * (-len(kind) % 4)
                + struct.pack("=HH", 4 + len(opts), netlink.TCA_OPTIONS) + opts)
    create = 0x400 | 0x200      # NLM_F_CREATE | NLM_F_EXCL
    with nl, plain:
        assert netlink.request(nl, netlink.RTM_NEWQDISC, create,
                               body(b"pfifo\0", struct.pack("=I", 33)), seq=7) == (0, "")
        assert "pfifo" in lab.sh(f"tc -n {ns} qdisc show dev lo") and \
            "limit 33p" in lab.sh(f"tc -n {ns} qdisc show dev lo")
        err, msg = netlink.request(nl, netlink.RTM_NEWQDISC, create,
                                   body(b"pfifo\0", struct.pack("=I", 44)), seq=8)
        assert err == errno.EEXIST and "xclusiv" in msg, (err, msg)
        assert netlink.request(plain, netlink.RTM_NEWQDISC, create,
                               body(b"pfifo\0", struct.pack("=I", 44))) == (errno.EEXIST, "")
        err, msg = netlink.request(nl, netlink.RTM_NEWQDISC, create,
                                   body(b"nosuchqdisc\0", b""), seq=9)
        assert err == errno.ENOENT and msg, (err, msg)
    assert "limit 33p" in lab.sh(f"tc -n {ns} qdisc show dev lo")

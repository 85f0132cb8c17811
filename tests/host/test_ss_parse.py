"""specnet_lab.parse_ss on real `ss -ti` output of this host's sockets,
and on the info blocks our modules fill (tp: BBR's layout, cpecn: DCTCP's)."""
import os
import socket
import subprocess
import sys
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from specnet_bench import specnet_lab as lab  # noqa: E402

TCP_CONGESTION = getattr(socket, "TCP_CONGESTION", 13)


@pytest.fixture
def conn():
    """A loopback connection with reno, 200 kB sent and read: (client, port)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen()
    port = srv.getsockname()[1]
    c = socket.socket()
    c.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, b"reno")
    c.connect(("127.0.0.1", port))
    a, _ = srv.accept()
    c.sendall(bytes(200000))
    got = 0
    while got < 200000:
        got += len(a.recv(1 << 16))
    yield c, port
    for s in (c, a, srv):
        s.close()


@pytest.mark.parametrize("opts", [["-tin"], ["-tinH"], ["-ti"]])
def test_a_real_socket(conn, opts):
    c, port = conn
    out = subprocess.run(["ss", *opts, "state", "established", "dport", "=", f":{port}"],
                         capture_output=True, text=True, check=True).stdout
    socks = lab.parse_ss(out)
    assert len(socks) == 1, out
    s = socks[0]
    assert s["cc"] == "reno", s
    assert s["flags"] <= lab.SS_FLAGS, s
    assert s["bytes_acked"] >= 200000 and s["cwnd"] >= 10 and s["mss"] > 0, s
    assert 0 < s["rtt"] < 100 and s["rttvar"] >= 0 and 0 < s["minrtt"] <= s["rtt"] + 1, s
    assert s["send"] > 0 and isinstance(s["send"], float), s
    assert s["socket"][-1].endswith(f":{port}"), s


def test_info_blocks_and_rates():
    text = ("State Recv-Q Send-Q Local Address:Port Peer Address:Port Process\n"
            "ESTAB 0 0 10.0.0.1:40000 10.0.0.2:5201\n"
            "\t ts sack ecn tp wscale:7,7 rto:260 rtt:58.2/1.5 mss:1448 cwnd:21 ssthresh:20"
            " bbr:(bw:1.2Mbps,mrtt:50.1,pacing_gain:3,cwnd_gain:2.5) send 4.2Mbps"
            " retrans:0/3 minrtt:50.1\n"
            "ESTAB 0 0 10.0.0.1:40002 10.0.0.2:5201\n"
            "\t ts sack ecn ecnseen cpecn rtt:60/2 cwnd:30"
            " dctcp:(ce_state:1,alpha:512,ab_ecn:3000,ab_tot:9000) send 5792000bps\n")
    tp, cp = lab.parse_ss(text)
    assert tp["cc"] == "tp" and tp["bbr"] == {"bw": 1.2e6, "mrtt": 50.1, "pacing_gain": 3,
                                              "cwnd_gain": 2.5}
    assert tp["send"] == 4.2e6 and tp["retrans"] == "0/3" and tp["wscale"] == "7,7"
    assert (tp["rtt"], tp["rttvar"], tp["ssthresh"]) == (58.2, 1.5, 20)
    assert cp["cc"] == "cpecn" and cp["flags"] == {"ts", "sack", "ecn", "ecnseen"}
    assert cp["dctcp"] == {"ce_state": 1, "alpha": 512, "ab_ecn": 3000, "ab_tot": 9000}
    assert cp["send"] == 5792000.0
    assert lab.parse_ss("") == [] and lab.parse_ss("Recv-Q Send-Q Local\n") == []


def test_limits_of_a_sender_held_back_by_the_receive_window():
    """A sender whose peer reads 1000 bytes a millisecond through a 4 KB
    receive buffer spends most of its busy time receive-window limited."""
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    ls.bind(("127.0.0.1", 0))
    ls.listen(1)
    c = socket.socket()
    c.connect(ls.getsockname())
    a, _ = ls.accept()
    c.setblocking(False)
    a.setblocking(False)
    try:
        end = time.monotonic() + 1.0
        while time.monotonic() < end:
            for s, op in ((c, lambda: c.send(bytes(65536))), (a, lambda: a.recv(1000))):
                try:
                    op()
                except BlockingIOError:
                    pass
            time.sleep(0.001)
        out = subprocess.run(["ss", "-tinH", "state", "established",
                              f"( dport = :{ls.getsockname()[1]} )"],
                             capture_output=True, text=True, check=True).stdout
        (sender,) = lab.parse_ss(out)
        lim = lab.ss_limits(sender)
        assert lim is not None and lim["busy_ms"] >= 500, (lim, out)
        assert lim["rwnd_limited_ms"] >= 0.5 * lim["busy_ms"], (lim, out)
        assert lim["sndbuf_limited_ms"] <= lim["busy_ms"]
    finally:
        for s in (c, a, ls):
            s.close()


def test_limits_parse_what_ss_prints():
    (s,) = lab.parse_ss("0 0 10.0.0.1:5201 10.0.0.2:40000\n\t cubic busy:60000ms "
                        "rwnd_limited:2345ms(3.9%) sndbuf_limited:12ms(0.0%) cwnd:10\n")
    assert lab.ss_limits(s) == {"busy_ms": 60000, "rwnd_limited_ms": 2345,
                                "sndbuf_limited_ms": 12}
    (s,) = lab.parse_ss("0 0 10.0.0.1:5201 10.0.0.2:40000\n\t cubic rtt:612.5/3.1 "
                        "minrtt:600.25 busy:60000ms cwnd:10\n")
    assert lab.ss_limits(s) == {"busy_ms": 60000, "rwnd_limited_ms": 0,
                                "sndbuf_limited_ms": 0, "min_rtt_ms": 600.25}
    (idle,) = lab.parse_ss("0 0 10.0.0.1:5201 10.0.0.2:40000\n\t cubic cwnd:10\n")
    assert lab.ss_limits(idle) is None

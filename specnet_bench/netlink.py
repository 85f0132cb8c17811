"""Netlink dumps over raw sockets, with the standard library only: the
qdiscs of rtnetlink and the TCP sockets of sock_diag, what the lab's
samplers read from a thread while a flow runs (specnet_lab.QueueSampler,
specnet_lab.sock_readings()); and one request with its acknowledgement
and extack message, what the redopt tests send by hand
(tests/integration/nlraw.py, tests/stress/nlfuzz.py).

A socket keeps the network namespace it was made in: open one inside
specnet_lab.in_netns() and use it from anywhere. Importing pyroute2 for
the same two requests took 9 s in a TCG guest (its package imports
asyncio, sqlite and an HTTP server); this module takes milliseconds.

Layouts from the uapi headers: linux/netlink.h, linux/rtnetlink.h,
linux/gen_stats.h, linux/sock_diag.h, linux/inet_diag.h, linux/tcp.h.
"""
import os
import socket
import struct

NETLINK_ROUTE, NETLINK_SOCK_DIAG = 0, 4
NLMSG_ERROR, NLMSG_DONE = 2, 3
NLM_F_REQUEST, NLM_F_ACK, NLM_F_DUMP = 0x1, 0x4, 0x300
NLM_F_CAPPED, NLM_F_ACK_TLVS = 0x100, 0x200   # an acknowledgement's flags
NLMSGERR_ATTR_MSG = 1
SOL_NETLINK, NETLINK_EXT_ACK = 270, 11
NLA_TYPE_MASK = 0x3FFF          # without NLA_F_NESTED, NLA_F_NET_BYTEORDER
NLMSGHDR = struct.Struct("=IHHII")

# rtnetlink: a qdisc (struct tcmsg, then TCA_* attributes)
RTM_NEWQDISC, RTM_GETQDISC = 36, 38
TCMSG = struct.Struct("=BxxxiIII")          # family, ifindex, handle, parent, info
TCA_KIND, TCA_OPTIONS, TCA_STATS2 = 1, 2, 7
TCA_STATS_QUEUE = 3
GNET_STATS_QUEUE = struct.Struct("=IIIII")  # qlen, backlog, drops, requeues, overlimits

# sock_diag: struct inet_diag_req_v2 and struct inet_diag_msg, whose
# struct inet_diag_sockid holds the ports and addresses in network order
SOCK_DIAG_BY_FAMILY = 20
INET_DIAG_REQ_V2 = struct.Struct("=BBBxI")  # family, protocol, ext, states; sockid
INET_DIAG_SOCKID = struct.Struct(">HH16s16s")     # sport, dport, src, dst
INET_DIAG_MSG = struct.Struct("=BBBB")      # family, state, timer, retrans; sockid
SOCKID_LEN = 48                             # ports, src, dst, if, cookie[2]
INET_DIAG_MSG_LEN = 4 + SOCKID_LEN + 20     # expires, rqueue, wqueue, uid, inode
INET_DIAG_INFO, INET_DIAG_VEGASINFO, INET_DIAG_CONG = 2, 3, 4
INET_DIAG_DCTCPINFO, INET_DIAG_BBRINFO = 9, 16
TCP_ESTABLISHED = 1

# struct tcp_info, in order, to tcpi_snd_wnd (both supported kernels have
# it; a field the kernel did not send is left out)
TCP_INFO = (
    [("B", n) for n in ("state", "ca_state", "retransmits", "probes", "backoff",
                        "options", "wscale", "flags")]
    + [("I", n) for n in ("rto", "ato", "snd_mss", "rcv_mss", "unacked", "sacked", "lost",
                          "retrans", "fackets", "last_data_sent", "last_ack_sent",
                          "last_data_recv", "last_ack_recv", "pmtu", "rcv_ssthresh", "rtt",
                          "rttvar", "snd_ssthresh", "snd_cwnd", "advmss", "reordering",
                          "rcv_rtt", "rcv_space", "total_retrans")]
    + [("Q", n) for n in ("pacing_rate", "max_pacing_rate", "bytes_acked", "bytes_received")]
    + [("I", n) for n in ("segs_out", "segs_in", "notsent_bytes", "min_rtt", "data_segs_in",
                          "data_segs_out")]
    + [("Q", n) for n in ("delivery_rate", "busy_time", "rwnd_limited", "sndbuf_limited")]
    + [("I", n) for n in ("delivered", "delivered_ce")]
    + [("Q", n) for n in ("bytes_sent", "bytes_retrans")]
    + [("I", n) for n in ("dsack_dups", "reord_seen", "rcv_ooopack", "snd_wnd")])
# the congestion control's info: struct tcpvegas_info, tcp_dctcp_info, tcp_bbr_info
CC_INFO = {
    INET_DIAG_VEGASINFO: ("vegas", ("enabled", "rttcnt", "rtt", "minrtt")),
    INET_DIAG_DCTCPINFO: ("dctcp", ("enabled", "ce_state", "alpha", "ab_ecn", "ab_tot")),
    INET_DIAG_BBRINFO: ("bbr", ("bw_lo", "bw_hi", "min_rtt", "pacing_gain", "cwnd_gain")),
}


def attrs(buf):
    """(type, payload) of each netlink attribute in @buf, the nested and
    byte-order flags masked off; stops at a malformed length."""
    off = 0
    while off + 4 <= len(buf):
        ln, typ = struct.unpack_from("=HH", buf, off)
        if ln < 4:
            return
        yield typ & NLA_TYPE_MASK, buf[off + 4:off + ln]
        off += (ln + 3) & ~3


def open_socket(proto, ext_ack=False):
    """A netlink socket of @proto in this thread's network namespace; with
    @ext_ack, the kernel adds its extack message to an error's answer."""
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, proto)
    if ext_ack:
        s.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
    s.bind((0, 0))
    return s


def request(sock, mtype, flags, body, seq=1):
    """Send the request @mtype with @body on @sock (@flags, NLM_F_REQUEST
    and NLM_F_ACK set) and wait for its acknowledgement, the NLMSG_ERROR
    of sequence number @seq; returns (errno, extack message): (0, "") when
    the kernel took it. The message is empty unless the socket was opened
    with ext_ack."""
    sock.send(NLMSGHDR.pack(NLMSGHDR.size + len(body), mtype,
                            flags | NLM_F_REQUEST | NLM_F_ACK, seq, 0) + body)
    while True:
        data = sock.recv(1 << 16)
        ln, typ, mflags, mseq, _ = NLMSGHDR.unpack_from(data)
        if typ == NLMSG_ERROR and mseq == seq:
            break
    # struct nlmsgerr: the error, then the request's header, and its body
    # unless the answer is capped; then the extack attributes
    (err,) = struct.unpack_from("=i", data, NLMSGHDR.size)
    off = NLMSGHDR.size + 4
    off += NLMSGHDR.size if mflags & NLM_F_CAPPED else NLMSGHDR.unpack_from(data, off)[0]
    text = ""
    if mflags & NLM_F_ACK_TLVS:
        for typ, payload in attrs(data[off:ln]):
            if typ == NLMSGERR_ATTR_MSG:
                text = payload.split(b"\0")[0].decode(errors="replace")
    return -err, text


def dump(sock, mtype, body):
    """Send the dump request @mtype with @body on @sock; returns the
    answer's messages as (type, payload after the netlink header). An
    error answer raises OSError with the kernel's errno."""
    sock.send(NLMSGHDR.pack(NLMSGHDR.size + len(body), mtype, NLM_F_REQUEST | NLM_F_DUMP,
                            1, 0) + body)
    out = []
    while True:
        data = sock.recv(1 << 16)
        off = 0
        while off + NLMSGHDR.size <= len(data):
            ln, typ, _, _, _ = NLMSGHDR.unpack_from(data, off)
            if ln < NLMSGHDR.size:
                raise OSError(f"netlink: malformed message length {ln}")
            payload = data[off + NLMSGHDR.size:off + ln]
            if typ == NLMSG_DONE:
                return out
            if typ == NLMSG_ERROR:
                (err,) = struct.unpack_from("=i", payload)
                if err:
                    raise OSError(-err, f"netlink dump {mtype}: {os.strerror(-err)}")
                return out
            out.append((typ, payload))
            off += (ln + 3) & ~3


def qdiscs(sock):
    """Every qdisc of @sock's namespace (an NETLINK_ROUTE socket): dicts of
    ifindex, handle, parent, kind, options (TCA_OPTIONS' payload, bytes:
    attributes for most kinds, a struct for some, e.g. pfifo's) and queue (gnet_stats_queue: qlen, backlog, drops,
    requeues, overlimits; None without TCA_STATS2)."""
    out = []
    for typ, p in dump(sock, RTM_GETQDISC, TCMSG.pack(socket.AF_UNSPEC, 0, 0, 0, 0)):
        if typ != RTM_NEWQDISC or len(p) < TCMSG.size:
            continue
        _, ifindex, handle, parent, _ = TCMSG.unpack_from(p)
        top = dict(attrs(p[TCMSG.size:]))
        queue = None
        st = dict(attrs(top.get(TCA_STATS2, b"")))
        if len(st.get(TCA_STATS_QUEUE, b"")) >= GNET_STATS_QUEUE.size:
            queue = dict(zip(("qlen", "backlog", "drops", "requeues", "overlimits"),
                             GNET_STATS_QUEUE.unpack_from(st[TCA_STATS_QUEUE])))
        out.append(dict(ifindex=ifindex, handle=handle, parent=parent,
                        kind=top.get(TCA_KIND, b"").split(b"\0")[0].decode(),
                        options=top.get(TCA_OPTIONS, b""), queue=queue))
    return out


def tcp_info(buf):
    """struct tcp_info @buf as {field without tcpi_: value}, as far as @buf
    goes; 'wscale' and 'flags' split as the header's bit fields."""
    out, off = {}, 0
    for fmt, name in TCP_INFO:
        size = struct.calcsize(fmt)
        if off + size > len(buf):
            break
        (out[name],) = struct.unpack_from("=" + fmt, buf, off)
        off += size
    if "wscale" in out:
        w = out.pop("wscale")
        out["snd_wscale"], out["rcv_wscale"] = w & 0xF, w >> 4
    if "flags" in out:
        f = out.pop("flags")
        out["delivery_rate_app_limited"], out["fastopen_client_fail"] = f & 1, (f >> 1) & 3
    return out


def tcp_sockets(sock, states=1 << TCP_ESTABLISHED, family=socket.AF_INET):
    """The TCP sockets of @sock's namespace (a NETLINK_SOCK_DIAG socket) in
    @states (a bit per TCP state), with what `ss -ti` asks for: dicts of
    state, src, sport, dst, dport, cong (the congestion control's name),
    info (tcp_info(), or None) and the congestion control's own info under
    its layout's name ('vegas', 'dctcp', 'bbr': {field: value}) where it
    gives one."""
    ext = sum(1 << (a - 1) for a in (INET_DIAG_INFO, INET_DIAG_VEGASINFO, INET_DIAG_CONG))
    req = INET_DIAG_REQ_V2.pack(family, socket.IPPROTO_TCP, ext, states) + bytes(SOCKID_LEN)
    alen = 4 if family == socket.AF_INET else 16
    out = []
    for typ, p in dump(sock, SOCK_DIAG_BY_FAMILY, req):
        if typ != SOCK_DIAG_BY_FAMILY or len(p) < INET_DIAG_MSG_LEN:
            continue
        _, state, _, _ = INET_DIAG_MSG.unpack_from(p)
        sport, dport, src, dst = INET_DIAG_SOCKID.unpack_from(p, INET_DIAG_MSG.size)
        r = dict(state=state, sport=sport, dport=dport,
                 src=socket.inet_ntop(family, src[:alen]),
                 dst=socket.inet_ntop(family, dst[:alen]), cong=None, info=None)
        for a, v in attrs(p[INET_DIAG_MSG_LEN:]):
            if a == INET_DIAG_INFO:
                r["info"] = tcp_info(v)
            elif a == INET_DIAG_CONG:
                r["cong"] = v.split(b"\0")[0].decode()
            elif a in CC_INFO:
                name, fields = CC_INFO[a]
                n = min(len(fields), len(v) // 4)
                r[name] = dict(zip(fields, struct.unpack_from(f"={n}I", v)))
        out.append(r)
    return out

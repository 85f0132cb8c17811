"""Shared pieces of the cwnd tests of our congestion controls: a receive-
window-limited path where the only losses and CE marks are the ones a test
injects (nftables, by conntrack packet count), one traced iperf3 flow, and
the reading of a loss response from tcp:tcp_probe.

Topology: snd -- rtr -- rcv. The ACK path (rtr -> snd) carries a 100 ms
netem delay, the data path is unshaped and the receiver's buffer is capped,
so the flow is receive-window limited: no queue, no congestion loss, no CE
mark but the injected ones.
"""
import time

from specnet_bench import specnet_lab as lab

RTT = 0.100
INFINITE_SSTHRESH = 0x7fffffff
LOSS_PKT = 500          # conntrack packet count of the packet we drop
MSS = 1448              # payload of a full segment (1500-byte MTU, timestamps)


def wnd_limited_chain():
    c = lab.Chain(["snd", "rtr", "rcv"])
    c.build()
    try:
        c.tc("rtr", "snd", f"root netem delay {int(RTT * 1000)}ms limit 10000")
        c.ecn_sender("snd")
        c.sysctl("rcv", "net.ipv4.tcp_rmem", "4096 131072 131072")
        lab.iperf3_server(c.ns("rcv"))
    except Exception:
        c.destroy()
        raise
    return c


def run_flow(chain, cc, seconds=3, during=None):
    """One iperf3 flow snd -> rcv traced by tcp_probe (3 s by default: on
    wnd_limited_chain() packet LOSS_PKT goes 1.36-1.40 s after the first
    event, nine flows on 6.1, and loss_response() reads up to 8 RTTs
    after it, to 2.2 s; the trace ends at 3.1 s). @during(chain) runs
    in parallel (e.g. a blackout); what it raises is raised here, after the
    flow (a blackout whose end failed would otherwise pass for a flow that
    stalled). Returns (events, report)."""
    import threading
    with lab.TcpProbe() as probe:
        t, raised = None, []

        def side():
            try:
                during(chain)
            except BaseException as e:      # noqa: B036 - re-raised below
                raised.append(e)
        if during:
            t = threading.Thread(target=side)
            t.start()
        rep = lab.iperf3_client(chain.ns("snd"), chain.ip("rcv"), cc, seconds)
        if t:
            t.join()
            if raised:
                raise raised[0]
        probe.stop()
        evs = lab.data_flow(probe.events())
    assert evs, "no tcp_probe events for the data flow"
    return evs, rep


def assert_long_path_start_doubles(cc, figure):
    """A loss-free long path (10 Mbit/s, 600 ms: 495 packets, a FIFO of 3000
    that never overflows), one @cc flow for 4 s: the largest window of each
    600 ms round trip from the flow's first event at least 1.7 times the
    round before's in the second and third (slow start doubles: 10, 19, 38,
    73). The first slow start's cap (two BDPs of the best delivery rate)
    read the initial window's samples and held the second round at 26
    (spec and cpecn alike, before qd_first_cap_due()), and the flow stayed
    a round behind."""
    c = lab.bottleneck_chain("10mbit", 600, "parent 1:1 handle 10: pfifo limit 3000")
    try:
        c.ecn_sender("snd")
        # the receiver's buffer from 4 MB, so that its window (half of it)
        # never holds a round: from the kernel's 128 KB, grown each round
        # trip from what the reader took, it held round trip 3 at 63
        # packets after 39 in one run (two VMs side by side; cwnd does not
        # grow while the receiver's window limits the flight)
        c.sysctl("rcv", "net.ipv4.tcp_rmem", "4096 4194304 16777216")
        lab.iperf3_server(c.ns("rcv"))
        evs, _ = run_flow(c, cc, seconds=4)
    finally:
        c.destroy()
    per = {r[0]: r for r in rounds(evs, 0.6)}
    first = [per[b][1] if b in per else 0 for b in range(5)]
    limited = [per[b][5] if b in per else 0 for b in range(5)]
    figure(f"{cc}: largest cwnd of round trips 0-4", first)
    for r in (1, 2):
        assert first[r + 1] >= 1.7 * first[r], \
            f"round trip {r + 1}: {first[r + 1]} packets after {first[r]} ({first}; " \
            f"receive-window limited, % of each round's ACKs: {limited})"


def rounds(evs, rtt_s):
    """[(round, max cwnd, min ssthresh, packets acked, largest flight,
    receive-window-limited %, min cwnd, largest srtt ms)] from tcp_probe
    events, a round being a bin of @rtt_s from the first event. The flight
    is snd_nxt - snd_una in packets; an event is receive-window limited
    when the next segment would not fit the window the receiver offers
    (snd_nxt + one MSS past snd_una + snd_wnd, tcp_snd_wnd_test())."""
    t0 = evs[0]["t"]
    bins = {}
    for e in evs:
        bins.setdefault(int((e["t"] - t0) / rtt_s), []).append(e)
    out = []
    for b in sorted(bins):
        es = bins[b]
        acked = (es[-1]["snd_una"] - es[0]["snd_una"]) % 2**32 // MSS
        flight = [(x["snd_nxt"] - x["snd_una"]) % 2**32 for x in es]
        limited = sum(f + MSS > x["snd_wnd"] for f, x in zip(flight, es))
        out.append((b, max(x["cwnd"] for x in es), min(x["ssthresh"] for x in es), acked,
                    max(flight) // MSS, round(100 * limited / len(es)),
                    min(x["cwnd"] for x in es),
                    round(max(x["srtt"] for x in es) / 1000)))
    return out


def first_reduction(evs):
    """Index of the first event whose ssthresh left 'infinite'."""
    for i, e in enumerate(evs):
        if e["ssthresh"] < INFINITE_SSTHRESH:
            return i
    raise AssertionError("no loss/ECN response seen in the trace")


def trace_rows(evs, ref, start, end, every=1):
    """A failure message's view of a trace: (s from @ref, cwnd, ssthresh,
    srtt ms) of every @every-th event from @start to @end (trace times)."""
    return [(round(e["t"] - ref, 3), e["cwnd"], e["ssthresh"], round(e["srtt"] / 1000, 1))
            for e in evs if start <= e["t"] <= end][::every]


def rto_index(evs, after=None):
    """Index of the first event with cwnd <= 2 (from time @after on, if
    given: a blackout's start): the RTO of a blackout. Not
    first_reduction(): slow start may have ended before it (HyStart++ or
    the delay signal reading a TCG stall as an RTT rise sets ssthresh with
    no cut; seen as "cwnd 90" at the first event with an ssthresh)."""
    i = next((j for j, e in enumerate(evs)
              if e["cwnd"] <= 2 and (after is None or e["t"] >= after)), None)
    if i is None:
        cut = [(round(e["t"] - evs[0]["t"], 2), e["cwnd"], e["ssthresh"])
               for e in evs if e["ssthresh"] < INFINITE_SSTHRESH][:8]
        raise AssertionError(f"expected an RTO (cwnd 1), none in the trace; "
                             f"first events with an ssthresh: {cut}")
    return i


def loss_response(evs):
    """(pre-loss cwnd, ssthresh set, cwnd settled 3-8 RTTs later)."""
    i = first_reduction(evs)
    t0 = evs[i]["t"]
    pre = max(e["cwnd"] for e in evs[:i] if e["t"] > t0 - 3 * RTT) if i else evs[0]["cwnd"]
    ss = evs[i]["ssthresh"]
    later = [e["cwnd"] for e in evs[i:] if t0 + 3 * RTT <= e["t"] <= t0 + 8 * RTT]
    assert later, "flow ended too soon after the loss"
    return pre, ss, min(later)


def blackout(chain, start=1.5, length=1.0, then=None, meanwhile=None, times=None):
    """Drop every data packet at the router from @start s for @length s
    (@meanwhile(chain) runs as it starts); then clear the rules, or swap in
    @then(chain)'s (lab.inject replaces them in one transaction, with no
    gap). @times (a dict), if given, gets the blackout's "start" and "end"
    in time.monotonic(), the clock of the tcp_probe events."""
    time.sleep(start)
    lab.inject(chain, "rtr", blackout=True)
    if times is not None:
        times["start"] = time.monotonic()
    if meanwhile:
        meanwhile(chain)
    time.sleep(length)
    if then:
        then(chain)
    else:
        lab.clear_inject(chain, "rtr")
    if times is not None:
        times["end"] = time.monotonic()


def load_twice_and_rmmod_in_use(module, cc, while_in_use=None):
    """A second insmod of @module says "File exists"; rmmod while a flow
    of @cc runs says "in use" and leaves the flow working (@while_in_use()
    runs then too); once the sockets are gone the module unloads and its
    congestion controls are gone."""
    import threading
    rc, _, err = lab.run(f"insmod {lab.module_path(module)}")
    assert rc != 0 and "File exists" in err
    c = wnd_limited_chain()
    try:
        res = {}
        t = threading.Thread(target=lambda: res.update(
            rep=lab.iperf3_client(c.ns("snd"), c.ip("rcv"), cc, 6)))
        t.start()
        time.sleep(3)
        rc, _, err = lab.run(f"rmmod {module}")
        assert rc != 0 and "in use" in err, f"rmmod with a live socket: rc={rc} {err}"
        assert lab.module_loaded(module)
        if while_in_use:
            while_in_use()
        t.join()
        assert lab.goodput_bps(res["rep"]) > 100e3, "flow broken by the rmmod attempt"
    finally:
        c.destroy()
    lab.unload_module(module)      # sockets gone: unloads
    assert not lab.module_loaded(module)
    assert cc not in lab.available_ccs()


def param_value(module, name):
    with open(f"/sys/module/{module}/parameters/{name}") as f:
        return f.read().strip()


def assert_params_refused(module, bad):
    """Each value of @bad ({parameter: values}) written to the module's
    parameter file is refused and leaves the parameter as it was."""
    for name, values in bad.items():
        before = param_value(module, name)
        for v in values:
            rc, _, _ = lab.run(f"echo '{v}' > /sys/module/{module}/parameters/{name}")
            assert rc != 0, f"{name}={v!r} accepted"
            assert param_value(module, name) == before, f"refused {name}={v!r} changed it"


def assert_load_refused(module, args, reason, cc=None):
    """`insmod @module @args` is refused ("Invalid parameters") with
    @reason in dmesg, and nothing stays loaded or registered (@cc)."""
    lab.unload_module(module)
    rc, _, err = lab.run(f"insmod {lab.module_path(module)} {args}")
    assert rc != 0 and "Invalid parameters" in err
    assert not lab.module_loaded(module)
    if cc:
        assert cc not in lab.available_ccs()
    assert reason in lab.sh("dmesg | tail -n 20")


QD_DEFAULTS = {"qd_enable": "1", "qd_loss_us": "5000", "qd_loss_pct": "25",
               "qd_win_ms": "300000", "qd_brk_floor": "50", "qd_brk_mult": "3"}


def assert_qd_params(module, cc):
    """The delay signal's parameters (kernel/include/specnet/qdelay.h) of
    @module: their defaults; values out of range refused with the reason in
    dmesg and nothing changed; the bounds accepted; a bad one at load time
    refuses the load."""
    assert {n: param_value(module, n) for n in QD_DEFAULTS} == QD_DEFAULTS
    assert_params_refused(module, {
        "qd_enable": ("2", "-1", "yes"),
        "qd_loss_us": ("99", "1000001", "abc"),
        "qd_loss_pct": ("0", "101"),
        "qd_win_ms": ("999", "600001", "99999999999"),
        "qd_brk_floor": ("0", "1001"),
        "qd_brk_mult": ("1", "101"),
    })
    log = lab.sh("dmesg | tail -n 40")
    assert "qd_loss_pct: '101' refused: qd_loss_pct is 1..100" in log, log
    assert "qd_enable: 'yes' refused: not a number" in log, log
    for name, v in (("qd_loss_us", "100"), ("qd_loss_us", "1000000"), ("qd_loss_pct", "1"),
                    ("qd_win_ms", "600000"), ("qd_brk_floor", "1000"), ("qd_brk_mult", "100"),
                    ("qd_enable", "0")):
        lab.set_param(module, name, v)
        assert param_value(module, name) == v
    assert_load_refused(module, "qd_win_ms=100", "qd_win_ms: '100' refused: ", cc=cc)
    lab.load_module(module)

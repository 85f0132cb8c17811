"""tests/bench/start_trace.py's run files on synthetic records: the
summary's goodput medians and ranges, each flow's rounds (cwnd.rounds(),
which the VM tests read too) and first ssthresh; its refusal of malformed
options before anything runs; and publish.py's handling of a start trace
(no changes.md against a run it cannot compare)."""
import json
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "bench"))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
import start_trace  # noqa: E402  (puts tests/integration on the path)
from cwnd import MSS, rounds  # noqa: E402
from specnet_bench import publish  # noqa: E402

INF = start_trace.INFINITE_SSTHRESH
ARGS = dict(ccs="spec,cubic", loss="0,1", rate="20mbit", gw=None, rtt=600, seconds=8,
            reps=2, param=["qd_enable=0"], out="results/x", name="geo")


def rec(cc, loss, mbit, rounds, counters=None):
    return dict(cc=cc, loss=loss, gw=None, goodput_bps=mbit * 1e6, rounds=rounds,
                counters=counters)


def meta(commit="abc1234"):
    return dict(kind="start-trace", date="20261130T120000Z", kernel="6.1.0-57-amd64",
                commit=commit, name="geo", argv="--loss 0,1 --reps 2", args=ARGS)


RECS = [rec("spec", 1.0, 5.09, [(0, 10, INF, 10), (1, 19, INF, 19), (2, 26, 24, 26)],
            {"loss_events": 3, "breaker_trips": 0}),
        rec("cubic", 1.0, 0.68, [(0, 10, INF, 10), (1, 19, INF, 19)]),
        rec("spec", 1.0, 6.18, [(0, 10, INF, 10), (1, 20, INF, 19)], {"loss_events": 0}),
        rec("spec", 1.0, 5.50, [(0, 10, INF, 10)], {})]


def test_summary_medians_rounds_and_first_ssthresh():
    text = start_trace.summary(meta(), RECS)
    assert "# start-trace geo (20261130T120000Z, kernel 6.1.0-57-amd64, commit abc1234)" in text
    assert "`tests/bench/start_trace.py --loss 0,1 --reps 2`" in text
    assert "Module parameters set: qd_enable=0." in text
    assert "| - | 1 | spec | 5.09, 6.18, 5.50 | 5.50 [5.09-6.18] |" in text
    assert "| - | 1 | cubic | 0.68 | 0.68 |" in text     # one repetition: no range
    assert "* -, 1%, spec, repetition 1: 5.09 Mbit/s; ssthresh 24 in round 2" in text
    assert "  * cwnd: 10, 19, 26" in text and "  * acked: 10, 19, 26" in text
    assert "  * counters: loss_events 3" in text
    assert "* -, 1%, spec, repetition 2: 6.18 Mbit/s; ssthresh never set" in text
    assert "  * counters: all 0" in text
    # a flow without counters (not spec) prints none
    cubic = text[text.index("cubic, repetition 1"):].split("\n* ")[0]
    assert "counters" not in cubic


def ev(t, nxt, una, wnd, cwnd=10, ssthresh=INF, srtt_us=600000):
    M = MSS
    return dict(t=t, snd_nxt=nxt * M, snd_una=una * M, snd_wnd=wnd * M, cwnd=cwnd,
                ssthresh=ssthresh, srtt=srtt_us)


def test_rounds_flight_and_receive_window_limit():
    """Hand-worked: round 0 has 3 events, one whose next segment does not fit
    the window (flight 40 + 1 > 40 offered): 33%; round 1, snd_una moved 50
    and the flight reached 50 of 100, never limited, its largest srtt 750.4
    ms. Sequence numbers wrap."""
    base = 2**32 // MSS - 20   # snd_una wraps past 2^32 in round 1
    evs = [ev(0.0, base + 10, base, 40), ev(0.3, base + 40, base, 40, cwnd=40),
           ev(0.5, base + 39, base, 40, cwnd=45),
           ev(0.7, base + 60, base + 10, 100, cwnd=60, ssthresh=50, srtt_us=750400),
           ev(1.1, base + 100, base + 60, 100, cwnd=70)]
    r = rounds(evs, 0.6)
    assert r == [(0, 45, INF, 0, 40, 33, 10, 600), (1, 70, 50, 50, 50, 0, 60, 750)]
    text = start_trace.summary(meta(), [rec("spec", 1.0, 1.0, r)])
    assert "  * flight: 40, 50" in text
    assert "  * largest srtt, ms: 600, 750" in text
    assert "  * receive-window limited, % of the round's ACKs: 33, 0" in text
    # records from before the window was traced summarize without the lines
    old = start_trace.summary(meta(), RECS)
    assert "flight:" not in old and "srtt" not in old


def test_gateways_are_the_benchs():
    """Hand-worked: 20 Mbit/s x 600 ms is 990.75 frames of 1514 bytes; four
    BDPs, 3963 packets (fq_codel's limit), CAKE's memory twice that many
    frames of 1500 bytes."""
    assert start_trace.gateway_tc("fq_codel", "20mbit", 600) == \
        "fq_codel limit 3963 target 5ms interval 600ms ecn"
    assert start_trace.gateway_tc("cake", "20mbit", 600) == \
        "cake unlimited rtt 600ms besteffort memlimit 11889000"
    # the leo scenario's FIFO: one BDP at 60 ms, 99.08 frames, whatever
    # the path's RTT; without --interval, at the path's (24.77 at 15 ms)
    assert start_trace.gateway_tc("fifo", "20mbit", 38, 60) == "pfifo limit 99"
    assert start_trace.gateway_tc("fifo", "20mbit", 15) == "pfifo limit 25"
    args = dict(ARGS, gw="fifo", rtt=38, interval=60, handover="6:47:75")
    assert ("Path: a tail-drop FIFO of one BDP at 60 ms (pfifo limit 99) under HTB at "
            "20mbit, then the corruption") in start_trace.summary(dict(meta(), args=args), RECS)


def test_summary_names_the_hosts_buffers():
    bench = dict(meta(), args=dict(ARGS, buffers=start_trace.BENCH_BUFFERS))
    assert "Both hosts' tcp_rmem and tcp_wmem: 10240 87380 16777216." in \
        start_trace.summary(bench, RECS)
    # a trace from before the option: the kernel's defaults
    assert "The hosts keep the kernel's default buffers" in start_trace.summary(meta(), RECS)


def test_handover_and_least_cwnd_in_the_summary():
    """Hand-worked: 0.5 s rounds; the window cut from 80 to 56 in round 2
    shows as its least cwnd; the handover's time and path in the header."""
    evs = [ev(10.0, 10, 0, 100, cwnd=70), ev(10.4, 80, 10, 100, cwnd=80),
           ev(11.0, 90, 20, 100, cwnd=80, ssthresh=56),
           ev(11.2, 90, 30, 100, cwnd=56, ssthresh=56)]
    r = rounds(evs, 0.5)
    assert [(x[0], x[1], x[6]) for x in r] == [(0, 80, 70), (2, 80, 56)]
    args = dict(ARGS, gw="fq_codel", rtt=33, interval=100, bin=500, handover="4:53:75")
    text = start_trace.summary(dict(meta(), args=args), [dict(rec("spec", 1.0, 15.1, r),
                                                              handover_s=2.33)])
    assert ("Path: fq_codel (ECN, interval 100 ms) under HTB at 20mbit, then the "
            "corruption on a netem hop after it and 33 ms on the ACK path's; 4 s into "
            "each flow a handover: everything lost for 75 ms, then the RTT 53 ms.") in text
    assert "a round is a 500 ms bin" in text
    assert "  * handover at 2.33 s" in text
    assert "  * cwnd: 80, 80\n  * least cwnd: 70, 56" in text
    # records from before the least cwnd and the handover print neither line
    old = start_trace.summary(meta(), RECS)
    assert "least cwnd:" not in old and "handover" not in old
    # a LEO schedule's RTTs to a tenth of a ms (LeoTopo.schedule()), the
    # round's width the RTT where --bin is not given
    args = dict(args, rtt=33.3, bin=None, handover="5:37.9:80")
    text = start_trace.summary(dict(meta(), args=args), [rec("spec", 1.0, 15.1, r)])
    assert ("and 33.3 ms on the ACK path's; 5 s into each flow a handover: everything "
            "lost for 80 ms, then the RTT 37.9 ms.") in text
    assert "a round is a 33.3 ms bin" in text


@pytest.mark.parametrize("argv, why", [
    (["--handover", "4:53"], "T:RTT:BURST"),
    (["--handover", "4:0:75", "--gw", "fq_codel"], "0 < RTT <= 10000 ms"),
    (["--handover", "4:53:75"], "with --gw"),
    (["--handover", "8:53:75", "--gw", "fq_codel", "--seconds", "8"], "within the flow"),
    (["--bin", "0"], "0 < MS <= 60000"),
    (["--buffers", "4096 16384"], "three sizes in bytes"),
    (["--buffers", "4096 131072 65536"], "0 < min <= default <= max"),
    (["--loss", "1,x"], "a list of percentages"),
    (["--loss", "100"], "each in [0, 100)"),
    (["--param", "qd_enable"], "NAME=VALUE"),
    (["--gw", "pfifo"], "invalid choice"),
])
def test_malformed_options_are_refused_before_anything_runs(argv, why, capsys, monkeypatch):
    monkeypatch.setattr(start_trace.lab, "sh", lambda *a, **k: pytest.fail("ran a command"))
    with pytest.raises(SystemExit) as e:
        start_trace.main(argv)
    assert e.value.code == 2
    assert why in capsys.readouterr().err


def test_publish_of_a_start_trace_writes_no_changes(tmp_path):
    docs = tmp_path / "docs"
    for i, commit in enumerate(("aaaaaaa", "bbbbbbb")):
        d = tmp_path / f"run{i}"
        start_trace.write_run(str(d), meta(commit), RECS)
        dest, pngs = publish.publish(str(d), "start-geo", docs=str(docs))
    assert pngs == [] and not os.path.exists(os.path.join(dest, "changes.md"))
    text = open(os.path.join(dest, "summary.md")).read()
    assert text.startswith("<!-- generated by specnet_bench/publish.py from ")
    assert "Run: 20261130T120000Z, kernel 6.1.0-57-amd64, commit bbbbbbb." in text
    assert json.load(open(os.path.join(dest, "results.json")))["meta"]["commit"] == "bbbbbbb"


def test_summarize_writes_the_summary_again_from_the_records(tmp_path):
    d = tmp_path / "run"
    start_trace.write_run(str(d), meta(), RECS)
    (d / "summary.md").write_text("stale\n")
    start_trace.main(["--summarize", str(d)])
    text = (d / "summary.md").read_text()
    assert text == start_trace.summary(meta(), RECS)
    assert "Path: one netem hop: 20mbit, 600 ms, a 3000-packet queue and the corruption" in text
    gw = dict(meta(), args=dict(ARGS, gw="cake"))
    assert "Path: cake (ECN) under HTB at 20mbit, then 600 ms and the corruption on a " \
           "netem hop after it." in start_trace.summary(gw, RECS)

"""specnet-bench's report on the host: summary.md and the PNG plots from the
results.json of a tiny run (`specnet-bench --suite tiny` in the 6.1 guest,
commit ecda5f4, kept in tests/host/data; its records were since edited to
carry the ceiling fields of the current schema, per_nominal, per_realized,
ceiling_nominal_bps, ceiling_bps, lossy_pkts, lossy_discarded, with
plausible counters, a cpecn record, the scenario added after the run, and
the two flow records of a tiny fifo-share case, spec against cubic, from
`specnet-bench --scenario fifo-share --param 1 --ccs spec --opt vs=cubic
--seconds 3` in the 6.1 guest at commit d73ca29).
The report is plain Python over results.json, the same on every kernel;
the VM test (tests/integration/test_bench.py) runs the scenarios with
--no-plots, as matplotlib under TCG costs minutes per guest.

Then the statistics, worked by hand on small synthetic records: a failed
flow counts as 0 (goodput, Jain) and marks its scenario FAILED; figures
are medians over repetitions with min and max; ratios between algorithms
are taken inside a repetition, then their median; targets are judged on
the realized ceiling and say by how much they are met or missed."""
import dataclasses
import json
import os
import sys

import jsonschema
import pytest

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(TOP))
from specnet_bench import cli as bench  # noqa: E402
from specnet_bench.records import REQUIRED, FlowRecord, FlowResult  # noqa: E402

TINY = os.path.join(TOP, "tests", "host", "data", "bench-tiny.json")


@pytest.fixture(scope="module")
def tiny():
    bench.validate(TINY)
    with open(TINY) as f:
        return json.load(f)


def test_fixture_is_a_tiny_run_of_every_scenario(tiny):
    assert tiny["meta"]["suite"] == "tiny" and tiny["meta"]["skipped"] == []
    assert {r["scenario"] for r in tiny["records"]} == set(bench.SCENARIOS)


def test_summary_has_every_scenario_ratios_and_targets(tiny):
    text = bench.summary(tiny["meta"], tiny["records"])
    for s in bench.SCENARIOS:
        assert f"## {s}" in text
        assert "Paper: " + bench.PAPER[s] in text
    assert "x reno" in text and "ceil" in text and "8 (redopt)" in text
    assert "## Targets" in text and "satellite: spec >= every baseline at every BER" in text
    assert "queue " in text.split("## geo")[1].split("## ")[0], "geo without its queue delay"
    assert "FAILED" not in text.split("Cells:")[0]


def test_summary_row_has_nominal_and_realized_per_and_the_realized_ceiling(tiny):
    text = bench.summary(tiny["meta"], tiny["records"])
    sat = text.split("## satellite")[1].split("## ")[0]
    assert ("| BER | PER nominal | PER realized | ceiling kbit/s (realized) | spec | reno |"
            in sat)
    # PER nominal 1 - (1 - 1e-5)^(8 x 1066) = 0.0807; realized on the two
    # paths 6/83 = 0.0723 and 8/93 = 0.0860, median 0.0792, 14 of 176
    # frames in all; realized ceilings 56.44 and 55.60 kbit/s, median 56.02;
    # spec 46.68 kbit/s / 56.44 (its own path's) = 0.83
    assert ("| 1e-05 | 0.0807 | 0.0792 [0.0723-0.086] (14/176) | 56.0 [55.6-56.4] | "
            "46.7, 0.99x reno, 0.99x best, 0.83 ceil |") in sat


def test_plots_one_png_per_scenario(tiny, tmp_path):
    written = bench.plots(str(tmp_path), tiny["records"])
    pngs = sorted(f for f in os.listdir(tmp_path) if f.endswith(".png"))
    assert len(pngs) == len(bench.SCENARIOS) == len(written), pngs
    for f in pngs:
        with open(tmp_path / f, "rb") as fh:
            head = fh.read(24)
        assert head[:8] == b"\x89PNG\r\n\x1a\n", f
        # IHDR width x height: the three panels side by side
        w, h = int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
        assert w > 2 * h > 0, (f, w, h)


@pytest.mark.parametrize("argv, msg", [
    (["--opt", "step=1000"], "--opt needs --scenario"),
    (["--scenario", "geo", "--param", "1", "--ccs", "spec", "--opt", "stpe=1000"],
     "geo has no option stpe (it has: bdp, gw, hostbuf_mb, initrwnd, rate, rtt_ms, step)"),
    (["--scenario", "geo", "--param", "1", "--ccs", "spec", "--opt", "step"],
     "bad --opt 'step' (KEY=VALUE)"),
    (["--scenario", "geo", "--param", "1", "--ccs", "spec", "--opt", "loss=3"],
     "geo has no option loss"),
    (["--scenario", "satellite", "--param", "1e-5", "--ccs", "spec", "--opt", "mss=512"],
     "satellite has no option mss"),
    (["--scenario", "geo", "--param", "1", "--ccs", "spec", "--opt", "vs=cubic"],
     "geo has no option vs"),
])
def test_bad_topology_options_are_refused_before_anything_runs(argv, msg, capsys):
    with pytest.raises(SystemExit) as e:
        bench.main(argv)
    assert msg in str(e.value)


def test_geo_probe_options_shape_the_path():
    from specnet_bench import topos
    t = topos.GeoTopo.__new__(topos.GeoTopo)
    plain = t.chain_links(loss=10)
    assert [(l["rate"], l["queue"]) for l in plain] == [("100mbit", None), ("20mbit", None)]
    step = t.chain_links(loss=10, step="1000")
    assert step[1]["rate"] == "20mbit" and step[1]["queue"] == ("step", 1000)
    assert step[1]["delay_ms"] == 0 and step[2]["delay_ms"] == 300
    assert "corrupt 10%" in step[2]["impair"] and not step[1]["impair"]
    assert bench.topo_opts("geo") == {"bdp", "gw", "hostbuf_mb", "initrwnd", "rate", "rtt_ms", "step"}


def test_geo_gateways_put_their_queue_before_the_lossy_delay():
    """geo-aqm and geo-taildrop: the gateway's queue on the 20 Mbit/s link,
    the 300 ms one-way delay and the corruption after it; the sizes follow
    the BDP in wire frames (20e6 x 0.6 / 8 / 1514 = 990.8 packets)."""
    from specnet_bench import topos
    t = topos.GeoTopo.__new__(topos.GeoTopo)
    t.mtu = topos.MTU
    fq = t.chain_links(loss=1, gw="fq_codel")
    assert fq[1]["queue"] == ("fq_codel", 600, "ecn") and fq[1]["limit"] == 3963
    assert "interval 600ms ecn" in topos.queue_tc(fq[1]["queue"], 3963, "20mbit")
    assert fq[2]["delay_ms"] == 300 and "corrupt 1%" in fq[2]["impair"]
    red = t.chain_links(loss=1, gw="red")
    assert red[1]["queue"] == ("red", 50, 198, 0.1) and red[1]["limit"] == 1982
    # cake: unshaped under the link's HTB (which shapes), rtt the path's,
    # memory for 4 BDPs of frames at about twice their size (truesize)
    cake = t.chain_links(loss=1, gw="cake")
    assert cake[1]["queue"] == ("cake", 600) and cake[1]["limit"] == 3963
    assert topos.queue_tc(cake[1]["queue"], 3963, "20mbit", 1514) == \
        "cake unlimited rtt 600ms besteffort memlimit 11999964"
    # redopt: the model's inputs for this path, min_th 5% of 990.8, one
    # flow whose slow start ends at the BDP; the qdisc sizes itself
    ro = t.chain_links(loss=1, gw="redopt")
    assert ro[1]["queue"] == ("redopt", "bandwidth 20mbit rtt 600ms flows 1 ssthresh 991 min 50 "
                                        "probability 0.1 avpkt 1500 ecn")
    assert topos.queue_tc(ro[1]["queue"], 0, "20mbit").startswith("redopt bandwidth 20mbit")
    fifo = t.chain_links(loss=1, gw="fifo", bdp="4")
    assert fifo[1]["queue"] is None and fifo[1]["limit"] == 3963
    assert fifo[1]["rate"] == "20mbit" and fifo[1]["delay_ms"] == 0
    with pytest.raises(ValueError, match="unknown gateway 'codel'"):
        t.chain_links(loss=1, gw="codel")
    # without ECN unless asked
    assert topos.queue_tc(("fq_codel", 100), 64, "10mbit").endswith("noecn")
    # the scenarios' own topologies (mn --custom names): their gateway fixed
    aqm = topos.GeoAqmTopo.__new__(topos.GeoAqmTopo)
    aqm.mtu = topos.MTU
    assert aqm.chain_links(loss=1) == fq
    with pytest.raises(ValueError, match="does not mark"):
        aqm.chain_links(loss=1, gw="fifo")
    assert aqm.chain_links(loss=1, gw="cake") == cake and aqm.chain_links(gw="redopt")[1] == ro[1]
    td = topos.GeoTaildropTopo.__new__(topos.GeoTaildropTopo)
    td.mtu = topos.MTU
    assert td.chain_links(loss=1, bdp=4) == fifo
    assert bench.topo_opts("geo-aqm") == {"gw", "hostbuf_mb", "initrwnd", "rate", "rtt_ms"}
    assert bench.topo_opts("geo-taildrop") == {"bdp", "hostbuf_mb", "initrwnd", "rate", "rtt_ms"}


def test_leo_path_and_its_epochs():
    """leo: the gateway's queue at 20 Mbit/s (BDP at the longest RTT, 60 ms:
    20e6 x 0.06 / 8 / 1514 = 99.1 packets), the delay link after it at the
    range's middle (42.5 ms RTT); the epochs: one per epoch_s, RTT within
    25-60 ms and bursts of 50-100 ms but none at 0, the same schedule for
    the same seed (repetition) and another for another; the nominal PER
    adds the bursts' 75 ms per epoch."""
    from specnet_bench import topos
    t = topos.LeoTopo.__new__(topos.LeoTopo)
    t.mtu = topos.MTU
    fq = t.chain_links(loss=1)
    assert fq[1]["queue"] == ("fq_codel", 100, "ecn") and fq[1]["limit"] == 396
    assert fq[2]["delay_ms"] == 21.25 and fq[2]["impair"] == "corrupt 1%"
    fifo = t.chain_links(loss=1, gw="fifo", bdp=1)
    assert fifo[1]["queue"] is None and fifo[1]["limit"] == 99
    with pytest.raises(ValueError, match="unknown gateway 'red'"):
        t.chain_links(loss=1, gw="red")
    t.path_opts = [{"loss": 1.0}, {"loss": 1.0, "epoch_s": 2}]
    ep = t.epochs(60, seed=1)
    assert [e[0] for e in ep] == [0, 15, 30, 45, 60]
    assert ep[0][2] == 0 and all(50 <= b <= 100 for _, _, b in ep[1:])
    assert all(25 <= r <= 60 for _, r, _ in ep)
    assert ep == t.epochs(60, seed=1) and ep != t.epochs(60, seed=2)
    assert [e[0] for e in t.epochs(4, seed=1, p=2)] == [0, 2, 4]
    assert t.per() == pytest.approx(1 - 0.99 * (1 - 0.075 / 15))
    assert bench.topo_opts("leo") == {"bdp", "epoch_s", "gw", "rate"}


# ---- statistics by hand ------------------------------------------------------

def rec(scen, value, cc, rep, goodput, flow=0, flow_cc=None, opts=None, ceil=1e6,
        ceil_nominal=None, per_nominal=0.0, per_realized=0.0, error=None, queue=None,
        delay_ms=None):
    """One flow record as run_batch writes it; @goodput None: a failed flow."""
    opts = opts or {}
    c = dict(scenario=scen, opts=opts, value=value, cc=cc, rep=rep)
    r = dict(c, param=bench.SCENARIOS[scen]["param"], flow_cc=flow_cc or cc, flow=flow,
             seconds=10, key=bench.case_key(c), per_nominal=per_nominal,
             per_realized=per_realized, ceiling_nominal_bps=ceil_nominal or ceil,
             ceiling_bps=ceil, lossy_pkts=1000, lossy_discarded=round(per_realized * 1000),
             rtt_ms=10.0, queue=queue or {"kind": "red", "marked": 0, "drops": 0},
             csum_errors=0, guest_cpu_busy=0.5, counters={})
    if delay_ms is not None:
        r.update(avg_queue_pkts=1.0, avg_queue_delay_ms=delay_ms)
    if goodput is None:
        r["error"] = error or "iperf3: the server is busy running a test. try again later"
    else:
        r.update(goodput_bps=float(goodput), retransmits=0, bytes_sent=1000)
    return r


def valid(records, tmp_path):
    """@records, checked against the schema like a run's results.json."""
    p = tmp_path / "results.json"
    p.write_text(json.dumps(dict(meta=META, records=records)))
    bench.validate(str(p))
    return records


META = dict(suite="test", date="20261124T000000Z", kernel="6.1.0-56-amd64", commit="test",
            skipped=[])

GOOD = {"start": {}, "intervals": [
    {"sum": {"end": 1.0}, "streams": [{"snd_cwnd": 14480, "rtt": 50000,
                                       "bits_per_second": 9e6}]}],
        "end": {"streams": [{"sender": {"bytes": 1250000, "mean_rtt": 51000}}],
                "sum_sent": {"retransmits": 3}, "sum_received": {"bits_per_second": 9.5e6}}}


def test_jain_counts_a_failed_flow_as_zero():
    assert bench.jain([5, 5]) == 1
    # (10 + 0)^2 / (2 (10^2 + 0^2)) = 100 / 200
    assert bench.jain([10, 0]) == 0.5
    assert bench.jain([10, None]) == 0.5, "a failed flow (None) dropped, not counted as 0"
    # (4 + 2 + 0)^2 / (3 (16 + 4 + 0)) = 36 / 60
    assert bench.jain([4, 2, None]) == pytest.approx(0.6)
    assert bench.jain([None, None]) == 0.0 and bench.jain([]) is None


def test_flow_record_keeps_the_receivers_intervals():
    """--get-server-output: the server's JSON report beside the client's;
    its intervals are the receiver's per-second goodput (rcv_series)."""
    rep = dict(GOOD, server_output_json={"intervals": [
        {"sum": {"start": 0, "end": 1.0004, "bits_per_second": 2e6}},
        {"sum": {"start": 1.0004, "end": 2.0001, "bits_per_second": 8e6}}]})
    r = bench.flow_record(json.dumps(rep))
    assert r.rcv_series == [[1.0, 2e6], [2.0, 8e6]] and r.goodput_bps == 9.5e6
    # a server not run with -J sends text: no receiver's intervals
    r = bench.flow_record(json.dumps(dict(GOOD, server_output_text="...")))
    assert r.rcv_series is None and not r.failed


def test_late_goodput_from_the_first_sixth_on(tmp_path):
    """A 12 s flow: from 2 s on. Receiver intervals ending at 1, 2, 3 and
    4.5 s at 1, 2, 4 and 8 Mbit/s: (4 x 1 + 8 x 1.5) / 2.5 = 6.4 Mbit/s;
    over a ceiling of 8 Mbit/s, 0.8 (the whole flow's goodput 4 Mbit/s,
    0.5). A failed flow counts 0; a record without the intervals (a run
    before they were taken) has none, and the summary shows none."""
    r = rec("geo-aqm", 10.0, "spec", 1, 4e6, opts={"gw": "fq_codel"}, ceil=8e6)
    r.update(seconds=12, rcv_series=[[1.0, 1e6], [2.0, 2e6], [3.0, 4e6], [4.5, 8e6]])
    assert bench.late_goodput(r) == pytest.approx(6.4e6)
    assert bench.late_goodput(rec("geo", 1.0, "spec", 1, None)) == 0.0
    assert bench.late_goodput(rec("geo", 1.0, "spec", 1, 1e6)) is None
    valid([r], tmp_path)
    x = bench.case_stats([r])[("geo-aqm", '{"gw": "fq_codel"}', 10.0, "spec")]
    assert x["xceil"].med == 0.5 and x["xceil_late"].med == pytest.approx(0.8)
    assert "0.50 ceil, 0.80 ceil from 2 s" in bench.summary(META, [r])
    assert ("- geo-aqm fq_codel, 10% loss: spec >= 0.9 of the ceiling: 0.50 of the ceiling; "
            "from 2 s on 0.80 (1 rep), target >= 0.90: missed by 0.40") in bench.targets([r])
    del r["rcv_series"]
    assert "ceil from 2 s" not in bench.summary(META, [r])
    assert "of the ceiling (1 rep)" in "\n".join(bench.targets([r]))


def test_flow_record_takes_no_partial_report():
    ok = bench.flow_record(json.dumps(GOOD))
    assert ok.goodput_bps == 9.5e6 and ok.retransmits == 3 and ok.error is None
    assert not ok.failed
    # iperf3 may write an error beside a partial end: a failed flow all the same
    partial = dict(GOOD, error="control socket has closed unexpectedly")
    r = bench.flow_record(json.dumps(partial))
    assert r == FlowResult(error="iperf3: control socket has closed unexpectedly")
    r = bench.flow_record(json.dumps({k: v for k, v in GOOD.items() if k != "end"}))
    assert r.failed and r.goodput_bps is None and "without end" in r.error
    r = bench.flow_record(json.dumps(dict(GOOD, end={"streams": []})))
    assert r.failed and r == FlowResult(error=r.error)
    assert bench.flow_record("iperf3: error - unable to connect").failed


def test_median_min_max_over_repetitions(tmp_path):
    recs = valid([rec("geo", 1.0, "spec", rep, g, ceil=10e6)
                  for rep, g in ((1, 9.0e6), (2, 9.5e6), (3, 9.3e6))], tmp_path)
    x = bench.case_stats(recs)[("geo", "{}", 1.0, "spec")]
    assert tuple(x["goodput"]) == (9.3e6, 9.0e6, 9.5e6, 3)
    assert x["xceil"].fmt() == "0.93 [0.90-0.95]"
    assert bench.median([4, 1, 3, 2]) == 2.5 and bench.median([None, 7]) == 7
    text = bench.summary(META, recs)
    assert "| 9.300 [9.000-9.500], 0.93 [0.90-0.95] ceil" in text
    assert "3 repetitions; figures: median [min-max] over them." in text


def test_ratio_inside_each_repetition_then_the_median(tmp_path):
    # spec 10, 20, 30 and reno 10, 5, 30 Mbit/s in repetitions 1, 2, 3: the
    # ratios inside each repetition are 1, 4, 1, their median 1.00; the
    # ratio of the medians would be 20 / 10 = 2.00
    recs = valid([rec("geo", 1.0, cc, rep, g * 1e6, ceil=40e6)
                  for cc, gs in (("spec", (10, 20, 30)), ("reno", (10, 5, 30)))
                  for rep, g in zip((1, 2, 3), gs)], tmp_path)
    st = bench.case_stats(recs)
    spec, reno = st[("geo", "{}", 1.0, "spec")], st[("geo", "{}", 1.0, "reno")]
    assert spec["goodput"].med / reno["goodput"].med == 2.0
    assert tuple(bench.ratio(spec, reno)) == (1.0, 1.0, 4.0, 3)
    text = bench.summary(META, recs)
    assert "20.000 [10.000-30.000], 1.00 [1.00-4.00]x reno, 1.00 [1.00-4.00]x best" in text
    assert "2.00x reno" not in text


def test_case_goodput_is_the_sum_of_its_own_ccs_flows(tmp_path):
    # dumbbell, spec against cubic: spec's goodput is its flow's only; two
    # reps: share 6/10 = 0.6 and 3/(3+5) = 0.375, median 0.4875
    opts = {"vs": "cubic"}
    recs = valid([rec("dumbbell", 2, "spec", 1, 6e6, 0, opts=opts, ceil=10e6),
                  rec("dumbbell", 2, "spec", 1, 4e6, 1, "cubic", opts=opts, ceil=10e6),
                  rec("dumbbell", 2, "spec", 2, 3e6, 0, opts=opts, ceil=10e6),
                  rec("dumbbell", 2, "spec", 2, 5e6, 1, "cubic", opts=opts, ceil=10e6)],
                 tmp_path)
    x = bench.case_stats(recs)[("dumbbell", '{"vs": "cubic"}', 2, "spec")]
    assert tuple(x["goodput"]) == (4.5e6, 3e6, 6e6, 2)
    assert x["share"].med == pytest.approx(0.4875)


def test_host_limits_are_the_busy_time_held_back_and_shown_from_5_percent(tmp_path):
    # geo, two reps of one spec flow: rwnd-limited 300 of 1000 ms, then 100
    # of 1000; sndbuf 10 of 1000 (1%, under 5%: not shown); the cubic flow
    # has no figures (None)
    recs = [rec("geo", 10, "spec", 1, 5e6), rec("geo", 10, "spec", 2, 5e6),
            rec("geo", 10, "cubic", 1, 1e6)]
    for r, rw in zip(recs, (300, 100)):
        r["tcp_limited"] = dict(busy_ms=1000, rwnd_limited_ms=rw, sndbuf_limited_ms=10,
                                at_s=8.0)
    valid(recs, tmp_path)
    st = bench.case_stats(recs)
    x = st[("geo", "{}", 10, "spec")]
    assert tuple(x["rwnd_frac"]) == (pytest.approx(0.2), 0.1, 0.3, 2)
    assert x["sndbuf_frac"].hi == pytest.approx(0.01)
    assert st[("geo", "{}", 10, "cubic")]["rwnd_frac"] is None
    text = bench.summary(META, recs)
    row = next(line for line in text.splitlines() if line.startswith("| 10 |"))
    assert "rwnd-limited 20% [10%-30%]" in row
    assert "sndbuf-limited" not in row


def test_a_failed_flow_counts_zero_and_marks_its_scenario_failed(tmp_path):
    # dumbbell, 2 reno flows, 3 reps; in rep 2 flow 1 failed: that rep's
    # goodput is 4 + 0 and its Jain (4 + 0)^2 / (2 x 16) = 0.5
    recs = []
    for rep in (1, 2, 3):
        for flow in (0, 1):
            g = None if (rep, flow) == (2, 1) else 4e6
            recs.append(rec("dumbbell", 2, "reno", rep, g, flow, ceil=10e6))
    valid(recs, tmp_path)
    x = bench.case_stats(recs)[("dumbbell", "{}", 2, "reno")]
    assert tuple(x["goodput"]) == (8e6, 4e6, 8e6, 3)
    assert tuple(x["jain"]) == (1.0, 0.5, 1.0, 3)
    assert len(x["failed"]) == 1 and x["flows"] == 6
    text = bench.summary(META, recs)
    head = text.split("## dumbbell")[1].split("Paper:")[0]
    assert "FAILED: 1 flow (each counted as 0 goodput in every figure below): reno at 2 " \
           "rep 2 flow 1 (reno): iperf3: the server is busy" in head
    assert "8.000 [4.000-8.000], 0.80 [0.40-0.80] ceil, Jain 1.00 [0.50-1.00], " \
           "**FAILED: 1 of 6 flows** |" in text
    # a scenario where every flow of a case failed: still a row, all zeros
    recs2 = valid([rec("geo", 1.0, "spec", 1, None), rec("geo", 1.0, "reno", 1, 2e6)],
                  tmp_path)
    text = bench.summary(META, recs2)
    assert ("| 0.000, 0.00x reno, 0.00x best, 0.00 ceil, 0.00 ceil from 1.67 s, "
            "**FAILED: 1 of 1 flows** |") in text
    # an error beside a goodput (run_batch: no ping before the flows) is a
    # failure too: its goodput is not taken
    r = rec("geo", 1.0, "spec", 1, 3e6)
    r["error"] = "no connectivity before the flows"
    x = bench.case_stats(valid([r], tmp_path))[("geo", "{}", 1.0, "spec")]
    assert x["goodput"].med == 0 and len(x["failed"]) == 1


def test_targets_judged_on_the_median_and_the_realized_ceiling(tmp_path):
    # satellite BER 5e-5: nominal PER 0.35, realized 0.30; realized ceiling
    # 40 kbit/s (nominal 37.1); spec 34.0, 34.8, 36.0 kbit/s: 0.85, 0.87,
    # 0.90 of the realized ceiling, median 0.87: missed by 0.03 (against
    # the nominal ceiling it would be 0.94 and met)
    recs = [rec("satellite", 5e-5, "spec", rep, g, ceil=40e3, ceil_nominal=37.1e3,
                per_nominal=0.35, per_realized=0.30)
            for rep, g in ((1, 34.0e3), (2, 34.8e3), (3, 36.0e3))]
    recs += [rec("satellite", 5e-5, "reno", rep, g, ceil=40e3, ceil_nominal=37.1e3,
                 per_nominal=0.35, per_realized=0.30)
             for rep, g in ((1, 8.5e3), (2, 17.4e3), (3, 9e3))]
    valid(recs, tmp_path)
    tl = bench.targets(recs)
    assert ("- satellite BER 5e-05: spec >= 0.95 of the ceiling: 0.87 [0.85-0.90] of the "
            "ceiling; 4.00 [2.00-4.00]x reno (3 reps), target >= 0.95: missed by 0.08") in tl
    assert ("- satellite: spec >= every baseline at every BER (within 3%): the closest, "
            "reno at BER 5e-05: 0.25 [0.25-0.50]x spec (3 reps), target <= 1.03: "
            "met by 0.78") in tl
    text = bench.summary(META, recs)
    assert "| 5e-05 | 0.35 | 0.3 [0.3-0.3] (1800/6000) | 40.0 [40.0-40.0] |" in text
    # spec alone (the tiny suite): the line is there, not judged
    assert ("- satellite: spec >= every baseline at every BER (within 3%): no baseline ran "
            "beside spec (3 reps), not judged") in bench.targets(recs[:3])


def test_targets_say_by_how_much(tmp_path):
    # dumbbell: Jain 1.0 for 10 flows (met by 0.050); red: redopt's
    # overflow drops 0, 2, 5 (the worst run: missed by 5) and its average
    # queue (as delay) against classic RED's inside each repetition 20/40,
    # 30/40, 30/60 = 0.5, 0.75, 0.5 (median 0.5: met by 0.30), goodput 1.0x
    recs = [rec("dumbbell", 10, "spec", 1, 1e6, f, ceil=10e6) for f in range(10)]
    for rep, drops, dm, dc in ((1, 0, 20, 40), (2, 2, 30, 40), (3, 5, 30, 60)):
        recs.append(rec("red", 8, "reno", rep, 1e6, ceil=1.4e6, delay_ms=dm,
                        queue={"kind": "redopt", "marked": 9, "drops": drops, "early": 0,
                               "forced": 0, "overflow": drops}))
        recs.append(rec("red", 15, "reno", rep, 1e6, ceil=1.4e6, delay_ms=dc))
    valid(recs, tmp_path)
    tl = bench.targets(recs)
    assert ("- dumbbell, 10 spec flows: Jain >= 0.95: Jain 1.000 (1 rep), target >= 0.950: "
            "met by 0.050") in tl
    assert ("- red 59ms, reno: no ECT packet dropped (redopt: no overflow in any run; its "
            "early and forced drops are of non-ECT retransmissions): overflow 2 [0-5], non-ECT "
            "drops early 0 [0-0] forced 0 [0-0] (3 reps), target <= 0: missed by 5 (the worst "
            "run)") in tl
    assert ("- red 59ms, reno: redopt's average queue <= 0.8x classic RED's (max_th 15) at "
            "equal goodput (within 5%): average queue 0.50 [0.50-0.75]x classic RED's (per run: "
            "0.50, 0.75, 0.50), goodput 1.00 [1.00-1.00]x (3 reps), queue target <= 0.80: met "
            "by 0.30; goodput |ratio - 1| target <= 0.05: met by 0.05; met") in tl


def test_red_suite_the_models_cases_beside_classic_red():
    from specnet_bench import topos
    runs = bench.suite("red")
    assert [(o, v, ccs, sec, reps) for _, o, v, ccs, sec, reps, _ in runs] == [
        ({"case": k}, [bench.red_model_max(k), 15], ["reno"], 60, 15)
        for k in ("59ms", "99ms", "10mbit")]
    # the paper's slow-start peaks (24 and 12) and the larger path's
    # overshoot: 4 x 40 - 125 packets
    assert [topos.RedTopo.model(k)["ss_peak"] for k in topos.RedTopo.CASES] == [24, 12, 35]
    assert [bench.red_model_max(k) for k in topos.RedTopo.CASES] == [8, 8, 9]
    t = topos.RedTopo.__new__(topos.RedTopo)
    t.chains, t.path_opts = [[{}, {}]] * 2, [{"case": "59ms"}, {"case": "10mbit"}]
    assert t.ssthresh(1) == [15, 20] and t.flows(2) == 4
    # one address, hence one route and one initial ssthresh, per flow
    assert [t.flow_dst(1, i) for i in range(2)] == ["10.1.2.10", "10.1.2.11"]
    with pytest.raises(ValueError, match="unknown case"):
        t.chain_links(case="60ms")


def test_headline_suite_three_reps_within_two_and_a_half_hours():
    runs = bench.suite("headline")
    cases = bench.expand(runs)
    assert {c["rep"] for c in cases} == {1, 2, 3}
    got = {(s, json.dumps(o, sort_keys=True)): (vals, ccs) for s, o, vals, ccs, *_ in runs}
    assert got[("satellite", "{}")] == ([1e-6, 1e-5, 5e-5],
                                        ["spec", "reno", "cubic", "bbr", "westwood", "hybla"])
    assert got[("geo-aqm", '{"gw": "fq_codel"}')] == ([1, 10, 20],
                                                      ["spec", "cubic", "bbr", "hybla"])
    assert got[("geo-taildrop", '{"bdp": 1}')] == ([1, 10, 20], ["spec", "cubic", "bbr"])
    assert ("geo", "{}") not in got
    assert got[("dumbbell", '{"vs": "cubic"}')][1] == ["spec", "cpecn", "tp"]
    assert got[("dumbbell", "{}")] == ([10], ["spec", "cpecn", "tp", "reno"])
    assert got[("red", "{}")][0] == [bench.red_model_max(), 15]
    assert got[("cpecn", '{"mark": 7}')] == got[("cpecn", '{"mark": 22}')] == \
        ([0.5], ["cpecn", "wecn"])
    assert got[("fifo-share", '{"vs": "cubic"}')] == ([1, 0], ["spec", "cpecn", "cubic"])
    bs = bench.batches(cases, 12, bench.RATE_BUDGET)
    t = bench.expected_seconds(bs)
    assert t == sum(b[0]["seconds"] + bench.BATCH_FIXED_S + len(b) *
                    bench.PATH_S.get(b[0]["scenario"], bench.PATH_S_DEFAULT) for b in bs)
    assert 3 * 3600 <= t <= 3.5 * 3600, t
    # a 20 Mbit/s path runs alone (the guest forwards about 30 Mbit/s)
    assert all(len(b) == 1 for b in bs if b[0]["scenario"] in ("geo-aqm", "geo-taildrop"))
    assert max(len(b) for b in bs if b[0]["scenario"] == "satellite") > 1
    # fifo-share's cases run one at a time (the guest's stalls)
    assert all(len(b) == 1 for b in bs if b[0]["scenario"] == "fifo-share")
    line = bench.expected_line("headline", bs, len(cases), len(cases))
    assert f"expected run time {bench.fmt_dur(t)}" in line and "180 case(s)" in line


def test_cases_of_one_repetition_run_together():
    cases = bench.expand([("geo", {}, [1, 10], ["spec", "bbr"], 60, 2, None)])
    assert [(c["rep"], c["value"], c["cc"]) for c in cases] == [
        (1, 1, "spec"), (1, 1, "bbr"), (1, 10, "spec"), (1, 10, "bbr"),
        (2, 1, "spec"), (2, 1, "bbr"), (2, 10, "spec"), (2, 10, "bbr")]


def test_scenario_run_prints_its_expected_time_first_resumes_and_fails(tmp_path, capsys,
                                                                          monkeypatch):
    """main on the host, run_batch faked: the expected run time comes before
    the first batch; a failed flow makes the exit code 1 and summary.md say
    FAILED; the same --out again resumes with nothing to run."""
    ran = []

    def fake_batch(cases, log):
        ran.append(len(cases))
        out = [rec(c["scenario"], c["value"], c["cc"], c["rep"],
                   None if (c["cc"], c["rep"]) == ("bbr", 2) else 5e6, ceil=18e6)
               for c in cases]
        return out, 0.5

    monkeypatch.setattr(bench, "run_batch", fake_batch)
    monkeypatch.setattr(bench.lab, "ensure_cc", lambda cc: True)
    monkeypatch.setattr(bench.os, "geteuid", lambda: 0)
    real_run = bench.subprocess.run

    def no_mn(cmd, *a, **k):            # Mininet's cleanup: not on the host
        if isinstance(cmd, str) and cmd.startswith("mn -c"):
            ran.append("mn -c")
            return None
        return real_run(cmd, *a, **k)

    monkeypatch.setattr(bench.subprocess, "run", no_mn)
    argv = ["--scenario", "geo", "--param", "1,10", "--ccs", "spec,bbr", "--reps", "3",
            "--seconds", "60", "--out", str(tmp_path), "--no-plots"]
    assert bench.main(argv) == 1
    out = capsys.readouterr().out
    # 12 cases, one 20 Mbit/s geo path a batch: 12 x (60 + 8 + 7) s
    first = ("specnet-bench geo: 12 case(s) to run in 12 batch(es); expected run time "
             "15m00s (720 s of flows + 180 s to build and tear down 12 path(s), under TCG)")
    assert out.splitlines()[0] == first and ran == ["mn -c"] + [1] * 12
    assert "FAILED: 2 flow(s)" in out
    with open(tmp_path / "summary.md") as f:
        assert "FAILED: 2 flows" in f.read()
    assert bench.main(argv) == 1
    out = capsys.readouterr().out
    assert "resuming" in out and "0 case(s) to run in 0 batch(es), 12 of 12 already done; " \
                                 "expected run time 0m00s" in out
    assert ran == ["mn -c"] + [1] * 12


def test_scenario_alone_runs_the_full_suites_cases_of_it(tmp_path, monkeypatch):
    """make bench SCENARIO=cpecn: --scenario without --param and --ccs takes
    the full suite's cpecn runs (marks 7 and 22, bases reno and westwood,
    bad-state loss 0.5% and 1%, cpecn beside wecn); one of the two alone is
    refused."""
    seen = []
    monkeypatch.setattr(bench, "expand", lambda runs: seen.append(runs) or [])
    monkeypatch.setattr(bench.lab, "ensure_cc", lambda cc: True)
    monkeypatch.setattr(bench.os, "geteuid", lambda: 0)
    bench.main(["--scenario", "cpecn", "--reps", "2", "--out", str(tmp_path), "--no-plots"])
    runs = seen[0]
    assert {(json.dumps(o, sort_keys=True), tuple(v), tuple(c), r) for _, o, v, c, _, r, _
            in runs} == {(json.dumps({"mark": m, "base": b}, sort_keys=True), (0.5, 1),
                          ("cpecn", "wecn"), 2) for m in (7, 22) for b in ("reno", "westwood")}
    assert {r[0] for r in runs} == {"cpecn"}
    for argv in (["--scenario", "cpecn", "--param", "1"], ["--scenario", "cpecn", "--ccs", "x"]):
        with pytest.raises(SystemExit) as e:
            bench.main(argv)
        assert "needs both --param and --ccs" in str(e.value)
    with pytest.raises(SystemExit) as e:
        bench.main(["--scenario", "cpecn", "--suite", "full"])
    assert "not both" in str(e.value)


def test_cpecn_target_is_the_ratio_to_wecn_with_the_papers_figure(tmp_path):
    # mark 22, Reno base, 0.5%: cpecn/wecn inside each repetition 4.4/4.0,
    # 4.0/4.0, 3.6/4.0 = 1.10, 1.00, 0.90, median 1.00: met by 0.03
    o = {"mark": 22}
    recs = []
    for rep, g in ((1, 4.4e6), (2, 4.0e6), (3, 3.6e6)):
        recs.append(rec("cpecn", 0.5, "cpecn", rep, g, ceil=4.7e6, opts=o))
        recs.append(rec("cpecn", 0.5, "wecn", rep, 4.0e6, ceil=4.7e6, opts=o))
    valid(recs, tmp_path)
    assert ("- cpecn (reno, mark 22) at 0.5% bad-state loss: cpecn >= wecn (within 3%); "
            "paper 1.72x: 1.00 [0.90-1.10]x wecn (3 reps), target >= 0.97: met by 0.03"
            ) in bench.targets(recs)


def test_onoff_target_tp_beside_reno_goodput_and_retransmissions(tmp_path):
    # 30 sources: tp/reno goodput inside each repetition 8.8/10, 9.5/10,
    # 9.6/10 = 0.88, 0.95, 0.96, median 0.95: met by 0.05; retransmitted
    # fractions (segments of 1448 bytes over bytes sent) tp 0.01, 0.01,
    # 0.03 against reno's 0.02: 0.5, 0.5, 1.5x, median 0.50: met by 0.50
    recs = []
    for rep, g, rt in ((1, 8.8e6, 1), (2, 9.5e6, 1), (3, 9.6e6, 3)):
        for cc, gg, n in (("tp", g, rt), ("reno", 10e6, 2)):
            r = rec("onoff", 30, cc, rep, gg, ceil=19e6)
            r.update(retransmits=n * 100, bytes_sent=1448 * 10000)
            recs.append(r)
    valid(recs, tmp_path)
    tl = bench.targets(recs)
    assert ("- onoff, 30 sources: tp's goodput >= 0.9x reno's: 0.95 [0.88-0.96]x reno "
            "(3 reps), target >= 0.90: met by 0.05") in tl
    assert ("- onoff, 30 sources: tp's retransmitted fraction below reno's: 0.50 "
            "[0.50-1.50]x reno's (0.0100 [0.0100-0.0300], reno 0.0200 [0.0200-0.0200]) "
            "(3 reps), target <= 1.00: met by 0.50") in tl
    # tp alone (the tiny suite): no line
    assert not [x for x in bench.targets([r for r in recs if r["cc"] == "tp"])
                if "onoff" in x]


def test_expected_line_tells_done_from_skipped():
    bs = [[dict(seconds=60, scenario="geo")]]
    assert bench.expected_line("geo", bs, 4, 1, 2) == (
        "specnet-bench geo: 1 case(s) to run in 1 batch(es), 1 of 4 already done, 2 of 4 "
        "skipped; expected run time 1m15s (60 s of flows + 15 s to build and tear down "
        "1 path(s), under TCG)")
    assert "already done" not in bench.expected_line("geo", [], 1, 0, 1)


def test_batch_overhead_grows_with_its_paths():
    # measured under TCG: a satellite path costs 15 s to build and tear
    # down (12 paths: 146-233 s), another path 7 s, a batch 8 s more
    sat = [dict(seconds=180, scenario="satellite")] * 12
    geo = [dict(seconds=90, scenario="geo")] * 2
    assert bench.batch_overhead(sat) == 8 + 12 * 15
    assert bench.batch_overhead(geo) == 8 + 2 * 7
    assert bench.expected_seconds([sat, geo]) == 180 + 188 + 90 + 22


def test_module_parameters_recorded_and_a_resume_with_others_refused(tmp_path, monkeypatch):
    """The parameters of our loaded modules (read from sysfs) go into the
    meta and under summary.md's title; resuming the same --out with other
    values is refused, so one results.json never mixes two settings."""
    sysfs = tmp_path / "sys"
    for m, ps in {"tcp_spec": {"hystart": "1\n", "p_corrupt": "1000\n"},
                  "sch_redopt": {}}.items():
        (sysfs / m / "parameters").mkdir(parents=True)
        for k, v in ps.items():
            (sysfs / m / "parameters" / k).write_text(v)
    assert bench.module_params(str(sysfs)) == {
        "tcp_spec": {"hystart": "1", "p_corrupt": "1000"}, "sch_redopt": {}}

    params = {"tcp_spec": {"hystart": "1", "p_corrupt": "1000"}}
    monkeypatch.setattr(bench, "module_params", lambda: params)
    monkeypatch.setattr(bench, "run_batch", lambda cases, log: (
        [rec(c["scenario"], c["value"], c["cc"], c["rep"], 5e6, ceil=18e6) for c in cases],
        0.5))
    monkeypatch.setattr(bench.lab, "ensure_cc", lambda cc: True)
    monkeypatch.setattr(bench.os, "geteuid", lambda: 0)
    real_run = bench.subprocess.run
    monkeypatch.setattr(bench.subprocess, "run", lambda cmd, *a, **k: None if isinstance(
        cmd, str) and cmd.startswith("mn -c") else real_run(cmd, *a, **k))
    out = tmp_path / "run"
    argv = ["--scenario", "geo", "--param", "1", "--ccs", "spec", "--seconds", "10",
            "--out", str(out), "--no-plots"]
    assert bench.main(argv) == 0
    with open(out / "results.json") as f:
        assert json.load(f)["meta"]["module_params"] == params
    with open(out / "summary.md") as f:
        assert "Module parameters: tcp_spec hystart=1 p_corrupt=1000" in f.read()
    params = {"tcp_spec": {"hystart": "0", "p_corrupt": "1000"}}
    with pytest.raises(SystemExit) as e:
        bench.main(argv)
    assert "other module parameters" in str(e.value)
    # a run of another commit is not resumed: its records measured other
    # code; it is kept aside and the run starts over
    with open(out / "results.json") as f:
        first = json.load(f)["meta"]["commit"]
    monkeypatch.setattr(bench.lab, "git_commit", lambda: "f00dcafe")
    assert bench.main(argv) == 0
    with open(out / "results.json") as f:
        assert json.load(f)["meta"]["commit"] == "f00dcafe"
    with open(out / bench.kept_results_name(first)) as f:
        assert json.load(f)["meta"]["commit"] == first


def test_flow_record_fields_are_the_schema_records():
    """records.FlowRecord holds the fields results.schema.json gives a
    record, no more and no fewer, and requires the ones the schema does; a
    record made from it validates."""
    with open(bench.SCHEMA) as f:
        item = json.load(f)["properties"]["records"]["items"]
    names = [f.name for f in dataclasses.fields(FlowRecord)]
    assert sorted(names) == sorted(item["properties"])
    assert sorted(REQUIRED) == sorted(item["required"])
    r = FlowRecord(scenario="geo", opts={}, param="loss", value=1.0, cc="spec", flow_cc="spec",
                   flow=0, rep=1, seconds=10, key="k", per_nominal=0.01, per_realized=None,
                   ceiling_nominal_bps=9e6, ceiling_bps=9e6, lossy_pkts=None,
                   lossy_discarded=None, rtt_ms=600, queue={}, csum_errors=0,
                   guest_cpu_busy=0.5)
    r.set_result(bench.flow_record(json.dumps(GOOD)))
    j = r.to_json()
    assert j["per_realized"] is None and "jain" not in j and j["goodput_bps"] == 9.5e6
    jsonschema.validate(j, item)
    del j["ceiling_bps"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(j, item)


def test_git_commit_says_when_the_tree_was_modified(tmp_path):
    """A results record names the commit it measured, and says so when the
    tree differed from it (outside the results)."""
    import subprocess
    from specnet_bench import specnet_lab as lab

    def git(*args):
        subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True)
    git("init", "-q")
    (tmp_path / "a.c").write_text("1\n")
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "r.json").write_text("{}\n")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x")
    head = lab.git_commit(str(tmp_path))
    assert len(head) >= 7 and " " not in head, head
    (tmp_path / "results" / "r.json").write_text("{\"a\": 1}\n")
    assert lab.git_commit(str(tmp_path)) == head, "results are not the code"
    (tmp_path / "a.c").write_text("2\n")
    assert lab.git_commit(str(tmp_path)) == head + " (modified)"
    assert lab.git_commit(str(tmp_path / "nowhere")) == "unknown"


def test_qdisc_marks_of_each_kind():
    """The CE marks of a leaf queue as `tc -s -j` gives them: RED's
    "marked", fq_codel's "ecn_mark" (its xstats, at the top level), cake's
    per tin; a FIFO has none."""
    from specnet_bench import specnet_lab as lab
    assert lab.qdisc_marks({"kind": "red", "marked": 7, "early": 1}) == 7
    assert lab.qdisc_marks({"kind": "redopt", "marked": 7, "forced_mark": 2, "forced": 0}) == 9
    assert lab.qdisc_marks({"kind": "fq_codel", "drops": 2, "ecn_mark": 31}) == 31
    assert lab.qdisc_marks({"kind": "cake", "tins": [{"ecn_mark": 5}, {"ecn_mark": 4}]}) == 9
    assert lab.qdisc_marks({"kind": "pfifo", "drops": 3}) == 0


def test_redopt_cases_are_the_ones_that_load_it():
    """sch_redopt is loaded (or its cases skipped) for red at the model's
    max_th and for geo-aqm behind gw=redopt, not for the other cases."""
    c = dict(scenario="geo-aqm", opts={"gw": "redopt"}, value=1.0)
    assert bench.uses_redopt(c)
    assert not bench.uses_redopt(dict(c, opts={"gw": "cake"}))
    assert bench.uses_redopt(dict(scenario="red", opts={}, value=bench.red_model_max()))
    assert not bench.uses_redopt(dict(scenario="red", opts={}, value=15))


def test_a_range_target_gives_the_margin_to_the_nearer_bound(tmp_path):
    # fifo-share's share against cubic must lie within 35-60%: shares 0.38,
    # 0.40, 0.27 (median 0.38) meet it by 0.03, the margin to 0.35, not by
    # 0.22 to 0.60; 0.30, 0.33, 0.34 (median 0.33) miss it by 0.02
    def case(cc, shares):
        out = []
        for rep, sh in enumerate(shares, 1):
            for flow, (fcc, g) in enumerate(((cc, sh * 10e6), ("cubic", (1 - sh) * 10e6))):
                out.append(rec("fifo-share", 4, cc, rep, g, flow=flow, flow_cc=fcc,
                               opts={"vs": "cubic"}, ceil=10e6))
        return out
    recs = valid(case("spec", (0.38, 0.40, 0.27)) + case("cpecn", (0.30, 0.33, 0.34)), tmp_path)
    tl = bench.targets(recs)
    assert ("- fifo-share 10mbit 50 ms, FIFO 4 BDP: spec's share against cubic within 35-60%: "
            "share 0.38 [0.27-0.40] (3 reps), target 0.35-0.60: met by 0.03") in tl, tl
    assert ("- fifo-share 10mbit 50 ms, FIFO 4 BDP: cpecn's share against cubic within 35-60%: "
            "share 0.33 [0.30-0.34] (3 reps), target 0.35-0.60: missed by 0.02") in tl, tl

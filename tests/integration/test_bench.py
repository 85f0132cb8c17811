"""The benchmark suite's plumbing in the VM: every Mininet
topology of specnet_bench/topos.py builds, carries traffic and tears down without
leftovers; a tiny run of every scenario (specnet-bench --suite tiny) writes
a results.json that validates against specnet_bench/results.schema.json and a
summary, and resumes instead of redoing; a congestion control whose module
is missing is skipped with a message, never faked. The PNG plots are
tested on the host from a tiny run's results.json
(tests/host/test_bench_report.py): they are the same Python on every
kernel, and matplotlib under TCG took 3.5 min of this file's 7 on 6.12."""
import json
import os
import re
import subprocess
import sys
import tempfile

import pytest

from specnet_bench import specnet_lab as lab
from specnet_bench import cli as bench
from specnet_bench import topos

# the installed command (pyproject.toml), as a user runs it
BENCH = os.path.join(os.path.dirname(sys.executable), "specnet-bench")
OUR_MODULES = lab.MODULES


@pytest.fixture(autouse=True)
def _modules_as_found():
    """The runner loads our modules as needed; the tests after these find
    the kernel as it was."""
    before = {m for m in OUR_MODULES if lab.module_loaded(m)}
    yield
    for m in OUR_MODULES:
        if m not in before:
            lab.unload_module(m)


def leftovers():
    """Root-namespace links, Mininet node shells, and qdiscs of the root
    namespace that are not the default ones."""
    links = {l.split(":")[1].strip().split("@")[0]
             for l in lab.sh("ip -o link show").splitlines()}
    shells = lab.run("pgrep -fc 'mininet:'")[1].strip()
    qdiscs = {l for l in lab.sh("tc qdisc show").splitlines()
              if not any(k in l for k in ("noqueue", "pfifo_fast", "fq_codel", "mq "))}
    return links, shells, qdiscs


def bench_run(*args, timeout=900):
    p = subprocess.run([BENCH, *args], capture_output=True, text=True,
                       timeout=timeout)
    print(p.stdout[-3000:], p.stderr[-3000:])
    return p


@pytest.mark.parametrize("name", sorted(topos.topos))
def test_topology_as_mn_custom_gives_it(name):
    """`mn --custom specnet_bench/topos.py --topo NAME` builds the topology with
    its defaults: one path of hosts and routers joined in a line (the tiny
    run below builds each in Mininet and sends traffic through it)."""
    t = topos.topos[name]()
    hosts = [n for n in t.nodes() if not t.isSwitch(n)]
    assert {"h1p1", "h2p1"} <= set(hosts)
    assert len(t.links()) == len(hosts) - 1
    assert 0 < t.ceiling_bps(1) <= 100e6 and t.rtt_ms(1) > 0


def test_tiny_run_every_scenario_validates_and_resumes():
    """Every topology is built in Mininet, carries its flows, and goes
    away without leftovers (links, node shells, qdiscs)."""
    before = leftovers()
    cap0 = lab.get_param("tcp_tp", "capacity_kbps", default="0")
    with tempfile.TemporaryDirectory() as out:
        p = bench_run("--suite", "tiny", "--seconds", "3", "--out", out, "--no-plots")
        assert p.returncode == 0, p.stderr[-2000:]
        assert leftovers() == before
        res = os.path.join(out, "results.json")
        bench.validate(res)
        with open(res) as f:
            data = json.load(f)
        assert data["meta"]["kernel"] == lab.kernel_release()
        assert data["meta"]["skipped"] == []
        recs = data["records"]
        # every topology of specnet_bench/topos.py has its scenario in the run (not
        # the runner's own list of scenarios, which the run follows anyway)
        assert {r["scenario"] for r in recs} == set(topos.topos)
        for r in recs:
            assert "error" not in r, r
            assert r["goodput_bps"] > 0 and r["series"], r["key"]
            # the receiver's intervals (--get-server-output) add up to its
            # goodput: late_goodput() from the start (no first sixth left out)
            whole = bench.late_goodput(dict(r, seconds=0))
            assert abs(whole - r["goodput_bps"]) <= 0.05 * r["goodput_bps"], \
                (r["key"], r["rcv_series"])
        # the senders' tcp_info chronos, read 3 s before the end (1 s into
        # these 3 s flows, every path's ss at once, each about a second under
        # TCG: a path whose data connection had not started by then may
        # show its control connection, or nothing)
        lim = [r["tcp_limited"] for r in recs if r.get("tcp_limited")]
        assert len(lim) >= len(recs) / 2, f"{len(lim)} of {len(recs)} flows"
        for x in lim:
            assert 0 < x["busy_ms"] and x["rwnd_limited_ms"] + x["sndbuf_limited_ms"] <= \
                x["busy_ms"] + 1 and 0.5 <= x["at_s"], x
        # our modules' counters come with our flows
        spec = next(r for r in recs if r["cc"] == "spec")
        assert "loss_events" in spec["counters"], spec["counters"]
        # the satellite and red paths mark, through RED and our redopt
        sat = next(r for r in recs if r["scenario"] == "satellite")
        assert sat["queue"]["kind"] == "red", sat["queue"]
        red = [r for r in recs if r["scenario"] == "red"]
        assert len(red) == 2 and red[0]["queue"]["kind"] == "redopt", red[0]["queue"]
        assert {"marked", "forced", "overflow"} <= set(red[0]["queue"]), red[0]["queue"]
        # the paper's example (docs/algorithms.md, RED model): redopt at max_th 8
        # with the model's limit of 53 packets. Two ECN Reno flows over its
        # 1.5 Mbit/s keep a queue, which the limit bounds: the sampled mean
        # (packets) lies in (0, 53]
        assert red[0]["value"] == 8, red[0]["value"]
        assert 0 < red[0]["avg_queue_pkts"] <= 53, red[0]["avg_queue_pkts"]
        onoff = next(r for r in recs if r["scenario"] == "onoff")
        assert onoff["background_sent_bps"] > 0, onoff
        # tp runs with C known, the onoff bottleneck's 20 Mbit/s, and the
        # module parameter is as it was afterwards
        assert onoff["cc"] == "tp" and onoff["tp_capacity_kbps"] == 20000, onoff
        assert lab.get_param("tcp_tp", "capacity_kbps", default="0") == cap0
        dumb = sorted((r for r in recs if r["scenario"] == "dumbbell"), key=lambda r: r["flow"])
        # two flows of one algorithm: the streams of one iperf3 -P client,
        # begun together; Jain's index of what their receivers got in the
        # seconds both ran (their common window), computed here from the
        # per-second reports of each stream
        starts = [r["start_s"] for r in dumb]
        assert len(dumb) == 2 and starts == [0, 0], starts
        assert dumb[0]["rcv_series"] != dumb[1]["rcv_series"], "a stream's own, not the sum"
        a = max(starts)
        b = min(s + r["rcv_series"][-1][0] for s, r in zip(starts, dumb))
        assert b > a, (starts, [r["rcv_series"] for r in dumb])
        g = [bench.received_bits(r, a - s, b - s) for s, r in zip(starts, dumb)]
        want = sum(g) ** 2 / (len(g) * sum(x * x for x in g))
        assert all(abs(r["jain"] - want) <= 1e-9 * want for r in dumb), \
            (want, dumb[0]["jain"], g)
        # rtt-mix: two flows through one bottleneck, each at its own RTT
        # (iperf3's mean RTT, the queue included; and tcp_info's least RTT
        # where ss read the flow while it was open)
        mix = sorted((r for r in recs if r["scenario"] == "rtt-mix"), key=lambda r: r["flow"])
        assert [r["rtt_ms"] for r in mix] == [50, 600], mix
        assert 50 <= mix[0]["mean_rtt_ms"] < 400 and 600 <= mix[1]["mean_rtt_ms"] < 1000, \
            [r["mean_rtt_ms"] for r in mix]
        for r in mix:
            least = (r.get("tcp_limited") or {}).get("min_rtt_ms")
            assert least is None or r["rtt_ms"] <= least <= r["rtt_ms"] + 100, (r["flow"], least)
        with open(os.path.join(out, "summary.md")) as f:
            text = f.read()
        for s in topos.topos:
            assert f"## {s}" in text
        assert "x reno" in text and "ceil" in text and "8 (redopt)" in text
        assert "## Targets" in text and "satellite: spec >= every baseline at every BER" in text
        assert not [f for f in os.listdir(out) if f.endswith(".png")], "--no-plots plotted"
        # the same --out again: every case is there, nothing runs
        p = bench_run("--suite", "tiny", "--seconds", "3", "--out", out, "--no-plots")
        assert p.returncode == 0
        n = len({r['key'] for r in recs})
        assert f"resuming {out}: {n} cases done" in p.stdout
        assert f"tiny: 0 case(s) to run in 0 batch(es), {n} of {n} already done;" in p.stdout
        assert not re.search(r"^\[\d+/\d+\] \w+: \d+ case", p.stdout, re.M), p.stdout
        with open(res) as f:
            assert len(json.load(f)["records"]) == len(recs)


def test_realized_per_counts_every_frame_on_both_sides():
    """The satellite path's realized PER compares the frames that entered
    its lossy hop with those the receiver took in. configure() primes the
    sender's route with a connection (route_ssthresh): the lossy hop's
    counter must see those frames, as the receiver's counters do. Without
    corruption nothing is discarded: counted from after the priming, the
    hop gave 6 frames fewer than arrived (a negative discard, the PER
    unknown), and on a lossy path every run's PER 6 frames short."""
    from mininet.net import Mininet
    before = leftovers()
    cases = bench.expand([("satellite", {}, [0.0], ["reno"], 3, 1, None)])
    topo = bench.topo_for(cases)
    net = Mininet(topo=topo, controller=None, build=True, waitConnected=False)
    try:
        net.start()
        topo.configure(net)
        assert lab.node_reachable(topo.sender(net, 1), topo.dst_ip(1))[0]
        real = topo.realized(net, 1)
    finally:
        net.stop()
    assert leftovers() == before
    # the priming connection's frames and at least one ping
    assert real["lossy_pkts"] >= 7 and real["lossy_discarded"] == 0, real
    assert real["per_realized"] == 0.0 and "lossy_note" not in real, real


def test_missing_module_is_skipped_not_faked():
    """A congestion control that does not exist is skipped with a message
    and listed in meta.skipped; nothing is run or recorded for it."""
    with tempfile.TemporaryDirectory() as out:
        p = bench_run("--scenario", "geo", "--param", "1", "--ccs", "nosuchcc",
                      "--seconds", "2", "--out", out, "--no-plots")
        assert p.returncode == 0, p.stderr[-2000:]
        assert ("skipping nosuchcc: congestion control not available "
                "(module tcp_nosuchcc missing)") in p.stdout
        assert "geo: 0 case(s) to run in 0 batch(es), 1 of 1 skipped;" in p.stdout
        assert not re.search(r"^\[\d+/\d+\] \w+: \d+ case", p.stdout, re.M), p.stdout
        bench.validate(os.path.join(out, "results.json"))
        with open(os.path.join(out, "results.json")) as f:
            data = json.load(f)
        assert data["meta"]["skipped"] == ["nosuchcc"] and data["records"] == []
        assert os.path.exists(os.path.join(out, "summary.md"))
        assert not [f for f in os.listdir(out) if f.endswith(".png")]


def test_bad_arguments_are_refused():
    p = bench_run("--scenario", "geo", "--param", "one", "--ccs", "reno", "--out", "/tmp/x")
    assert p.returncode != 0 and "bad --param 'one'" in p.stderr
    p = bench_run("--suite", "huge")
    assert p.returncode != 0 and "unknown suite 'huge'" in p.stderr

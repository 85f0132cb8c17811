"""specnet_bench.compare and publish's changes.md: two runs compared case
by case on synthetic records (goodput over the realized ceiling, median
[min-max] over repetitions; 'within' when the ranges overlap)."""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
from specnet_bench import compare, publish  # noqa: E402
from specnet_bench import cli as bench  # noqa: E402


def rec(cc, value, rep, goodput, ceil=10e6):
    c = dict(scenario="geo", opts={}, value=value, cc=cc, rep=rep)
    return dict(c, param="loss", flow_cc=cc, flow=0, seconds=60, key=bench.case_key(c),
                per_nominal=0.01, per_realized=0.01, ceiling_nominal_bps=ceil,
                ceiling_bps=ceil, lossy_pkts=1000, lossy_discarded=10, rtt_ms=600.0,
                queue={"kind": "netem"}, csum_errors=0, guest_cpu_busy=0.3, counters={},
                goodput_bps=goodput, retransmits=0, bytes_sent=1000)


def run(commit, cases):
    """(meta, records) of @cases {(cc, value): [goodput of each rep]}."""
    meta = dict(suite="headline", date="20261127T000000Z", kernel="6.1.0-56-amd64",
                commit=commit, skipped=[])
    return meta, [rec(cc, v, i + 1, g) for (cc, v), gs in cases.items()
                  for i, g in enumerate(gs)]


OLD = run("aaaaaaa", {("spec", 1): [8e6, 9e6, 9.5e6], ("bbr", 1): [7e6, 7.5e6, 8e6],
                      ("cubic", 1): [1e6, 2e6, 3e6], ("hybla", 1): [3e6, 3e6, 3e6]})
NEW = run("bbbbbbb", {("spec", 1): [9.2e6, 9.4e6, 9.9e6], ("bbr", 1): [8.2e6, 8.3e6, 8.6e6],
                      ("cubic", 1): [0.5e6, 0.6e6, 0.85e6], ("reno", 1): [1e6, 1e6, 1e6],
                      ("hybla", 1): [3.05e6, 3.05e6, 3.05e6]})


def test_verdicts_by_overlap_of_the_ranges():
    rows, only_old, only_new = compare.compare(OLD[1], NEW[1])
    got = {k[3]: (round(xo.med, 2), round(xn.med, 2), v) for k, xo, xn, v in rows}
    assert got == {"spec": (0.9, 0.94, "within"),      # 0.92-0.99 overlaps 0.8-0.95
                   "bbr": (0.75, 0.83, "up"),          # 0.82 > 0.80 + 0.01
                   "cubic": (0.2, 0.06, "down"),       # 0.085 + 0.01 < 0.10
                   "hybla": (0.3, 0.3, "within")}      # 0.305 vs 0.30: under 0.01
    assert (only_old, only_new) == (0, 1)


def test_report_names_both_runs_and_counts():
    text = compare.report(OLD, NEW)
    assert "* before: 20261127T000000Z, kernel 6.1.0-56-amd64, commit aaaaaaa" in text
    assert "* after: 20261127T000000Z, kernel 6.1.0-56-amd64, commit bbbbbbb" in text
    assert "4 cases in both: 2 within the spread of the runs, 1 up, 1 down; " \
           "0 only before, 1 only after." in text
    assert "| geo | - | 1 | bbr | 0.75 [0.70-0.80] | 0.83 [0.82-0.86] | 1.11 | **up** |" in text


def test_publish_writes_changes_against_the_run_it_replaces(tmp_path):
    docs = tmp_path / "docs"
    for i, (meta, records) in enumerate((OLD, NEW)):
        d = tmp_path / f"run{i}"
        d.mkdir()
        (d / "results.json").write_text(json.dumps(dict(meta=meta, records=records)))
        (d / "summary.md").write_text(f"# run {i}\n")
        dest, _ = publish.publish(str(d), "bench-x", docs=str(docs))
        changes = os.path.join(dest, "changes.md")
        if i == 0:
            assert not os.path.exists(changes), "nothing to compare the first run with"
    text = open(changes).read()
    assert "commit aaaaaaa" in text and "commit bbbbbbb" in text and "**down**" in text


def test_publish_a_demo_run_over_another_without_changes(tmp_path):
    """`make demo`'s satellite runs (specnet_bench.satellite: one flow a BER
    and cc, no options or repetitions) have no case key: published over
    the last demo, or replaced by a bench run, nothing is compared (the
    comparison read r["opts"] and the demo failed after its run)."""
    docs = tmp_path / "docs"
    meta = dict(scenario="satellite", bers=[1e-5], ccs=["spec", "reno"], seconds=120,
                date="20261201T000000Z", kernel="6.1.0-57-amd64", commit="ccccccc",
                paper="")
    records = [dict(scenario="satellite", ber=1e-5, cc=cc, seconds=120, goodput_bps=g,
                    ceiling_bps=56e3, ceiling_nominal_bps=55e3, per_nominal=0.08,
                    per_realized=0.07, retransmits=3)
               for cc, g in (("spec", 55e3), ("reno", 43e3))]
    runs = [(meta, records), (dict(meta, commit="ddddddd"), records), NEW]
    for i, (m, rs) in enumerate(runs):
        d = tmp_path / f"run{i}"
        d.mkdir()
        (d / "results.json").write_text(json.dumps(dict(meta=m, records=rs)))
        (d / "summary.md").write_text(f"# run {i}\n")
        (d / "goodput.png").write_bytes(b"\x89PNG")
        dest, pngs = publish.publish(str(d), "demo", docs=str(docs))
        assert pngs == ["goodput.png"] and os.path.exists(os.path.join(dest, "goodput.png"))
        assert f"commit {m['commit']}" in open(os.path.join(dest, "summary.md")).read()
        assert not os.path.exists(os.path.join(dest, "changes.md")), i
    assert not compare.comparable(meta, records) and compare.comparable(*NEW)


def test_the_demo_vm_timeout_grows_with_its_paths():
    """The demo's paths are built one after the other (18 took 630 s of a
    VM run with 120 s flows): its VM timeout leaves twice that for 18 and
    grows with every (BER, cc) path added."""
    from specnet_bench import demo
    t18 = demo.vm_timeout(120, "1e-6,1e-5,5e-5", "spec,reno,cubic,bbr,westwood,hybla")
    assert t18 >= 2 * 630
    t24 = demo.vm_timeout(120, "1e-6,1e-5,5e-5,1e-4", "spec,reno,cubic,bbr,westwood,hybla")
    assert t24 - t18 >= 6 * 25

"""specnet-bench's report on the host: summary.md and the PNG plots from the
results.json of a tiny run (`specnet-bench --suite tiny` in the 6.1 guest,
commit ecda5f4, kept in tests/host/data). The report is plain Python over
results.json, the same on every kernel; the VM test
(tests/integration/test_bench.py) runs the scenarios with --no-plots, as
matplotlib under TCG costs minutes per guest."""
import json
import os
import sys

import pytest

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(TOP, "mininet"))
import specnet_bench as bench  # noqa: E402

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
     "geo has no option stpe (it has: hostbuf_mb, rate, rtt_ms, step)"),
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
    import topos
    t = topos.GeoTopo.__new__(topos.GeoTopo)
    plain = t.chain_links(loss=10)
    assert [(l["rate"], l["queue"]) for l in plain] == [("100mbit", None), ("20mbit", None)]
    step = t.chain_links(loss=10, step="1000")
    assert step[1]["rate"] == "20mbit" and step[1]["queue"] == ("step", 1000)
    assert step[1]["delay_ms"] == 0 and step[2]["delay_ms"] == 300
    assert "corrupt 10%" in step[2]["impair"] and not step[1]["impair"]
    assert bench.topo_opts("geo") == {"hostbuf_mb", "rate", "rtt_ms", "step"}

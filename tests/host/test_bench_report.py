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

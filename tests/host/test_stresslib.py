"""The stress suite's forked helpers (tests/stress/stresslib.py) on the
host's own congestion controls: a connection held open in a namespace until
released, a namespace made and destroyed around connections, and a child's
failure reported with its cause instead of escaping into the caller."""
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(HERE, "..", "stress"))
import stresslib  # noqa: E402
from specnet_bench import specnet_lab as lab  # noqa: E402

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (network namespaces)")


def established(ns):
    """The established TCP sockets in namespace @ns (ss -ti)."""
    out = subprocess.run(["ip", "netns", "exec", ns, "ss", "-tinH", "state", "established"],
                         capture_output=True, text=True, check=True).stdout
    return lab.parse_ss(out)


def test_hold_keeps_the_connection_open_until_released(named_ns):
    h = stresslib.hold(named_ns, "cubic", 1 << 20)
    try:
        socks = established(named_ns)
        assert len(socks) == 2, f"both ends established while held: {socks}"
        assert any(s.get("cc") == "cubic" and s.get("bytes_acked", 0) >= 1 << 20
                   for s in socks), f"the sender is cubic and has carried 1 MB: {socks}"
    finally:
        assert h.release() == 0
    assert established(named_ns) == [], "closed on release"


def test_hold_reports_a_refused_congestion_control(named_ns):
    with pytest.raises(RuntimeError, match=r"hold nosuchcc in .*TCP_CONGESTION nosuchcc"):
        stresslib.hold(named_ns, "nosuchcc", 1000)


def test_netns_cycle_runs_in_a_namespace_of_its_own():
    own = os.readlink("/proc/self/ns/net")
    child = stresslib.Child(lambda: (lab.unshare_netns(), os.readlink("/proc/self/ns/net"))[1],
                            "unshare")
    assert child.release() == 0
    assert child.result.startswith("net:[") and child.result != own
    assert stresslib.netns_cycle(("reno", "cubic"), 256 << 10, ("tcp", "snmp")) > 0
    assert os.readlink("/proc/self/ns/net") == own, "the caller stays where it was"


def test_netns_cycle_names_what_failed():
    with pytest.raises(RuntimeError, match=r"No such file or directory: '/proc/net/nosuch'"):
        stresslib.netns_cycle(("reno",), 1000, ("nosuch",))
    with pytest.raises(RuntimeError, match=r"TCP_CONGESTION nosuchcc"):
        stresslib.netns_cycle(("nosuchcc",), 1000, ())

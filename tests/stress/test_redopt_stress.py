"""sch_redopt under fuzzed netlink and under configuration churn with
traffic flowing (make stress)."""
import json
import os
import sys

import pytest

from specnet_bench import specnet_lab as lab
import stresslib

HERE = os.path.dirname(os.path.abspath(__file__))
TC = f"TC_LIB_DIR={lab.TC_LIB} tc"
NL_MESSAGES = 100000
TC_CYCLES = 1000
MODEL = "bandwidth 10mbit rtt 50ms ssthresh 40 min 5 probability 0.1"


@pytest.fixture
def redopt():
    lab.load_module("sch_redopt")
    yield
    lab.run(f"{TC} qdisc del dev lo root")
    lab.unload_module("sch_redopt")


@pytest.fixture
def dummy():
    """A namespace with a dummy device d0 (10.99.0.1/24): what is sent to
    10.99.0.2 goes through d0's root qdisc and is freed."""
    ns = lab.uniq("sn") + "-st"
    lab.run("modprobe dummy")
    lab.sh(f"ip netns add {ns}")
    try:
        lab.sh("ip link set lo up && ip link add d0 type dummy && "
               "ip addr add 10.99.0.1/24 dev d0 && ip link set d0 up", ns=ns)
        yield ns
    finally:
        lab.run(f"ip netns del {ns}")


def test_netlink_fuzz(redopt, dummy, figure):
    """NL_MESSAGES generated and mutated add/replace/change/del messages
    (tests/stress/nlfuzz.py), traffic between them: every refusal has an
    extack message and changes nothing, every accepted configuration is
    consistent; the kernel log stays clean (the runner checks it)."""
    n = stresslib.scaled(NL_MESSAGES)
    p = lab.run(f"{sys.executable} {HERE}/nlfuzz.py d0 10.99.0.2 {n} 1", ns=dummy,
                timeout=7200)
    assert p[0] == 0, p
    c = json.loads(p[1].strip().splitlines()[-1])
    figure("netlink messages fuzzed, accepted, refused",
           [c["messages"], c["accepted"], c["refused"]])
    figure("datagrams through the qdisc (of them UDP GSO)",
           [c["datagrams"], c["gso_datagrams"]])
    figure("refusals by errno", c["by_errno"])
    figure("most frequent extack messages", dict(list(c["extack"].items())[:8]))
    bad = {k: c[k] for k in ("refused_no_extack", "changed_by_refusal", "inconsistent")}
    assert c["messages"] == n and c["accepted"] > n // 20 and c["refused"] > n // 20, c
    assert not any(bad.values()), (bad, p[2][-4000:])
    # the qdisc still works: a clean add, traffic, counters move
    lab.run(f"{TC} qdisc del dev d0 root", ns=dummy)
    lab.sh(f"{TC} qdisc add dev d0 root redopt {MODEL} ecn", ns=dummy)
    stresslib.flood(dummy, "10.99.0.2", 2).wait()
    q = json.loads(lab.sh(f"{TC} -s -j qdisc show dev d0", ns=dummy))[0]
    assert q["kind"] == "redopt" and q["packets"] > 0, q


def test_replace_change_del_under_traffic(redopt, dummy, figure):
    """TC_CYCLES rounds of replace (another model), change (one input),
    del and add of redopt through tc -batch while UDP traffic (plain and
    GSO-free) flows through it: every command succeeds."""
    n = stresslib.scaled(TC_CYCLES)
    lines = []
    for i in range(n):
        rtt = 20 + i % 200
        lines += [f"qdisc replace dev d0 root redopt {MODEL.replace('50ms', f'{rtt}ms')}"
                  f"{' ecn' if i % 2 else ''}{' adaptive' if i % 3 == 0 else ''}",
                  f"qdisc change dev d0 root redopt min {4 + i % 4}",
                  "qdisc del dev d0 root",
                  f"qdisc add dev d0 root redopt {MODEL} flows auto"]
    # the guest's own /tmp: build/ is shared by guests running side by side
    batch = f"/tmp/{os.uname().release}-stress-tc.batch"
    with open(batch, "w") as f:
        f.write("\n".join(lines) + "\n")
    fl = stresslib.flood(dummy, "10.99.0.2", 3600)
    try:
        p = lab.run(f"{TC} -batch {batch}", ns=dummy, timeout=7200)
    finally:
        fl.kill()
        fl.wait()
    figure("tc replace/change/del/add cycles under traffic", n)
    assert p[0] == 0, p
    q = json.loads(lab.sh(f"{TC} -s -j qdisc show dev d0", ns=dummy))[0]
    assert q["kind"] == "redopt" and q["options"]["flows"] == 0, q

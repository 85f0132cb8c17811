"""specnet_lab.QueueSampler on the host: it reads the backlog of the qdisc
under 1:1 inside another process's network namespace over rtnetlink
(specnet_bench.netlink), as the benchmark does for every Mininet path."""
import os
import subprocess
import sys
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from specnet_bench import specnet_lab as lab  # noqa: E402

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (a network namespace)")


@pytest.fixture
def netns():
    """A process in a new netns whose lo has HTB at 8 kbit/s and a pfifo
    leaf 10: under 1:1."""
    p = subprocess.Popen(["unshare", "-n", "sleep", "120"])
    time.sleep(0.3)

    def sh(cmd):
        return subprocess.run(["nsenter", "-t", str(p.pid), "-n", "sh", "-c", cmd],
                              capture_output=True, text=True, check=True).stdout
    sh("ip link set lo up && tc qdisc add dev lo root handle 1: htb default 1 && "
       "tc class add dev lo parent 1: classid 1:1 htb rate 8kbit burst 2k && "
       "tc qdisc add dev lo parent 1:1 handle 10: pfifo limit 500")
    yield p.pid, sh
    p.kill()
    p.wait()


def test_backlog_of_the_leaf_in_another_netns(netns):
    pid, sh = netns
    s = lab.QueueSampler(period=0.1)
    s.add("a", f"/proc/{pid}/ns/net", "lo")
    s.add("other-parent", f"/proc/{pid}/ns/net", "lo")
    assert s.sample("a") == (0, 0)
    s.parent = 0x00020001               # no qdisc there
    assert s.sample("other-parent") is None
    s.parent = 0x00010001
    # 30 datagrams of 1000 bytes at 8 kbit/s: most of them wait in 10:
    sh("python3 -c \"import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); "
       "[s.sendto(bytes(1000), ('127.0.0.1', 9)) for _ in range(30)]\"")
    backlog, qlen = s.sample("a")
    assert qlen >= 20 and backlog >= 20 * 1000, (backlog, qlen)
    s.start()
    time.sleep(0.35)
    series = s.stop()
    assert len(series["a"]) >= 2 and all(x[2] >= 20 for x in series["a"]), series["a"]
    assert series["other-parent"] == series["a"]      # both keys sample 1:1 now
    assert s.stop() == series                          # a second stop is harmless


def _own_netns():
    return os.stat("/proc/thread-self/ns/net").st_ino


def test_in_netns_takes_a_name_or_a_path_and_comes_back(named_ns):
    name = named_ns
    other, own = os.stat(f"/run/netns/{name}").st_ino, _own_netns()
    assert other != own
    for ns in (name, f"/run/netns/{name}"):
        with lab.in_netns(ns):
            assert _own_netns() == other, ns
            out = lab.sh("ip -o link show", ns=None)
        assert _own_netns() == own, ns
        # a command forked inside the block ran in the namespace: lo only
        assert [ln.split(":")[1].strip() for ln in out.splitlines()] == ["lo"], out
    with pytest.raises(FileNotFoundError, match=f"/run/netns/{name}-none"):
        with lab.in_netns(f"{name}-none"):
            pass
    assert _own_netns() == own

"""Helpers of the stress suite.

    python3 stresslib.py flood DST SECONDS    UDP datagrams to DST:9 for
                                              SECONDS
    python3 stresslib.py hold CC BYTES        a TCP connection over
                                              loopback with congestion
                                              control CC: BYTES sent, then
                                              "ready" on stdout; closed
                                              when stdin closes

Run them inside a namespace (ip netns exec).
"""
import importlib.util
import os
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def load(name, path):
    """The Python file @path (relative to tests/stress) as module @name:
    the stress suite reuses the integration suite's fixtures and beds."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, path))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def scaled(n, var="STRESS_SCALE"):
    """@n scaled by STRESS_SCALE (default 1: the documented counts), at
    least 1; @var names a scale of its own that takes precedence
    (SOAK_SCALE: the soak's length)."""
    return max(1, int(n * float(os.environ.get(var) or os.environ.get("STRESS_SCALE", "1"))))


def flood(ns, dst, seconds):
    """Start UDP traffic to @dst from namespace @ns for @seconds: a Popen
    (wait() for its count of datagrams on stdout)."""
    return subprocess.Popen(["ip", "netns", "exec", ns, sys.executable, __file__, "flood",
                             dst, str(seconds)], stdout=subprocess.PIPE, text=True)


def _flood(dst, seconds):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    buf, n, end = bytes(1000), 0, time.monotonic() + seconds
    while time.monotonic() < end:
        for _ in range(64):
            try:
                s.sendto(buf, (dst, 9))
                n += 1
            except OSError:
                pass
    print(n)


def hold(ns, cc, nbytes):
    """Start a loopback connection of @cc in @ns; returns the Popen once
    the connection has carried @nbytes (close its stdin to end it)."""
    p = subprocess.Popen(["ip", "netns", "exec", ns, sys.executable, __file__, "hold", cc,
                          str(nbytes)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline().strip()
    if line != "ready":
        p.kill()
        raise RuntimeError(f"hold {cc}: {line!r} {p.stderr.read()}")
    return p


def _hold(cc, nbytes):
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(1)
    c = socket.socket()
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
    c.connect(ls.getsockname())
    a, _ = ls.accept()
    buf, sent = bytes(65536), 0
    while sent < nbytes:
        sent += c.send(buf[:min(len(buf), nbytes - sent)])
        try:
            while a.recv(1 << 20, socket.MSG_DONTWAIT):
                pass
        except BlockingIOError:
            pass
    got = c.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).split(b"\0")[0]
    print("ready" if got.decode() == cc else f"cc is {got!r}", flush=True)
    sys.stdin.read()
    c.close()
    a.close()
    ls.close()


# ---- memory: the slab and kmemleak, before the suite and after it ----------

KMEMLEAK = "/sys/kernel/debug/kmemleak"
_baseline = {}


def _debugfs():
    if not os.path.exists("/sys/kernel/debug/kmemleak") and \
            not os.path.ismount("/sys/kernel/debug"):
        subprocess.run(["mount", "-t", "debugfs", "none", "/sys/kernel/debug"],
                       stderr=subprocess.DEVNULL)
    return os.path.exists(KMEMLEAK)


def slab_kib():
    """Slab: of /proc/meminfo (KiB) after the kernel's caches are dropped
    and RCU callbacks have run."""
    subprocess.run(["sync"])
    time.sleep(1)
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")
    time.sleep(1)
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("Slab:"):
                return int(line.split()[1])
    raise RuntimeError("no Slab: in /proc/meminfo")


def memory_baseline():
    """The slab before the suite; kmemleak's suspects so far found and
    cleared (the boot's are not the suite's: clear only forgets objects a
    scan has reported, so it scans first)."""
    if _debugfs():
        for cmd in ("scan", "clear"):
            with open(KMEMLEAK, "w") as f:
                f.write(cmd + "\n")
    _baseline["slab_kib"] = slab_kib()
    _baseline["kmemleak"] = os.path.exists(KMEMLEAK)
    return dict(_baseline)


def baseline():
    return dict(_baseline)


def kmemleak_scan():
    """kmemleak's unreferenced objects after two scans (an object must be
    seen unreferenced twice, and be older than 5 s, to be reported);
    None on a kernel without kmemleak."""
    if not _debugfs():
        return None
    for _ in range(2):
        time.sleep(6)
        with open(KMEMLEAK, "w") as f:
            f.write("scan\n")
    with open(KMEMLEAK) as f:
        return f.read()


if __name__ == "__main__" and sys.argv[1:2] == ["flood"]:
    _flood(sys.argv[2], float(sys.argv[3]))
elif __name__ == "__main__" and sys.argv[1:2] == ["hold"]:
    _hold(sys.argv[2], int(sys.argv[3]))

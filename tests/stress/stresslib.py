"""Helpers of the stress suite.

    python3 stresslib.py flood DST SECONDS    UDP datagrams to DST:9 for
                                              SECONDS

Run them inside a namespace (ip netns exec).
"""
import fcntl
import importlib.util
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import time

from specnet_bench import specnet_lab as lab

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


def _connect(cc, nbytes):
    """A loopback TCP connection of congestion control @cc that has carried
    @nbytes: (listener, client, accepted). Raises when the client's
    congestion control is not @cc."""
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(1)
    c = socket.socket()
    try:
        c.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
    except OSError as e:
        raise RuntimeError(f"TCP_CONGESTION {cc}: {e.strerror}") from None
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
    if got.decode() != cc:
        raise RuntimeError(f"congestion control is {got!r}, not {cc}")
    return ls, c, a


def _lo_up():
    """Bring lo up in this network namespace (SIOCSIFFLAGS: no process)."""
    siocgifflags, siocsifflags, iff_up = 0x8913, 0x8914, 0x1
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        req = struct.pack("16sH22x", b"lo", 0)
        flags = struct.unpack_from("16sH", fcntl.ioctl(s, siocgifflags, req))[1]
        fcntl.ioctl(s, siocsifflags, struct.pack("16sH22x", b"lo", flags | iff_up))


class Child:
    """@work() run in a forked child of this process: a namespace or a socket
    made there costs no interpreter start (seconds a process under TCG with
    the debug checkers). What @work returns comes up as .result; with
    @hold the child then waits, its sockets open, until release(). The
    child never returns into the caller: it exits."""

    def __init__(self, work, what, hold=False, timeout=120):
        r_up, w_up = os.pipe()
        r_go, w_go = os.pipe()
        pid = os.fork()
        if pid == 0:                            # the child
            code = 1
            try:
                os.close(r_up)
                os.close(w_go)
                msg = "ok " + str(work() or "")
                os.write(w_up, msg.replace("\n", " ").encode() + b"\n")
                if hold:
                    os.read(r_go, 1)            # returns when the parent closes it
                code = 0
            except BaseException as e:          # nothing may escape into the caller
                try:
                    why = f"error {type(e).__name__}: {e}".replace("\n", " ")
                    os.write(w_up, why.encode() + b"\n")
                except OSError:
                    pass
            finally:
                os._exit(code)
        os.close(w_up)
        os.close(r_go)
        self.pid, self.w_go, self.timeout, self.what = pid, w_go, timeout, what
        with os.fdopen(r_up) as f:
            ready = select.select([f], [], [], timeout)[0]
            line = f.readline().strip() if ready else ""
        if not line.startswith("ok"):
            self.release(kill=not ready)
            raise RuntimeError(f"{what} (child {pid}): " +
                               (line or f"no answer in {timeout} s"))
        self.result = line[3:]

    def release(self, kill=False):
        """Let the child go and reap it (@kill: with SIGKILL); its exit code,
        0 when it did its work."""
        if self.w_go is not None:
            os.close(self.w_go)
            self.w_go = None
        if kill:
            os.kill(self.pid, signal.SIGKILL)
        end = time.monotonic() + self.timeout
        while True:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return os.waitstatus_to_exitcode(status)
            if time.monotonic() > end:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
                raise TimeoutError(f"{self.what} (child {self.pid}): no exit in "
                                   f"{self.timeout} s")
            time.sleep(0.05)


def hold(ns, cc, nbytes):
    """A loopback connection of @cc in namespace @ns (a name of `ip netns`)
    that has carried @nbytes, held open in a forked child: a Child whose
    release() closes it and returns 0."""
    kept = []                   # the child's sockets, open while it waits

    def work():
        with lab.in_netns(ns):
            kept.append(_connect(cc, nbytes))
    return Child(work, f"hold {cc} in {ns}", hold=True)


def netns_cycle(ccs, nbytes, proc_files):
    """One network namespace made and destroyed with the modules' state in
    it: a forked child unshares a new one, brings lo up, opens a loopback
    connection of each congestion control of @ccs that carries @nbytes,
    reads the per-namespace files /proc/net/<f> of @proc_files while they
    are open, and exits (the namespace goes with it). Returns the bytes
    read from the files."""
    def work():
        lab.unshare_netns()
        _lo_up()
        conns = [_connect(cc, nbytes) for cc in ccs]
        size = 0
        for f in proc_files:
            with open(f"/proc/net/{f}") as fh:
                size += len(fh.read())
        for s in (x for c in conns for x in c):
            s.close()
        return size
    c = Child(work, "netns cycle of " + ",".join(ccs))
    rc = c.release()
    if rc != 0:
        raise RuntimeError(f"{c.what}: child exit {rc}")
    return int(c.result)


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

"""Host test of tests/vm/vm.py's KVM probe: a probe that does not answer
in time is killed with everything it started (vng runs qemu as its child)."""
import importlib.util
import os
import time

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
spec = importlib.util.spec_from_file_location("specnet_vm", os.path.join(TOP, "tests/vm/vm.py"))
vm = importlib.util.module_from_spec(spec)
spec.loader.exec_module(vm)


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:
        return f.read().split()[2] != "Z"


def test_a_probe_that_times_out_leaves_no_guest(tmp_path, monkeypatch):
    """A fake vng starts a child (the guest) and hangs: after the probe's
    timeout the answer is no, cached, and the child is gone too."""
    pidfile = tmp_path / "guest.pid"
    fake = tmp_path / "vng"
    fake.write_text(f"#!/bin/sh\nsleep 300 &\necho $! > {pidfile}\nwait\n")
    fake.chmod(0o755)
    monkeypatch.setattr(vm, "VNG", str(fake))
    monkeypatch.setattr(vm, "BUILD", str(tmp_path / "build"))
    monkeypatch.setattr(vm, "KVM_PROBE_S", 1)
    monkeypatch.setattr(vm, "qemu_version", lambda: "QEMU test")
    monkeypatch.setattr(vm.os, "access", lambda *a: True)
    monkeypatch.delenv("SPECNET_KVM", raising=False)
    t0 = time.monotonic()
    assert vm.kvm_usable("9.9.9") is False
    assert time.monotonic() - t0 < 30
    pid = int(pidfile.read_text())
    for _ in range(50):
        if not alive(pid):
            break
        time.sleep(0.1)
    assert not alive(pid), f"the probe's guest (pid {pid}) outlived the probe"
    assert (tmp_path / "build" / ".kvm-probe").read_text() == "QEMU test\nno\n"

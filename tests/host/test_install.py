"""make install, make uninstall and the DKMS build, staged in temporary
directories (nothing is installed on the host, no depmod runs).

* `make install DESTDIR=...` puts the four modules, the tools, the unit,
  the man pages and the docs in their places; `make uninstall` with the
  same DESTDIR removes all of it but the configuration, which PURGE=1
  removes too.
* DKMS (`dkms.conf`, as `make dkms` copies the sources) builds the four
  modules for a supported kernel, with that kernel's vermagic, and installs
  them where `make install` puts its own: using both leaves one copy.
  DKMS's own trees are temporary (--sourcetree, --dkmstree, --installtree,
  --no-depmod). Needs dkms (Debian: dkms; make setup installs it).
"""
import os
import re
import shutil
import subprocess

import pytest

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MODULES = ["sch_redopt", "tcp_cpecn", "tcp_spec", "tcp_tp"]


def make(*args):
    p = subprocess.run(["make", "--no-print-directory", "-C", TOP, *args],
                       capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


@pytest.fixture(scope="module")
def kver():
    ks = make("print-kvers").split()
    assert ks, "no supported kernel with headers: make setup"
    return ks[0]


def files(root):
    return sorted(os.path.relpath(os.path.join(d, f), root)
                  for d, _, fs in os.walk(root) for f in fs)


def test_install_then_uninstall(tmp_path, kver):
    stage = tmp_path / "stage"
    make("install", f"DESTDIR={stage}", f"KVERS={kver}")
    got = files(stage)
    for m in MODULES:
        assert f"lib/modules/{kver}/updates/dkms/{m}.ko" in got, got
    for f in ("usr/local/sbin/specctl", "usr/local/sbin/specd",
              "usr/lib/x86_64-linux-gnu/tc/q_redopt.so",
              "usr/local/lib/systemd/system/specd.service", "etc/specnet/specd.conf",
              "etc/iproute2/rt_protos.d/specnet.conf", "usr/local/share/man/man8/tc-redopt.8",
              "usr/local/share/man/man5/specd.conf.5", "usr/local/share/doc/specnet/README.md"):
        assert f in got, got
    # an earlier install's place is cleaned as well
    old = stage / "lib" / "modules" / kver / "updates" / "specnet" / "tcp_spec.ko"
    old.parent.mkdir(parents=True)
    old.write_bytes(b"")
    out = make("uninstall", f"DESTDIR={stage}")
    assert files(stage) == ["etc/specnet/specd.conf"], (files(stage), out)
    assert "kept" in out
    make("uninstall", f"DESTDIR={stage}", "PURGE=1")
    assert files(stage) == []


def test_dkms_builds_where_make_install_puts_the_modules(tmp_path, kver):
    dkms = shutil.which("dkms")
    assert dkms, "dkms not found: apt-get install dkms (make setup)"
    conf = open(os.path.join(TOP, "dkms.conf")).read()
    ver = re.search(r'^PACKAGE_VERSION="([^"]+)"', conf, re.M).group(1)
    src = tmp_path / "src" / f"specnet-{ver}"
    src.mkdir(parents=True)
    # what make dkms copies: the module sources (MODSRC) and dkms.conf
    for x in ("Kbuild", "kernel", "tcp_spec", "tcp_cpecn", "tcp_tp", "sch_redopt",
              "dkms.conf"):
        p = os.path.join(TOP, x)
        if os.path.isdir(p):
            shutil.copytree(p, src / x, symlinks=True)
        else:
            shutil.copy2(p, src / x)
    inst = tmp_path / "inst"
    (inst / kver).mkdir(parents=True)
    (tmp_path / "tree").mkdir()
    trees = [f"--sourcetree={tmp_path / 'src'}", f"--dkmstree={tmp_path / 'tree'}",
             f"--installtree={inst}", "--no-depmod"]
    for step in (["add"], ["build", "-k", kver], ["install", "-k", kver]):
        p = subprocess.run([dkms, step[0], "-m", "specnet", "-v", ver, *step[1:], *trees],
                           capture_output=True, text=True, timeout=900)
        assert p.returncode == 0, (step, p.stdout[-3000:], p.stderr[-3000:])
    got = files(inst)
    assert got == [f"{kver}/updates/dkms/{m}.ko" for m in MODULES], got
    for m in MODULES:
        vm = subprocess.run(["modinfo", "-F", "vermagic", str(inst / kver / "updates" / "dkms" /
                                                             f"{m}.ko")],
                            capture_output=True, text=True).stdout
        assert vm.split()[0] == kver, (m, vm)
    # make install's place for the same kernel
    stage = tmp_path / "stage"
    make("install-modules", f"DESTDIR={stage}", f"KVERS={kver}")
    assert files(stage / "lib" / "modules") == got

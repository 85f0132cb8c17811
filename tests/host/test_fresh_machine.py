"""The README's commands work as the first command on a fresh machine.

A fresh Debian 12 has no kernel in /lib/modules or /boot until `make
setup` installs them. Each test runs make in a private mount namespace
with empty tmpfs over /boot and /lib/modules, and a stand-in for setup
(SETUP=) that installs a kernel there (its headers' Makefile and its
image), as scripts/setup.sh does; DRY=1 stops once the target has
resolved its kernels. A Makefile that reads its kernel list before setup
ran finds none and fails.
"""
import os
import shutil
import subprocess

import pytest

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FAKE = ("6.1.0-99-amd64", "6.12.99+deb12-amd64")
# a debug kernel of make stress (scripts/debug-kernel.sh): never one of the
# kernels of make test, demo or bench
FAKE_DEBUG = "6.1.192-specnet-debug"

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("unshare"),
    reason="needs root and unshare (a private mount namespace)")


def fresh_make(tmp_path, target):
    setup = tmp_path / "fake-setup.sh"
    setup.write_text("set -e\n" + "".join(
        f"mkdir -p /lib/modules/{k}/build\n"
        f"printf 'all:\\n' > /lib/modules/{k}/build/Makefile\n"
        f"touch /boot/vmlinuz-{k}\n" for k in FAKE + (FAKE_DEBUG,)) +
        "echo 'setup: installed kernels'\n")
    script = ("set -e; mkdir -p /lib/modules /boot; "
              "mount -t tmpfs none /boot; mount -t tmpfs none /lib/modules; "
              # the namespace starts as a fresh machine: no kernel at all
              "test -z \"$(ls -A /lib/modules)$(ls -A /boot)\"; "
              f"make -C {TOP} --no-print-directory {target} SETUP='sh {setup}' DRY=1")
    p = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script],
                       capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout + p.stderr


@pytest.mark.parametrize("target,want", [
    ("demo", f"demo: kernel {FAKE[0]}"),
    ("bench", f"bench: kernel {FAKE[0]}"),
    ("test", f"test: kernels {FAKE[0]} {FAKE[1]}"),
])
def test_first_command_finds_the_kernels_setup_installs(tmp_path, target, want):
    rc, out = fresh_make(tmp_path, target)
    assert rc == 0, out
    assert "setup: installed kernels" in out, out
    assert want in out.splitlines(), out


def test_no_kernel_after_setup_is_a_clear_error(tmp_path):
    """A setup that installs nothing: the target fails and says why."""
    setup = tmp_path / "noop.sh"
    setup.write_text("true\n")
    script = ("set -e; mkdir -p /lib/modules /boot; "
              "mount -t tmpfs none /boot; mount -t tmpfs none /lib/modules; "
              f"make -C {TOP} --no-print-directory demo SETUP='sh {setup}' DRY=1")
    p = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode != 0
    assert "no supported kernel (6.1 or 6.12)" in p.stdout + p.stderr

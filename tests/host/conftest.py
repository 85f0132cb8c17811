"""Host tests: shared fixtures."""
import os
import subprocess

import pytest

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


@pytest.fixture(scope="session")
def userspace(tmp_path_factory):
    """userspace/ built from this tree into a temporary directory, once."""
    out = tmp_path_factory.mktemp("userspace")
    p = subprocess.run(["make", "--no-print-directory", "-C", os.path.join(TOP, "userspace"),
                        f"O={out}"], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    return out


@pytest.fixture(scope="session")
def specctl(userspace):
    exe = userspace / "specctl"
    assert exe.is_file()
    return str(exe)


@pytest.fixture(scope="session")
def specd(userspace):
    exe = userspace / "specd"
    assert exe.is_file()
    return str(exe)


@pytest.fixture
def named_ns():
    """A network namespace of `ip netns` (its name), lo up; deleted after
    the test. Needs root."""
    if os.geteuid() != 0:
        pytest.skip("needs root (a network namespace)")
    ns = f"snh{os.getpid()}"
    subprocess.run(["ip", "netns", "add", ns], check=True)
    subprocess.run(["ip", "-n", ns, "link", "set", "lo", "up"], check=True)
    yield ns
    subprocess.run(["ip", "netns", "del", ns], check=True)

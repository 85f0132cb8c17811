"""Host tests: shared fixtures."""
import os
import subprocess

import pytest

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


@pytest.fixture(scope="session")
def specctl(tmp_path_factory):
    """specctl built from this tree into a temporary directory, once."""
    out = tmp_path_factory.mktemp("userspace")
    p = subprocess.run(["make", "--no-print-directory", "-C", os.path.join(TOP, "userspace"),
                        f"O={out}"], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    exe = out / "specctl"
    assert exe.is_file()
    return str(exe)

"""After the stress suite (this file sorts last): every module unloaded,
no object that kmemleak finds unreferenced, and the slab back near its
size before the suite (make stress)."""
import os

import pytest

from specnet_bench import specnet_lab as lab
import stresslib

# What the slab may keep over its size before the suite once the modules
# are gone and the caches dropped: per-CPU and RCU-deferred frees, the
# route and neighbour caches of the namespaces' loopback traffic. A leak of
# one object per packet or per connection of the suite is far above it.
# Under KASAN, freed objects wait in its quarantine (at most 1/32 of the
# memory) before they go back to the slab: that much more.
SLAB_TOLERANCE_KIB = 16 * 1024


def kasan_quarantine_kib():
    """The bound of KASAN's quarantine (KiB), 0 without KASAN."""
    try:
        with open(f"/boot/config-{os.uname().release}") as f:
            if "CONFIG_KASAN=y\n" not in f.read():
                return 0
    except OSError:
        return 0
    with open("/proc/meminfo") as f:
        total = int(f.readline().split()[1])     # MemTotal: N kB
    return total // 32


def test_zz_memory(figure):
    base = stresslib.baseline()
    if not base:
        pytest.skip("no baseline (the session fixture did not run)")
    for m in lab.MODULES:
        lab.unload_module(m, tries=120)
    assert not any(lab.module_loaded(m) for m in lab.MODULES)
    leaks = stresslib.kmemleak_scan()
    slab = stresslib.slab_kib()
    delta = slab - base["slab_kib"]
    tolerance = SLAB_TOLERANCE_KIB + kasan_quarantine_kib()
    figure("slab KiB before the suite, after it, difference, tolerance",
           [base["slab_kib"], slab, delta, tolerance])
    if leaks is not None:
        n = leaks.count("unreferenced object")
        figure("kmemleak: unreferenced objects after the suite", n)
        assert n == 0, "kmemleak:\n" + leaks[:20000]
    assert delta <= tolerance, (
        f"slab grew by {delta} KiB over the suite (tolerance {tolerance} KiB)")

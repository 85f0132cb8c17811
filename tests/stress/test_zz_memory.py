"""After the stress suite (this file sorts last): every module unloaded,
no object that kmemleak finds unreferenced, and the slab back near its
size before the suite (make stress)."""
import pytest

import specnet_lab as lab
import stresslib

MODULES = ("tcp_spec", "tcp_cpecn", "tcp_tp", "sch_redopt")
# What the slab may keep over its size before the suite once the modules
# are gone and the caches dropped: per-CPU and RCU-deferred frees, the
# route and neighbour caches of the namespaces' loopback traffic. A leak of
# one object per packet or per connection of the suite is far above it.
SLAB_TOLERANCE_KIB = 16 * 1024


def test_zz_memory(figure):
    base = stresslib.baseline()
    if not base:
        pytest.skip("no baseline (the session fixture did not run)")
    for m in MODULES:
        lab.unload_module(m, tries=120)
    assert not any(lab.module_loaded(m) for m in MODULES)
    leaks = stresslib.kmemleak_scan()
    slab = stresslib.slab_kib()
    delta = slab - base["slab_kib"]
    figure("slab KiB before the suite, after it, difference", [base["slab_kib"], slab, delta])
    if leaks is not None:
        n = leaks.count("unreferenced object")
        figure("kmemleak: unreferenced objects after the suite", n)
        assert n == 0, "kmemleak:\n" + leaks[:20000]
    assert delta <= SLAB_TOLERANCE_KIB, (
        f"slab grew by {delta} KiB over the suite (tolerance {SLAB_TOLERANCE_KIB} KiB)")

"""The congestion-control modules under load/unload cycles, fuzzed module
parameters and network-namespace churn (make stress)."""
import os
import random
import re
import subprocess

import pytest

from specnet_bench import specnet_lab as lab
import stresslib

# module -> the congestion controls it registers (the first one is used)
CCS = {"tcp_spec": ["spec"], "tcp_cpecn": ["cpecn", "wecn"], "tcp_tp": ["tp"]}
CYCLES = 200
NETNS_CYCLES = 200
PARAM_WRITES = 400      # random writes per parameter, besides the fixed ones


@pytest.fixture
def stress_ns():
    ns = lab.uniq("sn") + "-mod"
    lab.sh(f"ip netns add {ns}")
    lab.sh("ip link set lo up", ns=ns)
    yield ns
    lab.run(f"ip netns del {ns}")


def rmmod(module):
    return lab.run(f"rmmod {module}")


@pytest.mark.parametrize("module", sorted(CCS))
def test_load_unload_cycles(module, stress_ns, figure):
    """CYCLES rounds of: insmod; a loopback connection of the module's
    congestion control carries 1 MB; rmmod while it is open must refuse
    ("in use") and leave the module loaded; after the close rmmod must
    succeed."""
    cc = CCS[module][0]
    n = stresslib.scaled(CYCLES)
    lab.unload_module(module)
    for i in range(n):
        rc, _, err = lab.run(f"insmod {lab.module_path(module)}")
        assert rc == 0, f"cycle {i}: insmod: {err}"
        h = stresslib.hold(stress_ns, cc, 1 << 20)
        try:
            rc, _, err = rmmod(module)
            assert rc != 0 and "in use" in err, f"cycle {i}: rmmod with a live socket: {rc} {err}"
            assert lab.module_loaded(module)
        finally:
            assert h.release() == 0, f"cycle {i}: the connection's child failed"
        lab.unload_module(module)
        assert not lab.module_loaded(module), f"cycle {i}: still loaded after the close"
    figure(f"{module}: load/unload cycles (rmmod refused while in use each time)", n)


def params(module):
    d = f"/sys/module/{module}/parameters"
    if not os.path.isdir(d):
        return {}
    return {p: open(os.path.join(d, p)).read().strip() for p in sorted(os.listdir(d))}


def ranges(module):
    """{param: (lo, hi)} from the modinfo descriptions "(lo..hi", with 0
    when the description also gives 0 a meaning ("...); 0 = ...")."""
    out = {}
    txt = subprocess.run(["modinfo", "-p", lab.module_path(module)], capture_output=True,
                         text=True).stdout
    for line in txt.splitlines():
        name, _, desc = line.partition(":")
        m = re.search(r"\((\d+)\.\.(\d+)", desc)
        if m:
            lo = 0 if re.search(r"\b0 = ", desc) else int(m.group(1))
            out[name] = (lo, int(m.group(2)))
    return out


# (an empty write is no write at all: not in the list)
FIXED = ["0", "1", "2", "-1", "-0", "+1", " 1", "1 ", "1\n", "01", "0x10", "010", "1e3",
         "4", "8", "32", "999", "1000", "1001", "65535", "65536", "2147483647", "2147483648",
         "4294967295", "4294967296", "18446744073709551615", "99999999999999999999999",
         "abc", "reno", "westwood", "min", "srtt", "ceil", "nearest", "lms", "levinson",
         "RENO", "reno\n", "reno ", "y", "n", "true", "\x00", "1\x002", "%s%n", "a" * 4000]


def random_value(r):
    k = r.randrange(4)
    if k == 0:
        return str(r.randrange(-2**40, 2**40))
    if k == 1:
        return str(r.randrange(0, 2000))
    if k == 2:
        return "".join(chr(r.randrange(32, 127)) for _ in range(r.randrange(1, 24)))
    return "".join(chr(r.randrange(1, 256)) for _ in range(r.randrange(1, 12)))


@pytest.mark.parametrize("module", sorted(CCS))
def test_parameters_fuzzed(module, figure):
    """Every writable parameter written with boundary, malformed and random
    strings: a refused write changes no parameter of the module (read
    back); an accepted one reads back inside the documented range."""
    lab.load_module(module)
    r = random.Random(7)
    rng = ranges(module)
    base = params(module)
    writes = refused = 0
    try:
        for p in base:
            path = f"/sys/module/{module}/parameters/{p}"
            if not os.access(path, os.W_OK):
                continue
            for v in FIXED + [random_value(r) for _ in range(stresslib.scaled(PARAM_WRITES))]:
                before = params(module)
                try:
                    with open(path, "wb", buffering=0) as f:
                        f.write(v.encode("latin-1"))
                    ok = True
                except OSError:
                    ok = False
                writes += 1
                after = params(module)
                if not ok:
                    refused += 1
                    assert after == before, f"{p}={v!r} refused but changed {before} -> {after}"
                    continue
                others = {k: x for k, x in after.items() if k != p}
                assert others == {k: x for k, x in before.items() if k != p}, (p, v)
                if p in rng:
                    lo, hi = rng[p]
                    assert lo <= int(after[p]) <= hi, f"{p}={v!r} accepted as {after[p]}"
                with open(path, "w") as f:      # back to the default
                    f.write(base[p])
    finally:
        lab.unload_module(module)
    figure(f"{module}: parameter writes, refused", [writes, refused])
    assert writes > 0 and refused > 0


def test_netns_churn(figure):
    """NETNS_CYCLES namespaces, each created with every module loaded, a
    connection of each congestion control open in it while its
    per-namespace counters are read, then destroyed (a forked child
    unshares it and exits); the modules then unload."""
    for m in CCS:
        lab.load_module(m)
    n = stresslib.scaled(NETNS_CYCLES)
    try:
        for i in range(n):
            read = stresslib.netns_cycle(("spec", "cpecn", "wecn", "tp"), 256 << 10,
                                         ("tcp_spec", "tcp_cpecn", "tcp_wecn", "tcp_tp"))
            assert read > 0, f"cycle {i}: the per-namespace counters read empty"
    finally:
        for m in CCS:
            lab.unload_module(m)
    assert not any(lab.module_loaded(m) for m in CCS)
    figure("network namespaces created and destroyed with the modules' state", n)

#!/usr/bin/env python3
"""`make demo`: boot the distro kernel in the VM, load tcp_spec, and run the
satellite scenario (specnet_bench/satellite.py) for spec and the kernel's own
reno, cubic, bbr, westwood and hybla (every sender asks for ECN) at BER
1e-6, 1e-5 and 5e-5. Prints the goodput table; results JSON, summary
and PNG plot land in results/demo-<date>/ (and results/latest)."""
import argparse
import datetime
import os
import shlex
import sys

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(TOP, "tests", "vm"))
import vm  # noqa: E402


# every flow runs at once, but each (BER, cc) path is built and torn down
# one after the other: 18 paths took 630 s with 120 s flows under TCG, about
# 25 s a path beside the boot and the flows; the timeout gives twice that
PATH_SECONDS = 50


def vm_timeout(seconds, ber, ccs):
    """The demo VM's timeout: the flows' time with a margin, the boot, and
    the set-up and teardown of each (BER, cc) path."""
    paths = len(ber.split(",")) * len(ccs.split(","))
    return seconds * 3 + 600 + PATH_SECONDS * paths


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--seconds", type=int, default=int(os.environ.get("DEMO_SECONDS", 120)))
    ap.add_argument("--ber", default="1e-6,1e-5,5e-5")
    ap.add_argument("--ccs", default="spec,reno,cubic,bbr,westwood,hybla")
    a = ap.parse_args()
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    out = os.path.join(TOP, "results", f"demo-{stamp}")
    py = os.path.join(os.environ.get("VENV", os.path.join(TOP, ".venv")), "bin", "python")
    cmd = (f"insmod build/{a.kernel}/tcp_spec.ko && "
           f"{py} -m specnet_bench.satellite --seconds {a.seconds} --ber {shlex.quote(a.ber)} "
           f"--ccs {shlex.quote(a.ccs)} --out {shlex.quote(out)}")
    print(f"demo: booting {a.kernel} ({'KVM' if vm.kvm_usable(a.kernel) else 'TCG'}) ...", flush=True)
    rc, _ = vm.run(a.kernel, cmd, timeout=vm_timeout(a.seconds, a.ber, a.ccs))
    latest = os.path.join(TOP, "results", "latest")
    if os.path.isdir(out):
        if os.path.islink(latest) or os.path.exists(latest):
            os.unlink(latest)
        os.symlink(os.path.basename(out), latest)
    if os.path.exists(os.path.join(out, "results.json")):
        # the demo's own figures, as the project quotes them
        from specnet_bench import publish
        dest, _ = publish.publish(out, "demo")
        print(f"demo: summary and plot published in {os.path.relpath(dest, TOP)}/")
    return rc


if __name__ == "__main__":
    sys.exit(main())

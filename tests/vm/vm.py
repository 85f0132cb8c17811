#!/usr/bin/env python3
"""specnet VM test bed: run a command as root inside a Debian kernel.

    tests/vm/vm.py --kernel 6.1.0-56-amd64 -- <command...>

boots /boot/vmlinuz-<kernel> with virtme-ng (vng): the host root file system
read-only (9p, with tmpfs overlays on /etc, /var, /tmp ...), the build tree
and results/ writable, and runs <command> in the guest as root from the
repository top. Returns the command's exit code and prints its output.

KVM is used when it works: a one-off probe boot is cached in
build/.kvm-probe (where QEMU's KVM start fails, with "failed to set MSR
0x10a", the guests run under TCG). A boot that fails before the command
ran (no start marker in the output) is retried once.
"""
import argparse
import os
import shlex
import signal
import subprocess
import sys
import threading
import time

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.path.join(TOP, "build")
RESULTS = os.path.join(TOP, "results")
VENV = os.environ.get("VENV", os.path.join(TOP, ".venv"))
VNG = os.path.join(VENV, "bin", "vng")
START = "specnet-vm: command starts"
RC_TAG = "specnet-vm: exit "


def vng_env():
    """vng runs virtme-run from PATH: put the venv's bin first."""
    env = dict(os.environ)
    env["PATH"] = os.path.join(VENV, "bin") + os.pathsep + env.get("PATH", "")
    return env


def qemu_version():
    try:
        out = subprocess.run(["qemu-system-x86_64", "--version"],
                             capture_output=True, text=True).stdout
        return out.splitlines()[0] if out else "unknown"
    except OSError:
        return "missing"


KVM_PROBE_S = 90      # the KVM probe's guest: seconds to print its marker


def kvm_usable(kernel):
    """Probe once whether QEMU can start a KVM guest here; cache the answer."""
    if os.environ.get("SPECNET_KVM") in ("0", "1"):
        return os.environ["SPECNET_KVM"] == "1"
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return False
    cache = os.path.join(BUILD, ".kvm-probe")
    key = qemu_version()
    try:
        with open(cache) as f:
            k, v = f.read().split("\n")[:2]
            if k == key:
                return v == "yes"
    except (OSError, ValueError):
        pass
    marker = "specnet-kvm-ok"
    # vng runs qemu as its child: a timeout that killed vng alone left the
    # probe's guest running, under TCG a core's worth for minutes, beside
    # the guests of the run; the probe gets its own process group, killed
    # whole
    p = subprocess.Popen([VNG, "--run", f"/boot/vmlinuz-{kernel}", "--cpus", "1",
                          "--memory", "512M", "--exec", f"echo {marker}"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                         stdin=subprocess.DEVNULL, env=vng_env(), start_new_session=True)
    try:
        out = p.communicate(timeout=KVM_PROBE_S)[0]
        ok = marker in out
    except subprocess.TimeoutExpired:
        ok = False
    finally:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.communicate()
    os.makedirs(BUILD, exist_ok=True)
    with open(cache, "w") as f:
        f.write(f"{key}\n{'yes' if ok else 'no'}\n")
    return ok


def kernel_params(kernel, boot="/boot"):
    """Parameters the guest's kernel command line gets for @kernel (its
    /boot/config-@kernel): a KASAN kernel boots with `no5lvl`. With
    5-level paging (QEMU's -cpu max has LA57), identify_cpu() zeroes the
    boot CPU's feature bits before reading them again; an interrupt taken
    in that window (under TCG it is long) sees pgtable_l5_enabled() false,
    and KASAN, which sizes its shadow from it, reports the lock of the
    interrupt's descriptor, in the 5-level direct map, as a
    "wild-memory-access" (6.1 and 6.12; seen once in a 6.12 debug guest).
    Nothing of ours depends on the paging depth."""
    try:
        with open(os.path.join(boot, f"config-{kernel}")) as f:
            kasan = any(line.strip() == "CONFIG_KASAN=y" for line in f)
    except OSError:
        kasan = False
    return ["no5lvl"] if kasan else []


def vng_argv(kernel, command, cpus=2, memory="2G", kvm=None, console=False):
    image = f"/boot/vmlinuz-{kernel}"
    if not os.path.exists(image):
        raise SystemExit(f"vm: no kernel image {image} (run: make setup)")
    if kvm is None:
        kvm = kvm_usable(kernel)
    os.makedirs(RESULTS, exist_ok=True)
    os.makedirs(BUILD, exist_ok=True)
    # The guest prints START before the command and RC_TAG<rc> after it, so
    # the host can tell a failed boot from a failed command.
    # SETUPTOOLS_USE_DISTUTILS=stdlib: setuptools' distutils shim (a .pth
    # in the venv) otherwise answers Mininet's `import distutils` by
    # importing setuptools' own copy, ~1500 stat()s over the guest's 9p
    # root: 9 s of every Python process that imports Mininet under TCG.
    inner = (f"cd {shlex.quote(TOP)} && export SETUPTOOLS_USE_DISTUTILS=stdlib && "
             f"echo '{START}' && ( {command} ); echo '{RC_TAG}'$?")
    argv = [VNG, "--run", image, "--cpus", str(cpus), "--memory", memory,
            "--rwdir", BUILD, "--rwdir", RESULTS, "--cwd", TOP,
            "--exec", inner]
    if not kvm:
        argv.insert(3, "--disable-kvm")
    params = kernel_params(kernel)
    if params:
        argv[3:3] = ["--append", " ".join(params)]
    if console:
        # the kernel console (vng sends it to stderr with --verbose)
        argv.insert(3, "--verbose")
    return argv, kvm


def console_tail(path, lines=80):
    """The end of the guest's kernel console, for a guest that died."""
    try:
        with open(path, errors="replace") as f:
            tail = f.read().splitlines()[-lines:]
    except OSError:
        return ""
    return "".join(f"console: {line}\n" for line in tail)


def process_tree(pid):
    """@pid and its descendants, from /proc (parents first)."""
    kids = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        kids.setdefault(ppid, []).append(int(d))
    out, todo = [], [pid]
    while todo:
        p = todo.pop(0)
        out.append(p)
        todo += kids.get(p, [])
    return out


def kill_tree(p):
    """SIGKILL to @p and all it started (vng, QEMU, their children). They
    stay in the caller's process group, so that a Ctrl-C at the terminal
    still reaches the guest."""
    for pid in process_tree(p.pid):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def run(kernel, command, timeout=1800, cpus=None, memory="2G", stream=True,
        log=None, retries=1, console=None):
    """Run @command in a guest booted on @kernel. Returns (rc, output).
    @console: a file for the guest's kernel console (boot messages, oopses,
    panics); its tail is added to the output when the guest dies."""
    for attempt in range(retries + 1):
        if cpus is None:
            # one vCPU under TCG: with two (one host thread each, QEMU 7.2)
            # a vCPU sometimes ran a stale int3 that the other had just
            # written while patching a static key (text_poke_bp), and the
            # guest died with "Oops: int3" in unrelated code (6.12, about
            # one boot in five that flips keys)
            cpus = 2 if kvm_usable(kernel) else 1
        argv, kvm = vng_argv(kernel, command, cpus, memory, console=bool(console))
        t0 = time.monotonic()
        out = []
        p = None
        expired = threading.Event()
        try:
            err = open(console, "w") if console else subprocess.STDOUT
            p = subprocess.Popen(argv, stdout=subprocess.PIPE,
                                 stderr=err, text=True,
                                 stdin=subprocess.DEVNULL, errors="replace",
                                 env=vng_env())
            if console:
                err.close()
            # the deadline holds when the guest prints nothing (a hung
            # guest, a test waiting forever), not only between lines; it
            # kills vng and the QEMU under it together (QEMU alone would
            # keep the pipe open)
            timer = threading.Timer(timeout, lambda: (expired.set(), kill_tree(p)))
            timer.daemon = True
            timer.start()
            try:
                for line in p.stdout:
                    out.append(line)
                    if stream:
                        sys.stdout.write(line)
                        sys.stdout.flush()
                    if log:
                        log.write(line)
                p.wait()
            finally:
                timer.cancel()
            if expired.is_set():
                out.append(f"vm: timeout after {timeout}s\n")
                if stream:
                    sys.stdout.write(out[-1])
                if log:
                    log.write(out[-1])
        except OSError as e:
            out.append(f"vm: cannot start vng: {e}\n")
        finally:
            if p is not None and p.poll() is None:    # interrupted: no guest left behind
                kill_tree(p)
                p.wait()
        text = "".join(out)
        if START in text:
            rc = 255
            for line in reversed(text.splitlines()):
                if line.startswith(RC_TAG):
                    rc = int(line[len(RC_TAG):].strip() or 255)
                    break
            else:
                text += "vm: guest ended without an exit status (crash or timeout)\n"
                if console:
                    text += console_tail(console)
                    text += f"vm: kernel console: {console}\n"
            return rc, text
        msg = (f"vm: boot of {kernel} failed ({'kvm' if kvm else 'tcg'}, "
               f"{time.monotonic() - t0:.0f}s)"
               f"{', retrying once' if attempt < retries else ''}\n")
        sys.stderr.write(msg)
        if log:
            log.write(msg)
    return 255, text


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernel", required=True, help="kernel release, e.g. 6.1.0-56-amd64")
    ap.add_argument("--timeout", type=int, default=1800)
    ap.add_argument("--cpus", type=int, default=None,
                    help="vCPUs (default: 2 with KVM, 1 under TCG)")
    ap.add_argument("--memory", default="2G")
    ap.add_argument("--console", help="write the guest's kernel console to this file")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    if not cmd:
        ap.error("no command")
    rc, _ = run(a.kernel, " ".join(shlex.quote(c) for c in cmd) if len(cmd) > 1 else cmd[0],
                timeout=a.timeout, cpus=a.cpus, memory=a.memory,
                console=a.console)
    return rc


if __name__ == "__main__":
    sys.exit(main())

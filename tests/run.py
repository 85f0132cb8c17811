#!/usr/bin/env python3
"""specnet test runner (`make test`).

Host part: build the modules for every kernel, W=1 + sparse check, host unit
tests of the shared headers (C) and of the Python tools (pytest). VM part:
for each supported kernel, boot it (tests/vm/vm.py) and run the integration
suite (tests/integration, pytest) inside with that kernel's modules.

Prints one summary line per part and a final `N passed, N failed` line;
exits non-zero on any failure. The counts are of tests: pytest tests, and
the C unit tests' cases (tests/unit/check.h; their CHECK() lines are a
separate figure in the part's line). A part that tested nothing (pytest
collected nothing, every test skipped, no case ran) is a failure.
"""
import argparse
import concurrent.futures
import glob
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
BUILD = os.path.join(TOP, "build")
sys.path.insert(0, os.path.join(TOP, "tests", "vm"))
import vm  # noqa: E402

PY = sys.executable
# s, the integration suite of one kernel in its guest: about 1700 s measured
# with both guests side by side on 2 cores, and over 2100 s seen on a busier
# host of the same kind
VM_SUITE_TIMEOUT = 3000
SUITE_TIMEOUT = {"integration": VM_SUITE_TIMEOUT, "stress": 7200}
# the stress suite's guest time at STRESS_SCALE=1 without the soak, with
# room (about 3 h measured on a debug kernel under TCG), and the soak's
# 30 minutes at SOAK_SCALE=1
STRESS_S_AT_SCALE_1, SOAK_S_AT_SCALE_1 = 6 * 3600, 1800


def suite_timeout(suite, scale=1.0, soak=1.0):
    """How long the guest may run @suite: the stress suite's grows with its
    scales (a documented-scale run is hours), never under the base."""
    if suite != "stress":
        return SUITE_TIMEOUT[suite]
    return max(SUITE_TIMEOUT[suite],
               int(3600 + STRESS_S_AT_SCALE_1 * scale + SOAK_S_AT_SCALE_1 * soak))


def stress_select(select):
    """The -k expression of a stress run of the parts @select: the memory
    check that ends the suite (kmemleak, the slab) runs after any part."""
    return f"({select}) or test_zz_memory" if select else ""


def archive_stress_run(kdir, files, stamp):
    """Copy a stress run's @files (those that exist: its results, kernel
    log and console log) from @kdir to kdir/stress-runs/@stamp, where
    tests/stress/report.py merges the runs of one code (a documented-scale
    run may be made part by part)."""
    dest = os.path.join(kdir, "stress-runs", stamp)
    os.makedirs(dest, exist_ok=True)
    for f in files:
        if os.path.exists(f):
            shutil.copy(f, dest)
    return dest
parts = []          # (name, passed, failed, skipped, seconds, note)
failures = []       # "part: test: first line of its message", printed last


def part(name, passed, failed, skipped=0, secs=0.0, note="", xfailed=0, out=None):
    """One summary line; expected failures (pytest xfail, strict) are
    counted with the skipped ones in the totals and named here. With @out
    (a list) the line is appended there instead of printed."""
    parts.append((name, passed, failed, skipped, secs, note))
    extra = f", {skipped} skipped" if skipped else ""
    if xfailed:
        extra += f" ({xfailed} of them expected failures)"
    line = f"== {name}: {passed} passed, {failed} failed{extra} ({secs:.0f}s){' ' + note if note else ''}"
    if out is not None:
        out.append(line)
    else:
        print(line, flush=True)


def sh(cmd, log):
    with open(log, "w") as f:
        p = subprocess.run(cmd, shell=True, cwd=TOP, stdout=f, stderr=subprocess.STDOUT)
    return p.returncode


# The host parts that need no guest (the checks and the unit tests) run
# beside the guests once the modules are built, at this nice value: the
# guests' flows are timed and under TCG each guest takes a core, where the
# host parts only need to finish (run first, they would hold both guests
# back by the minute they take). niced() is the prefix of their commands:
# "" when they run alone.
HOST_NICE = 10
host_prefix = []


def niced(cmd):
    """@cmd (a shell string or an argv list) at the host parts' priority."""
    if isinstance(cmd, str):
        return " ".join(host_prefix + [cmd])
    return host_prefix + list(cmd)


def host_parts(nice):
    """The checks and the host unit tests at nice @nice (a thread beside the
    guests: os.nice() would lower the whole runner, its guests' qemu too)."""
    host_prefix[:] = ["nice", "-n", str(nice)] if nice else []
    try:
        host_check()
        host_unit()
    finally:
        host_prefix[:] = []


def tail(path, n=40):
    try:
        with open(path) as f:
            return "".join(f.readlines()[-n:])
    except OSError:
        return ""


def host_build(kernels):
    t0 = time.monotonic()
    ok = fail = 0
    for k in kernels:
        log = os.path.join(BUILD, f"build-{k}.log")
        os.makedirs(BUILD, exist_ok=True)
        if sh(f"make --no-print-directory KVER={k} modules", log) == 0:
            ok += 1
        else:
            fail += 1
            print(tail(log))
    log = os.path.join(BUILD, "build-userspace.log")
    if sh("make --no-print-directory userspace", log) == 0:
        ok += 1
    else:
        fail += 1
        print(tail(log))
    part("build (modules for each kernel, userspace)", ok, fail, secs=time.monotonic() - t0)
    return fail == 0


def host_check():
    t0 = time.monotonic()
    log = os.path.join(BUILD, "check.log")
    rc = sh(niced("make --no-print-directory check"), log)
    if rc:
        print(tail(log))
    text = open(log).read()
    n = len(re.findall(r"W=1 \+ sparse clean", text)) + len(re.findall(r"checkpatch --strict: clean", text))
    part("check (W=1 + sparse, checkpatch --strict)", n, 1 if rc else 0, secs=time.monotonic() - t0)


def c_unit_run(src, out_dir):
    """Compile and run one tests/unit/test_*.c: (name, the compiler's
    CompletedProcess, the test's, None when it did not compile)."""
    name = os.path.splitext(os.path.basename(src))[0]
    exe = os.path.join(out_dir, name)
    cc = (f"gcc -std=gnu11 -O2 -g -Wall -Wextra -Werror -fsanitize=address,undefined "
          f"-I{TOP}/kernel/include -o {exe} {src} -lm")
    cp = subprocess.run(niced(cc), shell=True, capture_output=True, text=True)
    if cp.returncode:
        return name, cp, None
    return name, cp, subprocess.run(niced([exe]), capture_output=True, text=True)


def host_unit():
    host_unit_c(os.path.join(TOP, "tests", "unit"), os.path.join(BUILD, "unit"))
    host_unit_py()


def host_unit_c(unit_dir, out_dir):
    """The host unit part (C): every @unit_dir/test_*.c, compiled into
    @out_dir and run, as many at once as there are cores; reported in
    their names' order."""
    t0 = time.monotonic()
    os.makedirs(out_dir, exist_ok=True)
    passed = failed = checks_passed = checks_failed = 0
    srcs = sorted(glob.glob(os.path.join(unit_dir, "test_*.c")))
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        runs = list(pool.map(lambda src: c_unit_run(src, out_dir), srcs))
    for name, cp, p in runs:
        if cp.returncode:
            print(f"{name}: compile failed\n{cp.stderr}")
            failures.append(f"host unit (C, shared headers): {name}: compile failed")
            failed += 1
            continue
        c = c_verdict(name, p.returncode, p.stdout)
        if c[1]:
            failures.append(f"host unit (C, shared headers): {name}: "
                            + (c[4] or f"{c[1]} case(s) failed"))
        if c[4]:
            print(f"{name}: {c[4]}\n{p.stdout[-4000:]}{p.stderr[-4000:]}")
        elif c[1]:
            print(p.stdout[-4000:], p.stderr[-4000:])
        passed += c[0]
        failed += c[1]
        checks_passed += c[2]
        checks_failed += c[3]
    note = f"({checks_passed} checks" + (f", {checks_failed} failed)" if checks_failed else ")")
    part("host unit (C, shared headers)", passed, failed, secs=time.monotonic() - t0, note=note)


def host_unit_py():
    t0 = time.monotonic()
    host_py = os.path.join(TOP, "tests", "host")
    if os.path.isdir(host_py):
        junit = os.path.join(BUILD, "host-junit.xml")
        if os.path.exists(junit):
            os.unlink(junit)
        p = subprocess.run(niced([PY, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                  f"--junitxml={junit}", host_py]), cwd=TOP,
                           capture_output=True, text=True)
        cases = junit_cases(junit)
        c = part_verdict(p.returncode, junit_counts(cases))
        if c[4]:
            print(p.stdout[-4000:], p.stderr[-4000:])
        elif c[1]:
            print(p.stdout[-8000:])
        name = "host unit (Python tools)"
        note_failures(name, cases, c[4])
        part(name, *c[:3], secs=time.monotonic() - t0, xfailed=c[3], note=c[4])


# What the kernel prints when it finds a defect: sanitizers (KASAN, UBSAN,
# KFENCE), lockdep, the might_sleep() check, kmemleak, BUG()/WARN(), an
# oops, refcount and list corruption. Any of them in a guest's log fails
# the run, printed whole.
KERNEL_REPORT = re.compile(
    r"BUG: |WARNING: |KASAN: |UBSAN: |KFENCE: |kmemleak: \d+ new suspected memory leak|"
    r"unreferenced object 0x|"
    r"possible circular locking|possible recursive locking|inconsistent lock state|"
    r"sleeping function called from invalid context|general protection fault|"
    r"Oops: |refcount_t: |list_(?:add|del) corruption|RCU detected stall|"
    r"hung_task|soft lockup|hard LOCKUP")
KERNEL_REPORT_LINES = 120


def kernel_reports(path):
    """The defect reports in the kernel log @path, each from its first line
    to its "---[ end trace" line or its sanitizer's closing rule of "="
    (at most KERNEL_REPORT_LINES lines, and never into the next report). A log
    that cannot be read is a report too: nothing would be checked."""
    try:
        with open(path, errors="replace") as f:
            lines = f.read().splitlines()
    except OSError as e:
        return [f"kernel log not readable: {e}"]
    out, i = [], 0
    while i < len(lines):
        if KERNEL_REPORT.search(lines[i]):
            j = i + 1       # to its end line, a sanitizer's ===== rule, or the next report
            while (j < len(lines) and j - i < KERNEL_REPORT_LINES and
                   not KERNEL_REPORT.search(lines[j])):
                j += 1
                if "---[ end trace" in lines[j - 1] or lines[j - 1].rstrip().endswith("=" * 20):
                    break
            out.append("\n".join(lines[i:j]))
            i = j
        else:
            i += 1
    return out


def console_reports(console, known):
    """The defect reports in the guest's console log @console (kernel
    lines only: those starting with a timestamp) whose first line is not
    among @known's: a guest that dies in an oops stops before `dmesg -w`
    writes it, the console has it. [] when there is no console log."""
    if not console or not os.path.exists(console):
        return []
    seen = {r.splitlines()[0].strip() for r in known}
    return [r for r in kernel_reports(console)
            if re.match(r"\[\s*\d+\.\d+\]", r) and r.splitlines()[0].strip() not in seen]


# A report the emulator makes, not the kernel under test: x86's #DB
# handler warns when a single-step trap (DR6.BS) arrives in kernel mode,
# where only kprobes and KGDB single-step, and its comment names QEMU as a
# known cause (arch/x86/kernel/traps.c, exc_debug_kernel()). A TCG guest
# can take such a trap with no debugger attached; nothing in this project
# sets EFLAGS.TF. Such a report is printed whole and counted apart; it
# fails nothing.
EMULATOR_ARTIFACT = re.compile(
    r"WARNING: CPU: \d+ PID: \d+ at arch/x86/kernel/traps\.c:\d+ exc_debug_kernel\+")


def split_artifacts(reports):
    """@reports (kernel_reports()) split into (defects, emulator artifacts):
    a report whose first line matches EMULATOR_ARTIFACT is an artifact."""
    defects, artifacts = [], []
    for r in reports:
        (artifacts if EMULATOR_ARTIFACT.search(r.splitlines()[0]) else defects).append(r)
    return defects, artifacts


def guest_reports(dmesg, console):
    """A guest's defect reports: those of its kernel log @dmesg, and those
    only the kernel lines of its console log @console have."""
    reports = kernel_reports(dmesg)
    return reports, console_reports(console, reports)


def kernel_log_part(kernel, dmesg, out, console=None, label="kernel log"):
    """One part per guest: its kernel log, and the kernel lines of its
    console log (@console), hold no defect report; the part is named
    "vm <kernel> (<label>)"."""
    reports, from_console = guest_reports(dmesg, console)
    artifacts = []
    for path, rs in ((dmesg, reports), (console, from_console)):
        defects, apart = split_artifacts(rs)
        for r in defects:
            out.append(f"kernel report in {os.path.relpath(path, TOP)}:\n{r}")
        for r in apart:
            out.append(f"emulator artifact (not counted: EMULATOR_ARTIFACT in tests/run.py) "
                       f"in {os.path.relpath(path, TOP)}:\n{r}")
        artifacts += apart
    reports = split_artifacts(reports + from_console)[0]
    ok = not reports
    if reports:
        failures.append(f"vm {kernel} ({label}): {reports[0].splitlines()[0].strip()}"
                        + (f" (and {len(reports) - 1} more)" if len(reports) > 1 else ""))
    note = "no report" if ok else f"{len(reports)} report(s)"
    if artifacts:
        note += f", {len(artifacts)} emulator artifact(s)"
    part(f"vm {kernel} ({label})", int(ok), int(not ok), note=note, out=out)


CASES_LINE = r"^{}: (\d+) passed, (\d+) failed$"
CHECKS_LINE = r"^{}: checks: (\d+) passed, (\d+) failed$"


def c_verdict(name, rc, out):
    """The verdict on the C unit-test binary @name (tests/unit/check.h) from
    its exit code @rc and its output @out: (cases passed, cases failed,
    checks passed, checks failed, why). The counts are the binary's closing
    lines `<name>: N passed, N failed` (test cases) and `<name>: checks: N
    passed, N failed` (CHECK()s). why is "" when they stand; otherwise it
    says what makes the binary a failure, counted as one more failed case:
    no result line, an exit code that is not 0 with no failed case (a
    sanitizer, a crash), no case run."""
    cases = re.findall(CASES_LINE.format(re.escape(name)), out, re.M)
    checks = re.findall(CHECKS_LINE.format(re.escape(name)), out, re.M)
    if not cases or not checks:
        return 0, 1, 0, 0, f"no result line (exit {rc})"
    passed, failed = map(int, cases[-1])
    checks_passed, checks_failed = map(int, checks[-1])
    why = ""
    if not passed and not failed:
        why = f"no test case ran (exit {rc})"
    elif rc and not failed:
        why = f"exit {rc} with no failed case"
    return passed, failed + (1 if why else 0), checks_passed, checks_failed, why


def part_verdict(rc, counts):
    """The verdict on one pytest run from its exit code @rc and the counts
    of its junit file (junit_counts(): passed, failed, skipped, xfailed; None
    without a readable file): (passed, failed, skipped, xfailed, why). why is
    "" when the counts stand; otherwise it says what makes the run a
    failure, counted as one more failed test: no results, nothing collected
    (pytest exit 5), no test case, every test skipped, or an exit code that
    disagrees with the counts (pytest exits 0 when all passed, 1 when some
    failed; 2-4 are interruptions and usage or internal errors)."""
    if counts is None:
        return 0, 1, 0, 0, f"no results (exit {rc})"
    passed, failed, skipped, xfailed = counts
    why = ""
    if rc == 5:
        why = "nothing collected (pytest exit 5)"
    elif not passed and not failed and not skipped:
        why = f"no test case in the results (exit {rc})"
    elif not passed and not failed:
        why = f"every test skipped (exit {rc})"
    elif rc not in (0, 1):
        why = f"exit {rc}"
    elif rc == 1 and not failed:
        why = "exit 1 with no failed test"
    return passed, failed + (1 if why else 0), skipped, xfailed, why


def junit_cases(path):
    """The testcase elements of a junit file, None if it is missing or bad."""
    try:
        return list(ET.parse(path).getroot().iter("testcase"))
    except (OSError, ET.ParseError):
        return None


def junit_failures(cases):
    """The failed and errored tests of junit test cases, each as
    "module::name: first line of its message"."""
    out = []
    for tc in cases or ():
        bad = [c for c in tc if c.tag in ("failure", "error")]
        if bad:
            msg = (bad[0].get("message") or bad[0].text or "").strip().splitlines()
            name = f"{tc.get('classname', '').rsplit('.', 1)[-1]}::{tc.get('name', '?')}"
            out.append(f"{name}: {msg[0][:200] if msg else bad[0].tag}")
    return out


def note_failures(name, cases, why):
    """Adds the failures of part @name to the closing list: its failed
    tests (junit @cases) and @why, what failed the run as a whole."""
    failures.extend(f"{name}: {f}" for f in junit_failures(cases))
    if why:
        failures.append(f"{name}: {why}")


# a test's verdict line in pytest -v output: "path::name PASSED [ 12%]"
PROGRESS_LINE = re.compile(r"^(\S+\.py::.+?) (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\b", re.M)


def pytest_progress(text):
    """What a pytest -v run that left no junit file (a guest killed at its
    deadline, or dead) had reported before it stopped: (passed, failed,
    skipped, the failed tests, the last test that ended or "")."""
    seen = PROGRESS_LINE.findall(text)
    passed = sum(v in ("PASSED", "XPASS") for _, v in seen)
    bad = [n for n, v in seen if v in ("FAILED", "ERROR")]
    skipped = sum(v in ("SKIPPED", "XFAIL") for _, v in seen)
    return passed, len(bad), skipped, bad, seen[-1][0] if seen else ""


def junit_counts(cases):
    if cases is None:
        return None
    passed = failed = skipped = xfailed = 0
    for tc in cases:
        kinds = {child.tag for child in tc}
        if kinds & {"failure", "error"}:
            failed += 1
        elif "skipped" in kinds:
            skipped += 1
            xfailed += any(c.get("type") == "pytest.xfail" for c in tc)
        else:
            passed += 1
    return passed, failed, skipped, xfailed


def junit_slowest(cases, n=8):
    """The @n slowest of junit test cases, as 'name Ns' words."""
    timed = sorted(((float(tc.get("time") or 0), tc.get("name", "?")) for tc in cases or ()),
                   reverse=True)
    return ", ".join(f"{name} {t:.0f}s" for t, name in timed[:n])


def tree_commit():
    """HEAD's short hash, with " (modified)" when the tree differs from it
    outside the results: the bench records' own (specnet_lab.git_commit())."""
    from specnet_bench import specnet_lab
    return specnet_lab.git_commit(TOP)


# paths that do not change what a stress guest runs or what it reports: a
# run made in parts merges across commits that only touched these. The
# integration suite's test modules are listed one by one: the stress suite
# loads its conftest and test_specd.py (tests/stress/*.py name them; a host
# test keeps the two lists apart)
NOT_CODE = ("docs/", "README.md", "CHANGELOG.md", "man/", "tests/host/", "tests/run.py",
            "tests/stress/report.py", "tests/integration/test_bench.py",
            "tests/integration/test_cpecn.py", "tests/integration/test_redopt.py",
            "tests/integration/test_spec.py", "tests/integration/test_tp.py")


def tree_code(commit="HEAD"):
    """An identity of the code a run at @commit measures: the hashes of
    its files other than NOT_CODE's, hashed together (12 hex digits); ""
    when git cannot say (no such commit)."""
    p = subprocess.run(["git", "-C", TOP, "ls-tree", "-r", commit],
                       capture_output=True, text=True)
    if p.returncode or not p.stdout.strip():
        return ""
    kept = [ln for ln in p.stdout.splitlines()
            if not ln.split("\t", 1)[-1].startswith(NOT_CODE)]
    return hashlib.sha1("\n".join(kept).encode()).hexdigest()[:12]


def kernel_source(kernel):
    """Which build of @kernel a run used: the debug kernel's cache entry
    (scripts/debug-kernel.sh: series and Debian source version, e.g.
    "6.1-6.1.192-3"), else the Debian package's version; "" when neither
    can be had."""
    tree = os.path.realpath(f"/lib/modules/{kernel}/build")
    if os.path.exists(os.path.join(os.path.dirname(tree), ".specnet-built")):
        return os.path.basename(os.path.dirname(tree))
    p = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", f"linux-image-{kernel}"],
                       capture_output=True, text=True)
    return p.stdout.strip() if p.returncode == 0 else ""


# the most quiet tests of one guest taken again alone: more failures than
# this are not a busy host's, and they stand
QUIET_AGAIN_MAX = 6


def junit_key(nodeid):
    """A pytest node id ("tests/integration/test_spec.py::test_x[a]") as
    its junit testcase's (classname, name)."""
    path, _, name = nodeid.partition("::")
    return path[:-3].replace("/", "."), name


def quiet_failed(path):
    """The node ids tests/integration/conftest.py wrote to @path (the quiet
    tests that failed), each once, in their order; [] without the file."""
    try:
        with open(path) as f:
            return list(dict.fromkeys(ln.strip() for ln in f if ln.strip()))
    except OSError:
        return []


def defer_quiet(rc, cases, failed_ids):
    """The quiet tests of a run beside the other guest to take again alone:
    (the node ids, the run's cases without them, the exit code those cases
    would have had). None are deferred when the run did not end with its
    verdicts (@rc not 0 or 1, no junit @cases), or when more than
    QUIET_AGAIN_MAX of them failed."""
    if cases is None or rc not in (0, 1) or not failed_ids or len(failed_ids) > QUIET_AGAIN_MAX:
        return [], cases, rc
    keys = {junit_key(n) for n in failed_ids}
    kept = [tc for tc in cases if (tc.get("classname"), tc.get("name")) not in keys]
    if len(kept) == len(cases):
        return [], cases, rc
    still = any(c.tag in ("failure", "error") for tc in kept for c in tc)
    return failed_ids, kept, 1 if still else 0


def vm_suite(kernel, select, suite="integration", again=None):
    """The @suite (tests/<suite>) in a guest on @kernel; returns what to
    print, so that suites run side by side print whole, and the node ids
    of the quiet tests that failed, to be taken again alone. With @again
    (node ids) only those tests run, alone on the host, in files of
    their own ("-again")."""
    t0 = time.monotonic()
    out = []
    kdir = os.path.join(BUILD, kernel)
    os.makedirs(kdir, exist_ok=True)
    tag = "-again" if again else ""
    junit = os.path.join(kdir, ("vm-junit" if suite == "integration" else f"vm-{suite}")
                         + f"{tag}.xml")
    figures = os.path.join(kdir, f"figures-{suite}{tag}.json")
    quiet = os.path.join(kdir, f"quiet-failed-{suite}.txt")
    for old in (junit, figures, quiet):
        if os.path.exists(old):
            os.unlink(old)
    if suite == "stress":
        select = stress_select(select)
    sel = f" -k {select!r}" if select else ""
    # the kernel log goes to build/<release>/dmesg.log as it is written, so an
    # oops is on the host even when the guest dies
    dmesg = os.path.join(kdir, f"dmesg{tag}.log")
    scale = os.environ.get("STRESS_SCALE")
    soak = os.environ.get("SOAK_SCALE") or scale
    env = ""
    if suite == "stress":
        env = "".join(f"{k}={float(v)} " for k, v in (("STRESS_SCALE", scale),
                                                      ("SOAK_SCALE", soak)) if v)
    # the code this run measures, its scale and parts, for the report
    # written after it (tests/stress/report.py)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    run_json = os.path.join(kdir, f"vm-{suite}{tag}.run.json")
    with open(run_json, "w") as f:
        json.dump({"commit": tree_commit(), "code": tree_code(), "scale": float(scale or 1),
                   "soak_scale": float(soak or 1), "select": select, "started": stamp,
                   "kernel_source": kernel_source(kernel)}, f)
    timeout = suite_timeout(suite, float(scale or 1), float(soak or 1))
    env += f"SPECNET_FIGURES={figures} "
    if again:
        what = " ".join(shlex.quote(n) for n in again)
    else:
        what = f"tests/{suite}"
        env += f"SPECNET_QUIET_FAILED={quiet} "
    cmd = (f"(dmesg -w > {dmesg} 2>&1 &) ; "
           f"{env}{PY} -m pytest -p no:cacheprovider -rfE -v --tb=short "
           f"--junitxml={junit}{sel if not again else ''} {what}")
    log_path = os.path.join(kdir, f"vm{tag}.log")
    console = os.path.join(kdir, f"console{tag}.log")
    with open(log_path, "w") as log:
        rc, text = vm.run(kernel, cmd, timeout=timeout, stream=False, log=log,
                          console=console)
    if suite == "stress":
        archive_stress_run(kdir, (junit, figures, dmesg, run_json, console), stamp)
    cases = junit_cases(junit)
    deferred, kept, rc = defer_quiet(rc, cases, [] if again else quiet_failed(quiet))
    first = junit_failures([tc for tc in cases if tc not in kept]) if deferred else []
    cases = kept
    # every test the guest ran deferred (a -k run of quiet tests): the part
    # has nothing of its own to judge, and the retry counts them
    c = (0, 0, 0, 0, "") if deferred and not kept else part_verdict(rc, junit_counts(cases))
    note = f"log: {os.path.relpath(log_path, TOP)}"
    if deferred:
        note = f"{len(deferred)} quiet test(s) failed beside the other guest, taken again alone; " \
            + note
        out.extend(f"   first try {kernel}: {f}" for f in first)
    name = f"vm {kernel} ({suite}{', taken again alone' if again else ''})"
    if cases is None:
        out.append(text[-12000:])
        why = (f"vm timeout after {timeout} s" if "vm: timeout after" in text
               else f"vm exit {rc}")
        # what the guest reported before it stopped still counts; the
        # stop itself is one more failure
        passed, nfailed, skipped, bad, last = pytest_progress(text)
        c = (passed, nfailed + 1, skipped, 0, why)
        failures.extend(f"{name}: {b}" for b in bad)
        failures.append(f"{name}: {why}, {passed + nfailed + skipped} test(s) ended before it"
                        + (f", the last {last}" if last else ""))
        note = f"no junit results ({why}; counted from the log); " + note
    else:
        if c[1]:
            out.append(text[-12000:])
        if c[4]:
            note = f"{c[4]}; " + note
        note_failures(name, cases, c[4])
    part(name, *c[:3], secs=time.monotonic() - t0, note=note, xfailed=c[3], out=out)
    kernel_log_part(kernel, dmesg, out, console=console,
                    label="kernel log, taken again" if again else "kernel log")
    slow = junit_slowest(cases)
    if slow:
        out.append(f"   slowest {kernel}: {slow}")
    try:
        with open(figures) as f:
            for k, v in json.load(f).items():
                out.append(f"   figure {kernel}: {k} = {v}")
    except (OSError, ValueError):
        pass
    return "\n".join(out), deferred


def vm_jobs(kernels, jobs):
    """How many guests run at once: each TCG guest has one vCPU (vm.py) and
    keeps one host core busy, a KVM guest has two; never more guests than
    cores, so that a guest's timing is not disturbed by the other."""
    if jobs:
        return max(1, min(jobs, len(kernels)))
    per_vm = 2 if kernels and vm.kvm_usable(kernels[0]) else 1
    return max(1, min(len(kernels), (os.cpu_count() or 1) // per_vm))


def vm_suites(kernels, select, jobs, suite="integration"):
    """The @suite of every kernel, @jobs guests at once; returns the quiet
    tests that failed there, per kernel, to be taken again alone."""
    again = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
        futs = {ex.submit(vm_suite, k, select, suite): k for k in kernels}
        for f in concurrent.futures.as_completed(futs):
            text, deferred = f.result()
            print(text, flush=True)
            if deferred:
                again[futs[f]] = deferred
    return again


def vm_again(again, suite="integration"):
    """The quiet tests of @again (kernel: node ids) taken again, one guest
    at a time with nothing else running: a quiet test fails beside the
    other guest when the host slows its shaped link, and its verdict is
    the one it gets alone."""
    for k, ids in again.items():
        print(vm_suite(k, "", suite, again=ids)[0], flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernels", default="", help="space-separated releases")
    ap.add_argument("--host-only", action="store_true")
    ap.add_argument("-k", dest="select", default="", help="pytest -k expression for the VM suite")
    ap.add_argument("--suite", default="integration", choices=sorted(SUITE_TIMEOUT),
                    help="the VM suite: tests/integration (make test) or tests/stress "
                         "(make stress)")
    ap.add_argument("-j", "--jobs", type=int, default=0,
                    help="guests at once (default: as many as the cores allow)")
    a = ap.parse_args()
    kernels = a.kernels.split() or vm_kernels()
    t0 = time.monotonic()
    if not kernels:
        print("no supported kernel with headers installed (run: make setup)")
        part("kernels", 0, 1)
    built = host_build(kernels) if kernels else False
    if a.host_only or not built:
        host_parts(0)
        if not a.host_only:
            for k in kernels:
                part(f"vm {k} ({a.suite})", 0, 1, note="not run: build failed")
    else:
        jobs = vm_jobs(kernels, a.jobs)
        print(f"== vm suites: {len(kernels)} kernels, {jobs} at a time; the host "
              f"parts beside them at nice {HOST_NICE}", flush=True)
        with concurrent.futures.ThreadPoolExecutor(1) as ex:
            host = ex.submit(host_parts, HOST_NICE)
            again = vm_suites(kernels, a.select, jobs, a.suite)
            host.result()
        vm_again(again, a.suite)
    passed = sum(p[1] for p in parts)
    failed = sum(p[2] for p in parts)
    skipped = sum(p[3] for p in parts)
    for p in parts:     # a failed part that named no test (the build, the checks)
        if p[2] and not any(f.startswith(p[0] + ":") for f in failures):
            failures.append(f"{p[0]}: {p[2]} failed{' (' + p[5] + ')' if p[5] else ''}")
    if failures:
        # last, where a log's tail shows them
        print(f"\nfailed ({len(failures)}):")
        for f in failures:
            print(f"  {f}")
    print(f"\nmake test: {len(parts)} parts in {time.monotonic() - t0:.0f}s")
    print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
    return 1 if failed else 0


def vm_kernels():
    out = subprocess.run(["make", "-s", "--no-print-directory", "-C", TOP, "print-kvers"],
                         capture_output=True, text=True).stdout.split()
    return out


if __name__ == "__main__":
    sys.exit(main())

"""Host tests of the test runner's verdicts (tests/run.py): a part that
tested nothing is a failure, and the C unit tests count cases, not CHECK()
lines. Synthetic junit files and binary outputs, plus the harness
tests/unit/check.h itself compiled into small programs.
"""
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import threading

import pytest

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def load_run():
    spec = importlib.util.spec_from_file_location("specnet_run",
                                                  os.path.join(TOP, "tests", "run.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


run = load_run()


def junit_xml(testcases):
    """A junit document as pytest writes it, of @testcases (elements as text)."""
    return ('<?xml version="1.0" encoding="utf-8"?><testsuites>'
            f'<testsuite name="pytest" tests="{len(testcases)}">{"".join(testcases)}'
            '</testsuite></testsuites>')


def junit(tmp_path, cases):
    """A junit file as pytest writes it, with @cases testcase bodies."""
    path = tmp_path / "junit.xml"
    path.write_text(junit_xml([f'<testcase classname="t" name="t{i}" time="0.1">{c}</testcase>'
                               for i, c in enumerate(cases)]))
    return str(path)


def verdict(tmp_path, rc, cases):
    return run.part_verdict(rc, run.junit_counts(run.junit_cases(junit(tmp_path, cases))))


SKIP = '<skipped type="pytest.skip" message="no vng">x</skipped>'
XFAIL = '<skipped type="pytest.xfail" message="known">x</skipped>'
FAIL = '<failure message="assert 0">x</failure>'
ERROR = '<error message="fixture">x</error>'


# ---- pytest parts ----

def test_passing_run_stands(tmp_path):
    assert verdict(tmp_path, 0, ["", "", "", SKIP]) == (3, 0, 1, 0, "")


def test_failing_run_stands(tmp_path):
    assert verdict(tmp_path, 1, ["", FAIL, ERROR, XFAIL]) == (1, 2, 1, 1, "")


def test_zero_testcases_fail(tmp_path):
    p, f, s, x, why = verdict(tmp_path, 0, [])
    assert (p, f, s) == (0, 1, 0)
    assert "no test case" in why


def test_nothing_collected_fails(tmp_path):
    # pytest exit 5 writes a junit file without testcases
    p, f, s, x, why = verdict(tmp_path, 5, [])
    assert (p, f, s) == (0, 1, 0)
    assert "exit 5" in why


def test_exit_5_fails_whatever_the_file_says(tmp_path):
    assert verdict(tmp_path, 5, [""])[1] == 1


def test_all_skipped_fails(tmp_path):
    p, f, s, x, why = verdict(tmp_path, 0, [SKIP, SKIP, XFAIL])
    assert (p, f, s, x) == (0, 1, 3, 1)
    assert "every test skipped" in why


def test_one_pass_among_skips_stands(tmp_path):
    assert verdict(tmp_path, 0, [SKIP, "", SKIP]) == (1, 0, 2, 0, "")


def test_missing_junit_fails(tmp_path):
    counts = run.junit_counts(run.junit_cases(str(tmp_path / "none.xml")))
    assert counts is None
    p, f, s, x, why = run.part_verdict(2, counts)
    assert (p, f, s) == (0, 1, 0)
    assert "no results" in why


def test_broken_junit_fails(tmp_path):
    path = tmp_path / "junit.xml"
    path.write_text("<testsuites><testsuite>")
    assert run.part_verdict(0, run.junit_counts(run.junit_cases(str(path))))[1] == 1


@pytest.mark.parametrize("rc", [2, 3, 4, 255])
def test_exit_code_without_failures_fails(tmp_path, rc):
    p, f, s, x, why = verdict(tmp_path, rc, ["", ""])
    assert (p, f) == (2, 1)
    assert f"exit {rc}" in why


def test_exit_1_without_failed_test_fails(tmp_path):
    assert verdict(tmp_path, 1, ["", ""])[1] == 1


# ---- C unit-test binaries ----

def c_out(name, cases, checks, *, fails=()):
    lines = [f"FAIL tests/unit/{name}.c:10 (test_a): x == 1: {m}" for m in fails]
    lines.append(f"{name}: checks: {checks[0]} passed, {checks[1]} failed")
    lines.append(f"{name}: {cases[0]} passed, {cases[1]} failed")
    return "\n".join(lines) + "\n"


def test_c_counts_cases_not_checks():
    out = c_out("test_tp", (12, 0), (8185, 0))
    assert run.c_verdict("test_tp", 0, out) == (12, 0, 8185, 0, "")


def test_c_failed_cases_and_checks():
    out = c_out("test_tp", (10, 2), (8180, 5), fails=["a", "b"])
    assert run.c_verdict("test_tp", 1, out) == (10, 2, 8180, 5, "")


def test_c_line_order_does_not_matter():
    out = "test_x: 3 passed, 1 failed\ntest_x: checks: 40 passed, 2 failed\n"
    assert run.c_verdict("test_x", 1, out)[:4] == (3, 1, 40, 2)


def test_c_check_messages_are_not_result_lines():
    # a failed CHECK whose message looks like a result line
    out = ("FAIL tests/unit/test_x.c:3 (test_a): n == 0: test_x: 99 passed, 0 failed\n"
           + c_out("test_x", (1, 1), (5, 1)))
    assert run.c_verdict("test_x", 1, out)[:2] == (1, 1)


def test_c_other_suite_lines_ignored():
    out = c_out("test_y", (5, 0), (50, 0))
    p, f, cp, cf, why = run.c_verdict("test_x", 0, out)
    assert (p, f) == (0, 1)
    assert "no result line" in why


def test_c_old_single_line_is_no_result():
    # the harness before cases: one line of CHECK counts
    p, f, cp, cf, why = run.c_verdict("test_tp", 0, "test_tp: 8906 passed, 0 failed\n")
    assert (p, f) == (0, 1)
    assert "no result line" in why


def test_c_no_output_fails():
    p, f, cp, cf, why = run.c_verdict("test_x", -11, "")
    assert (p, f) == (0, 1)
    assert "exit -11" in why


def test_c_nonzero_exit_without_failed_case_fails():
    # e.g. a sanitizer report at exit, after the closing lines
    p, f, cp, cf, why = run.c_verdict("test_x", 1, c_out("test_x", (6, 0), (15, 0)))
    assert (p, f, cp, cf) == (6, 1, 15, 0)
    assert "exit 1" in why


def test_c_no_case_fails():
    p, f, cp, cf, why = run.c_verdict("test_x", 1, c_out("test_x", (0, 0), (0, 0)))
    assert (p, f) == (0, 1)
    assert "no test case" in why


# ---- the harness, tests/unit/check.h ----

HARNESS = r'''
#include "check.h"
static void test_good(void) { CHECK(1 == 1, "one"); CHECK(2 > 1, "two"); }
static void test_bad(void) { CHECK(1 == 1, "one"); CHECK(1 == 2, "two %d", 2); }
static void test_empty(void) { }
int main(int argc, char **argv)
{
	(void)argv;
	RUN(test_good);
	if (argc > 1)
		RUN(test_bad);
	if (argc > 2)
		RUN(test_empty);
	if (argc > 3)
		CHECK(1, "outside");
	return check_done("test_h");
}
'''


@pytest.fixture(scope="module")
def harness(tmp_path_factory):
    if not shutil.which("gcc"):
        pytest.skip("no gcc")
    d = tmp_path_factory.mktemp("harness")
    src = d / "test_h.c"
    src.write_text(HARNESS)
    exe = d / "test_h"
    p = subprocess.run(["gcc", "-std=gnu11", "-Wall", "-Wextra", "-Werror",
                        f"-I{TOP}/tests/unit", "-o", str(exe), str(src)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return str(exe)


def harness_run(exe, nargs):
    p = subprocess.run([exe] + ["x"] * nargs, capture_output=True, text=True, timeout=10)
    return p.returncode, p.stdout


def test_harness_passing(harness):
    rc, out = harness_run(harness, 0)
    assert rc == 0
    assert out.splitlines()[-2:] == ["test_h: checks: 2 passed, 0 failed",
                                     "test_h: 1 passed, 0 failed"]
    assert run.c_verdict("test_h", rc, out) == (1, 0, 2, 0, "")


def test_harness_failed_check_fails_its_case(harness):
    rc, out = harness_run(harness, 1)
    assert rc == 1
    assert "FAIL" in out and "(test_bad): 1 == 2: two 2" in out
    assert run.c_verdict("test_h", rc, out) == (1, 1, 3, 1, "")


def test_harness_case_without_checks_fails(harness):
    rc, out = harness_run(harness, 2)
    assert rc == 1
    assert "FAILED test_empty: no check made" in out
    assert run.c_verdict("test_h", rc, out)[:4] == (1, 2, 3, 1)


def test_harness_check_outside_case_fails(harness):
    rc, out = harness_run(harness, 3)
    assert rc == 1
    assert "checks outside any test case" in out
    assert run.c_verdict("test_h", rc, out)[:4] == (1, 3, 4, 1)


LOG_CLEAN = """[    0.000000] Linux version 6.1.0-56-amd64
[    0.938130] kasan: KernelAddressSanitizer initialized
[    1.405721] rcu: 	RCU lockdep checking is enabled.
[   12.345678] tcp_spec: registered (spec, spec-reno)
[   13.000000] sch_redopt: limit 51 packets
[   17.936648] kmemleak: Kernel memory leak detector initialized (mem pool available: 35778)
[   18.000000] kmemleak: Automatic memory scanning thread started
"""
LOG_KMEMLEAK = LOG_CLEAN + """[  900.0] kmemleak: 3 new suspected memory leaks (see /sys/kernel/debug/kmemleak)
"""
LOG_WARN = LOG_CLEAN + """[   14.000000] ------------[ cut here ]------------
[   14.000001] WARNING: CPU: 0 PID: 1234 at net/ipv4/tcp_input.c:2900 tcp_fastretrans_alert+0x1/0x2
[   14.000002] Modules linked in: tcp_spec(OE)
[   14.000003] Call Trace:
[   14.000004]  <IRQ>
[   14.000005] ---[ end trace 0000000000000000 ]---
[   15.000000] after the report
"""
LOG_KASAN = LOG_CLEAN + """[   16.0] ==================================================================
[   16.1] BUG: KASAN: slab-use-after-free in redopt_enqueue+0x10/0x20 [sch_redopt]
[   16.2] Read of size 4 at addr ffff888000000000 by task ping/99
"""


def test_clean_kernel_log_has_no_report(tmp_path):
    p = tmp_path / "dmesg.log"
    p.write_text(LOG_CLEAN)
    assert run.kernel_reports(str(p)) == []


def test_warning_reported_whole(tmp_path):
    p = tmp_path / "dmesg.log"
    p.write_text(LOG_WARN)
    r = run.kernel_reports(str(p))
    assert len(r) == 1
    assert r[0].startswith("[   14.000001] WARNING: CPU: 0")
    assert "Call Trace:" in r[0] and r[0].endswith("---[ end trace 0000000000000000 ]---")
    assert "after the report" not in r[0]


def test_kmemleak_report_but_not_its_banner(tmp_path):
    """A debug kernel's boot banners (kmemleak, KASAN, lockdep) are no
    report; kmemleak's count of new suspects is."""
    p = tmp_path / "dmesg.log"
    p.write_text(LOG_KMEMLEAK)
    r = run.kernel_reports(str(p))
    assert len(r) == 1 and "3 new suspected memory leaks" in r[0], r


def test_kasan_and_unreadable_log_reported(tmp_path):
    p = tmp_path / "dmesg.log"
    p.write_text(LOG_KASAN + LOG_WARN)
    r = run.kernel_reports(str(p))
    assert len(r) == 2 and "KASAN: slab-use-after-free" in r[0], r
    assert run.kernel_reports(str(tmp_path / "missing.log"))[0].startswith("kernel log not")


# The x86 #DB handler's warning on a single-step trap in kernel mode, as a
# TCG guest printed it (6.12): an emulator artifact, not a defect.
LOG_DB_STEP = LOG_CLEAN + """[ 1759.102790] ------------[ cut here ]------------
[ 1759.102796] WARNING: CPU: 0 PID: 7620 at arch/x86/kernel/traps.c:1120 exc_debug_kernel+0xca/0x160
[ 1759.102800] Modules linked in: sch_redopt(OE) tcp_spec(OE)
[ 1759.102810] RIP: 0010:exc_debug_kernel+0xca/0x160
[ 1759.102820] ---[ end trace 0000000000000000 ]---
"""


def test_kernel_log_part_counts_the_emulators_single_step_trap_apart(tmp_path):
    """The #DB handler's single-step warning is printed whole and fails
    nothing; a real warning beside it still fails the part, and the same
    warning from any other place is a defect."""
    p = tmp_path / "dmesg.log"
    p.write_text(LOG_DB_STEP)
    out = []
    run.kernel_log_part("k", str(p), out)
    assert run.parts[-1][1:3] == (1, 0), out
    assert "no report, 1 emulator artifact(s)" in out[-1], out
    assert any(o.startswith("emulator artifact") and "exc_debug_kernel+0xca" in o
               for o in out), out
    out = []
    p.write_text(LOG_DB_STEP + LOG_WARN[len(LOG_CLEAN):])
    run.kernel_log_part("k", str(p), out)
    assert run.parts[-1][1:3] == (0, 1) and "1 report(s), 1 emulator artifact(s)" in out[-1], out
    out = []
    p.write_text(LOG_DB_STEP.replace("exc_debug_kernel+0xca", "exc_debug_user+0xca"))
    run.kernel_log_part("k", str(p), out)
    assert run.parts[-1][1:3] == (0, 1), out


def test_kernel_log_part_fails_on_a_report(tmp_path):
    p = tmp_path / "dmesg.log"
    p.write_text(LOG_WARN)
    out = []
    run.kernel_log_part("k", str(p), out)
    assert run.parts[-1][1:3] == (0, 1) and "WARNING: CPU: 0" in out[0], out
    p.write_text(LOG_CLEAN)
    run.kernel_log_part("k", str(p), out)
    assert run.parts[-1][1:3] == (1, 0)


def test_kernel_log_part_reads_the_console_of_a_guest_that_died(tmp_path):
    """A guest that dies in an oops stops before `dmesg -w` writes it: the
    console log has it; one that is in both counts once."""
    d, c = tmp_path / "dmesg.log", tmp_path / "console.log"
    d.write_text(LOG_CLEAN)
    c.write_text("[ 1455.161440] traps: PANIC: double fault, error_code: 0x0\n"
                 "[ 1455.164175] Oops: double fault: 0000 [#1] PREEMPT SMP NOPTI\n"
                 "[ 1455.166236] RIP: 0010:kmem_cache_alloc_node_noprof+0x70/0x330\n"
                 "[ 1455.172910] ---[ end trace 0000000000000000 ]---\n"
                 "pytest: WARNING: not a kernel line\n")
    out = []
    run.kernel_log_part("k", str(d), out, console=str(c))
    assert run.parts[-1][1:3] == (0, 1) and "Oops: double fault" in out[0], out
    assert "console.log" in out[0] and len(out) == 2, out
    d.write_text("".join(c.read_text().splitlines(True)[:4]))     # the kernel lines
    out = []
    run.kernel_log_part("k", str(d), out, console=str(c))
    assert run.parts[-1][-1] == "1 report(s)", run.parts[-1]
    run.kernel_log_part("k", str(d), out, console=str(tmp_path / "none.log"))
    assert run.parts[-1][1:3] == (0, 1)


# ---- what a guest that stopped early reported, and the closing list -----

VM_LOG = """specnet-vm: command starts
tests/integration/test_a.py::test_one PASSED [  1%]
tests/integration/test_a.py::test_two[x-y's_case] FAILED [  2%]
tests/integration/test_a.py::test_three SKIPPED (no module) [  3%]
tests/integration/test_b.py::test_four PASSED [  4%]
figure: test_b.py::test_four PASSED is not a verdict line
vm: timeout after 3000s
"""


def test_progress_of_a_stopped_run():
    p = run.pytest_progress(VM_LOG)
    assert p == (2, 1, 1, ["tests/integration/test_a.py::test_two[x-y's_case]"],
                 "tests/integration/test_b.py::test_four"), p
    assert run.pytest_progress("vm: boot failed\n") == (0, 0, 0, [], "")


def test_junit_failures_named_with_their_message(tmp_path):
    cases = run.junit_cases(junit(tmp_path, [
        "", '<failure message="AssertionError: share 0.72&#10;assert 0.72 &lt;= 0.6">x</failure>',
        '<error message="">fixture broke</error>', "<skipped/>"]))
    assert run.junit_failures(cases) == ["t::t1: AssertionError: share 0.72",
                                         "t::t2: fixture broke"]
    assert run.junit_failures(None) == []


def test_timed_out_guest_counts_what_ended_and_fails(tmp_path, monkeypatch):
    """A guest stopped at its deadline leaves no junit file: the tests its
    log shows ended still count, the stop is one more failure, and the
    closing list names the failed test, the stop and the last test."""
    monkeypatch.setattr(run, "BUILD", str(tmp_path))
    monkeypatch.setattr(run, "failures", [])
    monkeypatch.setattr(run.vm, "run", lambda *a, **k: (255, VM_LOG))
    out = run.vm_suite("k1", "")[0]
    name, passed, failed, skipped = run.parts[-2][:4]     # the kernel log part is last
    assert (name, passed, failed, skipped) == ("vm k1 (integration)", 2, 2, 1), run.parts[-2]
    assert "vm timeout after 3000 s" in out
    assert run.failures[0] == ("vm k1 (integration): "
                               "tests/integration/test_a.py::test_two[x-y's_case]")
    assert run.failures[1].startswith("vm k1 (integration): vm timeout after 3000 s, 4 test(s) "
                                      "ended before it, the last tests/integration/test_b.py::"
                                      "test_four"), run.failures
    assert run.failures[2].startswith("vm k1 (kernel log): kernel log not readable")


def test_vm_deadline_holds_when_the_guest_is_silent(monkeypatch):
    """The deadline kills a guest that prints nothing (and what it
    started), instead of waiting for a line that never comes."""
    import time
    monkeypatch.setattr(run.vm, "vng_argv",
                        lambda *a, **k: (["bash", "-c", "sleep 60 & sleep 60"], False))
    t0 = time.monotonic()
    rc, text = run.vm.run("k", "true", timeout=2, stream=False, retries=0, cpus=1)
    assert time.monotonic() - t0 < 15, text
    assert rc == 255 and "vm: timeout after 2s" in text, text


def test_a_kasan_kernel_boots_without_5_level_paging(tmp_path, monkeypatch):
    """A KASAN kernel's guest gets `no5lvl` on its command line (a false
    KASAN report at boot with 5-level paging: vm.kernel_params()); a
    kernel without KASAN, such as Debian's, gets nothing."""
    (tmp_path / "config-9.9-debug").write_text("CONFIG_X86_5LEVEL=y\nCONFIG_KASAN=y\n")
    (tmp_path / "config-9.9-prod").write_text("# CONFIG_KASAN is not set\n")
    assert run.vm.kernel_params("9.9-debug", boot=str(tmp_path)) == ["no5lvl"]
    assert run.vm.kernel_params("9.9-prod", boot=str(tmp_path)) == []
    assert run.vm.kernel_params("9.9-none", boot=str(tmp_path)) == []
    import glob
    images = sorted(glob.glob("/boot/vmlinuz-*-amd64"))
    assert images, "make setup installs Debian's kernels"
    kernel = images[0][len("/boot/vmlinuz-"):]
    assert run.vm.kernel_params(kernel) == [], "Debian's kernels have no KASAN"
    argv, _ = run.vm.vng_argv(kernel, "true", kvm=False)
    assert "--append" not in argv
    monkeypatch.setattr(run.vm, "kernel_params", lambda k: ["no5lvl"])
    argv, _ = run.vm.vng_argv(kernel, "true", kvm=False)
    i = argv.index("--append")
    assert argv[i + 1] == "no5lvl" and i < argv.index("--exec"), argv


def test_host_unit_c_runs_each_test_reports_in_order(tmp_path, monkeypatch, capsys):
    """The C part compiles and runs its tests side by side and reports them
    in their names' order: a passing one, a failing one, one that does not
    compile; the part's line counts each as the harness does."""
    if not shutil.which("gcc"):
        pytest.skip("no gcc")
    check_h = os.path.join(TOP, "tests", "unit", "check.h")
    body = HARNESS.replace('"check.h"', f'"{check_h}"')
    (tmp_path / "test_b.c").write_text(body.replace("argc > 1", "argc > 0")
                                       .replace('"test_h"', '"test_b"'))
    (tmp_path / "test_a.c").write_text(body.replace('"test_h"', '"test_a"'))
    (tmp_path / "test_c.c").write_text("int main(void) { return nope; }\n")
    parts, failures = [], []
    monkeypatch.setattr(run, "parts", parts)
    monkeypatch.setattr(run, "failures", failures)
    run.host_unit_c(str(tmp_path), str(tmp_path / "out"))
    out = capsys.readouterr().out
    assert parts[0][:3] == ("host unit (C, shared headers)", 2, 2), parts
    assert parts[0][5] == "(5 checks, 1 failed)", parts
    assert failures == ["host unit (C, shared headers): test_b: 1 case(s) failed",
                        "host unit (C, shared headers): test_c: compile failed"], failures
    assert out.index("(test_bad): 1 == 2") < out.index("test_c: compile failed"), out


def test_host_parts_run_beside_the_guests_niced(monkeypatch):
    """Once the modules are built, the checks and the host unit tests run
    beside the guests, their commands under `nice -n HOST_NICE`; the guests
    do not wait for them. With --host-only, or after a failed build, they run
    alone at the runner's own priority and no guest starts (after a failed
    build each kernel's VM part counts as failed)."""
    seen, guests = [], threading.Event()

    def check_waiting_for_the_guests():
        seen.append(("check", run.niced("make check")))
        assert guests.wait(5), "the guests waited for the host parts"

    def check():
        seen.append(("check", run.niced("make check")))

    def unit():
        seen.append(("unit", run.niced(["pytest", "tests/host"])))

    def vm_suites(kernels, select, jobs, suite):
        seen.append(("vm", tuple(kernels)))
        guests.set()
        return {}

    built = [True]
    monkeypatch.setattr(run, "host_build", lambda kernels: built[0])
    monkeypatch.setattr(run, "host_check", check_waiting_for_the_guests)
    monkeypatch.setattr(run, "host_unit", unit)
    monkeypatch.setattr(run, "vm_suites", vm_suites)
    monkeypatch.setattr(run, "vm_jobs", lambda kernels, jobs: 2)
    monkeypatch.setattr(run, "parts", [])
    monkeypatch.setattr(run, "failures", [])
    monkeypatch.setattr(sys, "argv", ["run.py", "--kernels", "k1 k2"])
    assert run.main() == 0
    nice = ["nice", "-n", str(run.HOST_NICE)]
    assert sorted(seen) == [("check", " ".join(nice + ["make check"])),
                            ("unit", nice + ["pytest", "tests/host"]),
                            ("vm", ("k1", "k2"))], seen
    assert run.niced("make check") == "make check"      # the runner's own again

    monkeypatch.setattr(run, "host_check", check)
    seen.clear()
    monkeypatch.setattr(sys, "argv", ["run.py", "--kernels", "k1 k2", "--host-only"])
    assert run.main() == 0
    assert seen == [("check", "make check"), ("unit", ["pytest", "tests/host"])], seen

    seen.clear()
    built[0] = False
    monkeypatch.setattr(sys, "argv", ["run.py", "--kernels", "k1 k2"])
    assert run.main() == 1
    assert seen == [("check", "make check"), ("unit", ["pytest", "tests/host"])], seen
    assert [p[:3] for p in run.parts[-2:]] == [("vm k1 (integration)", 0, 1),
                                               ("vm k2 (integration)", 0, 1)], run.parts


# ---- quiet tests taken again alone ----

QUIET_ID = "tests/integration/test_spec.py::test_full[a]"


def case(nodeid, body=""):
    """The junit testcase of pytest node @nodeid, with @body."""
    cls, name = run.junit_key(nodeid)
    return f'<testcase classname="{cls}" name="{name}" time="1">{body}</testcase>'


def fake_guest(tmp_path, monkeypatch, cases, quiet_ids=(), rc=1):
    """vm.run as a guest that writes @cases (testcase elements) as the
    junit file its command names and @quiet_ids to the quiet tests' file
    when the command names one; returns the commands it was given."""
    cmds = []

    def fake(kernel, cmd, **kw):
        cmds.append(cmd)
        with open(re.search(r"--junitxml=(\S+)", cmd).group(1), "w") as f:
            f.write(junit_xml(cases))
        open(re.search(r"dmesg -w > (\S+)", cmd).group(1), "w").close()
        quiet = re.search(r"SPECNET_QUIET_FAILED=(\S+)", cmd)
        if quiet:
            with open(quiet.group(1), "w") as f:
                f.write("".join(i + "\n" for i in quiet_ids) * 2)    # setup and call
        return rc, ""
    monkeypatch.setattr(run, "BUILD", str(tmp_path))
    monkeypatch.setattr(run, "failures", [])
    monkeypatch.setattr(run, "parts", [])
    monkeypatch.setattr(run.vm, "run", fake)
    return cmds


OTHER = case("tests/integration/test_spec.py::test_ok")
LOUD_FAIL = case("tests/integration/test_spec.py::test_loud", FAIL)


def quiet_case(body=""):
    return case(QUIET_ID, body)


def test_a_failed_quiet_test_is_taken_again_alone_and_its_verdict_stands(tmp_path,
                                                                         monkeypatch):
    """A quiet test that failed beside the other guest leaves the suite's
    counts and is taken again alone, by its node id; the retry's verdict
    is counted, a failure as much as a pass, and the first try is shown."""
    cmds = fake_guest(tmp_path, monkeypatch, [OTHER, quiet_case(FAIL)], [QUIET_ID])
    out, again = run.vm_suite("k1", "")
    assert again == [QUIET_ID]
    assert run.parts[-2][:3] == ("vm k1 (integration)", 1, 0), run.parts
    assert "1 quiet test(s) failed beside the other guest" in run.parts[-2][5]
    assert "first try k1: test_spec::test_full[a]: assert 0" in out
    assert run.failures == []
    assert "SPECNET_QUIET_FAILED=" in cmds[0] and "tests/integration" in cmds[0]
    for body, verdict in ((FAIL, (0, 1)), ("", (1, 0))):
        cmds = fake_guest(tmp_path, monkeypatch, [quiet_case(body)], rc=1 if body else 0)
        run.vm_again({"k1": again})
        assert run.parts[-2][:3] == ("vm k1 (integration, taken again alone)",) + verdict
        assert run.parts[-1][0] == "vm k1 (kernel log, taken again)"
        assert cmds[0].endswith(" " + "'" + QUIET_ID + "'")
        assert "SPECNET_QUIET_FAILED" not in cmds[0]
        assert len(run.failures) == verdict[1]
        assert all("test_full[a]" in f for f in run.failures)


def test_a_failed_test_not_quiet_is_not_taken_again(tmp_path, monkeypatch):
    """Only the quiet tests the guest listed are deferred: another failure
    in the same run stands, and the exit code stays a failure's."""
    fake_guest(tmp_path, monkeypatch, [LOUD_FAIL, quiet_case(FAIL)], [QUIET_ID])
    out, again = run.vm_suite("k1", "")
    assert again == [QUIET_ID]
    assert run.parts[-2][:3] == ("vm k1 (integration)", 0, 1), run.parts
    assert run.failures == ["vm k1 (integration): test_spec::test_loud: assert 0"]


def test_a_run_of_only_quiet_tests_that_failed_counts_them_once(tmp_path, monkeypatch):
    """-k selected one quiet test and it failed beside the other guest: the
    first part has nothing left to judge (0 passed, 0 failed, not "no test
    case", which would count the test a second time), the retry counts it."""
    fake_guest(tmp_path, monkeypatch, [quiet_case(FAIL)], [QUIET_ID])
    out, again = run.vm_suite("k1", "quiet")
    assert again == [QUIET_ID]
    assert run.parts[-2][:3] == ("vm k1 (integration)", 0, 0), run.parts
    assert run.failures == []
    fake_guest(tmp_path, monkeypatch, [quiet_case(FAIL)], rc=1)
    run.vm_again({"k1": again})
    assert run.parts[-2][:3] == ("vm k1 (integration, taken again alone)", 0, 1)
    assert len(run.failures) == 1


def test_quiet_failures_are_not_deferred_past_the_limit_or_from_a_broken_run(tmp_path):
    """More than QUIET_AGAIN_MAX quiet failures, a guest without junit
    results, or an exit code that is not a verdict's: nothing is deferred."""
    ids = [f"tests/integration/test_spec.py::test_{i}" for i in range(run.QUIET_AGAIN_MAX + 1)]
    path = tmp_path / "junit.xml"
    path.write_text(junit_xml([case(i, FAIL) for i in ids]))
    cases = run.junit_cases(str(path))
    assert run.defer_quiet(1, cases, ids) == ([], cases, 1)
    assert run.defer_quiet(1, cases, ids[:2])[0] == ids[:2]
    assert run.defer_quiet(1, cases, ids[:2])[1] == cases[2:]
    assert run.defer_quiet(2, cases, ids[:2]) == ([], cases, 2)
    assert run.defer_quiet(1, None, ids[:2]) == ([], None, 1)

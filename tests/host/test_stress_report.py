"""Host tests of how a stress run is kept and reported: tests/run.py's
stress helpers (the guest's time limit grows with the scales, the memory
check runs after any part, each run archived) and tests/stress/report.py's
merge of the runs of one commit, on synthetic run directories."""
import importlib.util
import json
import os
import re
import subprocess

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, os.path.join(TOP, path))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


run = load("specnet_run", "tests/run.py")
report = load("specnet_stress_report", "tests/stress/report.py")
KERNEL = "9.9.9-specnet-test"       # no /boot/config: checkers unknown


def stress_run(kdir, start, commit, cases, figures, dmesg="", select="", scale=1.0, code=None,
               console=None):
    """One archived run: @cases {name: None (passed) or failure message}."""
    d = kdir / "stress-runs" / start
    d.mkdir(parents=True)
    body = "".join(f'<testcase classname="test_x" name="{n}" time="1">'
                   + ("" if why is None else f'<failure message="{why}">x</failure>')
                   + "</testcase>" for n, why in cases.items())
    (d / "vm-stress.xml").write_text(f'<testsuites><testsuite name="pytest">{body}'
                                     "</testsuite></testsuites>")
    (d / "figures-stress.json").write_text(json.dumps(figures))
    (d / "dmesg.log").write_text(dmesg)
    if console is not None:
        (d / "console.log").write_text(console)
    (d / "vm-stress.run.json").write_text(json.dumps(
        {"commit": commit, "scale": scale, "soak_scale": scale, "select": select,
         "started": start, **({"code": code} if code else {})}))


def write_report(tmp_path):
    out = tmp_path / "reliability.md"
    rc = report.main([KERNEL], build=str(tmp_path / "build"), out=str(out),
                     archive=str(tmp_path / "archive"))
    return rc, out.read_text()


def test_runs_are_kept_in_the_repository_and_merge_across_machines(tmp_path):
    """A run's meta, verdicts, figures and kernel reports are copied into
    the archive (docs/results/stress-runs), the log is not; a later part
    made where build/ no longer holds the first (another machine) merges
    with the copy; a modified tree's run is not copied; runs of older code
    leave the archive; the fuzz summary outlives build/ too."""
    kdir = tmp_path / "build" / KERNEL
    adir = tmp_path / "archive" / KERNEL
    stress_run(kdir, "20260101T000000Z", "old1234", {"test_a": None}, {"test_a: n": 7777777},
               code="c0de00000000")
    stress_run(kdir, "20260102T000000Z", "abc1234", {"test_a": None}, {"test_a: n": 40},
               dmesg="[ 1.0] netlink: 4 bytes leftover after parsing attributes\n",
               code="c0de11111111")
    fz = tmp_path / "build" / "fuzz"
    fz.mkdir(parents=True)
    (fz / "summary.txt").write_text("fuzz_x: 99 executions, 0 crashes\n")
    rc, text = write_report(tmp_path)
    assert rc == 0
    kept = adir / "20260102T000000Z"
    assert sorted(os.listdir(kept)) == ["figures-stress.json", "kernel-reports.json",
                                        "vm-stress.run.json", "vm-stress.xml"]
    assert json.loads((kept / "kernel-reports.json").read_text()) == []
    assert not (adir / "20260101T000000Z").exists(), "a run of older code leaves the archive"
    # another machine: build/ is gone; a part of the same code runs there
    import shutil
    shutil.rmtree(tmp_path / "build")
    stress_run(kdir, "20260103T000000Z", "def5678", {"test_b": None}, {"test_b: n": 200},
               code="c0de11111111")
    stress_run(kdir, "20260104T000000Z", "def5678 (modified)", {"test_c": None}, {})
    rc, text = write_report(tmp_path)
    assert "Run at commit def5678 (modified)" in text
    assert not (adir / "20260104T000000Z").exists(), "a modified tree's run is not kept"
    assert (adir / "20260103T000000Z").is_dir()
    shutil.rmtree(kdir / "stress-runs" / "20260104T000000Z")
    rc, text = write_report(tmp_path)
    assert rc == 0
    assert "Merged from 2 runs of one code at commits abc1234, def5678" in text
    assert "| test_a: n | 40 |" in text and "| test_b: n | 200 |" in text
    assert "fuzz_x: 99 executions, 0 crashes" in text and "`make fuzz` run that ended" in text
    # a kernel report survives in the copy, without the log
    (adir / "20260103T000000Z" / "kernel-reports.json").write_text(
        json.dumps(["BUG: KASAN: use-after-free in redopt_change"]))
    rc, text = write_report(tmp_path)
    assert rc == 1 and "BUG: KASAN: use-after-free in redopt_change" in text


def test_a_guest_that_died_keeps_its_console_report(tmp_path):
    """A guest that dies in an oops never writes it to dmesg -w's file:
    the report is taken from the kernel lines of its console log, kept in
    the copy, and fails the report; a report in both logs counts once."""
    kdir = tmp_path / "build" / KERNEL
    oops = ("[  812.5] Oops: general protection fault: 0000 [#1] PREEMPT SMP KASAN\n"
            "[  812.5] RIP: 0010:redopt_enqueue+0x40/0x300 [sch_redopt]\n"
            "[  812.6] ---[ end trace 0000000000000000 ]---\n")
    warn = ("[  100.0] WARNING: CPU: 0 PID: 1 at net/sched/sch_api.c:1 x\n"
            "[  100.1] ---[ end trace 0000000000000001 ]---\n")
    stress_run(kdir, "20260102T000000Z", "abc1234", {"test_a": None}, {}, code="c0de11111111",
               dmesg="[  1.0] booted\n" + warn,
               console="test_a PASSED\n[  1.0] booted\n" + warn + oops)
    rc, text = write_report(tmp_path)
    kept = tmp_path / "archive" / KERNEL / "20260102T000000Z"
    assert "console.log" not in os.listdir(kept), "the logs are not kept"
    reports = json.loads((kept / "kernel-reports.json").read_text())
    assert [r.splitlines()[0] for r in reports] == [warn.splitlines()[0], oops.splitlines()[0]]
    assert rc == 1 and "redopt_enqueue+0x40/0x300" in text


def test_runs_of_one_commit_merge_part_by_part(tmp_path):
    kdir = tmp_path / "build" / KERNEL
    stress_run(kdir, "20260101T000000Z", "old1234", {"test_a": None}, {"test_a: n": 7777777})
    stress_run(kdir, "20260102T000000Z", "abc1234",
               {"test_a": None, "test_b": "slab grew", "test_zz_memory": None},
               {"test_a: n": 40, "test_b: n": 5}, scale=0.2)
    stress_run(kdir, "20260103T000000Z", "abc1234", {"test_b": None, "test_zz_memory": None},
               {"test_b: n": 200}, select="(test_b) or test_zz_memory")
    rc, text = write_report(tmp_path)
    assert rc == 0
    assert "Merged from 2 runs at commit abc1234" in text
    assert "Stress suite: 3 passed, 0 failed, 0 skipped." in text
    assert "* failed in the earlier run 20260102T000000Z: `test_b`: slab grew" in text
    assert "| test_b: n | 200 |" in text and "| test_a: n | 40 |" in text
    assert "7777777" not in text, "a run of another commit is not merged"
    assert "`STRESS_SCALE=0.2`" in text and "`(test_b) or test_zz_memory`" in text


def test_runs_of_one_code_merge_across_docs_commits(tmp_path):
    kdir = tmp_path / "build" / KERNEL
    stress_run(kdir, "20260101T000000Z", "fff0000", {"test_a": None}, {"test_a: n": 7777777},
               code="c0de00000000")
    stress_run(kdir, "20260102T000000Z", "abc1234", {"test_a": None}, {"test_a: n": 40},
               code="c0de11111111")
    stress_run(kdir, "20260103T000000Z", "def5678", {"test_b": None}, {"test_b: n": 200},
               code="c0de11111111")
    rc, text = write_report(tmp_path)
    assert rc == 0
    assert "Merged from 2 runs of one code at commits abc1234, def5678" in text
    assert "| test_a: n | 40 |" in text and "| test_b: n | 200 |" in text
    assert "7777777" not in text, "a run of other code is not merged"


def test_not_code_holds_no_module_a_stress_guest_runs():
    """The integration test modules NOT_CODE lists are ones the stress
    suite never loads: no tests/stress file and no module it loads from
    tests/integration (stresslib.load(..., "../integration/X")) names them,
    so a change to one cannot change what a stress run measured."""
    listed = [p for p in run.NOT_CODE if p.startswith("tests/integration/")]
    assert listed and all(p.endswith(".py") for p in listed), listed
    stress = os.path.join(TOP, "tests", "stress")
    texts = {}
    for name in os.listdir(stress):
        if name.endswith(".py") and name != "report.py":
            texts[name] = open(os.path.join(stress, name)).read()
    loaded = {m for t in texts.values()
              for m in re.findall(r"\.\./integration/([\w.]+\.py)", t)}
    assert "conftest.py" in loaded and "test_specd.py" in loaded, loaded
    for m in loaded:
        texts[f"integration/{m}"] = open(os.path.join(TOP, "tests", "integration", m)).read()
    for p in listed:
        mod = os.path.basename(p)[:-3]
        users = [n for n, t in texts.items() if re.search(rf"\b{mod}\b", t)]
        assert not users, f"{p} is in NOT_CODE but the stress suite loads it: {users}"


def test_code_identity_ignores_docs_and_host_tests(tmp_path, monkeypatch):
    """tree_code() on a real repository: a commit that touches docs, man
    pages, host tests or the reporting keeps the identity; one that
    touches the kernel code or a stress test changes it."""
    repo = tmp_path / "repo"

    def commit(files):
        for name, text in files.items():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            (repo / name).write_text(text)
        for cmd in (["add", "-A"], ["commit", "-qm", "x"]):
            subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c",
                            "user.email=t@t", *cmd], check=True)
        return subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], check=True,
                              capture_output=True, text=True).stdout.strip()
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    monkeypatch.setattr(run, "TOP", str(repo))
    a = commit({"kernel/a.c": "1", "tests/stress/test_x.py": "1", "docs/d.md": "1"})
    b = commit({"docs/d.md": "2", "README.md": "2", "man/x.8": "2",
                "tests/host/test_h.py": "2", "tests/run.py": "2"})
    c = commit({"tests/stress/test_x.py": "3"})
    d = commit({"kernel/a.c": "4"})
    codes = [run.tree_code(x) for x in (a, b, c, d)]
    assert all(len(x) == 12 for x in codes), codes
    assert codes[0] == codes[1], "docs, man pages, host tests and run.py are not code"
    assert len(set(codes[1:])) == 3, "a stress test or the kernel code is"
    assert run.tree_code("0" * 40) == ""
    # and the report compares runs by their commits' identity
    assert report.same_code({"commit": a[:7]}, {"commit": b[:7]}, run)
    assert not report.same_code({"commit": b[:7]}, {"commit": c[:7]}, run)


def test_a_kernel_report_in_any_merged_run_fails_the_report(tmp_path):
    kdir = tmp_path / "build" / KERNEL
    stress_run(kdir, "20260102T000000Z", "abc1234", {"test_a": None}, {},
               dmesg="[ 1.0] BUG: KASAN: slab-out-of-bounds in redopt_enqueue+0x1/0x2\n")
    stress_run(kdir, "20260103T000000Z", "abc1234", {"test_a": None}, {})
    rc, text = write_report(tmp_path)
    assert rc == 1
    assert "Kernel reports in the guest's log: 1." in text
    assert "BUG: KASAN: slab-out-of-bounds in redopt_enqueue" in text


def test_the_emulators_single_step_trap_is_shown_and_not_counted(tmp_path):
    kdir = tmp_path / "build" / KERNEL
    stress_run(kdir, "20260102T000000Z", "abc1234", {"test_a": None}, {},
               dmesg="[ 9.0] WARNING: CPU: 1 PID: 77 at arch/x86/kernel/traps.c:1120 "
                     "exc_debug_kernel+0xca/0x160\n[ 9.1] ---[ end trace 0 ]---\n")
    rc, text = write_report(tmp_path)
    assert rc == 0, text
    assert "Kernel reports in the guest's log: 0." in text
    assert "Emulator artifacts, printed below and not counted" in text
    assert "exc_debug_kernel+0xca/0x160" in text


def test_a_modified_tree_stands_alone(tmp_path):
    kdir = tmp_path / "build" / KERNEL
    stress_run(kdir, "20260102T000000Z", "abc1234", {"test_a": "boom"}, {})
    stress_run(kdir, "20260103T000000Z", "abc1234 (modified)", {"test_b": None}, {})
    rc, text = write_report(tmp_path)
    assert "Run at commit abc1234 (modified): the whole suite." in text
    assert "test_a" not in text
    # a part names its selection
    stress_run(kdir, "20260104T000000Z", "def5678", {"test_b": None}, {},
               select="(test_b) or test_zz_memory")
    rc, text = write_report(tmp_path)
    assert "Run at commit def5678: `(test_b) or test_zz_memory`." in text
    assert not report.same_code({"commit": "abc1234"}, {"commit": "abc1234 (modified)"}, run)


def test_run_helpers_of_the_stress_suite(tmp_path):
    assert run.suite_timeout("integration", 5, 5) == run.VM_SUITE_TIMEOUT
    assert run.suite_timeout("stress", 0.05, 0.05) == run.SUITE_TIMEOUT["stress"]
    full = run.suite_timeout("stress", 1, 1)
    assert full >= 6 * 3600, "a documented-scale run is hours long"
    assert run.stress_select("") == ""
    code = run.tree_code()
    assert len(code) == 12 and int(code, 16) >= 0, "the checkout's code identity"
    assert run.stress_select("soak or netns") == "(soak or netns) or test_zz_memory"
    kdir = tmp_path / "k"
    kdir.mkdir()
    (kdir / "vm-stress.xml").write_text("<testsuites/>")
    (kdir / "console.log").write_text("[ 1.0] booted\n")
    dest = run.archive_stress_run(str(kdir), [str(kdir / "vm-stress.xml"),
                                              str(kdir / "missing.json"),
                                              str(kdir / "console.log")], "20260101T000000Z")
    assert sorted(os.listdir(dest)) == ["console.log", "vm-stress.xml"]


def test_the_newer_fuzz_summary_is_reported(tmp_path):
    """build/fuzz/summary.txt replaces the kept copy only when it ended
    later (compared as times), or when the copy's time cannot be read."""
    build, adir = tmp_path / "build", tmp_path / "archive"
    (build / "fuzz").mkdir(parents=True)
    src = build / "fuzz" / "summary.txt"
    src.write_text("fuzz_x: 5 executions, 0 crashes\n")
    os.utime(src, (1_700_000_000, 1_700_000_000))       # 2023-11-14 22:13 UTC
    adir.mkdir()
    copy = adir / "fuzz-summary.txt"
    copy.write_text("2026-11-27 10:59 UTC\nfuzz_x: 99 executions, 0 crashes\n")
    assert report.fuzz_summary(str(build), str(adir)) == (
        "2026-11-27 10:59 UTC", ["fuzz_x: 99 executions, 0 crashes"]), "the copy is newer"
    os.utime(src, (1_800_000_000, 1_800_000_000))       # 2027-01-15 08:00 UTC
    assert report.fuzz_summary(str(build), str(adir)) == (
        "2027-01-15 08:00 UTC", ["fuzz_x: 5 executions, 0 crashes"])
    assert copy.read_text().startswith("2027-01-15 08:00 UTC\n")
    copy.write_text("27 Nov 2026 10:59 UTC\nfuzz_x: 1 executions, 0 crashes\n")
    os.utime(src, (1_700_000_000, 1_700_000_000))
    assert report.fuzz_summary(str(build), str(adir))[0] == "2023-11-14 22:13 UTC"

#!/usr/bin/env python3
"""Write docs/results/reliability.md from the `make stress` runs: per
kernel, the stress suite's verdicts (vm-stress.xml), its figures
(figures-stress.json), the defect reports in the guest's kernel log
(dmesg.log, as tests/run.py reads it) and which of the kernel's checkers
were on (/boot/config-<kernel>).

tests/run.py keeps each run of a kernel under build/<kernel>/stress-runs/
<start>/. The report copies each run of a known commit into the
repository, docs/results/stress-runs/<kernel>/<start>/ (its meta, verdicts,
figures and the kernel reports of its log, not the log), and reports from
there, so that the runs of one code made part by part on different days
and machines still merge. It merges the runs made on the code of the
latest one (its commit, or one that differs from it only in NOT_CODE of
tests/run.py: docs, man pages, README and CHANGELOG, host tests, the
runner and this report, the integration test modules the stress suite
does not load; a documented-scale run may be made part by part, `make
stress-run K=...`): a test's verdict and figures are those
of its latest run, a failure in an earlier run of the same test is listed,
and the kernel reports of every merged run count. A run of a modified tree
stands alone and is not copied. Runs of other code than the merged ones
leave the copy (git keeps them). The last `make fuzz` summary is kept
there too (fuzz-summary.txt).

    report.py KERNEL...
"""
import datetime
import glob
import importlib.util
import json
import os
import shutil
import subprocess
import sys

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(TOP, "docs", "results", "reliability.md")
ARCHIVE = os.path.join(TOP, "docs", "results", "stress-runs")
# a run's files the report reads, besides its kernel log's reports
KEPT = ("vm-stress.run.json", "vm-stress.xml", "figures-stress.json")
REPORTS = "kernel-reports.json"
CHECKERS = ["KASAN", "UBSAN", "KFENCE", "DEBUG_KMEMLEAK", "PROVE_LOCKING", "DEBUG_ATOMIC_SLEEP",
            "DEBUG_LIST", "DEBUG_OBJECTS"]


def load_run():
    spec = importlib.util.spec_from_file_location("specnet_run", os.path.join(TOP, "tests",
                                                                                "run.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def checkers(kernel):
    try:
        cfg = open(f"/boot/config-{kernel}").read().splitlines()
    except OSError:
        return None
    on = {line.split("=")[0][len("CONFIG_"):] for line in cfg if line.endswith("=y")}
    return [c for c in CHECKERS if c in on]


def security():
    """systemd's exposure score of the shipped unit (0 safest, 10 least)."""
    unit = os.path.join(TOP, "userspace", "specd", "specd.service")
    p = subprocess.run(["systemd-analyze", "security", "--offline=true", "--no-pager", unit],
                       capture_output=True, text=True)
    last = [x for x in p.stdout.splitlines() if "exposure level" in x]
    if not last:
        return f"`systemd-analyze security` gave no score: {p.stderr.strip()[:200]}"
    return ("`systemd-analyze security --offline=true specd.service`: " +
            last[-1].split(":", 1)[1].strip().replace("\U0001f642", "").strip())


def load_stress_run(d, run):
    """One stress run's files in directory @d: its meta (run.json), test
    cases (None: no results), figures and kernel reports."""
    try:
        meta = json.load(open(os.path.join(d, "vm-stress.run.json")))
    except (OSError, ValueError):
        meta = {"commit": "unknown (no vm-stress.run.json)", "scale": 1.0}
    try:
        figs = json.load(open(os.path.join(d, "figures-stress.json")))
    except (OSError, ValueError):
        figs = {}
    try:
        reports = json.load(open(os.path.join(d, REPORTS)))
    except (OSError, ValueError):
        reports = log_reports(d, run)
    return {"dir": d, "meta": meta, "cases": run.junit_cases(os.path.join(d, "vm-stress.xml")),
            "figures": figs, "reports": reports}


def log_reports(d, run):
    """The kernel reports of run directory @d: those of its kernel log
    (dmesg -w), then those only its console log has (a guest that died in
    an oops: tests/run.py's console_reports())."""
    reports, from_console = run.guest_reports(os.path.join(d, "dmesg.log"),
                                              os.path.join(d, "console.log"))
    return reports + from_console


def keep_run(d, adir, run):
    """Copy run directory @d into @adir/<its name> unless it is there
    already or stands alone: KEPT, and the kernel reports of its kernel
    and console logs as a JSON list (REPORTS; the logs are not kept).
    Returns the copy's directory, or None."""
    dest = os.path.join(adir, os.path.basename(d))
    if os.path.isdir(dest):
        return dest
    try:
        meta = json.load(open(os.path.join(d, "vm-stress.run.json")))
    except (OSError, ValueError):
        return None
    if stands_alone(meta):
        return None
    tmp = dest + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    for f in KEPT:
        if os.path.exists(os.path.join(d, f)):
            shutil.copy(os.path.join(d, f), tmp)
    with open(os.path.join(tmp, REPORTS), "w") as f:
        json.dump(log_reports(d, run), f, indent=1)
    os.rename(tmp, dest)
    return dest


def stress_runs(kdir, adir, run):
    """The runs of a kernel to report, oldest first: its runs kept in
    @adir and those under @kdir/stress-runs (copied into @adir first,
    keep_run()), at the code of the latest one (only the latest when its
    tree was modified); without any, the files in @kdir. When the latest
    run is of a known commit, @adir keeps only the runs reported."""
    dirs = {}
    for d in sorted(glob.glob(os.path.join(kdir, "stress-runs", "*"))):
        if os.path.isdir(d):
            dirs[os.path.basename(d)] = keep_run(d, adir, run) or d
    for d in glob.glob(os.path.join(adir, "*")):
        if os.path.isdir(d) and not d.endswith(".tmp"):
            dirs.setdefault(os.path.basename(d), d)
    runs = [load_stress_run(dirs[k], run) for k in sorted(dirs)]
    if not runs:
        return [load_stress_run(kdir, run)]
    if stands_alone(runs[-1]["meta"]):
        return runs[-1:]
    kept = [r for r in runs if same_code(r["meta"], runs[-1]["meta"], run)]
    for r in runs:
        if all(r is not k for k in kept) and os.path.dirname(r["dir"]) == adir:
            shutil.rmtree(r["dir"])
    return kept


def fuzz_summary(build, adir):
    """The last `make fuzz` summary: (when it ended, its lines), from
    build/fuzz/summary.txt when that is newer than the copy in @adir
    (which it then replaces), else from the copy; (None, []) without
    either. The copy's first line is the end time."""
    copy = os.path.join(adir, "fuzz-summary.txt")
    try:
        kept = open(copy).read().splitlines()
    except OSError:
        kept = []
    src = os.path.join(build, "fuzz", "summary.txt")
    try:
        lines = [x for x in open(src).read().splitlines() if x.strip()]
        ended = datetime.datetime.fromtimestamp(os.path.getmtime(src), datetime.timezone.utc)
        when = f"{ended:%Y-%m-%d %H:%M} UTC"
    except OSError:
        lines = []
    if lines and (not kept or ended.replace(second=0, microsecond=0) > summary_time(kept[0])):
        os.makedirs(adir, exist_ok=True)
        with open(copy, "w") as f:
            f.write("\n".join([when] + lines) + "\n")
        return when, lines
    return (kept[0], kept[1:]) if kept else (None, [])


def summary_time(line):
    """The end time on a kept fuzz summary's first line (as fuzz_summary()
    writes it); the earliest time when it cannot be read, so that any
    summary in build/ replaces it."""
    try:
        return datetime.datetime.strptime(line, "%Y-%m-%d %H:%M UTC").replace(
            tzinfo=datetime.timezone.utc)
    except ValueError:
        return datetime.datetime.min.replace(tzinfo=datetime.timezone.utc)


def stands_alone(meta):
    """Whether a run merges with no other: its tree was modified, or its
    commit is not known."""
    commit = meta.get("commit", "")
    return "modified" in commit or "unknown" in commit


def code_of(meta, run):
    """A run's code identity: tests/run.py's tree_code() of its commit
    (so that runs recorded under an older definition compare alike), the
    identity it recorded when git no longer has the commit, else None."""
    if stands_alone(meta):
        return None
    return run.tree_code(meta["commit"]) or meta.get("code") or None


def same_code(a, b, run):
    """Whether run metas @a and @b measured the same code: the same code
    identity (commits that differ only in docs, man pages or host tests),
    or, where none can be had, the same commit."""
    if stands_alone(a) or stands_alone(b):
        return False
    ca, cb = code_of(a, run), code_of(b, run)
    if ca and cb:
        return ca == cb
    return a.get("commit") == b.get("commit")


def case_key(tc):
    return (tc.get("classname", ""), tc.get("name", "?"))


def failure(tc):
    """Why test case @tc failed (its first line), None when it did not."""
    bad = [c for c in tc if c.tag in ("failure", "error")]
    if not bad:
        return None
    why = (bad[0].get("message") or "").splitlines()[:1]
    return why[0] if why else bad[0].tag


def merge_runs(runs):
    """(latest case of each test, figures, kernel reports, earlier failures
    [(run start, name, why)] of tests that a later run passed or failed
    again), over @runs oldest first."""
    cases, figs, reports, earlier = {}, {}, [], []
    for r in runs:
        for tc in r["cases"] or ():
            key = case_key(tc)
            if key in cases and failure(cases[key][0]) is not None:
                prev, when = cases[key]
                earlier.append((when, key[1], failure(prev)))
            cases[key] = (tc, r["meta"].get("started", os.path.basename(r["dir"])))
        figs.update(r["figures"])
        reports += r["reports"]
    return [tc for tc, _ in cases.values()], figs, reports, earlier


def selection(meta):
    """The tests a run selected, in words."""
    sel = meta.get("select")
    return f"`{sel}`" if sel else "the whole suite"


def scale_words(meta):
    """How a run was scaled, in words ("" at the documented counts)."""
    scale = meta.get("scale", 1)
    soak = meta.get("soak_scale", scale)
    words = (f"scaled (`STRESS_SCALE={scale:g}`: every count is {scale:g} x the suite's "
             f"documented one)" if scale != 1 else "")
    if soak != scale:
        words += (", " if words else "") + f"the soak at `SOAK_SCALE={soak:g}` " \
                                           f"({soak * 30:g} minutes)"
    return words


def main(kernels, build=None, out=None, archive=None):
    run = load_run()
    build = build or os.path.join(TOP, "build")
    out = out or OUT
    archive = archive or ARCHIVE
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = ["# Reliability (make stress)", "",
             f"Generated by `tests/stress/report.py` on {now} at commit {run.tree_commit()}.", ""]
    total_reports = 0
    for k in kernels:
        runs = stress_runs(os.path.join(build, k), os.path.join(archive, k), run)
        cases, figs, reports, earlier = merge_runs(runs)
        reports, artifacts = run.split_artifacts(reports)
        had_cases = any(r["cases"] is not None for r in runs)
        counts = run.junit_counts(cases) if had_cases else None
        total_reports += len(reports)
        ch = checkers(k)
        lines += [f"## Kernel {k}", ""]
        if len(runs) == 1:
            meta = runs[0]["meta"]
            how = scale_words(meta)
            src = meta.get("kernel_source")
            lines += [f"Run at commit {meta['commit']}: {selection(meta)}" +
                      (f", {how}" if how else "") +
                      (f", kernel build {src}" if src else "") + ".", ""]
        else:
            commits = list(dict.fromkeys(r["meta"]["commit"] for r in runs))
            at = (f"at commit {commits[0]}" if len(commits) == 1 else
                  f"of one code at commits {', '.join(commits)} (they differ only outside the code: NOT_CODE)")
            lines += [f"Merged from {len(runs)} runs {at}; "
                      "each test's verdict and figures are from its latest run:", ""]
            for r in runs:
                m = r["meta"]
                n = run.junit_counts(r["cases"])
                res = f"{n[0]} passed, {n[1]} failed" if n else "no results"
                how = scale_words(m)
                src = m.get("kernel_source")
                lines.append(f"* {m.get('started', os.path.basename(r['dir']))}: "
                             f"{selection(m)}{', ' + how if how else ''}"
                             f"{f', kernel build {src}' if src else ''}: {res}.")
            lines.append("")
        if ch is None:
            lines.append("Checkers: unknown (no /boot/config of this kernel).")
        elif ch:
            lines.append("Checkers on: " + ", ".join(ch) + ".")
        else:
            lines.append("Checkers on: none (a production build: only BUG/WARN/oops "
                         "reports can show here).")
        lines.append("")
        if counts is None:
            lines.append("Stress suite: no results.")
        else:
            lines.append(f"Stress suite: {counts[0]} passed, {counts[1]} failed, "
                         f"{counts[2]} skipped.")
            for tc in cases:
                why = failure(tc)
                if why is not None:
                    lines.append(f"* failed: `{tc.get('name')}`: {why}")
            for when, name, why in earlier:
                lines.append(f"* failed in the earlier run {when}: `{name}`: {why}")
        lines.append(f"Kernel reports in the guest's log: {len(reports)}.")
        if artifacts:
            lines.append(f"Emulator artifacts, printed below and not counted (a single-step "
                         f"trap in kernel mode, `EMULATOR_ARTIFACT` in tests/run.py): "
                         f"{len(artifacts)}.")
        lines += ["", "| figure | value |", "|---|---|"]
        for name, v in figs.items():
            lines.append(f"| {name} | {json.dumps(v) if not isinstance(v, str) else v} |")
        for r in reports + artifacts:
            lines += ["", "```", r, "```"]
        lines.append("")
    lines += ["## Userspace parsers (libFuzzer, ASan + UBSan)", ""]
    when, fz = fuzz_summary(build, archive)
    if when:
        lines += [f"From the `make fuzz` run that ended {when}.", ""]
    lines += [f"* {x}" for x in fz] or ["No fuzzing run (`make fuzz`) found."]
    lines += ["", "## specd.service", "", security(), ""]
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        f.write("\n".join(lines))
    print(f"report: {os.path.relpath(out, TOP)} ({total_reports} kernel reports)")
    return 1 if total_reports else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

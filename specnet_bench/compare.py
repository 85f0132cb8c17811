#!/usr/bin/env python3
"""Compare two specnet-bench runs case by case (runs on the host).

    python3 -m specnet_bench.compare OLD NEW [--out FILE]

OLD and NEW are run directories or their results.json. For every case both
runs hold (scenario, options, value, congestion control) it prints the
goodput over the realized ceiling in each, median [min-max] over the
repetitions, and a verdict: "within" when the two ranges overlap or lie
less than 0.01 apart (the runs' own spread covers the difference), "up"
or "down" otherwise, with the ratio of the medians. Cases that only one run holds are counted.
`make bench` publishes one against the run it replaces
(docs/results/<name>/changes.md).
"""
import argparse
import json
import os
import sys

from specnet_bench import cli


# the fields of a bench record that make its case (cli.case_key())
CASE_FIELDS = ("scenario", "opts", "value", "cc", "rep")


def comparable(meta, records):
    """Whether the run (@meta, @records) is a bench's, case by case: not a
    start trace (its meta has a "kind", tests/bench/start_trace.py), nor
    `make demo`'s satellite run (specnet_bench.satellite: one flow a BER
    and cc, no options or repetitions)."""
    return ("kind" not in meta and bool(records)
            and all(f in r for r in records for f in CASE_FIELDS))


def load(path):
    """(meta, records) of a run directory or results.json @path."""
    if os.path.isdir(path):
        path = os.path.join(path, "results.json")
    with open(path) as f:
        d = json.load(f)
    return d["meta"], d["records"]


# what the summaries resolve: goodput over the ceiling is printed to two
# decimals, and the ceiling comes from counted losses; a gap between two
# ranges narrower than this is not a change
RESOLUTION = 0.01


def verdict(old, new):
    """'within', 'up' or 'down': whether the [min, max] of @new overlaps the
    one of @old (Spreads), to RESOLUTION, and if not on which side."""
    if new.lo <= old.hi + RESOLUTION and old.lo <= new.hi + RESOLUTION:
        return "within"
    return "up" if new.lo > old.hi else "down"


def compare(old_records, new_records):
    """[(case key, old xceil Spread, new xceil Spread, verdict)] for the
    cases both hold, sorted; and the counts of cases only in old, only in
    new."""
    a, b = cli.case_stats(old_records), cli.case_stats(new_records)
    rows = []
    for k in sorted(set(a) & set(b)):
        xo, xn = a[k]["xceil"], b[k]["xceil"]
        if xo is None or xn is None:
            continue
        rows.append((k, xo, xn, verdict(xo, xn)))
    return rows, len(set(a) - set(b)), len(set(b) - set(a))


def report(old, new):
    """The comparison of runs @old and @new ((meta, records) each) as
    markdown."""
    (mo, ro), (mn, rn) = old, new
    rows, only_old, only_new = compare(ro, rn)

    def run(m):
        return f"{m.get('date', '?')}, kernel {m.get('kernel', '?')}, commit {m.get('commit', '?')}"
    counts = {v: sum(1 for r in rows if r[3] == v) for v in ("within", "up", "down")}
    lines = ["# specnet-bench: changes between two runs", "",
             f"* before: {run(mo)}", f"* after: {run(mn)}", "",
             f"{len(rows)} cases in both: {counts['within']} within the spread of the runs, "
             f"{counts['up']} up, {counts['down']} down; {only_old} only before, "
             f"{only_new} only after.", "",
             "Goodput over the realized ceiling, median [min-max] over the repetitions; "
             f"'within': the two ranges overlap or lie less than {RESOLUTION:g} apart.", "",
             "| scenario | options | value | cc | before | after | after / before | |",
             "|---|---|---|---|---|---|---|---|"]
    for (scen, opts, value, cc), xo, xn, v in rows:
        o = ", ".join(f"{k}={w}" for k, w in json.loads(opts).items()) or "-"
        r = f"{xn.med / xo.med:.2f}" if xo.med else "-"
        lines.append(f"| {scen} | {o} | {value:g} | {cc} | {xo.fmt()} | {xn.fmt()} | {r} | "
                     f"{'**' + v + '**' if v != 'within' else v} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--out", help="write the markdown here instead of stdout")
    a = ap.parse_args(argv)
    text = report(load(a.old), load(a.new))
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env bash
# Fuzz each harness for a while (make fuzz / make -C tests/fuzz run).
#
#   run.sh <build dir> <seconds> <harness>...
#
# Each harness runs, niced, for <seconds> over a copy of its corpus
# (corpus/<harness>/; what the run adds stays in the copy, under
# <build dir>/run/<harness>/corpus: merge it by hand if worth keeping),
# with artifacts (crash-*, leak-*, timeout-*, oom-*) in
# <build dir>/run/<harness>/. One summary line per harness:
#
#   <harness>: <N> executions, <N> crashes, corpus <seed> -> <final> inputs, <s> s
#
# Exit status 1 when any harness reported anything, with the reproducer's
# path and the report's SUMMARY line (the full log is beside it).
set -u

O=$1 SECONDS_EACH=$2
shift 2
FUZZ=$(cd "$(dirname "$0")" && pwd)
fail=0
mkdir -p "$O"
: >"$O/summary.txt"	# the summary lines again, for tests/stress/report.py

for h in "$@"; do
	dir=$O/run/$h
	rm -rf "$dir"
	mkdir -p "$dir/corpus"
	cp "$FUZZ/corpus/$h/"* "$dir/corpus/"
	seed=$(ls "$dir/corpus" | wc -l)
	log=$dir/fuzz.log
	t0=$(date +%s)
	nice -n 19 "$O/$h" -max_total_time="$SECONDS_EACH" -print_final_stats=1 \
		-timeout=25 -artifact_prefix="$dir/" "$dir/corpus" >"$log" 2>&1
	rc=$?
	secs=$(($(date +%s) - t0))
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	arts=$(find "$dir" -maxdepth 1 -type f \
		\( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | sort)
	n=$(printf '%s' "$arts" | grep -c . || true)
	echo "$h: ${execs:-?} executions, $n crashes, corpus $seed -> $(ls "$dir/corpus" | wc -l) inputs, $secs s" |
		tee -a "$O/summary.txt"
	if [ "$rc" != 0 ] || [ "$n" != 0 ]; then
		fail=1
		grep -m1 -E '^SUMMARY|contract broken|ERROR: libFuzzer' "$log" | sed 's/^/    /'
		for a in $arts; do echo "    reproducer: $a"; done
		echo "    log: $log (exit $rc)"
	fi
done
exit $fail

#!/usr/bin/env bash
# Instructions per update of TCP-TP's predictor (kernel/include/specnet/tp.h),
# counted with callgrind: builds tests/bench/tp_cost.c (-O2) into
# build/bench/ and runs each workload under valgrind, collecting only inside
# its bench_*() function. Prints
#
#   tp_cost: levinson n=20: N instr/update; lms: M instr/update
#   tp_cost: sampler: K instr/ack (EWMA sample + interval aggregation)
#
# Needs valgrind (Debian package `valgrind`). COUNT=<updates> to change
# the number of updates measured (default 2000).
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$TOP/build/bench
COUNT=${COUNT:-2000}
CC=${CC:-cc}

command -v valgrind >/dev/null ||
	{ echo "tp_cost: valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
mkdir -p "$OUT"
$CC -std=gnu11 -O2 -g -Wall -Wextra -Werror -I"$TOP/kernel/include" \
	-o "$OUT/tp_cost" "$TOP/tests/bench/tp_cost.c"

# instructions executed inside function $2 while running workload $1
count() {
	local f=$OUT/callgrind.tp_cost.$1
	valgrind -q --tool=callgrind --callgrind-out-file="$f" --toggle-collect="$2" \
		"$OUT/tp_cost" "$1" "$COUNT" >/dev/null
	awk '/^(summary|totals):/ { print $2; exit }' "$f"
}

per() { # instructions, count -> instructions per update, rounded
	echo $((($1 + $2 / 2) / $2))
}

lev=$(count levinson bench_push)
lms=$(count lms bench_push)
ack=$(count ack bench_ack)
echo "tp_cost: levinson n=20: $(per "$lev" "$COUNT") instr/update; lms: $(per "$lms" "$COUNT") instr/update"
echo "tp_cost: sampler: $(per "$ack" "$COUNT") instr/ack (EWMA sample + interval aggregation)"

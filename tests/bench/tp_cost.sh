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
NAME=tp_cost
COUNT=${COUNT:-2000}
. "$(dirname "$0")/callgrind.sh"

per() { # instructions, count -> instructions per update, rounded
	echo $((($1 + $2 / 2) / $2))
}

lev=$(count levinson bench_push)
lms=$(count lms bench_push)
ack=$(count ack bench_ack)
echo "tp_cost: levinson n=20: $(per "$lev" "$COUNT") instr/update; lms: $(per "$lms" "$COUNT") instr/update"
echo "tp_cost: sampler: $(per "$ack" "$COUNT") instr/ack (EWMA sample + interval aggregation)"

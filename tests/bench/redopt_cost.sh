#!/usr/bin/env bash
# Instructions per enqueue of sch_redopt, counted with callgrind: builds
# tests/bench/redopt_cost.c (-O2) into build/bench/ and runs each workload
# under valgrind, collecting only inside its bench_*() function (callees
# included). The workload is a 10 Mbit/s bottleneck with four on/off TCP
# senders of 1000-byte packets and an interactive flow (see redopt_cost.c).
# Prints (each on one line)
#
#   redopt_cost: enqueue, flows 4: N instr/packet; flows auto: M instr/packet
#                (+D, the flow estimator)
#   redopt_cost: for reference, the kernel's sch_red R instr/packet (X x flows 4)
#   redopt_cost: estimator window end (timer, 500 ms): W instr; a new m adds
#                the model, V instr (K of J windows)
#   redopt_cost: workload: P packets, I% after idle, B% below min_th, ...
#
# sch_red's figure is a replica's (net/red.h, sch_red.c, the bfifo child),
# as are the estimator's flow hash (without the kernel's flow dissector:
# a lower bound) and the kernel glue; the shared code (red_idle.h,
# flow_est.h, redopt_cfg.h, red_model.h) is the modules' own. Exit status 0 whatever the
# figures (a benchmark, not a test), 1 if a count is missing (a bench
# function renamed or inlined) or the estimator adds nothing. Needs
# valgrind (Debian package `valgrind`). COUNT=<packets> to change the
# number of packets enqueued (default 20000, 17 s of the link).
set -euo pipefail
NAME=redopt_cost
COUNT=${COUNT:-20000}
. "$(dirname "$0")/callgrind.sh"

fixed=$(count fixed bench_redopt)
auto=$(count auto bench_redopt)
red=$(count red bench_red)
win=$(count window bench_window_end)
model=$(count window redopt_recompute)
# the workloads' mix (the same program, natively)
mix=$("$OUT/$NAME" fixed "$COUNT")
wmix=$("$OUT/$NAME" window "$COUNT")
windows=$(echo "$wmix" | awk '{ for (i = 2; i < NF; i += 2) if ($i == "windows") print $(i + 1) }')
calls=$(echo "$wmix" | awk '{ for (i = 2; i < NF; i += 2) if ($i == "recompute_calls") print $(i + 1) }')

broken() {
	echo "$NAME: $*: the count is broken" >&2
	exit 1
}
for v in fixed auto red; do
	[ "${!v}" -gt 0 ] ||
		broken "no instruction counted for $v (its bench function renamed or inlined?)"
done
[ "$auto" -gt "$fixed" ] || broken "the estimator adds nothing ($auto <= $fixed instructions)"
[ "$windows" -eq 0 ] || [ "$win" -gt 0 ] || broken "no instruction counted in $windows window ends"
[ "$calls" -eq 0 ] || [ "$model" -gt 0 ] || broken "no instruction counted in $calls runs of the model"

awk -v f="$fixed" -v a="$auto" -v r="$red" -v w="$win" -v m="$model" -v n="$COUNT" \
    -v nw="$windows" -v nr="$calls" -v mix="$mix" 'BEGIN {
	k = split(mix, x, " "); for (i = 2; i < k; i += 2) s[x[i]] = x[i + 1]
	printf "redopt_cost: enqueue, flows 4: %.0f instr/packet; flows auto: %.0f instr/packet (+%.0f, the flow estimator)\n",
	       f / n, a / n, (a - f) / n
	printf "redopt_cost: for reference, the kernel'"'"'s sch_red %.0f instr/packet (%.2f x flows 4)\n",
	       r / n, r / f
	if (nw == 0)
		printf "redopt_cost: estimator window end (timer, 500 ms): none in %d packets\n", n
	else if (nr == 0)
		printf "redopt_cost: estimator window end (timer, 500 ms): %.0f instr (m unchanged in %d windows)\n",
		       w / nw, nw
	else
		printf "redopt_cost: estimator window end (timer, 500 ms): %.0f instr; a new m adds the model, %.0f instr (%d of %d windows)\n",
		       (w - m) / nw, m / nr, nr, nw
	e = s["enq"]
	printf "redopt_cost: workload: %d packets, %.1f%% after idle, %.1f%% below min_th, %.1f%% between, %.1f%% above max_th; %d marked, %d early, %d forced_mark, %d forced, %d overflow\n",
	       e, 100 * s["idle"] / e, 100 * s["below"] / e, 100 * s["between"] / e,
	       100 * s["above"] / e, s["marked"], s["early"], s["forced_mark"], s["forced"],
	       s["overflow"]
}'

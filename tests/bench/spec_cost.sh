#!/usr/bin/env bash
# Instructions per ACK of tcp_spec's congestion control against Reno's, in
# congestion avoidance on a 20 Mbit/s, 600 ms path, counted with callgrind:
# builds tests/bench/spec_cost.c (-O2) into build/bench/ and runs each
# workload under valgrind, collecting only inside its bench_*() function.
# Prints
#
#   spec_cost: reno N instr/ack; spec M (no mark seen yet, the window at
#     the BDP it measures), G (regrowing under it), K (after a mark)
#   spec_cost: for reference, the kernel's cubic C instr/ack (X x reno);
#     spec's growth alone F (Y x reno), the least a design with it costs
#   spec_cost: spec / reno = R: target <= 1.5: met by D | missed by D
#
# (each on one line), R from the costliest of spec's three states.
# Exit status 0 whatever the figure (a benchmark, not a test). Needs
# valgrind (Debian package `valgrind`). COUNT=<ACKs> to change the number
# of ACKs measured (default 20000, 10 s of the path).
set -euo pipefail
NAME=spec_cost
COUNT=${COUNT:-20000}
TARGET=1.5
. "$(dirname "$0")/callgrind.sh"

reno=$(count reno bench_reno)
cubic=$(count cubic bench_cubic)
growth=$(count growth bench_growth)
spec=$(count spec bench_spec)
regrow=$(count spec-regrow bench_spec)
ecn=$(count spec-ecn bench_spec)
awk -v r="$reno" -v c="$cubic" -v f="$growth" -v s="$spec" -v g="$regrow" -v e="$ecn" \
    -v n="$COUNT" -v t="$TARGET" 'BEGIN {
	printf "spec_cost: reno %.0f instr/ack; spec %.0f (no mark seen yet, the window at the BDP it measures), %.0f (regrowing under it), %.0f (after a mark)\n",
	       r / n, s / n, g / n, e / n
	printf "spec_cost: for reference, the kernel'"'"'s cubic %.0f instr/ack (%.2f x reno); spec'"'"'s growth alone %.0f (%.2f x reno), the least a design with it costs\n",
	       c / n, c / r, f / n, f / r
	m = s
	if (g > m)
		m = g
	if (e > m)
		m = e
	x = m / r
	d = t - x
	v = (d >= 0) ? "met" : "missed"
	printf "spec_cost: spec / reno = %.2f: target <= %.1f: %s by %.2f\n", x, t, v, (d >= 0) ? d : -d
}'

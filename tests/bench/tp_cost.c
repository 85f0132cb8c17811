// SPDX-License-Identifier: GPL-2.0
/*
 * Cost of TCP-TP's shared core (kernel/include/specnet/tp.h) per update,
 * for tests/bench/tp_cost.sh, which runs this under callgrind and counts
 * the instructions executed inside the bench_*() functions only
 * (--toggle-collect), i.e. inclusive of everything tp.h does in them.
 *
 *   tp_cost levinson|lms|ack COUNT
 *
 * levinson:  COUNT pushes of an aggregated sample into a full ring, each
 *            followed by the LMMSE solve (n = 20, order 19) and prediction
 * lms:       the same with the NLMS option (one update + prediction)
 * ack:       COUNT ACKs through the sampler and the interval aggregation
 *            (one sample per ACK, intervals of 10 samples)
 *
 * Built with -O2 like the kernel; the inputs are a deterministic AR(1)
 * series around 5 Mbit/s, so the work is the same as on real traffic.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <specnet/tp.h>

static u64 rng = 0x9e3779b97f4a7c15ULL;
static s64 ar;

/* AR(1) 0.8 around 5 Mbit/s, integer only */
static u64 next_rate(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	ar = ar * 4 / 5 + (s64)((rng * 0x2545f4914f6cdd1dULL) >> 44) - (1 << 19);
	return (u64)(5000000 + ar);
}

__attribute__((noinline)) int bench_push(struct tcptp_state *st, const struct tcptp_params *p,
					 u64 f)
{
	return tcptp_push(st, p, f);
}

__attribute__((noinline)) bool bench_ack(struct tcptp_sampler *s, const struct tcptp_params *p,
					 u32 bytes, u32 now, u64 *fm)
{
	u64 f;

	return tcptp_sample_ack(s, p, bytes, now, 1000, &f) &&
	       tcptp_aggregate(s, f, now, 10000, fm);
}

int main(int argc, char **argv)
{
	struct tcptp_params p;
	struct tcptp_sampler s;
	struct tcptp_state st;
	u64 sink = 0, fm = 0;
	long i, count;
	u32 now = 0;

	count = argc == 3 ? atol(argv[2]) : 0;
	if (count <= 0) {
		fprintf(stderr, "usage: tp_cost levinson|lms|ack COUNT\n");
		return 2;
	}
	tcptp_params_default(&p);
	tcptp_state_init(&st);
	tcptp_sampler_init(&s, 0);
	if (!strcmp(argv[1], "lms"))
		p.method = TP_METHOD_LMS;
	else if (strcmp(argv[1], "levinson") && strcmp(argv[1], "ack"))
		return 2;
	for (i = 0; i < TP_N; i++)		/* fill the ring: not counted */
		tcptp_push(&st, &p, next_rate());
	if (!strcmp(argv[1], "ack")) {
		for (i = 0; i < count; i++) {
			now += 1000;
			sink += bench_ack(&s, &p, (u32)(next_rate() / 8000), now, &fm);
		}
	} else {
		for (i = 0; i < count; i++) {
			sink += (u64)bench_push(&st, &p, next_rate());
			sink += tcptp_prediction(&st);
		}
	}
	printf("%s %ld %llu\n", argv[1], count, (unsigned long long)(sink + fm));
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * HyStart++ (RFC 9406): the end of spec's first slow start, in integer
 * maths.
 *
 * Slow start doubles the window every round trip until something pushes
 * back. On a long path behind an AQM the push-back comes late: the first
 * ECN mark leaves the gateway one sojourn interval after the queue formed
 * and reaches the sender one RTT after that, by which time the window has
 * doubled once or twice past the path's BDP, and the reductions that follow
 * leave it below the BDP for seconds. HyStart++ ends slow start on the
 * first sign of a queue, a rise of the round's least RTT:
 *
 *   a round       the packets in flight at its start, delivered (qdelay.h's
 *                 rounds); its least RTT sample is currentRoundMinRTT, the
 *                 previous round's lastRoundMinRTT
 *   slow start    once the round holds HSS_N_RTT_SAMPLE samples, a round
 *                 least RTT >= last + clamp(last / 8, 4 ms, 16 ms) ends slow
 *                 start (last also the flow's least RTT where that is
 *                 lower, as the kernel's cubic has it: hss_slow_start_ends()):
 *                 Conservative Slow Start (CSS) begins, its baseline
 *                 that least RTT
 *   CSS           the window grows by a quarter of what slow start would
 *                 (HSS_CSS_GROWTH_DIVISOR); a round least RTT below the
 *                 baseline means the rise was noise: back to slow start;
 *                 after HSS_CSS_ROUNDS rounds, congestion avoidance
 *                 (ssthresh = cwnd)
 *
 * As the RFC recommends, only the first slow start (ssthresh still
 * infinite) uses it; a loss or ECN-Echo ends it as it ends slow start. The
 * window is paced, so the RFC's per-ACK burst limit L is infinite.
 *
 * RTTs are microseconds, HSS_INF for none (qdelay.h's QD_NONE). The CSS
 * baseline is kept in 16 bits of HSS_BASE_US (64 us), up to 4.19 s, which
 * leaves its comparisons exact to 64 us, far below the 4 ms threshold.
 */
#ifndef _SPECNET_HYSTART_H
#define _SPECNET_HYSTART_H

#include "types.h"

#define HSS_INF			(~0U)	/* no RTT sample */
#define HSS_MIN_RTT_THRESH_US	4000
#define HSS_MAX_RTT_THRESH_US	16000
#define HSS_MIN_RTT_DIVISOR	8
#define HSS_N_RTT_SAMPLE	8
#define HSS_CSS_GROWTH_DIVISOR	4
#define HSS_CSS_ROUNDS		5
#define HSS_BASE_US		64	/* unit of the CSS baseline */
#define HSS_BASE_MAX		0xffffU	/* 4.19 s: larger RTTs saturate */

/* RttThresh: the rise of the round least RTT that ends slow start. */
static inline u32 hss_thresh_us(u32 last_us)
{
	return clamp_t(u32, last_us / HSS_MIN_RTT_DIVISOR,
		       HSS_MIN_RTT_THRESH_US, HSS_MAX_RTT_THRESH_US);
}

/*
 * In slow start, after an ACK's RTT sample: does the round under way
 * (least RTT @cur_us over @samples samples) show a queue against the last
 * round (@last_us) or against the flow's least RTT (@min_us, HSS_INF for
 * none)? The RFC compares with the last round only, which misses a queue
 * that rises by less than the threshold from one round to the next. On
 * the GEO path behind CAKE with 10% corruption, where the first slow
 * start runs through recoveries, one flow's window went on to the first
 * slow start's cap of two BDPs (1972 packets) with its smoothed RTT 166-196
 * ms over the path's and HyStart++ never entered CSS; the queue took 4 s
 * to drain. The kernel's cubic compares its round with the flow's least
 * RTT (delay_min); both tests are here, the threshold from the lower
 * reference.
 */
static inline bool hss_slow_start_ends(u32 last_us, u32 min_us, u32 cur_us,
				       u32 samples)
{
	u32 ref = min_t(u32, last_us, min_us);

	if (samples < HSS_N_RTT_SAMPLE || cur_us == HSS_INF || last_us == HSS_INF)
		return false;
	return (u64)cur_us >= (u64)ref + hss_thresh_us(ref);
}

/* The CSS baseline for a round least RTT (never 0: 0 is "not in CSS"). */
static inline u16 hss_base(u32 rtt_us)
{
	u32 b = rtt_us / HSS_BASE_US + 1;	/* monotonic, and >= 1 */

	return (u16)(b > HSS_BASE_MAX ? HSS_BASE_MAX : b);
}

/* In CSS: is the round under way's least RTT below the baseline @base? */
static inline bool hss_css_resumes(u16 base, u32 cur_us, u32 samples)
{
	if (samples < HSS_N_RTT_SAMPLE || cur_us == HSS_INF)
		return false;
	return hss_base(cur_us) < base;
}

/*
 * CSS growth: the window @cwnd after an ACK that delivered @acked
 * segments; @cnt (tp->snd_cwnd_cnt, unused in slow start) carries the
 * segments not yet turned into window. At most @limit.
 */
static inline u32 hss_css_cwnd(u32 cwnd, u32 *cnt, u32 acked, u32 limit)
{
	u32 inc;

	*cnt += acked;
	inc = *cnt / HSS_CSS_GROWTH_DIVISOR;
	*cnt -= inc * HSS_CSS_GROWTH_DIVISOR;
	if (cwnd >= limit)
		return cwnd;
	return inc >= limit - cwnd ? limit : cwnd + inc;
}

#endif /* _SPECNET_HYSTART_H */

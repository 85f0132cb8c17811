/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Active-flow estimate from a hashed bitmap (linear counting), as integer
 * maths: sch_redopt's adaptive mode hashes every packet's flow into one of
 * B bits over a window; with k bits set at the window's end the number of
 * distinct flows is estimated (Whang, Vander-Zanden, Taylor 1990) by
 *
 *   n = B ln( B / (B - k) ) = -B ln(1 - k/B)
 *
 * which corrects for hash collisions (n = k when k << B). For k = B (every
 * bit set) the estimate is unbounded: we return B ln B, the largest finite
 * value, and the caller clamps.
 *
 * Fixed point: log2 in Q16 (FE_SCALE = 16) by the binary-logarithm algorithm
 * (repeated squaring), then ln = log2 * ln 2 with ln 2 = 45426 / 2^16.
 * Error: below 2^-15 in log2, i.e. < B * 2^-15 * ln 2 flows; for
 * B = 1024, < 0.03 flow before rounding to the nearest integer.
 * Ranges: B <= 4096 (tested; sch_redopt uses 1024): B << 16 fits 32 bits
 * and B * log2_q16 (< 2^12 * 2^21) fits 64 bits. For larger B the
 * truncation in the squarings grows beyond the bound above.
 */
#ifndef _SPECNET_FLOW_EST_H
#define _SPECNET_FLOW_EST_H

#include "types.h"

#define FE_SCALE		16
#define FE_UNIT		BIT_ULL(FE_SCALE)
#define FE_LN2_Q16	45426ULL	/* ln 2 = 0.693147 in Q16 */

/* log2(x / 2^16) in Q16, for x >= 2^16 (x < 2^48). */
static inline u32 fe_log2_q16(u64 x)
{
	u32 ip = 0, frac = 0;
	int i;

	while (x >= 2 * FE_UNIT) {
		x >>= 1;
		ip++;
	}
	/* x in [1, 2) Q16: square; a result >= 2 yields the next bit */
	for (i = FE_SCALE - 1; i >= 0; i--) {
		x = (x * x) >> FE_SCALE;		/* < 2^34 */
		if (x >= 2 * FE_UNIT) {
			x >>= 1;
			frac |= 1U << i;
		}
	}
	return (ip << FE_SCALE) | frac;
}

/* Estimated number of flows from @k set bits out of @b (1..4096). */
static inline u32 redopt_flows_from_bits(u32 k, u32 b)
{
	u64 ratio, n;

	if (!b)
		return 0;
	if (k >= b)
		k = b - 1;	/* saturate: the largest finite estimate */
	ratio = ((u64)b << FE_SCALE) / (b - k);		/* B / (B - k), Q16 */
	n = (u64)b * fe_log2_q16(ratio) * FE_LN2_Q16;	/* Q32 */
	return (u32)((n + (1ULL << 31)) >> 32);
}

/*
 * The m the queue is dimensioned for after a window whose estimate is
 * @est, the m in force being @m. A rise takes effect at once: the flows
 * that came need the room in their slow starts, or they lose packets. A
 * fall takes effect after FE_FALL_WINDOWS windows in a row below @m, and
 * to the largest estimate of those windows: a flow silent for a window
 * (between two requests, in an RTO backoff) is not gone, and a buffer
 * dimensioned for one flow too many costs some queue, not drops. Without
 * the hold, an estimate that swings by one between windows (flows going
 * on and off) re-ran the model and moved the limit every window. @hold
 * keeps the count and that largest estimate; zero it with the
 * configuration.
 */
#define FE_FALL_WINDOWS	4

struct fe_hold {
	u32 windows;	/* windows in a row below the m in force */
	u32 peak;	/* their largest estimate */
};

static inline u32 redopt_fe_settle(struct fe_hold *hold, u32 m, u32 est)
{
	if (est >= m) {
		hold->windows = 0;
		hold->peak = 0;
		return est;
	}
	if (est > hold->peak)
		hold->peak = est;
	if (++hold->windows < FE_FALL_WINDOWS)
		return m;
	est = hold->peak;
	hold->windows = 0;
	hold->peak = 0;
	return est;
}

#endif /* _SPECNET_FLOW_EST_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RED's average over an idle period, exactly: Floyd & Jacobson (1993)
 * decay the average as if m small packets had arrived while the queue was
 * empty,
 *
 *   avg <- avg (1 - w)^m,   m = idle / xmit,   xmit = 8 s / C
 *
 * (s the average packet size, C the link rate). <net/red.h> approximates
 * this with a 256-cell table from tc plus a linear rule inside the first
 * cell, which decays far too fast for idle gaps of about one packet time
 * (the usual gap at a shaped bottleneck: HTB empties the queue between
 * packets); sch_redopt computes it here instead.
 *
 * Integer evaluation: xmit in Q16 us, m = floor(idle_us 2^16 / xmit_q16),
 * (1 - 2^-wlog)^m by binary exponentiation in Q31 (factors <= 2^31, so
 * products < 2^62), each product rounded: relative error below 1e-5 (the
 * repeated squarings double it each time), far below the EWMA's own
 * granularity. m >= 64 2^wlog gives (1 - w)^m < e^-64: 0.
 * Ranges: idle clamped to 2^40 us (12.7 days), xmit_q16 > 0, wlog 1..31,
 * avg any u64. red.h's qavg is the EWMA of the queue length scaled by
 * 2^Wlog; the average lags, so a burst can fill the queue to the limit,
 * not just max_th, and qavg then moves towards limit << Wlog: up to
 * (2^32 - 1) 2^24 < 2^56 (limit u32, Wlog <= 24). The product
 * avg r (r <= 2^31) would pass 2^64 from avg = 2^33 on, so it is split:
 * avg = hi 2^31 + lo, avg r / 2^31 = hi r + lo r / 2^31, with
 * hi r < 2^33 2^31 and lo r < 2^62; the floor is the same, and exact.
 */
#ifndef _SPECNET_RED_IDLE_H
#define _SPECNET_RED_IDLE_H

#include "types.h"

#define RED_IDLE_SCALE	31
#define RED_IDLE_HALF	BIT_ULL(RED_IDLE_SCALE - 1)	/* round to nearest */
#define RED_IDLE_MAX_US	BIT_ULL(40)

/* Transmission time of @avpkt bytes at @bps bit/s, us in Q16 (>= 1). */
static inline u64 red_idle_xmit_q16(u32 avpkt, u64 bps)
{
	u64 x;

	if (!bps)
		return 1;
	/* avpkt 8e6 2^16 < 2^16 2^23 2^16 = 2^55 */
	x = ((u64)avpkt * 8000000ULL << 16);
	x = div64_u64(x, bps);
	return x ? x : 1;
}

/* avg (1 - 2^-wlog)^m with m = idle_us / xmit. */
static inline u64 red_idle_decay(u64 avg, u8 wlog, u64 idle_us, u64 xmit_q16)
{
	u64 base = BIT_ULL(RED_IDLE_SCALE) - BIT_ULL(RED_IDLE_SCALE - wlog);
	u64 r = BIT_ULL(RED_IDLE_SCALE);
	u64 m;

	if (idle_us > RED_IDLE_MAX_US)
		idle_us = RED_IDLE_MAX_US;
	m = div64_u64(idle_us << 16, xmit_q16);
	if (m >= (64ULL << wlog))
		return 0;
	while (m) {
		if (m & 1)
			r = (r * base + RED_IDLE_HALF) >> RED_IDLE_SCALE;
		base = (base * base + RED_IDLE_HALF) >> RED_IDLE_SCALE;
		m >>= 1;
	}
	/* floor(avg r / 2^31) = hi r + floor(lo r / 2^31), <= avg */
	return (avg >> RED_IDLE_SCALE) * r +
	       (((avg & (BIT_ULL(RED_IDLE_SCALE) - 1)) * r) >> RED_IDLE_SCALE);
}

#endif /* _SPECNET_RED_IDLE_H */

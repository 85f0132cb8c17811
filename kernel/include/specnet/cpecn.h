/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPECN: the congestion probability of a sequence of ECN-Echo bits, as pure
 * integer maths. tcp_cpecn and `specctl model cpecn` both compute through
 * this header; tests/unit/test_cpecn.c checks it against a double-precision
 * reference.
 *
 * Model (docs/algorithms.md, CPECN):
 *
 *   window     the ECE bits of the last m ACKs (m = 4, 8, ..., 32), newest
 *              in bit 0 of a u32; n = m / 4 segments of 4 ACKs, segment k
 *              = bits 4k..4k+3 (k = 0 newest, k = n - 1 oldest)
 *   weights    newer segments heavier: w(older) = alpha w(newer), i.e.
 *              algorithms.md's w_j = w_{j-1} / alpha counted from the
 *              oldest; sum of w = 1, so w_k = alpha^k (1 - alpha) /
 *              (1 - alpha^n). Paper: n = 2, alpha = 0.25: 0.8 and 0.2.
 *   CP(t)      sum_k w_k * (ECE bits set in segment k) / 4
 *   dCP(t)     CP(t) - CP(t-1), on every ACK
 *   loss event dCP > 0: congestion (base decrease); dCP <= 0: corruption
 *              (retransmit only, cwnd unchanged)
 *   WECN       the baseline decides on the ECE bit of the ACK revealing the
 *              loss alone: 1 congestion, 0 corruption
 *
 * Example (newest ACK first): 00011111 -> newest segment 0001 (mean 0.25),
 * older 1111 (mean 1.0): CP = 0.8 * 0.25 + 0.2 * 1.0 = 0.40.
 *
 * Use from a congestion control module:
 *
 *   module param set:  cpecn_check_params() then cpecn_params_init()
 *   connection init:   cpecn_reset()
 *   every ACK:         cpecn_push(state, params, ece)
 *   loss event:        cpecn_congested(state)            (cpecn)
 *                      cpecn_wecn_congested(cpecn_last_ece(state))  (wecn)
 *
 * Scales and rounding:
 *  - CP and dCP are integers in ppm: CPECN_CP_UNIT = 1000000 is CP = 1.
 *  - the weights are integers in units of 1 / CPECN_W_UNIT (250000, i.e.
 *    4 ppm), so that CP = sum_k W_k * popcount(segment k), with no
 *    rounding at all after the weights: the sum of the weights is exactly
 *    CPECN_W_UNIT, all-ones windows give exactly CPECN_CP_UNIT, the paper's
 *    weights 0.8/0.2 are exact (200000/50000) and 00011111 gives exactly
 *    400000 ppm.
 *  - cpecn_params_init() computes the weights once per (m, alpha): alpha^k
 *    in 28-bit fixed point, then the largest-remainder rounding of
 *    CPECN_W_UNIT * w_k (ties to the newer segment): each W_k is within
 *    1.01 units of CPECN_W_UNIT * w_k, they sum exactly to CPECN_W_UNIT and
 *    they never increase from the newest to the oldest segment.
 *  - error of CP against the exact model: below n * 4 ppm (m = 32: 32 ppm,
 *    m = 8: 8 ppm).
 *  - CP is recomputed from the window on every ACK (never accumulated), so
 *    it is a function of the bits: equal windows have equal CP, and dCP is
 *    exactly 0 when an ACK leaves the count of ECE bits of every segment
 *    unchanged (e.g. all ones, all zeros, any period-4 pattern).
 *  - the sign of dCP is never the opposite of the exact model's: on one ACK
 *    the segments' counts change by -1, 0 or +1 with alternating signs from
 *    the newest, and the weights do not increase, so the fixed-point sum
 *    has the exact one's sign or is 0. It is 0 (no congestion) only when
 *    the exact change is below the resolution, i.e. lies in segments whose
 *    weights round to the same value (small alpha with large m: alpha 0.1,
 *    m = 32 makes the two oldest weights 0).
 *
 * Per-ACK cost: a shift, two SWAR steps that count the bits of all nibbles
 * at once (no popcount instruction or table needed) and n <= 8
 * multiply-adds.
 *
 * Ranges and overflow: m in {4, 8, ..., 32}, alpha 1..999 per-mille
 * (cpecn_check_params() enforces both). CP <= 4 * CPECN_W_UNIT = 10^6 fits
 * u32, dCP in [-10^6, 10^6] fits s32. Weights: alpha^k < 2^28, times
 * alpha < 2^38; CPECN_W_UNIT * 2^28 < 2^46 (u64), sum of alpha^k < 2^31
 * (u32 divisor: div_u64_rem() in the kernel).
 *
 * Choices we made (where algorithms.md is silent):
 *  - before m ACKs have been seen the missing bits count as 0 (no
 *    congestion): cpecn_reset() starts from the all-zero window, so the
 *    first ECE of a connection raises CP (dCP > 0). cpecn_window_full()
 *    tells whether m ACKs have been seen.
 *  - one push per ACK the caller counts (the module decides which ACKs,
 *    e.g. duplicates too); dCP is that of the last push only.
 *  - alpha is given in per-mille (0.25 = 250); weights below the resolution
 *    round to 0, and those segments are then outside the window in effect
 *    (alpha 0.001, m >= 12: all but the newest two; alpha 0.1, m >= 28:
 *    the oldest one or two).
 *  - if the parameters change under a live connection, the window is read
 *    with the new ones from the next push on (bits beyond the new m are
 *    ignored); that push's dCP compares CPs of different weightings.
 *  - WECN's verdict is the ECE bit itself: cpecn_wecn_congested() returns
 *    it; after cpecn_push() of the ACK that reveals the loss it is
 *    cpecn_last_ece(). It is here so that both verdicts have one home.
 */
#ifndef _SPECNET_CPECN_H
#define _SPECNET_CPECN_H

#include "types.h"

#define CPECN_SEG_ACKS		4	/* ACKs per segment */
#define CPECN_MIN_M		4	/* window length, ACKs */
#define CPECN_MAX_M		32	/* one u32 */
#define CPECN_DEFAULT_M		8	/* the paper: n = 2 segments */
#define CPECN_MAX_SEGS		(CPECN_MAX_M / CPECN_SEG_ACKS)
#define CPECN_ALPHA_UNIT	1000	/* alpha is per-mille */
#define CPECN_DEFAULT_ALPHA	250	/* the paper: 0.25 */
#define CPECN_CP_UNIT		1000000	/* CP and dCP are ppm */
#define CPECN_W_UNIT		(CPECN_CP_UNIT / CPECN_SEG_ACKS)	/* sum of W */
#define CPECN__T_SHIFT		28	/* alpha^k fixed point, weights only */

/*
 * Configuration: one per module, computed when a parameter is set and read
 * without locking on every ACK. A setter should fill a new struct and
 * publish it whole (an RCU pointer or a seqcount); a torn read would mix
 * two weight sets for one ACK: a wrong CP, but no overflow (every W_k is
 * at most CPECN_W_UNIT, so CP < 2^23).
 */
struct cpecn_params {
	u32 w[CPECN_MAX_SEGS];	/* W_k, k = 0 newest, units 1/CPECN_W_UNIT */
	u32 mask;		/* the low m bits */
	u16 alpha;		/* per-mille */
	u8 m;			/* ACKs in the window */
	u8 n;			/* segments, m / 4 */
};

/* Per connection: 16 bytes. */
struct cpecn_state {
	u32 bits;		/* ECE of the last m ACKs, newest in bit 0 */
	u32 acks;		/* ACKs pushed, saturating at 2^32 - 1 */
	u32 cp;			/* CP(t), ppm */
	s32 dcp;		/* CP(t) - CP(t-1), ppm */
};

static inline int cpecn__reject(const char **why, const char *reason)
{
	if (why)
		*why = reason;
	return -EINVAL;
}

/*
 * The single validity check every entry point (module parameters, specctl)
 * calls: m a multiple of 4 in 4..32, alpha 1..999 per-mille. Returns 0 or
 * -EINVAL with a reason in *why (if why is not NULL).
 */
static inline int cpecn_check_params(u32 m, u32 alpha_permille,
				     const char **why)
{
	if (m < CPECN_MIN_M || m > CPECN_MAX_M || m % CPECN_SEG_ACKS)
		return cpecn__reject(why,
				     "m must be a multiple of 4 in 4..32 (ACKs in the CP window)");
	if (!alpha_permille || alpha_permille >= CPECN_ALPHA_UNIT)
		return cpecn__reject(why,
				     "alpha must be 1..999 per-mille (0 < alpha < 1)");
	return 0;
}

static inline u64 cpecn__div_rem(u64 a, u32 b, u32 *rem)
{
	return div_u64_rem(a, b, rem);
}

/*
 * The weights of (m, alpha) into @p, at parameter-set time. Returns 0, or
 * -EINVAL (see cpecn_check_params(), which gives the reason) leaving @p
 * untouched.
 */
static inline int cpecn_params_init(struct cpecn_params *p, u32 m,
				    u32 alpha_permille)
{
	u32 t[CPECN_MAX_SEGS], rem[CPECN_MAX_SEGS], w[CPECN_MAX_SEGS];
	u32 n, k, best, unused, sum_t = 0, sum_w = 0;
	const char *why;
	u64 x;

	if (cpecn_check_params(m, alpha_permille, &why))
		return -EINVAL;
	n = m / CPECN_SEG_ACKS;

	/* t_k = alpha^k 2^28, truncated: non-increasing, sum < 2^31 */
	t[0] = 1U << CPECN__T_SHIFT;
	for (k = 1; k < n; k++) {
		x = (u64)t[k - 1] * alpha_permille;
		t[k] = (u32)cpecn__div_rem(x, CPECN_ALPHA_UNIT, &unused);
	}
	for (k = 0; k < n; k++)
		sum_t += t[k];

	/* W_k = floor(W_ONE t_k / sum_t), then the largest remainders */
	for (k = 0; k < n; k++) {
		x = (u64)CPECN_W_UNIT * t[k];
		w[k] = (u32)cpecn__div_rem(x, sum_t, &rem[k]);
		sum_w += w[k];
	}
	for (; sum_w < CPECN_W_UNIT; sum_w++) {	/* at most n - 1 times */
		best = 0;
		for (k = 1; k < n; k++) {
			if (rem[k] > rem[best])
				best = k;	/* strictly: ties to the newer */
		}
		w[best]++;
		rem[best] = 0;
	}

	for (k = 0; k < CPECN_MAX_SEGS; k++)
		p->w[k] = k < n ? w[k] : 0;
	p->mask = ~0U >> (CPECN_MAX_M - m);
	p->alpha = (u16)alpha_permille;
	p->m = (u8)m;
	p->n = (u8)n;
	return 0;
}

/* CP of a whole window (bits beyond m are ignored), ppm. */
static inline u32 cpecn_cp_of(const struct cpecn_params *p, u32 bits)
{
	u32 v, cp = 0, k;

	/* each nibble of v: the number of bits set in that nibble of bits */
	v = bits - ((bits >> 1) & 0x55555555U);
	v = (v & 0x33333333U) + ((v >> 2) & 0x33333333U);
	for (k = 0; k < p->n; k++, v >>= CPECN_SEG_ACKS)
		cp += p->w[k] * (v & 0xfU);
	return cp;
}

/* A new connection: empty window (all zero), CP = dCP = 0. */
static inline void cpecn_reset(struct cpecn_state *s)
{
	s->bits = 0;
	s->acks = 0;
	s->cp = 0;
	s->dcp = 0;
}

/* One ACK with ECN-Echo @ece: shift it in, update CP and dCP. */
static inline void cpecn_push(struct cpecn_state *s,
			      const struct cpecn_params *p, bool ece)
{
	u32 cp;

	s->bits = ((s->bits << 1) | (ece ? 1U : 0U)) & p->mask;
	if (s->acks != ~0U)
		s->acks++;
	cp = cpecn_cp_of(p, s->bits);
	s->dcp = (s32)cp - (s32)s->cp;
	s->cp = cp;
}

/* CPECN's verdict on a loss event: congestion iff dCP > 0. */
static inline bool cpecn_congested(const struct cpecn_state *s)
{
	return s->dcp > 0;
}

/* The ECE bit of the last ACK pushed. */
static inline bool cpecn_last_ece(const struct cpecn_state *s)
{
	return s->bits & 1;
}

/*
 * WECN's verdict on a loss event: the ECE bit of the ACK that reveals the
 * loss, 1 congestion, 0 corruption. Trivial on purpose.
 */
static inline bool cpecn_wecn_congested(bool ece)
{
	return ece;
}

/* Have m ACKs been seen (the window holds no padding zeros)? */
static inline bool cpecn_window_full(const struct cpecn_state *s,
				     const struct cpecn_params *p)
{
	return s->acks >= p->m;
}

/*
 * CP or dCP (ppm) in per-mille, rounded to nearest, halves away from 0.
 * For full precision print ppm as "%u.%06u", v / CPECN_CP_UNIT,
 * v % CPECN_CP_UNIT (with the sign apart for dCP).
 */
static inline s32 cpecn_permille(s32 ppm)
{
	const s32 d = CPECN_CP_UNIT / 1000;

	if (ppm < 0)
		return -((-ppm + d / 2) / d);
	return (ppm + d / 2) / d;
}

#endif /* _SPECNET_CPECN_H */

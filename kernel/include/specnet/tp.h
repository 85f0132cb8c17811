/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TCP-TP: throughput sampling, interval aggregation and the LMMSE
 * predictor of the next interval's throughput, as pure integer maths.
 * tcp_tp and `specctl model tp` both compute through this header;
 * tests/unit/test_tp.c checks it against a double-precision reference and
 * tests/bench/tp_cost.sh counts its cost per update with callgrind.
 *
 * Model (docs/algorithms.md, TCP-TP):
 *
 *   sample     f <- (1 - a) f + a * 8 bytes_acked / (t - t0)    bit/s,
 *              a = 2^-ewma_shift, once per sampling period (t - t0 >=
 *              sample_us); the first sample sets f
 *   aggregate  f^(m)(k) = mean of the samples f of interval k (tau)
 *   ring       the last n = TP_N = 20 of them, f(1) oldest .. f(n) newest
 *   LMMSE      mu = (1/n) sum_t f(t),  x(t) = f(t) - mu
 *              R(i) = sum_{t=i+1..n} x(t) x(t-i),  i = 0..p
 *              (the biased estimator; the 1/n is left out: the solution
 *              is scale invariant), r(i) = R(i) / R(0)
 *              Levinson-Durbin on the Toeplitz system sum_j a_j r(|i-j|)
 *              = r(i), i = 1..p:
 *                E = 1;  for m = 1..p:
 *                  k = (r(m) - sum_{j<m} a_j r(m-j)) / E
 *                  a_j <- a_j - k a_{m-j} (j < m),  a_m = k
 *                  E <- E - k (r(m) - sum_{j<m} a_j r(m-j))  (= E (1 - k^2))
 *              f^(m)(n+1) = mu + sum_{i=1..p} a_i x(n+1-i)
 *   NLMS       (option, TP_METHOD_LMS) weights w_1..w_p kept across
 *              intervals; on each new sample, in the new window:
 *              u_i = x(n-i), d = x(n), e = d - sum w_i u_i,
 *              w_i <- w_i + mu_l e u_i / (eps + sum_j u_j^2),
 *              eps = (1/n) sum_t x(t)^2,  mu_l = 2^-mu_shift (1/16);
 *              prediction as above with w for a
 *   flows      N = ceil(C / prediction) (the paper's), or the nearest
 *              integer (tcptp_flows_nearest(), the module's default), in
 *              [1, TP_MAX_FLOWS]
 *   window     cwnd = floor(C RTT / (8 N mss)) packets, in [2, U32_MAX];
 *              the module then applies min(cwnd, snd_cwnd_clamp)
 *
 * Fixed point and ranges (the bounds below are what the code relies on):
 *  - rates are u64 bit/s; samples, C and everything pushed are clamped to
 *    TP_RATE_MAX = 2e11 bit/s (200 Gbit/s, < 2^38): 2x headroom over a
 *    100 Gbit/s link for sampling noise.
 *  - mean removal is exact: x'(t) = n f(t) - S with S = sum f < 2^43, so
 *    |x'| < 2^43 (n x the deviation, no rounding).
 *  - pre-scaling: x(t) = round(x'(t) / 2^s), s the smallest shift with
 *    max |x'| < 2^(26 + s): |x| <= 2^26 (TP_DEV_BITS), s <= 17. Scaling
 *    the series leaves r, a and w unchanged; when s > 0 it rounds each
 *    deviation by at most 2^-26 of the largest one.
 *  - R(i): |x x| <= 2^52, 20 terms: |R| < 2^57. |R(i)| <= R(0) (Cauchy-
 *    Schwarz, exact integers). R is shifted right until R(0) < 2^39, then
 *    r(i) = round(R(i) 2^24 / R(0)): |R(i) 2^24| < 2^63.
 *  - Q24 (TP_SCALE) for r, k, E, a and w: |r| <= 2^24, |k| < 2^24,
 *    0 < E <= 2^24; |a|, |w| < 2^36 (|value| < 4096, TP_COEF_MAX).
 *  - Levinson: order m is only entered with max |a| < 2^35 (then |a| <
 *    2^36 after it, as |k| < 1): a r < 2^59 and k a < 2^59 before their
 *    >> 24, num < 2^40 after; k num < 2^48; |num| < E so num 2^24 < 2^48.
 *  - prediction: a x < 2^62 per term before >> 24, D = sum < 2^43,
 *    D 2^s < 2^60, S + D 2^s < 2^61.
 *  - NLMS: |e| clipped to 2^27 (TP_ERR_MAX), eps + sum u^2 < 2^58;
 *    g = e 2^30 / ((eps + sum u^2) >> ns), ns making the divisor < 2^32;
 *    g u_i < 2^58.
 *  - sampler: bytes since t0 saturate at 2^40 (TP_BYTES_MAX), 8e6 bytes
 *    < 2^63; an interval sums at most 2^24 samples (< 2^62).
 *  - cwnd: C < 2^38, RTT clamped to 1e7 us (< 2^24): C RTT < 2^62;
 *    8e6 N mss < 2^23 2^20 2^16 = 2^59 (mss clamped to 65535).
 *  - times are u32 us (tcp_mstamp's low bits), differences modulo 2^32.
 *  In the kernel, divisions are div64_u64() on magnitudes (no signed or
 *  128-bit division); on the host '/'. No floating point, no libc.
 *  Stack: tcptp_push() needs ~200 bytes (tcptp_autocov()'s R[0..p], 160); its
 *  scratch x[] and r[] live in struct tcptp_state.
 *
 * Choices we made (where algorithms.md is silent):
 *  - order p: 1..n - 1 = 19 (R(0..n-1) can be estimated from n samples,
 *    so Yule-Walker gives at most a_1..a_{n-1}; the doc's a_n would need
 *    R(n), an empty sum; a_i multiplies lag i). Default 2: on 20-sample
 *    windows of AR(1), AR(2) and fGn (H = 0.75) series, orders 1-2 give the
 *    lowest one-step error and 19 the highest (it fits the window's noise;
 *    tests/unit/test_tp.c prints the table: rms error / the mean's, AR(1)
 *    0.68 p=1, 0.70 p=2, 0.82 p=19; AR(2) 0.74, 0.73, 0.85; fGn 0.96,
 *    0.97, 1.00). p = 2 is the lowest order that can follow AR(2).
 *  - Levinson stops at the last good order m - 1 (flags say why) when:
 *    |k| >= 1 (TP_F_UNSTABLE), E < 2^-10 (TP_F_SMALL_E: the window is
 *    already predicted within 0.1% of its variance, further orders would
 *    fit rounding noise), or max |a| >= 2048 (TP_F_CAP). On windows they
 *    are safety nets that keep the bounds above unconditional: the biased
 *    estimate is positive semi-definite (|k| < 1 but for rounding), a
 *    search over 20-sample windows found E_19 >= 0.014, and with E >=
 *    2^-10, sum |a| <= prod (1 + |k|) stays near 4300 (max |a| < 2048 in
 *    every pattern tried). tcptp_levinson() on other r may reach them.
 *  - R(0) == 0 (constant or all-zero window): prediction = mean exactly,
 *    order 0 (TP_F_CONST). No division by zero anywhere.
 *  - the prediction is clamped to [0, 2 max_t f(t)] (TP_F_LOW, TP_F_HIGH).
 *  - NLMS (normalized LMS: scale invariant, so the per-window pre-scaling
 *    does not disturb it) starts from the Levinson solution of the first
 *    full window; it is then updated once per new sample and never
 *    re-solved. The regularization eps (the window's energy per sample,
 *    also scale invariant) keeps the step bounded when the u_i happen to
 *    be near 0: without it p = 1 predicted 3.4x worse than the mean on
 *    AR(1). Step 1/16: of 2^0..2^-5, 2^-4 and 2^-5 predicted best on
 *    AR(1), AR(2) and fGn (within 1% of each other); 2^-4 adapts twice as
 *    fast (~16 intervals). |e| is
 *    clipped to 2^27, twice the largest deviation (robust to one
 *    outlier), and w is saturated at TP_COEF_MAX.
 *  - sampling is time-based (not per amount acked): a sample is taken on
 *    the first ACK at least sample_us after the previous one. After an
 *    idle or application-limited period call tcptp_sampler_restart().
 *  - an interval begins with its first sample and ends with the first
 *    sample at least interval_us later, which begins the next one (so its
 *    mean is pushed one sample late); interval_us = 0: every sample is an
 *    interval. Intervals without samples (idle) are not pushed.
 *  - N for prediction 0 is TP_MAX_FLOWS (cwnd then floors at 2); C = 0
 *    gives N = 1 and cwnd 2. cwnd rounds down (never above C RTT / N).
 *
 * Use from a congestion control module (state sizes in the structs):
 *
 *   init:        tcptp_sampler_init() (in icsk_ca_priv), kmalloc a struct
 *                tcptp_state and tcptp_state_init() it
 *   every ACK:   if (tcptp_sample_ack(...) && tcptp_aggregate(...))
 *                        ready = !tcptp_push(state, params, f_m);
 *   cong. avoid: once tcptp_ready(): N = tcptp_flows(C, tcptp_prediction(state)),
 *                cwnd = min(tcptp_cwnd(C, rtt_us, N, mss), snd_cwnd_clamp)
 */
#ifndef _SPECNET_TP_H
#define _SPECNET_TP_H

#include "types.h"

#define TP_N			20	/* ring: the last n aggregated samples */
#define TP_ORDER_MAX		(TP_N - 1)	/* p: predictor order */
#define TP_ORDER_DEFAULT	2
#define TP_SCALE			24	/* r, k, E, a, w: Q24 */
#define TP_UNIT			((s64)BIT_ULL(TP_SCALE))
#define TP_COEF_MAX		((s64)BIT_ULL(TP_SCALE + 12))	/* |a| < 4096 */
#define TP_E_MIN		(TP_UNIT >> 10)	/* stop below 2^-10 R(0) */
#define TP_DEV_BITS		26	/* pre-scaled deviations: |x| <= 2^26 */
#define TP_R0_BITS		39	/* R(0) < 2^39 before the division */
#define TP_ERR_MAX		((s64)BIT_ULL(TP_DEV_BITS + 1))	/* NLMS |e| */
#define TP_RATE_MAX		200000000000ULL	/* bit/s, 200 Gbit/s < 2^38 */
#define TP_BYTES_MAX		BIT_ULL(40)	/* bytes per sample, saturated */
#define TP_AGG_MAX		BIT_ULL(24)	/* samples per interval */
#define TP_MAX_RTT_US		10000000U	/* 10 s */
#define TP_INTERVAL_RTTS_MAX	16	/* aggregation interval: <= 16 srtt */
#define TP_INTERVAL_MAX_US	((u32)(BIT_ULL(31) - 1))	/* 35.8 min */
#define TP_MAX_FLOWS		1000000U
#define TP_MAX_MSS		65535U
#define TP_MIN_CWND		2U
#define TP_USEC_PER_SEC		1000000ULL

#define TP_EWMA_SHIFT_MAX	8
#define TP_EWMA_SHIFT_DEFAULT	2	/* a = 1/4 */
#define TP_MU_SHIFT_MAX		16
#define TP_MU_SHIFT_DEFAULT	4	/* NLMS step 1/16 */

enum tcptp_method {
	TP_METHOD_LEVINSON = 0,	/* LMMSE, solved per interval */
	TP_METHOD_LMS = 1,	/* normalized LMS, updated per interval */
};

/* tcptp_state.flags: how the last prediction was made */
#define TP_F_CONST		0x01	/* R(0) == 0: the mean */
#define TP_F_UNSTABLE		0x02	/* Levinson stopped: |k| >= 1 */
#define TP_F_SMALL_E		0x04	/* Levinson stopped: E < TP_E_MIN */
#define TP_F_CAP		0x08	/* Levinson stopped: |a| bound */
#define TP_F_LOW		0x10	/* prediction clamped up to 0 */
#define TP_F_HIGH		0x20	/* prediction clamped to 2 max f */

/* Configuration: one per module (module parameters). */
struct tcptp_params {
	u8 method;		/* enum tcptp_method */
	u8 order;		/* p, 1..TP_ORDER_MAX */
	u8 ewma_shift;		/* sampler weight a = 2^-ewma_shift, 0..8 */
	u8 mu_shift;		/* NLMS step 2^-mu_shift, 0..16 (4) */
};

/* The sampler: 40 bytes, fits in icsk_ca_priv (104 bytes). */
struct tcptp_sampler {
	u64 rate;		/* f, bit/s (EWMA), valid once has_rate */
	u64 bytes;		/* acked since t0_us, <= TP_BYTES_MAX */
	u64 agg_sum;		/* sum of f over the current interval */
	u32 t0_us;		/* start of the current sample period */
	u32 agg_start_us;	/* first sample of the current interval */
	u32 agg_cnt;		/* samples in the current interval */
	u8 has_rate;		/* f has been set */
};

/*
 * The ring and the predictor: 496 bytes, kmalloc() it per socket.
 * x[] and r[] are scratch space of tcptp_push() (kept here, not on the
 * stack); coef[] is the last Levinson solution or the NLMS weights.
 */
struct tcptp_state {
	u64 ring[TP_N];			/* f^(m), bit/s; ring[head] oldest */
	s64 coef[TP_ORDER_MAX];		/* a_1..a_p (or w), Q24 */
	s32 x[TP_N];			/* deviations, pre-scaled, oldest first */
	s32 r[TP_N];			/* r(0..p), Q24 */
	u64 pred;			/* last prediction, bit/s */
	u64 mean;			/* mean of the window, bit/s, rounded */
	u8 head;			/* next slot to write */
	u8 count;			/* samples in the ring, <= TP_N */
	u8 order;			/* order of the last prediction */
	u8 flags;			/* TP_F_* of the last prediction */
	u8 shift;			/* s: pre-scaling of the last window */
	u8 primed;			/* coef[] set by a first solve (NLMS) */
};

/* ---- helpers: magnitudes and rounding ---- */

static inline u64 tcptp_abs64(s64 v)
{
	return v < 0 ? -(u64)v : (u64)v;
}

/* round(a / b), b > 0, half away from zero */
static inline s64 tcptp_div_round(s64 a, u64 b)
{
	u64 q = div64_u64(tcptp_abs64(a) + (b >> 1), b);

	return a < 0 ? -(s64)q : (s64)q;
}

/*
 * round(v / 2^n), half away from zero (symmetric: no bias by sign), for
 * |v| < 2^63 - 2^(n-1). Branch-free: with h = 2^(n-1), for v < 0,
 * floor((v + h - 1) / 2^n) = -floor((-v + h) / 2^n) exactly. Uses the
 * arithmetic right shift of negative values (gcc, as the kernel does).
 */
static inline s64 tcptp_shr_round(s64 v, u32 n)
{
	if (!n)
		return v;
	return (v + (s64)BIT_ULL(n - 1) - (v < 0)) >> n;
}

/* round(a b / 2^24), |a b| < 2^63 */
static inline s64 tcptp_mulq(s64 a, s64 b)
{
	return tcptp_shr_round(a * b, TP_SCALE);
}

/* ---- configuration ---- */

static inline void tcptp_params_default(struct tcptp_params *p)
{
	p->method = TP_METHOD_LEVINSON;
	p->order = TP_ORDER_DEFAULT;
	p->ewma_shift = TP_EWMA_SHIFT_DEFAULT;
	p->mu_shift = TP_MU_SHIFT_DEFAULT;
}

/* The single validity check every entry point calls: 0 or -EINVAL. */
static inline int tcptp_check_params(const struct tcptp_params *p)
{
	if (p->method != TP_METHOD_LEVINSON && p->method != TP_METHOD_LMS)
		return -EINVAL;
	if (!p->order || p->order > TP_ORDER_MAX)
		return -EINVAL;
	if (p->ewma_shift > TP_EWMA_SHIFT_MAX || p->mu_shift > TP_MU_SHIFT_MAX)
		return -EINVAL;
	return 0;
}

/* ---- sampling and aggregation ---- */

static inline void tcptp_sampler_init(struct tcptp_sampler *s, u32 now_us)
{
	s->rate = 0;
	s->bytes = 0;
	s->agg_sum = 0;
	s->t0_us = now_us;
	s->agg_start_us = now_us;
	s->agg_cnt = 0;
	s->has_rate = 0;
}

/* After idle: drop the partial sample and interval, keep f. */
static inline void tcptp_sampler_restart(struct tcptp_sampler *s, u32 now_us)
{
	s->bytes = 0;
	s->agg_sum = 0;
	s->agg_cnt = 0;
	s->t0_us = now_us;
	s->agg_start_us = now_us;
}

/*
 * Account @bytes acked at @now_us. Once at least @sample_us (>= 1) have
 * passed since the previous sample, take one: the rate 8 bytes / dt
 * (clamped to TP_RATE_MAX) enters the EWMA, whose value goes to *f
 * (bit/s); returns true then, false otherwise.
 */
static inline bool tcptp_sample_ack(struct tcptp_sampler *s, const struct tcptp_params *p,
				    u32 bytes, u32 now_us, u32 sample_us, u64 *f)
{
	u32 dt = now_us - s->t0_us;
	u64 rate;

	s->bytes = min_t(u64, s->bytes + bytes, TP_BYTES_MAX);
	if (dt < max_t(u32, sample_us, 1))
		return false;
	/* bytes 8e6 <= 2^40 2^23 */
	rate = div64_u64(s->bytes * 8 * TP_USEC_PER_SEC, dt);
	rate = min_t(u64, rate, TP_RATE_MAX);
	if (s->has_rate)
		s->rate += tcptp_shr_round((s64)rate - (s64)s->rate,
					   min_t(u32, p->ewma_shift, TP_EWMA_SHIFT_MAX));
	else
		s->rate = rate;
	s->has_rate = 1;
	s->bytes = 0;
	s->t0_us = now_us;
	*f = s->rate;
	return true;
}

/*
 * The aggregation interval, us: @rtts srtt (@rtts 1..TP_INTERVAL_RTTS_MAX),
 * at most TP_INTERVAL_MAX_US. The product is taken in u64: the stack's
 * srtt in us (srtt_us >> 3) reaches 2^29 - 1, and 16 of it 2^33 - 16, so
 * in u32 it wrapped from srtt = 2^28 us (4.5 min) on (to 0 exactly there).
 * The clamp keeps it below 2^31: the caller compares times of the u32 us
 * clock by their s32 difference.
 */
static inline u32 tcptp_interval_us(u32 rtts, u32 srtt_us)
{
	return (u32)min_t(u64, (u64)rtts * srtt_us, TP_INTERVAL_MAX_US);
}

/*
 * Add sample @f taken at @now_us to the current interval. When it is the
 * first sample at least @interval_us after the interval's first one, the
 * interval is over: its mean (bit/s, rounded) goes to *fm, true is
 * returned, and @f begins the next interval.
 */
static inline bool tcptp_aggregate(struct tcptp_sampler *s, u64 f, u32 now_us,
				   u32 interval_us, u64 *fm)
{
	bool done = false;

	if (s->agg_cnt && (u32)(now_us - s->agg_start_us) >= interval_us) {
		*fm = div64_u64(s->agg_sum + (s->agg_cnt >> 1), s->agg_cnt);
		s->agg_sum = 0;
		s->agg_cnt = 0;
		done = true;
	}
	if (!s->agg_cnt)
		s->agg_start_us = now_us;
	if (s->agg_cnt < TP_AGG_MAX) {
		s->agg_sum += min_t(u64, f, TP_RATE_MAX);
		s->agg_cnt++;
	}
	return done;
}

/* ---- the predictor ---- */

static inline void tcptp_state_init(struct tcptp_state *st)
{
	int i;

	for (i = 0; i < TP_N; i++) {
		st->ring[i] = 0;
		st->x[i] = 0;
		st->r[i] = 0;
	}
	for (i = 0; i < TP_ORDER_MAX; i++)
		st->coef[i] = 0;
	st->primed = 0;
	st->pred = 0;
	st->mean = 0;
	st->head = 0;
	st->count = 0;
	st->order = 0;
	st->flags = 0;
	st->shift = 0;
}

/* Has the ring n samples (a prediction)? Before that, behave as Reno. */
static inline bool tcptp_ready(const struct tcptp_state *st)
{
	return st->count >= TP_N;
}

/* The last prediction of the next interval, bit/s (if tcptp_ready()). */
static inline u64 tcptp_prediction(const struct tcptp_state *st)
{
	return st->pred;
}

/*
 * Deviations of the full ring, oldest first, into st->x (pre-scaled,
 * |x| <= 2^26; st->shift = s). Returns S = sum f; *max_f = max f.
 */
static inline u64 tcptp_deviations(struct tcptp_state *st, u64 *max_f)
{
	u64 sum = 0, top = 0, dmax = 0;
	u32 i, k;
	s64 d;
	int s;

	for (i = 0; i < TP_N; i++) {
		sum += st->ring[i];
		top = max_t(u64, top, st->ring[i]);
	}
	for (i = 0; i < TP_N; i++)
		dmax = max_t(u64, dmax, tcptp_abs64((s64)(TP_N * st->ring[i]) - (s64)sum));
	s = fls64(dmax) - TP_DEV_BITS;
	s = max_t(int, s, 0);
	k = st->head;
	for (i = 0; i < TP_N; i++) {
		d = (s64)(TP_N * st->ring[k]) - (s64)sum;	/* |d| < 2^43 */
		st->x[i] = (s32)tcptp_shr_round(d, s);
		if (++k == TP_N)
			k = 0;
	}
	st->shift = (u8)s;
	*max_f = top;
	return sum;
}

/*
 * r(0..order) of st->x into st->r, Q24 (r(0) = 1). Returns false if
 * R(0) == 0 (constant window).
 */
static inline bool tcptp_autocov(struct tcptp_state *st, u32 order)
{
	s64 acc[TP_N];
	u32 i, t;
	int sh;

	for (i = 0; i <= order; i++) {
		acc[i] = 0;
		for (t = i; t < TP_N; t++)	/* |x x| <= 2^52, sum < 2^57 */
			acc[i] += (s64)st->x[t] * st->x[t - i];
	}
	if (!acc[0])
		return false;
	sh = fls64((u64)acc[0]) - TP_R0_BITS;
	sh = max_t(int, sh, 0);
	for (i = 0; i <= order; i++)
		acc[i] = tcptp_shr_round(acc[i], sh);	/* |R(i)| <= R(0) < 2^39 */
	st->r[0] = (s32)TP_UNIT;
	for (i = 1; i <= order; i++)
		st->r[i] = (s32)tcptp_div_round(acc[i] * TP_UNIT, (u64)acc[0]);
	return true;
}

/*
 * Levinson-Durbin on r(0..order) (Q24, r(0) = 1): a_1..a_m into a[0..m-1]
 * (Q24; a[m..order-1] zeroed), m the order reached (<= order), returned;
 * the reason for stopping early, if any, is or-ed into *flags.
 */
static inline u32 tcptp_levinson(const s32 *r, u32 order, s64 *a, u8 *flags)
{
	s64 e = TP_UNIT, num, k, lo, hi, amax = 0;
	u32 m, j, l, done = 0;

	for (j = 0; j < order; j++)
		a[j] = 0;
	for (m = 1; m <= order; m++) {
		if (amax >= TP_COEF_MAX / 2) {
			*flags |= TP_F_CAP;
			break;
		}
		if (e < TP_E_MIN) {
			*flags |= TP_F_SMALL_E;
			break;
		}
		num = r[m];
		for (j = 1; j < m; j++)		/* |a r| < 2^59 */
			num -= tcptp_mulq(a[j - 1], r[m - j]);
		if ((s64)tcptp_abs64(num) >= e) {
			*flags |= TP_F_UNSTABLE;
			break;
		}
		k = tcptp_div_round(num * TP_UNIT, e);	/* |num 2^24| < 2^48 */
		if ((s64)tcptp_abs64(k) >= TP_UNIT) {
			*flags |= TP_F_UNSTABLE;
			break;
		}
		/* a_j <- a_j - k a_{m-j}, pairwise in place; amax = max |a| */
		amax = (s64)tcptp_abs64(k);
		for (j = 1, l = m - 1; j < l; j++, l--) {
			lo = a[j - 1];
			hi = a[l - 1];
			a[j - 1] = lo - tcptp_mulq(k, hi);
			a[l - 1] = hi - tcptp_mulq(k, lo);
			amax = max_t(s64, amax, (s64)tcptp_abs64(a[j - 1]));
			amax = max_t(s64, amax, (s64)tcptp_abs64(a[l - 1]));
		}
		if (j == l) {
			a[j - 1] -= tcptp_mulq(k, a[j - 1]);
			amax = max_t(s64, amax, (s64)tcptp_abs64(a[j - 1]));
		}
		a[m - 1] = k;
		e -= tcptp_mulq(k, num);		/* |k num| < 2^48 */
		done = m;
	}
	return done;
}

/*
 * Prediction from coefficients c[0..order-1] (Q24) on the window in st->x
 * (sum S, largest sample max_f): mean + sum_i c_i x(n+1-i), clamped to
 * [0, 2 max_f]; sets st->pred and the clamp flags.
 */
static inline void tcptp_apply(struct tcptp_state *st, const s64 *c, u32 order,
			       u64 sum, u64 max_f)
{
	s64 d = 0, tot;
	u32 i;

	for (i = 1; i <= order; i++)	/* |c x| < 2^36 2^26 */
		d += tcptp_shr_round(c[i - 1] * st->x[TP_N - i], TP_SCALE);
	tot = (s64)sum + d * (s64)BIT_ULL(st->shift);	/* < 2^61 */
	if (tot <= 0) {
		st->pred = 0;
		st->flags |= tot < 0 ? TP_F_LOW : 0;
		return;
	}
	st->pred = div64_u64((u64)tot + TP_N / 2, TP_N);
	if (st->pred > 2 * max_f) {
		st->pred = 2 * max_f;
		st->flags |= TP_F_HIGH;
	}
}

/*
 * One NLMS step on the new window (st->x): u_i = x(n-i), d = x(n),
 * w_i += 2^-mu_shift e u_i / (eps + sum u^2), eps = sum_t x(t)^2 / n.
 */
static inline void tcptp_nlms_update(struct tcptp_state *st, u32 order, u32 mu_shift)
{
	u64 norm = 0, energy = 0;
	s64 y = 0, e, g;
	u32 i;
	int ns;

	for (i = 0; i < TP_N; i++)			/* < 2^57 */
		energy += (u64)((s64)st->x[i] * st->x[i]);
	for (i = 1; i <= order; i++) {
		s64 u = st->x[TP_N - 1 - i];

		y += tcptp_shr_round(st->coef[i - 1] * u, TP_SCALE);
		norm += (u64)(u * u);
	}
	norm += div64_u64(energy, TP_N);			/* < 2^57 + 2^53 */
	if (!norm)
		return;
	e = (s64)st->x[TP_N - 1] - y;
	e = min_t(s64, max_t(s64, e, -TP_ERR_MAX), TP_ERR_MAX);
	ns = fls64(norm) - 32;
	ns = max_t(int, ns, 0);
	g = tcptp_div_round(e * (s64)BIT_ULL(30), norm >> ns);	/* e 2^30 <= 2^57 */
	for (i = 1; i <= order; i++) {
		s64 w = st->coef[i - 1] +
			tcptp_shr_round(g * st->x[TP_N - 1 - i], 6 + ns + mu_shift);

		st->coef[i - 1] = min_t(s64, max_t(s64, w, -(TP_COEF_MAX - 1)),
					TP_COEF_MAX - 1);
	}
}

/*
 * Push the aggregated sample @fm (bit/s; clamped to TP_RATE_MAX) and, once
 * the ring holds n samples, predict the next one into st->pred (with
 * st->mean, st->order, st->flags, st->coef). Returns 0 when a prediction
 * was made, -EAGAIN while fewer than n samples exist.
 */
static inline int tcptp_push(struct tcptp_state *st, const struct tcptp_params *p, u64 fm)
{
	u32 order = min_t(u32, max_t(u32, p->order, 1), TP_ORDER_MAX);
	bool lms = p->method == TP_METHOD_LMS;
	u64 sum, max_f;
	u32 i;

	st->ring[st->head] = min_t(u64, fm, TP_RATE_MAX);
	if (++st->head == TP_N)
		st->head = 0;
	if (st->count < TP_N)
		st->count++;
	if (st->count < TP_N)
		return -EAGAIN;

	sum = tcptp_deviations(st, &max_f);
	st->mean = div64_u64(sum + TP_N / 2, TP_N);
	st->flags = 0;
	st->order = (u8)order;
	if (max_f * TP_N == sum) {
		/* constant window, R(0) == 0: the mean; NLMS keeps its w */
		if (!lms || !st->primed) {
			for (i = 0; i < TP_ORDER_MAX; i++)
				st->coef[i] = 0;
		}
		st->primed = 1;
		st->order = 0;
		st->flags = TP_F_CONST;
		st->pred = st->mean;
		return 0;
	}
	if (lms && st->primed) {
		tcptp_nlms_update(st, order, min_t(u32, p->mu_shift, TP_MU_SHIFT_MAX));
	} else {
		/* not constant: some |x| >= 1, so R(0) > 0 */
		if (tcptp_autocov(st, order)) {
			st->order = (u8)tcptp_levinson(st->r, order, st->coef, &st->flags);
		} else {
			for (i = 0; i < TP_ORDER_MAX; i++)
				st->coef[i] = 0;
			st->order = 0;
		}
		st->primed = 1;
	}
	tcptp_apply(st, st->coef, order, sum, max_f);
	return 0;
}

/*
 * N = round(C / pred), halves up, in [1, TP_MAX_FLOWS]; pred 0 gives
 * TP_MAX_FLOWS. The ceiling (tcptp_flows()) counts one flow too many whenever
 * the flows fill the link to any less than C: a lone flow that measures
 * 0.99 C (headers, sampling noise) gets N = 2 and half the link, and the
 * next prediction, of its own halved throughput, keeps it there; N flows
 * that each measure a hair under C / N compute N + 1. Rounding to the
 * nearest leaves noise below 1 / (2 N) of C / N without effect, either way.
 */
static inline u32 tcptp_flows_nearest(u64 capacity_bps, u64 pred_bps)
{
	u64 n;

	if (!pred_bps)
		return TP_MAX_FLOWS;
	/* C, pred <= TP_RATE_MAX < 2^38: no overflow */
	n = div64_u64(min_t(u64, capacity_bps, TP_RATE_MAX) + (pred_bps >> 1),
		      pred_bps);
	return (u32)min_t(u64, max_t(u64, n, 1), TP_MAX_FLOWS);
}

/* N = ceil(C / pred) in [1, TP_MAX_FLOWS]; pred 0 gives TP_MAX_FLOWS. */
static inline u32 tcptp_flows(u64 capacity_bps, u64 pred_bps)
{
	u64 n;

	if (!pred_bps)
		return TP_MAX_FLOWS;
	n = div64_u64(capacity_bps, pred_bps);
	if (n * pred_bps < capacity_bps)
		n++;
	return (u32)min_t(u64, max_t(u64, n, 1), TP_MAX_FLOWS);
}

/*
 * cwnd = floor(C rtt / (8 N mss)) packets in [TP_MIN_CWND, U32_MAX]. C is
 * clamped to TP_RATE_MAX, rtt to TP_MAX_RTT_US, N to [1, TP_MAX_FLOWS],
 * mss to TP_MAX_MSS; mss 0 gives TP_MIN_CWND.
 */
static inline u32 tcptp_cwnd(u64 capacity_bps, u32 rtt_us, u32 flows, u32 mss)
{
	u64 c = min_t(u64, capacity_bps, TP_RATE_MAX);
	u64 rtt = min_t(u32, rtt_us, TP_MAX_RTT_US);
	u64 n = min_t(u32, max_t(u32, flows, 1), TP_MAX_FLOWS);
	u64 w;

	if (!mss)
		return TP_MIN_CWND;
	mss = min_t(u32, mss, TP_MAX_MSS);
	/* C rtt < 2^62; 8e6 N mss < 2^59 */
	w = div64_u64(c * rtt, 8 * TP_USEC_PER_SEC * n * mss);
	return (u32)min_t(u64, max_t(u64, w, TP_MIN_CWND), U32_MAX);
}

/*
 * The band cwnd is held in, in congestion avoidance, once N is known:
 *   lo = N's window at rtt_us (the module's `rtt`: min or srtt),
 *   hi = N - 1's window at srtt_us, plus one packet (N = 1: hi = lo),
 * each at most clamp (snd_cwnd_clamp), and hi >= lo (srtt below the
 * windowed min RTT, rare, would invert them). hi uses srtt whatever rtt_us
 * is: it is the window at which this flow's throughput, its window over
 * the RTT it sees, would be C / (N - 1). The extra packet: N - 1's window
 * is above N's by 1 / (N - 1) of it, under one packet for a flow of a
 * small share (8 packets at N = 12: 8.7), and rounded down it left such a
 * flow no room to grow while larger ones had some (10 flows in the VM:
 * window_down 330-390 times a run, 200-250 with the packet).
 */
static inline void tcptp_band(u64 capacity_bps, u32 rtt_us, u32 srtt_us, u32 flows, u32 mss,
			      u32 clamp, u32 *lo, u32 *hi)
{
	*lo = min_t(u32, tcptp_cwnd(capacity_bps, rtt_us, flows, mss), clamp);
	*hi = *lo;
	if (flows > 1) {
		*hi = tcptp_cwnd(capacity_bps, srtt_us, flows - 1, mss);
		if (*hi < U32_MAX)
			(*hi)++;
	}
	*hi = min_t(u32, *hi, clamp);
	*hi = max_t(u32, *hi, *lo);
}

/*
 * cwnd moved into [lo, hi], never below TP_MIN_CWND; floor 0 (while a
 * decrease stands: tcptp_decrease_stands()) leaves out the lower edge.
 */
static inline u32 tcptp_band_window(u32 cwnd, u32 lo, u32 hi, int floor)
{
	u32 l = floor ? max_t(u32, lo, TP_MIN_CWND) : TP_MIN_CWND;
	u32 h = max_t(u32, hi, TP_MIN_CWND);

	return cwnd < l ? l : cwnd > h ? h : cwnd;
}

/*
 * Whether a decrease (a loss or an ECN reduction) still stands against the
 * band's floor: dec_flows is the smallest N seen at a decrease since it
 * began to stand (0: none stands, or there was no N). The floor would hand
 * back the share the congestion signal took away, one interval later, to a
 * flow whose competitors (Reno, CUBIC) are still below theirs, and so
 * take more than its share of an ECN bottleneck. So the decrease
 * stands until the prediction shows fewer flows than at the decrease
 * (N < dec_flows: capacity freed, as when on/off cross traffic goes off),
 * or until additive increase has brought cwnd back to lo at N = dec_flows.
 * While N is above dec_flows (the flow's own throughput fell with the
 * decrease), lo is that larger N's, below the floor the decrease took the
 * flow under: reaching it proves nothing, and the floor would lift the
 * flow as soon as N came back. Returns the dec_flows to keep: 0 once the
 * decrease no longer stands.
 */
static inline u32 tcptp_decrease_stands(u32 dec_flows, u32 flows, u32 cwnd, u32 lo)
{
	if (!dec_flows || (flows && flows < dec_flows) ||
	    (flows == dec_flows && cwnd >= lo))
		return 0;
	return dec_flows;
}

/* A decrease at N = flows (0: no N yet): the N it stands against. */
static inline u32 tcptp_decrease(u32 dec_flows, u32 flows)
{
	if (!dec_flows)
		return flows;
	return flows ? min_t(u32, dec_flows, flows) : dec_flows;
}

#endif /* _SPECNET_TP_H */

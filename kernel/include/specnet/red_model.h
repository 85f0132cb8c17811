/* SPDX-License-Identifier: GPL-2.0 */
/*
 * redopt: the RED buffer model (docs/algorithms.md, RED model) as pure
 * integer maths. sch_redopt, the tc plugin q_redopt.so and
 * `specctl model red` all compute through this header, so the kernel and
 * the tools agree bit for bit; tests/unit/test_red_model.c checks it
 * against a floating-point (long double) reference.
 *
 * Goal: no congestion drop with ECN-capable flows, with the smallest buffer
 * and the smallest max threshold (hence the smallest queueing delay).
 *
 * Inputs: m flows sharing a bottleneck of C bit/s, round-trip time r, packet
 * size s bytes, slow-start thresholds SSth_i, window at the first mark W_i,
 * RED min_th, max_p, EWMA weight w = 2^-Wlog, loss-event rate lambda.
 * Flow i's share is mu_i = C / (8 s m) packets/s. Model:
 *
 *   pipe   = sum_i r mu_i = r C / (8 s)            packets in flight
 *   L      = ceil( sum_i SSth_i - pipe ),  >= 1     buffer: the largest queue,
 *                                                   at the end of slow start
 *   limit  = max(L, max_th + 1)                     hard limit in force
 *
 *   p(Q)   = max_p (Q - min_th) / (max_th0 - min_th),  max_th0 = 3 min_th
 *   Qmax   = min_th + sum_i ( 1 / (p(Qmax) W_i) + w )
 *   max_th = ceil(Qmax)
 *
 * p is linear, so with x = Qmax - min_th and k = max_p / (2 min_th):
 *
 *   x = A / x + B,   A = (sum_i 1/W_i) / k,   B = m w
 *   x = (B + sqrt(B^2 + 4 A)) / 2        (positive root of x^2 - B x - A)
 *
 *   W_i    = W if given, else (pipe + min_th) / m   (fractional, exact)
 *   alpha  = C / (8 s mu_bar),  mu_bar = 2 / (lambda r^2) packets/s
 *          = pipe * lambda * r / 2       bound on m: beyond alpha flows the
 *                                        model no longer holds (renewal model,
 *                                        eq. 21 of the paper)
 *
 * Examples (tests/unit/test_red_model.c): two flows, SSth 15 and 15, RTT
 * 59 ms, C 1.5 Mbit/s, s 1000 B: r mu_i = 5.53, L = ceil(30 - 11.06) = 19.
 * m = 2, W = 38, Wlog 9, min_th 5, max_p 0.1: Qmax = 7.30, max_th = 8.
 *
 * Integer evaluation, exact:
 *
 *  - L: sum_i SSth_i is an integer S, so ceil(S - pipe) = S - floor(pipe)
 *    with floor(pipe) = floor(C r_us / (8e6 s)): one 64-bit division.
 *  - Qmax: write sum_i 1/W_i = Gn / Gd (integers, below) and max_p32 =
 *    max_p 2^32, so A = (Gn / Gd) 2^33 min_th / max_p32 and B = m 2^-Wlog.
 *    x being the positive root, for an integer X >= 0, x <= X / 1000 iff
 *    X^2 - 1000 B X - 10^6 A >= 0, i.e. (times 2^Wlog Gd max_p32 > 0) iff
 *
 *      X (X 2^Wlog - 1000 m) Gd max_p32  >=  10^6 Gn min_th 2^(33 + Wlog)  (*)
 *
 *    an integer test, evaluated exactly in 192 bits (struct redopt_wide).
 *    The closed form in integers gives the start,
 *      X0 = h + isqrt(h^2 + a),  h = floor(500 m / 2^Wlog),  a = floor(10^6 A)
 *    and an exponential then binary search on (*) from X0 returns the
 *    smallest X satisfying (*): X = ceil(1000 x) exactly, whatever the
 *    rounding of X0 (|X - X0| is a few units: 2 to 4 tests; at most ~66).
 *    So qmax_milli = 1000 min_th + X (Qmax rounded up to 1/1000 packet) and
 *    max_th = min_th + ceil(X / 1000) carry no rounding error, and
 *    ceil(qmax_milli / 1000) == max_th always.
 *  - W derived: W = (C r_us + 8e6 s min_th) / (8e6 s m), so Gn = 8e6 s m^2
 *    and Gd = C r_us + 8e6 s min_th; W given: Gn = m, Gd = W.
 *
 * Units and scales: packets and bytes are integers; times in us; C in bit/s;
 * max_p in units of 2^-32 (REDOPT_P_SCALE, as TCA_RED_MAX_P; 1.0 is
 * 0xffffffff); w = 2^-Wlog exactly (the qdisc's EWMA); results in 1/1000
 * packet or flow (REDOPT_MILLI, as TCA_REDOPT_QMAX); ppm helpers for tools.
 *
 * Input ranges (redopt_check_params() enforces them): C 1..1e11 (< 2^37),
 * r_us 1..1e7 (< 2^24), m 1..1024 (2^10), SSth 1..1e6 (< 2^20), s 64..65535
 * (< 2^16), min_th 1..1e6 (< 2^20), W 0 (derive) or 1..1e7 (< 2^24),
 * max_p32 1..2^32-1, Wlog 1..24, lambda 0 (n/a) or 1..2^32-1 milli-events/s.
 *
 * Overflow bounds in those ranges:
 *  - S <= 2^10 * 1e6 < 2^30; C r_us <= 1e18 < 2^60; 8e6 s < 2^39.
 *  - derived W: Gd <= 1e18 + 8e6 * 65535 * 1e6 = 1.53e18 < 2^61,
 *    Gn <= 8e6 * 65535 * 2^20 = 5.50e17 < 2^59; given W: Gn, Gd < 2^24.
 *  - (*): X < 2^32 (qmax_milli is u32, X <= U32_MAX - 1000 min_th), so
 *    X 2^Wlog < 2^56, LHS < 2^32 2^56 2^61 2^32 = 2^181 and
 *    RHS < 2^20 2^59 2^20 2^57 = 2^156: both fit 192 bits.
 *  - a: numerator 10^6 Gn min_th 2^33 < 2^132; a saturates at U64_MAX.
 *  - alpha * 1000 = C lambda_milli r_us^2 / (16e12 s): numerator
 *    < 2^37 2^32 2^48 = 2^117, divisor < 2^60; saturates at U64_MAX.
 *  - window_milli, pipe_milli <= 1.53e18 / (8000 * 64) < 2^42 (u64).
 *  - max_p_curve: max_p32 (max_th - min_th) < 2^32 2^22 = 2^54.
 *  - every result but m_bound_* fits its field or the parameters are
 *    rejected with -ERANGE.
 *
 * In the kernel, 64-bit divisions go through div64_u64()/div_u64() and the
 * square root is int_sqrt64(); on the host they are '/' and an exact
 * integer square root (both floor, so identical results). The 192-bit
 * division is bit-serial: no division instruction.
 *
 * Choices we made (where algorithms.md is silent):
 *  - one RTT and one W for all flows (one attribute each); SSth per flow.
 *  - L sums the signed terms: the link is work-conserving, so a flow below
 *    its share leaves room to the others. L is floored at 1 packet.
 *  - limit vs L: the model's L may be below max_th + 1; RED needs room
 *    above max_th, so the limit in force is max(L, max_th + 1). Both are
 *    reported (buffer = L, limit = in force).
 *  - w is 2^-Wlog, not the paper's decimal w (0.002 -> Wlog 9, 0.001953):
 *    the model must describe the EWMA that runs. Qmax is 7.30 either way.
 *  - derived W_i may be below one packet (many flows, small pipe): kept as
 *    is, the model is then outside its domain (see alpha).
 *  - max_th > min_th always (x > 0); max_th << Wlog must fit 32 bits, the
 *    rule of red.h's red_check_params(), so the qdisc can use red.h.
 *  - max_p_curve = p(max_th) on the model's curve max_p (Q - min_th) /
 *    (2 min_th): the max_P to give red_set_parms() with qth_max = max_th
 *    for the marking slope the model assumes (saturates at 0xffffffff).
 *  - lambda is optional (0 = n/a): m_bound = floor(alpha) and m_bound_milli
 *    are then 0 with m_bound_valid false. alpha may be < 1 (m_bound 0 with
 *    m_bound_valid true): check m_bound_valid, not m_bound.
 *  - flows must be given (1..1024): in adaptive mode the qdisc passes its
 *    estimate of m.
 */
#ifndef _SPECNET_RED_MODEL_H
#define _SPECNET_RED_MODEL_H

#include "types.h"
#include "../uapi/specnet/redopt.h"

#ifdef __KERNEL__
#include <linux/limits.h>
#include <linux/math.h>
#include <linux/math64.h>
#endif

#ifndef U32_MAX
#define U32_MAX			((u32)~0U)
#endif
#ifndef U64_MAX
#define U64_MAX			((u64)~0ULL)
#endif

/* Fixed-point scales */
#define REDOPT_P_SCALE		32	/* max_p: u32 in units of 2^-32 */
#define REDOPT_MILLI		1000U	/* results: 1/1000 packet (or flow) */
#define REDOPT_PPM		1000000U	/* tools' probabilities: 1e-6 */
#define REDOPT_USEC_PER_SEC	1000000ULL

/* Input ranges (see the overflow bounds above) */
#define REDOPT_MAX_BANDWIDTH	100000000000ULL	/* bit/s, 100 Gbit/s */
#define REDOPT_MAX_RTT_US	10000000U	/* 10 s */
#define REDOPT_MAX_SSTHRESH	1000000U	/* packets */
#define REDOPT_MIN_AVPKT	64U		/* bytes */
#define REDOPT_MAX_AVPKT	65535U		/* bytes */
#define REDOPT_MAX_MIN_TH	1000000U	/* packets */
#define REDOPT_MAX_WINDOW	10000000U	/* packets */
#define REDOPT_WLOG_MIN		1
#define REDOPT_WLOG_MAX		24

/* Defaults the entry points apply to absent optional attributes */
#define REDOPT_DEFAULT_WLOG	9	/* w = 2^-9 = 0.001953 */
#define REDOPT_DEFAULT_AVPKT	1000U	/* bytes */

/* Configuration: the model's inputs. */
struct redopt_model_params {
	u64 bandwidth_bps;	/* C, bit/s, 1..REDOPT_MAX_BANDWIDTH */
	u32 rtt_us;		/* r, us, 1..REDOPT_MAX_RTT_US */
	u32 flows;		/* m, 1..TC_REDOPT_MAX_FLOWS */
	const u32 *ssthresh;	/* SSth_i, packets: n_ssthresh values */
	u32 n_ssthresh;		/* 1 (same for all flows) or m */
	u32 window;		/* W_i, packets; 0 = derive (pipe + min_th) / m */
	u32 min_th;		/* packets, 1..REDOPT_MAX_MIN_TH */
	u32 max_p;		/* 2^-32 units (REDOPT_P_SCALE), > 0 */
	u8 wlog;		/* EWMA weight w = 2^-wlog, REDOPT_WLOG_MIN..MAX */
	u32 avpkt;		/* s, bytes, REDOPT_MIN_AVPKT..REDOPT_MAX_AVPKT */
	u32 loss_rate_milli;	/* lambda, 1/1000 loss event/s per flow; 0 = n/a */
};

/* Results of the model. */
struct redopt_model {
	u64 window_milli;	/* W_i used, 1/1000 packet (floor if derived) */
	u64 pipe_milli;		/* r C / (8 s), 1/1000 packet, floor */
	u64 m_bound_milli;	/* alpha, 1/1000 flow, floor, saturated */
	u32 buffer;		/* L, packets, >= 1 */
	u32 limit;		/* in force: max(L, qth_max + 1), packets */
	u32 qth_min;		/* min_th, packets */
	u32 qth_max;		/* max_th = ceil(Qmax), packets, > qth_min */
	u32 qmax_milli;		/* Qmax rounded up, 1/1000 packet */
	u32 max_p_curve;	/* p(qth_max) on the model's curve, 2^-32, sat. */
	u32 flows;		/* m used */
	u32 m_bound;		/* floor(alpha), flows, saturated at U32_MAX */
	bool m_bound_valid;	/* lambda given: m_bound* are meaningful */
};

/* ---- 64-bit division and square root, kernel and host ---- */

static inline u64 redopt_div_u64_u64(u64 a, u64 b)
{
	return div64_u64(a, b);
}

static inline u64 redopt_div_u64_u32(u64 a, u32 b)
{
	return div_u64(a, b);
}

#ifdef __KERNEL__
/* floor(sqrt(x)) */
static inline u32 redopt_isqrt64(u64 x)
{
	return int_sqrt64(x);
}
#else
/* floor(sqrt(x)), exact: digit-by-digit, as lib/math/int_sqrt.c */
static inline u32 redopt_isqrt64(u64 x)
{
	u64 r = 0, b = 1ULL << 62;

	while (b > x)
		b >>= 2;
	while (b) {
		if (x >= r + b) {
			x -= r + b;
			r = (r >> 1) + b;
		} else {
			r >>= 1;
		}
		b >>= 2;
	}
	return (u32)r;
}
#endif /* __KERNEL__ */

/* ---- 192-bit unsigned integers, just enough for test (*) ---- */

#define REDOPT_WIDE_LIMBS	6	/* 32-bit limbs, little endian */

struct redopt_wide {
	u32 l[REDOPT_WIDE_LIMBS];
};

static inline void redopt_wide_set(struct redopt_wide *w, u64 v)
{
	int i;

	w->l[0] = (u32)(v & U32_MAX);
	w->l[1] = (u32)(v >> 32);
	for (i = 2; i < REDOPT_WIDE_LIMBS; i++)
		w->l[i] = 0;
}

/* w *= f; each step (2^32 - 1)^2 + carry < 2^64 */
static inline void redopt_wide_mul32(struct redopt_wide *w, u32 f)
{
	u64 c = 0;
	int i;

	for (i = 0; i < REDOPT_WIDE_LIMBS; i++) {
		c += (u64)w->l[i] * f;
		w->l[i] = (u32)(c & U32_MAX);
		c >>= 32;
	}
}

/* w *= f = hi 2^32 + lo, as w lo + (w hi) 2^32; callers bound the result */
static inline void redopt_wide_mul(struct redopt_wide *w, u64 f)
{
	struct redopt_wide t = *w;
	u64 c = 0;
	int i;

	redopt_wide_mul32(w, (u32)(f & U32_MAX));
	redopt_wide_mul32(&t, (u32)(f >> 32));
	for (i = 1; i < REDOPT_WIDE_LIMBS; i++) {
		c += (u64)w->l[i] + t.l[i - 1];
		w->l[i] = (u32)(c & U32_MAX);
		c >>= 32;
	}
}

static inline int redopt_wide_cmp(const struct redopt_wide *a,
				  const struct redopt_wide *b)
{
	int i;

	for (i = REDOPT_WIDE_LIMBS - 1; i >= 0; i--) {
		if (a->l[i] != b->l[i])
			return a->l[i] < b->l[i] ? -1 : 1;
	}
	return 0;
}

/*
 * w = floor(w / d), returns w mod d; d > 0. Bit-serial long division: the
 * remainder stays below d, so 2 rem + 1 < 2^65; the bit shifted out (top)
 * means rem >= 2^64 > d, and rem - d is then exact modulo 2^64.
 */
static inline u64 redopt_wide_div(struct redopt_wide *w, u64 d)
{
	u64 rem = 0, top;
	u32 q;
	int i, b;

	for (i = REDOPT_WIDE_LIMBS - 1; i >= 0; i--) {
		q = 0;
		for (b = 31; b >= 0; b--) {
			top = rem >> 63;
			rem = (rem << 1) | ((w->l[i] >> b) & 1);
			q <<= 1;
			if (top || rem >= d) {
				rem -= d;
				q |= 1;
			}
		}
		w->l[i] = q;
	}
	return rem;
}

static inline u64 redopt_wide_to_u64_sat(const struct redopt_wide *w)
{
	int i;

	for (i = 2; i < REDOPT_WIDE_LIMBS; i++) {
		if (w->l[i])
			return U64_MAX;
	}
	return ((u64)w->l[1] << 32) | w->l[0];
}

/* ---- tools' units ---- */

/* max_p from 1e-6 units (0 < p <= 1), rounded; 0 if out of range */
static inline u32 redopt_max_p_from_ppm(u32 p_ppm)
{
	u64 v;

	if (!p_ppm || p_ppm > REDOPT_PPM)
		return 0;
	/* p 2^32 = ppm 2^32 / 1e6; ppm 2^32 <= 1e6 2^32 < 2^52 */
	v = redopt_div_u64_u32(((u64)p_ppm << REDOPT_P_SCALE) + REDOPT_PPM / 2,
			       REDOPT_PPM);
	return v > U32_MAX ? U32_MAX : (u32)v;	/* 1.0 -> 0xffffffff */
}

/* max_p (2^-32) in 1e-6 units, rounded */
static inline u32 redopt_max_p_to_ppm(u32 max_p)
{
	/* max_p 1e6 < 2^52 */
	return (u32)(((u64)max_p * REDOPT_PPM + (1ULL << (REDOPT_P_SCALE - 1))) >>
		     REDOPT_P_SCALE);
}

/*
 * The Wlog whose 2^-Wlog is nearest to w (1e-6 units, 0 < w < 1), in
 * REDOPT_WLOG_MIN..MAX; a tie goes to the larger weight. 0 if w is out of
 * range (redopt_check_params() rejects Wlog 0).
 */
static inline u8 redopt_wlog_from_ppm(u32 w_ppm)
{
	u64 target, v, d, best_d = U64_MAX;
	u8 k, best = 0;

	if (!w_ppm || w_ppm >= REDOPT_PPM)
		return 0;
	/* compare in units of 2^-24 ppm: w_ppm 2^24 < 2^44 */
	target = (u64)w_ppm << REDOPT_WLOG_MAX;
	for (k = REDOPT_WLOG_MIN; k <= REDOPT_WLOG_MAX; k++) {
		v = (u64)REDOPT_PPM << (REDOPT_WLOG_MAX - k);	/* 2^-k */
		d = v > target ? v - target : target - v;
		if (d < best_d) {
			best_d = d;
			best = k;
		}
	}
	return best;
}

/* ---- the model ---- */

/* Test (*) of the header comment, with its constant right-hand side. */
struct redopt_root {
	struct redopt_wide rhs;	/* 10^6 Gn min_th 2^(33 + Wlog) */
	u64 gd;			/* Gd: sum_i 1/W_i = Gn / Gd */
	u32 max_p;		/* 2^-32 */
	u32 flows;		/* m */
	u8 wlog;
};

/* x <= n / 1000 ?  (test (*) with X = n < 2^32) */
static inline bool redopt_root_le(const struct redopt_root *r, u64 n)
{
	struct redopt_wide lhs;
	u64 t = n << r->wlog;				/* n 2^Wlog < 2^56 */
	u64 b = (u64)REDOPT_MILLI * r->flows;		/* 1000 m */

	if (t <= b)	/* n (n 2^Wlog - 1000 m) <= 0 < RHS */
		return false;
	redopt_wide_set(&lhs, n);
	redopt_wide_mul(&lhs, t - b);
	redopt_wide_mul(&lhs, r->gd);
	redopt_wide_mul(&lhs, r->max_p);
	return redopt_wide_cmp(&lhs, &r->rhs) >= 0;
}

/*
 * Smallest X in 1..cap with x <= X / 1000 (i.e. ceil(1000 x)), starting
 * from the estimate x0; cap + 1 if there is none. X = 0 never satisfies
 * the test (RHS > 0). Invariant of the bisection: !le(lo) && le(hi).
 */
static inline u64 redopt_root_ceil(const struct redopt_root *r, u64 x0, u64 cap)
{
	u64 lo, hi, mid, d;

	x0 = min_t(u64, max_t(u64, x0, 1), cap);
	if (redopt_root_le(r, x0)) {
		hi = x0;
		for (d = 1; ; d <<= 1) {
			lo = hi > d ? hi - d : 0;
			if (!lo || !redopt_root_le(r, lo))
				break;
			hi = lo;
		}
	} else {
		lo = x0;
		for (d = 1; ; d <<= 1) {
			if (cap - lo <= d) {
				if (!redopt_root_le(r, cap))
					return cap + 1;
				hi = cap;
				break;
			}
			hi = lo + d;
			if (redopt_root_le(r, hi))
				break;
			lo = hi;
		}
	}
	while (hi - lo > 1) {
		mid = lo + ((hi - lo) >> 1);
		if (redopt_root_le(r, mid))
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

static inline int redopt__reject(const char **why, const char *reason, int err)
{
	if (why)
		*why = reason;
	return err;
}

/* Input ranges: -EINVAL for a missing (zero) or inconsistent value,
 * -ERANGE for a value outside its range.
 */
static inline int redopt__check_inputs(const struct redopt_model_params *p,
				       const char **why)
{
	u32 i;

	if (!p->bandwidth_bps)
		return redopt__reject(why, "bandwidth is required (bit/s)", -EINVAL);
	if (p->bandwidth_bps > REDOPT_MAX_BANDWIDTH)
		return redopt__reject(why,
				      "bandwidth must be 1..100000000000 bit/s (100 Gbit/s)",
				      -ERANGE);
	if (!p->rtt_us)
		return redopt__reject(why, "rtt is required (us)", -EINVAL);
	if (p->rtt_us > REDOPT_MAX_RTT_US)
		return redopt__reject(why, "rtt must be 1..10000000 us (10 s)", -ERANGE);
	if (!p->flows)
		return redopt__reject(why, "flows is required (1..1024)", -EINVAL);
	if (p->flows > TC_REDOPT_MAX_FLOWS)
		return redopt__reject(why, "flows must be 1..1024", -ERANGE);
	if (!p->ssthresh || !p->n_ssthresh)
		return redopt__reject(why, "ssthresh is required (packets)", -EINVAL);
	if (p->n_ssthresh != 1 && p->n_ssthresh != p->flows)
		return redopt__reject(why,
				      "ssthresh needs one value for all flows or one per flow",
				      -EINVAL);
	for (i = 0; i < p->n_ssthresh; i++) {
		if (!p->ssthresh[i] || p->ssthresh[i] > REDOPT_MAX_SSTHRESH)
			return redopt__reject(why, "ssthresh must be 1..1000000 packets", -ERANGE);
	}
	if (p->window > REDOPT_MAX_WINDOW)
		return redopt__reject(why,
				      "window must be 1..10000000 packets (0 = derive)",
				      -ERANGE);
	if (!p->min_th)
		return redopt__reject(why, "min_th is required (packets)", -EINVAL);
	if (p->min_th > REDOPT_MAX_MIN_TH)
		return redopt__reject(why, "min_th must be 1..1000000 packets", -ERANGE);
	if (!p->max_p)
		return redopt__reject(why, "max_p must be in (0, 1]", -EINVAL);
	if (p->wlog < REDOPT_WLOG_MIN || p->wlog > REDOPT_WLOG_MAX)
		return redopt__reject(why, "Wlog must be 1..24 (EWMA weight w = 2^-Wlog)", -ERANGE);
	if (!p->avpkt)
		return redopt__reject(why, "avpkt is required (bytes)", -EINVAL);
	if (p->avpkt < REDOPT_MIN_AVPKT || p->avpkt > REDOPT_MAX_AVPKT)
		return redopt__reject(why, "avpkt must be 64..65535 bytes", -ERANGE);
	return 0;
}

/*
 * Run the model: 0 and *out filled, or -EINVAL/-ERANGE with a static reason
 * string in *why (if why is not NULL) and *out untouched.
 */
static inline int redopt_model_compute(const struct redopt_model_params *p,
				       struct redopt_model *out, const char **why)
{
	const u64 c = p->bandwidth_bps, rtt = p->rtt_us, s = p->avpkt;
	const u32 m = p->flows, min_th = p->min_th;
	struct redopt_root root;
	struct redopt_wide w;
	u64 cr, pipe, sum_ss, buffer, gn, a, h, x0, cap, x, alpha_milli, w_milli;
	u32 qth_max, i;
	int err;

	err = redopt__check_inputs(p, why);
	if (err)
		return err;

	/* L = S - floor(r C / (8 s)), floored at 1 */
	cr = c * rtt;					/* C r_us <= 1e18 */
	pipe = redopt_div_u64_u64(cr, 8 * REDOPT_USEC_PER_SEC * s);
	if (p->n_ssthresh == 1) {
		sum_ss = (u64)p->ssthresh[0] * m;
	} else {
		sum_ss = 0;
		for (i = 0; i < m; i++)
			sum_ss += p->ssthresh[i];	/* < 2^30 */
	}
	buffer = sum_ss > pipe ? sum_ss - pipe : 1;

	/* sum_i 1/W_i = Gn / Gd */
	if (p->window) {
		gn = m;
		root.gd = p->window;
		w_milli = (u64)p->window * REDOPT_MILLI;
	} else {
		/* W = (C r_us + 8e6 s min_th) / (8e6 s m) */
		gn = 8 * REDOPT_USEC_PER_SEC * s * m * m;		/* < 2^59 */
		root.gd = cr + 8 * REDOPT_USEC_PER_SEC * s * min_th;	/* < 2^61 */
		w_milli = redopt_div_u64_u64(root.gd, REDOPT_MILLI * 8 * s * m);
	}
	root.max_p = p->max_p;
	root.flows = m;
	root.wlog = p->wlog;

	/* RHS of (*): 10^6 Gn min_th 2^(33 + Wlog) < 2^156 */
	redopt_wide_set(&root.rhs, (u64)REDOPT_MILLI * REDOPT_MILLI);
	redopt_wide_mul(&root.rhs, gn);
	redopt_wide_mul(&root.rhs, min_th);
	redopt_wide_mul(&root.rhs, 1ULL << (REDOPT_P_SCALE + 1 + p->wlog));

	/* a = floor(10^6 A) = floor(10^6 Gn min_th 2^33 / (Gd max_p32)) */
	redopt_wide_set(&w, (u64)REDOPT_MILLI * REDOPT_MILLI);
	redopt_wide_mul(&w, gn);
	redopt_wide_mul(&w, min_th);
	redopt_wide_mul(&w, 1ULL << (REDOPT_P_SCALE + 1));
	redopt_wide_div(&w, root.gd);
	redopt_wide_div(&w, p->max_p);
	a = redopt_wide_to_u64_sat(&w);

	/* X0 = h + sqrt(h^2 + a), h = 1000 B / 2 = 500 m 2^-Wlog <= 2^18 */
	cap = U32_MAX - (u64)REDOPT_MILLI * min_th;	/* qmax_milli fits u32 */
	h = ((u64)REDOPT_MILLI / 2 * m) >> p->wlog;
	if (a > U64_MAX - h * h)
		x0 = cap;
	else
		x0 = h + redopt_isqrt64(h * h + a);

	x = redopt_root_ceil(&root, x0, cap);		/* ceil(1000 x) */
	if (x > cap)
		return redopt__reject(why,
				      "max_th out of range (Qmax above 4294967 packets): raise max_p or the window",
				      -ERANGE);
	qth_max = min_th + ((u32)x + REDOPT_MILLI - 1) / REDOPT_MILLI;
	/* red.h: fls(qth_max) + Wlog < 32 */
	if (qth_max > (U32_MAX >> (p->wlog + 1)))
		return redopt__reject(why,
				      "max_th << Wlog exceeds 32 bits: lower Wlog (larger EWMA weight) or raise max_p",
				      -ERANGE);

	out->window_milli = w_milli;
	out->pipe_milli = redopt_div_u64_u64(cr, (u64)REDOPT_MILLI * 8 * s);
	out->buffer = (u32)buffer;
	out->limit = max_t(u32, (u32)buffer, qth_max + 1);
	out->qth_min = min_th;
	out->qth_max = qth_max;
	out->qmax_milli = REDOPT_MILLI * min_th + (u32)x;
	/* p(max_th) = max_p (max_th - min_th) / (2 min_th), < 2^54 before / */
	out->max_p_curve = (u32)min_t(u64, U32_MAX,
				      redopt_div_u64_u32((u64)p->max_p * (qth_max - min_th),
							 2 * min_th));
	out->flows = m;

	/* alpha = C lambda r^2 / (16 s): C lambda_milli r_us^2 / (16e12 s) */
	out->m_bound_valid = p->loss_rate_milli != 0;
	alpha_milli = 0;
	if (p->loss_rate_milli) {
		redopt_wide_set(&w, c);
		redopt_wide_mul(&w, rtt);
		redopt_wide_mul(&w, rtt);
		redopt_wide_mul(&w, p->loss_rate_milli);
		redopt_wide_div(&w, 16 * REDOPT_USEC_PER_SEC * REDOPT_USEC_PER_SEC * s);
		alpha_milli = redopt_wide_to_u64_sat(&w);
	}
	out->m_bound_milli = alpha_milli;
	out->m_bound = (u32)min_t(u64, U32_MAX,
				  redopt_div_u64_u32(alpha_milli, REDOPT_MILLI));
	if (why)
		*why = NULL;
	return 0;
}

/*
 * The single validity check every entry point (sch_redopt's netlink
 * change, q_redopt.so, specctl) calls: the inputs are in range AND the
 * model's results fit (it runs the model). 0, or -EINVAL/-ERANGE with a
 * human reason in *why: a static string, safe to hand to netlink as is.
 */
static inline int redopt_check_params(const struct redopt_model_params *p,
				      const char **why)
{
	struct redopt_model tmp;

	return redopt_model_compute(p, &tmp, why);
}

#endif /* _SPECNET_RED_MODEL_H */

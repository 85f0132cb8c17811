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
 *   L      = ceil( sum_i SSth_i - pipe ),  >= 1     ss_peak (buffer): the
 *                                                   queue at the end of slow
 *                                                   start (the paper's)
 *   ca_peak, transient                              below, "The peaks"
 *   limit  = max( max(L, ca_peak, transient) + 10 m,  max_th + 1 )
 *                                                   hard limit in force
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
 * The peaks. L is not the largest queue: after slow start the windows grow
 * by one packet per round trip each (Reno) while RED's average, updated
 * per arrival as avg += w (q - avg), lags the queue. Rounds k = 0, 1, ...
 * from the first whose windows fill the pipe: the windows sum to u = S + m k
 * (S = sum_i SSth_i), u packets arrive in the round and the queue ramps
 * from u - pipe by m over them, g = m / u per arrival. The lag d = q - avg
 * then follows d <- (1 - w) d + g, so over n arrivals
 *
 *   d_n = (1 - w)^n d_0 + (g / w) (1 - (1 - w)^n)
 *
 * (on a long ramp the average lags g / w = m / (w u) packets). The average
 * starts from 0 (the lowest it can be after slow start, so the peaks are
 * upper bounds on the model's queue):
 *
 *   ca_peak   = ceil(q) at the first arrival with avg >= min_th
 *   transient = ceil(q at H = m) + m, where the hazard H is the sum over
 *               arrivals of p(avg) past min_th: RED's count-based spacing
 *               marks at least once per unit of H while avg rises, so when
 *               H = m each flow (equal shares) has had its mark; the
 *               senders reduce one round trip later, each window one packet
 *               larger (the average reaching max_th in that round changes
 *               nothing: a sender reduces once a round trip, and forced
 *               marks do not stop the queue). If avg reaches max_th
 *               first (by_marks false), RED with ecn and without harddrop
 *               CE-marks every ECT arrival (forced marks), so each flow
 *               has its mark almost at once and the same round of
 *               feedback follows: transient = ceil(q at max_th) + m.
 *               With harddrop (or without ecn) RED drops those arrivals
 *               instead and the queue stops at ceil(q at max_th): lower,
 *               so the one figure bounds both.
 *
 * The order L <= ca_peak <= transient holds by construction; limit_by
 * names the largest (the first on a tie), or max_th. The margin, one
 * initial window (10 packets) per flow, covers bursts.
 *
 * Example, SSth 15 and 20 of the flows above: q_0 = 35 - 11.06 = 23.94,
 * (511/512)^35 = 0.934, d_1 = 0.934 * 23.94 + (2 * 512 / 35) * 0.066 =
 * 24.29, avg_1 = 1.65; avg reaches 5 at q = 29.68 (ca_peak 30) and 8 at
 * q = 32.68 with H = 0.94 < 2 (forced marks): transient ceil(32.68 + 2)
 * = 35, limit 55.
 *
 * The weight that follows the queue: wlog_follow is the smallest k with
 * 2^k >= pipe + min_th (in 1..24), an average whose time constant 1/w is
 * one to two rounds' arrivals with the queue at min_th (Adaptive RED sets
 * w from the link rate likewise); follow holds max_th, the peaks and the
 * limit at that weight (the first k down from there that max_th allows).
 * Reported only: the qdisc runs Wlog. In the example, k = 5 (16.06 per
 * round trip): ca_peak 25, avg at max_th with q = 24.68, transient 27,
 * limit 47.
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
 *  - peaks: pipe < 2^31 packets (2^47 in 2^-16). States kept have
 *    avg < max_th < 2^23 and d <= max(d_0, m 2^Wlog / u) <= max(2^30, 2^24)
 *    (a convex combination each step), so q < 2^31 and u = pipe + q < 2^32;
 *    h <= u / (R m) < 2^28, so n = h u + m h (h - 1) / 2 < 2^61; the lag
 *    m 2^(Wlog + 17) < 2^51 before its division; q, d < 2^49 (2^-16
 *    packet); products with powers (<= 2^62) < 2^113, shifted by 62.
 *    ca_peak, transient < 2^31 + m and limit < 2^32.
 *
 * Integer evaluation of the peaks: q, avg, d in 2^-16 packet; (1 - w)^n in
 * 2^-62 by squaring, so that g / w and its decay do not cancel to noise
 * when w n is small; H in 2^-32. A step covers h = max(1, floor(u / (R m)))
 * rounds (R = REDOPT_STEP_RATIO = 16) with the mean ramp g = m h / n: an
 * upper bound on the lag (the ramp slows while later arrivals weigh more),
 * exact within a round and while w n << 1; H over a step is the exact sum
 * on that bound. A step that reaches its goal is halved down to one round,
 * then the arrival is bisected. Against a per-arrival simulation the peaks
 * are within -0.5 .. +3 packets + 1/32 of the lag (the tests' grid).
 *
 * Steps: u >= m at the start; steps of one round while u < 2 R m, at most
 * 2 R = 32; then h >= u / (2 R m), so u grows by at least 1 + 1/32 a step
 * and stays below 2^32: at most ln(2^27) / ln(1 + 1/32) = 608 steps; each
 * of the two searches (min_th; marks or max_th) ends with at most
 * 2 * 28 + 1 halving and 34 bisection steps: at most 32 + 608 + 2 (57 +
 * 34) = 822 steps per weight, each one power (at most 61 squarings).
 * REDOPT_STEPS_MAX (2048) guards it with -ERANGE.
 *
 * 64-bit divisions go through div64_u64()/div_u64(), the square root is
 * int_sqrt64() and 64 x 64-bit products mul_u64_u64_shr(): the kernel's,
 * or on the host types.h's ('/', an exact integer square root and an exact
 * product by 32-bit halves; all floor, so identical results). The 192-bit
 * division is bit-serial: no division instruction.
 *
 * Choices we made (where algorithms.md is silent):
 *  - one RTT and one W for all flows (one attribute each); SSth per flow.
 *  - L sums the signed terms: the link is work-conserving, so a flow below
 *    its share leaves room to the others. L is floored at 1 packet.
 *  - limit vs L: L is the paper's buffer; the limit in force also covers
 *    the congestion-avoidance peak and the transient, with a margin, and
 *    RED needs room above max_th (at least max_th + 1). All are reported.
 *  - the peaks use the model's marking curve (max_p at 3 min_th), the
 *    shallower of it and RED's (max_p at max_th): marks no earlier.
 *  - one flow marked per unit of hazard, on distinct flows: RED spaces its
 *    marks evenly over the arrivals, which the flows share equally.
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

/* The peaks (ca_peak, transient) and the limit */
#define REDOPT_Q_SCALE		16	/* queue, average, lag: 2^-16 packet */
#define REDOPT_STEP_RATIO	16U	/* R: a step is h <= u / (R m) rounds */
#define REDOPT_STEPS_MAX	2048U	/* guard, per weight; the bound is 822 */
#define REDOPT_BURST_PER_FLOW	10U	/* margin: one initial window per flow */

/* The term that set the limit (redopt_limit_by_name() gives its name) */
enum {
	REDOPT_LIMIT_BY_SS_PEAK,
	REDOPT_LIMIT_BY_CA_PEAK,
	REDOPT_LIMIT_BY_TRANSIENT,
	REDOPT_LIMIT_BY_MAX_TH,
};

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

/* The queue peaks and the limit at one EWMA weight (see the header comment). */
struct redopt_peaks {
	u32 ca_peak;		/* queue when the average reaches min_th, packets */
	u32 transient;		/* highest queue before the marks take effect */
	u32 qth_max;		/* max_th at this weight, packets */
	u32 limit;		/* see struct redopt_model.limit, packets */
	u32 steps;		/* step evaluations it took (bound: 822) */
	u8 wlog;		/* the weight 2^-wlog */
	u8 limit_by;		/* REDOPT_LIMIT_BY_*: the term that set limit */
	/* every flow marked by the hazard; false: the average reaches max_th
	 * first (forced marks; forced drops with harddrop)
	 */
	bool by_marks;
};

/* Results of the model. */
struct redopt_model {
	u64 window_milli;	/* W_i used, 1/1000 packet (floor if derived) */
	u64 pipe_milli;		/* r C / (8 s), 1/1000 packet, floor */
	u64 m_bound_milli;	/* alpha, 1/1000 flow, floor, saturated */
	union {
		u32 ss_peak;	/* L, the slow-start peak, packets, >= 1 */
		u32 buffer;	/* the same, by its netlink name (BUFFER) */
	};
	u32 ca_peak;		/* congestion-avoidance peak, packets */
	u32 transient;		/* highest queue before the marks take effect */
	u32 margin;		/* burst margin, REDOPT_BURST_PER_FLOW m packets */
	/* in force: max(max(L, ca_peak, transient) + margin, qth_max + 1) */
	u32 limit;		/* packets */
	u32 qth_min;		/* min_th, packets */
	u32 qth_max;		/* max_th = ceil(Qmax), packets, > qth_min */
	u32 qmax_milli;		/* Qmax rounded up, 1/1000 packet */
	u32 max_p_curve;	/* p(qth_max) on the model's curve, 2^-32, sat. */
	u32 flows;		/* m used */
	u32 m_bound;		/* floor(alpha), flows, saturated at U32_MAX */
	bool m_bound_valid;	/* lambda given: m_bound* are meaningful */
	u8 limit_by;		/* REDOPT_LIMIT_BY_*: the term that set limit */
	bool transient_by_marks; /* see struct redopt_peaks.by_marks */
	u32 steps;		/* step evaluations of the peaks at Wlog */
	/* the same at the weight that follows the queue; not in force */
	struct redopt_peaks follow;
};

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
	v = div_u64(((u64)p_ppm << REDOPT_P_SCALE) + REDOPT_PPM / 2,
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

/*
 * Why a configuration is refused: one code per reason (enum redopt_reason)
 * and its message (REDOPT_MSG_*). The entry points get the message (@why);
 * the qdisc maps it back to its code (redopt_reason_code()) and hands
 * netlink the literal, as NL_SET_ERR_MSG() wants it on every kernel.
 */
#define REDOPT_MSG_BW_REQUIRED	"bandwidth is required (bit/s)"
#define REDOPT_MSG_BW_RANGE	"bandwidth must be 1..100000000000 bit/s (100 Gbit/s)"
#define REDOPT_MSG_RTT_REQUIRED	"rtt is required (us)"
#define REDOPT_MSG_RTT_RANGE	"rtt must be 1..10000000 us (10 s)"
#define REDOPT_MSG_FLOWS_REQUIRED	"flows is required (1..1024)"
#define REDOPT_MSG_FLOWS_RANGE	"flows must be 1..1024"
#define REDOPT_MSG_SS_REQUIRED	"ssthresh is required (packets)"
#define REDOPT_MSG_SS_COUNT	"ssthresh needs one value for all flows or one per flow"
#define REDOPT_MSG_SS_RANGE	"ssthresh must be 1..1000000 packets"
#define REDOPT_MSG_WINDOW_RANGE	"window must be 1..10000000 packets (0 = derive)"
#define REDOPT_MSG_MIN_REQUIRED	"min_th is required (packets)"
#define REDOPT_MSG_MIN_RANGE	"min_th must be 1..1000000 packets"
#define REDOPT_MSG_MAX_P	"max_p must be in (0, 1]"
#define REDOPT_MSG_WLOG_RANGE	"Wlog must be 1..24 (EWMA weight w = 2^-Wlog)"
#define REDOPT_MSG_AVPKT_REQUIRED	"avpkt is required (bytes)"
#define REDOPT_MSG_AVPKT_RANGE	"avpkt must be 64..65535 bytes"
#define REDOPT_MSG_QMAX_RANGE	\
	"max_th out of range (Qmax above 4294967 packets): raise max_p or the window"
#define REDOPT_MSG_MAX_TH_WLOG	\
	"max_th << Wlog exceeds 32 bits: lower Wlog (larger EWMA weight) or raise max_p"
#define REDOPT_MSG_PEAKS	"the congestion-avoidance peak did not converge"

enum redopt_reason {
	REDOPT_WHY_BW_REQUIRED,
	REDOPT_WHY_BW_RANGE,
	REDOPT_WHY_RTT_REQUIRED,
	REDOPT_WHY_RTT_RANGE,
	REDOPT_WHY_FLOWS_REQUIRED,
	REDOPT_WHY_FLOWS_RANGE,
	REDOPT_WHY_SS_REQUIRED,
	REDOPT_WHY_SS_COUNT,
	REDOPT_WHY_SS_RANGE,
	REDOPT_WHY_WINDOW_RANGE,
	REDOPT_WHY_MIN_REQUIRED,
	REDOPT_WHY_MIN_RANGE,
	REDOPT_WHY_MAX_P,
	REDOPT_WHY_WLOG_RANGE,
	REDOPT_WHY_AVPKT_REQUIRED,
	REDOPT_WHY_AVPKT_RANGE,
	REDOPT_WHY_QMAX_RANGE,
	REDOPT_WHY_MAX_TH_WLOG,
	REDOPT_WHY_PEAKS,
	REDOPT_WHY_MAX
};

/* The message of @code (a static string), NULL for no such code. */
static inline const char *redopt_reason_msg(unsigned int code)
{
	static const char *const msg[REDOPT_WHY_MAX] = {
		[REDOPT_WHY_BW_REQUIRED] = REDOPT_MSG_BW_REQUIRED,
		[REDOPT_WHY_BW_RANGE] = REDOPT_MSG_BW_RANGE,
		[REDOPT_WHY_RTT_REQUIRED] = REDOPT_MSG_RTT_REQUIRED,
		[REDOPT_WHY_RTT_RANGE] = REDOPT_MSG_RTT_RANGE,
		[REDOPT_WHY_FLOWS_REQUIRED] = REDOPT_MSG_FLOWS_REQUIRED,
		[REDOPT_WHY_FLOWS_RANGE] = REDOPT_MSG_FLOWS_RANGE,
		[REDOPT_WHY_SS_REQUIRED] = REDOPT_MSG_SS_REQUIRED,
		[REDOPT_WHY_SS_COUNT] = REDOPT_MSG_SS_COUNT,
		[REDOPT_WHY_SS_RANGE] = REDOPT_MSG_SS_RANGE,
		[REDOPT_WHY_WINDOW_RANGE] = REDOPT_MSG_WINDOW_RANGE,
		[REDOPT_WHY_MIN_REQUIRED] = REDOPT_MSG_MIN_REQUIRED,
		[REDOPT_WHY_MIN_RANGE] = REDOPT_MSG_MIN_RANGE,
		[REDOPT_WHY_MAX_P] = REDOPT_MSG_MAX_P,
		[REDOPT_WHY_WLOG_RANGE] = REDOPT_MSG_WLOG_RANGE,
		[REDOPT_WHY_AVPKT_REQUIRED] = REDOPT_MSG_AVPKT_REQUIRED,
		[REDOPT_WHY_AVPKT_RANGE] = REDOPT_MSG_AVPKT_RANGE,
		[REDOPT_WHY_QMAX_RANGE] = REDOPT_MSG_QMAX_RANGE,
		[REDOPT_WHY_MAX_TH_WLOG] = REDOPT_MSG_MAX_TH_WLOG,
		[REDOPT_WHY_PEAKS] = REDOPT_MSG_PEAKS,
	};

	return code < REDOPT_WHY_MAX ? msg[code] : NULL;
}

/* The code of a message redopt_reason_msg() gave, REDOPT_WHY_MAX if none. */
static inline unsigned int redopt_reason_code(const char *why)
{
	unsigned int c;

	for (c = 0; c < REDOPT_WHY_MAX; c++)
		if (why && why == redopt_reason_msg(c))
			break;
	return c;
}

static inline int redopt__reject(const char **why, enum redopt_reason code,
				 int err)
{
	if (why)
		*why = redopt_reason_msg(code);
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
		return redopt__reject(why, REDOPT_WHY_BW_REQUIRED, -EINVAL);
	if (p->bandwidth_bps > REDOPT_MAX_BANDWIDTH)
		return redopt__reject(why, REDOPT_WHY_BW_RANGE, -ERANGE);
	if (!p->rtt_us)
		return redopt__reject(why, REDOPT_WHY_RTT_REQUIRED, -EINVAL);
	if (p->rtt_us > REDOPT_MAX_RTT_US)
		return redopt__reject(why, REDOPT_WHY_RTT_RANGE, -ERANGE);
	if (!p->flows)
		return redopt__reject(why, REDOPT_WHY_FLOWS_REQUIRED, -EINVAL);
	if (p->flows > TC_REDOPT_MAX_FLOWS)
		return redopt__reject(why, REDOPT_WHY_FLOWS_RANGE, -ERANGE);
	if (!p->ssthresh || !p->n_ssthresh)
		return redopt__reject(why, REDOPT_WHY_SS_REQUIRED, -EINVAL);
	if (p->n_ssthresh != 1 && p->n_ssthresh != p->flows)
		return redopt__reject(why, REDOPT_WHY_SS_COUNT, -EINVAL);
	for (i = 0; i < p->n_ssthresh; i++) {
		if (!p->ssthresh[i] || p->ssthresh[i] > REDOPT_MAX_SSTHRESH)
			return redopt__reject(why, REDOPT_WHY_SS_RANGE, -ERANGE);
	}
	if (p->window > REDOPT_MAX_WINDOW)
		return redopt__reject(why, REDOPT_WHY_WINDOW_RANGE, -ERANGE);
	if (!p->min_th)
		return redopt__reject(why, REDOPT_WHY_MIN_REQUIRED, -EINVAL);
	if (p->min_th > REDOPT_MAX_MIN_TH)
		return redopt__reject(why, REDOPT_WHY_MIN_RANGE, -ERANGE);
	if (!p->max_p)
		return redopt__reject(why, REDOPT_WHY_MAX_P, -EINVAL);
	if (p->wlog < REDOPT_WLOG_MIN || p->wlog > REDOPT_WLOG_MAX)
		return redopt__reject(why, REDOPT_WHY_WLOG_RANGE, -ERANGE);
	if (!p->avpkt)
		return redopt__reject(why, REDOPT_WHY_AVPKT_REQUIRED, -EINVAL);
	if (p->avpkt < REDOPT_MIN_AVPKT || p->avpkt > REDOPT_MAX_AVPKT)
		return redopt__reject(why, REDOPT_WHY_AVPKT_RANGE, -ERANGE);
	return 0;
}

/* Qmax and max_th at EWMA weight 2^-wlog: *x = ceil(1000 (Qmax - min_th)). */
static inline int redopt__max_th(const struct redopt_model_params *p, u64 gn,
				 u64 gd, u8 wlog, u64 *x, u32 *qth_max,
				 const char **why)
{
	const u32 m = p->flows, min_th = p->min_th;
	struct redopt_root root;
	struct redopt_wide w;
	u64 a, h, x0, cap;

	root.gd = gd;
	root.max_p = p->max_p;
	root.flows = m;
	root.wlog = wlog;

	/* RHS of (*): 10^6 Gn min_th 2^(33 + Wlog) < 2^156 */
	redopt_wide_set(&root.rhs, (u64)REDOPT_MILLI * REDOPT_MILLI);
	redopt_wide_mul(&root.rhs, gn);
	redopt_wide_mul(&root.rhs, min_th);
	redopt_wide_mul(&root.rhs, 1ULL << (REDOPT_P_SCALE + 1 + wlog));

	/* a = floor(10^6 A) = floor(10^6 Gn min_th 2^33 / (Gd max_p32)) */
	redopt_wide_set(&w, (u64)REDOPT_MILLI * REDOPT_MILLI);
	redopt_wide_mul(&w, gn);
	redopt_wide_mul(&w, min_th);
	redopt_wide_mul(&w, 1ULL << (REDOPT_P_SCALE + 1));
	redopt_wide_div(&w, gd);
	redopt_wide_div(&w, p->max_p);
	a = redopt_wide_to_u64_sat(&w);

	/* X0 = h + sqrt(h^2 + a), h = 1000 B / 2 = 500 m 2^-Wlog <= 2^18 */
	cap = U32_MAX - (u64)REDOPT_MILLI * min_th;	/* qmax_milli fits u32 */
	h = ((u64)REDOPT_MILLI / 2 * m) >> wlog;
	if (a > U64_MAX - h * h)
		x0 = cap;
	else
		x0 = h + int_sqrt64(h * h + a);

	*x = redopt_root_ceil(&root, x0, cap);		/* ceil(1000 x) */
	if (*x > cap)
		return redopt__reject(why, REDOPT_WHY_QMAX_RANGE, -ERANGE);
	*qth_max = min_th + ((u32)*x + REDOPT_MILLI - 1) / REDOPT_MILLI;
	/* red.h: fls(qth_max) + Wlog < 32 */
	if (*qth_max > (U32_MAX >> (wlog + 1)))
		return redopt__reject(why, REDOPT_WHY_MAX_TH_WLOG, -ERANGE);
	return 0;
}

/* ---- the congestion-avoidance peak and the transient ---- */

#define REDOPT_ONE62		BIT_ULL(62)	/* 1.0 in the powers' 2^-62 units */

/* floor(a b / 2^62), a b < 2^126 */
static inline u64 redopt_mul_q62(u64 a, u64 b)
{
	return mul_u64_u64_shr(a, b, 62);
}

/*
 * (1 - 2^-wlog)^n in units of 2^-62 (REDOPT_ONE62 is 1.0), by squaring,
 * each product rounded down: factors <= 2^62, products < 2^124.
 */
static inline u64 redopt_pow_q62(u8 wlog, u64 n)
{
	u64 b = REDOPT_ONE62 - (REDOPT_ONE62 >> wlog), r = REDOPT_ONE62;

	for (;;) {
		if (n & 1)
			r = redopt_mul_q62(r, b);
		n >>= 1;
		if (!n || !r)
			return r;
		b = redopt_mul_q62(b, b);
		if (!b)
			return 0;
	}
}

/* floor(x a / 2^32) for x < 2^63, a <= 2^32: (x >> 32) a < 2^63 */
static inline u64 redopt_mul_q32(u64 x, u64 a)
{
	return (x >> 32) * a + (((x & U32_MAX) * a) >> 32);
}

/* Constants of the peaks at one weight. */
struct redopt_ca {
	u64 pipe;		/* r C / (8 s), 2^-16 packet, floor */
	u64 min_th;		/* 2^-16 packet */
	u64 max_th;		/* 2^-16 packet */
	u32 min_th_pkts;
	u32 flows;		/* m */
	u32 max_p;		/* 2^-32 */
	u32 steps;		/* step evaluations so far */
	u8 wlog;
};

/* The queue at one packet arrival of the congestion-avoidance rounds. */
struct redopt_ca_state {
	u64 u;			/* windows' sum this round = its arrivals */
	u64 j;			/* arrivals of this round so far, < u */
	u64 q;			/* queue, 2^-16 packet */
	u64 d;			/* lag q - avg, 2^-16 packet */
	u64 avg;		/* RED's average, 2^-16 packet */
	u64 haz;		/* marking hazard, 2^-32 */
};

/* Stop at the first arrival where one of these is reached (U64_MAX: none). */
struct redopt_ca_goal {
	u64 avg, haz;
};

/*
 * k x in 2^-32 units, k = max_p / (2 min_th) (the model's curve): x is
 * avg - min_th in 2^-16 packet, clipped to max_th - min_th (< 2^39), so
 * max_p32 x / 2^32 < 2^39 and the shift < 2^54.
 */
static inline u64 redopt__ca_prob(const struct redopt_ca *c, u64 x)
{
	x = min_t(u64, x, c->max_th - c->min_th);
	return div_u64(redopt_mul_q32(x, c->max_p) << 15, c->min_th_pkts);
}

/*
 * The hazard of the n arrivals from s to t: k sum_i (avg_i - min_th) over
 * i = 1..n, on the bound avg_i >= q_s + g i - L - (d_s - L) (1 - w)^i of
 * the step (chord g = (q_t - q_s) / n of the queue, L = g / w). Its mean
 * is e = q_s - min_th - L + g (n + 1) / 2 - (d_s - L) (1 - w) F with
 * F = (1 - (1 - w)^n) / (w n) <= 1, in 2^-62 units: (2^62 - a) / n 2^wlog,
 * the remainder's part only while n <= 2^40 (it is then < 2^64; beyond,
 * w n >= 2^16 and it is below 2^-38). L and F nearly cancel when w n is
 * small: hence the 2^-62 units. Terms of e < 2^50 (2^-16 packet): s64.
 */
static inline u64 redopt__ca_haz(const struct redopt_ca *c,
				 const struct redopt_ca_state *s,
				 const struct redopt_ca_state *t, u64 n, u64 a,
				 u64 lag)
{
	u64 grow = t->q - s->q, f, r, term, p;
	s64 e;

	f = div64_u64(REDOPT_ONE62 - a, n);
	r = REDOPT_ONE62 - a - f * n;
	f <<= c->wlog;					/* <= 2^62: F <= 1 */
	if (!(n >> 40))
		f += div64_u64(r << c->wlog, n);
	term = redopt_mul_q62(s->d > lag ? s->d - lag : lag - s->d, f);
	term -= term >> c->wlog;
	e = (s64)s->q - (s64)c->min_th - (s64)lag +
	    (s64)(grow / 2 + div64_u64(grow, 2 * n));
	e += s->d > lag ? -(s64)term : (s64)term;
	if (e <= 0)
		return s->haz;
	p = redopt__ca_prob(c, (u64)e);
	if (!p)
		return s->haz;
	if (n > div64_u64(U64_MAX - s->haz, p))
		return U64_MAX;
	return s->haz + n * p;
}

/*
 * The state h rounds on from s (h >= 1: the rest of this round, then h - 1
 * whole rounds), or, with h = 0, at arrival j of this round (s->j < j <= u).
 * The queue ramps by m / u per arrival in a round of u arrivals, so by g
 * = m h / n on average over the step; the lag is then at most
 * d (1 - w)^n + (g / w) (1 - (1 - w)^n) (the ramp slows as u grows while
 * the later arrivals weigh more), exact for h <= 1 and when w n << 1.
 */
static inline void redopt__ca_step(struct redopt_ca *c,
				   const struct redopt_ca_state *s, u64 h, u64 j,
				   struct redopt_ca_state *t)
{
	u64 n, a, lag;

	c->steps++;
	if (h) {
		/* h u + m h (h - 1) / 2 - j: h u < 2^60, m h^2 < 2^56 */
		n = h * s->u + c->flows * (h * (h - 1) / 2) - s->j;
		t->u = s->u + c->flows * h;
		t->j = 0;
		t->q = (t->u << REDOPT_Q_SCALE) - c->pipe;
	} else {
		/* m j / u more than at the round's start: m j 2^16 < 2^59 */
		n = j - s->j;
		t->u = s->u;
		t->j = j;
		t->q = (s->u << REDOPT_Q_SCALE) - c->pipe +
		       div64_u64(((u64)c->flows * j) << REDOPT_Q_SCALE, s->u);
	}
	a = redopt_pow_q62(c->wlog, n);
	/*
	 * g / w with g the mean ramp m h / n = 2 m / (2 u + m (h - 1)) (m / u
	 * within a round): m 2^(wlog + 17) < 2^51, 2 u + m h < 2^34
	 */
	lag = div64_u64((u64)c->flows << (c->wlog + REDOPT_Q_SCALE + 1),
			2 * s->u + (h ? c->flows * (h - 1) : 0));
	t->d = redopt_mul_q62(s->d, a) + lag - redopt_mul_q62(lag, a);
	t->avg = t->q > t->d ? t->q - t->d : 0;
	t->haz = redopt__ca_haz(c, s, t, n, a, lag);
}

static inline bool redopt__ca_hit(const struct redopt_ca_goal *g,
				  const struct redopt_ca_state *t)
{
	return t->avg >= g->avg || t->haz >= g->haz;
}

/*
 * Move *s to the first arrival where the goal is reached: steps of
 * max(1, u / (R m)) rounds; a step that reaches it is halved until one
 * round remains, then the arrival is found by bisection. Splitting a step
 * only lowers the lag bound, so a half reaches what the whole did, except
 * for the trapezoid of the hazard: then the end of the span is taken.
 */
static inline int redopt__ca_search(struct redopt_ca *c,
				    struct redopt_ca_state *s,
				    const struct redopt_ca_goal *g)
{
	struct redopt_ca_state t;
	u64 h, half, lo, hi, mid;

	if (redopt__ca_hit(g, s))
		return 0;
	for (;;) {
		if (c->steps > REDOPT_STEPS_MAX)
			return -ERANGE;
		h = s->j ? 1 : max_t(u64, 1, div_u64(s->u, REDOPT_STEP_RATIO *
							   c->flows));
		redopt__ca_step(c, s, h, 0, &t);
		if (!redopt__ca_hit(g, &t)) {
			*s = t;
			continue;
		}
		while (h > 1) {
			half = h / 2;
			redopt__ca_step(c, s, half, 0, &t);
			if (redopt__ca_hit(g, &t)) {
				h = half;
				continue;
			}
			*s = t;
			h -= half;
			redopt__ca_step(c, s, h, 0, &t);
			if (!redopt__ca_hit(g, &t)) {
				*s = t;
				return 0;
			}
		}
		lo = s->j;
		hi = s->u;
		while (hi - lo > 1) {
			mid = lo + (hi - lo) / 2;
			redopt__ca_step(c, s, 0, mid, &t);
			if (redopt__ca_hit(g, &t))
				hi = mid;
			else
				lo = mid;
		}
		redopt__ca_step(c, s, 0, hi, &t);
		*s = t;
		if (s->j == s->u) {		/* the next round's start */
			s->u += c->flows;
			s->j = 0;
		}
		return 0;
	}
}

/*
 * ca_peak and transient at weight 2^-wlog with max_th qth_max (header
 * comment, "The peaks"); 0, or -ERANGE if the step guard is reached.
 */
static inline int redopt__peaks(const struct redopt_model_params *p,
				u64 pipe, u64 sum_ss, u8 wlog, u32 qth_max,
				struct redopt_peaks *pk)
{
	const u32 m = p->flows;
	struct redopt_ca c = {
		.pipe = pipe,
		.min_th = (u64)p->min_th << REDOPT_Q_SCALE,
		.max_th = (u64)qth_max << REDOPT_Q_SCALE,
		.min_th_pkts = p->min_th,
		.flows = m,
		.max_p = p->max_p,
		.wlog = wlog,
	};
	struct redopt_ca_goal g = { U64_MAX, U64_MAX };
	struct redopt_ca_state s = { 0 };
	u64 k0;
	int err;

	/* the first round whose windows fill the pipe: q >= 0, avg 0 */
	s.u = sum_ss;
	if ((sum_ss << REDOPT_Q_SCALE) < pipe) {
		k0 = div_u64(pipe - (sum_ss << REDOPT_Q_SCALE) +
			     ((u64)m << REDOPT_Q_SCALE) - 1, m << REDOPT_Q_SCALE);
		s.u += m * k0;
	}
	s.q = (s.u << REDOPT_Q_SCALE) - pipe;
	s.d = s.q;

	/* ca_peak: the average reaches min_th */
	g.avg = c.min_th;
	err = redopt__ca_search(&c, &s, &g);
	if (err)
		return err;
	pk->ca_peak = (u32)((s.q + (1U << REDOPT_Q_SCALE) - 1) >> REDOPT_Q_SCALE);

	/* every flow marked (hazard m), or the average at max_th */
	s.haz = 0;
	g.avg = c.max_th;
	g.haz = (u64)m << 32;
	err = redopt__ca_search(&c, &s, &g);
	if (err)
		return err;
	/*
	 * Every flow has its mark: by the hazard, or at max_th, where RED
	 * marks every ECT arrival (forced marks, ecn without harddrop; with
	 * harddrop it drops them and the queue stops here, lower). One round
	 * of feedback either way: m packets more.
	 */
	pk->by_marks = s.avg < c.max_th;
	s.q += (u64)m << REDOPT_Q_SCALE;
	pk->transient = (u32)((s.q + (1U << REDOPT_Q_SCALE) - 1) >> REDOPT_Q_SCALE);
	pk->qth_max = qth_max;
	pk->wlog = wlog;
	pk->steps = c.steps;
	return 0;
}

/* limit = max(max(L, ca_peak, transient) + margin, max_th + 1) */
static inline void redopt__limit(u32 ss_peak, u32 margin, struct redopt_peaks *pk)
{
	u32 top = ss_peak;
	u8 by = REDOPT_LIMIT_BY_SS_PEAK;
	u64 lim;

	if (pk->ca_peak > top) {
		top = pk->ca_peak;
		by = REDOPT_LIMIT_BY_CA_PEAK;
	}
	if (pk->transient > top) {
		top = pk->transient;
		by = REDOPT_LIMIT_BY_TRANSIENT;
	}
	lim = (u64)top + margin;
	if (lim < (u64)pk->qth_max + 1) {
		lim = (u64)pk->qth_max + 1;
		by = REDOPT_LIMIT_BY_MAX_TH;
	}
	pk->limit = (u32)min_t(u64, lim, U32_MAX);
	pk->limit_by = by;
}

static inline const char *redopt_limit_by_name(u8 by)
{
	switch (by) {
	case REDOPT_LIMIT_BY_SS_PEAK:
		return "ss_peak";
	case REDOPT_LIMIT_BY_CA_PEAK:
		return "ca_peak";
	case REDOPT_LIMIT_BY_TRANSIENT:
		return "transient";
	default:
		return "max_th";
	}
}

/*
 * The Wlog whose average follows the queue: the smallest k with 2^k >=
 * pipe + min_th (2^-16 packet, < 2^48), i.e. a time constant of one to two
 * rounds' arrivals with the queue at min_th; in REDOPT_WLOG_MIN..MAX.
 */
static inline u8 redopt__wlog_follow(u64 pipe, u32 min_th)
{
	u64 per_rtt = pipe + ((u64)min_th << REDOPT_Q_SCALE);
	u8 k = REDOPT_WLOG_MIN;

	while (k < REDOPT_WLOG_MAX && (1ULL << (k + REDOPT_Q_SCALE)) < per_rtt)
		k++;
	return k;
}

/*
 * Run the model: 0 and *out filled, or -EINVAL/-ERANGE with a static reason
 * string in *why (if why is not NULL) and *out untouched.
 */
static inline int redopt_model_compute(const struct redopt_model_params *p,
				       struct redopt_model *out, const char **why)
{
	const u64 c = p->bandwidth_bps, rtt = p->rtt_us, s = p->avpkt;
	const u64 bdp_div = 8 * REDOPT_USEC_PER_SEC * s;	/* < 2^39 */
	const u32 m = p->flows, min_th = p->min_th;
	struct redopt_peaks pk, fol, tmp;
	struct redopt_wide w;
	u64 cr, pipe, pipe16, sum_ss, buffer, gn, gd, x, xf, alpha_milli, w_milli;
	u32 qth_max, qf, margin, i;
	u8 k;
	int err;

	err = redopt__check_inputs(p, why);
	if (err)
		return err;

	/* L = S - floor(r C / (8 s)), floored at 1 */
	cr = c * rtt;					/* C r_us <= 1e18 */
	pipe = div64_u64(cr, bdp_div);
	/* pipe in 2^-16 packet: the remainder < 2^39, shifted < 2^55 */
	pipe16 = (pipe << REDOPT_Q_SCALE) +
		 div64_u64((cr - pipe * bdp_div) << REDOPT_Q_SCALE, bdp_div);
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
		gd = p->window;
		w_milli = (u64)p->window * REDOPT_MILLI;
	} else {
		/* W = (C r_us + 8e6 s min_th) / (8e6 s m) */
		gn = 8 * REDOPT_USEC_PER_SEC * s * m * m;		/* < 2^59 */
		gd = cr + 8 * REDOPT_USEC_PER_SEC * s * min_th;		/* < 2^61 */
		w_milli = div64_u64(gd, REDOPT_MILLI * 8 * s * m);
	}

	err = redopt__max_th(p, gn, gd, p->wlog, &x, &qth_max, why);
	if (err)
		return err;

	/* the peaks at Wlog, then at the weight that follows the queue */
	margin = REDOPT_BURST_PER_FLOW * m;
	err = redopt__peaks(p, pipe16, sum_ss, p->wlog, qth_max, &pk);
	if (err)
		return redopt__reject(why, REDOPT_WHY_PEAKS, -ERANGE);
	redopt__limit((u32)buffer, margin, &pk);
	fol = pk;
	for (k = redopt__wlog_follow(pipe16, min_th); k >= REDOPT_WLOG_MIN; k--) {
		if (redopt__max_th(p, gn, gd, k, &xf, &qf, NULL))
			continue;
		if (!redopt__peaks(p, pipe16, sum_ss, k, qf, &tmp)) {
			redopt__limit((u32)buffer, margin, &tmp);
			fol = tmp;
		}
		break;
	}

	out->window_milli = w_milli;
	out->pipe_milli = div64_u64(cr, (u64)REDOPT_MILLI * 8 * s);
	out->buffer = (u32)buffer;
	out->ca_peak = pk.ca_peak;
	out->transient = pk.transient;
	out->margin = margin;
	out->limit = pk.limit;
	out->limit_by = pk.limit_by;
	out->transient_by_marks = pk.by_marks;
	out->steps = pk.steps;
	out->follow = fol;
	out->qth_min = min_th;
	out->qth_max = qth_max;
	out->qmax_milli = REDOPT_MILLI * min_th + (u32)x;
	/* p(max_th) = max_p (max_th - min_th) / (2 min_th), < 2^54 before / */
	out->max_p_curve = (u32)min_t(u64, U32_MAX,
				      div_u64((u64)p->max_p * (qth_max - min_th),
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
				  div_u64(alpha_milli, REDOPT_MILLI));
	if (why)
		*why = NULL;
	return 0;
}

/*
 * The single validity check every entry point (sch_redopt's netlink
 * change, q_redopt.so, specctl) calls: the inputs are in range AND the
 * model's results fit (it runs the model). 0, or -EINVAL/-ERANGE with a
 * human reason in *why: a static string of REDOPT_REASONS (its code by
 * redopt_reason_code()).
 */
static inline int redopt_check_params(const struct redopt_model_params *p,
				      const char **why)
{
	struct redopt_model tmp;

	return redopt_model_compute(p, &tmp, why);
}

#endif /* _SPECNET_RED_MODEL_H */

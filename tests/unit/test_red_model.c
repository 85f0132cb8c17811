/* Host unit tests of kernel/include/specnet/red_model.h (the RED buffer
 * model): the paper's examples, a grid and random draws against a
 * floating-point reference, every parameter rejection, the overflow corners
 * of the documented input ranges, and the integer helpers (192-bit
 * arithmetic against unsigned __int128, the square root, ppm conversions).
 *
 * The reference is computed in long double (x87 80-bit here, at least
 * double precision); integer results must equal its ceilings/floors except
 * where its value is within 1e-9 of an integer.
 *
 * The peaks (ca_peak, transient) are checked against a per-arrival
 * simulation of the same rounds in long double: from 0.5 packet below to
 * 3 packets plus 1/32 of (simulated - min_th) above (PEAK_BELOW,
 * PEAK_ABOVE, PEAK_ABOVE_LAG): a step of many rounds bounds the lag from
 * above, within about 1/(2 R) of it, R = 16 (red_model.h); below, only
 * ties at dyadic values (w = 1/2) and the 2^-16 units. The limit, its
 * term, the follow weight and the step bound are checked on every case.
 */
#include <math.h>
#include <string.h>
#include <specnet/red_model.h>
#include "check.h"

typedef unsigned __int128 u128;
typedef long double ld;

#define NEAR_INT	1e-9L
#define PEAK_BELOW	0.5L	/* packets the peaks may be below the simulation */
#define PEAK_ABOVE	3.0L	/* ... and above it, plus ... */
#define PEAK_ABOVE_LAG	32	/* ... 1/32 of (simulated peak - min_th) */
#define STEPS_BOUND	822U	/* red_model.h: steps of the peaks, per weight */

static u64 rng_state = 0x9e3779b97f4a7c15ULL;

static u64 rnd64(void)
{
	/* xorshift64*, deterministic */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

/* log-uniform-ish value in [lo, hi] */
static u64 rnd_range(u64 lo, u64 hi)
{
	u64 span = hi - lo, v;
	int bits = (int)(rnd64() % 65);

	v = bits == 64 ? rnd64() : rnd64() & ((1ULL << bits) - 1);
	return lo + (span == U64_MAX ? v : v % (span + 1));
}

static bool near_int(ld v)
{
	return fabsl(v - roundl(v)) < NEAR_INT;
}

/* ---- the model in floating point ---- */

struct ref {
	ld pipe, buffer_raw, window, qmax, alpha;
};

static void ref_model(const struct redopt_model_params *p, struct ref *r)
{
	ld c = (ld)p->bandwidth_bps, rtt = (ld)p->rtt_us / 1e6L, s = p->avpkt;
	ld m = p->flows, min_th = p->min_th, sum = 0, k, a, b, x;
	u32 i;

	for (i = 0; i < p->flows; i++)
		sum += p->ssthresh[p->n_ssthresh == 1 ? 0 : i];
	r->pipe = rtt * c / (8 * s);			/* sum_i r mu_i */
	r->buffer_raw = sum - r->pipe;
	r->window = p->window ? (ld)p->window : (r->pipe + min_th) / m;
	k = ((ld)p->max_p / 4294967296.0L) / (2 * min_th);
	a = (m / r->window) / k;
	b = m * ldexpl(1, -p->wlog);
	x = (b + sqrtl(b * b + 4 * a)) / 2;
	r->qmax = min_th + x;
	r->alpha = r->pipe * ((ld)p->loss_rate_milli / 1000) * rtt / 2;
}

/* ---- comparison of one case; counts by kind ---- */

struct stats {
	unsigned long cases, ok, rejected, skipped_near, skipped_max;
	unsigned long bad_buffer, bad_qmax, bad_maxth, bad_limit, bad_window;
	unsigned long bad_pipe, bad_bound, bad_curve, bad_reject, bad_invariant;
	unsigned long bad_follow, bad_steps;
	u32 max_steps;
	ld max_err;
};

static void report(const char *what, const struct redopt_model_params *p,
		   const struct redopt_model *o, const struct ref *r)
{
	static int shown;

	if (shown++ >= 12)
		return;
	printf("  mismatch %s: C %llu r %u m %u ss0 %u W %u min %u max_p %u wlog %u s %u lambda %u\n"
	       "    got L %u max_th %u qmax %u W %llu; ref L %.6Lf Qmax %.9Lf W %.6Lf\n",
	       what, (unsigned long long)p->bandwidth_bps, p->rtt_us, p->flows,
	       p->ssthresh[0], p->window, p->min_th, p->max_p, p->wlog, p->avpkt,
	       p->loss_rate_milli, o->buffer, o->qth_max, o->qmax_milli,
	       (unsigned long long)o->window_milli, r->buffer_raw, r->qmax, r->window);
}

/*
 * The limit and its term from the reported peaks: max(max(L, ca_peak,
 * transient) + 10 m, max_th + 1), the first largest named; L <= ca_peak <=
 * transient; the same for the follow weight.
 */
static bool peaks_ok(u32 ss_peak, const struct redopt_peaks *k, u32 m)
{
	u64 top = ss_peak, want;
	u8 by = REDOPT_LIMIT_BY_SS_PEAK;

	if (k->ca_peak > top) {
		top = k->ca_peak;
		by = REDOPT_LIMIT_BY_CA_PEAK;
	}
	if (k->transient > top) {
		top = k->transient;
		by = REDOPT_LIMIT_BY_TRANSIENT;
	}
	want = top + 10ULL * m;
	if (want < (u64)k->qth_max + 1) {
		want = (u64)k->qth_max + 1;
		by = REDOPT_LIMIT_BY_MAX_TH;
	}
	return k->limit == want && k->limit_by == by && ss_peak <= k->ca_peak &&
	       k->ca_peak <= k->transient;
}

static bool limit_ok(const struct redopt_model *o, u32 m)
{
	struct redopt_peaks k = {
		.ca_peak = o->ca_peak, .transient = o->transient, .qth_max = o->qth_max,
		.limit = o->limit, .limit_by = o->limit_by,
	};

	return o->margin == 10 * m && peaks_ok(o->buffer, &k, m) &&
	       peaks_ok(o->buffer, &o->follow, m) && o->ss_peak == o->buffer;
}

/*
 * wlog_follow: the smallest k with 2^k >= pipe + min_th in 1..24, or below
 * it where max_th << k does not fit; the follow results are those of the
 * model run at Wlog = wlog_follow (unless no weight fits: then Wlog's).
 */
static bool follow_ok(const struct redopt_model_params *p, const struct redopt_model *o,
		      ld pipe)
{
	struct redopt_model_params q = *p;
	struct redopt_model f;
	ld per_rtt = pipe + p->min_th;
	int k = 1, j;

	while (k < REDOPT_WLOG_MAX && ldexpl(1, k) < per_rtt)
		k++;
	if (k > 1 && per_rtt - ldexpl(1, k - 1) < 1e-4L)
		return true;		/* at 2^(k-1): the integer pipe is floored */
	if (o->follow.wlog > k) {
		/* no weight up to k fits max_th: Wlog's own results */
		for (j = 1; j <= k; j++) {
			q.wlog = (u8)j;
			if (!redopt_model_compute(&q, &f, NULL))
				return false;
		}
		if (o->follow.wlog != p->wlog)
			return false;
	} else if (o->follow.wlog < k) {
		q.wlog = (u8)k;
		if (!redopt_model_compute(&q, &f, NULL))
			return false;	/* k fits: it should have been taken */
	}
	q.wlog = o->follow.wlog;
	if (redopt_model_compute(&q, &f, NULL))
		return false;
	return f.ca_peak == o->follow.ca_peak && f.transient == o->follow.transient &&
	       f.qth_max == o->follow.qth_max && f.limit == o->follow.limit &&
	       f.limit_by == o->follow.limit_by && f.transient_by_marks == o->follow.by_marks;
}

static void check_case(const struct redopt_model_params *p, struct stats *st)
{
	struct redopt_model o;
	const char *why = "unset";
	struct ref r;
	ld qmax_milli_ref, want_max, err_abs;
	u64 want_u64;
	bool too_big;
	int rc;

	st->cases++;
	ref_model(p, &r);
	rc = redopt_model_compute(p, &o, &why);

	/* rejection iff the reference's max_th or Qmax do not fit */
	qmax_milli_ref = 1000 * r.qmax;
	want_max = ceill(r.qmax);
	too_big = qmax_milli_ref > (ld)U32_MAX ||
		  want_max > (ld)(U32_MAX >> (p->wlog + 1));
	if (rc) {
		st->rejected++;
		if (rc != -ERANGE || !why || !*why || !too_big) {
			if (near_int(r.qmax) || near_int(qmax_milli_ref)) {
				st->skipped_max++;
				return;
			}
			st->bad_reject++;
			report("rejected", p, &o, &r);
		}
		return;
	}
	if (too_big && !near_int(r.qmax) && !near_int(qmax_milli_ref)) {
		st->bad_reject++;
		report("accepted", p, &o, &r);
		return;
	}
	if (why)
		st->bad_invariant++;
	st->ok++;

	/* L = max(1, ceil(sum SSth - pipe)): floating point away from integers, and
	 * always exactly as the rational ceil((8e6 s S - C r_us) / (8e6 s)) in 128 bits
	 */
	if (near_int(r.buffer_raw)) {
		st->skipped_near++;
	} else if ((ld)o.buffer != fmaxl(1, ceill(r.buffer_raw))) {
		st->bad_buffer++;
		report("buffer", p, &o, &r);
	}
	{
		__int128 den = (__int128)8000000 * p->avpkt, num, l;
		u64 sum = 0;
		u32 i;

		for (i = 0; i < p->flows; i++)
			sum += p->ssthresh[p->n_ssthresh == 1 ? 0 : i];
		num = (__int128)sum * den - (__int128)p->bandwidth_bps * p->rtt_us;
		l = num > 0 ? (num + den - 1) / den : -(-num / den);
		if (o.buffer != (l < 1 ? 1 : l)) {
			st->bad_buffer++;
			report("buffer (exact)", p, &o, &r);
		}
	}

	/* Qmax: error <= 0.02 packet, and in fact exactly rounded up to 1/1000 */
	err_abs = fabsl((ld)o.qmax_milli / 1000 - r.qmax);
	if (err_abs > st->max_err)
		st->max_err = err_abs;
	if (!near_int(qmax_milli_ref) && (ld)o.qmax_milli != ceill(qmax_milli_ref)) {
		st->bad_qmax++;
		report("qmax", p, &o, &r);
	}
	if (near_int(r.qmax)) {
		st->skipped_max++;
	} else if ((ld)o.qth_max != want_max) {
		st->bad_maxth++;
		report("max_th", p, &o, &r);
	}

	/* invariants */
	if (o.qth_max <= o.qth_min || o.qth_min != p->min_th ||
	    (o.qmax_milli + 999) / 1000 != o.qth_max || o.flows != p->flows)
		st->bad_invariant++;
	if (!limit_ok(&o, p->flows)) {
		st->bad_limit++;
		report("limit", p, &o, &r);
	}
	if (o.steps > STEPS_BOUND || o.follow.steps > STEPS_BOUND)
		st->bad_steps++;
	st->max_steps = max_t(u32, st->max_steps, max_t(u32, o.steps, o.follow.steps));
	if (!follow_ok(p, &o, r.pipe)) {
		st->bad_follow++;
		report("follow", p, &o, &r);
	}

	/* W_i and pipe in 1/1000 packet, floor */
	if (!near_int(1000 * r.window) && (ld)o.window_milli != floorl(1000 * r.window)) {
		st->bad_window++;
		report("window", p, &o, &r);
	}
	if (!near_int(1000 * r.pipe) && (ld)o.pipe_milli != floorl(1000 * r.pipe))
		st->bad_pipe++;

	/* max_p_curve = min(floor(max_p (max_th - min_th) / (2 min_th)), U32_MAX) */
	want_u64 = (u64)p->max_p * (o.qth_max - o.qth_min) / (2ULL * o.qth_min);
	if (o.max_p_curve != (want_u64 > U32_MAX ? U32_MAX : want_u64))
		st->bad_curve++;

	/* alpha: floor(1000 alpha) saturated at U64_MAX, floor(alpha) at U32_MAX.
	 * 1000 alpha reaches 2^64, beyond long double's resolution: the reference
	 * is exact, C lambda_milli r_us^2 / (16e12 s) < 2^117 in 128 bits.
	 */
	if (!p->loss_rate_milli) {
		if (o.m_bound_valid || o.m_bound || o.m_bound_milli)
			st->bad_bound++;
	} else {
		u128 am = (u128)p->bandwidth_bps * p->loss_rate_milli * p->rtt_us * p->rtt_us /
			  ((u128)16000000000000ULL * p->avpkt);
		u64 want_milli = am > U64_MAX ? U64_MAX : (u64)am;
		u64 want_b = want_milli / 1000 > U32_MAX ? U32_MAX : want_milli / 1000;

		if (!o.m_bound_valid || o.m_bound_milli != want_milli || o.m_bound != want_b) {
			st->bad_bound++;
			report("m_bound", p, &o, &r);
		}
		/* and the model's formula pipe lambda r / 2, in floating point */
		if (1000 * r.alpha < 1e15L && !near_int(1000 * r.alpha) &&
		    (ld)o.m_bound_milli != floorl(1000 * r.alpha)) {
			st->bad_bound++;
			report("m_bound (float)", p, &o, &r);
		}
	}
}

static void check_stats(const char *name, const struct stats *st)
{
	printf("%s: %lu cases, %lu computed, %lu rejected (ERANGE); near-integer, not compared: %lu max_th, %lu L (float; exact L compared); max |Qmax err| %.6Lf; most peak steps %u\n",
	       name, st->cases, st->ok, st->rejected, st->skipped_max, st->skipped_near,
	       st->max_err, st->max_steps);
	CHECK(st->ok > 0, "%s: nothing computed", name);
	CHECK(st->bad_buffer == 0, "%s: %lu buffer mismatches", name, st->bad_buffer);
	CHECK(st->bad_qmax == 0, "%s: %lu qmax_milli mismatches", name, st->bad_qmax);
	CHECK(st->bad_maxth == 0, "%s: %lu max_th mismatches", name, st->bad_maxth);
	CHECK(st->bad_limit == 0, "%s: %lu limit mismatches", name, st->bad_limit);
	CHECK(st->bad_follow == 0, "%s: %lu follow-weight mismatches", name, st->bad_follow);
	CHECK(st->bad_steps == 0, "%s: %lu cases above %u steps", name, st->bad_steps,
	      STEPS_BOUND);
	CHECK(st->bad_window == 0, "%s: %lu window mismatches", name, st->bad_window);
	CHECK(st->bad_pipe == 0, "%s: %lu pipe mismatches", name, st->bad_pipe);
	CHECK(st->bad_bound == 0, "%s: %lu m_bound mismatches", name, st->bad_bound);
	CHECK(st->bad_curve == 0, "%s: %lu max_p_curve mismatches", name, st->bad_curve);
	CHECK(st->bad_reject == 0, "%s: %lu wrong rejections", name, st->bad_reject);
	CHECK(st->bad_invariant == 0, "%s: %lu broken invariants", name, st->bad_invariant);
	CHECK(st->max_err <= 0.02L, "%s: Qmax error %.6Lf > 0.02", name, st->max_err);
	CHECK(st->max_err <= 0.001L + 1e-9L, "%s: Qmax not within 1/1000: %.6Lf", name,
	      st->max_err);
}

/* ---- the paper's examples ---- */

static const u32 ss15[] = { 15, 15 };

static struct redopt_model_params example(void)
{
	struct redopt_model_params p = {
		.bandwidth_bps = 1500000, .rtt_us = 59000, .flows = 2,
		.ssthresh = ss15, .n_ssthresh = 1, .window = 38, .min_th = 5,
		.max_p = redopt_max_p_from_ppm(100000), .wlog = 9, .avpkt = 1000,
	};
	return p;
}

static void test_examples(void)
{
	struct redopt_model_params p = example();
	struct redopt_model o;
	const char *why = "unset";
	struct ref r;
	char buf[32];

	CHECK(redopt_wlog_from_ppm(2000) == 9, "w 0.002 -> Wlog %u", redopt_wlog_from_ppm(2000));
	CHECK(redopt_check_params(&p, &why) == 0 && !why, "example valid: %s", why);
	CHECK(redopt_model_compute(&p, &o, &why) == 0, "%s", why);

	/* two flows, SSth 15, 15: r mu = 5.53 per flow, L = 19 */
	CHECK(o.buffer == 19, "L = %u", o.buffer);
	CHECK(o.pipe_milli == 11062, "pipe %llu (2 x 5.53)", (unsigned long long)o.pipe_milli);
	p.n_ssthresh = 2;
	CHECK(redopt_model_compute(&p, &o, NULL) == 0 && o.buffer == 19, "per flow: L = %u",
	      o.buffer);

	/* m = 2, W = 38, w = 2^-9, min_th 5, max_p 0.1: Qmax 7.30, max_th 8 */
	snprintf(buf, sizeof(buf), "%u.%02u", (o.qmax_milli + 5) / 1000,
		 (o.qmax_milli + 5) / 10 % 100);
	CHECK(strcmp(buf, "7.30") == 0, "Qmax %s (milli %u)", buf, o.qmax_milli);
	CHECK(o.qth_max == 8, "max_th %u", o.qth_max);
	CHECK(o.qth_min == 5, "min_th %u", o.qth_min);
	CHECK(o.ss_peak == 19 && o.limit == 53, "limit %u (test_worked_cases)", o.limit);
	CHECK(o.window_milli == 38000, "W %llu", (unsigned long long)o.window_milli);
	CHECK(!o.m_bound_valid && o.m_bound == 0, "no lambda: m bound n/a");

	/* the paper's decimal w = 0.002 gives 7.30 too (reference only) */
	ref_model(&p, &r);
	snprintf(buf, sizeof(buf), "%.2Lf", r.qmax);
	CHECK(strcmp(buf, "7.30") == 0, "ref Qmax (w = 2^-9) %s", buf);
	{
		ld k = 0.1L / 10, a = (2.0L / 38) / k, b = 2 * 0.002L;

		snprintf(buf, sizeof(buf), "%.2Lf", 5 + (b + sqrtl(b * b + 4 * a)) / 2);
		CHECK(strcmp(buf, "7.30") == 0, "ref Qmax (w = 0.002) %s", buf);
	}

	/* a small L: the congestion-avoidance peaks set the limit */
	p.ssthresh = (const u32[]){ 1, 1 };
	CHECK(redopt_model_compute(&p, &o, NULL) == 0, "small L");
	CHECK(o.buffer == 1 && o.ca_peak == 23 && o.transient == 29 && o.limit == 49 &&
	      o.limit_by == REDOPT_LIMIT_BY_TRANSIENT, "L %u ca %u tr %u limit %u", o.buffer,
	      o.ca_peak, o.transient, o.limit);

	/* max_p_curve = 0.1 * 3 / 10 = 0.03 */
	CHECK(redopt_max_p_to_ppm(o.max_p_curve) == 30000, "p(max_th) %u ppm",
	      redopt_max_p_to_ppm(o.max_p_curve));

	/* loss-event rate 0.5/s: alpha = pipe lambda r / 2 = 11.0625 * 0.5 * 0.059 / 2 */
	p = example();
	p.loss_rate_milli = 500;
	CHECK(redopt_model_compute(&p, &o, NULL) == 0, "lambda");
	CHECK(o.m_bound_valid && o.m_bound_milli == 163 && o.m_bound == 0,
	      "alpha milli %llu", (unsigned long long)o.m_bound_milli);

	/* derived window: W = (11.0625 + 5) / 2 = 8.03125 */
	p = example();
	p.window = 0;
	CHECK(redopt_model_compute(&p, &o, NULL) == 0, "derived W");
	CHECK(o.window_milli == 8031, "W %llu", (unsigned long long)o.window_milli);
}

/* ---- the peaks: hand-worked cases ---- */

struct worked {
	u32 rtt_us, ss[2];
	u32 ss_peak, ca_peak, transient, limit;
	u8 limit_by;
	u32 f_ca, f_tr, f_limit;
	u8 f_by;
};

/*
 * 1.5 Mbit/s, 2 flows, avpkt 1000, W 38, min_th 5, max_p 0.1, Wlog 9
 * (max_th 8): pipe = r C / (8 s) = 11.0625 at 59 ms, 18.5625 at 99 ms.
 * Per round trip k: u = S + 2 k arrivals, a = (511/512)^u, the lag
 * d' = a d + (g / w)(1 - a) with g / w = 2 * 512 / u, q' = q + 2,
 * avg = q - d; within a round q = q_k + 2 j / u after j arrivals.
 *
 * A. 59 ms, SSth 15, 20: ss_peak = ceil(35 - 11.0625) = 24; q_0 = 23.94,
 *    d_0 = 23.94 (avg 0).
 *      k  u   q      a       g/w    d'     avg'
 *      0  35  23.94  0.9339  29.26  24.29  1.65
 *      1  37  25.94  0.9302  27.68  24.53  3.41
 *      2  39  27.94  0.9266  26.26  24.65  5.28  avg 5 at arrival 34:
 *         q = 27.94 + 2 * 34 / 39 = 29.68 -> ca_peak 30
 *      3  41  29.94  0.9230  24.98  24.68  7.26
 *      4  43  31.94: avg 8 = max_th at arrival 16, q = 31.94 + 32 / 43 =
 *         32.68, the hazard sum 0.1 (avg - 5) / 10 only ~0.95 < m = 2:
 *         RED force-marks every ECT arrival from there, the senders
 *         reduce a round trip later -> transient ceil(32.68 + 2) = 35.
 *    limit = 35 + 10 * 2 = 55 (transient).
 *    Follow: 11.06 + 5 = 16.06 <= 2^5: Wlog 5 (max_th still 8, Qmax
 *    7.33); a = (31/32)^35 = 0.33, g / w = 1.83: avg passes 5 at arrival 8
 *    (q = 23.94 + 16 / 35 = 24.39) and 8 at arrival 13 (q = 24.68):
 *    ca_peak 25, transient ceil(24.68 + 2) = 27, limit 27 + 20 = 47.
 * B. 99 ms, SSth 15, 15: ss_peak = ceil(30 - 18.5625) = 12; q_0 = 11.44.
 *      k  u   q      a       g/w    d'     avg'
 *      0  30  11.44  0.9430  34.13  12.73  0.71
 *      1  32  13.44  0.9394  32.00  13.90  1.54
 *      2  34  15.44  0.9357  30.12  14.94  2.50
 *      3  36  17.44  0.9320  28.44  15.86  3.58
 *      4  38  19.44  0.9284  26.95  16.65  4.78
 *      5  40  21.44: avg 5 at arrival 7, q = 21.44 + 14 / 40 = 21.79 -> 22
 *      6  42  23.44  0.9212  24.38  17.88  7.56
 *      7  44  25.44: avg 8 at arrival 13, q = 25.44 + 26 / 44 = 26.03,
 *         hazard ~1.3 < 2 -> transient ceil(26.03 + 2) = 29; limit
 *         29 + 20 = 49.
 *    Follow: 18.56 + 5 = 23.56 <= 2^5: Wlog 5; a = (31/32)^30 = 0.386,
 *    avg 5 at arrival 17 of round 0 (q = 11.44 + 34 / 30 = 12.57 -> 13),
 *    8 at arrival 2 of round 1 (q = 13.44 + 4 / 32 = 13.56): transient
 *    ceil(13.56 + 2) = 16, limit 16 + 20 = 36.
 * C. 59 ms, SSth 15, 15: ss_peak = ceil(30 - 11.0625) = 19; q_0 = 18.94.
 *      k  u   q      a       g/w    d'     avg'
 *      0  30  18.94  0.9430  34.13  19.80  1.13
 *      1  32  20.94  0.9394  32.00  20.54  2.40
 *      2  34  22.94  0.9357  30.12  21.16  3.78
 *      3  36  24.94: avg 5 at arrival 30, q = 24.94 + 60 / 36 = 26.60 -> 27
 *      4  38  26.94  0.9284  26.95  22.03  6.91
 *      5  40  28.94: avg 8 at arrival 26, q = 28.94 + 52 / 40 = 30.24,
 *         hazard ~1.1 < 2 -> transient ceil(30.24 + 2) = 33; limit
 *         33 + 20 = 53.
 *    Follow (Wlog 5): avg 5 at arrival 10 (q = 18.94 + 20 / 30 = 19.60 ->
 *    20), 8 at arrival 17 (q = 20.07): transient ceil(20.07 + 2) = 23,
 *    limit 23 + 20 = 43.
 * In all three the average reaches max_th before every flow is marked
 * (transient_by_marks false), at either weight: RED marks every ECT
 * arrival from there (forced marks) and the queue grows one more round
 * trip, m = 2 packets (with harddrop it would stop at max_th, lower).
 */
static void test_worked_cases(void)
{
	static const struct worked cases[] = {
		{ 59000, { 15, 20 }, 24, 30, 35, 55, REDOPT_LIMIT_BY_TRANSIENT,
		  25, 27, 47, REDOPT_LIMIT_BY_TRANSIENT },
		{ 99000, { 15, 15 }, 12, 22, 29, 49, REDOPT_LIMIT_BY_TRANSIENT,
		  13, 16, 36, REDOPT_LIMIT_BY_TRANSIENT },
		{ 59000, { 15, 15 }, 19, 27, 33, 53, REDOPT_LIMIT_BY_TRANSIENT,
		  20, 23, 43, REDOPT_LIMIT_BY_TRANSIENT },
	};
	unsigned int i;

	for (i = 0; i < 3; i++) {
		const struct worked *c = &cases[i];
		struct redopt_model_params p = example();
		struct redopt_model o;

		p.rtt_us = c->rtt_us;
		p.ssthresh = c->ss;
		p.n_ssthresh = 2;
		CHECK(redopt_model_compute(&p, &o, NULL) == 0, "case %u", i);
		CHECK(o.ss_peak == c->ss_peak && o.buffer == c->ss_peak, "case %u: ss_peak %u", i,
		      o.ss_peak);
		CHECK(o.qth_max == 8 && (o.qmax_milli + 5) / 10 == 730, "case %u: max_th %u", i,
		      o.qth_max);
		CHECK(o.ca_peak == c->ca_peak, "case %u: ca_peak %u, want %u", i, o.ca_peak,
		      c->ca_peak);
		CHECK(o.transient == c->transient && !o.transient_by_marks,
		      "case %u: transient %u (marks %d), want %u", i, o.transient,
		      o.transient_by_marks, c->transient);
		CHECK(o.margin == 20 && o.limit == c->limit && o.limit_by == c->limit_by,
		      "case %u: limit %u by %s, want %u", i, o.limit,
		      redopt_limit_by_name(o.limit_by), c->limit);
		CHECK(o.follow.wlog == 5 && o.follow.qth_max == 8, "case %u: follow Wlog %u max_th %u",
		      i, o.follow.wlog, o.follow.qth_max);
		CHECK(o.follow.ca_peak == c->f_ca && o.follow.transient == c->f_tr &&
		      !o.follow.by_marks, "case %u: follow ca %u tr %u", i, o.follow.ca_peak,
		      o.follow.transient);
		CHECK(o.follow.limit == c->f_limit && o.follow.limit_by == c->f_by,
		      "case %u: follow limit %u by %s, want %u", i, o.follow.limit,
		      redopt_limit_by_name(o.follow.limit_by), c->f_limit);
	}
	CHECK(strcmp(redopt_limit_by_name(REDOPT_LIMIT_BY_SS_PEAK), "ss_peak") == 0 &&
	      strcmp(redopt_limit_by_name(REDOPT_LIMIT_BY_CA_PEAK), "ca_peak") == 0 &&
	      strcmp(redopt_limit_by_name(REDOPT_LIMIT_BY_TRANSIENT), "transient") == 0 &&
	      strcmp(redopt_limit_by_name(REDOPT_LIMIT_BY_MAX_TH), "max_th") == 0, "names");

	/*
	 * max_th + 1 sets the limit: one flow, W 1, SSth 1, max_p 0.01, Wlog 1:
	 * Qmax = 5 + sqrt((1 / 1) / (0.01 / 10)) = 36.6 -> max_th 37; the
	 * average follows the queue (w = 1/2), the hazard 0.001 (avg - 5) per
	 * arrival reaches 1 near avg 15: transient 16, 16 + 10 < 37 + 1.
	 */
	{
		struct redopt_model_params p = example();
		struct redopt_model o;

		p.flows = 1;
		p.window = 1;
		p.ssthresh = (const u32[]){ 1 };
		p.n_ssthresh = 1;
		p.max_p = redopt_max_p_from_ppm(10000);
		p.wlog = 1;
		CHECK(redopt_model_compute(&p, &o, NULL) == 0, "max_th example");
		CHECK(o.qth_max == 37 && o.transient == 16 && o.transient_by_marks &&
		      o.limit == 38 && o.limit_by == REDOPT_LIMIT_BY_MAX_TH,
		      "max_th %u transient %u limit %u by %s", o.qth_max, o.transient, o.limit,
		      redopt_limit_by_name(o.limit_by));
	}
}

/* ---- the peaks against a per-arrival simulation ---- */

struct sim {
	ld ca, tr;
	bool marks;
	unsigned long long arrivals;
};

/*
 * The rounds of the header comment, one arrival at a time: from the first
 * round whose windows fill the pipe, u arrivals a round, the queue up by
 * m / u each, avg += w (q - avg) before it; the hazard sums p(avg) on the
 * model's curve past min_th. Every flow is marked once the hazard reaches
 * m, or at once when the average reaches max_th (forced marks); the queue
 * then grows for one more round trip, m packets, until the senders reduce.
 * false if it takes more than max_arrivals.
 */
static bool sim_peaks(const struct redopt_model_params *p, u8 wlog, u32 max_th,
		      unsigned long long max_arrivals, struct sim *r)
{
	ld w = ldexpl(1, -wlog), pipe = (ld)p->bandwidth_bps * p->rtt_us / (8e6L * p->avpkt);
	ld m = p->flows, k = (ld)p->max_p / 4294967296.0L / (2 * p->min_th);
	ld u = 0, q, avg = 0, g, haz = 0, qm = 0;
	unsigned long long j, n;
	int phase = 0;
	u32 i;

	for (i = 0; i < p->flows; i++)
		u += p->ssthresh[p->n_ssthresh == 1 ? 0 : i];
	if (u < pipe)
		u += m * ceill((pipe - u) / m);
	q = u - pipe;
	r->arrivals = 0;
	for (;;) {
		g = m / u;
		n = (unsigned long long)u;
		for (j = 0; j < n; j++) {
			avg += w * (q - avg);
			q += g;
			if (phase == 0) {
				if (avg >= p->min_th) {
					r->ca = q;
					phase = 1;
				}
				continue;
			}
			if (phase == 1) {
				haz += k * (avg - p->min_th);
				/* marks by the hazard, or forced at max_th */
				if (haz >= m || avg >= max_th) {
					r->marks = avg < max_th;
					qm = q + m;
					phase = 2;
				}
			} else if (q >= qm) {
				r->tr = qm;
				return true;
			}
		}
		r->arrivals += n;
		if (r->arrivals > max_arrivals)
			return false;
		u += m;
	}
}

static void peak_cmp(const char *what, u32 got, ld want, const struct redopt_model_params *p,
		     u8 wlog, unsigned long *bad, ld *lo, ld *hi)
{
	ld e = (ld)got - want;

	*lo = fminl(*lo, e);
	*hi = fmaxl(*hi, e);
	if (e >= -PEAK_BELOW && e <= PEAK_ABOVE + (want - p->min_th) / PEAK_ABOVE_LAG)
		return;
	if ((*bad)++ < 10)
		printf("  %s %u, simulated %.3Lf: C %llu r %u m %u ss %u min %u max_p %u Wlog %u\n",
		       what, got, want, (unsigned long long)p->bandwidth_bps, p->rtt_us, p->flows,
		       p->ssthresh[0], p->min_th, p->max_p, wlog);
}

static void test_peaks_sim(void)
{
	static const u64 cs[] = { 64000, 1500000, 10000000, 1000000000 };
	static const u32 rs[] = { 1000, 59000, 200000, 1000000 };
	static const u32 ms[] = { 1, 2, 7, 100, 1024 };
	static const u32 ssth[] = { 2, 15, 100 };
	static const u32 mins[] = { 1, 5, 30, 3000 };
	static const u32 pps[] = { 20000, 100000, 1000000 };
	static const u8 wlogs[] = { 1, 5, 9, 12, 16, 20 };
	unsigned long bad = 0, n = 0, skipped = 0, marks = 0, agree = 0;
	ld lo = 0, hi = 0;
	unsigned int idx, v, sum, side;

	for (idx = 0; idx < 4 * 4 * 5 * 3 * 4 * 3 * 6; idx++) {
		struct redopt_model_params p = example();
		struct redopt_model o;
		struct sim r;

		v = idx;
		sum = 0;
#define PICK(n) ({ unsigned int __i = v % (n); v /= (n); sum += __i; __i; })
		p.bandwidth_bps = cs[PICK(4)];
		p.rtt_us = rs[PICK(4)];
		p.flows = ms[PICK(5)];
		p.ssthresh = &ssth[PICK(3)];
		p.min_th = mins[PICK(4)];
		p.max_p = redopt_max_p_from_ppm(pps[PICK(3)]);
		p.wlog = wlogs[PICK(6)];
#undef PICK
		/* thin the grid: one combination in four */
		if (sum % 4)
			continue;
		p.n_ssthresh = 1;
		p.window = 0;
		if (redopt_model_compute(&p, &o, NULL))
			continue;
		for (side = 0; side < 2; side++) {
			u8 wl = side ? o.follow.wlog : p.wlog;

			if (!sim_peaks(&p, wl, side ? o.follow.qth_max : o.qth_max, 1000000, &r)) {
				skipped++;
				continue;
			}
			n++;
			marks += r.marks;
			agree += r.marks == (side ? o.follow.by_marks : o.transient_by_marks);
			peak_cmp("ca_peak", side ? o.follow.ca_peak : o.ca_peak, r.ca, &p, wl, &bad,
				 &lo, &hi);
			peak_cmp("transient", side ? o.follow.transient : o.transient, r.tr, &p, wl,
				 &bad, &lo, &hi);
		}
	}
	printf("peaks vs simulation: %lu cases (%lu end with the marks, the integer model agrees on %lu), %lu too long to simulate; integer - simulated in %.3Lf .. %.3Lf packets\n",
	       n, marks, agree, skipped, lo, hi);
	CHECK(n > 4000 && marks > 400, "%lu cases, %lu with marks", n, marks);
	/* what ends the transient (marks or max_th): the same but near ties */
	CHECK(agree + n / 100 >= n, "transient_end: %lu of %lu agree", agree, n);
	CHECK(bad == 0, "%lu peaks outside -%.1Lf .. +%.1Lf packets + 1/%d of the lag", bad,
	      PEAK_BELOW, PEAK_ABOVE, PEAK_ABOVE_LAG);
}

/* ---- 2^-62 fixed point: products and powers ---- */

static void test_q62(void)
{
	unsigned int n, bad_mul = 0, bad_pow = 0, bad_q32 = 0;
	static const u64 ns[] = { 0, 1, 2, 3, 100, 511, 4096, 123457, 1000000, 1ULL << 40,
				  (1ULL << 61) - 1 };
	long double worst = 0;
	u8 wl;

	for (n = 0; n < 20000; n++) {
		u64 a = rnd_range(0, U64_MAX), b = rnd_range(0, REDOPT_ONE62);
		u128 want = ((u128)a * b) >> 62;

		if (want >> 64)
			continue;
		bad_mul += redopt_mul_q62(a, b) != (u64)want;
		a >>= 1;		/* < 2^63 */
		b = rnd_range(0, 1ULL << 32);
		bad_q32 += redopt_mul_q32(a, b) != (u64)(((u128)a * b) >> 32);
	}
	CHECK(bad_mul == 0, "mul_q62: %u wrong", bad_mul);
	CHECK(bad_q32 == 0, "mul_q32: %u wrong", bad_q32);
	CHECK(redopt_mul_q62(REDOPT_ONE62, REDOPT_ONE62) == REDOPT_ONE62, "1 * 1");

	/*
	 * (1 - 2^-wlog)^n: rounded down at each product; each squaring doubles
	 * the relative error, so within 2^-60 (n + 64) of exact
	 */
	for (wl = REDOPT_WLOG_MIN; wl <= REDOPT_WLOG_MAX; wl++) {
		for (n = 0; n < sizeof(ns) / sizeof(ns[0]); n++) {
			long double want = powl(1 - ldexpl(1, -wl), (long double)ns[n]);
			long double got = ldexpl((long double)redopt_pow_q62(wl, ns[n]), -62);
			long double err = want - got;

			if (err < -ldexpl(1, -62) || err > ldexpl((long double)ns[n] + 64, -60))
				bad_pow++;
			worst = fmaxl(worst, err);
		}
	}
	CHECK(bad_pow == 0, "pow_q62: %u beyond 2^-60 (n + 64) (worst %Lg)", bad_pow, worst);
	CHECK(redopt_pow_q62(9, 0) == REDOPT_ONE62 && redopt_pow_q62(1, 1) == REDOPT_ONE62 / 2 &&
	      redopt_pow_q62(1, 100) == 0, "pow corners");
}

/* ---- rejections ---- */

static void expect_reject(struct redopt_model_params p, int want, const char *what)
{
	struct redopt_model o, before;
	const char *why = NULL, *why2 = NULL;
	int rc, rc2;

	memset(&o, 0xab, sizeof(o));
	before = o;
	rc = redopt_check_params(&p, &why);
	rc2 = redopt_model_compute(&p, &o, &why2);
	CHECK(rc == want, "%s: rc %d, want %d", what, rc, want);
	CHECK(rc2 == rc && why2 == why, "%s: compute agrees", what);
	CHECK(why && *why, "%s: reason", what);
	CHECK(memcmp(&o, &before, sizeof(o)) == 0, "%s: result untouched", what);
	CHECK(redopt_check_params(&p, NULL) == want, "%s: why may be NULL", what);
	if (why)
		printf("  rejects %-28s %-7s \"%s\"\n", what, rc == -EINVAL ? "EINVAL" :
		       rc == -ERANGE ? "ERANGE" : "?", why);
}

static void expect_ok(struct redopt_model_params p, const char *what)
{
	const char *why = "unset";

	CHECK(redopt_check_params(&p, &why) == 0 && !why, "%s: %s", what, why);
}

static void test_rejections(void)
{
	static const u32 ss_big[] = { REDOPT_MAX_SSTHRESH + 1 };
	static u32 ss_many[TC_REDOPT_MAX_FLOWS];
	struct redopt_model_params p;
	u32 i;

	for (i = 0; i < TC_REDOPT_MAX_FLOWS; i++)
		ss_many[i] = 15;

#define WITH(field, value) ({ p = example(); p.field = (value); p; })
	expect_reject(WITH(bandwidth_bps, 0), -EINVAL, "bandwidth 0");
	expect_reject(WITH(bandwidth_bps, REDOPT_MAX_BANDWIDTH + 1), -ERANGE, "bandwidth > 100G");
	expect_ok(WITH(bandwidth_bps, REDOPT_MAX_BANDWIDTH), "bandwidth 100G");
	expect_ok(WITH(bandwidth_bps, 1), "bandwidth 1");
	expect_reject(WITH(rtt_us, 0), -EINVAL, "rtt 0");
	expect_reject(WITH(rtt_us, REDOPT_MAX_RTT_US + 1), -ERANGE, "rtt > 10 s");
	expect_ok(WITH(rtt_us, REDOPT_MAX_RTT_US), "rtt 10 s");
	expect_reject(WITH(flows, 0), -EINVAL, "flows 0");
	expect_reject(WITH(flows, TC_REDOPT_MAX_FLOWS + 1), -ERANGE, "flows 1025");
	expect_ok(WITH(flows, TC_REDOPT_MAX_FLOWS), "flows 1024");
	expect_reject(WITH(ssthresh, NULL), -EINVAL, "ssthresh missing");
	expect_reject(WITH(n_ssthresh, 0), -EINVAL, "ssthresh count 0");
	p = example();
	p.ssthresh = ss_many;
	p.n_ssthresh = 3;
	expect_reject(p, -EINVAL, "ssthresh count 3 for m 2");
	p.flows = TC_REDOPT_MAX_FLOWS;
	p.n_ssthresh = TC_REDOPT_MAX_FLOWS;
	expect_ok(p, "ssthresh 1024 values");
	ss_many[TC_REDOPT_MAX_FLOWS - 1] = REDOPT_MAX_SSTHRESH + 1;
	expect_reject(p, -ERANGE, "ssthresh[1023] too big");
	ss_many[TC_REDOPT_MAX_FLOWS - 1] = 0;
	expect_reject(p, -ERANGE, "ssthresh[1023] zero");
	ss_many[TC_REDOPT_MAX_FLOWS - 1] = 15;
	expect_reject(WITH(ssthresh, ss_big), -ERANGE, "ssthresh > 1e6");
	expect_reject(WITH(window, REDOPT_MAX_WINDOW + 1), -ERANGE, "window > 1e7");
	expect_ok(WITH(window, REDOPT_MAX_WINDOW), "window 1e7");
	expect_ok(WITH(window, 0), "window derived");
	expect_reject(WITH(min_th, 0), -EINVAL, "min_th 0");
	expect_reject(WITH(min_th, REDOPT_MAX_MIN_TH + 1), -ERANGE, "min_th > 1e6");
	expect_reject(WITH(max_p, 0), -EINVAL, "max_p 0");
	expect_ok(WITH(max_p, U32_MAX), "max_p 1");
	expect_reject(WITH(wlog, 0), -ERANGE, "wlog 0");
	expect_reject(WITH(wlog, REDOPT_WLOG_MAX + 1), -ERANGE, "wlog 25");
	expect_reject(WITH(wlog, 255), -ERANGE, "wlog 255");
	expect_reject(WITH(avpkt, 0), -EINVAL, "avpkt 0");
	expect_reject(WITH(avpkt, REDOPT_MIN_AVPKT - 1), -ERANGE, "avpkt 63");
	expect_reject(WITH(avpkt, REDOPT_MAX_AVPKT + 1), -ERANGE, "avpkt 65536");
	expect_ok(WITH(loss_rate_milli, U32_MAX), "lambda max");

	/* results that do not fit: Qmax beyond u32 milli-packets */
	p = example();
	p.flows = TC_REDOPT_MAX_FLOWS;
	p.window = 1;
	p.min_th = REDOPT_MAX_MIN_TH;
	p.max_p = 1;
	p.wlog = 1;
	expect_reject(p, -ERANGE, "Qmax > 4294967 packets");
	/* red.h's rule: fls(max_th) + Wlog < 32 */
	p = example();
	p.wlog = 24;
	expect_ok(p, "wlog 24, max_th 8");
	p.min_th = 200;
	expect_reject(p, -ERANGE, "max_th << 24 > 32 bits");
#undef WITH
}

/* ---- grids, random draws and corners against the reference ---- */

static void test_grid_given_window(void)
{
	static const u32 ms[] = { 1, 2, 3, 10, 100, 1024 };
	static const u32 ws[] = { 1, 2, 38, 1000, 10000000 };
	static const u32 mins[] = { 1, 5, 30, 1000, 1000000 };
	static const u32 pps[] = { 1, 1000, 20000, 100000, 500000, 1000000 };
	static const u8 wlogs[] = { 1, 5, 9, 16, 24 };
	struct redopt_model_params p = example();
	struct stats st = { 0 };
	unsigned int a, b, c, d, e;

	for (a = 0; a < 6; a++)
		for (b = 0; b < 5; b++)
			for (c = 0; c < 5; c++)
				for (d = 0; d < 6; d++)
					for (e = 0; e < 5; e++) {
						p.flows = ms[a];
						p.window = ws[b];
						p.min_th = mins[c];
						p.max_p = redopt_max_p_from_ppm(pps[d]);
						p.wlog = wlogs[e];
						check_case(&p, &st);
					}
	check_stats("grid (W given)", &st);
}

static void test_grid_derived_window(void)
{
	static const u32 ms[] = { 1, 2, 7, 100, 1024 };
	static const u64 cs[] = { 9600, 64000, 1500000, 1000000000, REDOPT_MAX_BANDWIDTH };
	static const u32 rs[] = { 1, 1000, 59000, 560000, REDOPT_MAX_RTT_US };
	static const u32 ss[] = { 64, 1000, 65535 };
	static const u32 mins[] = { 1, 5, 1000, 1000000 };
	static const u32 pps[] = { 1000, 100000, 1000000 };
	static const u8 wlogs[] = { 1, 9, 24 };
	static const u32 ssth[] = { 1, 15, 1000000 };
	struct redopt_model_params p = example();
	struct stats st = { 0 };
	unsigned int a, b, c, d, e, f, g;

	p.window = 0;
	for (a = 0; a < 5; a++)
		for (b = 0; b < 5; b++)
			for (c = 0; c < 5; c++)
				for (d = 0; d < 3; d++)
					for (e = 0; e < 4; e++)
						for (f = 0; f < 3; f++)
							for (g = 0; g < 3; g++) {
								p.flows = ms[a];
								p.bandwidth_bps = cs[b];
								p.rtt_us = rs[c];
								p.avpkt = ss[d];
								p.min_th = mins[e];
								p.max_p = redopt_max_p_from_ppm(pps[f]);
								p.wlog = wlogs[g];
								p.ssthresh = &ssth[(a + b + c) % 3];
								p.loss_rate_milli = (a + c) % 2 ? 500 : 0;
								check_case(&p, &st);
							}
	check_stats("grid (W derived)", &st);
}

static void test_random(void)
{
	static u32 ssv[TC_REDOPT_MAX_FLOWS];
	struct redopt_model_params p;
	struct stats st = { 0 };
	u32 i, n;

	for (n = 0; n < 20000; n++) {
		p.bandwidth_bps = rnd_range(1, REDOPT_MAX_BANDWIDTH);
		p.rtt_us = (u32)rnd_range(1, REDOPT_MAX_RTT_US);
		p.flows = (u32)rnd_range(1, TC_REDOPT_MAX_FLOWS);
		p.n_ssthresh = rnd64() % 2 ? 1 : p.flows;
		for (i = 0; i < p.n_ssthresh; i++)
			ssv[i] = (u32)rnd_range(1, REDOPT_MAX_SSTHRESH);
		p.ssthresh = ssv;
		p.window = rnd64() % 2 ? 0 : (u32)rnd_range(1, REDOPT_MAX_WINDOW);
		p.min_th = (u32)rnd_range(1, REDOPT_MAX_MIN_TH);
		p.max_p = (u32)rnd_range(1, U32_MAX);
		p.wlog = (u8)rnd_range(REDOPT_WLOG_MIN, REDOPT_WLOG_MAX);
		p.avpkt = (u32)rnd_range(REDOPT_MIN_AVPKT, REDOPT_MAX_AVPKT);
		p.loss_rate_milli = rnd64() % 2 ? 0 : (u32)rnd_range(1, U32_MAX);
		check_case(&p, &st);
	}
	check_stats("random", &st);
}

/* every combination of the ends of every input range */
static void test_corners(void)
{
	static u32 ssv[TC_REDOPT_MAX_FLOWS];
	static const u64 cs[] = { 1, REDOPT_MAX_BANDWIDTH };
	static const u32 rs[] = { 1, REDOPT_MAX_RTT_US };
	static const u32 ms[] = { 1, TC_REDOPT_MAX_FLOWS };
	static const u32 ss[] = { REDOPT_MIN_AVPKT, REDOPT_MAX_AVPKT };
	static const u32 mins[] = { 1, REDOPT_MAX_MIN_TH };
	static const u32 ws[] = { 0, 1, REDOPT_MAX_WINDOW };
	static const u32 pmax[] = { 1, U32_MAX };
	static const u8 wlogs[] = { REDOPT_WLOG_MIN, REDOPT_WLOG_MAX };
	static const u32 ssth[] = { 1, REDOPT_MAX_SSTHRESH };
	static const u32 lam[] = { 0, 1, U32_MAX };
	struct redopt_model_params p;
	struct stats st = { 0 };
	unsigned int idx, v, i;

	for (idx = 0; idx < 2 * 2 * 2 * 2 * 2 * 3 * 2 * 2 * 2 * 3 * 2; idx++) {
		v = idx;
#define PICK(arr, n) ({ unsigned int __i = v % (n); v /= (n); (arr)[__i]; })
		p.bandwidth_bps = PICK(cs, 2);
		p.rtt_us = PICK(rs, 2);
		p.flows = PICK(ms, 2);
		p.avpkt = PICK(ss, 2);
		p.min_th = PICK(mins, 2);
		p.window = PICK(ws, 3);
		p.max_p = PICK(pmax, 2);
		p.wlog = PICK(wlogs, 2);
		ssv[0] = PICK(ssth, 2);
		p.loss_rate_milli = PICK(lam, 3);
		p.n_ssthresh = v % 2 ? p.flows : 1;
#undef PICK
		for (i = 1; i < p.n_ssthresh; i++)
			ssv[i] = ssv[0];
		p.ssthresh = ssv;
		check_case(&p, &st);
	}
	check_stats("corners", &st);

	/* the largest buffer: 1024 flows x 1e6 packets, no pipe */
	p = example();
	p.flows = TC_REDOPT_MAX_FLOWS;
	p.ssthresh = (const u32[]){ REDOPT_MAX_SSTHRESH };
	p.bandwidth_bps = 1;
	p.rtt_us = 1;
	{
		struct redopt_model o;

		/* no pipe, w = 2^-9 against 1e9 arrivals a round: the average
		 * follows at once, ca_peak equals L; it reaches max_th (forced
		 * marks) at L too: the transient is L + m, which names the limit
		 */
		CHECK(redopt_model_compute(&p, &o, NULL) == 0, "max L");
		CHECK(o.buffer == 1024000000u && o.ca_peak == o.buffer &&
		      o.transient == o.buffer + 1024 && !o.transient_by_marks &&
		      o.limit == o.buffer + 1024 + 10240 && o.limit_by == REDOPT_LIMIT_BY_TRANSIENT,
		      "L %u ca %u tr %u limit %u", o.buffer, o.ca_peak, o.transient, o.limit);
	}
}

/* ---- helpers ---- */

static u128 wide_to_u128(const struct redopt_wide *w, bool *fits)
{
	*fits = !w->l[4] && !w->l[5];
	return ((u128)w->l[3] << 96) | ((u128)w->l[2] << 64) |
	       ((u128)w->l[1] << 32) | w->l[0];
}

static void test_wide(void)
{
	unsigned int n, bad_mul = 0, bad_div = 0, bad_cmp = 0, bad_3 = 0;
	struct redopt_wide w, w2;
	u64 a, b, c, d, rem;
	u128 got, want;
	bool fits;

	for (n = 0; n < 20000; n++) {
		a = rnd_range(0, U64_MAX);
		b = rnd_range(0, U64_MAX);
		c = rnd_range(1, U64_MAX);
		d = rnd_range(1, U64_MAX);

		redopt_wide_set(&w, a);
		redopt_wide_mul(&w, b);
		got = wide_to_u128(&w, &fits);
		want = (u128)a * b;
		bad_mul += !fits || got != want;

		rem = redopt_wide_div(&w, d);
		got = wide_to_u128(&w, &fits);
		bad_div += !fits || got != want / d || rem != (u64)(want % d);

		/* 192 bits: (a b c) / c == a b, remainder 0 */
		redopt_wide_set(&w, a);
		redopt_wide_mul(&w, b);
		redopt_wide_mul(&w, c);
		rem = redopt_wide_div(&w, c);
		got = wide_to_u128(&w, &fits);
		bad_3 += !fits || got != want || rem;

		/* compare */
		redopt_wide_set(&w, a);
		redopt_wide_mul(&w, b);
		redopt_wide_set(&w2, c);
		redopt_wide_mul(&w2, d);
		want = (u128)c * d;
		got = (u128)a * b;
		bad_cmp += redopt_wide_cmp(&w, &w2) != (got < want ? -1 : got > want);
	}
	CHECK(bad_mul == 0, "wide mul: %u wrong", bad_mul);
	CHECK(bad_div == 0, "wide div: %u wrong", bad_div);
	CHECK(bad_3 == 0, "wide 192-bit: %u wrong", bad_3);
	CHECK(bad_cmp == 0, "wide cmp: %u wrong", bad_cmp);

	/* the largest products of the model stay below 2^192 */
	redopt_wide_set(&w, U32_MAX);
	redopt_wide_mul(&w, (1ULL << 56) - 1);
	redopt_wide_mul(&w, (1ULL << 61) - 1);
	redopt_wide_mul(&w, U32_MAX);
	CHECK(w.l[5] < (1u << 22), "LHS bound 2^181: top limb %#x", w.l[5]);
	redopt_wide_set(&w, U64_MAX);
	redopt_wide_mul(&w, U64_MAX);
	redopt_wide_mul(&w, U64_MAX);
	/* (2^64 - 1)^3 = 2^192 - 3 2^128 + 3 2^64 - 1 */
	CHECK(w.l[0] == U32_MAX && w.l[1] == U32_MAX && w.l[2] == 2 && w.l[3] == 0 &&
	      w.l[4] == U32_MAX - 2 && w.l[5] == U32_MAX,
	      "(2^64-1)^3 limbs %#x %#x %#x %#x %#x %#x", w.l[0], w.l[1], w.l[2], w.l[3],
	      w.l[4], w.l[5]);
	CHECK(redopt_wide_to_u64_sat(&w) == U64_MAX, "saturate");
	redopt_wide_set(&w, 12345);
	CHECK(redopt_wide_to_u64_sat(&w) == 12345, "to u64");
}

/* Every refusal's message maps back to its code, for the qdisc's extack. */
static void test_reasons(void)
{
	struct redopt_model_params p = example();
	struct redopt_model o;
	const char *why = NULL;
	char copy[] = "bandwidth is required (bit/s)";
	unsigned int c;

	for (c = 0; c < REDOPT_WHY_MAX; c++) {
		CHECK(redopt_reason_msg(c) && *redopt_reason_msg(c), "code %u: a message", c);
		CHECK(redopt_reason_code(redopt_reason_msg(c)) == c, "code %u: back", c);
	}
	CHECK(!redopt_reason_msg(REDOPT_WHY_MAX), "no message past the codes");
	CHECK(redopt_reason_code(NULL) == REDOPT_WHY_MAX, "NULL: no code");
	CHECK(redopt_reason_code(copy) == REDOPT_WHY_MAX,
	      "a copy of a message is not the table's");
	/* a refusal gives the table's message, hence its code */
	p.min_th = 0;
	CHECK(redopt_model_compute(&p, &o, &why) == -EINVAL &&
	      redopt_reason_code(why) == REDOPT_WHY_MIN_REQUIRED, "min_th 0: %s", why);
	p = example();
	p.wlog = 25;
	CHECK(redopt_model_compute(&p, &o, &why) == -ERANGE &&
	      redopt_reason_code(why) == REDOPT_WHY_WLOG_RANGE, "Wlog 25: %s", why);
}

static void test_ppm(void)
{
	unsigned int k;

	CHECK(redopt_max_p_from_ppm(100000) == 429496730u, "0.1 -> %u",
	      redopt_max_p_from_ppm(100000));
	CHECK(redopt_max_p_from_ppm(1000000) == U32_MAX, "1.0 -> 0xffffffff");
	CHECK(redopt_max_p_from_ppm(500000) == 1u << 31, "0.5");
	CHECK(redopt_max_p_from_ppm(1) == 4295, "1e-6 -> %u", redopt_max_p_from_ppm(1));
	CHECK(redopt_max_p_from_ppm(0) == 0, "0 invalid");
	CHECK(redopt_max_p_from_ppm(1000001) == 0, "> 1 invalid");
	for (k = 1; k <= 1000000; k += 997)
		CHECK(redopt_max_p_to_ppm(redopt_max_p_from_ppm(k)) == k, "round trip %u", k);
	CHECK(redopt_max_p_to_ppm(U32_MAX) == 1000000, "0xffffffff -> 1.0");

	CHECK(redopt_wlog_from_ppm(2000) == 9, "0.002");
	CHECK(redopt_wlog_from_ppm(1953) == 9, "2^-9");
	CHECK(redopt_wlog_from_ppm(500000) == 1, "0.5");
	CHECK(redopt_wlog_from_ppm(999999) == 1, "0.999999");
	CHECK(redopt_wlog_from_ppm(375000) == 1, "tie 0.375 -> larger weight");
	CHECK(redopt_wlog_from_ppm(1) == 20, "1e-6 -> %u", redopt_wlog_from_ppm(1));
	CHECK(redopt_wlog_from_ppm(0) == 0, "0 invalid");
	CHECK(redopt_wlog_from_ppm(1000000) == 0, "1 invalid");
	for (k = 1; k <= 19; k++) {
		u32 ppm = (u32)llround(1e6 * ldexp(1, -(int)k));

		CHECK(redopt_wlog_from_ppm(ppm) == k, "2^-%u = %u ppm -> %u", k, ppm,
		      redopt_wlog_from_ppm(ppm));
	}
	/* nearest in linear scale: 0.75 * 2^-k is the boundary */
	CHECK(redopt_wlog_from_ppm(2929) == 9 && redopt_wlog_from_ppm(2931) == 8,
	      "boundary 9/8 at 2929.7 ppm");
}

int main(void)
{
	RUN(test_wide);
	RUN(test_ppm);
	RUN(test_q62);
	RUN(test_examples);
	RUN(test_worked_cases);
	RUN(test_peaks_sim);
	RUN(test_rejections);
	RUN(test_reasons);
	RUN(test_grid_given_window);
	RUN(test_grid_derived_window);
	RUN(test_random);
	RUN(test_corners);
	return check_done("test_red_model");
}

/* Host unit tests of kernel/include/specnet/cpecn.h (CPECN's congestion
 * probability), against a double-precision reference of docs/algorithms.md
 * CPECN.
 */
#include <specnet/cpecn.h>	/* first: the header stands alone */
#include <math.h>
#include <string.h>
#include "check.h"

/* A window written newest ACK first ("00011111"): bit i = character i. */
static u32 bits_of(const char *s)
{
	u32 bits = 0, i;

	for (i = 0; s[i]; i++)
		bits |= (u32)(s[i] == '1') << i;
	return bits;
}

/* Reference weights: w_k = a^k (1 - a) / (1 - a^n), k = 0 newest. */
static void ref_weights(u32 m, u32 alpha, double *w)
{
	double a = alpha / 1000.0;
	u32 n = m / 4, k;

	for (k = 0; k < n; k++)
		w[k] = pow(a, k) * (1 - a) / (1 - pow(a, n));
}

static u32 nibble_ones(u32 bits, u32 k)
{
	return (u32)__builtin_popcount((bits >> (4 * k)) & 0xf);
}

/* Reference CP (a fraction of 1) of a window. */
static double ref_cp(u32 m, const double *w, u32 bits)
{
	double cp = 0;
	u32 k;

	for (k = 0; k < m / 4; k++)
		cp += w[k] * nibble_ones(bits, k) / 4.0;
	return cp;
}

/* Reference dCP from window @a to window @b, as the sum of the weighted
 * changes of the segments (no cancellation of two nearly equal CPs).
 */
static double ref_dcp(u32 m, const double *w, u32 a, u32 b)
{
	double d = 0;
	u32 k;

	for (k = 0; k < m / 4; k++)
		d += w[k] * ((double)nibble_ones(b, k) - (double)nibble_ones(a, k)) / 4.0;
	return d;
}

/* CP of a window from the weights, bit by bit: an independent evaluation
 * of cpecn_cp_of()'s nibble counts (the weights are tested apart).
 */
static u32 ref_cp_int(const struct cpecn_params *p, u32 bits)
{
	u32 cp = 0, i;

	for (i = 0; i < p->m; i++)
		if (bits & (1U << i))
			cp += p->w[i / 4];
	return cp;
}

static u32 lcg_state = 12345;

static u32 lcg(void)
{
	lcg_state = lcg_state * 1103515245u + 12345u;
	return (lcg_state >> 16) ^ (lcg_state << 16);
}

static struct cpecn_params params(u32 m, u32 alpha)
{
	struct cpecn_params p;
	int err;

	memset(&p, 0xa5, sizeof(p));
	err = cpecn_params_init(&p, m, alpha);
	CHECK(err == 0, "params_init(%u, %u) = %d", m, alpha, err);
	return p;
}

/* CP of every window in @windows (or all 2^m if NULL) against the
 * reference; returns the largest absolute error (as a fraction of 1).
 */
static double max_err(u32 m, u32 alpha, const u32 *windows, u32 count)
{
	struct cpecn_params p = params(m, alpha);
	double w[CPECN_MAX_SEGS], err, worst = 0;
	u32 i, bits;

	ref_weights(m, alpha, w);
	if (!windows)
		count = 1U << m;
	for (i = 0; i < count; i++) {
		bits = windows ? windows[i] & p.mask : i;
		err = fabs(cpecn_cp_of(&p, bits) / 1e6 - ref_cp(m, w, bits));
		if (err > worst)
			worst = err;
	}
	return worst;
}

static void test_params(void)
{
	static const u32 bad_m[] = { 0, 1, 2, 3, 5, 7, 30, 33, 36, 64, 0xffffffffu };
	static const u32 bad_alpha[] = { 0, 1000, 1001, 0xffffffffu };
	struct cpecn_params p, before;
	const char *why;
	u32 i, m;

	for (i = 0; i < sizeof(bad_m) / sizeof(bad_m[0]); i++) {
		why = NULL;
		CHECK(cpecn_check_params(bad_m[i], 250, &why) == -EINVAL, "m=%u", bad_m[i]);
		CHECK(why && strstr(why, "m must be a multiple of 4 in 4..32"), "m=%u: %s",
		      bad_m[i], why ? why : "(null)");
		memset(&p, 0x5a, sizeof(p));
		before = p;
		CHECK(cpecn_params_init(&p, bad_m[i], 250) == -EINVAL, "init m=%u", bad_m[i]);
		CHECK(!memcmp(&p, &before, sizeof(p)), "init m=%u touched params", bad_m[i]);
	}
	for (i = 0; i < sizeof(bad_alpha) / sizeof(bad_alpha[0]); i++) {
		why = NULL;
		CHECK(cpecn_check_params(8, bad_alpha[i], &why) == -EINVAL, "alpha=%u",
		      bad_alpha[i]);
		CHECK(why && strstr(why, "alpha must be 1..999 per-mille"), "alpha=%u: %s",
		      bad_alpha[i], why ? why : "(null)");
		CHECK(cpecn_params_init(&p, 8, bad_alpha[i]) == -EINVAL, "init alpha=%u",
		      bad_alpha[i]);
	}
	CHECK(cpecn_check_params(8, 0, NULL) == -EINVAL, "why may be NULL");
	/* a bad m is reported first */
	CHECK(cpecn_check_params(3, 0, &why) == -EINVAL && strstr(why, "m must"), "both bad");

	for (m = 4; m <= 32; m += 4) {
		why = "untouched";
		CHECK(cpecn_check_params(m, 1, &why) == 0, "m=%u alpha=1", m);
		CHECK(cpecn_check_params(m, 999, &why) == 0, "m=%u alpha=999", m);
		CHECK(cpecn_check_params(m, 250, &why) == 0, "m=%u alpha=250", m);
		CHECK(!strcmp(why, "untouched"), "why set on success");
		p = params(m, 250);
		CHECK(p.m == m && p.n == m / 4 && p.alpha == 250, "m=%u fields", m);
		CHECK(p.mask == (m == 32 ? 0xffffffffu : (1U << m) - 1), "m=%u mask %#x", m,
		      p.mask);
		for (i = m / 4; i < CPECN_MAX_SEGS; i++)
			CHECK(p.w[i] == 0, "m=%u unused w[%u] = %u", m, i, p.w[i]);
	}
	CHECK(cpecn_check_params(CPECN_DEFAULT_M, CPECN_DEFAULT_ALPHA, NULL) == 0,
	      "defaults");
	CHECK(CPECN_DEFAULT_M == 8 && CPECN_DEFAULT_ALPHA == 250, "paper defaults");
}

/* Weights of every (m, alpha): exact sum, order, distance to the reference. */
static void test_weights(void)
{
	double w[CPECN_MAX_SEGS], d, worst = 0;
	u32 m, alpha, k, sum, n_bad_sum = 0, n_bad_order = 0, n_bad_dist = 0;
	struct cpecn_params p;

	for (m = 4; m <= 32; m += 4) {
		for (alpha = 1; alpha <= 999; alpha++) {
			if (cpecn_params_init(&p, m, alpha)) {
				CHECK(0, "params_init(%u, %u)", m, alpha);
				continue;
			}
			ref_weights(m, alpha, w);
			sum = 0;
			for (k = 0; k < p.n; k++) {
				sum += p.w[k];
				if (k && p.w[k] > p.w[k - 1])
					n_bad_order++;
				d = fabs(p.w[k] - w[k] * CPECN_W_UNIT);
				if (d > worst)
					worst = d;
				if (d >= 1.01)
					n_bad_dist++;
			}
			n_bad_sum += sum != CPECN_W_UNIT;
		}
	}
	CHECK(n_bad_sum == 0, "%u (m, alpha) whose weights do not sum to W_ONE", n_bad_sum);
	CHECK(n_bad_order == 0, "%u weights heavier than a newer segment's", n_bad_order);
	CHECK(n_bad_dist == 0, "%u weights >= 1.01 units from exact", n_bad_dist);
	printf("weights, all m and alpha: max |W_k - W_ONE w_k| = %.6f units (bound 1.01)\n",
	       worst);

	p = params(8, 250);
	CHECK(p.w[0] == 200000 && p.w[1] == 50000, "paper: 0.8, 0.2: %u %u", p.w[0], p.w[1]);
	p = params(4, 250);
	CHECK(p.w[0] == CPECN_W_UNIT, "one segment weighs 1: %u", p.w[0]);
	p = params(8, 500);
	CHECK(p.w[0] == 166667 && p.w[1] == 83333, "2/3, 1/3: %u %u", p.w[0], p.w[1]);
	p = params(12, 500);	/* 4/7, 2/7, 1/7 of 250000 */
	CHECK(p.w[0] == 142857 && p.w[1] == 71429 && p.w[2] == 35714,
	      "4/7 2/7 1/7: %u %u %u", p.w[0], p.w[1], p.w[2]);
	p = params(32, 100);	/* the two oldest round to 0 */
	CHECK(p.w[6] == 0 && p.w[7] == 0 && p.w[5] == 2, "alpha 0.1 tail: %u %u %u",
	      p.w[5], p.w[6], p.w[7]);
}

static void test_example(void)
{
	struct cpecn_params p = params(8, 250);
	struct cpecn_state s;
	const char *seq = "11111000";	/* oldest first: pushed in this order */
	u32 i;

	CHECK(bits_of("00011111") == 0xf8, "bits_of");
	CHECK(cpecn_cp_of(&p, bits_of("00011111")) == 400000, "example: CP = 0.40 exactly, got %u",
	      cpecn_cp_of(&p, bits_of("00011111")));
	CHECK(cpecn_permille(cpecn_cp_of(&p, bits_of("00011111"))) == 400, "400 per-mille");
	CHECK(cpecn_cp_of(&p, 0) == 0, "all zero");
	CHECK(cpecn_cp_of(&p, 0xff) == CPECN_CP_UNIT, "all ones = 1 exactly");
	CHECK(cpecn_cp_of(&p, bits_of("11110000")) == 800000, "newest segment full: 0.8");
	CHECK(cpecn_cp_of(&p, bits_of("00001111")) == 200000, "oldest segment full: 0.2");
	CHECK(cpecn_cp_of(&p, bits_of("10000000")) == 200000, "one newest ACK: 0.2");
	CHECK(cpecn_cp_of(&p, bits_of("00000001")) == 50000, "one oldest ACK: 0.05");
	CHECK(cpecn_cp_of(&p, 0xffffff00u | bits_of("00011111")) == 400000,
	      "bits beyond m are ignored");

	/* the same window reached by pushing the ACKs oldest first */
	cpecn_reset(&s);
	for (i = 0; seq[i]; i++)
		cpecn_push(&s, &p, seq[i] == '1');
	CHECK(s.bits == bits_of("00011111"), "pushed window %#x", s.bits);
	CHECK(s.cp == 400000, "pushed CP %u", s.cp);
	CHECK(s.acks == 8 && cpecn_window_full(&s, &p), "8 ACKs, full");
	CHECK(s.dcp == -150000, "from 00111110 (0.55): dcp %d", s.dcp);
}

/* Sequences that raise, keep and lower CP. */
static void test_direction(void)
{
	struct cpecn_params p = params(8, 250);
	struct cpecn_state s;
	u32 i;

	cpecn_reset(&s);
	CHECK(s.bits == 0 && s.acks == 0 && s.cp == 0 && s.dcp == 0, "reset");
	CHECK(!cpecn_congested(&s), "no ACK yet: not congested");

	/* first ECE of a connection: missing bits are 0, so CP rises */
	cpecn_push(&s, &p, true);
	CHECK(s.cp == 200000 && s.dcp == 200000 && cpecn_congested(&s), "first ECE");
	CHECK(!cpecn_window_full(&s, &p), "1 ACK: not full");

	/* ECEs keep coming: CP rises, then stays at 1 with dCP = 0 exactly */
	for (i = 1; i < 4; i++) {
		cpecn_push(&s, &p, true);
		CHECK(s.dcp == 200000 && cpecn_congested(&s), "rising %u: %d", i, s.dcp);
	}
	for (; i < 8; i++) {
		cpecn_push(&s, &p, true);
		CHECK(s.dcp == 50000 && cpecn_congested(&s), "rising %u: %d", i, s.dcp);
	}
	CHECK(s.cp == CPECN_CP_UNIT, "saturated: %u", s.cp);
	for (i = 0; i < 20; i++) {
		cpecn_push(&s, &p, true);
		CHECK(s.dcp == 0 && s.cp == CPECN_CP_UNIT && !cpecn_congested(&s), "kept at 1");
	}

	/* ECEs stop: CP falls to 0, then keeps 0. Each 0 pushed takes a 1
	 * from the newest segment (-0.2) while the 1 it shifts out of it
	 * replaces the one leaving the oldest; after 4, from the oldest (-0.05).
	 */
	for (i = 0; i < 8; i++) {
		cpecn_push(&s, &p, false);
		CHECK(s.dcp == (i < 4 ? -200000 : -50000) && !cpecn_congested(&s),
		      "falling %u: %d", i, s.dcp);
	}
	CHECK(s.cp == 0, "drained: %u", s.cp);
	cpecn_push(&s, &p, false);
	CHECK(s.dcp == 0 && !cpecn_congested(&s), "kept at 0");

	/* a period-4 pattern keeps every segment's count: dCP = 0 exactly */
	cpecn_reset(&s);
	for (i = 0; i < 8; i++)
		cpecn_push(&s, &p, i % 4 == 0);
	CHECK(s.cp == 250000, "one ECE in 4: %u", s.cp);
	for (i = 8; i < 40; i++) {
		cpecn_push(&s, &p, i % 4 == 0);
		CHECK(s.dcp == 0 && s.cp == 250000 && !cpecn_congested(&s), "periodic %u", i);
	}

	/* marks moving within the window: raise, keep and lower */
	s.bits = bits_of("00011111");
	s.cp = cpecn_cp_of(&p, s.bits);
	cpecn_push(&s, &p, true);	/* 10001111: counts 1, 4 as before */
	CHECK(s.cp == 400000 && s.dcp == 0 && !cpecn_congested(&s), "keep %u %d",
	      s.cp, s.dcp);
	cpecn_push(&s, &p, false);	/* 01000111: a 1 leaves the window */
	CHECK(s.cp == 350000 && s.dcp == -50000 && !cpecn_congested(&s), "lower %u %d",
	      s.cp, s.dcp);
	cpecn_push(&s, &p, true);	/* 10100011: a 1 moves to the newer half */
	CHECK(s.cp == 500000 && s.dcp == 150000 && cpecn_congested(&s), "raise %u %d",
	      s.cp, s.dcp);
	cpecn_push(&s, &p, true);	/* 11010001: same count (4), newer */
	CHECK(s.cp == 650000 && s.dcp == 150000 && cpecn_congested(&s), "raise %u %d",
	      s.cp, s.dcp);

	/* WECN: the ECE bit of the ACK revealing the loss, nothing else */
	CHECK(cpecn_last_ece(&s) && cpecn_wecn_congested(cpecn_last_ece(&s)), "wecn 1");
	cpecn_push(&s, &p, false);
	CHECK(!cpecn_last_ece(&s) && !cpecn_wecn_congested(false), "wecn 0");
	CHECK(cpecn_wecn_congested(true), "wecn true");
}

/* Every window of a few (m, alpha) against the double reference. */
static void test_against_reference(void)
{
	static const struct { u32 m, alpha; } exhaustive[] = {
		{ 8, 250 }, { 4, 250 }, { 4, 1 }, { 8, 1 }, { 8, 999 }, { 12, 500 },
		{ 16, 333 }, { 16, 999 }, { 20, 750 },
	};
	static const u32 sampled_m[] = { 24, 28, 32 };
	static const u32 sampled_alpha[] = { 1, 100, 250, 500, 999 };
	static u32 windows[200000];
	double err, bound, worst_all = 0;
	u32 i, j, m, alpha, n_bad = 0;

	for (i = 0; i < sizeof(exhaustive) / sizeof(exhaustive[0]); i++) {
		m = exhaustive[i].m;
		alpha = exhaustive[i].alpha;
		err = max_err(m, alpha, NULL, 0);
		bound = m / 4 * 4e-6;
		CHECK(err <= bound, "m=%u alpha=%u: max err %.3g > %.3g", m, alpha, err, bound);
		printf("all %u windows, m=%u alpha=%u: max |CP - ref| = %.3g (bound %.3g)\n",
		       1U << m, m, alpha, err, bound);
	}

	/* all 256 windows of m = 8 for every alpha */
	for (alpha = 1; alpha <= 999; alpha++) {
		err = max_err(8, alpha, NULL, 0);
		n_bad += err > 8e-6;
		if (err > worst_all)
			worst_all = err;
	}
	CHECK(n_bad == 0, "%u alphas beyond 8 ppm for m=8", n_bad);
	printf("all 256 windows, m=8, every alpha 1..999: max |CP - ref| = %.3g (bound 8e-6)\n",
	       worst_all);

	windows[0] = 0;
	windows[1] = 0xffffffffu;
	windows[2] = 0x0000000fu;
	windows[3] = 0xf0000000u;
	for (i = 4; i < sizeof(windows) / sizeof(windows[0]); i++)
		windows[i] = lcg();
	for (i = 0; i < sizeof(sampled_m) / sizeof(sampled_m[0]); i++) {
		for (j = 0; j < sizeof(sampled_alpha) / sizeof(sampled_alpha[0]); j++) {
			m = sampled_m[i];
			alpha = sampled_alpha[j];
			err = max_err(m, alpha, windows, sizeof(windows) / sizeof(windows[0]));
			bound = m / 4 * 4e-6;
			CHECK(err <= bound, "m=%u alpha=%u: max err %.3g > %.3g", m, alpha, err,
			      bound);
			if (alpha == 100 || alpha == 999)
				printf("200000 windows, m=%u alpha=%u: max |CP - ref| = %.3g "
				       "(bound %.3g)\n", m, alpha, err, bound);
		}
	}
}

/*
 * push() one bit at a time: the state matches cp_of() of the window built
 * independently, dCP is the difference, and its sign is never the opposite
 * of the reference's (0 only when the reference change is tiny).
 */
static void push_run(u32 m, u32 alpha, u32 n_acks, u32 ece_permille,
		     double *worst_zeroed, u32 *n_fail)
{
	struct cpecn_params p = params(m, alpha);
	double w[CPECN_MAX_SEGS], ref;
	u64 window = 0;		/* all ACKs so far, newest in bit 0 */
	struct cpecn_state s;
	u32 i, prev_expect = 0, expect;
	bool ece;

	ref_weights(m, alpha, w);
	cpecn_reset(&s);
	for (i = 0; i < n_acks; i++) {
		ece = lcg() % 1000 < ece_permille;
		cpecn_push(&s, &p, ece);
		window = (window << 1) | ece;
		expect = (u32)window & p.mask;
		ref = ref_dcp(m, w, prev_expect, expect);
		if (s.bits != expect || s.cp != ref_cp_int(&p, expect) ||
		    s.dcp != (s32)ref_cp_int(&p, expect) - (s32)ref_cp_int(&p, prev_expect) ||
		    s.acks != i + 1 || cpecn_window_full(&s, &p) != (i + 1 >= m) ||
		    cpecn_last_ece(&s) != ece ||
		    (s.dcp > 0 && ref <= 0) || (s.dcp < 0 && ref >= 0) ||
		    (ref == 0 && s.dcp != 0)) {
			(*n_fail)++;
			if (*n_fail < 5)
				printf("push m=%u alpha=%u ack %u: bits %#x cp %u dcp %d ref %.3g\n",
				       m, alpha, i, s.bits, s.cp, s.dcp, ref);
		}
		prev_expect = expect;
		if (s.dcp == 0 && fabs(ref) > *worst_zeroed)
			*worst_zeroed = fabs(ref);
	}
}

static void test_push(void)
{
	static const u32 ms[] = { 4, 8, 12, 16, 20, 24, 28, 32 };
	static const u32 alphas[] = { 1, 100, 250, 500, 900, 999 };
	static const u32 rates[] = { 20, 200, 500, 950 };
	double worst_zeroed = 0;
	u32 i, j, k, n_fail = 0, alpha, bits, e, next;
	struct cpecn_params p;
	struct cpecn_state s;
	double w[CPECN_MAX_SEGS], ref;

	for (i = 0; i < sizeof(ms) / sizeof(ms[0]); i++)
		for (j = 0; j < sizeof(alphas) / sizeof(alphas[0]); j++)
			for (k = 0; k < sizeof(rates) / sizeof(rates[0]); k++)
				push_run(ms[i], alphas[j], 3000, rates[k], &worst_zeroed,
					 &n_fail);
	CHECK(n_fail == 0, "%u pushes inconsistent with cp_of() or the reference", n_fail);

	/* every window of m = 8 and 12, every next bit, every alpha: sign */
	n_fail = 0;
	for (alpha = 1; alpha <= 999; alpha++) {
		p = params(8, alpha);
		ref_weights(8, alpha, w);
		for (bits = 0; bits < 256; bits++) {
			for (e = 0; e < 2; e++) {
				s.bits = bits;
				s.cp = cpecn_cp_of(&p, bits);
				s.acks = 100;
				cpecn_push(&s, &p, e);
				next = ((bits << 1) | e) & 0xffu;
				ref = ref_dcp(8, w, bits, next);
				if (s.bits != next ||
				    (s.dcp > 0 && ref <= 0) || (s.dcp < 0 && ref >= 0) ||
				    (ref == 0 && s.dcp != 0))
					n_fail++;
				if (s.dcp == 0 && fabs(ref) > worst_zeroed)
					worst_zeroed = fabs(ref);
			}
		}
	}
	CHECK(n_fail == 0, "%u wrong windows or dCP signs opposite to the reference (m=8)",
	      n_fail);
	n_fail = 0;
	for (alpha = 50; alpha <= 999; alpha += 50) {
		p = params(12, alpha);
		ref_weights(12, alpha, w);
		for (bits = 0; bits < 4096; bits++) {
			for (e = 0; e < 2; e++) {
				s.bits = bits;
				s.cp = cpecn_cp_of(&p, bits);
				cpecn_push(&s, &p, e);
				next = ((bits << 1) | e) & 0xfffu;
				ref = ref_dcp(12, w, bits, next);
				if (s.bits != next ||
				    (s.dcp > 0 && ref <= 0) || (s.dcp < 0 && ref >= 0) ||
				    (ref == 0 && s.dcp != 0))
					n_fail++;
			}
		}
	}
	CHECK(n_fail == 0, "%u wrong windows or dCP signs opposite to the reference (m=12)",
	      n_fail);
	CHECK(worst_zeroed < 8e-6, "a dCP of %.3g became 0", worst_zeroed);
	printf("push: dCP = 0 where the reference is not: |ref dCP| <= %.3g\n", worst_zeroed);

	/* the ACK counter saturates */
	p = params(8, 250);
	cpecn_reset(&s);
	s.acks = 0xfffffffeu;
	cpecn_push(&s, &p, true);
	CHECK(s.acks == 0xffffffffu, "acks %u", s.acks);
	cpecn_push(&s, &p, true);
	CHECK(s.acks == 0xffffffffu && cpecn_window_full(&s, &p), "acks saturate");

	/* m = 32 keeps every bit; the oldest falls off */
	p = params(32, 250);
	cpecn_reset(&s);
	for (i = 0; i < 32; i++)
		cpecn_push(&s, &p, true);
	CHECK(s.bits == 0xffffffffu && s.cp == CPECN_CP_UNIT, "m=32 full: %#x %u", s.bits,
	      s.cp);
	cpecn_push(&s, &p, false);
	/* the newest segment loses a 1: -W_0 = -250000 0.75 / (1 - 0.25^8) =
	 * -187502.86, rounded (largest remainders) to -187503
	 */
	CHECK(s.bits == 0xfffffffeu && s.dcp == -187503, "m=32 shift: %#x %d", s.bits,
	      s.dcp);
}

static void test_misc(void)
{
	CHECK(sizeof(struct cpecn_state) == 16, "state is %zu bytes",
	      sizeof(struct cpecn_state));
	/* CP in ppm: 1 = 10^6; weights in units of 1/4 of that (4 ACKs a segment) */
	CHECK(CPECN_CP_UNIT == 1000000 && CPECN_W_UNIT == 250000, "scales %d %d",
	      (int)CPECN_CP_UNIT, (int)CPECN_W_UNIT);
	CHECK(cpecn_permille(400000) == 400, "400");
	CHECK(cpecn_permille(499) == 0 && cpecn_permille(500) == 1, "half up");
	CHECK(cpecn_permille(-499) == 0 && cpecn_permille(-500) == -1, "half away from 0");
	CHECK(cpecn_permille(-150500) == -151 && cpecn_permille(150499) == 150, "rounding");
	CHECK(cpecn_permille(CPECN_CP_UNIT) == 1000 && cpecn_permille(-CPECN_CP_UNIT) == -1000,
	      "ends");
}

int main(void)
{
	RUN(test_params);
	RUN(test_weights);
	RUN(test_example);
	RUN(test_direction);
	RUN(test_against_reference);
	RUN(test_push);
	RUN(test_misc);
	return check_done("test_cpecn");
}

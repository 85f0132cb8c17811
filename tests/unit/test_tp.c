/* Host unit tests of kernel/include/specnet/tp.h (TCP-TP): the sampler and
 * the interval aggregation, the LMMSE predictor (Levinson-Durbin) and the
 * NLMS option against a double-precision reference that implements the
 * same estimator (mean removal, biased autocovariance, the same stopping
 * rules and clamps), on AR(1), AR(2) and fractional Gaussian noise
 * (H = 0.75, Hosking's method) series at 64 kbit/s, 5 Mbit/s and
 * 100 Gbit/s; degenerate windows (constant, zeros, one spike, extremes);
 * N and cwnd against exact 128-bit arithmetic.
 *
 * Every window of 20 samples along each series is compared: the fixed
 * point's coefficients (max |a - a_ref| / max |a_ref|) and prediction
 * (|p - p_ref| / p_ref) must be within 1%; the largest errors are printed.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <specnet/tp.h>
#include "check.h"

typedef unsigned __int128 u128;

#define SERIES_LEN	2000
#define TOL		0.01		/* 1% */
#define NEAR_REL	1e-6		/* reference within this of a threshold */

static u64 rng_state = 0x853c49e6748fea9bULL;

static u64 rnd64(void)
{
	/* xorshift64*, deterministic */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static double uniform(void)
{
	return ((double)(rnd64() >> 11) + 0.5) * 0x1p-53;
}

static double gauss(void)
{
	static int have;
	static double spare;
	double u, v;

	if (have) {
		have = 0;
		return spare;
	}
	u = uniform();
	v = uniform();
	spare = sqrt(-2 * log(u)) * sin(2 * M_PI * v);
	have = 1;
	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* ---- series ---- */

enum kind { AR1, AR2, FGN };
static const char *const kind_name[] = { "AR(1) 0.8", "AR(2) 0.6 0.3", "fGn H=0.75" };

static void gen_ar(double *out, int len, double phi1, double phi2)
{
	double x1 = 0, x2 = 0, x;
	int t;

	for (t = -500; t < len; t++) {
		x = phi1 * x1 + phi2 * x2 + gauss();
		x2 = x1;
		x1 = x;
		if (t >= 0)
			out[t] = x;
	}
}

/* Hosking (1984): exact fGn by Durbin-Levinson on its autocovariance */
static void gen_fgn(double *out, int len, double h)
{
	double *g = calloc(len, sizeof(*g)), *phi = calloc(len, sizeof(*phi));
	double *tmp = calloc(len, sizeof(*tmp)), v, k, m;
	int t, j;

	for (t = 0; t < len; t++)
		g[t] = 0.5 * (pow(t + 1, 2 * h) - 2 * pow(t, 2 * h) + pow(fabs(t - 1.0), 2 * h));
	v = g[0];
	out[0] = sqrt(v) * gauss();
	for (t = 1; t < len; t++) {
		k = g[t];
		for (j = 1; j < t; j++)
			k -= phi[j - 1] * g[t - j];
		k /= v;
		for (j = 1; j < t; j++)
			tmp[j - 1] = phi[j - 1] - k * phi[t - j - 1];
		for (j = 1; j < t; j++)
			phi[j - 1] = tmp[j - 1];
		phi[t - 1] = k;
		v *= 1 - k * k;
		m = 0;
		for (j = 1; j <= t; j++)
			m += phi[j - 1] * out[t - j];
		out[t] = m + sqrt(v) * gauss();
	}
	free(g);
	free(phi);
	free(tmp);
}

/* rates = mean (1 + cv z / std(z)), rounded, in [0, TP_RATE_MAX] */
static void make_rates(u64 *rates, enum kind kind, double mean, double cv)
{
	double z[SERIES_LEN], m = 0, s = 0, v;
	int t;

	if (kind == AR1)
		gen_ar(z, SERIES_LEN, 0.8, 0);
	else if (kind == AR2)
		gen_ar(z, SERIES_LEN, 0.6, 0.3);
	else
		gen_fgn(z, SERIES_LEN, 0.75);
	for (t = 0; t < SERIES_LEN; t++)
		m += z[t];
	m /= SERIES_LEN;
	for (t = 0; t < SERIES_LEN; t++)
		s += (z[t] - m) * (z[t] - m);
	s = sqrt(s / SERIES_LEN);
	for (t = 0; t < SERIES_LEN; t++) {
		v = llround(mean * (1 + cv * (z[t] - m) / s));
		rates[t] = (u64)fmin(fmax(v, 0), (double)TP_RATE_MAX);
	}
}

/* ---- the reference, in double ---- */

struct ref {
	double a[TP_ORDER_MAX];
	double mean, pred, std;
	int order;
	unsigned int flags;
	double margin;		/* smallest relative distance to a threshold */
};

static void margin_at(struct ref *o, double v, double thr)
{
	o->margin = fmin(o->margin, fabs(v - thr) / thr);
}

/* pre-scaling shift of the fixed point (for the NLMS clip) */
static int window_shift(const u64 *f)
{
	u64 sum = 0, dmax = 0, d;
	int i, s;

	for (i = 0; i < TP_N; i++)
		sum += f[i];
	for (i = 0; i < TP_N; i++) {
		d = TP_N * f[i] > sum ? TP_N * f[i] - sum : sum - TP_N * f[i];
		dmax = d > dmax ? d : dmax;
	}
	s = (dmax ? 64 - __builtin_clzll(dmax) : 0) - TP_DEV_BITS;
	return s > 0 ? s : 0;
}

static void ref_deviations(const u64 *f, double *x, double *mean, double *max_f)
{
	double m = 0;
	int i;

	*max_f = 0;
	for (i = 0; i < TP_N; i++) {
		m += (double)f[i];
		*max_f = fmax(*max_f, (double)f[i]);
	}
	m /= TP_N;
	for (i = 0; i < TP_N; i++)
		x[i] = (double)f[i] - m;
	*mean = m;
}

static void ref_apply(struct ref *o, const double *c, int order, const double *x,
		      double max_f)
{
	double p = o->mean;
	int i;

	for (i = 1; i <= order; i++)
		p += c[i - 1] * x[TP_N - i];
	if (p < 0) {
		p = 0;
		o->flags |= TP_F_LOW;
	}
	if (p > 2 * max_f) {
		p = 2 * max_f;
		o->flags |= TP_F_HIGH;
	}
	o->pred = p;
}

/* f: the window, oldest first; Levinson with tp.h's stopping rules */
static void ref_levinson(const u64 *f, int p, struct ref *o)
{
	double x[TP_N], r[TP_N], tmp[TP_N], max_f, e = 1, num, k, amax = 0, r0 = 0;
	int i, t, m, j, same;

	memset(o, 0, sizeof(*o));
	o->margin = INFINITY;
	ref_deviations(f, x, &o->mean, &max_f);
	for (i = 0; i <= p; i++) {
		r[i] = 0;
		for (t = i; t < TP_N; t++)
			r[i] += x[t] * x[t - i];
	}
	for (t = 0; t < TP_N; t++)
		r0 += x[t] * x[t];
	o->std = sqrt(r0 / TP_N);
	for (t = 1, same = 1; t < TP_N; t++)
		same &= f[t] == f[0];
	if (same) {
		o->flags = TP_F_CONST;
		o->pred = (double)f[0];
		return;
	}
	for (i = p; i >= 0; i--)
		r[i] /= r[0];
	for (m = 1; m <= p; m++) {
		margin_at(o, amax, 2048);
		if (amax >= 2048) {
			o->flags |= TP_F_CAP;
			break;
		}
		margin_at(o, e, 1.0 / 1024);
		if (e < 1.0 / 1024) {
			o->flags |= TP_F_SMALL_E;
			break;
		}
		num = r[m];
		for (j = 1; j < m; j++)
			num -= o->a[j - 1] * r[m - j];
		margin_at(o, fabs(num), e);
		if (fabs(num) >= e) {
			o->flags |= TP_F_UNSTABLE;
			break;
		}
		k = num / e;
		for (j = 1; j < m; j++)
			tmp[j - 1] = o->a[j - 1] - k * o->a[m - j - 1];
		for (j = 1; j < m; j++)
			o->a[j - 1] = tmp[j - 1];
		o->a[m - 1] = k;
		amax = 0;
		for (j = 0; j < m; j++)
			amax = fmax(amax, fabs(o->a[j]));
		e -= k * num;
		o->order = m;
	}
	ref_apply(o, o->a, p, x, max_f);
}

/* The NLMS option in double: state w carried across windows. */
struct ref_lms {
	double w[TP_ORDER_MAX];
	int primed;
};

static void ref_lms_push(struct ref_lms *l, const u64 *f, int p, int mu_shift,
			 struct ref *o)
{
	double x[TP_N], max_f, y = 0, norm = 0, e, clip;
	int i, same = 1;

	if (!l->primed) {
		ref_levinson(f, p, o);
		memcpy(l->w, o->a, sizeof(l->w));
		l->primed = 1;
		return;
	}
	memset(o, 0, sizeof(*o));
	o->margin = INFINITY;
	ref_deviations(f, x, &o->mean, &max_f);
	for (i = 1; i < TP_N; i++)
		same &= f[i] == f[0];
	if (same) {
		o->flags = TP_F_CONST;
		o->pred = (double)f[0];
		return;
	}
	for (i = 1; i <= p; i++) {
		y += l->w[i - 1] * x[TP_N - 1 - i];
		norm += x[TP_N - 1 - i] * x[TP_N - 1 - i];
	}
	for (i = 0; i < TP_N; i++)		/* eps: energy per sample */
		norm += x[i] * x[i] / TP_N;
	if (norm > 0) {
		/* the fixed point clips |e| at 2^27 pre-scaled units of n x */
		clip = ldexp(1, TP_DEV_BITS + 1 + window_shift(f)) / TP_N;
		e = fmin(fmax(x[TP_N - 1] - y, -clip), clip);
		for (i = 1; i <= p; i++) {
			l->w[i - 1] += ldexp(e * x[TP_N - 1 - i] / norm, -mu_shift);
			l->w[i - 1] = fmin(fmax(l->w[i - 1], -4096), 4096);
		}
	}
	memcpy(o->a, l->w, sizeof(o->a));
	o->order = p;
	ref_apply(o, l->w, p, x, max_f);
}

/* ---- comparison ---- */

struct stats {
	unsigned long windows, near, bad_order, bad_coef, bad_pred, bad_flags;
	double max_coef, max_pred, max_pred_std;
	unsigned long stopped;
};

static void window_of(const struct tcptp_state *st, u64 *f)
{
	int i, k = st->head;

	for (i = 0; i < TP_N; i++) {
		f[i] = st->ring[k];
		k = k + 1 == TP_N ? 0 : k + 1;
	}
}

static void compare(const struct tcptp_state *st, const struct ref *o, int p,
		    struct stats *sx, const char *what)
{
	double amax = 0, da = 0, dp;
	int i;

	sx->windows++;
	sx->stopped += o->order < p && !(o->flags & TP_F_CONST);
	if (st->order != o->order || (st->flags & 0x0f) != (o->flags & 0x0f)) {
		if (o->margin < NEAR_REL) {
			sx->near++;
			return;
		}
		if (sx->bad_order++ < 5)
			printf("  %s: order %u flags %#x, ref %d %#x (margin %g)\n", what,
			       st->order, st->flags, o->order, o->flags, o->margin);
		return;
	}
	for (i = 0; i < p; i++) {
		amax = fmax(amax, fabs(o->a[i]));
		da = fmax(da, fabs((double)st->coef[i] / TP_UNIT - o->a[i]));
	}
	if (amax > 0) {
		sx->max_coef = fmax(sx->max_coef, da / amax);
		if (da / amax > TOL && sx->bad_coef++ < 5)
			printf("  %s: coefficient error %g of max |a| %g\n", what, da, amax);
	}
	dp = fabs((double)st->pred - o->pred);
	if (o->pred > 0)
		sx->max_pred = fmax(sx->max_pred, dp / o->pred);
	if (o->std > 0)
		sx->max_pred_std = fmax(sx->max_pred_std, dp / o->std);
	if ((o->pred > 0 ? dp / o->pred > TOL : dp > 1) && sx->bad_pred++ < 5)
		printf("  %s: prediction %llu, ref %.3f\n", what,
		       (unsigned long long)st->pred, o->pred);
	if ((st->flags & 0x30) != (o->flags & 0x30) && dp > 1)
		sx->bad_flags++;
}

static void run_series(const u64 *rates, int len, int p, int method, int mu_shift,
		       struct stats *sx, const char *what)
{
	struct tcptp_params prm;
	struct tcptp_state st;
	struct ref_lms lms = { { 0 }, 0 };
	struct ref o;
	u64 f[TP_N];
	int t, rc;

	tcptp_params_default(&prm);
	prm.order = (u8)p;
	prm.method = (u8)method;
	prm.mu_shift = (u8)mu_shift;
	tcptp_state_init(&st);
	for (t = 0; t < len; t++) {
		rc = tcptp_push(&st, &prm, rates[t]);
		if (t < TP_N - 1) {
			if (rc != -EAGAIN || tcptp_ready(&st))
				sx->bad_flags++;
			continue;
		}
		if (rc || !tcptp_ready(&st))
			sx->bad_flags++;
		window_of(&st, f);
		if (method == TP_METHOD_LMS)
			ref_lms_push(&lms, f, p, mu_shift, &o);
		else
			ref_levinson(f, p, &o);
		compare(&st, &o, p, sx, what);
	}
}

static void check_stats(const struct stats *sx, const char *what)
{
	printf("  %-44s %4lu windows (%3lu stopped early, %lu near a threshold): "
	       "max err coef %.1e, pred %.1e (%.1e std)\n",
	       what, sx->windows, sx->stopped, sx->near, sx->max_coef, sx->max_pred,
	       sx->max_pred_std);
	CHECK(sx->windows > 0, "%s: no windows", what);
	CHECK(sx->bad_order == 0, "%s: %lu order/flag mismatches", what, sx->bad_order);
	CHECK(sx->near * 100 <= sx->windows, "%s: %lu near-threshold windows", what, sx->near);
	CHECK(sx->bad_coef == 0 && sx->max_coef <= TOL, "%s: coefficients off by %g", what,
	      sx->max_coef);
	CHECK(sx->bad_pred == 0 && sx->max_pred <= TOL, "%s: prediction off by %g", what,
	      sx->max_pred);
	CHECK(sx->bad_flags == 0, "%s: %lu clamp/ready mismatches", what, sx->bad_flags);
}

static double g_max_coef, g_max_pred, g_max_pred_std, g_max_spike;

static void account(const struct stats *sx)
{
	g_max_coef = fmax(g_max_coef, sx->max_coef);
	g_max_pred = fmax(g_max_pred, sx->max_pred);
	g_max_pred_std = fmax(g_max_pred_std, sx->max_pred_std);
}

static void test_series(void)
{
	static const struct { double mean, cv; const char *name; } scale[] = {
		{ 5e6, 0.1, "5 Mbit/s" },
		{ 1e11, 0.1, "100 Gbit/s" },
		{ 64e3, 0.1, "64 kbit/s" },
		{ 5e6, 0.3, "5 Mbit/s cv 0.3" },
	};
	static const int orders[] = { TP_ORDER_MAX, 2, 8 };
	static u64 rates[SERIES_LEN];
	struct stats sx;
	char what[96];
	unsigned int k, s, o;

	printf("Levinson (LMMSE) vs double reference:\n");
	for (k = AR1; k <= FGN; k++) {
		for (s = 0; s < sizeof(scale) / sizeof(scale[0]); s++) {
			make_rates(rates, k, scale[s].mean, scale[s].cv);
			for (o = 0; o < sizeof(orders) / sizeof(orders[0]); o++) {
				memset(&sx, 0, sizeof(sx));
				snprintf(what, sizeof(what), "%s, %s, p=%d", kind_name[k],
					 scale[s].name, orders[o]);
				run_series(rates, SERIES_LEN, orders[o], TP_METHOD_LEVINSON, 0,
					   &sx, what);
				check_stats(&sx, what);
				account(&sx);
			}
		}
	}
	printf("NLMS vs double reference:\n");
	for (k = AR1; k <= FGN; k++) {
		for (s = 0; s < 2; s++) {
			make_rates(rates, k, scale[s].mean, scale[s].cv);
			memset(&sx, 0, sizeof(sx));
			snprintf(what, sizeof(what), "NLMS %s, %s, p=19 mu=1/16", kind_name[k],
				 scale[s].name);
			run_series(rates, SERIES_LEN, TP_ORDER_MAX, TP_METHOD_LMS,
				   TP_MU_SHIFT_DEFAULT, &sx, what);
			check_stats(&sx, what);
			account(&sx);
			memset(&sx, 0, sizeof(sx));
			snprintf(what, sizeof(what), "NLMS %s, %s, p=4 mu=1/2", kind_name[k],
				 scale[s].name);
			run_series(rates, SERIES_LEN, 4, TP_METHOD_LMS, 1, &sx, what);
			check_stats(&sx, what);
			account(&sx);
		}
	}
}

/* Prediction quality (not a property of the arithmetic, printed for the
 * choice of the order): rms error of the one-step prediction per order and
 * method, against the window mean as the predictor. Low orders must beat
 * the mean on AR(1)/AR(2) (by 30-40%) and on fGn (H = 0.75: positively
 * correlated, by 3-5%); the averaged low-order coefficients are in the
 * right region (20-sample windows bias them towards 0).
 */
static double rms_error(const u64 *rates, int order, int method, double *a1, double *a2)
{
	struct tcptp_params prm;
	struct tcptp_state st;
	double se = 0, d;
	int t, nwin = 0;

	tcptp_params_default(&prm);
	prm.order = (u8)order;
	prm.method = (u8)method;
	tcptp_state_init(&st);
	*a1 = *a2 = 0;
	for (t = 0; t < SERIES_LEN - 1; t++) {
		if (tcptp_push(&st, &prm, rates[t]))
			continue;
		*a1 += (double)st.coef[0] / TP_UNIT;
		*a2 += (double)st.coef[1] / TP_UNIT;
		d = (double)rates[t + 1] - (double)(order ? st.pred : st.mean);
		se += d * d;
		nwin++;
	}
	*a1 /= nwin;
	*a2 /= nwin;
	return sqrt(se / nwin);
}

static void test_prediction_quality(void)
{
	static const int orders[] = { 1, 2, 4, 8, 19 };
	static u64 rates[SERIES_LEN];
	double e, e_mean, a1, a2, b1, b2;
	unsigned int i;
	int k;

	printf("rms error of the prediction / rms error of the window mean (5 Mbit/s, cv 0.1):\n");
	for (k = AR1; k <= FGN; k++) {
		make_rates(rates, k, 5e6, 0.1);
		e_mean = rms_error(rates, 0, TP_METHOD_LEVINSON, &a1, &a2);
		printf("  %-14s levinson", kind_name[k]);
		for (i = 0; i < sizeof(orders) / sizeof(orders[0]); i++) {
			e = rms_error(rates, orders[i], TP_METHOD_LEVINSON, &a1, &a2);
			printf("  p=%-2d %.3f", orders[i], e / e_mean);
			if (orders[i] <= 2)
				CHECK(e < e_mean, "%s p=%d: %g worse than the mean %g",
				      kind_name[k], orders[i], e, e_mean);
		}
		printf("\n  %-14s nlms    ", "");
		for (i = 0; i < sizeof(orders) / sizeof(orders[0]); i++) {
			e = rms_error(rates, orders[i], TP_METHOD_LMS, &a1, &a2);
			printf("  p=%-2d %.3f", orders[i], e / e_mean);
			if (orders[i] <= 2)
				CHECK(e < e_mean, "%s nlms p=%d: %g worse than the mean %g",
				      kind_name[k], orders[i], e, e_mean);
		}
		printf("\n");
		rms_error(rates, 1, TP_METHOD_LEVINSON, &a1, &a2);
		rms_error(rates, 2, TP_METHOD_LEVINSON, &b1, &b2);
		if (k == AR1)
			CHECK(a1 > 0.5 && a1 < 0.9, "AR(1) a1 %.3f", a1);
		if (k == AR2)
			CHECK(b1 > 0.3 && b1 < 0.9 && b2 > -0.1 && b2 < 0.5, "AR(2) %.3f %.3f",
			      b1, b2);
	}
}

/* ---- degenerate windows ---- */

static void push_all(struct tcptp_state *st, const struct tcptp_params *p, const u64 *v, int n)
{
	int i;

	tcptp_state_init(st);
	for (i = 0; i < n; i++)
		tcptp_push(st, p, v[i]);
}

static void test_degenerate(void)
{
	struct tcptp_params prm;
	struct tcptp_state st;
	struct ref o;
	u64 v[TP_N], f[TP_N], spikes[] = { 1, 1000, 1000000, 100000000000ULL, TP_RATE_MAX };
	unsigned int i, pos, s, m;
	int rc;

	for (m = 0; m < 2; m++) {
		tcptp_params_default(&prm);
		prm.order = TP_ORDER_MAX;	/* the fixed point at its widest */
		prm.method = (u8)m;

		/* not ready before n samples */
		tcptp_state_init(&st);
		for (i = 0; i < TP_N - 1; i++) {
			rc = tcptp_push(&st, &prm, 5000000);
			CHECK(rc == -EAGAIN && !tcptp_ready(&st), "push %u: rc %d", i, rc);
		}
		rc = tcptp_push(&st, &prm, 5000000);
		CHECK(rc == 0 && tcptp_ready(&st), "push 20: rc %d", rc);

		/* constant: the rate itself, exactly */
		CHECK(st.pred == 5000000 && st.flags == TP_F_CONST && st.order == 0,
		      "constant: pred %llu flags %#x", (unsigned long long)st.pred, st.flags);
		CHECK(tcptp_flows(10000000, st.pred) == 2, "constant: N %u",
		      tcptp_flows(10000000, st.pred));
		/* 1e7 * 0.05 / (2 * 8 * 1448) = 21.58 */
		CHECK(tcptp_cwnd(10000000, 50000, 2, 1448) == 21, "constant: cwnd %u",
		      tcptp_cwnd(10000000, 50000, 2, 1448));
		for (s = 0; s < sizeof(spikes) / sizeof(spikes[0]); s++) {
			for (i = 0; i < TP_N; i++)
				v[i] = spikes[s];
			push_all(&st, &prm, v, TP_N);
			CHECK(st.pred == spikes[s] && st.flags == TP_F_CONST,
			      "constant %llu: pred %llu", (unsigned long long)spikes[s],
			      (unsigned long long)st.pred);
		}

		/* zeros: 0, N at its maximum, cwnd at its floor */
		memset(v, 0, sizeof(v));
		push_all(&st, &prm, v, TP_N);
		CHECK(st.pred == 0 && st.flags == TP_F_CONST, "zeros: pred %llu",
		      (unsigned long long)st.pred);
		CHECK(tcptp_flows(10000000, 0) == TP_MAX_FLOWS, "zeros: N");
		/* 1e7 0.05 / (8 1e6 1448) = 4.3e-5: the floor, 2 */
		CHECK(tcptp_cwnd(10000000, 50000, TP_MAX_FLOWS, 1448) == 2, "zeros: cwnd");

		/* one spike anywhere, on zeros and on a base rate */
		for (s = 0; s < sizeof(spikes) / sizeof(spikes[0]); s++) {
			for (pos = 0; pos < TP_N; pos++) {
				unsigned int base;

				for (base = 0; base < 2; base++) {
					for (i = 0; i < TP_N; i++)
						v[i] = base ? 5000000 : 0;
					v[pos] = spikes[s] + (base ? 5000000 : 0);
					push_all(&st, &prm, v, TP_N);
					CHECK(st.pred <= 2 * v[pos] && !(st.flags & TP_F_CONST),
					      "spike %llu at %u base %u: pred %llu",
					      (unsigned long long)spikes[s], pos, base,
					      (unsigned long long)st.pred);
					if (m == TP_METHOD_LEVINSON) {
						window_of(&st, f);
						ref_levinson(f, TP_ORDER_MAX, &o);
						if (fabs((double)st.pred - o.pred) > 1)
							g_max_spike = fmax(g_max_spike,
									   fabs((double)st.pred - o.pred) /
									   o.pred);
						CHECK(fabs((double)st.pred - o.pred) <=
						      fmax(1, 1e-3 * o.pred),
						      "spike %llu at %u base %u: %llu ref %.1f",
						      (unsigned long long)spikes[s], pos, base,
						      (unsigned long long)st.pred, o.pred);
					}
				}
			}
		}
	}
	printf("  one spike: max rel err of the prediction %.2e (where off by > 1 bit/s)\n",
	       g_max_spike);
}

/* rates at both ends of the range: no overflow (the sanitizers watch),
 * prediction within [0, 2 max], and Levinson equal to the reference where
 * it is far from its thresholds
 */
static void test_extremes(void)
{
	struct tcptp_params prm;
	struct tcptp_state st;
	struct ref o;
	u64 v[TP_N], f[TP_N], mx;
	unsigned int i, n, m, bad = 0, bad_ref = 0, cmp = 0, pat;
	double worst = 0;

	for (m = 0; m < 2; m++) {
		tcptp_params_default(&prm);
		prm.order = TP_ORDER_MAX;	/* the fixed point at its widest */
		prm.method = (u8)m;
		tcptp_state_init(&st);
		for (n = 0; n < 6000; n++) {
			pat = n % 6;
			if (pat == 0)		/* 0 or max */
				v[0] = rnd64() & 1 ? TP_RATE_MAX : 0;
			else if (pat == 1)	/* anything in range */
				v[0] = rnd64() % (TP_RATE_MAX + 1);
			else if (pat == 2)	/* beyond: clamped */
				v[0] = rnd64();
			else if (pat == 3)	/* near the top */
				v[0] = TP_RATE_MAX - rnd64() % 1000;
			else if (pat == 4)	/* tiny */
				v[0] = rnd64() % 3;
			else
				v[0] = 100000000000ULL + rnd64() % 1000000;
			tcptp_push(&st, &prm, v[0]);
			if (!tcptp_ready(&st))
				continue;
			window_of(&st, f);
			mx = 0;
			for (i = 0; i < TP_N; i++)
				mx = f[i] > mx ? f[i] : mx;
			bad += st.pred > 2 * mx || mx > TP_RATE_MAX;
			if (m == TP_METHOD_LEVINSON) {
				ref_levinson(f, TP_ORDER_MAX, &o);
				if (o.order == st.order && o.margin > 1e-3) {
					double d = fabs((double)st.pred - o.pred) / fmax(o.pred, 1);

					cmp++;
					worst = fmax(worst, d);
					bad_ref += d > TOL;
				}
			}
		}
	}
	printf("  extremes: %u Levinson windows compared, max rel err %.2e\n", cmp, worst);
	CHECK(bad == 0, "extremes: %u predictions out of [0, 2 max]", bad);
	CHECK(bad_ref == 0 && cmp > 1000, "extremes: %u of %u off the reference", bad_ref, cmp);

	/* a ramp (non-stationary), tiny deviations on a high rate, alternation */
	tcptp_params_default(&prm);
	prm.order = TP_ORDER_MAX;	/* the fixed point at its widest */
	for (i = 0; i < TP_N; i++)
		v[i] = 1000000 + 100000ULL * i;
	push_all(&st, &prm, v, TP_N);
	window_of(&st, f);
	ref_levinson(f, TP_ORDER_MAX, &o);
	printf("  ramp: pred %llu (ref %.0f), order %u, flags %#x\n",
	       (unsigned long long)st.pred, o.pred, st.order, st.flags);
	CHECK(st.pred <= 2 * v[TP_N - 1] && st.pred >= v[0], "ramp: pred %llu",
	      (unsigned long long)st.pred);
	CHECK(st.order == o.order && fabs((double)st.pred - o.pred) <= 1e-3 * o.pred,
	      "ramp: %llu order %u vs ref %.0f order %d", (unsigned long long)st.pred,
	      st.order, o.pred, o.order);
	for (i = 0; i < TP_N; i++)
		v[i] = 100000000000ULL + (i % 3 == 0);
	push_all(&st, &prm, v, TP_N);
	window_of(&st, f);
	ref_levinson(f, TP_ORDER_MAX, &o);
	CHECK(st.order == o.order && fabs((double)st.pred - o.pred) <= 1,
	      "tiny deviations: %llu order %u vs ref %.3f order %d",
	      (unsigned long long)st.pred, st.order, o.pred, o.order);
	for (i = 0; i < TP_N; i++)
		v[i] = i & 1 ? TP_RATE_MAX : 0;
	push_all(&st, &prm, v, TP_N);
	window_of(&st, f);
	ref_levinson(f, TP_ORDER_MAX, &o);
	/* the reference: 9090909090.9 (1e11 / 11), order 19, no flag */
	CHECK(st.pred <= 2 * TP_RATE_MAX && st.order == o.order && st.flags == o.flags &&
	      fabs((double)st.pred - o.pred) <= 1e-4 * o.pred,
	      "alternating: pred %llu order %u vs ref %.0f order %d", (unsigned long long)st.pred,
	      st.order, o.pred, o.order);
}

/* deviations mirrored about a rate: the same coefficients, the mirrored
 * prediction (symmetric rounding); a series times 2^k: the same
 * coefficients while no pre-scaling happens
 */
static void test_symmetry(void)
{
	static u64 rates[SERIES_LEN];
	struct tcptp_params prm;
	struct tcptp_state a, b, c;
	unsigned int bad_mirror = 0, bad_scale = 0, n_scale = 0, t, i;
	const u64 mid = 5000000;

	tcptp_params_default(&prm);
	prm.order = TP_ORDER_MAX;	/* the fixed point at its widest */
	make_rates(rates, FGN, 5e6, 0.1);
	tcptp_state_init(&a);
	tcptp_state_init(&b);
	tcptp_state_init(&c);
	for (t = 0; t < 500; t++) {
		tcptp_push(&a, &prm, rates[t]);
		tcptp_push(&b, &prm, 2 * mid - rates[t]);
		tcptp_push(&c, &prm, rates[t] << 2);
		if (!tcptp_ready(&a))
			continue;
		n_scale += c.shift == 0;
		for (i = 0; i < TP_ORDER_MAX; i++) {
			bad_mirror += a.coef[i] != b.coef[i];
			bad_scale += c.shift == 0 && a.coef[i] != c.coef[i];
		}
		bad_mirror += a.pred + b.pred + 1 < 2 * mid || a.pred + b.pred > 2 * mid + 1;
	}
	CHECK(bad_mirror == 0, "mirror: %u differences", bad_mirror);
	/* compared only where c is not pre-scaled: 162 of the 481 windows */
	CHECK(bad_scale == 0 && n_scale >= 100, "scale: %u differences in %u windows",
	      bad_scale, n_scale);
}

/* the stopping rules of Levinson-Durbin on crafted r. From real windows
 * of 20 samples they are safety nets: the biased estimate keeps E well
 * above 2^-10 (a search over windows found E_19 >= 0.014), and with
 * E >= 2^-10, sum |a| <= prod (1 + |k|) stays near 4300 with max |a|
 * below 2048 in every pattern searched (TP_F_CAP is not reached).
 * Then sinusoids, the most predictable windows, against the reference.
 */
static void test_guards(void)
{
	s32 r[TP_N];
	s64 a[TP_ORDER_MAX];
	struct tcptp_params prm;
	struct tcptp_state st;
	struct ref o;
	u64 f[TP_N];
	unsigned int i, t, stops = 0, bad = 0, cmp = 0;
	u8 flags;
	u32 m;

	for (i = 0; i < TP_N; i++)
		r[i] = (s32)TP_UNIT;		/* r(1) = 1: |k| = 1 at once */
	flags = 0;
	m = tcptp_levinson(r, TP_ORDER_MAX, a, &flags);
	CHECK(m == 0 && flags == TP_F_UNSTABLE && a[0] == 0, "r = 1: order %u flags %#x", m,
	      flags);
	memset(r, 0, sizeof(r));		/* not positive definite: k2 = -9 */
	r[0] = (s32)TP_UNIT;
	r[1] = (s32)(0.9 * TP_UNIT);
	r[2] = -(s32)(0.9 * TP_UNIT);
	flags = 0;
	m = tcptp_levinson(r, TP_ORDER_MAX, a, &flags);
	CHECK(m == 1 && flags == TP_F_UNSTABLE && a[0] == r[1] && a[1] == 0,
	      "k2 = -9: order %u flags %#x", m, flags);
	for (i = 0; i < TP_N; i++)		/* AR(1) with phi 0.9999: E1 = 2e-4 */
		r[i] = (s32)(pow(0.9999, i) * TP_UNIT);
	flags = 0;
	m = tcptp_levinson(r, TP_ORDER_MAX, a, &flags);
	CHECK(m == 1 && flags == TP_F_SMALL_E && llabs(a[0] - r[1]) <= 1,
	      "phi 0.9999: order %u flags %#x a1 %lld", m, flags, (long long)a[0]);
	for (i = 0; i < TP_N; i++)		/* white: r = (1, 0, ...): a = 0 */
		r[i] = i ? 0 : (s32)TP_UNIT;
	flags = 0;
	m = tcptp_levinson(r, TP_ORDER_MAX, a, &flags);
	CHECK(m == TP_ORDER_MAX && !flags && a[0] == 0 && a[TP_ORDER_MAX - 1] == 0,
	      "white: order %u flags %#x", m, flags);

	/* sinusoids (period 5 to 12): nearly perfectly predictable windows */
	tcptp_params_default(&prm);
	prm.order = TP_ORDER_MAX;	/* the fixed point at its widest */
	for (i = 5; i <= 12; i++) {
		tcptp_state_init(&st);
		for (t = 0; t < 200; t++) {
			tcptp_push(&st, &prm, (u64)llround(5e6 + 1e6 * sin(2 * M_PI * t / i) +
							 1e3 * gauss()));
			if (!tcptp_ready(&st))
				continue;
			window_of(&st, f);
			ref_levinson(f, TP_ORDER_MAX, &o);
			stops += st.order < TP_ORDER_MAX;
			if (o.margin < 1e-3)
				continue;
			cmp++;
			bad += st.order != o.order || st.flags != o.flags ||
			       fabs((double)st.pred - o.pred) > TOL * o.pred;
		}
	}
	printf("  sinusoids: %u compared, %u off, %u stopped early\n", cmp, bad, stops);
	CHECK(bad == 0 && cmp > 1000, "sinusoids: %u of %u off", bad, cmp);
}

/* ---- the sampler and the aggregation ---- */

static void test_sampler(void)
{
	struct tcptp_params prm;
	struct tcptp_sampler s;
	u64 f = 0, fm = 0, means[8];
	double ref;
	u32 now;
	unsigned int i, nm = 0, bad = 0;

	tcptp_params_default(&prm);
	prm.order = TP_ORDER_MAX;	/* the fixed point at its widest */
	CHECK(sizeof(struct tcptp_sampler) <= 104, "sampler %zu bytes",
	      sizeof(struct tcptp_sampler));

	/* 1250 bytes per ms: 10 Mbit/s exactly, one sample per ACK */
	now = 0xfffff000U;		/* across the u32 wrap */
	tcptp_sampler_init(&s, now);
	for (i = 0; i < 100; i++) {
		now += 1000;
		CHECK(tcptp_sample_ack(&s, &prm, 1250, now, 1000, &f) && f == 10000000,
		      "constant sample %u: %llu", i, (unsigned long long)f);
		if (tcptp_aggregate(&s, f, now, 10000, &fm)) {
			CHECK(fm == 10000000, "interval mean %llu", (unsigned long long)fm);
			nm++;
		}
	}
	CHECK(nm == 9, "intervals of 10 samples: %u", nm);

	/* several ACKs per sample period; a step to 20 Mbit/s through the EWMA */
	ref = 10000000;
	for (i = 0; i < 60; i++) {
		CHECK(!tcptp_sample_ack(&s, &prm, 1250, now + 500, 1000, &f), "half period");
		now += 1000;
		if (!tcptp_sample_ack(&s, &prm, 1250, now, 1000, &f))
			bad++;
		ref += (20000000 - ref) / 4;
		bad += fabs((double)f - ref) > 2;
	}
	/* the rounded EWMA may stop short: round(1 / 4) = 0 */
	CHECK(bad == 0 && f >= 20000000 - 2 && f <= 20000000, "EWMA step: %u off, f %llu", bad,
	      (unsigned long long)f);

	/* a = 1 (shift 0): the raw rate; clamped to TP_RATE_MAX; bytes saturate */
	prm.ewma_shift = 0;
	now += 1000;
	tcptp_sample_ack(&s, &prm, 125, now, 1000, &f);
	CHECK(f == 1000000, "shift 0: %llu", (unsigned long long)f);
	tcptp_sample_ack(&s, &prm, 0xffffffffU, now + 1, 1, &f);
	/* 2^32 - 1 bytes in 1 us: 3.4e16 bit/s, clamped to 200 Gbit/s */
	CHECK(f == 200000000000ULL, "clamp: %llu", (unsigned long long)f);
	for (i = 0; i < 1000; i++)
		tcptp_sample_ack(&s, &prm, 0xffffffffU, now + 1, 1000000, &f);
	/* 1000 (2^32 - 1) bytes saturate at 2^40 = 1099511627776 */
	CHECK(s.bytes == 1099511627776ULL, "bytes saturate: %llu", (unsigned long long)s.bytes);
	tcptp_sample_ack(&s, &prm, 0, now + 1 + 100000000, 1000000, &f);
	/* 2^40 bytes in 100 s: 8796093022208 bit / 100 s = 87960930222.08 bit/s */
	CHECK(f == 87960930222ULL, "2^40 bytes in 100 s: %llu",
	      (unsigned long long)f);
	/* sample_us 0 means 1; dt 0 takes no sample */
	CHECK(!tcptp_sample_ack(&s, &prm, 1000, s.t0_us, 0, &f), "dt 0");

	/* aggregation: means, interval 0, restart */
	tcptp_sampler_init(&s, 0);
	for (i = 0; i < 7; i++)
		if (tcptp_aggregate(&s, 1 + i, i * 100, 300, &fm))
			means[nm++ % 8] = fm;
	/* intervals {1,2,3} {4,5,6}; 7 still open */
	CHECK(s.agg_cnt == 1 && means[(nm - 1) % 8] == 5 && means[(nm - 2) % 8] == 2,
	      "means %llu %llu cnt %u", (unsigned long long)means[(nm - 2) % 8],
	      (unsigned long long)means[(nm - 1) % 8], s.agg_cnt);
	tcptp_sampler_restart(&s, 1000);
	CHECK(s.agg_cnt == 0 && s.bytes == 0, "restart");
	CHECK(!tcptp_aggregate(&s, 7, 1000, 0, &fm), "interval 0: first");
	CHECK(tcptp_aggregate(&s, 8, 1000, 0, &fm) && fm == 7, "interval 0: %llu",
	      (unsigned long long)fm);
	CHECK(tcptp_aggregate(&s, 9, 1001, 0, &fm) && fm == 8, "interval 0: %llu",
	      (unsigned long long)fm);
	/* rounding of the mean: (2 + 3) / 2 = 2.5 -> 3 */
	tcptp_sampler_init(&s, 0);
	tcptp_aggregate(&s, 2, 0, 10, &fm);
	tcptp_aggregate(&s, 3, 5, 10, &fm);
	CHECK(tcptp_aggregate(&s, 0, 10, 10, &fm) && fm == 3, "mean rounding %llu",
	      (unsigned long long)fm);
}

/*
 * The aggregation interval, interval_rtts srtt: srtt_us is the stack's
 * srtt_us >> 3 (up to 2^29 - 1), interval_rtts up to 16, so the product
 * passes 2^32; it is clamped below 2^31 (s32 differences of the us clock).
 */
static void test_interval(void)
{
	unsigned int i, bad = 0;
	u32 r, srtt;
	u64 want;

	CHECK(TP_INTERVAL_RTTS_MAX == 16 && TP_INTERVAL_MAX_US == 2147483647U,
	      "bounds %u %u", TP_INTERVAL_RTTS_MAX, TP_INTERVAL_MAX_US);
	CHECK(tcptp_interval_us(2, 50000) == 100000, "2 x 50 ms: %u", tcptp_interval_us(2, 50000));
	CHECK(tcptp_interval_us(1, 1) == 1, "1 us: %u", tcptp_interval_us(1, 1));
	/* 16 (2^27 - 1) = 2^31 - 16 = 2147483632: the largest unclamped */
	CHECK(tcptp_interval_us(16, 134217727) == 2147483632U, "16 (2^27 - 1): %u",
	      tcptp_interval_us(16, 134217727));
	/* 8 2^28 = 2^31: clamped to 2^31 - 1 */
	CHECK(tcptp_interval_us(8, 268435456) == 2147483647U, "8 2^28: %u",
	      tcptp_interval_us(8, 268435456));
	/* 16 2^28 = 2^32 (0 in u32): clamped */
	CHECK(tcptp_interval_us(16, 268435456) == 2147483647U, "16 2^28: %u",
	      tcptp_interval_us(16, 268435456));
	/* the stack's largest srtt: 16 (2^29 - 1) = 2^33 - 16 */
	CHECK(tcptp_interval_us(TP_INTERVAL_RTTS_MAX, 536870911) == 2147483647U,
	      "16 (2^29 - 1): %u", tcptp_interval_us(TP_INTERVAL_RTTS_MAX, 536870911));
	/* U32_MAX srtt: 16 (2^32 - 1) = 2^36 - 16 (2^32 - 16 in u32) */
	CHECK(tcptp_interval_us(TP_INTERVAL_RTTS_MAX, U32_MAX) == 2147483647U,
	      "16 U32_MAX: %u", tcptp_interval_us(TP_INTERVAL_RTTS_MAX, U32_MAX));
	CHECK(tcptp_interval_us(U32_MAX, U32_MAX) == 2147483647U, "U32_MAX^2: %u",
	      tcptp_interval_us(U32_MAX, U32_MAX));
	for (i = 0; i < 100000; i++) {
		r = 1 + (u32)(rnd64() % 16);
		srtt = (u32)rnd64() >> (rnd64() % 32);
		want = (u64)r * srtt;
		want = want > 2147483647U ? 2147483647U : want;
		bad += tcptp_interval_us(r, srtt) != want;
	}
	CHECK(bad == 0, "interval: %u wrong", bad);
}

/* ---- N and cwnd ---- */

/* cwnd = floor(C rtt / (8e6 N mss)) in [2, U32_MAX], exactly (inputs in range) */
static u32 ref_cwnd(u64 c, u32 rtt, u32 n, u32 mss)
{
	u128 w = (u128)c * rtt / ((u128)8000000 * n * mss);

	return w < 2 ? 2 : w > U32_MAX ? U32_MAX : (u32)w;
}

static void test_flows_cwnd(void)
{
	unsigned int i, bad_n = 0, bad_w = 0;
	u64 c, p, want;
	u32 rtt, n, mss, w;

	CHECK(tcptp_flows(10000000, 3400000) == 3, "ceil(10/3.4)");
	CHECK(tcptp_flows(10000000, 5000000) == 2, "10/5 exact");
	CHECK(tcptp_flows(10000000, 20000000) == 1, "pred > C");
	CHECK(tcptp_flows(0, 5000000) == 1, "C 0");
	CHECK(tcptp_flows(TP_RATE_MAX, 1) == TP_MAX_FLOWS, "saturate");
	CHECK(tcptp_flows_nearest(10000000, 3400000) == 3, "round(10/3.4)");
	CHECK(tcptp_flows_nearest(10000000, 2600000) == 4, "round(10/2.6)");
	CHECK(tcptp_flows_nearest(10000000, 4000000) == 3, "round(2.5) = 3");
	CHECK(tcptp_flows_nearest(10000000, 9900000) == 1, "lone flow at 0.99 C");
	CHECK(tcptp_flows(10000000, 9900000) == 2, "ceil: lone flow at 0.99 C");
	CHECK(tcptp_flows_nearest(10000000, 20000000) == 1, "pred > C");
	CHECK(tcptp_flows_nearest(0, 5000000) == 1, "C 0");
	CHECK(tcptp_flows_nearest(10000000, 0) == TP_MAX_FLOWS, "pred 0");
	CHECK(tcptp_flows_nearest(TP_RATE_MAX, 1) == TP_MAX_FLOWS, "saturate");
	/* 1e7 * 0.05 / (3 * 8 * 1448) = 14.39 */
	CHECK(tcptp_cwnd(10000000, 50000, 3, 1448) == 14, "cwnd %u",
	      tcptp_cwnd(10000000, 50000, 3, 1448));
	/* N 0 counts as 1: 1e7 * 0.05 / (8 * 1448) = 43.16 */
	CHECK(tcptp_cwnd(10000000, 50000, 1, 1448) == 43, "N 1: %u",
	      tcptp_cwnd(10000000, 50000, 1, 1448));
	CHECK(tcptp_cwnd(10000000, 50000, 0, 1448) == 43, "N 0 = 1: %u",
	      tcptp_cwnd(10000000, 50000, 0, 1448));
	CHECK(tcptp_cwnd(10000000, 50000, 1, 0) == 2, "mss 0");
	CHECK(tcptp_cwnd(0, 50000, 1, 1448) == 2, "C 0");
	CHECK(tcptp_cwnd(TP_RATE_MAX, TP_MAX_RTT_US, 1, 1) == U32_MAX, "saturate: %u",
	      tcptp_cwnd(TP_RATE_MAX, TP_MAX_RTT_US, 1, 1));
	/* 100 Gbit/s, 10 s, one flow, 1448: 8.6e7 packets */
	CHECK(tcptp_cwnd(100000000000ULL, 10000000, 1, 1448) == 86325966, "100G: %u",
	      tcptp_cwnd(100000000000ULL, 10000000, 1, 1448));
	for (i = 0; i < 200000; i++) {
		c = rnd64() % (TP_RATE_MAX + 1);
		p = rnd64() % (i & 1 ? TP_RATE_MAX + 1 : 1000000);
		rtt = (u32)(rnd64() % (TP_MAX_RTT_US + 1));
		mss = 1 + (u32)(rnd64() % TP_MAX_MSS);
		n = tcptp_flows(c, p);
		if (p) {
			want = (u64)((c + (u128)p - 1) / p);
			want = want < 1 ? 1 : want > TP_MAX_FLOWS ? TP_MAX_FLOWS : want;
		} else {
			want = TP_MAX_FLOWS;
		}
		bad_n += n != want;
		n = tcptp_flows_nearest(c, p);
		if (p) {
			want = (u64)((c + (u128)(p / 2)) / p);
			want = want < 1 ? 1 : want > TP_MAX_FLOWS ? TP_MAX_FLOWS : want;
		} else {
			want = TP_MAX_FLOWS;
		}
		bad_n += n != want;
		n = tcptp_flows(c, p);
		w = tcptp_cwnd(c, rtt, n, mss);
		bad_w += w != ref_cwnd(c, rtt, n, mss);
	}
	CHECK(bad_n == 0, "N: %u wrong", bad_n);
	CHECK(bad_w == 0, "cwnd: %u wrong", bad_w);
}

static void test_band(void)
{
	/* C 10 Mbit/s throughout */
	static const struct {
		u32 rtt, srtt, n, mss, clamp, lo, hi;
		const char *what;
	} cases[] = {
		/* N = 3: 14.4 at 50 ms; N - 1 = 2: 25.9 at 60 ms, + 1 */
		{ 50000, 60000, 3, 1448, 10000, 14, 26, "band" },
		/* N - 1's window is 11.4 packets: the upper edge is 11 + 1 */
		{ 100000, 100000, 12, 1000, 10000, 10, 12, "small share" },
		{ 50000, 60000, 1, 1448, 10000, 43, 43, "N = 1" },
		{ 50000, 60000, 3, 1448, 20, 14, 20, "clamp" },
		{ 50000, 60000, 3, 1448, 10, 10, 10, "clamp below lo" },
		/* srtt far below the min RTT: hi not under lo */
		{ 500000, 1000, 3, 1448, 10000, 143, 143, "inverted" },
	};
	unsigned int i, bad = 0, bad_w = 0;
	u32 lo, hi, n, mss, rtt, srtt, clampw, cw, w, wl, wh;
	u64 c;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		tcptp_band(10000000, cases[i].rtt, cases[i].srtt, cases[i].n, cases[i].mss,
			   cases[i].clamp, &lo, &hi);
		CHECK(lo == cases[i].lo && hi == cases[i].hi, "%s: %u..%u", cases[i].what, lo, hi);
	}
	CHECK(tcptp_band_window(100, 14, 25, 1) == 25, "down to hi");
	CHECK(tcptp_band_window(5, 14, 25, 1) == 14, "up to lo");
	CHECK(tcptp_band_window(5, 14, 25, 0) == 5, "no floor: decrease stands");
	CHECK(tcptp_band_window(1, 14, 25, 0) == 2, "no floor: at least 2");
	CHECK(tcptp_band_window(1, 0, 0, 1) == 2 && tcptp_band_window(9, 0, 0, 1) == 2,
	      "empty band: 2");
	for (i = 0; i < 200000; i++) {
		c = rnd64() % (TP_RATE_MAX + 1);
		rtt = (u32)(rnd64() % (TP_MAX_RTT_US + 1));
		srtt = (u32)(rnd64() % (TP_MAX_RTT_US + 1));
		n = 1 + (u32)(rnd64() % TP_MAX_FLOWS);
		mss = 1 + (u32)(rnd64() % TP_MAX_MSS);
		clampw = (u32)rnd64();
		tcptp_band(c, rtt, srtt, n, mss, clampw, &lo, &hi);
		/* the reference from exact arithmetic, not from tcptp_cwnd() */
		wl = ref_cwnd(c, rtt, n, mss);
		wl = wl < clampw ? wl : clampw;
		wh = n > 1 ? ref_cwnd(c, srtt, n - 1, mss) : wl;
		if (n > 1 && wh < U32_MAX)
			wh++;
		wh = wh < clampw ? wh : clampw;
		wh = wh > wl ? wh : wl;
		bad += lo != wl || hi != wh || lo > hi;
		cw = (u32)rnd64() >> (rnd64() % 32);
		w = tcptp_band_window(cw, lo, hi, (int)(i & 1));
		wl = i & 1 ? (lo > TP_MIN_CWND ? lo : TP_MIN_CWND) : TP_MIN_CWND;
		wh = hi > TP_MIN_CWND ? hi : TP_MIN_CWND;
		bad_w += w != (cw < wl ? wl : cw > wh ? wh : cw) || w < TP_MIN_CWND;
	}
	CHECK(bad == 0, "band: %u wrong", bad);
	CHECK(bad_w == 0, "band window: %u wrong", bad_w);
}

/*
 * A decrease stands against the floor until N falls below the N at the
 * decrease or cwnd regrows to lo at that N: the sequences of the VM's
 * dumbbell (a CE mark at N = 2, N rising to 3 as the flow's throughput
 * drops, a second mark there, N back to 2) and of on/off cross traffic
 * going off (N = 1).
 */
static void test_decrease(void)
{
	static const struct {
		int decrease;		/* 1: a decrease at N = flows, else an ACK */
		u32 flows, cwnd, lo, want;
		const char *what;
	} steps[] = {
		{ 1, 2, 13, 16, 2, "mark at N = 2" },
		{ 0, 3, 13, 11, 2, "N = 3, cwnd above its lo: still stands" },
		{ 0, 2, 14, 16, 2, "N back to 2, cwnd < lo: stands" },
		{ 0, 2, 16, 16, 0, "cwnd regrown to lo at N = 2" },
		{ 1, 2, 12, 16, 2, "mark at N = 2" },
		{ 1, 3, 9, 11, 2, "second mark at N = 3: stands at 2" },
		{ 0, 2, 14, 16, 2, "N back to 2, cwnd < lo: stands" },
		{ 0, 0, 14, 16, 2, "no N: stands" },
		{ 0, 2, 16, 16, 0, "regrown to lo" },
		{ 1, 0, 20, 0, 0, "decrease before any N: none stands" },
		{ 1, 2, 12, 16, 2, "mark at N = 2" },
		{ 1, 0, 8, 16, 2, "decrease with no N: still 2" },
		{ 0, 1, 8, 33, 0, "N = 1 < 2: capacity freed" },
		{ 1, 1, 20, 33, 1, "loss at N = 1" },
		{ 0, 1, 32, 33, 1, "N = 1: stands until lo" },
		{ 0, 1, 33, 33, 0, "regrown" },
	};
	unsigned int i;
	u32 dec = 0;

	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		if (steps[i].decrease)
			dec = tcptp_decrease(dec, steps[i].flows);
		/* the (next) ACK's check */
		dec = tcptp_decrease_stands(dec, steps[i].flows, steps[i].cwnd, steps[i].lo);
		CHECK(dec == steps[i].want, "step %u, %s: %u", i, steps[i].what, dec);
	}
	CHECK(tcptp_decrease_stands(0, 5, 1, 100) == 0, "none standing stays none");
	CHECK(tcptp_decrease(7, 3) == 3 && tcptp_decrease(3, 7) == 3 && tcptp_decrease(0, 4) == 4,
	      "the smallest N");
}

static void test_params(void)
{
	struct tcptp_params p;

	tcptp_params_default(&p);
	CHECK(tcptp_check_params(&p) == 0, "defaults");
	CHECK(p.order == TP_ORDER_DEFAULT && TP_ORDER_DEFAULT == 2 && p.method == TP_METHOD_LEVINSON && p.mu_shift == 4 &&
	      p.ewma_shift == 2, "defaults");
	p.order = 0;
	CHECK(tcptp_check_params(&p) == -EINVAL, "order 0");
	p.order = TP_N;
	CHECK(tcptp_check_params(&p) == -EINVAL, "order n");
	p.order = 1;
	p.method = 2;
	CHECK(tcptp_check_params(&p) == -EINVAL, "method");
	p.method = TP_METHOD_LMS;
	p.ewma_shift = TP_EWMA_SHIFT_MAX + 1;
	CHECK(tcptp_check_params(&p) == -EINVAL, "ewma");
	p.ewma_shift = 0;
	p.mu_shift = TP_MU_SHIFT_MAX + 1;
	CHECK(tcptp_check_params(&p) == -EINVAL, "mu");
	p.mu_shift = TP_MU_SHIFT_MAX;
	CHECK(tcptp_check_params(&p) == 0, "edges");
	printf("  sizes: struct tcptp_sampler %zu bytes, struct tcptp_state %zu bytes\n",
	       sizeof(struct tcptp_sampler), sizeof(struct tcptp_state));
	CHECK(sizeof(struct tcptp_state) <= 512, "tcptp_state %zu bytes",
	      sizeof(struct tcptp_state));
}

int main(void)
{
	RUN(test_params);
	RUN(test_sampler);
	RUN(test_flows_cwnd);
	RUN(test_band);
	RUN(test_decrease);
	RUN(test_series);
	RUN(test_prediction_quality);
	RUN(test_degenerate);
	RUN(test_extremes);
	RUN(test_guards);
	RUN(test_symmetry);
	RUN(test_interval);
	printf("max errors against the double reference: coefficients %.2e (of max |a|), "
	       "prediction %.2e relative (%.2e of the window's std)\n",
	       g_max_coef, g_max_pred, g_max_pred_std);
	return check_done("test_tp");
}

// SPDX-License-Identifier: GPL-2.0
/*
 * specctl model red: the RED buffer model (docs/algorithms.md, RED model)
 * for a bottleneck, computed by kernel/include/specnet/red_model.h, the
 * header sch_redopt and q_redopt.so compute with, so the numbers printed
 * here are the ones the qdisc will use.
 *
 * Floating point is not used for the model: inputs are parsed exactly into
 * the header's integer units and results printed from its fixed point.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <specnet/red_model.h>
#include <specnet/redopt.h>

#include "specctl.h"

#define TC_RATE_MAX_BPS	((uint64_t)UINT32_MAX * 8)	/* tc red: u32 bytes/s */

enum {
	OPT_BANDWIDTH = 256, OPT_RTT, OPT_FLOWS, OPT_SSTHRESH, OPT_MIN, OPT_MAX_P,
	OPT_WINDOW, OPT_EWMA, OPT_AVPKT, OPT_LOSS_RATE, OPT_JSON, OPT_TC_RED, OPT_EXPLAIN,
};

static const struct option red_options[] = {
	{ "bandwidth",	required_argument, NULL, OPT_BANDWIDTH },
	{ "rtt",	required_argument, NULL, OPT_RTT },
	{ "flows",	required_argument, NULL, OPT_FLOWS },
	{ "ssthresh",	required_argument, NULL, OPT_SSTHRESH },
	{ "min",	required_argument, NULL, OPT_MIN },
	{ "max-p",	required_argument, NULL, OPT_MAX_P },
	{ "window",	required_argument, NULL, OPT_WINDOW },
	{ "ewma",	required_argument, NULL, OPT_EWMA },
	{ "avpkt",	required_argument, NULL, OPT_AVPKT },
	{ "loss-rate",	required_argument, NULL, OPT_LOSS_RATE },
	{ "json",	no_argument,	   NULL, OPT_JSON },
	{ "tc-red",	required_argument, NULL, OPT_TC_RED },
	{ "explain",	no_argument,	   NULL, OPT_EXPLAIN },
	{ "help",	no_argument,	   NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

void specctl_model_red_usage(FILE *f)
{
	fprintf(f,
		"usage: specctl model red --bandwidth RATE --rtt TIME --flows M\n"
		"                         --ssthresh N[,N...] --min PACKETS --max-p P\n"
		"                         [--window PACKETS] [--ewma W] [--avpkt BYTES]\n"
		"                         [--loss-rate EVENTS] [--json | --explain]\n"
		"                         [--tc-red DEV]\n"
		"\n"
		"The RED buffer model of sch_redopt: buffer size (limit) and max_th\n"
		"for M flows at a bottleneck, so that ECN marks come before any drop.\n"
		"The limit covers the largest of the slow-start peak (ss_peak), the\n"
		"congestion-avoidance peak while the average climbs to min_th\n"
		"(ca_peak) and the queue until the marks take effect (transient),\n"
		"plus 10 packets per flow; it also gives the EWMA weight whose average\n"
		"follows the queue (wlog_follow) and the limit that weight needs.\n"
		"\n"
		"  --bandwidth RATE   bottleneck rate C, tc units: bit kbit mbit gbit tbit,\n"
		"                     kibit..., bps kbps... (bytes/s); bare number = bit/s\n"
		"  --rtt TIME         round-trip time r: us ms s; bare number = us\n"
		"  --flows M          number of flows, 1..%u\n"
		"  --ssthresh N,...   slow-start threshold, packets: one for all flows or M\n"
		"  --min PACKETS      RED min_th, packets\n"
		"  --max-p P          RED max_p, 0 < P <= 1\n"
		"  --window PACKETS   window of each flow at the first mark (default\n"
		"                     (r C / (8 avpkt) + min) / M)\n"
		"  --ewma W           RED EWMA weight, 0 < W < 1, rounded to the nearest\n"
		"                     2^-Wlog (default 2^-%u)\n"
		"  --avpkt BYTES      packet size s, %u..%u (default %u)\n"
		"  --loss-rate EVENTS loss events per second per flow, for the bound on M\n"
		"  --json             one JSON line: limit, min_th, max_th, qavg_max, ...\n"
		"  --explain          the derivation of each term, in words with the numbers\n"
		"  --tc-red DEV       print the equivalent stock tc red command instead\n"
		"                     (thresholds in bytes; stock red derives its EWMA\n"
		"                     weight from burst, so it may differ from --ewma)\n"
		"\n"
		"Bad input: one 'specctl: <reason>' line on stderr, exit status 2.\n",
		TC_REDOPT_MAX_FLOWS, REDOPT_DEFAULT_WLOG, REDOPT_MIN_AVPKT, REDOPT_MAX_AVPKT,
		REDOPT_DEFAULT_AVPKT);
}

static uint32_t parse_ssthresh(const char *arg, uint32_t *ss)
{
	char item[32];
	const char *p = arg, *comma, *why;
	uint32_t n = 0;
	size_t len;

	for (;;) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (!len || len >= sizeof(item))
			specctl_bad_value("ssthresh", arg, len ? "value too long" : "empty value");
		if (n == TC_REDOPT_MAX_FLOWS)
			specctl_bad_value("ssthresh", arg, "more than 1024 values");
		memcpy(item, p, len);
		item[len] = '\0';
		if (specctl_parse_u32(item, &ss[n], &why))
			specctl_bad_value("ssthresh", arg, why);
		n++;
		if (!comma)
			return n;
		p = comma + 1;
	}
}

/* Interface names go into a shell command line: allow only what ip(8) would. */
static void check_dev(const char *dev)
{
	const char *c;

	if (!*dev || strlen(dev) >= 16)
		specctl_die("invalid --tc-red device '%s': 1..15 characters", dev);
	for (c = dev; *c; c++) {
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || strchr("._-:@", *c)))
			specctl_die("invalid --tc-red device '%s': character '%c'", dev, *c);
	}
}

/* tc qdisc add ... red with the model's thresholds, in bytes */
static void format_tc_red(char *buf, size_t len, const char *dev,
			  const struct redopt_model_params *p, const struct redopt_model *o)
{
	uint64_t limit = (uint64_t)o->limit * p->avpkt;
	uint64_t min = (uint64_t)o->qth_min * p->avpkt;
	uint64_t max = (uint64_t)o->qth_max * p->avpkt;
	uint64_t rate = p->bandwidth_bps;
	/* Floyd: burst = (2 min_th + max_th) / 3 packets, rounded up */
	uint32_t burst = (2 * o->qth_min + o->qth_max + 2) / 3;
	/* stock red reaches max_p at max, as sch_redopt does; tc computes
	 * max_P = p 2^32 in 32 bits: 1.0 would wrap to 0
	 */
	uint32_t p_ppm = redopt_max_p_to_ppm(p->max_p);
	char prob[32];

	if (limit > UINT32_MAX)
		specctl_die("--tc-red: a limit of %llu bytes exceeds stock red's 32-bit limit",
			    (unsigned long long)limit);
	if (rate > TC_RATE_MAX_BPS) {
		fprintf(stderr, "specctl: note: stock red takes a bandwidth up to %llubit "
			"(used for idle damping only): clamped\n",
			(unsigned long long)TC_RATE_MAX_BPS);
		rate = TC_RATE_MAX_BPS;
	}
	if (p_ppm >= REDOPT_PPM)
		p_ppm = REDOPT_PPM - 1;
	snprintf(buf, len, "tc qdisc add dev %s root red limit %llu min %llu max %llu "
		 "avpkt %u burst %u bandwidth %llubit probability %s ecn",
		 dev, (unsigned long long)limit, (unsigned long long)min,
		 (unsigned long long)max, p->avpkt, burst, (unsigned long long)rate,
		 specctl_fmt_trim(prob, sizeof(prob), p_ppm, 6));
}

static const char *transient_end(bool by_marks)
{
	return by_marks ? "marks" : "max_th";
}

static void print_table(const struct redopt_model_params *p, const struct redopt_model *o)
{
	char b1[48], b2[48], b3[48];
	uint32_t qc = (o->qmax_milli + 5) / 10;	/* Qmax in 1/100 packet, rounded */

	printf("RED model (redopt): %u flows, %llu bit/s, rtt %u us, avpkt %u bytes\n",
	       p->flows, (unsigned long long)p->bandwidth_bps, p->rtt_us, p->avpkt);
	printf("  %-9s %12u packets  set by %s (+ %u packets margin, or max_th + 1), in force\n",
	       "limit", o->limit, redopt_limit_by_name(o->limit_by), o->margin);
	printf("  %-9s %12u packets  buffer: ceil(sum SSth - r C / (8 s)), r C / (8 s) = %s\n",
	       "ss_peak", o->ss_peak, specctl_fmt_fixed(b1, sizeof(b1), o->pipe_milli, 3));
	printf("  %-9s %12u packets  queue when the average reaches min_th\n", "ca_peak",
	       o->ca_peak);
	printf("  %-9s %12u packets  highest queue before the marks take effect (ends: %s)\n",
	       "transient", o->transient, transient_end(o->transient_by_marks));
	printf("  %-9s %12u packets\n", "min_th", o->qth_min);
	printf("  %-9s %12u packets  ceil(Qmax)\n", "max_th", o->qth_max);
	printf("  %-9s %12s packets  largest average queue before marks take effect\n",
	       "Qmax", specctl_fmt_fixed(b2, sizeof(b2), qc, 2));
	printf("  %-9s %12s packets  per flow at the first mark%s\n", "window",
	       specctl_fmt_fixed(b3, sizeof(b3), o->window_milli, 3),
	       p->window ? " (given)" : " (derived)");
	printf("  %-9s %12u          w = 2^-%u = %.9f\n", "Wlog", p->wlog, p->wlog,
	       1.0 / (double)(1UL << p->wlog));
	printf("  %-9s %12u          weight that follows the queue: max_th %u, limit %u (%s); not in force\n",
	       "follow", o->follow.wlog, o->follow.qth_max, o->follow.limit,
	       redopt_limit_by_name(o->follow.limit_by));
	printf("  %-9s %12s          p(max_th) = %s on the model's curve\n", "max_p",
	       specctl_fmt_fixed(b1, sizeof(b1), redopt_max_p_to_ppm(p->max_p), 6),
	       specctl_fmt_fixed(b2, sizeof(b2), redopt_max_p_to_ppm(o->max_p_curve), 6));
	if (o->m_bound_valid)
		printf("  %-9s %12s flows    the model holds for up to this many flows%s\n",
		       "m bound", specctl_fmt_fixed(b3, sizeof(b3), o->m_bound_milli, 3),
		       (uint64_t)p->flows * 1000 > o->m_bound_milli ?
		       ": exceeded by --flows" : "");
	else
		printf("  %-9s %12s          give --loss-rate for the bound on flows\n",
		       "m bound", "n/a");
}

/*
 * 2^-k exactly in decimal: 5^k in k decimals (5^24 < 2^56). Not through
 * specctl_fmt_fixed(), whose 10^k fits 64 bits only up to k = 19: Wlog
 * goes to 24.
 */
static const char *fmt_weight(char *buf, size_t len, unsigned int k)
{
	uint64_t v = 1;
	unsigned int i;

	for (i = 0; i < k; i++)
		v *= 5;
	if (k)
		snprintf(buf, len, "0.%0*llu", (int)k, (unsigned long long)v);
	else
		snprintf(buf, len, "1");
	return buf;
}

static uint64_t sum_ssthresh(const struct redopt_model_params *p)
{
	uint64_t sum = 0;
	uint32_t i;

	for (i = 0; i < p->flows; i++)
		sum += p->ssthresh[p->n_ssthresh == 1 ? 0 : i];
	return sum;
}

/*
 * The derivation in words (docs/algorithms.md, the RED buffer model): the
 * figures are the header's, intermediate ones in 1/1000 packet, floor.
 */
static void print_explain(const struct redopt_model_params *p, const struct redopt_model *o)
{
	uint64_t sum = sum_ssthresh(p), u0 = sum, lag, per_rtt;
	uint32_t m = p->flows, qc = (o->qmax_milli + 5) / 10, top;
	char b1[48], b2[48];

	/* the first round whose windows fill the pipe */
	if (u0 * 1000 < o->pipe_milli)
		u0 += m * ((o->pipe_milli - u0 * 1000 + 1000ULL * m - 1) / (1000ULL * m));
	lag = ((uint64_t)m * 1000 << p->wlog) / u0;		/* m / (w u), milli */
	per_rtt = o->pipe_milli + 1000ULL * p->min_th;

	printf("RED model (redopt), derivation: %u flows, %llu bit/s, rtt %u us, avpkt %u bytes, Wlog %u\n\n",
	       m, (unsigned long long)p->bandwidth_bps, p->rtt_us, p->avpkt, p->wlog);

	printf("ss_peak = %u packets (the paper's buffer L)\n", o->ss_peak);
	printf("  Slow start ends with the windows summing to sum SSth = %llu packets; r C / (8 s)\n"
	       "  = %s of them are in flight, so the queue then holds ceil(%llu - %s) = %u\n"
	       "  (at least 1).\n\n", (unsigned long long)sum,
	       specctl_fmt_fixed(b1, sizeof(b1), o->pipe_milli, 3), (unsigned long long)sum, b1,
	       o->ss_peak);

	printf("max_th = %u packets, Qmax = %s\n", o->qth_max,
	       specctl_fmt_fixed(b1, sizeof(b1), qc, 2));
	printf("  Qmax = min_th + sum_i (1 / (p(Qmax) W_i) + w), p(Q) = max_p (Q - min_th) / (2 min_th),\n"
	       "  with W = %s packets per flow %s: the largest average before a mark takes\n"
	       "  effect; max_th = ceil(Qmax).\n\n",
	       specctl_fmt_fixed(b2, sizeof(b2), o->window_milli, 3),
	       p->window ? "(given)" : "(derived, (pipe + min_th) / m)");

	printf("ca_peak = %u packets\n", o->ca_peak);
	printf("  After slow start each window grows by 1 packet per round trip (%u in all), from\n"
	       "  %llu packets a round trip. RED averages the queue per arrival with w = 2^-%u\n"
	       "  (= %s, a time constant of %llu arrivals), from 0: on a long ramp it lags\n"
	       "  by m / (w u) = %s packets at first. It reaches min_th = %u when the queue\n"
	       "  holds %u packets.\n\n",
	       m, (unsigned long long)u0, p->wlog, fmt_weight(b1, sizeof(b1), p->wlog),
	       1ULL << p->wlog, specctl_fmt_fixed(b2, sizeof(b2), lag, 3), p->min_th, o->ca_peak);

	printf("transient = %u packets\n", o->transient);
	printf("  Past min_th, RED marks with probability p(avg); every flow has had a mark\n"
	       "  once the probabilities summed over arrivals reach m = %u, and the senders\n"
	       "  reduce one round trip later, each window one packet larger (+%u).\n", m, m);
	if (o->transient_by_marks)
		printf("  Every flow has its mark before the average reaches max_th = %u: the\n"
		       "  queue peaks at %u packets.\n\n", o->qth_max, o->transient);
	else
		printf("  Here the average reaches max_th = %u first, with the queue at %u\n"
		       "  packets: with ecn (and without harddrop) RED then CE-marks every ECT\n"
		       "  arrival (forced marks), so each flow has its mark at once and the senders\n"
		       "  reduce one round trip later: the queue peaks at %u packets (+%u). With\n"
		       "  harddrop, or without ecn, RED drops those arrivals (forced drops) and\n"
		       "  the queue stops at %u: the limit covers both.\n\n",
		       o->qth_max, o->transient - m, o->transient, m, o->transient - m);

	top = o->ss_peak > o->ca_peak ? o->ss_peak : o->ca_peak;
	top = top > o->transient ? top : o->transient;
	printf("limit = %u packets, set by %s\n", o->limit, redopt_limit_by_name(o->limit_by));
	printf("  max(ss_peak %u, ca_peak %u, transient %u) + %u (10 packets, one initial\n"
	       "  window, per flow, for bursts) = %llu; at least max_th + 1 = %u (RED needs\n"
	       "  room above max_th).\n\n", o->ss_peak, o->ca_peak, o->transient, o->margin,
	       (unsigned long long)top + o->margin, o->qth_max + 1);

	printf("wlog_follow = %u, limit_follow = %u packets (not in force)\n", o->follow.wlog,
	       o->follow.limit);
	printf("  At min_th, pipe + min_th = %s packets arrive per round trip. Wlog_follow\n"
	       "  is the smallest k in 1..24 with 2^k >= that (lower if max_th << k would\n"
	       "  not fit 32 bits): w = 2^-%u = %s, a time constant of %llu arrivals, one to\n"
	       "  two round trips unless 1..24 or max_th bound k. At that weight: max_th %u,\n"
	       "  ca_peak %u, transient %u (ends: %s), limit %u (%s). The qdisc runs Wlog %u.\n",
	       specctl_fmt_fixed(b1, sizeof(b1), per_rtt, 3), o->follow.wlog,
	       fmt_weight(b2, sizeof(b2), o->follow.wlog), 1ULL << o->follow.wlog,
	       o->follow.qth_max, o->follow.ca_peak, o->follow.transient,
	       transient_end(o->follow.by_marks), o->follow.limit,
	       redopt_limit_by_name(o->follow.limit_by), p->wlog);
}

static void print_json(const struct redopt_model_params *p, const struct redopt_model *o,
		       const char *tc)
{
	char b1[48], b2[48], b3[48], b4[48], b5[48], b6[48];
	uint32_t qc = (o->qmax_milli + 5) / 10;

	printf("{\"limit\":%u,\"min_th\":%u,\"max_th\":%u,\"qavg_max\":%s,"
	       "\"buffer\":%u,\"qmax_milli\":%u,\"window\":%s,\"pipe\":%s,\"flows\":%u,"
	       "\"wlog\":%u,\"max_p\":%s,\"max_p_curve\":%s,\"m_bound\":%s",
	       o->limit, o->qth_min, o->qth_max, specctl_fmt_fixed(b1, sizeof(b1), qc, 2),
	       o->buffer, o->qmax_milli,
	       specctl_fmt_fixed(b2, sizeof(b2), o->window_milli, 3),
	       specctl_fmt_fixed(b3, sizeof(b3), o->pipe_milli, 3), o->flows, p->wlog,
	       specctl_fmt_fixed(b4, sizeof(b4), redopt_max_p_to_ppm(p->max_p), 6),
	       specctl_fmt_fixed(b5, sizeof(b5), redopt_max_p_to_ppm(o->max_p_curve), 6),
	       o->m_bound_valid ? specctl_fmt_fixed(b6, sizeof(b6), o->m_bound_milli, 3) :
	       "null");
	printf(",\"ss_peak\":%u,\"ca_peak\":%u,\"transient\":%u,\"transient_end\":\"%s\","
	       "\"margin\":%u,\"limit_by\":\"%s\",\"w\":%s,\"wlog_follow\":%u,"
	       "\"w_follow\":%s,\"max_th_follow\":%u,\"ca_peak_follow\":%u,"
	       "\"transient_follow\":%u,\"limit_follow\":%u,\"limit_follow_by\":\"%s\"",
	       o->ss_peak, o->ca_peak, o->transient, transient_end(o->transient_by_marks),
	       o->margin, redopt_limit_by_name(o->limit_by), fmt_weight(b1, sizeof(b1), p->wlog),
	       o->follow.wlog, fmt_weight(b2, sizeof(b2), o->follow.wlog), o->follow.qth_max,
	       o->follow.ca_peak, o->follow.transient, o->follow.limit,
	       redopt_limit_by_name(o->follow.limit_by));
	if (tc)
		printf(",\"tc_red\":\"%s\"", tc);	/* check_dev(): nothing to escape */
	printf("}\n");
}

int specctl_model_red(int argc, char **argv)
{
	static uint32_t ss[TC_REDOPT_MAX_FLOWS];
	struct redopt_model_params p = {
		.wlog = REDOPT_DEFAULT_WLOG,
		.avpkt = REDOPT_DEFAULT_AVPKT,
	};
	bool json = false, explain = false, have_max_p = false;
	const char *dev = NULL, *why;
	struct redopt_model o;
	char tc[512];
	uint64_t v;
	int c, err;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:h", red_options, NULL)) != -1) {
		switch (c) {
		case OPT_BANDWIDTH:
			p.bandwidth_bps = specctl_opt_rate("bandwidth", optarg,
							   REDOPT_MAX_BANDWIDTH,
							   "1bit..100gbit");
			break;
		case OPT_RTT:
			p.rtt_us = specctl_opt_time("rtt", optarg, REDOPT_MAX_RTT_US,
						    "1us..10s");
			break;
		case OPT_FLOWS:
			if (specctl_parse_u32(optarg, &p.flows, &why))
				specctl_bad_value("flows", optarg, why);
			if (!p.flows)
				specctl_bad_value("flows", optarg, "must be 1..1024");
			break;
		case OPT_SSTHRESH:
			p.n_ssthresh = parse_ssthresh(optarg, ss);
			p.ssthresh = ss;
			break;
		case OPT_MIN:
			if (specctl_parse_u32(optarg, &p.min_th, &why))
				specctl_bad_value("min", optarg, why);
			if (!p.min_th)
				specctl_bad_value("min", optarg, "must be 1..1000000 packets");
			break;
		case OPT_MAX_P:
			if (specctl_parse_fixed(optarg, 6, &v, &why))
				specctl_bad_value("max-p", optarg, why);
			if (!v || v > REDOPT_PPM)
				specctl_bad_value("max-p", optarg, "must be 0 < P <= 1 (resolution 0.000001)");
			p.max_p = redopt_max_p_from_ppm((uint32_t)v);
			have_max_p = true;
			break;
		case OPT_WINDOW:
			if (specctl_parse_u32(optarg, &p.window, &why))
				specctl_bad_value("window", optarg, why);
			if (!p.window)
				specctl_bad_value("window", optarg, "must be 1..10000000 packets");
			break;
		case OPT_EWMA:
			if (specctl_parse_fixed(optarg, 6, &v, &why))
				specctl_bad_value("ewma", optarg, why);
			if (!v || v >= REDOPT_PPM)
				specctl_bad_value("ewma", optarg, "must be 0 < W < 1 (resolution 0.000001)");
			p.wlog = redopt_wlog_from_ppm((uint32_t)v);
			break;
		case OPT_AVPKT:
			if (specctl_parse_u32(optarg, &p.avpkt, &why))
				specctl_bad_value("avpkt", optarg, why);
			break;
		case OPT_LOSS_RATE:
			if (specctl_parse_fixed(optarg, 3, &v, &why))
				specctl_bad_value("loss-rate", optarg, why);
			if (!v || v > UINT32_MAX)
				specctl_bad_value("loss-rate", optarg,
					  "must be 0.001..4294967.295 loss events/s (omit it if unknown)");
			p.loss_rate_milli = (uint32_t)v;
			break;
		case OPT_JSON:
			json = true;
			break;
		case OPT_EXPLAIN:
			explain = true;
			break;
		case OPT_TC_RED:
			check_dev(optarg);
			dev = optarg;
			break;
		case 'h':
			specctl_model_red_usage(stdout);
			return 0;
		default:
			specctl_bad_option("model red", red_options, c, argv[optind - 1]);
		}
	}
	if (optind < argc)
		specctl_die("unexpected argument '%s'", argv[optind]);
	if (!p.bandwidth_bps)
		specctl_die("missing --bandwidth");
	if (!p.rtt_us)
		specctl_die("missing --rtt");
	if (!p.flows)
		specctl_die("missing --flows");
	if (!p.n_ssthresh)
		specctl_die("missing --ssthresh");
	if (!p.min_th)
		specctl_die("missing --min");
	if (!have_max_p)
		specctl_die("missing --max-p");
	if (explain && (json || dev))
		specctl_die("--explain does not combine with %s", json ? "--json" : "--tc-red");

	/* the one check sch_redopt and q_redopt.so make too */
	err = redopt_check_params(&p, &why);
	if (err)
		specctl_die("%s", why);
	err = redopt_model_compute(&p, &o, &why);
	if (err)
		specctl_die("%s", why);

	if (dev)
		format_tc_red(tc, sizeof(tc), dev, &p, &o);
	if (json)
		print_json(&p, &o, dev ? tc : NULL);
	else if (explain)
		print_explain(&p, &o);
	else if (dev)
		printf("%s\n", tc);
	else
		print_table(&p, &o);
	return 0;
}

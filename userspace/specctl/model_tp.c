// SPDX-License-Identifier: GPL-2.0
/*
 * specctl model tp: TCP-TP's prediction of the next interval's throughput
 * (docs/algorithms.md, TCP-TP), the number of competing flows N
 * and the window the module would set, from a series of throughput
 * samples. Everything is computed by kernel/include/specnet/tp.h, the
 * header tcp_tp computes with, so the numbers are the module's.
 *
 * Input (stdin): one sample per line, oldest first, in bit/s or with tc's
 * rate units (5mbit, 625kbps, ...). Each line is one aggregated interval
 * sample f^(m)(k), i.e. what the module pushes into its ring at the end
 * of an interval (the per-ACK sampling and EWMA happen before that and
 * are not modelled here). Blank lines and lines starting with '#' are
 * skipped; spaces around a value are allowed. Every sample goes through
 * tcptp_push() in order: the last n = 20 make the window, and with --method
 * lms the weights adapt over the whole series.
 *
 * With fewer than 20 samples the module has no prediction and behaves as
 * Reno: specctl says so and exits 0; --json then gives null for
 * prediction_bps, n and cwnd.
 */
#include <ctype.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <specnet/tp.h>

#include "specctl.h"

#define TP_DEFAULT_MSS	1448U	/* bytes: 1500 - IPv4 - TCP with timestamps */
#define LINE_MAX_LEN	256	/* characters per line, newline included */

enum {
	OPT_CAPACITY = 256, OPT_RTT, OPT_MSS, OPT_METHOD, OPT_ORDER, OPT_ROUND, OPT_JSON,
};

static const struct option tp_options[] = {
	{ "capacity",	required_argument, NULL, OPT_CAPACITY },
	{ "rtt",	required_argument, NULL, OPT_RTT },
	{ "mss",	required_argument, NULL, OPT_MSS },
	{ "method",	required_argument, NULL, OPT_METHOD },
	{ "order",	required_argument, NULL, OPT_ORDER },
	{ "flows-round", required_argument, NULL, OPT_ROUND },
	{ "json",	no_argument,	   NULL, OPT_JSON },
	{ "help",	no_argument,	   NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

void specctl_model_tp_usage(FILE *f)
{
	fprintf(f,
		"usage: specctl model tp --capacity RATE --rtt TIME [--mss BYTES]\n"
		"                        [--method levinson|lms] [--order P]\n"
		"                        [--flows-round nearest|ceil] [--json] < samples\n"
		"\n"
		"TCP-TP: the LMMSE prediction of the next interval's throughput from\n"
		"the last %u aggregated samples, N = C / prediction competing\n"
		"flows and the window cwnd = C * RTT / N the module sets in congestion\n"
		"avoidance (in packets of --mss, rounded down, at least %u).\n"
		"\n"
		"  --capacity RATE    bottleneck capacity C, tc units: bit kbit mbit gbit,\n"
		"                     bps kbps... (bytes/s); bare number = bit/s; <= 200gbit\n"
		"  --rtt TIME         round-trip time: us ms s; bare number = us; <= 10s\n"
		"  --mss BYTES        segment size for cwnd, 1..%u (default %u)\n"
		"  --method M         levinson (default: solve per interval) or lms\n"
		"                     (normalized LMS, step 1/16, from the first solve)\n"
		"  --order P          predictor order, 1..%u (default %u)\n"
		"  --flows-round R    N rounded to the nearest integer (default, as the\n"
		"                     module) or up: ceil (the paper's; module\n"
		"                     parameter flows_round)\n"
		"  --json             one JSON line: prediction_bps, n, cwnd, samples,\n"
		"                     mean_bps, order, method, flags (null values and\n"
		"                     \"ready\":false with fewer than %u samples)\n"
		"\n"
		"stdin: one sample per line, oldest first: the throughput of one\n"
		"aggregated interval, f^(m)(k), in bit/s or with a rate unit, 0..200gbit.\n"
		"Blank lines and lines starting with '#' are skipped. With fewer than\n"
		"%u samples there is no prediction (the module behaves as Reno): exit 0.\n"
		"\n"
		"Bad input: one 'specctl: <reason>' line on stderr, exit status 2.\n",
		TP_N, TP_MIN_CWND, TP_MAX_MSS, TP_DEFAULT_MSS, TP_ORDER_MAX, TP_ORDER_DEFAULT,
		TP_N, TP_N);
}

/* Read the samples from @in into @st; returns the number of samples. */
static unsigned long read_samples(FILE *in, struct tcptp_state *st, const struct tcptp_params *p)
{
	unsigned long lineno = 0, n = 0;
	char *line = NULL, *s, *e;
	const char *why;
	size_t cap = 0;
	ssize_t len;
	uint64_t v;

	while ((len = getline(&line, &cap, in)) != -1) {
		lineno++;
		if ((size_t)len != strlen(line))
			specctl_die("line %lu: NUL byte", lineno);
		if (len > LINE_MAX_LEN)
			specctl_die("line %lu: too long (more than %u characters)", lineno,
				    LINE_MAX_LEN);
		for (s = line; *s && isspace((unsigned char)*s); s++)
			;
		for (e = s + strlen(s); e > s && isspace((unsigned char)e[-1]); e--)
			;
		*e = '\0';
		if (!*s || *s == '#')
			continue;
		if (specctl_parse_scaled(s, specctl_rate_units, &v, &why)) {
			if (!strcmp(why, "unknown unit"))
				specctl_die("line %lu: invalid sample '%s': unknown unit "
					    "(bit, kbit, mbit, gbit, bps, kbps... for bytes/s)",
					    lineno, s);
			specctl_die("line %lu: invalid sample '%s': %s", lineno, s, why);
		}
		if (v > TP_RATE_MAX)
			specctl_die("line %lu: invalid sample '%s': out of range (0..200gbit)",
				    lineno, s);
		tcptp_push(st, p, v);
		n++;
	}
	free(line);
	if (ferror(in))
		specctl_die("error reading the samples from stdin");
	return n;
}

static const char *const flag_names[] = {
	"constant", "unstable", "small_e", "cap", "clamped_low", "clamped_high",
};

static void print_flags_json(uint8_t flags)
{
	unsigned int i;
	bool first = true;

	printf("[");
	for (i = 0; i < sizeof(flag_names) / sizeof(flag_names[0]); i++) {
		if (!(flags & (1U << i)))
			continue;
		printf("%s\"%s\"", first ? "" : ",", flag_names[i]);
		first = false;
	}
	printf("]");
}

static const char *flag_note(uint8_t flags)
{
	if (flags & TP_F_CONST)
		return "constant window: the prediction is its mean";
	if (flags & TP_F_HIGH)
		return "prediction clamped to twice the window's largest sample";
	if (flags & TP_F_LOW)
		return "prediction clamped to 0";
	if (flags & (TP_F_UNSTABLE | TP_F_SMALL_E | TP_F_CAP))
		return "Levinson-Durbin stopped below the requested order";
	return NULL;
}

int specctl_model_tp(int argc, char **argv)
{
	static struct tcptp_state st;
	struct tcptp_params p;
	uint64_t capacity = 0;
	uint32_t rtt = 0, mss = TP_DEFAULT_MSS, order, flows, cwnd;
	unsigned long samples;
	const char *why, *note, *method = "levinson";
	bool json = false, ceil_n = false;
	int c;

	tcptp_params_default(&p);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:h", tp_options, NULL)) != -1) {
		switch (c) {
		case OPT_CAPACITY:
			capacity = specctl_opt_rate("capacity", optarg, TP_RATE_MAX,
						    "1bit..200gbit");
			break;
		case OPT_RTT:
			rtt = specctl_opt_time("rtt", optarg, TP_MAX_RTT_US, "1us..10s");
			break;
		case OPT_MSS:
			if (specctl_parse_u32(optarg, &mss, &why))
				specctl_bad_value("mss", optarg, why);
			if (!mss || mss > TP_MAX_MSS)
				specctl_bad_value("mss", optarg, "must be 1..65535 bytes");
			break;
		case OPT_METHOD:
			if (!strcmp(optarg, "levinson"))
				p.method = TP_METHOD_LEVINSON;
			else if (!strcmp(optarg, "lms"))
				p.method = TP_METHOD_LMS;
			else
				specctl_bad_value("method", optarg, "must be levinson or lms");
			method = p.method == TP_METHOD_LMS ? "lms" : "levinson";
			break;
		case OPT_ORDER:
			if (specctl_parse_u32(optarg, &order, &why))
				specctl_bad_value("order", optarg, why);
			if (!order || order > TP_ORDER_MAX)
				specctl_bad_value("order", optarg, "must be 1..19");
			p.order = (uint8_t)order;
			break;
		case OPT_ROUND:
			if (!strcmp(optarg, "nearest") || !strcmp(optarg, "ceil"))
				ceil_n = !strcmp(optarg, "ceil");
			else
				specctl_bad_value("flows-round", optarg, "must be nearest or ceil");
			break;
		case OPT_JSON:
			json = true;
			break;
		case 'h':
			specctl_model_tp_usage(stdout);
			return 0;
		default:
			specctl_bad_option("model tp", tp_options, c, argv[optind - 1]);
		}
	}
	if (optind < argc)
		specctl_die("unexpected argument '%s' (the samples come on stdin)", argv[optind]);
	if (!capacity)
		specctl_die("missing --capacity");
	if (!rtt)
		specctl_die("missing --rtt");
	if (tcptp_check_params(&p))
		specctl_die("invalid parameters");

	tcptp_state_init(&st);
	samples = read_samples(stdin, &st, &p);

	if (!tcptp_ready(&st)) {
		if (json)
			printf("{\"prediction_bps\":null,\"n\":null,\"cwnd\":null,\"samples\":%lu,"
			       "\"ready\":false,\"mean_bps\":null,\"order\":null,\"method\":\"%s\","
			       "\"flags\":[]}\n", samples, method);
		else
			printf("TCP-TP: not ready: %lu of %u samples, no prediction "
			       "(the module behaves as Reno until it has %u)\n",
			       samples, TP_N, TP_N);
		return 0;
	}
	flows = ceil_n ? tcptp_flows(capacity, tcptp_prediction(&st)) :
			 tcptp_flows_nearest(capacity, tcptp_prediction(&st));
	cwnd = tcptp_cwnd(capacity, rtt, flows, mss);
	if (json) {
		printf("{\"prediction_bps\":%llu,\"n\":%u,\"cwnd\":%u,\"samples\":%lu,"
		       "\"ready\":true,\"mean_bps\":%llu,\"order\":%u,\"method\":\"%s\",\"flags\":",
		       (unsigned long long)tcptp_prediction(&st), flows, cwnd, samples,
		       (unsigned long long)st.mean, st.order, method);
		print_flags_json(st.flags);
		printf("}\n");
		return 0;
	}
	printf("TCP-TP prediction (%s, order %u of %u): %lu samples, window of the last %u\n",
	       method, st.order, p.order, samples, TP_N);
	printf("  %-10s %14llu bit/s    next interval\n", "prediction",
	       (unsigned long long)tcptp_prediction(&st));
	printf("  %-10s %14llu bit/s    of the window\n", "mean", (unsigned long long)st.mean);
	printf("  %-10s %14u          %s(C / prediction), C = %llu bit/s\n", "N", flows,
	       ceil_n ? "ceil" : "round", (unsigned long long)capacity);
	printf("  %-10s %14u packets  C * RTT / (8 N mss), RTT = %u us, mss = %u bytes\n",
	       "cwnd", cwnd, rtt, mss);
	note = flag_note(st.flags);
	if (note)
		printf("  note: %s\n", note);
	return 0;
}

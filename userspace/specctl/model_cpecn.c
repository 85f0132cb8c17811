// SPDX-License-Identifier: GPL-2.0
/*
 * specctl model cpecn: CPECN's congestion probability (docs/
 * algorithms.md, CPECN) of ECE windows, computed by kernel/include/
 * specnet/cpecn.h, the header tcp_cpecn computes with, so the numbers
 * printed here are the module's, bit for bit (CP in ppm, printed exactly).
 *
 * Windows are written newest ACK first, as in algorithms.md: 00011111 has
 * the ECE bits 0, 0, 0, 1 in the newest segment. dCP is taken between the
 * windows in the order given, the first one against the empty (all-zero)
 * window a connection starts with.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <specnet/cpecn.h>

#include "specctl.h"

enum { OPT_M = 256, OPT_ALPHA, OPT_JSON };

static const struct option cpecn_options[] = {
	{ "m",		required_argument, NULL, OPT_M },
	{ "alpha",	required_argument, NULL, OPT_ALPHA },
	{ "json",	no_argument,	   NULL, OPT_JSON },
	{ "help",	no_argument,	   NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

void specctl_model_cpecn_usage(FILE *f)
{
	fprintf(f,
		"usage: specctl model cpecn WINDOW [WINDOW...] [--m M] [--alpha A] [--json]\n"
		"\n"
		"CPECN's congestion probability CP of windows of ECN-Echo bits, and dCP,\n"
		"as tcp_cpecn computes them (kernel/include/specnet/cpecn.h).\n"
		"\n"
		"  WINDOW      the ECE bits of the last M ACKs, a string of M 0s and 1s,\n"
		"              newest ACK first (00011111: the newest four are 0001)\n"
		"  --m M       ACKs in the window, a multiple of 4 in %u..%u (default %u);\n"
		"              segments of 4 ACKs, newest weighs most\n"
		"  --alpha A   weight ratio of a segment to the next newer one, 0 < A < 1,\n"
		"              a whole per-mille: at most 3 decimals (0.25, 0.333), finer\n"
		"              values are rejected, not rounded (default 0.%03u)\n"
		"  --json      one JSON line: {\"cp\": [...], \"dcp\": [...]}\n"
		"\n"
		"One line per window: CP, dCP against the previous window given (the first\n"
		"against the all-zero window a connection starts with), and the verdict\n"
		"on a loss at that point: cpecn congestion if dCP > 0, else corruption;\n"
		"wecn congestion if the newest ACK carries ECE, else corruption.\n"
		"CP and dCP are printed exactly as the module holds them (in ppm, with\n"
		"at least 3 decimals); CP is within M ppm of the real-valued model.\n"
		"\n"
		"Bad input: one 'specctl: <reason>' line on stderr, exit status 2.\n",
		CPECN_MIN_M, CPECN_MAX_M, CPECN_DEFAULT_M, CPECN_DEFAULT_ALPHA);
}

/*
 * A decimal in (0, 1) as a whole per-mille: digits and one point, nothing
 * but zeros after the third decimal.
 */
static uint32_t parse_alpha(const char *arg)
{
	const char *c, *point = NULL, *why;
	bool digit = false;
	uint64_t v;

	if (*arg == '-') {			/* a negative number */
		cpecn_check_params(CPECN_DEFAULT_M, 0, &why);
		specctl_die("invalid --alpha '%s': %s", arg, why);
	}
	for (c = arg; *c; c++) {
		if (*c == '.' && !point)
			point = c;
		else if (*c >= '0' && *c <= '9')
			digit = true;
		else
			specctl_die("invalid --alpha '%s': not a number", arg);
	}
	if (!digit)
		specctl_die("invalid --alpha '%s': not a number", arg);
	if (point && strlen(point + 1) > 3 && strspn(point + 4, "0") != strlen(point + 4))
		specctl_die("invalid --alpha '%s': not a whole per-mille (at most 3 decimals)",
			    arg);
	if (specctl_parse_fixed(arg, 3, &v, &why))
		specctl_die("invalid --alpha '%s': %s", arg, why);
	if (v >= CPECN_ALPHA_UNIT)
		v = CPECN_ALPHA_UNIT;		/* rejected below, with the reason */
	if (cpecn_check_params(CPECN_DEFAULT_M, (uint32_t)v, &why))
		specctl_die("invalid --alpha '%s': %s", arg, why);
	return (uint32_t)v;
}

static uint32_t parse_m(const char *arg)
{
	const char *why;
	uint32_t m;

	if (specctl_parse_u32(arg, &m, &why))
		specctl_die("invalid --m '%s': %s", arg, why);
	if (cpecn_check_params(m, CPECN_DEFAULT_ALPHA, &why))
		specctl_die("invalid --m '%s': %s", arg, why);
	return m;
}

/* "00011111", newest ACK first, into bits with the newest in bit 0 */
static uint32_t parse_window(const char *arg, uint32_t m)
{
	uint32_t bits = 0;
	size_t i, len = strlen(arg);

	for (i = 0; i < len; i++) {
		if (arg[i] != '0' && arg[i] != '1')
			specctl_die("invalid window '%s': only 0 and 1 (ECE bits, newest ACK first)",
				    arg);
	}
	if (len != m)
		specctl_die("invalid window '%s': %zu bits, the window has m = %u (--m)",
			    arg, len, m);
	for (i = 0; i < len; i++)
		bits |= (uint32_t)(arg[i] == '1') << i;
	return bits;
}

/*
 * ppm as a decimal, exact, with at least 3 decimals: 400000 "0.400",
 * 166667 "0.166667". A positive value gets the prefix @plus, a negative
 * one "-", zero @zero.
 */
static const char *fmt_ppm(char *buf, size_t len, int32_t v, const char *plus,
			   const char *zero)
{
	char digits[32];
	uint32_t a = v < 0 ? (uint32_t)-(int64_t)v : (uint32_t)v;
	size_t n;

	specctl_fmt_fixed(digits, sizeof(digits), a, 6);
	n = strlen(digits);
	while (n > 0 && digits[n - 1] == '0' && digits[n - 4] != '.')
		digits[--n] = '\0';
	snprintf(buf, len, "%s%s", v < 0 ? "-" : v > 0 ? plus : zero, digits);
	return buf;
}

int specctl_model_cpecn(int argc, char **argv)
{
	uint32_t m = CPECN_DEFAULT_M, alpha = CPECN_DEFAULT_ALPHA, i, n = 0;
	struct cpecn_params p;
	struct cpecn_state s;
	const char **windows;
	bool json = false;
	char b1[32], b2[32];
	uint32_t *bits;
	int32_t *cp, *dcp;
	int c;

	windows = calloc((size_t)argc + 1, sizeof(*windows));
	if (!windows) {
		fprintf(stderr, "specctl: out of memory\n");
		return 1;
	}
	optind = 1;
	opterr = 0;
	/* "-": windows and options in any order, windows in argv order */
	while ((c = getopt_long(argc, argv, "-:h", cpecn_options, NULL)) != -1) {
		switch (c) {
		case 1:
			windows[n++] = optarg;
			break;
		case OPT_M:
			m = parse_m(optarg);
			break;
		case OPT_ALPHA:
			alpha = parse_alpha(optarg);
			break;
		case OPT_JSON:
			json = true;
			break;
		case 'h':
			specctl_model_cpecn_usage(stdout);
			free(windows);
			return 0;
		default:
			specctl_bad_option("model cpecn", cpecn_options, c, argv[optind - 1]);
		}
	}
	while (optind < argc)		/* after "--" */
		windows[n++] = argv[optind++];
	if (!n)
		specctl_die("missing window (e.g. specctl model cpecn 00011111)");

	/* the module's parameter setters make the same check */
	if (cpecn_params_init(&p, m, alpha))
		specctl_die("invalid parameters m = %u, alpha = %u per-mille", m, alpha);

	bits = calloc(n, sizeof(*bits));
	cp = calloc(n, sizeof(*cp));
	dcp = calloc(n, sizeof(*dcp));
	if (!bits || !cp || !dcp) {
		fprintf(stderr, "specctl: out of memory\n");
		return 1;
	}
	for (i = 0; i < n; i++)
		bits[i] = parse_window(windows[i], m);

	cpecn_reset(&s);
	for (i = 0; i < n; i++) {
		cp[i] = (int32_t)cpecn_cp_of(&p, bits[i]);
		dcp[i] = cp[i] - (int32_t)s.cp;
		s.bits = bits[i];
		s.cp = (uint32_t)cp[i];
		s.dcp = dcp[i];
		if (json)
			continue;
		printf("%s  cp %-8s  dcp %-9s  cpecn %s  wecn %s\n", windows[i],
		       fmt_ppm(b1, sizeof(b1), cp[i], "", ""),
		       fmt_ppm(b2, sizeof(b2), dcp[i], "+", " "),
		       cpecn_congested(&s) ? "congestion" : "corruption",
		       cpecn_wecn_congested(cpecn_last_ece(&s)) ? "congestion" : "corruption");
	}
	if (json) {
		printf("{\"cp\": [");
		for (i = 0; i < n; i++)
			printf("%s%s", i ? ", " : "", fmt_ppm(b1, sizeof(b1), cp[i], "", ""));
		printf("], \"dcp\": [");
		for (i = 0; i < n; i++)
			printf("%s%s", i ? ", " : "", fmt_ppm(b1, sizeof(b1), dcp[i], "", ""));
		printf("]}\n");
	}
	free(bits);
	free(cp);
	free(dcp);
	free(windows);
	return 0;
}

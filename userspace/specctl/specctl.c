// SPDX-License-Identifier: GPL-2.0
/*
 * specctl: the specnet control tool.
 *
 *   specctl model red ...     RED buffer model (sch_redopt's limit, max_th)
 *   specctl model cpecn ...   CPECN's CP and dCP of ECE windows (tcp_cpecn)
 *   specctl model tp ...      TCP-TP's prediction, N and cwnd (tcp_tp)
 *
 *   specctl status            what specd knows of each managed destination
 * Exit status: 0 ok, 2 bad input (one line "specctl: <reason>" on stderr),
 * 1 other failures.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "specctl.h"

static const struct specctl_cmd commands[] = {
	{ "model", "red", "RED buffer model: limit, min_th, max_th for sch_redopt",
	  specctl_model_red, specctl_model_red_usage },
	{ "model", "cpecn", "CPECN: congestion probability CP and dCP of ECE windows",
	  specctl_model_cpecn, specctl_model_cpecn_usage },
	{ "model", "tp", "TCP-TP: predicted throughput, flows N and cwnd from samples",
	  specctl_model_tp, specctl_model_tp_usage },
	{ "status", NULL, "specd: verdict, evidence, CC and route of each destination",
	  specctl_status, specctl_status_usage },
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

void specctl_die(const char *fmt, ...)
{
	va_list ap;

	fputs("specctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(SPECCTL_EXIT_USAGE);
}

void specctl_bad_option(const char *cmd, const struct option *opts, int c, const char *arg)
{
	const struct option *o;

	if (c == ':')
		specctl_die("option '%s' needs a value", arg);
	for (o = opts; optopt && o->name && !strncmp(arg, "--", 2); o++) {
		if (o->val == optopt)	/* never an unknown short one */
			specctl_die("option '--%s' takes no value", o->name);
	}
	if (optopt)
		specctl_die("unknown option '-%c' (see specctl %s --help)", optopt, cmd);
	specctl_die("unknown option '%s' (see specctl %s --help)", arg, cmd);
}

void specctl_bad_value(const char *opt, const char *arg, const char *why)
{
	specctl_die("invalid --%s '%s': %s", opt, arg, why);
}

static void bad_unit(const char *opt, const char *arg, const char *why, const char *units)
{
	if (!strcmp(why, "unknown unit"))
		specctl_die("invalid --%s '%s': unknown unit (%s)", opt, arg, units);
	specctl_bad_value(opt, arg, why);
}

uint64_t specctl_opt_rate(const char *opt, const char *arg, uint64_t max, const char *range)
{
	const char *why;
	char must[64];
	uint64_t v;

	if (specctl_parse_scaled(arg, specctl_rate_units, &v, &why))
		bad_unit(opt, arg, why,
			 "bit, kbit, mbit, gbit, tbit, kibit..., bps, kbps... for bytes/s");
	snprintf(must, sizeof(must), "must be %s", range);
	if (!v || v > max)
		specctl_bad_value(opt, arg, must);
	return v;
}

uint32_t specctl_opt_time(const char *opt, const char *arg, uint32_t max, const char *range)
{
	const char *why;
	char must[64];
	uint64_t v;

	if (specctl_parse_scaled(arg, specctl_time_units, &v, &why))
		bad_unit(opt, arg, why, "us, ms, s");
	snprintf(must, sizeof(must), "must be %s", range);
	if (!v || v > max)
		specctl_bad_value(opt, arg, must);
	return (uint32_t)v;
}

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: specctl <command> [options]\n\ncommands:\n");
	for (i = 0; i < N_COMMANDS; i++) {
		char name[32];

		snprintf(name, sizeof(name), "%s%s%s", commands[i].group,
			 commands[i].name ? " " : "", commands[i].name ? commands[i].name : "");
		fprintf(f, "  %-16s %s\n", name, commands[i].summary);
	}
	fprintf(f, "\n'specctl <command> --help' shows a command's options.\n");
}

/* "red, cpecn" for the group of @cmd */
static const char *names_of(const char *group, char *buf, size_t len)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < N_COMMANDS; i++) {
		if (strcmp(commands[i].group, group) || !commands[i].name)
			continue;
		n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s",
				      n ? ", " : "", commands[i].name);
	}
	return buf;
}

int main(int argc, char **argv)
{
	const struct specctl_cmd *group = NULL;
	char names[128];
	size_t i;
	int rc;

	if (argc < 2) {
		usage(stderr);
		return SPECCTL_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	for (i = 0; i < N_COMMANDS; i++) {
		if (strcmp(commands[i].group, argv[1]))
			continue;
		group = &commands[i];
		if (!commands[i].name)
			break;		/* one-word command */
		if (argc > 2 && !strcmp(commands[i].name, argv[2]))
			break;
	}
	if (!group)
		specctl_die("unknown command '%s' (see specctl --help)", argv[1]);
	if (i == N_COMMANDS) {
		names_of(argv[1], names, sizeof(names));
		if (argc < 3)
			specctl_die("'%s' needs one of: %s", argv[1], names);
		specctl_die("unknown %s '%s' (known: %s)", argv[1], argv[2], names);
	}
	if (commands[i].name)
		rc = commands[i].run(argc - 2, argv + 2);
	else
		rc = commands[i].run(argc - 1, argv + 1);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "specctl: write error\n");
		return 1;
	}
	return rc;
}

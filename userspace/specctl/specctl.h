/* SPDX-License-Identifier: GPL-2.0 */
/*
 * specctl: the specnet control tool. Commands are entries of the dispatch
 * table in specctl.c; each one parses its own options and reports bad
 * input through specctl_die() (one "specctl: <reason>" line, exit 2).
 */
#ifndef SPECCTL_H
#define SPECCTL_H

#include <stdint.h>
#include <stdio.h>

#define SPECCTL_EXIT_USAGE	2	/* bad input */

struct specctl_cmd {
	const char *group;	/* argv[1]: "model", "status", ... */
	const char *name;	/* argv[2], or NULL for a one-word command */
	const char *summary;
	/* argv[0] is the command's last word; options from argv[1] */
	int (*run)(int argc, char **argv);
	void (*usage)(FILE *f);
};

__attribute__((noreturn, format(printf, 1, 2)))
void specctl_die(const char *fmt, ...);

/* ---- options (specctl.c), shared by the commands ---- */

struct option;

/*
 * getopt_long() (opterr = 0) returned something other than an option of
 * the command "specctl @cmd": ':' (a missing value) or '?'. For '?', an
 * unknown short option, also inside a cluster (-xy), is optopt; a long one
 * of @opts given a value it does not take has optopt set to its val;
 * otherwise @arg (argv[optind - 1]) is the unknown word.
 */
__attribute__((noreturn))
void specctl_bad_option(const char *cmd, const struct option *opts, int c, const char *arg);
/* "invalid --@opt '@arg': @why" */
__attribute__((noreturn))
void specctl_bad_value(const char *opt, const char *arg, const char *why);
/* A rate option: bit/s in 1..@max (@range in words, e.g. "1bit..100gbit"). */
uint64_t specctl_opt_rate(const char *opt, const char *arg, uint64_t max, const char *range);
/* A time option: us in 1..@max (@range in words, e.g. "1us..10s"). */
uint32_t specctl_opt_time(const char *opt, const char *arg, uint32_t max, const char *range);

/* ---- parse.c: exact decimal numbers with tc's units ---- */

struct specctl_unit {
	const char *name;	/* matched case-insensitively; "" = bare number */
	uint64_t mult;		/* value of one unit in the result's unit */
};

/* bit/s: bare, bit, kbit, mbit, gbit, tbit, kibit..., bps (bytes/s), kbps... */
extern const struct specctl_unit specctl_rate_units[];
/* us: bare (us, as tc), us, usec, ms, msec, s, sec */
extern const struct specctl_unit specctl_time_units[];

/*
 * Parse "<digits>[.<digits>]<unit>" exactly (no floating point): the value
 * times the unit's multiplier, rounded to the nearest integer. 0 on success;
 * otherwise -1 with a reason in *why.
 */
int specctl_parse_scaled(const char *s, const struct specctl_unit *units,
			 uint64_t *out, const char **why);
/* A plain decimal scaled by 10^digits (e.g. 6: ppm), rounded. */
int specctl_parse_fixed(const char *s, unsigned int digits, uint64_t *out,
			const char **why);
/* A plain unsigned integer that fits in 32 bits. */
int specctl_parse_u32(const char *s, uint32_t *out, const char **why);

/* "<int>.<frac>" of a value in 10^-digits units, e.g. (7297, 3) "7.297"; digits <= 19 */
const char *specctl_fmt_fixed(char *buf, size_t len, uint64_t v, unsigned int digits);
/* The same with trailing zeros (and a trailing point) removed: "0.1" */
const char *specctl_fmt_trim(char *buf, size_t len, uint64_t v, unsigned int digits);

/* ---- commands ---- */

int specctl_model_red(int argc, char **argv);
void specctl_model_red_usage(FILE *f);

int specctl_model_cpecn(int argc, char **argv);
void specctl_model_cpecn_usage(FILE *f);

int specctl_model_tp(int argc, char **argv);
void specctl_model_tp_usage(FILE *f);

int specctl_status(int argc, char **argv);
void specctl_status_usage(FILE *f);

#endif /* SPECCTL_H */

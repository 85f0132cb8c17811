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

/* "<int>.<frac>" of a value in 10^-digits units, e.g. (7297, 3) "7.297" */
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

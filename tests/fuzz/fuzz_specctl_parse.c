// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: specctl's parsers. The sources of userspace/specctl are
 * linked whole, specctl.c's main() renamed specctl_main() (-Dmain=...).
 *
 * Input: the first line is a command, the rest its stdin.
 *
 *   units WORD...    each WORD through parse.c: a rate, a time, a fixed
 *                    point number of 3 and 6 decimals, a u32. What is
 *                    accepted must come back the same from what
 *                    specctl_fmt_trim() or "%llu<unit>" print of it;
 *                    what is refused needs a reason.
 *   model ARGS...    "specctl model ARGS..." through specctl_main(), the
 *                    rest of the input as stdin (model tp's samples).
 *                    Bad input ends in specctl_die(): exit(2) with one
 *                    "specctl: <reason>" line on stderr and nothing on
 *                    stdout; anything else must return 0 with output
 *                    (fuzz_specctl()).
 * Other inputs are rejected.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "specctl.h"
#include "fuzz.h"

/* ---- units ---- */

static void refused(const char *what, const char *w, const char *why)
{
	if (!why || !*why)
		fuzz_fail("%s '%s' refused without a reason", what, w);
}

/* @printed must parse back to @v (with @units, or fixed to @digits) */
static void same(const char *what, const char *w, const char *printed,
		 const struct specctl_unit *units, int digits, uint64_t v)
{
	const char *why = NULL;
	uint64_t back;
	int err;

	err = units ? specctl_parse_scaled(printed, units, &back, &why) :
		      specctl_parse_fixed(printed, (unsigned int)digits, &back, &why);
	if (err || back != v)
		fuzz_fail("%s '%s' = %" PRIu64 ", printed '%s', read back %s%s%" PRIu64, what, w,
			  v, printed, err ? why : "", err ? "" : "as ", err ? 0 : back);
}

/*
 * The parser reads at most 19 significant digits (parse.c, MAX_DIGITS): a
 * value of 20 digits, e.g. "18446744073709551kbit", is not read back from
 * "<value>bit". specctl_fmt_trim() drops trailing zeros, so that fixed
 * point values always come back.
 */
#define MAX_PLAIN	9999999999999999999ULL

static void units(int argc, char **argv)
{
	static const unsigned int digits[] = { 3, 6 };
	char buf[64];
	const char *why;
	unsigned int i;
	uint64_t v;
	uint32_t u;
	int k;

	for (k = 0; k < argc; k++) {
		const char *w = argv[k];

		why = NULL;
		if (specctl_parse_scaled(w, specctl_rate_units, &v, &why) == 0) {
			snprintf(buf, sizeof(buf), "%" PRIu64 "bit", v);
			if (v <= MAX_PLAIN)
				same("rate", w, buf, specctl_rate_units, 0, v);
		} else {
			refused("rate", w, why);
		}
		why = NULL;
		if (specctl_parse_scaled(w, specctl_time_units, &v, &why) == 0) {
			snprintf(buf, sizeof(buf), "%" PRIu64 "us", v);
			if (v <= MAX_PLAIN)
				same("time", w, buf, specctl_time_units, 0, v);
		} else {
			refused("time", w, why);
		}
		for (i = 0; i < sizeof(digits) / sizeof(digits[0]); i++) {
			why = NULL;
			if (specctl_parse_fixed(w, digits[i], &v, &why)) {
				refused("fixed", w, why);
				continue;
			}
			same("fixed", w, specctl_fmt_trim(buf, sizeof(buf), v, digits[i]),
			     NULL, (int)digits[i], v);
		}
		why = NULL;
		if (specctl_parse_u32(w, &u, &why) == 0) {
			const char *t = w + strspn(w, "0");

			snprintf(buf, sizeof(buf), "%" PRIu32, u);
			if (strcmp(buf, *t ? t : "0"))
				fuzz_fail("u32 '%s' read as %s", w, buf);
		} else {
			refused("u32", w, why);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *words[1 + FUZZ_MAX_WORDS + 1];	/* "specctl", the words, NULL */
	const uint8_t *nl = memchr(data, '\n', size);
	size_t len = nl ? (size_t)(nl - data) : size;
	char *line = fuzz_strdup(data, len, ' ');
	int argc, rc = 0;

	words[0] = "specctl";
	argc = 1 + fuzz_words(line, words + 1, FUZZ_MAX_WORDS);
	words[argc] = NULL;
	if (argc > 1 && !strcmp(words[1], "units"))
		units(argc - 2, words + 2);
	else if (argc > 1 && !strcmp(words[1], "model"))
		/* the model's optstring: cpecn takes windows among its options */
		fuzz_specctl(argc, words,
			     argc > 2 && !strcmp(words[2], "cpecn") ? "-:h" : "+:h",
			     1U << 0,
			     nl ? (const char *)nl + 1 : "", nl ? size - len - 1 : 0);
	else
		rc = -1;	/* not a command of this harness: not worth keeping */
	free(line);
	return rc;
}

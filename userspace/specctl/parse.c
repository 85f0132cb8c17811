// SPDX-License-Identifier: GPL-2.0
/*
 * specctl: numbers with units, parsed exactly in integers so that
 * "1.5mbit" is 1500000 bit/s and "0.1" is 100000 ppm, never 99999.
 * Units follow tc (tc(8), "PARAMETERS"): rates in bit/s with SI (kbit =
 * 1000) or IEC (kibit = 1024) prefixes, "bps" meaning bytes per second, a
 * bare number meaning bit/s; times in us, ms, s, a bare number meaning us.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <strings.h>

#include "specctl.h"

#define MAX_DIGITS 19	/* 10^19 - 1 < 2^64 */

const struct specctl_unit specctl_rate_units[] = {
	{ "", 1 }, { "bit", 1 },
	{ "kbit", 1000ULL }, { "mbit", 1000000ULL },
	{ "gbit", 1000000000ULL }, { "tbit", 1000000000000ULL },
	{ "kibit", 1ULL << 10 }, { "mibit", 1ULL << 20 },
	{ "gibit", 1ULL << 30 }, { "tibit", 1ULL << 40 },
	{ "bps", 8 }, { "kbps", 8000ULL }, { "mbps", 8000000ULL },
	{ "gbps", 8000000000ULL }, { "tbps", 8000000000000ULL },
	{ "kibps", 8ULL << 10 }, { "mibps", 8ULL << 20 },
	{ "gibps", 8ULL << 30 }, { "tibps", 8ULL << 40 },
	{ NULL, 0 },
};

const struct specctl_unit specctl_time_units[] = {
	{ "", 1 },
	{ "us", 1 }, { "usec", 1 }, { "usecs", 1 },
	{ "ms", 1000 }, { "msec", 1000 }, { "msecs", 1000 },
	{ "s", 1000000 }, { "sec", 1000000 }, { "secs", 1000000 },
	{ NULL, 0 },
};

static const uint64_t pow10_tab[] = {
	1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
	10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
	100000000000ULL, 1000000000000ULL, 10000000000000ULL,
	100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
	100000000000000000ULL, 1000000000000000000ULL,
	10000000000000000000ULL,
};

/* "<digits>[.<digits>]": mantissa and number of fractional digits */
static int parse_decimal(const char *s, const char **end, uint64_t *mant,
			 unsigned int *frac, const char **why)
{
	unsigned int digits = 0, nfrac = 0;
	bool point = false;
	uint64_t m = 0;

	for (; *s; s++) {
		if (*s == '.' && !point) {
			point = true;
			continue;
		}
		if (*s < '0' || *s > '9')
			break;
		if (m == 0 && *s == '0' && !point) {
			digits += digits == 0;	/* leading zeros count once */
			continue;
		}
		if (digits >= MAX_DIGITS) {
			*why = "too many digits";
			return -1;
		}
		m = m * 10 + (uint64_t)(*s - '0');
		digits++;
		nfrac += point;
	}
	if (!digits) {
		*why = "not a number";
		return -1;
	}
	*mant = m;
	*frac = nfrac;
	*end = s;
	return 0;
}

/* round(mant * mult / 10^frac), exact; -1 on overflow */
static int scale(uint64_t mant, unsigned int frac, uint64_t mult, uint64_t *out)
{
	uint64_t v, d;

	while (frac && mult % 10 == 0) {
		mult /= 10;
		frac--;
	}
	if (__builtin_mul_overflow(mant, mult, &v))
		return -1;
	if (frac) {
		d = pow10_tab[frac];
		v = v / d + (v % d >= d - d / 2);	/* half up */
	}
	*out = v;
	return 0;
}

int specctl_parse_scaled(const char *s, const struct specctl_unit *units,
			 uint64_t *out, const char **why)
{
	const struct specctl_unit *u;
	unsigned int frac;
	const char *end;
	uint64_t mant;

	if (parse_decimal(s, &end, &mant, &frac, why))
		return -1;
	for (u = units; u->name; u++) {
		if (strcasecmp(u->name, end) == 0)
			break;
	}
	if (!u->name) {
		*why = "unknown unit";
		return -1;
	}
	if (scale(mant, frac, u->mult, out)) {
		*why = "out of range";
		return -1;
	}
	return 0;
}

int specctl_parse_fixed(const char *s, unsigned int digits, uint64_t *out,
			const char **why)
{
	const struct specctl_unit plain[] = { { "", pow10_tab[digits] }, { NULL, 0 } };

	return specctl_parse_scaled(s, plain, out, why);
}

int specctl_parse_u32(const char *s, uint32_t *out, const char **why)
{
	uint64_t v = 0;

	if (!*s) {
		*why = "not a number";
		return -1;
	}
	for (; *s; s++) {
		if (*s < '0' || *s > '9') {
			*why = "not an integer";
			return -1;
		}
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > UINT32_MAX) {
			*why = "out of range";
			return -1;
		}
	}
	*out = (uint32_t)v;
	return 0;
}

const char *specctl_fmt_fixed(char *buf, size_t len, uint64_t v, unsigned int digits)
{
	uint64_t d = pow10_tab[digits];

	if (digits)
		snprintf(buf, len, "%llu.%0*llu", (unsigned long long)(v / d), (int)digits,
			 (unsigned long long)(v % d));
	else
		snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

const char *specctl_fmt_trim(char *buf, size_t len, uint64_t v, unsigned int digits)
{
	char *p;

	specctl_fmt_fixed(buf, len, v, digits);
	if (!digits)
		return buf;
	for (p = buf; *p; p++)
		;
	while (p > buf && p[-1] == '0')
		*--p = '\0';
	if (p > buf && p[-1] == '.')
		p[-1] = '\0';
	return buf;
}

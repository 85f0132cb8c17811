// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: specd's config parser, specd_conf_load() of
 * userspace/specd/config.c, on the input as the config file (a memfd,
 * read through its /proc/self/fd path as specd reads /etc/specnet/
 * specd.conf).
 *
 * The contract checked (man/specd.conf.5):
 *   accepted: every setting in its range (at least one manage entry, each
 *   without host bits, not /0; two different valid congestion control
 *   names; 1..8 ports in 1..65535; probe_send of its stated length; the
 *   durations, probe_parallel, probe_max and route_protocol in their ranges;
 *   verdict_ttl >= probe_interval; state_file an absolute path);
 *   refused: -1 and one line in the error buffer naming the file,
 *   NUL-terminated within it.
 * The parser never calls exit().
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "specd.h"
#include "fuzz.h"

#define ERRLEN	512	/* specd's err[] */

struct load_call {
	const char *path;
	struct specd_conf *c;
	char *err;
};

static int load(void *arg)
{
	struct load_call *l = arg;

	return specd_conf_load(l->path, l->c, l->err, ERRLEN);
}

static bool str_ok(const char *s, size_t cap)
{
	return memchr(s, '\0', cap) != NULL;
}

static void check_conf(const struct specd_conf *c)
{
	static const unsigned char zero[12];
	unsigned int i, b;

	if (!c->n_manage || c->n_manage > SPECD_MAX_MANAGE)
		fuzz_fail("%u manage entries", c->n_manage);
	for (i = 0; i < c->n_manage; i++) {
		const struct specd_prefix *p = &c->manage[i];

		b = specd_addr_bits(&p->addr);
		if ((p->addr.family != AF_INET && p->addr.family != AF_INET6) ||
		    !p->len || p->len > b)
			fuzz_fail("manage %u: family %d, /%u", i, p->addr.family, p->len);
		for (; b-- > p->len;)
			if (p->addr.a[b / 8] & (0x80 >> (b % 8)))
				fuzz_fail("manage %u: host bit %u set", i, b);
		if (p->addr.family == AF_INET &&
		    memcmp(p->addr.a + 4, zero, sizeof(zero)))
			fuzz_fail("manage %u: IPv4 with bytes beyond 4", i);
	}
	if (!str_ok(c->speculative_cc, SPECD_CC_MAX) || !str_ok(c->legacy_cc, SPECD_CC_MAX) ||
	    !specd_cc_name_ok(c->speculative_cc) || !specd_cc_name_ok(c->legacy_cc) ||
	    !strcmp(c->speculative_cc, c->legacy_cc))
		fuzz_fail("congestion controls");
	if (!c->n_ports || c->n_ports > SPECD_MAX_PORTS)
		fuzz_fail("%u ports", c->n_ports);
	for (i = 0; i < c->n_ports; i++)
		if (!c->probe_ports[i])
			fuzz_fail("port 0");
	if (c->probe_send_len >= sizeof(c->probe_send) ||
	    c->probe_send[c->probe_send_len] != '\0')
		fuzz_fail("probe_send: length %zu", c->probe_send_len);
	if (c->probe_timeout_ms < 100 || c->probe_timeout_ms > 60000 ||
	    c->probe_interval_ms < 500 || c->probe_interval_ms > 86400000 ||
	    c->verdict_ttl_ms < 1000 || c->verdict_ttl_ms > 7 * 86400000U ||
	    c->verdict_ttl_ms < c->probe_interval_ms)
		fuzz_fail("durations: timeout %u, interval %u, ttl %u ms", c->probe_timeout_ms,
			  c->probe_interval_ms, c->verdict_ttl_ms);
	if (!c->probe_parallel || c->probe_parallel > SPECD_MAX_PARALLEL ||
	    !c->probe_max || c->probe_max > SPECD_MAX_DESTS)
		fuzz_fail("probe_parallel %u, probe_max %u", c->probe_parallel, c->probe_max);
	if (c->route_protocol < 5 || c->route_protocol > 255)
		fuzz_fail("route_protocol %u", c->route_protocol);
	if (!str_ok(c->state_file, sizeof(c->state_file)) || c->state_file[0] != '/')
		fuzz_fail("state_file");
	if ((c->keep_routes != 0 && c->keep_routes != 1) || (c->dry_run != 0 && c->dry_run != 1))
		fuzz_fail("booleans");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct specd_conf conf;
	static char err[ERRLEN];
	struct load_call l = { .c = &conf, .err = err };
	size_t plen;
	int rc;

	l.path = fuzz_file(data, size);
	plen = strlen(l.path);
	memset(err, 0, sizeof(err));
	fuzz_reset();
	if (fuzz_call(load, &l, &rc))
		fuzz_fail("specd_conf_load() called exit(%d)", rc);
	if (rc == 0) {
		check_conf(&conf);
		return 0;
	}
	if (rc != -1)
		fuzz_fail("specd_conf_load() returned %d", rc);
	if (!str_ok(err, sizeof(err)) || strncmp(err, l.path, plen) || err[plen] != ':' ||
	    strchr(err, '\n') || strlen(err) <= plen + 2)
		fuzz_fail("refused without a one-line error naming the file: '%.*s'",
			  (int)sizeof(err), err);
	/* the mode refusal has no line number: "<path>: writable by others"
	 * (the input's own words may say the same after "<path>:<line>:")
	 */
	if (!strncmp(err + plen, ": writable by others", 20))
		fuzz_fail("the harness's file is refused for its mode: %s", err);
	return 0;
}

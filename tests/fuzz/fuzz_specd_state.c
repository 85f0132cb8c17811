// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: specd's state file parser, specd_state_read() of
 * userspace/specd/state.c, on the input as the state file (a memfd, read
 * through its /proc/self/fd path), then what specctl shows of an
 * accepted one: "specctl status --state FILE" and "... --json" (status.c,
 * linked with the rest of specctl, its main() renamed specctl_main()).
 *
 * The contract checked:
 *   accepted (0): at most SPECD_MAX_DESTS destinations, each an IPv4 or
 *   IPv6 address with a known verdict, route and ecn 0 or 1, and its
 *   strings (cc a congestion control name or empty, evidence, note, the
 *   config path) NUL-terminated in their arrays;
 *   refused (-2): the line number of the fault, from 1 to the number of
 *   lines read;
 *   never -1 (the file exists), never exit().
 * specctl status of an accepted file returns 0 or 3 (specd not running)
 * with output; bad input is one "specctl: <reason>" line and exit 2.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "specd.h"
#include "fuzz.h"

#define STATUS_OK	((1U << 0) | (1U << 3))	/* running, not running */

struct read_call {
	const char *path;
	struct specd_state *s;
	unsigned int *bad;
};

static int read_state(void *arg)
{
	struct read_call *r = arg;

	return specd_state_read(r->path, r->s, r->bad);
}

static bool str_ok(const char *s, size_t cap)
{
	return memchr(s, '\0', cap) != NULL;
}

static void check_state(const struct specd_state *s)
{
	unsigned int i;

	if (s->n > SPECD_MAX_DESTS || !str_ok(s->conf, sizeof(s->conf)))
		fuzz_fail("%u destinations", s->n);
	for (i = 0; i < s->n; i++) {
		const struct specd_dest *d = &s->d[i];

		if (d->addr.family != AF_INET && d->addr.family != AF_INET6)
			fuzz_fail("dest %u: family %d", i, d->addr.family);
		if ((unsigned int)d->verdict > SPECD_INCAPABLE)
			fuzz_fail("dest %u: verdict %d", i, d->verdict);
		if ((d->route != 0 && d->route != 1) || (d->ecn != 0 && d->ecn != 1))
			fuzz_fail("dest %u: route %d, ecn %d", i, d->route, d->ecn);
		if (!str_ok(d->cc, sizeof(d->cc)) || (d->cc[0] && !specd_cc_name_ok(d->cc)))
			fuzz_fail("dest %u: cc", i);
		if (!str_ok(d->evidence, sizeof(d->evidence)) || !str_ok(d->note, sizeof(d->note)))
			fuzz_fail("dest %u: evidence or note", i);
	}
}

static void status(const char *path, bool json)
{
	char *argv[] = { "specctl", "status", "--state", (char *)path,
			 json ? "--json" : NULL, NULL };

	fuzz_specctl(json ? 5 : 4, argv, "+:c:h", STATUS_OK, "", 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct specd_state state;
	unsigned int bad = 0, lines;
	struct read_call r = { .s = &state, .bad = &bad };
	size_t i;
	int rc;

	r.path = fuzz_file(data, size);
	fuzz_reset();
	if (fuzz_call(read_state, &r, &rc))
		fuzz_fail("specd_state_read() called exit(%d)", rc);
	if (rc == -2) {
		/* a line is at most 511 bytes for fgets(): more lines then */
		for (i = 0, lines = 1; i < size; i++)
			lines += data[i] == '\n';
		if (!bad || bad > lines + size / 511)
			fuzz_fail("refused at line %u of %u", bad, lines);
		return 0;
	}
	if (rc)
		fuzz_fail("specd_state_read() returned %d", rc);
	check_state(&state);
	status(r.path, false);
	status(r.path, true);
	return 0;
}

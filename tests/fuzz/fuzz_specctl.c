// SPDX-License-Identifier: GPL-2.0
/* tests/fuzz: specctl's command line contract (fuzz.h, fuzz_specctl()). */
#include <getopt.h>
#include <string.h>

#include "specctl.h"
#include "fuzz.h"

struct main_call {
	int argc;
	char **argv;
};

static int run_main(void *arg)
{
	struct main_call *c = arg;

	return specctl_main(c->argc, c->argv);
}

/* getopt as a fresh process has it, for @optstring's ordering */
static void getopt_fresh(const char *optstring)
{
	static char *dummy[] = { "specctl", NULL };
	static const struct option none[] = { { NULL, 0, NULL, 0 } };

	optind = 0;
	opterr = 0;
	getopt_long(1, dummy, optstring, none, NULL);
}

int fuzz_specctl(int argc, char **argv, const char *optstring, unsigned int ok,
		 const char *in, size_t inlen)
{
	struct main_call c = { .argc = argc, .argv = argv };
	const char *nl;
	int rc;

	getopt_fresh(optstring);
	fuzz_reset();
	fuzz_stdin(in, inlen);
	if (fuzz_call(run_main, &c, &rc)) {
		if (rc != SPECCTL_EXIT_USAGE)
			fuzz_fail("exit(%d), not exit(%d)", rc, SPECCTL_EXIT_USAGE);
		nl = strchr(fuzz_err.buf, '\n');
		if (strncmp(fuzz_err.buf, "specctl: ", 9) || !nl || nl[1])
			fuzz_fail("bad input without one 'specctl: <reason>' line");
		if (fuzz_out.len)
			fuzz_fail("bad input, yet output on stdout");
	} else if (rc < 0 || rc > 31 || !(ok & (1U << rc)) || !fuzz_out.len) {
		fuzz_fail("returned %d with %zu bytes of output", rc, fuzz_out.len);
	}
	fuzz_stdin_end();
	return rc;
}

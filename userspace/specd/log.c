// SPDX-License-Identifier: GPL-2.0
/*
 * specd's log: one line per message on stderr, with a "<prio>" prefix
 * (sd-daemon(3)) when stderr is the journal's stream, so that journald
 * keeps the priority; plain otherwise (a terminal, -d).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "specd.h"

static int journal;

void specd_log_init(void)
{
	journal = getenv("JOURNAL_STREAM") != NULL;
}

void specd_log(int prio, const char *fmt, ...)
{
	va_list ap;

	if (journal)
		fprintf(stderr, "<%d>", prio);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
}

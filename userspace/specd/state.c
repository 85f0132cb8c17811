// SPDX-License-Identifier: GPL-2.0
/*
 * specd: the state file, written by specd after every change (a temporary
 * file renamed over the old one, so a reader never sees half of it) and
 * read back at start and by `specctl status`.
 *
 *   specd-state 1
 *   pid <pid>
 *   written <unix time>
 *   conf <config path>
 *   dest <addr> <verdict> <since> <expires> <route 0|1> <table> <cc|-> <ecn 0|1>
 *   evidence <text to the end of the line>
 *   note <text to the end of the line>
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "specd.h"

static const char *const verdict_names[] = {
	[SPECD_UNKNOWN] = "unknown",
	[SPECD_CAPABLE] = "capable",
	[SPECD_INCAPABLE] = "incapable",
};

const char *specd_verdict_name(enum specd_verdict v)
{
	return (unsigned int)v < 3 ? verdict_names[v] : "?";
}

/* a line of text: newlines would end it */
static void put_text(FILE *f, const char *key, const char *s)
{
	fprintf(f, "%s ", key);
	for (; *s; s++)
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
	fputc('\n', f);
}

int specd_state_write(const char *path, const struct specd_state *s)
{
	char tmp[300], a[INET6_ADDRSTRLEN];
	unsigned int i;
	FILE *f;
	int fd;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		return -ENOMEM;
	}
	fprintf(f, "specd-state 1\npid %ld\nwritten %lld\n", s->pid, (long long)s->written);
	put_text(f, "conf", s->conf);
	for (i = 0; i < s->n; i++) {
		const struct specd_dest *d = &s->d[i];

		fprintf(f, "dest %s %s %lld %lld %d %u %s %d\n",
			specd_addr_str(&d->addr, a, sizeof(a)),
			specd_verdict_name(d->verdict), (long long)d->since,
			(long long)d->expires, d->route, d->table,
			d->cc[0] ? d->cc : "-", d->ecn);
		put_text(f, "evidence", d->evidence);
		put_text(f, "note", d->note);
	}
	if (fflush(f) || fsync(fd) || ferror(f)) {
		fclose(f);
		unlink(tmp);
		return -EIO;
	}
	fclose(f);
	if (chmod(tmp, 0644) || rename(tmp, path)) {
		int e = errno;

		unlink(tmp);
		return -e;
	}
	return 0;
}

/*
 * Times are unix times from 0 (none) to the end of the year 9999, so that
 * `specctl status` computes ages and expiries in a time_t.
 */
#define STATE_TIME_MAX	253402300799LL

/* a decimal as specd writes it, alone on the rest of the line, up to @hi */
static int get_num(const char *s, long long hi, long long *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtoll(s, &end, 10);
	if (errno || (*end && strcmp(end, "\n")) || *v > hi)
		return -1;
	return 0;
}

static void copy_rest(char *dst, size_t cap, const char *src)
{
	size_t n = strcspn(src, "\n");

	if (n >= cap)
		n = cap - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

int specd_state_read(const char *path, struct specd_state *s, unsigned int *bad_line)
{
	char line[512], addr[64], verdict[16], cc[SPECD_CC_MAX + 8];
	struct specd_dest *d = NULL;
	unsigned int ln = 0;
	FILE *f;

	memset(s, 0, sizeof(*s));
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		long long since, expires, num;
		unsigned int table;
		int route, ecn, v;

		ln++;
		if (ln == 1) {
			if (strcmp(line, "specd-state 1\n"))
				goto bad;
		} else if (!strncmp(line, "pid ", 4)) {
			if (get_num(line + 4, INT_MAX, &num))
				goto bad;
			s->pid = (long)num;
		} else if (!strncmp(line, "written ", 8)) {
			if (get_num(line + 8, STATE_TIME_MAX, &num))
				goto bad;
			s->written = (time_t)num;
		} else if (!strncmp(line, "conf ", 5)) {
			copy_rest(s->conf, sizeof(s->conf), line + 5);
		} else if (!strncmp(line, "dest ", 5)) {
			if (s->n == SPECD_MAX_DESTS)
				goto bad;
			if (sscanf(line + 5, "%63s %15s %lld %lld %d %u %23s %d", addr, verdict,
				   &since, &expires, &route, &table, cc, &ecn) != 8)
				goto bad;
			d = &s->d[s->n];
			memset(d, 0, sizeof(*d));
			if (specd_addr_parse(addr, &d->addr))
				goto bad;
			for (v = 0; v < 3; v++)
				if (!strcmp(verdict, verdict_names[v]))
					break;
			if (v == 3 || (strcmp(cc, "-") && !specd_cc_name_ok(cc)) ||
			    since < 0 || since > STATE_TIME_MAX ||
			    expires < 0 || expires > STATE_TIME_MAX)
				goto bad;
			d->verdict = (enum specd_verdict)v;
			d->since = (time_t)since;
			d->expires = (time_t)expires;
			d->route = !!route;
			d->table = table;
			d->ecn = !!ecn;
			if (strcmp(cc, "-"))
				strcpy(d->cc, cc);
			s->n++;
		} else if (d && !strncmp(line, "evidence ", 9)) {
			copy_rest(d->evidence, sizeof(d->evidence), line + 9);
		} else if (d && !strncmp(line, "note ", 5)) {
			copy_rest(d->note, sizeof(d->note), line + 5);
		} else {
			goto bad;
		}
	}
	fclose(f);
	if (!ln) {
		*bad_line = 1;
		return -2;
	}
	return 0;
bad:
	fclose(f);
	*bad_line = ln;
	return -2;
}

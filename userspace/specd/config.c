// SPDX-License-Identifier: GPL-2.0
/*
 * specd: the config file.
 *
 *   # comment
 *   key = value
 *
 * Keys (defaults in brackets):
 *   manage          ADDR or PREFIX/LEN; repeat for more. A host address is
 *                   probed from the start; inside a wider prefix, each
 *                   destination seen in a TCP socket becomes managed.
 *   speculative_cc  [spec]    congctl of ECN-capable destinations
 *   legacy_cc       [cubic]   congctl of every other managed destination
 *   probe_ports     [5201]    up to 8, space or comma separated; tried in order
 *   probe_send      [""]      bytes sent after connect (\r \n \t \\ escapes),
 *                             e.g. "HEAD / HTTP/1.0\r\n\r\n" for a web server
 *   probe_timeout   [3s]      connect, then data back, each
 *   probe_interval  [10s]     the tick: sock_diag poll, due probes
 *   probe_parallel  [64]      probe connections in flight at once (1..256)
 *   probe_max       [256]     destinations probed a tick at most (1..1024)
 *   verdict_ttl     [10m]     how long a verdict lasts before a new probe
 *   state_file      [/var/lib/specnet/specd.state]
 *   route_protocol  [245]     rtm_protocol of specd's routes (5..255)
 *   keep_routes     [no]      keep the routes when stopped by SIGTERM/SIGINT
 *   dry_run         [no]      decide and log, change no route
 * Durations: a number with ms, s, m or h (bare: seconds).
 * Any unknown key or bad value: an error naming the file and line.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "specd.h"

struct cf {
	const char *path;
	unsigned int line;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 2, 3)))
static int bad(struct cf *f, const char *fmt, ...)
{
	size_t n;
	va_list ap;

	n = (size_t)snprintf(f->err, f->errlen, "%s:%u: ", f->path, f->line);
	if (n >= f->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(f->err + n, f->errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

static int parse_bool(struct cf *f, const char *key, const char *v, int *out)
{
	if (!strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcmp(v, "1") ||
	    !strcasecmp(v, "on")) {
		*out = 1;
		return 0;
	}
	if (!strcasecmp(v, "no") || !strcasecmp(v, "false") || !strcmp(v, "0") ||
	    !strcasecmp(v, "off")) {
		*out = 0;
		return 0;
	}
	return bad(f, "%s: '%s' is not yes or no", key, v);
}

/* "<digits>[ms|s|m|h]" in [lo, hi] ms */
static int parse_duration(struct cf *f, const char *key, const char *v,
			  unsigned int lo, unsigned int hi, unsigned int *out)
{
	unsigned long long n, mult;
	char *end;

	if (!isdigit((unsigned char)v[0]))
		return bad(f, "%s: '%s' is not a duration (e.g. 500ms, 10s, 5m)", key, v);
	errno = 0;
	n = strtoull(v, &end, 10);
	if (errno)
		return bad(f, "%s: '%s' is out of range", key, v);
	if (!*end || !strcmp(end, "s"))
		mult = 1000;
	else if (!strcmp(end, "ms"))
		mult = 1;
	else if (!strcmp(end, "m"))
		mult = 60000;
	else if (!strcmp(end, "h"))
		mult = 3600000;
	else
		return bad(f, "%s: unknown unit '%s' (ms, s, m, h)", key, end);
	if (n > hi / mult || n * mult < lo || n * mult > hi)
		return bad(f, "%s: %s is outside %ums..%ums", key, v, lo, hi);
	*out = (unsigned int)(n * mult);
	return 0;
}

static int parse_uint(struct cf *f, const char *key, const char *v,
		      unsigned long lo, unsigned long hi, unsigned long *out)
{
	unsigned long n;
	char *end;

	if (!isdigit((unsigned char)v[0]))
		return bad(f, "%s: '%s' is not a number", key, v);
	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno || *end)
		return bad(f, "%s: '%s' is not a number", key, v);
	if (n < lo || n > hi)
		return bad(f, "%s: %lu is outside %lu..%lu", key, n, lo, hi);
	*out = n;
	return 0;
}

static int parse_prefix(struct cf *f, const char *v, struct specd_prefix *p)
{
	char buf[INET6_ADDRSTRLEN + 8], *slash;
	unsigned long len;
	size_t i;

	if (strlen(v) >= sizeof(buf))
		return bad(f, "manage: '%s' is not an address or prefix", v);
	strcpy(buf, v);
	slash = strchr(buf, '/');
	if (slash)
		*slash = '\0';
	if (specd_addr_parse(buf, &p->addr))
		return bad(f, "manage: '%s' is not an IPv4 or IPv6 address", buf);
	p->len = specd_addr_bits(&p->addr);
	if (slash) {
		char *end;

		errno = 0;
		len = strtoul(slash + 1, &end, 10);
		if (!isdigit((unsigned char)slash[1]) || *end || errno ||
		    len > specd_addr_bits(&p->addr))
			return bad(f, "manage: bad prefix length '%s'", slash + 1);
		p->len = (unsigned int)len;
	}
	/* host bits set below the prefix length: say so rather than guess */
	for (i = p->len; i < specd_addr_bits(&p->addr); i++)
		if (p->addr.a[i / 8] & (0x80 >> (i % 8)))
			return bad(f, "manage: %s has host bits set beyond /%u", v, p->len);
	if (p->len == 0)
		return bad(f, "manage: a /0 prefix would manage every destination");
	return 0;
}

static int parse_ports(struct cf *f, struct specd_conf *c, char *v)
{
	char *tok, *save = NULL;
	unsigned long port;

	c->n_ports = 0;
	for (tok = strtok_r(v, " ,\t", &save); tok; tok = strtok_r(NULL, " ,\t", &save)) {
		if (c->n_ports == SPECD_MAX_PORTS)
			return bad(f, "probe_ports: more than %d ports", SPECD_MAX_PORTS);
		if (parse_uint(f, "probe_ports", tok, 1, 65535, &port))
			return -1;
		c->probe_ports[c->n_ports++] = (uint16_t)port;
	}
	if (!c->n_ports)
		return bad(f, "probe_ports: no port given");
	return 0;
}

/* a value in double quotes with \r \n \t \\ \" escapes, or bare */
static int parse_bytes(struct cf *f, const char *key, const char *v,
		       char *out, size_t cap, size_t *outlen)
{
	size_t n = 0, len = strlen(v);
	const char *p, *end;

	if (len >= 2 && v[0] == '"' && v[len - 1] == '"') {
		p = v + 1;
		end = v + len - 1;
	} else if (v[0] == '"') {
		return bad(f, "%s: unterminated quote", key);
	} else {
		p = v;
		end = v + len;
	}
	for (; p < end; p++) {
		char ch = *p;

		if (ch == '\\') {
			if (++p == end)
				return bad(f, "%s: trailing backslash", key);
			switch (*p) {
			case 'r': ch = '\r'; break;
			case 'n': ch = '\n'; break;
			case 't': ch = '\t'; break;
			case '\\': ch = '\\'; break;
			case '"': ch = '"'; break;
			default:
				return bad(f, "%s: unknown escape '\\%c'", key, *p);
			}
		}
		if (n + 1 >= cap)
			return bad(f, "%s: longer than %zu bytes", key, cap - 1);
		out[n++] = ch;
	}
	out[n] = '\0';
	*outlen = n;
	return 0;
}

static void defaults(struct specd_conf *c, const char *path)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->path, sizeof(c->path), "%s", path);
	strcpy(c->speculative_cc, "spec");
	strcpy(c->legacy_cc, "cubic");
	c->probe_ports[0] = 5201;
	c->n_ports = 1;
	c->probe_timeout_ms = 3000;
	c->probe_interval_ms = 10000;
	c->probe_parallel = 64;
	c->probe_max = 256;
	c->verdict_ttl_ms = 600000;
	strcpy(c->state_file, SPECD_DEFAULT_STATE);
	c->route_protocol = SPECD_DEFAULT_PROTO;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static int one_line(struct cf *f, struct specd_conf *c, char *key, char *v)
{
	unsigned long n;

	if (!strcmp(key, "manage")) {
		if (c->n_manage == SPECD_MAX_MANAGE)
			return bad(f, "manage: more than %d entries", SPECD_MAX_MANAGE);
		if (parse_prefix(f, v, &c->manage[c->n_manage]))
			return -1;
		c->n_manage++;
	} else if (!strcmp(key, "speculative_cc") || !strcmp(key, "legacy_cc")) {
		if (!specd_cc_name_ok(v))
			return bad(f, "%s: '%s' is not a congestion control name "
				   "(letters, digits, _ or -, at most %d)", key, v,
				   SPECD_CC_MAX - 1);
		strcpy(key[0] == 's' ? c->speculative_cc : c->legacy_cc, v);
	} else if (!strcmp(key, "probe_ports")) {
		return parse_ports(f, c, v);
	} else if (!strcmp(key, "probe_send")) {
		return parse_bytes(f, key, v, c->probe_send, sizeof(c->probe_send),
				   &c->probe_send_len);
	} else if (!strcmp(key, "probe_timeout")) {
		return parse_duration(f, key, v, 100, 60000, &c->probe_timeout_ms);
	} else if (!strcmp(key, "probe_interval")) {
		return parse_duration(f, key, v, 500, 86400000, &c->probe_interval_ms);
	} else if (!strcmp(key, "probe_parallel")) {
		if (parse_uint(f, key, v, 1, SPECD_MAX_PARALLEL, &n))
			return -1;
		c->probe_parallel = (unsigned int)n;
	} else if (!strcmp(key, "probe_max")) {
		if (parse_uint(f, key, v, 1, SPECD_MAX_DESTS, &n))
			return -1;
		c->probe_max = (unsigned int)n;
	} else if (!strcmp(key, "verdict_ttl")) {
		return parse_duration(f, key, v, 1000, 7 * 86400000U, &c->verdict_ttl_ms);
	} else if (!strcmp(key, "state_file")) {
		if (v[0] != '/' || strlen(v) >= sizeof(c->state_file))
			return bad(f, "state_file: '%s' is not an absolute path", v);
		strcpy(c->state_file, v);
	} else if (!strcmp(key, "route_protocol")) {
		/* 0-4 are the kernel's own (unspec, redirect, kernel, boot, static) */
		if (parse_uint(f, key, v, 5, 255, &n))
			return -1;
		c->route_protocol = (unsigned int)n;
	} else if (!strcmp(key, "keep_routes")) {
		return parse_bool(f, key, v, &c->keep_routes);
	} else if (!strcmp(key, "dry_run")) {
		return parse_bool(f, key, v, &c->dry_run);
	} else {
		return bad(f, "unknown key '%s'", key);
	}
	return 0;
}

int specd_conf_load(const char *path, struct specd_conf *c, char *err, size_t errlen)
{
	struct cf f = { .path = path, .line = 0, .err = err, .errlen = errlen };
	char line[1024];
	struct stat st;
	FILE *fp;
	int rc = 0;

	defaults(c, path);
	fp = fopen(path, "r");
	if (!fp) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	/* the config names the routes specd rewrites and the peers it
	 * connects to: one that anybody may write is not the admin's
	 */
	if (fstat(fileno(fp), &st) == 0 && (st.st_mode & S_IWOTH)) {
		snprintf(err, errlen, "%s: writable by others (mode %04o): refused",
			 path, (unsigned int)(st.st_mode & 07777));
		fclose(fp);
		return -1;
	}
	while (fgets(line, sizeof(line), fp)) {
		char *s, *eq, *key, *v;

		f.line++;
		if (!strchr(line, '\n') && !feof(fp)) {
			rc = bad(&f, "line longer than %zu bytes", sizeof(line) - 2);
			break;
		}
		s = trim(line);
		if (!*s || *s == '#')
			continue;
		eq = strchr(s, '=');
		if (!eq) {
			rc = bad(&f, "expected 'key = value', got '%s'", s);
			break;
		}
		*eq = '\0';
		key = trim(s);
		v = trim(eq + 1);
		if (!*v) {
			rc = bad(&f, "%s: empty value", key);
			break;
		}
		rc = one_line(&f, c, key, v);
		if (rc)
			break;
	}
	if (!rc && ferror(fp)) {
		snprintf(err, errlen, "%s: read error", path);
		rc = -1;
	}
	fclose(fp);
	if (rc)
		return -1;
	f.line = 0;
	if (!c->n_manage) {
		snprintf(err, errlen, "%s: no 'manage' entry: nothing to do", path);
		return -1;
	}
	if (!strcmp(c->speculative_cc, c->legacy_cc)) {
		snprintf(err, errlen, "%s: speculative_cc and legacy_cc are both '%s'",
			 path, c->legacy_cc);
		return -1;
	}
	if (c->verdict_ttl_ms < c->probe_interval_ms) {
		snprintf(err, errlen, "%s: verdict_ttl (%ums) is shorter than "
			 "probe_interval (%ums)", path, c->verdict_ttl_ms,
			 c->probe_interval_ms);
		return -1;
	}
	return 0;
}

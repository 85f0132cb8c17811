// SPDX-License-Identifier: GPL-2.0
/* specd: addresses, prefixes, names, clock, sysctl. */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "specd.h"

int specd_addr_parse(const char *s, struct specd_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, s, a->a) == 1) {
		a->family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, s, a->a) == 1) {
		a->family = AF_INET6;
		return 0;
	}
	return -1;
}

const char *specd_addr_str(const struct specd_addr *a, char *buf, size_t len)
{
	if (!inet_ntop(a->family, a->a, buf, (socklen_t)len))
		snprintf(buf, len, "?");
	return buf;
}

unsigned int specd_addr_bits(const struct specd_addr *a)
{
	return a->family == AF_INET ? 32 : 128;
}

size_t specd_addr_len(const struct specd_addr *a)
{
	return a->family == AF_INET ? 4 : 16;
}

int specd_addr_eq(const struct specd_addr *x, const struct specd_addr *y)
{
	return x->family == y->family && !memcmp(x->a, y->a, specd_addr_len(x));
}

int specd_prefix_has(const struct specd_prefix *p, const struct specd_addr *a)
{
	unsigned int full = p->len / 8, rest = p->len % 8;

	if (p->addr.family != a->family)
		return 0;
	if (memcmp(p->addr.a, a->a, full))
		return 0;
	if (!rest)
		return 1;
	return !((p->addr.a[full] ^ a->a[full]) & (0xff00 >> rest));
}

const struct specd_prefix *specd_managed(const struct specd_conf *c,
					 const struct specd_addr *a)
{
	unsigned int i;

	for (i = 0; i < c->n_manage; i++)
		if (specd_prefix_has(&c->manage[i], a))
			return &c->manage[i];
	return NULL;
}

/* what the kernel accepts as a congestion control name, and < TCP_CA_NAME_MAX */
int specd_cc_name_ok(const char *s)
{
	size_t n = strlen(s), i;

	if (!n || n >= SPECD_CC_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-')
			return 0;
	return 1;
}

long long specd_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* net.ipv4.tcp_ecn of our namespace (it covers IPv6 too), -1 unreadable */
int specd_tcp_ecn(void)
{
	FILE *f = fopen("/proc/sys/net/ipv4/tcp_ecn", "r");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

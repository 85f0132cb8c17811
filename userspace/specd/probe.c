// SPDX-License-Identifier: GPL-2.0
/*
 * specd: the active ECN probe, many destinations at once.
 *
 * Up to probe_parallel connections are in flight, driven by one poll()
 * loop; each destination is tried on its ports in order until one answers:
 *   1. the socket runs the speculative CC (TCP_CONGESTION); spec, cpecn,
 *      wecn (and dctcp) carry TCP_CONG_NEEDS_ECN, so the SYN requests ECN.
 *      Without that CC the probe relies on net.ipv4.tcp_ecn = 1, and says
 *      it cannot ask for ECN otherwise. Where a route of specd's is in
 *      force its congctl wins at connect, so the caller makes that route
 *      ask for ECN (features ecn) for the probe and the socket keeps the
 *      route's CC (route_asks);
 *   2. connect (probe_timeout); refused, unreachable or silent: next port;
 *   3. send probe_send if set, wait (probe_timeout) for the peer's data;
 *      the first data (or the peer's close) ends the wait;
 *   4. TCP_INFO: TCPI_OPT_ECN = the peer accepted ECN; TCPI_OPT_ECN_SEEN =
 *      a packet with ECT came back, so ECT survives the path from the peer.
 * Capable only with both. A port that sends nothing cannot show ECT: the
 * verdict is then "incapable" with that reason (probe_send fixes it for
 * request/response services).
 */
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <linux/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <syslog.h>
#include <unistd.h>

#include "specd.h"

int specd_cc_autoload(const char *cc)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), rc;

	if (fd < 0)
		return -errno;
	/* with CAP_NET_ADMIN the kernel runs request_module("tcp_<cc>") */
	rc = setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc, (socklen_t)strlen(cc));
	rc = rc ? -errno : 0;
	close(fd);
	return rc;
}

static socklen_t fill_sa(const struct specd_addr *a, uint16_t port,
			 struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (a->family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		memcpy(&s4->sin_addr, a->a, 4);
		return sizeof(*s4);
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		memcpy(&s6->sin6_addr, a->a, 16);
		return sizeof(*s6);
	}
}

enum phase { P_IDLE, P_CONNECT, P_READ };

struct slot {
	enum phase phase;
	unsigned int i;			/* the destination's number from begin() */
	struct specd_addr addr;
	int route_asks;
	int fd;
	unsigned int port;		/* index into probe_ports */
	long long deadline;		/* CLOCK_MONOTONIC ms */
	size_t failed;			/* length of the "probe failed:" text */
	struct specd_probe_result res;
};

/* specd is one thread: the slots live here, not on the heap */
static struct slot slots[SPECD_MAX_PARALLEL];
static struct pollfd pfds[SPECD_MAX_PARALLEL];

static void next_port(const struct specd_conf *c, struct slot *s,
		      const struct specd_prober *p);

static void finish(struct slot *s, const struct specd_prober *p)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	s->phase = P_IDLE;
	p->done(s->i, &s->res, p->arg);
}

/* this port failed (@fmt says why): on to the next one */
__attribute__((format(printf, 4, 5)))
static void port_fail(const struct specd_conf *c, struct slot *s,
		      const struct specd_prober *p, const char *fmt, ...)
{
	size_t room = sizeof(s->res.evidence);
	va_list ap;

	if (!s->failed)
		s->failed = (size_t)snprintf(s->res.evidence, room, "probe failed:");
	if (s->failed < room)
		s->failed += (size_t)snprintf(s->res.evidence + s->failed, room - s->failed,
					      "%s port %u: ", s->port ? ";" : "",
					      c->probe_ports[s->port]);
	if (s->failed < room) {
		va_start(ap, fmt);
		s->failed += (size_t)vsnprintf(s->res.evidence + s->failed,
					       room - s->failed, fmt, ap);
		va_end(ap);
	}
	if (s->failed > room)
		s->failed = room;
	close(s->fd);
	s->fd = -1;
	s->port++;
	next_port(c, s, p);
}

/* connected: send probe_send, then wait for the peer's data */
static void connected(const struct specd_conf *c, struct slot *s,
		      const struct specd_prober *p)
{
	if (c->probe_send_len &&
	    send(s->fd, c->probe_send, c->probe_send_len, MSG_NOSIGNAL) < 0) {
		port_fail(c, s, p, "send: %s", strerror(errno));
		return;
	}
	s->phase = P_READ;
	s->deadline = specd_now_ms() + c->probe_timeout_ms;
}

/* the wait for data is over: TCP_INFO decides */
static void decide(const struct specd_conf *c, struct slot *s,
		   const struct specd_prober *p, size_t got)
{
	struct specd_probe_result *res = &s->res;
	unsigned int port = c->probe_ports[s->port];
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(s->fd, IPPROTO_TCP, TCP_INFO, &ti, &len)) {
		port_fail(c, s, p, "TCP_INFO: %s", strerror(errno));
		return;
	}
	res->capable = 0;
	if (!(ti.tcpi_options & TCPI_OPT_ECN)) {
		snprintf(res->evidence, sizeof(res->evidence),
			 "probe port %u: the peer did not accept ECN", port);
	} else if (ti.tcpi_options & TCPI_OPT_ECN_SEEN) {
		res->capable = 1;
		snprintf(res->evidence, sizeof(res->evidence),
			 "probe port %u: ECN accepted, ECT seen in the peer's %u data segments",
			 port, ti.tcpi_data_segs_in);
	} else if (ti.tcpi_data_segs_in || got) {
		snprintf(res->evidence, sizeof(res->evidence),
			 "probe port %u: ECN accepted, but the peer's %u data segments "
			 "came without ECT (bleached on the path)", port, ti.tcpi_data_segs_in);
	} else {
		snprintf(res->evidence, sizeof(res->evidence),
			 "probe port %u: ECN accepted, no data back in %.1fs to check ECT",
			 port, c->probe_timeout_ms / 1000.0);
	}
	finish(s, p);
}

/* open the slot's current port, or conclude when none is left */
static void next_port(const struct specd_conf *c, struct slot *s,
		      const struct specd_prober *p)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int cc_set;

	if (s->port >= c->n_ports) {
		s->res.capable = 0;	/* no port answered: counts against */
		finish(s, p);
		return;
	}
	s->fd = socket(s->addr.family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->fd < 0) {
		port_fail(c, s, p, "socket: %s", strerror(errno));
		return;
	}
	/*
	 * Under a route of ours the route's congctl replaces the socket's at
	 * connect (tcp_ca_dst_init), and a needs-ECN CC set here first would
	 * even spoil the ECN request: the route (features ecn) asks instead.
	 */
	cc_set = s->route_asks ? 0 : !setsockopt(s->fd, IPPROTO_TCP, TCP_CONGESTION,
						  c->speculative_cc,
						  (socklen_t)strlen(c->speculative_cc));
	if (!s->route_asks && !cc_set && specd_tcp_ecn() != 1) {
		snprintf(s->res.evidence, sizeof(s->res.evidence),
			 "probe cannot request ECN: congctl %s unavailable (%s) and "
			 "net.ipv4.tcp_ecn is not 1", c->speculative_cc, strerror(errno));
		s->res.capable = 0;
		finish(s, p);
		return;
	}
	sl = fill_sa(&s->addr, c->probe_ports[s->port], &ss);
	if (!connect(s->fd, (struct sockaddr *)&ss, sl)) {
		connected(c, s, p);
		return;
	}
	if (errno != EINPROGRESS) {
		port_fail(c, s, p, "%s", strerror(errno));
		return;
	}
	s->phase = P_CONNECT;
	s->deadline = specd_now_ms() + c->probe_timeout_ms;
}

/* poll says the slot's socket is ready */
static void ready(const struct specd_conf *c, struct slot *s,
		  const struct specd_prober *p)
{
	char buf[4096];
	socklen_t len;
	ssize_t n;
	int err = 0;

	if (s->phase == P_CONNECT) {
		len = sizeof(err);
		if (getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &err, &len))
			err = errno;
		if (err)
			port_fail(c, s, p, "%s", strerror(err));
		else
			connected(c, s, p);
		return;
	}
	n = recv(s->fd, buf, sizeof(buf), MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	/* data, EOF or a reset: what came is enough */
	decide(c, s, p, n > 0 ? (size_t)n : 0);
}

static void expired(const struct specd_conf *c, struct slot *s,
		    const struct specd_prober *p)
{
	if (s->phase == P_CONNECT)
		port_fail(c, s, p, "no answer in %.1fs", c->probe_timeout_ms / 1000.0);
	else
		decide(c, s, p, 0);
}

int specd_probe_run(const struct specd_conf *c, const struct specd_prober *p,
		    volatile sig_atomic_t *stop)
{
	unsigned int n = c->probe_parallel, next = 0, k, live;
	struct specd_probe_result res;
	struct specd_addr a;
	int more = 1, asks, r;

	if (n < 1 || n > SPECD_MAX_PARALLEL)
		n = n < 1 ? 1 : SPECD_MAX_PARALLEL;
	for (k = 0; k < n; k++) {
		slots[k].phase = P_IDLE;
		slots[k].fd = -1;
	}
	for (;;) {
		long long now, first = LLONG_MAX;

		/* hand idle slots the next destinations */
		for (k = 0; k < n && more && !*stop; k++) {
			while (more && slots[k].phase == P_IDLE) {
				memset(&res, 0, sizeof(res));
				r = p->begin(next, &a, &asks, &res, p->arg);
				if (r < 0) {
					more = 0;
				} else if (r > 0) {
					p->done(next++, &res, p->arg);
				} else {
					struct slot *s = &slots[k];

					memset(s, 0, sizeof(*s));
					s->fd = -1;
					s->i = next++;
					s->addr = a;
					s->route_asks = asks;
					next_port(c, s, p);
				}
			}
		}
		live = 0;
		for (k = 0; k < n; k++) {
			pfds[k].fd = -1;
			pfds[k].revents = 0;
			if (slots[k].phase == P_IDLE)
				continue;
			pfds[k].fd = slots[k].fd;
			pfds[k].events = slots[k].phase == P_CONNECT ? POLLOUT : POLLIN;
			if (slots[k].deadline < first)
				first = slots[k].deadline;
			live++;
		}
		if (*stop) {
			for (k = 0; k < n; k++) {
				if (slots[k].phase == P_IDLE)
					continue;
				close(slots[k].fd);
				slots[k].fd = -1;
				slots[k].phase = P_IDLE;
				if (p->abort)
					p->abort(slots[k].i, p->arg);
			}
			return -1;
		}
		if (!live)
			return 0;
		now = specd_now_ms();
		if (poll(pfds, n, first > now ? (int)(first - now) : 0) < 0 && errno != EINTR)
			specd_log(LOG_ERR, "probe: poll: %s", strerror(errno));
		now = specd_now_ms();
		for (k = 0; k < n; k++) {
			struct slot *s = &slots[k];

			if (s->phase == P_IDLE)
				continue;
			if (pfds[k].revents)
				ready(c, s, p);
			else if (now >= s->deadline)
				expired(c, s, p);
		}
	}
}

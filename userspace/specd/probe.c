// SPDX-License-Identifier: GPL-2.0
/*
 * specd: the active ECN probe.
 *
 * One TCP connection per port, in order, until a port answers:
 *   1. the socket runs the speculative CC (TCP_CONGESTION); spec, cpecn,
 *      wecn (and dctcp) carry TCP_CONG_NEEDS_ECN, so the SYN requests ECN.
 *      Without that CC the probe relies on net.ipv4.tcp_ecn = 1, and says
 *      it cannot ask for ECN otherwise. Where a route of specd's is in
 *      force its congctl wins at connect, so the caller makes that route
 *      ask for ECN (features ecn) for the probe and the socket keeps the
 *      route's CC (@route_asks);
 *   2. connect (probe_timeout); refused, unreachable or silent: next port;
 *   3. send probe_send if set, wait (probe_timeout) for the peer's data;
 *   4. TCP_INFO: TCPI_OPT_ECN = the peer accepted ECN; TCPI_OPT_ECN_SEEN =
 *      a packet with ECT came back, so ECT survives the path from the peer.
 * Capable only with both. A port that sends nothing cannot show ECT: the
 * verdict is then "incapable" with that reason (probe_send fixes it for
 * request/response services).
 */
#include <errno.h>
#include <netinet/in.h>
#include <linux/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "specd.h"

/* poll one fd until @events, the deadline, or a stop: 1 ready, 0 timeout, -1 stop */
static int wait_fd(int fd, short events, long long deadline, volatile sig_atomic_t *stop)
{
	struct pollfd p = { .fd = fd, .events = events };

	for (;;) {
		long long left = deadline - specd_now_ms();
		int n;

		if (*stop)
			return -1;
		if (left <= 0)
			return 0;
		n = poll(&p, 1, (int)left);
		if (n > 0)
			return 1;
		if (n < 0 && errno != EINTR)
			return 0;
	}
}

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

enum port_outcome { PORT_DECIDED, PORT_NEXT, PORT_STOP };

static enum port_outcome probe_port(const struct specd_conf *c, const struct specd_addr *a,
				    int route_asks, uint16_t port, volatile sig_atomic_t *stop,
				    struct specd_probe_result *res, char *why, size_t whylen)
{
	double tmo = c->probe_timeout_ms / 1000.0;
	struct sockaddr_storage ss;
	struct tcp_info ti;
	socklen_t len = sizeof(ti), sl;
	long long deadline;
	size_t got = 0;
	char buf[4096];
	int fd, err = 0, rc, cc_set;

	fd = socket(a->family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(why, whylen, "port %u: socket: %s", port, strerror(errno));
		return PORT_NEXT;
	}
	/*
	 * Under a route of ours the route's congctl replaces the socket's at
	 * connect (tcp_ca_dst_init), and a needs-ECN CC set here first would
	 * even spoil the ECN request: the route (features ecn) asks instead.
	 */
	cc_set = route_asks ? 0 : !setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION,
					       c->speculative_cc,
					       (socklen_t)strlen(c->speculative_cc));
	if (!route_asks && !cc_set && specd_tcp_ecn() != 1) {
		snprintf(res->evidence, sizeof(res->evidence),
			 "probe cannot request ECN: congctl %s unavailable (%s) and "
			 "net.ipv4.tcp_ecn is not 1", c->speculative_cc, strerror(errno));
		res->capable = 0;
		close(fd);
		return PORT_DECIDED;
	}
	sl = fill_sa(a, port, &ss);
	deadline = specd_now_ms() + c->probe_timeout_ms;
	if (connect(fd, (struct sockaddr *)&ss, sl) && errno != EINPROGRESS) {
		snprintf(why, whylen, "port %u: %s", port, strerror(errno));
		close(fd);
		return PORT_NEXT;
	}
	rc = wait_fd(fd, POLLOUT, deadline, stop);
	if (rc < 0) {
		close(fd);
		return PORT_STOP;
	}
	len = sizeof(err);
	if (!rc || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) || err) {
		if (rc)
			snprintf(why, whylen, "port %u: %s", port, strerror(err));
		else
			snprintf(why, whylen, "port %u: no answer in %.1fs", port, tmo);
		close(fd);
		return PORT_NEXT;
	}
	if (c->probe_send_len &&
	    send(fd, c->probe_send, c->probe_send_len, MSG_NOSIGNAL) < 0) {
		snprintf(why, whylen, "port %u: send: %s", port, strerror(errno));
		close(fd);
		return PORT_NEXT;
	}
	/* the peer's data: what can carry ECT back to us */
	deadline = specd_now_ms() + c->probe_timeout_ms;
	for (;;) {
		ssize_t n;

		rc = wait_fd(fd, POLLIN, deadline, stop);
		if (rc < 0) {
			close(fd);
			return PORT_STOP;
		}
		if (!rc)
			break;
		n = recv(fd, buf, sizeof(buf), 0);
		if (n <= 0)
			break;		/* EOF or reset: what came is enough */
		got += (size_t)n;
	}
	memset(&ti, 0, sizeof(ti));
	len = sizeof(ti);
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len)) {
		snprintf(why, whylen, "port %u: TCP_INFO: %s", port, strerror(errno));
		close(fd);
		return PORT_NEXT;
	}
	close(fd);
	res->capable = 0;
	if (!(ti.tcpi_options & TCPI_OPT_ECN))
		snprintf(res->evidence, sizeof(res->evidence),
			 "probe port %u: the peer did not accept ECN", port);
	else if (ti.tcpi_options & TCPI_OPT_ECN_SEEN) {
		res->capable = 1;
		snprintf(res->evidence, sizeof(res->evidence),
			 "probe port %u: ECN accepted, ECT seen in the peer's %u data segments",
			 port, ti.tcpi_data_segs_in);
	} else if (ti.tcpi_data_segs_in || got)
		snprintf(res->evidence, sizeof(res->evidence),
			 "probe port %u: ECN accepted, but the peer's %u data segments "
			 "came without ECT (bleached on the path)", port, ti.tcpi_data_segs_in);
	else
		snprintf(res->evidence, sizeof(res->evidence),
			 "probe port %u: ECN accepted, no data back in %.1fs to check ECT",
			 port, tmo);
	return PORT_DECIDED;
}

int specd_probe(const struct specd_conf *c, const struct specd_addr *a, int route_asks,
		volatile sig_atomic_t *stop, struct specd_probe_result *res)
{
	char why[SPECD_MAX_PORTS][64];
	size_t n = 0;
	unsigned int i;

	memset(res, 0, sizeof(*res));
	for (i = 0; i < c->n_ports; i++) {
		switch (probe_port(c, a, route_asks, c->probe_ports[i], stop, res, why[i],
				   sizeof(why[i]))) {
		case PORT_DECIDED:
			return 0;
		case PORT_STOP:
			return -1;
		case PORT_NEXT:
			break;
		}
	}
	/* no port answered: counts against */
	n = (size_t)snprintf(res->evidence, sizeof(res->evidence), "probe failed:");
	for (i = 0; i < c->n_ports && n < sizeof(res->evidence); i++)
		n += (size_t)snprintf(res->evidence + n, sizeof(res->evidence) - n, "%s %s",
				      i ? ";" : "", why[i]);
	res->capable = 0;
	return 0;
}

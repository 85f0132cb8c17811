// SPDX-License-Identifier: GPL-2.0
/*
 * specd: rtnetlink (routes) and sock_diag (TCP sockets) through libmnl.
 *
 * Every request asks for an ACK with extended ack (NETLINK_EXT_ACK), so a
 * refusal comes back with the kernel's own words, e.g. "Unknown tcp
 * congestion algorithm" for a congctl whose module is not loaded.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <libmnl/libmnl.h>

#include "specd.h"

/* include/net/tcp_states.h (linux/tcp.h does not export them) */
#define SPECD_TCP_ESTABLISHED	1
#define SPECD_TCP_FIN_WAIT1	4
#define SPECD_TCP_FIN_WAIT2	5
#define SPECD_TCP_CLOSE_WAIT	8
#define SPECD_TCP_LAST_ACK	9
#define SPECD_TCP_CLOSING	11

static struct mnl_socket *rt_sock, *diag_sock, *mon_sock;
static unsigned int seq_next;

static struct mnl_socket *open_one(int bus)
{
	struct mnl_socket *s = mnl_socket_open(bus);
	int one = 1;

	if (!s)
		return NULL;
	if (mnl_socket_bind(s, 0, MNL_SOCKET_AUTOPID) < 0) {
		mnl_socket_close(s);
		return NULL;
	}
	/* best effort: older kernels lack them, and the errors are still right */
	mnl_socket_setsockopt(s, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(s, NETLINK_CAP_ACK, &one, sizeof(one));
	return s;
}

int specd_nl_open(void)
{
	seq_next = (unsigned int)time(NULL);
	rt_sock = open_one(NETLINK_ROUTE);
	if (!rt_sock)
		return -errno;
	diag_sock = open_one(NETLINK_SOCK_DIAG);
	/* the kernel's route announcements, read without blocking */
	mon_sock = mnl_socket_open2(NETLINK_ROUTE, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (!diag_sock || !mon_sock ||
	    mnl_socket_bind(mon_sock, RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE,
			    MNL_SOCKET_AUTOPID) < 0) {
		int e = -errno;

		specd_nl_close();
		return e;
	}
	/* best effort: room for a burst (an overrun is handled, see below) */
	setsockopt(mnl_socket_get_fd(mon_sock), SOL_SOCKET, SO_RCVBUF,
		   &(int){ 1 << 20 }, sizeof(int));
	return 0;
}

void specd_nl_close(void)
{
	if (rt_sock)
		mnl_socket_close(rt_sock);
	if (diag_sock)
		mnl_socket_close(diag_sock);
	if (mon_sock)
		mnl_socket_close(mon_sock);
	rt_sock = diag_sock = mon_sock = NULL;
}

struct extack {
	const char *msg;
};

static int extack_attr(const struct nlattr *attr, void *data)
{
	struct extack *x = data;

	if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG &&
	    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) >= 0)
		x->msg = mnl_attr_get_str(attr);
	return MNL_CB_OK;
}

/* errno of an NLMSG_ERROR, its extack message (or strerror) into @err */
static int nl_error(const struct nlmsghdr *nlh, char *err, size_t errlen)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	struct extack x = { NULL };
	unsigned int off = sizeof(*e);

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*e)))
		return -EBADMSG;
	if (!e->error)
		return 0;
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS) {
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
			off += e->msg.nlmsg_len - sizeof(struct nlmsghdr);
		mnl_attr_parse(nlh, off, extack_attr, &x);
	}
	if (err)
		snprintf(err, errlen, "%s", x.msg ? x.msg : strerror(-e->error));
	return e->error;
}

typedef void (*msg_cb)(const struct nlmsghdr *nlh, void *arg);

/* what talk() hands to libmnl's callbacks */
struct talk_ctx {
	msg_cb cb;
	void *arg;
	char *err;
	size_t errlen;
	int rc;		/* the NLMSG_ERROR's, once it came */
};

static int talk_data(const struct nlmsghdr *nlh, void *data)
{
	struct talk_ctx *t = data;

	if (t->cb)
		t->cb(nlh, t->arg);
	return MNL_CB_OK;
}

/* NLMSG_ERROR: the ACK (error 0) or the refusal, with its extack message */
static int talk_error(const struct nlmsghdr *nlh, void *data)
{
	struct talk_ctx *t = data;

	t->rc = nl_error(nlh, t->err, t->errlen);
	return MNL_CB_STOP;
}

/* the end of a dump */
static int talk_done(const struct nlmsghdr *nlh, void *data)
{
	(void)nlh;
	(void)data;
	return MNL_CB_STOP;
}

static int talk_overrun(const struct nlmsghdr *nlh, void *data)
{
	(void)nlh;
	(void)data;
	errno = ENOSPC;
	return MNL_CB_ERROR;
}

/* With an array, libmnl calls no default for the types it leaves NULL
 * (NLMSG_NOOP: skipped).
 */
static mnl_cb_t talk_ctl[NLMSG_MIN_TYPE] = {
	[NLMSG_ERROR] = talk_error,
	[NLMSG_DONE] = talk_done,
	[NLMSG_OVERRUN] = talk_overrun,
};

/*
 * Send @nlh on @s and read until the ACK or NLMSG_DONE, calling @cb on each
 * data message (libmnl's mnl_cb_run2(), which also checks the sequence and
 * port). 0, or -errno with the reason in @err.
 */
static int talk(struct mnl_socket *s, struct nlmsghdr *nlh, msg_cb cb, void *arg,
		char *err, size_t errlen)
{
	static char buf[1 << 16] __attribute__((aligned(8)));
	struct talk_ctx t = { cb, arg, err, errlen, 0 };
	unsigned int portid = mnl_socket_get_portid(s);
	unsigned int seq = ++seq_next;
	ssize_t n;
	int rc;

	if (err && errlen)
		err[0] = '\0';
	nlh->nlmsg_seq = seq;
	nlh->nlmsg_flags |= NLM_F_ACK;
	if (mnl_socket_sendto(s, nlh, nlh->nlmsg_len) < 0) {
		int e = -errno;

		if (err)
			snprintf(err, errlen, "netlink send: %s", strerror(errno));
		return e;
	}
	for (;;) {
		n = mnl_socket_recvfrom(s, buf, sizeof(buf));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (err)
				snprintf(err, errlen, "netlink receive: %s", strerror(errno));
			return -errno;
		}
		rc = mnl_cb_run2(buf, (size_t)n, seq, portid, talk_data, &t,
				 talk_ctl, NLMSG_MIN_TYPE);
		if (rc == MNL_CB_STOP)		/* ACK, error or NLMSG_DONE */
			return t.rc;
		if (rc == MNL_CB_ERROR && errno != ESRCH && errno != EPROTO) {
			if (err)	/* EINTR: a dump the kernel interrupted */
				snprintf(err, errlen, "netlink: %s", strerror(errno));
			return -errno;
		}
		/* MNL_CB_OK: more to read; ESRCH (port), EPROTO (sequence): a
		 * stale answer, skipped
		 */
	}
}

/* ---- routes ---- */

static void put_raw(struct specd_route *r, const struct nlattr *a)
{
	size_t len = MNL_ALIGN(a->nla_len);

	if (r->attrs_len + len <= sizeof(r->attrs)) {
		memcpy(r->attrs + r->attrs_len, a, a->nla_len);
		memset(r->attrs + r->attrs_len + a->nla_len, 0, len - a->nla_len);
		r->attrs_len += len;
	}
}

static void parse_metrics(struct specd_route *r, const struct nlattr *nest)
{
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, nest) {
		size_t len = MNL_ALIGN(a->nla_len);

		switch (mnl_attr_get_type(a)) {
		case RTAX_CC_ALGO:
			if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0)
				snprintf(r->cc, sizeof(r->cc), "%s", mnl_attr_get_str(a));
			break;
		case RTAX_FEATURES:
			if (mnl_attr_validate(a, MNL_TYPE_U32) >= 0)
				r->features = mnl_attr_get_u32(a);
			break;
		default:
			if (r->metrics_len + len <= sizeof(r->metrics)) {
				memcpy(r->metrics + r->metrics_len, a, a->nla_len);
				memset(r->metrics + r->metrics_len + a->nla_len, 0,
				       len - a->nla_len);
				r->metrics_len += len;
			}
		}
	}
}

struct route_msg {
	struct specd_addr dst;
	struct specd_route r;
};

static int route_attr(const struct nlattr *a, void *data)
{
	struct route_msg *m = data;

	switch (mnl_attr_get_type(a)) {
	case RTA_DST:
		if (mnl_attr_get_payload_len(a) == (m->dst.family == AF_INET ? 4u : 16u))
			memcpy(m->dst.a, mnl_attr_get_payload(a), mnl_attr_get_payload_len(a));
		break;
	case RTA_TABLE:
		if (mnl_attr_validate(a, MNL_TYPE_U32) >= 0)
			m->r.table = mnl_attr_get_u32(a);
		break;
	case RTA_METRICS:
		parse_metrics(&m->r, a);
		break;
	/* the route's nexthop and attributes, carried over to ours */
	case RTA_GATEWAY:
	case RTA_OIF:
	case RTA_PREFSRC:
	case RTA_PRIORITY:
	case RTA_MULTIPATH:
	case RTA_FLOW:
	case RTA_ENCAP_TYPE:
	case RTA_ENCAP:
	case RTA_VIA:
	case RTA_NH_ID:
	case RTA_PREF:
		put_raw(&m->r, a);
		break;
	}
	return MNL_CB_OK;
}

static void route_parse(const struct nlmsghdr *nlh, struct route_msg *m)
{
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);

	memset(m, 0, sizeof(*m));
	m->dst.family = rtm->rtm_family;
	m->r.found = 1;
	m->r.family = rtm->rtm_family;
	m->r.dst_len = rtm->rtm_dst_len;
	m->r.scope = rtm->rtm_scope;
	m->r.type = rtm->rtm_type;
	m->r.protocol = rtm->rtm_protocol;
	m->r.tos = rtm->rtm_tos;
	m->r.flags = rtm->rtm_flags;
	m->r.table = rtm->rtm_table;
	mnl_attr_parse(nlh, sizeof(*rtm), route_attr, m);
}

static void lookup_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct route_msg m;

	if (nlh->nlmsg_type != RTM_NEWROUTE)
		return;
	route_parse(nlh, &m);
	*(struct specd_route *)arg = m.r;
}

static struct nlmsghdr *route_msg_start(char *buf, uint16_t type, uint16_t flags,
					 const struct specd_addr *a, struct rtmsg **rtmp)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct rtmsg *rtm;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = (unsigned char)a->family;
	rtm->rtm_dst_len = (unsigned char)specd_addr_bits(a);
	mnl_attr_put(nlh, RTA_DST, specd_addr_len(a), a->a);
	*rtmp = rtm;
	return nlh;
}

int specd_route_lookup(const struct specd_addr *a, struct specd_route *r)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;
	int rc;

	memset(r, 0, sizeof(*r));
	nlh = route_msg_start(buf, RTM_GETROUTE, 0, a, &rtm);
	rtm->rtm_flags = RTM_F_FIB_MATCH;
	rc = talk(rt_sock, nlh, lookup_cb, r, NULL, 0);
	if (!rc && !r->found)
		rc = -ENOENT;
	return rc;
}

int specd_route_install(const struct specd_addr *a, const struct specd_route *from,
			unsigned int proto, const char *cc, int ecn,
			char *err, size_t errlen)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	struct rtmsg *rtm;

	nlh = route_msg_start(buf, RTM_NEWROUTE, NLM_F_CREATE | NLM_F_REPLACE, a, &rtm);
	rtm->rtm_tos = from->tos;
	rtm->rtm_table = from->table < 256 ? (unsigned char)from->table : RT_TABLE_UNSPEC;
	rtm->rtm_protocol = (unsigned char)proto;
	rtm->rtm_scope = from->scope;
	rtm->rtm_type = from->type;
	rtm->rtm_flags = from->flags & RTNH_F_ONLINK;
	mnl_attr_put_u32(nlh, RTA_TABLE, from->table);
	memcpy(mnl_nlmsg_get_payload_tail(nlh), from->attrs, from->attrs_len);
	nlh->nlmsg_len += (uint32_t)from->attrs_len;
	nest = mnl_attr_nest_start(nlh, RTA_METRICS);
	memcpy(mnl_nlmsg_get_payload_tail(nlh), from->metrics, from->metrics_len);
	nlh->nlmsg_len += (uint32_t)from->metrics_len;
	mnl_attr_put_strz(nlh, RTAX_CC_ALGO, cc);
	if (ecn)
		mnl_attr_put_u32(nlh, RTAX_FEATURES, RTAX_FEATURE_ECN);
	mnl_attr_nest_end(nlh, nest);
	return talk(rt_sock, nlh, NULL, NULL, err, errlen);
}

int specd_route_delete(const struct specd_addr *a, uint32_t table,
		       unsigned int proto, char *err, size_t errlen)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;

	nlh = route_msg_start(buf, RTM_DELROUTE, 0, a, &rtm);
	rtm->rtm_table = table < 256 ? (unsigned char)table : RT_TABLE_UNSPEC;
	rtm->rtm_protocol = (unsigned char)proto;	/* the kernel matches it */
	rtm->rtm_scope = RT_SCOPE_NOWHERE;
	mnl_attr_put_u32(nlh, RTA_TABLE, table);
	return talk(rt_sock, nlh, NULL, NULL, err, errlen);
}

struct dump_arg {
	unsigned int proto;
	specd_route_cb cb;
	void *arg;
};

static void dump_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct dump_arg *d = arg;
	struct route_msg m;

	if (nlh->nlmsg_type != RTM_NEWROUTE)
		return;
	route_parse(nlh, &m);
	if (m.r.protocol == d->proto)
		d->cb(&m.dst, m.r.dst_len, &m.r, d->arg);
}

/* a dump request of @type in @buf */
static struct nlmsghdr *dump_start(char *buf, uint16_t type)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	return nlh;
}

int specd_route_dump(int family, unsigned int proto, specd_route_cb cb, void *arg)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct dump_arg d = { proto, cb, arg };
	struct nlmsghdr *nlh = dump_start(buf, RTM_GETROUTE);
	struct rtmsg *rtm;

	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = (unsigned char)family;
	return talk(rt_sock, nlh, dump_cb, &d, NULL, 0);
}

int specd_route_monitor_fd(void)
{
	return mon_sock ? mnl_socket_get_fd(mon_sock) : -1;
}

int specd_route_changes(specd_route_cb cb, void *arg)
{
	static char buf[1 << 16] __attribute__((aligned(8)));
	int lost = 0;

	for (;;) {
		const struct nlmsghdr *m;
		struct route_msg rm;
		ssize_t n;
		int len;

		n = mnl_socket_recvfrom(mon_sock, buf, sizeof(buf));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) {	/* announcements dropped */
				lost = 1;
				continue;
			}
			break;			/* EAGAIN: all read */
		}
		len = (int)n;
		for (m = (const struct nlmsghdr *)buf; mnl_nlmsg_ok(m, len);
		     m = mnl_nlmsg_next(m, &len)) {
			if (m->nlmsg_type != RTM_NEWROUTE &&
			    m->nlmsg_type != RTM_DELROUTE)
				continue;
			route_parse(m, &rm);
			cb(&rm.dst, rm.r.dst_len, &rm.r, arg);
		}
	}
	return lost ? -ENOBUFS : 0;
}

/* ---- sock_diag ---- */

struct diag_arg {
	int family;
	specd_sock_cb cb;
	void *arg;
};

static int diag_attr(const struct nlattr *a, void *data)
{
	struct specd_sock *s = data;
	struct tcp_info ti;
	size_t n;

	switch (mnl_attr_get_type(a)) {
	case INET_DIAG_INFO:
		s->has_info = 1;
		/* the kernel's tcp_info may be shorter or longer than ours */
		memset(&ti, 0, sizeof(ti));
		n = mnl_attr_get_payload_len(a);
		memcpy(&ti, mnl_attr_get_payload(a), n < sizeof(ti) ? n : sizeof(ti));
		s->options = ti.tcpi_options;
		if (n >= offsetof(struct tcp_info, tcpi_data_segs_in) + sizeof(ti.tcpi_data_segs_in))
			s->data_segs_in = ti.tcpi_data_segs_in;
		break;
	case INET_DIAG_CONG:
		if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0)
			snprintf(s->cc, sizeof(s->cc), "%s", mnl_attr_get_str(a));
		break;
	}
	return MNL_CB_OK;
}

static const unsigned char v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

static void diag_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct inet_diag_msg *m = mnl_nlmsg_get_payload(nlh);
	struct diag_arg *d = arg;
	struct specd_sock s;

	if (nlh->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
	    nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*m)))
		return;
	memset(&s, 0, sizeof(s));
	s.dst.family = m->idiag_family;
	if (m->idiag_family == AF_INET) {
		memcpy(s.dst.a, m->id.idiag_dst, 4);
	} else if (!memcmp(m->id.idiag_dst, v4mapped, 12)) {
		s.dst.family = AF_INET;		/* a v4 peer of a v6 socket */
		memcpy(s.dst.a, (const unsigned char *)m->id.idiag_dst + 12, 4);
	} else {
		memcpy(s.dst.a, m->id.idiag_dst, 16);
	}
	s.dport = ntohs(m->id.idiag_dport);
	mnl_attr_parse(nlh, sizeof(*m), diag_attr, &s);
	d->cb(&s, d->arg);
}

int specd_diag_dump(int family, specd_sock_cb cb, void *arg)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct diag_arg d = { family, cb, arg };
	struct nlmsghdr *nlh = dump_start(buf, SOCK_DIAG_BY_FAMILY);
	struct inet_diag_req_v2 *req;

	req = mnl_nlmsg_put_extra_header(nlh, sizeof(*req));
	req->sdiag_family = (uint8_t)family;
	req->sdiag_protocol = IPPROTO_TCP;
	req->idiag_ext = (1 << (INET_DIAG_INFO - 1)) | (1 << (INET_DIAG_CONG - 1));
	/*
	 * Full sockets past the handshake; not TIME_WAIT or SYN_RECV minisocks,
	 * which carry no tcp_info.
	 */
	req->idiag_states = (1u << SPECD_TCP_ESTABLISHED) | (1u << SPECD_TCP_FIN_WAIT1) |
			    (1u << SPECD_TCP_FIN_WAIT2) | (1u << SPECD_TCP_CLOSE_WAIT) |
			    (1u << SPECD_TCP_LAST_ACK) | (1u << SPECD_TCP_CLOSING);
	return talk(diag_sock, nlh, diag_cb, &d, NULL, 0);
}

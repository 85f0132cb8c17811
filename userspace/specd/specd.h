/* SPDX-License-Identifier: GPL-2.0 */
/*
 * specd: the specnet congestion manager (docs/algorithms.md, specd).
 *
 * The speculative congestion controls (spec, cpecn) are only safe where
 * congestion is signalled by ECN: they treat a loss without an ECN-Echo as
 * corruption. specd learns, per destination, whether the receiver and the
 * path carry ECN, and selects the congestion control per route:
 *
 *   capable   -> host route with  congctl <speculative_cc>  features ecn
 *   otherwise -> host route with  congctl <legacy_cc>
 *
 * Evidence (a destination is capable only with positive evidence):
 *   passive  sock_diag (inet_diag) dump of TCP sockets to managed
 *            destinations, tcpi_options:
 *              ECN negotiated and ECT seen from the peer   -> for
 *              ECN requested but not negotiated            -> against
 *              ECN negotiated, peer data seen, never ECT    -> against
 *   active   a probe connection that requests ECN (its socket runs the
 *            speculative CC, whose TCP_CONG_NEEDS_ECN makes the SYN ask
 *            for ECN), optionally sends probe_send, waits for data:
 *              accepted and ECT came back                   -> for
 *              not accepted, refused, timed out, reset,
 *              no data back to check ECT, ECT never seen    -> against
 * Any evidence against wins over evidence for ("fall back on doubt"). A
 * verdict lasts verdict_ttl, then the destination is probed again; passive
 * evidence refreshes it in between.
 *
 * Routes: a host route (/32, /128) per destination, in the table of the
 * route the destination used before, with that route's nexthop, scope,
 * type, priority, preferred source and metrics copied, protocol
 * route_protocol ("specnet" in rt_protos.d). specd changes and deletes only
 * routes of that protocol; an exact host route of another protocol is left
 * alone (logged once). When the kernel announces a change to a route of
 * another protocol whose prefix holds a destination (in our route's
 * table), specd re-derives that destination's route at once, so its copy
 * never keeps a nexthop the network has moved away from.
 */
#ifndef SPECD_H
#define SPECD_H

#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#define SPECD_EXIT_CONFIG	2	/* bad command line or config: nothing changed */

#define SPECD_DEFAULT_CONF	"/etc/specnet/specd.conf"
#define SPECD_DEFAULT_STATE	"/var/lib/specnet/specd.state"
#define SPECD_DEFAULT_PROTO	245	/* "specnet" in rt_protos.d/specnet.conf */

#define SPECD_CC_MAX		16	/* TCP_CA_NAME_MAX, with the NUL */
#define SPECD_MAX_MANAGE	1024	/* manage lines (host entries can reach SPECD_MAX_DESTS) */
#define SPECD_MAX_DESTS		1024
#define SPECD_MAX_PORTS		8
#define SPECD_EVIDENCE_MAX	192

struct specd_addr {
	int family;			/* AF_INET or AF_INET6 */
	unsigned char a[16];		/* network order; 4 bytes used for v4 */
};

struct specd_prefix {
	struct specd_addr addr;
	unsigned int len;		/* prefix length; host length = one destination */
};

struct specd_conf {
	char path[256];
	struct specd_prefix manage[SPECD_MAX_MANAGE];
	unsigned int n_manage;
	char speculative_cc[SPECD_CC_MAX];
	char legacy_cc[SPECD_CC_MAX];
	uint16_t probe_ports[SPECD_MAX_PORTS];
	unsigned int n_ports;
	char probe_send[256];		/* sent after connect ("" = nothing) */
	size_t probe_send_len;
	unsigned int probe_timeout_ms;
	unsigned int probe_interval_ms;	/* the main tick: diag poll + due probes */
	unsigned int probe_parallel;	/* probe connections in flight at once */
	unsigned int probe_max;		/* destinations probed a tick at most */
	unsigned int verdict_ttl_ms;
	char state_file[256];
	unsigned int route_protocol;
	int keep_routes;		/* on SIGTERM/SIGINT */
	int dry_run;
};

enum specd_verdict {
	SPECD_UNKNOWN = 0,
	SPECD_CAPABLE,
	SPECD_INCAPABLE,
};

struct specd_dest {
	struct specd_addr addr;
	enum specd_verdict verdict;
	char evidence[SPECD_EVIDENCE_MAX];
	time_t since;			/* wall clock of the verdict */
	time_t expires;
	/* the route of ours in force (route = 0: none) */
	int route;
	uint32_t table;
	char cc[SPECD_CC_MAX];
	int ecn;
	char note[SPECD_EVIDENCE_MAX];	/* why no route, when there is none */
	int foreign_logged;		/* "left alone" said once */
	int refollow;			/* a route it follows changed: re-derive ours */
	/* scratch of one tick, not saved */
	unsigned int pos, neg;		/* passive evidence for / against */
	char neg_why[SPECD_EVIDENCE_MAX];
};

/* ---- addr.c ---- */
int specd_addr_parse(const char *s, struct specd_addr *a);
const char *specd_addr_str(const struct specd_addr *a, char *buf, size_t len);
unsigned int specd_addr_bits(const struct specd_addr *a);	/* 32 or 128 */
size_t specd_addr_len(const struct specd_addr *a);		/* 4 or 16 */
int specd_addr_eq(const struct specd_addr *x, const struct specd_addr *y);
int specd_prefix_has(const struct specd_prefix *p, const struct specd_addr *a);
/* the managed entry covering @a, or NULL */
const struct specd_prefix *specd_managed(const struct specd_conf *c,
					 const struct specd_addr *a);
int specd_cc_name_ok(const char *s);
long long specd_now_ms(void);		/* CLOCK_MONOTONIC */
int specd_tcp_ecn(void);

/* ---- config.c ---- */
/* 0 ok; -1 with "<file>:<line>: <reason>" in @err */
int specd_conf_load(const char *path, struct specd_conf *c, char *err, size_t errlen);

/* ---- state.c (also compiled into specctl) ---- */
struct specd_state {
	long pid;
	time_t written;
	char conf[256];
	unsigned int n;
	struct specd_dest d[SPECD_MAX_DESTS];
};
const char *specd_verdict_name(enum specd_verdict v);
int specd_state_write(const char *path, const struct specd_state *s);
/* 0 ok, -1 errno (ENOENT: no file), -2 malformed (line in *bad_line) */
int specd_state_read(const char *path, struct specd_state *s, unsigned int *bad_line);

/* ---- nl.c: rtnetlink routes and sock_diag, through libmnl ---- */
struct specd_route {
	int found;
	unsigned char family, dst_len, scope, type, protocol, tos;
	uint32_t table;
	uint32_t flags;			/* rtm_flags */
	char cc[SPECD_CC_MAX];		/* RTAX_CC_ALGO, "" if none */
	uint32_t features;		/* RTAX_FEATURES */
	/* the attributes copied into our route, raw (RTA_* nla's) */
	unsigned char attrs[1024];
	size_t attrs_len;
	/* RTA_METRICS payload without CC_ALGO and FEATURES */
	unsigned char metrics[256];
	size_t metrics_len;
};

int specd_nl_open(void);
void specd_nl_close(void);
/* the FIB entry @a matches (RTM_F_FIB_MATCH): 0, or -errno */
int specd_route_lookup(const struct specd_addr *a, struct specd_route *r);
/*
 * Install (create or replace) the host route for @a: @from's nexthop and
 * attributes, protocol @proto, congctl @cc, features ecn if @ecn. 0, or
 * -errno with the kernel's extack message (or strerror) in @err.
 */
int specd_route_install(const struct specd_addr *a, const struct specd_route *from,
			unsigned int proto, const char *cc, int ecn,
			char *err, size_t errlen);
/* delete the host route of @a in @table, only if of protocol @proto */
int specd_route_delete(const struct specd_addr *a, uint32_t table,
		       unsigned int proto, char *err, size_t errlen);
/* every route of protocol @proto: cb(addr, prefix len, table, route, arg) */
typedef void (*specd_route_cb)(const struct specd_addr *a, unsigned int len,
			       const struct specd_route *r, void *arg);
int specd_route_dump(int family, unsigned int proto, specd_route_cb cb, void *arg);
/*
 * The route changes the kernel announced since the last call (RTM_NEWROUTE
 * and RTM_DELROUTE of every protocol and table, IPv4 and IPv6): cb on
 * each, without blocking. 0, or -ENOBUFS when announcements were lost to
 * an overrun (the caller must then assume any route changed).
 */
int specd_route_changes(specd_route_cb cb, void *arg);
/* readable when there are route changes to read */
int specd_route_monitor_fd(void);

struct specd_sock {
	struct specd_addr dst;
	uint16_t dport;
	int has_info;			/* INET_DIAG_INFO came */
	uint8_t options;		/* tcpi_options */
	uint32_t data_segs_in;
	char cc[SPECD_CC_MAX];
};
typedef void (*specd_sock_cb)(const struct specd_sock *s, void *arg);
/* every TCP socket of @family past SYN: 0, or -errno */
int specd_diag_dump(int family, specd_sock_cb cb, void *arg);

/* ---- probe.c ---- */
#define SPECD_MAX_PARALLEL	256	/* probe_parallel: sockets in flight */

struct specd_probe_result {
	int capable;
	char evidence[SPECD_EVIDENCE_MAX];
};

/*
 * Probe destinations concurrently: up to c->probe_parallel connections in
 * flight, one poll() loop, each destination on its ports in order (the
 * first that answers decides). For each destination, in turn:
 *   begin(i, &addr, &route_asks, res, arg): 0 = probe @addr (@route_asks:
 *     a route of specd's with features ecn is in force for it), 1 = decided
 *     without a probe (@res filled), -1 = no more destinations;
 *   done(i, res, arg) when its verdict is known (also after begin said 1).
 * @i counts the destinations handed out by begin, from 0.
 * Returns 0, or -1 when interrupted by *@stop (probes in flight are closed
 * and their done() is not called; abort(i, arg) is, if given).
 */
struct specd_prober {
	int (*begin)(unsigned int i, struct specd_addr *a, int *route_asks,
		     struct specd_probe_result *res, void *arg);
	void (*done)(unsigned int i, const struct specd_probe_result *res, void *arg);
	void (*abort)(unsigned int i, void *arg);
	void *arg;
};
int specd_probe_run(const struct specd_conf *c, const struct specd_prober *p,
		    volatile sig_atomic_t *stop);
/* ask the kernel to load tcp_<cc> (setsockopt autoload): 0 if now known */
int specd_cc_autoload(const char *cc);

/* ---- log (log.c) ---- */
void specd_log_init(void);	/* the journal's prefixes if stderr is it */
__attribute__((format(printf, 2, 3)))
void specd_log(int prio, const char *fmt, ...);

#endif /* SPECD_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * specd: the specnet congestion manager. The model is in specd.h.
 *
 *   specd [-c FILE] [-n] [-d] [-k]
 *
 * Every probe_interval (one tick):
 *   1. passive evidence: sock_diag dump of TCP sockets to managed
 *      destinations (a socket inside a managed prefix adds its destination);
 *   2. destinations without a verdict, or whose verdict expired, are probed;
 *   3. each destination's host route is made to say what its verdict
 *      implies, copying the route it uses now; only specd's own routes
 *      (route_protocol) are ever replaced or deleted;
 *   4. the state file is written.
 * A congctl the kernel does not know ("Unknown tcp congestion algorithm"):
 * specd asks the kernel to load tcp_<name> once, retries, and otherwise
 * installs the legacy CC and says why; it tries again after verdict_ttl.
 *
 * Between ticks, the kernel's route announcements wake specd: a change to a
 * route of another protocol whose prefix holds a destination with a route
 * of ours (same table) re-derives that route at once.
 *
 * Signals: SIGHUP reloads the config (a bad one is refused, the running one
 * kept); SIGTERM/SIGINT withdraw specd's routes (keep_routes = yes, or -k,
 * keeps them) and exit. A restart adopts the routes of route_protocol that
 * it finds and the unexpired verdicts of the state file, so it does not
 * flap them; a route of that protocol for a destination no longer managed
 * is withdrawn.
 */
#define _GNU_SOURCE		/* ppoll() */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <linux/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include <libmnl/libmnl.h>

#include "specd.h"

static volatile sig_atomic_t got_term, got_hup;
static struct specd_conf conf;
static struct specd_state st;		/* st.d[]: the managed destinations */

/* a congctl the kernel refused: tried to load once, until retry_at */
static struct {
	char name[SPECD_CC_MAX];
	int missing;
	time_t retry_at;
	char why[96];
} cc_state[2];

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		got_hup = 1;
	else
		got_term = 1;
}

static struct specd_dest *find_dest(const struct specd_addr *a)
{
	unsigned int i;

	for (i = 0; i < st.n; i++)
		if (specd_addr_eq(&st.d[i].addr, a))
			return &st.d[i];
	return NULL;
}

static struct specd_dest *add_dest(const struct specd_addr *a)
{
	struct specd_dest *d = find_dest(a);
	char s[INET6_ADDRSTRLEN];

	if (d)
		return d;
	if (st.n == SPECD_MAX_DESTS) {
		specd_log(LOG_WARNING, "%s: not managed: already %d destinations",
			  specd_addr_str(a, s, sizeof(s)), SPECD_MAX_DESTS);
		return NULL;
	}
	d = &st.d[st.n++];
	memset(d, 0, sizeof(*d));
	d->addr = *a;
	snprintf(d->evidence, sizeof(d->evidence), "none yet");
	return d;
}

static const char *table_name(uint32_t t, char *buf, size_t len)
{
	if (t == RT_TABLE_MAIN)
		return "main";
	if (t == RT_TABLE_LOCAL)
		return "local";
	snprintf(buf, len, "%u", t);
	return buf;
}

/* "10.0.1.2/32 via 10.0.0.1 dev eth0 table main" */
static const char *route_desc(const struct specd_addr *a, const struct specd_route *r,
			      char *buf, size_t len)
{
	const struct nlattr *attr;
	char s[INET6_ADDRSTRLEN], gw[INET6_ADDRSTRLEN] = "", dev[IF_NAMESIZE] = "", t[16];
	size_t off = 0;

	while (off + sizeof(*attr) <= r->attrs_len) {
		attr = (const struct nlattr *)(r->attrs + off);
		if (attr->nla_len < sizeof(*attr))
			break;
		if (mnl_attr_get_type(attr) == RTA_GATEWAY) {
			struct specd_addr g = { .family = a->family };

			memcpy(g.a, mnl_attr_get_payload(attr), specd_addr_len(a));
			specd_addr_str(&g, gw, sizeof(gw));
		} else if (mnl_attr_get_type(attr) == RTA_OIF &&
			   mnl_attr_get_payload_len(attr) == 4) {
			if (!if_indextoname(mnl_attr_get_u32(attr), dev))
				snprintf(dev, sizeof(dev), "if%u", mnl_attr_get_u32(attr));
		}
		off += MNL_ALIGN(attr->nla_len);
	}
	snprintf(buf, len, "%s/%u%s%s%s%s table %s", specd_addr_str(a, s, sizeof(s)),
		 specd_addr_bits(a), gw[0] ? " via " : "", gw, dev[0] ? " dev " : "", dev,
		 table_name(r->table, t, sizeof(t)));
	return buf;
}

static void set_note(struct specd_dest *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void set_note(struct specd_dest *d, const char *fmt, ...)
{
	char note[SPECD_EVIDENCE_MAX], s[INET6_ADDRSTRLEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(note, sizeof(note), fmt, ap);
	va_end(ap);
	if (strcmp(note, d->note)) {
		specd_log(LOG_WARNING, "%s: %s", specd_addr_str(&d->addr, s, sizeof(s)), note);
		strcpy(d->note, note);
	}
}

/* ---- evidence ---- */

static void set_verdict(struct specd_dest *d, int capable, const char *evidence,
			time_t now, int quiet_refresh)
{
	enum specd_verdict v = capable ? SPECD_CAPABLE : SPECD_INCAPABLE;
	char s[INET6_ADDRSTRLEN];
	int changed = v != d->verdict;

	d->since = now;
	d->expires = now + (time_t)(conf.verdict_ttl_ms / 1000);
	if (!changed && quiet_refresh)
		return;
	snprintf(d->evidence, sizeof(d->evidence), "%s", evidence);
	d->verdict = v;
	specd_log(LOG_INFO, "%s: verdict %s%s: %s", specd_addr_str(&d->addr, s, sizeof(s)),
		  specd_verdict_name(v), changed ? "" : " (again)", evidence);
}

/* @name is @cc, or @cc's own fallback ops "<cc>-..." */
static int cc_is(const char *name, const char *cc)
{
	size_t n = strlen(cc);

	return n && !strncmp(name, cc, n) && (name[n] == '\0' || name[n] == '-');
}

struct passive_arg {
	int tcp_ecn;
};

static void passive_cb(const struct specd_sock *s, void *arg)
{
	struct passive_arg *p = arg;
	struct specd_dest *d;
	int requested;

	if (!s->has_info || !specd_managed(&conf, &s->dst))
		return;
	d = add_dest(&s->dst);
	if (!d)
		return;
	/*
	 * Did this socket ask for ECN? Yes if the host asks on every
	 * connection, or if it runs the CC of our ECN route (it was opened
	 * under that route, whose "features ecn" asks), or that CC's fallback
	 * for connections without ECN ("spec-reno", "cpecn-base"), which
	 * only a connection that asked and was refused gets.
	 */
	requested = p->tcp_ecn == 1 || (d->route && d->ecn && cc_is(s->cc, d->cc));
	if (s->options & TCPI_OPT_ECN) {
		if (s->options & TCPI_OPT_ECN_SEEN) {
			d->pos++;
		} else if (s->data_segs_in) {
			d->neg++;
			snprintf(d->neg_why, sizeof(d->neg_why),
				 "passive: a connection to port %u negotiated ECN, but the peer's "
				 "%u data segments came without ECT", s->dport, s->data_segs_in);
		}
	} else if (requested) {
		d->neg++;
		snprintf(d->neg_why, sizeof(d->neg_why),
			 "passive: a connection to port %u asked for ECN, the peer did not "
			 "accept it", s->dport);
	}
}

static void passive(time_t now)
{
	struct passive_arg p = { .tcp_ecn = specd_tcp_ecn() };
	char why[SPECD_EVIDENCE_MAX];
	unsigned int i;
	int rc;

	for (i = 0; i < st.n; i++) {
		st.d[i].pos = st.d[i].neg = 0;
		st.d[i].neg_why[0] = '\0';
	}
	rc = specd_diag_dump(AF_INET, passive_cb, &p);
	if (!rc)
		rc = specd_diag_dump(AF_INET6, passive_cb, &p);
	if (rc) {
		specd_log(LOG_WARNING, "sock_diag dump: %s (passive evidence skipped)",
			  strerror(-rc));
		return;
	}
	for (i = 0; i < st.n; i++) {
		struct specd_dest *d = &st.d[i];

		if (d->neg) {
			/* doubt: back to legacy now, not at expiry */
			set_verdict(d, 0, d->neg_why, now, 0);
		} else if (d->pos) {
			snprintf(why, sizeof(why), "passive: %u connection%s with ECN "
				 "negotiated and ECT seen from the peer", d->pos,
				 d->pos > 1 ? "s" : "");
			set_verdict(d, 1, why, now, 1);
		}
	}
}

/*
 * Probing. Under a route of ours its congctl replaces the probe socket's
 * at connect, so a legacy route (no features ecn) would keep the probe
 * from asking for ECN, and a destination judged incapable once could never
 * be found capable again: for the probe, that route asks for ECN (same
 * congctl plus features ecn; RFC 3168 negotiation makes that harmless for
 * connections opened meanwhile), and gets its old form back after.
 */
struct probe_round {
	time_t now;				/* what is due is judged at this time */
	long long stop_ms;			/* no new probe from then on */
	unsigned int started;			/* probes begun this round */
	unsigned int at;			/* next st.d index to look at */
	unsigned int map[SPECD_MAX_DESTS];	/* probe number -> st.d index */
	unsigned char flipped[SPECD_MAX_DESTS];	/* by st.d index */
};
static struct probe_round round_;

static void apply(struct specd_dest *d, time_t now);

/* our route for @d asks for ECN again only for the probe: back to the old form */
static void unflip(unsigned int di)
{
	struct specd_dest *d = &st.d[di];
	char err[160], s[INET6_ADDRSTRLEN];
	struct specd_route r;

	if (!round_.flipped[di])
		return;
	round_.flipped[di] = 0;
	if (specd_route_lookup(&d->addr, &r) || r.protocol != conf.route_protocol ||
	    r.dst_len != specd_addr_bits(&d->addr) || !r.cc[0])
		return;		/* gone or replaced meanwhile: nothing of ours to restore */
	if (specd_route_install(&d->addr, &r, conf.route_protocol, r.cc, 0, err, sizeof(err)))
		specd_log(LOG_ERR, "%s: restoring congctl %s after the probe: %s",
			  specd_addr_str(&d->addr, s, sizeof(s)), r.cc, err);
}

/* get @d ready to be probed: 0 probe it, 1 decided here (@res) */
static int probe_prepare(unsigned int di, int *route_asks, struct specd_probe_result *res)
{
	struct specd_dest *d = &st.d[di];
	struct specd_route r;
	char err[160];
	int ours;

	*route_asks = 0;
	ours = !specd_route_lookup(&d->addr, &r) && r.protocol == conf.route_protocol &&
	       r.dst_len == specd_addr_bits(&d->addr) && r.cc[0];
	if (!ours)
		return 0;
	*route_asks = 1;
	if ((r.features & RTAX_FEATURE_ECN) || specd_tcp_ecn() == 1)
		return 0;
	if (!conf.dry_run &&
	    !specd_route_install(&d->addr, &r, conf.route_protocol, r.cc, 1, err, sizeof(err))) {
		round_.flipped[di] = 1;
		return 0;
	}
	snprintf(res->evidence, sizeof(res->evidence), "probe cannot request ECN: the "
		 "route's congctl %s does not ask for it%s", r.cc,
		 conf.dry_run ? " (dry run: route not changed)" : "");
	res->capable = 0;
	return 1;
}

static int probe_begin(unsigned int i, struct specd_addr *a, int *route_asks,
		       struct specd_probe_result *res, void *arg)
{
	struct probe_round *pr = arg;

	/* Bounded traffic whatever the number of destinations: at most
	 * probe_max destinations a tick (a destination at most once per
	 * verdict_ttl), none started after a tick's length; the rest are
	 * due at the next tick, in order.
	 */
	if (pr->started >= conf.probe_max || specd_now_ms() >= pr->stop_ms)
		return -1;
	for (; pr->at < st.n; pr->at++) {
		struct specd_dest *d = &st.d[pr->at];

		if (d->verdict != SPECD_UNKNOWN && pr->now < d->expires)
			continue;
		pr->started++;
		pr->map[i] = pr->at++;
		*a = d->addr;
		return probe_prepare(pr->map[i], route_asks, res);
	}
	return -1;
}

/* a verdict: the route follows it at once, not at the end of the round */
static void probe_done(unsigned int i, const struct specd_probe_result *res, void *arg)
{
	struct probe_round *pr = arg;
	unsigned int di = pr->map[i];

	unflip(di);
	set_verdict(&st.d[di], res->capable, res->evidence, time(NULL), 0);
	apply(&st.d[di], time(NULL));
}

static void probe_abort(unsigned int i, void *arg)
{
	struct probe_round *pr = arg;

	unflip(pr->map[i]);
}

static void probe_due(time_t now)
{
	static const struct specd_prober prober = {
		.begin = probe_begin,
		.done = probe_done,
		.abort = probe_abort,
		.arg = &round_,
	};

	memset(&round_, 0, sizeof(round_));
	round_.now = now;
	round_.stop_ms = specd_now_ms() + conf.probe_interval_ms;
	specd_probe_run(&conf, &prober, &got_term);
}

/* ---- routes ---- */

static int cc_slot(const char *cc)
{
	return !strcmp(cc, conf.speculative_cc) ? 0 : 1;
}

static int cc_unusable(const char *cc, time_t now)
{
	int i = cc_slot(cc);

	if (strcmp(cc_state[i].name, cc) || !cc_state[i].missing)
		return 0;
	if (now >= cc_state[i].retry_at) {
		cc_state[i].missing = 0;	/* maybe loaded since: try again */
		return 0;
	}
	return 1;
}

static int unknown_cc(const char *err)
{
	return strstr(err, "Unknown tcp congestion") != NULL;
}

/* install with @cc; an unknown cc: load it once and retry. 0 or -errno */
static int install(struct specd_dest *d, const struct specd_route *from, const char *cc,
		   int ecn, char *err, size_t errlen, time_t now)
{
	int rc, i, lrc;

	rc = specd_route_install(&d->addr, from, conf.route_protocol, cc, ecn, err, errlen);
	if (!rc || !unknown_cc(err))
		return rc;
	i = cc_slot(cc);
	lrc = specd_cc_autoload(cc);
	specd_log(LOG_WARNING, "congctl %s: the kernel does not know it; asked it to load "
		  "tcp_%s: %s", cc, cc, lrc ? strerror(-lrc) : "loaded");
	if (!lrc)
		rc = specd_route_install(&d->addr, from, conf.route_protocol, cc, ecn,
					 err, errlen);
	if (rc) {
		snprintf(cc_state[i].name, sizeof(cc_state[i].name), "%s", cc);
		snprintf(cc_state[i].why, sizeof(cc_state[i].why), "%s", err);
		cc_state[i].missing = 1;
		cc_state[i].retry_at = now + (time_t)(conf.verdict_ttl_ms / 1000);
	}
	return rc;
}

/* our route for @d, in @r's table, says congctl @cc (+ ecn) */
static void in_force(struct specd_dest *d, const struct specd_route *r, const char *cc,
		     int ecn)
{
	d->route = 1;
	d->table = r->table;
	snprintf(d->cc, sizeof(d->cc), "%s", cc);
	d->ecn = ecn;
	d->note[0] = '\0';
}

static int withdraw(struct specd_dest *d, const char *why);

static void apply(struct specd_dest *d, time_t now)
{
	char s[INET6_ADDRSTRLEN], desc[160], err[160];
	const char *cc = conf.legacy_cc;
	struct specd_route r;
	int ecn = 0, rc;

	if (d->verdict == SPECD_CAPABLE) {
		cc = conf.speculative_cc;
		ecn = 1;
	}
	if (ecn && cc_unusable(cc, now)) {
		cc = conf.legacy_cc;
		ecn = 0;
	}
	if (d->refollow) {
		/* take ours away, so that the lookup below sees the route the
		 * destination would use without it (ours shadows it, and the
		 * kernel has no lookup that skips one); a connection opened in
		 * the moment between gets that route's congctl
		 */
		d->refollow = 0;
		withdraw(d, "a route it follows changed: re-deriving it");
	}
	specd_addr_str(&d->addr, s, sizeof(s));
	rc = specd_route_lookup(&d->addr, &r);
	if (rc) {
		d->route = 0;
		set_note(d, "no route to %s: %s", s, strerror(-rc));
		return;
	}
	if (r.protocol != conf.route_protocol && r.dst_len == specd_addr_bits(&d->addr)) {
		d->route = 0;
		set_note(d, "route %s/%u is of protocol %u, not installed by specd: left alone",
			 s, r.dst_len, r.protocol);
		return;
	}
	if (r.type != RTN_UNICAST) {
		d->route = 0;
		set_note(d, "route to %s is of type %u, not unicast: left alone", s, r.type);
		return;
	}
	if (r.protocol == conf.route_protocol && !strcmp(r.cc, cc) &&
	    !!(r.features & RTAX_FEATURE_ECN) == ecn) {
		in_force(d, &r, cc, ecn);	/* already (adopted, or unchanged) */
		return;
	}
	route_desc(&d->addr, &r, desc, sizeof(desc));
	if (conf.dry_run) {
		set_note(d, "dry run: would set congctl %s%s on %s", cc,
			 ecn ? " features ecn" : "", desc);
		return;
	}
	rc = install(d, &r, cc, ecn, err, sizeof(err), now);
	if (rc && ecn) {
		specd_log(LOG_WARNING, "%s: congctl %s refused (%s): legacy %s instead", s, cc,
			  err, conf.legacy_cc);
		cc = conf.legacy_cc;
		ecn = 0;
		rc = install(d, &r, cc, ecn, err, sizeof(err), now);
	}
	if (rc) {
		set_note(d, "could not install congctl %s on %s: %s", cc, desc, err);
		return;
	}
	in_force(d, &r, cc, ecn);
	specd_log(LOG_INFO, "%s: %s -> congctl %s%s on %s (%s)", s,
		  specd_verdict_name(d->verdict), cc, ecn ? " features ecn" : "", desc,
		  r.protocol == conf.route_protocol ? "replaced" : "installed");
}

static int withdraw(struct specd_dest *d, const char *why)
{
	char s[INET6_ADDRSTRLEN], err[160];
	int rc;

	if (!d->route)
		return 0;
	specd_addr_str(&d->addr, s, sizeof(s));
	if (conf.dry_run) {
		specd_log(LOG_INFO, "%s: dry run: would withdraw its route (%s)", s, why);
		return 0;
	}
	rc = specd_route_delete(&d->addr, d->table, conf.route_protocol, err, sizeof(err));
	if (rc && rc != -ESRCH && rc != -ENOENT) {
		specd_log(LOG_ERR, "%s: withdrawing its route: %s", s, err);
		return rc;
	}
	specd_log(LOG_INFO, "%s: withdrew route %s/%u congctl %s (%s)", s, s,
		  specd_addr_bits(&d->addr), d->cc, why);
	d->route = 0;
	return 0;
}

/* ---- start, reload, stop ---- */

struct adopt_arg {
	unsigned int adopted, stale;
};

static void adopt_cb(const struct specd_addr *a, unsigned int len,
		     const struct specd_route *r, void *arg)
{
	struct adopt_arg *ad = arg;
	struct specd_dest *d, tmp;
	char s[INET6_ADDRSTRLEN];

	if (len == specd_addr_bits(a) && specd_managed(&conf, a) && (d = add_dest(a))) {
		d->route = 1;
		d->table = r->table;
		snprintf(d->cc, sizeof(d->cc), "%s", r->cc);
		d->ecn = !!(r->features & RTAX_FEATURE_ECN);
		ad->adopted++;
		return;
	}
	/* ours, from an earlier run, for something no longer managed */
	memset(&tmp, 0, sizeof(tmp));
	tmp.addr = *a;
	tmp.route = 1;
	tmp.table = r->table;
	snprintf(tmp.cc, sizeof(tmp.cc), "%s", r->cc);
	if (len != specd_addr_bits(a)) {
		specd_log(LOG_WARNING, "route %s/%u has specd's protocol but is not a host "
			  "route: left alone", specd_addr_str(a, s, sizeof(s)), len);
		return;
	}
	if (!withdraw(&tmp, "not managed any more"))
		ad->stale++;
}

static void state_restore(void)
{
	static struct specd_state old;
	unsigned int i, bad = 0, restored = 0;
	time_t now = time(NULL);
	int rc;

	rc = specd_state_read(conf.state_file, &old, &bad);
	if (rc == -2)
		specd_log(LOG_WARNING, "%s:%u: malformed state file: starting afresh",
			  conf.state_file, bad);
	if (rc)
		return;
	for (i = 0; i < old.n; i++) {
		struct specd_dest *d;

		if (!specd_managed(&conf, &old.d[i].addr) || !(d = add_dest(&old.d[i].addr)))
			continue;
		*d = old.d[i];
		d->route = 0;		/* the kernel says, in adopt() */
		d->note[0] = '\0';
		if (d->verdict != SPECD_UNKNOWN && now < d->expires)
			restored++;
	}
	specd_log(LOG_INFO, "state %s: %u destinations, %u verdicts still valid",
		  conf.state_file, old.n, restored);
}

static void adopt(void)
{
	struct adopt_arg ad = { 0, 0 };

	specd_route_dump(AF_INET, conf.route_protocol, adopt_cb, &ad);
	specd_route_dump(AF_INET6, conf.route_protocol, adopt_cb, &ad);
	if (ad.adopted || ad.stale)
		specd_log(LOG_INFO, "routes of protocol %u: %u adopted, %u withdrawn",
			  conf.route_protocol, ad.adopted, ad.stale);
}

static void add_host_entries(void)
{
	unsigned int i;

	for (i = 0; i < conf.n_manage; i++)
		if (conf.manage[i].len == specd_addr_bits(&conf.manage[i].addr))
			add_dest(&conf.manage[i].addr);
}

static void forget_unmanaged(void)
{
	unsigned int i = 0;

	while (i < st.n) {
		if (specd_managed(&conf, &st.d[i].addr)) {
			i++;
			continue;
		}
		withdraw(&st.d[i], "not managed any more");
		st.d[i] = st.d[--st.n];
	}
}

static void reload(void)
{
	static struct specd_conf next;
	char err[512];

	if (specd_conf_load(conf.path, &next, err, sizeof(err))) {
		specd_log(LOG_ERR, "reload refused, running config kept: %s", err);
		return;
	}
	if (next.route_protocol != conf.route_protocol) {
		specd_log(LOG_ERR, "reload refused, running config kept: route_protocol "
			  "changes need a restart (%u -> %u)", conf.route_protocol,
			  next.route_protocol);
		return;
	}
	conf = next;
	memset(cc_state, 0, sizeof(cc_state));
	forget_unmanaged();
	add_host_entries();
	specd_log(LOG_INFO, "reloaded %s: %u managed entries, speculative %s, legacy %s",
		  conf.path, conf.n_manage, conf.speculative_cc, conf.legacy_cc);
}

static void save(void)
{
	int rc;

	st.pid = (long)getpid();
	st.written = time(NULL);
	snprintf(st.conf, sizeof(st.conf), "%s", conf.path);
	rc = specd_state_write(conf.state_file, &st);
	if (rc)
		specd_log(LOG_ERR, "writing %s: %s", conf.state_file, strerror(-rc));
}

/* a route change the kernel announced: mark the destinations it may move */
static void changed_cb(const struct specd_addr *a, unsigned int len,
		       const struct specd_route *r, void *arg)
{
	const struct specd_prefix p = { .addr = *a, .len = len };
	unsigned int i, *n = arg;

	if (r->protocol == conf.route_protocol || (r->flags & RTM_F_CLONED))
		return;
	for (i = 0; i < st.n; i++) {
		struct specd_dest *d = &st.d[i];

		if (d->route && !d->refollow && d->table == r->table &&
		    specd_prefix_has(&p, &d->addr)) {
			d->refollow = 1;
			(*n)++;
		}
	}
}

/* read the route announcements; how many destinations they may move */
static unsigned int route_changes(void)
{
	unsigned int i, n = 0;

	if (specd_route_changes(changed_cb, &n) == -ENOBUFS) {
		specd_log(LOG_WARNING, "route announcements lost (netlink overrun): "
			  "re-deriving every route");
		for (i = 0; i < st.n; i++) {
			n += st.d[i].route && !st.d[i].refollow;
			st.d[i].refollow = st.d[i].route;
		}
	}
	return n;
}

static void tick(void)
{
	time_t now = time(NULL);
	unsigned int i;

	route_changes();
	passive(now);
	probe_due(now);
	now = time(NULL);
	for (i = 0; i < st.n && !got_term; i++)
		apply(&st.d[i], now);
	save();
}

/* between ticks: the destinations a route change may move, at once */
static void reroute(void)
{
	time_t now = time(NULL);
	unsigned int i;

	if (!route_changes())
		return;
	for (i = 0; i < st.n && !got_term; i++)
		if (st.d[i].refollow)
			apply(&st.d[i], now);
	save();
}

/*
 * Sleep until @deadline_ms or a signal. The signals stay blocked between
 * the flag check and the wait, and ppoll() unblocks them atomically, so
 * one that arrives just after the check still cuts the wait short (with
 * nanosleep() it was only seen after the whole interval).
 */
static void sleep_until(long long deadline_ms)
{
	struct pollfd pfd = { .fd = specd_route_monitor_fd(), .events = POLLIN };
	sigset_t block, old;
	struct timespec ts;

	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old);
	while (!got_term && !got_hup) {
		long long left = deadline_ms - specd_now_ms();

		if (left <= 0)
			break;
		ts.tv_sec = left / 1000;
		ts.tv_nsec = (left % 1000) * 1000000;
		if (ppoll(&pfd, 1, &ts, &old) > 0 && (pfd.revents & POLLIN))
			reroute();
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: specd [-c FILE] [-n] [-d] [-k] [-h]\n"
		"  -c FILE  config file (default %s)\n"
		"  -n       check the config and exit (0 ok, 2 with file[:line] and reason)\n"
		"  -d       dry run: decide and log, change no route\n"
		"  -k       keep the routes when stopped (keep_routes = yes)\n"
		"  -h       this help\n"
		"Signals: HUP reloads the config; TERM, INT withdraw the routes\n"
		"(unless -k or keep_routes = yes) and exit.\n",
		SPECD_DEFAULT_CONF);
}

int main(int argc, char **argv)
{
	const char *path = SPECD_DEFAULT_CONF;
	int check = 0, dry = 0, keep = 0, opt, rc;
	struct sigaction sa;
	char err[512], dir[256];

	while ((opt = getopt(argc, argv, "c:ndkh")) != -1) {
		switch (opt) {
		case 'c': path = optarg; break;
		case 'n': check = 1; break;
		case 'd': dry = 1; break;
		case 'k': keep = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return SPECD_EXIT_CONFIG;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "specd: unexpected argument '%s'\n", argv[optind]);
		return SPECD_EXIT_CONFIG;
	}
	if (specd_conf_load(path, &conf, err, sizeof(err))) {
		fprintf(stderr, "specd: %s\n", err);
		return SPECD_EXIT_CONFIG;
	}
	conf.dry_run |= dry;
	conf.keep_routes |= keep;
	if (check) {
		printf("specd: %s: OK (%u managed entries, speculative %s, legacy %s)\n",
		       path, conf.n_manage, conf.speculative_cc, conf.legacy_cc);
		return 0;
	}
	specd_log_init();

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: probes and sleeps wake up */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	rc = specd_nl_open();
	if (rc) {
		specd_log(LOG_ERR, "netlink: %s", strerror(-rc));
		return 1;
	}
	snprintf(dir, sizeof(dir), "%s", conf.state_file);
	mkdir(dirname(dir), 0755);	/* systemd's StateDirectory= made it already */

	state_restore();
	add_host_entries();
	adopt();
	specd_log(LOG_INFO, "started (pid %ld, %s): %u managed entries, speculative %s, "
		  "legacy %s, probe every %ums, verdicts last %ums%s%s", (long)getpid(),
		  conf.path, conf.n_manage, conf.speculative_cc, conf.legacy_cc,
		  conf.probe_interval_ms, conf.verdict_ttl_ms,
		  conf.dry_run ? ", dry run" : "", conf.keep_routes ? ", keep routes" : "");

	while (!got_term) {
		long long next = specd_now_ms() + conf.probe_interval_ms;

		tick();
		sleep_until(next);
		if (got_hup) {
			got_hup = 0;
			reload();
			conf.dry_run |= dry;
			conf.keep_routes |= keep;
		}
	}

	if (conf.keep_routes) {
		unsigned int i, n = 0;

		for (i = 0; i < st.n; i++)
			n += st.d[i].route;
		specd_log(LOG_INFO, "stopping: kept %u routes (keep_routes)", n);
	} else {
		unsigned int i;

		for (i = 0; i < st.n; i++)
			withdraw(&st.d[i], "specd stopping");
		specd_log(LOG_INFO, "stopping: routes withdrawn");
	}
	save();
	specd_nl_close();
	return 0;
}

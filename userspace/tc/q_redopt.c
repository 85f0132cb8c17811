// SPDX-License-Identifier: GPL-2.0
/*
 * q_redopt.c	tc plugin for the redopt qdisc (sch_redopt): an ECN-marking
 *		RED whose buffer size and max threshold come from the
 *		analytical model of docs/algorithms.md (the RED buffer model).
 *
 * Loaded by tc as $TC_LIB_DIR/q_redopt.so (Debian: /usr/lib/x86_64-linux-
 * gnu/tc/), it exports only redopt_qdisc_util. Built against the Debian
 * source of the installed iproute2 (scripts/iproute2-src.sh); every tc
 * symbol it uses is exported by /sbin/tc (the Makefile checks that).
 *
 * Command line -> netlink (kernel/include/uapi/specnet/redopt.h):
 *
 *   bandwidth RATE       TCA_REDOPT_BANDWIDTH  C, u64 bit/s (RATE as tc's
 *                                              rates, or a % of the link)
 *   rtt TIME             TCA_REDOPT_RTT        r, u32 us
 *   flows N | auto       TCA_REDOPT_FLOWS      m, 0 = auto (implies adaptive)
 *   ssthresh S[,S...]    TCA_REDOPT_SSTHRESH   SSth_i, u32[] packets: one
 *                                              value, or m values
 *   window W             TCA_REDOPT_WINDOW     W_i, packets
 *   min N                TCA_REDOPT_MIN        min_th, packets
 *   probability P        TCA_REDOPT_MAX_P      max_p = P * 2^32, 0 < P <= 1
 *                                              (1 is 0xffffffff)
 *   ewma w               TCA_REDOPT_WLOG       the Wlog whose 2^-Wlog is
 *                                              nearest w: 0.002 -> 9
 *   avpkt BYTES          TCA_REDOPT_AVPKT      s, bytes
 *   loss-rate EVENTS     TCA_REDOPT_LOSS_RATE  lambda, loss events/s per
 *                                              flow, u32 1/1000 event/s:
 *                                              0.001 to 4294967.295, exact
 *                                              decimal rounded half up, as
 *                                              specctl model red --loss-rate
 *   [no]ecn [no]adaptive TCA_REDOPT_FLAGS      TC_REDOPT_ECN, _ADAPTIVE,
 *   [no]harddrop                               _HARDDROP
 *
 * add and replace (NLM_F_CREATE) need bandwidth, rtt, ssthresh, min and
 * probability; they send every input (avpkt 1000, Wlog 9, window 0 =
 * derive and loss-rate 0 = none by default, flows by default the number
 * of ssthresh values if more than one, else auto) and the complete flag
 * word, so that a replace leaves nothing of the old configuration. change
 * sends only what the command gives, any subset, because the qdisc keeps
 * its old value for an absent attribute. parse_qopt() tells the two apart
 * by the request's nlmsg_flags (tc_qdisc.c: add = CREATE|EXCL, replace =
 * CREATE|REPLACE, change = 0, link = REPLACE). The flag word is one u32,
 * so on change naming any of [no]ecn/[no]adaptive/[no]harddrop sends the whole word: a
 * flag not named is cleared. A loss rate, once set, is cleared by a
 * replace without loss-rate. del sends no options.
 *
 * No idle damping table is sent (unlike q_red's Stab/Scell_log): the
 * qdisc decays the average over idle time exactly, (1 - W)^m with m =
 * idle / (8 s / C) (sch_redopt.c, red_idle.h), from the bandwidth and
 * avpkt it already has. Nothing is derived here, so a change of
 * bandwidth, ewma or avpkt sends just that attribute.
 *
 * The dump prints the inputs (loss-rate only when set), then what the
 * qdisc computed: buffer (the model's L), limit (in force), qth_min,
 * qth_max, qavg_max (Qmax) and, when a loss rate is set, m_bound (the
 * bound on the number of flows, floor(alpha)). -d adds Wlog (and "m_bound
 * n/a" without a loss rate); -s the xstats (with -d also the limit and
 * thresholds in force). -j gives the same keys (bandwidth in bytes/s as
 * tc's rates, rtt in us, loss_rate in events/s, m_bound null when n/a).
 *
 * Parameter checks come from <specnet/red_model.h>, the header sch_redopt
 * computes with: each value is range-checked while parsing (add and
 * change) against its REDOPT_MAX_* / _MIN_* bounds, and add/replace then
 * run redopt_check_params() on the complete set -- the kernel's own check,
 * which runs the model, so e.g. a max_th that overflows red.h's
 * fls(qth_max) + Wlog < 32 is refused here with the kernel's reason. A
 * change can only be checked field by field: the kernel checks the merged
 * set. With flows auto the model is checked with m = 1 (the qdisc checks
 * again whenever its estimate changes). ewma and probability go through
 * the header's redopt_wlog_from_ppm() (nearest 2^-Wlog) and
 * redopt_max_p_from_ppm(), so they are taken to 1e-6.
 *
 * Every error exits tc with status 1 before anything is sent: the message
 * ("Illegal \"x\"", "What is \"x\"?", a duplicate, a missing parameter),
 * then the usage. iproute2's NEXT_ARG()/invarg()/duparg() are not used
 * because they exit(-1), i.e. status 255.
 */

#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>

#include "utils.h"
#include "tc_util.h"
#include "tc_common.h"

#include <specnet/redopt.h>
#include <specnet/red_model.h>

#define REDOPT_EXPORT		__attribute__((visibility("default")))

#define REDOPT_MAXLEN		TCA_BUF_MAX	/* tc_qdisc.c's req.buf */

#define REDOPT_BIT(attr)	(1U << (attr))

/* The command line, in the attributes' units. */
struct redopt_opt {
	__u64	bandwidth;	/* C, bit/s */
	__u32	rtt;		/* r, us */
	__u32	flows;		/* m, 0 = auto */
	__u32	window;		/* W_i, packets */
	__u32	min;		/* min_th, packets */
	__u32	max_p;		/* max_p, 2^-32 */
	__u32	avpkt;		/* s, bytes */
	__u32	flags;		/* TC_REDOPT_* */
	__u32	loss_rate;	/* lambda, 1/1000 event/s per flow, 0 = none */
	__u8	wlog;		/* w = 2^-wlog */
	__u32	given;		/* REDOPT_BIT(TCA_REDOPT_*) of each given */
	__u32	nssth;		/* values in ssth[] */
	__u32	ssth[TC_REDOPT_MAX_FLOWS];	/* SSth_i, packets */
};

static void explain(void)
{
	fprintf(stderr,
		"Usage: ... redopt bandwidth RATE rtt TIME ssthresh PACKETS[,PACKETS...]\n"
		"		min PACKETS probability PROBABILITY\n"
		"		[flows { NUMBER | auto }] [window PACKETS] [ewma WEIGHT]\n"
		"		[avpkt BYTES] [loss-rate EVENTS]\n"
		"		[ecn | noecn] [harddrop | noharddrop]\n"
		"		[adaptive | noadaptive]\n"
		"bandwidth, rtt, ssthresh, min and probability are required on\n"
		"add and replace; change sends only what is given, any subset.\n"
		"loss-rate: loss events per second per flow, 0.001 to 4294967.295,\n"
		"for the bound on the number of flows (m_bound in the dump).\n"
		"Defaults: avpkt 1000, ewma 0.002 (2^-9), flows auto (or the\n"
		"number of ssthresh values), window (bandwidth*rtt/(8*avpkt)\n"
		"+ min)/flows with bandwidth in bit/s, no loss-rate.\n");
}

/* An error before anything is sent: message, usage, tc exits 1. */
static int redopt_illegal(const char *key, const char *why)
{
	if (why)
		fprintf(stderr, "Illegal \"%s\": %s\n", key, why);
	else
		fprintf(stderr, "Illegal \"%s\"\n", key);
	explain();
	return -1;
}

/* A string that starts as a non-negative number (no sign, nan, inf). */
static bool redopt_is_number(const char *arg)
{
	return isdigit((unsigned char)arg[0]) ||
	       (arg[0] == '.' && isdigit((unsigned char)arg[1]));
}

/* A real number, the whole string. */
static int redopt_get_double(double *val, const char *arg)
{
	char *end;

	if (!redopt_is_number(arg))
		return -1;
	errno = 0;
	*val = strtod(arg, &end);
	if (errno || *end || !isfinite(*val))
		return -1;
	return 0;
}

/*
 * get_rate64(), get_time() and get_size() convert their double to an
 * integer unchecked, undefined beyond the type: bound NUMBER<suffix> by
 * @max first. The suffix's unit is what the parser makes of "1000<suffix>"
 * / 1000 (keeps "bit" and "ns" exact; "1<suffix>" for sizes, whose "gb"
 * times 1000 would not fit). max in bytes/s, us or bytes. A unit is
 * letters only: "5e9e95" would make the probe "1e95", itself out of range.
 */
enum redopt_kind { REDOPT_RATE, REDOPT_TIME, REDOPT_SIZE };

static bool redopt_fits(const char *arg, enum redopt_kind kind, double max)
{
	unsigned int mult = kind == REDOPT_SIZE ? 1 : 1000;
	unsigned int u = 0;
	char buf[64];
	__u64 unit = 0;
	double num;
	char *end;
	int err;

	num = strtod(arg, &end);
	if (!isfinite(num) || num < 0 ||
	    snprintf(buf, sizeof(buf), "%u%s", mult, end) >= (int)sizeof(buf))
		return false;
	for (const char *c = end; *c; c++)
		if (!isalpha((unsigned char)*c))
			return false;
	switch (kind) {
	case REDOPT_RATE:
		err = get_rate64(&unit, buf);
		break;
	case REDOPT_TIME:
		err = get_time(&u, buf);
		unit = u;
		break;
	default:
		err = get_size(&u, buf);
		unit = u;
		break;
	}
	return !err && num * unit / mult <= max;
}

/* A count in [lo, hi], decimal. */
static int redopt_get_count(__u32 *val, const char *arg, __u32 lo, __u32 hi)
{
	if (!redopt_is_number(arg) || get_u32(val, arg, 10))
		return -1;
	return *val < lo || *val > hi ? -1 : 0;
}

/* RATE as tc's rates (get_rate64(), bytes/s) or N% of the link; bit/s. */
static int redopt_get_rate(__u64 *bps, const char *arg, const char *dev)
{
	__u64 rate;

	if (!redopt_is_number(arg))
		return -1;
	if (strchr(arg, '%')) {		/* at most 100% of the link */
		if (get_percent_rate64(&rate, arg, dev))
			return -1;
	} else if (!redopt_fits(arg, REDOPT_RATE,
				REDOPT_MAX_BANDWIDTH / 8.0) ||
		   get_rate64(&rate, arg)) {
		return -1;
	}
	if (!rate || rate > REDOPT_MAX_BANDWIDTH / 8)
		return -1;
	*bps = rate * 8;
	return 0;
}

/* "15" or "15,15,20": SSth_i in packets, at most TC_REDOPT_MAX_FLOWS. */
static int redopt_get_ssthresh(struct redopt_opt *o, const char *arg)
{
	const char *p = arg;
	__u32 v;

	o->nssth = 0;
	for (;;) {
		char *end;
		unsigned long l;

		if (!isdigit((unsigned char)*p))
			return -1;
		errno = 0;
		l = strtoul(p, &end, 10);
		if (errno || l < 1 || l > REDOPT_MAX_SSTHRESH)
			return -1;
		v = l;
		if (o->nssth >= TC_REDOPT_MAX_FLOWS)
			return -1;
		o->ssth[o->nssth++] = v;
		if (*end == '\0')
			return 0;
		if (*end != ',')
			return -1;
		p = end + 1;
	}
}

/*
 * loss-rate EVENTS -> 1/1000 event/s, as specctl model red --loss-rate:
 * "<digits>[.<digits>]", exact, rounded half up to 1/1000, 0.001 to
 * 4294967.295 (the u32 attribute; 0 is "none", not a value to give).
 */
static int redopt_get_loss_rate(__u32 *milli, const char *arg)
{
	__u64 ip = 0, fp = 0, v;
	unsigned int nf = 0;
	bool point = false, digits = false, up = false;
	const char *p;

	for (p = arg; *p; p++) {
		if (*p == '.' && !point) {
			point = true;
			continue;
		}
		if (!isdigit((unsigned char)*p))
			return -1;
		digits = true;
		if (!point) {
			ip = ip * 10 + (*p - '0');
			if (ip > UINT32_MAX / 1000 + 1)
				return -1;
		} else if (nf < 3) {
			fp = fp * 10 + (*p - '0');
			nf++;
		} else if (nf == 3) {
			up = *p >= '5';	/* the rest cannot change half up */
			nf++;
		}
	}
	if (!digits)
		return -1;
	for (; nf < 3; nf++)
		fp *= 10;
	v = ip * 1000 + fp + up;
	if (!v || v > UINT32_MAX)
		return -1;
	*milli = v;
	return 0;
}

/* ---- model glue: <specnet/red_model.h> ----------------------------------- */

/* A real in [0, 1] -> 1e-6 units, the header's tools' unit. */
static __u32 redopt_ppm(double v)
{
	return v > 0 && v <= 1 ? (__u32)llround(v * REDOPT_PPM) : 0;
}

/* EWMA weight w, 0 < w < 1 -> the Wlog whose 2^-Wlog is nearest: 0.002 -> 9 */
static int redopt_wlog(double w, __u8 *wlog)
{
	__u32 ppm = redopt_ppm(w);

	*wlog = ppm ? redopt_wlog_from_ppm(ppm) : 0;
	return *wlog ? 0 : -1;
}

/* max_p, 0 < p <= 1 -> 2^-32 units (1 is 0xffffffff) */
static int redopt_max_p(double p, __u32 *max_p)
{
	__u32 ppm = redopt_ppm(p);

	*max_p = ppm ? redopt_max_p_from_ppm(ppm) : 0;
	return *max_p ? 0 : -1;
}

/*
 * add/replace: the complete set (defaults filled in) through the kernel's
 * check. flows auto is checked with m = 1.
 */
static int redopt_check(const struct redopt_opt *o, const char **why)
{
	struct redopt_model_params p = {
		.bandwidth_bps	= o->bandwidth,
		.rtt_us		= o->rtt,
		.flows		= o->flows ? o->flows : 1,
		.ssthresh	= o->ssth,
		.n_ssthresh	= o->nssth,
		.window		= o->window,
		.min_th		= o->min,
		.max_p		= o->max_p,
		.wlog		= o->wlog,
		.avpkt		= o->avpkt,
		.loss_rate_milli = o->loss_rate,
	};

	if (o->flags & ~TC_REDOPT_FLAGS_ALL) {
		*why = "unknown flags";
		return -EINVAL;
	}
	return redopt_check_params(&p, why);
}

/* ---- parse ------------------------------------------------------------- */

/* Take the value of the keyword at *argv; refuse it given twice. */
#define REDOPT_NEXT_VALUE(attr) do {					\
	if (argc < 2)							\
		return redopt_illegal(*argv, "missing value");		\
	if (o.given & REDOPT_BIT(attr)) {				\
		fprintf(stderr, "Error: duplicate \"%s\": \"%s\" is the second value.\n", \
			argv[0], argv[1]);				\
		explain();						\
		return -1;						\
	}								\
	o.given |= REDOPT_BIT(attr);					\
	argc--;								\
	argv++;								\
} while (0)

static int redopt_parse_opt(struct qdisc_util *qu, int argc, char **argv,
			    struct nlmsghdr *n, const char *dev)
{
	static const struct {
		int attr;
		const char *name;
	} required[] = {
		{ TCA_REDOPT_BANDWIDTH,	"bandwidth" },
		{ TCA_REDOPT_RTT,	"rtt" },
		{ TCA_REDOPT_SSTHRESH,	"ssthresh" },
		{ TCA_REDOPT_MIN,	"min" },
		{ TCA_REDOPT_MAX_P,	"probability" },
	};
	struct redopt_opt o = {};
	bool creating, noadaptive = false;
	struct rtattr *tail;
	const char *why;
	unsigned int i;
	double d;

	(void)qu;

	while (argc > 0) {
		const char *key = *argv;

		if (strcmp(key, "bandwidth") == 0) {
			REDOPT_NEXT_VALUE(TCA_REDOPT_BANDWIDTH);
			if (redopt_get_rate(&o.bandwidth, *argv, dev))
				return redopt_illegal(key, "a rate up to 100gbit, e.g. 1.5mbit");
		} else if (strcmp(key, "rtt") == 0) {
			REDOPT_NEXT_VALUE(TCA_REDOPT_RTT);
			if (!redopt_is_number(*argv) ||
			    !redopt_fits(*argv, REDOPT_TIME,
					 REDOPT_MAX_RTT_US) ||
			    get_time(&o.rtt, *argv) || !o.rtt ||
			    o.rtt > REDOPT_MAX_RTT_US)
				return redopt_illegal(key, "a time from 1us to 10s, e.g. 59ms");
		} else if (strcmp(key, "flows") == 0) {
			REDOPT_NEXT_VALUE(TCA_REDOPT_FLOWS);
			if (strcmp(*argv, "auto") == 0) {
				o.flows = 0;
				o.flags |= TC_REDOPT_ADAPTIVE;
			} else if (redopt_get_count(&o.flows, *argv, 1,
						    TC_REDOPT_MAX_FLOWS)) {
				return redopt_illegal(key, "1 to 1024, or auto");
			}
		} else if (strcmp(key, "ssthresh") == 0) {
			REDOPT_NEXT_VALUE(TCA_REDOPT_SSTHRESH);
			if (redopt_get_ssthresh(&o, *argv))
				return redopt_illegal(key, "1 to 1000000 packets, one value or a comma list of up to 1024");
		} else if (strcmp(key, "window") == 0) {
			REDOPT_NEXT_VALUE(TCA_REDOPT_WINDOW);
			if (redopt_get_count(&o.window, *argv, 1,
					     REDOPT_MAX_WINDOW))
				return redopt_illegal(key, "1 to 10000000 packets");
		} else if (strcmp(key, "min") == 0) {
			REDOPT_NEXT_VALUE(TCA_REDOPT_MIN);
			if (redopt_get_count(&o.min, *argv, 1,
					     REDOPT_MAX_MIN_TH))
				return redopt_illegal(key, "1 to 1000000 packets");
		} else if (strcmp(key, "probability") == 0) {
			REDOPT_NEXT_VALUE(TCA_REDOPT_MAX_P);
			if (redopt_get_double(&d, *argv) ||
			    redopt_max_p(d, &o.max_p))
				return redopt_illegal(key, "0.000001 <= P <= 1");
		} else if (strcmp(key, "ewma") == 0) {
			REDOPT_NEXT_VALUE(TCA_REDOPT_WLOG);
			if (redopt_get_double(&d, *argv) ||
			    redopt_wlog(d, &o.wlog))
				return redopt_illegal(key, "a weight 0.000001 <= w < 1");
		} else if (strcmp(key, "avpkt") == 0) {
			REDOPT_NEXT_VALUE(TCA_REDOPT_AVPKT);
			if (!redopt_is_number(*argv) ||
			    !redopt_fits(*argv, REDOPT_SIZE,
					 REDOPT_MAX_AVPKT) ||
			    get_size(&o.avpkt, *argv) ||
			    o.avpkt < REDOPT_MIN_AVPKT ||
			    o.avpkt > REDOPT_MAX_AVPKT)
				return redopt_illegal(key, "64 to 65535 bytes");
		} else if (strcmp(key, "loss-rate") == 0) {
			REDOPT_NEXT_VALUE(TCA_REDOPT_LOSS_RATE);
			if (redopt_get_loss_rate(&o.loss_rate, *argv))
				return redopt_illegal(key, "loss events/s per flow, 0.001 to 4294967.295");
		} else if (strcmp(key, "ecn") == 0) {
			o.flags |= TC_REDOPT_ECN;
			o.given |= REDOPT_BIT(TCA_REDOPT_FLAGS);
		} else if (strcmp(key, "noecn") == 0) {
			o.flags &= ~TC_REDOPT_ECN;
			o.given |= REDOPT_BIT(TCA_REDOPT_FLAGS);
		} else if (strcmp(key, "harddrop") == 0) {
			o.flags |= TC_REDOPT_HARDDROP;
			o.given |= REDOPT_BIT(TCA_REDOPT_FLAGS);
		} else if (strcmp(key, "noharddrop") == 0) {
			o.flags &= ~TC_REDOPT_HARDDROP;
			o.given |= REDOPT_BIT(TCA_REDOPT_FLAGS);
		} else if (strcmp(key, "adaptive") == 0) {
			o.flags |= TC_REDOPT_ADAPTIVE;
			noadaptive = false;
			o.given |= REDOPT_BIT(TCA_REDOPT_FLAGS);
		} else if (strcmp(key, "noadaptive") == 0) {
			o.flags &= ~TC_REDOPT_ADAPTIVE;
			noadaptive = true;
			o.given |= REDOPT_BIT(TCA_REDOPT_FLAGS);
		} else if (strcmp(key, "help") == 0) {
			explain();
			return -1;
		} else {
			fprintf(stderr, "What is \"%s\"?\n", key);
			explain();
			return -1;
		}
		argc--;
		argv++;
	}

	/* del: the options are not sent; the syntax was checked above. */
	if (n->nlmsg_type == RTM_DELQDISC)
		return 0;

	if ((o.given & REDOPT_BIT(TCA_REDOPT_FLOWS)) && !o.flows) {
		if (noadaptive)
			return redopt_illegal("noadaptive", "flows auto is adaptive");
		o.flags |= TC_REDOPT_ADAPTIVE;
	}
	if (o.nssth > 1 && (o.given & REDOPT_BIT(TCA_REDOPT_FLOWS)) &&
	    o.nssth != o.flows)
		return redopt_illegal("ssthresh", o.flows ?
			"one value, or one per flow" :
			"a list needs \"flows N\", not auto");

	creating = n->nlmsg_flags & NLM_F_CREATE;
	if (creating) {
		int missing = 0;

		for (i = 0; i < ARRAY_SIZE(required); i++) {
			if (o.given & REDOPT_BIT(required[i].attr))
				continue;
			fprintf(stderr,
				"REDOPT: Required parameter \"%s\" is missing\n",
				required[i].name);
			missing++;
		}
		if (missing) {
			explain();
			return -1;
		}
		if (!(o.given & REDOPT_BIT(TCA_REDOPT_AVPKT)))
			o.avpkt = REDOPT_DEFAULT_AVPKT;
		if (!(o.given & REDOPT_BIT(TCA_REDOPT_WLOG)))
			o.wlog = REDOPT_DEFAULT_WLOG;
		if (!(o.given & REDOPT_BIT(TCA_REDOPT_FLOWS))) {
			o.flows = o.nssth > 1 ? o.nssth : 0;
			if (!o.flows) {
				if (noadaptive)
					return redopt_illegal("noadaptive",
						"without flows N, flows are auto (adaptive)");
				o.flags |= TC_REDOPT_ADAPTIVE;
			}
		}
		/* WINDOW and LOSS_RATE too: 0 = derive / none, so that a
		 * replace of a qdisc that had one resets it
		 */
		o.given |= REDOPT_BIT(TCA_REDOPT_AVPKT) |
			   REDOPT_BIT(TCA_REDOPT_WLOG) |
			   REDOPT_BIT(TCA_REDOPT_FLOWS) |
			   REDOPT_BIT(TCA_REDOPT_WINDOW) |
			   REDOPT_BIT(TCA_REDOPT_LOSS_RATE) |
			   REDOPT_BIT(TCA_REDOPT_FLAGS);
		if (redopt_check(&o, &why)) {
			fprintf(stderr, "REDOPT: invalid parameters: %s\n", why);
			explain();
			return -1;
		}
	}

	tail = addattr_nest(n, REDOPT_MAXLEN, TCA_OPTIONS | NLA_F_NESTED);
	if (!tail)
		return -1;
	if ((o.given & REDOPT_BIT(TCA_REDOPT_BANDWIDTH)) &&
	    addattr64(n, REDOPT_MAXLEN, TCA_REDOPT_BANDWIDTH, o.bandwidth))
		return -1;
	if ((o.given & REDOPT_BIT(TCA_REDOPT_RTT)) &&
	    addattr32(n, REDOPT_MAXLEN, TCA_REDOPT_RTT, o.rtt))
		return -1;
	if ((o.given & REDOPT_BIT(TCA_REDOPT_FLOWS)) &&
	    addattr32(n, REDOPT_MAXLEN, TCA_REDOPT_FLOWS, o.flows))
		return -1;
	if ((o.given & REDOPT_BIT(TCA_REDOPT_SSTHRESH)) &&
	    addattr_l(n, REDOPT_MAXLEN, TCA_REDOPT_SSTHRESH, o.ssth,
		      o.nssth * sizeof(o.ssth[0])))
		return -1;
	if ((o.given & REDOPT_BIT(TCA_REDOPT_WINDOW)) &&
	    addattr32(n, REDOPT_MAXLEN, TCA_REDOPT_WINDOW, o.window))
		return -1;
	if ((o.given & REDOPT_BIT(TCA_REDOPT_MIN)) &&
	    addattr32(n, REDOPT_MAXLEN, TCA_REDOPT_MIN, o.min))
		return -1;
	if ((o.given & REDOPT_BIT(TCA_REDOPT_MAX_P)) &&
	    addattr32(n, REDOPT_MAXLEN, TCA_REDOPT_MAX_P, o.max_p))
		return -1;
	if ((o.given & REDOPT_BIT(TCA_REDOPT_WLOG)) &&
	    addattr8(n, REDOPT_MAXLEN, TCA_REDOPT_WLOG, o.wlog))
		return -1;
	if ((o.given & REDOPT_BIT(TCA_REDOPT_AVPKT)) &&
	    addattr32(n, REDOPT_MAXLEN, TCA_REDOPT_AVPKT, o.avpkt))
		return -1;
	if ((o.given & REDOPT_BIT(TCA_REDOPT_LOSS_RATE)) &&
	    addattr32(n, REDOPT_MAXLEN, TCA_REDOPT_LOSS_RATE, o.loss_rate))
		return -1;
	if ((o.given & REDOPT_BIT(TCA_REDOPT_FLAGS)) &&
	    addattr32(n, REDOPT_MAXLEN, TCA_REDOPT_FLAGS, o.flags))
		return -1;
	addattr_nest_end(n, tail);
	return 0;
}

/* ---- dump -------------------------------------------------------------- */

static bool redopt_has(struct rtattr *tb[], int attr, size_t len)
{
	return tb[attr] && RTA_PAYLOAD(tb[attr]) >= len;
}

/*
 * A value in 1/1000 units as a decimal without trailing zeros, "0.5",
 * "12", "4294967.295": text "<name> <value> ", JSON "<key>": <value>, the
 * same digits (print_float()'s %g would keep only 6).
 */
static void redopt_print_milli(const char *key, const char *name, __u32 v)
{
	char buf[32];
	size_t len;

	len = snprintf(buf, sizeof(buf), "%u.%03u", v / 1000, v % 1000);
	while (buf[len - 1] == '0')
		buf[--len] = '\0';
	if (buf[len - 1] == '.')
		buf[--len] = '\0';
	if (is_json_context()) {
		json_writer_t *jw = get_json_writer();

		jsonw_name(jw, key);
		jsonw_printf(jw, "%s", buf);
	} else {
		print_string(PRINT_FP, NULL, "%s ", name);
		print_string(PRINT_FP, NULL, "%s ", buf);
	}
}

static int redopt_print_opt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	struct rtattr *tb[TCA_REDOPT_MAX + 1];
	__u32 flags = 0;
	SPRINT_BUF(b1);

	(void)qu;
	(void)f;

	if (!opt)
		return 0;

	parse_rtattr_nested(tb, TCA_REDOPT_MAX, opt);

	/* inputs */
	if (redopt_has(tb, TCA_REDOPT_BANDWIDTH, sizeof(__u64)))
		tc_print_rate(PRINT_ANY, "bandwidth", "bandwidth %s ",
			      rta_getattr_u64(tb[TCA_REDOPT_BANDWIDTH]) / 8);
	if (redopt_has(tb, TCA_REDOPT_RTT, sizeof(__u32))) {
		__u32 rtt = rta_getattr_u32(tb[TCA_REDOPT_RTT]);

		print_uint(PRINT_JSON, "rtt", NULL, rtt);
		print_string(PRINT_FP, NULL, "rtt %s ", sprint_time(rtt, b1));
	}
	if (redopt_has(tb, TCA_REDOPT_FLOWS, sizeof(__u32))) {
		__u32 flows = rta_getattr_u32(tb[TCA_REDOPT_FLOWS]);

		/* JSON: flows 0 is auto; flows_est is printed below */
		print_uint(PRINT_JSON, "flows", NULL, flows);
		if (flows) {
			print_uint(PRINT_FP, NULL, "flows %u ", flows);
		} else {
			print_string(PRINT_FP, NULL, "flows %s ", "auto");
			if (redopt_has(tb, TCA_REDOPT_FLOWS_EST, sizeof(__u32)))
				print_uint(PRINT_FP, NULL, "(est %u) ",
					   rta_getattr_u32(tb[TCA_REDOPT_FLOWS_EST]));
		}
	}
	if (redopt_has(tb, TCA_REDOPT_FLOWS_EST, sizeof(__u32)))
		print_uint(PRINT_JSON, "flows_est", NULL,
			   rta_getattr_u32(tb[TCA_REDOPT_FLOWS_EST]));
	if (redopt_has(tb, TCA_REDOPT_SSTHRESH, sizeof(__u32))) {
		const __u8 *p = RTA_DATA(tb[TCA_REDOPT_SSTHRESH]);
		unsigned int i, cnt;

		cnt = RTA_PAYLOAD(tb[TCA_REDOPT_SSTHRESH]) / sizeof(__u32);
		open_json_array(PRINT_JSON, "ssthresh");
		for (i = 0; i < cnt; i++) {
			__u32 v;

			memcpy(&v, p + i * sizeof(v), sizeof(v));
			print_uint(PRINT_ANY, NULL, i ? ",%u" : "ssthresh %u",
				   v);
		}
		close_json_array(PRINT_JSON, NULL);
		print_string(PRINT_FP, NULL, "%s", " ");
	}
	if (redopt_has(tb, TCA_REDOPT_MIN, sizeof(__u32)))
		print_uint(PRINT_ANY, "min", "min %u ",
			   rta_getattr_u32(tb[TCA_REDOPT_MIN]));
	if (redopt_has(tb, TCA_REDOPT_MAX_P, sizeof(__u32)))
		print_float(PRINT_ANY, "probability", "probability %g ",
			    rta_getattr_u32(tb[TCA_REDOPT_MAX_P]) /
			    ldexp(1.0, 32));
	if (redopt_has(tb, TCA_REDOPT_WINDOW, sizeof(__u32)) &&
	    rta_getattr_u32(tb[TCA_REDOPT_WINDOW]))
		print_uint(PRINT_ANY, "window", "window %u ",
			   rta_getattr_u32(tb[TCA_REDOPT_WINDOW]));
	if (redopt_has(tb, TCA_REDOPT_WLOG, sizeof(__u8)))
		print_float(PRINT_ANY, "ewma", "ewma %.3g ",
			    ldexp(1.0, -rta_getattr_u8(tb[TCA_REDOPT_WLOG])));
	if (redopt_has(tb, TCA_REDOPT_AVPKT, sizeof(__u32)))
		print_uint(PRINT_ANY, "avpkt", "avpkt %u ",
			   rta_getattr_u32(tb[TCA_REDOPT_AVPKT]));
	if (redopt_has(tb, TCA_REDOPT_LOSS_RATE, sizeof(__u32)) &&
	    rta_getattr_u32(tb[TCA_REDOPT_LOSS_RATE]))
		redopt_print_milli("loss_rate", "loss-rate",
				   rta_getattr_u32(tb[TCA_REDOPT_LOSS_RATE]));
	if (redopt_has(tb, TCA_REDOPT_FLAGS, sizeof(__u32)))
		flags = rta_getattr_u32(tb[TCA_REDOPT_FLAGS]);
	print_bool(PRINT_ANY, "ecn", (flags & TC_REDOPT_ECN) ? "ecn " : NULL,
		   flags & TC_REDOPT_ECN);
	print_bool(PRINT_ANY, "harddrop",
		   (flags & TC_REDOPT_HARDDROP) ? "harddrop " : NULL,
		   flags & TC_REDOPT_HARDDROP);
	print_bool(PRINT_ANY, "adaptive",
		   (flags & TC_REDOPT_ADAPTIVE) ? "adaptive " : NULL,
		   flags & TC_REDOPT_ADAPTIVE);

	/* computed by the qdisc */
	if (redopt_has(tb, TCA_REDOPT_BUFFER, sizeof(__u32)))
		print_uint(PRINT_ANY, "buffer", "buffer %up ",
			   rta_getattr_u32(tb[TCA_REDOPT_BUFFER]));
	if (redopt_has(tb, TCA_REDOPT_LIMIT, sizeof(__u32)))
		print_uint(PRINT_ANY, "limit", "limit %up ",
			   rta_getattr_u32(tb[TCA_REDOPT_LIMIT]));
	if (redopt_has(tb, TCA_REDOPT_QTH_MIN, sizeof(__u32)))
		print_uint(PRINT_ANY, "qth_min", "qth_min %up ",
			   rta_getattr_u32(tb[TCA_REDOPT_QTH_MIN]));
	if (redopt_has(tb, TCA_REDOPT_QTH_MAX, sizeof(__u32)))
		print_uint(PRINT_ANY, "qth_max", "qth_max %up ",
			   rta_getattr_u32(tb[TCA_REDOPT_QTH_MAX]));
	if (redopt_has(tb, TCA_REDOPT_QMAX, sizeof(__u32)))
		print_float(PRINT_ANY, "qavg_max", "qavg_max %.2f ",
			    rta_getattr_u32(tb[TCA_REDOPT_QMAX]) / 1000.0);
	/* sent only with a loss rate; 0 is a bound below one flow */
	if (redopt_has(tb, TCA_REDOPT_M_BOUND, sizeof(__u32)))
		print_uint(PRINT_ANY, "m_bound", "m_bound %u ",
			   rta_getattr_u32(tb[TCA_REDOPT_M_BOUND]));

	if (show_details) {
		if (redopt_has(tb, TCA_REDOPT_WLOG, sizeof(__u8)))
			print_uint(PRINT_ANY, "Wlog", "Wlog %u ",
				   rta_getattr_u8(tb[TCA_REDOPT_WLOG]));
		if (!tb[TCA_REDOPT_M_BOUND]) {
			print_null(PRINT_JSON, "m_bound", NULL, NULL);
			print_string(PRINT_FP, NULL, "m_bound %s ", "n/a");
		}
	}
	return 0;
}

static int redopt_print_xstats(struct qdisc_util *qu, FILE *f,
			       struct rtattr *xstats)
{
	/* a qdisc older than forced_mark sends the fields before it */
	const size_t old = offsetof(struct tc_redopt_xstats, forced_mark);
	struct tc_redopt_xstats st = {0};
	size_t len;

	(void)qu;
	(void)f;

	if (!xstats)
		return 0;
	len = RTA_PAYLOAD(xstats);
	if (len < old)
		return -1;
	memcpy(&st, RTA_DATA(xstats), len < sizeof(st) ? len : sizeof(st));

	print_uint(PRINT_ANY, "marked", "  marked %u ", st.marked);
	print_uint(PRINT_ANY, "early", "early %u ", st.early);
	print_uint(PRINT_ANY, "forced", "forced %u ", st.forced);
	if (len >= sizeof(st))
		print_uint(PRINT_ANY, "forced_mark", "forced_mark %u ",
			   st.forced_mark);
	print_uint(PRINT_ANY, "overflow", "overflow %u ", st.overflow);
	print_uint(PRINT_ANY, "flows_est", "flows_est %u ", st.flows_est);
	print_float(PRINT_ANY, "qavg", "qavg %.3f ", st.qavg / 1000.0);
	print_uint(PRINT_ANY, "recomputes", "recomputes %u ", st.recomputes);
	if (show_details) {
		print_uint(PRINT_ANY, "limit", "limit %up ", st.limit);
		print_uint(PRINT_ANY, "qth_min", "qth_min %up ", st.qth_min);
		print_uint(PRINT_ANY, "qth_max", "qth_max %up ", st.qth_max);
	}
	return 0;
}

struct qdisc_util redopt_qdisc_util REDOPT_EXPORT = {
	.id		= "redopt",
	.parse_qopt	= redopt_parse_opt,
	.print_qopt	= redopt_print_opt,
	.print_xstats	= redopt_print_xstats,
};

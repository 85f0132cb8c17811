// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the tc plugin's option parser, redopt_parse_opt() of
 * userspace/tc/q_redopt.c, linked with the iproute2 library code it calls
 * in tc (get_rate64(), get_time(), addattr_l(), ...: the Debian source of
 * the installed iproute2, compiled here; see the Makefile).
 *
 * Input: a tc command line after "tc qdisc", without the device and
 * handle: "add|replace|change|link|del [redopt options]", e.g.
 *   add bandwidth 1.5mbit rtt 59ms ssthresh 15 min 5 probability 0.1
 * The first word gives the request as tc_qdisc.c builds it (its nlmsg
 * type and flags, then TCA_KIND "redopt"), the rest goes to parse_qopt()
 * as tc's argv. Other inputs are rejected.
 *
 * The contract checked:
 *   error (non-zero): a message on stderr, the request unchanged;
 *   del: the request unchanged (no options are sent);
 *   otherwise one TCA_OPTIONS nest ends the request, holding only input
 *   attributes, each once, of its exact size and in its range; add and
 *   replace send every input, and the set passes redopt_check_params(),
 *   the kernel's check (flows auto checked with m = 1, as the plugin does).
 * parse_qopt() never calls exit() (tc's NEXT_ARG()/invarg() would: the
 * plugin does not use them); if it did, that is a failure too.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utils.h"
#include "tc_util.h"
#include "tc_common.h"

#include <specnet/redopt.h>
#include <specnet/red_model.h>

#include "fuzz.h"

extern struct qdisc_util redopt_qdisc_util;	/* q_redopt.c's one export */

struct request {
	struct nlmsghdr n;
	struct tcmsg t;
	char buf[TCA_BUF_MAX];
};

static const struct {
	const char *cmd;
	int type;
	int flags;
} commands[] = {	/* tc_qdisc.c: do_qdisc() */
	{ "add",	RTM_NEWQDISC, NLM_F_EXCL | NLM_F_CREATE },
	{ "replace",	RTM_NEWQDISC, NLM_F_CREATE | NLM_F_REPLACE },
	{ "change",	RTM_NEWQDISC, 0 },
	{ "link",	RTM_NEWQDISC, NLM_F_REPLACE },
	{ "del",	RTM_DELQDISC, 0 },
};

/* payload size of each input attribute; 0: never sent */
static const unsigned int attr_size[TCA_REDOPT_MAX + 1] = {
	[TCA_REDOPT_BANDWIDTH]	= sizeof(__u64),
	[TCA_REDOPT_RTT]	= sizeof(__u32),
	[TCA_REDOPT_FLOWS]	= sizeof(__u32),
	[TCA_REDOPT_SSTHRESH]	= sizeof(__u32),	/* times the count */
	[TCA_REDOPT_WINDOW]	= sizeof(__u32),
	[TCA_REDOPT_MIN]	= sizeof(__u32),
	[TCA_REDOPT_MAX_P]	= sizeof(__u32),
	[TCA_REDOPT_WLOG]	= sizeof(__u8),
	[TCA_REDOPT_AVPKT]	= sizeof(__u32),
	[TCA_REDOPT_FLAGS]	= sizeof(__u32),
	[TCA_REDOPT_LOSS_RATE]	= sizeof(__u32),
};

static __u32 u32_of(struct rtattr *tb[], int attr)
{
	__u32 v;

	memcpy(&v, RTA_DATA(tb[attr]), sizeof(v));
	return v;
}

static void in_range(struct rtattr *tb[], int attr, __u64 lo, __u64 hi)
{
	__u64 v;

	if (!tb[attr])
		return;
	if (attr == TCA_REDOPT_BANDWIDTH)
		memcpy(&v, RTA_DATA(tb[attr]), sizeof(v));
	else if (attr == TCA_REDOPT_WLOG)
		v = *(__u8 *)RTA_DATA(tb[attr]);
	else
		v = u32_of(tb, attr);
	if (v < lo || v > hi)
		fuzz_fail("attribute %d: %llu outside %llu..%llu", attr,
			  (unsigned long long)v, (unsigned long long)lo, (unsigned long long)hi);
}

/* The request after a successful parse_qopt() of add/replace/change/link. */
static void check_options(struct nlmsghdr *n, size_t kind_end, bool creating)
{
	struct rtattr *tb[TCA_REDOPT_MAX + 1] = {};
	struct rtattr *nest = (struct rtattr *)((char *)n + kind_end), *a;
	struct redopt_model_params p = {};
	unsigned int i, cnt = 0, rem;
	const char *why = NULL;
	__u32 ss[TC_REDOPT_MAX_FLOWS];

	if (n->nlmsg_len < kind_end + RTA_LENGTH(0) ||
	    n->nlmsg_len != kind_end + RTA_ALIGN(nest->rta_len) ||
	    nest->rta_type != (TCA_OPTIONS | NLA_F_NESTED))
		fuzz_fail("the request does not end with one TCA_OPTIONS nest");
	rem = RTA_PAYLOAD(nest);
	for (a = RTA_DATA(nest); RTA_OK(a, rem); a = RTA_NEXT(a, rem)) {
		unsigned int type = a->rta_type, len = RTA_PAYLOAD(a);

		if (type > TCA_REDOPT_MAX || !attr_size[type])
			fuzz_fail("attribute %u is not an input", type);
		if (tb[type])
			fuzz_fail("attribute %u sent twice", type);
		if (type == TCA_REDOPT_SSTHRESH ?
		    !len || len % sizeof(__u32) || len > sizeof(ss) :
		    len != attr_size[type])
			fuzz_fail("attribute %u: %u bytes", type, len);
		tb[type] = a;
		cnt++;
	}
	if (rem)
		fuzz_fail("%u bytes left over in the nest", rem);

	in_range(tb, TCA_REDOPT_BANDWIDTH, 1, REDOPT_MAX_BANDWIDTH);
	in_range(tb, TCA_REDOPT_RTT, 1, REDOPT_MAX_RTT_US);
	in_range(tb, TCA_REDOPT_FLOWS, 0, TC_REDOPT_MAX_FLOWS);
	in_range(tb, TCA_REDOPT_WINDOW, 0, REDOPT_MAX_WINDOW);
	in_range(tb, TCA_REDOPT_MIN, 1, REDOPT_MAX_MIN_TH);
	in_range(tb, TCA_REDOPT_MAX_P, 1, UINT32_MAX);
	in_range(tb, TCA_REDOPT_WLOG, REDOPT_WLOG_MIN, REDOPT_WLOG_MAX);
	in_range(tb, TCA_REDOPT_AVPKT, REDOPT_MIN_AVPKT, REDOPT_MAX_AVPKT);
	in_range(tb, TCA_REDOPT_FLAGS, 0, TC_REDOPT_FLAGS_ALL);
	if (tb[TCA_REDOPT_SSTHRESH]) {
		p.n_ssthresh = RTA_PAYLOAD(tb[TCA_REDOPT_SSTHRESH]) / sizeof(__u32);
		memcpy(ss, RTA_DATA(tb[TCA_REDOPT_SSTHRESH]), p.n_ssthresh * sizeof(__u32));
		for (i = 0; i < p.n_ssthresh; i++)
			if (!ss[i] || ss[i] > REDOPT_MAX_SSTHRESH)
				fuzz_fail("ssthresh[%u] = %u", i, ss[i]);
		if (tb[TCA_REDOPT_FLOWS] && p.n_ssthresh > 1 &&
		    p.n_ssthresh != u32_of(tb, TCA_REDOPT_FLOWS))
			fuzz_fail("%u ssthresh values for flows %u", p.n_ssthresh,
				  u32_of(tb, TCA_REDOPT_FLOWS));
	}
	if (!creating)
		return;

	if (cnt != 11)
		fuzz_fail("add/replace sent %u of the 11 inputs", cnt);
	memcpy(&p.bandwidth_bps, RTA_DATA(tb[TCA_REDOPT_BANDWIDTH]), sizeof(__u64));
	p.rtt_us = u32_of(tb, TCA_REDOPT_RTT);
	p.flows = u32_of(tb, TCA_REDOPT_FLOWS) ? : 1;
	p.ssthresh = ss;
	p.window = u32_of(tb, TCA_REDOPT_WINDOW);
	p.min_th = u32_of(tb, TCA_REDOPT_MIN);
	p.max_p = u32_of(tb, TCA_REDOPT_MAX_P);
	p.wlog = *(__u8 *)RTA_DATA(tb[TCA_REDOPT_WLOG]);
	p.avpkt = u32_of(tb, TCA_REDOPT_AVPKT);
	p.loss_rate_milli = u32_of(tb, TCA_REDOPT_LOSS_RATE);
	if (!u32_of(tb, TCA_REDOPT_FLOWS) &&
	    !(u32_of(tb, TCA_REDOPT_FLAGS) & TC_REDOPT_ADAPTIVE))
		fuzz_fail("flows auto without the adaptive flag");
	if (redopt_check_params(&p, &why))
		fuzz_fail("add/replace sent a set the kernel refuses: %s", why);
}

struct parse_call {
	struct nlmsghdr *n;
	int argc;
	char **argv;
};

static int parse(void *arg)
{
	struct parse_call *c = arg;

	return redopt_qdisc_util.parse_qopt(&redopt_qdisc_util, c->argc, c->argv, c->n,
					    "fuzz0");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct request req;
	static char *words[FUZZ_MAX_WORDS + 1];	/* NULL-terminated, as tc's argv */
	struct parse_call c = { .n = &req.n };
	unsigned int i, before;
	char *text;
	int argc, rc;

	text = fuzz_strdup(data, size, ' ');
	argc = fuzz_words(text, words, FUZZ_MAX_WORDS);
	words[argc] = NULL;
	for (i = 0; argc && i < ARRAY_SIZE(commands); i++)
		if (!strcmp(words[0], commands[i].cmd))
			break;
	if (!argc || i == ARRAY_SIZE(commands)) {
		free(text);
		return -1;	/* not a qdisc command: not worth keeping */
	}

	memset(&req, 0, sizeof(req));
	req.n.nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg));
	req.n.nlmsg_flags = NLM_F_REQUEST | commands[i].flags;
	req.n.nlmsg_type = commands[i].type;
	req.t.tcm_family = AF_UNSPEC;
	addattr_l(&req.n, sizeof(req), TCA_KIND, "redopt", sizeof("redopt"));
	before = req.n.nlmsg_len;

	fuzz_reset();
	c.argc = argc - 1;
	c.argv = words + 1;
	if (fuzz_call(parse, &c, &rc))
		fuzz_fail("parse_qopt() called exit(%d)", rc);
	if (rc) {
		if (!fuzz_err.len)
			fuzz_fail("parse_qopt() failed (%d) without a message", rc);
		if (req.n.nlmsg_len != before)
			fuzz_fail("parse_qopt() failed (%d) but added to the request", rc);
	} else if (commands[i].type == RTM_DELQDISC) {
		if (req.n.nlmsg_len != before)
			fuzz_fail("del: options added to the request");
	} else {
		check_options(&req.n, before, commands[i].flags & NLM_F_CREATE);
	}
	free(text);
	return 0;
}

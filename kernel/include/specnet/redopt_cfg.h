/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sch_redopt's configuration in force, its counters, and the model inputs
 * the configuration gives for m flows. Shared by the qdisc and the host
 * count of its enqueue path's cost (tests/bench/redopt_cost.c), so that
 * what the bench runs is the qdisc's own code.
 */
#ifndef _SPECNET_REDOPT_CFG_H
#define _SPECNET_REDOPT_CFG_H

#include "types.h"
#include "red_model.h"

/* Configuration in force: inputs as given (0 = absent/derived). */
struct redopt_cfg {
	u64	bandwidth;	/* bit/s */
	u32	rtt_us;
	u32	flows;		/* 0 = auto */
	u32	window;		/* packets, 0 = derive */
	u32	min_th;		/* packets */
	u32	max_p;		/* 2^-32 */
	u32	avpkt;		/* bytes */
	u32	flags;		/* TC_REDOPT_* */
	u32	loss_rate;	/* milli-events/s, 0 = n/a */
	u8	wlog;
	u32	n_ssthresh;
	u32	*ssthresh;	/* kmalloc'ed, n_ssthresh values */
};

/* What tc -s shows beside the core's counters. */
struct redopt_counters {
	u32	marked;
	u32	early;
	u32	forced;
	u32	forced_mark;
	u32	overflow;
	u32	recomputes;
};

/* m is estimated online: asked for (adaptive), or not given (flows auto). */
static inline bool redopt_adaptive(const struct redopt_cfg *c)
{
	return (c->flags & TC_REDOPT_ADAPTIVE) || !c->flows;
}

/*
 * Model inputs for @flows flows. @estimated: m is the online estimate, so
 * a per-flow ssthresh list given for another m falls back to its first
 * value for every flow (a configuration from userspace must match).
 */
static inline void redopt_params(const struct redopt_cfg *c, u32 flows,
				 bool estimated,
				 struct redopt_model_params *p)
{
	*p = (struct redopt_model_params) {
		.bandwidth_bps	= c->bandwidth,
		.rtt_us		= c->rtt_us,
		.flows		= flows,
		.ssthresh	= c->ssthresh,
		.n_ssthresh	= c->n_ssthresh,
		.window		= c->window,
		.min_th		= c->min_th,
		.max_p		= c->max_p,
		.wlog		= c->wlog,
		.avpkt		= c->avpkt,
		.loss_rate_milli = c->loss_rate,
	};
	if (estimated && c->n_ssthresh != 1 && c->n_ssthresh != flows)
		p->n_ssthresh = 1;
}

#endif /* _SPECNET_REDOPT_CFG_H */

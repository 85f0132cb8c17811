/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * redopt: netlink attributes and statistics of the model-dimensioned ECN
 * RED qdisc (sch_redopt), shared by the qdisc, the tc plugin q_redopt.so
 * and specctl. Userspace includes it as <specnet/redopt.h>.
 *
 * Units are on every attribute. The qdisc computes the buffer size (limit)
 * and max_th from the model (kernel/include/specnet/red_model.h) and
 * reports inputs and computed values back in its dump.
 */
#ifndef _UAPI_SPECNET_REDOPT_H
#define _UAPI_SPECNET_REDOPT_H

#include <linux/types.h>

enum {
	TCA_REDOPT_UNSPEC,
	TCA_REDOPT_PAD,
	/* ---- inputs (change/init; echoed in the dump) ---- */
	TCA_REDOPT_BANDWIDTH,	/* u64, bottleneck rate C, bit/s (required) */
	TCA_REDOPT_RTT,		/* u32, round-trip time r, us (required) */
	TCA_REDOPT_FLOWS,	/* u32, number of flows m, 0 = auto (estimated) */
	TCA_REDOPT_SSTHRESH,	/* binary u32[], SSth_i, packets (required):
				 * one value for every flow, or m values */
	TCA_REDOPT_WINDOW,	/* u32, W_i at first mark, packets (optional,
				 * default (C r / (8 s) + min_th) / m, C in
				 * bit/s, r in s, s in bytes) */
	TCA_REDOPT_MIN,		/* u32, min_th, packets (required) */
	TCA_REDOPT_MAX_P,	/* u32, max_p scaled by 2^32 (as TCA_RED_MAX_P) */
	TCA_REDOPT_WLOG,	/* u8, EWMA weight w = 2^-Wlog (default 9) */
	TCA_REDOPT_AVPKT,	/* u32, average packet size s, bytes (default 1000) */
	TCA_REDOPT_FLAGS,	/* u32, TC_REDOPT_* below */
	TCA_REDOPT_LOSS_RATE,	/* u32, per-flow loss-event rate lambda,
				 * 1/1000 event/s (optional, 0 = n/a;
				 * gives M_BOUND) */
	/* ---- computed (dump only) ---- */
	TCA_REDOPT_BUFFER,	/* u32, the model's L: the slow-start peak
				 * (ss_peak), packets */
	TCA_REDOPT_LIMIT,	/* u32, limit in force, packets: max(max(L,
				 * ca_peak, transient) + 10 m, max_th + 1) */
	TCA_REDOPT_QTH_MIN,	/* u32, min_th in force, packets */
	TCA_REDOPT_QTH_MAX,	/* u32, max_th in force = ceil(Qmax), packets */
	TCA_REDOPT_QMAX,	/* u32, Qmax, 1/1000 packet */
	TCA_REDOPT_FLOWS_EST,	/* u32, m in force (given or estimated) */
	TCA_REDOPT_M_BOUND,	/* u32, floor(alpha), bound on m where the model
				 * holds, flows; only with LOSS_RATE (may be 0) */
	__TCA_REDOPT_MAX,
};

#define TCA_REDOPT_MAX (__TCA_REDOPT_MAX - 1)

#define TC_REDOPT_ECN		(1U << 0)	/* mark ECT packets CE */
#define TC_REDOPT_ADAPTIVE	(1U << 1)	/* estimate m online, recompute */
#define TC_REDOPT_HARDDROP	(1U << 2)	/* above max_th drop ECT packets too */
#define TC_REDOPT_FLAGS_ALL	(TC_REDOPT_ECN | TC_REDOPT_ADAPTIVE | \
				 TC_REDOPT_HARDDROP)

#define TC_REDOPT_MAX_FLOWS	1024	/* m and the SSTHRESH array */

struct tc_redopt_xstats {
	__u32	marked;		/* CE marks between min_th and max_th */
	__u32	early;		/* early drops (non-ECT between min and max) */
	__u32	forced;		/* drops because the average was above max_th */
	__u32	overflow;	/* drops on a full buffer (qlen == limit) */
	__u32	flows_est;	/* m in force (estimate in adaptive mode) */
	__u32	qth_min;	/* packets */
	__u32	qth_max;	/* packets */
	__u32	limit;		/* packets */
	__u32	qavg;		/* current average queue, 1/1000 packet */
	__u32	recomputes;	/* model recomputations caused by a change of m */
	__u32	forced_mark;	/* CE marks while the average was above max_th
				 * (ecn without harddrop) */
};

#endif /* _UAPI_SPECNET_REDOPT_H */

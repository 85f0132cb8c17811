// SPDX-License-Identifier: GPL-2.0
/*
 * sch_redopt: RED with ECN whose buffer size and max threshold come from an
 * analytical model, so that ECN-capable flows see CE marks before any
 * congestion drop, with about half the queue of classic RED settings.
 *
 * The model (red_model.h; docs/algorithms.md, RED model):
 *
 *   L      = ceil( sum_i SSth_i - r C / (8 s) )        buffer (packets)
 *   Qmax   = min_th + sum_i ( 1 / (p(Qmax) W_i) + w )  p(Q) on max_th0 = 3 min_th
 *   max_th = ceil(Qmax)
 *   limit  = max( max(L, ca_peak, transient) + 10 m,  max_th + 1 )
 *
 * ca_peak and transient are the congestion-avoidance queue peaks while
 * RED's average lags the queue (red_model.h, "The peaks").
 *
 * The user gives the path (bandwidth C, RTT r, flows m or "auto", per-flow
 * ssthresh, optionally W and the per-flow loss-event rate lambda), and
 * RED's min_th, max_p, Wlog and avpkt; the qdisc computes the buffer L,
 * limit, min_th and max_th (and with lambda the bound on m), and reports
 * inputs and results in its dump.
 *
 * RED behaviour is the kernel's own <net/red.h> (EWMA average, marking
 * probability with the count-based spreading; the idle-time decay is
 * exact, red_idle.h, see below), on the queue length in packets (the
 * model's unit):
 *
 *   qavg <  min_th            enqueue
 *   min_th <= qavg < max_th   with probability p(qavg), max_p at max_th
 *                             (RED's curve: steeper than the model's
 *                             starting curve, so marks come no later than
 *                             the model assumes): CE-mark an ECT packet
 *                             ("marked"; with ecn), drop a non-ECT one
 *                             ("early")
 *   qavg >= max_th            CE-mark an ECT packet ("forced_mark"; with
 *                             ecn, as sch_red's ecn without harddrop),
 *                             drop a non-ECT one, or every packet with
 *                             harddrop ("forced")
 *   qlen == limit             drop ("overflow")
 *
 * Adaptive mode (TC_REDOPT_ADAPTIVE, or flows 0 = "auto"): the number of
 * active flows is estimated online with a hashed bitmap of
 * REDOPT_FE_BITS bits over a sliding window (linear counting, see
 * flow_est.h's redopt_flows_from_bits()): every enqueued packet of at
 * least avpkt / 2 bytes sets the bit of its flow hash (small control
 * messages do not make a flow). The hash is the flow dissector's over the
 * addresses and ports with a per-qdisc random key, not skb->hash: a
 * locally generated packet carries its socket's sk_txhash, which TCP
 * re-draws on an RTO or a spurious retransmission, so one flow would
 * count twice in that window. At the end of
 * each window a timer counts the set bits for the estimate, and when it
 * differs from the m in force, max_th and limit are recomputed from the
 * model there, under the qdisc lock (as sch_red's adaptive timer runs):
 * enqueue only sets a bit. The window is 4 RTTs, at least
 * 500 ms, so that a flow that is alive sends in every window. Memory is
 * bounded (REDOPT_FE_BITS / 8 bytes) whatever the number of flows. A
 * limit that shrinks this way is not trimmed in the data path: the queue
 * drains below it (tail drops count as "overflow" meanwhile). A `change`
 * from userspace trims the queue at once, drops accounted.
 *
 * Deviations and choices:
 *  - thresholds and the average are in packets (qlen), as the model is;
 *    a GSO packet is segmented on enqueue (as tbf and cake do), so a
 *    packet is one on the wire whatever GRO/GSO did before;
 *    avpkt only enters the model (s) and the idle decay (s / C);
 *  - no child qdisc: the queue is the qdisc's own (tail-drop FIFO);
 *  - over idle time the average decays exactly as RED says, avg (1 - w)^m
 *    with m = idle / (8 s / C) (red_idle.h), not through red.h's table:
 *    its linear rule inside the first table cell decays the average tens
 *    of times too fast for gaps of about one packet time, which is what a
 *    shaped bottleneck sees all the time (HTB empties the queue between
 *    packets): the average stays low, marks come late and the queue
 *    grows past classic RED's. The decay being exact, there is no
 *    table to configure: tc sends none (no STAB / Scell_log attribute),
 *    red_set_parms() gets Scell_log 0 and a NULL table, and
 *    red_check_params() checks the thresholds against Wlog only.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/bitmap.h>
#include <linux/random.h>
#include <linux/siphash.h>
#include <net/pkt_sched.h>
#include <net/inet_ecn.h>
#include <net/netlink.h>
#include <net/red.h>

#include "compat.h"
#include <specnet/redopt.h>
#include <specnet/red_model.h>
#include <specnet/redopt_cfg.h>
#include <specnet/flow_est.h>
#include <specnet/red_idle.h>

#define REDOPT_FE_BITS		1024	/* flow estimator bitmap */
#define REDOPT_FE_MIN_WIN_US	500000	/* window: max(4 RTT, 500 ms) */
#define REDOPT_FE_MAX_WIN_US	60000000	/* ... at most 60 s */

struct redopt_sched_data {
	struct redopt_cfg	cfg;
	struct redopt_model	model;		/* computed for flows_in_force */
	u32			flows_in_force;	/* m used by the model */
	u64			xmit_q16;	/* avpkt transmission time, us Q16 */
	u32			limit;		/* packets */
	struct red_parms	parms;
	struct red_vars		vars;
	struct redopt_counters	stats;
	/* flow estimator (adaptive) */
	struct Qdisc		*sch;		/* for the window timer */
	struct timer_list	fe_timer;	/* ends each window */
	u32			fe_est;		/* last estimate, flows */
	struct fe_hold		fe_hold;	/* a fall of m, held */
	siphash_key_t		fe_key;		/* flow hash perturbation */
	DECLARE_BITMAP(fe_bits, REDOPT_FE_BITS);
};

/* Apply a model result: thresholds into red_parms (packets). */
static void redopt_apply(struct redopt_sched_data *q, const struct redopt_model *m,
			 u32 flows)
{
	const struct redopt_cfg *c = &q->cfg;

	q->model = *m;
	WRITE_ONCE(q->flows_in_force, flows);
	WRITE_ONCE(q->limit, m->limit);
	/* RED(min_th, max_th, max_p): max_p is reached at the model's max_th,
	 * a steeper curve than the starting one the model was solved on
	 * (max_p at 3 min_th), so marks come no later than the model assumes
	 */
	red_set_parms(&q->parms, m->qth_min, m->qth_max, c->wlog, 0, 0, NULL,
		      c->max_p);
}

/* ---- adaptive flow estimate ------------------------------------------ */

static unsigned long redopt_fe_window(const struct redopt_cfg *c)
{
	u64 us = max_t(u64, 4ULL * c->rtt_us, REDOPT_FE_MIN_WIN_US);

	return usecs_to_jiffies((u32)min_t(u64, us, REDOPT_FE_MAX_WIN_US));
}

/* Called for every enqueued packet in adaptive mode, under the qdisc lock:
 * one hash and one bit. Data-carrying packets only: a connection that
 * sends a few small control messages (iperf3's, an ssh session) is not one
 * of the m flows the buffer is dimensioned for.
 */
static void redopt_fe_mark(struct redopt_sched_data *q, struct sk_buff *skb)
{
	if (qdisc_pkt_len(skb) >= q->cfg.avpkt / 2)
		__set_bit(skb_get_hash_perturb(skb, &q->fe_key) % REDOPT_FE_BITS,
			  q->fe_bits);
}

/*
 * End of an estimator window, from the window timer under the qdisc's root
 * lock (as sch_red's adaptive timer): count the flows seen and, when the
 * m that count settles (redopt_fe_settle(): a rise at once, a fall held
 * for FE_FALL_WINDOWS windows) differs from the m in force, dimension the
 * queue again. The model (an iteration, about 16 us) runs here and never
 * in enqueue.
 */
static void redopt_fe_window_end(struct redopt_sched_data *q)
{
	struct redopt_model_params p;
	struct redopt_model m;
	u32 bits, est;

	bits = bitmap_weight(q->fe_bits, REDOPT_FE_BITS);
	bitmap_zero(q->fe_bits, REDOPT_FE_BITS);
	est = redopt_flows_from_bits(bits, REDOPT_FE_BITS);
	est = clamp_t(u32, est, 1, TC_REDOPT_MAX_FLOWS);
	WRITE_ONCE(q->fe_est, est);
	est = redopt_fe_settle(&q->fe_hold, q->flows_in_force, est);
	if (est == q->flows_in_force)
		return;
	redopt_params(&q->cfg, est, true, &p);
	if (redopt_model_compute(&p, &m, NULL))
		return;		/* out of the model's range: keep the old m */
	redopt_apply(q, &m, est);
	WRITE_ONCE(q->stats.recomputes, q->stats.recomputes + 1);
}

static void redopt_fe_timer(struct timer_list *t)
{
	struct redopt_sched_data *q = from_timer(q, t, fe_timer);
	struct Qdisc *sch = q->sch;
	spinlock_t *root_lock;		/* the root qdisc's, as sch_red's timer takes */

	rcu_read_lock();
	root_lock = qdisc_lock(qdisc_root_sleeping(sch));
	spin_lock(root_lock);
	if (redopt_adaptive(&q->cfg)) {
		redopt_fe_window_end(q);
		mod_timer(&q->fe_timer, jiffies + redopt_fe_window(&q->cfg));
	}
	spin_unlock(root_lock);
	rcu_read_unlock();
}

/* ---- data path ---------------------------------------------------------- */

/* RED on one packet (a segment of a GSO packet counts as one). */
static int redopt_enqueue_one(struct sk_buff *skb, struct Qdisc *sch,
			      struct sk_buff **to_free)
{
	struct redopt_sched_data *q = qdisc_priv(sch);

	if (red_is_idling(&q->vars)) {
		s64 idle = ktime_us_delta(ktime_get(), q->vars.qidlestart);

		q->vars.qavg = red_idle_decay(q->vars.qavg, q->parms.Wlog,
					      max_t(s64, idle, 0), q->xmit_q16);
		red_end_of_idle_period(&q->vars);
	}
	q->vars.qavg = red_calc_qavg_no_idle_time(&q->parms, &q->vars, sch->q.qlen);

	switch (red_action(&q->parms, &q->vars, q->vars.qavg)) {
	case RED_DONT_MARK:
		break;
	case RED_PROB_MARK:
		qdisc_qstats_overlimit(sch);
		if ((q->cfg.flags & TC_REDOPT_ECN) && INET_ECN_set_ce(skb)) {
			WRITE_ONCE(q->stats.marked, q->stats.marked + 1);
			break;
		}
		WRITE_ONCE(q->stats.early, q->stats.early + 1);
		goto congestion_drop;
	case RED_HARD_MARK:
		qdisc_qstats_overlimit(sch);
		if ((q->cfg.flags & (TC_REDOPT_ECN | TC_REDOPT_HARDDROP)) ==
		    TC_REDOPT_ECN && INET_ECN_set_ce(skb)) {
			WRITE_ONCE(q->stats.forced_mark, q->stats.forced_mark + 1);
			break;
		}
		WRITE_ONCE(q->stats.forced, q->stats.forced + 1);
		goto congestion_drop;
	}

	if (likely(sch->q.qlen < READ_ONCE(q->limit)))
		return qdisc_enqueue_tail(skb, sch);

	WRITE_ONCE(q->stats.overflow, q->stats.overflow + 1);
	return qdisc_drop(skb, sch, to_free);

congestion_drop:
	/* Dropped into an empty queue: it is still idle, from now on. */
	if (!sch->q.qlen)
		red_start_of_idle_period(&q->vars);
	qdisc_drop(skb, sch, to_free);
	return NET_XMIT_CN;
}

/*
 * A GSO packet (GRO on a forwarding gateway, TSO/GSO from local senders)
 * holds up to 64 KB: counted as one packet it would hide most of the
 * queue from RED and from the model, whose unit is the packet on the
 * wire. It is segmented here, as tbf and cake do, and each segment meets
 * RED on its own. The parents were told of one packet of @prev_len bytes:
 * they are told of the segments queued instead.
 */
static int redopt_enqueue_gso(struct sk_buff *skb, struct Qdisc *sch,
			      struct sk_buff **to_free)
{
	netdev_features_t features = netif_skb_features(skb);
	unsigned int prev_len = qdisc_pkt_len(skb), len = 0;
	struct sk_buff *segs, *nskb;
	int nb = 0;

	segs = skb_gso_segment(skb, features & ~NETIF_F_GSO_MASK);
	if (IS_ERR_OR_NULL(segs))
		return qdisc_drop(skb, sch, to_free);

	skb_list_walk_safe(segs, segs, nskb) {
		unsigned int seg_len = segs->len;

		skb_mark_not_on_list(segs);
		qdisc_skb_cb(segs)->pkt_len = seg_len;
		if (redopt_enqueue_one(segs, sch, to_free) == NET_XMIT_SUCCESS) {
			nb++;
			len += seg_len;
		}
	}
	if (nb > 1)
		qdisc_tree_reduce_backlog(sch, 1 - nb, prev_len - len);
	consume_skb(skb);
	return nb > 0 ? NET_XMIT_SUCCESS : NET_XMIT_DROP;
}

static int redopt_enqueue(struct sk_buff *skb, struct Qdisc *sch,
			  struct sk_buff **to_free)
{
	struct redopt_sched_data *q = qdisc_priv(sch);

	if (redopt_adaptive(&q->cfg))
		redopt_fe_mark(q, skb);
	if (skb_is_gso(skb))
		return redopt_enqueue_gso(skb, sch, to_free);
	return redopt_enqueue_one(skb, sch, to_free);
}

/*
 * The idle period starts when the last packet leaves (and again when a
 * packet is dropped into an empty queue, see redopt_enqueue()), not when
 * a dequeue finds the queue empty (sch_red's way): a parent such as HTB
 * deactivates an emptied class and does not ask it again, so the average
 * would never decay over idle time -- and after a burst of forced drops it
 * would stay above max_th, dropping every packet of the (then rare)
 * retransmissions: the flows stall for good.
 */
static struct sk_buff *redopt_dequeue(struct Qdisc *sch)
{
	struct redopt_sched_data *q = qdisc_priv(sch);
	struct sk_buff *skb = qdisc_dequeue_head(sch);

	if (!sch->q.qlen && !red_is_idling(&q->vars))
		red_start_of_idle_period(&q->vars);
	return skb;
}

static void redopt_reset(struct Qdisc *sch)
{
	struct redopt_sched_data *q = qdisc_priv(sch);

	qdisc_reset_queue(sch);
	red_restart(&q->vars);
}

/* ---- configuration ------------------------------------------------------ */

static const struct nla_policy redopt_policy[TCA_REDOPT_MAX + 1] = {
	[TCA_REDOPT_BANDWIDTH]	= { .type = NLA_U64 },
	[TCA_REDOPT_RTT]	= { .type = NLA_U32 },
	[TCA_REDOPT_FLOWS]	= NLA_POLICY_MAX(NLA_U32, TC_REDOPT_MAX_FLOWS),
	[TCA_REDOPT_SSTHRESH]	= { .type = NLA_BINARY,
				    .len = TC_REDOPT_MAX_FLOWS * sizeof(u32) },
	[TCA_REDOPT_WINDOW]	= { .type = NLA_U32 },
	[TCA_REDOPT_MIN]	= { .type = NLA_U32 },
	[TCA_REDOPT_MAX_P]	= { .type = NLA_U32 },
	[TCA_REDOPT_WLOG]	= NLA_POLICY_RANGE(NLA_U8, REDOPT_WLOG_MIN, REDOPT_WLOG_MAX),
	[TCA_REDOPT_AVPKT]	= { .type = NLA_U32 },
	[TCA_REDOPT_FLAGS]	= NLA_POLICY_MASK(NLA_U32, TC_REDOPT_FLAGS_ALL),
	[TCA_REDOPT_LOSS_RATE]	= { .type = NLA_U32 },
	/* computed values are read-only */
	[TCA_REDOPT_BUFFER]	= { .type = NLA_REJECT },
	[TCA_REDOPT_LIMIT]	= { .type = NLA_REJECT },
	[TCA_REDOPT_QTH_MIN]	= { .type = NLA_REJECT },
	[TCA_REDOPT_QTH_MAX]	= { .type = NLA_REJECT },
	[TCA_REDOPT_QMAX]	= { .type = NLA_REJECT },
	[TCA_REDOPT_FLOWS_EST]	= { .type = NLA_REJECT },
	[TCA_REDOPT_M_BOUND]	= { .type = NLA_REJECT },
};

/* The model's reason for a refusal, as the literal netlink takes */
static void redopt_set_err(struct netlink_ext_ack *extack, const char *why)
{
	switch (redopt_reason_code(why)) {
	case REDOPT_WHY_BW_REQUIRED:
		NL_SET_ERR_MSG(extack, REDOPT_MSG_BW_REQUIRED);
		break;
	case REDOPT_WHY_BW_RANGE:
		NL_SET_ERR_MSG(extack, REDOPT_MSG_BW_RANGE);
		break;
	case REDOPT_WHY_RTT_REQUIRED:
		NL_SET_ERR_MSG(extack, REDOPT_MSG_RTT_REQUIRED);
		break;
	case REDOPT_WHY_RTT_RANGE:
		NL_SET_ERR_MSG(extack, REDOPT_MSG_RTT_RANGE);
		break;
	case REDOPT_WHY_FLOWS_REQUIRED:
		NL_SET_ERR_MSG(extack, REDOPT_MSG_FLOWS_REQUIRED);
		break;
	case REDOPT_WHY_FLOWS_RANGE:
		NL_SET_ERR_MSG(extack, REDOPT_MSG_FLOWS_RANGE);
		break;
	case REDOPT_WHY_SS_REQUIRED:
		NL_SET_ERR_MSG(extack, REDOPT_MSG_SS_REQUIRED);
		break;
	case REDOPT_WHY_SS_COUNT:
		NL_SET_ERR_MSG(extack, REDOPT_MSG_SS_COUNT);
		break;
	case REDOPT_WHY_SS_RANGE:
		NL_SET_ERR_MSG(extack, REDOPT_MSG_SS_RANGE);
		break;
	case REDOPT_WHY_WINDOW_RANGE:
		NL_SET_ERR_MSG(extack, REDOPT_MSG_WINDOW_RANGE);
		break;
	case REDOPT_WHY_MIN_REQUIRED:
		NL_SET_ERR_MSG(extack, REDOPT_MSG_MIN_REQUIRED);
		break;
	case REDOPT_WHY_MIN_RANGE:
		NL_SET_ERR_MSG(extack, REDOPT_MSG_MIN_RANGE);
		break;
	case REDOPT_WHY_MAX_P:
		NL_SET_ERR_MSG(extack, REDOPT_MSG_MAX_P);
		break;
	case REDOPT_WHY_WLOG_RANGE:
		NL_SET_ERR_MSG(extack, REDOPT_MSG_WLOG_RANGE);
		break;
	case REDOPT_WHY_AVPKT_REQUIRED:
		NL_SET_ERR_MSG(extack, REDOPT_MSG_AVPKT_REQUIRED);
		break;
	case REDOPT_WHY_AVPKT_RANGE:
		NL_SET_ERR_MSG(extack, REDOPT_MSG_AVPKT_RANGE);
		break;
	case REDOPT_WHY_QMAX_RANGE:
		NL_SET_ERR_MSG(extack, REDOPT_MSG_QMAX_RANGE);
		break;
	case REDOPT_WHY_MAX_TH_WLOG:
		NL_SET_ERR_MSG(extack, REDOPT_MSG_MAX_TH_WLOG);
		break;
	case REDOPT_WHY_PEAKS:
		NL_SET_ERR_MSG(extack, REDOPT_MSG_PEAKS);
		break;
	default:
		NL_SET_ERR_MSG_MOD(extack, "invalid redopt parameters");
	}
}

/*
 * init and change: build the new configuration from the old one and the
 * attributes given, validate it with the model (the one check every entry
 * point shares), then swap it in under the tree lock, so a change while
 * traffic flows is atomic and a rejected one changes nothing.
 */
static int redopt_change(struct Qdisc *sch, struct nlattr *opt,
			 struct netlink_ext_ack *extack)
{
	struct redopt_sched_data *q = qdisc_priv(sch);
	struct nlattr *tb[TCA_REDOPT_MAX + 1];
	struct redopt_model_params p;
	u32 *new_ss = NULL, *old_ss;
	struct redopt_cfg c;
	struct redopt_model m;
	unsigned int dropped_pkts = 0, dropped_bytes = 0;
	const char *why = NULL;
	u32 flows;
	int err;

	if (!opt) {
		NL_SET_ERR_MSG_MOD(extack,
				   "options required: bandwidth, rtt, ssthresh, min, probability");
		return -EINVAL;
	}
	err = nla_parse_nested(tb, TCA_REDOPT_MAX, opt, redopt_policy, extack);
	if (err < 0)
		return err;

	c = q->cfg;
	if (tb[TCA_REDOPT_BANDWIDTH])
		c.bandwidth = nla_get_u64(tb[TCA_REDOPT_BANDWIDTH]);
	if (tb[TCA_REDOPT_RTT])
		c.rtt_us = nla_get_u32(tb[TCA_REDOPT_RTT]);
	if (tb[TCA_REDOPT_FLOWS])
		c.flows = nla_get_u32(tb[TCA_REDOPT_FLOWS]);
	if (tb[TCA_REDOPT_WINDOW])
		c.window = nla_get_u32(tb[TCA_REDOPT_WINDOW]);
	if (tb[TCA_REDOPT_MIN])
		c.min_th = nla_get_u32(tb[TCA_REDOPT_MIN]);
	if (tb[TCA_REDOPT_MAX_P])
		c.max_p = nla_get_u32(tb[TCA_REDOPT_MAX_P]);
	if (tb[TCA_REDOPT_WLOG])
		c.wlog = nla_get_u8(tb[TCA_REDOPT_WLOG]);
	if (tb[TCA_REDOPT_AVPKT])
		c.avpkt = nla_get_u32(tb[TCA_REDOPT_AVPKT]);
	if (tb[TCA_REDOPT_FLAGS])
		c.flags = nla_get_u32(tb[TCA_REDOPT_FLAGS]);
	if (tb[TCA_REDOPT_LOSS_RATE])
		c.loss_rate = nla_get_u32(tb[TCA_REDOPT_LOSS_RATE]);
	if (tb[TCA_REDOPT_SSTHRESH]) {
		int len = nla_len(tb[TCA_REDOPT_SSTHRESH]);

		if (len <= 0 || len % sizeof(u32)) {
			NL_SET_ERR_MSG_ATTR(extack, tb[TCA_REDOPT_SSTHRESH],
					    "ssthresh must be an array of u32 (1 or m values)");
			return -EINVAL;
		}
		new_ss = kmemdup(nla_data(tb[TCA_REDOPT_SSTHRESH]), len, GFP_KERNEL);
		if (!new_ss)
			return -ENOMEM;
		c.ssthresh = new_ss;
		c.n_ssthresh = len / sizeof(u32);
	}

	/* Validate with the model: with m given, or m = 1 for "auto" (the
	 * estimator's starting point; each later estimate is checked again).
	 */
	flows = c.flows ? c.flows : max_t(u32, READ_ONCE(q->fe_est), 1);
	redopt_params(&c, flows, !c.flows, &p);
	if (c.flows == 0 && c.n_ssthresh > 1) {
		NL_SET_ERR_MSG_MOD(extack, "flows auto takes one ssthresh for every flow");
		err = -EINVAL;
		goto err_free;
	}
	err = redopt_model_compute(&p, &m, &why);
	if (err) {
		redopt_set_err(extack, why);
		goto err_free;
	}
	if (!red_check_params(m.qth_min, m.qth_max, c.wlog, 0, NULL)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "thresholds too large for the EWMA weight (max_th << Wlog)");
		err = -ERANGE;
		goto err_free;
	}

	sch_tree_lock(sch);
	old_ss = q->cfg.ssthresh;
	if (!new_ss)
		old_ss = NULL;	/* the array stays */
	q->cfg = c;
	q->xmit_q16 = red_idle_xmit_q16(c.avpkt, c.bandwidth);
	redopt_apply(q, &m, flows);
	red_set_vars(&q->vars);
	if (!sch->q.qlen)
		red_start_of_idle_period(&q->vars);
	bitmap_zero(q->fe_bits, REDOPT_FE_BITS);
	q->fe_hold = (struct fe_hold){ 0, 0 };
	if (redopt_adaptive(&c))
		mod_timer(&q->fe_timer, jiffies + redopt_fe_window(&c));
	else	/* a running callback sees a fixed m and stops */
		WRITE_ONCE(q->fe_est, flows);
	/* shrinking the limit trims the queue, drops accounted */
	while (sch->q.qlen > q->limit) {
		struct sk_buff *skb = qdisc_dequeue_head(sch);

		dropped_pkts++;
		dropped_bytes += qdisc_pkt_len(skb);
		WRITE_ONCE(q->stats.overflow, q->stats.overflow + 1);
		rtnl_qdisc_drop(skb, sch);
	}
	qdisc_tree_reduce_backlog(sch, dropped_pkts, dropped_bytes);
	sch_tree_unlock(sch);
	kfree(old_ss);
	return 0;

err_free:
	kfree(new_ss);
	return err;
}

static int redopt_init(struct Qdisc *sch, struct nlattr *opt,
		       struct netlink_ext_ack *extack)
{
	struct redopt_sched_data *q = qdisc_priv(sch);

	q->cfg.wlog = REDOPT_DEFAULT_WLOG;
	q->cfg.avpkt = REDOPT_DEFAULT_AVPKT;
	q->fe_est = 1;
	q->sch = sch;
	timer_setup(&q->fe_timer, redopt_fe_timer, 0);
	get_random_bytes(&q->fe_key, sizeof(q->fe_key));
	red_set_vars(&q->vars);
	return redopt_change(sch, opt, extack);
}

static void redopt_destroy(struct Qdisc *sch)
{
	struct redopt_sched_data *q = qdisc_priv(sch);

	del_timer_sync(&q->fe_timer);
	kfree(q->cfg.ssthresh);
	q->cfg.ssthresh = NULL;
}

/* ---- dump ---------------------------------------------------------------- */

static int redopt_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct redopt_sched_data *q = qdisc_priv(sch);
	const struct redopt_cfg *c = &q->cfg;
	const struct redopt_model *m = &q->model;
	struct nlattr *opts;

	opts = nla_nest_start(skb, TCA_OPTIONS);
	if (!opts)
		goto nla_put_failure;
	if (nla_put_u64_64bit(skb, TCA_REDOPT_BANDWIDTH, c->bandwidth, TCA_REDOPT_PAD) ||
	    nla_put_u32(skb, TCA_REDOPT_RTT, c->rtt_us) ||
	    nla_put_u32(skb, TCA_REDOPT_FLOWS, c->flows) ||
	    nla_put(skb, TCA_REDOPT_SSTHRESH, c->n_ssthresh * sizeof(u32), c->ssthresh) ||
	    (c->window && nla_put_u32(skb, TCA_REDOPT_WINDOW, c->window)) ||
	    nla_put_u32(skb, TCA_REDOPT_MIN, c->min_th) ||
	    nla_put_u32(skb, TCA_REDOPT_MAX_P, c->max_p) ||
	    nla_put_u8(skb, TCA_REDOPT_WLOG, c->wlog) ||
	    nla_put_u32(skb, TCA_REDOPT_AVPKT, c->avpkt) ||
	    nla_put_u32(skb, TCA_REDOPT_FLAGS, c->flags) ||
	    (c->loss_rate && nla_put_u32(skb, TCA_REDOPT_LOSS_RATE, c->loss_rate)) ||
	    nla_put_u32(skb, TCA_REDOPT_BUFFER, m->buffer) ||
	    nla_put_u32(skb, TCA_REDOPT_LIMIT, READ_ONCE(q->limit)) ||
	    nla_put_u32(skb, TCA_REDOPT_QTH_MIN, m->qth_min) ||
	    nla_put_u32(skb, TCA_REDOPT_QTH_MAX, m->qth_max) ||
	    nla_put_u32(skb, TCA_REDOPT_QMAX, m->qmax_milli) ||
	    nla_put_u32(skb, TCA_REDOPT_FLOWS_EST, READ_ONCE(q->flows_in_force)) ||
	    (m->m_bound_valid && nla_put_u32(skb, TCA_REDOPT_M_BOUND, m->m_bound)))
		goto nla_put_failure;
	return nla_nest_end(skb, opts);

nla_put_failure:
	nla_nest_cancel(skb, opts);
	return -EMSGSIZE;
}

static int redopt_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	struct redopt_sched_data *q = qdisc_priv(sch);
	struct tc_redopt_xstats st = {
		.marked		= READ_ONCE(q->stats.marked),
		.early		= READ_ONCE(q->stats.early),
		.forced		= READ_ONCE(q->stats.forced),
		.overflow	= READ_ONCE(q->stats.overflow),
		.flows_est	= READ_ONCE(q->fe_est),
		.qth_min	= q->model.qth_min,
		.qth_max	= q->model.qth_max,
		.limit		= READ_ONCE(q->limit),
		/* qavg is scaled by 2^Wlog; report 1/1000 packet */
		.qavg		= (u32)min_t(u64, ((u64)q->vars.qavg * REDOPT_MILLI) >>
					     q->parms.Wlog, U32_MAX),
		.recomputes	= READ_ONCE(q->stats.recomputes),
		.forced_mark	= READ_ONCE(q->stats.forced_mark),
	};

	return gnet_stats_copy_app(d, &st, sizeof(st));
}

static struct Qdisc_ops redopt_qdisc_ops __read_mostly = {
	.id		= "redopt",
	.priv_size	= sizeof(struct redopt_sched_data),
	.enqueue	= redopt_enqueue,
	.dequeue	= redopt_dequeue,
	.peek		= qdisc_peek_head,
	.init		= redopt_init,
	.reset		= redopt_reset,
	.destroy	= redopt_destroy,
	.change		= redopt_change,
	.dump		= redopt_dump,
	.dump_stats	= redopt_dump_stats,
	.owner		= THIS_MODULE,
};

static int __init redopt_module_init(void)
{
	return register_qdisc(&redopt_qdisc_ops);
}

static void __exit redopt_module_exit(void)
{
	unregister_qdisc(&redopt_qdisc_ops);
}

module_init(redopt_module_init);
module_exit(redopt_module_exit);

MODULE_AUTHOR("specnet");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("redopt: ECN RED dimensioned by an analytical buffer model");
MODULE_ALIAS("net-sch-redopt");
MODULE_VERSION("0.1");

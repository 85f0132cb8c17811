/* SPDX-License-Identifier: GPL-2.0 */
/*
 * specnet: the kernel side of the delay signal and circuit breaker
 * (kernel/include/specnet/qdelay.h) that tcp_spec and tcp_cpecn share: the
 * bounded qd_* module parameters (defined here, so include this header
 * from one file of a module) and the per-ACK accounting.
 */
#ifndef _SPECNET_QDELAY_GLUE_H
#define _SPECNET_QDELAY_GLUE_H

#include <linux/moduleparam.h>
#include <linux/printk.h>
#include <net/tcp.h>

#include "cc_common.h"
#include <specnet/qdelay.h>

/*
 * The qd_* module parameters, bounded as qd_check_params() says: one set
 * per module, so each congestion-control module includes this header from
 * one file only (tcp_spec.c; tcp_cpecn.c, for cpecn and wecn alike).
 */
static struct qd_params specnet_qd __read_mostly = QD_PARAMS_DEFAULT;

static const char *specnet_qd_why(const void *p)
{
	const char *why = NULL;

	return qd_check_params(p, &why) ? why : NULL;
}

static int specnet_qd_set(const char *val, const struct kernel_param *kp)
{
	struct qd_params p = specnet_qd;

	return specnet_param_set_member(val, kp, &p, &specnet_qd, sizeof(p),
					specnet_qd_why);
}

static const struct kernel_param_ops specnet_qd_ops = {
	.set = specnet_qd_set,
	.get = param_get_uint,
};
module_param_cb(qd_enable, &specnet_qd_ops, &specnet_qd.enable, 0644);
MODULE_PARM_DESC(qd_enable,
		 "before the first ECN-Echo, a loss with a standing queue is congestion; a loss rate far above corruption's trips a breaker (0..1, default 1)");
module_param_cb(qd_loss_us, &specnet_qd_ops, &specnet_qd.loss_us, 0644);
MODULE_PARM_DESC(qd_loss_us,
		 "least queueing delay that makes a loss congestion (where the flow's queue drained under it lately), us (100..1000000, default 5000)");
module_param_cb(qd_loss_pct, &specnet_qd_ops, &specnet_qd.loss_pct, 0644);
MODULE_PARM_DESC(qd_loss_pct,
		 "a standing queue, percentage of the min RTT: a loss with more cuts by 1/8 to 1/2, with less (from qd_loss_us, where the queue drained under that lately) drains the queue (1..100, default 25)");
module_param_cb(qd_win_ms, &specnet_qd_ops, &specnet_qd.win_ms, 0644);
MODULE_PARM_DESC(qd_win_ms,
		 "window of the min RTT and delivery-rate filters, ms (1000..600000, default 300000)");
module_param_cb(qd_brk_floor, &specnet_qd_ops, &specnet_qd.brk_floor, 0644);
MODULE_PARM_DESC(qd_brk_floor,
		 "circuit breaker: least loss fraction of a round over its limit (two in a row trip it), per-mille (1..1000, default 50)");
module_param_cb(qd_brk_mult, &specnet_qd_ops, &specnet_qd.brk_mult, 0644);
MODULE_PARM_DESC(qd_brk_mult,
		 "... and at least this many times the corruption baseline (2..100, default 3)");

/* A snapshot of the parameters, read once per use. */
static inline void specnet_qd_params_read(const struct qd_params *base,
					  struct qd_params *p)
{
	p->enable = READ_ONCE(base->enable);
	p->loss_us = READ_ONCE(base->loss_us);
	p->loss_pct = READ_ONCE(base->loss_pct);
	p->win_ms = READ_ONCE(base->win_ms);
	p->brk_floor = READ_ONCE(base->brk_floor);
	p->brk_mult = READ_ONCE(base->brk_mult);
}

/*
 * Per ACK, from pkts_acked (called for every ACK, in recovery too): the
 * RTT sample (to the step detector once a loss was judged, then to
 * the filters), the stack's latest delivery-rate sample (not app-limited;
 * qd_rate_sample() leaves out a timeout's, qd_rate_held()), and
 * the round and breaker accounting. Returns qd_ack()'s QD_ACK_* bits.
 */
static inline unsigned int specnet_qd_acked(struct sock *sk,
					    struct qd_state *s,
					    const struct qd_params *p,
					    const struct ack_sample *sample)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	if (sample->rtt_us > 0) {
		qd_step_sample(s, p, sample->rtt_us);
		qd_rtt_sample(s, p, (u32)tp->tcp_mstamp, sample->rtt_us);
	}
	if (!tp->rate_app_limited)
		qd_rate_sample(s, tp->rate_delivered, tp->rate_interval_us);
	return qd_ack(s, p, tp->delivered, tp->lost, tcp_packets_in_flight(tp));
}

/*
 * From set_state, before the state changes (and after ssthresh, whose
 * verdict on the timeout reads the queue that stood before it): a
 * retransmission timeout's Loss, entered from another state (a later
 * timeout of the same episode is no new drain), lowers the step detector's
 * level (qd_timeout()), then forgets the RTT of before it and holds the
 * delivery-rate samples (qd_loss_state()); leaving it starts the hold's
 * last rounds.
 */
static inline void specnet_qd_set_state(struct sock *sk, struct qd_state *s,
					u8 new_state)
{
	bool loss = new_state == TCP_CA_Loss;
	struct qd_params p;

	if (loss == (inet_csk(sk)->icsk_ca_state == TCP_CA_Loss))
		return;
	if (loss) {
		specnet_qd_params_read(&specnet_qd, &p);
		qd_timeout(s, &p);
	}
	qd_loss_state(s, loss);
}

#endif /* _SPECNET_QDELAY_GLUE_H */

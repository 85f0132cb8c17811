/* SPDX-License-Identifier: GPL-2.0 */
/*
 * specnet: the kernel side of the delay signal and circuit breaker
 * (kernel/include/specnet/qdelay.h) that tcp_spec and tcp_cpecn share: the
 * bounded qd_* module parameters and the per-ACK accounting.
 */
#ifndef _SPECNET_QDELAY_GLUE_H
#define _SPECNET_QDELAY_GLUE_H

#include <linux/moduleparam.h>
#include <linux/printk.h>
#include <linux/string.h>
#include <net/tcp.h>

#include <specnet/qdelay.h>

/*
 * Set the qd_* parameter @kp (its arg points into @base) from @val: the
 * whole set is checked with the new value (qd_check_params()), and a value
 * refused is logged with the reason and changes nothing.
 */
static inline int specnet_qd_param_set(struct qd_params *base, const char *val,
				       const struct kernel_param *kp)
{
	struct qd_params p = *base;
	size_t off = (const char *)kp->arg - (const char *)base;
	u32 *field = (u32 *)((char *)&p + off);
	const char *why;
	int ret;

	if (off >= sizeof(p))
		return -EINVAL;
	ret = kstrtouint(val, 0, field);
	if (ret) {
		pr_err("%s: '%s' is not a number\n", kp->name,
		       strim((char *)val));
		return ret;
	}
	if (qd_check_params(&p, &why)) {
		pr_err("%s=%u refused: %s\n", kp->name, *field, why);
		return -EINVAL;
	}
	WRITE_ONCE(*(u32 *)kp->arg, *field);
	return 0;
}

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
 * RTT sample, the stack's latest delivery-rate sample (not app-limited),
 * and the round and breaker accounting. Returns true when the breaker
 * tripped.
 */
static inline bool specnet_qd_acked(struct sock *sk, struct qd_state *s,
				    const struct qd_params *p,
				    const struct ack_sample *sample)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	if (sample->rtt_us > 0)
		qd_rtt_sample(s, p, (u32)tp->tcp_mstamp, sample->rtt_us);
	if (!tp->rate_app_limited)
		qd_rate_sample(s, tp->rate_delivered, tp->rate_interval_us);
	return qd_ack(s, p, tp->delivered, tp->lost, tcp_packets_in_flight(tp));
}

#endif /* _SPECNET_QDELAY_GLUE_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * CPECN (tcp_cpecn): loss differentiation from the congestion probability of
 * a sequence of ECN-Echo bits, and the single-bit WECN baseline.
 *
 * One ECE bit says little: the receiver echoes a CE mark on every ACK until
 * the sender's CWR arrives, and a loss may come just before or after such a
 * run. CPECN keeps the ECE bits of the last m ACKs, weighs newer segments
 * more, and calls a loss congestion only while that congestion probability
 * is rising. The maths lives in kernel/include/specnet/cpecn.h; this file
 * glues it to tcp_congestion_ops. Two controls are registered:
 *
 *   cpecn   loss event (fast-recovery entry or RTO):
 *             dCP > 0   -> congestion: the base algorithm's decrease
 *             dCP <= 0  -> corruption: ssthresh = cwnd (retransmit only)
 *   wecn    the same, decided by the ECE bit of the ACK that revealed the
 *           loss alone (the papers' baseline)
 *
 *   every ACK (in_ack_event, which the stack calls before it looks for a
 *     loss): its ECE bit is pushed into the window, so the ACK that reveals
 *     a loss is part of the verdict;
 *   new ACK with ECE, no loss: the base algorithm's ECN response (the
 *     stack's CWR state, once per window), whatever dCP says;
 *   growth: Reno slow start and additive increase.
 *
 * Base algorithm (module parameter base=, read when a connection starts):
 *   reno      decrease to max(cwnd / 2, 2)
 *   westwood  decrease to max(BWE * RTTmin, 2) (Westwood+): BWE is the
 *             delivery rate (tp->delivered, which counts SACKed segments
 *             too) sampled once per max(srtt, 50 ms) and filtered twice
 *             with gain 1/8 as tcp_westwood.c does; RTTmin is the stack's
 *             windowed minimum (tcp_min_rtt()). Reno's decrease until the
 *             first sample exists.
 *
 * Where the bottleneck never marks, dCP stays 0 and every loss would be
 * corruption: a loss judged corruption is congestion if the queueing delay
 * is above the threshold (until the first ECE; the window then goes down
 * to what the path delivers, qd_reduced_cwnd()) or the circuit breaker
 * tripped (the base decrease), and until the first ECE growth stops at
 * qd_cwnd_cap_at()'s cap: two BDPs in the first slow start (from its third
 * round: qd_first_cap_due()), then one with
 * half the threshold's queue, or one and a half while the bottleneck is
 * shared
 * (kernel/include/specnet/qdelay.h, qd_* parameters).
 *
 * Without negotiated ECN there is no congestion signal: such a connection
 * runs the base algorithm with every loss judged congestion, without ECT
 * (its icsk_ca_ops become the unregistered "cpecn-base", same owner, as
 * tcp_spec does), and is counted in non_ecn_connections.
 *
 * Parameters (validated by cpecn_check_params(), refused with a reason in
 * dmesg): m (ACKs in the window, 4..32, multiple of 4, default 8), alpha
 * (per-mille, 1..999, default 250), base (reno | westwood). m and alpha
 * apply to live connections from their next ACK (published with RCU).
 *
 * Per-socket state for users: `ss -ti` (INET_DIAG_DCTCPINFO, a layout ss
 * already decodes) shows dctcp:(ce_state:<low 16 bits of the window, newest
 * ACK in bit 0>,alpha:<CP in ppm>,ab_ecn:<ECE ACKs>,ab_tot:<ACKs>); a
 * connection without ECN shows "dctcp fallback mode".
 *
 * Counters per network namespace: /proc/net/tcp_cpecn and /proc/net/tcp_wecn
 * (loss_events, loss_congestion, loss_corruption, ece_reductions,
 * non_ecn_connections).
 *
 * Deviations and choices:
 *  - after an RTO judged corruption the stack has already set cwnd to 1
 *    (tcp_enter_loss()); to keep the window as the verdict says, the
 *    pre-loss cwnd is restored on the first ACK of new data (the
 *    retransmission got through), and internal pacing, enabled for every
 *    ECN connection as tcp_spec and BBR do, spreads that window over an
 *    RTT instead of a burst.
 *  - an RTO is judged on the last ACK's dCP (or ECE bit for wecn): no ACK
 *    reveals it.
 *  - a loss while already in CWR (an ECE reduction in progress) does not
 *    reach ssthresh() and is counted as congestion, as the stack treats it.
 *  - CWR without an ECE (local congestion, NET_XMIT_CN) is congestion.
 *  - our SYNs go out not-ECT, so that stock receivers accept ECN
 *    (kernel/ecn_syn.h).
 *
 * Paper: CPECN, congestion probability from ECN-Echo sequences;
 * docs/algorithms.md (CPECN) records the reading.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/math64.h>
#include <linux/inet_diag.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/tcp.h>
#include <net/inet_ecn.h>

#include "compat.h"
#include "cc_common.h"
#include "ecn_syn.h"
#include "qdelay_glue.h"
#include <specnet/cpecn.h>

/* ---- parameters -------------------------------------------------------- */

enum cpecn_base {
	CPECN_BASE_RENO,
	CPECN_BASE_WESTWOOD,
	CPECN_BASE_MAX
};

static const char * const cpecn_base_names[CPECN_BASE_MAX] = {
	[CPECN_BASE_RENO]	= "reno",
	[CPECN_BASE_WESTWOOD]	= "westwood",
};

/* The window weights, replaced whole when m or alpha change. */
struct cpecn_cfg {
	struct cpecn_params	p;
	struct rcu_head		rcu;
};

static struct cpecn_cfg __rcu *cpecn_cfg;
static DEFINE_MUTEX(cpecn_cfg_lock);
static unsigned int cpecn_m = CPECN_DEFAULT_M;
static unsigned int cpecn_alpha = CPECN_DEFAULT_ALPHA;
static unsigned int cpecn_base = CPECN_BASE_RENO;

/* Check (m, alpha) and publish their weights; the caller holds the lock.
 * A pair refused sets *@why.
 */
static int cpecn_cfg_publish(unsigned int m, unsigned int alpha,
			     const char **why)
{
	struct cpecn_cfg *new, *old;

	if (cpecn_check_params(m, alpha, why))
		return -EINVAL;
	new = kzalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	if (cpecn_params_init(&new->p, m, alpha)) {
		kfree(new);
		return -EINVAL;
	}
	old = rcu_replace_pointer(cpecn_cfg, new,
				  lockdep_is_held(&cpecn_cfg_lock));
	if (old)
		kfree_rcu(old, rcu);
	WRITE_ONCE(cpecn_m, m);
	WRITE_ONCE(cpecn_alpha, alpha);
	return 0;
}

/* m and alpha: one setter, the other value taken from what is in force. */
static int cpecn_param_set_window(const char *val, const struct kernel_param *kp)
{
	bool is_m = kp->arg == &cpecn_m;
	unsigned int m, alpha, v;
	const char *why = NULL;
	int ret;

	ret = kstrtouint(val, 0, &v);
	if (ret) {
		specnet_param_refused(kp, val, "not a number (%s)",
				      is_m ? "ACKs, 4..32, a multiple of 4" :
					     "per-mille, 1..999");
		return ret;
	}
	mutex_lock(&cpecn_cfg_lock);
	m = is_m ? v : cpecn_m;
	alpha = is_m ? cpecn_alpha : v;
	ret = cpecn_cfg_publish(m, alpha, &why);
	mutex_unlock(&cpecn_cfg_lock);
	if (ret == -EINVAL && why)
		specnet_param_refused(kp, val, "%s (m=%u alpha=%u)", why, m,
				      alpha);
	return ret;
}

static const struct kernel_param_ops cpecn_window_ops = {
	.set = cpecn_param_set_window,
	.get = param_get_uint,
};

module_param_cb(m, &cpecn_window_ops, &cpecn_m, 0644);
MODULE_PARM_DESC(m, "ECE bits of the last m ACKs in the CP window (4..32, a multiple of 4, default 8)");
module_param_cb(alpha, &cpecn_window_ops, &cpecn_alpha, 0644);
MODULE_PARM_DESC(alpha, "weight ratio of an older segment to the next newer one, per-mille (1..999, default 250)");

static struct specnet_enum_param cpecn_param_base = {
	&cpecn_base, cpecn_base_names, ARRAY_SIZE(cpecn_base_names),
	"reno | westwood"
};
module_param_cb(base, &specnet_enum_param_ops, &cpecn_param_base, 0644);
MODULE_PARM_DESC(base, "base algorithm for the decrease: reno (default) or westwood (read at connection start)");

/* ---- per-netns counters ----------------------------------------------- */

enum cpecn_algo {
	CPECN_ALGO_CPECN,
	CPECN_ALGO_WECN,
	CPECN_ALGO_MAX
};

enum cpecn_counter {
	CPECN_CNT_LOSS,		/* loss events (recovery entries, RTOs) */
	CPECN_CNT_CONGEST,	/* ... judged congestion (decrease) */
	CPECN_CNT_CORRUPT,	/* ... judged corruption (cwnd kept) */
	CPECN_CNT_ECE_RED,	/* cwnd reductions caused by ECN-Echo */
	CPECN_CNT_NON_ECN,	/* connections without negotiated ECN */
	CPECN_CNT_DELAY,	/* losses judged congestion by the delay/breaker */
	CPECN_CNT_BREAKER,	/* circuit-breaker trips */
	CPECN_CNT_STEP,		/* min RTT moved up with a path step */
	CPECN_CNT_MAX
};

static const char * const cpecn_counter_names[CPECN_CNT_MAX] = {
	[CPECN_CNT_LOSS]	= "loss_events",
	[CPECN_CNT_CONGEST]	= "loss_congestion",
	[CPECN_CNT_CORRUPT]	= "loss_corruption",
	[CPECN_CNT_ECE_RED]	= "ece_reductions",
	[CPECN_CNT_NON_ECN]	= "non_ecn_connections",
	[CPECN_CNT_DELAY]	= "delay_congestion",
	[CPECN_CNT_BREAKER]	= "breaker_trips",
	[CPECN_CNT_STEP]	= "path_steps",
};

/* One file per control, the same counters in each. */
static const struct specnet_counters_def cpecn_counters[CPECN_ALGO_MAX] = {
	[CPECN_ALGO_CPECN] = { "tcp_cpecn", cpecn_counter_names, CPECN_CNT_MAX },
	[CPECN_ALGO_WECN]  = { "tcp_wecn", cpecn_counter_names, CPECN_CNT_MAX },
};

struct cpecn_net {
	struct specnet_counters cnt[CPECN_ALGO_MAX];
};

static unsigned int cpecn_net_id __read_mostly;

static int __net_init cpecn_net_init(struct net *net)
{
	struct cpecn_net *cn = net_generic(net, cpecn_net_id);
	int ret;

	ret = specnet_ecn_syn_register(net);
	if (ret)
		return ret;
	ret = specnet_counters_init(net, &cn->cnt[CPECN_ALGO_CPECN],
				    &cpecn_counters[CPECN_ALGO_CPECN]);
	if (ret)
		goto err_syn;
	ret = specnet_counters_init(net, &cn->cnt[CPECN_ALGO_WECN],
				    &cpecn_counters[CPECN_ALGO_WECN]);
	if (ret)
		goto err_cpecn;
	return 0;

err_cpecn:
	specnet_counters_exit(net, &cn->cnt[CPECN_ALGO_CPECN]);
err_syn:
	specnet_ecn_syn_unregister(net);
	return ret;
}

static void __net_exit cpecn_net_exit(struct net *net)
{
	struct cpecn_net *cn = net_generic(net, cpecn_net_id);

	specnet_counters_exit(net, &cn->cnt[CPECN_ALGO_WECN]);
	specnet_counters_exit(net, &cn->cnt[CPECN_ALGO_CPECN]);
	specnet_ecn_syn_unregister(net);
}

static struct pernet_operations cpecn_net_ops = {
	.init = cpecn_net_init,
	.exit = cpecn_net_exit,
	.id   = &cpecn_net_id,
	.size = sizeof(struct cpecn_net),
};

/* ---- per-socket state -------------------------------------------------- */

enum cpecn_verdict {
	CPECN_VERDICT_NONE,	/* no ssthresh() call since the last set_state */
	CPECN_VERDICT_CONGEST,
	CPECN_VERDICT_CORRUPT,
	CPECN_VERDICT_DELAY,	/* congestion by the delay signal or breaker */
};

#define CPECN_BW_MIN_WIN_US	(50 * USEC_PER_MSEC)	/* tcp_westwood's */
#define CPECN_BW_SHIFT		8	/* bandwidth: packets/s, Q8 */

struct cpecn_ca {
	struct cpecn_state win;	/* the CP window */
	struct qd_state qd;	/* delay signal and circuit breaker */
	u64 bw_ns_est;		/* Westwood+: first filter, pkts/s Q8 */
	u64 bw_est;		/* ... second filter, pkts/s Q8, 0: none */
	u32 bw_t0_us;		/* start of the bandwidth sample */
	u32 bw_delivered;	/* tp->delivered at bw_t0_us */
	u32 acks;		/* ACKs seen (ss: ab_tot) */
	u32 ece_acks;		/* ... with ECE (ss: ab_ecn) */
	u8  algo;		/* enum cpecn_algo */
	u8  base;		/* enum cpecn_base */
	u8  verdict;		/* enum cpecn_verdict: ssthresh() -> set_state() */
	u8  bw_started:1,	/* bw_t0_us / bw_delivered are valid */
	    unused:7;
	u32 restore_cwnd;	/* cwnd to restore after an RTO, 0: none */
};

static struct tcp_congestion_ops tcp_cpecn;
static struct tcp_congestion_ops tcp_wecn;
static struct tcp_congestion_ops tcp_cpecn_base;

static void cpecn_count(const struct sock *sk, enum cpecn_counter c)
{
	struct cpecn_net *cn = net_generic(sock_net(sk), cpecn_net_id);
	const struct cpecn_ca *ca = inet_csk_ca(sk);

	specnet_count(&cn->cnt[ca->algo], c);
}

static void cpecn_init(struct sock *sk)
{
	const struct tcp_congestion_ops *ops = inet_csk(sk)->icsk_ca_ops;
	struct cpecn_ca *ca = inet_csk_ca(sk);

	memset(ca, 0, sizeof(*ca));
	cpecn_reset(&ca->win);
	ca->algo = ops == &tcp_wecn ? CPECN_ALGO_WECN : CPECN_ALGO_CPECN;
	ca->base = READ_ONCE(cpecn_base);
	if (specnet_ecn_fallback(sk, &tcp_cpecn_base)) {
		/* no ECN: the base algorithm, every loss congestion */
		cpecn_count(sk, CPECN_CNT_NON_ECN);
		return;
	}
	qd_init(&ca->qd);
	specnet_pacing_enable(sk);
}

/* The base algorithm's multiplicative decrease from the current cwnd. */
static u32 cpecn_decrease(struct sock *sk)
{
	const struct cpecn_ca *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	u32 rtt_min = tcp_min_rtt(tp);
	u64 pkts;

	if (ca->base != CPECN_BASE_WESTWOOD || !ca->bw_est || rtt_min == ~0U)
		return tcp_reno_ssthresh(sk);
	pkts = mul_u64_u32_div(ca->bw_est, rtt_min, USEC_PER_SEC) >>
	       CPECN_BW_SHIFT;
	return max_t(u32, min_t(u64, pkts, tp->snd_cwnd_clamp), 2U);
}

/* Westwood+ bandwidth estimate, one sample per max(srtt, 50 ms). */
static void cpecn_bw_update(struct sock *sk, struct cpecn_ca *ca)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	u32 now = (u32)tp->tcp_mstamp;
	u32 win = max_t(u32, tp->srtt_us >> 3, CPECN_BW_MIN_WIN_US);
	u32 dt = now - ca->bw_t0_us;
	u64 sample;

	if (!ca->bw_started) {
		ca->bw_started = 1;
		ca->bw_t0_us = now;
		ca->bw_delivered = tp->delivered;
		return;
	}
	if (dt < win)
		return;
	/* packets (< 2^32) * 10^6 * 2^8 < 2^60 */
	sample = div_u64(((u64)(tp->delivered - ca->bw_delivered) *
			  USEC_PER_SEC) << CPECN_BW_SHIFT, dt);
	ca->bw_t0_us = now;
	ca->bw_delivered = tp->delivered;
	if (!ca->bw_est) {
		ca->bw_ns_est = sample;
		ca->bw_est = sample;
		return;
	}
	ca->bw_ns_est = (7 * ca->bw_ns_est + sample) >> 3;
	ca->bw_est = (7 * ca->bw_est + ca->bw_ns_est) >> 3;
}

static void cpecn_in_ack_event(struct sock *sk, u32 flags)
{
	struct cpecn_ca *ca = inet_csk_ca(sk);
	bool ece = (flags & CA_ACK_ECE) && specnet_ecn_ok(tcp_sk(sk));
	const struct cpecn_cfg *cfg;

	rcu_read_lock();
	cfg = rcu_dereference(cpecn_cfg);
	cpecn_push(&ca->win, &cfg->p, ece);
	rcu_read_unlock();
	ca->acks++;
	ca->ece_acks += ece;
	if (ca->base == CPECN_BASE_WESTWOOD)
		cpecn_bw_update(sk, ca);
}

static u32 cpecn_ssthresh(struct sock *sk)
{
	struct cpecn_ca *ca = inet_csk_ca(sk);
	enum qd_verdict qv = QD_QUIET;
	struct qd_params qdp;
	bool congested;

	if (!specnet_ecn_ok(tcp_sk(sk)))
		congested = true;
	else if (ca->algo == CPECN_ALGO_WECN)
		congested = cpecn_wecn_congested(cpecn_last_ece(&ca->win));
	else
		congested = cpecn_congested(&ca->win);
	if (!congested && specnet_ecn_ok(tcp_sk(sk))) {
		/* No ECN evidence: the breaker, and the queue until the
		 * first ECE shows that the bottleneck marks.
		 */
		specnet_qd_params_read(&specnet_qd, &qdp);
		qv = qd_loss_verdict(&ca->qd, &qdp);
		if (qv == QD_DELAY && ca->ece_acks)
			qv = QD_QUIET;
		congested = qv != QD_QUIET;
	}
	ca->verdict = qv != QD_QUIET ? CPECN_VERDICT_DELAY :
		      congested ? CPECN_VERDICT_CONGEST : CPECN_VERDICT_CORRUPT;
	if (qv == QD_DELAY) {
		/* a standing queue: down to what the path delivers */
		ca->restore_cwnd = 0;
		return qd_reduced_cwnd(&ca->qd, &qdp, tcp_snd_cwnd(tcp_sk(sk)));
	}
	ca->restore_cwnd = congested ? 0 : tcp_snd_cwnd(tcp_sk(sk));
	return congested ? cpecn_decrease(sk) : ca->restore_cwnd;
}

static void cpecn_set_state(struct sock *sk, u8 new_state)
{
	struct cpecn_ca *ca = inet_csk_ca(sk);
	u8 v = ca->verdict;

	ca->verdict = CPECN_VERDICT_NONE;
	specnet_qd_set_state(sk, &ca->qd, new_state);
	switch (new_state) {
	case TCP_CA_Recovery:
	case TCP_CA_Loss:
		if (v == CPECN_VERDICT_NONE) {
			/* No ssthresh() call: a loss during an ECE reduction
			 * (already reduced), or an RTO that continues the
			 * current episode.
			 */
			if (inet_csk(sk)->icsk_ca_state == TCP_CA_CWR) {
				cpecn_count(sk, CPECN_CNT_LOSS);
				cpecn_count(sk, CPECN_CNT_CONGEST);
			}
			break;
		}
		cpecn_count(sk, CPECN_CNT_LOSS);
		cpecn_count(sk, v == CPECN_VERDICT_CORRUPT ? CPECN_CNT_CORRUPT :
							     CPECN_CNT_CONGEST);
		if (v == CPECN_VERDICT_DELAY)
			cpecn_count(sk, CPECN_CNT_DELAY);
		if (new_state != TCP_CA_Loss)
			ca->restore_cwnd = 0;	/* recovery: cwnd is kept */
		break;
	case TCP_CA_CWR:
		if (v == CPECN_VERDICT_NONE)
			break;
		/* An ECE on a new ACK (or local congestion): the base
		 * algorithm's response, whatever the loss verdict said.
		 */
		ca->restore_cwnd = 0;
		if (v == CPECN_VERDICT_CORRUPT)
			tcp_sk(sk)->snd_ssthresh = cpecn_decrease(sk);
		if (cpecn_last_ece(&ca->win))
			cpecn_count(sk, CPECN_CNT_ECE_RED);
		break;
	default:
		break;
	}
}

static void cpecn_cong_avoid(struct sock *sk, u32 ack, u32 acked)
{
	struct cpecn_ca *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	struct qd_params qdp;
	bool full = tp->snd_ssthresh < TCP_INFINITE_SSTHRESH;
	u32 before, cap;

	if (ca->restore_cwnd && acked) {
		/* First ACK of new data after an RTO judged corruption */
		u32 cwnd = ca->restore_cwnd;

		ca->restore_cwnd = 0;
		if (specnet_cwnd_restore(tp, cwnd))
			return;
	}
	before = tcp_snd_cwnd(tp);
	tcp_reno_cong_avoid(sk, ack, acked);
	if (ca->ece_acks || !specnet_ecn_ok(tp) || tcp_snd_cwnd(tp) <= before ||
	    qd_cwnd_under_bdp(&ca->qd, tcp_snd_cwnd(tp)) ||
	    (!full && !qd_first_cap_due(tp->delivered)))
		return;
	/* Until the first ECE, growth stops at the delay signal's cap: two
	 * BDPs in slow start (from its third round: qd_first_cap_due()), one
	 * BDP plus the threshold once slow start is over (1.5 sharing).
	 */
	specnet_qd_params_read(&specnet_qd, &qdp);
	cap = qd_cwnd_cap_at(&ca->qd, &qdp, full, tcp_snd_cwnd(tp));
	if (tcp_snd_cwnd(tp) > cap)
		tcp_snd_cwnd_set(tp, max(before, cap));
}

/* Every ACK, in recovery too: the delay signal's samples and rounds. */
static void cpecn_pkts_acked(struct sock *sk, const struct ack_sample *sample)
{
	struct cpecn_ca *ca = inet_csk_ca(sk);
	struct qd_params qdp;
	unsigned int ev;

	if (!specnet_ecn_ok(tcp_sk(sk)))
		return;
	specnet_qd_params_read(&specnet_qd, &qdp);
	ev = specnet_qd_acked(sk, &ca->qd, &qdp, sample);
	if (ev & QD_ACK_TRIP)
		cpecn_count(sk, CPECN_CNT_BREAKER);
	if (ev & QD_ACK_STEP)
		cpecn_count(sk, CPECN_CNT_STEP);
}

static u32 cpecn_undo_cwnd(struct sock *sk)
{
	struct cpecn_ca *ca = inet_csk_ca(sk);

	ca->restore_cwnd = 0;	/* a spurious loss was undone */
	return tcp_reno_undo_cwnd(sk);
}

static size_t cpecn_get_info(struct sock *sk, u32 ext, int *attr,
			     union tcp_cc_info *info)
{
	const struct cpecn_ca *ca = inet_csk_ca(sk);

	if (!(ext & (1 << (INET_DIAG_DCTCPINFO - 1))) &&
	    !(ext & (1 << (INET_DIAG_VEGASINFO - 1))))
		return 0;
	memset(&info->dctcp, 0, sizeof(info->dctcp));
	if (specnet_ecn_ok(tcp_sk(sk))) {
		info->dctcp.dctcp_enabled = 1;
		info->dctcp.dctcp_ce_state = (u16)ca->win.bits;
		info->dctcp.dctcp_alpha = ca->win.cp;
		info->dctcp.dctcp_ab_ecn = ca->ece_acks;
		info->dctcp.dctcp_ab_tot = ca->acks;
	}
	*attr = INET_DIAG_DCTCPINFO;
	return sizeof(info->dctcp);
}

#define CPECN_OPS_COMMON				\
	.init		= cpecn_init,			\
	.ssthresh	= cpecn_ssthresh,		\
	.cong_avoid	= cpecn_cong_avoid,		\
	.set_state	= cpecn_set_state,		\
	.in_ack_event	= cpecn_in_ack_event,		\
	.pkts_acked	= cpecn_pkts_acked,		\
	.undo_cwnd	= cpecn_undo_cwnd,		\
	.get_info	= cpecn_get_info,		\
	.owner		= THIS_MODULE

static struct tcp_congestion_ops tcp_cpecn __read_mostly = {
	CPECN_OPS_COMMON,
	.flags		= TCP_CONG_NEEDS_ECN,
	.name		= "cpecn",
};

static struct tcp_congestion_ops tcp_wecn __read_mostly = {
	CPECN_OPS_COMMON,
	.flags		= TCP_CONG_NEEDS_ECN,
	.name		= "wecn",
};

/* Connections without ECN; not registered, reached only by cpecn_init()
 * switching icsk_ca_ops (same owner, so the module reference is released
 * correctly).
 */
static struct tcp_congestion_ops tcp_cpecn_base __read_mostly = {
	CPECN_OPS_COMMON,
	.name		= "cpecn-base",
};

static int __init cpecn_register(void)
{
	const char *why = NULL;	/* the defaults are never refused */
	int ret;

	BUILD_BUG_ON(sizeof(struct cpecn_ca) > ICSK_CA_PRIV_SIZE);

	/* m=/alpha= on the command line have published already */
	mutex_lock(&cpecn_cfg_lock);
	ret = rcu_access_pointer(cpecn_cfg) ? 0 :
	      cpecn_cfg_publish(cpecn_m, cpecn_alpha, &why);
	mutex_unlock(&cpecn_cfg_lock);
	if (ret)
		return ret;

	ret = register_pernet_subsys(&cpecn_net_ops);
	if (ret)
		goto err_cfg;
	ret = tcp_register_congestion_control(&tcp_cpecn);
	if (ret)
		goto err_reg;
	ret = tcp_register_congestion_control(&tcp_wecn);
	if (ret) {
		tcp_unregister_congestion_control(&tcp_cpecn);
		goto err_reg;
	}
	pr_info("registered \"%s\" and \"%s\" (m=%u alpha=%u base=%s)\n",
		tcp_cpecn.name, tcp_wecn.name, cpecn_m, cpecn_alpha,
		cpecn_base_names[cpecn_base]);
	return 0;

err_reg:
	pr_err("cannot register congestion controls \"cpecn\"/\"wecn\": %d%s\n",
	       ret, ret == -EEXIST ? " (already registered)" : "");
	unregister_pernet_subsys(&cpecn_net_ops);
err_cfg:
	kfree(rcu_replace_pointer(cpecn_cfg, NULL, true));
	rcu_barrier();
	return ret;
}

static void __exit cpecn_unregister(void)
{
	tcp_unregister_congestion_control(&tcp_wecn);
	tcp_unregister_congestion_control(&tcp_cpecn);
	unregister_pernet_subsys(&cpecn_net_ops);
	/* no socket uses our ops any more (module refcount): no reader */
	kfree(rcu_replace_pointer(cpecn_cfg, NULL, true));
	rcu_barrier();	/* kfree_rcu() of earlier parameter sets */
}

module_init(cpecn_register);
module_exit(cpecn_unregister);

MODULE_AUTHOR("specnet");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("CPECN: congestion probability from ECN-Echo sequences (and the WECN baseline)");
/* the kernel asks for "tcp_<name>" when a congestion control it does not
 * know is chosen: wecn's module is this one
 */
MODULE_ALIAS("tcp_wecn");
MODULE_VERSION("0.1");

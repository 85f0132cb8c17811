// SPDX-License-Identifier: GPL-2.0
/*
 * TCP-TP (tcp_tp): TCP with traffic prediction.
 *
 * The throughput a flow attains over self-similar (long-range dependent)
 * cross traffic is predictable over a few RTTs. TCP-TP predicts it with an
 * LMMSE predictor, turns the prediction into the number of flows that
 * share the bottleneck, and sets the window to that share of the
 * bandwidth-delay product, instead of probing for it by additive increase
 * until a loss. The maths lives in kernel/include/specnet/tp.h (shared with
 * `specctl model tp`); this file glues it to tcp_congestion_ops.
 *
 * Model (docs/algorithms.md, TCP-TP; tp.h has the equations):
 *   every ACK      bytes newly acked (tp->bytes_acked) feed the sampler:
 *                  one EWMA sample f per sampling period (srtt / 4, at
 *                  least 1 ms), aggregated into intervals of interval_rtts
 *                  srtt; each interval's mean goes into the ring of n = 20
 *                  and, once the ring is full, the predictor makes the
 *                  prediction of the next interval (counted: predictions),
 *                  with N = C / prediction rounded to the nearest
 *                  integer (flows_round=ceil: up, as the paper)
 *   cong. avoid.   on a positive ACK (not in slow start, cwnd-limited):
 *                  Reno's additive increase, then cwnd held between N's
 *                  window and N - 1's: C RTT / (8 N mss) <= cwnd <=
 *                  C srtt / (8 (N - 1) mss) + 1 (N = 1: exactly C RTT /
 *                  (8 mss)), in [2, snd_cwnd_clamp] (tcptp_band() in tp.h;
 *                  counted: window_up / window_down when the band moves
 *                  cwnd); Reno until the first N (counted:
 *                  reno_fallbacks, per ACK)
 *   slow start, loss, ECN: Reno's (tcp_slow_start, ssthresh = cwnd / 2)
 *
 * Parameters (module parameters; validated, refused with a reason in
 * dmesg; read by each connection when it starts, except rtt, which
 * applies from the next ACK, and capacity_kbps and flows_round, from the
 * next prediction, which computes N):
 *   capacity_kbps  C, the bottleneck capacity, kbit/s, 1..200000000; 0
 *                  (default): estimated per connection as the largest
 *                  sampled throughput f of the last n intervals (a
 *                  windowed max, lib/win_minmax) -- the throughput this
 *                  flow has shown it can attain
 *   rtt            min (default) | srtt: the RTT in C RTT / N, the
 *                  band's lower edge (the upper one uses srtt). min uses
 *                  the stack's windowed minimum (tcp_min_rtt()), so the N
 *                  flows together fill the pipe and no more: no standing
 *                  queue. srtt includes the queue, so the window keeps it.
 *                  The benchmark (tests/bench/tp_rtt.py) shows both.
 *   method         levinson (default, LMMSE solved per interval) | lms
 *   order          predictor order p, 1..19 (default 2, see tp.h)
 *   ewma_shift     sampler weight a = 2^-ewma_shift, 0..8 (default 2)
 *   mu_shift       NLMS step 2^-mu_shift, 0..16 (default 4)
 *   interval_rtts  aggregation interval tau in srtt, 1..16 (default 2)
 *   flows_round    nearest (default) | ceil: how C / prediction becomes N
 *
 * Per socket, for users: `ss -ti` shows, through the BBR info layout that
 * ss decodes (INET_DIAG_BBRINFO):
 *   bbr:(bw:<prediction>,mrtt:<RTT used, ms>,pacing_gain:<N>,
 *        cwnd_gain:<intervals in the ring, 20 = predicting>)
 * (ss prints gains divided by 256; we put N and the count in units of 256).
 *
 * Counters per network namespace: /proc/net/tcp_tp (predictions,
 * window_up, window_down, reno_fallbacks, no_memory), per-CPU.
 *
 * Choices where algorithms.md is silent:
 *  - N is rounded to the nearest integer by default, not up as in the
 *    paper: with the ceiling, a flow that fills its share to any less
 *    than 100% (headers, sampling noise) counts one flow too many, sets
 *    the window to the smaller share, measures that, and stays there (a
 *    lone flow on an idle link would take half of it). See
 *    tcptp_flows_nearest() in tp.h.
 *  - throughput is measured at the IP layer (payload scaled by
 *    (mss + TCP and IP headers) / mss), as link capacities are quoted.
 *  - the window moves between N's and N - 1's rather than sitting on
 *    C RTT / N: a flow held exactly at its share can never measure more
 *    (its throughput is its window over the RTT), so N could only grow,
 *    and stay high after cross traffic has gone. Additive increase inside
 *    the band lets it reach the throughput that rounds to N - 1 when the
 *    capacity is there; a band only up to N's rounding boundary
 *    (N - 1/2) would be too narrow, as any queue keeps the throughput
 *    below that boundary. When the capacity is not there, the extra is
 *    C RTT / (N (N - 1)) per flow of queue.
 *  - the band's upper edge uses srtt whatever `rtt` says, plus one packet
 *    (tcptp_band()): it is the window at which this flow's throughput would
 *    be C / (N - 1), and the flow's throughput is its window over the RTT
 *    it sees. With the minimum RTT there, any standing queue (another
 *    flow's) would put the upper edge below the window the flow has, so
 *    every ACK would cut it, down to the 2-packet floor, while a flow that
 *    had reached N = 1 kept the whole pipe. The lower edge keeps `rtt`.
 *  - the predictor state (496 bytes) does not fit in icsk_ca_priv: it is
 *    allocated per connection (GFP_NOWAIT, as tcp_cdg does, since init may
 *    run in softirq); without memory the connection is Reno (no_memory).
 *  - sampling is time based; after an idle period (CA_EVENT_TX_START) the
 *    partial sample and interval are dropped, so idle time does not read as
 *    low throughput. The ring is kept.
 *  - a decrease (loss, ECN) stands against the band's floor: for one
 *    interval, then until N falls below the N at the decrease (capacity
 *    freed) or additive increase brings cwnd back to that N's floor
 *    (tcptp_decrease_stands() in tp.h): the floor would otherwise hand back,
 *    one interval later, the share the congestion signal took away.
 *    Decreases before the first N stand for the interval only.
 *  - when the window set is below ssthresh, ssthresh follows it down:
 *    otherwise the next ACK would be in slow start again and undo it.
 *  - the window is set only while cwnd-limited (as Reno grows only then):
 *    an application-limited flow's throughput says nothing of its share.
 *
 * The measurements behind the band and the standing decrease are in
 * docs/algorithms.md (TCP-TP, "Why the band").
 *
 * Paper: TCP-TP, congestion control with LMMSE traffic prediction over
 * self-similar traffic; docs/algorithms.md (TCP-TP) records the
 * reading.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/inet_diag.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/win_minmax.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/tcp.h>

#include "compat.h"
#include "cc_common.h"
#include <specnet/tp.h>

/* ---- parameters -------------------------------------------------------- */

#define TP_CAPACITY_KBPS_MAX	((u32)(TP_RATE_MAX / 1000))
#define TP_INTERVAL_RTTS_DEFAULT 2	/* 1..TP_INTERVAL_RTTS_MAX (tp.h) */
#define TP_SAMPLE_MIN_US	1000	/* sampling period: max(srtt / 4, 1 ms) */

enum tcptp_rtt_choice {
	TP_RTT_MIN,
	TP_RTT_SRTT,
	TP_RTT_CHOICES
};

static const char * const tcptp_rtt_names[TP_RTT_CHOICES] = {
	[TP_RTT_MIN]	= "min",
	[TP_RTT_SRTT]	= "srtt",
};

enum tcptp_round {
	TP_ROUND_NEAREST,
	TP_ROUND_CEIL,
	TP_ROUNDS
};

static const char * const tcptp_round_names[TP_ROUNDS] = {
	[TP_ROUND_NEAREST]	= "nearest",
	[TP_ROUND_CEIL]		= "ceil",
};

static const char * const tcptp_method_names[] = {
	[TP_METHOD_LEVINSON]	= "levinson",
	[TP_METHOD_LMS]		= "lms",
};

static unsigned int tcptp_capacity_kbps;
static unsigned int tcptp_rtt_choice = TP_RTT_MIN;
static unsigned int tcptp_round = TP_ROUND_NEAREST;
static unsigned int tcptp_method = TP_METHOD_LEVINSON;
static unsigned int tcptp_order = TP_ORDER_DEFAULT;
static unsigned int tcptp_ewma_shift = TP_EWMA_SHIFT_DEFAULT;
static unsigned int tcptp_mu_shift = TP_MU_SHIFT_DEFAULT;
static unsigned int tcptp_interval_rtts = TP_INTERVAL_RTTS_DEFAULT;

static void tcptp_params_read(struct tcptp_params *p)
{
	p->method = READ_ONCE(tcptp_method);
	p->order = READ_ONCE(tcptp_order);
	p->ewma_shift = READ_ONCE(tcptp_ewma_shift);
	p->mu_shift = READ_ONCE(tcptp_mu_shift);
}

/*
 * The predictor's ranges below are tp.h's limits (TP_ORDER_MAX,
 * TP_EWMA_SHIFT_MAX, TP_MU_SHIFT_MAX), those tcptp_check_params() holds every
 * tcptp_params to; each parameter is one word, so a connection reads a valid
 * set.
 */
static struct specnet_uint_param tcptp_param_capacity_kbps = {
	&tcptp_capacity_kbps, 0, TP_CAPACITY_KBPS_MAX, "kbit/s, 0 = estimate"
};
module_param_cb(capacity_kbps, &specnet_uint_param_ops, &tcptp_param_capacity_kbps, 0644);
MODULE_PARM_DESC(capacity_kbps, "bottleneck capacity C in kbit/s (1..200000000); 0 = estimate per connection (default)");

static struct specnet_uint_param tcptp_param_order = {
	&tcptp_order, 1, TP_ORDER_MAX, "predictor order"
};
module_param_cb(order, &specnet_uint_param_ops, &tcptp_param_order, 0644);
MODULE_PARM_DESC(order, "predictor order p (1..19, default 2)");

static struct specnet_uint_param tcptp_param_ewma_shift = {
	&tcptp_ewma_shift, 0, TP_EWMA_SHIFT_MAX, "sampler EWMA weight 2^-ewma_shift"
};
module_param_cb(ewma_shift, &specnet_uint_param_ops, &tcptp_param_ewma_shift, 0644);
MODULE_PARM_DESC(ewma_shift, "throughput sampler EWMA weight 2^-ewma_shift (0..8, default 2)");

static struct specnet_uint_param tcptp_param_mu_shift = {
	&tcptp_mu_shift, 0, TP_MU_SHIFT_MAX, "NLMS step 2^-mu_shift"
};
module_param_cb(mu_shift, &specnet_uint_param_ops, &tcptp_param_mu_shift, 0644);
MODULE_PARM_DESC(mu_shift, "NLMS step 2^-mu_shift for method=lms (0..16, default 4)");

static struct specnet_uint_param tcptp_param_interval_rtts = {
	&tcptp_interval_rtts, 1, TP_INTERVAL_RTTS_MAX, "aggregation interval in srtt"
};
module_param_cb(interval_rtts, &specnet_uint_param_ops, &tcptp_param_interval_rtts, 0644);
MODULE_PARM_DESC(interval_rtts, "aggregation interval in smoothed RTTs (1..16, default 2)");

/* Parameters chosen by name */
static struct specnet_enum_param tcptp_param_rtt = {
	&tcptp_rtt_choice, tcptp_rtt_names, ARRAY_SIZE(tcptp_rtt_names), "min | srtt"
};
module_param_cb(rtt, &specnet_enum_param_ops, &tcptp_param_rtt, 0644);
MODULE_PARM_DESC(rtt, "RTT in cwnd = C RTT / N: min (windowed minimum, default) or srtt");

static struct specnet_enum_param tcptp_param_flows_round = {
	&tcptp_round, tcptp_round_names, ARRAY_SIZE(tcptp_round_names), "nearest | ceil"
};
module_param_cb(flows_round, &specnet_enum_param_ops, &tcptp_param_flows_round, 0644);
MODULE_PARM_DESC(flows_round, "N = C / prediction rounded to the nearest integer (default) or up (ceil, the paper's)");

static struct specnet_enum_param tcptp_param_method = {
	&tcptp_method, tcptp_method_names, ARRAY_SIZE(tcptp_method_names), "levinson | lms"
};
module_param_cb(method, &specnet_enum_param_ops, &tcptp_param_method, 0644);
MODULE_PARM_DESC(method, "predictor: levinson (LMMSE, default) or lms (normalized LMS)");

/* ---- per-netns counters ----------------------------------------------- */

enum tcptp_counter {
	TP_CNT_PREDICTIONS,	/* predictions made (one per full interval) */
	TP_CNT_UP,		/* ACKs on which TP raised cwnd */
	TP_CNT_DOWN,		/* ... lowered it */
	TP_CNT_RENO,		/* CA ACKs run as Reno: fewer than n intervals */
	TP_CNT_NOMEM,		/* connections without predictor memory */
	TP_CNT_MAX
};

static const char * const tcptp_counter_names[TP_CNT_MAX] = {
	[TP_CNT_PREDICTIONS]	= "predictions",
	[TP_CNT_UP]		= "window_up",
	[TP_CNT_DOWN]		= "window_down",
	[TP_CNT_RENO]		= "reno_fallbacks",
	[TP_CNT_NOMEM]		= "no_memory",
};

static const struct specnet_counters_def tcptp_counters = {
	.file	= "tcp_tp",
	.names	= tcptp_counter_names,
	.n	= TP_CNT_MAX,
};

struct tcptp_net {
	struct specnet_counters cnt;
};

static unsigned int tcptp_net_id __read_mostly;

static void tcptp_count(const struct sock *sk, enum tcptp_counter c)
{
	struct tcptp_net *tn = net_generic(sock_net(sk), tcptp_net_id);

	specnet_count(&tn->cnt, c);
}

static int __net_init tcptp_net_init(struct net *net)
{
	struct tcptp_net *tn = net_generic(net, tcptp_net_id);

	return specnet_counters_init(net, &tn->cnt, &tcptp_counters);
}

static void __net_exit tcptp_net_exit(struct net *net)
{
	struct tcptp_net *tn = net_generic(net, tcptp_net_id);

	specnet_counters_exit(net, &tn->cnt);
}

static struct pernet_operations tcptp_net_ops = {
	.init = tcptp_net_init,
	.exit = tcptp_net_exit,
	.id   = &tcptp_net_id,
	.size = sizeof(struct tcptp_net),
};

/* ---- per-socket state -------------------------------------------------- */

struct tcptp_ca {
	struct tcptp_sampler smp;	/* sampling and aggregation (40 bytes) */
	struct tcptp_state *st;	/* ring and predictor, NULL: Reno */
	struct minmax cmax;	/* capacity estimate: max f, bit/s >> 10 */
	u32 bytes_acked;	/* low bits of tp->bytes_acked at the last ACK */
	u32 pred_kbps;		/* last prediction, kbit/s (for get_info) */
	struct tcptp_params p;	/* read at connection start */
	u32 flows;		/* N of the last prediction, 0: none (Reno) */
	u32 rtt_us;		/* RTT of the last window set */
	u32 hold_until_us;	/* no floor before: a decrease stands */
	u32 dec_flows;		/* a decrease stands at this N: no floor */
	u8 interval_rtts;	/* read at connection start */
	u8 holding;		/* hold_until_us is in force */
	u8 ring;		/* intervals in the ring (for get_info) */
};

/* minmax holds u32: rates in units of 1024 bit/s (up to 4.4 Tbit/s) */
#define TP_CMAX_SHIFT	10

static u32 tcptp_srtt_us(const struct tcp_sock *tp)
{
	return max_t(u32, tp->srtt_us >> 3, 1);
}

static void tcptp_init(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct tcptp_ca *ca = inet_csk_ca(sk);

	memset(ca, 0, sizeof(*ca));
	tcptp_params_read(&ca->p);
	ca->interval_rtts = READ_ONCE(tcptp_interval_rtts);
	tcptp_sampler_init(&ca->smp, (u32)tp->tcp_mstamp);
	ca->bytes_acked = (u32)tp->bytes_acked;
	/* listeners and closed sockets take no ACKs of data */
	if (sk->sk_state == TCP_LISTEN || sk->sk_state == TCP_CLOSE)
		return;
	ca->st = kmalloc(sizeof(*ca->st), GFP_NOWAIT | __GFP_NOWARN);
	if (!ca->st) {
		tcptp_count(sk, TP_CNT_NOMEM);
		return;
	}
	tcptp_state_init(ca->st);
}

static void tcptp_release(struct sock *sk)
{
	struct tcptp_ca *ca = inet_csk_ca(sk);

	kfree(ca->st);
	ca->st = NULL;
}

/* C in bit/s: the parameter, or this connection's windowed max of f. */
static u64 tcptp_capacity(const struct tcptp_ca *ca)
{
	u32 kbps = READ_ONCE(tcptp_capacity_kbps);

	if (kbps)
		return (u64)kbps * 1000;
	return (u64)minmax_get(&ca->cmax) << TP_CMAX_SHIFT;
}

static void tcptp_in_ack_event(struct sock *sk, u32 flags)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct tcptp_ca *ca = inet_csk_ca(sk);
	u32 now = (u32)tp->tcp_mstamp;
	u32 srtt = tcptp_srtt_us(tp);
	/* bytes acked by this ACK: < 2^32 (the window is) */
	u64 bytes = (u32)tp->bytes_acked - ca->bytes_acked;
	/* srtt < 2^29 us: 16 srtt passes 2^32; in u64, below 2^31 (tp.h) */
	u32 interval = tcptp_interval_us(ca->interval_rtts, srtt);
	u64 f, fm, pred, c;
	bool ready;

	ca->bytes_acked = (u32)tp->bytes_acked;
	if (!ca->st || !tp->srtt_us || !tp->mss_cache)
		return;
	/* at the IP layer, as C is: payload plus TCP/IP headers per segment */
	bytes = div_u64(min_t(u64, bytes, TP_BYTES_MAX) *
			(tp->mss_cache + tp->tcp_header_len +
			 inet_csk(sk)->icsk_af_ops->net_header_len),
			tp->mss_cache);
	if (!tcptp_sample_ack(&ca->smp, &ca->p, (u32)min_t(u64, bytes, U32_MAX),
			      now, max_t(u32, srtt / 4, TP_SAMPLE_MIN_US), &f))
		return;
	/* the capacity estimate: max f over the last n intervals */
	minmax_running_max(&ca->cmax, (u32)min_t(u64, (u64)TP_N * interval, S32_MAX),
			   now, (u32)min_t(u64, f >> TP_CMAX_SHIFT, U32_MAX));
	if (!tcptp_aggregate(&ca->smp, f, now, interval, &fm))
		return;
	ready = !tcptp_push(ca->st, &ca->p, fm);
	ca->ring = ca->st->count;
	if (!ready)
		return;
	/* a prediction for the next interval, and N for it */
	tcptp_count(sk, TP_CNT_PREDICTIONS);
	pred = tcptp_prediction(ca->st);
	/* TP_RATE_MAX / 1000 < 2^28 */
	ca->pred_kbps = (u32)div_u64(pred, 1000);
	c = tcptp_capacity(ca);
	if (!c)
		ca->flows = 0;		/* no capacity yet: Reno */
	else if (READ_ONCE(tcptp_round) == TP_ROUND_CEIL)
		ca->flows = tcptp_flows(c, pred);
	else
		ca->flows = tcptp_flows_nearest(c, pred);
}

static void tcptp_cwnd_event(struct sock *sk, enum tcp_ca_event ev)
{
	struct tcptp_ca *ca = inet_csk_ca(sk);

	/* restart after idle: the idle time is not a throughput sample */
	if (ev == CA_EVENT_TX_START)
		tcptp_sampler_restart(&ca->smp, (u32)tcp_sk(sk)->tcp_mstamp);
}

static void tcptp_set_state(struct sock *sk, u8 new_state)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct tcptp_ca *ca = inet_csk_ca(sk);

	if (new_state == TCP_CA_CWR || new_state == TCP_CA_Recovery ||
	    new_state == TCP_CA_Loss) {
		/* < 2^31 us ahead: the s32 difference in tcptp_cong_avoid() */
		ca->hold_until_us = (u32)tp->tcp_mstamp +
				    tcptp_interval_us(ca->interval_rtts, tcptp_srtt_us(tp));
		ca->holding = 1;
		ca->dec_flows = tcptp_decrease(ca->dec_flows, ca->flows);
	}
}

static u32 tcptp_rtt_us(const struct tcp_sock *tp)
{
	u32 rtt = tcp_min_rtt(tp);

	if (READ_ONCE(tcptp_rtt_choice) == TP_RTT_SRTT || rtt == ~0U)
		rtt = tcptp_srtt_us(tp);
	return rtt;
}

static void tcptp_cong_avoid(struct sock *sk, u32 ack, u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct tcptp_ca *ca = inet_csk_ca(sk);
	u32 cwnd, lo, hi, w;
	u64 c;

	if (!tcp_is_cwnd_limited(sk))
		return;
	if (tcp_in_slow_start(tp)) {
		acked = tcp_slow_start(tp, acked);
		if (!acked)
			return;
	}
	/* N exists once the ring is full (ca->st) and C is known */
	c = ca->flows ? tcptp_capacity(ca) : 0;
	if (!c) {
		tcptp_count(sk, TP_CNT_RENO);
		tcp_cong_avoid_ai(tp, tcp_snd_cwnd(tp), acked);
		return;
	}
	/* Reno's probe, then the window held between N's and N - 1's (the
	 * latter at the RTT the flow sees: see the header)
	 */
	cwnd = tcp_snd_cwnd(tp);
	tcp_cong_avoid_ai(tp, cwnd, acked);
	ca->rtt_us = tcptp_rtt_us(tp);
	tcptp_band(c, ca->rtt_us, tcptp_srtt_us(tp), ca->flows, tp->mss_cache,
		   tp->snd_cwnd_clamp, &lo, &hi);
	/* after a loss or an ECN reduction, for one interval, no floor; then
	 * none either while the decrease stands (tcptp_decrease_stands())
	 */
	if (ca->holding &&
	    (s32)((u32)tp->tcp_mstamp - ca->hold_until_us) >= 0)
		ca->holding = 0;
	ca->dec_flows = tcptp_decrease_stands(ca->dec_flows, ca->flows,
					      tcp_snd_cwnd(tp), lo);
	w = tcptp_band_window(tcp_snd_cwnd(tp), lo, hi,
			      !ca->holding && !ca->dec_flows);
	if (w == tcp_snd_cwnd(tp))
		return;
	tcptp_count(sk, w > cwnd ? TP_CNT_UP : TP_CNT_DOWN);
	tcp_snd_cwnd_set(tp, w);
	tp->snd_cwnd_cnt = 0;
	/* in congestion avoidance at w: not slow start again on the next ACK */
	if (tp->snd_ssthresh > w)
		tp->snd_ssthresh = w;
}

static size_t tcptp_get_info(struct sock *sk, u32 ext, int *attr,
			     union tcp_cc_info *info)
{
	const struct tcptp_ca *ca = inet_csk_ca(sk);
	u64 bw;

	if (!(ext & (1 << (INET_DIAG_BBRINFO - 1))) &&
	    !(ext & (1 << (INET_DIAG_VEGASINFO - 1))))
		return 0;
	/* not ca->st: inet_diag calls this without the socket lock, and a
	 * congestion control change may free it meanwhile
	 */
	memset(&info->bbr, 0, sizeof(info->bbr));
	bw = (u64)READ_ONCE(ca->pred_kbps) * 1000 / 8;	/* bytes/s */
	info->bbr.bbr_bw_lo = (u32)bw;
	info->bbr.bbr_bw_hi = (u32)(bw >> 32);
	info->bbr.bbr_cwnd_gain = (u32)READ_ONCE(ca->ring) << 8;
	info->bbr.bbr_min_rtt = ca->rtt_us;
	info->bbr.bbr_pacing_gain = ca->flows << 8;
	*attr = INET_DIAG_BBRINFO;
	return sizeof(info->bbr);
}

static struct tcp_congestion_ops tcp_tp __read_mostly = {
	.init		= tcptp_init,
	.release	= tcptp_release,
	.ssthresh	= tcp_reno_ssthresh,
	.undo_cwnd	= tcp_reno_undo_cwnd,
	.cong_avoid	= tcptp_cong_avoid,
	.cwnd_event	= tcptp_cwnd_event,
	.set_state	= tcptp_set_state,
	.in_ack_event	= tcptp_in_ack_event,
	.get_info	= tcptp_get_info,
	.owner		= THIS_MODULE,
	.name		= "tp",
};

static int __init tcptp_register(void)
{
	int ret;

	BUILD_BUG_ON(sizeof(struct tcptp_ca) > ICSK_CA_PRIV_SIZE);

	ret = specnet_cc_register(&tcptp_net_ops, &tcp_tp);
	if (ret)
		return ret;
	pr_info("registered \"tp\" (capacity_kbps=%u%s rtt=%s method=%s order=%u interval_rtts=%u)\n",
		tcptp_capacity_kbps, tcptp_capacity_kbps ? "" : " (estimated)",
		tcptp_rtt_names[tcptp_rtt_choice],
		tcptp_method_names[tcptp_method], tcptp_order,
		tcptp_interval_rtts);
	return 0;
}

static void __exit tcptp_unregister(void)
{
	specnet_cc_unregister(&tcptp_net_ops, &tcp_tp);
}

module_init(tcptp_register);
module_exit(tcptp_unregister);

MODULE_AUTHOR("specnet");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("TCP-TP: congestion window from an LMMSE prediction of the attainable throughput");
MODULE_VERSION("0.1");

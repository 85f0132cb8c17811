// SPDX-License-Identifier: GPL-2.0
/*
 * SpecTCP (tcp_spec): speculative loss differentiation for lossy links.
 *
 * A loss on a satellite or RF link is usually corruption, not congestion,
 * yet Reno halves cwnd for every loss. SpecTCP speculates, like a branch
 * predictor: it assumes a loss is corruption and keeps cwnd, and relies on
 * ECN, the network's explicit congestion signal, to tell it when the guess
 * was wrong. The maths lives in kernel/include/specnet/spec.h; this file
 * glues it to tcp_congestion_ops.
 *
 * Model (see spec.h for the equations):
 *   loss event (fast-recovery entry or RTO):
 *     ECE within the last srtt,    -> congestion: 0.7 cwnd (CUBIC's beta),
 *       not answered yet              not below the path's BDP while the
 *                                     marked queue shows (as a mark's)
 *     else, before the first ECE,  -> congestion: down to the recent
 *       a standing queue              delivery rate x min RTT plus half
 *                                     the threshold's queue, within
 *                                     [cwnd / 2, 7/8 cwnd]
 *     else a loss rate far above   -> congestion: 0.7 cwnd
 *       corruption's (breaker)
 *     else Bernoulli(p_corrupt)    -> corruption: the window in flight
 *                                     kept (lost segments resent on top
 *                                     of it; in slow start it grows by
 *                                     what the recovery delivers),
 *                                     ssthresh put back to its pre-loss
 *                                     value when it ends
 *     else                         -> congestion: 0.7 cwnd
 *   RTO guessed as corruption: the stack sets cwnd to 1; once the
 *     retransmission is acknowledged the pre-loss cwnd is restored, and
 *     internal pacing (enabled for every ECN connection, as BBR does)
 *     spreads the resulting burst over an RTT.
 *   ECN-Echo, no loss: 0.8 cwnd (RFC 8511's beta_ecn), 0.5 in slow start
 *     (the window doubled while the mark came back), but, for a flow
 *     alone at the bottleneck, not below what the path carries in a min
 *     RTT (spec_ece_ssthresh(): the part of the window above it is the
 *     marked queue; a shared bottleneck's pipe is partly the others'),
 *     CUBIC's Reno-friendly region growing back at the alpha of that
 *     beta (1/3 after 0.8, cubic.h), once per window (the
 *     stack's CWR state); none while cwnd is below 7/8 of what the path
 *     delivers in a min RTT (the queue the mark reported is draining,
 *     spec_ece_reduces()), counted in ece_draining. A mark counts once:
 *     a loss after the reduction that answered it is judged without it
 *     (spec_ece_recent()).
 *   ECN-Echo within one srtt after a corruption guess: a misprediction.
 *     It is counted, and the mark's decrease (as above) is applied at
 *     once: in Recovery/Loss by lowering ssthresh (PRR then reduces cwnd
 *     gradually; in Loss cwnd is cut to it), in Open through the stack's
 *     CWR entry.
 *   ECN-Echo later in a recovery (or RTO) guessed corruption: that episode
 *     reduced nothing and the stack ignores ECE there, so the decrease is
 *     applied as for a misprediction (an RTO's window is not restored),
 *     from the window at the mark or the pre-loss one if larger. Neither
 *     reduces a window below 7/8 of what the path delivers in a min RTT
 *     (the marked queue is draining; counted in ece_draining).
 *   A loss later in a recovery guessed corruption, found with a standing
 *     queue or the breaker tripped (qd_late_verdict()): congestion now,
 *     reduced as a loss with that evidence is (late_congestion); a
 *     recovery on a long lossy path can outlast the queue's rise by
 *     seconds.
 *   ECN-Echoes while a reduction is under way echo the mark it answers
 *     (the receiver repeats it until our CWR arrives): ignored, so that
 *     one mark makes one reduction, not a second one at the next loss,
 *     nor at the CWR the stack enters for the echo on the ACK that ends a
 *     recovery (spec_echo_cwr()). An ECE on the ACK that ends a CWR,
 *     which the receiver sent once our CWR had arrived, is a new mark
 *     (spec_ece_echo()), and the CWR entered for it reduces: once a
 *     window while a queue marks every packet.
 *   first slow start: ended by HyStart++ (RFC 9406, kernel/include/
 *     specnet/hystart.h) on a rise of the round's least RTT over the last
 *     round's or over the flow's least (cubic's delay_min), through five
 *     rounds of Conservative Slow Start, before a marking gateway's first
 *     mark, which on a GEO path comes a doubling or two past the BDP.
 *   growth: Reno's slow start, then CUBIC's window function (RFC 9438,
 *     kernel/include/specnet/cubic.h), in a recovery guessed corruption
 *     too. Chosen over Reno's +1 per RTT, which takes minutes to regain
 *     a reduction of a GEO window, and over Hybla's RTT-scaled growth
 *     (rho^2 segments per RTT), which fills a GEO bottleneck's buffer
 *     within a few RTTs of each reduction; CUBIC regains a reduction in
 *     K seconds whatever the RTT, and is the growth its competitors on
 *     a shared bottleneck use. Fast convergence does not lower the
 *     plateau below what the path delivers in a min RTT (cubic.h says
 *     why). 0.8 on a mark without loss, as RFC 8511
 *     argues for AQMs that mark early; 0.7 on a loss (docs/algorithms.md,
 *     "Growth and the ECN response", holds the figures).
 *
 * The module controls cwnd with cong_control, as tcp_bbr does: the stack's
 * PRR would shrink what is in flight by every lost segment of a recovery,
 * and on a lossy long path (5% of a 1000-packet pipe) recoveries run back
 * to back, so "cwnd kept" would not be. cong_control therefore does what
 * the stack would have done, except during a recovery guessed corruption:
 * PRR for congestion reductions, the end-of-reduction cwnd, Reno growth,
 * the pacing rate (each replica says which stack function it follows).
 *
 * State machine of one loss episode, driven by the stack's hooks:
 *   ssthresh()   decides the verdict (the stack calls it on entry to CWR,
 *                Recovery and Loss, before set_state);
 *   set_state()  learns which of the three it was, counts it, arms the
 *                RTO restore, and sees a reduction or recovery end (PRR's
 *                end, the slow-start threshold of before a corruption loss
 *                put back);
 *   cong_control() per ACK: PRR, the corruption recovery's window (or
 *                its late turn to congestion: a loss found there with a
 *                standing queue, spec_late_congestion()), or Reno growth
 *                with the RTO restore on the first ACK that advances
 *                snd_una (spec_cong_avoid());
 *   in_ack_event() timestamps ECEs and detects mispredictions.
 *
 * Where the bottleneck never marks, ECN says nothing and every loss
 * would be kept: the delay signal and circuit breaker of
 * kernel/include/specnet/qdelay.h (qd_* parameters) judge congestion
 * there, and until the first ECE growth stops at a cap in BDPs the path
 * has shown (qd_cwnd_cap_at(): two in the first slow start, then one
 * with half the threshold's queue, or one and a half while the
 * bottleneck is shared), to which a lone flow's window past it drains
 * (qd_cwnd_bound(); in a recovery kept as corruption the flow is taken as
 * alone). HyStart++'s CSS ends as soon as the window is past that cap
 * (spec_hystart()), and a congestion reduction's PRR keeps what is in
 * flight at ssthresh whatever the corruption (spec_prr());
 * docs/algorithms.md, "Where the bottleneck never marks".
 *
 * Without negotiated ECN there is no congestion signal, so speculating
 * would be unsafe: such a connection is plain Reno (counted once in
 * non_ecn_conns), and sends no ECT, as tcp_dctcp does.
 *
 * Deviations and choices:
 *  - CWR entered without an ECE (local congestion, NET_XMIT_CN) is treated
 *    as congestion: ssthresh is lowered to half in set_state().
 *  - An RTO that continues a fast recovery guessed as corruption (no new
 *    ssthresh() call) also restores the pre-loss cwnd.
 *  - Corruption does not end slow start (spec.h says why): ssthresh reads
 *    the pre-loss window only while the recovery lasts, and goes back to
 *    its pre-loss value when it ends (or when an RTO's window is
 *    restored). ss -ti shows ssthresh only while it is finite.
 *  - As for every cong_control module (tcp_bbr), the stack skips its
 *    restart after idle (net.ipv4.tcp_slow_start_after_idle) and RFC 2861
 *    cwnd validation for spec; a window kept over an idle period is sent
 *    paced.
 *  - Counters are per network namespace, in /proc/net/tcp_spec.
 *  - Our SYNs go out not-ECT, so that stock receivers accept ECN
 *    (kernel/ecn_syn.h says why).
 *
 * Paper: SpecTCP, speculative TCP over lossy links with ECN as the
 * condition; docs/algorithms.md (SpecTCP) records the reading.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/inet_diag.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/tcp.h>
#include <net/inet_ecn.h>

#include "compat.h"
#include "cc_common.h"
#include "ecn_syn.h"
#include "qdelay_glue.h"
#include <specnet/spec.h>
#include <specnet/hystart.h>

/* ---- parameters -------------------------------------------------------- */

static struct spec_params spec_params __read_mostly = {
	.p_corrupt = SPEC_P_DEFAULT,
	.hystart = 1,
};

/* Every parameter of struct spec_params is checked with the others. */
static const char *spec_param_why(const void *p)
{
	const char *why = NULL;

	return spec_check_params(p, &why) ? why : NULL;
}

static int spec_param_set(const char *val, const struct kernel_param *kp)
{
	struct spec_params p = spec_params;

	return specnet_param_set_member(val, kp, &p, &spec_params, sizeof(p),
					spec_param_why);
}

static const struct kernel_param_ops spec_param_ops = {
	.set = spec_param_set,
	.get = param_get_uint,
};
module_param_cb(p_corrupt, &spec_param_ops, &spec_params.p_corrupt, 0644);
MODULE_PARM_DESC(p_corrupt,
		 "probability that a loss without a recent ECN-Echo is corruption, per-mille (0..1000, default 1000)");
module_param_cb(hystart, &spec_param_ops, &spec_params.hystart, 0644);
MODULE_PARM_DESC(hystart,
		 "end the first slow start on a rise of the round's least RTT, HyStart++ (RFC 9406) (0 or 1, default 1)");

/* ---- per-netns counters ----------------------------------------------- */

enum spec_counter {
	SPEC_CNT_LOSS,		/* loss events (recovery entries, first RTOs) */
	SPEC_CNT_CORRUPT,	/* ... predicted corruption (cwnd kept) */
	SPEC_CNT_CONGEST,	/* ... predicted congestion (decrease) */
	SPEC_CNT_ECE_RED,	/* cwnd reductions caused by ECN-Echo */
	SPEC_CNT_MISPRED,	/* ECE within one srtt after a corruption guess */
	SPEC_CNT_RTO_RESTORE,	/* pre-loss cwnd restored after an RTO */
	SPEC_CNT_NON_ECN,	/* connections without negotiated ECN (Reno) */
	SPEC_CNT_DELAY,		/* losses judged congestion by the delay/breaker */
	SPEC_CNT_BREAKER,	/* circuit-breaker trips */
	SPEC_CNT_ECE_DRAIN,	/* ECN-Echoes left unanswered: cwnd below the
				 * path's BDP, the queue draining
				 */
	SPEC_CNT_HYSTART,	/* first slow starts ended by an RTT rise */
	SPEC_CNT_STEP,		/* min RTT moved up with a path step */
	SPEC_CNT_LATE,		/* corruption episodes a later loss with a
				 * standing queue (or the breaker) turned
				 * into a congestion reduction
				 */
	SPEC_CNT_MAX
};

static const char * const spec_counter_names[SPEC_CNT_MAX] = {
	[SPEC_CNT_LOSS]		= "loss_events",
	[SPEC_CNT_CORRUPT]	= "predicted_corruption",
	[SPEC_CNT_CONGEST]	= "predicted_congestion",
	[SPEC_CNT_ECE_RED]	= "ece_reductions",
	[SPEC_CNT_MISPRED]	= "mispredictions",
	[SPEC_CNT_RTO_RESTORE]	= "rto_restores",
	[SPEC_CNT_NON_ECN]	= "non_ecn_connections",
	[SPEC_CNT_DELAY]	= "delay_congestion",
	[SPEC_CNT_BREAKER]	= "breaker_trips",
	[SPEC_CNT_ECE_DRAIN]	= "ece_draining",
	[SPEC_CNT_HYSTART]	= "hystart_exits",
	[SPEC_CNT_STEP]		= "path_steps",
	[SPEC_CNT_LATE]		= "late_congestion",
};

static const struct specnet_counters_def spec_counters = {
	.file	= "tcp_spec",
	.names	= spec_counter_names,
	.n	= SPEC_CNT_MAX,
};

struct spec_net {
	struct specnet_counters cnt;
};

static unsigned int spec_net_id __read_mostly;

static void spec_count(const struct sock *sk, enum spec_counter c)
{
	struct spec_net *sn = net_generic(sock_net(sk), spec_net_id);

	specnet_count(&sn->cnt, c);
}

static int __net_init spec_net_init(struct net *net)
{
	struct spec_net *sn = net_generic(net, spec_net_id);
	int ret;

	ret = specnet_ecn_syn_register(net);
	if (ret)
		return ret;
	ret = specnet_counters_init(net, &sn->cnt, &spec_counters);
	if (ret)
		specnet_ecn_syn_unregister(net);
	return ret;
}

static void __net_exit spec_net_exit(struct net *net)
{
	struct spec_net *sn = net_generic(net, spec_net_id);

	specnet_counters_exit(net, &sn->cnt);
	specnet_ecn_syn_unregister(net);
}

static struct pernet_operations spec_net_ops = {
	.init = spec_net_init,
	.exit = spec_net_exit,
	.id   = &spec_net_id,
	.size = sizeof(struct spec_net),
};

/* ---- per-socket state -------------------------------------------------- */

struct spec_ca {
	struct qd_state qd;	/* delay signal and circuit breaker */
	struct cubic_state cubic; /* growth in congestion avoidance */
	u32 last_ece_us;	/* tcp_mstamp (us, low 32 bits) of last ECE */
	u32 spec_us;		/* when the last loss was guessed corruption */
	u32 spec_cwnd;		/* cwnd before that loss (packets) */
	u32 ss_before;		/* ssthresh before a corruption episode */
	union {
		struct {	/* while reducing: */
			u32 prr_prior;	/* PRR of a congestion reduction: */
			u32 prr_delivered; /* cwnd at its start, segments */
			u32 prr_out0;	/* delivered since, the stack's */
		};			/* prr_out then */
		struct cubic_cnt_cache cnt_cache; /* else, if cnt_kept */
	};
	u32 prior_una;		/* snd_una after the previous ACK */
	u16 verdict:3,		/* enum spec_verdict: ssthresh() -> set_state() */
	    ece_seen:1,		/* last_ece_us is valid */
	    spec_live:1,	/* last guess not yet contradicted by an ECE */
	    ss_pending:1,	/* corruption episode: ss_before to be put back */
	    reducing:1,		/* congestion reduction (PRR) under way */
	    tlp_ack:1,		/* the ACK being processed may end a tail
				 * loss probe episode (tlp_high_seq set)
				 */
	    restore:1,		/* an RTO guessed corruption: spec_cwnd to
				 * be restored when new data is acknowledged
				 */
	    ece_skip:1,		/* ssthresh() left an ECE unanswered (the
				 * queue drains): set_state() counts it
				 */
	    css_rounds:3,	/* HyStart++: CSS rounds completed */
	    cnt_kept:1,		/* cnt_cache holds CUBIC's last cnt */
	    ece_used:1,		/* the ECE at last_ece_us has been answered
				 * (a reduction, or a loss's verdict)
				 */
	    full:1;		/* HyStart++ has seen the pipe full */
	u16 css_base;		/* HyStart++: CSS baseline (hystart.h's
				 * hss_base()), 0: not in CSS
				 */
};

static u32 spec_now_us(const struct tcp_sock *tp)
{
	return (u32)tp->tcp_mstamp;
}

static u32 spec_srtt_us(const struct tcp_sock *tp)
{
	return tp->srtt_us >> 3;
}

/* Plain Reno for connections without ECN; not registered, reached only by
 * spec_init() switching icsk_ca_ops (same owner, so the module reference
 * taken for tcp_spec is released correctly).
 */
static struct tcp_congestion_ops tcp_spec_reno __read_mostly = {
	.ssthresh	= tcp_reno_ssthresh,
	.cong_avoid	= tcp_reno_cong_avoid,
	.undo_cwnd	= tcp_reno_undo_cwnd,
	.owner		= THIS_MODULE,
	.name		= "spec-reno",
};

/* The slow-start threshold that says whether the flow is in slow start:
 * in a corruption episode the one of before its first loss (the episode's
 * own threshold is the kept window).
 */
static u32 spec_ss_threshold(const struct tcp_sock *tp,
			     const struct spec_ca *ca)
{
	return ca->ss_pending ? ca->ss_before : tp->snd_ssthresh;
}

static bool spec_in_slow_start(const struct tcp_sock *tp,
			       const struct spec_ca *ca, u32 cwnd)
{
	return cwnd < spec_ss_threshold(tp, ca);
}

/*
 * A congestion verdict's threshold from @cwnd (the episode, if any, is
 * over; CUBIC starts a new epoch): on a standing queue (@qv QD_DELAY) down
 * to what the path delivers in a min RTT plus part of the queue, else
 * spec_target_ssthresh() for @v, not below @floor.
 */
static u32 spec_congestion_ssthresh(struct spec_ca *ca,
				    const struct qd_params *qdp,
				    enum spec_verdict v, enum qd_verdict qv,
				    u32 cwnd, u32 floor, bool ss)
{
	ca->ss_pending = 0;
	cubic_congestion(&ca->cubic, cwnd, qd_path_bdp(&ca->qd),
			 spec_target_beta(v, ss));
	if (qv == QD_DELAY)
		return qd_reduced_cwnd(&ca->qd, qdp, cwnd);
	return spec_target_ssthresh(v, cwnd, floor, ss);
}

/* At most one "without ECN" message a minute. */
static DEFINE_RATELIMIT_STATE(spec_non_ecn_rs, 60 * HZ, 1);

static void spec_init(struct sock *sk)
{
	struct spec_ca *ca = inet_csk_ca(sk);

	memset(ca, 0, sizeof(*ca));
	if (specnet_ecn_fallback(sk, &tcp_spec_reno)) {
		spec_count(sk, SPEC_CNT_NON_ECN);
		if (__ratelimit(&spec_non_ecn_rs))
			pr_info("a connection without ECN runs plain Reno: the peer refused ECN, or spec was chosen after the SYN (iperf3 -C does that); choose spec before connecting (sysctl net.ipv4.tcp_congestion_control, ip route ... congctl spec) or set net.ipv4.tcp_ecn=1 (counter non_ecn_connections in /proc/net/tcp_spec)\n");
		return;
	}
	qd_init(&ca->qd);
	cubic_init(&ca->cubic);
	ca->prior_una = tcp_sk(sk)->snd_una;
	specnet_pacing_enable(sk);
}

/*
 * Is the stack entering CWR for an echo of a mark that a reduction has
 * answered (spec_in_ack_event() noted it on this ACK)? A recovery ends on
 * the ACK of high_seq, which the receiver sent before our CWR reached it,
 * so it carries the echo, and the stack, back in Open, enters CWR for it
 * (tcp_try_to_open()): that would be a second reduction, 0.7 of the
 * window the first one left. No loss is marked (a recovery would have
 * been entered instead), and a tail loss probe's CWR is its own. A CWR
 * ends on an ACK above high_seq, sent once our CWR had arrived: its ECE
 * is a new mark (spec_ece_echo()), and the CWR entered for it reduces.
 */
static bool spec_echo_cwr(const struct tcp_sock *tp, const struct spec_ca *ca,
			  u32 now)
{
	return ca->ece_seen && ca->ece_used && ca->last_ece_us == now &&
	       !tp->lost_out && !ca->tlp_ack;
}

static u32 spec_ssthresh(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct spec_ca *ca = inet_csk_ca(sk);
	u32 cwnd = tcp_snd_cwnd(tp);
	u32 now = spec_now_us(tp);
	bool ss = spec_in_slow_start(tp, ca, cwnd);
	struct qd_params qdp;
	enum spec_verdict v;
	enum qd_verdict qv;
	bool ece_recent;

	if (!specnet_ecn_ok(tp)) {
		ca->verdict = SPEC_CONG_DRAW;
		return tcp_reno_ssthresh(sk);
	}

	if (spec_echo_cwr(tp, ca, now)) {
		/* CWR without a reduction, no verdict */
		ca->verdict = SPEC_VERDICT_NONE;
		return max(cwnd, SPEC_MIN_CWND);
	}
	ece_recent = spec_ece_recent(ca->ece_seen, ca->ece_used, now,
				     ca->last_ece_us, spec_srtt_us(tp));
	/* The breaker always; the queue only until ECN has shown that the
	 * bottleneck marks (then a mark, not a queue, is congestion).
	 */
	specnet_qd_params_read(&specnet_qd, &qdp);
	qv = qd_loss_verdict(&ca->qd, &qdp);
	if (qv == QD_DELAY && ca->ece_seen)
		qv = QD_QUIET;
	v = spec_classify(&spec_params, ece_recent, qv != QD_QUIET,
			  ece_recent || qv != QD_QUIET ? 0 :
			  get_random_u32_below(SPEC_P_UNIT));
	ca->verdict = v;
	ca->ece_used |= v == SPEC_CONG_ECE;
	ca->ece_skip = v == SPEC_CONG_ECE &&
		       !spec_ece_reduces(cwnd, qd_path_bdp(&ca->qd));
	if (ca->ece_skip) {
		/* a mark on a draining queue: CWR without a reduction (a
		 * loss, set_state() will see, reduces all the same)
		 */
		ca->ss_pending = 0;
		return max(cwnd, SPEC_MIN_CWND);
	}
	if (v != SPEC_CORRUPT)
		return spec_congestion_ssthresh(ca, &qdp, v, qv, cwnd,
						qd_ece_floor(&ca->qd, &qdp,
							     spec_srtt_us(tp)),
						ss);
	ca->spec_us = now;
	ca->spec_cwnd = cwnd;
	ca->spec_live = 1;
	/* A loss within an episode (an RTO after a recovery that has not
	 * completed) keeps the threshold of before the first loss.
	 */
	if (!ca->ss_pending) {
		ca->ss_before = tp->snd_ssthresh;
		ca->ss_pending = 1;
	}
	return spec_target_ssthresh(v, cwnd, 0, ss);
}

/* A loss event's verdict in the counters. */
static void spec_count_verdict(struct sock *sk, enum spec_verdict v)
{
	spec_count(sk, v == SPEC_CORRUPT ? SPEC_CNT_CORRUPT : SPEC_CNT_CONGEST);
	if (v == SPEC_CONG_DELAY)
		spec_count(sk, SPEC_CNT_DELAY);
}

/* The episode guessed corruption is over (its recovery ended, or an RTO's
 * window was restored): the slow-start threshold of before the loss is
 * back, so slow start, if it was on, goes on.
 */
static void spec_put_back_ssthresh(struct sock *sk)
{
	struct spec_ca *ca = inet_csk_ca(sk);

	if (!ca->ss_pending)
		return;
	ca->ss_pending = 0;
	tcp_sk(sk)->snd_ssthresh = ca->ss_before;
}

/* A congestion reduction starts, or restarts from the current window after
 * a misprediction: PRR from here down to ssthresh.
 */
static void spec_prr_start(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct spec_ca *ca = inet_csk_ca(sk);

	ca->reducing = 1;
	ca->cnt_kept = 0;	/* PRR takes the storage */
	ca->prr_prior = max(tcp_snd_cwnd(tp), 1U);
	ca->prr_delivered = 0;
	ca->prr_out0 = tp->prr_out;
}

/* The end of a congestion reduction, as tcp_end_cwnd_reduction() (which
 * the stack skips for cong_control ops): cwnd to ssthresh, unless the
 * recovery was undone. @old_state: the state being left.
 */
static void spec_prr_end(struct sock *sk, u8 old_state)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct spec_ca *ca = inet_csk_ca(sk);

	ca->reducing = 0;
	if (tp->snd_ssthresh < TCP_INFINITE_SSTHRESH &&
	    (old_state == TCP_CA_CWR || tp->undo_marker)) {
		tcp_snd_cwnd_set(tp, tp->snd_ssthresh);
		tp->snd_cwnd_stamp = tcp_jiffies32;
	}
}

/* The threshold of a loss with a mark (spec_marked_loss_ssthresh()), from
 * the window ssthresh() saw.
 */
static u32 spec_marked_loss(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct spec_ca *ca = inet_csk_ca(sk);
	struct qd_params qdp;
	u32 floor = 0;

	if (ca->ece_skip) {
		cubic_congestion(&ca->cubic, tp->prior_cwnd,
				 qd_path_bdp(&ca->qd), CUBIC_BETA);
	} else {
		cubic_reduced_by(&ca->cubic, CUBIC_BETA);
		specnet_qd_params_read(&specnet_qd, &qdp);
		floor = qd_ece_floor(&ca->qd, &qdp, spec_srtt_us(tp));
	}
	return spec_marked_loss_ssthresh(tp->prior_cwnd, floor);
}

/* Recovery or Loss entered, with the verdict of the ssthresh() call that
 * led here (none: no call). The loss event is counted; an RTO guessed
 * corruption notes the window to restore. cwnd control: in Loss the stack
 * has set cwnd (spec_cong_avoid() takes it on), a recovery guessed
 * corruption keeps the window, a congestion recovery runs PRR (from CWR it
 * goes on).
 */
static void spec_enter_recovery(struct sock *sk, u8 old_state, u8 new_state,
				enum spec_verdict v)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct spec_ca *ca = inet_csk_ca(sk);

	if (v == SPEC_VERDICT_NONE) {
		/* Recovery entered during an ECE reduction (congestion,
		 * already reduced), or an RTO that continues the current
		 * episode.
		 */
		if (old_state == TCP_CA_CWR) {
			spec_count(sk, SPEC_CNT_LOSS);
			spec_count(sk, SPEC_CNT_CONGEST);
		} else if (new_state == TCP_CA_Loss && ca->spec_live &&
			   ca->ss_pending) {
			ca->restore = 1;
		}
	} else {
		spec_count(sk, SPEC_CNT_LOSS);
		if (specnet_ecn_ok(tp)) {
			spec_count_verdict(sk, v);
			ca->restore = new_state == TCP_CA_Loss &&
				      v == SPEC_CORRUPT;
			/* ssthresh() took an ECE for a mark without loss
			 * (0.8, or none on a draining queue); this was a
			 * loss with a mark: 0.7, floored as the mark's
			 * (not on a draining queue: the floor would keep
			 * the whole window)
			 */
			if (v == SPEC_CONG_ECE)
				tp->snd_ssthresh = spec_marked_loss(sk);
		}
	}

	if (new_state == TCP_CA_Loss || (v == SPEC_CORRUPT && ca->ss_pending))
		ca->reducing = 0;
	else if (old_state != TCP_CA_CWR)
		spec_prr_start(sk);
}

/* CWR entered (the stack always calls ssthresh() first): an ECE, a loss
 * repaired by a tail loss probe, or local congestion. All but a tail loss
 * guessed corruption reduce, with PRR.
 */
static void spec_enter_cwr(struct sock *sk, enum spec_verdict v)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct spec_ca *ca = inet_csk_ca(sk);

	if (v == SPEC_CONG_ECE) {
		spec_count(sk, ca->ece_skip ? SPEC_CNT_ECE_DRAIN :
				   SPEC_CNT_ECE_RED);
	} else if (v != SPEC_VERDICT_NONE && specnet_ecn_ok(tp) && ca->tlp_ack) {
		/* A loss repaired by a tail loss probe: the stack enters CWR
		 * for it while processing the ACK (tcp_process_tlp_ack()).
		 * A loss event like any other; guessed corruption, the
		 * window is kept.
		 */
		spec_count(sk, SPEC_CNT_LOSS);
		spec_count_verdict(sk, v);
		if (v == SPEC_CORRUPT) {
			ca->reducing = 0;
			return;
		}
	} else if (v != SPEC_VERDICT_NONE && specnet_ecn_ok(tp)) {
		/* CWR without an ECE or a loss: local congestion
		 * (NET_XMIT_CN). That is congestion, whatever the draw said.
		 */
		if (v == SPEC_CORRUPT) {
			ca->spec_live = 0;
			ca->ss_pending = 0;
			cubic_congestion(&ca->cubic, tp->prior_cwnd,
					 qd_path_bdp(&ca->qd), CUBIC_BETA);
		}
		tp->snd_ssthresh = cubic_reduce(tp->prior_cwnd, CUBIC_BETA);
	}
	spec_prr_start(sk);
}

static void spec_set_state(struct sock *sk, u8 new_state)
{
	struct spec_ca *ca = inet_csk_ca(sk);
	u8 old_state = inet_csk(sk)->icsk_ca_state;
	enum spec_verdict v = ca->verdict;

	ca->verdict = SPEC_VERDICT_NONE;
	specnet_qd_set_state(sk, &ca->qd, new_state);

	switch (new_state) {
	case TCP_CA_Recovery:
	case TCP_CA_Loss:
		spec_enter_recovery(sk, old_state, new_state, v);
		break;
	case TCP_CA_CWR:
		spec_enter_cwr(sk, v);
		break;
	default:	/* Open, Disorder: a reduction or a recovery is over */
		if (ca->reducing)
			spec_prr_end(sk, old_state);
		if (old_state == TCP_CA_Recovery || old_state == TCP_CA_CWR)
			spec_put_back_ssthresh(sk);
		break;
	}
}

static void spec_in_ack_event(struct sock *sk, u32 flags)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct spec_ca *ca = inet_csk_ca(sk);
	u32 now = spec_now_us(tp);
	struct qd_params qdp;
	bool mispred, open, ss;
	u8 state;
	u32 w;

	ca->tlp_ack = !!tp->tlp_high_seq;
	if (!(flags & CA_ACK_ECE) || !specnet_ecn_ok(tp))
		return;

	ca->ece_seen = 1;
	ca->last_ece_us = now;
	/* An ECE while a reduction is under way (CWR, a congestion recovery)
	 * echoes the mark it answers: the receiver repeats a mark until our
	 * CWR reaches it, an RTT later. Once per window: it neither makes the
	 * next loss congestion nor reduces again. Noted as answered, for
	 * spec_echo_cwr(). But in CWR an ACK above high_seq, where the stack
	 * queued our CWR, reports a new mark (spec_ece_echo()): the stack
	 * leaves CWR on it and enters CWR again, and that reduces. A
	 * recovery's CWR can go out past high_seq (a misprediction's, queued
	 * below), so the ACK that ends a recovery is taken as an echo.
	 */
	state = inet_csk(sk)->icsk_ca_state;
	ca->ece_used = ca->reducing &&
		       (state != TCP_CA_CWR ||
			spec_ece_echo(tp->snd_una, tp->high_seq));
	if (ca->reducing)
		return;
	mispred = ca->spec_live &&
		  spec_mispredicted(now, ca->spec_us, spec_srtt_us(tp));
	/* A corruption episode not over yet (its recovery, or the RTO before
	 * the window is restored) has reduced nothing, and the stack ignores
	 * ECE in Recovery and Loss: a later ECE is congestion now.
	 */
	open = ca->ss_pending &&
	       (state == TCP_CA_Recovery || state == TCP_CA_Loss);
	if (!mispred && !open)
		return;
	ca->ece_used = 1;	/* answered below, or judged a draining queue */
	if (state == TCP_CA_Recovery || state == TCP_CA_Loss) {
		w = mispred ? ca->spec_cwnd : max(tcp_snd_cwnd(tp),
						  ca->spec_cwnd);
		ss = spec_in_slow_start(tp, ca, w);
		if (!spec_ece_reduces(w, qd_path_bdp(&ca->qd))) {
			/* below what the path delivers: the marked queue
			 * drains, the loss was not ours to answer; the
			 * episode goes on, without growth (PRR towards the
			 * kept window) so that the echoes are ignored
			 */
			ca->spec_live = 0;
			tp->ecn_flags |= TCP_ECN_QUEUE_CWR;
			if (state == TCP_CA_Recovery)
				spec_prr_start(sk);
			spec_count(sk, SPEC_CNT_ECE_DRAIN);
			return;
		}
	}

	ca->spec_live = 0;
	ca->restore = 0;
	ca->ss_pending = 0;
	if (mispred) /* the loss we called corruption was congestion */
		spec_count(sk, SPEC_CNT_MISPRED);

	switch (state) {
	case TCP_CA_Recovery:
	case TCP_CA_Loss:
		/* Apply the decrease ourselves: from the pre-loss window for a
		 * misprediction, for a later mark from the window now if it
		 * grew (Recovery; in Loss the stack has cut it to 1). The
		 * evidence is a mark, so the mark's decrease (0.8, half in
		 * slow start, not below the path's BDP, spec_ece_ssthresh()):
		 * an AQM that marks drops no ECT packet, and on a long path with 1%
		 * corruption every mark falls within an RTT of a loss. PRR
		 * (Recovery) goes from the window now to the new ssthresh; in
		 * Loss the window is cut directly. Queue CWR so the receiver
		 * stops echoing this mark.
		 */
		specnet_qd_params_read(&specnet_qd, &qdp);
		tp->snd_ssthresh = spec_ece_ssthresh(w,
						     qd_ece_floor(&ca->qd, &qdp,
								  spec_srtt_us(tp)),
						     ss);
		cubic_congestion(&ca->cubic, w, qd_path_bdp(&ca->qd),
				 spec_target_beta(SPEC_CONG_ECE, ss));
		if (state == TCP_CA_Loss &&
		    tcp_snd_cwnd(tp) > tp->snd_ssthresh)
			tcp_snd_cwnd_set(tp, tp->snd_ssthresh);
		else if (state == TCP_CA_Recovery)
			spec_prr_start(sk);
		tp->ecn_flags |= TCP_ECN_QUEUE_CWR;
		spec_count(sk, SPEC_CNT_ECE_RED);
		break;
	default:
		/* Open/Disorder: this ACK takes the stack into CWR, where
		 * spec_ssthresh() sees the fresh ECE and reduces.
		 */
		break;
	}
}

/* CUBIC's increase (cubic.h) for an ACK that delivered @acked segments in
 * congestion avoidance; t runs on jiffies, as in tcp_cubic, and the curve
 * is read one min RTT ahead.
 */
static void spec_cubic_ai(struct sock *sk, u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct spec_ca *ca = inet_csk_ca(sk);
	u32 rtt_us = ca->qd.min_rtt_us != QD_NONE ? ca->qd.min_rtt_us :
		     spec_srtt_us(tp);
	u32 cnt = cubic_cnt_cached(&ca->cubic, &ca->cnt_cache, ca->cnt_kept,
				   tcp_snd_cwnd(tp), acked,
				   jiffies_to_msecs(tcp_jiffies32),
				   rtt_us / USEC_PER_MSEC);

	ca->cnt_kept = 1;
	tcp_cong_avoid_ai(tp, cnt, acked);
}

/*
 * Returns true if the window was restored (an RTO's), which is not growth:
 * the cap does not apply to it.
 */
static bool spec_cong_avoid(struct sock *sk, u32 ack, u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct spec_ca *ca = inet_csk_ca(sk);

	if (ca->restore && acked) {
		/* First ACK of new data after an RTO guessed as corruption:
		 * the pre-loss window and slow-start threshold are back.
		 */
		ca->restore = 0;
		spec_put_back_ssthresh(sk);
		if (specnet_cwnd_restore(tp, ca->spec_cwnd)) {
			spec_count(sk, SPEC_CNT_RTO_RESTORE);
			return true;
		}
	}
	/* tcp_reno_cong_avoid() with CUBIC's increase */
	if (!tcp_is_cwnd_limited(sk))
		return false;
	if (tcp_in_slow_start(tp)) {
		if (ca->css_base) {	/* HyStart++'s CSS */
			tcp_snd_cwnd_set(tp, hss_css_cwnd(tcp_snd_cwnd(tp),
							  &tp->snd_cwnd_cnt, acked,
							  tp->snd_cwnd_clamp));
			return false;
		}
		acked = tcp_slow_start(tp, acked);
		if (!acked)
			return false;
	}
	spec_cubic_ai(sk, acked);
	return false;
}

/* Growth from @before stops at the delay signal's cap until the first ECE
 * (qd_cwnd_cap_at()): twice what the path delivers in a min RTT, plus the
 * threshold's queue, in the first slow start from its third round (the
 * samples of the first two read the initial window: qd_first_cap_due());
 * once the pipe is known full
 * (HyStart++ saw the RTT rise, or a loss or CSS ended the first slow
 * start) one BDP plus half the threshold's queue, one and a half BDPs
 * plus all of it while another sender shares the bottleneck. A window
 * never outgrows a path that does not
 * mark, and a lone flow's queue stays under the threshold between losses:
 * CUBIC's curve otherwise took it to two BDPs, a standing queue of one
 * BDP, on a FIFO that neither marks nor overflows. HyStart++'s CSS would
 * take the window to three times where the rise was seen, and a
 * corruption loss does not end it; a round's least RTT back under the
 * baseline resumes slow start, but the pipe was full, so the cap stays.
 * Once the first slow start is over, a lone flow's window above the cap
 * drains to it on the ACKs (@acked packets delivered) that follow
 * (qd_cwnd_bound()):
 * the cap alone stopped growth but kept a window already past it, and its
 * queue, until a loss found the queue above the threshold.
 * An RTO's restore is not growth: the window of before the loss comes
 * back whole (spec_cong_avoid()), and drains from the next ACK on.
 * A window of at most one BDP (qd_cwnd_under_bdp()) is under every cap:
 * the common case takes neither the parameters nor the threshold.
 * @how: QD_BOUND_LONE in a recovery kept as corruption (qd_cwnd_bound()),
 * else 0; the state adds QD_BOUND_FULL and QD_BOUND_DRAIN.
 */
static void spec_bound_cwnd(struct sock *sk, u32 before, u32 acked,
			    unsigned int how)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct spec_ca *ca = inet_csk_ca(sk);
	struct qd_params qdp;
	u32 cwnd = tcp_snd_cwnd(tp), w;

	if (ca->ece_seen || qd_cwnd_under_bdp(&ca->qd, cwnd))
		return;
	if (spec_ss_threshold(tp, ca) < TCP_INFINITE_SSTHRESH)
		how |= QD_BOUND_DRAIN;
	if (ca->full)
		how |= QD_BOUND_FULL;
	if (!(how & (QD_BOUND_FULL | QD_BOUND_DRAIN)) &&
	    !qd_first_cap_due(tp->delivered))
		return;	/* the first slow start's first two rounds */
	specnet_qd_params_read(&specnet_qd, &qdp);
	w = qd_cwnd_bound(&ca->qd, &qdp, how, before, cwnd, acked);
	if (w != cwnd)
		tcp_snd_cwnd_set(tp, w);
}

/*
 * Whether the window is past the growth cap of a full pipe
 * (qd_cwnd_cap_at(): one BDP plus half the threshold's queue alone, 1.5
 * BDPs shared) until the first ECE; *@cap gets the cap.
 */
static bool spec_past_full_cap(struct sock *sk, u32 *cap)
{
	struct spec_ca *ca = inet_csk_ca(sk);
	struct qd_params qdp;

	if (ca->ece_seen)
		return false;
	specnet_qd_params_read(&specnet_qd, &qdp);
	*cap = qd_cwnd_cap_at(&ca->qd, &qdp, true, tcp_snd_cwnd(tcp_sk(sk)));
	return tcp_snd_cwnd(tcp_sk(sk)) > *cap;
}

/*
 * HyStart++ (hystart.h, parameter hystart) in the first slow start (the
 * threshold, or the one a corruption episode will put back, still
 * infinite; no reduction under way), after the ACK's RTT sample and round
 * accounting; @round_ended: this ACK ended a round. CSS's end sets the
 * threshold to the window. A window past the cap of a full pipe when the
 * rise is seen, or that reaches it in CSS, ends slow start there, the
 * threshold the cap: on a long path the rise shows a round after the
 * window passed the BDP, up to twice it, and CSS held that window, and
 * its queue, for five rounds (3 s at 600 ms: 300-500 ms of queue on a GEO
 * path) before the drain could begin (spec_bound_cwnd()).
 */
static void spec_hystart(struct sock *sk, bool round_ended)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct spec_ca *ca = inet_csk_ca(sk);
	u32 *ss = ca->ss_pending ? &ca->ss_before : &tp->snd_ssthresh;
	u32 cur = ca->qd.rnd_rtt_us, n = qd_rnd_samples(ca->qd.rnd_cnt), cap;

	BUILD_BUG_ON(HSS_INF != QD_NONE);
	if (*ss != TCP_INFINITE_SSTHRESH || ca->reducing ||
	    !READ_ONCE(spec_params.hystart)) {
		ca->css_base = 0;
		return;
	}
	if (!ca->css_base) {
		if (!hss_slow_start_ends(ca->qd.rtt_us, ca->qd.min_rtt_us,
					 cur, n))
			return;
		ca->css_base = hss_base(cur);
		ca->css_rounds = 0;
		ca->full = 1;
		spec_count(sk, SPEC_CNT_HYSTART);
	}
	if (spec_past_full_cap(sk, &cap)) {
		*ss = max(cap, 2U);
		ca->css_base = 0;
	} else if (round_ended && ++ca->css_rounds >= HSS_CSS_ROUNDS) {
		*ss = max(tcp_snd_cwnd(tp), 2U);
		ca->css_base = 0;
	} else if (hss_css_resumes(ca->css_base, cur, n)) {
		ca->css_base = 0;
	}
}

/*
 * A path step moved the minimum up (QD_ACK_STEP): the window grows to what
 * the path carries in the new min RTT (qd_step_cwnd()), a new CUBIC epoch
 * from there. Where a timeout's window is still to be put back, that
 * window grows instead; in a slow start with a threshold (Loss's, after a
 * congestion verdict), the threshold, which the window then reaches in
 * slow start. In a reduction (PRR sets the window on every ACK) nothing
 * changes.
 */
static void spec_path_step(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct spec_ca *ca = inet_csk_ca(sk);
	u8 state = inet_csk(sk)->icsk_ca_state;
	u32 cwnd = tcp_snd_cwnd(tp), w;
	u32 *ss = ca->ss_pending ? &ca->ss_before : &tp->snd_ssthresh;

	if (ca->restore) {
		ca->spec_cwnd = qd_step_cwnd(&ca->qd, ca->spec_cwnd);
		return;
	}
	if (ca->reducing || state == TCP_CA_CWR || state == TCP_CA_Recovery)
		return;
	w = min(qd_step_cwnd(&ca->qd, cwnd), tp->snd_cwnd_clamp);
	if (spec_in_slow_start(tp, ca, cwnd)) {
		if (*ss != TCP_INFINITE_SSTHRESH)
			*ss = max(*ss, w);
		return;
	}
	if (w <= cwnd)
		return;
	tcp_snd_cwnd_set(tp, w);
	tp->snd_cwnd_cnt = 0;
	cubic_jump(&ca->cubic);
}

/* Every ACK, in recovery too: the delay signal's samples and rounds. */
static void spec_pkts_acked(struct sock *sk, const struct ack_sample *sample)
{
	struct spec_ca *ca = inet_csk_ca(sk);
	struct qd_params qdp;
	u32 rnd_end = ca->qd.rnd_end;
	unsigned int ev;

	if (!specnet_ecn_ok(tcp_sk(sk)))
		return;
	specnet_qd_params_read(&specnet_qd, &qdp);
	ev = specnet_qd_acked(sk, &ca->qd, &qdp, sample);
	if (ev & QD_ACK_TRIP)
		spec_count(sk, SPEC_CNT_BREAKER);
	if (ev & QD_ACK_STEP) {
		spec_count(sk, SPEC_CNT_STEP);
		spec_path_step(sk);
	}
	spec_hystart(sk, ca->qd.rnd_end != rnd_end);
}

static u32 spec_undo_cwnd(struct sock *sk)
{
	struct spec_ca *ca = inet_csk_ca(sk);

	/* A spurious loss was undone: nothing left to restore (the stack
	 * puts back the ssthresh of before the loss itself).
	 */
	ca->restore = 0;
	ca->spec_live = 0;
	ca->ss_pending = 0;
	ca->cubic.origin = 0;	/* a new epoch from the window undone to */
	return tcp_reno_undo_cwnd(sk);
}

/*
 * PRR for a congestion reduction (spec.h), with RFC 6937's slow-start
 * reduction bound: below ssthresh, one segment more than delivered on
 * every ACK. The stack (and RFC 6937bis) allows that one only on an ACK
 * that advances snd_una and reports no new loss; on a path that corrupts
 * a tenth of what it carries almost no ACK does, each corruption found
 * shrank what was in flight, and a GEO flow at 20% went from 1040 packets
 * in flight to 436 in 2 s with ssthresh at 697: its goodput fell, and the
 * jump to ssthresh at the reduction's end (spec_prr_end()) put a queue of
 * 200-400 ms. With the bound the flight stays at ssthresh.
 */
static void spec_prr(struct sock *sk, u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct spec_ca *ca = inet_csk_ca(sk);
	s32 n;

	if (!acked || !ca->prr_prior)
		return;
	ca->prr_delivered += acked;
	n = spec_prr_sndcnt(tp->snd_ssthresh, tcp_packets_in_flight(tp),
			    ca->prr_prior, ca->prr_delivered,
			    tp->prr_out - ca->prr_out0, acked, true);
	tcp_snd_cwnd_set(tp, tcp_packets_in_flight(tp) + n);
}

/* A recovery guessed corruption: cwnd is not reduced, so the lost segments
 * go out again on top of the pre-loss window; the window goes on growing
 * while the flow is cwnd-limited (tcp_is_cwnd_limited()'s slow-start test:
 * ssthresh reads the pre-loss window here, so the stack's own would say
 * no): slow start below the threshold of before the loss, CUBIC's curve
 * above it. On a long path with a few percent of corruption, recoveries
 * run back to back, and a window kept still through them would never
 * regain a reduction.
 */
static void spec_corrupt_recovery(struct sock *sk, u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct spec_ca *ca = inet_csk_ca(sk);
	u32 cwnd = tcp_snd_cwnd(tp), w;

	if (!acked)
		return;
	if (!spec_ss_cwnd_limited(cwnd, tp->is_cwnd_limited,
				  tp->max_packets_out)) {
		w = cwnd;
	} else if (cwnd < ca->ss_before) {
		w = ca->css_base ? hss_css_cwnd(cwnd, &tp->snd_cwnd_cnt, acked,
						ca->ss_before) :
		    spec_recovery_cwnd(cwnd, acked, ca->ss_before);
		w = min(w, tp->snd_cwnd_clamp);
	} else {
		spec_cubic_ai(sk, acked);
		w = tcp_snd_cwnd(tp);
	}
	tcp_snd_cwnd_set(tp, w);
	spec_bound_cwnd(sk, cwnd, acked, QD_BOUND_LONE);
	if (tcp_snd_cwnd(tp) != cwnd)
		tp->snd_cwnd_stamp = tcp_jiffies32;
}

/* Restart after idle: the curve does not advance while nothing was sent
 * (tcp_cubic's CA_EVENT_TX_START).
 */
static void spec_cwnd_event(struct sock *sk, enum tcp_ca_event event)
{
	struct spec_ca *ca = inet_csk_ca(sk);
	s32 idle;

	if (event != CA_EVENT_TX_START)
		return;
	idle = (s32)(tcp_jiffies32 - tcp_sk(sk)->lsndtime);
	if (idle > 0)
		cubic_idle(&ca->cubic, jiffies_to_msecs(idle),
			   jiffies_to_msecs(tcp_jiffies32));
}

/* tcp_update_pacing_rate(), which the stack does not call for cong_control
 * ops: cwnd * mss / srtt, times net.ipv4.tcp_pacing_ss_ratio (default 200%)
 * in slow start, tcp_pacing_ca_ratio (120%) after. In a corruption episode
 * "slow start" is judged against the threshold of before the loss.
 */
static void spec_set_pacing_rate(struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	const struct spec_ca *ca = inet_csk_ca(sk);
	const struct net *net = sock_net(sk);
	u32 ss = spec_ss_threshold(tp, ca);
	u32 ratio = tcp_snd_cwnd(tp) < ss / 2 ?
		    READ_ONCE(net->ipv4.sysctl_tcp_pacing_ss_ratio) :
		    READ_ONCE(net->ipv4.sysctl_tcp_pacing_ca_ratio);
	u64 rate = spec_pacing_rate(tp->mss_cache, tcp_snd_cwnd(tp),
				    tp->packets_out, tp->srtt_us, ratio);

	WRITE_ONCE(sk->sk_pacing_rate,
		   min_t(u64, rate, READ_ONCE(sk->sk_max_pacing_rate)));
}

/*
 * A corruption episode still open (its recovery not over) has reduced
 * nothing, and on a long lossy path its recovery can last for seconds: the
 * losses come faster than the retransmissions repair them, and the stack
 * asks for no new verdict until the recovery ends. A loss newly detected
 * (@losses) while the queue the flow sees stands at the threshold (or
 * with the breaker tripped: qd_loss_verdict()) is congestion now, as a
 * later ECE is (spec_in_ack_event()): the reduction the first loss did
 * not make starts from the window now, with PRR, to what a loss with that
 * evidence would have taken it to. Not once ECN has shown that the
 * bottleneck marks (a mark, not a queue, is congestion then). Returns
 * true when it reduces.
 */
static bool spec_late_congestion(struct sock *sk, u32 losses)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct spec_ca *ca = inet_csk_ca(sk);
	struct qd_params qdp;
	enum qd_verdict qv;

	if (!losses || !ca->ss_pending || ca->ece_seen || ca->reducing ||
	    inet_csk(sk)->icsk_ca_state != TCP_CA_Recovery ||
	    !specnet_ecn_ok(tp))
		return false;
	specnet_qd_params_read(&specnet_qd, &qdp);
	qv = qd_late_verdict(&ca->qd, &qdp);
	if (qv == QD_QUIET)
		return false;
	ca->spec_live = 0;
	ca->restore = 0;
	tp->snd_ssthresh = spec_congestion_ssthresh(ca, &qdp, SPEC_CONG_DELAY,
						    qv, tcp_snd_cwnd(tp), 0,
						    false);
	spec_prr_start(sk);
	spec_count(sk, SPEC_CNT_LATE);
	return true;
}

/* Once per ACK, after the stack's loss recovery, in place of its PRR and
 * cong_avoid: a congestion reduction runs PRR, a recovery guessed
 * corruption keeps the window, anything else grows as Reno
 * (tcp_may_raise_cwnd()'s conditions).
 */
static void spec_cong_control(SPECNET_CONG_CONTROL_ARGS)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct spec_ca *ca = inet_csk_ca(sk);
	u32 acked = rs->acked_sacked;
	bool una = after(tp->snd_una, ca->prior_una);

	ca->prior_una = tp->snd_una;
	if (spec_late_congestion(sk, rs->losses) ||
	    (ca->reducing && tcp_in_cwnd_reduction(sk))) {
		spec_prr(sk, acked);
	} else if (ca->ss_pending &&
		   inet_csk(sk)->icsk_ca_state == TCP_CA_Recovery) {
		spec_corrupt_recovery(sk, acked);
	} else if (tp->reordering >
		   READ_ONCE(sock_net(sk)->ipv4.sysctl_tcp_reordering) ?
		   acked : una) {
		u32 before = tcp_snd_cwnd(tp);

		if (!spec_cong_avoid(sk, tp->snd_una, acked))
			spec_bound_cwnd(sk, before, acked, 0);
		tp->snd_cwnd_stamp = tcp_jiffies32;
	}
	spec_set_pacing_rate(sk);
	ca->tlp_ack = 0;
}

/*
 * ss -ti: the delay signal's RTTs in tcp_vegas's layout (INET_DIAG_VEGASINFO;
 * ss prints none of it, and computes its "send" rate from tcpv_rtt, so,
 * as for vegas, cwnd over the min RTT): tcpv_rtt the windowed min RTT,
 * tcpv_minrtt the last complete round's least RTT (the queue is their
 * difference), tcpv_rttcnt the RTT samples of the round under way (at most
 * 31: the count shares a byte with the rate hold and the circuit breaker's
 * mark, qd_rnd_samples()); an RTT not yet sampled reads 0x7fffffff, as
 * vegas's.
 * The verdicts are in the per-netns counters. Read without the socket
 * lock (inet_diag), hence the READ_ONCE()s.
 */
static size_t spec_get_info(struct sock *sk, u32 ext, int *attr,
			    union tcp_cc_info *info)
{
	const struct spec_ca *ca = inet_csk_ca(sk);
	u32 min_rtt = READ_ONCE(ca->qd.min_rtt_us);
	u32 rtt = READ_ONCE(ca->qd.rtt_us);

	if (!(ext & (1 << (INET_DIAG_VEGASINFO - 1))))
		return 0;
	if (rtt == QD_NONE)
		rtt = READ_ONCE(ca->qd.rnd_rtt_us);
	info->vegas = (struct tcpvegas_info){
		.tcpv_enabled = 1,
		.tcpv_rttcnt = qd_rnd_samples(READ_ONCE(ca->qd.rnd_cnt)),
		.tcpv_rtt = min(min_rtt, 0x7fffffffU),
		.tcpv_minrtt = min(rtt, 0x7fffffffU),
	};
	*attr = INET_DIAG_VEGASINFO;
	return sizeof(info->vegas);
}

static struct tcp_congestion_ops tcp_spec __read_mostly = {
	.init		= spec_init,
	.ssthresh	= spec_ssthresh,
	.cong_control	= spec_cong_control,
	.set_state	= spec_set_state,
	.in_ack_event	= spec_in_ack_event,
	.pkts_acked	= spec_pkts_acked,
	.cwnd_event	= spec_cwnd_event,
	.undo_cwnd	= spec_undo_cwnd,
	.get_info	= spec_get_info,
	.flags		= TCP_CONG_NEEDS_ECN,
	.owner		= THIS_MODULE,
	.name		= "spec",
};

static int __init spec_register(void)
{
	int ret;

	BUILD_BUG_ON(sizeof(struct spec_ca) > ICSK_CA_PRIV_SIZE);
	/* CUBIC's cached cnt reuses the PRR fields' words (the union in
	 * struct spec_ca): it must not make the union larger. The two are
	 * never in use together: PRR runs only while a reduction is, and
	 * spec_prr_start() drops the cache (cnt_kept).
	 */
	BUILD_BUG_ON(sizeof(struct cubic_cnt_cache) >
		     offsetofend(struct spec_ca, prr_out0) -
		     offsetof(struct spec_ca, prr_prior));

	ret = specnet_cc_register(&spec_net_ops, &tcp_spec);
	if (ret)
		return ret;
	pr_info("registered \"%s\" (p_corrupt=%u per-mille, hystart=%u)\n",
		tcp_spec.name, READ_ONCE(spec_params.p_corrupt),
		READ_ONCE(spec_params.hystart));
	return 0;
}

static void __exit spec_unregister(void)
{
	specnet_cc_unregister(&spec_net_ops, &tcp_spec);
}

module_init(spec_register);
module_exit(spec_unregister);

MODULE_AUTHOR("specnet");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("SpecTCP: speculative corruption/congestion loss differentiation with ECN");
MODULE_VERSION("0.1");

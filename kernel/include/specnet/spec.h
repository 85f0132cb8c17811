/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SpecTCP: the speculative loss classifier, as pure integer maths.
 *
 * A speculative sender treats every loss as corruption unless the network
 * told it otherwise, by analogy with branch prediction: it "executes" the
 * cheap path (keep cwnd) and relies on ECN to detect a wrong guess.
 *
 * Model (docs/algorithms.md, SpecTCP):
 *
 *   on a loss event (fast-recovery entry or RTO) at time t:
 *     ECE seen in (t - srtt, t]        -> congestion: ssthresh = 0.7 cwnd
 *     else a standing queue            -> congestion: ssthresh = what the
 *                                          path delivers, qd_reduced_cwnd()
 *                                          (qdelay.h; only until the first
 *                                          ECE: then ECN is the signal)
 *     else a loss rate far above       -> congestion: ssthresh = 0.7 cwnd
 *       corruption's (the breaker)
 *     else with probability p          -> corruption: window as if no loss
 *     else (probability 1 - p)         -> congestion: ssthresh = 0.7 cwnd
 *
 *   corruption, with W the pre-loss cwnd and S the slow-start threshold
 *   before the loss:
 *     during the recovery              -> cwnd never below W: the lost
 *                                         segments are resent on top of
 *                                         it, not out of it (no PRR);
 *                                         while cwnd < S and the flow is
 *                                         cwnd-limited, +1 per segment
 *                                         delivered (slow start goes on),
 *                                         above S CUBIC's growth goes on;
 *                                         ssthresh reads W
 *     when it ends                     -> ssthresh S
 *
 *   on an ECN-Echo at time t, with the last corruption guess at t_s:
 *     t - t_s <= srtt                  -> misprediction: apply 0.8 cwnd now
 *     otherwise                        -> ssthresh = 0.8 cwnd (RFC 8511's
 *                                         beta_ecn), once per window (the
 *                                         stack's CWR state), unless cwnd
 *                                         is below what the path delivers
 *                                         in a min RTT (the queue drains)
 *
 *   growth: slow start, then CUBIC's window function (cubic.h, RFC 9438),
 *   whose reductions are the 0.7 and 0.8 above: a reduction is regained in
 *   a time set by the window's size (10 s for 30% of 1400 packets), not by
 *   the number of RTTs (Reno's +1 per RTT: 420 RTTs, 4 minutes at 600 ms).
 *
 * p is given in per-mille (SPEC_P_UNIT = 1000 is "always corruption", the
 * right choice behind a redopt bottleneck that keeps congestion drops at
 * zero). The Bernoulli draw takes a uniform random number in [0, 1000)
 * from the caller, so this header stays deterministic and host-testable.
 *
 * Times are u32 microseconds (the low 32 bits of tcp_mstamp); differences
 * are taken modulo 2^32, valid for intervals up to ~35 minutes, far beyond
 * the one-RTT windows used here.
 *
 * Deviations we chose and why:
 *  - "recent" is the half-open window (t - srtt, t], with srtt floored at
 *    SPEC_MIN_WINDOW_US so that a connection without an RTT sample yet
 *    still sees the ECE of the ACK that revealed the loss.
 *  - the decreases are CUBIC's (0.7, floor 2) for a loss and ABE's (0.8)
 *    for a mark without loss, where the paper has Reno's halving: a long
 *    path behind an AQM that marks early spends most of its time
 *    regaining halvings (docs/algorithms.md, "Growth and the ECN
 *    response"). "keep cwnd" on corruption is the paper's default; in
 *    congestion avoidance the window goes on growing along the curve.
 *  - corruption leaves the slow-start threshold alone. The paper keeps
 *    cwnd and is silent on ssthresh; setting ssthresh = cwnd would end
 *    slow start at the first corrupted packet, and on a long fat lossy
 *    path (600 ms, 1000-packet pipe, 1% corruption) Reno's +1 per RTT
 *    then never fills the pipe. A corruption loss says nothing about the
 *    path's capacity, so slow start goes on; only congestion (ECE, or a
 *    congestion draw) ends it. In congestion avoidance cwnd is kept, the
 *    paper's choice, and grows again once the recovery is over.
 *  - "keep cwnd" means the window in flight, not the value of a variable.
 *    The stack's PRR would send one segment per segment delivered while
 *    recovering, so each lost segment shrinks what is in flight; with a
 *    few percent corruption of a large pipe a new loss is found before
 *    each recovery ends, and what is in flight collapses to a fraction of
 *    the window.
 *    The module therefore controls cwnd itself (cong_control) and applies
 *    PRR, spec_prr_sndcnt() below, only to congestion reductions.
 *  - in those, for the same reason, the slow-start reduction bound's one
 *    segment more than delivered (below ssthresh) comes on every ACK, as
 *    RFC 6937 has it, not only on one that advances snd_una and reports
 *    no new loss, as the stack and RFC 6937bis do (@una_no_loss always
 *    true): with corruption, what is in flight stays at ssthresh through
 *    the reduction instead of falling under it.
 */
#ifndef _SPECNET_SPEC_H
#define _SPECNET_SPEC_H

#include "types.h"
#include "cubic.h"

#define SPEC_P_UNIT		1000	/* p_corrupt is per-mille */
#define SPEC_P_DEFAULT		SPEC_P_UNIT	/* always predict corruption */
#define SPEC_MIN_WINDOW_US	1000	/* floor of the srtt window, 1 ms */
#define SPEC_MIN_CWND		2	/* Reno's floor after a decrease */

/* Configuration: one per module (module parameters). */
struct spec_params {
	u32 p_corrupt;		/* P(corruption | no recent ECE), per-mille */
	u32 hystart;		/* 1: HyStart++ ends the first slow start */
};

/* Verdict on one loss event. */
enum spec_verdict {
	SPEC_VERDICT_NONE = 0,
	SPEC_CONG_ECE,		/* ECE within the last srtt: congestion */
	SPEC_CONG_DRAW,		/* no ECE, Bernoulli drew congestion */
	SPEC_CORRUPT,		/* no ECE, Bernoulli drew corruption */
	SPEC_CONG_DELAY,	/* no ECE, a standing queue or a loss rate far
				 * above corruption's (qdelay.h): congestion
				 */
};

/* The single validity check every entry point (module parameter, tools)
 * calls. Returns 0 or -EINVAL, with the valid range in @why.
 */
static inline int spec_check_params(const struct spec_params *p,
				    const char **why)
{
	const char *r = NULL;

	if (p->p_corrupt > SPEC_P_UNIT)
		r = "p_corrupt is per-mille, 0..1000";
	else if (p->hystart > 1)
		r = "hystart is 0 or 1";
	if (why)
		*why = r;
	return r ? -EINVAL : 0;
}

/* Length of the "recent" window from the smoothed RTT (us). */
static inline u32 spec_window_us(u32 srtt_us)
{
	return max_t(u32, srtt_us, SPEC_MIN_WINDOW_US);
}

/* Was the event at @then (us) within the window (now - win, now]? */
static inline bool spec_within(u32 now_us, u32 then_us, u32 win_us)
{
	return (u32)(now_us - then_us) < win_us;
}

/*
 * Does a loss come with a recent ECN-Echo? One seen (@seen) within the
 * last srtt before @now_us, at @ece_us, and not answered yet (@used: a
 * reduction, or an earlier loss's verdict, took it). A mark counts once:
 * on a GEO path behind CoDel the reduction that answers a mark ends an
 * RTT after it, while the srtt still holds the marked queue's delay, and
 * at 1% corruption a loss falls in that gap more often than not; counted
 * again, the mark cut the window answered at the mark to 0.7.
 */
static inline bool spec_ece_recent(bool seen, bool used, u32 now_us,
				   u32 ece_us, u32 srtt_us)
{
	return seen && !used &&
	       spec_within(now_us, ece_us, spec_window_us(srtt_us));
}

/*
 * Is an ECN-Echo on an ACK of @una an echo of a mark a reduction has
 * answered, which the receiver repeats until it gets our CWR (RFC 3168,
 * 6.1.3)? CWR goes out on the first new segment sent once it was queued,
 * at @cwr_seq (snd_nxt then: in CWR, the stack's high_seq). An ACK at or
 * below @cwr_seq may have been sent before that segment arrived; one
 * above it was sent after, and reports a new mark. That ACK is the one
 * that ends a CWR (the stack holds CWR until something above high_seq is
 * acknowledged), so that under marks that persist (a RED queue whose
 * average stays above max_th) each window brings one reduction: read as
 * an echo, a new mark took the flow back into CWR without a reduction,
 * where it does not grow either, and ten flows on one RED bottleneck kept
 * the windows slow start had left them for a minute (Jain 0.94).
 */
static inline bool spec_ece_echo(u32 una, u32 cwr_seq)
{
	return (s32)(una - cwr_seq) <= 0;
}

/*
 * Classify a loss. @ece_recent: an ECN-Echo arrived within the last srtt.
 * @delay: the delay signal or the circuit breaker (qdelay.h) found
 * congestion. @rnd: uniform in [0, SPEC_P_UNIT), supplied by the caller;
 * it is only consumed when neither says congestion.
 */
static inline enum spec_verdict spec_classify(const struct spec_params *p,
					      bool ece_recent, bool delay,
					      u32 rnd)
{
	if (ece_recent)
		return SPEC_CONG_ECE;
	if (delay)
		return SPEC_CONG_DELAY;
	return rnd < p->p_corrupt ? SPEC_CORRUPT : SPEC_CONG_DRAW;
}

/*
 * The slow-start threshold an ECN-Echo without loss sets: RFC 8511's
 * beta_ecn (0.8) of @cwnd, or half of it in slow start (@slow_start), but
 * not below @path_bdp, what the path carries in a min RTT while the flow
 * sees the marked queue and has the bottleneck to itself (qdelay.h's
 * qd_ece_floor(); 0: none), nor above @cwnd.
 * A mark reports a queue; the part of @cwnd above the path's BDP is that
 * queue, so a window brought down to the BDP drains it with the link kept
 * busy. On a short path a marked queue is a large part of the window and
 * 0.8 is the deeper cut; on a GEO path behind CoDel (5 ms target, 600 ms
 * RTT) the queue at a mark is a few percent of the window, and 0.8 left
 * the window a fifth below the BDP after every mark, twice after a
 * slow-start overshoot. In slow start the window doubles every round
 * trip and a mark comes back one round trip after the queue it reports
 * formed, so the window can be twice the BDP: 0.8 a round took four round
 * trips and more, with that queue in each, to drain it; half of it is the
 * window of the round that was marked (docs/algorithms.md, "In slow start
 * a mark halves the window").
 */
#define SPEC_BETA_ECN_SS	(CUBIC_BETA_UNIT / 2)

/* The decrease (of CUBIC_BETA_UNIT) a congestion verdict @v calls for:
 * a mark's 0.8 (half in @slow_start), 0.7 for every other; what CUBIC's
 * Reno-friendly region grows back from (cubic_congestion()).
 */
static inline u32 spec_target_beta(enum spec_verdict v, bool slow_start)
{
	if (v != SPEC_CONG_ECE)
		return CUBIC_BETA;
	return slow_start ? SPEC_BETA_ECN_SS : CUBIC_BETA_ECN;
}

static inline u32 spec_ece_ssthresh(u32 cwnd, u32 path_bdp, bool slow_start)
{
	return max_t(u32, cubic_reduce(cwnd, spec_target_beta(SPEC_CONG_ECE,
							      slow_start)),
		     min_t(u32, cwnd, path_bdp));
}

/*
 * The slow-start threshold of a loss within an srtt of a mark that no
 * reduction has answered yet (a loss with congestion evidence): CUBIC's
 * 0.7 of @cwnd, but, as for the mark alone (spec_ece_ssthresh()), not
 * below @path_bdp, what the path carries in a min RTT while the flow sees
 * the marked queue (0: none), nor above @cwnd. Behind an AQM that marks,
 * the mark is the congestion and a loss beside it mostly corruption (the
 * AQM drops no ECT packet below its limit); on a lossy path a loss often
 * falls within an srtt of a mark, and 0.7 of a window a few packets above
 * the BDP leaves the link idle until the window has grown back.
 */
static inline u32 spec_marked_loss_ssthresh(u32 cwnd, u32 path_bdp)
{
	return max_t(u32, cubic_reduce(cwnd, CUBIC_BETA), min_t(u32, cwnd, path_bdp));
}

/* The slow-start threshold a verdict calls for, from the pre-loss cwnd.
 * Congestion: the reduction's target (PRR moves cwnd toward it, and cwnd
 * is set to it when the reduction ends): for an ECN-Echo, 0.8 (half in
 * @slow_start) floored at @ece_floor (spec_ece_ssthresh(); the stack
 * calls ssthresh() for a mark without loss too; a loss with a recent mark
 * is taken down to 0.7 by the caller, which knows it was a loss), 0.7
 * otherwise. Corruption: the pre-loss window, which cwnd does not go
 * below while the recovery lasts.
 */
static inline u32 spec_target_ssthresh(enum spec_verdict v, u32 cwnd,
				       u32 ece_floor, bool slow_start)
{
	if (v == SPEC_CORRUPT)
		return max_t(u32, cwnd, SPEC_MIN_CWND);
	if (v == SPEC_CONG_ECE)
		return spec_ece_ssthresh(cwnd, ece_floor, slow_start);
	return cubic_reduce(cwnd, spec_target_beta(v, slow_start));
}

/*
 * Does an ECN-Echo without loss call for a reduction? Not when @cwnd is
 * below 7/8 of @path_bdp, what the path has been delivering in a min RTT
 * (qd_path_bdp(); 0: unknown; 1/8 is the estimate's noise): such a window
 * adds no queue of its own, the link is draining the queue the mark
 * reported, and the marks still arriving were set before the last
 * reduction took effect. Behind an AQM that marks for as long as its
 * queue stays above target (CoDel), one slow-start overshoot on a 600 ms
 * path otherwise brought five reductions in a row, to 0.29 of the window,
 * where two sufficed.
 */
static inline bool spec_ece_reduces(u32 cwnd, u32 path_bdp)
{
	return (u64)cwnd * 8 >= (u64)path_bdp * 7;
}

/*
 * Slow start during a recovery guessed corruption: @cwnd grows by the
 * @acked segments this ACK delivered, up to @ss_before, the slow-start
 * threshold of before the loss; at or above it (congestion avoidance)
 * cwnd is kept.
 */
static inline u32 spec_recovery_cwnd(u32 cwnd, u32 acked, u32 ss_before)
{
	if (cwnd >= ss_before)
		return cwnd;
	return acked > ss_before - cwnd ? ss_before : cwnd + acked;
}

/*
 * tcp_is_cwnd_limited() with its slow-start clause taken as true: may the
 * window grow? The stack's own test reads snd_ssthresh, which holds the
 * pre-loss window during a recovery guessed corruption, so it would not
 * see slow start there. @cwnd_limited: tp->is_cwnd_limited;
 * @max_packets_out: the most segments in flight over the last window.
 */
static inline bool spec_ss_cwnd_limited(u32 cwnd, bool cwnd_limited,
					u32 max_packets_out)
{
	return cwnd_limited || (u64)cwnd < 2 * (u64)max_packets_out;
}

/*
 * Proportional Rate Reduction (RFC 6937) as the stack's
 * tcp_cwnd_reduction() computes it (v5.19 on), for a congestion reduction
 * (CWR, or a recovery judged congestion): how many segments this ACK lets
 * out. spec controls cwnd with cong_control, for which the stack does not
 * reduce, so it applies PRR itself.
 * @ssthresh the target; @in_flight the segments in flight after this ACK;
 * @prior_cwnd (> 0) the window when the reduction began; @delivered the
 * segments delivered since, this ACK's included; @out those sent since;
 * @newly (> 0) those this ACK delivered; @una_no_loss: this ACK advanced
 * snd_una and marked nothing lost. cwnd becomes @in_flight plus the
 * result: 0 while more was sent than the reduction allows, at least 1 on
 * the first call (the fast retransmit).
 */
static inline s32 spec_prr_sndcnt(u32 ssthresh, u32 in_flight, u32 prior_cwnd,
				  u32 delivered, u32 out, u32 newly,
				  bool una_no_loss)
{
	s32 delta = (s32)(ssthresh - in_flight);
	s32 sndcnt;

	if (delta < 0) {
		u64 dividend = (u64)ssthresh * delivered + prior_cwnd - 1;

		sndcnt = (s32)(div_u64(dividend, prior_cwnd) - out);
	} else {
		sndcnt = max_t(s32, (s32)(delivered - out), (s32)newly);
		if (una_no_loss)
			sndcnt++;
		sndcnt = min_t(s32, delta, sndcnt);
	}
	return max_t(s32, sndcnt, out ? 0 : 1);
}

/*
 * tcp_update_pacing_rate()'s arithmetic, which the stack does not run for
 * cong_control ops: bytes/s = @ratio percent of @mss * max(@cwnd,
 * @packets_out) / srtt. @srtt_x8 is srtt in us << 3 (tp->srtt_us), 0 before
 * the first sample (no division then, as the stack). @ratio is
 * net.ipv4.tcp_pacing_ss_ratio or _ca_ratio (0..1000), the caller picks.
 * Saturates where the stack's u64 would wrap (a window of millions of
 * segments).
 */
static inline u64 spec_pacing_rate(u32 mss, u32 cwnd, u32 packets_out,
				   u32 srtt_x8, u32 ratio)
{
	u64 rate = (u64)mss * ((1000000 / 100) << 3) * ratio;
	u32 w = max_t(u32, cwnd, packets_out);

	if (rate && w > ~0ULL / rate)
		return ~0ULL;
	rate *= w;
	return srtt_x8 ? div_u64(rate, srtt_x8) : rate;
}

/*
 * An ECN-Echo at @now after a corruption guess at @spec_us: is it a
 * misprediction (within one smoothed RTT of the guess)?
 */
static inline bool spec_mispredicted(u32 now_us, u32 spec_us, u32 srtt_us)
{
	return spec_within(now_us, spec_us, spec_window_us(srtt_us) + 1);
}

#endif /* _SPECNET_SPEC_H */

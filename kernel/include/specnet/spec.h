/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SpecTCP: the speculative loss classifier, as pure integer maths.
 *
 * A speculative sender treats every loss as corruption unless the network
 * told it otherwise, by analogy with branch prediction: it "executes" the
 * cheap path (keep cwnd) and relies on ECN to detect a wrong guess.
 *
 * Model (shared/docs/algorithms.md, section 1):
 *
 *   on a loss event (fast-recovery entry or RTO) at time t:
 *     ECE seen in (t - srtt, t]        -> congestion: ssthresh = cwnd / 2
 *     else with probability p          -> corruption: window as if no loss
 *     else (probability 1 - p)         -> congestion: ssthresh = cwnd / 2
 *
 *   corruption, with W the pre-loss cwnd, U the segments outstanding at
 *   the loss (the window in use), D the segments the recovery delivered
 *   and S the slow-start threshold before the loss:
 *     during the recovery              -> ssthresh W (PRR's target)
 *     when it ends, W >= S             -> cwnd W, ssthresh S
 *     when it ends, W < S (slow start) -> cwnd max(W, min(U + min(D, U), S)),
 *                                         ssthresh S
 *
 *   on an ECN-Echo at time t, with the last corruption guess at t_s:
 *     t - t_s <= srtt                  -> misprediction: apply cwnd / 2 now
 *     otherwise                        -> RFC 3168 response (halve once
 *                                         per window; the stack's CWR state)
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
 *  - the decrease is Reno's (max(cwnd/2, 2)); "keep cwnd" on corruption is
 *    the paper's default, "keep growing slowly" is not implemented.
 *  - corruption leaves the slow-start threshold alone. The paper keeps
 *    cwnd and is silent on ssthresh; setting ssthresh = cwnd would end
 *    slow start at the first corrupted packet, and on a long fat lossy
 *    path (600 ms, 1000-packet pipe, 1% corruption) Reno's +1 per RTT
 *    then never fills the pipe. A corruption loss says nothing about the
 *    path's capacity, so slow start goes on; only congestion (ECE, or a
 *    congestion draw) ends it. The recovery's delivered segments grow the
 *    window as slow start's ACKs would have (one each, at most doubling),
 *    from the window in use U, not from cwnd: with recoveries back to back
 *    (1% corruption of a 600 ms path) PRR keeps the flow near what is in
 *    flight, and growth from cwnd compounded there into a window far above
 *    what was ever sent (ssthresh in the millions, measured), released as
 *    a burst when a recovery ended without a new one.
 */
#ifndef _SPECNET_SPEC_H
#define _SPECNET_SPEC_H

#include "types.h"

#define SPEC_P_UNIT		1000	/* p_corrupt is per-mille */
#define SPEC_P_DEFAULT		SPEC_P_UNIT	/* always predict corruption */
#define SPEC_MIN_WINDOW_US	1000	/* floor of the srtt window, 1 ms */
#define SPEC_MIN_CWND		2	/* Reno's floor after a decrease */

/* Configuration: one per module (module parameters). */
struct spec_params {
	u32 p_corrupt;		/* P(corruption | no recent ECE), per-mille */
};

/* Verdict on one loss event. */
enum spec_verdict {
	SPEC_VERDICT_NONE = 0,
	SPEC_CONG_ECE,		/* ECE within the last srtt: congestion */
	SPEC_CONG_DRAW,		/* no ECE, Bernoulli drew congestion */
	SPEC_CORRUPT,		/* no ECE, Bernoulli drew corruption */
};

/* The single validity check every entry point (module parameter, tools)
 * calls. Returns 0 or -EINVAL.
 */
static inline int spec_check_params(const struct spec_params *p)
{
	if (p->p_corrupt > SPEC_P_UNIT)
		return -EINVAL;
	return 0;
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
 * Classify a loss. @ece_recent: an ECN-Echo arrived within the last srtt.
 * @rnd: uniform in [0, SPEC_P_UNIT), supplied by the caller; it is only
 * consumed when there is no ECE.
 */
static inline enum spec_verdict spec_classify(const struct spec_params *p,
					      bool ece_recent, u32 rnd)
{
	if (ece_recent)
		return SPEC_CONG_ECE;
	return rnd < p->p_corrupt ? SPEC_CORRUPT : SPEC_CONG_DRAW;
}

/* Reno multiplicative decrease: max(cwnd / 2, 2). */
static inline u32 spec_halve(u32 cwnd)
{
	return max_t(u32, cwnd >> 1, SPEC_MIN_CWND);
}

/* The slow-start threshold a verdict calls for, from the pre-loss cwnd:
 * the recovery's target (PRR moves cwnd toward it, and the stack sets cwnd
 * to it when the recovery ends).
 */
static inline u32 spec_target_ssthresh(enum spec_verdict v, u32 cwnd)
{
	if (v == SPEC_CORRUPT)
		return max_t(u32, cwnd, SPEC_MIN_CWND);
	return spec_halve(cwnd);
}

/*
 * The window when a recovery guessed corruption ends: @cwnd the pre-loss
 * window, @used the segments outstanding at the loss, @delivered the
 * segments delivered (ACKed or SACKed) during the recovery, @ss_before the
 * slow-start threshold before the loss (the stack's TCP_INFINITE_SSTHRESH
 * in slow start). Never below the pre-loss window.
 */
static inline u32 spec_cwnd_after(u32 cwnd, u32 used, u32 delivered,
				  u32 ss_before)
{
	u32 keep = max_t(u32, cwnd, SPEC_MIN_CWND);
	u32 base = min_t(u32, used, keep);
	u32 add = min_t(u32, delivered, base);
	u32 grown;

	if (keep >= ss_before)
		return keep;
	grown = add > ss_before - base ? ss_before : base + add;
	return max_t(u32, keep, grown);
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

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CUBIC's window growth (RFC 9438) as spec uses it, in integer maths.
 *
 * spec keeps the window through a corruption loss; what it does after a
 * congestion reduction decides how much of a long path it uses. Reno's +1
 * segment per RTT regains one halving of a 1400-packet window (20 Mbit/s,
 * 600 ms) in 700 RTTs, seven minutes. CUBIC's window is a function of the
 * time since the reduction, not of the number of RTTs:
 *
 *   W(t) = C (t - K)^3 + W_max,   K = cbrt((W_max - cwnd_0) / C)
 *
 * with C = 0.4 segments/s^3, W_max the window before the reduction and
 * cwnd_0 the window after it. The window is back at W_max after K seconds
 * (10 s for 30% of 1400 packets, 8.9 s for 20%), whatever the RTT, and
 * grows past it slowly first (probing) then faster.
 *
 *   reduction        cwnd_0 = beta cwnd; beta 0.7 (beta_cubic) for a loss
 *                    with congestion evidence, 0.8 (RFC 8511's beta_ecn)
 *                    for an ECN-Echo without loss; cubic_congestion()
 *                    notes W_max, lowered to (1 + beta_cubic) / 2 of the
 *                    window when the window is below the previous W_max
 *                    (fast convergence: a newcomer is taking bandwidth)
 *   each ACK in CA   the target is W(t + RTT) (t since the first ACK after
 *                    the reduction, RTT the min RTT); the window grows by
 *                    (target - cwnd) / cwnd per segment delivered, at most
 *                    by half of itself per RTT (cnt >= 2), so cubic_cnt()
 *                    returns cnt, the segments per increment of one, for
 *                    tcp_cong_avoid_ai()
 *   Reno-friendly    W_est grows by alpha = 3 (1 - beta) / (1 + beta) per
 *                    RTT (1 once it reaches W_max), beta the one of the
 *                    reduction that started the epoch (0.53 after 0.7,
 *                    1/3 after 0.8, 1 after a halving), as RFC 9438 4.3
 *                    derives alpha from beta so that the average window
 *                    is Reno's; where it is above the cubic target the
 *                    window follows it, so that on a short path (small K)
 *                    the flow is no slower than Reno; 0.53 after a mark's
 *                    0.8 would grow back faster than Reno's average
 *                    window allows, on the short paths where this region
 *                    sets the pace (docs/algorithms.md, "A shared
 *                    bottleneck")
 *
 * Times are milliseconds of a caller's u32 clock (the module passes
 * jiffies_to_msecs(tcp_jiffies32)); differences are taken modulo 2^32.
 * (t - K) is bounded at CUBIC_OFFS_MAX_MS, far past the point where the
 * window's growth is bounded by cnt >= 2.
 *
 * Taken from the kernel's tcp_cubic.c: cnt's floor of 2, its 100 x cwnd
 * when the target is below the window, and 20 before any reduction; the
 * target W(t + RTT); the shortcut that keeps cnt while the window is
 * unchanged, for at most 1/32 s (cubic_cnt_cached()). Left out: HyStart
 * (spec's first slow start uses HyStart++, hystart.h).
 */
#ifndef _SPECNET_CUBIC_H
#define _SPECNET_CUBIC_H

#include "types.h"
#include "cwnd.h"

#define CUBIC_BETA_UNIT		1024
#define CUBIC_BETA		717	/* beta_cubic, 0.7 */
#define CUBIC_BETA_ECN		819	/* RFC 8511 beta_ecn, 0.8 */
#define CUBIC_MS3_PER_SEG	2500000000ULL	/* 1 / C: 2.5 s^3 per segment */
#define CUBIC_OFFS_MAX_MS	1048576	/* |t - K| bound (2^20 ms, 17.5 min) */
#define CUBIC_CNT_FIRST		20	/* cnt bound before any reduction */
#define CUBIC_CNT_KEEP_MS	31	/* cnt kept at most 1/32 s */

struct cubic_state {
	u32 last_max;	/* W_max: the window before the last reduction */
	u32 origin;	/* the curve's plateau, 0: no epoch under way */
	u32 k_ms:22,	/* K: time from the epoch's start to the plateau
			 * (a cube root of a u64: below 2^22)
			 */
	    beta:10;	/* beta of the last reduction, of CUBIC_BETA_UNIT */
	u32 epoch_ms;	/* the epoch's start (the first ACK in CA) */
	u32 w_est;	/* Reno-friendly window estimate, segments */
	u32 w_est_acks;	/* segments delivered towards W_est's next + 1 */
};

/* cnt as cubic_cnt() last returned it, for cubic_cnt_cached() */
struct cubic_cnt_cache {
	u32 cnt;
	u32 cwnd;	/* the window it was computed for */
	u32 stamp_ms;	/* when */
};

static inline void cubic_init(struct cubic_state *s)
{
	*s = (struct cubic_state){ .beta = CUBIC_BETA };
}

/* floor(cbrt(@a)), bit by bit (per reduction, not per ACK). */
static inline u32 cubic_cbrt(u64 a)
{
	u64 y = 0;
	int sh;

	for (sh = 63; sh >= 0; sh -= 3) {
		u64 b;

		y <<= 1;
		b = 3 * y * (y + 1) + 1;
		if ((a >> sh) >= b) {
			a -= b << sh;
			y++;
		}
	}
	return (u32)y;
}

/* The window after a reduction by @beta (of CUBIC_BETA_UNIT). */
static inline u32 cubic_reduce(u32 cwnd, u32 beta)
{
	return specnet_cwnd_scaled(cwnd, beta, CUBIC_BETA_UNIT);
}

/* The reduction under way is by @beta (of CUBIC_BETA_UNIT, below it):
 * noted by cubic_congestion(), or later when it turns out to differ (a
 * mark's 0.8 that a loss beside it takes to 0.7).
 */
static inline void cubic_reduced_by(struct cubic_state *s, u32 beta)
{
	s->beta = min_t(u32, beta, CUBIC_BETA_UNIT - 1);
}

/*
 * A congestion reduction from @cwnd by @beta (of CUBIC_BETA_UNIT, below
 * it; the Reno-friendly region's alpha follows it): W_max, with fast
 * convergence; the next ACK in congestion avoidance starts a new epoch.
 * @floor (packets, 0: none) is what the path has been delivering in a
 * min RTT (qdelay.h's qd_path_bdp()): fast convergence does not set the
 * plateau below it (nor above @cwnd). Fast convergence lowers W_max when
 * a reduction comes below the last one, the sign that a newcomer takes a
 * share; a sender draining its own slow-start overshoot in steps of 0.8
 * an RTT apart also reduces below the last W_max each time, and would
 * take 0.85 of each step down to a plateau below the BDP the link has just
 * delivered. A newcomer's share shows in the delivery rate, so the floor
 * follows it.
 */
static inline void cubic_congestion(struct cubic_state *s, u32 cwnd, u32 floor,
				    u32 beta)
{
	cubic_reduced_by(s, beta);
	if (cwnd < s->last_max)
		s->last_max = max_t(u32, (u32)(((u64)cwnd *
						(CUBIC_BETA_UNIT + CUBIC_BETA)) /
					       (2 * CUBIC_BETA_UNIT)),
				    min_t(u32, cwnd, floor));
	else
		s->last_max = cwnd;
	s->origin = 0;
}

/*
 * The window was raised without a loss (a path step up: qdelay.h's
 * qd_step_cwnd()): the next ACK in congestion avoidance starts a new epoch
 * from the raised window, as after a reduction to it (its plateau W_max
 * if that is higher, else the window). The curve under way counts the
 * shorter path's packets: below the raised window, it held growth at one
 * packet per 100 windows until it caught up.
 */
static inline void cubic_jump(struct cubic_state *s)
{
	s->origin = 0;
}

/* The sender was idle for @idle_ms (no data in flight): the curve does not
 * advance meanwhile (tcp_cubic's CA_EVENT_TX_START).
 */
static inline void cubic_idle(struct cubic_state *s, u32 idle_ms, u32 now_ms)
{
	if (!s->origin)
		return;
	s->epoch_ms += idle_ms;
	if ((s32)(s->epoch_ms - now_ms) > 0)
		s->epoch_ms = now_ms;
}

/* W(@t_ms) of the epoch under way, saturated to [0, U32_MAX]. */
static inline u32 cubic_window(const struct cubic_state *s, u32 t_ms)
{
	u32 offs = t_ms < s->k_ms ? s->k_ms - t_ms : t_ms - s->k_ms;
	u64 delta;

	offs = min_t(u32, offs, CUBIC_OFFS_MAX_MS);
	delta = div64_u64((u64)offs * offs * offs, CUBIC_MS3_PER_SEG);
	if (t_ms < s->k_ms)
		return delta >= s->origin ? 0 : s->origin - (u32)delta;
	return (u32)min_t(u64, (u64)s->origin + delta, ~0U);
}

/*
 * One ACK in congestion avoidance that delivered @acked segments, the
 * window @cwnd (>= 1), at @now_ms, the path's min RTT @rtt_ms: starts the
 * epoch if none is under way, and returns cnt, the segments to deliver
 * per increment of the window by one (tcp_cong_avoid_ai()'s w).
 */
static inline u32 cubic_cnt(struct cubic_state *s, u32 cwnd, u32 acked,
			    u32 now_ms, u32 rtt_ms)
{
	u32 t, target, cnt, per;

	cwnd = max_t(u32, cwnd, 1);
	if (!s->origin) {
		s->epoch_ms = now_ms;
		s->w_est = cwnd;
		s->w_est_acks = 0;
		if (s->last_max <= cwnd) {
			s->k_ms = 0;
			s->origin = cwnd;
		} else {
			s->k_ms = cubic_cbrt((u64)(s->last_max - cwnd) *
					     CUBIC_MS3_PER_SEG);
			s->origin = s->last_max;
		}
	}
	t = (s32)(now_ms - s->epoch_ms) > 0 ? now_ms - s->epoch_ms : 0;
	t = min_t(u32, t, CUBIC_OFFS_MAX_MS);
	t += min_t(u32, rtt_ms, CUBIC_OFFS_MAX_MS);
	target = cubic_window(s, t);
	if (target > cwnd)
		cnt = cwnd / (target - cwnd);
	else
		cnt = (u32)min_t(u64, 100ULL * cwnd, ~0U);
	if (!s->last_max && cnt > CUBIC_CNT_FIRST)
		cnt = CUBIC_CNT_FIRST;

	/* Reno-friendly region: 1 / alpha = (1 + beta) / (3 (1 - beta)) */
	per = s->w_est >= s->last_max ? cwnd :
	      (u32)min_t(u64, div_u64((u64)cwnd * (CUBIC_BETA_UNIT + s->beta),
				      3 * (CUBIC_BETA_UNIT - s->beta)), ~0U);
	per = max_t(u32, per, 1);
	s->w_est_acks += acked;
	if (s->w_est_acks >= per) {
		u32 n = s->w_est_acks / per;

		s->w_est += n;
		s->w_est_acks -= n * per;
	}
	if (s->w_est > cwnd)
		cnt = min_t(u32, cnt, cwnd / (s->w_est - cwnd));
	return max_t(u32, cnt, 2);
}

/*
 * cubic_cnt() at most once per CUBIC_CNT_KEEP_MS while the window does not
 * change, as tcp_cubic does (per ACK the target moves by a fraction of a
 * packet; the cube and the divisions are the costly part of an ACK). @c
 * holds the last result; @valid says whether it does (the caller may keep
 * it in storage it shares). The segments delivered meanwhile still count
 * towards the Reno-friendly estimate, at the next computation. An epoch
 * ended by cubic_congestion() is never served from @c.
 */
static inline u32 cubic_cnt_cached(struct cubic_state *s,
				   struct cubic_cnt_cache *c, bool valid,
				   u32 cwnd, u32 acked, u32 now_ms, u32 rtt_ms)
{
	if (valid && s->origin && c->cwnd == cwnd &&
	    now_ms - c->stamp_ms <= CUBIC_CNT_KEEP_MS) {
		s->w_est_acks += acked;
		return c->cnt;
	}
	c->cnt = cubic_cnt(s, cwnd, acked, now_ms, rtt_ms);
	c->cwnd = cwnd;
	c->stamp_ms = now_ms;
	return c->cnt;
}

#endif /* _SPECNET_CUBIC_H */

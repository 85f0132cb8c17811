/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Queueing delay and loss rate as congestion evidence where the bottleneck
 * never marks: the safety net that spec and cpecn share.
 *
 * spec and cpecn call a loss corruption unless ECN says otherwise. Behind a
 * FIFO or an AQM that drops instead of marking, ECN never says anything, so
 * without a second signal they would never back off: the window grows
 * until the bottleneck drops most of what is sent (congestion collapse).
 * Most Internet bottlenecks are such FIFOs. This header supplies the second
 * signal, from the RTT (as Vegas, Veno and BBR read it) and from the loss
 * rate (a circuit breaker in the spirit of RFC 8084):
 *
 *   min_rtt     windowed minimum of the RTT samples over win_ms (BBR's
 *               min_rtt filter: a sample replaces the minimum when it is
 *               lower or when the minimum is older than the window). The
 *               window is long, 300 s (the stack's tcp_min_rtt_wlen): a
 *               sender that keeps a FIFO full never sees the empty-queue
 *               RTT again, and with BBR's 10 s the minimum took the
 *               standing queue in after 10 s, the queue looked empty and
 *               nearly every overflow loss became corruption
 *               (docs/algorithms.md, "A long window for the minimum").
 *               A path whose RTT steps up (a LEO satellite's next hop, a
 *               route change) moves the minimum with it (below).
 *   rtt         the least RTT sample of the last complete round (Vegas'
 *               per-RTT minimum: one delayed ACK does not make a queue)
 *   qdelay      rtt - min_rtt, the queueing delay this flow sees
 *   pkt_ns      the least time the path took to deliver one packet over
 *               the same window (1 / the highest delivery rate), so that a
 *               threshold can be counted in packets at the bottleneck
 *   aqm         max(loss_us, 3 * pkt_ns), the queue an AQM keeps
 *   thresh      max(aqm, min_rtt * loss_pct / 100), a standing queue
 *
 *   loss with qdelay >= thresh            -> congestion (QD_DELAY), down
 *                                            by 1/8 to 1/2
 *   loss with qdelay >= aqm, the floor    -> congestion (QD_DELAY), the
 *   of the recent rounds under aqm           queue drained
 *                                            (qd_reduced_cwnd())
 *   loss in a "breaker" interval          -> congestion (QD_BREAKER)
 *   otherwise                             -> no evidence (QD_QUIET): the
 *                                            module's own rule decides
 *
 * The threshold scales with the path: a fraction of the min RTT on long
 * paths (a FIFO of half a BDP, full, holds half a min RTT of queue), a
 * floor against RTT jitter on short ones, and three packet times (Veno's
 * beta of 3 queued packets) on slow links, where one 1000-byte frame at
 * 64 kbit/s is 125 ms of queue. The floors alone are also what an AQM
 * that drops keeps (CoDel's 5 ms target): a loss with that much queue
 * drains it, so that such an AQM's drops are not taken for corruption on
 * a long path, where the threshold is far above its target. Only where
 * the flow's queue has drained to the minimum lately (the floor of its
 * recent rounds under aqm): after a path step the minimum may be short by
 * a few ms, and that shortfall would read as an AQM's queue.
 *
 * Circuit breaker: the loss fraction of measurement intervals (rounds,
 * extended until they hold QD_BRK_MIN_PKTS packets, so that a fraction is
 * not noise: at 7% corruption, 20-packet intervals lost 2 of 20 often
 * enough to trip a 5% floor) is compared with a
 * baseline, what corruption has shown on this connection: an average of
 * the loss fraction of the intervals whose queueing delay stayed under the
 * threshold, quick to fall (gain 1/2) and slow to rise (gain 1/16), so
 * that a collapse, whose loss fraction grows round by round, outruns it.
 * An interval losing more than max(brk_floor, brk_mult x baseline), and at
 * least QD_BRK_MIN_LOST packets, is over the limit, and feeds no baseline;
 * two in a row trip the breaker (RFC 8084's "persistent" congestion): the
 * next loss verdict is congestion. One alone is an outage, not a
 * collapse: a LEO handover loses everything for 50-100 ms, one or two
 * round trips of a 25-60 ms path, and the timeout that follows marks the
 * whole flight lost, one interval far over any corruption's limit; the
 * trip it made cut a restored window by 0.7 at the next random loss, on a
 * path that had just grown longer. It is not armed until
 * QD_BRK_WARMUP quiet intervals have set the baseline (a slow link losing
 * a third of its packets to corruption must not trip it at once); a
 * bottleneck that overflows from the start shows its queue to the delay
 * test meanwhile. Where the buffer is too small for the delay test (less
 * than the threshold) and the overload grows slowly, the baseline follows
 * it: qd_cwnd_cap() then bounds the loss.
 *
 * A path that grew longer: a queue builds packet by packet, at the rate
 * the senders' ACK clocks add to it, so two RTT samples in a row differ by
 * a packet or two; a longer path (a LEO handover, a route change) makes
 * the RTT jump from one sample to the next and stay there. A jump of at
 * least half the threshold from a level without a long standing queue
 * (below min_rtt + 2 thresh) is a candidate step; if no sample falls back
 * below half of it until a whole round after it has ended, the minimum
 * moves up by what that round's least sample gained on the floor of the
 * rounds before the jump, or on the level less one threshold if that is
 * higher (qd_floor_us(), qd_step_confirm()): the step drained the flow's
 * own queue. A queue of a competitor keeps the minimum
 * where it was: it stands (CUBIC's, through a FIFO of more than a BDP, far
 * above twice the threshold) before anything jumps, and it grows by
 * ACK-clocked packets, not by half a threshold at once; the one that
 * jumps, a competitor's slow start, comes before the first loss, and the
 * watch starts there (qd_step_sample()). A retransmission timeout drains
 * the flow's own queue: the level a jump is measured from then drops to
 * the floor, by one threshold at most (qd_timeout()), so that a LEO
 * handover's step, which comes with a timeout, is seen even when it is
 * shorter than half the threshold plus the queue the last sample held.
 * Without this, every RTT rise at a handover read as queue for the 300 s
 * window and turned each random loss into a congestion cut
 * (docs/algorithms.md, "Path steps"). spec's window follows a confirmed
 * step up to the rate x the new minimum (qd_step_cwnd()).
 *
 * Growth is bounded by what the path delivers: in the first slow start
 * qd_cwnd_cap() is twice the BDP (BBR's cwnd gain of 2) plus the loss
 * threshold's worth of packets. Once the pipe is known full (the first
 * slow start is over) qd_cwnd_cap_at() is one BDP plus half the
 * threshold's queue, the most a lone flow needs to keep the link busy, so
 * that its queue stays under the threshold where nothing marks or drops;
 * one and a half BDPs plus the threshold, and, on a deep queue (two min
 * RTTs or more), twice what it holds at the flow's best rate, while the flow
 * delivers under three quarters of that rate (qd_shared(): another
 * sender takes the rest) or sees more queue than its own window explains
 * (qd_queue_not_ours()): room for a competitor's queue. With one BDP,
 * CUBIC filling a FIFO kept spec near a third of the link; without the
 * queue's term a fifth of it through a FIFO of four BDPs, where CUBIC's
 * queue never drains, and 0.32-0.43 with the queue's term at one and a
 * half times (docs/algorithms.md, "Growth bounded by what the path
 * delivers").
 *
 * All times are u32 microseconds (the low 32 bits of tcp_mstamp) except
 * pkt_ns; differences modulo 2^32 hold for the window's range (< 35 min).
 * Fractions are parts per million (QD_PPM_UNIT).
 */
#ifndef _SPECNET_QDELAY_H
#define _SPECNET_QDELAY_H

#include "types.h"
#include "cwnd.h"

#define QD_NONE			(~0U)	/* no sample */
#define QD_PCT_UNIT		100	/* loss_pct */
#define QD_PERMILLE_UNIT	1000	/* brk_floor */
#define QD_PPM_UNIT		1000000	/* loss fractions */
#define QD_LOSS_PKTS		3	/* threshold floor, packets queued */
#define QD_GAIN_UNIT		8	/* cwnd cap gains: eighths of a BDP */
#define QD_CAP_GAIN		16	/* first slow start: 2 BDPs */
#define QD_CAP_EARLY		40	/* ...from 4 initial windows delivered */
#define QD_SHARED_GAIN		12	/* then, sharing: 1.5 BDPs (else 1) */
#define QD_LONE_Q_SHIFT		1	/* alone: half the threshold's queue */
#define QD_BETA			7	/* the least decrease on a queue: */
#define QD_BETA_UNIT		8	/* to 7/8 of the window */
#define QD_NOT_OURS_BETA	7	/* the most on another's deep queue: */
#define QD_NOT_OURS_BETA_UNIT	10	/* to 7/10 of it (CUBIC's) */
#define QD_BRK_MIN_PKTS		64	/* least packets of a breaker interval */
#define QD_BRK_MIN_LOST		8	/* least losses of an interval that trips */
#define QD_BRK_WARMUP		4	/* quiet intervals before the baseline */
#define QD_RND_SAMPLES_MAX	0x1fU	/* rnd_cnt: the samples, saturated */
#define QD_RND_HOLD_SHIFT	5	/* rnd_cnt: rate samples held, */
#define QD_RND_HOLD		0x60U	/* qd_rate_held() */
#define QD_HOLD_LOSS		3U	/* ... in a timeout's Loss, then */
#define QD_HOLD_ROUNDS		2U	/* for this many round ends */
#define QD_RND_BRK_OVER		0x80U	/* rnd_cnt: the last interval was over */
#define QD_STEP_SHIFT		7	/* step_last: units of 128 us */
#define QD_STEP_ROUNDS		2	/* round ends from a jump to its check */
#define QD_FLOOR_SHIFT		4	/* the floor rises by 1/16 of the gap */
#define QD_FLOOR_NONE		0xfffU	/* floor_q: no floor */
#define QD_STEP_MAX		0xffffU	/* step_last's and the floor's top */
#define QD_LATE_SAMPLES		8	/* a round under way's least: a queue */
#define QD_DEEP_Q		2	/* a deep standing queue: 2 min RTTs */
#define QD_DEEP_GAIN		16	/* its term in the shared cap: 2 x */

/* Bounds and defaults of the parameters (module parameters qd_*). */
#define QD_LOSS_US_MIN		100
#define QD_LOSS_US_MAX		1000000
#define QD_LOSS_US_DEFAULT	5000
#define QD_LOSS_PCT_MIN		1
#define QD_LOSS_PCT_MAX		100
#define QD_LOSS_PCT_DEFAULT	25
#define QD_WIN_MS_MIN		1000
#define QD_WIN_MS_MAX		600000
#define QD_WIN_MS_DEFAULT	300000
#define QD_BRK_FLOOR_MIN	1
#define QD_BRK_FLOOR_MAX	1000
#define QD_BRK_FLOOR_DEFAULT	50
#define QD_BRK_MULT_MIN		2
#define QD_BRK_MULT_MAX		100
#define QD_BRK_MULT_DEFAULT	3

struct qd_params {
	u32 enable;		/* 0: no delay signal, no breaker */
	u32 loss_us;		/* least qdelay of a congestion loss, us */
	u32 loss_pct;		/* ... or this % of min_rtt if larger */
	u32 win_ms;		/* min_rtt and pkt_ns window, ms */
	u32 brk_floor;		/* breaker: per-mille of an interval lost */
	u32 brk_mult;		/* ... or this times the baseline */
};

#define QD_PARAMS_DEFAULT {			\
	.enable = 1,				\
	.loss_us = QD_LOSS_US_DEFAULT,		\
	.loss_pct = QD_LOSS_PCT_DEFAULT,	\
	.win_ms = QD_WIN_MS_DEFAULT,		\
	.brk_floor = QD_BRK_FLOOR_DEFAULT,	\
	.brk_mult = QD_BRK_MULT_DEFAULT,	\
}

/* Per-connection state: 44 bytes (a CC's private area is 104). */
struct qd_state {
	u32 min_rtt_us;		/* windowed min RTT, QD_NONE: none */
	u32 min_stamp_us;	/* when it was taken */
	u32 pkt_ns;		/* least delivery time of a packet, QD_NONE */
	u32 rnd_rtt_us;		/* least RTT sample of the round under way */
	u32 rtt_us;		/* ... of the last complete round, QD_NONE
				 * (none yet, or since a timeout)
				 */
	u32 rnd_end;		/* delivered count that ends the round */
	u32 brk_delivered;	/* delivered count at the interval's start */
	u32 brk_lost;		/* lost count at the interval's start */
	u32 base_ppm:20,	/* baseline loss fraction (corruption), ppm */
	    floor_q:12;		/* the recent rounds' floor over min_rtt_us,
				 * 2^QD_STEP_SHIFT us units, QD_FLOOR_NONE
				 */
	u32 rate_ns;		/* recent delivery time of a packet (EWMA) */
	u16 step_last;		/* last RTT sample, or the level before a
				 * candidate step, 2^QD_STEP_SHIFT us units
				 */
	u8  started:1,		/* rnd_end, brk_* are valid */
	    tripped:1,		/* breaker: next loss is congestion */
	    quiet:3,		/* quiet intervals seen, up to QD_BRK_WARMUP */
	    step_chk:2,		/* round ends until a candidate step's check */
	    settled:1;		/* a loss event was judged */
	u8  rnd_cnt;		/* the low 5 bits: RTT samples in the round
				 * under way, up to QD_RND_SAMPLES_MAX
				 * (qd_rnd_samples()); QD_RND_HOLD: the
				 * delivery-rate samples are held
				 * (qd_rate_held()); QD_RND_BRK_OVER: the
				 * last breaker interval was over the limit
				 * (a trip takes two in a row). One byte, not
				 * bit-fields: ss reads the samples unlocked
				 * (READ_ONCE())
				 */
};

/* RTT samples in the round under way (rnd_cnt's low bits). */
static inline u32 qd_rnd_samples(u8 rnd_cnt)
{
	return rnd_cnt & QD_RND_SAMPLES_MAX;
}

/*
 * Whether the delivery-rate samples are held (rnd_cnt's QD_RND_HOLD, not 0):
 * a retransmission timeout restarts the window from one packet, so what
 * the flow delivers in a round trip of its Loss state is that window, a
 * packet or a few, whatever the path carries, and so is what the packets
 * sent in it deliver, up to a round after it. Each such sample would pull
 * rate_ns, an average of a packet's delivery time, up by an eighth of its
 * gap, and with it what qd_reduced_cwnd() and the caps take the path to
 * carry: behind a LEO FIFO, a loss judged by delay in the round trips
 * after a handover's timeout cut the window to half (docs/algorithms.md,
 * "A handover behind the FIFO"). Held at QD_HOLD_LOSS from the timeout to
 * the end of Loss (qd_loss_state()), then for QD_HOLD_ROUNDS round ends
 * (qd_ack()): the round under way, and the next, which ends once every
 * packet in flight at its start, the last ones sent in Loss among them,
 * is delivered. rate_ns stays what the path delivered before the timeout.
 */
static inline u32 qd_rate_held(u8 rnd_cnt)
{
	return (rnd_cnt & QD_RND_HOLD) >> QD_RND_HOLD_SHIFT;
}

static inline void qd_set_hold(struct qd_state *s, u32 hold)
{
	s->rnd_cnt = (s->rnd_cnt & ~QD_RND_HOLD) |
		     (u8)((hold << QD_RND_HOLD_SHIFT) & QD_RND_HOLD);
}

/*
 * A timeout's Loss state entered (@in_loss) or left: the hold of the
 * delivery-rate samples (qd_rate_held()) starts, or its last rounds do.
 * Entering it also forgets the RTT of the rounds before (rtt_us, and
 * rnd_rtt_us with its samples): no ACK came for an RTO, so the queue they
 * measured has drained, and on a path that changed (a LEO handover) they
 * are the old path's. Until the round under way ends, the queue is read
 * from its least sample since the timeout (qd_rtt()). Read as it stood, a
 * handover from 54 to 48 ms left 8-10 ms of the old path in the estimate,
 * and a retransmission lost again in Loss was judged congestion by delay
 * on 5 of 12 such timeouts (docs/algorithms.md, "A handover behind the
 * FIFO"). The step detector reads the old RTT at the timeout first
 * (qd_timeout(), which the caller runs before this).
 */
static inline void qd_loss_state(struct qd_state *s, bool in_loss)
{
	if (in_loss) {
		s->rtt_us = QD_NONE;
		s->rnd_rtt_us = QD_NONE;
		s->rnd_cnt &= ~QD_RND_SAMPLES_MAX;
		qd_set_hold(s, QD_HOLD_LOSS);
	} else if (qd_rate_held(s->rnd_cnt) == QD_HOLD_LOSS) {
		qd_set_hold(s, QD_HOLD_ROUNDS);
	}
}

enum qd_verdict {
	QD_QUIET = 0,		/* no evidence of congestion */
	QD_DELAY,		/* queueing delay at an AQM's queue or above */
	QD_BREAKER,		/* loss rate far above the baseline */
};

/* The parameter checks every entry point calls. Returns 0 or -EINVAL, with
 * the reason in @why.
 */
static inline int qd_check_params(const struct qd_params *p, const char **why)
{
	const char *r = NULL;

	if (p->enable > 1)
		r = "qd_enable is 0 or 1";
	else if (p->loss_us < QD_LOSS_US_MIN || p->loss_us > QD_LOSS_US_MAX)
		r = "qd_loss_us is 100..1000000 (us)";
	else if (p->loss_pct < QD_LOSS_PCT_MIN || p->loss_pct > QD_LOSS_PCT_MAX)
		r = "qd_loss_pct is 1..100 (% of the min RTT)";
	else if (p->win_ms < QD_WIN_MS_MIN || p->win_ms > QD_WIN_MS_MAX)
		r = "qd_win_ms is 1000..600000 (ms)";
	else if (p->brk_floor < QD_BRK_FLOOR_MIN ||
		 p->brk_floor > QD_BRK_FLOOR_MAX)
		r = "qd_brk_floor is 1..1000 (per-mille)";
	else if (p->brk_mult < QD_BRK_MULT_MIN || p->brk_mult > QD_BRK_MULT_MAX)
		r = "qd_brk_mult is 2..100";
	if (why)
		*why = r;
	return r ? -EINVAL : 0;
}

static inline void qd_init(struct qd_state *s)
{
	*s = (struct qd_state){
		.min_rtt_us = QD_NONE,
		.pkt_ns = QD_NONE,
		.rnd_rtt_us = QD_NONE,
		.rtt_us = QD_NONE,
		.rate_ns = QD_NONE,
		.floor_q = QD_FLOOR_NONE,
	};
}

/* The queue an AQM keeps (us): the threshold's floors, max(loss_us, three
 * packet times), without its share of the min RTT. A loss with this much
 * queue is congestion, answered by draining the queue (qd_reduced_cwnd()).
 */
static inline u32 qd_aqm_us(const struct qd_state *s,
			    const struct qd_params *p)
{
	u32 t = p->loss_us;

	if (s->pkt_ns != QD_NONE)
		t = max_t(u32, t, (u32)min_t(u64, div_u64((u64)s->pkt_ns *
							 QD_LOSS_PKTS, 1000),
					     QD_NONE));
	return t;
}

/* The queueing delay of a standing queue (us): a loss with this much is
 * congestion, and the window goes down by at least 1/8.
 */
static inline u32 qd_thresh_us(const struct qd_state *s,
			       const struct qd_params *p)
{
	u32 t = qd_aqm_us(s, p);

	if (s->min_rtt_us != QD_NONE)
		t = max_t(u32, t, (u32)div_u64((u64)s->min_rtt_us * p->loss_pct,
					       QD_PCT_UNIT));
	return t;
}

/* The RTT the queue estimate reads: the last complete round's least
 * sample, or the round under way's before the first round ends and after
 * a timeout (qd_loss_state()).
 */
static inline u32 qd_rtt(const struct qd_state *s)
{
	return s->rtt_us != QD_NONE ? s->rtt_us : s->rnd_rtt_us;
}

/* An RTT in step_last's units, rounded down, saturated at its range
 * (QD_STEP_MAX: 8.4 s).
 */
static inline u16 qd_step_level(u32 rtt_us)
{
	return (u16)min_t(u32, rtt_us >> QD_STEP_SHIFT, QD_STEP_MAX);
}

/*
 * The floor of the recent rounds (us): where the rounds' least samples
 * went down to, following a lower one at once and a higher one by 1/16
 * of the gap a round (a candidate step's rounds excepted). Where the
 * flow's own queue swings (a window that grows and is cut), it stays near
 * the trough of that swing, the level the queue drains to, for tens of
 * rounds: what a step is measured from (qd_step_confirm()). Kept as the
 * queue over the minimum it had (floor_q, 12
 * bits, up to 524 ms), so it goes down with the minimum; QD_NONE before
 * the first round with a minimum.
 */
static inline u32 qd_floor_us(const struct qd_state *s)
{
	if (s->floor_q == QD_FLOOR_NONE || s->min_rtt_us == QD_NONE)
		return QD_NONE;
	return (u32)min_t(u64, (u64)s->min_rtt_us +
			       ((u32)s->floor_q << QD_STEP_SHIFT), QD_NONE - 1);
}

/* The queue @rtt_us holds over the minimum, in floor_q's units. */
static inline u32 qd_floor_level(const struct qd_state *s, u32 rtt_us)
{
	if (rtt_us <= s->min_rtt_us)
		return 0;
	return min_t(u32, (rtt_us - s->min_rtt_us) >> QD_STEP_SHIFT,
		     QD_FLOOR_NONE - 1);
}

/* A round's end with @rtt_us its least sample (not QD_NONE). */
static inline void qd_floor_round(struct qd_state *s, u32 rtt_us)
{
	u32 q;

	if (s->min_rtt_us == QD_NONE)
		return;
	q = qd_floor_level(s, rtt_us);
	if (s->floor_q == QD_FLOOR_NONE || q <= s->floor_q)
		s->floor_q = q;
	else	/* a rise of at least one unit: 1/16 of 1 rounds to 0 */
		s->floor_q += (q - s->floor_q + (1U << QD_FLOOR_SHIFT) - 1) >>
			      QD_FLOOR_SHIFT;
}

/*
 * The level a step is measured from, @last (us), stands on a long standing
 * queue: it, or the RTT estimate if that is lower, is two thresholds
 * (@thresh) or more above the minimum. A competitor's queue, not ours at a
 * handover: no candidate starts from there (qd_step_sample()) and a timeout
 * leaves the level where it is (qd_timeout()).
 */
static inline bool qd_level_standing(const struct qd_state *s, u32 last,
				     u32 thresh)
{
	return min_t(u32, last, qd_rtt(s)) >= s->min_rtt_us + 2 * thresh;
}

/*
 * @from, raised to one threshold (@thresh) under the level @last where it
 * lay further down: what a step is measured from never moves the minimum
 * more than one threshold beyond what the level alone would
 * (qd_step_confirm(), qd_timeout()).
 */
static inline u32 qd_within_thresh(u32 from, u32 last, u32 thresh)
{
	return last > thresh ? max_t(u32, from, last - thresh) : from;
}

/*
 * The step detector's part of an RTT sample @rtt_us (> 0), before
 * qd_rtt_sample() gives it to the minimum. A candidate step holds while
 * every sample stays at least a quarter of the threshold above the level
 * before it; otherwise a jump of half the threshold from a level less than
 * twice the threshold above the minimum starts one, the level being the
 * last sample or the last round's least, whichever is lower (our own queue
 * at a handover is mostly under it, and its least sample of a round is
 * under it even when a burst puts the last sample over; a competitor's
 * standing queue is not). Not before the first loss event
 * (qd_verdict_at()): the first slow start sends in flights with gaps
 * between them, and a competitor starting with it can fill its queue by a
 * whole flight between two samples; and a competitor's first slow start,
 * which goes on after ours has seen the RTT rise (it is what raised it),
 * grows its queue by several ms from one of our samples to the next until
 * it overflows the buffer. Ended at our first sample out of slow start,
 * the watch let that growth through as steps: against CUBIC through a
 * FIFO the minimum climbed onto CUBIC's queue. (The slow start after a
 * timeout is watched: a LEO handover comes with a loss burst, and the
 * timeout it causes is where the step shows.) The jump is measured from
 * the top of the level's 128 us unit, so that its rounding never makes a
 * flat RTT a jump; no step is seen from a level of 0 (no sample yet, or
 * under 128 us) or from a saturated one (8.4 s and more: the level no
 * longer says where the RTT was). After a timeout (from it until two
 * rounds after Loss, qd_rate_held()) a quarter of the threshold is a
 * jump: the timeout drained the flow's queue, so the level is the floor
 * (qd_timeout()) and a sample a quarter of a threshold over it is the
 * path's. Half a threshold left a LEO handover from 33.3 to 37.9 ms unseen
 * where the floor stood 0.3 ms or more over the minimum, and the 4.6 ms
 * it fell short, under an AQM's queue (qd_aqm_us()), kept the minimum
 * "drained" (qd_min_drained()): every round whose least sample held half
 * a ms of queue made a loss congestion, for the rest of the epoch and,
 * the shortfall carried by the next step, the one after.
 */
static inline void qd_step_sample(struct qd_state *s,
				  const struct qd_params *p, u32 rtt_us)
{
	u32 last = (u32)s->step_last << QD_STEP_SHIFT;
	u32 top = last + (1U << QD_STEP_SHIFT) - 1;	/* its unit's top */
	u32 thresh, jump = qd_rate_held(s->rnd_cnt) ? 2 : 1;

	if (!rtt_us)
		return;
	if (!s->settled) {
		s->step_chk = 0;
	} else if (s->step_chk) {
		if (rtt_us >= last + (qd_thresh_us(s, p) >> 2))
			return;		/* the new level holds */
		s->step_chk = 0;	/* it fell back: not a step */
	} else if (rtt_us >= top + (p->loss_us >> jump) && p->enable &&
		   s->step_last && s->step_last < QD_STEP_MAX &&
		   s->min_rtt_us != QD_NONE) {
		/* the threshold is at least loss_us: it is computed only for
		 * a sample that rose by a half (a quarter) of that, not for
		 * every ACK
		 */
		thresh = qd_thresh_us(s, p);
		if (!qd_level_standing(s, last, thresh) &&
		    rtt_us >= top + (thresh >> jump)) {
			/* step_last keeps the level */
			s->step_chk = QD_STEP_ROUNDS;
			return;
		}
	}
	s->step_last = qd_step_level(rtt_us);
}

/*
 * A retransmission timeout (the flow enters Loss from another state). No
 * ACK came for an RTO, hundreds of ms, and the bottleneck sent on: the
 * flow's own queue is gone, and its next sample is the path's RTT, whatever
 * the last sample before the timeout held. A LEO handover comes with a loss
 * burst and the timeout it causes; measured from that last sample, a step
 * shorter than half the threshold plus the queue it held went unseen (33.3
 * to 37.9 ms with 1-2 ms of queue: the minimum stayed 5 ms short for the
 * whole epoch, and every random loss read as an AQM's queue). So the level
 * a step is measured from drops to the floor of the recent rounds (where
 * the flow's queue drained to), by at most one threshold, the bound a
 * candidate's check keeps (qd_step_confirm()): a competitor's queue that
 * grew since the floor was taken moves the minimum no further than it
 * could without the timeout. Not where the level held a long standing queue
 * (the candidate's own condition in qd_step_sample()), nor while a
 * candidate is under check.
 */
static inline void qd_timeout(struct qd_state *s, const struct qd_params *p)
{
	u32 last = (u32)s->step_last << QD_STEP_SHIFT, floor, thresh, level;

	if (!p->enable || s->step_chk || !s->step_last ||
	    s->step_last >= QD_STEP_MAX || s->min_rtt_us == QD_NONE)
		return;
	floor = qd_floor_us(s);
	if (floor == QD_NONE || floor >= last)
		return;
	thresh = qd_thresh_us(s, p);
	if (qd_level_standing(s, last, thresh))
		return;
	level = qd_within_thresh(floor, last, thresh);
	s->step_last = max_t(u16, qd_step_level(level), 1);
}

/* An RTT sample @rtt_us (> 0) at @now_us. */
static inline void qd_rtt_sample(struct qd_state *s, const struct qd_params *p,
				 u32 now_us, u32 rtt_us)
{
	bool expired = (u32)(now_us - s->min_stamp_us) >
		       p->win_ms * 1000U;

	if (!rtt_us)
		return;
	if (rtt_us <= s->min_rtt_us || expired) {
		if (expired) {	/* the delivery rate and floor start over */
			s->pkt_ns = QD_NONE;
			s->floor_q = QD_FLOOR_NONE;
		}
		s->min_rtt_us = rtt_us;
		s->min_stamp_us = now_us;
	}
	if (rtt_us < s->rnd_rtt_us)
		s->rnd_rtt_us = rtt_us;
	if (qd_rnd_samples(s->rnd_cnt) < QD_RND_SAMPLES_MAX)
		s->rnd_cnt++;
}

/* A delivery-rate sample: @delivered packets in @interval_us (none while
 * held, qd_rate_held()).
 */
static inline void qd_rate_sample(struct qd_state *s, u32 delivered,
				  u32 interval_us)
{
	u64 ns;

	if (!delivered || !interval_us || qd_rate_held(s->rnd_cnt))
		return;
	ns = min_t(u64, div_u64((u64)interval_us * 1000, delivered),
		   QD_NONE - 1);
	if (ns < s->pkt_ns)
		s->pkt_ns = (u32)ns;
	if (s->rate_ns == QD_NONE)
		s->rate_ns = (u32)ns;
	else	/* gain 1/8, as Westwood+'s filter */
		s->rate_ns = (u32)(((u64)s->rate_ns * 7 + ns) >> 3);
}

/* Estimated queueing delay (us), 0 without samples. */
static inline u32 qd_delay_us(const struct qd_state *s)
{
	u32 rtt = qd_rtt(s);

	if (s->min_rtt_us == QD_NONE || rtt == QD_NONE || rtt <= s->min_rtt_us)
		return 0;
	return rtt - s->min_rtt_us;
}

/*
 * A candidate step's check, at the end of the first whole round with RTT
 * samples after the jump: every sample since has stayed above the level
 * before it, and the minimum moves up by what the round's least sample
 * gained on the floor of the rounds before (qd_floor_us()), never above
 * that least sample. A step drains the flow's own queue (no ACK comes for
 * as long as the path grew, and the bottleneck sends on), so the round
 * after it is at least as free of that queue as the floor was. Measured
 * from the level alone, the queue the level held (up to twice the
 * threshold) was left in the estimate as a standing queue, over the new
 * threshold, and every loss cut the window for the minimum's window. The
 * gain is taken from no lower than the level less one threshold: a false
 * candidate (a competitor's queue that grew on a jump) moves the minimum
 * at most one threshold further than from the level, and the queue left
 * by a true one is under the threshold. Returns true when it moved.
 */
static inline bool qd_step_confirm(struct qd_state *s,
				   const struct qd_params *p)
{
	u32 last = (u32)s->step_last << QD_STEP_SHIFT, min, from, thresh;

	if (s->rtt_us == QD_NONE || s->min_rtt_us == QD_NONE ||
	    s->rtt_us <= last)
		return false;
	thresh = qd_thresh_us(s, p);
	from = qd_within_thresh(min_t(u32, last, qd_floor_us(s)), last,
				thresh);
	from = max_t(u32, from, s->min_rtt_us);
	min = min_t(u32, s->min_rtt_us + (s->rtt_us - from), s->rtt_us);
	s->step_last = qd_step_level(s->rtt_us);
	if (min <= s->min_rtt_us)
		return false;
	s->min_rtt_us = min;
	/* the old path's floor says nothing of the new one */
	s->floor_q = qd_floor_level(s, s->rtt_us);
	return true;
}

/*
 * End of an ACK's accounting: @delivered and @lost are the connection's
 * counts (tp->delivered, tp->lost), @in_flight the packets in flight. A
 * round ends when the packets in flight at its start are delivered; a
 * breaker interval when it is a round and holds QD_BRK_MIN_PKTS packets.
 * Returns what happened: QD_ACK_TRIP when this interval tripped the
 * breaker, QD_ACK_STEP when the minimum RTT moved up with a path step.
 */
#define QD_ACK_TRIP	1U
#define QD_ACK_STEP	2U
static inline unsigned int qd_ack(struct qd_state *s,
				  const struct qd_params *p,
				  u32 delivered, u32 lost, u32 in_flight)
{
	u32 n_del, n_lost, n, frac, limit, hold;
	unsigned int ret = 0;
	bool quiet, over, trip;

	if (!s->started) {
		s->started = 1;
		s->rnd_end = delivered + in_flight;
		s->brk_delivered = delivered;
		s->brk_lost = lost;
		return 0;
	}
	if ((s32)(delivered - s->rnd_end) < 0)
		return 0;
	/* a round is over (one without an RTT sample changes nothing, and
	 * is no round of a candidate step's check either: all its packets
	 * may have been retransmissions)
	 */
	if (s->rnd_rtt_us != QD_NONE) {
		s->rtt_us = s->rnd_rtt_us;
		s->rnd_rtt_us = QD_NONE;
		if (!s->step_chk)
			qd_floor_round(s, s->rtt_us);
		else if (!--s->step_chk && p->enable && qd_step_confirm(s, p))
			ret |= QD_ACK_STEP;	/* (a candidate's rounds are
						 * not the floor's)
						 */
	}
	s->rnd_cnt &= QD_RND_BRK_OVER | QD_RND_HOLD;
	hold = qd_rate_held(s->rnd_cnt);
	if (hold && hold != QD_HOLD_LOSS)
		qd_set_hold(s, hold - 1);
	s->rnd_end = delivered + max_t(u32, in_flight, 1);

	n_del = delivered - s->brk_delivered;
	n_lost = lost - s->brk_lost;
	n = n_del + n_lost;
	if (n < QD_BRK_MIN_PKTS || n < n_lost)
		return ret;
	s->brk_delivered = delivered;
	s->brk_lost = lost;
	frac = (u32)div_u64((u64)n_lost * QD_PPM_UNIT, n);
	limit = (u32)max_t(u64, p->brk_floor * (QD_PPM_UNIT / QD_PERMILLE_UNIT),
			   (u64)p->brk_mult * s->base_ppm);
	over = s->quiet >= QD_BRK_WARMUP && frac > limit &&
	       n_lost >= QD_BRK_MIN_LOST;
	trip = p->enable && over && (s->rnd_cnt & QD_RND_BRK_OVER);
	s->rnd_cnt = (s->rnd_cnt & ~QD_RND_BRK_OVER) |
		     (over ? QD_RND_BRK_OVER : 0);
	if (trip)
		s->tripped = 1;
	quiet = qd_delay_us(s) < qd_thresh_us(s, p);
	if (quiet && !over) {
		if (!s->quiet)
			s->base_ppm = frac;
		else if (frac < s->base_ppm)
			s->base_ppm -= (s->base_ppm - frac) >> 1;
		else
			s->base_ppm += (frac - s->base_ppm) >> 4;
		if (s->quiet < QD_BRK_WARMUP)
			s->quiet++;
	}
	return ret | (trip ? QD_ACK_TRIP : 0);
}

/*
 * Whether the flow's queue has drained to its minimum lately: the floor of
 * its recent rounds (qd_floor_us()) is less than @aqm_us above it. A
 * minimum moved by a path step may be short of the new path's by up to a
 * threshold (qd_step_confirm()); no round's least sample goes under that
 * shortfall, and it would read as an AQM's queue.
 */
static inline bool qd_min_drained(const struct qd_state *s, u32 aqm_us)
{
	return s->floor_q != QD_FLOOR_NONE &&
	       ((u32)s->floor_q << QD_STEP_SHIFT) < aqm_us;
}

/*
 * The evidence a loss event has; consumes a tripped breaker. A queue of
 * at least the threshold is congestion; one of at least an AQM's
 * (qd_aqm_us()) is congestion where the flow has seen its queue drain to
 * the minimum lately (qd_min_drained()). The queue is the last complete
 * round's (qd_delay_us()). With @late (qd_late_verdict()), the larger of
 * that and the least sample of the round under way once it holds
 * QD_LATE_SAMPLES samples, and only a standing queue counts.
 */
static inline enum qd_verdict qd_verdict_at(struct qd_state *s,
					    const struct qd_params *p, bool late)
{
	u32 q, aqm;

	s->settled = 1;		/* the step detector's watch starts */
	if (!p->enable)
		return QD_QUIET;
	if (s->tripped) {
		s->tripped = 0;
		return QD_BREAKER;
	}
	if (s->min_rtt_us == QD_NONE)
		return QD_QUIET;
	q = qd_delay_us(s);
	if (late && s->step_chk)
		return QD_QUIET;	/* a jump the step check will judge */
	if (late && qd_rnd_samples(s->rnd_cnt) >= QD_LATE_SAMPLES &&
	    s->rnd_rtt_us != QD_NONE && s->rnd_rtt_us > s->min_rtt_us)
		q = max_t(u32, q, s->rnd_rtt_us - s->min_rtt_us);
	if (q >= qd_thresh_us(s, p))
		return QD_DELAY;
	if (late)
		return QD_QUIET;
	aqm = qd_aqm_us(s, p);
	if (q >= aqm && qd_min_drained(s, aqm))
		return QD_DELAY;
	return QD_QUIET;
}

/* The evidence a loss event has (qd_verdict_at()). */
static inline enum qd_verdict qd_loss_verdict(struct qd_state *s,
					      const struct qd_params *p)
{
	return qd_verdict_at(s, p, false);
}

/*
 * The evidence of a loss found while a recovery judged corruption is still
 * open: a tripped breaker, or a standing queue (at least the threshold),
 * read as the larger of the last complete round's least sample and the
 * least of the round under way once that holds QD_LATE_SAMPLES samples.
 * A recovery on a long lossy path can last for seconds; the last complete
 * round began before the queue rose, and its least sample lags the queue
 * by up to two RTTs (more than a second on a GEO path), while every sample
 * of the round under way already shows it. Not while a candidate path
 * step is being checked (qd_step_sample()): a LEO handover comes with a
 * loss burst, and the longer path would read as queue until the check
 * moves the minimum. An AQM's queue (qd_aqm_us())
 * is no evidence here: on a GEO path with 10% corruption, where the
 * recoveries run back to back, a few ms of the flow's own queue (or of
 * the emulator's jitter) then cut the window at every episode, to half
 * the path's BDP.
 */
static inline enum qd_verdict qd_late_verdict(struct qd_state *s,
					      const struct qd_params *p)
{
	return qd_verdict_at(s, p, true);
}

/* The packets @ns_per_pkt (> 0) apart that fit in @us, at most QD_NONE. */
static inline u32 qd_us_to_pkts(u64 us, u32 ns_per_pkt)
{
	return (u32)min_t(u64, div64_u64(us * 1000, ns_per_pkt), QD_NONE);
}

/*
 * What the path has been delivering in a min RTT, in packets: the recent
 * delivery rate x the min RTT (Westwood+'s estimate). A window below it
 * adds no queue of its own: the link drains whatever queue there is. 0
 * until both estimates exist.
 */
static inline u32 qd_path_bdp(const struct qd_state *s)
{
	if (s->min_rtt_us == QD_NONE || s->rate_ns == QD_NONE || !s->rate_ns)
		return 0;
	return qd_us_to_pkts(s->min_rtt_us, s->rate_ns);
}

/*
 * @pkts delivered, in packets sent: on a link that corrupts a fraction of
 * what it carries the corrupted ones took their share of its capacity too.
 * Once QD_BRK_WARMUP quiet intervals have set the corruption baseline,
 * @pkts is scaled by 1 / (1 - baseline), the baseline taken as at most
 * one half (at most twice @pkts). qd_path_bdp_sent(): what the path
 * carries in a min RTT, in packets sent.
 */
static inline u32 qd_as_sent(const struct qd_state *s, u32 pkts)
{
	u32 base = min_t(u32, s->base_ppm, QD_PPM_UNIT / 2);

	if (s->quiet < QD_BRK_WARMUP || !base)
		return pkts;
	return (u32)min_t(u64, div_u64((u64)pkts * QD_PPM_UNIT,
				       QD_PPM_UNIT - base), QD_NONE);
}

static inline u32 qd_path_bdp_sent(const struct qd_state *s)
{
	return qd_as_sent(s, qd_path_bdp(s));
}

/*
 * The window after a path step moved the minimum up (qd_step_confirm()):
 * @cwnd, raised to what the path carries in the new min RTT
 * (qd_path_bdp_sent()). The link delivers what it did before the step, and
 * the rate says so (its samples are held from the timeout a handover comes
 * with: qd_rate_held()), but every packet now takes longer to come back: a
 * window of the shorter path's BDP leaves the link idle for the part of
 * each RTT the path grew by, until growth has made up the difference (3-4
 * s of CUBIC's curve for a LEO step from 30 to 55 ms at 19 Mbit/s). Such
 * a window adds no queue of its own. Where the step was false (a
 * competitor's queue that grew on a jump) the rate is the flow's share,
 * and the share x the RTT, queue included, is the window already: nothing
 * grows.
 */
static inline u32 qd_step_cwnd(const struct qd_state *s, u32 cwnd)
{
	return max_t(u32, cwnd, qd_path_bdp_sent(s));
}

/*
 * Whether the queue the flow sees (@q, qd_delay_us(), which the callers
 * use again) stands deep: at least QD_DEEP_Q min RTTs, more than a FIFO
 * of two BDPs holds and more than a path step shows (a LEO path's epochs,
 * 25 to 60 ms, lift the RTT by 1.4 min RTTs at most; a step the detector
 * has not confirmed reads as queue).
 */
static inline bool qd_deep_queue(const struct qd_state *s, u32 q)
{
	return s->min_rtt_us != QD_NONE && q >= (u64)s->min_rtt_us * QD_DEEP_Q;
}

/*
 * Whether the queue the flow sees (@cwnd its window) is more than its own
 * window can explain: the window's excess over one BDP (min_rtt / pkt_ns
 * packets), served at the best rate the flow has seen, accounts for less
 * of it than the queueing delay less a threshold. A lone flow's queue is
 * at most that (the link serves at least that fast, and holds at least
 * that BDP), so such a queue is another sender's. The rate test alone
 * (qd_shared()) misses a competitor whose queue never drains: a flow
 * that starts beside CUBIC on a FIFO of four BDPs never has the link to
 * itself, its best rate is what it gets, and at that rate it read as
 * alone, its window drained to one BDP of that rate; it held a fifth of
 * the link.
 */
static inline bool qd_queue_not_ours(const struct qd_state *s,
				     const struct qd_params *p, u32 cwnd)
{
	u32 bdp, q = qd_delay_us(s);
	u64 own;

	if (!q || s->pkt_ns == QD_NONE || !qd_deep_queue(s, q))
		return false;
	bdp = qd_us_to_pkts(s->min_rtt_us, s->pkt_ns ? s->pkt_ns : 1);
	own = cwnd > bdp ? div_u64((u64)(cwnd - bdp) * s->pkt_ns, 1000) : 0;
	return q > own + qd_thresh_us(s, p);
}

/*
 * The window a loss judged congestion by the queue reduces to, by the
 * queue the flow sees:
 *
 * - a standing queue (at least the threshold): what the path has been
 *   delivering lately (the recent delivery rate x min RTT, Westwood+'s
 *   estimate) plus half the threshold's queue, so the queue drains to
 *   below the threshold while the link stays busy; at least half of @cwnd
 *   (Reno's decrease, the most it may take) and at most 7/8 of it (a queue
 *   above the threshold always costs something). A deeper bound, CUBIC's
 *   7/10, left GEO windows below the BDP: with 1% corruption the
 *   recoveries run back to back and a window kept through them does not
 *   grow; it bought no better share against CUBIC on a FIFO
 *   (docs/algorithms.md, "Queueing delay"). On a deep queue the window
 *   cannot explain (qd_queue_not_ours(): another sender's, one that
 *   never drains), at least 7/10 of @cwnd, CUBIC's decrease: draining
 *   the flow's own part of it leaves the queue to the sender that keeps
 *   it, and halving against CUBIC through a FIFO of four BDPs held cpecn
 *   (Reno's growth) under a third of the link.
 * - a queue under the threshold but at least an AQM's (qd_aqm_us()): what
 *   the path carries, in packets sent (qd_as_sent()), in the min RTT plus
 *   half of qd_aqm_us(), at least half of @cwnd and at most @cwnd. The
 *   loss may be an AQM's drop: CoDel drops (where it does not mark) once
 *   its queue has stood above 5 ms for an interval, a queue that stays
 *   under the threshold of a long path (a quarter of the min RTT), so
 *   every one of its drops was kept as corruption and it dropped ever
 *   more. Or it may be corruption that found the flow's queue: the queue
 *   goes, the link stays busy. On a GEO path it is a trim of a few
 *   packets in a thousand.
 *
 * Half of @cwnd without estimates.
 */
static inline u32 qd_reduced_cwnd(const struct qd_state *s,
				  const struct qd_params *p, u32 cwnd)
{
	u32 half = specnet_cwnd_scaled(cwnd, 1, 2), thresh, lo, w;

	if (s->min_rtt_us == QD_NONE || s->rate_ns == QD_NONE || !s->rate_ns)
		return half;
	thresh = qd_thresh_us(s, p);
	if (qd_delay_us(s) >= thresh) {
		w = qd_us_to_pkts((u64)s->min_rtt_us + (thresh >> 1), s->rate_ns);
		lo = qd_queue_not_ours(s, p, cwnd) ?
		     specnet_cwnd_scaled(cwnd, QD_NOT_OURS_BETA,
					 QD_NOT_OURS_BETA_UNIT) : half;
		w = min_t(u32, w, specnet_cwnd_scaled(cwnd, QD_BETA,
						      QD_BETA_UNIT));
		return max_t(u32, lo, w);
	}
	w = qd_us_to_pkts((u64)s->min_rtt_us + (qd_aqm_us(s, p) >> 1), s->rate_ns);
	return max_t(u32, half, min_t(u32, qd_as_sent(s, w), cwnd));
}

/*
 * Whether the flow shares the bottleneck: it has been sending (the recent
 * delivery rate, rate_ns, taken back to packets sent with the corruption
 * baseline as qd_as_sent() does) less than three quarters of the most the
 * path has delivered to it (pkt_ns). A lone flow whose window fills the
 * pipe sends at the path's rate; a share of it means another sender, or a
 * window below the BDP (where a cap above one BDP does not bind).
 * Corruption takes its part of what a lone flow delivers, not of what it
 * sends: at 10% and 20% the delivered rate alone read a lone GEO flow as
 * sharing on up to half of the ACKs that met the one-BDP cap, and the
 * 1.5-BDP cap let its queue reach 460 ms.
 */
static inline bool qd_shared(const struct qd_state *s)
{
	u32 base = min_t(u32, s->base_ppm, QD_PPM_UNIT / 2);
	u64 ns;

	if (s->rate_ns == QD_NONE || s->pkt_ns == QD_NONE)
		return false;
	ns = s->rate_ns;
	if (s->quiet >= QD_BRK_WARMUP)
		ns = div_u64(ns * (QD_PPM_UNIT - base), QD_PPM_UNIT);
	return ns * 3 > (u64)s->pkt_ns * 4;
}

/*
 * The window an ECN mark may not take the window below: what the path
 * carries in a min RTT (qd_path_bdp_sent()), but only while the flow sees
 * the queue the mark reports, a smoothed RTT (@srtt_us) at least loss_us
 * above the min RTT, and has the bottleneck to itself (not qd_shared());
 * 0 (no floor) otherwise. A mark with no queue in sight comes from a
 * queue this flow cannot measure (one that stood before it started, which
 * its min RTT holds), and is answered in full. So is a mark on a shared
 * bottleneck: the pipe the floor keeps full is then partly the others',
 * and a flow that only gives back its own queue at each mark, while they
 * give 0.3 of their windows, takes the link from them (0.62 of a 10
 * Mbit/s RED bottleneck against CUBIC, 0.58-0.60 with the floor for lone
 * flows only; docs/algorithms.md, "A shared bottleneck").
 */
static inline u32 qd_ece_floor(const struct qd_state *s,
			       const struct qd_params *p, u32 srtt_us)
{
	if (s->min_rtt_us == QD_NONE ||
	    srtt_us < (u64)s->min_rtt_us + p->loss_us || qd_shared(s))
		return 0;
	return qd_path_bdp_sent(s);
}

/*
 * The most the window may grow to: @gain eighths of a BDP (min_rtt /
 * pkt_ns packets) plus the threshold's queue, shifted right by @q_shift.
 * QD_NONE (no cap) until both estimates exist or when disabled; at least
 * 4 packets.
 */
static inline u32 qd_cwnd_cap_q(const struct qd_state *s,
				const struct qd_params *p, u32 gain,
				u32 q_shift)
{
	u64 us;

	if (!p->enable || s->min_rtt_us == QD_NONE || s->pkt_ns == QD_NONE ||
	    !s->pkt_ns)
		return QD_NONE;
	us = (u64)gain * s->min_rtt_us / QD_GAIN_UNIT +
	     (qd_thresh_us(s, p) >> q_shift);
	return max_t(u32, qd_us_to_pkts(us, s->pkt_ns), 4);
}

static inline u32 qd_cwnd_cap_gain(const struct qd_state *s,
				   const struct qd_params *p, u32 gain)
{
	return qd_cwnd_cap_q(s, p, gain, 0);
}

/* The cap of growth in the first slow start: two BDPs plus the threshold. */
static inline u32 qd_cwnd_cap(const struct qd_state *s,
			      const struct qd_params *p)
{
	return qd_cwnd_cap_gain(s, p, QD_CAP_GAIN);
}

/*
 * Whether the first slow start's cap (qd_cwnd_cap()) applies yet, the flow
 * having delivered @delivered packets (tp->delivered, SACKed ones
 * included): from QD_CAP_EARLY on, four initial windows. Until then the
 * delivery-rate samples read the initial window, not the path: its ACKs
 * come back in a burst, the doubled window goes out paced (spec and cpecn
 * pace) over about half a round trip, and a sample counts only the
 * packets sent after its own, over its RTT and that spread. On a 600 ms
 * path twice that estimate held the second round at 26-28 packets, where
 * slow start doubles to 38, and the flow stayed a round behind
 * (docs/results/start-geo). From the third round on the samples follow
 * the window.
 */
static inline bool qd_first_cap_due(u32 delivered)
{
	return delivered >= QD_CAP_EARLY;
}

/*
 * The cap of growth: qd_cwnd_cap() until the pipe is known full (@full:
 * the first slow start is over), then one BDP plus half the threshold's
 * queue (QD_LONE_Q_SHIFT), or while the bottleneck is shared (@shared:
 * qd_shared() or qd_queue_not_ours(), which qd_cwnd_cap_at() reads) one
 * and a half BDPs plus the threshold, and on a deep queue twice that
 * queue (qd_delay_us()) at the best rate: a competitor that keeps a standing
 * queue (CUBIC through a deep FIFO) takes its share of the link at the
 * RTT its queue makes, and a window bounded by the min RTT's BDP starves
 * there. The losses bound it: each one with that queue is congestion.
 * A lone flow's window sits at its cap between
 * losses, and its queue with it: at the whole threshold, 150 ms on a
 * 600 ms path, a lone GEO flow's queue stood at 95-147 ms for most of a
 * minute (a 1-BDP FIFO, 1% and 10% corruption); at half, under 80 ms,
 * its goodput the same (docs/algorithms.md, "Growth bounded by what the
 * path delivers"). A loss still finds that queue under the threshold, so
 * corruption stays corruption.
 */
static inline u32 qd_cap_of(const struct qd_state *s,
			    const struct qd_params *p, bool full, bool shared)
{
	if (!full)
		return qd_cwnd_cap(s, p);
	if (shared) {
		u32 cap = qd_cwnd_cap_gain(s, p, QD_SHARED_GAIN);
		u32 q = qd_delay_us(s);
		u64 add;

		/* a competitor's queue: 2 x the best rate x its delay */
		if (cap == QD_NONE || !qd_deep_queue(s, q))
			return cap;
		add = div64_u64((u64)q * QD_DEEP_GAIN * 1000,
				(u64)QD_GAIN_UNIT * s->pkt_ns);
		return (u32)min_t(u64, cap + add, QD_NONE - 1);
	}
	return qd_cwnd_cap_q(s, p, QD_GAIN_UNIT, QD_LONE_Q_SHIFT);
}

static inline u32 qd_cwnd_cap_at(const struct qd_state *s,
				 const struct qd_params *p, bool full, u32 cwnd)
{
	return qd_cap_of(s, p, full, full && (qd_shared(s) ||
					      qd_queue_not_ours(s, p, cwnd)));
}

/*
 * A window above the cap of a lone flow (qd_cwnd_cap_at() with the pipe
 * known full and !qd_shared()) drains to it: down by half of the @acked
 * packets on each ACK (one at least), not below @cap. The flow then sends
 * at half the rate it delivers, so the excess, a queue of its own, goes in
 * twice its size in packets delivered (a BDP's excess in two round trips)
 * with the link kept busy. The cap stops growth; without the drain a
 * window already past it (the first slow start's two BDPs, HyStart++'s
 * doubling before the rise was seen, a corruption recovery that kept an
 * overshoot) kept its queue until a loss found it above the threshold.
 */
static inline u32 qd_drain_cwnd(u32 cwnd, u32 cap, u32 acked)
{
	u32 step = max_t(u32, acked >> 1, 1);

	if (!acked || cwnd <= cap)
		return cwnd;
	return cwnd - cap > step ? cwnd - step : cap;
}

/*
 * Whether @cwnd is at most one BDP as the caps count it (min_rtt_us /
 * pkt_ns packets). Every cap qd_cwnd_bound() applies is at least that
 * (the queue terms add to it; sharing and the first slow start raise its
 * gain), so such a window is neither capped nor drained, whatever the
 * parameters say: the test every ACK can make first, without the
 * threshold, a division or the parameters (on a lossy long path the
 * window spends most of its time there, regrowing after reductions).
 * False without both estimates (the caller then asks qd_cwnd_bound()).
 */
static inline bool qd_cwnd_under_bdp(const struct qd_state *s, u32 cwnd)
{
	return s->min_rtt_us != QD_NONE && s->pkt_ns != QD_NONE &&
	       (u64)cwnd * s->pkt_ns <= (u64)s->min_rtt_us * 1000;
}

/* qd_cwnd_bound()'s @how */
#define QD_BOUND_FULL	1U	/* the pipe is known full: the one-BDP cap */
#define QD_BOUND_DRAIN	2U	/* the first slow start is over: drain */
#define QD_BOUND_LONE	4U	/* no sharing test: the flow is taken as
				 * alone whatever its delivery rate says
				 */

/*
 * The window after an ACK that took it from @before to @cwnd, @acked
 * packets delivered, where nothing has marked: growth stops at
 * qd_cwnd_cap_at()'s cap (QD_BOUND_FULL in @how: the pipe is known full),
 * and once the first slow start is over (QD_BOUND_DRAIN, which implies
 * QD_BOUND_FULL) a lone flow's window above it drains to it
 * (qd_drain_cwnd()). Not in the first slow start: a drain in HyStart++'s
 * CSS took the RTT back under CSS's baseline, slow start resumed, and
 * CSS never ended (19 entries in 6 s). Where the bottleneck is shared the
 * window is left to the losses: a drain there gives way to a sender that
 * does not. QD_BOUND_LONE skips the sharing test: in a recovery kept as
 * corruption the delivery rate reads low (what is in flight includes
 * retransmissions lost again, not yet known lost), and the test read a
 * lone GEO flow at 10% corruption as sharing: its cap rose to 1.5 BDPs
 * and its queue to 250-300 ms once the recovery was over.
 */
static inline u32 qd_cwnd_bound(const struct qd_state *s,
				const struct qd_params *p, unsigned int how,
				u32 before, u32 cwnd, u32 acked)
{
	bool full = how & (QD_BOUND_FULL | QD_BOUND_DRAIN), shared;
	u32 cap;

	if ((!(how & QD_BOUND_DRAIN) && cwnd <= before) ||
	    qd_cwnd_under_bdp(s, cwnd))
		return cwnd;	/* no growth, no drain; or under every cap */
	cap = qd_cap_of(s, p, full, false);
	if (cwnd <= cap)	/* under one BDP's cap: under 1.5's too */
		return cwnd;
	shared = full && !(how & QD_BOUND_LONE) &&
		 (qd_shared(s) || qd_queue_not_ours(s, p, cwnd));
	if (shared)
		cap = qd_cap_of(s, p, full, true);
	if (cwnd > before && cwnd > cap)
		cwnd = max_t(u32, before, cap);
	return (how & QD_BOUND_DRAIN) && !shared ?
	       qd_drain_cwnd(cwnd, cap, acked) : cwnd;
}

#endif /* _SPECNET_QDELAY_H */

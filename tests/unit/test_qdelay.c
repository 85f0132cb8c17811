/* Host unit tests of kernel/include/specnet/qdelay.h (the delay signal and
 * the circuit breaker shared by spec and cpecn), with hand-worked values.
 */
#include <specnet/qdelay.h>
#include "check.h"

static const struct qd_params P = QD_PARAMS_DEFAULT;

static void test_params(void)
{
	struct qd_params p = P;
	const char *why = NULL;

	CHECK(qd_check_params(&p, &why) == 0 && !why, "defaults");
	p.loss_us = 99;
	CHECK(qd_check_params(&p, &why) == -EINVAL && why, "loss_us 99");
	p = P;
	p.loss_pct = 0;
	CHECK(qd_check_params(&p, &why) == -EINVAL, "loss_pct 0");
	p.loss_pct = 101;
	CHECK(qd_check_params(&p, &why) == -EINVAL, "loss_pct 101");
	p = P;
	p.win_ms = 999;
	CHECK(qd_check_params(&p, &why) == -EINVAL, "win 999");
	p.win_ms = 600001;
	CHECK(qd_check_params(&p, &why) == -EINVAL, "win 600001");
	p = P;
	p.brk_mult = 1;
	CHECK(qd_check_params(&p, &why) == -EINVAL, "mult 1");
	p = P;
	p.brk_floor = 0;
	CHECK(qd_check_params(&p, &why) == -EINVAL, "floor 0");
	p = P;
	p.enable = 2;
	CHECK(qd_check_params(&p, &why) == -EINVAL, "enable 2");
	p.enable = 0;
	CHECK(qd_check_params(&p, NULL) == 0, "enable 0");
}

/* The windowed minimum: lower samples replace it, an old one expires
 * (a 10 s window here; the default is 300 s).
 */
static void test_min_rtt_window(void)
{
	struct qd_params w = P;
	struct qd_state s;

	w.win_ms = 10000;
	CHECK(P.win_ms == 300000, "default window %u ms", P.win_ms);
	qd_init(&s);
	CHECK(qd_delay_us(&s) == 0, "no samples, no queue");
	qd_rtt_sample(&s, &w, 1000, 50000);
	qd_rtt_sample(&s, &w, 2000, 40000);
	qd_rtt_sample(&s, &w, 3000, 70000);
	CHECK(s.min_rtt_us == 40000, "min %u", s.min_rtt_us);
	CHECK(s.min_stamp_us == 2000, "stamp %u", s.min_stamp_us);
	/* 10 s window: at 2000 + 10 s the minimum still holds ... */
	qd_rtt_sample(&s, &w, 2000 + 10000000, 90000);
	CHECK(s.min_rtt_us == 40000, "min %u within the window", s.min_rtt_us);
	/* ... 1 us later it has expired and the sample replaces it */
	qd_rtt_sample(&s, &w, 2001 + 10000000, 90000);
	CHECK(s.min_rtt_us == 90000, "expired min %u", s.min_rtt_us);
	/* the clock wraps: differences are modulo 2^32 */
	qd_init(&s);
	qd_rtt_sample(&s, &P, 0xfffff000u, 30000);
	qd_rtt_sample(&s, &P, 0x00001000u, 60000);
	CHECK(s.min_rtt_us == 30000, "min across the wrap %u", s.min_rtt_us);
}

/* Rounds: the queue estimate reads the last complete round's least
 * sample: min RTT 100 ms, a round at 130..180 ms -> 30 ms of queue.
 */
static void test_round_delay(void)
{
	struct qd_state s;

	qd_init(&s);
	qd_rtt_sample(&s, &P, 0, 100000);
	qd_ack(&s, &P, 0, 0, 10);		/* round 1 ends at 10 */
	CHECK(qd_delay_us(&s) == 0, "round under way, at the min");
	qd_rtt_sample(&s, &P, 100, 180000);
	qd_rtt_sample(&s, &P, 200, 130000);
	qd_ack(&s, &P, 9, 0, 10);
	CHECK(qd_delay_us(&s) == 0, "round 1 not over: still %u",
	      qd_delay_us(&s));
	CHECK(qd_rnd_samples(s.rnd_cnt) == 3, "round 1 samples %u", s.rnd_cnt);
	qd_ack(&s, &P, 10, 0, 12);		/* round 1 over */
	CHECK(s.rtt_us == 100000, "round 1 min %u", s.rtt_us);
	CHECK(qd_rnd_samples(s.rnd_cnt) == 0, "round 2 samples %u", s.rnd_cnt);
	qd_rtt_sample(&s, &P, 300, 180000);
	qd_rtt_sample(&s, &P, 400, 130000);
	qd_rtt_sample(&s, &P, 450, 0);		/* no sample */
	CHECK(qd_rnd_samples(s.rnd_cnt) == 2, "round 2 samples %u", s.rnd_cnt);
	qd_ack(&s, &P, 22, 0, 12);		/* round 2 over */
	CHECK(s.rtt_us == 130000, "round 2 min %u", s.rtt_us);
	CHECK(qd_delay_us(&s) == 30000, "queue %u", qd_delay_us(&s));
}

/* Threshold: max(5 ms, 25% of min RTT, 3 packet times). */
static void test_thresh(void)
{
	struct qd_state s;

	qd_init(&s);
	CHECK(qd_thresh_us(&s, &P) == 5000, "no samples: the floor");
	/* 10 Mbit/s, 1500-byte frames: 1.2 ms a packet; 20 ms min RTT:
	 * 25% = 5 ms, 3 packets = 3.6 ms -> 5 ms
	 */
	qd_rtt_sample(&s, &P, 0, 20000);
	qd_rate_sample(&s, 100, 120000);
	CHECK(s.pkt_ns == 1200000, "pkt %u ns", s.pkt_ns);
	CHECK(qd_thresh_us(&s, &P) == 5000, "short path %u",
	      qd_thresh_us(&s, &P));
	/* 600 ms min RTT: 150 ms */
	qd_init(&s);
	qd_rtt_sample(&s, &P, 0, 600000);
	qd_rate_sample(&s, 100, 120000);
	CHECK(qd_thresh_us(&s, &P) == 150000, "GEO %u", qd_thresh_us(&s, &P));
	/* 64 kbit/s, 1000-byte frames: 125 ms a packet; 685 ms min RTT:
	 * 25% = 171.25 ms, 3 packets = 375 ms -> 375 ms
	 */
	qd_init(&s);
	qd_rtt_sample(&s, &P, 0, 685000);
	qd_rate_sample(&s, 2, 250000);
	qd_rate_sample(&s, 1, 200000);	/* slower: ignored */
	CHECK(s.pkt_ns == 125000000, "pkt %u ns", s.pkt_ns);
	CHECK(qd_thresh_us(&s, &P) == 375000, "64 kbit/s %u",
	      qd_thresh_us(&s, &P));
}

/* The verdict on a loss: a queue from an AQM's (loss_us, 5 ms) on is
 * congestion, under it none; a 25 ms threshold (a quarter of 100 ms) only
 * sets how deep the reduction goes (test_reduced()).
 */
static void test_verdict(void)
{
	struct qd_state s;
	struct qd_params off = P;

	qd_init(&s);
	CHECK(qd_loss_verdict(&s, &P) == QD_QUIET, "no samples");
	qd_rtt_sample(&s, &P, 0, 100000);
	qd_ack(&s, &P, 0, 0, 10);
	CHECK(qd_thresh_us(&s, &P) == 25000 && qd_aqm_us(&s, &P) == 5000,
	      "threshold %u, AQM queue %u", qd_thresh_us(&s, &P),
	      qd_aqm_us(&s, &P));
	qd_rtt_sample(&s, &P, 10, 104999);
	qd_ack(&s, &P, 10, 0, 10);
	CHECK(qd_loss_verdict(&s, &P) == QD_QUIET, "4.999 ms of queue");
	qd_rtt_sample(&s, &P, 20, 105000);
	qd_ack(&s, &P, 20, 0, 10);
	CHECK(qd_delay_us(&s) == 5000, "queue %u", qd_delay_us(&s));
	CHECK(qd_loss_verdict(&s, &P) == QD_DELAY, "5 ms of queue");
	qd_rtt_sample(&s, &P, 30, 125000);
	qd_ack(&s, &P, 30, 0, 10);
	CHECK(qd_loss_verdict(&s, &P) == QD_DELAY, "25 ms of queue");
	off.enable = 0;
	CHECK(qd_loss_verdict(&s, &off) == QD_QUIET, "disabled");
	/* rounds whose least sample stays 5.2 ms over the minimum (a minimum
	 * a path step left short): 10 ms is no AQM's queue until a round
	 * drains under 5 ms; 25 ms is a standing queue either way
	 */
	qd_init(&s);
	qd_rtt_sample(&s, &P, 0, 100000);
	qd_ack(&s, &P, 0, 0, 10);
	qd_ack(&s, &P, 10, 0, 10);
	/* as a step's check leaves it (qd_step_confirm()) */
	s.floor_q = qd_floor_level(&s, 105200);
	qd_rtt_sample(&s, &P, 20, 110000);
	qd_ack(&s, &P, 20, 0, 10);
	CHECK(qd_delay_us(&s) == 10000 && qd_floor_us(&s) >= 105000,
	      "queue %u, floor %u", qd_delay_us(&s), qd_floor_us(&s));
	CHECK(qd_loss_verdict(&s, &P) == QD_QUIET, "10 ms, floor over 5 ms");
	qd_rtt_sample(&s, &P, 30, 125000);
	qd_ack(&s, &P, 30, 0, 10);
	CHECK(qd_loss_verdict(&s, &P) == QD_DELAY, "25 ms, floor over 5 ms");
	qd_rtt_sample(&s, &P, 40, 104000);
	qd_ack(&s, &P, 40, 0, 10);
	qd_rtt_sample(&s, &P, 50, 110000);
	qd_ack(&s, &P, 50, 0, 10);
	CHECK(qd_delay_us(&s) == 10000 && qd_floor_us(&s) < 105000,
	      "queue %u, floor %u", qd_delay_us(&s), qd_floor_us(&s));
	CHECK(qd_loss_verdict(&s, &P) == QD_DELAY, "10 ms, floor under 5 ms");
	/* 64 kbit/s, 1000-byte frames: three packet times, 375 ms, are the
	 * least queue of a congestion loss
	 */
	qd_init(&s);
	qd_rtt_sample(&s, &P, 0, 685000);
	qd_rate_sample(&s, 2, 250000);
	s.rtt_us = 685000 + 374999;
	CHECK(qd_aqm_us(&s, &P) == 375000, "AQM queue %u", qd_aqm_us(&s, &P));
	CHECK(qd_loss_verdict(&s, &P) == QD_QUIET, "374.999 ms at 64 kbit/s");
	s.rtt_us = 685000 + 375000;
	CHECK(qd_loss_verdict(&s, &P) == QD_DELAY, "375 ms at 64 kbit/s");
}

/* A loss in a recovery still open: the last complete round's least sample
 * began before the queue rose; the round under way shows it once it holds
 * QD_LATE_SAMPLES samples (a GEO path, 600 ms: threshold 150 ms).
 */
static void test_late_verdict(void)
{
	struct qd_state s;
	int i;

	qd_init(&s);
	qd_ack(&s, &P, 0, 0, 1000);
	qd_rtt_sample(&s, &P, 0, 600000);
	qd_ack(&s, &P, 1000, 0, 1000);
	qd_rtt_sample(&s, &P, 10, 610000);
	qd_ack(&s, &P, 2000, 0, 1000);	/* a round of 10 ms of queue */
	/* the queue has not drained under 5 ms lately: the AQM rule is out */
	s.floor_q = qd_floor_level(&s, 610000);
	CHECK(qd_delay_us(&s) == 10000, "queue %u", qd_delay_us(&s));
	for (i = 0; i < QD_LATE_SAMPLES - 1; i++)
		qd_rtt_sample(&s, &P, 20 + i, 800000 + i);
	CHECK(qd_late_verdict(&s, &P) == QD_QUIET,
	      "%d samples of 200 ms are not yet a queue", QD_LATE_SAMPLES - 1);
	qd_rtt_sample(&s, &P, 40, 760000);
	CHECK(qd_loss_verdict(&s, &P) == QD_QUIET,
	      "an ordinary loss reads the last complete round: 10 ms");
	CHECK(qd_late_verdict(&s, &P) == QD_DELAY,
	      "%d samples, the least 160 ms over the minimum",
	      QD_LATE_SAMPLES);
	qd_rtt_sample(&s, &P, 50, 740000);
	CHECK(qd_late_verdict(&s, &P) == QD_QUIET,
	      "the round's least 140 ms: under the threshold");
	qd_ack(&s, &P, 3000, 0, 1000);	/* that round completes: 140 ms */
	CHECK(qd_late_verdict(&s, &P) == QD_QUIET && qd_rnd_samples(s.rnd_cnt) == 0,
	      "a new round without samples reads the last: 140 ms");
	s.tripped = 1;
	CHECK(qd_late_verdict(&s, &P) == QD_BREAKER && !s.tripped,
	      "a tripped breaker is consumed");
	/* a floor drained under 5 ms: 140 ms is an AQM's queue to an
	 * ordinary loss, no evidence to a late one
	 */
	s.floor_q = 0;
	CHECK(qd_loss_verdict(&s, &P) == QD_DELAY, "AQM rule, ordinary loss");
	CHECK(qd_late_verdict(&s, &P) == QD_QUIET, "no AQM rule, late loss");
	/* a round under way at 200 ms over the minimum: a queue, unless it
	 * is a candidate path step under check
	 */
	for (i = 0; i < QD_LATE_SAMPLES; i++)
		qd_rtt_sample(&s, &P, 60 + i, 800000);
	CHECK(qd_late_verdict(&s, &P) == QD_DELAY, "200 ms");
	s.step_chk = QD_STEP_ROUNDS;
	CHECK(qd_late_verdict(&s, &P) == QD_QUIET, "200 ms, a step's check");
	CHECK(qd_loss_verdict(&s, &P) == QD_DELAY,
	      "an ordinary loss: the AQM rule as before");
}

/* One breaker interval of @n packets, @lost of them lost, at queue @q_us
 * over a 100 ms min RTT (1 packet/ms).
 */
static bool interval(struct qd_state *s, const struct qd_params *p,
		     u32 *del, u32 *lost, u32 n, u32 l, u32 q_us)
{
	qd_rtt_sample(s, p, *del, 100000 + q_us);
	*del += n - l;
	*lost += l;
	return qd_ack(s, p, *del, *lost, 1) & QD_ACK_TRIP;
}

static void test_breaker(void)
{
	struct qd_state s;
	u32 del = 0, lost = 0, i;
	bool t;

	qd_init(&s);
	qd_rtt_sample(&s, &P, 0, 100000);
	qd_ack(&s, &P, 0, 0, 1);
	/* warm-up: 4 quiet intervals of 100 packets, 10% lost; no trip even
	 * though 10% is above the 5% floor
	 */
	for (i = 0; i < 4; i++) {
		t = interval(&s, &P, &del, &lost, 100, 10, 0);
		CHECK(!t, "warm-up interval %u tripped", i);
	}
	CHECK(s.quiet == 4 && s.base_ppm == 100000, "baseline %u ppm, %u",
	      s.base_ppm, s.quiet);
	/* 30% is exactly 3x: no trip; 31%: trip */
	CHECK(!interval(&s, &P, &del, &lost, 100, 30, 0), "30%% tripped");
	/* the baseline rose by (300000 - 100000) / 16 = 12500 */
	CHECK(s.base_ppm == 112500, "baseline %u", s.base_ppm);
	CHECK(!interval(&s, &P, &del, &lost, 100, 33, 0), "33%% tripped");
	CHECK(s.base_ppm == 126093, "baseline %u", s.base_ppm);
	/* 40% is over the limit: once is an outage, twice in a row trips */
	CHECK(!interval(&s, &P, &del, &lost, 100, 40, 0), "one 40%% tripped");
	CHECK(s.base_ppm == 126093, "an interval over the limit fed the baseline");
	CHECK(qd_loss_verdict(&s, &P) == QD_QUIET, "one 40%%: no breaker verdict");
	/* the mark shares a byte with the round's samples, which saturate */
	CHECK(s.rnd_cnt == QD_RND_BRK_OVER, "rnd_cnt %#x", s.rnd_cnt);
	for (i = 0; i < 200; i++)
		qd_rtt_sample(&s, &P, del, 100000);
	CHECK(s.rnd_cnt == (QD_RND_BRK_OVER | QD_RND_SAMPLES_MAX), "rnd_cnt %#x",
	      s.rnd_cnt);
	CHECK(interval(&s, &P, &del, &lost, 100, 40, 0), "40%% twice did not trip");
	CHECK(s.base_ppm == 126093, "a trip does not feed the baseline");
	CHECK(qd_loss_verdict(&s, &P) == QD_BREAKER, "breaker verdict");
	CHECK(qd_loss_verdict(&s, &P) == QD_QUIET, "consumed once");
	/* and a third in a row trips again: the congestion persists */
	CHECK(interval(&s, &P, &del, &lost, 100, 40, 0), "40%% thrice did not trip");
	qd_loss_verdict(&s, &P);
	/* an outage between quiet intervals (a LEO handover: a timeout marks
	 * the whole flight lost, 80 of 130) trips nothing, twice
	 */
	for (i = 0; i < 2; i++) {
		interval(&s, &P, &del, &lost, 100, 2, 0);
		CHECK(!interval(&s, &P, &del, &lost, 130, 80, 0), "outage %u tripped", i);
	}
	CHECK(!interval(&s, &P, &del, &lost, 100, 2, 0), "after the outage");
	CHECK(qd_loss_verdict(&s, &P) == QD_QUIET, "an outage: no breaker verdict");
	/* the baseline falls fast: 2% -> halfway (three times above) */
	i = 126093;
	i -= (i - 20000) / 2;
	i -= (i - 20000) / 2;
	i -= (i - 20000) / 2;
	CHECK(s.base_ppm == i, "baseline %u, want %u", s.base_ppm, i);
	interval(&s, &P, &del, &lost, 100, 2, 0);
	CHECK(s.base_ppm == i - (i - 20000) / 2, "baseline %u", s.base_ppm);
	/* an interval with a queue does not feed the baseline */
	i = s.base_ppm;
	interval(&s, &P, &del, &lost, 100, 20, 50000);
	CHECK(s.base_ppm == i, "queued interval fed it: %u", s.base_ppm);
	/* fewer than 64 packets: the interval goes on */
	i = s.brk_delivered;
	interval(&s, &P, &del, &lost, 63, 60, 0);
	CHECK(s.brk_delivered == i, "a 63-packet interval ended");
	/* the floor, 5%, with a baseline of 0 */
	qd_init(&s);
	del = lost = 0;
	qd_rtt_sample(&s, &P, 0, 100000);
	qd_ack(&s, &P, 0, 0, 1);
	for (i = 0; i < 4; i++)
		interval(&s, &P, &del, &lost, 200, 0, 0);
	CHECK(!interval(&s, &P, &del, &lost, 200, 10, 0), "5%% tripped");
	CHECK(!interval(&s, &P, &del, &lost, 200, 10, 0), "5%% twice tripped");
	CHECK(!interval(&s, &P, &del, &lost, 200, 11, 0), "5.5%% once tripped");
	CHECK(interval(&s, &P, &del, &lost, 200, 11, 0), "5.5%% twice did not trip");
	/* and at least 8 losses: 7 of 64 (10.9%) does not trip */
	for (i = 0; i < 4; i++)
		interval(&s, &P, &del, &lost, 200, 0, 0);
	CHECK(!interval(&s, &P, &del, &lost, 64, 8, 0), "8 of 64 once tripped");
	CHECK(!interval(&s, &P, &del, &lost, 64, 7, 0), "7 losses tripped");
	CHECK(!interval(&s, &P, &del, &lost, 64, 8, 0), "8 after 7 tripped");
	CHECK(interval(&s, &P, &del, &lost, 64, 8, 0), "8 of 64 twice did not trip");
}

/* The window cap: 2 BDPs plus the threshold's packets. */
static void test_cap(void)
{
	struct qd_state s;
	struct qd_params off = P;

	qd_init(&s);
	CHECK(qd_cwnd_cap(&s, &P) == QD_NONE, "no estimate, no cap");
	/* 100 ms, 1 ms a packet: BDP 100, threshold 25 ms -> 225 */
	qd_rtt_sample(&s, &P, 0, 100000);
	CHECK(qd_cwnd_cap(&s, &P) == QD_NONE, "no rate yet, no cap");
	qd_rate_sample(&s, 50, 50000);
	CHECK(qd_cwnd_cap(&s, &P) == 225, "cap %u", qd_cwnd_cap(&s, &P));
	/* in eighths of a BDP: one BDP plus the threshold 125, plus half of
	 * it 112 (112.5 rounded down), 1.5 BDPs 175
	 */
	CHECK(qd_cwnd_cap_gain(&s, &P, QD_GAIN_UNIT) == 125, "cap 1 BDP %u",
	      qd_cwnd_cap_gain(&s, &P, QD_GAIN_UNIT));
	CHECK(qd_cwnd_cap_q(&s, &P, QD_GAIN_UNIT, 1) == 112,
	      "cap 1 BDP, half the queue %u",
	      qd_cwnd_cap_q(&s, &P, QD_GAIN_UNIT, 1));
	CHECK(qd_cwnd_cap_gain(&s, &P, 12) == 175, "cap 1.5 BDPs %u",
	      qd_cwnd_cap_gain(&s, &P, 12));
	off.enable = 0;
	CHECK(qd_cwnd_cap(&s, &off) == QD_NONE, "disabled");
	/* a tiny BDP: at least 4 */
	qd_init(&s);
	qd_rtt_sample(&s, &P, 0, 1000);
	qd_rate_sample(&s, 1, 1000000);
	CHECK(qd_cwnd_cap(&s, &P) == 4, "floor %u", qd_cwnd_cap(&s, &P));
	/* the first slow start's cap: not before four initial windows
	 * were delivered
	 */
	CHECK(!qd_first_cap_due(0) && !qd_first_cap_due(39),
	      "the first slow start's cap before 40 delivered");
	CHECK(qd_first_cap_due(40) && qd_first_cap_due(100000),
	      "no first slow start's cap from 40 delivered");
	/* a window expiry restarts the rate */
	qd_init(&s);
	qd_rtt_sample(&s, &P, 0, 100000);
	qd_rate_sample(&s, 50, 50000);
	qd_rtt_sample(&s, &P, 300000001, 200000);
	CHECK(s.pkt_ns == QD_NONE && qd_cwnd_cap(&s, &P) == QD_NONE,
	      "rate kept over an expiry");
}

/* Sharing: delivering under 3/4 of the most the path delivered. */
static void test_shared(void)
{
	struct qd_state s;

	qd_init(&s);
	CHECK(!qd_shared(&s), "no rate");
	qd_rate_sample(&s, 50, 50000);		/* 1 ms a packet */
	CHECK(!qd_shared(&s), "at the most");
	s.rate_ns = 1333333;		/* 750 packets a second */
	CHECK(!qd_shared(&s), "3/4 of it");
	s.rate_ns = 1333334;
	CHECK(qd_shared(&s), "under 3/4");
	/* the cap follows: one BDP and half the threshold alone, 1.5 BDPs
	 * and the threshold shared
	 */
	qd_rtt_sample(&s, &P, 0, 100000);
	CHECK(qd_cwnd_cap_at(&s, &P, true, 0) == 175, "shared %u",
	      qd_cwnd_cap_at(&s, &P, true, 0));
	CHECK(qd_cwnd_cap_at(&s, &P, false, 0) == 225, "slow start %u",
	      qd_cwnd_cap_at(&s, &P, false, 0));
	s.rate_ns = 1100000;
	CHECK(qd_cwnd_cap_at(&s, &P, true, 0) == 112, "alone %u",
	      qd_cwnd_cap_at(&s, &P, true, 0));
	/* a lone flow on a link corrupting 20% delivers 0.8 of what it
	 * sends: 1.4 ms a packet delivered (under 3/4 of the best) is 1.12
	 * ms a packet sent (0.89 of it), not shared; the baseline counts
	 * once QD_BRK_WARMUP quiet intervals have set it, and at most 1/2
	 */
	s.rate_ns = 1400000;
	s.base_ppm = 200000;
	CHECK(qd_shared(&s), "no baseline yet");
	s.quiet = QD_BRK_WARMUP;
	CHECK(!qd_shared(&s), "20%% corruption read as sharing");
	CHECK(qd_cwnd_cap_at(&s, &P, true, 0) == 112, "corrupting, alone %u",
	      qd_cwnd_cap_at(&s, &P, true, 0));
	s.rate_ns = 1666666;		/* 1333332 ns sent */
	CHECK(!qd_shared(&s), "3/4 sent");
	s.rate_ns = 1666670;		/* 1333336 ns sent */
	CHECK(qd_shared(&s), "under 3/4 sent");
	s.base_ppm = 900000;		/* taken as 1/2: 833335 ns sent */
	CHECK(!qd_shared(&s), "baseline above 1/2 taken whole");
	s.rate_ns = 2666670;		/* 1333335 ns sent */
	CHECK(qd_shared(&s), "baseline capped at 1/2");
}

/* qd_drain_cwnd(@cwnd, @cap, @acked) is @want; @what names the case. */
#define CHECK_DRAIN(cwnd, cap, acked, want, what)			\
	CHECK(qd_drain_cwnd(cwnd, cap, acked) == (want), what ": %u",	\
	      qd_drain_cwnd(cwnd, cap, acked))

/* The drain of a window above the cap: half of what each ACK delivers,
 * one at least, down to the cap and no further.
 */
static void test_drain(void)
{
	CHECK_DRAIN(100, 125, 2, 100, "under the cap");
	CHECK_DRAIN(125, 125, 2, 125, "at the cap");
	CHECK_DRAIN(200, 125, 0, 200, "nothing acked");
	CHECK_DRAIN(200, 125, 1, 199, "one acked");
	CHECK_DRAIN(200, 125, 2, 199, "two acked");
	CHECK_DRAIN(200, 125, 10, 195, "ten acked");
	CHECK_DRAIN(127, 125, 10, 125, "not below the cap");
	CHECK_DRAIN(130, 125, 10, 125, "to the cap");
	CHECK_DRAIN(131, 125, 10, 126, "one above");
	CHECK_DRAIN(U32_MAX, 4, U32_MAX, U32_MAX - U32_MAX / 2, "huge");
}

/* qd_cwnd_bound(@s, @how, @before, @cwnd, @acked) is @want. */
#define CHECK_BOUND(s, how, before, cwnd, acked, want, what)		\
	CHECK(qd_cwnd_bound(s, &P, how, before, cwnd, acked) == (want),	\
	      what ": %u", qd_cwnd_bound(s, &P, how, before, cwnd, acked))
#define F	QD_BOUND_FULL
#define FD	(QD_BOUND_FULL | QD_BOUND_DRAIN)

/* qd_cwnd_bound(): growth stopped at the cap, a lone flow's window past
 * the cap of one BDP drained once the pipe is full, a shared one left,
 * one taken as alone (QD_BOUND_LONE) drained whatever its rate;
 * 100 ms, 1 ms a packet: caps 112 (1 BDP, alone), 175 (1.5, shared), 225
 * (2, slow start).
 */
/* qd_reduced_cwnd() of @cwnd is @want; @what names the case. */
#define CHECK_REDUCED(s, cwnd, want, what)				\
	CHECK(qd_reduced_cwnd(s, &P, cwnd) == (want), what ": %u",	\
	      qd_reduced_cwnd(s, &P, cwnd))

/*
 * A competitor's standing queue: 100 ms, 1 ms a packet at best (a BDP of
 * 100), a threshold of 25 ms. qd_queue_not_ours(): the queue the window's
 * excess over the BDP cannot explain by more than the threshold, where it
 * stands at two min RTTs or more (qd_deep_queue()). The shared cap grows
 * by 2 x the best rate x such a queue.
 */
static void test_not_ours(void)
{
	struct qd_state s;

	qd_init(&s);
	qd_rtt_sample(&s, &P, 0, 100000);
	CHECK(!qd_queue_not_ours(&s, &P, 100), "no rate");
	qd_rate_sample(&s, 50, 50000);
	s.rtt_us = 100000;
	CHECK(!qd_queue_not_ours(&s, &P, 100), "no queue");
	s.rtt_us = 299999;		/* under two min RTTs: a path step */
	CHECK(!qd_queue_not_ours(&s, &P, 100), "not deep");
	s.rtt_us = 300000;
	CHECK(qd_queue_not_ours(&s, &P, 100), "one BDP, a deep queue");
	s.rtt_us = 325000;		/* 200 packets over the BDP: 200 ms */
	CHECK(!qd_queue_not_ours(&s, &P, 300), "own excess and the threshold");
	s.rtt_us = 325001;
	CHECK(qd_queue_not_ours(&s, &P, 300), "more than both");
	CHECK(!qd_queue_not_ours(&s, &P, 301), "a packet more explains it");
	/* the shared cap: 1.5 BDPs and the threshold, 175, plus 2 x 200 */
	s.rate_ns = 2000000;
	s.rtt_us = 299999;
	CHECK(qd_cwnd_cap_at(&s, &P, true, 0) == 175, "shared, not deep %u",
	      qd_cwnd_cap_at(&s, &P, true, 0));
	s.rtt_us = 300000;
	CHECK(qd_cwnd_cap_at(&s, &P, true, 0) == 575, "shared, 200 ms queue %u",
	      qd_cwnd_cap_at(&s, &P, true, 0));
	s.rate_ns = 1000000;		/* the rate of a lone flow */
	CHECK(qd_cwnd_cap_at(&s, &P, true, 400) == 112, "alone, its queue %u",
	      qd_cwnd_cap_at(&s, &P, true, 400));
	CHECK(qd_cwnd_cap_at(&s, &P, true, 100) == 575, "a queue not its own %u",
	      qd_cwnd_cap_at(&s, &P, true, 100));
	/* qd_cwnd_bound(): a window past the lone cap with a queue it does
	 * not explain is not drained, and grows to the shared cap
	 */
	s.rtt_us = 300000;
	CHECK(qd_cwnd_bound(&s, &P, QD_BOUND_FULL | QD_BOUND_DRAIN, 200, 200, 10) == 200,
	      "not ours: no drain");
	CHECK(qd_cwnd_bound(&s, &P, QD_BOUND_FULL | QD_BOUND_DRAIN, 200, 201, 2) == 201,
	      "not ours: growth");
	s.rtt_us = 300000;		/* 200 ms: 200 packets of excess explain it */
	CHECK(qd_cwnd_bound(&s, &P, QD_BOUND_FULL | QD_BOUND_DRAIN, 300, 300, 10) == 295,
	      "ours: drained");
	/* qd_reduced_cwnd() at half the best rate (2 ms a packet): what the
	 * path delivers, (100 + 25 / 2) ms / 2 ms = 56, at least half of the
	 * window; on another's deep queue at least 7/10 of it
	 */
	s.rate_ns = 2000000;
	s.rtt_us = 299999;
	CHECK_REDUCED(&s, 100, 56, "not deep: what the path delivers");
	CHECK_REDUCED(&s, 200, 100, "not deep: half");
	s.rtt_us = 300000;
	CHECK_REDUCED(&s, 100, 70, "not ours: 7/10");
	CHECK_REDUCED(&s, 3, 2, "not ours: floor 2");
	CHECK_REDUCED(&s, 300, 150, "ours: half");
}

static void test_bound(void)
{
	struct qd_state s;

	qd_init(&s);
	qd_rtt_sample(&s, &P, 0, 100000);
	CHECK_BOUND(&s, FD, 300, 300, 2, 300, "no rate");
	qd_rate_sample(&s, 50, 50000);
	CHECK_BOUND(&s, 0, 200, 230, 2, 225, "slow start, growth capped");
	CHECK_BOUND(&s, 0, 230, 230, 2, 230, "slow start, no drain");
	CHECK_BOUND(&s, F, 200, 200, 10, 200,
		    "first slow start, pipe full, no drain");
	CHECK_BOUND(&s, F, 100, 130, 2, 112,
		    "first slow start, pipe full, growth capped at 1");
	CHECK_BOUND(&s, F, 120, 130, 2, 120,
		    "first slow start, pipe full, no growth past the cap");
	CHECK_BOUND(&s, QD_BOUND_DRAIN, 200, 200, 10, 195,
		    "drain implies full");
	CHECK_BOUND(&s, FD, 100, 101, 2, 101, "under");
	CHECK_BOUND(&s, FD, 130, 131, 2, 129, "alone, growth stopped, drained");
	CHECK_BOUND(&s, FD, 200, 200, 10, 195, "alone, drained");
	s.rate_ns = 1500000;		/* two thirds of the best: shared */
	CHECK_BOUND(&s, FD, 170, 180, 2, 175, "shared, growth capped at 1.5");
	CHECK_BOUND(&s, FD, 200, 200, 10, 200, "shared, no drain");
	CHECK_BOUND(&s, FD | QD_BOUND_LONE, 170, 180, 2, 169,
		    "taken as alone: growth stopped at 1, drained");
	CHECK_BOUND(&s, FD | QD_BOUND_LONE, 200, 200, 10, 195,
		    "taken as alone: drained");
	CHECK_BOUND(&s, F | QD_BOUND_LONE, 100, 130, 2, 112,
		    "taken as alone, first slow start: capped at 1, no drain");
}

/* qd_cwnd_under_bdp(): 100 ms, 1 ms a packet: a BDP of 100 packets. A
 * window it accepts is at most every cap qd_cwnd_bound() may apply
 * (qd_cap_of()'s four, for the least parameters too), so skipping them
 * changes no result.
 */
static void test_under_bdp(void)
{
	struct qd_params low = P;
	const struct qd_params *ps[] = { &P, &low };
	struct qd_state s;
	unsigned int k, bad = 0, taken = 0;
	u32 cwnd, ns;

	low.loss_us = QD_LOSS_US_MIN;
	low.loss_pct = QD_LOSS_PCT_MIN;
	qd_init(&s);
	CHECK(!qd_cwnd_under_bdp(&s, 1), "no estimates");
	qd_rtt_sample(&s, &P, 0, 100000);
	CHECK(!qd_cwnd_under_bdp(&s, 1), "no rate");
	qd_rate_sample(&s, 50, 50000);
	CHECK(qd_cwnd_under_bdp(&s, 100), "one BDP");
	CHECK(!qd_cwnd_under_bdp(&s, 101), "one BDP and a packet");
	for (ns = 700; ns <= 1500000; ns = ns * 3 + 11) {
		s.pkt_ns = ns;
		for (cwnd = 1; cwnd <= 200000; cwnd += 1 + cwnd / 64) {
			if (!qd_cwnd_under_bdp(&s, cwnd))
				continue;
			taken++;
			for (k = 0; k < 2; k++)
				if (qd_cap_of(&s, ps[k], false, false) < cwnd ||
				    qd_cap_of(&s, ps[k], true, false) < cwnd ||
				    qd_cap_of(&s, ps[k], true, true) < cwnd)
					bad++;
		}
	}
	CHECK(taken > 1000 && !bad, "under every cap: %u of %u", bad, taken);
}
#undef F
#undef FD

/* The reduction on a standing queue: rate x min RTT + half the threshold,
 * within [cwnd / 2, 7/8 cwnd]; on a queue under the threshold, what the
 * path carries in the min RTT + half an AQM's queue, within [cwnd / 2,
 * cwnd].
 */
static void test_reduced(void)
{
	struct qd_state s;

	qd_init(&s);
	CHECK(qd_reduced_cwnd(&s, &P, 100) == 50, "no estimate: halve");
	CHECK(qd_reduced_cwnd(&s, &P, 3) == 2, "floor 2");
	/* 600 ms min RTT, 0.6 ms a packet (20 Mbit/s, 1500 B): BDP 1000;
	 * threshold 150 ms, half of it 125 packets -> 1125
	 */
	qd_rtt_sample(&s, &P, 0, 600000);
	qd_rate_sample(&s, 1000, 600000);
	CHECK(s.rate_ns == 600000, "rate %u", s.rate_ns);
	s.rtt_us = 750000;		/* a queue of 150 ms, the threshold */
	CHECK_REDUCED(&s, 2000, 1125, "GEO");
	CHECK_REDUCED(&s, 4000, 2000, "at least half");
	CHECK_REDUCED(&s, 1200, 1050, "at most 7/8");
	/* 10 ms of queue, under the threshold: (600 + 5 / 2) ms at 0.6 ms a
	 * packet is 1004, not above the window, not below half of it
	 */
	s.rtt_us = 610000;
	CHECK_REDUCED(&s, 1100, 1004, "an AQM's queue");
	CHECK_REDUCED(&s, 1000, 1000, "at most the window");
	CHECK_REDUCED(&s, 2100, 1050, "at least half");
	s.rtt_us = 749999;
	CHECK_REDUCED(&s, 1100, 1004, "149.999 ms");
	/* with 10% corruption in the baseline: in packets sent, 1004 / 0.9 */
	s.base_ppm = 100000;
	s.quiet = QD_BRK_WARMUP;
	CHECK_REDUCED(&s, 1200, 1115, "packets sent");
	s.rtt_us = 750000;
	CHECK_REDUCED(&s, 2000, 1125, "not on a standing queue");
	s.base_ppm = 0;
	s.quiet = 0;
	/* the recent rate is an EWMA of gain 1/8: a sample at half the rate
	 * (1.2 ms) moves it from 0.6 to 0.675 ms; the minimum stays
	 */
	qd_rate_sample(&s, 500, 600000);
	CHECK(s.rate_ns == 675000 && s.pkt_ns == 600000, "rate %u, pkt %u",
	      s.rate_ns, s.pkt_ns);
}

/*
 * A timeout holds the delivery-rate samples (qd_rate_held()): a LEO path
 * after a handover, 48 ms min RTT, 0.6 ms a packet (20 Mbit/s), a window
 * of 90 (a BDP of 80). In Loss the window restarts from one packet: one
 * delivered in 48 ms would move the average to 600 x 7/8 + 48000 / 8 =
 * 6525 us a packet, and a loss on a queue at the threshold (12 ms, a
 * quarter of 48) would then aim at (48 + 6) ms / 6.525 ms = 8 packets, so
 * cut to the floor, half (45), where (48 + 6) / 0.6 = 90, at most 7/8 of
 * the window, keeps 78. The hold lasts through Loss and two round ends
 * after it; the other bits of rnd_cnt stay.
 */
static void test_rate_hold(void)
{
	struct qd_state s, raw;
	int i;

	qd_init(&s);
	qd_rtt_sample(&s, &P, 0, 48000);
	qd_rate_sample(&s, 80, 48000);
	CHECK(s.rate_ns == 600000, "rate %u", s.rate_ns);
	qd_ack(&s, &P, 0, 0, 80);			/* round ends at 80 */
	raw = s;
	qd_loss_state(&s, true);
	CHECK(qd_rate_held(s.rnd_cnt) == QD_HOLD_LOSS, "hold %#x", s.rnd_cnt);
	qd_rate_sample(&s, 1, 48000);
	qd_rate_sample(&raw, 1, 48000);
	CHECK(s.rate_ns == 600000, "held: rate %u", s.rate_ns);
	CHECK(raw.rate_ns == 6525000, "not held: rate %u", raw.rate_ns);
	s.rtt_us = raw.rtt_us = 60000;		/* 12 ms of queue */
	CHECK_REDUCED(&s, 90, 78, "held: what the path carries");
	CHECK_REDUCED(&raw, 90, 45, "not held: the floor");
	/* rounds end in Loss: still held; a timeout again: still Loss's */
	qd_ack(&s, &P, 80, 0, 2);
	qd_loss_state(&s, true);
	CHECK(qd_rate_held(s.rnd_cnt) == QD_HOLD_LOSS, "hold %#x", s.rnd_cnt);
	/* Loss over: two round ends more */
	qd_loss_state(&s, false);
	CHECK(qd_rate_held(s.rnd_cnt) == QD_HOLD_ROUNDS, "hold %#x", s.rnd_cnt);
	qd_rate_sample(&s, 16, 48000);
	CHECK(s.rate_ns == 600000, "held after Loss: rate %u", s.rate_ns);
	qd_ack(&s, &P, 81, 0, 90);		/* the round ends at 82 */
	CHECK(qd_rate_held(s.rnd_cnt) == 2, "hold %#x", s.rnd_cnt);
	qd_rtt_sample(&s, &P, 100, 50000);
	s.rnd_cnt |= QD_RND_BRK_OVER;
	qd_ack(&s, &P, 82, 0, 90);		/* over; the next ends at 172 */
	CHECK(qd_rate_held(s.rnd_cnt) == 1, "hold %#x", s.rnd_cnt);
	CHECK((s.rnd_cnt & QD_RND_BRK_OVER) && !qd_rnd_samples(s.rnd_cnt),
	      "rnd_cnt %#x: the breaker's mark kept, the samples cleared",
	      s.rnd_cnt);
	qd_rate_sample(&s, 32, 48000);
	CHECK(s.rate_ns == 600000, "held a round after Loss: rate %u",
	      s.rate_ns);
	qd_rtt_sample(&s, &P, 200, 50000);
	qd_ack(&s, &P, 172, 0, 90);
	CHECK(!qd_rate_held(s.rnd_cnt), "hold %#x", s.rnd_cnt);
	/* the samples count again: one at half the rate moves it by 1/8 */
	qd_rate_sample(&s, 40, 48000);
	CHECK(s.rate_ns == 675000, "rate %u", s.rate_ns);
	/* leaving a state that is not Loss starts no hold */
	qd_loss_state(&s, false);
	CHECK(!qd_rate_held(s.rnd_cnt), "hold %#x", s.rnd_cnt);
	/* the round's samples saturate under the hold's bits */
	qd_loss_state(&s, true);
	for (i = 0; i < 100; i++)
		qd_rtt_sample(&s, &P, 300, 50000);
	CHECK(qd_rnd_samples(s.rnd_cnt) == QD_RND_SAMPLES_MAX &&
	      qd_rate_held(s.rnd_cnt) == QD_HOLD_LOSS, "rnd_cnt %#x",
	      s.rnd_cnt);
}

/*
 * A timeout forgets the RTT of before it (qd_loss_state()): a LEO path of
 * 54 ms whose last round's least sample held 2 ms of the flow's queue (the
 * floor under an AQM's 5 ms: the queue drains), then a handover to 48 ms
 * with its timeout. Read as it stood, the old round's 56 ms would be 8 ms
 * of queue over the new minimum, an AQM's queue on a flow that drains:
 * congestion. Forgotten, the queue is the least sample since the timeout,
 * until a round ends; a queue that builds after it still counts.
 */
static void test_loss_forgets_rtt(void)
{
	struct qd_state s, raw;

	qd_init(&s);
	qd_rtt_sample(&s, &P, 0, 54000);
	qd_ack(&s, &P, 0, 0, 10);
	qd_ack(&s, &P, 10, 0, 10);
	qd_rtt_sample(&s, &P, 10, 56000);
	qd_ack(&s, &P, 20, 0, 10);
	qd_rtt_sample(&s, &P, 20, 57000);	/* the round under way */
	CHECK(s.rtt_us == 56000 && qd_floor_us(&s) < 54000 + 5000 &&
	      qd_rnd_samples(s.rnd_cnt) == 1, "rtt %u floor %u samples %u",
	      s.rtt_us, qd_floor_us(&s), qd_rnd_samples(s.rnd_cnt));
	raw = s;
	qd_loss_state(&s, true);
	CHECK(s.rtt_us == QD_NONE && s.rnd_rtt_us == QD_NONE &&
	      !qd_rnd_samples(s.rnd_cnt) && s.min_rtt_us == 54000,
	      "forgotten: rtt %u, round's %u, samples %u, min %u", s.rtt_us,
	      s.rnd_rtt_us, qd_rnd_samples(s.rnd_cnt), s.min_rtt_us);
	CHECK(qd_loss_verdict(&s, &P) == QD_QUIET, "no sample since");
	qd_rtt_sample(&s, &P, 30, 48000);
	qd_rtt_sample(&raw, &P, 30, 48000);
	CHECK(qd_delay_us(&raw) == 8000 &&
	      qd_loss_verdict(&raw, &P) == QD_DELAY,
	      "not forgotten: %u us of queue", qd_delay_us(&raw));
	CHECK(qd_delay_us(&s) == 0 && qd_loss_verdict(&s, &P) == QD_QUIET,
	      "forgotten: %u us of queue", qd_delay_us(&s));
	qd_rtt_sample(&s, &P, 40, 52000);
	CHECK(qd_delay_us(&s) == 0, "the least since: %u", qd_delay_us(&s));
	/* leaving Loss forgets nothing */
	qd_loss_state(&s, false);
	CHECK(s.rnd_rtt_us == 48000 && qd_rnd_samples(s.rnd_cnt) == 2,
	      "kept: %u, %u samples", s.rnd_rtt_us, qd_rnd_samples(s.rnd_cnt));
	/* the round ends on the new path; the next builds 12 ms, the
	 * threshold (a quarter of 48 ms): a standing queue
	 */
	qd_ack(&s, &P, 30, 0, 10);
	qd_rtt_sample(&s, &P, 50, 60000);
	qd_ack(&s, &P, 40, 0, 10);
	CHECK(s.rtt_us == 60000 && qd_delay_us(&s) == 12000 &&
	      qd_loss_verdict(&s, &P) == QD_DELAY, "a queue after: %u us",
	      qd_delay_us(&s));
}

/* The recent delivery rate x min RTT: 100 ms at 1 ms a packet is 100. */
static void test_path_bdp(void)
{
	struct qd_state s;

	qd_init(&s);
	CHECK(qd_path_bdp(&s) == 0, "no estimates");
	qd_rtt_sample(&s, &P, 1000, 100000);
	CHECK(qd_path_bdp(&s) == 0, "no rate yet");
	qd_rate_sample(&s, 50, 50000);
	CHECK(s.rate_ns == 1000000, "rate %u ns", s.rate_ns);
	CHECK(qd_path_bdp(&s) == 100, "bdp %u", qd_path_bdp(&s));
	/* a sample at twice the rate moves the average by 1/8 */
	qd_rate_sample(&s, 100, 50000);
	CHECK(s.rate_ns == 937500, "rate %u ns", s.rate_ns);
	CHECK(qd_path_bdp(&s) == 106, "bdp %u", qd_path_bdp(&s));

	/* what the path carries, corrupted packets included: the delivered
	 * BDP over 1 - the corruption baseline, once it is set
	 */
	s.min_rtt_us = 600000;
	s.rate_ns = 709219;		/* a packet delivered every 709 us */
	CHECK(qd_path_bdp(&s) == 846, "bdp %u", qd_path_bdp(&s));
	s.base_ppm = 100000;		/* 10% corruption */
	s.quiet = QD_BRK_WARMUP - 1;
	CHECK(qd_path_bdp_sent(&s) == 846, "baseline not set yet: %u",
	      qd_path_bdp_sent(&s));
	s.quiet = QD_BRK_WARMUP;
	CHECK(qd_path_bdp_sent(&s) == 940, "846 / 0.9: %u", qd_path_bdp_sent(&s));
	s.base_ppm = 0;
	CHECK(qd_path_bdp_sent(&s) == 846, "no corruption: %u", qd_path_bdp_sent(&s));
	s.base_ppm = 900000;
	CHECK(qd_path_bdp_sent(&s) == 1692, "at most twice: %u", qd_path_bdp_sent(&s));

	/* a mark's floor: that BDP while the srtt shows a queue of loss_us
	 * (5 ms) or more, none otherwise
	 */
	s.base_ppm = 100000;
	CHECK(qd_ece_floor(&s, &P, 605000) == 940, "a 5 ms queue: %u",
	      qd_ece_floor(&s, &P, 605000));
	CHECK(qd_ece_floor(&s, &P, 604999) == 0, "under 5 ms: %u",
	      qd_ece_floor(&s, &P, 604999));
	CHECK(qd_ece_floor(&s, &P, 600000) == 0, "no queue in sight");
	/* and only while the flow has the bottleneck to itself: sent at a
	 * packet every 709 x 0.9 = 638 us against a best of 400 us, under
	 * 3/4 of it, is a share, and the mark is answered in full; against a
	 * best of 500 us (over 3/4) the floor holds
	 */
	s.pkt_ns = 400000;
	CHECK(qd_shared(&s) && qd_ece_floor(&s, &P, 605000) == 0, "shared: %u",
	      qd_ece_floor(&s, &P, 605000));
	s.pkt_ns = 500000;
	CHECK(!qd_shared(&s) && qd_ece_floor(&s, &P, 605000) == 940, "alone: %u",
	      qd_ece_floor(&s, &P, 605000));
	s.min_rtt_us = QD_NONE;
	CHECK(qd_ece_floor(&s, &P, 0xffffffffu) == 0, "no min RTT");
	s.rate_ns = 1;
	s.min_rtt_us = 0xfffffffeu;
	CHECK(qd_path_bdp_sent(&s) == QD_NONE, "no overflow: %u", qd_path_bdp_sent(&s));
	CHECK(qd_ece_floor(&s, &P, 0xffffffffu) == 0, "no overflow of min + 5 ms");
}

/*
 * The window a path step up leaves: the rate x the new min RTT. 19 Mbit/s
 * of 1514-byte frames, a packet every 637 us: 47 packets in 30 ms, 78 in
 * 50 ms (50000 / 637 = 78.49).
 */
static void test_step_cwnd(void)
{
	struct qd_state s;

	qd_init(&s);
	CHECK(qd_step_cwnd(&s, 55) == 55, "no estimates: %u",
	      qd_step_cwnd(&s, 55));
	s.min_rtt_us = 30000;
	s.rate_ns = 637000;
	CHECK(qd_path_bdp(&s) == 47 && qd_step_cwnd(&s, 55) == 55,
	      "over the BDP: %u", qd_step_cwnd(&s, 55));
	s.min_rtt_us = 50000;
	CHECK(qd_step_cwnd(&s, 55) == 78, "the new path's BDP: %u",
	      qd_step_cwnd(&s, 55));
	CHECK(qd_step_cwnd(&s, 90) == 90, "over it: %u", qd_step_cwnd(&s, 90));
	/* corrupted packets took their share: 78 / 0.95 = 82.1 */
	s.quiet = QD_BRK_WARMUP;
	s.base_ppm = 50000;
	CHECK(qd_step_cwnd(&s, 55) == 82, "5%% corruption: %u",
	      qd_step_cwnd(&s, 55));
}

/* Samples @from..@to us, @n of them evenly, at @t_us, 10 us apart. */
/* A loss event judged: the step detector watches from here on. */
static void settle(struct qd_state *s)
{
	qd_loss_verdict(s, &P);
}

static void samples(struct qd_state *s, const struct qd_params *p,
		    u32 *t_us, u32 from, u32 to, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++, *t_us += 10)
	{
		u32 rtt = from + (u32)((u64)(to - from) * i /
				       (n > 1 ? n - 1 : 1));

		qd_step_sample(s, p, rtt);
		qd_rtt_sample(s, p, *t_us, rtt);
	}
}

/* A round of @n samples from @from to @to (us); returns qd_ack()'s bits. */
static unsigned int round_over(struct qd_state *s, const struct qd_params *p,
			       u32 *t_us, u32 *del, u32 from, u32 to, u32 n)
{
	samples(s, p, t_us, from, to, n);
	*del += 10;
	return qd_ack(s, p, *del, 0, 10);
}

/* A round of @n samples at @rtt_us; returns qd_ack()'s bits. */
static unsigned int round_at(struct qd_state *s, const struct qd_params *p,
			     u32 *t_us, u32 *del, u32 rtt_us, u32 n)
{
	return round_over(s, p, t_us, del, rtt_us, rtt_us, n);
}

/*
 * Path steps: min RTT 25 ms (threshold 6.25 ms, a jump of 3.125 ms is a
 * candidate, a sample below level + 1.5625 ms ends it). A LEO handover to
 * 60 ms moves the minimum to 60 ms after a whole round at the new level;
 * a delayed ACK, a queue that builds sample by sample, a jump on top of a
 * standing queue, a jump that falls back and a jump before the first loss
 * event do not move it.
 */
static void test_path_step(void)
{
	struct qd_params off = P;
	struct qd_state s;
	u32 t = 0, del = 0, i, ev = 0;

	qd_init(&s);
	settle(&s);
	qd_ack(&s, &P, 0, 0, 10);
	for (i = 0; i < 3; i++)
		round_at(&s, &P, &t, &del, 25000, 10);
	CHECK(s.min_rtt_us == 25000 && qd_delay_us(&s) == 0, "min %u",
	      s.min_rtt_us);
	/* the handover: 60 ms from one sample on, within a round */
	samples(&s, &P, &t, 25000, 25000, 4);
	samples(&s, &P, &t, 60000, 60000, 6);
	CHECK(s.step_chk == QD_STEP_ROUNDS, "candidate %u", s.step_chk);
	del += 10;
	ev |= qd_ack(&s, &P, del, 0, 10);	/* its round: 25 ms least */
	CHECK(!(ev & QD_ACK_STEP) && s.min_rtt_us == 25000, "too early");
	CHECK(qd_delay_us(&s) == 0, "queue %u", qd_delay_us(&s));
	ev |= round_at(&s, &P, &t, &del, 60000, 10);
	CHECK(ev == QD_ACK_STEP, "step reported %u", ev);
	CHECK(s.min_rtt_us == 60000, "min moved to %u", s.min_rtt_us);
	CHECK(qd_delay_us(&s) == 0, "queue after the step %u",
	      qd_delay_us(&s));
	CHECK(qd_loss_verdict(&s, &P) == QD_QUIET, "a loss is not congestion");
	/* back to 30 ms: the minimum follows at once */
	round_at(&s, &P, &t, &del, 30000, 10);
	CHECK(s.min_rtt_us == 30000, "step down %u", s.min_rtt_us);
	/* the new path's queue still counts: 10 ms over 30 -> delay */
	samples(&s, &P, &t, 30000, 40000, 11);
	round_at(&s, &P, &t, &del, 40000, 10);
	round_at(&s, &P, &t, &del, 40000, 10);
	CHECK(s.min_rtt_us == 30000, "ramp kept the min %u", s.min_rtt_us);
	CHECK(qd_loss_verdict(&s, &P) == QD_DELAY, "queue of 10 ms");

	/* a delayed ACK: one sample 40 ms late, then the level again */
	qd_init(&s);
	settle(&s);
	t = del = 0;
	qd_ack(&s, &P, 0, 0, 10);
	round_at(&s, &P, &t, &del, 25000, 10);
	samples(&s, &P, &t, 65000, 65000, 1);
	samples(&s, &P, &t, 25000, 25000, 9);
	CHECK(!s.step_chk, "a late ACK is not a step");
	for (i = 0; i < 3; i++)
		CHECK(!(round_at(&s, &P, &t, &del, 25000, 10) & QD_ACK_STEP),
		      "round %u", i);
	CHECK(s.min_rtt_us == 25000, "min %u", s.min_rtt_us);

	/* a queue that builds 1 ms a sample, 25 -> 60 ms, then stands long
	 * enough to be in the floor of the rounds (7 rounds; 32 here)
	 */
	samples(&s, &P, &t, 25000, 60000, 36);
	for (i = 0; i < 2U << QD_FLOOR_SHIFT; i++)
		round_at(&s, &P, &t, &del, 60000, 10);
	CHECK(s.min_rtt_us == 25000, "queue read as a step: %u", s.min_rtt_us);
	CHECK(qd_loss_verdict(&s, &P) == QD_DELAY, "35 ms of queue");
	/* a jump on top of that standing queue (35 ms, over twice the
	 * threshold): still the old minimum
	 */
	samples(&s, &P, &t, 90000, 90000, 1);
	CHECK(!s.step_chk, "jump over a standing queue");
	for (i = 0; i < 3; i++)
		round_at(&s, &P, &t, &del, 90000, 10);
	CHECK(s.min_rtt_us == 25000, "min %u", s.min_rtt_us);

	/* our own queue of 10 ms (under twice the threshold) at a handover:
	 * the minimum moves by the gain on the floor of the rounds before
	 * (25 ms), but on no lower than the level less one threshold:
	 * 50 - (34.944 - 6.25) = 21.306 ms, 3.7 ms of queue left
	 */
	qd_init(&s);
	settle(&s);
	t = del = 0;
	qd_ack(&s, &P, 0, 0, 10);
	round_at(&s, &P, &t, &del, 25000, 10);
	samples(&s, &P, &t, 25000, 35000, 11);
	round_at(&s, &P, &t, &del, 35000, 10);
	samples(&s, &P, &t, 50000, 50000, 5);
	CHECK(s.step_chk, "candidate over our queue");
	del += 10;
	qd_ack(&s, &P, del, 0, 10);
	CHECK(round_at(&s, &P, &t, &del, 50000, 10) == QD_ACK_STEP,
	      "step over our queue");
	CHECK(s.min_rtt_us == 46306, "min %u", s.min_rtt_us);
	CHECK(qd_loss_verdict(&s, &P) == QD_QUIET, "queue %u after the step",
	      qd_delay_us(&s));

	/* our own queue swinging 5-15 ms: the last sample before the
	 * handover (40 ms) is over twice the threshold, the round's least
	 * (30 ms) is not; the minimum moves by the gain on the level less
	 * one threshold (33.686 ms: the floor, 25.768 ms, is lower), to
	 * 66.314 ms, and the 8.7 ms of queue left are under the threshold
	 */
	qd_init(&s);
	settle(&s);
	t = del = 0;
	qd_ack(&s, &P, 0, 0, 10);
	round_at(&s, &P, &t, &del, 25000, 10);
	samples(&s, &P, &t, 25000, 30000, 6);	/* it builds, 1 ms a sample */
	for (i = 0; i < 3; i++)
		round_over(&s, &P, &t, &del, 30000, 40000, 11);
	samples(&s, &P, &t, 30000, 40000, 11);
	CHECK(s.rtt_us == 30000 && s.min_rtt_us == 25000, "round %u, min %u",
	      s.rtt_us, s.min_rtt_us);
	samples(&s, &P, &t, 75000, 75000, 5);
	CHECK(s.step_chk, "candidate over our swinging queue");
	del += 10;
	qd_ack(&s, &P, del, 0, 10);
	CHECK(round_at(&s, &P, &t, &del, 75000, 10) == QD_ACK_STEP,
	      "step over our swinging queue");
	CHECK(s.min_rtt_us == 66314, "min %u", s.min_rtt_us);
	CHECK(qd_loss_verdict(&s, &P) == QD_QUIET, "a loss after it");

	/* a window that grows after a cut: our queue's trough 1 ms, then
	 * 20 rounds rising to 12.2 ms, the last sample (37.76 ms) just over
	 * twice the threshold and the last round's least (37.18 ms) just
	 * under it when the path steps to 61 ms. From the level the minimum
	 * moved to 48.33 ms, the 12.7 ms of queue left over the new threshold
	 * (12.08 ms): every loss a cut. From the floor of the rounds (it
	 * trails the rise at 31.656 ms, above the level less one threshold,
	 * 31.51 ms): 25 + 61 - 31.656 = 54.344 ms, 6.7 ms of queue left.
	 */
	qd_init(&s);
	settle(&s);
	t = del = 0;
	qd_ack(&s, &P, 0, 0, 10);
	round_at(&s, &P, &t, &del, 25000, 10);
	for (i = 0; i < 2U << QD_FLOOR_SHIFT; i++)
		round_at(&s, &P, &t, &del, 26000, 10);
	for (i = 0; i < 20; i++)
		round_at(&s, &P, &t, &del, 26000 + 559 * (i + 1), 10);
	samples(&s, &P, &t, 37181, 37760, 4);
	CHECK(s.rtt_us == 37180 && s.min_rtt_us == 25000, "round %u, min %u",
	      s.rtt_us, s.min_rtt_us);
	samples(&s, &P, &t, 61000, 61000, 5);
	CHECK(s.step_chk, "candidate over our growing queue");
	del += 10;
	qd_ack(&s, &P, del, 0, 10);
	CHECK(round_at(&s, &P, &t, &del, 61000, 10) == QD_ACK_STEP,
	      "step over our growing queue");
	CHECK(s.min_rtt_us == 54344, "min %u", s.min_rtt_us);
	CHECK(qd_loss_verdict(&s, &P) == QD_QUIET, "a loss after it: %d",
	      qd_loss_verdict(&s, &P));
	/* the new path's floor: a queue that builds on it is a queue */
	for (i = 0; i < 4; i++)
		round_at(&s, &P, &t, &del, 61000 + 4000 * (i + 1), 10);
	CHECK(qd_loss_verdict(&s, &P) == QD_DELAY, "16 ms over the new path");

	/* a jump that falls back in the round after it (a burst that drains) */
	qd_init(&s);
	settle(&s);
	t = del = 0;
	qd_ack(&s, &P, 0, 0, 10);
	round_at(&s, &P, &t, &del, 25000, 10);
	samples(&s, &P, &t, 35000, 35000, 5);
	CHECK(s.step_chk, "candidate");
	del += 10;
	qd_ack(&s, &P, del, 0, 10);
	samples(&s, &P, &t, 35000, 26000, 10);	/* below 25 + 1.5625 ms */
	CHECK(!s.step_chk, "fell back");
	del += 10;
	CHECK(!(qd_ack(&s, &P, del, 0, 10) & QD_ACK_STEP) &&
	      s.min_rtt_us == 25000, "min %u", s.min_rtt_us);

	/* the delay signal off: no step either */
	off.enable = 0;
	qd_init(&s);
	settle(&s);
	t = del = 0;
	qd_ack(&s, &off, 0, 0, 10);
	round_at(&s, &off, &t, &del, 25000, 10);
	ev = 0;
	for (i = 0; i < 3; i++)
		ev |= round_at(&s, &off, &t, &del, 60000, 10);
	CHECK(!ev && s.min_rtt_us == 25000, "disabled: %u, min %u", ev,
	      s.min_rtt_us);

	/* before the first loss event a jump is no candidate (a first slow
	 * start's flights, a competitor's slow start), nor a step after a
	 * whole round; after it, one is
	 */
	qd_init(&s);
	t = del = 0;
	qd_ack(&s, &P, 0, 0, 10);
	round_at(&s, &P, &t, &del, 25000, 10);
	samples(&s, &P, &t, 60000, 60000, 5);
	CHECK(!s.step_chk, "before a loss: candidate %u", s.step_chk);
	for (i = 0, ev = 0; i < 3; i++)
		ev |= round_at(&s, &P, &t, &del, 60000, 10);
	CHECK(!ev && s.min_rtt_us == 25000, "before a loss: %u, min %u", ev,
	      s.min_rtt_us);
	settle(&s);
	samples(&s, &P, &t, 95000, 95000, 1);
	CHECK(!s.step_chk, "over 35 ms of queue");
	qd_init(&s);
	qd_step_sample(&s, &P, 25000);
	qd_rtt_sample(&s, &P, 0, 25000);
	settle(&s);
	qd_step_sample(&s, &P, 60000);
	CHECK(s.step_chk, "after a loss: a candidate");

	/* an RTT beyond 8.4 s (the level's range) saturates, no wrap */
	qd_init(&s);
	settle(&s);
	qd_step_sample(&s, &P, 9000000);
	CHECK(s.step_last == 0xffff, "level %u", s.step_last);
	/* ... and a saturated level sees no step: min 9 s (threshold
	 * 2.25 s), then 1 s of queue is not a move of the path
	 */
	qd_init(&s);
	settle(&s);
	t = del = 0;
	qd_ack(&s, &P, 0, 0, 10);
	round_at(&s, &P, &t, &del, 9000000, 10);
	ev = 0;
	for (i = 0; i < 3; i++)
		ev |= round_at(&s, &P, &t, &del, 10000000, 10);
	CHECK(!ev && s.min_rtt_us == 9000000, "saturated level: %u, min %u",
	      ev, s.min_rtt_us);

	/* a threshold under the level's unit (loss_us 100, min 400 us): a
	 * flat RTT is no jump for the level's rounding (500 us is 384 in
	 * 128 us units), so 100 us of queue still reads as congestion
	 */
	off = P;
	off.loss_us = 100;
	qd_init(&s);
	settle(&s);
	t = del = 0;
	qd_ack(&s, &off, 0, 0, 10);
	round_at(&s, &off, &t, &del, 400, 10);
	ev = 0;
	for (i = 0; i < 4; i++)
		ev |= round_at(&s, &off, &t, &del, 500, 10);
	CHECK(!ev && s.min_rtt_us == 400, "rounding: %u, min %u", ev,
	      s.min_rtt_us);
	CHECK(qd_loss_verdict(&s, &off) == QD_DELAY, "100 us of queue");

	/* a round without an RTT sample (all retransmissions) is not the
	 * round that confirms: the next round with samples is
	 */
	qd_init(&s);
	settle(&s);
	t = del = 0;
	qd_ack(&s, &P, 0, 0, 10);
	round_at(&s, &P, &t, &del, 25000, 10);
	samples(&s, &P, &t, 25000, 25000, 4);
	samples(&s, &P, &t, 60000, 60000, 6);
	del += 10;
	qd_ack(&s, &P, del, 0, 10);		/* the jump's round */
	del += 10;
	ev = qd_ack(&s, &P, del, 0, 10);	/* no sample */
	CHECK(!ev && s.step_chk == 1 && s.min_rtt_us == 25000,
	      "sample-less round: %u, check %u, min %u", ev, s.step_chk,
	      s.min_rtt_us);
	CHECK(round_at(&s, &P, &t, &del, 60000, 10) == QD_ACK_STEP &&
	      s.min_rtt_us == 60000, "then the step, min %u", s.min_rtt_us);
}

/*
 * A flow at min RTT 33 ms (threshold 8.25 ms: a candidate jumps 4.125 ms)
 * whose own queue swings 0-3 ms a round, for 40 rounds: its floor is the
 * minimum, its last sample 36 ms.
 */
static void swing_33(struct qd_state *s, u32 *t, u32 *del)
{
	u32 i;

	qd_init(s);
	settle(s);
	*t = *del = 0;
	qd_ack(s, &P, 0, 0, 10);
	for (i = 0; i < 40; i++)
		round_over(s, &P, t, del, 33000, 36000, 11);
}

/*
 * A handover with a timeout: the path goes 33 -> 38 ms while the flow's
 * queue is gone. From the last sample (36 ms) the 5 ms step is a jump of
 * 2 ms, no candidate; the minimum stays 5 ms short, and once the floor has
 * followed the new path (4.992 ms, in 128 us units, under the AQM's 5 ms)
 * a loss reads as an AQM's queue. After qd_timeout() the level is the floor
 * (33 ms) and the step moves the minimum to 38 ms. The level drops by one
 * threshold at most, not over a long standing queue, not while a candidate
 * is checked, not with the delay signal off.
 */
static void test_step_after_timeout(void)
{
	struct qd_params off = P;
	struct qd_state s;
	u32 t, del, i, ev = 0;

	/* without the timeout's level: no step */
	swing_33(&s, &t, &del);
	CHECK(s.min_rtt_us == 33000 && s.floor_q == 0 &&
	      s.step_last == 36000 >> QD_STEP_SHIFT, "min %u floor %u last %u",
	      s.min_rtt_us, s.floor_q, s.step_last);
	for (i = 0; i < 60; i++)
		ev |= round_at(&s, &P, &t, &del, 38000, 10);
	CHECK(!(ev & QD_ACK_STEP) && s.min_rtt_us == 33000, "min %u",
	      s.min_rtt_us);
	CHECK(qd_loss_verdict(&s, &P) == QD_DELAY, "the step read as queue");

	/* with it: the step is found at the round after the jump's */
	swing_33(&s, &t, &del);
	qd_timeout(&s, &P);
	CHECK(s.step_last == 33000 >> QD_STEP_SHIFT, "level %u", s.step_last);
	samples(&s, &P, &t, 38000, 38000, 5);
	CHECK(s.step_chk == QD_STEP_ROUNDS, "candidate %u", s.step_chk);
	del += 10;
	ev = qd_ack(&s, &P, del, 0, 10);
	ev |= round_at(&s, &P, &t, &del, 38000, 10);
	CHECK(ev == QD_ACK_STEP && s.min_rtt_us == 38000, "step %u, min %u",
	      ev, s.min_rtt_us);
	/* at a packet a ms, the window grows from 33 to 38 */
	s.rate_ns = 1000000;
	CHECK(qd_step_cwnd(&s, 33) == 38, "window %u", qd_step_cwnd(&s, 33));
	for (i = 0; i < 60; i++)
		round_at(&s, &P, &t, &del, 38000, 10);
	CHECK(qd_loss_verdict(&s, &P) == QD_QUIET, "a loss on the new path");
	/* a timeout with no step: the next sample is no jump */
	qd_timeout(&s, &P);
	samples(&s, &P, &t, 38500, 38500, 5);
	CHECK(!s.step_chk && s.step_last == 38500 >> QD_STEP_SHIFT,
	      "no step: check %u, level %u", s.step_chk, s.step_last);

	/* at most one threshold down: a last sample of 45 ms (its level
	 * 44.928 ms) -> 36.678 ms
	 */
	swing_33(&s, &t, &del);
	samples(&s, &P, &t, 36000, 45000, 10);	/* it builds, 1 ms a sample */
	CHECK(!s.step_chk, "a queue that builds");
	qd_timeout(&s, &P);
	CHECK(s.step_last == 36678 >> QD_STEP_SHIFT, "bounded level %u",
	      s.step_last);

	/* a standing queue (the last sample and the last round's least both
	 * over min + 2 thresholds, 49.5 ms): the level stays
	 */
	swing_33(&s, &t, &del);
	samples(&s, &P, &t, 36000, 55000, 20);
	for (i = 0; i < 3; i++)
		round_at(&s, &P, &t, &del, 55000, 10);
	samples(&s, &P, &t, 55000, 60000, 6);
	CHECK(!s.step_chk && s.min_rtt_us == 33000, "standing: check %u, min %u",
	      s.step_chk, s.min_rtt_us);
	qd_timeout(&s, &P);
	CHECK(s.step_last == 60000 >> QD_STEP_SHIFT, "standing queue: %u",
	      s.step_last);

	/* a candidate under check keeps its level */
	swing_33(&s, &t, &del);
	samples(&s, &P, &t, 33000, 33000, 1);
	samples(&s, &P, &t, 40000, 40000, 1);
	CHECK(s.step_chk, "candidate");
	qd_timeout(&s, &P);
	CHECK(s.step_last == 33000 >> QD_STEP_SHIFT, "kept %u", s.step_last);

	/* the delay signal off */
	off.enable = 0;
	swing_33(&s, &t, &del);
	qd_timeout(&s, &off);
	CHECK(s.step_last == 36000 >> QD_STEP_SHIFT, "off: %u", s.step_last);
}

/*
 * A handover from 33.3 to 37.9 ms (a LEO schedule's, 4.6 ms) where the
 * flow's queue drained to 1 ms over the minimum a round: the floor is
 * 0.9 ms up (7 units of 128 us), and after the timeout the level is
 * 34.176 ms (the floor, in 128 us units). Half a threshold (4.1625 ms)
 * over that unit's top is 38.466 ms: no candidate, the minimum stays
 * 4.6 ms short, the floor
 * follows the new path to 4.7 ms, under the AQM's 5 ms, and a round whose
 * least sample holds half a ms of queue makes a loss congestion. In the
 * timeout's hold (qd_loss_state()) a quarter of a threshold is a jump: the
 * step is seen and the minimum moves to within the floor's 1 ms of it.
 */
static void test_small_step_after_timeout(void)
{
	struct qd_state s, c;
	u32 t, del, i, ev, held;

	for (held = 0; held < 2; held++) {
		qd_init(&s);
		settle(&s);
		t = del = ev = 0;
		qd_ack(&s, &P, 0, 0, 10);
		round_at(&s, &P, &t, &del, 33300, 10);
		for (i = 0; i < 60; i++)
			round_over(&s, &P, &t, &del, 34300, 36300, 10);
		CHECK(s.min_rtt_us == 33300 && s.floor_q == 7, "min %u floor %u",
		      s.min_rtt_us, s.floor_q);
		qd_timeout(&s, &P);
		CHECK(s.step_last == 34176 >> QD_STEP_SHIFT, "level %u",
		      s.step_last);
		if (held)
			qd_loss_state(&s, true);
		for (i = 0; i < 3; i++)
			ev |= round_at(&s, &P, &t, &del, 37900, 10);
		if (held)
			qd_loss_state(&s, false);
		for (i = 0; i < 100; i++)
			ev |= round_at(&s, &P, &t, &del, 38100, 10);
		c = s;
		round_at(&c, &P, &t, &del, 38400, 10);	/* 0.5 ms of queue */
		if (!held) {
			CHECK(!(ev & QD_ACK_STEP) && s.min_rtt_us == 33300 &&
			      qd_min_drained(&s, qd_aqm_us(&s, &P)),
			      "unseen: min %u floor %u", s.min_rtt_us,
			      s.floor_q);
			CHECK(qd_loss_verdict(&c, &P) == QD_DELAY,
			      "the shortfall read as an AQM's queue");
			continue;
		}
		CHECK(ev == QD_ACK_STEP && s.min_rtt_us >= 36900 &&
		      s.min_rtt_us <= 37900, "step %u, min %u", ev,
		      s.min_rtt_us);
		CHECK(qd_loss_verdict(&c, &P) == QD_QUIET,
		      "a loss at 0.5 ms of queue: %u us read", qd_delay_us(&c));
	}
	/* out of the hold a jump of a quarter of a threshold is none */
	swing_33(&s, &t, &del);
	samples(&s, &P, &t, 33000, 33000, 1);
	samples(&s, &P, &t, 36300, 36300, 1);	/* 3.3 ms over 33 */
	CHECK(!s.step_chk, "no candidate out of a timeout");
	qd_loss_state(&s, true);
	samples(&s, &P, &t, 33000, 33000, 1);
	samples(&s, &P, &t, 36300, 36300, 1);
	CHECK(s.step_chk == QD_STEP_ROUNDS, "a candidate in its hold");
}

int main(void)
{
	RUN(test_params);
	RUN(test_min_rtt_window);
	RUN(test_round_delay);
	RUN(test_thresh);
	RUN(test_verdict);
	RUN(test_late_verdict);
	RUN(test_breaker);
	RUN(test_cap);
	RUN(test_shared);
	RUN(test_drain);
	RUN(test_bound);
	RUN(test_not_ours);
	RUN(test_under_bdp);
	RUN(test_reduced);
	RUN(test_rate_hold);
	RUN(test_loss_forgets_rtt);
	RUN(test_path_bdp);
	RUN(test_step_cwnd);
	RUN(test_path_step);
	RUN(test_step_after_timeout);
	RUN(test_small_step_after_timeout);
	return check_done("test_qdelay");
}

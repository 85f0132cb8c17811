// SPDX-License-Identifier: GPL-2.0
/*
 * Cost of tcp_spec's per-ACK path against Reno's, for
 * tests/bench/spec_cost.sh, which runs this under callgrind and counts the
 * instructions executed inside bench_spec() or bench_reno() only
 * (--toggle-collect).
 *
 *   spec_cost spec|spec-regrow|spec-ecn|growth|cubic|reno COUNT
 *
 * One call is what the congestion control does for one ACK of one segment
 * in congestion avoidance, the common case on a long path:
 *
 * spec:     tcp_spec's pkts_acked() (the parameters' snapshot, an RTT
 *           sample for the path-step detector and the min RTT, a
 *           delivery-rate sample, the round and breaker accounting of
 *           qdelay.h, HyStart++'s test of the first slow start) and
 *           cong_control() (CUBIC's cnt from cubic.h, the
 *           stack's tcp_cong_avoid_ai(), the growth cap and drain of
 *           a path that has not marked, the pacing rate of spec.h);
 *           The window is at the BDP it measures: the rate samples are
 *           the window's own (cwnd a round), so the growth cap is computed
 *           on every ACK (the window between one BDP and the cap, the
 *           state of a lone flow between losses);
 * spec-regrow: the same while the window regrows after the reduction, under
 *           the rate the epoch before it delivered (1000 packets a min
 *           RTT): under one BDP, no cap is computed (qd_cwnd_under_bdp());
 * spec-ecn: the same once an ECN-Echo has been seen (no growth cap);
 * growth:   the least any design with spec's growth costs: CUBIC's cnt as
 *           spec computes it (cubic.h, with its cache), the stack's
 *           tcp_cong_avoid_ai(), a min RTT filter and spec's pacing rate,
 *           nothing else;
 * cubic:    the kernel's default, for reference: a replica of tcp_cubic.c's
 *           pkts_acked() (the min RTT) and cong_avoid() (bictcp_update(),
 *           which keeps cnt for 1/32 s while cwnd is unchanged) with the
 *           stack's pacing rate;
 * reno:     what the stack does for Reno in the same place: tcp_reno_
 *           cong_avoid() (tcp_is_cwnd_limited(), tcp_cong_avoid_ai()) and
 *           tcp_update_pacing_rate(), replicas of net/ipv4/tcp_cong.c and
 *           tcp_input.c.
 *
 * The work the stack does for every ACK whatever the congestion control
 * (tcp_ack(), SACK, RTT estimation, rate sampling) is counted in neither.
 * The inputs are a 20 Mbit/s path with a 600 ms RTT (a window of ~1000
 * segments, one ACK every 0.5 ms, RTT samples jittered by up to 5 ms), so
 * rounds and breaker intervals end as they do on the GEO scenarios. Built
 * with -O2 like the kernel.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <specnet/qdelay.h>
#include <specnet/cubic.h>
#include <specnet/spec.h>
#include <specnet/hystart.h>

#define MSS		1448
#define ACK_US		500		/* 20 Mbit/s of 1250-byte frames */
#define BASE_RTT_US	600000
#define PACING_CA_RATIO	120		/* net.ipv4.tcp_pacing_ca_ratio */

/* net/ipv4/tcp_cubic.c's state (Debian's kernels run at HZ 250) */
#define HZ		250
#define BICTCP_HZ	10
#define CUBE_RTT_SCALE	(41 * 10)			/* bic_scale * 10 */
#define BETA_SCALE	(8 * (1024 + 717) / 3 / (1024 - 717))

struct bictcp {
	u32 cnt, last_max_cwnd, last_cwnd, last_time, bic_origin_point;
	u32 bic_K, delay_min, epoch_start, ack_cnt, tcp_cwnd;
};

/* The part of struct tcp_sock and of the CC's private area that is read
 * or written per ACK.
 */
struct conn {
	u32 cwnd, cwnd_cnt, clamp, ssthresh, packets_out, srtt_x8;
	u32 delivered, lost, now_us;
	u64 pacing_rate;
	bool cwnd_limited, ece_seen;
	u16 css_base;
	struct qd_state qd;
	struct cubic_state cubic;
	struct cubic_cnt_cache cnt_cache;
	bool cnt_kept;
	struct bictcp bic;
};

static const struct qd_params qd_defaults = QD_PARAMS_DEFAULT;
/* volatile: the module parameters are read with READ_ONCE() */
static volatile u32 qd_param_words[6];
static u64 rng = 0x9e3779b97f4a7c15ULL;

static u32 jitter_us(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (u32)((rng * 0x2545f4914f6cdd1dULL) >> 32) % 5000;
}

/* net/ipv4/tcp_cong.c */
static void tcp_cong_avoid_ai(struct conn *c, u32 w, u32 acked)
{
	if (c->cwnd_cnt >= w) {
		c->cwnd_cnt = 0;
		c->cwnd++;
	}
	c->cwnd_cnt += acked;
	if (c->cwnd_cnt >= w) {
		u32 delta = c->cwnd_cnt / w;

		c->cwnd_cnt -= delta * w;
		c->cwnd += delta;
	}
	c->cwnd = min_t(u32, c->cwnd, c->clamp);
}

/* tcp_input.c's tcp_update_pacing_rate() */
static void tcp_update_pacing_rate(struct conn *c)
{
	u64 rate = (u64)MSS * ((1000000 / 100) << 3);

	rate *= c->cwnd < c->ssthresh / 2 ? 200 : PACING_CA_RATIO;
	rate *= max_t(u32, c->cwnd, c->packets_out);
	if (c->srtt_x8)
		rate /= c->srtt_x8;
	c->pacing_rate = rate;
}

__attribute__((noinline)) void bench_reno(struct conn *c, u32 acked)
{
	/* tcp_reno_cong_avoid() in congestion avoidance */
	if (!c->cwnd_limited)
		return;
	tcp_cong_avoid_ai(c, c->cwnd, acked);
	tcp_update_pacing_rate(c);
}

/* tcp_cubic.c's bictcp_update(); K from cubic.h's root (once an epoch) */
static void bictcp_update(struct bictcp *ca, u32 cwnd, u32 acked, u32 jiffies)
{
	u32 delta, bic_target, max_cnt;
	u64 offs, t;

	ca->ack_cnt += acked;
	if (ca->last_cwnd == cwnd && (s32)(jiffies - ca->last_time) <= HZ / 32)
		return;
	if (ca->epoch_start && jiffies == ca->last_time)
		goto tcp_friendliness;
	ca->last_cwnd = cwnd;
	ca->last_time = jiffies;
	if (ca->epoch_start == 0) {
		ca->epoch_start = jiffies;
		ca->ack_cnt = acked;
		ca->tcp_cwnd = cwnd;
		if (ca->last_max_cwnd <= cwnd) {
			ca->bic_K = 0;
			ca->bic_origin_point = cwnd;
		} else {
			ca->bic_K = cubic_cbrt(((1ULL << (10 + 3 * BICTCP_HZ)) /
						CUBE_RTT_SCALE) *
					       (ca->last_max_cwnd - cwnd));
			ca->bic_origin_point = ca->last_max_cwnd;
		}
	}
	t = (s32)(jiffies - ca->epoch_start);
	t += (ca->delay_min + 1000000 / HZ - 1) / (1000000 / HZ);
	t <<= BICTCP_HZ;
	t /= HZ;
	offs = t < ca->bic_K ? ca->bic_K - t : t - ca->bic_K;
	delta = (CUBE_RTT_SCALE * offs * offs * offs) >> (10 + 3 * BICTCP_HZ);
	bic_target = t < ca->bic_K ? ca->bic_origin_point - delta :
		     ca->bic_origin_point + delta;
	ca->cnt = bic_target > cwnd ? cwnd / (bic_target - cwnd) : 100 * cwnd;
	if (ca->last_max_cwnd == 0 && ca->cnt > 20)
		ca->cnt = 20;
tcp_friendliness:
	delta = (cwnd * BETA_SCALE) >> 3;
	while (ca->ack_cnt > delta) {
		ca->ack_cnt -= delta;
		ca->tcp_cwnd++;
	}
	if (ca->tcp_cwnd > cwnd) {
		max_cnt = cwnd / (ca->tcp_cwnd - cwnd);
		if (ca->cnt > max_cnt)
			ca->cnt = max_cnt;
	}
	ca->cnt = max_t(u32, ca->cnt, 2);
}

/* tcp_cubic.c's cubictcp_acked() (past slow start: no HyStart) and
 * cubictcp_cong_avoid() in congestion avoidance, and the stack's pacing
 */
__attribute__((noinline)) void bench_cubic(struct conn *c, u32 acked, u32 rtt_us)
{
	struct bictcp *ca = &c->bic;
	u32 jiffies = c->now_us / (1000000 / HZ);

	if (!(ca->epoch_start && (s32)(jiffies - ca->epoch_start) < HZ)) {
		u32 delay = rtt_us ? rtt_us : 1;

		if (ca->delay_min == 0 || ca->delay_min > delay)
			ca->delay_min = delay;
	}
	if (!c->cwnd_limited)
		return;
	bictcp_update(ca, c->cwnd, acked, jiffies);
	tcp_cong_avoid_ai(c, ca->cnt, acked);
	tcp_update_pacing_rate(c);
}

/* qdelay_glue.h's specnet_qd_params_read(): six READ_ONCE()s */
static void qd_params_read(struct qd_params *p)
{
	p->enable = qd_param_words[0];
	p->loss_us = qd_param_words[1];
	p->loss_pct = qd_param_words[2];
	p->win_ms = qd_param_words[3];
	p->brk_floor = qd_param_words[4];
	p->brk_mult = qd_param_words[5];
}

__attribute__((noinline)) void bench_spec(struct conn *c, u32 acked, u32 rtt_us,
					  u32 rate_delivered, u32 rate_interval_us)
{
	struct qd_params qdp;
	u32 before, rtt, cnt;

	/* spec_pkts_acked() */
	qd_params_read(&qdp);
	qd_step_sample(&c->qd, &qdp, rtt_us);
	qd_rtt_sample(&c->qd, &qdp, c->now_us, rtt_us);
	qd_rate_sample(&c->qd, rate_delivered, rate_interval_us);
	qd_ack(&c->qd, &qdp, c->delivered, c->lost, c->packets_out);
	/* spec_hystart(): past the first slow start, one test */
	if (c->ssthresh == 0x7fffffff && c->css_base &&
	    hss_css_resumes(c->css_base, c->qd.rnd_rtt_us, qd_rnd_samples(c->qd.rnd_cnt)))
		c->css_base = 0;

	/* spec_cong_control() -> spec_cong_avoid() -> spec_cubic_ai() */
	if (!c->cwnd_limited)
		return;
	before = c->cwnd;
	rtt = c->qd.min_rtt_us != QD_NONE ? c->qd.min_rtt_us : c->srtt_x8 >> 3;
	cnt = cubic_cnt_cached(&c->cubic, &c->cnt_cache, c->cnt_kept, c->cwnd,
			       acked, c->now_us / 1000, rtt / 1000);
	c->cnt_kept = true;
	tcp_cong_avoid_ai(c, cnt, acked);
	/* spec_bound_cwnd() */
	if (!c->ece_seen && !qd_cwnd_under_bdp(&c->qd, c->cwnd)) {
		qd_params_read(&qdp);
		c->cwnd = qd_cwnd_bound(&c->qd, &qdp, QD_BOUND_FULL | QD_BOUND_DRAIN, before,
					c->cwnd, acked);
	}
	/* spec_set_pacing_rate() */
	c->pacing_rate = spec_pacing_rate(MSS, c->cwnd, c->packets_out, c->srtt_x8,
					  c->cwnd < c->ssthresh / 2 ? 200 :
					  PACING_CA_RATIO);
}

/* spec_cubic_ai() and spec_set_pacing_rate() with a min RTT filter: the
 * growth alone
 */
__attribute__((noinline)) void bench_growth(struct conn *c, u32 acked, u32 rtt_us)
{
	u32 cnt;

	if (rtt_us < c->qd.min_rtt_us)
		c->qd.min_rtt_us = rtt_us;
	if (!c->cwnd_limited)
		return;
	cnt = cubic_cnt_cached(&c->cubic, &c->cnt_cache, c->cnt_kept, c->cwnd,
			       acked, c->now_us / 1000, c->qd.min_rtt_us / 1000);
	c->cnt_kept = true;
	tcp_cong_avoid_ai(c, cnt, acked);
	c->pacing_rate = spec_pacing_rate(MSS, c->cwnd, c->packets_out, c->srtt_x8,
					  c->cwnd < c->ssthresh / 2 ? 200 :
					  PACING_CA_RATIO);
}

enum mode { RENO, SPEC, SPEC_REGROW, SPEC_ECN, GROWTH, CUBIC, MODES };

static const char * const mode_names[MODES] = {
	[RENO] = "reno", [SPEC] = "spec", [SPEC_REGROW] = "spec-regrow",
	[SPEC_ECN] = "spec-ecn", [GROWTH] = "growth", [CUBIC] = "cubic",
};

int main(int argc, char **argv)
{
	struct conn c = {
		.cwnd = 800, .clamp = ~0U, .ssthresh = 700, .packets_out = 800,
		.srtt_x8 = BASE_RTT_US << 3, .cwnd_limited = true,
	};
	u64 sink = 0;
	long i, count;
	int mode;

	count = argc == 3 ? atol(argv[2]) : 0;
	for (mode = 0; mode < MODES && argc == 3; mode++)
		if (!strcmp(argv[1], mode_names[mode]))
			break;
	if (count <= 0 || argc != 3 || mode == MODES) {
		fprintf(stderr,
			"usage: spec_cost spec|spec-regrow|spec-ecn|growth|cubic|reno COUNT\n");
		return 2;
	}
	qd_param_words[0] = qd_defaults.enable;
	qd_param_words[1] = qd_defaults.loss_us;
	qd_param_words[2] = qd_defaults.loss_pct;
	qd_param_words[3] = qd_defaults.win_ms;
	qd_param_words[4] = qd_defaults.brk_floor;
	qd_param_words[5] = qd_defaults.brk_mult;
	qd_init(&c.qd);
	qd_loss_verdict(&c.qd, &qd_defaults);	/* past a loss: steps watched */
	cubic_init(&c.cubic);
	c.cubic.last_max = 1000;	/* an epoch after a reduction from 1000 */
	c.bic.last_max_cwnd = 1000;
	c.ece_seen = mode == SPEC_ECN;
	if (mode == SPEC_REGROW)	/* the epoch before the reduction */
		qd_rate_sample(&c.qd, c.bic.last_max_cwnd, BASE_RTT_US);
	for (i = 0; i < count; i++) {
		c.now_us += ACK_US;
		c.delivered++;
		if (mode == RENO)
			bench_reno(&c, 1);
		else if (mode == CUBIC)
			bench_cubic(&c, 1, BASE_RTT_US + jitter_us());
		else if (mode == GROWTH)
			bench_growth(&c, 1, BASE_RTT_US + jitter_us());
		else
			bench_spec(&c, 1, BASE_RTT_US + jitter_us(), c.cwnd,
				   BASE_RTT_US + jitter_us());
		c.packets_out = c.cwnd;
		sink += c.cwnd + c.pacing_rate;
	}
	printf("%s %ld cwnd %u %llu\n", argv[1], count, c.cwnd, (unsigned long long)sink);
	return 0;
}

/* Host unit tests of kernel/include/specnet/cubic.h (spec's window growth,
 * RFC 9438), with hand-worked values.
 */
#include <specnet/cubic.h>
#include "check.h"

static void test_cbrt(void)
{
	CHECK(cubic_cbrt(0) == 0, "0");
	CHECK(cubic_cbrt(1) == 1 && cubic_cbrt(7) == 1, "1, 7");
	CHECK(cubic_cbrt(8) == 2 && cubic_cbrt(26) == 2, "8, 26");
	CHECK(cubic_cbrt(27) == 3, "27");
	CHECK(cubic_cbrt(999999) == 99 && cubic_cbrt(1000000) == 100, "1e6");
	/* K of 300 segments: cbrt(300 x 2.5e9 ms^3) */
	CHECK(cubic_cbrt(750000000000ULL) == 9085, "%u", cubic_cbrt(750000000000ULL));
	CHECK(cubic_cbrt(1ULL << 63) == 2097152, "2^63");
	CHECK(cubic_cbrt(~0ULL) == 2642245, "2^64 - 1: %u", cubic_cbrt(~0ULL));
}

static void test_reduce(void)
{
	CHECK(cubic_reduce(1000, CUBIC_BETA) == 700, "0.7 of 1000: %u",
	      cubic_reduce(1000, CUBIC_BETA));
	CHECK(cubic_reduce(1000, CUBIC_BETA_ECN) == 799, "0.8 of 1000: %u",
	      cubic_reduce(1000, CUBIC_BETA_ECN));
	CHECK(cubic_reduce(2, CUBIC_BETA) == 2 && cubic_reduce(1, CUBIC_BETA) == 2,
	      "floor 2");
	CHECK(cubic_reduce(4000000000U, CUBIC_BETA) == 2800781250U, "no overflow");
}

/* W_max and fast convergence: a reduction below the previous W_max notes
 * (1 + 0.7) / 2 of the window.
 */
static void test_congestion(void)
{
	struct cubic_state s;

	cubic_init(&s);
	cubic_congestion(&s, 1000, 0, CUBIC_BETA);
	CHECK(s.last_max == 1000 && s.origin == 0, "first: %u", s.last_max);
	cubic_congestion(&s, 900, 0, CUBIC_BETA);
	CHECK(s.last_max == 765, "900 x 1741 / 2048: %u", s.last_max);
	cubic_congestion(&s, 1100, 0, CUBIC_BETA);
	CHECK(s.last_max == 1100, "above: %u", s.last_max);
	/* the path's BDP floors fast convergence, within the window */
	cubic_congestion(&s, 1000, 950, CUBIC_BETA);
	CHECK(s.last_max == 950, "floor 950: %u", s.last_max);
	cubic_congestion(&s, 900, 2000, CUBIC_BETA);
	CHECK(s.last_max == 900, "floor above the window: %u", s.last_max);
	cubic_congestion(&s, 800, 100, CUBIC_BETA);
	CHECK(s.last_max == 680, "floor below 0.85: 800 x 1741 / 2048 = %u", s.last_max);
}

/* The curve after a reduction from 1000 to 700, 600 ms min RTT. */
static void test_curve(void)
{
	struct cubic_state s;
	u32 cnt;

	cubic_init(&s);
	cubic_congestion(&s, 1000, 0, CUBIC_BETA);
	/* epoch at 5000 ms: K = cbrt(300 x 2.5e9) = 9085 ms; at t = 0 the
	 * target is W(600) = 1000 - 8485^3 / 2.5e9 = 1000 - 244 = 756, so
	 * cnt = 700 / 56 = 12
	 */
	cnt = cubic_cnt(&s, 700, 1, 5000, 600);
	CHECK(s.k_ms == 9085 && s.origin == 1000 && s.epoch_ms == 5000,
	      "K %u origin %u epoch %u", s.k_ms, s.origin, s.epoch_ms);
	CHECK(cnt == 12, "cnt %u", cnt);
	/* on the plateau (t + RTT = K): target 1000, from 700: 700 / 300 = 2 */
	cnt = cubic_cnt(&s, 700, 1, 5000 + 9085 - 600, 600);
	CHECK(cnt == 2, "cnt %u at K", cnt);
	/* at W_max, 1 s past K: W = 1000 + 0.4: no growth yet (100 x cwnd) */
	cnt = cubic_cnt(&s, 1000, 1, 5000 + 9085 + 1000 - 600, 600);
	CHECK(cnt == 100000, "cnt %u past K", cnt);
	/* 10 s past K: W = 1000 + 0.4 x 1000 = 1400; cnt 1000 / 400 = 2 */
	cnt = cubic_cnt(&s, 1000, 1, 5000 + 9085 + 10000 - 600, 600);
	CHECK(cnt == 2, "cnt %u 10 s past K", cnt);
	CHECK(cubic_window(&s, 9085 + 10000) == 1400, "W %u",
	      cubic_window(&s, 9085 + 10000));
	/* at t = 0 the curve is at 1000 - 9085^3 / 2.5e9 = 701, about 700 */
	CHECK(cubic_window(&s, 0) == 701, "W(0) %u", cubic_window(&s, 0));
	/* very long after, bounded and saturated, not wrapped */
	CHECK(cubic_window(&s, ~0U) > 1000, "W(max) %u", cubic_window(&s, ~0U));
	/* a window above W_max at the epoch's start: K = 0, origin = cwnd */
	cubic_init(&s);
	cubic_congestion(&s, 100, 0, CUBIC_BETA);
	cnt = cubic_cnt(&s, 120, 1, 7, 10);
	CHECK(s.k_ms == 0 && s.origin == 120, "K %u origin %u", s.k_ms, s.origin);
	/* never a reduction: at most 1 per 20 segments (tcp_cubic) */
	cubic_init(&s);
	cnt = cubic_cnt(&s, 100, 1, 1, 10);
	CHECK(cnt == CUBIC_CNT_FIRST, "first epoch cnt %u", cnt);
}

/* cnt kept while the window is unchanged, for at most 31 ms (1/32 s) */
static void test_cnt_kept(void)
{
	struct cubic_state s;
	struct cubic_cnt_cache c = { 0 };
	u32 cnt;

	cubic_init(&s);
	cubic_congestion(&s, 1000, 0, CUBIC_BETA);
	/* the curve's first ACK: cnt 12 (test_curve), computed and kept */
	cnt = cubic_cnt_cached(&s, &c, false, 700, 1, 5000, 600);
	CHECK(cnt == 12 && c.cnt == 12 && c.cwnd == 700 && c.stamp_ms == 5000,
	      "computed: cnt %u kept %u for %u at %u", cnt, c.cnt, c.cwnd,
	      c.stamp_ms);
	/* on the plateau the curve says 2; 31 ms later the kept 12 stands,
	 * and the ACK's segment still counts towards W_est
	 */
	s.epoch_ms -= 8485;
	cnt = cubic_cnt_cached(&s, &c, true, 700, 3, 5031, 600);
	CHECK(cnt == 12 && s.w_est_acks == 4, "kept: cnt %u W_est acks %u",
	      cnt, s.w_est_acks);
	/* 32 ms: computed again */
	cnt = cubic_cnt_cached(&s, &c, true, 700, 1, 5032, 600);
	CHECK(cnt == 2 && c.stamp_ms == 5032, "after 1/32 s: cnt %u", cnt);
	/* another window, or a cache not valid: computed */
	c.cnt = 99;
	cnt = cubic_cnt_cached(&s, &c, true, 701, 1, 5033, 600);
	CHECK(cnt == 2 && c.cwnd == 701, "new window: cnt %u", cnt);
	c.cnt = 99;
	cnt = cubic_cnt_cached(&s, &c, false, 701, 1, 5033, 600);
	CHECK(cnt == 2, "not valid: cnt %u", cnt);
	/* a reduction ends the epoch: the next ACK starts one, not kept */
	c.cnt = 99;
	cubic_congestion(&s, 701, 0, CUBIC_BETA);
	cnt = cubic_cnt_cached(&s, &c, true, 701, 1, 5034, 600);
	CHECK(cnt != 99 && s.epoch_ms == 5034, "new epoch: cnt %u epoch %u", cnt,
	      s.epoch_ms);
}

/*
 * A window raised by a path step (66 -> 82, 50 ms): the curve of the
 * reduction from 66 (K = cbrt(20 x 2.5e9) = 3684 ms, 46 at its start) is
 * still at 65 after 3 s, below the window, and would hold it (cnt 100 x
 * 82). After cubic_jump() the next ACK starts an epoch there (plateau 82,
 * K 0): 3 s on, 82 + 3.05^3 / 0.4 = 93, cnt 82 / 11 = 7.
 */
static void test_jump(void)
{
	struct cubic_state s, kept;
	u32 cnt;

	cubic_init(&s);
	cubic_congestion(&s, 66, 0, CUBIC_BETA);
	cubic_cnt(&s, 46, 1, 1000, 50);
	CHECK(s.origin == 66 && s.k_ms == 3684, "epoch: origin %u K %u",
	      s.origin, s.k_ms);
	kept = s;
	cnt = cubic_cnt(&kept, 82, 1, 4000, 50);
	CHECK(cnt == 8200, "below the window: cnt %u", cnt);
	cubic_jump(&s);
	cubic_cnt(&s, 82, 1, 1000, 50);
	CHECK(s.origin == 82 && s.k_ms == 0 && s.last_max == 66 &&
	      s.epoch_ms == 1000, "new epoch: origin %u K %u W_max %u at %u",
	      s.origin, s.k_ms, s.last_max, s.epoch_ms);
	cnt = cubic_cnt(&s, 82, 1, 4000, 50);
	CHECK(cnt == 7, "from the raised window: cnt %u", cnt);
}

/* Reno-friendly region: where the curve is flat, the window grows as Reno
 * (alpha 1 once W_est is at W_max: one segment per cwnd delivered).
 */
static void test_reno_friendly(void)
{
	struct cubic_state s;
	u32 cnt;

	cubic_init(&s);
	cubic_congestion(&s, 100, 0, CUBIC_BETA);
	cnt = cubic_cnt(&s, 100, 99, 1000, 10);
	CHECK(cnt == 10000 && s.w_est == 100, "flat curve: cnt %u W_est %u", cnt, s.w_est);
	cnt = cubic_cnt(&s, 100, 1, 1000, 10);
	CHECK(s.w_est == 101 && s.w_est_acks == 0, "W_est %u acks %u", s.w_est,
	      s.w_est_acks);
	CHECK(cnt == 100, "Reno's cnt %u", cnt);
	/* below W_max: alpha = 0.53, 1 per 700 x 1741 / 921 = 1323 segments */
	cubic_init(&s);
	cubic_congestion(&s, 1000, 0, CUBIC_BETA);
	cubic_cnt(&s, 700, 1322, 1, 600);
	CHECK(s.w_est == 700, "W_est %u", s.w_est);
	cubic_cnt(&s, 700, 1, 1, 600);
	CHECK(s.w_est == 701 && s.w_est_acks == 0, "W_est %u", s.w_est);
}

/* alpha follows the beta of the epoch's reduction (RFC 9438 4.3):
 * after 0.8, alpha = 3 x 0.2 / 1.8 = 1/3, 1 per 800 x 1843 / 615 = 2397
 * segments; after a halving alpha = 1, 1 per cwnd; a mark's 0.8 that a
 * loss took to 0.7 grows back as 0.7 (1 per 700 x 1741 / 921 = 1323).
 */
static void test_reno_friendly_beta(void)
{
	struct cubic_state s;

	cubic_init(&s);
	cubic_congestion(&s, 1000, 0, CUBIC_BETA_ECN);
	cubic_cnt(&s, 800, 2396, 1, 600);
	CHECK(s.w_est == 800, "0.8: W_est %u", s.w_est);
	cubic_cnt(&s, 800, 1, 1, 600);
	CHECK(s.w_est == 801 && s.w_est_acks == 0, "0.8: W_est %u acks %u", s.w_est,
	      s.w_est_acks);

	cubic_init(&s);
	cubic_congestion(&s, 1000, 0, CUBIC_BETA_UNIT / 2);
	cubic_cnt(&s, 500, 499, 1, 600);
	CHECK(s.w_est == 500, "0.5: W_est %u", s.w_est);
	cubic_cnt(&s, 500, 1, 1, 600);
	CHECK(s.w_est == 501, "0.5: W_est %u", s.w_est);

	cubic_init(&s);
	cubic_congestion(&s, 1000, 0, CUBIC_BETA_ECN);
	cubic_reduced_by(&s, CUBIC_BETA);
	cubic_cnt(&s, 700, 1322, 1, 600);
	CHECK(s.w_est == 700, "0.8 then 0.7: W_est %u", s.w_est);
	cubic_cnt(&s, 700, 1, 1, 600);
	CHECK(s.w_est == 701, "0.8 then 0.7: W_est %u", s.w_est);

	/* beta is kept below 1 (alpha > 0); K still fits its 22 bits */
	cubic_init(&s);
	cubic_congestion(&s, 4000000000U, 0, CUBIC_BETA_UNIT);
	CHECK(s.beta == CUBIC_BETA_UNIT - 1, "beta %u", s.beta);
	cubic_cnt(&s, 1, 1, 1, 600);
	CHECK(s.k_ms == cubic_cbrt((u64)3999999999U * CUBIC_MS3_PER_SEG),
	      "K %u", s.k_ms);
}

static void test_idle(void)
{
	struct cubic_state s;

	cubic_init(&s);
	cubic_idle(&s, 500, 1000);
	CHECK(s.epoch_ms == 0 && !s.origin, "no epoch: nothing moves");
	cubic_congestion(&s, 1000, 0, CUBIC_BETA);
	cubic_cnt(&s, 700, 1, 1000, 600);
	cubic_idle(&s, 500, 3000);
	CHECK(s.epoch_ms == 1500, "epoch %u", s.epoch_ms);
	cubic_idle(&s, 5000, 3000);
	CHECK(s.epoch_ms == 3000, "not in the future: %u", s.epoch_ms);
}

/* tcp_cong_avoid_ai() as the stack has it. */
static void ai(u32 *cwnd, u32 *acc, u32 w, u32 acked)
{
	if (*acc >= w) {
		*acc = 0;
		(*cwnd)++;
	}
	*acc += acked;
	if (*acc >= w) {
		u32 delta = *acc / w;

		*acc -= delta * w;
		*cwnd += delta;
	}
}

/* Time (ms) to regain @w_max after a reduction by @beta, one ACK per
 * segment, a cwnd's worth of ACKs spread over each RTT.
 */
static u32 regain_ms(u32 w_max, u32 beta, u32 rtt_ms)
{
	struct cubic_state s;
	u32 cwnd = cubic_reduce(w_max, beta), acc = 0, now = 100, i;

	cubic_init(&s);
	cubic_congestion(&s, w_max, 0, beta);
	while (cwnd < w_max && now < 100 + 600000) {
		u32 n = cwnd;

		for (i = 0; i < n; i++)
			ai(&cwnd, &acc, cubic_cnt(&s, cwnd, 1, now + i * rtt_ms / n,
						  rtt_ms), 1);
		now += rtt_ms;
	}
	return now - 100;
}

/* The design's promise: a reduction of a 1400-packet window is regained in
 * about K (10.2 s for 0.7, 8.9 s for 0.8; the last 1.4 s before K the curve
 * is within one packet of W_max), whatever the RTT; Reno would take 420
 * RTTs (252 s at 600 ms). Measured here: 9.6 s at 600 ms, 8.8 s at 100 ms,
 * 8.4 s for 0.8.
 */
static void test_bounded_recovery(void)
{
	u32 geo = regain_ms(1400, CUBIC_BETA, 600);
	u32 mid = regain_ms(1400, CUBIC_BETA, 100);
	u32 ecn = regain_ms(1400, CUBIC_BETA_ECN, 600);

	CHECK(geo >= 9000 && geo <= 11400, "0.7 at 600 ms: %u ms", geo);
	CHECK(mid >= 8000 && mid <= 10800, "0.7 at 100 ms: %u ms", mid);
	CHECK(ecn >= 7800 && ecn <= 10200, "0.8 at 600 ms: %u ms", ecn);
	/* a short path: the Reno-friendly region sets the pace (20 packets,
	 * 20 ms: K = 2.4 s, Reno's 6 / 0.53 RTTs = 0.23 s)
	 */
	CHECK(regain_ms(20, CUBIC_BETA, 20) <= 400, "20 at 20 ms: %u ms",
	      regain_ms(20, CUBIC_BETA, 20));
}

int main(void)
{
	RUN(test_cbrt);
	RUN(test_reduce);
	RUN(test_congestion);
	RUN(test_curve);
	RUN(test_cnt_kept);
	RUN(test_jump);
	RUN(test_reno_friendly);
	RUN(test_reno_friendly_beta);
	RUN(test_idle);
	RUN(test_bounded_recovery);
	return check_done("test_cubic");
}

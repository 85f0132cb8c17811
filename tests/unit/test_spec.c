/* Host unit tests of kernel/include/specnet/spec.h (the SpecTCP predictor). */
#include <specnet/spec.h>
#include "check.h"
#include <string.h>

#define INF 0x7fffffffu	/* the stack's TCP_INFINITE_SSTHRESH */

/* parameter checks: p_corrupt 0..1000 per-mille, hystart 0 or 1 */
static void test_params(void)
{
	struct spec_params p = { .p_corrupt = SPEC_P_DEFAULT, .hystart = 1 };
	const char *why = "unset";

	CHECK(spec_check_params(&p, &why) == 0 && !why, "default");
	p.p_corrupt = 0;
	CHECK(spec_check_params(&p, NULL) == 0, "0");
	p.p_corrupt = 1000;
	CHECK(spec_check_params(&p, NULL) == 0, "1000");
	p.p_corrupt = 1001;
	CHECK(spec_check_params(&p, &why) == -EINVAL &&
	      !strcmp(why, "p_corrupt is per-mille, 0..1000"), "1001");
	p.p_corrupt = 0xffffffffu;
	CHECK(spec_check_params(&p, NULL) == -EINVAL, "u32 max");
	p.p_corrupt = 500;
	p.hystart = 0;
	CHECK(spec_check_params(&p, NULL) == 0, "hystart 0");
	p.hystart = 2;
	CHECK(spec_check_params(&p, &why) == -EINVAL && !strcmp(why, "hystart is 0 or 1"),
	      "hystart 2");
}

/* the classification of a loss, draw r in 0..999 */
static void test_classify(void)
{
	struct spec_params p;
	u32 r, n_corrupt;

	/* a recent ECE always means congestion, whatever the draw */
	p.p_corrupt = 1000;
	for (r = 0; r < SPEC_P_UNIT; r++)
		CHECK(spec_classify(&p, true, false, r) == SPEC_CONG_ECE, "r=%u", r);

	/* p = 1000: always corruption; p = 0: never */
	for (r = 0; r < SPEC_P_UNIT; r++)
		CHECK(spec_classify(&p, false, false, r) == SPEC_CORRUPT, "p=1000 r=%u", r);
	p.p_corrupt = 0;
	for (r = 0; r < SPEC_P_UNIT; r++)
		CHECK(spec_classify(&p, false, false, r) == SPEC_CONG_DRAW, "p=0 r=%u", r);
	/* the delay signal: congestion whatever the draw; ECE first */
	p.p_corrupt = 1000;
	for (r = 0; r < SPEC_P_UNIT; r++)
		CHECK(spec_classify(&p, false, true, r) == SPEC_CONG_DELAY, "delay r=%u", r);
	CHECK(spec_classify(&p, true, true, 0) == SPEC_CONG_ECE, "ECE and delay");
	CHECK(spec_target_ssthresh(SPEC_CONG_DELAY, 100, 0, false) == 70, "breaker: 0.7");
	p.p_corrupt = 0;

	/* Bernoulli(p): exactly p of the 1000 equiprobable draws are corruption */
	for (p.p_corrupt = 0; p.p_corrupt <= SPEC_P_UNIT; p.p_corrupt += 125) {
		n_corrupt = 0;
		for (r = 0; r < SPEC_P_UNIT; r++)
			n_corrupt += spec_classify(&p, false, false, r) == SPEC_CORRUPT;
		CHECK(n_corrupt == p.p_corrupt, "p=%u got %u", p.p_corrupt, n_corrupt);
	}
}

static void test_decrease(void)
{
	/* decrease: corruption keeps cwnd; an ECN-Echo takes 0.8 (819/1024),
	 * a congestion loss 0.7 (717/1024), floor 2
	 */
	CHECK(spec_target_ssthresh(SPEC_CORRUPT, 40, 0, false) == 40, "keep");
	CHECK(spec_target_ssthresh(SPEC_CORRUPT, 1, 0, false) == 2, "keep floor");
	CHECK(spec_target_ssthresh(SPEC_CONG_ECE, 40, 0, false) == 31, "0.8 of 40: 31.99");
	CHECK(spec_target_ssthresh(SPEC_CONG_ECE, 1000, 0, false) == 799, "0.8 of 1000");
	CHECK(spec_target_ssthresh(SPEC_CONG_DRAW, 41, 0, false) == 28, "0.7 of 41: 28.7");
	CHECK(spec_target_ssthresh(SPEC_CONG_DRAW, 3, 0, false) == 2, "floor");
	/* slow start during a corruption recovery: +1 per delivered segment
	 * up to the old ssthresh; kept in congestion avoidance
	 */
	CHECK(spec_recovery_cwnd(40, 3, INF) == 43, "slow start");
	CHECK(spec_recovery_cwnd(40, 0, INF) == 40, "nothing delivered");
	CHECK(spec_recovery_cwnd(40, 30, 50) == 50, "capped at S");
	CHECK(spec_recovery_cwnd(40, 30, 40) == 40, "at S: kept");
	CHECK(spec_recovery_cwnd(40, 30, 20) == 40, "CA: kept");
	CHECK(spec_recovery_cwnd(0xfffffff0u, 0xffffffffu, 0xffffffffu) == 0xffffffffu,
	      "no overflow");
}

static void test_prr(void)
{
	/* PRR (RFC 6937) as tcp_cwnd_reduction(): the first ACK lets the
	 * fast retransmit out; above the target, sends in proportion
	 * ssthresh / prior_cwnd of what was delivered; below it, one per
	 * delivered (+1 on an snd_una advance without loss), never past it
	 */
	CHECK(spec_prr_sndcnt(50, 99, 100, 1, 0, 1, false) == 1, "entry: one");
	CHECK(spec_prr_sndcnt(50, 99, 100, 10, 0, 1, false) == 5, "proportional");
	CHECK(spec_prr_sndcnt(50, 99, 100, 11, 5, 1, false) == 1, "ceil 5.5 - 5");
	CHECK(spec_prr_sndcnt(50, 99, 100, 10, 9, 1, false) == 0, "over-sent: none");
	CHECK(spec_prr_sndcnt(50, 40, 100, 60, 30, 2, false) == 10, "catch up");
	CHECK(spec_prr_sndcnt(50, 40, 100, 60, 58, 2, false) == 2, "one per delivered");
	CHECK(spec_prr_sndcnt(50, 40, 100, 60, 58, 2, true) == 3, "+1 on snd_una");
	CHECK(spec_prr_sndcnt(50, 49, 100, 60, 58, 2, true) == 1, "never past target");
	CHECK(spec_prr_sndcnt(50, 50, 100, 60, 58, 2, true) == 0, "at target");
	CHECK(spec_prr_sndcnt(0x7ffffff0u, 0x7ffffff8u, 0x7fffffffu, 0x7fffffffu,
			      0x7fffff00u, 1, false) == 0xf0, "no u64 overflow");
	/* a whole reduction, one segment delivered per ACK, nothing lost:
	 * from 100 in flight, one window's ACKs bring it to ssthresh 50
	 */
	{
		u32 in_flight = 100, delivered = 0, out = 0, i;
		s32 n;

		for (i = 0; i < 100; i++) {
			delivered++;
			in_flight--;
			n = spec_prr_sndcnt(50, in_flight, 100, delivered, out, 1, false);
			CHECK(n >= 0 && n <= 2, "ack %u: %d", i, n);
			out += n;
			in_flight += n;
		}
		CHECK(in_flight == 50 && out == 50, "in flight %u out %u", in_flight, out);
	}
	CHECK(spec_target_ssthresh(SPEC_CONG_DRAW, 0xffffffffu, 0, false) == 3007315967u, "0.7 of the largest window");
}

/* An ECN-Echo reduces unless the window is below the path's BDP. */
static void test_ece_reduces(void)
{
	CHECK(spec_ece_reduces(1283, 990), "above the BDP");
	CHECK(spec_ece_reduces(990, 990), "at the BDP");
	CHECK(spec_ece_reduces(867, 990), "within 1/8 (866.25) of it");
	CHECK(!spec_ece_reduces(866, 990), "below: the queue drains");
	CHECK(!spec_ece_reduces(821, 990), "0.8 of 1026");
	CHECK(spec_ece_reduces(10, 0), "no estimate: RFC 8511's reduction");
	CHECK(spec_ece_reduces(0xffffffffu, 0xffffffffu), "no overflow");
}

/* A loss with a mark: 0.7 of the window, not below the path's BDP. */
static void test_marked_loss_ssthresh(void)
{
	/* LEO behind fq_codel, 53 ms: 94 at the loss, 87 delivered in a min
	 * RTT: the BDP, where 0.7 was 65
	 */
	CHECK(spec_marked_loss_ssthresh(94, 87) == 87, "the BDP: %u",
	      spec_marked_loss_ssthresh(94, 87));
	/* far above the BDP (a queue the flow did not make alone): 0.7 */
	CHECK(spec_marked_loss_ssthresh(200, 87) == 140, "0.7 of 200: %u",
	      spec_marked_loss_ssthresh(200, 87));
	CHECK(spec_marked_loss_ssthresh(94, 0) == 65, "no floor: 0.7 of 94 is 65.8");
	CHECK(spec_marked_loss_ssthresh(80, 87) == 80, "below the BDP: not above cwnd");
	CHECK(spec_marked_loss_ssthresh(1, 0) == 2, "floor");
	CHECK(spec_marked_loss_ssthresh(0xffffffffu, 0xffffffffu) == 0xffffffffu,
	      "no overflow");
}

/* An ECN-Echo's threshold: 0.8 of the window, not below the path's BDP. */
static void test_ece_ssthresh(void)
{
	/* GEO behind CoDel: 1076 at the mark, 940 delivered in a min RTT */
	CHECK(spec_ece_ssthresh(1076, 940, false) == 940, "the queue only: %u",
	      spec_ece_ssthresh(1076, 940, false));
	/* a second mark while that queue drains: no further cut */
	CHECK(spec_ece_ssthresh(940, 940, false) == 940, "at the BDP: kept");
	/* a short path, the marked queue a third of the window: 0.8 */
	CHECK(spec_ece_ssthresh(60, 41, false) == 47, "0.8 of 60: 47.99");
	CHECK(spec_ece_ssthresh(1000, 0, false) == 799, "no estimate: 0.8");
	CHECK(spec_ece_ssthresh(900, 990, false) == 900, "below the BDP: not above cwnd");
	CHECK(spec_ece_ssthresh(1, 0, false) == 2, "floor");
	CHECK(spec_ece_ssthresh(0xffffffffu, 0xffffffffu, false) == 0xffffffffu,
	      "no overflow");
	/* slow start: half, not below the BDP. GEO behind CoDel, the window
	 * doubled to 1957 while the mark came back: 978, the marked round's
	 */
	CHECK(spec_ece_ssthresh(1957, 940, true) == 978, "half of 1957: %u",
	      spec_ece_ssthresh(1957, 940, true));
	/* a mark a little past the BDP (a paced slow start): the BDP */
	CHECK(spec_ece_ssthresh(1300, 940, true) == 940, "1300: the BDP");
	CHECK(spec_ece_ssthresh(1000, 0, true) == 500, "no estimate: half");
	CHECK(spec_ece_ssthresh(900, 990, true) == 900, "not above cwnd");
	CHECK(spec_ece_ssthresh(3, 0, true) == 2, "floor");
	CHECK(spec_target_ssthresh(SPEC_CONG_ECE, 1957, 940, true) == 978,
	      "the verdict's threshold in slow start");
	CHECK(spec_target_ssthresh(SPEC_CONG_DRAW, 1000, 940, true) == 700,
	      "a loss in slow start: 0.7");
	CHECK(spec_target_ssthresh(SPEC_CORRUPT, 1000, 940, true) == 1000,
	      "corruption in slow start: kept");
}

/* A mark makes a loss congestion once, within an srtt. */
static void test_ece_recent(void)
{
	CHECK(spec_ece_recent(true, false, 1600000, 1000000, 620000),
	      "600 ms after the mark, srtt 620 ms");
	CHECK(!spec_ece_recent(true, true, 1600000, 1000000, 620000),
	      "answered by the reduction it started");
	CHECK(!spec_ece_recent(true, false, 1620000, 1000000, 620000),
	      "an srtt after it");
	CHECK(!spec_ece_recent(false, false, 1600000, 1000000, 620000),
	      "no mark seen yet");
	CHECK(spec_ece_recent(true, false, 5, 0xfffffff0u, 0), "wrapped clock, srtt floor");
	CHECK(!spec_ece_recent(true, false, 1000, 0, 0), "1 ms floor");
}

/* An ECE's ACK at or below where our CWR went is an echo; above, a mark. */
static void test_ece_echo(void)
{
	CHECK(spec_ece_echo(1000, 5000), "below the CWR segment: an echo");
	CHECK(spec_ece_echo(5000, 5000), "at it (a recovery's end): an echo");
	CHECK(!spec_ece_echo(5001, 5000), "above it (a CWR's end): a new mark");
	CHECK(!spec_ece_echo(9000, 5000), "well above");
	CHECK(spec_ece_echo(0xfffffff0u, 0x10), "wrapped: below");
	CHECK(!spec_ece_echo(0x20, 0xfffffff0u), "wrapped: above");
}

static void test_cwnd_limited(void)
{
	/* tcp_is_cwnd_limited(), slow start: cwnd-limited, or below twice
	 * the most in flight
	 */
	CHECK(spec_ss_cwnd_limited(100, true, 10), "limited");
	CHECK(spec_ss_cwnd_limited(19, false, 10), "below 2x");
	CHECK(!spec_ss_cwnd_limited(20, false, 10), "at 2x: app-limited");
	CHECK(spec_ss_cwnd_limited(0xffffffffu, false, 0x80000000u), "2x in u64");
}

static void test_pacing(void)
{
	/* tcp_update_pacing_rate(): ratio% of mss * max(cwnd, out) / srtt */
	CHECK(spec_pacing_rate(1448, 10, 0, 100000 << 3, 200) == 289600,
	      "10 x 1448 B per 100 ms, 200%%: %llu",
	      (unsigned long long)spec_pacing_rate(1448, 10, 0, 100000 << 3, 200));
	CHECK(spec_pacing_rate(1448, 10, 20, 100000 << 3, 120) == 347520,
	      "packets_out above cwnd");
	CHECK(spec_pacing_rate(1000, 3, 0, 0, 100) == 3ULL * 1000 * 8000000,
	      "no srtt yet: no division");
	CHECK(spec_pacing_rate(65535, 0xffffffffu, 0, 8, 1000) == ~0ULL,
	      "saturates");
	{
		/* against double precision over a grid */
		static const u32 mss[] = { 536, 1000, 1448, 8948, 65535 };
		static const u32 cwnd[] = { 1, 2, 10, 1036, 40000, 2000000 };
		static const u32 srtt[] = { 1, 100, 20000, 600000, 30000000 };
		u32 a, b, c, bad = 0;

		for (a = 0; a < 5; a++)
			for (b = 0; b < 6; b++)
				for (c = 0; c < 5; c++) {
					double ref = 1.2 * mss[a] * cwnd[b] / (srtt[c] / 1e6);
					double got = (double)spec_pacing_rate(mss[a], cwnd[b], 0,
									      srtt[c] << 3, 120);
					bad += got > ref + 1 || got < ref * (1 - 1e-12) - 1;
				}
		CHECK(bad == 0, "pacing vs double: %u off", bad);
	}
}

static void test_windows(void)
{
	/* "recent" windows, including u32 wrap-around of the us clock */
	CHECK(spec_within(1000, 900, 200), "inside");
	CHECK(!spec_within(1000, 800, 200), "edge is outside (half-open)");
	CHECK(!spec_within(1000, 700, 200), "outside");
	CHECK(spec_within(50, 0xffffffe0u, 200), "wrap inside");
	CHECK(!spec_within(500, 0xffffffe0u, 200), "wrap outside");
	CHECK(spec_window_us(0) == SPEC_MIN_WINDOW_US, "no srtt yet");
	CHECK(spec_window_us(100000) == 100000, "srtt");

	/* misprediction: ECE within one srtt (inclusive) after the guess */
	CHECK(spec_mispredicted(100000, 0, 100000), "exactly one srtt");
	CHECK(!spec_mispredicted(100001, 0, 100000), "just after");
	CHECK(spec_mispredicted(5, 0, 100000), "at once");
	CHECK(spec_mispredicted(10, 0xfffffff0u, 100000), "wrap");
}

int main(void)
{
	RUN(test_params);
	RUN(test_classify);
	RUN(test_decrease);
	RUN(test_prr);
	RUN(test_ece_reduces);
	RUN(test_ece_ssthresh);
	RUN(test_marked_loss_ssthresh);
	RUN(test_ece_recent);
	RUN(test_ece_echo);
	RUN(test_cwnd_limited);
	RUN(test_pacing);
	RUN(test_windows);
	return check_done("test_spec");
}

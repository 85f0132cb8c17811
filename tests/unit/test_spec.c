/* Host unit tests of kernel/include/specnet/spec.h (the SpecTCP predictor). */
#include <specnet/spec.h>
#include "check.h"

#define INF 0x7fffffffu	/* the stack's TCP_INFINITE_SSTHRESH */

int main(void)
{
	struct spec_params p = { .p_corrupt = SPEC_P_DEFAULT };
	u32 r, n_corrupt;

	/* parameter checks: 0..1000 per-mille */
	CHECK(spec_check_params(&p) == 0, "default");
	p.p_corrupt = 0;
	CHECK(spec_check_params(&p) == 0, "0");
	p.p_corrupt = 1000;
	CHECK(spec_check_params(&p) == 0, "1000");
	p.p_corrupt = 1001;
	CHECK(spec_check_params(&p) == -EINVAL, "1001");
	p.p_corrupt = 0xffffffffu;
	CHECK(spec_check_params(&p) == -EINVAL, "u32 max");

	/* a recent ECE always means congestion, whatever the draw */
	p.p_corrupt = 1000;
	for (r = 0; r < SPEC_P_UNIT; r++)
		CHECK(spec_classify(&p, true, r) == SPEC_CONG_ECE, "r=%u", r);

	/* p = 1000: always corruption; p = 0: never */
	for (r = 0; r < SPEC_P_UNIT; r++)
		CHECK(spec_classify(&p, false, r) == SPEC_CORRUPT, "p=1000 r=%u", r);
	p.p_corrupt = 0;
	for (r = 0; r < SPEC_P_UNIT; r++)
		CHECK(spec_classify(&p, false, r) == SPEC_CONG_DRAW, "p=0 r=%u", r);

	/* Bernoulli(p): exactly p of the 1000 equiprobable draws are corruption */
	for (p.p_corrupt = 0; p.p_corrupt <= SPEC_P_UNIT; p.p_corrupt += 125) {
		n_corrupt = 0;
		for (r = 0; r < SPEC_P_UNIT; r++)
			n_corrupt += spec_classify(&p, false, r) == SPEC_CORRUPT;
		CHECK(n_corrupt == p.p_corrupt, "p=%u got %u", p.p_corrupt, n_corrupt);
	}

	/* decrease: corruption keeps cwnd, congestion halves with floor 2 */
	CHECK(spec_target_ssthresh(SPEC_CORRUPT, 40) == 40, "keep");
	CHECK(spec_target_ssthresh(SPEC_CORRUPT, 1) == 2, "keep floor");
	CHECK(spec_target_ssthresh(SPEC_CONG_ECE, 40) == 20, "halve");
	CHECK(spec_target_ssthresh(SPEC_CONG_DRAW, 41) == 20, "halve odd");
	CHECK(spec_target_ssthresh(SPEC_CONG_DRAW, 3) == 2, "halve floor");
	/* the window after a corruption recovery: kept in congestion
	 * avoidance; in slow start grown from the window in use by the
	 * segments delivered, at most doubled, capped at the old ssthresh,
	 * never below the pre-loss cwnd
	 */
	CHECK(spec_cwnd_after(40, 40, 100, 30) == 40, "CA: kept");
	CHECK(spec_cwnd_after(40, 40, 100, 40) == 40, "at S: kept");
	CHECK(spec_cwnd_after(40, 40, 0, INF) == 40, "nothing delivered");
	CHECK(spec_cwnd_after(40, 40, 25, INF) == 65, "one per delivered");
	CHECK(spec_cwnd_after(40, 40, 100, INF) == 80, "at most double");
	CHECK(spec_cwnd_after(40, 40, 100, 50) == 50, "capped at S");
	CHECK(spec_cwnd_after(40, 25, 100, INF) == 50, "from the window in use");
	CHECK(spec_cwnd_after(40, 10, 100, INF) == 40, "never below cwnd");
	CHECK(spec_cwnd_after(40, 90, 100, INF) == 80, "in use above cwnd");
	CHECK(spec_cwnd_after(1, 1, 5, INF) == 2, "floor");
	CHECK(spec_cwnd_after(0x80000000u, 0x80000000u, 0xffffffffu, 0xffffffffu) ==
	      0xffffffffu, "no overflow");
	CHECK(spec_cwnd_after(0x7fffffffu, 0x7fffffffu, 0x7fffffffu, 0xffffffffu) ==
	      0xfffffffeu, "largest double");
	/* no compounding: the result depends on @used, not on a cwnd that
	 * an earlier recovery raised without it being sent
	 */
	CHECK(spec_cwnd_after(1000000, 500, 500, INF) == 1000000, "nominal kept");
	for (r = 2; r < 3000; r += 97) {
		u32 u, d, w;

		for (u = 0; u < 3000; u += 193)
			for (d = 0; d < 3000; d += 191) {
				w = spec_cwnd_after(r, u, d, 2500);
				CHECK(w >= r && (w == r || (w <= 2 * u && w <= u + d &&
							    w <= 2500)),
				      "bounds %u %u %u: %u", r, u, d, w);
			}
	}
	CHECK(spec_halve(0xffffffffu) == 0x7fffffffu, "halve max");

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

	return check_done("test_spec");
}

/* Host unit tests of kernel/include/specnet/flow_est.h (linear counting). */
#include <math.h>
#include <specnet/flow_est.h>
#include "check.h"

/* k of B bits set: k (one flow per bit) while collisions are rare */
static void test_small(void)
{
	CHECK(redopt_flows_from_bits(0, 1024) == 0, "empty");
	CHECK(redopt_flows_from_bits(1, 1024) == 1, "one flow");
	CHECK(redopt_flows_from_bits(4, 1024) == 4, "four flows");
	CHECK(redopt_flows_from_bits(5, 0) == 0, "no bitmap");
}

/* the m in force: up at once, down after FE_FALL_WINDOWS windows below
 * it, to the largest of their estimates
 */
static void test_settle(void)
{
	struct fe_hold h = { 0, 0 };
	u32 m = 2, i;

	m = redopt_fe_settle(&h, m, 4);
	CHECK(m == 4, "a rise at once: %u", m);
	CHECK(redopt_fe_settle(&h, m, 4) == 4 && !h.windows, "level");
	/* 3, 2, 3, then 2: four windows below 4 -> 3 */
	CHECK(redopt_fe_settle(&h, m, 3) == 4, "held 1");
	CHECK(redopt_fe_settle(&h, m, 2) == 4, "held 2");
	CHECK(redopt_fe_settle(&h, m, 3) == 4, "held 3");
	m = redopt_fe_settle(&h, m, 2);
	CHECK(m == 3, "the fall, to the largest estimate: %u", m);
	CHECK(!h.windows && !h.peak, "hold cleared %u %u", h.windows, h.peak);
	/* a window at m or above restarts the count */
	for (i = 0; i < FE_FALL_WINDOWS - 1; i++)
		CHECK(redopt_fe_settle(&h, m, 1) == 3, "held %u", i);
	CHECK(redopt_fe_settle(&h, m, 3) == 3 && !h.windows, "restarted");
	for (i = 0; i < FE_FALL_WINDOWS - 1; i++)
		CHECK(redopt_fe_settle(&h, m, 1) == 3, "held again %u", i);
	CHECK(redopt_fe_settle(&h, m, 1) == 1, "then the fall to 1");
	/* a rise during a hold: at once, the hold cleared */
	h = (struct fe_hold){ 0, 0 };
	CHECK(redopt_fe_settle(&h, 5, 2) == 5 && h.windows == 1, "held");
	CHECK(redopt_fe_settle(&h, 5, 8) == 8 && !h.windows && !h.peak,
	      "a rise ends the hold");
}

/* saturation: k >= B gives the largest finite estimate, not a crash */
static void test_saturation(void)
{
	/* -1024 ln(1 - 1023/1024) = 1024 10 ln 2 = 7097.83: 7098 */
	CHECK(redopt_flows_from_bits(1023, 1024) == 7098, "k = B - 1: %u",
	      redopt_flows_from_bits(1023, 1024));
	CHECK(redopt_flows_from_bits(1024, 1024) == 7098, "saturated: %u",
	      redopt_flows_from_bits(1024, 1024));
	CHECK(redopt_flows_from_bits(5000, 1024) == 7098, "over: %u",
	      redopt_flows_from_bits(5000, 1024));
}

/* every k of a few B against -B ln(1 - k / B) */
static void test_against_log(void)
{
	const u32 sizes[] = { 64, 256, 1024, 4096 };
	unsigned int s;
	u32 k;
	double worst = 0;

	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		u32 b = sizes[s], prev = 0;
		int bad = 0;

		for (k = 0; k < b; k++) {
			double ref = -(double)b * log(1.0 - (double)k / b);
			u32 got = redopt_flows_from_bits(k, b);
			double err = fabs(got - ref);

			/* rounding to the nearest integer plus < 0.03 flow */
			if (err > 0.5 + 0.03 * b / 1024.0 + 1e-9)
				bad++;
			if (err > worst && b == 1024)
				worst = err;
			if (got < prev)
				bad++;		/* monotonic in k */
			prev = got;
		}
		CHECK(!bad, "b=%u: %d estimates off the reference or not monotonic", b, bad);
	}
	CHECK(worst <= 0.53, "worst error %.3f flow at B=1024", worst);
}

/* log2 itself: exact powers of two */
static void test_log2(void)
{
	CHECK(fe_log2_q16(FE_UNIT) == 0, "log2 1");
	CHECK(fe_log2_q16(2 * FE_UNIT) == FE_UNIT, "log2 2");
	CHECK(fe_log2_q16(1024 * FE_UNIT) == 10 * FE_UNIT, "log2 1024");
}

int main(void)
{
	RUN(test_settle);
	RUN(test_small);
	RUN(test_saturation);
	RUN(test_against_log);
	RUN(test_log2);
	return check_done("test_flow_est");
}

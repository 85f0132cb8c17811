/* Host unit tests of kernel/include/specnet/hystart.h (HyStart++, RFC 9406),
 * with hand-worked values.
 */
#include <specnet/hystart.h>
#include "check.h"

/* RttThresh = clamp(last / 8, 4 ms, 16 ms) */
static void test_thresh(void)
{
	CHECK(hss_thresh_us(20000) == 4000, "20 ms: %u", hss_thresh_us(20000));
	CHECK(hss_thresh_us(64000) == 8000, "64 ms: %u", hss_thresh_us(64000));
	CHECK(hss_thresh_us(600000) == 16000, "600 ms: %u", hss_thresh_us(600000));
	CHECK(hss_thresh_us(0) == 4000, "0");
	CHECK(hss_thresh_us(~0U - 1) == 16000, "huge");
}

/* Slow start ends on a rise of at least RttThresh, with 8 samples. */
static void test_slow_start_ends(void)
{
	/* 600 ms path: 16 ms */
	CHECK(!hss_slow_start_ends(600000, HSS_INF, 615999, 8), "15.999 ms rise");
	CHECK(hss_slow_start_ends(600000, HSS_INF, 616000, 8), "16 ms rise");
	CHECK(!hss_slow_start_ends(600000, HSS_INF, 700000, 7), "7 samples");
	CHECK(hss_slow_start_ends(600000, HSS_INF, 700000, 255), "255 samples");
	/* 40 ms path: 5 ms */
	CHECK(!hss_slow_start_ends(40000, HSS_INF, 44999, 20), "40 ms + 4.999");
	CHECK(hss_slow_start_ends(40000, HSS_INF, 45000, 20), "40 ms + 5");
	/* a lower round is not a queue */
	CHECK(!hss_slow_start_ends(600000, HSS_INF, 590000, 20), "lower");
	CHECK(!hss_slow_start_ends(HSS_INF, HSS_INF, 600000, 20), "no last round");
	CHECK(!hss_slow_start_ends(600000, HSS_INF, HSS_INF, 20), "no sample yet");
	CHECK(!hss_slow_start_ends(~0U - 1, HSS_INF, ~0U - 2, 20), "no overflow");
	/* against the flow's least RTT, where that is lower: a queue that
	 * rose 10 ms a round, 60 ms over 600 in all
	 */
	CHECK(!hss_slow_start_ends(650000, 650000, 660000, 8), "10 ms a round");
	CHECK(hss_slow_start_ends(650000, 600000, 660000, 8), "60 ms over the least");
	CHECK(!hss_slow_start_ends(650000, 600000, 615999, 8), "least + 15.999");
	CHECK(hss_slow_start_ends(650000, 600000, 616000, 8), "least + 16");
	/* the threshold is the lower reference's: 40 ms + 5 */
	CHECK(!hss_slow_start_ends(64000, 40000, 44999, 8), "40 ms + 4.999");
	CHECK(hss_slow_start_ends(64000, 40000, 45000, 8), "40 ms + 5");
	/* a least above the last round's leaves the RFC's test */
	CHECK(!hss_slow_start_ends(600000, 610000, 615999, 8), "last + 15.999");
	CHECK(!hss_slow_start_ends(650000, 600000, 700000, 7), "7 samples");
	CHECK(!hss_slow_start_ends(HSS_INF, 600000, 700000, 8), "no last round");
}

/* The baseline in 64 us units: floor + 1, saturating at 4.19 s. */
static void test_base(void)
{
	CHECK(hss_base(0) == 1 && hss_base(63) == 1 && hss_base(64) == 2, "small");
	CHECK(hss_base(616000) == 9626, "616 ms: %u", hss_base(616000));
	CHECK(hss_base(4194239) == 65535 && hss_base(5000000) == 65535, "saturates");
	/* CSS resumes slow start when a round's least RTT is below it */
	CHECK(hss_css_resumes(hss_base(616000), 615900, 8), "100 us below");
	CHECK(!hss_css_resumes(hss_base(616000), 616000, 8), "at the baseline");
	CHECK(!hss_css_resumes(hss_base(616000), 620000, 8), "above");
	CHECK(!hss_css_resumes(hss_base(616000), 500000, 7), "7 samples");
	CHECK(!hss_css_resumes(hss_base(616000), HSS_INF, 8), "no sample");
}

/* CSS grows by a quarter of the segments delivered. */
static void test_css_growth(void)
{
	u32 cnt = 0, w = 1000;
	int i;

	w = hss_css_cwnd(w, &cnt, 3, ~0U);
	CHECK(w == 1000 && cnt == 3, "3 acked: %u %u", w, cnt);
	w = hss_css_cwnd(w, &cnt, 2, ~0U);
	CHECK(w == 1001 && cnt == 1, "5 acked: %u %u", w, cnt);
	/* a round of 1000 segments: x 1.25 */
	cnt = 0;
	w = 1000;
	for (i = 0; i < 1000; i++)
		w = hss_css_cwnd(w, &cnt, 1, ~0U);
	CHECK(w == 1250, "one round: %u", w);
	/* the limit (snd_cwnd_clamp) */
	cnt = 0;
	CHECK(hss_css_cwnd(1000, &cnt, 100, 1010) == 1010, "limit");
	cnt = 0;
	CHECK(hss_css_cwnd(1200, &cnt, 100, 1010) == 1200, "above the limit: kept");
}

int main(void)
{
	RUN(test_thresh);
	RUN(test_slow_start_ends);
	RUN(test_base);
	RUN(test_css_growth);
	return check_done("test_hystart");
}

/* Host unit tests of kernel/include/specnet/red_idle.h. */
#include <math.h>
#include <stdlib.h>
#include <specnet/red_idle.h>
#include "check.h"

int main(void)
{
	/* 1.5 Mbit/s, 1052-byte packets: xmit = 5610.67 us */
	u64 xq = red_idle_xmit_q16(1052, 1500000);
	u8 wlog;
	u64 idle;
	int bad = 0;

	CHECK(llabs((long long)xq - (long long)(1052.0 * 8e6 * 65536 / 1.5e6)) <= 1, "xmit %llu",
	      (unsigned long long)xq);
	CHECK(red_idle_xmit_q16(1000, 0) == 1, "no rate");
	CHECK(red_idle_decay(1 << 20, 9, 0, xq) == 1 << 20, "no idle, no decay");
	CHECK(red_idle_decay(1 << 20, 9, 5000, xq) == 1 << 20, "less than a packet time");
	/* against (1 - w)^floor(m), relative error < 1e-5 */
	for (wlog = 1; wlog <= 20; wlog++) {
		for (idle = 1000; idle < 100000000ULL; idle = idle * 3 + 7) {
			u64 m = (idle << 16) / xq;
			double ref = (double)(1 << 24) * pow(1.0 - ldexp(1.0, -wlog), (double)m);
			u64 got = red_idle_decay(1 << 24, wlog, idle, xq);

			if (fabs((double)got - ref) > 1e-5 * (1 << 24) + 1) {
				bad++;
				printf("wlog %u idle %llu m %llu got %llu ref %.1f\n", wlog,
				       (unsigned long long)idle, (unsigned long long)m,
				       (unsigned long long)got, ref);
			}
		}
	}
	CHECK(!bad, "%d decays off (1 - w)^m", bad);
	CHECK(red_idle_decay(1ULL << 31, 9, 1ULL << 50, xq) == 0, "long idle: 0");
	CHECK(red_idle_decay(1ULL << 31, 1, 1000000, 1) == 0, "huge m: 0");
	/* monotonic in idle time */
	{
		u64 prev = ~0ULL, v;

		bad = 0;
		for (idle = 0; idle < 20000000; idle += 9973) {
			v = red_idle_decay(1 << 28, 9, idle, xq);
			if (v > prev)
				bad++;
			prev = v;
		}
		CHECK(!bad, "not monotonic %d", bad);
	}
	return check_done("test_red_idle");
}

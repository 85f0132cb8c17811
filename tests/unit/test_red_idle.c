/* Host unit tests of kernel/include/specnet/red_idle.h. */
#include <math.h>
#include <stdlib.h>
#include <specnet/red_idle.h>
#include "check.h"

typedef unsigned __int128 u128;

/* 1.5 Mbit/s, 1052-byte packets: xmit = 5610.67 us */
static u64 xq;

static void test_xmit(void)
{
	xq = red_idle_xmit_q16(1052, 1500000);
	/* 1052 8e6 2^16 / 1.5e6 = 367700650.67: floor */
	CHECK(xq == 367700650, "xmit %llu", (unsigned long long)xq);
	CHECK(llabs((long long)xq - (long long)(1052.0 * 8e6 * 65536 / 1.5e6)) <= 1, "xmit %llu",
	      (unsigned long long)xq);
	CHECK(red_idle_xmit_q16(1000, 0) == 1, "no rate");
}

static void test_no_decay(void)
{
	CHECK(red_idle_decay(1 << 20, 9, 0, xq) == 1 << 20, "no idle, no decay");
	CHECK(red_idle_decay(1 << 20, 9, 5000, xq) == 1 << 20, "less than a packet time");
}

/* against (1 - w)^floor(m), relative error < 1e-5 */
static void test_against_pow(void)
{
	u64 idle;
	u8 wlog;
	int bad = 0;

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
}

static void test_long_idle(void)
{
	CHECK(red_idle_decay(1ULL << 31, 9, 1ULL << 50, xq) == 0, "long idle: 0");
	CHECK(red_idle_decay(1ULL << 31, 1, 1000000, 1) == 0, "huge m: 0");
}

/* monotonic in idle time */
static void test_monotonic(void)
{
	u64 prev = ~0ULL, v, idle;
	int bad = 0;

	for (idle = 0; idle < 20000000; idle += 9973) {
		v = red_idle_decay(1 << 28, 9, idle, xq);
		if (v > prev)
			bad++;
		prev = v;
	}
	CHECK(!bad, "not monotonic %d", bad);
}

/*
 * Averages of any size: red.h's qavg is the EWMA of qlen << Wlog; the
 * average lags, a burst can fill the queue to the limit, and qavg then
 * moves towards limit << Wlog: up to (2^32 - 1) 2^24 < 2^56 (limit u32,
 * Wlog <= 24).
 * avg r with r <= 2^31 exceeds 2^64 from avg = 2^33 on. The result must
 * be floor(avg r / 2^31) exactly, r the factor (1 - w)^m in Q31 (the
 * decay of 2^31, whose product cannot overflow), and near avg (1 - w)^m.
 */
static void test_large_avg(void)
{
	static const u64 avgs[] = {
		1ULL << 33, 1ULL << 40, 0xffffffffULL << 24, ~0ULL,
	};
	static const u8 wlogs[] = { 1, 9, 24, 31 };
	static const u64 idles[] = { 0, 5000, 5611, 20000, 1000000, 100000000 };
	unsigned int a, w, i, bad = 0, bad_ref = 0;

	/* no idle time: no decay, for the largest averages too */
	CHECK(red_idle_decay(1ULL << 33, 9, 0, xq) == 1ULL << 33, "2^33: %llu",
	      (unsigned long long)red_idle_decay(1ULL << 33, 9, 0, xq));
	CHECK(red_idle_decay(0xffffffffULL << 24, 24, 0, xq) == 0xffffffffULL << 24,
	      "limit 2^32 - 1, Wlog 24: %llu",
	      (unsigned long long)red_idle_decay(0xffffffffULL << 24, 24, 0, xq));
	CHECK(red_idle_decay(~0ULL, 31, 0, xq) == ~0ULL, "2^64 - 1: %llu",
	      (unsigned long long)red_idle_decay(~0ULL, 31, 0, xq));
	/* one packet time at Wlog 1: m = 1, halved: 2^55 - 2^23 */
	CHECK(red_idle_decay(0xffffffffULL << 24, 1, 5611, xq) == 0x7fffffff800000ULL,
	      "halved: %#llx",
	      (unsigned long long)red_idle_decay(0xffffffffULL << 24, 1, 5611, xq));
	for (a = 0; a < sizeof(avgs) / sizeof(avgs[0]); a++) {
		for (w = 0; w < sizeof(wlogs) / sizeof(wlogs[0]); w++) {
			for (i = 0; i < sizeof(idles) / sizeof(idles[0]); i++) {
				u64 r = red_idle_decay(1ULL << 31, wlogs[w], idles[i], xq);
				u64 got = red_idle_decay(avgs[a], wlogs[w], idles[i], xq);
				u64 m = (idles[i] << 16) / xq;
				double ref = (double)avgs[a] *
					     pow(1.0 - ldexp(1.0, -wlogs[w]), (double)m);

				bad += got != (u64)(((u128)avgs[a] * r) >> 31);
				bad_ref += fabs((double)got - ref) > 1e-5 * (double)avgs[a] + 1;
			}
		}
	}
	CHECK(bad == 0, "%u large averages not floor(avg r / 2^31)", bad);
	CHECK(bad_ref == 0, "%u large averages off avg (1 - w)^m", bad_ref);
}

int main(void)
{
	RUN(test_xmit);
	RUN(test_no_decay);
	RUN(test_against_pow);
	RUN(test_long_idle);
	RUN(test_monotonic);
	RUN(test_large_avg);
	return check_done("test_red_idle");
}

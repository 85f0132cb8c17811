/* Host unit tests of kernel/include/specnet/types.h: the host definitions
 * of the kernel API the algorithm headers use, against exact references.
 */
#include <stdlib.h>
#include <specnet/types.h>	/* first: the header stands alone */
#include "check.h"

typedef unsigned __int128 u128;

static u64 rnd_state = 0x9e3779b97f4a7c15ULL;

/* xorshift64*, a fixed sequence */
static u64 rnd64(void)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return rnd_state * 0x2545f4914f6cdd1dULL;
}

/* a value of a random bit length, so that small and large both occur */
static u64 rnd_bits(void)
{
	int bits = (int)(rnd64() % 65);

	return bits == 64 ? rnd64() : rnd64() & ((1ULL << bits) - 1);
}

static void test_limits(void)
{
	CHECK(U32_MAX == 0xffffffffU, "U32_MAX");
	CHECK(U64_MAX == 0xffffffffffffffffULL, "U64_MAX");
	CHECK(sizeof(U32_MAX) == 4 && sizeof(U64_MAX) == 8, "types");
	CHECK(BIT_ULL(63) == 0x8000000000000000ULL, "BIT_ULL");
}

static void test_divisions(void)
{
	u32 rem;

	CHECK(div_u64(U64_MAX, 3) == U64_MAX / 3, "div_u64");
	CHECK(div_u64_rem(1000000007ULL, 10, &rem) == 100000000 && rem == 7,
	      "div_u64_rem");
	CHECK(div64_u64(U64_MAX, 1ULL << 40) == (1ULL << 24) - 1, "div64_u64");
}

/* mul_u64_u64_shr(): floor(a b / 2^shift) at every shift */
static void test_mul_shr(void)
{
	unsigned int n, shift, bad = 0;

	for (n = 0; n < 20000; n++) {
		u64 a = rnd_bits(), b = rnd_bits();
		u128 p = (u128)a * b;

		for (shift = 0; shift < 128; shift++) {
			u128 want = p >> shift;

			if (want >> 64)
				continue;	/* the kernel's is then undefined */
			bad += mul_u64_u64_shr(a, b, shift) != (u64)want;
		}
	}
	CHECK(bad == 0, "mul_u64_u64_shr: %u wrong", bad);
	CHECK(mul_u64_u64_shr(U64_MAX, U64_MAX, 64) == U64_MAX - 1,
	      "(2^64 - 1)^2 >> 64");
	CHECK(mul_u64_u64_shr(1ULL << 62, 1ULL << 62, 62) == 1ULL << 62,
	      "1.0 * 1.0 in Q62");
}

static void test_sqrt(void)
{
	unsigned int bad = 0;
	u64 x, k;

	for (x = 0; x < 200000; x++) {
		k = int_sqrt64(x);
		bad += !(k * k <= x && (k + 1) * (k + 1) > x);
	}
	for (x = 0; x < 100000; x++) {
		k = (rnd_bits() & U32_MAX) | 1;
		bad += int_sqrt64(k * k) != k;
		bad += int_sqrt64(k * k - 1) != k - 1;
		if (k < U32_MAX)
			bad += int_sqrt64(k * k + 2 * k) != k;	/* (k + 1)^2 - 1 */
	}
	CHECK(bad == 0, "int_sqrt64: %u wrong", bad);
	CHECK(int_sqrt64(U64_MAX) == U32_MAX, "int_sqrt64(2^64 - 1)");
}

static void test_fls64(void)
{
	unsigned int i, bad = 0;

	CHECK(fls64(0) == 0, "fls64(0)");
	for (i = 0; i < 64; i++) {
		bad += fls64(1ULL << i) != (int)i + 1;
		bad += fls64((1ULL << i) | ((1ULL << i) - 1)) != (int)i + 1;
	}
	CHECK(bad == 0, "fls64: %u wrong", bad);
}

static void test_minmax(void)
{
	CHECK(min_t(u32, 3, U32_MAX) == 3 && max_t(u64, 3, U64_MAX) == U64_MAX,
	      "min_t/max_t");
	CHECK(clamp_t(s32, -5, 0, 10) == 0 && clamp_t(s32, 15, 0, 10) == 10,
	      "clamp_t");
}

int main(void)
{
	RUN(test_limits);
	RUN(test_divisions);
	RUN(test_mul_shr);
	RUN(test_sqrt);
	RUN(test_fls64);
	RUN(test_minmax);
	return check_done("test_types");
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * specnet: the types shim that lets one algorithm header compile into a
 * kernel module and into a host unit test.
 *
 * The algorithm headers under kernel/include/specnet/ use only u8/u16/u32/
 * u64/s32/s64, bool, the -E* error codes, U32_MAX/U64_MAX, BIT_ULL(),
 * min_t()/max_t()/clamp_t(), div_u64()/div_u64_rem()/div64_u64(),
 * mul_u64_u64_shr(), int_sqrt64() and fls64(); in the kernel they come from
 * <linux/...>, on the host from libc and below (the only host definitions
 * of kernel API: the algorithm headers define none of their own).
 * (checkpatch's PREFER_KERNEL_TYPES on the host typedefs is expected:
 * they are the kernel types' definitions for the host.)
 */
#ifndef _SPECNET_TYPES_H
#define _SPECNET_TYPES_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/bits.h>
#include <linux/bitops.h>
#include <linux/limits.h>
#include <linux/math.h>
#include <linux/math64.h>
#else
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <errno.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;

#define U32_MAX ((u32)~0U)
#define U64_MAX ((u64)~0ULL)

#define BIT_ULL(nr) (1ULL << (nr))
#define min_t(type, a, b) ({ type __a = (a); type __b = (b); __a < __b ? __a : __b; })
#define max_t(type, a, b) ({ type __a = (a); type __b = (b); __a > __b ? __a : __b; })
#define clamp_t(type, v, lo, hi) min_t(type, max_t(type, v, lo), hi)

/* <linux/math64.h>: 64-bit divisions (plain ones on the host) */
static inline u64 div_u64(u64 a, u32 b)
{
	return a / b;
}

static inline u64 div_u64_rem(u64 a, u32 b, u32 *rem)
{
	*rem = (u32)(a % b);
	return a / b;
}

static inline u64 div64_u64(u64 a, u64 b)
{
	return a / b;
}

/* floor(a b / 2^shift), shift < 128: the 128-bit product by 32-bit halves,
 * exact (as math64.h's generic version)
 */
static inline u64 mul_u64_u64_shr(u64 a, u64 b, unsigned int shift)
{
	u64 ll = (a & U32_MAX) * (b & U32_MAX), lh = (a & U32_MAX) * (b >> 32);
	u64 hl = (a >> 32) * (b & U32_MAX), hh = (a >> 32) * (b >> 32);
	u64 mid = (ll >> 32) + (lh & U32_MAX) + (hl & U32_MAX);	/* < 3 2^32 */
	u64 hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
	u64 lo = (ll & U32_MAX) | (mid << 32);

	if (!shift)
		return lo;
	if (shift >= 64)
		return hi >> (shift - 64);
	return (lo >> shift) | (hi << (64 - shift));
}

/* <linux/math.h>: floor(sqrt(x)), exact: digit by digit, as
 * lib/math/int_sqrt.c
 */
static inline u32 int_sqrt64(u64 x)
{
	u64 r = 0, b = 1ULL << 62;

	while (b > x)
		b >>= 2;
	while (b) {
		if (x >= r + b) {
			x -= r + b;
			r = (r >> 1) + b;
		} else {
			r >>= 1;
		}
		b >>= 2;
	}
	return (u32)r;
}

/* <linux/bitops.h>: the position of the highest bit set, 1..64; 0 for 0 */
static inline int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}
#endif /* __KERNEL__ */

#endif /* _SPECNET_TYPES_H */

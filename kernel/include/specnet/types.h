/* SPDX-License-Identifier: GPL-2.0 */
/*
 * specnet: the types shim that lets one algorithm header compile into a
 * kernel module and into a host unit test.
 *
 * The algorithm headers under kernel/include/specnet/ use only u8/u16/u32/
 * u64/s32/s64, bool, the -E* error codes, min_t()/max_t()/clamp_t() and
 * div_u64()/div_u64_rem()/div64_u64(); in the kernel they come from
 * <linux/...>, on the host from libc and below.
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
#endif /* __KERNEL__ */

#endif /* _SPECNET_TYPES_H */

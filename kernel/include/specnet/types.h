/* SPDX-License-Identifier: GPL-2.0 */
/*
 * specnet: the types shim that lets one algorithm header compile into a
 * kernel module and into a host unit test.
 *
 * The algorithm headers under kernel/include/specnet/ use only u8/u16/u32/
 * u64/s32/s64, bool, the -E* error codes, and the helpers below; in the
 * kernel they come from <linux/...>, on the host from libc.
 */
#ifndef _SPECNET_TYPES_H
#define _SPECNET_TYPES_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/minmax.h>
#else
#include <stdint.h>
#include <stdbool.h>
#include <errno.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;

#ifndef min
#define min(a, b) ((a) < (b) ? (a) : (b))
#endif
#ifndef max
#define max(a, b) ((a) > (b) ? (a) : (b))
#endif
#endif /* __KERNEL__ */

#endif /* _SPECNET_TYPES_H */

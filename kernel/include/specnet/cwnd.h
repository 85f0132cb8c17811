/* SPDX-License-Identifier: GPL-2.0 */
/*
 * specnet: the one multiplicative decrease of a window, shared by the
 * growth functions (cubic.h, CUBIC_BETA_UNIT) and the delay signal
 * (qdelay.h, its own fractions), so that every reduction rounds down and
 * stops at the same least window.
 */
#ifndef _SPECNET_CWND_H
#define _SPECNET_CWND_H

#include "types.h"

/* The least window a reduction leaves (RFC 5681's two segments). */
#define SPECNET_MIN_CWND	2

/* @cwnd x @num / @unit, rounded down, at least SPECNET_MIN_CWND. */
static inline u32 specnet_cwnd_scaled(u32 cwnd, u32 num, u32 unit)
{
	return max_t(u32, (u32)div_u64((u64)cwnd * num, unit),
		     SPECNET_MIN_CWND);
}

#endif /* _SPECNET_CWND_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * specnet: kernel API differences between the supported kernels
 * (Debian 6.1 LTS and 6.12 LTS), detected from the headers rather than from
 * LINUX_VERSION_CODE, because stable backports make version checks lie.
 *
 * kernel/compat-probe.sh greps the headers of the kernel being built and
 * passes -DSPECNET_HAVE_* flags (see Kbuild). Each shim below names the
 * kernel change it papers over.
 */
#ifndef _SPECNET_COMPAT_H
#define _SPECNET_COMPAT_H

#include <linux/random.h>
#include <linux/prandom.h>

/* v6.2 (and Debian's 6.1 by backport): prandom_u32_max() was replaced by
 * get_random_u32_below().
 */
#ifndef SPECNET_HAVE_GET_RANDOM_U32_BELOW
static inline u32 get_random_u32_below(u32 ceil)
{
	return prandom_u32_max(ceil);
}
#endif

/* v6.10: tcp_congestion_ops.cong_control() gained (ack, flag). Modules that
 * implement cong_control declare it with SPECNET_CONG_CONTROL_ARGS.
 */
#ifdef SPECNET_HAVE_CONG_CONTROL_ACK_FLAG
#define SPECNET_CONG_CONTROL_ARGS \
	struct sock *sk, u32 ack, int flag, const struct rate_sample *rs
#else
#define SPECNET_CONG_CONTROL_ARGS \
	struct sock *sk, const struct rate_sample *rs
#endif

/* v6.5: skb_gso_segment() moved from <linux/netdevice.h> to <net/gso.h>. */
#ifdef SPECNET_HAVE_NET_GSO_H
#include <net/gso.h>
#endif

#endif /* _SPECNET_COMPAT_H */

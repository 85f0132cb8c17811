/* SPDX-License-Identifier: GPL-2.0 */
/*
 * specnet: not-ECT SYNs for the ECN-requesting congestion controls.
 *
 * A congestion control with TCP_CONG_NEEDS_ECN makes its socket send ECT
 * from the SYN on. A stock Linux receiver (tcp_ecn_create_request()) then
 * refuses ECN unless its listener runs a NEEDS_ECN control too, because an
 * ECT SYN is how DCTCP asks for ECN. Our controls want ordinary RFC 3168
 * ECN with any receiver, so this LOCAL_OUT hook (per network namespace,
 * last priority) clears the ECN field of the SYNs of sockets whose control
 * belongs to the including module and needs ECN. Data and the SYN-ACK are
 * untouched.
 *
 * Included by one .c file of each module (the functions are static and
 * test THIS_MODULE): call specnet_ecn_syn_register(net) from the pernet
 * init and specnet_ecn_syn_unregister(net) from its exit.
 */
#ifndef _SPECNET_ECN_SYN_H
#define _SPECNET_ECN_SYN_H

#include <linux/module.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <net/inet_ecn.h>
#include <net/ipv6.h>
#include <net/tcp.h>

static bool specnet_is_own_syn(const struct sk_buff *skb)
{
	const struct tcp_congestion_ops *ops;
	const struct sock *sk = skb->sk;
	const struct tcphdr *th;

	if (!sk || !sk_fullsock(sk) || sk->sk_protocol != IPPROTO_TCP ||
	    sk->sk_type != SOCK_STREAM)
		return false;
	ops = READ_ONCE(inet_csk(sk)->icsk_ca_ops);
	if (!ops || ops->owner != THIS_MODULE ||
	    !(ops->flags & TCP_CONG_NEEDS_ECN))
		return false;
	th = tcp_hdr(skb);
	return th->syn && !th->ack;
}

static unsigned int specnet_syn_v4(void *priv, struct sk_buff *skb,
				   const struct nf_hook_state *state)
{
	struct iphdr *iph = ip_hdr(skb);

	if (iph->protocol == IPPROTO_TCP && INET_ECN_is_capable(iph->tos) &&
	    specnet_is_own_syn(skb) && !skb_ensure_writable(skb, sizeof(*iph)))
		ipv4_change_dsfield(ip_hdr(skb), (u8)~INET_ECN_MASK, 0);
	return NF_ACCEPT;
}

#if IS_ENABLED(CONFIG_IPV6)
static unsigned int specnet_syn_v6(void *priv, struct sk_buff *skb,
				   const struct nf_hook_state *state)
{
	struct ipv6hdr *ip6h = ipv6_hdr(skb);

	if (ip6h->nexthdr == IPPROTO_TCP &&
	    INET_ECN_is_capable(ipv6_get_dsfield(ip6h)) &&
	    specnet_is_own_syn(skb) && !skb_ensure_writable(skb, sizeof(*ip6h)))
		ipv6_change_dsfield(ipv6_hdr(skb), (u8)~INET_ECN_MASK, 0);
	return NF_ACCEPT;
}
#endif

static const struct nf_hook_ops specnet_syn_ops[] = {
	{
		.hook		= specnet_syn_v4,
		.pf		= NFPROTO_IPV4,
		.hooknum	= NF_INET_LOCAL_OUT,
		.priority	= NF_IP_PRI_LAST,
	},
#if IS_ENABLED(CONFIG_IPV6)
	{
		.hook		= specnet_syn_v6,
		.pf		= NFPROTO_IPV6,
		.hooknum	= NF_INET_LOCAL_OUT,
		.priority	= NF_IP6_PRI_LAST,
	},
#endif
};

static inline int specnet_ecn_syn_register(struct net *net)
{
	return nf_register_net_hooks(net, specnet_syn_ops,
				     ARRAY_SIZE(specnet_syn_ops));
}

static inline void specnet_ecn_syn_unregister(struct net *net)
{
	nf_unregister_net_hooks(net, specnet_syn_ops,
				ARRAY_SIZE(specnet_syn_ops));
}

#endif /* _SPECNET_ECN_SYN_H */

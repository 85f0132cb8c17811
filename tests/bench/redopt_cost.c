// SPDX-License-Identifier: GPL-2.0
/*
 * Cost of sch_redopt's enqueue per packet, for tests/bench/redopt_cost.sh,
 * which runs this under callgrind and counts the instructions executed
 * inside one function only (--toggle-collect), its callees included.
 *
 *   redopt_cost fixed|auto|red|window COUNT
 *
 * fixed:  bench_redopt(): redopt_enqueue() for one packet, flows 4, ecn
 *         (RED's average with the exact idle decay of red_idle.h, RED's
 *         decision, the CE mark or the drop, the tail enqueue);
 * auto:   the same in adaptive mode (flows auto): the flow estimator's
 *         hash of the packet's flow and its bit as well. The thresholds
 *         stay those of 4 flows (the window timer only clears the
 *         bitmap), so the packet stream and RED's decisions are the same
 *         as in fixed and the difference is the estimator's;
 * red:    bench_red(): for reference, the kernel's sch_red in the same
 *         place (red_enqueue() with ecn, its bfifo child, the same
 *         thresholds in bytes, tc's idle table);
 * window: bench_window_end(): the estimator's window end (the timer, every
 *         500 ms, under the qdisc lock): the count of the bits, the
 *         estimate (flow_est.h) and, when the estimate differs from the
 *         m in force, redopt_recompute(): the model (red_model.h) run again
 *         and applied.
 *
 * COUNT is the number of packets enqueued. What runs is the shared code of
 * kernel/include/specnet/: red_idle.h per packet (the idle decay), and
 * flow_est.h, redopt_cfg.h and red_model.h at a window's end. The rest of
 * the enqueue path is kernel code, replicated here as in 6.1 and 6.12:
 *  - sch_redopt.c's glue (redopt_enqueue(), redopt_enqueue_one(),
 *    redopt_fe_mark(), redopt_fe_window_end(), redopt_apply()): static
 *    functions of the module on kernel types, copied;
 *  - <net/red.h> (red_calc_qavg*(), red_action(), red_set_parms()),
 *    lib/math/reciprocal_div.c, <net/inet_ecn.h>'s INET_ECN_set_ce() for
 *    IPv4, <net/sch_generic.h>'s tail enqueue and drop, net/sched/
 *    sch_red.c's red_enqueue() and sch_fifo.c's bfifo_enqueue();
 *  - skb_get_hash_perturb(): __flow_hash_from_keys() (the symmetric order
 *    of the keys, siphash of struct flow_keys from `basic` to the IPv4
 *    addresses, 48 bytes, lib/siphash.c's __siphash_unaligned()) on keys
 *    filled from the IPv4 and TCP headers. The kernel's flow dissector
 *    (__skb_flow_dissect(), a generic walk of the headers) is NOT
 *    replicated: reading the fields stands in for it, so the estimator's
 *    count is a lower bound;
 *  - the clock: ktime_get() (a TSC read in the kernel, tens of
 *    instructions) is a load of the workload's clock here, in every
 *    variant; get_random_u32() (a batched ChaCha in the kernel) is an
 *    xorshift.
 *
 * The workload: a 10 Mbit/s bottleneck (a packet leaves every 800 us, the
 * queue's head when the link is free), a 20 ms base RTT and four TCP
 * senders of 1000-byte packets, ACK-clocked (slow start, then one packet
 * more per RTT; a CE echo or a drop halves the window once an RTT), three
 * ECN-capable and one not. The senders go on and off: sender i sends
 * during [0.4 i, 0.4 i + 3.5) s of every 5 s, each on period a new
 * connection (10 packets, slow start without a threshold). So the average
 * crosses min_th and max_th, RED marks and drops, the queue overflows
 * after slow starts, and it goes idle, between packets at low load and
 * for 300 ms when every sender is off. An interactive flow adds a
 * 100-byte packet every 20 ms (not ECN-capable; below avpkt / 2, so the
 * estimator does not count it). The qdisc is the one of "bandwidth
 * 10mbit rtt 20ms flows 4 ssthresh 40 min 10 probability 0.05 ecn"
 * (flows auto for auto and window). Deterministic: each variant sees the
 * same stream whatever the machine. Built with -O2 like the kernel.
 *
 * stdout (uncounted): the workload's mix, for redopt_cost.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <specnet/red_model.h>
#include <specnet/redopt_cfg.h>
#include <specnet/flow_est.h>
#include <specnet/red_idle.h>

#define LINK_BPS	10000000ULL	/* bottleneck, bit/s */
#define NS_PER_BYTE	(8000000000ULL / LINK_BPS)	/* 800 ns */
#define RTT_NS		20000000ULL	/* base RTT */
#define DATA_LEN	1000U
#define SMALL_LEN	100U
#define SMALL_GAP_NS	20000000ULL	/* the interactive flow's period */
#define ACCESS_NS	80000ULL	/* a sender's access link: 100 Mbit/s */
#define NFLOWS		4		/* TCP senders; the last is not ECN-capable */
#define CYCLE_NS	5000000000ULL	/* on/off cycle */
#define ON_NS		3500000000ULL	/* on part of it */
#define STAGGER_NS	400000000ULL	/* flow i starts 0.4 i s into the cycle */
#define RESTART_NS	200000000ULL	/* idle past this: a new connection */
#define IW		10U
#define SSTHRESH	40U		/* the qdisc's ssthresh */
#define SS_NONE		0x7fffffffU	/* a new connection's ssthresh */
#define LOSS_NS		(RTT_NS + 5000000ULL)	/* a drop is seen an RTT later */
#define WINDOW_NS	500000000ULL	/* estimator window: max(4 RTT, 500 ms) */
#define RING		4096U		/* ACKs / losses in flight, > sum of cwnd */
#define POOL		4096U		/* packets */
#define NEVER		(~0ULL)

/* ---- the kernel's types, as much as the enqueue path reads ------------- */

#define ETH_P_IP	0x0800
#define ETH_P_8021Q	0x8100
#define ETH_P_8021AD	0x88A8
#define INET_ECN_MASK	3
#define INET_ECN_CE	3
#define NET_XMIT_SUCCESS 0x00
#define NET_XMIT_DROP	0x01
#define NET_XMIT_CN	0x02
#define TC_RED_ECN	1
#define TC_RED_HARDDROP	2
#define TC_RED_NODROP	8
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))
#define READ_ONCE(x)	(*(const volatile __typeof__(x) *)&(x))
#define BITS_PER_LONG	64
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define cpu_to_be16(x)	((u16)((((x) & 0xff) << 8) | (((x) >> 8) & 0xff)))
#else
#define cpu_to_be16(x)	((u16)(x))
#endif

typedef s64 ktime_t;

struct iphdr_ {			/* struct iphdr, the fields read */
	u8 ihl_version, tos;
	u16 tot_len, id, frag_off;
	u8 ttl, protocol;
	u16 check;
	u32 saddr, daddr;
};

struct pkt {			/* the part of struct sk_buff enqueue reads */
	struct pkt *next;
	u32 pkt_len;		/* qdisc_skb_cb(skb)->pkt_len */
	u16 protocol;		/* skb->protocol, network order */
	u16 network_header, tail;	/* offsets into data[] */
	u16 gso_size;		/* skb_shinfo(skb)->gso_size */
	u8 flow;		/* workload: sender, NFLOWS = the interactive one */
	u8 data[64];		/* IPv4 header, then the ports */
};

struct qdisc {			/* struct Qdisc, the fields read */
	int (*enqueue)(struct pkt *skb, struct qdisc *sch, struct pkt **to_free);
	struct pkt *head, *tail;	/* sch->q */
	u32 qlen;			/* sch->q.qlen */
	u32 backlog, drops, overlimits;	/* sch->qstats */
	u32 limit;
	u64 privdata[] __attribute__((aligned(64)));
};

static inline void *qdisc_priv(struct qdisc *sch)
{
	return sch->privdata;
}

/* <net/sch_generic.h> */
static inline u32 qdisc_pkt_len(const struct pkt *skb)
{
	return skb->pkt_len;
}

static inline int qdisc_enqueue_tail(struct pkt *skb, struct qdisc *sch)
{
	struct pkt *last = sch->tail;

	if (last) {
		skb->next = NULL;
		last->next = skb;
		sch->tail = skb;
	} else {
		sch->tail = skb;
		sch->head = skb;
	}
	sch->qlen++;
	sch->backlog += qdisc_pkt_len(skb);
	return NET_XMIT_SUCCESS;
}

static inline int qdisc_drop(struct pkt *skb, struct qdisc *sch, struct pkt **to_free)
{
	skb->next = *to_free;
	*to_free = skb;
	sch->drops++;
	return NET_XMIT_DROP;
}

static inline struct pkt *qdisc_dequeue_head(struct qdisc *sch)
{
	struct pkt *skb = sch->head;

	if (skb) {
		sch->head = skb->next;
		skb->next = NULL;
		if (!sch->head)
			sch->tail = NULL;
		sch->qlen--;
		sch->backlog -= qdisc_pkt_len(skb);
	}
	return skb;
}

/* The clock: the workload's (ktime_get() reads the TSC in the kernel). */
static ktime_t sim_now;

static inline ktime_t ktime_get(void)
{
	return sim_now;
}

static inline s64 ktime_us_delta(ktime_t later, ktime_t earlier)
{
	return (later - earlier) / 1000;
}

/* get_random_u32(): an xorshift here */
static u64 rng = 0x9e3779b97f4a7c15ULL;

static inline u32 get_random_u32(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (u32)((rng * 0x2545f4914f6cdd1dULL) >> 32);
}

/* <linux/reciprocal_div.h>, lib/math/reciprocal_div.c */
struct reciprocal_value {
	u32 m;
	u8 sh1, sh2;
};

static struct reciprocal_value reciprocal_value(u32 d)
{
	struct reciprocal_value R;
	u64 m;
	int l;

	l = fls64(d - 1);
	m = ((1ULL << 32) * ((1ULL << l) - d));
	m /= d;
	++m;
	R.m = (u32)m;
	R.sh1 = (u8)min_t(int, l, 1);
	R.sh2 = (u8)max_t(int, l - 1, 0);
	return R;
}

static inline u32 reciprocal_divide(u32 a, struct reciprocal_value R)
{
	u32 t = (u32)(((u64)a * R.m) >> 32);

	return (t + ((a - t) >> R.sh1)) >> R.sh2;
}

/* <net/inet_ecn.h>: INET_ECN_set_ce() for IPv4 */
static inline u16 csum16_add(u16 csum, u16 addend)
{
	u16 res = csum;

	res += addend;
	return (u16)(res + (res < addend));
}

static inline int IP_ECN_set_ce(struct iphdr_ *iph)
{
	u32 ecn = (iph->tos + 1) & INET_ECN_MASK;
	u16 check_add;

	if (!(ecn & 2))
		return !ecn;
	check_add = (u16)(cpu_to_be16(0xFFFB) + cpu_to_be16(ecn));
	iph->check = csum16_add(iph->check, check_add);
	iph->tos |= INET_ECN_CE;
	return 1;
}

static inline u16 skb_protocol(const struct pkt *skb)
{
	u16 type = skb->protocol;

	/* vlan_get_protocol(): the walk of the tags is not replicated (no
	 * VLAN tag in this workload)
	 */
	if (type == cpu_to_be16(ETH_P_8021Q) || type == cpu_to_be16(ETH_P_8021AD))
		return 0;
	return type;
}

static inline int INET_ECN_set_ce(struct pkt *skb)
{
	switch (skb_protocol(skb)) {
	case cpu_to_be16(ETH_P_IP):
		if (skb->network_header + sizeof(struct iphdr_) <= skb->tail)
			return IP_ECN_set_ce((struct iphdr_ *)(skb->data +
							       skb->network_header));
		break;
	}
	return 0;
}

/* ---- <net/red.h> -------------------------------------------------------- */

#define RED_STAB_SIZE	256
#define RED_STAB_MASK	(RED_STAB_SIZE - 1)

struct red_stats {
	u32 prob_drop, prob_mark, forced_drop, forced_mark, pdrop;
};

struct red_parms {
	u32 qth_min, qth_max, Scell_max, max_P;
	struct reciprocal_value max_P_reciprocal;
	u32 qth_delta, target_min, target_max;
	u8 Scell_log, Wlog, Plog;
	u8 Stab[RED_STAB_SIZE];
};

struct red_vars {
	int qcount;
	u32 qR;
	unsigned long qavg;
	ktime_t qidlestart;
};

static inline u32 red_maxp(u8 Plog)
{
	return Plog < 32 ? (~0U >> Plog) : ~0U;
}

static inline void red_set_vars(struct red_vars *v)
{
	v->qavg = 0;
	v->qcount = -1;
}

static inline void red_set_parms(struct red_parms *p, u32 qth_min, u32 qth_max,
				 u8 Wlog, u8 Plog, u8 Scell_log, u8 *stab, u32 max_P)
{
	int delta = (int)(qth_max - qth_min);
	u32 max_p_delta;

	WRITE_ONCE(p->qth_min, qth_min << Wlog);
	WRITE_ONCE(p->qth_max, qth_max << Wlog);
	WRITE_ONCE(p->Wlog, Wlog);
	WRITE_ONCE(p->Plog, Plog);
	if (delta <= 0)
		delta = 1;
	p->qth_delta = (u32)delta;
	if (!max_P) {
		max_P = red_maxp(Plog);
		max_P *= (u32)delta;
	}
	WRITE_ONCE(p->max_P, max_P);
	max_p_delta = max_P / (u32)delta;
	max_p_delta = max_t(u32, max_p_delta, 1U);
	p->max_P_reciprocal = reciprocal_value(max_p_delta);
	delta /= 5;
	p->target_min = qth_min + 2 * (u32)delta;
	p->target_max = qth_min + 3 * (u32)delta;
	WRITE_ONCE(p->Scell_log, Scell_log);
	p->Scell_max = (255U << Scell_log);
	if (stab)
		memcpy(p->Stab, stab, sizeof(p->Stab));
}

static inline int red_is_idling(const struct red_vars *v)
{
	return v->qidlestart != 0;
}

static inline void red_start_of_idle_period(struct red_vars *v)
{
	v->qidlestart = ktime_get();
}

static inline void red_end_of_idle_period(struct red_vars *v)
{
	v->qidlestart = 0;
}

static inline unsigned long red_calc_qavg_from_idle_time(const struct red_parms *p,
							 const struct red_vars *v)
{
	s64 delta = ktime_us_delta(ktime_get(), v->qidlestart);
	long us_idle = min_t(s64, delta, p->Scell_max);
	int shift;

	shift = p->Stab[(us_idle >> p->Scell_log) & RED_STAB_MASK];
	if (shift)
		return v->qavg >> shift;
	us_idle = (long)((v->qavg * (u64)us_idle) >> p->Scell_log);
	if ((unsigned long)us_idle < (v->qavg >> 1))
		return v->qavg - (unsigned long)us_idle;
	return v->qavg >> 1;
}

static inline unsigned long red_calc_qavg_no_idle_time(const struct red_parms *p,
						       const struct red_vars *v,
						       unsigned int backlog)
{
	return v->qavg + (backlog - (v->qavg >> p->Wlog));
}

static inline unsigned long red_calc_qavg(const struct red_parms *p,
					  const struct red_vars *v,
					  unsigned int backlog)
{
	if (!red_is_idling(v))
		return red_calc_qavg_no_idle_time(p, v, backlog);
	return red_calc_qavg_from_idle_time(p, v);
}

static inline u32 red_random(const struct red_parms *p)
{
	return reciprocal_divide(get_random_u32(), p->max_P_reciprocal);
}

static inline int red_mark_probability(const struct red_parms *p,
				       const struct red_vars *v, unsigned long qavg)
{
	return !(((qavg - p->qth_min) >> p->Wlog) * v->qcount < v->qR);
}

enum { RED_BELOW_MIN_THRESH, RED_BETWEEN_TRESH, RED_ABOVE_MAX_TRESH };
enum { RED_DONT_MARK, RED_PROB_MARK, RED_HARD_MARK };

static inline int red_cmp_thresh(const struct red_parms *p, unsigned long qavg)
{
	if (qavg < p->qth_min)
		return RED_BELOW_MIN_THRESH;
	else if (qavg >= p->qth_max)
		return RED_ABOVE_MAX_TRESH;
	else
		return RED_BETWEEN_TRESH;
}

static inline int red_action(const struct red_parms *p, struct red_vars *v,
			     unsigned long qavg)
{
	switch (red_cmp_thresh(p, qavg)) {
	case RED_BELOW_MIN_THRESH:
		v->qcount = -1;
		return RED_DONT_MARK;
	case RED_BETWEEN_TRESH:
		if (++v->qcount) {
			if (red_mark_probability(p, v, qavg)) {
				v->qcount = 0;
				v->qR = red_random(p);
				return RED_PROB_MARK;
			}
		} else {
			v->qR = red_random(p);
		}
		return RED_DONT_MARK;
	case RED_ABOVE_MAX_TRESH:
		v->qcount = -1;
		return RED_HARD_MARK;
	}
	abort();	/* BUG() */
}

/* ---- skb_get_hash_perturb() without the dissector ------------------------ */

typedef struct {
	u64 key[2];
} siphash_key_t;

struct flow_keys {		/* <net/flow_dissector.h>, IPv4 */
	struct {
		u16 thoff;
		u16 addr_type;
		u32 flags;
	} control;
	struct {		/* FLOW_KEYS_HASH_START_FIELD */
		u16 n_proto;
		u8 ip_proto;
		u8 padding;
	} basic __attribute__((aligned(8)));
	u32 flow_label;		/* tags */
	struct {
		u16 vlan_tci, vlan_tpid, vlan_eth_type, padding;
	} vlan, cvlan;
	u32 keyid;
	struct {
		u16 src, dst;
	} ports;
	struct {
		u8 type, code;
		u16 id;
	} icmp;
	union {
		struct {
			u32 src, dst;
		} v4addrs;
		u32 v6addrs[8];
		u32 tipckey;
	} addrs;
};

#define FLOW_DISSECTOR_KEY_IPV4_ADDRS	3
#define FLOW_KEYS_HASH_OFFSET		offsetof(struct flow_keys, basic)

static inline u64 rol64(u64 w, unsigned int s)
{
	return (w << s) | (w >> (64 - s));
}

#define SIPROUND \
	(v0 += v1, v1 = rol64(v1, 13), v1 ^= v0, v0 = rol64(v0, 32), \
	 v2 += v3, v3 = rol64(v3, 16), v3 ^= v2, \
	 v0 += v3, v3 = rol64(v3, 21), v3 ^= v0, \
	 v2 += v1, v1 = rol64(v1, 17), v1 ^= v2, v2 = rol64(v2, 32))

/* lib/siphash.c's __siphash_unaligned() (x86-64: efficient unaligned
 * access, word-at-a-time tail)
 */
static __attribute__((noinline)) u64 siphash(const void *data, size_t len,
					     const siphash_key_t *key)
{
	const u8 *p = data, *end = p + len - (len % sizeof(u64));
	const u8 left = len & (sizeof(u64) - 1);
	u64 v0 = 0x736f6d6570736575ULL ^ key->key[0];
	u64 v1 = 0x646f72616e646f6dULL ^ key->key[1];
	u64 v2 = 0x6c7967656e657261ULL ^ key->key[0];
	u64 v3 = 0x7465646279746573ULL ^ key->key[1];
	u64 b = ((u64)len) << 56, m;

	for (; p != end; p += sizeof(u64)) {
		memcpy(&m, p, sizeof(m));
		v3 ^= m;
		SIPROUND;
		SIPROUND;
		v0 ^= m;
	}
	if (left) {
		m = 0;
		memcpy(&m, p, left);
		b |= m;
	}
	v3 ^= b;
	SIPROUND;
	SIPROUND;
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	return (v0 ^ v1) ^ (v2 ^ v3);
}

static inline size_t flow_keys_hash_length(const struct flow_keys *flow)
{
	size_t diff = FLOW_KEYS_HASH_OFFSET + sizeof(flow->addrs);

	if (flow->control.addr_type == FLOW_DISSECTOR_KEY_IPV4_ADDRS)
		diff -= sizeof(flow->addrs.v4addrs);
	return sizeof(*flow) - diff;
}

static inline void __flow_hash_consistentify(struct flow_keys *keys)
{
	if (keys->control.addr_type == FLOW_DISSECTOR_KEY_IPV4_ADDRS) {
		if (keys->addrs.v4addrs.dst < keys->addrs.v4addrs.src) {
			u32 t = keys->addrs.v4addrs.src;

			keys->addrs.v4addrs.src = keys->addrs.v4addrs.dst;
			keys->addrs.v4addrs.dst = t;
		}
		if (keys->ports.dst < keys->ports.src) {
			u16 t = keys->ports.src;

			keys->ports.src = keys->ports.dst;
			keys->ports.dst = t;
		}
	}
}

/* net/core/flow_dissector.c: ___skb_get_hash() with the keys read straight
 * from the IPv4 and TCP headers in place of __skb_flow_dissect()
 */
static __attribute__((noinline)) u32 skb_get_hash_perturb(const struct pkt *skb,
							  const siphash_key_t *perturb)
{
	const struct iphdr_ *iph = (const void *)(skb->data + skb->network_header);
	struct flow_keys keys;
	u32 hash;

	memset(&keys, 0, sizeof(keys));
	/* the dissector's result for an unfragmented IPv4 TCP packet */
	keys.basic.n_proto = skb->protocol;
	keys.basic.ip_proto = iph->protocol;
	keys.control.addr_type = FLOW_DISSECTOR_KEY_IPV4_ADDRS;
	keys.control.thoff = (u16)(skb->network_header + (iph->ihl_version & 15) * 4);
	keys.addrs.v4addrs.src = iph->saddr;
	keys.addrs.v4addrs.dst = iph->daddr;
	memcpy(&keys.ports, skb->data + keys.control.thoff, sizeof(keys.ports));
	/* __flow_hash_from_keys() */
	__flow_hash_consistentify(&keys);
	hash = (u32)siphash(&keys.basic, flow_keys_hash_length(&keys), perturb);
	return hash ? hash : 1;
}

/* ---- sch_redopt.c --------------------------------------------------------- */

#define REDOPT_FE_BITS	1024

struct redopt_sched_data {
	struct redopt_cfg cfg;
	struct redopt_model model;
	u32 flows_in_force;
	u64 xmit_q16;
	u32 limit;
	struct red_parms parms;
	struct red_vars vars;
	struct redopt_counters stats;
	struct qdisc *sch;
	u32 fe_est;
	struct fe_hold fe_hold;
	siphash_key_t fe_key;
	unsigned long fe_bits[REDOPT_FE_BITS / BITS_PER_LONG];
};

static void redopt_apply(struct redopt_sched_data *q, const struct redopt_model *m,
			 u32 flows)
{
	const struct redopt_cfg *c = &q->cfg;

	q->model = *m;
	WRITE_ONCE(q->flows_in_force, flows);
	WRITE_ONCE(q->limit, m->limit);
	red_set_parms(&q->parms, m->qth_min, m->qth_max, c->wlog, 0, 0, NULL,
		      c->max_p);
}

static void redopt_fe_mark(struct redopt_sched_data *q, struct pkt *skb)
{
	if (qdisc_pkt_len(skb) >= q->cfg.avpkt / 2) {
		u32 bit = skb_get_hash_perturb(skb, &q->fe_key) % REDOPT_FE_BITS;

		q->fe_bits[bit / BITS_PER_LONG] |= 1UL << (bit % BITS_PER_LONG);
	}
}

/* The model's run and its application, as in redopt_fe_window_end() (a
 * function of its own here only so that its share can be counted).
 */
__attribute__((noinline)) void redopt_recompute(struct redopt_sched_data *q, u32 est)
{
	struct redopt_model_params p;
	struct redopt_model m;

	redopt_params(&q->cfg, est, true, &p);
	if (redopt_model_compute(&p, &m, NULL))
		return;
	redopt_apply(q, &m, est);
	WRITE_ONCE(q->stats.recomputes, q->stats.recomputes + 1);
}

/* redopt_fe_window_end(): bitmap_weight() (a popcount per word), then
 * bitmap_zero()
 */
__attribute__((noinline)) void bench_window_end(struct redopt_sched_data *q)
{
	u32 bits = 0, est;
	unsigned int i;

	for (i = 0; i < REDOPT_FE_BITS / BITS_PER_LONG; i++)
		bits += (u32)__builtin_popcountl(q->fe_bits[i]);
	memset(q->fe_bits, 0, sizeof(q->fe_bits));
	est = redopt_flows_from_bits(bits, REDOPT_FE_BITS);
	est = clamp_t(u32, est, 1, TC_REDOPT_MAX_FLOWS);
	WRITE_ONCE(q->fe_est, est);
	est = redopt_fe_settle(&q->fe_hold, q->flows_in_force, est);
	if (est == q->flows_in_force)
		return;
	redopt_recompute(q, est);
}

static int redopt_enqueue_one(struct pkt *skb, struct qdisc *sch, struct pkt **to_free)
{
	struct redopt_sched_data *q = qdisc_priv(sch);

	if (red_is_idling(&q->vars)) {
		s64 idle = ktime_us_delta(ktime_get(), q->vars.qidlestart);

		q->vars.qavg = red_idle_decay(q->vars.qavg, q->parms.Wlog,
					      (u64)max_t(s64, idle, 0), q->xmit_q16);
		red_end_of_idle_period(&q->vars);
	}
	q->vars.qavg = red_calc_qavg_no_idle_time(&q->parms, &q->vars, sch->qlen);

	switch (red_action(&q->parms, &q->vars, q->vars.qavg)) {
	case RED_DONT_MARK:
		break;
	case RED_PROB_MARK:
		sch->overlimits++;
		if ((q->cfg.flags & TC_REDOPT_ECN) && INET_ECN_set_ce(skb)) {
			WRITE_ONCE(q->stats.marked, q->stats.marked + 1);
			break;
		}
		WRITE_ONCE(q->stats.early, q->stats.early + 1);
		goto congestion_drop;
	case RED_HARD_MARK:
		sch->overlimits++;
		if ((q->cfg.flags & (TC_REDOPT_ECN | TC_REDOPT_HARDDROP)) ==
		    TC_REDOPT_ECN && INET_ECN_set_ce(skb)) {
			WRITE_ONCE(q->stats.forced_mark, q->stats.forced_mark + 1);
			break;
		}
		WRITE_ONCE(q->stats.forced, q->stats.forced + 1);
		goto congestion_drop;
	}

	if (likely(sch->qlen < READ_ONCE(q->limit)))
		return qdisc_enqueue_tail(skb, sch);

	WRITE_ONCE(q->stats.overflow, q->stats.overflow + 1);
	return qdisc_drop(skb, sch, to_free);

congestion_drop:
	if (!sch->qlen)
		red_start_of_idle_period(&q->vars);
	qdisc_drop(skb, sch, to_free);
	return NET_XMIT_CN;
}

/* redopt_enqueue_gso(): segmentation (skb_gso_segment()) is not
 * replicated; the workload has no GSO packet (a forwarded stream)
 */
static __attribute__((noinline)) int redopt_enqueue_gso(struct pkt *skb, struct qdisc *sch,
							struct pkt **to_free)
{
	return qdisc_drop(skb, sch, to_free);
}

/* redopt_enqueue() */
__attribute__((noinline)) int bench_redopt(struct pkt *skb, struct qdisc *sch,
					   struct pkt **to_free)
{
	struct redopt_sched_data *q = qdisc_priv(sch);

	if (redopt_adaptive(&q->cfg))
		redopt_fe_mark(q, skb);
	if (skb->gso_size)	/* skb_is_gso() */
		return redopt_enqueue_gso(skb, sch, to_free);
	return redopt_enqueue_one(skb, sch, to_free);
}

/* redopt_dequeue() (uncounted) */
static struct pkt *redopt_dequeue(struct qdisc *sch)
{
	struct redopt_sched_data *q = qdisc_priv(sch);
	struct pkt *skb = qdisc_dequeue_head(sch);

	if (!sch->qlen && !red_is_idling(&q->vars))
		red_start_of_idle_period(&q->vars);
	return skb;
}

/* ---- net/sched/sch_red.c, for reference ------------------------------------ */

struct tcf_qevent {
	u32 block_index;
};

struct red_sched_data {
	u32 limit;
	unsigned char flags, userbits;
	struct red_parms parms;
	struct red_vars vars;
	struct red_stats stats;
	struct qdisc *qdisc;
	struct tcf_qevent qe_early_drop, qe_mark;
};

/* net/sched/cls_api.c: no block bound to the qevent */
static __attribute__((noinline)) struct pkt *tcf_qevent_handle(struct tcf_qevent *qe,
							       struct qdisc *sch,
							       struct pkt *skb,
							       struct pkt **to_free,
							       int *ret)
{
	if (!qe->block_index)
		return skb;
	/* the block's filters: none in this workload; as a TC_ACT_SHOT */
	qdisc_drop(skb, sch, to_free);
	*ret = NET_XMIT_DROP;
	return NULL;
}

/* net/sched/sch_fifo.c, the default child */
static int bfifo_enqueue(struct pkt *skb, struct qdisc *sch, struct pkt **to_free)
{
	if (likely((u64)sch->backlog + qdisc_pkt_len(skb) <= READ_ONCE(sch->limit)))
		return qdisc_enqueue_tail(skb, sch);
	return qdisc_drop(skb, sch, to_free);
}

static inline int red_use_ecn(struct red_sched_data *q)
{
	return q->flags & TC_RED_ECN;
}

static inline int red_use_harddrop(struct red_sched_data *q)
{
	return q->flags & TC_RED_HARDDROP;
}

static int red_use_nodrop(struct red_sched_data *q)
{
	return q->flags & TC_RED_NODROP;
}

/* red_enqueue() */
__attribute__((noinline)) int bench_red(struct pkt *skb, struct qdisc *sch,
					struct pkt **to_free)
{
	struct red_sched_data *q = qdisc_priv(sch);
	struct qdisc *child = q->qdisc;
	unsigned int len;
	int ret;

	q->vars.qavg = red_calc_qavg(&q->parms, &q->vars, child->backlog);
	if (red_is_idling(&q->vars))
		red_end_of_idle_period(&q->vars);

	switch (red_action(&q->parms, &q->vars, q->vars.qavg)) {
	case RED_DONT_MARK:
		break;
	case RED_PROB_MARK:
		sch->overlimits++;
		if (!red_use_ecn(q)) {
			WRITE_ONCE(q->stats.prob_drop, q->stats.prob_drop + 1);
			goto congestion_drop;
		}
		if (INET_ECN_set_ce(skb)) {
			WRITE_ONCE(q->stats.prob_mark, q->stats.prob_mark + 1);
			skb = tcf_qevent_handle(&q->qe_mark, sch, skb, to_free, &ret);
			if (!skb)
				return NET_XMIT_CN | ret;
		} else if (!red_use_nodrop(q)) {
			WRITE_ONCE(q->stats.prob_drop, q->stats.prob_drop + 1);
			goto congestion_drop;
		}
		break;
	case RED_HARD_MARK:
		sch->overlimits++;
		if (red_use_harddrop(q) || !red_use_ecn(q)) {
			WRITE_ONCE(q->stats.forced_drop, q->stats.forced_drop + 1);
			goto congestion_drop;
		}
		if (INET_ECN_set_ce(skb)) {
			WRITE_ONCE(q->stats.forced_mark, q->stats.forced_mark + 1);
			skb = tcf_qevent_handle(&q->qe_mark, sch, skb, to_free, &ret);
			if (!skb)
				return NET_XMIT_CN | ret;
		} else if (!red_use_nodrop(q)) {
			WRITE_ONCE(q->stats.forced_drop, q->stats.forced_drop + 1);
			goto congestion_drop;
		}
		break;
	}

	len = qdisc_pkt_len(skb);
	ret = child->enqueue(skb, child, to_free);	/* qdisc_enqueue() */
	if (likely(ret == NET_XMIT_SUCCESS)) {
		sch->backlog += len;
		sch->qlen++;
	} else if (ret != NET_XMIT_CN) {		/* net_xmit_drop_count() */
		WRITE_ONCE(q->stats.pdrop, q->stats.pdrop + 1);
		sch->drops++;
	}
	return ret;

congestion_drop:
	skb = tcf_qevent_handle(&q->qe_early_drop, sch, skb, to_free, &ret);
	if (!skb)
		return NET_XMIT_CN | ret;
	qdisc_drop(skb, sch, to_free);
	return NET_XMIT_CN;
}

/* red_dequeue() (uncounted); the root asks again once the child is empty */
static struct pkt *red_dequeue(struct qdisc *sch)
{
	struct red_sched_data *q = qdisc_priv(sch);
	struct pkt *skb = qdisc_dequeue_head(q->qdisc);

	if (skb) {
		sch->backlog -= qdisc_pkt_len(skb);
		sch->qlen--;
	}
	if (!q->qdisc->qlen && !red_is_idling(&q->vars))
		red_start_of_idle_period(&q->vars);
	return skb;
}

/* iproute2's tc_red_eval_idle_damping(): Stab[t >> Scell_log] =
 * -ln(1 - W) t / xmit_time (t in us, as the kernel reads it); -ln(1 - W)
 * by its series (no libm)
 */
static int red_eval_idle_damping(int Wlog, u32 avpkt, u64 bps, u8 *sbuf)
{
	double w = 1.0 / (1 << Wlog), xmit_us = avpkt * 8e6 / (double)bps;
	double lW = (w + w * w / 2 + w * w * w / 3 + w * w * w * w / 4) / xmit_us;
	double maxtime = 31 / lW;
	int clog, i;

	for (clog = 0; clog < 32; clog++)
		if (maxtime / (1ULL << clog) < 512)
			break;
	if (clog >= 32)
		return -1;
	sbuf[0] = 0;
	for (i = 1; i < 255; i++) {
		double v = (double)((u64)i << clog) * lW;

		sbuf[i] = (u8)(v > 31 ? 31 : v);
	}
	sbuf[255] = 31;
	return clog;
}

/* ---- the workload ------------------------------------------------------------ */

enum { MODE_FIXED, MODE_AUTO, MODE_RED, MODE_WINDOW };

struct sender {
	u32 cwnd, cnt, ssthresh, inflight;
	u64 next_tx, last_tx, recover_until;
};

struct event {
	u64 t;
	u8 flow;
	bool ce;
};

struct ring {
	struct event e[RING];
	u32 head, n;
};

static struct pkt pool[POOL];
static struct pkt *free_list;
static struct sender snd[NFLOWS];
static struct ring acks, losses;
static int mode;

struct mix {
	long enq, idle, below, between, above, windows, recompute_calls;
};

static void ring_push(struct ring *r, u64 t, u8 flow, bool ce)
{
	struct event *e;

	if (r->n == RING) {
		fprintf(stderr, "redopt_cost: event ring full\n");
		exit(1);
	}
	e = &r->e[(r->head + r->n++) % RING];
	e->t = t;
	e->flow = flow;
	e->ce = ce;
}

static struct event ring_pop(struct ring *r)
{
	struct event e = r->e[r->head];

	r->head = (r->head + 1) % RING;
	r->n--;
	return e;
}

static u16 ip_csum(const u8 *h)
{
	u32 s = 0;
	int i;

	for (i = 0; i < 20; i += 2)
		s += (u32)(h[i] << 8 | h[i + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return htons((u16)~s);
}

static struct pkt *pkt_new(u8 flow, u32 len, bool ect)
{
	struct pkt *p = free_list;
	struct iphdr_ *iph;
	u16 ports[2];

	if (!p) {
		fprintf(stderr, "redopt_cost: packet pool empty\n");
		exit(1);
	}
	free_list = p->next;
	memset(p, 0, sizeof(*p));
	p->pkt_len = len;
	p->protocol = htons(ETH_P_IP);
	p->network_header = 0;
	p->tail = sizeof(p->data);
	p->flow = flow;
	iph = (struct iphdr_ *)p->data;
	iph->ihl_version = 0x45;
	iph->tos = ect ? 2 : 0;		/* ECT(0) or not-ECT */
	iph->tot_len = htons((u16)len);
	iph->ttl = 63;
	iph->protocol = 6;
	iph->saddr = htonl(0x0a000001 + flow);		/* 10.0.0.1 + flow */
	iph->daddr = htonl(0x0a000101);			/* 10.0.1.1 */
	iph->check = 0;
	iph->check = ip_csum(p->data);
	ports[0] = htons((u16)(40000 + flow));
	ports[1] = htons(flow == NFLOWS ? 22 : 5201);
	memcpy(p->data + 20, ports, sizeof(ports));
	return p;
}

static void pkt_free(struct pkt *p)
{
	p->next = free_list;
	free_list = p;
}

static bool sender_on(int i, u64 t)
{
	return (t + CYCLE_NS - (u64)i * STAGGER_NS) % CYCLE_NS < ON_NS;
}

/* When sender i next wants to send, NEVER while its window is full */
static u64 sender_next(int i, u64 now)
{
	const struct sender *s = &snd[i];
	u64 t;

	if (s->inflight >= s->cwnd)
		return NEVER;
	t = s->next_tx > now ? s->next_tx : now;
	if (sender_on(i, t))
		return t;
	return t + CYCLE_NS - (t + CYCLE_NS - (u64)i * STAGGER_NS) % CYCLE_NS;
}

static void sender_reduce(struct sender *s, u64 now, u32 qlen)
{
	if (now < s->recover_until)
		return;
	s->ssthresh = max_t(u32, s->cwnd / 2, 2);
	s->cwnd = s->ssthresh;
	s->cnt = 0;
	s->recover_until = now + RTT_NS + (u64)qlen * DATA_LEN * NS_PER_BYTE;
}

static void sender_ack(struct sender *s, bool ce, u64 now, u32 qlen)
{
	s->inflight--;
	if (ce) {
		sender_reduce(s, now, qlen);
	} else if (s->cwnd < s->ssthresh) {
		s->cwnd++;
	} else if (++s->cnt >= s->cwnd) {
		s->cnt = 0;
		s->cwnd++;
	}
}

static void qdisc_setup_redopt(struct qdisc *sch, u32 flags, u32 flows, u32 m,
			       u32 *ss)
{
	struct redopt_sched_data *q = qdisc_priv(sch);
	struct redopt_model_params p;
	struct redopt_model model;
	const char *why = NULL;

	q->cfg = (struct redopt_cfg) {
		.bandwidth = LINK_BPS, .rtt_us = RTT_NS / 1000, .flows = flows,
		.min_th = 10, .max_p = (u32)(0.05 * 4294967296.0), .avpkt = DATA_LEN,
		.flags = flags, .wlog = REDOPT_DEFAULT_WLOG, .n_ssthresh = 1,
		.ssthresh = ss,
	};
	redopt_params(&q->cfg, m, !flows, &p);
	if (redopt_model_compute(&p, &model, &why)) {
		fprintf(stderr, "redopt_cost: model: %s\n", why);
		exit(1);
	}
	q->sch = sch;
	q->fe_est = m;
	q->fe_key.key[0] = 0x0706050403020100ULL;
	q->fe_key.key[1] = 0x0f0e0d0c0b0a0908ULL;
	red_set_vars(&q->vars);
	q->xmit_q16 = red_idle_xmit_q16(q->cfg.avpkt, q->cfg.bandwidth);
	redopt_apply(q, &model, m);
	red_start_of_idle_period(&q->vars);
	sch->enqueue = bench_redopt;
}

/* sch_red with redopt's thresholds in bytes, Wlog, max_p and ecn */
static void qdisc_setup_red(struct qdisc *sch, struct qdisc *child,
			    const struct redopt_sched_data *ro)
{
	struct red_sched_data *q = qdisc_priv(sch);
	u8 stab[RED_STAB_SIZE];
	int slog;

	slog = red_eval_idle_damping(ro->cfg.wlog, DATA_LEN, LINK_BPS, stab);
	if (slog < 0) {
		fprintf(stderr, "redopt_cost: no idle table\n");
		exit(1);
	}
	q->limit = ro->limit * DATA_LEN;
	q->flags = TC_RED_ECN;
	q->qdisc = child;
	child->enqueue = bfifo_enqueue;
	child->limit = q->limit;
	red_set_parms(&q->parms, ro->model.qth_min * DATA_LEN,
		      ro->model.qth_max * DATA_LEN, ro->cfg.wlog, 0, (u8)slog, stab,
		      ro->cfg.max_p);
	red_set_vars(&q->vars);
	red_start_of_idle_period(&q->vars);
	sch->enqueue = bench_red;
}

static struct qdisc *qdisc_alloc(size_t priv)
{
	struct qdisc *sch = calloc(1, sizeof(*sch) + priv);

	if (!sch) {
		perror("redopt_cost");
		exit(1);
	}
	return sch;
}

int main(int argc, char **argv)
{
	static u32 ss[1] = { SSTHRESH };
	struct qdisc *sch, *child = NULL;
	struct redopt_sched_data *ro;
	struct mix mix = { 0 };
	u64 now = 1, link_free = 0, small_next = 0, win_next = WINDOW_NS, sink = 0;
	long count;
	u32 i;

	count = argc == 3 ? atol(argv[2]) : 0;
	mode = argc == 3 ? (!strcmp(argv[1], "fixed") ? MODE_FIXED :
			    !strcmp(argv[1], "auto") ? MODE_AUTO :
			    !strcmp(argv[1], "red") ? MODE_RED :
			    !strcmp(argv[1], "window") ? MODE_WINDOW : -1) : -1;
	if (count <= 0 || mode < 0) {
		fprintf(stderr, "usage: redopt_cost fixed|auto|red|window COUNT\n");
		return 2;
	}
	for (i = 0; i < POOL; i++)
		pkt_free(&pool[i]);
	for (i = 0; i < NFLOWS; i++)
		snd[i] = (struct sender) { .cwnd = IW, .ssthresh = SS_NONE };

	sim_now = (ktime_t)now;
	/* redopt as configured; sch_red takes its thresholds */
	sch = qdisc_alloc(sizeof(struct redopt_sched_data));
	ro = qdisc_priv(sch);
	if (mode == MODE_FIXED || mode == MODE_RED)
		qdisc_setup_redopt(sch, TC_REDOPT_ECN, NFLOWS, NFLOWS, ss);
	else if (mode == MODE_AUTO)
		qdisc_setup_redopt(sch, TC_REDOPT_ECN, 0, NFLOWS, ss);
	else
		qdisc_setup_redopt(sch, TC_REDOPT_ECN, 0, 1, ss);	/* est 1 at start */
	if (mode == MODE_RED) {
		struct qdisc *r = qdisc_alloc(sizeof(struct red_sched_data));

		child = qdisc_alloc(0);
		qdisc_setup_red(r, child, ro);
		sch = r;
	}

	while (mix.enq < count) {
		struct pkt *to_free = NULL, *p = NULL;
		u32 qlen = child ? child->qlen : sch->qlen;
		u64 t = NEVER, tt;
		int kind = -1, who = -1;
		bool idle;

		/* the earliest event; on a tie, the first in this order */
		if (qlen) {
			t = link_free > now ? link_free : now;
			kind = 0;
		}
		if (acks.n && acks.e[acks.head].t < t) {
			t = acks.e[acks.head].t;
			kind = 1;
		}
		if (losses.n && losses.e[losses.head].t < t) {
			t = losses.e[losses.head].t;
			kind = 2;
		}
		if (mode != MODE_FIXED && mode != MODE_RED && win_next < t) {
			t = win_next;
			kind = 3;
		}
		if (small_next < t) {
			t = small_next;
			kind = 4;
		}
		for (i = 0; i < NFLOWS; i++) {
			tt = sender_next((int)i, now);
			if (tt < t) {
				t = tt;
				kind = 5;
				who = (int)i;
			}
		}
		now = t;
		sim_now = (ktime_t)now;

		switch (kind) {
		case 0: {	/* the link takes the head */
			struct pkt *d = mode == MODE_RED ? red_dequeue(sch) : redopt_dequeue(sch);

			link_free = now + (u64)qdisc_pkt_len(d) * NS_PER_BYTE;
			if (d->flow < NFLOWS)
				ring_push(&acks, link_free + RTT_NS, d->flow,
					  (((struct iphdr_ *)d->data)->tos & 3) == INET_ECN_CE);
			pkt_free(d);
			continue;
		}
		case 1: {
			struct event e = ring_pop(&acks);

			sender_ack(&snd[e.flow], e.ce, now, qlen);
			continue;
		}
		case 2: {
			struct event e = ring_pop(&losses);

			snd[e.flow].inflight--;
			sender_reduce(&snd[e.flow], now, qlen);
			continue;
		}
		case 3:
			if (mode == MODE_WINDOW) {
				u32 before = ro->flows_in_force;

				bench_window_end(ro);
				mix.windows++;
				mix.recompute_calls += ro->fe_est != before;
			} else {
				memset(ro->fe_bits, 0, sizeof(ro->fe_bits));
			}
			win_next += WINDOW_NS;
			continue;
		case 4:
			p = pkt_new(NFLOWS, SMALL_LEN, false);
			small_next += SMALL_GAP_NS;
			break;
		case 5: {
			struct sender *s = &snd[who];

			if (now - s->last_tx > RESTART_NS) {	/* a new connection */
				s->cwnd = IW;
				s->ssthresh = SS_NONE;
				s->cnt = 0;
			}
			p = pkt_new((u8)who, DATA_LEN, who != NFLOWS - 1);
			s->inflight++;
			s->next_tx = now + ACCESS_NS;
			s->last_tx = now;
			break;
		}
		default:
			fprintf(stderr, "redopt_cost: no event\n");
			return 1;
		}

		/* enqueue p: the measured call */
		if (mode == MODE_RED) {
			struct red_sched_data *q = qdisc_priv(sch);

			idle = red_is_idling(&q->vars);
			if (bench_red(p, sch, &to_free) == NET_XMIT_SUCCESS)
				p = NULL;
			mix.below += q->vars.qavg < q->parms.qth_min;
			mix.above += q->vars.qavg >= q->parms.qth_max;
			sink += q->vars.qavg;
		} else {
			idle = red_is_idling(&ro->vars);
			if (bench_redopt(p, sch, &to_free) == NET_XMIT_SUCCESS)
				p = NULL;
			mix.below += ro->vars.qavg < ro->parms.qth_min;
			mix.above += ro->vars.qavg >= ro->parms.qth_max;
			sink += ro->vars.qavg;
		}
		mix.enq++;
		mix.idle += idle;
		/* a drop: the sender sees it an RTT later */
		while (to_free) {
			struct pkt *d = to_free;

			to_free = d->next;
			if (d->flow < NFLOWS)
				ring_push(&losses, now + LOSS_NS, d->flow, false);
			pkt_free(d);
		}
	}
	mix.between = mix.enq - mix.below - mix.above;

	printf("%s enq %ld idle %ld below %ld between %ld above %ld", argv[1], mix.enq,
	       mix.idle, mix.below, mix.between, mix.above);
	if (mode == MODE_RED) {
		struct red_sched_data *q = qdisc_priv(sch);

		printf(" marked %u early %u forced_mark %u forced %u overflow %u",
		       q->stats.prob_mark, q->stats.prob_drop, q->stats.forced_mark,
		       q->stats.forced_drop, q->stats.pdrop);
	} else {
		printf(" marked %u early %u forced_mark %u forced %u overflow %u",
		       ro->stats.marked, ro->stats.early, ro->stats.forced_mark,
		       ro->stats.forced, ro->stats.overflow);
	}
	printf(" windows %ld recompute_calls %ld recomputes %u qth %u/%u limit %u sim_ms %llu sink %llu\n",
	       mix.windows, mix.recompute_calls, ro->stats.recomputes, ro->model.qth_min,
	       ro->model.qth_max, ro->limit, (unsigned long long)(now / 1000000),
	       (unsigned long long)sink);
	return 0;
}

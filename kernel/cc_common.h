/* SPDX-License-Identifier: GPL-2.0 */
/*
 * specnet: the glue the congestion-control modules (tcp_spec, tcp_cpecn,
 * tcp_tp) share with the kernel: bounded module parameters, per-netns
 * counters shown in /proc/net, the fall-back of a connection without ECN,
 * the window put back after an RTO, pacing, and registration.
 *
 * Kernel only (the host-testable algorithms are in include/specnet/). Each
 * module includes it from its one .c file after defining pr_fmt(), so that
 * messages carry the module's name; everything here is static, so no
 * symbol is shared between modules and none is exported.
 */
#ifndef _SPECNET_CC_COMMON_H
#define _SPECNET_CC_COMMON_H

#include <linux/compiler.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/printk.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <net/inet_ecn.h>
#include <net/net_namespace.h>
#include <net/tcp.h>

/* ---- bounded module parameters ----------------------------------------- */

/*
 * Every parameter refuses a bad value with the reason in the kernel log and
 * keeps the value in force, at load time (the load fails) as at run time.
 * The messages are the modules' interface (docs/modules.md quotes them),
 * all of one form:
 *   "<name>: '<value>' refused: <why>"
 */
#define specnet_param_refused(kp, val, fmt, ...)			\
	pr_err("%s: '%s' refused: " fmt "\n", (kp)->name,		\
	       strim((char *)(val)), ##__VA_ARGS__)

/*
 * An unsigned parameter within [min, max], as param_set_uint_minmax()
 * checks it, that says why it refused a value ("must be <min>..<max>
 * (<unit>)").
 * kp->arg points to the struct; the value is read with READ_ONCE().
 */
struct specnet_uint_param {
	unsigned int *val;
	unsigned int min, max;
	const char *unit;	/* what the value means, for the message */
};

static inline int specnet_param_set_uint(const char *val,
					 const struct kernel_param *kp)
{
	const struct specnet_uint_param *d = kp->arg;
	unsigned int v;

	if (kstrtouint(val, 0, &v) || v < d->min || v > d->max) {
		specnet_param_refused(kp, val, "must be %u..%u (%s)", d->min,
				      d->max, d->unit);
		return -EINVAL;
	}
	WRITE_ONCE(*d->val, v);
	return 0;
}

static inline int specnet_param_get_uint(char *buf,
					 const struct kernel_param *kp)
{
	const struct specnet_uint_param *d = kp->arg;

	return sysfs_emit(buf, "%u\n", READ_ONCE(*d->val));
}

static const struct kernel_param_ops specnet_uint_param_ops __maybe_unused = {
	.set = specnet_param_set_uint,
	.get = specnet_param_get_uint,
};

/*
 * A parameter chosen by name among @names (its index is stored), shown by
 * name; a name not in the list is refused ("one of <choices>").
 */
struct specnet_enum_param {
	unsigned int *val;
	const char * const *names;
	unsigned int n;
	const char *choices;	/* the names, for the message */
};

static inline int specnet_param_set_enum(const char *val,
					 const struct kernel_param *kp)
{
	const struct specnet_enum_param *d = kp->arg;
	int i = __sysfs_match_string(d->names, d->n, val);

	if (i < 0) {
		specnet_param_refused(kp, val, "one of %s", d->choices);
		return -EINVAL;
	}
	WRITE_ONCE(*d->val, i);
	return 0;
}

static inline int specnet_param_get_enum(char *buf,
					 const struct kernel_param *kp)
{
	const struct specnet_enum_param *d = kp->arg;

	return sysfs_emit(buf, "%s\n", d->names[READ_ONCE(*d->val)]);
}

static const struct kernel_param_ops specnet_enum_param_ops __maybe_unused = {
	.set = specnet_param_set_enum,
	.get = specnet_param_get_enum,
};

/*
 * The .set of a parameter that is a u32 member of @set (@size bytes, u32s
 * only), a struct whose values are valid or not together. @val is parsed
 * into the same member of @copy, a copy of @set the caller made, and
 * stored only if @why(@copy) returns NULL; otherwise what it returns is
 * the reason logged. @why runs the check the algorithm's other users (the
 * tools, the host tests) call. A value that is not a number is refused
 * here ("not a number"). The .get is param_get_uint().
 */
static inline int
specnet_param_set_member(const char *val, const struct kernel_param *kp,
			 void *copy, const void *set, size_t size,
			 const char *(*why)(const void *copy))
{
	const char *reason;
	size_t off = (const char *)kp->arg - (const char *)set;
	u32 *field;
	int ret;

	if (off >= size || off % sizeof(u32))
		return -EINVAL;
	field = (u32 *)((char *)copy + off);
	ret = kstrtouint(val, 0, field);
	if (ret) {
		specnet_param_refused(kp, val, "not a number");
		return ret;
	}
	reason = why(copy);
	if (reason) {
		specnet_param_refused(kp, val, "%s", reason);
		return -EINVAL;
	}
	WRITE_ONCE(*(u32 *)kp->arg, *field);
	return 0;
}

/* ---- per-netns counters ------------------------------------------------ */

/*
 * A file /proc/net/<file> of counters, one "<name> <value>" line each, in
 * the order of @names; one copy per network namespace. The counters are
 * per CPU (some count per ACK) and summed when the file is read.
 */
struct specnet_counters_def {
	const char *file;
	const char * const *names;
	unsigned int n;
};

struct specnet_counters {
	unsigned long __percpu *val;
	const struct specnet_counters_def *def;
};

static inline void specnet_count(struct specnet_counters *c, unsigned int i)
{
	this_cpu_inc(c->val[i]);
}

/* The file's data is the namespace's struct specnet_counters. */
static inline int specnet_counters_show(struct seq_file *seq, void *v)
{
	const struct specnet_counters *c = pde_data(file_inode(seq->file));
	unsigned int i;
	int cpu;

	for (i = 0; i < c->def->n; i++) {
		unsigned long sum = 0;

		for_each_possible_cpu(cpu)
			sum += READ_ONCE(per_cpu_ptr(c->val, cpu)[i]);
		seq_printf(seq, "%s %lu\n", c->def->names[i], sum);
	}
	return 0;
}

/* From the pernet init: @c, zeroed, and its file in @net. */
static inline int specnet_counters_init(struct net *net,
					struct specnet_counters *c,
					const struct specnet_counters_def *def)
{
	c->def = def;
	c->val = __alloc_percpu(def->n * sizeof(unsigned long),
				__alignof__(unsigned long));
	if (!c->val)
		return -ENOMEM;
	if (!proc_create_net_single(def->file, 0444, net->proc_net,
				    specnet_counters_show, c)) {
		free_percpu(c->val);
		return -ENOMEM;
	}
	return 0;
}

/* From the pernet exit: the file goes first (no reader left), then @c. */
static inline void specnet_counters_exit(struct net *net,
					 struct specnet_counters *c)
{
	remove_proc_entry(c->def->file, net->proc_net);
	free_percpu(c->val);
}

/* ---- per connection ----------------------------------------------------- */

static inline bool specnet_ecn_ok(const struct tcp_sock *tp)
{
	return tp->ecn_flags & TCP_ECN_OK;
}

/*
 * A control that speculates on ECN has no congestion signal on a connection
 * that did not negotiate it, so from its init such a connection switches to
 * @fallback: an unregistered ops of the same module (same owner, so the
 * module reference taken for the registered one is released correctly),
 * sending no ECT (tcp_init_congestion_control() calls INET_ECN_dontxmit()
 * only for ops without NEEDS_ECN, and ours have it). Listeners and closed
 * sockets stay: their children and reconnections choose again. Returns
 * true if the connection switched.
 */
static inline bool specnet_ecn_fallback(struct sock *sk,
					const struct tcp_congestion_ops *fallback)
{
	if (specnet_ecn_ok(tcp_sk(sk)) || sk->sk_state == TCP_LISTEN ||
	    sk->sk_state == TCP_CLOSE)
		return false;
	inet_csk(sk)->icsk_ca_ops = fallback;
	INET_ECN_dontxmit(sk);
	return true;
}

/*
 * Internal pacing (as tcp_bbr asks for it), so that a window put back at
 * once (specnet_cwnd_restore()) is spread over an RTT, not sent as a burst.
 */
static inline void specnet_pacing_enable(struct sock *sk)
{
	cmpxchg(&sk->sk_pacing_status, SK_PACING_NONE, SK_PACING_NEEDED);
}

/*
 * An RTO judged corruption: the stack has set cwnd to 1 (tcp_enter_loss()).
 * On the first ACK of new data (the retransmission got through) the caller
 * puts back @cwnd, the window of before the loss, within the clamp. Returns
 * true if the window grew to it (nothing to grow on that ACK).
 */
static inline bool specnet_cwnd_restore(struct tcp_sock *tp, u32 cwnd)
{
	u32 target = min(cwnd, tp->snd_cwnd_clamp);

	if (target <= tcp_snd_cwnd(tp))
		return false;
	tcp_snd_cwnd_set(tp, target);
	tp->snd_cwnd_cnt = 0;
	return true;
}

/* ---- registration -------------------------------------------------------- */

/*
 * The per-netns state @pn, then the control @ca; on failure (-EEXIST: a
 * control of that name is registered already) the reason is logged and
 * nothing stays registered.
 */
static inline int specnet_cc_register(struct pernet_operations *pn,
				      struct tcp_congestion_ops *ca)
{
	int ret;

	ret = register_pernet_subsys(pn);
	if (ret)
		return ret;
	ret = tcp_register_congestion_control(ca);
	if (ret) {
		pr_err("cannot register congestion control \"%s\": %d%s\n",
		       ca->name, ret,
		       ret == -EEXIST ? " (already registered)" : "");
		unregister_pernet_subsys(pn);
	}
	return ret;
}

static inline void specnet_cc_unregister(struct pernet_operations *pn,
					 struct tcp_congestion_ops *ca)
{
	tcp_unregister_congestion_control(ca);
	unregister_pernet_subsys(pn);
}

#endif /* _SPECNET_CC_COMMON_H */

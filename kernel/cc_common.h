/* SPDX-License-Identifier: GPL-2.0 */
/*
 * specnet: the glue the congestion-control modules (tcp_spec, tcp_cpecn,
 * tcp_tp) share with the kernel: per-netns counters shown in /proc/net.
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

#endif /* _SPECNET_CC_COMMON_H */

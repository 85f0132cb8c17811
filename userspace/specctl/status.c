// SPDX-License-Identifier: GPL-2.0
/*
 * specctl status: what specd knows of each managed destination, from its
 * state file (specd rewrites it every probe_interval, atomically).
 *
 *   specctl status [-c CONFIG | --state FILE] [--json]
 *
 * The daemon counts as running when the pid written in the file is alive
 * and is a specd. Not running: one line on stderr saying so, the last
 * state still shown (marked as such), exit 3.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "specctl.h"
#include "specd.h"

#define EXIT_NOT_RUNNING 3

enum { OPT_JSON = 256, OPT_STATE };

static const struct option status_options[] = {
	{ "config",	required_argument, NULL, 'c' },
	{ "state",	required_argument, NULL, OPT_STATE },
	{ "json",	no_argument,	   NULL, OPT_JSON },
	{ "help",	no_argument,	   NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

void specctl_status_usage(FILE *f)
{
	fprintf(f,
		"usage: specctl status [-c CONFIG | --state FILE] [--json]\n"
		"  -c, --config FILE  show the state file that specd's config FILE names\n"
		"                     (its state_file)\n"
		"  --state FILE       the state file itself (default %s)\n"
		"  --json             one JSON object: running, pid, written, config,\n"
		"                     destinations [{destination, verdict, evidence, age_s,\n"
		"                     expires_in_s, cc, ecn, route, table, note}]\n"
		"Exit: 0 specd running, 3 not running (the last state is still shown),\n"
		"2 bad input.\n", SPECD_DEFAULT_STATE);
}

/* the pid is alive and its command is specd */
static int is_specd(long pid)
{
	char path[64], comm[32] = "";
	FILE *f;

	if (pid <= 0 || (kill((pid_t)pid, 0) && errno != EPERM))
		return 0;
	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	return !strcmp(comm, "specd\n");
}

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

/* "42s", "3m", "2h", "5d" */
static const char *ago(char *buf, size_t len, long long s)
{
	if (s < 0)
		s = 0;
	if (s < 120)
		snprintf(buf, len, "%llds", s);
	else if (s < 7200)
		snprintf(buf, len, "%lldm", s / 60);
	else if (s < 172800)
		snprintf(buf, len, "%lldh", s / 3600);
	else
		snprintf(buf, len, "%lldd", s / 86400);
	return buf;
}

static void print_json(const struct specd_state *s, int running, time_t now)
{
	char a[INET6_ADDRSTRLEN];
	unsigned int i;

	printf("{\"running\":%s,\"pid\":%ld,\"written\":%lld,\"config\":",
	       running ? "true" : "false", s->pid, (long long)s->written);
	json_str(s->conf);
	printf(",\"destinations\":[");
	for (i = 0; i < s->n; i++) {
		const struct specd_dest *d = &s->d[i];

		printf("%s{\"destination\":\"%s\",\"verdict\":\"%s\",\"evidence\":", i ? "," : "",
		       specd_addr_str(&d->addr, a, sizeof(a)), specd_verdict_name(d->verdict));
		json_str(d->evidence);
		if (d->verdict == SPECD_UNKNOWN)
			printf(",\"age_s\":null,\"expires_in_s\":null");
		else
			printf(",\"age_s\":%lld,\"expires_in_s\":%lld",
			       (long long)(now - d->since), (long long)(d->expires - now));
		printf(",\"cc\":");
		if (d->route)
			json_str(d->cc);
		else
			printf("null");
		printf(",\"ecn\":%s,\"route\":%s,\"table\":%u,\"note\":",
		       d->route && d->ecn ? "true" : "false", d->route ? "true" : "false",
		       d->table);
		json_str(d->note);
		putchar('}');
	}
	printf("]}\n");
}

static void print_table(const struct specd_state *s, int running, time_t now)
{
	char a[INET6_ADDRSTRLEN], age[16], exp[24], w[16];
	unsigned int i;

	printf("specd %s (pid %ld), state written %s ago, config %s\n",
	       running ? "running" : "NOT running; last state", s->pid,
	       ago(w, sizeof(w), now - s->written), s->conf);
	if (!s->n) {
		printf("no destination managed yet\n");
		return;
	}
	printf("%-26s %-9s %5s %8s %-8s %-3s %-5s %s\n", "DESTINATION", "VERDICT", "AGE",
	       "EXPIRES", "CC", "ECN", "ROUTE", "EVIDENCE");
	for (i = 0; i < s->n; i++) {
		const struct specd_dest *d = &s->d[i];

		if (d->verdict == SPECD_UNKNOWN) {
			strcpy(age, "-");
			strcpy(exp, "-");
		} else {
			ago(age, sizeof(age), now - d->since);
			if (d->expires > now) {
				strcpy(exp, "in ");
				ago(exp + 3, sizeof(exp) - 3, d->expires - now);
			} else {
				strcpy(exp, "due");
			}
		}
		printf("%-26s %-9s %5s %8s %-8s %-3s %-5s %s\n",
		       specd_addr_str(&d->addr, a, sizeof(a)), specd_verdict_name(d->verdict),
		       age, exp, d->route ? d->cc : "-", d->route && d->ecn ? "yes" : "no",
		       d->route ? "yes" : "no", d->evidence);
		if (d->note[0])
			printf("%-26s note: %s\n", "", d->note);
	}
}

int specctl_status(int argc, char **argv)
{
	static struct specd_state s;
	static struct specd_conf conf;
	const char *state = NULL, *config = NULL;
	char err[512];
	unsigned int bad = 0;
	int c, json = 0, running, rc;
	time_t now;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:c:h", status_options, NULL)) != -1) {
		switch (c) {
		case 'c':
			config = optarg;
			break;
		case OPT_STATE:
			state = optarg;
			break;
		case OPT_JSON:
			json = 1;
			break;
		case 'h':
			specctl_status_usage(stdout);
			return 0;
		default:
			specctl_bad_option("status", status_options, c, argv[optind - 1]);
		}
	}
	if (optind < argc)
		specctl_die("unexpected argument '%s'", argv[optind]);
	if (config && state)
		specctl_die("give -c or --state, not both");
	if (config) {
		if (specd_conf_load(config, &conf, err, sizeof(err)))
			specctl_die("%s", err);
		state = conf.state_file;
	}
	if (!state)
		state = SPECD_DEFAULT_STATE;

	rc = specd_state_read(state, &s, &bad);
	if (rc == -2)
		specctl_die("%s:%u: not a specd state file", state, bad);
	if (rc) {
		fprintf(stderr, "specctl: specd is not running (no state file %s: %s)\n",
			state, strerror(errno));
		if (json)
			printf("{\"running\":false,\"destinations\":[]}\n");
		return EXIT_NOT_RUNNING;
	}
	now = time(NULL);
	running = is_specd(s.pid);
	if (!running)
		fprintf(stderr, "specctl: specd is not running (pid %ld of %s is gone); "
			"showing its last state\n", s.pid, state);
	if (json)
		print_json(&s, running, now);
	else
		print_table(&s, running, now);
	return running ? 0 : EXIT_NOT_RUNNING;
}

/* Minimal host unit-test harness.
 *
 * A test case is a function run by RUN(fn). CHECK() records one check of
 * the running case; a case passes when it made at least one check and
 * every one held, and fails otherwise (a failed check, or none at all).
 * check_done() prints two closing lines,
 *
 *   <suite>: checks: N passed, N failed	every CHECK() evaluated
 *   <suite>: N passed, N failed		test cases (what tests/run.py counts)
 *
 * and returns the exit status: 1 if a case failed, if no case ran, or if a
 * CHECK() was made outside RUN() (counted as one more failed case).
 */
#ifndef SPECNET_CHECK_H
#define SPECNET_CHECK_H
#include <stdio.h>

static int check_pass, check_fail;		/* CHECK()s */
static int check_cases_pass, check_cases_fail;	/* RUN() cases */
static int check_in_cases;			/* CHECK()s made inside RUN() */
static const char *check_running;		/* the running case, or NULL */

#define CHECK(cond, ...) do {						\
	if (cond) {							\
		check_pass++;						\
	} else {							\
		check_fail++;						\
		printf("FAIL %s:%d (%s): %s: ", __FILE__, __LINE__,	\
		       check_running ? check_running : "no case", #cond); \
		printf(__VA_ARGS__);					\
		printf("\n");						\
	}								\
} while (0)

#define RUN(fn) check_run(#fn, fn)

static inline void check_run(const char *name, void (*fn)(void))
{
	int pass0 = check_pass, fail0 = check_fail, n;

	check_running = name;
	fn();
	check_running = NULL;
	n = check_pass + check_fail - pass0 - fail0;
	check_in_cases += n;
	if (check_fail > fail0) {
		check_cases_fail++;
		printf("FAILED %s: %d of %d checks failed\n", name, check_fail - fail0, n);
	} else if (!n) {
		check_cases_fail++;
		printf("FAILED %s: no check made\n", name);
	} else {
		check_cases_pass++;
		printf("ok %s (%d checks)\n", name, n);
	}
}

static inline int check_done(const char *suite)
{
	int outside = check_pass + check_fail - check_in_cases;

	if (outside) {
		check_cases_fail++;
		printf("FAILED %s: %d checks outside any test case\n", suite, outside);
	}
	if (!check_cases_pass && !check_cases_fail)
		printf("FAILED %s: no test case ran\n", suite);
	printf("%s: checks: %d passed, %d failed\n", suite, check_pass, check_fail);
	printf("%s: %d passed, %d failed\n", suite, check_cases_pass, check_cases_fail);
	return check_cases_fail || !check_cases_pass ? 1 : 0;
}
#endif

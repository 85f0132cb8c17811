/* Minimal host unit-test harness: CHECK() records, check_done() prints the
 * closing "N passed, N failed" line and returns the exit status.
 */
#ifndef SPECNET_CHECK_H
#define SPECNET_CHECK_H
#include <stdio.h>

static int check_pass, check_fail;

#define CHECK(cond, ...) do {						\
	if (cond) {							\
		check_pass++;						\
	} else {							\
		check_fail++;						\
		printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);	\
		printf(__VA_ARGS__);					\
		printf("\n");						\
	}								\
} while (0)

static inline int check_done(const char *suite)
{
	printf("%s: %d passed, %d failed\n", suite, check_pass, check_fail);
	return check_fail ? 1 : 0;
}
#endif

// SPDX-License-Identifier: GPL-2.0
/* tests/fuzz: the harnesses' shared helpers (fuzz.h). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <sanitizer/allocator_interface.h>

#include "fuzz.h"

struct fuzz_text fuzz_out, fuzz_err;

static FILE *real_stderr;

/* ---- stdout, stderr: kept in memory ---- */

static ssize_t text_write(void *cookie, const char *buf, size_t n)
{
	struct fuzz_text *t = cookie;
	size_t room = FUZZ_OUT_MAX - t->len;
	size_t k = n < room ? n : room;

	memcpy(t->buf + t->len, buf, k);
	t->len += k;
	t->buf[t->len] = '\0';
	return (ssize_t)n;
}

/*
 * Unbuffered: a stream allocates its buffer on first use, which could be
 * inside fuzz_call() and then freed by an exit() there (see below).
 */
static FILE *text_stream(struct fuzz_text *t)
{
	cookie_io_functions_t io = { .write = text_write };
	FILE *f = fopencookie(t, "w", io);

	if (!f || setvbuf(f, NULL, _IONBF, 0)) {
		perror("fuzz: fopencookie");
		abort();
	}
	return f;
}

void fuzz_reset(void)
{
	fuzz_out.len = 0;
	fuzz_out.buf[0] = '\0';
	fuzz_err.len = 0;
	fuzz_err.buf[0] = '\0';
}

void fuzz_fail(const char *fmt, ...)
{
	FILE *f = real_stderr ? real_stderr : stderr;
	va_list ap;

	fprintf(f, "\n==== fuzz: contract broken: ");
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fprintf(f, "\n---- stdout of the code under test:\n%s"
		"---- stderr of the code under test:\n%s----\n", fuzz_out.buf, fuzz_err.buf);
	fflush(f);
	abort();
}

/* ---- exit() inside fuzz_call() ---- */

#define LIVE_MAX	1024

/*
 * Per thread: the hooks see every thread's allocations, and libFuzzer runs
 * a thread of its own (the -rss_limit_mb watcher) beside the inputs. A
 * block another thread allocated while an input ran is that thread's to
 * free; freeing it at the input's exit() was a double free later.
 */
static __thread jmp_buf *exit_jmp;	/* set: this thread is inside fuzz_call() */
static int exit_status;
static const volatile void *live[LIVE_MAX];	/* allocated inside fuzz_call() */
static unsigned int n_live;
static bool live_overflow;

static void on_malloc(const volatile void *p, size_t size)
{
	(void)size;
	if (!exit_jmp)
		return;
	if (n_live == LIVE_MAX) {
		live_overflow = true;
		return;
	}
	live[n_live++] = p;
}

static void on_free(const volatile void *p)
{
	unsigned int i;

	if (!exit_jmp)
		return;
	for (i = n_live; i-- > 0;) {
		if (live[i] == p) {
			live[i] = live[--n_live];
			return;
		}
	}
}

void __real_exit(int status) __attribute__((noreturn));
void __wrap_exit(int status) __attribute__((noreturn));

void __wrap_exit(int status)
{
	jmp_buf *jb = exit_jmp;
	unsigned int i;

	if (!jb)
		__real_exit(status);
	exit_jmp = NULL;
	if (live_overflow)
		fuzz_fail("more than %d blocks allocated before exit(%d)", LIVE_MAX, status);
	for (i = 0; i < n_live; i++)
		free((void *)live[i]);
	n_live = 0;
	exit_status = status;
	longjmp(*jb, 1);
}

int fuzz_call(int (*fn)(void *arg), void *arg, int *rc)
{
	jmp_buf jb;

	n_live = 0;
	live_overflow = false;
	if (setjmp(jb)) {
		*rc = exit_status;
		return 1;
	}
	exit_jmp = &jb;
	*rc = fn(arg);
	exit_jmp = NULL;
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	real_stderr = stderr;
	stdout = text_stream(&fuzz_out);
	stderr = text_stream(&fuzz_err);
	if (!__sanitizer_install_malloc_and_free_hooks(on_malloc, on_free)) {
		fprintf(real_stderr, "fuzz: cannot install the allocation hooks\n");
		abort();
	}
	fuzz_reset();
	return 0;
}

/* ---- input ---- */

char *fuzz_strdup(const uint8_t *data, size_t size, char nul)
{
	char *s = malloc(size + 1);
	size_t i;

	if (!s)
		abort();
	for (i = 0; i < size; i++)
		s[i] = data[i] ? (char)data[i] : nul;
	s[size] = '\0';
	return s;
}

int fuzz_words(char *s, char **argv, int max)
{
	int n = 0;

	for (;;) {
		s += strspn(s, " \t\n\r");
		if (!*s || n == max)
			return n;
		argv[n++] = s;
		s += strcspn(s, " \t\n\r");
		if (*s)
			*s++ = '\0';
	}
}

const char *fuzz_file(const uint8_t *data, size_t size)
{
	static char path[64];
	static int fd = -1;
	size_t off = 0;

	if (fd < 0) {
		/* 0644, as a config file should be (a memfd is 0777) */
		fd = memfd_create("fuzz-input", 0);
		if (fd < 0 || fchmod(fd, 0644)) {
			perror("fuzz: memfd_create");
			abort();
		}
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0))
		abort();
	while (off < size) {
		ssize_t n = pwrite(fd, data + off, size - off, (off_t)off);

		if (n <= 0 && errno != EINTR)
			abort();
		if (n > 0)
			off += (size_t)n;
	}
	return path;
}

/* ---- stdin ---- */

struct reader {
	const char *data;
	size_t size, pos;
};

static ssize_t reader_read(void *cookie, char *buf, size_t n)
{
	struct reader *r = cookie;
	size_t k = r->size - r->pos;

	if (k > n)
		k = n;
	memcpy(buf, r->data + r->pos, k);
	r->pos += k;
	return (ssize_t)k;
}

static FILE *real_stdin;

void fuzz_stdin(const char *data, size_t size)
{
	/* a buffer of our own: see text_stream() */
	static char buf[4096];
	static struct reader r;
	cookie_io_functions_t io = { .read = reader_read };
	FILE *f;

	r = (struct reader){ .data = data, .size = size };
	f = fopencookie(&r, "r", io);
	if (!f || setvbuf(f, buf, _IOFBF, sizeof(buf)))
		abort();
	if (!real_stdin)
		real_stdin = stdin;
	stdin = f;
}

void fuzz_stdin_end(void)
{
	if (real_stdin && stdin != real_stdin) {
		fclose(stdin);
		stdin = real_stdin;
	}
}

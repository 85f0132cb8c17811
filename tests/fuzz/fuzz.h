/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tests/fuzz: what the libFuzzer harnesses share (fuzz.c, linked into each).
 *
 * A harness gives a parser libFuzzer's input, then checks what it made of
 * it: a result within the parser's contract, or a clear error and nothing
 * changed. A broken contract is reported with fuzz_fail(), an abort(), so
 * that libFuzzer saves the input as a crash like any ASan or UBSan report.
 *
 * exit(): the harnesses are linked with -Wl,--wrap=exit. Inside
 * fuzz_call() an exit() of the code under test comes back to the harness
 * (a longjmp(), with the blocks the code allocated since fuzz_call()
 * began and left behind freed, as the exiting process would have lost
 * them); elsewhere it is the real exit(). Whether a parser may exit at all
 * is the harness's to check: specctl reports bad input by exit(2), the
 * library parsers never exit.
 *
 * stdout and stderr: the FILE pointers are replaced by streams that keep
 * the text in memory (fuzz_out, fuzz_err), for the checks and to keep the
 * fuzzer's terminal quiet. libFuzzer and the sanitizers write to file
 * descriptor 2 themselves, so their reports still show.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stddef.h>
#include <stdint.h>

#define FUZZ_OUT_MAX	(64 * 1024)	/* kept of each stream per input */
#define FUZZ_MAX_WORDS	512		/* argv words taken from an input */

struct fuzz_text {
	char buf[FUZZ_OUT_MAX + 1];	/* NUL-terminated */
	size_t len;
};

/* What the code under test wrote since the last fuzz_reset(). */
extern struct fuzz_text fuzz_out, fuzz_err;

/* libFuzzer's entry points; fuzz.c has LLVMFuzzerInitialize(). */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Per input: empty fuzz_out and fuzz_err. */
void fuzz_reset(void);

/*
 * fn(arg), catching exit(): 0 when fn returned (its value in *rc), 1 when
 * it called exit() (the status in *rc).
 */
int fuzz_call(int (*fn)(void *arg), void *arg, int *rc);

/* A NUL-terminated, malloc()ed copy of the input; NUL bytes become @nul. */
char *fuzz_strdup(const uint8_t *data, size_t size, char nul);

/*
 * Split @s in place into words at blanks (space, tab, newline, CR), as a
 * shell splits a plain command line; at most @max, the rest ignored.
 */
int fuzz_words(char *s, char **argv, int max);

/*
 * A file holding @data: the path of one memfd (/proc/self/fd/N, mode
 * 0644), emptied and rewritten on each call.
 */
const char *fuzz_file(const uint8_t *data, size_t size);

/* stdin reads @data[0..size) until fuzz_stdin_end(). */
void fuzz_stdin(const char *data, size_t size);
void fuzz_stdin_end(void);

/*
 * fuzz_specctl.c, in the harnesses linked with specctl (its main() renamed
 * specctl_main()): "specctl argv[1]..." (argv[0] is "specctl", argv[argc]
 * NULL) with @in as its stdin, and its contract for a command line:
 * bad input ends in exit(2) with one "specctl: <reason>" line on stderr
 * and nothing on stdout; otherwise it returns a value of @ok (bit k:
 * k is fine) with output on stdout. getopt_long() is reset first as a
 * fresh process has it, with @optstring, the command's (its first
 * character sets the ordering, which getopt reads only then). The exit
 * status, or the value returned.
 */
int specctl_main(int argc, char **argv);
int fuzz_specctl(int argc, char **argv, const char *optstring, unsigned int ok,
		 const char *in, size_t inlen);

/* The contract is broken: @fmt, the captured output, then abort(). */
__attribute__((noreturn, format(printf, 1, 2)))
void fuzz_fail(const char *fmt, ...);

#endif /* FUZZ_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one verdict helper of rxlat's C test programs, the counterpart of
 * pass/fail/skip in netns-tests/lib.sh. Every check prints exactly one line:
 *
 *	PASS name
 *	FAIL name: reason
 *	SKIP name: reason
 *
 * A skip is counted apart and is never a pass: run.sh adds it to the
 * "skipped" total of the closing line.
 *
 * Two ways to use it:
 *  - check_fail() records a reason (the first one wins: later failures are
 *    usually its consequences), check_done(name) then prints the verdict;
 *  - check_pass(), check_failed() and check_skip() print one directly.
 * check_exit_status() is the program's exit status: 1 when a check failed.
 * A program made of cases runs one by name (check_args(), CHECK_RUN()).
 * Header-only: each test program is a single translation unit.
 */
#ifndef RXLAT_CHECK_H
#define RXLAT_CHECK_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int check_npassed, check_nfailed, check_nskipped;
static char check_why[1024];

__attribute__((format(printf, 1, 2), unused)) static void check_fail(const char *fmt, ...)
{
	va_list ap;

	if (check_why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(check_why, sizeof(check_why), fmt, ap);
	va_end(ap);
}

__attribute__((unused)) static void check_pass(const char *name)
{
	printf("PASS %s\n", name);
	check_npassed++;
}

__attribute__((format(printf, 2, 3), unused)) static void check_failed(const char *name,
								       const char *fmt, ...)
{
	va_list ap;

	printf("FAIL %s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	check_nfailed++;
}

__attribute__((format(printf, 2, 3), unused)) static void check_skip(const char *name,
								     const char *fmt, ...)
{
	va_list ap;

	printf("SKIP %s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	check_nskipped++;
}

/* Prints the verdict of the reasons recorded since the last call. */
__attribute__((unused)) static void check_done(const char *name)
{
	if (check_why[0])
		check_failed(name, "%s", check_why);
	else
		check_pass(name);
	check_why[0] = '\0';
}

#define CHECK_U64(what, got, want)                                                        \
	do {                                                                              \
		uint64_t g_ = (got), w_ = (want);                                         \
		if (g_ != w_)                                                             \
			check_fail("%s: got %" PRIu64 ", want %" PRIu64, (what), g_, w_); \
	} while (0)

/*
 * A program's cases, by name: main() calls check_args(argc, argv) and runs
 * each case as CHECK_RUN(fn, args...). With no argument every case runs;
 * "prog NAME..." runs the cases named (a name matching none is a failed
 * check); "prog --list" prints the names and runs none.
 */
static int check_ncases;
static char **check_cases;
static unsigned char check_case_seen[64];
static int check_listing;

__attribute__((unused)) static void check_args(int argc, char **argv)
{
	check_listing = argc == 2 && !strcmp(argv[1], "--list");
	check_ncases = check_listing ? 0 : argc - 1;
	check_cases = argv + 1;
	if (check_ncases > (int)sizeof(check_case_seen)) {
		check_failed("args", "at most %zu case names", sizeof(check_case_seen));
		check_ncases = 0;
	}
}

__attribute__((unused)) static int check_case(const char *name)
{
	int run = !check_ncases;

	if (check_listing) {
		puts(name);
		return 0;
	}
	for (int i = 0; i < check_ncases; i++)
		if (!strcmp(check_cases[i], name))
			run = check_case_seen[i] = 1;
	return run;
}

#define CHECK_RUN(fn, ...)               \
	do {                             \
		if (check_case(#fn))     \
			fn(__VA_ARGS__); \
	} while (0)

__attribute__((unused)) static int check_exit_status(void)
{
	for (int i = 0; i < check_ncases; i++)
		if (!check_case_seen[i])
			check_failed(check_cases[i], "no such case (--list names them)");
	return check_nfailed ? 1 : 0;
}

#endif /* RXLAT_CHECK_H */

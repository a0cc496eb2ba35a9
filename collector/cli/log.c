// SPDX-License-Identifier: GPL-2.0
/* rxlat's messages and libbpf's, on stderr. */
#include <stdarg.h>
#include <stdio.h>
#include <bpf/libbpf.h>
#include "log.h"

static bool verbose;

void rxlat_err(const char *fmt, ...)
{
	va_list ap;

	fputs("rxlat: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void rxlat_info(const char *fmt, ...)
{
	va_list ap;

	fputs("rxlat: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* libbpf's debug level is every relocation of every program: never shown. */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG || !verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void rxlat_log_init(bool v)
{
	verbose = v;
	libbpf_set_print(libbpf_print);
}

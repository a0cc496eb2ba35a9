// SPDX-License-Identifier: GPL-2.0
/* rxlat's messages and libbpf's, on stderr. */
#include <stdarg.h>
#include <stdio.h>
#include <bpf/libbpf.h>
#include "log.h"

static enum rxlat_level max_level = RXLAT_LOG_INFO;

bool rxlat_log_on(enum rxlat_level level)
{
	return level <= max_level;
}

void rxlat_log(enum rxlat_level level, const char *fmt, ...)
{
	static const char *const prefix[] = {
		[RXLAT_LOG_ERR] = "rxlat: error: ",
		[RXLAT_LOG_WARN] = "rxlat: warning: ",
		[RXLAT_LOG_INFO] = "rxlat: ",
		[RXLAT_LOG_DEBUG] = "rxlat: ",
	};
	va_list ap;

	if (!rxlat_log_on(level))
		return;
	fputs(prefix[level], stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* libbpf's debug level is every relocation of every program: never shown. */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG || !rxlat_log_on(RXLAT_LOG_DEBUG))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void rxlat_log_init(bool verbose)
{
	max_level = verbose ? RXLAT_LOG_DEBUG : RXLAT_LOG_INFO;
	libbpf_set_print(libbpf_print);
}

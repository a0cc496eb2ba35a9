/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rxlat's messages on stderr: one line each, "rxlat: error: ..." or
 * "rxlat: ...", and libbpf's own messages with -v.
 */
#ifndef RXLAT_LOG_H
#define RXLAT_LOG_H

#include <stdbool.h>

/* Sends libbpf's warnings and info to stderr when verbose, else nowhere. */
void rxlat_log_init(bool verbose);
void rxlat_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void rxlat_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif

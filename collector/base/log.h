/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rxlat's messages on stderr, one line each, by level:
 *   rxlat_err    "rxlat: error: ..."   what stops rxlat, or a request it refuses
 *   rxlat_warn   "rxlat: warning: ..." what it goes on without (a count lost, a
 *                                      stage measuring less than asked)
 *   rxlat_info   "rxlat: ..."          what it chose and what changed
 *   rxlat_debug  "rxlat: ..."          how, with -v only; libbpf's and the
 *                                      verifier's messages come with it
 */
#ifndef RXLAT_LOG_H
#define RXLAT_LOG_H

#include <stdbool.h>

enum rxlat_level { RXLAT_LOG_ERR, RXLAT_LOG_WARN, RXLAT_LOG_INFO, RXLAT_LOG_DEBUG };

/* Up to info by default, debug too with verbose (-v). */
void rxlat_log_init(bool verbose);
bool rxlat_log_on(enum rxlat_level level);
void rxlat_log(enum rxlat_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define rxlat_err(...)	 rxlat_log(RXLAT_LOG_ERR, __VA_ARGS__)
#define rxlat_warn(...)	 rxlat_log(RXLAT_LOG_WARN, __VA_ARGS__)
#define rxlat_info(...)	 rxlat_log(RXLAT_LOG_INFO, __VA_ARGS__)
#define rxlat_debug(...) rxlat_log(RXLAT_LOG_DEBUG, __VA_ARGS__)

#endif

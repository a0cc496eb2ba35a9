/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stop requests: SIGINT, SIGTERM and SIGHUP (unless SIGHUP was ignored when
 * rxlat started, as under nohup) set a flag and wake the main loop through
 * an eventfd. The handlers are installed without SA_RESTART, so a write
 * blocked on stdout returns EINTR, and each stop signal also arms a 1 s
 * alarm: a write that blocked just after the flag was checked is cut short.
 *
 * A file that is read again on SIGHUP (--web-config) calls
 * signals_reload_fd(): SIGHUP then stops nothing and wakes that eventfd.
 */
#ifndef RXLAT_SIGNALS_H
#define RXLAT_SIGNALS_H

#include <stdbool.h>

/* Installs the handlers (over an inherited SIG_IGN): 0 or -errno, printed. */
int signals_init(void);
/* The eventfd that becomes readable on a stop signal. */
int signals_fd(void);
/* From now on SIGHUP asks for a re-read: the eventfd it wakes, or -errno printed. */
int signals_reload_fd(void);
/* A SIGHUP came since the last call (the eventfd drained). */
bool signals_reload(void);
/* The stop signal received, 0 if none. */
int signals_stop(void);
/* From now on, writes give up after about seconds (SIGALRM). */
void signals_deadline(unsigned int seconds);
bool signals_deadline_passed(void);

#endif

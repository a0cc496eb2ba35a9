// SPDX-License-Identifier: GPL-2.0
/* Stop signals as a flag and an eventfd; see signals.h. */
#include <errno.h>
#include <stdint.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include "log.h"
#include "signals.h"

static volatile sig_atomic_t stop_sig, deadline_passed;
static int wake_fd = -1, reload_fd = -1;

static void on_stop(int sig)
{
	int saved = errno;
	uint64_t one = 1;

	if (!stop_sig)
		stop_sig = sig;
	/* a write of the loop may block right after it checked the flag */
	alarm(1);
	if (wake_fd >= 0 && write(wake_fd, &one, sizeof(one)) < 0) {
		/* the counter is already non-zero: the loop wakes anyway */
	}
	errno = saved;
}

static void on_reload(int sig)
{
	int saved = errno;
	uint64_t one = 1;

	(void)sig;
	if (write(reload_fd, &one, sizeof(one)) < 0) {
		/* the counter is already non-zero: one re-read is due anyway */
	}
	errno = saved;
}

static void on_alarm(int sig)
{
	(void)sig;
	deadline_passed = 1;
}

static int handle(int sig, void (*fn)(int))
{
	struct sigaction sa = { .sa_handler = fn }; /* no SA_RESTART: EINTR */

	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, NULL)) {
		int err = -errno;

		rxlat_err("sigaction(%s): %s", strsignal(sig), strerror(-err));
		return err;
	}
	return 0;
}

int signals_init(void)
{
	struct sigaction old;
	sigset_t unblock;
	int err;

	wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (wake_fd < 0) {
		err = -errno;
		rxlat_err("eventfd: %s", strerror(-err));
		return err;
	}
	/*
	 * A reader that goes away (rxlat -o json | head -1): the write fails
	 * with EPIPE and the run ends with that error, exit status 1, as a
	 * failed write does (rxlat(8), OUTPUT ERRORS), not killed by SIGPIPE.
	 */
	signal(SIGPIPE, SIG_IGN);
	/* a script's background job inherits SIGINT ignored: stop anyway */
	err = handle(SIGINT, on_stop);
	if (!err)
		err = handle(SIGTERM, on_stop);
	if (!err)
		err = handle(SIGALRM, on_alarm);
	/* nohup's SIGHUP stays ignored; else a hang-up ends the run */
	if (!err && !sigaction(SIGHUP, NULL, &old) && old.sa_handler != SIG_IGN)
		err = handle(SIGHUP, on_stop);
	if (err)
		return err;
	sigemptyset(&unblock);
	sigaddset(&unblock, SIGINT);
	sigaddset(&unblock, SIGTERM);
	sigaddset(&unblock, SIGHUP);
	sigaddset(&unblock, SIGALRM);
	sigprocmask(SIG_UNBLOCK, &unblock, NULL);
	return 0;
}

int signals_reload_fd(void)
{
	if (reload_fd >= 0)
		return reload_fd;
	reload_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (reload_fd < 0) {
		int err = -errno;

		rxlat_err("eventfd: %s", strerror(-err));
		return err;
	}
	/* over nohup's SIG_IGN too: a re-read stops nothing */
	return handle(SIGHUP, on_reload) ? -EINVAL : reload_fd;
}

bool signals_reload(void)
{
	uint64_t n;

	return reload_fd >= 0 && read(reload_fd, &n, sizeof(n)) == sizeof(n);
}

int signals_fd(void)
{
	return wake_fd;
}

int signals_stop(void)
{
	return stop_sig;
}

void signals_deadline(unsigned int seconds)
{
	deadline_passed = 0;
	alarm(seconds);
}

bool signals_deadline_passed(void)
{
	return deadline_passed;
}

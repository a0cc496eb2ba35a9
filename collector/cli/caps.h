/* SPDX-License-Identifier: GPL-2.0 */
#ifndef RXLAT_CAPS_H
#define RXLAT_CAPS_H

#include <stdbool.h>

/*
 * Once everything is attached, rxlat keeps CAP_BPF only: the reports read
 * and update its maps through bpf() (kernels with unprivileged BPF
 * disabled check it on every call), and attaching the loaded stamper to a
 * named interface that comes back is a BPF link, which needs nothing more.
 * net_admin keeps CAP_NET_ADMIN too: rxlat holds tc filters that it must
 * remove at exit. All others are dropped from the effective, permitted and
 * inheritable sets. 0 or -errno, printed.
 */
int caps_drop(bool net_admin);

/*
 * Before anything is loaded: the capabilities a measuring run needs, each
 * one missing named in one error line. 0 or -EPERM (said).
 */
int caps_check(void);

#endif

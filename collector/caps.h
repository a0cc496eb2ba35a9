/* SPDX-License-Identifier: GPL-2.0 */
#ifndef RXLAT_CAPS_H
#define RXLAT_CAPS_H

#include <stdbool.h>

/*
 * Once everything is attached, rxlat keeps CAP_BPF (reading and updating
 * its maps: kernels with unprivileged BPF disabled check it on every bpf()
 * call) and, when it attached the stamper itself, CAP_NET_ADMIN (to attach
 * it again to a named interface that comes back); all others are dropped
 * from the effective, permitted and inheritable sets. 0 or -errno, printed.
 */
int caps_drop(bool keep_net_admin);

#endif

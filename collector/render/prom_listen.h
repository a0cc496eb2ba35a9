/* SPDX-License-Identifier: GPL-2.0 */
/* The listening socket of --prometheus (prom_listen.c). */
#ifndef RXLAT_PROM_LISTEN_H
#define RXLAT_PROM_LISTEN_H

struct rxlat_config;

/*
 * Bound and listening, non-blocking, at cfg->prom_addr; -errno with the
 * error printed in one line, naming the fix.
 */
int prom_listen_socket(const struct rxlat_config *cfg);

#endif

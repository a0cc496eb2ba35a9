/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --web-config put to work in libmicrohttpd (prom_web.c): TLS through
 * MHD's own HTTPS (GnuTLS), client certificates, basic auth and the
 * configured headers. prom_http.c calls these; web_config.c read the file.
 */
#ifndef RXLAT_PROM_WEB_H
#define RXLAT_PROM_WEB_H

#include <stdbool.h>
#include <linux/types.h>
#include <microhttpd.h>

struct web_config;

#define PROM_WEB_OPTS 6

/*
 * The daemon's flags and TLS options for w (NULL: none), ended by
 * MHD_OPTION_END, for MHD_OPTION_ARRAY: 0, or -EOPNOTSUPP printed where
 * this libmicrohttpd has no TLS.
 */
int prom_web_options(const struct web_config *w, unsigned int *flags,
		     struct MHD_OptionItem opts[PROM_WEB_OPTS]);
/* A new connection, before its handshake: a client certificate asked for where w wants one. */
void prom_web_connection(const struct web_config *w, struct MHD_Connection *conn);
/*
 * The request is refused: no verified client certificate where w requires
 * one (403), or no user and password of w's (401 with WWW-Authenticate,
 * counted in *failures); the refusal queued, its result in *ret.
 */
bool prom_web_refused(struct web_config *w, struct MHD_Connection *conn, __u64 *failures,
		      enum MHD_Result *ret);
/* w's http_server_config.headers on r */
void prom_web_headers(const struct web_config *w, struct MHD_Response *r);

#endif

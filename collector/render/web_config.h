/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --web-config FILE: the web configuration of Prometheus' exporter-toolkit
 * (the --web.config.file of node_exporter and the official exporters), so
 * that an operator's file works unchanged:
 *
 *   tls_server_config:     cert_file, key_file, client_auth_type,
 *                          client_ca_file, min_version, max_version
 *   http_server_config:    headers, http2 (false only: rxlat speaks HTTP/1.1)
 *   basic_auth_users:      user: bcrypt hash
 *
 * A field rxlat does not read is refused by name, never ignored: a file
 * that asks for what rxlat would not do must not seem to work. Relative
 * paths are relative to the file's folder, as exporter-toolkit has them.
 *
 * web_config_load() reads and checks everything a server needs before any
 * is used (the files read, the key matching the certificate, each hash a
 * bcrypt one), so that a broken file is refused in one line at start-up
 * and keeps the old one at a re-read. No libmicrohttpd here: prom_web.c
 * puts it to work.
 */
#ifndef RXLAT_WEB_CONFIG_H
#define RXLAT_WEB_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>
#include <sys/types.h>

enum web_client_auth {
	WEB_NO_CLIENT_CERT,
	WEB_VERIFY_CLIENT_CERT_IF_GIVEN,
	WEB_REQUIRE_AND_VERIFY_CLIENT_CERT,
};

struct web_user {
	char *name, *hash;
	/* SHA-256 of the last password that matched: a scrape pays bcrypt once */
	unsigned char ok[32];
	bool ok_set;
};

struct web_header {
	char *name, *value;
};

#define WEB_NR_FILES 4 /* the configuration, certificate, key, client CA */

struct web_config {
	char *path;
	bool tls;
	char *cert, *key, *ca; /* the PEM files' contents; ca NULL without one */
	enum web_client_auth client_auth;
	char priorities[160]; /* GnuTLS's, from min_version and max_version */
	struct web_user *users;
	size_t nusers;
	struct web_header *headers;
	size_t nheaders;
	/* to see a file replaced: the paths and what stat() said at loading */
	char *files[WEB_NR_FILES];
	struct timespec mtime[WEB_NR_FILES];
	ino_t ino[WEB_NR_FILES];
	struct crypt_data *cd;
	bool again; /* a re-read: a refusal says the old file is kept */
};

/*
 * The configuration in path: 0, or -errno / -EINVAL with one line printed
 * naming the file and the field (again: a re-read, and the line says that
 * the file read before is kept).
 */
int web_config_load(struct web_config **out, const char *path, bool again);
void web_config_free(struct web_config *w);
/* A file it was read from has been replaced or changed since. */
bool web_config_changed(const struct web_config *w);
/* The files as they are now are w's: a broken new file is not read again until it changes. */
void web_config_seen(struct web_config *w);
/*
 * user and pass match one of basic_auth_users, compared in constant time;
 * true too where the file has no users.
 */
bool web_config_auth(struct web_config *w, const char *user, const char *pass);

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * --web-config's reading (collector/render/web_config.c) on files written
 * here, no root, no server: what is taken (headers, the TLS versions as a
 * empty file, fields given empty), what is refused (an unknown field, one
 * given twice, a plain password, a TLS version), basic auth against bcrypt
 * hashes with its cache, and a change on disk seen once. The certificates
 * and the refusals' exact lines are test_webconfig.sh's. One PASS or FAIL
 * line per check.
 */
#include <crypt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "web_config.h"

static char dir[] = "/tmp/rxlat-web-config-test.XXXXXX";

/* text into dir/name; its path in a static buffer */
static const char *put(const char *name, const char *text)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "we");
	if (!f || fputs(text, f) < 0 || fclose(f))
		check_fail("cannot write %s", path);
	return path;
}

static struct web_config *load(const char *name, const char *text)
{
	struct web_config *w = NULL;

	if (web_config_load(&w, put(name, text), false))
		return NULL;
	return w;
}

static void test_taken(void)
{
	struct web_config *w = load("empty.yml", "");

	if (!w || w->tls || w->nusers || w->nheaders)
		check_fail("an empty file: no TLS, no users, no headers");
	web_config_free(w);
	w = load("nulls.yml", "tls_server_config:\nhttp_server_config: ~\nbasic_auth_users:\n");
	if (!w || w->tls)
		check_fail("fields given empty are absent");
	web_config_free(w);
	w = load("headers.yml",
		 "http_server_config:\n  http2: false\n  headers:\n"
		 "    X-Frame-Options: deny\n    Strict-Transport-Security: max-age=60\n");
	if (!w || w->nheaders != 2 || strcmp(w->headers[0].name, "X-Frame-Options") ||
	    strcmp(w->headers[1].value, "max-age=60"))
		check_fail("two headers, in the file's order");
	web_config_free(w);
	check_done("taken");
}

static void test_refused(void)
{
	static const char *const bad[] = {
		"tls_server_config:\n  cert_fil: x\n",
		"tls_server_config:\n  cipher_suites: [x]\n",
		"tls_server_config:\n  min_version: TLS12\n  min_version: TLS13\n",
		"tls_server_config:\n  cert_file: a\n", /* no key_file */
		"tls_server_config:\n  min_version: TLS14\n",
		"tls_server_config:\n  client_auth_type: RequireAndVerifyClientCert\n", /* no CA */
		"tls_server_config: [a]\n",
		"http_server_config:\n  headers:\n    Content-Type: text/html\n",
		"http_server_config:\n  http2: true\n",
		"basic_auth_users:\n  prometheus: secret\n",
		"basic_auth_users:\n  prometheus: $2y$10$short\n",
		"rate_limit:\n  interval: 1s\n",
		"metrics_path: /x\n",
		"[\n",
	};
	struct web_config *w;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		w = load("bad.yml", bad[i]);
		if (w)
			check_fail("taken: %s", bad[i]);
		web_config_free(w);
	}
	if (!web_config_load(&w, "/nonexistent/web.yml", false)) {
		check_fail("a missing file taken");
		web_config_free(w);
	}
	check_done("refused");
}

static void test_auth(void)
{
	char salt[CRYPT_GENSALT_OUTPUT_SIZE], yml[256];
	struct crypt_data cd = { 0 };
	struct web_config *w;
	const char *hash;

	/* cost 4: the test's own speed; the file takes any cost */
	if (!crypt_gensalt_rn("$2b$", 4, NULL, 0, salt, sizeof(salt)) ||
	    !(hash = crypt_r("scrape me", salt, &cd))) {
		check_skip("auth", "this libcrypt makes no bcrypt hash");
		return;
	}
	snprintf(yml, sizeof(yml), "basic_auth_users:\n  prometheus: %s\n  other: %s\n", hash,
		 hash);
	w = load("auth.yml", yml);
	if (!w || w->nusers != 2) {
		check_fail("two users taken");
	} else {
		if (!web_config_auth(w, "prometheus", "scrape me"))
			check_fail("the right password refused");
		if (!w->users[0].ok_set)
			check_fail("a match not remembered");
		if (!web_config_auth(w, "prometheus", "scrape me"))
			check_fail("the remembered password refused");
		if (web_config_auth(w, "prometheus", "scrape you"))
			check_fail("a wrong password taken after a right one");
		if (web_config_auth(w, "prometheu", "scrape me") ||
		    web_config_auth(w, "prometheuss", "scrape me") || web_config_auth(w, "", ""))
			check_fail("a user not in the file taken");
		if (web_config_auth(w, "other", "") || !web_config_auth(w, "other", "scrape me"))
			check_fail("the second user");
	}
	web_config_free(w);
	check_done("auth");
}

static void test_changed(void)
{
	struct web_config *w = load("changed.yml", "basic_auth_users:\n");

	if (!w) {
		check_fail("not loaded");
	} else {
		if (web_config_changed(w))
			check_fail("changed at once");
		/* a rename over it, as an editor or a Secret's update does */
		put("changed.yml.new", "basic_auth_users:\n");
		{
			char a[256], b[256];

			snprintf(a, sizeof(a), "%s/changed.yml.new", dir);
			snprintf(b, sizeof(b), "%s/changed.yml", dir);
			if (rename(a, b))
				check_fail("rename");
		}
		if (!web_config_changed(w))
			check_fail("a file renamed over it not seen");
		web_config_seen(w);
		if (web_config_changed(w))
			check_fail("seen, still changed");
	}
	web_config_free(w);
	check_done("changed");
}

int main(int argc, char **argv)
{
	char cmd[64];

	check_args(argc, argv);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	/* the refusals' lines are expected: test_webconfig.sh checks them */
	if (!freopen("/dev/null", "w", stderr))
		return 1;
	CHECK_RUN(test_taken);
	CHECK_RUN(test_refused);
	CHECK_RUN(test_auth);
	CHECK_RUN(test_changed);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		check_fail("cannot remove %s", dir);
	return check_exit_status();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * exporter-toolkit's web configuration, read with libyaml and checked with
 * GnuTLS and libcrypt; see web_config.h.
 */
#include <crypt.h>
#include <errno.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <yaml.h>
#include "log.h"
#include "opt.h"
#include "web_config.h"

#define WEB_FILE_MAX (1 << 20) /* a PEM file or the configuration */
#define KEPT	     "; still serving with the file as it was read before"

enum { F_CONFIG, F_CERT, F_KEY, F_CA };

struct parse {
	struct web_config *w;
	yaml_document_t doc;
	const char *cert_file, *key_file, *ca_file; /* as the file has them */
	const char *auth, *min, *max;
};

/* One line: "--web-config FILE: FIELD: why"; -EINVAL. */
static int bad(const struct web_config *w, const char *field, const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (w->again)
		rxlat_warn("%s %s: %s%s%s" KEPT, opt(OPT_WEB_CONFIG), w->path, field ? field : "",
			   field ? ": " : "", why);
	else
		rxlat_err("%s %s: %s%s%s", opt(OPT_WEB_CONFIG), w->path, field ? field : "",
			  field ? ": " : "", why);
	return -EINVAL;
}

/* ---- the YAML ------------------------------------------------------------ */

static yaml_node_t *node(struct parse *p, int id)
{
	return yaml_document_get_node(&p->doc, id);
}

/* A scalar's text; NULL for a mapping or a sequence. */
static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* "key:" with nothing, or null: the field is absent, as YAML has it */
static bool is_null(const yaml_node_t *n)
{
	const char *s = scalar(n);

	return s && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       (!*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
		!strcmp(s, "NULL"));
}

/* A string field's value, or an error naming it. */
static int string(struct parse *p, const yaml_node_t *v, const char *field, const char **out)
{
	if (is_null(v))
		return 0;
	*out = scalar(v);
	return *out ? 0 : bad(p->w, field, "must be a string");
}

typedef int (*field_fn)(struct parse *p, const char *field, yaml_node_t *v);

struct field {
	const char *name;
	field_fn fn; /* NULL: a field of exporter-toolkit's that rxlat does not read */
};

/*
 * Each key of mapping n through its entry of fields (up to 16), a key
 * given twice, unknown or not read by rxlat refused by name (prefix.key).
 */
static int mapping(struct parse *p, const char *prefix, yaml_node_t *n, const struct field *fields)
{
	bool seen[16] = { false };

	if (is_null(n))
		return 0;
	if (n->type != YAML_MAPPING_NODE)
		return bad(p->w, prefix[0] ? prefix : NULL, "must be a mapping");
	for (yaml_node_pair_t *pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top;
	     pr++) {
		const char *key = scalar(node(p, pr->key));
		char field[128];
		int i, err;

		snprintf(field, sizeof(field), "%s%s%s", prefix, prefix[0] ? "." : "",
			 key ? key : "?");
		for (i = 0; key && fields[i].name && strcmp(fields[i].name, key); i++)
			;
		if (!key || !fields[i].name)
			return bad(p->w, field, "unknown field");
		if (!fields[i].fn)
			return bad(p->w, field, "not supported by rxlat");
		if (seen[i])
			return bad(p->w, field, "given twice");
		seen[i] = true;
		err = fields[i].fn(p, field, node(p, pr->value));
		if (err)
			return err;
	}
	return 0;
}

/* ---- the fields ------------------------------------------------------------ */

static int f_cert_file(struct parse *p, const char *field, yaml_node_t *v)
{
	return string(p, v, field, &p->cert_file);
}

static int f_key_file(struct parse *p, const char *field, yaml_node_t *v)
{
	return string(p, v, field, &p->key_file);
}

static int f_ca_file(struct parse *p, const char *field, yaml_node_t *v)
{
	return string(p, v, field, &p->ca_file);
}

static int f_auth(struct parse *p, const char *field, yaml_node_t *v)
{
	return string(p, v, field, &p->auth);
}

static int f_min(struct parse *p, const char *field, yaml_node_t *v)
{
	return string(p, v, field, &p->min);
}

static int f_max(struct parse *p, const char *field, yaml_node_t *v)
{
	return string(p, v, field, &p->max);
}

static const struct field tls_fields[] = {
	{ "cert_file", f_cert_file },
	{ "key_file", f_key_file },
	{ "client_auth_type", f_auth },
	{ "client_ca_file", f_ca_file },
	{ "min_version", f_min },
	{ "max_version", f_max },
	{ "cert", NULL },
	{ "key", NULL },
	{ "client_ca", NULL },
	{ "client_allowed_sans", NULL },
	{ "cipher_suites", NULL },
	{ "prefer_server_cipher_suites", NULL },
	{ "curve_preferences", NULL },
	{ NULL, NULL },
};

static int f_tls(struct parse *p, const char *field, yaml_node_t *v)
{
	return mapping(p, field, v, tls_fields);
}

/* exporter-toolkit's list: the security headers, nothing that changes the exposition */
static const char *const header_names[] = {
	"Strict-Transport-Security", "X-Content-Type-Options",	"X-Frame-Options",
	"X-XSS-Protection",	     "Content-Security-Policy", NULL,
};

static int f_headers(struct parse *p, const char *field, yaml_node_t *v)
{
	struct web_config *w = p->w;
	size_t n;

	if (is_null(v))
		return 0;
	if (v->type != YAML_MAPPING_NODE)
		return bad(w, field, "must be a mapping of header names to values");
	n = (size_t)(v->data.mapping.pairs.top - v->data.mapping.pairs.start);
	w->headers = calloc(n ? n : 1, sizeof(*w->headers));
	if (!w->headers)
		return bad(w, field, "out of memory");
	for (yaml_node_pair_t *pr = v->data.mapping.pairs.start; pr < v->data.mapping.pairs.top;
	     pr++) {
		const char *name = scalar(node(p, pr->key)), *value = scalar(node(p, pr->value));
		size_t i;

		for (i = 0; name && header_names[i] && strcmp(header_names[i], name); i++)
			;
		if (!name || !header_names[i])
			return bad(w, field,
				   "%s: not a header rxlat sets (those are %s, %s, %s, %s and %s)",
				   name ? name : "?", header_names[0], header_names[1],
				   header_names[2], header_names[3], header_names[4]);
		if (!value || strpbrk(value, "\r\n"))
			return bad(w, field, "%s: its value must be a string of one line", name);
		for (i = 0; i < w->nheaders; i++)
			if (!strcmp(w->headers[i].name, name))
				return bad(w, field, "%s: given twice", name);
		w->headers[w->nheaders].name = strdup(name);
		w->headers[w->nheaders].value = strdup(value);
		if (!w->headers[w->nheaders].name || !w->headers[w->nheaders++].value)
			return bad(w, field, "out of memory");
	}
	return 0;
}

static int f_http2(struct parse *p, const char *field, yaml_node_t *v)
{
	const char *s = scalar(v);

	if (is_null(v) || (s && !strcmp(s, "false")))
		return 0;
	return bad(p->w, field, "rxlat serves HTTP/1.1 only: leave it out or set it to false");
}

static const struct field http_fields[] = {
	{ "headers", f_headers },
	{ "http2", f_http2 },
	{ NULL, NULL },
};

static int f_http(struct parse *p, const char *field, yaml_node_t *v)
{
	return mapping(p, field, v, http_fields);
}

/* A bcrypt hash that libcrypt takes: $2a$, $2b$ or $2y$, cost, salt and hash. */
static bool is_bcrypt(struct crypt_data *cd, const char *hash)
{
	const char *out;

	if (strlen(hash) != 60 || hash[0] != '$' || hash[1] != '2' || !strchr("aby", hash[2]) ||
	    hash[3] != '$')
		return false;
	out = crypt_r("", hash, cd);
	return out && out[0] != '*' && strlen(out) == 60 && !strncmp(out, hash, 29);
}

static int f_users(struct parse *p, const char *field, yaml_node_t *v)
{
	struct web_config *w = p->w;
	size_t n;

	if (is_null(v))
		return 0;
	if (v->type != YAML_MAPPING_NODE)
		return bad(w, field, "must be a mapping of user names to bcrypt hashes");
	n = (size_t)(v->data.mapping.pairs.top - v->data.mapping.pairs.start);
	w->users = calloc(n ? n : 1, sizeof(*w->users));
	if (!w->users)
		return bad(w, field, "out of memory");
	for (yaml_node_pair_t *pr = v->data.mapping.pairs.start; pr < v->data.mapping.pairs.top;
	     pr++) {
		const char *name = scalar(node(p, pr->key)), *hash = scalar(node(p, pr->value));
		struct web_user *u = &w->users[w->nusers];

		if (!name || !*name || strchr(name, ':'))
			return bad(w, field, "%s: not a user name (a string without ':')",
				   name ? name : "?");
		for (size_t i = 0; i < w->nusers; i++)
			if (!strcmp(w->users[i].name, name))
				return bad(w, field, "%s: given twice", name);
		if (!hash || !is_bcrypt(w->cd, hash))
			return bad(
			    w, field,
			    "%s: not a bcrypt hash ($2y$, $2b$ or $2a$, as 'htpasswd -nBC 10 "
			    "%s' prints)",
			    name, name);
		u->name = strdup(name);
		u->hash = strdup(hash);
		w->nusers++;
		if (!u->name || !u->hash)
			return bad(w, field, "out of memory");
	}
	return 0;
}

static const struct field top_fields[] = {
	{ "tls_server_config", f_tls },
	{ "http_server_config", f_http },
	{ "basic_auth_users", f_users },
	{ "rate_limit", NULL },
	{ NULL, NULL },
};

/* ---- the files it names ---------------------------------------------------- */

/* name relative to the configuration's folder, as exporter-toolkit resolves it */
static char *resolve(const struct web_config *w, const char *name)
{
	char *dir, *tmp, *out = NULL;

	if (name[0] == '/')
		return strdup(name);
	tmp = strdup(w->path);
	if (!tmp)
		return NULL;
	dir = dirname(tmp);
	if (!strcmp(dir, "."))
		out = strdup(name);
	else if (asprintf(&out, "%s/%s", dir, name) < 0)
		out = NULL;
	free(tmp);
	return out;
}

/* File which's whole text into *out, its path into w->files[which]. */
static int read_file(struct web_config *w, int which, const char *field, const char *name,
		     char **out)
{
	char *path = which == F_CONFIG ? strdup(name) : resolve(w, name), *buf = NULL;
	struct stat st;
	size_t n = 0;
	FILE *f;
	int err = 0;

	if (!path)
		return bad(w, field, "out of memory");
	w->files[which] = path;
	f = fopen(path, "re");
	if (!f || fstat(fileno(f), &st)) {
		err = -errno;
		if (f)
			fclose(f);
		if (which == F_CONFIG)
			bad(w, NULL, "cannot read it: %s", strerror(-err));
		else
			bad(w, field, "%s: cannot read it: %s", path, strerror(-err));
		return err;
	}
	w->mtime[which] = st.st_mtim;
	w->ino[which] = st.st_ino;
	if (st.st_size > WEB_FILE_MAX) {
		err = bad(w, field, "%s: larger than %d bytes", path, WEB_FILE_MAX);
	} else {
		buf = malloc((size_t)st.st_size + 1);
		n = buf ? fread(buf, 1, (size_t)st.st_size, f) : 0;
		if (!buf || ferror(f))
			err = bad(w, field, "%s: cannot read it", path);
		else
			buf[n] = '\0';
	}
	fclose(f);
	if (err)
		free(buf);
	else
		*out = buf;
	return err;
}

static gnutls_datum_t datum(const char *s)
{
	return (gnutls_datum_t){ .data = (unsigned char *)s, .size = (unsigned int)strlen(s) };
}

/* The certificate, key and client CA: read, parsed, the key the certificate's. */
static int check_tls(struct parse *p)
{
	struct web_config *w = p->w;
	gnutls_certificate_credentials_t x = NULL;
	gnutls_x509_crt_t *crts = NULL;
	gnutls_x509_privkey_t key = NULL;
	unsigned int ncrts = 0;
	gnutls_datum_t d;
	int err, r;

	if (!p->cert_file)
		return bad(w, "tls_server_config.cert_file", "missing (key_file needs it)");
	if (!p->key_file)
		return bad(w, "tls_server_config.key_file", "missing (cert_file needs it)");
	err = read_file(w, F_CERT, "tls_server_config.cert_file", p->cert_file, &w->cert);
	if (!err)
		err = read_file(w, F_KEY, "tls_server_config.key_file", p->key_file, &w->key);
	if (!err && p->ca_file)
		err = read_file(w, F_CA, "tls_server_config.client_ca_file", p->ca_file, &w->ca);
	if (err)
		return err;
	d = datum(w->cert);
	r = gnutls_x509_crt_list_import2(&crts, &ncrts, &d, GNUTLS_X509_FMT_PEM, 0);
	if (r < 0 || !ncrts)
		return bad(w, "tls_server_config.cert_file", "%s: no PEM certificate in it: %s",
			   w->files[F_CERT], r < 0 ? gnutls_strerror(r) : "empty");
	for (unsigned int i = 0; i < ncrts; i++)
		gnutls_x509_crt_deinit(crts[i]);
	gnutls_free(crts);
	d = datum(w->key);
	r = gnutls_x509_privkey_init(&key);
	if (!r)
		r = gnutls_x509_privkey_import2(key, &d, GNUTLS_X509_FMT_PEM, NULL, 0);
	gnutls_x509_privkey_deinit(key);
	if (r < 0)
		return bad(w, "tls_server_config.key_file",
			   "%s: no unencrypted PEM private key in it: %s", w->files[F_KEY],
			   gnutls_strerror(r));
	if (gnutls_certificate_allocate_credentials(&x))
		return bad(w, NULL, "out of memory");
	d = datum(w->cert);
	{
		gnutls_datum_t k = datum(w->key);

		r = gnutls_certificate_set_x509_key_mem(x, &d, &k, GNUTLS_X509_FMT_PEM);
	}
	if (r == GNUTLS_E_CERTIFICATE_KEY_MISMATCH)
		err = bad(w, "tls_server_config.key_file",
			  "%s is not the key of the certificate in %s", w->files[F_KEY],
			  w->files[F_CERT]);
	else if (r < 0)
		err = bad(w, "tls_server_config.key_file", "%s: %s", w->files[F_KEY],
			  gnutls_strerror(r));
	if (!err && w->ca) {
		d = datum(w->ca);
		r = gnutls_certificate_set_x509_trust_mem(x, &d, GNUTLS_X509_FMT_PEM);
		if (r <= 0)
			err = bad(w, "tls_server_config.client_ca_file",
				  "%s: no PEM certificate in it%s%s", w->files[F_CA],
				  r < 0 ? ": " : "", r < 0 ? gnutls_strerror(r) : "");
	}
	gnutls_certificate_free_credentials(x);
	return err;
}

/* TLS10..TLS13 as a rank, 0 for anything else */
static int version_rank(const char *v)
{
	static const char *const names[] = { "TLS10", "TLS11", "TLS12", "TLS13" };

	for (int i = 0; i < 4; i++)
		if (!strcmp(v, names[i]))
			return i + 1;
	return 0;
}

/* client_auth_type, min_version and max_version */
static int check_policy(struct parse *p)
{
	static const char *const vers[] = { "", "VERS-TLS1.0", "VERS-TLS1.1", "VERS-TLS1.2",
					    "VERS-TLS1.3" };
	struct web_config *w = p->w;
	int min = 3, max = 4; /* exporter-toolkit's default: TLS 1.2 and up */
	size_t used;

	if (!p->auth || !strcmp(p->auth, "NoClientCert"))
		w->client_auth = WEB_NO_CLIENT_CERT;
	else if (!strcmp(p->auth, "VerifyClientCertIfGiven"))
		w->client_auth = WEB_VERIFY_CLIENT_CERT_IF_GIVEN;
	else if (!strcmp(p->auth, "RequireAndVerifyClientCert"))
		w->client_auth = WEB_REQUIRE_AND_VERIFY_CLIENT_CERT;
	else if (!strcmp(p->auth, "RequestClientCert") ||
		 !strcmp(p->auth, "RequireAnyClientCert") || !strcmp(p->auth, "RequireClientCert"))
		return bad(w, "tls_server_config.client_auth_type",
			   "%s: not supported by rxlat (a certificate taken without being "
			   "verified): use RequireAndVerifyClientCert or VerifyClientCertIfGiven",
			   p->auth);
	else
		return bad(w, "tls_server_config.client_auth_type",
			   "%s: not a client_auth_type (NoClientCert, VerifyClientCertIfGiven, "
			   "RequireAndVerifyClientCert)",
			   p->auth);
	if (w->client_auth != WEB_NO_CLIENT_CERT && !p->ca_file)
		return bad(w, "tls_server_config.client_ca_file",
			   "missing: client_auth_type %s verifies against it", p->auth);
	if (w->client_auth == WEB_NO_CLIENT_CERT && p->ca_file)
		return bad(w, "tls_server_config.client_ca_file",
			   "given without a client_auth_type that verifies client certificates");
	if (p->min && !(min = version_rank(p->min)))
		return bad(w, "tls_server_config.min_version",
			   "%s: not TLS10, TLS11, TLS12 or TLS13", p->min);
	if (p->max && !(max = version_rank(p->max)))
		return bad(w, "tls_server_config.max_version",
			   "%s: not TLS10, TLS11, TLS12 or TLS13", p->max);
	if (min > max)
		return bad(w, "tls_server_config.max_version", "%s is below min_version %s", p->max,
			   p->min ? p->min : "TLS12");
	used = (size_t)snprintf(w->priorities, sizeof(w->priorities), "NORMAL:-VERS-ALL");
	for (int v = max; v >= min; v--)
		used += (size_t)snprintf(w->priorities + used, sizeof(w->priorities) - used, ":+%s",
					 vers[v]);
	return 0;
}

/* ---- the whole ---------------------------------------------------------------- */

static int parse_text(struct parse *p, const char *text)
{
	struct web_config *w = p->w;
	yaml_parser_t yp;
	yaml_node_t *root;
	int err = 0;

	if (!yaml_parser_initialize(&yp))
		return bad(w, NULL, "out of memory");
	yaml_parser_set_input_string(&yp, (const unsigned char *)text, strlen(text));
	if (!yaml_parser_load(&yp, &p->doc)) {
		err = bad(w, NULL, "line %zu: not YAML: %s", yp.problem_mark.line + 1,
			  yp.problem ? yp.problem : "?");
		yaml_parser_delete(&yp);
		memset(&p->doc, 0, sizeof(p->doc));
		return err;
	}
	yaml_parser_delete(&yp);
	root = yaml_document_get_root_node(&p->doc);
	if (root)
		err = mapping(p, "", root, top_fields);
	if (!err && (p->cert_file || p->key_file || p->auth || p->ca_file || p->min || p->max)) {
		w->tls = true;
		err = check_policy(p);
		if (!err)
			err = check_tls(p);
	}
	return err;
}

int web_config_load(struct web_config **out, const char *path, bool again)
{
	struct web_config *w = calloc(1, sizeof(*w));
	struct parse p = { .w = w };
	char *text = NULL;
	int err;

	*out = NULL;
	if (!w || !(w->path = strdup(path)) || !(w->cd = calloc(1, sizeof(*w->cd)))) {
		web_config_free(w);
		rxlat_err("out of memory");
		return -ENOMEM;
	}
	w->again = again;
	err = read_file(w, F_CONFIG, NULL, path, &text);
	if (!err)
		err = parse_text(&p, text);
	yaml_document_delete(&p.doc);
	free(text);
	if (err) {
		web_config_free(w);
		return err;
	}
	*out = w;
	return 0;
}

void web_config_free(struct web_config *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->nusers; i++) {
		free(w->users[i].name);
		free(w->users[i].hash);
	}
	for (size_t i = 0; i < w->nheaders; i++) {
		free(w->headers[i].name);
		free(w->headers[i].value);
	}
	for (int i = 0; i < WEB_NR_FILES; i++)
		free(w->files[i]);
	free(w->users);
	free(w->headers);
	free(w->cert);
	free(w->key);
	free(w->ca);
	free(w->cd);
	free(w->path);
	free(w);
}

bool web_config_changed(const struct web_config *w)
{
	struct stat st = { 0 };

	for (int i = 0; i < WEB_NR_FILES; i++) {
		if (!w->files[i])
			continue;
		/* a Secret's files are symlinks swapped at once: stat() follows them */
		if (stat(w->files[i], &st))
			memset(&st, 0, sizeof(st)); /* gone: changed once, then seen as is */
		if (st.st_ino != w->ino[i] || st.st_mtim.tv_sec != w->mtime[i].tv_sec ||
		    st.st_mtim.tv_nsec != w->mtime[i].tv_nsec)
			return true;
	}
	return false;
}

void web_config_seen(struct web_config *w)
{
	struct stat st;

	for (int i = 0; i < WEB_NR_FILES; i++) {
		if (!w->files[i])
			continue;
		if (stat(w->files[i], &st))
			memset(&st, 0, sizeof(st));
		w->ino[i] = st.st_ino;
		w->mtime[i] = st.st_mtim;
	}
}

/* a and b equal, in time that depends on their lengths only */
static bool same(const void *a, size_t la, const void *b, size_t lb)
{
	const unsigned char *x = a, *y = b;
	unsigned char d = la != lb;

	for (size_t i = 0; i < la; i++)
		d |= x[i] ^ (lb ? y[i % lb] : 0);
	return !d;
}

bool web_config_auth(struct web_config *w, const char *user, const char *pass)
{
	struct web_user *match = NULL;
	unsigned char key[32];
	const char *out, *hash;
	size_t lu = strlen(user), lp = strlen(pass);
	char *both;
	bool ok;

	if (!w->nusers)
		return true;
	/* every name compared, the match or not: the time tells no user name */
	for (size_t i = 0; i < w->nusers; i++)
		if (same(w->users[i].name, strlen(w->users[i].name), user, lu))
			match = &w->users[i];
	both = malloc(lu + lp + 2);
	if (!both)
		return false;
	memcpy(both, user, lu + 1);
	memcpy(both + lu + 1, pass, lp + 1);
	ok = !gnutls_hash_fast(GNUTLS_DIG_SHA256, both, lu + lp + 1, key);
	free(both);
	if (ok && match && match->ok_set && same(match->ok, 32, key, 32))
		return true;
	/* an unknown user pays bcrypt too, against someone's hash */
	hash = match ? match->hash : w->users[0].hash;
	out = crypt_r(pass, hash, w->cd);
	ok = ok && match && out && same(out, strlen(out), hash, strlen(hash));
	if (ok) {
		memcpy(match->ok, key, sizeof(key));
		match->ok_set = true;
	}
	return ok;
}

// SPDX-License-Identifier: GPL-2.0
/* --web-config in libmicrohttpd; see prom_web.h. */
#include <errno.h>
#include <string.h>
#include <gnutls/gnutls.h>
#include <microhttpd.h>
#include "log.h"
#include "opt.h"
#include "prom_web.h"
#include "web_config.h"

#define REALM "rxlat"

int prom_web_options(const struct web_config *w, unsigned int *flags,
		     struct MHD_OptionItem opts[PROM_WEB_OPTS])
{
	int n = 0;

	if (w && w->tls) {
		if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
			rxlat_err("%s %s: this libmicrohttpd was built without TLS",
				  opt(OPT_WEB_CONFIG), w->path);
			return -EOPNOTSUPP;
		}
		*flags |= MHD_USE_TLS;
		/* the strings are w's, which outlives the daemon */
		opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT, 0, w->cert };
		opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0, w->key };
		opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_PRIORITIES, 0,
						     (void *)w->priorities };
		if (w->ca)
			opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_TRUST, 0, w->ca };
	}
	opts[n] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
	return 0;
}

static gnutls_session_t session(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci =
	    MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);

	return ci ? ci->tls_session : NULL;
}

void prom_web_connection(const struct web_config *w, struct MHD_Connection *conn)
{
	gnutls_session_t s;

	if (!w || !w->tls || w->client_auth == WEB_NO_CLIENT_CERT || !(s = session(conn)))
		return;
	if (w->client_auth == WEB_VERIFY_CLIENT_CERT_IF_GIVEN) {
		gnutls_certificate_server_set_request(s, GNUTLS_CERT_REQUEST);
		return;
	}
	/* the handshake fails without a certificate that the client CA signed, as Go's does */
	gnutls_certificate_server_set_request(s, GNUTLS_CERT_REQUIRE);
	gnutls_session_set_verify_cert(s, NULL, 0);
}

/* A client certificate as w asks: none where none is required, else one verified. */
static bool cert_ok(const struct web_config *w, struct MHD_Connection *conn)
{
	gnutls_session_t s;
	unsigned int n = 0, status = 0;

	if (!w->tls || w->client_auth == WEB_NO_CLIENT_CERT)
		return true;
	s = session(conn);
	if (!s)
		return false;
	if (!gnutls_certificate_get_peers(s, &n) || !n)
		return w->client_auth == WEB_VERIFY_CLIENT_CERT_IF_GIVEN;
	return !gnutls_certificate_verify_peers2(s, &status) && !status;
}

static struct MHD_Response *text(const char *body)
{
	struct MHD_Response *r =
	    MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_PERSISTENT);

	if (r)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
					"text/plain; charset=utf-8");
	return r;
}

bool prom_web_refused(struct web_config *w, struct MHD_Connection *conn, __u64 *failures,
		      enum MHD_Result *ret)
{
	struct MHD_Response *r;
	char *user, *pass = NULL;
	bool ok;

	if (!w)
		return false;
	if (!cert_ok(w, conn)) {
		r = text("forbidden: no verified client certificate\n");
		prom_web_headers(w, r);
		*ret = r ? MHD_queue_response(conn, MHD_HTTP_FORBIDDEN, r) : MHD_NO;
		if (r)
			MHD_destroy_response(r);
		return true;
	}
	if (!w->nusers)
		return false;
	user = MHD_basic_auth_get_username_password(conn, &pass);
	ok = user && pass && web_config_auth(w, user, pass);
	if (pass)
		gnutls_memset(pass, 0, strlen(pass));
	MHD_free(user);
	MHD_free(pass);
	if (ok)
		return false;
	(*failures)++;
	r = text("unauthorized: /metrics needs a user and password\n");
	prom_web_headers(w, r);
	*ret = r ? MHD_queue_basic_auth_fail_response(conn, REALM, r) : MHD_NO;
	if (r)
		MHD_destroy_response(r);
	return true;
}

void prom_web_headers(const struct web_config *w, struct MHD_Response *r)
{
	for (size_t i = 0; w && r && i < w->nheaders; i++)
		MHD_add_response_header(r, w->headers[i].name, w->headers[i].value);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * /metrics over HTTP with libmicrohttpd, in its external-epoll mode: MHD's
 * epoll fd, a timerfd and an eventfd sit in an epoll set of their own, whose
 * fd rxlat's main loop watches; prom_handle() runs MHD and re-arms the
 * timer to what MHD_get_timeout() asks, or, where that is 0 (MHD has data
 * ready to send), writes the eventfd: the loop comes back at once, after
 * its other fds had their turn.
 *
 * One thread, so a scrape reads the maps, the interface names and the
 * stamper exactly as the reports do, with no lock, and no thread is left
 * holding capabilities that caps_drop() took from the main one.
 *
 * What a client cannot do (MHD itself answers most malformed requests
 * with 400 and header blocks over the connection's memory with 431; the
 * rest, see answer_refused(), get their 400 from here):
 *  - take more than PROM_REQUEST_S to send a request (a slow client, one
 *    byte a second, is cut off: MHD's own timeout is for silence only);
 *  - take more than PROM_RESPONSE_S to read a response;
 *  - hold all connections: past PROM_CONN_MAX the oldest one that has not
 *    sent its request for a second is closed, past 3 x PROM_CONN_MAX the
 *    oldest that has not sent it at all, so that a scrape still gets in
 *    (MHD stops accepting at 4 x PROM_CONN_MAX).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include <linux/sockios.h>
#include <linux/tcp.h>
#include <microhttpd.h>
#include "config.h"
#include "log.h"
#include "opt.h"
#include "prom.h"
#include "prom_listen.h"
#include "prom_web.h"
#include "signals.h"
#include "web_config.h"

#define PROM_CONN_MAX	64
#define PROM_IDLE_S	10 /* MHD's timeout: a connection silent this long is closed */
#define PROM_REQUEST_S	10
#define PROM_RESPONSE_S 30
#define PROM_HEADER_MEM (32 * 1024) /* request header block, and the send buffer */
#define PROM_BLOCK	(16 * 1024)
/*
 * MHD runs per wake-up while it has data ready to send: a scrape of 40 MB
 * is thousands of sends (a TLS record each), and each trip through the
 * main loop costs four system calls more than the send; the main loop
 * still has its turn every PROM_RUNS sends (at most half a megabyte).
 */
#define PROM_RUNS 16

struct prom_conn {
	struct prom_conn *next, **pprev;
	int fd;
	bool responding, cut;
	struct timespec since; /* opened, last response done, or request come */
	__u64 rcvd, sent;      /* TCP's byte counts when the last response was done */
};

struct prom_server {
	const struct rxlat_config *cfg;
	struct MHD_Daemon *d;
	int ep, tfd, kick;
	bool armed;		  /* tfd runs, to deadline */
	struct timespec deadline; /* CLOCK_MONOTONIC */
	struct prom_metrics *m;	  /* NULL until measuring starts */
	struct prom_conn *conns;
	unsigned int nconns;
	struct web_config *web; /* --web-config, NULL without */
	__u64 auth_failures;
	struct timespec looked; /* at web's files, for a change */
};

/* ---- connections ----------------------------------------------------- */

static double since_s(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t->tv_sec) + (now.tv_nsec - t->tv_nsec) / 1e9;
}

/* Closes c's socket for MHD to see: it then ends the connection as usual. */
static void cut(struct prom_conn *c)
{
	if (c->cut)
		return;
	c->cut = true;
	shutdown(c->fd, SHUT_RDWR);
}

/*
 * The oldest connection that has waited min_age or more for its request
 * goes, for a new one.
 */
static void make_room(struct prom_server *p, const struct prom_conn *keep, double min_age)
{
	struct prom_conn *old = NULL;

	for (struct prom_conn *c = p->conns; c; c = c->next)
		if (c != keep && !c->responding && !c->cut && since_s(&c->since) >= min_age &&
		    (!old || since_s(&c->since) > since_s(&old->since)))
			old = c;
	if (old)
		cut(old);
}

/* The bytes c's client sent, those written to it, and ms since it last sent. */
static int tcp_counts(const struct prom_conn *c, __u64 *rcvd, __u64 *sent, __u32 *quiet_ms)
{
	struct tcp_info ti = {};
	socklen_t len = sizeof(ti);
	int unacked = 0, again = -1;

	/*
	 * An ACK between the two reads moves bytes from the queue to acked:
	 * the queue read on both sides of TCP_INFO, until it did not change
	 * (nothing else writes meanwhile: this runs in MHD's thread).
	 */
	for (int tries = 0; tries < 8 && again != unacked; tries++) {
		if (ioctl(c->fd, SIOCOUTQ, &unacked) ||
		    getsockopt(c->fd, IPPROTO_TCP, TCP_INFO, &ti, &len) ||
		    len < offsetof(struct tcp_info, tcpi_bytes_received) +
			      sizeof(ti.tcpi_bytes_received) ||
		    ioctl(c->fd, SIOCOUTQ, &again))
			return -1;
		len = sizeof(ti);
	}
	if (again != unacked)
		return -1;
	*rcvd = ti.tcpi_bytes_received;
	/* written = acknowledged + still queued (no FIN yet: MHD_USE_TURBO) */
	*sent = ti.tcpi_bytes_acked + (__u64)unacked;
	*quiet_ms = ti.tcpi_last_data_recv;
	return 0;
}

/*
 * MHD 0.9.75 closes on a request line without a space ("garbage", "GET")
 * or without a method, and on a header line without a colon, sending
 * nothing: the client cannot tell a refusal from a crash. When MHD closes
 * a connection whose client sent bytes since the last response, none of
 * which reached on_request() and to which MHD wrote nothing, just after
 * they came (not its idle timeout, not rxlat's cut), the 400 is sent
 * here. MHD_USE_TURBO keeps MHD from shutting the socket down before this
 * runs; it closes it right after.
 */
static void answer_refused(const struct prom_conn *c)
{
	static const char body[] = "malformed request: the metrics are at GET /metrics\n";
	char bad[256];
	__u64 rcvd, sent;
	__u32 quiet_ms;
	int n;

	if (c->cut || c->responding || tcp_counts(c, &rcvd, &sent, &quiet_ms) || rcvd == c->rcvd ||
	    sent != c->sent || quiet_ms >= 1000 * PROM_IDLE_S / 2)
		return;
	n = snprintf(bad, sizeof(bad),
		     "HTTP/1.1 400 Bad Request\r\nConnection: close\r\n"
		     "Content-Type: text/plain; charset=utf-8\r\nContent-Length: %zu\r\n\r\n%s",
		     sizeof(body) - 1, body);
	/* a client already gone gets nothing: nobody is left to tell */
	(void)!send(c->fd, bad, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL);
}

static void on_connection(void *cls, struct MHD_Connection *conn, void **ctx,
			  enum MHD_ConnectionNotificationCode code)
{
	struct prom_server *p = cls;
	struct prom_conn *c = *ctx;
	const union MHD_ConnectionInfo *ci;

	if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (c) {
			/* a TLS client would take a 400 in clear text for garbage */
			if (!p->web || !p->web->tls)
				answer_refused(c);
			*c->pprev = c->next;
			if (c->next)
				c->next->pprev = c->pprev;
			p->nconns--;
			free(c);
		}
		*ctx = NULL;
		return;
	}
	prom_web_connection(p->web, conn);
	ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	c = calloc(1, sizeof(*c));
	if (!c || !ci) {
		free(c);
		return; /* not policed: MHD's own timeout still ends it */
	}
	c->fd = ci->connect_fd;
	clock_gettime(CLOCK_MONOTONIC, &c->since);
	c->next = p->conns;
	c->pprev = &p->conns;
	if (p->conns)
		p->conns->pprev = &c->next;
	p->conns = c;
	*ctx = c;
	/*
	 * Past PROM_CONN_MAX, a connection that has not sent its request for a
	 * second; near MHD's own limit (where it stops accepting and new
	 * connections wait in the kernel's queue), any that has not.
	 */
	if (++p->nconns > 3 * PROM_CONN_MAX)
		make_room(p, c, 0);
	else if (p->nconns > PROM_CONN_MAX)
		make_room(p, c, 1);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **req_ctx,
			 enum MHD_RequestTerminationCode code)
{
	const union MHD_ConnectionInfo *ci =
	    MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct prom_conn *c = ci ? ci->socket_context : NULL;

	(void)cls;
	(void)req_ctx;
	if (c) {
		__u64 rcvd;
		__u32 quiet_ms;

		c->responding = false;
		clock_gettime(CLOCK_MONOTONIC, &c->since);
		/* a request ended in error is no answer: answer_refused() may still */
		if (code == MHD_REQUEST_TERMINATED_COMPLETED_OK &&
		    tcp_counts(c, &rcvd, &c->sent, &quiet_ms))
			c->rcvd = c->sent = 0;
	}
}

/* Cuts the connections past their time; true while any is open. */
static bool police(struct prom_server *p)
{
	for (struct prom_conn *c = p->conns; c; c = c->next)
		if (since_s(&c->since) > (c->responding ? PROM_RESPONSE_S : PROM_REQUEST_S))
			cut(c);
	return p->conns != NULL;
}

/* ---- requests ---------------------------------------------------------- */

static ssize_t read_scrape(void *cls, uint64_t pos, char *buf, size_t max)
{
	ssize_t n = prom_scrape_read(cls, buf, max);

	(void)pos;
	if (n < 0)
		return MHD_CONTENT_READER_END_WITH_ERROR;
	return n ? n : MHD_CONTENT_READER_END_OF_STREAM;
}

static void free_scrape(void *cls)
{
	prom_scrape_free(cls);
}

static enum MHD_Result reply_text(const struct prom_server *p, struct MHD_Connection *conn,
				  unsigned int status, const char *text)
{
	struct MHD_Response *r =
	    MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	prom_web_headers(p->web, r);
	ret = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result reply_metrics(struct prom_server *p, struct MHD_Connection *conn)
{
	struct prom_scrape *s;
	struct MHD_Response *r;
	enum MHD_Result ret;
	enum prom_format fmt;

	if (!p->m)
		return reply_text(p, conn, MHD_HTTP_SERVICE_UNAVAILABLE, "rxlat is starting\n");
	fmt = prom_negotiate(
	    MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT));
	s = prom_scrape_new(p->m, fmt);
	if (!s)
		return reply_text(p, conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, PROM_BLOCK, read_scrape, s,
					      free_scrape);
	if (!r) {
		prom_scrape_free(s);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				fmt == PROM_FORMAT_PROTOBUF ? PROM_PROTOBUF_TYPE : PROM_TEXT_TYPE);
	/* the format follows the request's Accept: caches must not mix them */
	MHD_add_response_header(r, MHD_HTTP_HEADER_VARY, MHD_HTTP_HEADER_ACCEPT);
	prom_web_headers(p->web, r);
	ret = MHD_queue_response(conn, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **req_ctx)
{
	const union MHD_ConnectionInfo *ci =
	    MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct prom_conn *c = ci ? ci->socket_context : NULL;
	struct prom_server *p = cls;
	enum MHD_Result ret;

	static int started;

	(void)version;
	(void)upload;
	if (c && !c->responding) {
		__u64 sent;
		__u32 quiet_ms;

		c->responding = true;
		clock_gettime(CLOCK_MONOTONIC, &c->since);
		/*
		 * what the client sent up to this request: read here, not once
		 * answered, when it may have sent its next one already
		 */
		if (tcp_counts(c, &c->rcvd, &sent, &quiet_ms))
			c->rcvd = 0;
	}
	/* answered before any body is read: MHD then closes the connection */
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply_text(p, conn, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n");
	/*
	 * A response queued at the first call, when the headers are in, makes
	 * MHD close the connection after it: the second call (the request,
	 * body and all, read) keeps it open for the next scrape.
	 */
	if (!*req_ctx) {
		*req_ctx = &started;
		return MHD_YES;
	}
	if (*upload_size) {
		*upload_size = 0; /* a GET with a body: the body is dropped */
		return MHD_YES;
	}
	if (prom_web_refused(p->web, conn, &p->auth_failures, &ret))
		return ret;
	if (!strcmp(url, "/metrics"))
		return reply_metrics(p, conn);
	if (!strcmp(url, "/"))
		return reply_text(p, conn, MHD_HTTP_OK, "rxlat: the metrics are at /metrics\n");
	return reply_text(p, conn, MHD_HTTP_NOT_FOUND, "not found: the metrics are at /metrics\n");
}

/* MHD's messages (a client's broken request, mostly) with -v only */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[256];
	size_t n;

	(void)cls;
	if (!rxlat_log_on(RXLAT_LOG_DEBUG))
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n && msg[n - 1] == '\n')
		msg[--n] = '\0';
	rxlat_debug("prometheus endpoint: %s", msg);
}

/* ---- the server ---------------------------------------------------------- */

static int add_fd(int ep, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

static int start_daemon(struct prom_server *p, int lfd)
{
	const union MHD_DaemonInfo *di;
	/* TURBO: no shutdown() before NOTIFY_CLOSED, for answer_refused() */
	unsigned int flags = MHD_USE_EPOLL | MHD_USE_ERROR_LOG | MHD_USE_TURBO;
	struct MHD_OptionItem tls[PROM_WEB_OPTS];

	if (p->cfg->prom_addr.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	if (prom_web_options(p->web, &flags, tls)) {
		close(lfd);
		return -EOPNOTSUPP;
	}
	p->d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, p, MHD_OPTION_LISTEN_SOCKET, lfd,
				MHD_OPTION_ARRAY, tls, MHD_OPTION_CONNECTION_LIMIT,
				(unsigned int)(4 * PROM_CONN_MAX), MHD_OPTION_CONNECTION_TIMEOUT,
				(unsigned int)PROM_IDLE_S, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
				(size_t)PROM_HEADER_MEM, MHD_OPTION_NOTIFY_CONNECTION,
				on_connection, p, MHD_OPTION_NOTIFY_COMPLETED, on_completed, p,
				MHD_OPTION_EXTERNAL_LOGGER, mhd_log, p, MHD_OPTION_END);
	if (!p->d) {
		close(lfd); /* MHD owns it only once started */
		return -EIO;
	}
	di = MHD_get_daemon_info(p->d, MHD_DAEMON_INFO_EPOLL_FD);
	if (!di)
		return -EIO;
	return add_fd(p->ep, di->epoll_fd);
}

int prom_open(struct prom_server **out, const struct rxlat_config *cfg)
{
	struct prom_server *p;
	int lfd, err;

	*out = NULL;
	if (!cfg->prom_listen[0])
		return 0;
	p = calloc(1, sizeof(*p));
	if (!p) {
		rxlat_err("out of memory");
		return -ENOMEM;
	}
	p->cfg = cfg;
	p->tfd = p->kick = -1;
	p->web = cfg->web; /* the server's from now on: a re-read replaces it */
	p->ep = epoll_create1(EPOLL_CLOEXEC);
	lfd = prom_listen_socket(cfg);
	if (lfd < 0) {
		prom_close(p);
		return lfd;
	}
	p->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	p->kick = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	err = p->ep < 0 || p->tfd < 0 || p->kick < 0 ? -errno : add_fd(p->ep, p->tfd);
	if (!err)
		err = add_fd(p->ep, p->kick);
	if (!err && p->web) {
		int rfd = signals_reload_fd();

		err = rfd < 0 ? rfd : add_fd(p->ep, rfd);
	}
	if (err)
		close(lfd);
	else
		err = start_daemon(p, lfd);
	if (err) {
		rxlat_err("%s %s: cannot start the HTTP server: %s", opt(OPT_PROMETHEUS),
			  cfg->prom_listen, strerror(-err));
		prom_close(p);
		return err;
	}
	*out = p;
	return 0;
}

/* ADDR:PORT as a URL has it; a static buffer */
static const char *url_host(const struct rxlat_config *cfg)
{
	static char buf[INET6_ADDRSTRLEN + 16];
	const struct sockaddr_in *a4 = (const struct sockaddr_in *)&cfg->prom_addr;
	const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)&cfg->prom_addr;
	char host[INET6_ADDRSTRLEN] = "?";

	if (cfg->prom_addr.ss_family == AF_INET6) {
		inet_ntop(AF_INET6, &a6->sin6_addr, host, sizeof(host));
		snprintf(buf, sizeof(buf), "[%s]:%u", host, ntohs(a6->sin6_port));
	} else {
		inet_ntop(AF_INET, &a4->sin_addr, host, sizeof(host));
		snprintf(buf, sizeof(buf), "%s:%u", host, ntohs(a4->sin_port));
	}
	return buf;
}

int prom_start(struct prom_server *p, struct rxlat_model *model,
	       const char *const attach[RXLAT_NR_STAGES],
	       const struct rxlat_coverage coverage[RXLAT_NR_STAGES],
	       const struct rxlat_unreached_set *unreached)
{
	int err = prom_metrics_new(&p->m, model, p->cfg->prom_buckets, attach, coverage);

	if (err) {
		rxlat_err("%s: cannot set up the metrics: %s", opt(OPT_PROMETHEUS), strerror(-err));
		return err;
	}
	if (p->cfg->prom_classic)
		prom_metrics_set_classic(p->m);
	prom_metrics_set_unreached(p->m, unreached);
	prom_metrics_set_from(p->m, p->cfg->bpf.from);
	if (p->web)
		prom_metrics_set_auth_failures(p->m, &p->auth_failures);
	rxlat_info("metrics at %s://%s/metrics (text: %u buckets per histogram; protobuf: "
		   "native histograms%s)",
		   p->web && p->web->tls ? "https" : "http", url_host(p->cfg),
		   prom_nr_buckets(p->cfg->prom_buckets),
		   p->cfg->prom_classic ? " and the text's buckets" : "");
	return 0;
}

int prom_fd(const struct prom_server *p)
{
	return p ? p->ep : -1;
}

static bool before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec <= b->tv_nsec);
}

/*
 * The next wake-up: what MHD asks for, at most 1 s while connections are
 * policed. A large scrape comes here thousands of times: "at once" is an
 * eventfd write, and a timer already due no later is left as it is, as
 * arming a timer costs far more (1 ns timers took a third of a TLS
 * scrape's CPU in a VM); an early wake-up only comes back here.
 */
static void rearm(struct prom_server *p, bool policing)
{
	struct itimerspec its = {};
	struct timespec now;
	MHD_UNSIGNED_LONG_LONG ms;
	bool mhd = MHD_get_timeout(p->d, &ms) == MHD_YES;
	__u64 one = 1;

	if (policing && (!mhd || ms > 1000)) {
		ms = 1000;
		mhd = true;
	}
	if (!mhd)
		return; /* a timer still running wakes us once for nothing */
	if (!ms) {
		/* the count already non-zero: the wake-up is due anyway */
		(void)!write(p->kick, &one, sizeof(one));
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	its.it_value.tv_sec = now.tv_sec + (time_t)(ms / 1000);
	its.it_value.tv_nsec = now.tv_nsec + (long)(ms % 1000) * 1000000L;
	if (its.it_value.tv_nsec >= 1000000000L) {
		its.it_value.tv_sec++;
		its.it_value.tv_nsec -= 1000000000L;
	}
	if (p->armed && before(&now, &p->deadline) && before(&p->deadline, &its.it_value))
		return;
	if (!timerfd_settime(p->tfd, TFD_TIMER_ABSTIME, &its, NULL)) {
		p->armed = true;
		p->deadline = its.it_value;
	}
}

/*
 * The web configuration read again: MHD takes its certificates only as it
 * starts, so the daemon is restarted on the same listening socket (quiesced:
 * connections waiting in its queue stay there); those open are closed.
 */
static int reload(struct prom_server *p, const char *why)
{
	const union MHD_DaemonInfo *di = MHD_get_daemon_info(p->d, MHD_DAEMON_INFO_EPOLL_FD);
	struct web_config *w;
	MHD_socket lfd;
	int err;

	if (web_config_load(&w, p->cfg->web_config, true)) {
		web_config_seen(p->web); /* said once: not again until it changes */
		return 0;
	}
	lfd = MHD_quiesce_daemon(p->d);
	if (lfd == MHD_INVALID_SOCKET) {
		web_config_free(w);
		rxlat_err("%s: the HTTP server lost its listening socket", opt(OPT_PROMETHEUS));
		return -EIO;
	}
	if (di)
		epoll_ctl(p->ep, EPOLL_CTL_DEL, di->epoll_fd, NULL);
	MHD_stop_daemon(p->d);
	p->d = NULL;
	web_config_free(p->web);
	p->web = w;
	err = start_daemon(p, lfd);
	if (err) {
		rxlat_err("%s %s: cannot start the HTTP server again: %s", opt(OPT_PROMETHEUS),
			  p->cfg->prom_listen, strerror(-err));
		return err;
	}
	rxlat_info("%s %s: read again (%s)", opt(OPT_WEB_CONFIG), w->path, why);
	return 0;
}

/* SIGHUP, or (looked at once a second, at a connection) a file changed */
static int reload_due(struct prom_server *p)
{
	if (!p->web)
		return 0;
	if (signals_reload())
		return reload(p, "SIGHUP");
	if (since_s(&p->looked) < 1)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &p->looked);
	return web_config_changed(p->web) ? reload(p, "changed on disk") : 0;
}

int prom_handle(struct prom_server *p)
{
	__u64 ticks;
	int err;

	/* the timer or the eventfd, if they woke us (else EAGAIN: MHD's fd did) */
	if (read(p->tfd, &ticks, sizeof(ticks)) < 0) {
		if (errno != EAGAIN)
			return -errno;
	} else {
		p->armed = false;
	}
	if (read(p->kick, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
		return -errno;
	err = reload_due(p);
	if (err)
		return err;
	police(p);
	for (int i = 0; i < PROM_RUNS; i++) {
		MHD_UNSIGNED_LONG_LONG ms;

		if (MHD_run(p->d) != MHD_YES) {
			rxlat_err("%s: the HTTP server failed", opt(OPT_PROMETHEUS));
			return -EIO;
		}
		if (MHD_get_timeout(p->d, &ms) != MHD_YES || ms)
			break;
	}
	rearm(p, police(p));
	return 0;
}

void prom_close(struct prom_server *p)
{
	if (!p)
		return;
	if (p->d)
		MHD_stop_daemon(p->d); /* closes the connections and the listening socket */
	prom_metrics_free(p->m);
	web_config_free(p->web);
	if (p->tfd >= 0)
		close(p->tfd);
	if (p->kick >= 0)
		close(p->kick);
	if (p->ep >= 0)
		close(p->ep);
	free(p);
}

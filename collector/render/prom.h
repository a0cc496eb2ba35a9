/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Prometheus endpoint (--prometheus).
 *
 * prom.c prints the model's totals (collector/read/model.h) in the text
 * exposition format or, through prom_pb.c, the protobuf one: cumulative counts since the baseline
 * the reports start from too, never reset, never going down. It touches neither BPF nor HTTP, so a
 * test feeds it a model over plain memory (prom_test.c).
 *
 * prom_http.c serves it over HTTP with libmicrohttpd, driven from rxlat's
 * own epoll loop (docs/prometheus.md says why not a thread of its own).
 */
#ifndef RXLAT_PROM_H
#define RXLAT_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>
#include "rxlat.h"
#include "series.h"

/*
 * The two expositions: text (version 0.0.4), and protobuf, which carries
 * the latency as native histograms (delimited MetricFamily messages).
 */
enum prom_format { PROM_FORMAT_TEXT, PROM_FORMAT_PROTOBUF };

#define PROM_TEXT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define PROM_PROTOBUF_TYPE                                                           \
	"application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; " \
	"encoding=delimited"

/*
 * The format for a request's Accept header (NULL: none): protobuf when it
 * prefers that to text (a higher q), text otherwise.
 */
enum prom_format prom_negotiate(const char *accept);

struct rxlat_model;
struct prom_metrics;

/*
 * The exposition of model's totals; per_pow2 exported buckets per power of
 * two, attach the attach point of each stage (NULL: not attached), coverage
 * what each stage measures per protocol (NULL: nothing). 0, -EINVAL
 * (per_pow2 not 1, 2, 4 or 8) or -ENOMEM.
 */
int prom_metrics_new(struct prom_metrics **out, struct rxlat_model *model, unsigned int per_pow2,
		     const char *const attach[RXLAT_NR_STAGES],
		     const struct rxlat_coverage coverage[RXLAT_NR_STAGES]);
/* The tunnels that hide containers, read at each scrape (NULL: none). */
void prom_metrics_set_unreached(struct prom_metrics *m, const struct rxlat_unreached_set *u);
/*
 * With a protobuf scrape, the classic buckets too, beside the native ones
 * (--prometheus-classic).
 */
void prom_metrics_set_classic(struct prom_metrics *m);
/* The 401s of basic auth (--web-config), read at each scrape. */
void prom_metrics_set_auth_failures(struct prom_metrics *m, const __u64 *failures);
/* --from, in rxlat_build_info (default: stamp). */
void prom_metrics_set_from(struct prom_metrics *m, enum rxlat_from from);
void prom_metrics_free(struct prom_metrics *m);

/* Exported buckets per histogram, +Inf included. */
unsigned int prom_nr_buckets(unsigned int per_pow2);

/*
 * One scrape, rendered as it is read, so that a large exposition is never
 * whole in memory: each series is read from the live array when its turn
 * comes. The scrape uses m, which must outlive it.
 */
struct prom_scrape;
struct prom_scrape *prom_scrape_new(struct prom_metrics *m, enum prom_format fmt);
/* Up to max bytes of the exposition: their number, 0 at the end, or -ENOMEM. */
ssize_t prom_scrape_read(struct prom_scrape *s, char *buf, size_t max);
void prom_scrape_free(struct prom_scrape *s);

/*
 * prom_http.c: the HTTP server. prom_open() binds the listening socket (so
 * that a port in use is refused before anything is attached), prom_start()
 * takes the baseline once measuring starts, prom_fd() goes into the main
 * loop's epoll set and prom_handle() serves whatever is ready on it.
 */
struct rxlat_config;
struct prom_server;

int prom_open(struct prom_server **out, const struct rxlat_config *cfg);
/*
 * The model's totals from now on (its baseline taken); attach and coverage
 * as prom_metrics_new(), unreached as prom_metrics_set_unreached().
 */
int prom_start(struct prom_server *p, struct rxlat_model *model,
	       const char *const attach[RXLAT_NR_STAGES],
	       const struct rxlat_coverage coverage[RXLAT_NR_STAGES],
	       const struct rxlat_unreached_set *unreached);
int prom_fd(const struct prom_server *p);
int prom_handle(struct prom_server *p);
void prom_close(struct prom_server *p);

#endif /* RXLAT_PROM_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * rxlat-bench-fill: keeps every series of a running rxlat live without the
 * traffic that could reach them all. Given the id of rxlat's series array
 * (rxlat_hists) and rxlat's limits, it writes samples into stages x IFACES
 * x QUEUES series once per interval, each pass adding to the last, so that
 * every report interval sees all of them change. Prints the number of
 * series after the first pass, then runs until SIGINT or SIGTERM.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include "rxlat.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info), id, ni, nq, mi, mq, ms, s, i, q, key;
	struct rxlat_hist v;
	struct sigaction sa;
	struct timespec ts;
	unsigned long n = 0, pass;
	int fd;

	if (argc != 7) {
		fprintf(stderr, "usage: rxlat-bench-fill MAP-ID IFACES QUEUES MAX-IFACES "
				"MAX-QUEUES INTERVAL-MS\n");
		return 2;
	}
	id = strtoul(argv[1], NULL, 10);
	ni = strtoul(argv[2], NULL, 10);
	nq = strtoul(argv[3], NULL, 10);
	mi = strtoul(argv[4], NULL, 10);
	mq = strtoul(argv[5], NULL, 10);
	ms = strtoul(argv[6], NULL, 10);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	fd = bpf_map_get_fd_by_id(id);
	memset(&info, 0, sizeof(info));
	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len)) {
		fprintf(stderr, "rxlat-bench-fill: no map %u\n", id);
		return 1;
	}
	if (info.value_size != sizeof(v) || info.key_size != sizeof(key) ||
	    info.max_entries < rxlat_nr_series(mi, mq)) {
		fprintf(stderr,
			"rxlat-bench-fill: map %u (key %u, value %u bytes, %u entries) is not "
			"the series array this tree builds (value %zu bytes, %u series)\n",
			id, info.key_size, info.value_size, info.max_entries, sizeof(v),
			rxlat_nr_series(mi, mq));
		return 1;
	}
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000L;
	for (pass = 1; !stop; pass++) {
		memset(&v, 0, sizeof(v));
		/* 107 samples a pass: 100 at ~1.5 us, 7 at ~6 us */
		v.buckets[40] = 100 * pass;
		v.buckets[48] = 7 * pass;
		v.sum_ns = 107 * 2000 * pass;
		v.sources[RXLAT_SRC_XDP] = 107 * pass;
		for (s = 0; s < RXLAT_NR_STAGES; s++)
			for (i = 0; i < ni; i++)
				for (q = 0; q < nq; q++) {
					key = rxlat_series_index(s, i, q, mi, mq);
					if (bpf_map_update_elem(fd, &key, &v, BPF_ANY)) {
						perror("rxlat-bench-fill: update");
						return 1;
					}
					if (pass == 1)
						n++;
				}
		if (pass == 1) {
			printf("filled %lu\n", n);
			fflush(stdout);
		}
		nanosleep(&ts, NULL);
	}
	return 0;
}

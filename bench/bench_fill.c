// SPDX-License-Identifier: GPL-2.0
/*
 * rxlat-bench-fill: keeps every series of a running rxlat live without the
 * traffic that could reach them all. It finds rxlat's maps through the
 * process's file descriptors, claims a place for stages x IFACES x QUEUES
 * series the way the hooks do (rxlat then creates their chunks), and writes
 * samples into them once per interval, each pass adding to the last, so
 * that every report interval sees all of them change. Prints the number of
 * series after the first pass, then runs until SIGINT or SIGTERM (an
 * interval of 0: one pass, then exit).
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "rxlat.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* fd of PID's map named NAME (names are cut to 15 characters), or -1 */
static int map_of(int pid, const char *name, struct bpf_map_info *info)
{
	char path[64], line[128];
	struct dirent *d;
	DIR *dir;
	int fd = -1;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo", pid);
	dir = opendir(path);
	while (dir && fd < 0 && (d = readdir(dir))) {
		char p[320];
		FILE *f;
		unsigned int id = 0;

		snprintf(p, sizeof(p), "%s/%s", path, d->d_name);
		f = fopen(p, "r");
		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "map_id: %u", &id) == 1)
				break;
		if (f)
			fclose(f);
		if (id) {
			__u32 len = sizeof(*info);
			int mfd = bpf_map_get_fd_by_id(id);

			memset(info, 0, sizeof(*info));
			if (mfd >= 0 && !bpf_obj_get_info_by_fd(mfd, info, &len) &&
			    !strncmp(info->name, name, 15))
				fd = mfd;
			else if (mfd >= 0)
				close(mfd);
		}
	}
	if (dir)
		closedir(dir);
	return fd;
}

/* offset of global variable VAR in the data section map (BTF), or -1 */
static long var_offset(const struct bpf_map_info *info, const char *var)
{
	struct btf *btf = btf__load_from_kernel_by_id(info->btf_id);
	const struct btf_type *t;
	long off = -1;

	if (!btf)
		return -1;
	t = btf__type_by_id(btf, info->btf_value_type_id);
	if (t && btf_is_datasec(t)) {
		const struct btf_var_secinfo *v = btf_var_secinfos(t);

		for (int i = 0; i < btf_vlen(t); i++, v++)
			if (!strcmp(
				btf__name_by_offset(btf, btf__type_by_id(btf, v->type)->name_off),
				var))
				off = v->offset;
	}
	btf__free(btf);
	return off;
}

static void *map_mem(int fd, size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

int main(int argc, char **argv)
{
	struct bpf_map_info bss_info, of_info, ch_info;
	__u32 ni, nq, mi, mq, ms, nseries, base, *used;
	__u64 *owner;
	struct rxlat_dims d;
	int pid, bss, of, chunks;
	struct rxlat_hist v, **mem;
	struct sigaction sa;
	struct timespec ts;
	long st_off, own_off;
	__u64 *series_of;
	unsigned long n = 0, pass;
	char *data;

	if (argc != 7) {
		fprintf(stderr, "usage: rxlat-bench-fill RXLAT-PID IFACES QUEUES MAX-IFACES "
				"MAX-QUEUES INTERVAL-MS\n");
		return 2;
	}
	pid = atoi(argv[1]);
	ni = strtoul(argv[2], NULL, 10);
	nq = strtoul(argv[3], NULL, 10);
	mi = strtoul(argv[4], NULL, 10);
	mq = strtoul(argv[5], NULL, 10);
	ms = strtoul(argv[6], NULL, 10);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	bss = map_of(pid, "hooks_bp.bss", &bss_info);
	of = map_of(pid, "rxlat_series_of", &of_info);
	chunks = map_of(pid, "rxlat_hist_chun", &ch_info);
	/* the group slots (--by) are what the table holds beyond the rest */
	d = (struct rxlat_dims){ 0, mi, mq };
	base = RXLAT_NR_STAGES * (mi + 1) * (mq + 1);
	if (of >= 0 && of_info.max_entries % base == 0 && of_info.max_entries / base >= 3)
		d.max_groups = of_info.max_entries / base - 2;
	nseries = rxlat_nr_series(d);
	if (bss < 0 || of < 0 || chunks < 0 || of_info.max_entries != nseries) {
		fprintf(stderr,
			"rxlat-bench-fill: process %d holds no rxlat series maps for "
			"%u x %u\n",
			pid, mi, mq);
		return 1;
	}
	st_off = var_offset(&bss_info, "rxlat_state");
	own_off = var_offset(&bss_info, "rxlat_slot_owner");
	data = map_mem(bss, bss_info.value_size);
	series_of = map_mem(of, (size_t)nseries * sizeof(*series_of));
	mem = calloc(ch_info.max_entries, sizeof(*mem));
	if (st_off < 0 || own_off < 0 || !data || !series_of || !mem) {
		fprintf(stderr, "rxlat-bench-fill: cannot map rxlat's series maps\n");
		return 1;
	}
	used = (__u32 *)(data + st_off + offsetof(struct rxlat_bpf_state, series_used));
	owner = (__u64 *)(data + own_off);

	/* slots of their own for interfaces -i did not name, places as the hooks claim */
	for (__u32 i = 0; i < ni && i < RXLAT_MAX_IFACES_LIMIT; i++) {
		__u64 none = 0;

		__atomic_compare_exchange_n(&owner[i], &none, 100000 + i, false, __ATOMIC_SEQ_CST,
					    __ATOMIC_SEQ_CST);
	}
	for (__u32 s = 0; s < RXLAT_NR_STAGES; s++)
		for (__u32 i = 0; i < ni; i++)
			for (__u32 q = 0; q < nq; q++) {
				__u32 idx = rxlat_series_index(s, 0, i, q, d);
				__u64 none = 0,
				      place = __atomic_add_fetch(used, 1, __ATOMIC_SEQ_CST);

				__atomic_compare_exchange_n(&series_of[idx], &none, place, false,
							    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
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
		for (__u32 s = 0; s < RXLAT_NR_STAGES; s++)
			for (__u32 i = 0; i < ni; i++)
				for (__u32 q = 0; q < nq; q++) {
					__u64 place =
					    series_of[rxlat_series_index(s, 0, i, q, d)] - 1;
					__u32 c = place >> RXLAT_CHUNK_SHIFT, inner;

					/* rxlat makes the chunks within 0.2 s: wait for them */
					for (int t = 0; !mem[c] && t < 100 && !stop; t++) {
						int fd = -1;

						if (!bpf_map_lookup_elem(chunks, &c, &inner))
							fd = bpf_map_get_fd_by_id(inner);
						if (fd >= 0)
							mem[c] = map_mem(fd, RXLAT_CHUNK_SERIES *
										 sizeof(v));
						if (!mem[c])
							usleep(50000);
					}
					if (!mem[c]) {
						fprintf(
						    stderr,
						    "rxlat-bench-fill: rxlat made no chunk %u\n",
						    c);
						return 1;
					}
					mem[c][place & (RXLAT_CHUNK_SERIES - 1)] = v;
					if (pass == 1)
						n++;
				}
		if (pass == 1) {
			printf("filled %lu\n", n);
			fflush(stdout);
		}
		if (!ms)
			break;
		nanosleep(&ts, NULL);
	}
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * rxlat-bench-floor: loads bench/bench_floor.bpf.o and attaches every
 * program in it (the stamp floors only where the kernel takes their plain
 * loads through skb->head, and not with "no-stamp"), the cgroup_skb ones to
 * the cgroup v2 directory given, then
 * prints one "NAME ID" line per program and "ready", and holds the links
 * until SIGINT or SIGTERM. Links held by a
 * process go with it however it ends, so a killed benchmark leaves nothing
 * attached (bpftool 7.1 has no autoattach, and its cgroup attachments
 * outlive it).
 */
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#define MAX_LINKS 32

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level != LIBBPF_WARN)
		return 0;
	return vfprintf(stderr, fmt, args);
}

/* The object, loaded; with the stamp_* programs or without them. */
static struct bpf_object *open_load(const char *path, bool stamps)
{
	struct bpf_object *obj = bpf_object__open_file(path, NULL);
	struct bpf_program *p;

	if (!obj) {
		fprintf(stderr, "rxlat-bench-floor: cannot open %s\n", path);
		return NULL;
	}
	bpf_object__for_each_program (p, obj)
		if (!stamps && !strncmp(bpf_program__name(p), "stamp_", 6))
			bpf_program__set_autoload(p, false);
	if (!bpf_object__load(obj))
		return obj;
	bpf_object__close(obj);
	if (!stamps)
		fprintf(stderr, "rxlat-bench-floor: cannot load %s\n", path);
	return NULL;
}

int main(int argc, char **argv)
{
	struct bpf_link *links[MAX_LINKS];
	struct bpf_object *obj;
	struct bpf_program *p;
	struct sigaction sa;
	int n = 0, cg, rc = 1, i;
	bool stamps = true;

	if (argc == 4 && !strcmp(argv[3], "no-stamp"))
		stamps = false;
	else if (argc != 3) {
		fprintf(stderr, "usage: rxlat-bench-floor OBJECT CGROUP2-DIR [no-stamp]\n");
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	cg = open(argv[2], O_RDONLY | O_DIRECTORY);
	if (cg < 0) {
		perror(argv[2]);
		return 1;
	}
	/* libbpf's warnings of the first try would read as a failure */
	libbpf_set_print(NULL);
	obj = stamps ? open_load(argv[1], true) : NULL;
	libbpf_set_print(print_libbpf);
	if (!obj)
		obj = open_load(argv[1], false);
	if (!obj)
		goto out_cg;
	bpf_object__for_each_program (p, obj) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		struct bpf_link *l;

		if (n == MAX_LINKS)
			break;
		if (!bpf_program__autoload(p))
			continue;
		if (bpf_program__type(p) == BPF_PROG_TYPE_CGROUP_SKB)
			l = bpf_program__attach_cgroup(p, cg);
		else
			l = bpf_program__attach(p);
		if (!l) {
			fprintf(stderr, "rxlat-bench-floor: cannot attach %s\n",
				bpf_program__name(p));
			goto out_links;
		}
		links[n++] = l;
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len)) {
			fprintf(stderr, "rxlat-bench-floor: no id for %s\n", bpf_program__name(p));
			goto out_links;
		}
		printf("%s %u\n", bpf_program__name(p), info.id);
	}
	printf("ready\n");
	fflush(stdout);
	while (!stop)
		pause();
	rc = 0;
out_links:
	for (i = 0; i < n; i++)
		bpf_link__destroy(links[i]);
	bpf_object__close(obj);
out_cg:
	close(cg);
	return rc;
}

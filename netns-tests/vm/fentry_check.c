// SPDX-License-Identifier: GPL-2.0
/*
 * fentry_check [OBJECT]: loads fentry_check.bpf.o, attaches its fentry and
 * fexit programs to ip_rcv(), sends UDP datagrams over loopback and reports
 * how often each program ran. Exit status 0 only if both ran.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

static int send_loopback(int count)
{
	struct sockaddr_in dst = { .sin_family = AF_INET, .sin_port = htons(9) };
	int fd, i;

	dst.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return -errno;
	for (i = 0; i < count; i++)
		(void)sendto(fd, "rxlat", 5, 0, (struct sockaddr *)&dst, sizeof(dst));
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "fentry_check.bpf.o";
	struct bpf_link *links[2] = { NULL, NULL };
	struct bpf_program *prog;
	struct bpf_object *obj;
	struct bpf_map *bss = NULL, *map;
	uint64_t hits[2] = { 0, 0 };
	int err, n = 0, zero = 0, rc = 1;

	obj = bpf_object__open_file(path, NULL);
	if (!obj) {
		fprintf(stderr, "fentry_check: open %s: %s\n", path, strerror(errno));
		return 1;
	}
	err = bpf_object__load(obj);
	if (err) {
		fprintf(stderr, "fentry_check: load: %s\n", strerror(-err));
		goto out;
	}
	bpf_object__for_each_program (prog, obj) {
		if (n >= 2)
			break;
		links[n] = bpf_program__attach(prog);
		if (!links[n]) {
			fprintf(stderr, "fentry_check: attach %s: %s\n", bpf_program__name(prog),
				strerror(errno));
			goto out;
		}
		n++;
	}
	bpf_object__for_each_map (map, obj) {
		const char *name = bpf_map__name(map);
		size_t len = strlen(name);

		if (len >= 4 && strcmp(name + len - 4, ".bss") == 0)
			bss = map;
	}
	if (!bss || bpf_map__value_size(bss) < sizeof(hits)) {
		fprintf(stderr, "fentry_check: no .bss map\n");
		goto out;
	}
	err = send_loopback(10);
	if (err) {
		fprintf(stderr, "fentry_check: send: %s\n", strerror(-err));
		goto out;
	}
	usleep(100000);
	err = bpf_map__lookup_elem(bss, &zero, sizeof(zero), hits, sizeof(hits), 0);
	if (err) {
		fprintf(stderr, "fentry_check: read counters: %s\n", strerror(-err));
		goto out;
	}
	printf("fentry_check: fentry/ip_rcv ran %llu times, fexit/ip_rcv %llu times\n",
	       (unsigned long long)hits[0], (unsigned long long)hits[1]);
	rc = hits[0] > 0 && hits[1] > 0 ? 0 : 1;
out:
	while (n > 0)
		bpf_link__destroy(links[--n]);
	bpf_object__close(obj);
	return rc;
}

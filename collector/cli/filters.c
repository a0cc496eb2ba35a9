// SPDX-License-Identifier: GPL-2.0
/*
 * The filters' command line: --proto, --port and --cgroup, checked here so
 * that the BPF side (filters.bpf.h) only compares numbers.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include "config.h"
#include "log.h"

int filters_parse_proto(const char *val, struct rxlat_config *cfg)
{
	if (!strcmp(val, "tcp"))
		cfg->bpf.filter_proto = IPPROTO_TCP;
	else if (!strcmp(val, "udp"))
		cfg->bpf.filter_proto = IPPROTO_UDP;
	else {
		rxlat_err("invalid value '%s' for --proto: choose one of tcp, udp", val);
		return -1;
	}
	return 0;
}

int filters_parse_ports(const char *val, struct rxlat_config *cfg)
{
	char buf[1024], *tok, *save = NULL, *end;

	if (strlen(val) >= sizeof(buf)) {
		rxlat_err("--port: list too long (at most %zu characters)", sizeof(buf) - 1);
		return -1;
	}
	strcpy(buf, val);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		long p;

		errno = 0;
		p = strtol(tok, &end, 10);
		if (errno || end == tok || *end || p < 1 || p > 65535) {
			rxlat_err("invalid port '%s' in --port: give local ports from 1 to 65535, "
				  "comma-separated",
				  tok);
			return -1;
		}
		cfg->bpf.port_bits[p / 64] |= 1ull << (p % 64);
		cfg->bpf.filter_ports = 1;
	}
	if (!cfg->bpf.filter_ports) {
		rxlat_err("--port '%s' names no port: give local ports from 1 to 65535, "
			  "comma-separated",
			  val);
		return -1;
	}
	return 0;
}

/*
 * The id BPF reads from a socket's cgroup (its kernfs node id) is the
 * directory's file handle on cgroup2, as libbpf's and bpftool's cgroup
 * helpers take it.
 */
int filters_parse_cgroup(const char *path, struct rxlat_config *cfg)
{
	struct {
		struct file_handle fh;
		__u64 id;
	} h = { .fh.handle_bytes = sizeof(__u64) };
	struct statfs fs;
	int mount_id;

	if (strlen(path) >= sizeof(cfg->cgroup_path)) {
		rxlat_err("--cgroup: path too long (at most %zu characters)",
			  sizeof(cfg->cgroup_path) - 1);
		return -1;
	}
	if (statfs(path, &fs)) {
		rxlat_err("--cgroup %s: %s: give a cgroup directory under the cgroup v2 mount "
			  "(see 'findmnt -t cgroup2')",
			  path, strerror(errno));
		return -1;
	}
	if (fs.f_type != CGROUP2_SUPER_MAGIC) {
		rxlat_err("--cgroup %s is not a cgroup v2 directory: give one under the cgroup v2 "
			  "mount (see 'findmnt -t cgroup2')",
			  path);
		return -1;
	}
	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0) ||
	    h.fh.handle_bytes != sizeof(__u64)) {
		rxlat_err("--cgroup %s: cannot read its cgroup id: %s", path,
			  strerror(errno ? errno : EINVAL));
		return -1;
	}
	cfg->bpf.cgroup_id = h.id;
	cfg->bpf.filter_cgroup = 1;
	strcpy(cfg->cgroup_path, path);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The option values with a syntax of their own, each the parse() of its
 * entry in options_table.h: interfaces, stages, the Prometheus address, the
 * filters (checked here so that the BPF side, filters.bpf.h, only compares
 * numbers) and the --slow threshold.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <limits.h>
#include <unistd.h>
#include "cgroup2.h"
#include "log.h"
#include "options.h"
#include "web_config.h"

int parse_interface(const char *name, struct rxlat_config *cfg)
{
	int n = cfg->nifaces;
	__u32 ifindex;

	if (n >= RXLAT_MAX_CLI_IFACES) { /* argtable stops them before */
		rxlat_err("%s: at most %d interfaces can be named", opt_short(OPT_INTERFACE),
			  RXLAT_MAX_CLI_IFACES);
		return -1;
	}
	if (strlen(name) >= IF_NAMESIZE) {
		rxlat_err("'%s' is too long for an interface name (at most %d characters): see "
			  "'ip link' for the interfaces of this network namespace",
			  name, IF_NAMESIZE - 1);
		return -1;
	}
	if (!(ifindex = if_nametoindex(name))) {
		rxlat_err(
		    "unknown interface '%s': see 'ip link' for the interfaces of this network "
		    "namespace",
		    name);
		return -1;
	}
	for (int i = 0; i < n; i++)
		if (cfg->ifindexes[i] == ifindex) {
			rxlat_err("interface '%s' named twice", name);
			return -1;
		}
	cfg->ifindexes[n] = ifindex;
	strcpy(cfg->ifnames[n], name);
	cfg->nifaces++;
	return 0;
}

int parse_stages(const char *list, struct rxlat_config *cfg)
{
	char buf[256], *tok, *save = NULL;
	int named = 0;

	if (strlen(list) >= sizeof(buf)) {
		rxlat_err("%s: list too long", opt(OPT_STAGES));
		return -1;
	}
	strcpy(buf, list);
	/* "+LIST": LIST besides the stages measured by default */
	for (int s = 0; s < RXLAT_NR_STAGES; s++)
		cfg->stages[s] = list[0] == '+' && !RXLAT_STAGE_OPT_IN(s);
	for (tok = strtok_r(buf + (list[0] == '+'), ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int s = 0;

		while (s < RXLAT_NR_STAGES && strcmp(tok, rxlat_stage_names[s]))
			s++;
		if (s == RXLAT_NR_STAGES) {
			rxlat_err("unknown stage '%s' in %s: see rxlat %s", tok, opt(OPT_STAGES),
				  opt(OPT_LIST_STAGES));
			return -1;
		}
		cfg->stages[s] = true;
		named++;
	}
	if (!named) {
		rxlat_err("%s '%s' names no stage: give one or more of rxlat %s", opt(OPT_STAGES),
			  list, opt(OPT_LIST_STAGES));
		return -1;
	}
	return 0;
}

/* ---- --prometheus [ADDR:]PORT ------------------------------------------ */

static int bad_listen(const char *arg, const char *why)
{
	const char *name = opt(OPT_PROMETHEUS);

	rxlat_err("%s '%s': %s; give a port (127.0.0.1), ADDR:PORT or [ADDR6]:PORT, as in %s 9474 "
		  "or %s 0.0.0.0:9474",
		  name, arg, why, name, name);
	return -1;
}

static int parse_port(const char *arg, const char *s, in_port_t *port)
{
	char *end;
	long v;

	if (!*s || strspn(s, "0123456789") != strlen(s))
		return bad_listen(arg, "the port is not a number");
	v = strtol(s, &end, 10);
	if (v < 1 || v > 65535 || strlen(s) > 5)
		return bad_listen(arg, "the port must be from 1 to 65535");
	*port = htons((in_port_t)v);
	return 0;
}

/* ADDR numeric IPv4 or [IPv6]; a bare port binds 127.0.0.1 */
int parse_prometheus(const char *arg, struct rxlat_config *cfg)
{
	struct sockaddr_in *a4 = (struct sockaddr_in *)&cfg->prom_addr;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&cfg->prom_addr;
	const char *colon = strrchr(arg, ':');
	char host[64];
	size_t hl;

	memset(&cfg->prom_addr, 0, sizeof(cfg->prom_addr));
	if (strlen(arg) >= sizeof(cfg->prom_listen))
		return bad_listen(arg, "too long");
	snprintf(cfg->prom_listen, sizeof(cfg->prom_listen), "%s", arg);
	if (!colon) {
		a4->sin_family = AF_INET;
		a4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		return parse_port(arg, arg, &a4->sin_port);
	}
	hl = colon - arg;
	memcpy(host, arg, hl);
	host[hl] = '\0';
	if (hl >= 2 && host[0] == '[' && host[hl - 1] == ']') {
		host[hl - 1] = '\0';
		a6->sin6_family = AF_INET6;
		if (inet_pton(AF_INET6, host + 1, &a6->sin6_addr) != 1)
			return bad_listen(arg, "not a numeric IPv6 address in brackets");
		return parse_port(arg, colon + 1, &a6->sin6_port);
	}
	a4->sin_family = AF_INET;
	if (strchr(host, ':') || inet_pton(AF_INET, host, &a4->sin_addr) != 1)
		return bad_listen(arg, "not a numeric IPv4 address (IPv6 goes in brackets)");
	return parse_port(arg, colon + 1, &a4->sin_port);
}

/*
 * Read and checked here, as the command line is parsed: a broken file is
 * refused before anything is attached, or even looked at.
 */
int parse_web_config(const char *path, struct rxlat_config *cfg)
{
	if (strlen(path) >= sizeof(cfg->web_config)) {
		rxlat_err("%s: path too long (at most %zu characters)", opt(OPT_WEB_CONFIG),
			  sizeof(cfg->web_config) - 1);
		return -1;
	}
	snprintf(cfg->web_config, sizeof(cfg->web_config), "%s", path);
	web_config_free(cfg->web);
	return web_config_load(&cfg->web, path, false) ? -1 : 0;
}

/* ---- the filters -------------------------------------------------------- */

int parse_ports(const char *list, struct rxlat_config *cfg)
{
	char buf[1024], *tok, *save = NULL, *end;

	if (strlen(list) >= sizeof(buf)) {
		rxlat_err("%s: list too long (at most %zu characters)", opt(OPT_PORT),
			  sizeof(buf) - 1);
		return -1;
	}
	strcpy(buf, list);
	if (strpbrk(list, "0123456789") &&
	    (list[0] == ',' || strstr(list, ",,") || list[strlen(list) - 1] == ',')) {
		rxlat_err("%s '%s' has an empty entry: give local ports from 1 to 65535, "
			  "comma-separated",
			  opt(OPT_PORT), list);
		return -1;
	}
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		long p;

		errno = 0;
		p = strtol(tok, &end, 10);
		if (errno || end == tok || *end || p < 1 || p > 65535 || tok[0] == '+' ||
		    tok[0] == ' ') {
			rxlat_err("invalid port '%s' in %s: give local ports from 1 to 65535, "
				  "comma-separated",
				  tok, opt(OPT_PORT));
			return -1;
		}
		if (cfg->bpf.port_bits[p / 64] & (1ull << (p % 64))) {
			rxlat_err("port %ld given twice in %s '%s'", p, opt(OPT_PORT), list);
			return -1;
		}
		cfg->bpf.port_bits[p / 64] |= 1ull << (p % 64);
		cfg->bpf.filter_ports = 1;
	}
	if (!cfg->bpf.filter_ports) {
		rxlat_err(
		    "%s '%s' names no port: give local ports from 1 to 65535, comma-separated",
		    opt(OPT_PORT), list);
		return -1;
	}
	return 0;
}

/* pid's parent, from /proc/PID/stat ("PID (COMM) STATE PPID ..."), or 0 */
static pid_t parent_of(pid_t pid)
{
	char file[64], line[512], *p;
	int ppid = 0;
	FILE *f;

	snprintf(file, sizeof(file), "/proc/%d/stat", (int)pid);
	f = fopen(file, "re");
	if (!f)
		return 0;
	if (fgets(line, sizeof(line), f) && (p = strrchr(line, ')')))
		sscanf(p + 1, " %*c %d", &ppid);
	fclose(f);
	return ppid;
}

/*
 * A process whose cgroup2 mounts rxlat reads where its own mount namespace
 * has none: "ip netns exec" remounts /sys without cgroup2, and a --cgroup
 * path is then one its caller sees. The nearest ancestor in another mount
 * namespace (ip's caller, past wrappers such as setpriv or timeout run
 * under ip) with cgroup2 mounted, else pid 1; 0 if none. The first cgroup2
 * mount point goes into mnt.
 */
static pid_t cgroup2_caller(char *mnt, size_t len)
{
	struct stat self, other;
	char ns[64];
	pid_t pid = getppid();

	if (stat("/proc/self/ns/mnt", &self))
		return 0;
	for (int depth = 0; pid > 0 && depth<64; depth++, pid = pid> 1 ? parent_of(pid) : 0) {
		snprintf(ns, sizeof(ns), "/proc/%d/ns/mnt", (int)pid);
		if (!stat(ns, &other) && other.st_ino != self.st_ino)
			return cgroup2_mount_find(pid, NULL, mnt, len, NULL, 0) ? 0 : pid;
	}
	snprintf(ns, sizeof(ns), "/proc/1/ns/mnt");
	if (!stat(ns, &other) && other.st_ino != self.st_ino &&
	    !cgroup2_mount_find(1, NULL, mnt, len, NULL, 0))
		return 1;
	return 0;
}

/*
 * path looked up in the cgroup2 hierarchy through a private mount, as the
 * mount namespace of pid from sees it: an fd on the directory, -1 said, or
 * -EXDEV (nothing said) where path is on none of from's cgroup2 mounts.
 */
static int cgroup2_open_as(pid_t from, const char *path, const char *hint)
{
	const char *name = opt(OPT_CGROUP);
	char mnt[PATH_MAX], rel[PATH_MAX];
	int root, fd, err;

	if (cgroup2_mount_find(from, path, mnt, sizeof(mnt), rel, sizeof(rel)))
		return -EXDEV;
	root = cgroup2_private_open();
	if (root < 0) {
		rxlat_err("%s %s: no cgroup2 is mounted in this mount namespace, and mounting "
			  "one to find it failed: %s; run rxlat as root",
			  name, path, strerror(-root));
		return -1;
	}
	fd = openat(root, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	err = errno;
	close(root);
	if (fd >= 0)
		return fd;
	if (err == ENOTDIR)
		rxlat_err("%s %s is not a cgroup v2 directory: give one %s", name, path, hint);
	else
		rxlat_err("%s %s: %s: give a cgroup directory %s", name, path, strerror(err), hint);
	return -1;
}

/*
 * The id BPF reads from a socket's cgroup (its kernfs node id) is the
 * directory's file handle on cgroup2, as libbpf's and bpftool's cgroup
 * helpers take it. A hint names the cgroup2 mount by its path, the one of
 * the namespace the user typed the path in (the caller's under "ip netns
 * exec"), so that it can be followed as it stands under either way in.
 */
int parse_cgroup(const char *path, struct rxlat_config *cfg)
{
	struct {
		struct file_handle fh;
		__u64 id;
	} h = { .fh.handle_bytes = sizeof(__u64) };
	const char *name = opt(OPT_CGROUP);
	char mnt[PATH_MAX] = "", hint[PATH_MAX + 64];
	pid_t from = 0;
	struct statfs fs;
	struct stat st;
	int mount_id, fd = AT_FDCWD, err;

	if (strlen(path) >= sizeof(cfg->cgroup_path)) {
		rxlat_err("%s: path too long (at most %zu characters)", name,
			  sizeof(cfg->cgroup_path) - 1);
		return -1;
	}
	if (cgroup2_mount_find(0, NULL, mnt, sizeof(mnt), NULL, 0))
		from = cgroup2_caller(mnt, sizeof(mnt));
	if (mnt[0])
		snprintf(hint, sizeof(hint), "under the cgroup v2 mount %s", mnt);
	else
		snprintf(hint, sizeof(hint),
			 "on cgroup v2, which is mounted nowhere here: mount "
			 "it first, as in mount -t cgroup2 none /sys/fs/cgroup");
	if (from) {
		fd = cgroup2_open_as(from, path, hint);
		if (fd == -EXDEV)
			fd = AT_FDCWD;
		else if (fd < 0)
			return -1;
	}
	if (fd == AT_FDCWD ? statfs(path, &fs) || stat(path, &st)
			   : fstatfs(fd, &fs) || fstat(fd, &st)) {
		rxlat_err("%s %s: %s: give a cgroup directory %s", name, path, strerror(errno),
			  hint);
		goto fail;
	}
	if (fs.f_type != CGROUP2_SUPER_MAGIC || !S_ISDIR(st.st_mode)) {
		rxlat_err("%s %s is not a cgroup v2 directory: give one %s", name, path, hint);
		goto fail;
	}
	errno = 0;
	if ((fd == AT_FDCWD ? name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0)
			    : name_to_handle_at(fd, "", &h.fh, &mount_id, AT_EMPTY_PATH)) ||
	    h.fh.handle_bytes != sizeof(__u64)) {
		err = errno ? errno : EINVAL;
		rxlat_err("%s %s: cannot read its cgroup id: %s", name, path, strerror(err));
		goto fail;
	}
	if (fd != AT_FDCWD)
		close(fd);
	cfg->bpf.cgroup_id = h.id;
	cfg->bpf.filter_cgroup = 1;
	strcpy(cfg->cgroup_path, path);
	return 0;
fail:
	if (fd != AT_FDCWD)
		close(fd);
	return -1;
}

/* ---- --slow DURATION: "2ms", "500us", "1.5ms", "100000ns", "0.2s" -------- */

int parse_slow(const char *duration, struct rxlat_config *cfg)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };
	const char *name = opt(OPT_SLOW);
	char *end;
	double v = strtod(duration, &end);

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (end == duration || strcmp(end, units[i].unit))
			continue;
		v *= units[i].ns;
		if (!(v >= 1 && v < 1e18))
			break;
		cfg->bpf.slow_ns = (__u64)llround(v);
		return 0;
	}
	rxlat_err("invalid duration '%s' for %s: give a number and a unit, ns, us, ms or s, as in "
		  "%s 2ms",
		  duration, name, name);
	return -1;
}

int parse_heatmap(const char *path, struct rxlat_config *cfg)
{
	/* room for the ".tmp" it is written to first */
	if (!path[0] || strlen(path) + 4 >= sizeof(cfg->heatmap_path)) {
		rxlat_err(
		    "%s '%s': give the path of the SVG file to write (at most %zu characters)",
		    opt(OPT_HEATMAP), path, sizeof(cfg->heatmap_path) - 5);
		return -1;
	}
	snprintf(cfg->heatmap_path, sizeof(cfg->heatmap_path), "%s", path);
	return 0;
}

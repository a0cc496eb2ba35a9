// SPDX-License-Identifier: GPL-2.0
/*
 * The groups of --by (include/rxlat.h, enum rxlat_by): the names of the
 * network namespaces and cgroups the hooks saw samples in, and the release
 * of the group slots of those that are gone.
 *
 * A namespace is named by its bind mount under /run/netns (ip netns, CNI
 * plugins) or /var/run/docker/netns (Docker), else net:[inode] as
 * /proc/PID/ns/net shows it. A cgroup by its path under the cgroup v2 root,
 * found from its id (the inode number of its directory), and the container
 * id in it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "groups.h"
#include "hooks.h"
#include "log.h"
#include "plan.h"

/* Where named namespaces are bind-mounted. */
static const char *const netns_dirs[] = { "/run/netns", "/var/run/docker/netns" };

/* A gone group is released at the check after the one that found it gone. */
#define CHECK_EVERY_S 2

struct rxlat_groups {
	const struct rxlat_config *cfg;
	struct rxlat_hooks *hooks;
	__u32 n;	   /* group slots 0 .. max_groups */
	__u64 *key;	   /* as of the last check */
	__u32 *netns;	   /* each slot's namespace */
	__u64 *gone_key;   /* per slot: its key when the last check found it gone */
	char (*path)[256]; /* cgroup groups: the path, once named */
	int cg_root;	   /* the cgroup v2 root, -1 without --by cgroup */
	struct timespec last;
	__u32 *live; /* namespace inodes in use, sorted, and their count */
	size_t nlive;
};

__u32 netns_self(void)
{
	struct stat st;

	return stat("/proc/self/ns/net", &st) ? 0 : (__u32)st.st_ino;
}

int groups_new(struct rxlat_groups **out, const struct rxlat_config *cfg, struct rxlat_hooks *h)
{
	struct rxlat_groups *g = calloc(1, sizeof(*g));
	char how[160];

	*out = NULL;
	if (!g)
		return -ENOMEM;
	g->cfg = cfg;
	g->hooks = h;
	g->n = cfg->bpf.max_groups + 1;
	g->cg_root = -1;
	g->key = calloc(g->n, sizeof(*g->key));
	g->netns = calloc(g->n, sizeof(*g->netns));
	g->gone_key = calloc(g->n, sizeof(*g->gone_key));
	g->path = calloc(g->n, sizeof(*g->path));
	if (!g->key || !g->netns || !g->gone_key || !g->path) {
		groups_free(g);
		return -ENOMEM;
	}
	if (cfg->bpf.by == RXLAT_BY_CGROUP) {
		g->cg_root = plan_cgroup2_open(how, sizeof(how));
		if (g->cg_root < 0) {
			rxlat_warn("--by cgroup: no cgroup v2 to name cgroups by (%s): they are "
				   "named by their id",
				   strerror(-g->cg_root));
		}
	}
	*out = g;
	return 0;
}

void groups_free(struct rxlat_groups *g)
{
	if (!g)
		return;
	if (g->cg_root >= 0)
		close(g->cg_root);
	free(g->key);
	free(g->netns);
	free(g->gone_key);
	free(g->path);
	free(g->live);
	free(g);
}

void groups_netns_name(__u32 ino, char *name, size_t len)
{
	char path[PATH_MAX];
	struct dirent *e;
	struct stat st;

	for (size_t i = 0; i < sizeof(netns_dirs) / sizeof(netns_dirs[0]); i++) {
		DIR *d = opendir(netns_dirs[i]);

		while (d && (e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", netns_dirs[i], e->d_name);
			if (!stat(path, &st) && st.st_ino == ino) {
				snprintf(name, len, "%s", e->d_name);
				closedir(d);
				return;
			}
		}
		if (d)
			closedir(d);
	}
	snprintf(name, len, "net:[%u]", ino);
}

/*
 * Looks for the cgroup whose directory has inode id (a cgroup v2 id is its
 * kernfs node id, the inode number of its directory) under dir, path rel:
 * true with rel extended to it. A walk, rather than open_by_handle_at(),
 * which needs CAP_DAC_READ_SEARCH in the initial user namespace; it runs
 * once per new group.
 */
static bool find_cgroup(int dir, __u64 id, char *rel, size_t len, int depth)
{
	size_t at = strlen(rel);
	struct dirent *e;
	bool found = false;
	DIR *d;
	int fd;

	fd = dup(dir);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	/* a dup shares the file offset: the last walk left it where it stopped */
	rewinddir(d);
	while (!found && (e = readdir(d))) {
		struct stat st;
		int sub;

		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    at + strlen(e->d_name) + 2 > len)
			continue;
		snprintf(rel + at, len - at, "/%s", e->d_name);
		if ((__u64)st.st_ino == id)
			found = true;
		else if (depth < 32 && (sub = openat(dirfd(d), e->d_name,
						     O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
			found = find_cgroup(sub, id, rel, len, depth + 1);
			close(sub);
		}
		if (!found)
			rel[at] = '\0';
	}
	closedir(d);
	return found;
}

/* The path of cgroup id under the cgroup v2 root into path; -errno when not found. */
static int cgroup_path(const struct rxlat_groups *g, __u64 id, char *path, size_t len)
{
	struct stat st;

	if (g->cg_root < 0)
		return -ENOENT;
	if (!fstat(g->cg_root, &st) && (__u64)st.st_ino == id) {
		snprintf(path, len, "/");
		return 0;
	}
	path[0] = '\0';
	return find_cgroup(g->cg_root, id, path, len, 0) ? 0 : -ENOENT;
}

void groups_name(struct rxlat_groups *g, __u64 key, __u32 netns, struct model_group *out)
{
	int err;

	memset(out, 0, sizeof(*out));
	if (netns && netns != g->cfg->bpf.netns_ino) {
		groups_netns_name(netns, out->netns, sizeof(out->netns));
		out->netns_ino = netns;
	}
	if (key & RXLAT_GROUP_NETNS)
		return;
	hooks_groups(g->hooks, g->key, g->netns, g->n);
	err = cgroup_path(g, key, out->cgroup, sizeof(out->cgroup));
	if (err) {
		rxlat_debug("cgroup %llu: no path (%s)", (unsigned long long)key, strerror(-err));
		snprintf(out->cgroup, sizeof(out->cgroup), "cgroup:%llu", (unsigned long long)key);
	}
	model_container_id(out->cgroup, out->container, sizeof(out->container));
	for (__u32 i = 1; i < g->n; i++)
		if (g->key[i] == key)
			snprintf(g->path[i], sizeof(g->path[i]), "%s", out->cgroup);
}

static int cmp_u32(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

static int live_add(struct rxlat_groups *g, size_t *cap, const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return 0;
	if (g->nlive == *cap) {
		__u32 *n = realloc(g->live, (*cap ? *cap * 2 : 256) * sizeof(*n));

		if (!n)
			return -ENOMEM;
		g->live = n;
		*cap = *cap ? *cap * 2 : 256;
	}
	g->live[g->nlive++] = (__u32)st.st_ino;
	return 0;
}

/*
 * The network namespaces in use: those of the processes, and those bind-
 * mounted under the directories above (a namespace with no process in it).
 */
static int live_netns(struct rxlat_groups *g)
{
	char path[PATH_MAX];
	size_t cap = 0;
	struct dirent *e;
	int err = 0;
	DIR *d;

	g->nlive = 0;
	d = opendir("/proc");
	while (!err && d && (e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/ns/net", e->d_name);
		err = live_add(g, &cap, path);
	}
	if (d)
		closedir(d);
	for (size_t i = 0; !err && i < sizeof(netns_dirs) / sizeof(netns_dirs[0]); i++) {
		d = opendir(netns_dirs[i]);
		while (!err && d && (e = readdir(d))) {
			snprintf(path, sizeof(path), "%s/%s", netns_dirs[i], e->d_name);
			if (e->d_name[0] != '.')
				err = live_add(g, &cap, path);
		}
		if (d)
			closedir(d);
	}
	if (!err)
		qsort(g->live, g->nlive, sizeof(*g->live), cmp_u32);
	return err;
}

static bool group_gone(struct rxlat_groups *g, __u32 slot)
{
	__u64 key = g->key[slot];
	struct stat st;

	if (key & RXLAT_GROUP_NETNS)
		return !bsearch(&g->netns[slot], g->live, g->nlive, sizeof(*g->live), cmp_u32);
	if (g->cg_root < 0 || !g->path[slot][0] || g->path[slot][0] != '/')
		return false; /* not named by a path: never found gone */
	return fstatat(g->cg_root, g->path[slot][1] ? g->path[slot] + 1 : ".", &st, 0) &&
	       errno == ENOENT;
}

int groups_release_gone(struct rxlat_groups *g, void (*retire)(void *ctx, __u32 slot), void *ctx)
{
	struct timespec now;
	bool any = false;
	int released = 0, err;

	if (!g)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec - g->last.tv_sec < CHECK_EVERY_S)
		return 0;
	g->last = now;
	hooks_groups(g->hooks, g->key, g->netns, g->n);
	for (__u32 i = 1; i < g->n; i++)
		any |= g->key[i] != 0;
	if (!any)
		return 0;
	err = live_netns(g);
	if (err)
		return err;
	for (__u32 i = 1; i < g->n; i++) {
		__u64 key = g->key[i];

		if (key && key == g->gone_key[i]) {
			retire(ctx, i);
			hooks_release_group(g->hooks, i);
			g->path[i][0] = '\0';
			released++;
			key = 0;
		} else if (!key || !group_gone(g, i)) {
			key = 0;
		}
		g->gone_key[i] = key;
	}
	return released;
}

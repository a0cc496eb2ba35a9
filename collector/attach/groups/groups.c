// SPDX-License-Identifier: GPL-2.0
/*
 * The groups of --by (include/rxlat.h, enum rxlat_by): the names of the
 * network namespaces and cgroups the hooks saw samples in, and the release
 * of the group slots of those that are gone.
 *
 * A group is a namespace's cookie (and with --by cgroup a cgroup id), never
 * its inode: the kernel gives a freed namespace inode to the next namespace
 * at once. Names are found by inode, so each is checked against the cookie
 * before it is given (netns_cookie.bpf.c reads the cookie of a namespace
 * file rxlat opened): a namespace is named by its bind mount under
 * /run/netns (ip netns, CNI plugins) or /var/run/docker/netns (Docker),
 * else net:[inode] as /proc/PID/ns/net shows it; a namespace that is gone,
 * or that could not be checked, is net:[inode]#cookie, so that two
 * namespaces that had one inode never share a label. A cgroup is named by
 * its path under the cgroup v2 root, found from its id (the inode number
 * of its directory), and the container id in it.
 *
 * Groups are named within 0.2 s of their first sample (groups_tend()), so
 * that a namespace that lives a moment still gets its name.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/nsfs.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "groups.h"
#include "hooks.h"
#include "log.h"
#include "plan.h"
#include "netns_cookie_bpf.skel.h"

/* Where named namespaces are bind-mounted. */
static const char *const netns_dirs[] = { "/run/netns", "/var/run/docker/netns" };
#define NETNS_DIRS (sizeof(netns_dirs) / sizeof(netns_dirs[0]))

/* A gone group is released at the check after the one that found it gone. */
#define CHECK_EVERY_S 2

/* A group slot as user space last saw it. */
struct group {
	__u64 token; /* of the claim named (hooks_groups()); 0: free or not complete */
	struct rxlat_group_key key;
	__u32 netns;	  /* its namespace's inode */
	__u64 gone_token; /* its token when the last check found it gone */
	struct group_names names;
};

struct rxlat_groups {
	const struct rxlat_config *cfg;
	struct rxlat_hooks *hooks;
	__u32 n; /* group slots 0 .. max_groups */
	struct group *slot;
	__u64 *token; /* hooks_groups()' view, as of the last look */
	__u32 *netns;
	int cg_root; /* the cgroup v2 root, -1 without --by cgroup */
	struct timespec last;
	/* the namespace cookie iterator; NULL where the kernel refused it */
	struct netns_cookie_bpf *iter;
	struct bpf_link *iter_link;
	struct live {
		__u32 ino;
		int pid; /* a process in it; 0: only bind-mounted */
	} * live;	 /* namespaces in use, sorted by inode, and their count */
	size_t nlive;
};

__u32 netns_self(void)
{
	struct stat st;

	return stat("/proc/self/ns/net", &st) ? 0 : (__u32)st.st_ino;
}

/*
 * The iterator over rxlat's own files, narrowed by the kernel to rxlat's
 * pid where it can (6.1+), else by the program. Loaded before rxlat drops
 * CAP_PERFMON; running it later takes CAP_BPF alone.
 */
static int iter_open(struct rxlat_groups *g)
{
	union bpf_iter_link_info li = { .task.pid = (__u32)getpid() };
	LIBBPF_OPTS(bpf_iter_attach_opts, o, .link_info = &li, .link_info_len = sizeof(li));
	int err;

	g->iter = netns_cookie_bpf__open();
	if (!g->iter)
		return -errno;
	err = netns_cookie_bpf__load(g->iter);
	if (err)
		return err;
	g->iter_link = bpf_program__attach_iter(g->iter->progs.rxlat_netns_cookies, &o);
	if (!g->iter_link)
		g->iter_link = bpf_program__attach_iter(g->iter->progs.rxlat_netns_cookies, NULL);
	return g->iter_link ? 0 : -errno;
}

int groups_new(struct rxlat_groups **out, const struct rxlat_config *cfg, struct rxlat_hooks *h)
{
	struct rxlat_groups *g = calloc(1, sizeof(*g));
	char how[160];
	int err;

	*out = NULL;
	if (!g)
		return -ENOMEM;
	g->cfg = cfg;
	g->hooks = h;
	g->n = cfg->bpf.max_groups + 1;
	g->cg_root = -1;
	g->slot = calloc(g->n, sizeof(*g->slot));
	g->token = calloc(g->n, sizeof(*g->token));
	g->netns = calloc(g->n, sizeof(*g->netns));
	if (!g->slot || !g->token || !g->netns) {
		groups_free(g);
		return -ENOMEM;
	}
	if (cfg->bpf.by == RXLAT_BY_CGROUP) {
		g->cg_root = cgroup2_root_open(how, sizeof(how));
		if (g->cg_root < 0) {
			rxlat_warn("--by cgroup: no cgroup v2 to name cgroups by (%s): they are "
				   "named by their id",
				   strerror(-g->cg_root));
		}
	}
	err = iter_open(g);
	if (err) {
		rxlat_warn("--by: cannot read namespace cookies (%s): namespaces other than "
			   "rxlat's are labelled net:[inode]#cookie, not by name",
			   strerror(-err));
		bpf_link__destroy(g->iter_link);
		netns_cookie_bpf__destroy(g->iter);
		g->iter_link = NULL;
		g->iter = NULL;
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
	bpf_link__destroy(g->iter_link);
	netns_cookie_bpf__destroy(g->iter);
	free(g->slot);
	free(g->token);
	free(g->netns);
	free(g->live);
	free(g);
}

/*
 * The cookie of the network namespace that file path is, through one run
 * of the iterator over rxlat's files; 0 where it is none, is gone or
 * cannot be read.
 */
static __u64 cookie_of(const struct rxlat_groups *g, const char *path)
{
	struct rxlat_netns_fd r;
	__u64 cookie = 0;
	int fd, it;

	if (!g->iter_link)
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (ioctl(fd, NS_GET_NSTYPE) == CLONE_NEWNET &&
	    (it = bpf_iter_create(bpf_link__fd(g->iter_link))) >= 0) {
		while (read(it, &r, sizeof(r)) == (ssize_t)sizeof(r))
			if (r.fd == (__u32)fd)
				cookie = r.cookie;
		close(it);
	}
	close(fd);
	return cookie;
}

/* A network namespace file found by each_netns_file(). */
struct netns_file {
	const char *path;
	const char *name; /* a bind mount's name; NULL for /proc/PID/ns/net */
	int pid;	  /* 0 for a bind mount */
	__u32 ino;
};

#define WALK_PROCS  1 /* /proc/PID/ns/net of every process */
#define WALK_MOUNTS 2 /* the bind mounts under netns_dirs[] */

/*
 * Calls fn for each network namespace file of which (WALK_*) that stat()
 * reads, until fn returns non-zero, which it returns; 0 at the end.
 */
static int each_netns_file(int which, int (*fn)(void *ctx, const struct netns_file *f), void *ctx)
{
	char path[PATH_MAX];
	struct dirent *e;
	struct stat st;
	int r = 0;

	for (size_t i = 0; !r && i <= NETNS_DIRS; i++) {
		bool procs = i == 0;
		const char *dir = procs ? "/proc" : netns_dirs[i - 1];
		DIR *d;

		if (!(which & (procs ? WALK_PROCS : WALK_MOUNTS)) || !(d = opendir(dir)))
			continue;
		while (!r && (e = readdir(d))) {
			if (procs ? e->d_name[0] < '0' || e->d_name[0] > '9' : e->d_name[0] == '.')
				continue;
			if (procs)
				snprintf(path, sizeof(path), "/proc/%s/ns/net", e->d_name);
			else
				snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			if (stat(path, &st))
				continue;
			r = fn(ctx, &(struct netns_file){ path, procs ? NULL : e->d_name,
							  procs ? atoi(e->d_name) : 0,
							  (__u32)st.st_ino });
		}
		closedir(d);
	}
	return r;
}

/* What bind_mount_of() and pid_in_netns() look for, and what they found. */
struct netns_find {
	__u32 ino;
	char *name, *path;
	size_t len, plen;
	int pid;
};

static int find_file(void *ctx, const struct netns_file *f)
{
	struct netns_find *w = ctx;

	if (f->ino != w->ino)
		return 0;
	if (w->name)
		snprintf(w->name, w->len, "%s", f->name);
	if (w->path)
		snprintf(w->path, w->plen, "%s", f->path);
	w->pid = f->pid;
	return 1;
}

/* The bind mount of namespace ino: its name, and its path where path is given. */
static bool bind_mount_of(__u32 ino, char *name, size_t len, char *path, size_t plen)
{
	struct netns_find w = { .ino = ino, .name = name, .len = len, .path = path, .plen = plen };

	return each_netns_file(WALK_MOUNTS, find_file, &w);
}

/* A process in namespace ino; 0 if none. */
static int pid_in_netns(__u32 ino)
{
	struct netns_find w = { .ino = ino };

	return each_netns_file(WALK_PROCS, find_file, &w) ? w.pid : 0;
}

void groups_netns_name(__u32 ino, char *name, size_t len)
{
	if (!bind_mount_of(ino, name, len, NULL, 0))
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

static int cmp_live(const void *a, const void *b)
{
	__u32 x = ((const struct live *)a)->ino, y = ((const struct live *)b)->ino;

	return x < y ? -1 : x > y;
}

/* live_netns()'s walk: each file's namespace into the list. */
struct live_walk {
	struct rxlat_groups *g;
	size_t cap;
};

static int live_add(void *ctx, const struct netns_file *f)
{
	struct live_walk *w = ctx;
	struct rxlat_groups *g = w->g;

	if (g->nlive == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 256;
		struct live *n = realloc(g->live, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		g->live = n;
		w->cap = cap;
	}
	g->live[g->nlive++] = (struct live){ f->ino, f->pid };
	return 0;
}

/*
 * The network namespaces in use: those of the processes, and those bind-
 * mounted under the directories above (a namespace with no process in it).
 */
static int live_netns(struct rxlat_groups *g)
{
	struct live_walk w = { .g = g };
	int err;

	g->nlive = 0;
	err = each_netns_file(WALK_PROCS | WALK_MOUNTS, live_add, &w);
	if (!err)
		qsort(g->live, g->nlive, sizeof(*g->live), cmp_live);
	return err;
}

/*
 * Whether the namespace with inode ino and cookie is still there: its
 * inode is in use (live_netns() ran), and where cookies can be read, by
 * this very namespace. Each process or bind mount with that inode is
 * tried: one may be gone since the walk. Where none can be read, the
 * inode is all there is to go by: a group is never released on a guess.
 */
static bool netns_alive(const struct rxlat_groups *g, __u32 ino, __u64 cookie)
{
	struct live k = { ino, 0 }, *l = bsearch(&k, g->live, g->nlive, sizeof(*l), cmp_live);
	char path[PATH_MAX], name[RXLAT_LABEL_LEN];

	if (!l)
		return false;
	if (!g->iter_link)
		return true; /* the inode is all there is to go by */
	while (l > g->live && l[-1].ino == ino)
		l--;
	for (; l < g->live + g->nlive && l->ino == ino; l++) {
		__u64 c;

		if (l->pid)
			snprintf(path, sizeof(path), "/proc/%d/ns/net", l->pid);
		else if (!bind_mount_of(ino, name, sizeof(name), path, sizeof(path)))
			continue;
		c = cookie_of(g, path);
		if (c)
			return c == cookie;
	}
	/* in use, and no file of it could be read (gone since the walk, or no access) */
	return true;
}

/*
 * The name of a group's namespace: its bind mount's, else net:[inode],
 * each only while the namespace that has that inode is the group's own
 * (same cookie); else net:[inode]#cookie.
 */
static void name_netns(const struct rxlat_groups *g, const struct group *s, struct group_names *out)
{
	char path[PATH_MAX];
	__u64 cookie = s->key.netns_cookie;
	int pid;

	out->netns_ino = s->netns;
	out->netns_cookie = cookie;
	if (bind_mount_of(s->netns, out->netns, sizeof(out->netns), path, sizeof(path)) &&
	    cookie_of(g, path) == cookie)
		return;
	pid = pid_in_netns(s->netns);
	snprintf(path, sizeof(path), "/proc/%d/ns/net", pid);
	if (pid && cookie_of(g, path) == cookie)
		snprintf(out->netns, sizeof(out->netns), "net:[%u]", s->netns);
	else
		snprintf(out->netns, sizeof(out->netns), "net:[%u]#%llu", s->netns,
			 (unsigned long long)cookie);
}

/* Names the group in slot i, claimed with token: false while its claim is not complete. */
static bool name_slot(struct rxlat_groups *g, __u32 i, __u64 token)
{
	struct group *s = &g->slot[i];
	int err;

	if (!hooks_group_key(g->hooks, i, token, &s->key))
		return false;
	s->token = token;
	s->netns = g->netns[i];
	s->gone_token = 0;
	memset(&s->names, 0, sizeof(s->names));
	if (s->netns && s->netns != g->cfg->bpf.netns_ino)
		name_netns(g, s, &s->names);
	if (!s->key.cgid)
		return true;
	err = cgroup_path(g, s->key.cgid, s->names.cgroup, sizeof(s->names.cgroup));
	if (err) {
		rxlat_debug("cgroup %llu: no path (%s)", (unsigned long long)s->key.cgid,
			    strerror(-err));
		snprintf(s->names.cgroup, sizeof(s->names.cgroup), "cgroup:%llu",
			 (unsigned long long)s->key.cgid);
	}
	container_id(s->names.cgroup, s->names.container, sizeof(s->names.container));
	return true;
}

void groups_tend(struct rxlat_groups *g)
{
	if (!g)
		return;
	hooks_groups(g->hooks, g->token, g->netns, g->n);
	for (__u32 i = 1; i < g->n; i++)
		if (g->token[i] && g->token[i] != g->slot[i].token)
			name_slot(g, i, g->token[i]);
}

bool groups_name(struct rxlat_groups *g, __u64 token, __u32 netns, struct group_names *out)
{
	memset(out, 0, sizeof(*out));
	for (int pass = 0; pass < 2; pass++) {
		for (__u32 i = 1; i < g->n; i++) {
			if (g->slot[i].token == token ||
			    (g->token[i] == token && name_slot(g, i, token))) {
				*out = g->slot[i].names;
				return true;
			}
		}
		/* a claim newer than the last look */
		hooks_groups(g->hooks, g->token, g->netns, g->n);
	}
	/* not complete yet, or released: the inode is all there is, for now */
	if (netns && netns != g->cfg->bpf.netns_ino) {
		snprintf(out->netns, sizeof(out->netns), "net:[%u]", netns);
		out->netns_ino = netns;
	}
	return false;
}

static bool group_gone(struct rxlat_groups *g, const struct group *s)
{
	struct stat st;
	const char *path = s->names.cgroup;

	if (s->netns != g->cfg->bpf.netns_ino && !netns_alive(g, s->netns, s->key.netns_cookie))
		return true;
	if (!s->key.cgid || g->cg_root < 0 || path[0] != '/')
		return false; /* not named by a path: never found gone */
	return fstatat(g->cg_root, path[1] ? path + 1 : ".", &st, 0) && errno == ENOENT;
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
	groups_tend(g);
	for (__u32 i = 1; i < g->n; i++)
		any |= g->slot[i].token != 0;
	if (!any)
		return 0;
	err = live_netns(g);
	if (err)
		return err;
	for (__u32 i = 1; i < g->n; i++) {
		struct group *s = &g->slot[i];
		__u64 token = s->token;

		if (token && token != g->token[i]) {
			token = 0; /* no longer the slot's owner: named anew by groups_tend() */
		} else if (token && token == s->gone_token) {
			retire(ctx, i);
			hooks_release_group(g->hooks, i);
			memset(s, 0, sizeof(*s));
			released++;
			token = 0;
		} else if (token && !group_gone(g, s)) {
			token = 0;
		}
		s->gone_token = token;
	}
	return released;
}

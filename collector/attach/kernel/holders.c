// SPDX-License-Identifier: GPL-2.0
/*
 * BPF programs and links by id: a program's name, and who holds a link or
 * program. The kernel knows only ids, so the fds of every process are read
 * (/proc/PID/fdinfo names the id an fd refers to). Used to tell the user
 * which process to stop.
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "holders.h"

void prog_name(__u32 id, char name[BPF_OBJ_NAME_LEN])
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	int fd = bpf_prog_get_fd_by_id(id);

	name[0] = '\0';
	if (fd < 0)
		return;
	if (!bpf_obj_get_info_by_fd(fd, &info, &len))
		memcpy(name, info.name, BPF_OBJ_NAME_LEN);
	close(fd);
}

bool prog_is(__u32 id, const char *want)
{
	char name[BPF_OBJ_NAME_LEN];

	prog_name(id, name);
	return !strcmp(name, want);
}

__u32 for_each_link(__u32 (*fn)(const struct bpf_link_info *, const void *), const void *arg)
{
	__u32 id = 0, ret = 0;

	while (!ret && !bpf_link_get_next_id(id, &id)) {
		struct bpf_link_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_link_get_fd_by_id(id);

		if (fd < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(fd, &info, &len))
			ret = fn(&info, arg);
		close(fd);
	}
	return ret;
}

struct holder_kind {
	const char *inode; /* the fd's link target */
	const char *key;   /* the fdinfo line naming the id */
};

static const struct holder_kind link_kind = { "anon_inode:bpf_link", "link_id:" };
static const struct holder_kind prog_kind = { "anon_inode:bpf-prog", "prog_id:" };

static bool fdinfo_names(const char *path, const char *key, __u32 id)
{
	char buf[512];
	FILE *f = fopen(path, "r");
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(buf, sizeof(buf), f))
		if (!strncmp(buf, key, strlen(key)))
			found = strtoul(buf + strlen(key), NULL, 10) == id;
	fclose(f);
	return found;
}

static bool pid_holds(const char *pid, const struct holder_kind *k, __u32 id)
{
	char path[PATH_MAX], target[64];
	struct dirent *e;
	bool found = false;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%s/fd", pid);
	d = opendir(path);
	if (!d)
		return false;
	while (!found && (e = readdir(d))) {
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/%s/fd/%s", pid, e->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		if (n < 0)
			continue;
		target[n] = '\0';
		if (strcmp(target, k->inode))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fdinfo/%s", pid, e->d_name);
		found = fdinfo_names(path, k->key, id);
	}
	closedir(d);
	return found;
}

static pid_t holder(const struct holder_kind *k, __u32 id, char comm[16])
{
	pid_t self = getpid(), pid = 0;
	struct dirent *e;
	DIR *d = opendir("/proc");

	comm[0] = '\0';
	if (!d)
		return 0;
	while (!pid && (e = readdir(d))) {
		char *end;
		long p = strtol(e->d_name, &end, 10);

		if (*end || p <= 0 || p == self || !pid_holds(e->d_name, k, id))
			continue;
		pid = (pid_t)p;
	}
	closedir(d);
	if (pid) {
		char path[64];
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
		f = fopen(path, "r");
		if (f) {
			if (fgets(comm, 16, f))
				comm[strcspn(comm, "\n")] = '\0';
			fclose(f);
		}
	}
	return pid;
}

pid_t link_holder(__u32 link_id, char comm[16])
{
	return holder(&link_kind, link_id, comm);
}

pid_t prog_holder(__u32 prog_id, char comm[16])
{
	return holder(&prog_kind, prog_id, comm);
}

// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>
#include "cgroup2.h"

/* mountinfo writes ' ', '\t', '\n' and '\\' as \ooo: undone in place */
static void unescape(char *s)
{
	char *d = s;

	for (; *s; s++, d++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*d = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*d = *s;
		}
	}
	*d = '\0';
}

/* Is mnt path or a directory above it? Then the rest of path, after a '/'. */
static const char *under(const char *path, const char *mnt)
{
	size_t n = strlen(mnt);

	if (path[0] != '/')
		return NULL; /* relative: only the lookup from the working directory knows */
	if (!strcmp(mnt, "/"))
		return path + 1;
	if (strncmp(path, mnt, n) || (path[n] && path[n] != '/'))
		return NULL;
	return path[n] ? path + n + 1 : path + n;
}

int cgroup2_mount_find(pid_t pid, const char *path, char *mnt, size_t mlen, char *rel, size_t rlen)
{
	char file[64], line[3 * PATH_MAX], root[PATH_MAX], point[PATH_MAX], fstype[64];
	size_t best = 0;
	int err = -ENOENT;
	FILE *f;

	if (pid)
		snprintf(file, sizeof(file), "/proc/%d/mountinfo", (int)pid);
	else
		snprintf(file, sizeof(file), "/proc/self/mountinfo");
	f = fopen(file, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *sep = strstr(line, " - ");
		const char *r;

		if (!sep || sscanf(sep, " - %63s", fstype) != 1 || strcmp(fstype, "cgroup2") ||
		    sscanf(line, "%*d %*d %*s %4095s %4095s", root, point) != 2)
			continue;
		unescape(root);
		unescape(point);
		r = path ? under(path, point) : "";
		if (!r || strlen(point) >= mlen || (best && strlen(point) <= best))
			continue;
		best = strlen(point);
		strcpy(mnt, point);
		if (rel) {
			/* the mount's own root in the hierarchy, then the rest */
			if (snprintf(rel, rlen, "%s%s%s", root + 1, root[1] && *r ? "/" : "", r) >=
			    (int)rlen) {
				err = -ENAMETOOLONG;
				continue;
			}
			if (!rel[0])
				snprintf(rel, rlen, ".");
		}
		err = 0;
		if (!path)
			break;
	}
	fclose(f);
	return err;
}

int cgroup2_private_open(void)
{
	int fs, mnt = -1, fd = -1, err;

	fs = fsopen("cgroup2", FSOPEN_CLOEXEC);
	if (fs < 0 || fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0))
		goto fail;
	mnt = fsmount(fs, FSMOUNT_CLOEXEC, 0);
	if (mnt < 0)
		goto fail;
	/* the mount fd is O_PATH: a real directory fd, for attaching and openat() */
	fd = openat(mnt, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		goto fail;
	close(mnt);
	close(fs);
	return fd;
fail:
	err = -errno;
	if (mnt >= 0)
		close(mnt);
	if (fs >= 0)
		close(fs);
	return err;
}

/* SPDX-License-Identifier: GPL-2.0 */
/* Finding cgroup v2 where "ip netns exec" has remounted /sys without it. */
#ifndef RXLAT_CGROUP2_H
#define RXLAT_CGROUP2_H

#include <stddef.h>
#include <sys/types.h>

/*
 * The cgroup2 mount of /proc/PID/mountinfo (PID 0: rxlat's own) that holds
 * path, the longest mount point that is path or a directory above it
 * (path NULL: the first cgroup2 mount). Its mount point goes into mnt and
 * path's place in the hierarchy, relative to the root of rxlat's cgroup
 * namespace, into rel ("." for the root; rel may be NULL). 0 or -errno
 * (-ENOENT: no such mount).
 */
int cgroup2_mount_find(pid_t pid, const char *path, char *mnt, size_t mlen, char *rel, size_t rlen);

/*
 * A directory fd on the root of a cgroup2 mount of rxlat's own, made with
 * fsmount() and never attached anywhere: nobody else sees it, and it goes
 * away with the fd. Its root is the root of rxlat's cgroup namespace, as a
 * mounted one's would be. fd or -errno.
 */
int cgroup2_private_open(void);

#endif

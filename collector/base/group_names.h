/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The names of a group of --by, as the groups (collector/attach/groups/groups.c)
 * find them and the model labels its series with them.
 */
#ifndef RXLAT_GROUP_NAMES_H
#define RXLAT_GROUP_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "series.h"

/* The names of a group (--by); empty where it has none. */
struct group_names {
	bool named;
	__u64 key;		     /* the group key (a claim's token) these names are of */
	char netns[RXLAT_LABEL_LEN]; /* empty: rxlat's own namespace */
	__u32 netns_ino;
	__u64 netns_cookie;
	char cgroup[RXLAT_LABEL_LEN]; /* the cgroup's path; empty: not a cgroup group */
	char container[72];	      /* the container id in that path */
};

/*
 * The container id in a cgroup path: the innermost component that ends in
 * 64 hex digits, alone (Docker and containerd with the cgroupfs driver) or
 * after a '-' in a systemd scope (docker-ID.scope, cri-containerd-ID.scope,
 * crio-ID.scope, libpod-ID.scope). False with id empty when there is none.
 */
bool container_id(const char *path, char *id, size_t len);

#endif

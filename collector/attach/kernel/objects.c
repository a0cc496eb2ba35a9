// SPDX-License-Identifier: GPL-2.0
/* Where rxlat's BPF objects for xdp-loader and tc are (objects.h). */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "objects.h"

const char *rxlat_objects_dir(void)
{
	static char dir[PATH_MAX];
	char path[PATH_MAX + 32];
	ssize_t n;
	char *slash;

	if (dir[0])
		return dir;
	n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	slash = n > 0 ? (dir[n] = '\0', strrchr(dir, '/')) : NULL;
	if (slash) {
		*slash = '\0';
		snprintf(path, sizeof(path), "%s/rxlat_xdp.bpf.o", dir);
		if (!access(path, R_OK))
			return dir;
	}
	snprintf(dir, sizeof(dir), "%s", RXLAT_LIBDIR);
	return dir;
}

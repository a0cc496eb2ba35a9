// SPDX-License-Identifier: GPL-2.0
/* The container id in a cgroup path (group_names.h, container_id()). */
#include <stdio.h>
#include <string.h>
#include "group_names.h"

#define ID_LEN 64

static bool all_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/*
 * Whether the path component [c, c + n) names a container: its id into id.
 * The id ends the component (less ".scope"), alone or after a '-' (the
 * runtimes' prefixes: docker-, cri-containerd-, crio-, libpod-).
 */
static bool component_id(const char *c, size_t n, char *id, size_t len)
{
	const char *scope = ".scope";

	if (n > strlen(scope) && !strncmp(c + n - strlen(scope), scope, strlen(scope)))
		n -= strlen(scope);
	if (n < ID_LEN || !all_hex(c + n - ID_LEN, ID_LEN) ||
	    (n > ID_LEN && c[n - ID_LEN - 1] != '-'))
		return false;
	snprintf(id, len, "%.*s", ID_LEN, c + n - ID_LEN);
	return true;
}

bool container_id(const char *path, char *id, size_t len)
{
	const char *end = path + strlen(path);

	if (len)
		id[0] = '\0';
	/* the innermost component that names a container */
	while (end > path) {
		const char *c = end;

		while (c > path && c[-1] != '/')
			c--;
		if (component_id(c, (size_t)(end - c), id, len))
			return true;
		end = c > path ? c - 1 : path;
	}
	return false;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The hooks' object, in the form this kernel's verifier takes: hooks.bpf.c
 * with atomic instructions that return a value (fetch-add, compare-and-swap:
 * 5.12), or the same source built without them (collector/collector.mk,
 * include/rxlat_atomic.bpf.h). Both have the same maps, variables and
 * programs, so that the second opens as a struct hooks_bpf too.
 */
#include <errno.h>
#include <stdlib.h>
#include <bpf/libbpf.h>
#include "plan.h"
#include "hooks_bpf.skel.h"
#include "hooks_nofetch_bpf.skel.h"

struct hooks_bpf *hooks_skel_open(void)
{
	struct hooks_bpf *obj;
	int err;

	if (probe_fetch())
		return hooks_bpf__open();
	obj = calloc(1, sizeof(*obj));
	if (!obj) {
		errno = ENOMEM;
		return NULL;
	}
	err = hooks_bpf__create_skeleton(obj);
	if (!err) {
		obj->skeleton->data = hooks_nofetch_bpf__elf_bytes(&obj->skeleton->data_sz);
		err = bpf_object__open_skeleton(obj->skeleton, NULL);
	}
	if (err) {
		hooks_bpf__destroy(obj);
		errno = -err;
		return NULL;
	}
	return obj;
}

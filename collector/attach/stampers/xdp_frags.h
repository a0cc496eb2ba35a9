/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The XDP stamper without multi-buffer support, for a kernel that has none
 * (BPF_F_XDP_HAS_FRAGS, 5.18: before, the load is refused with EINVAL and
 * no verifier log). libbpf sets the flag at load from the program's section,
 * xdp.frags, whatever the program's flags say; a handler of that section of
 * the process's own, which libbpf looks at before its own, opens it as a
 * plain XDP program. Call it before opening the object again; it stays for
 * the life of the process (a program opened with it points at it).
 * 0 or a negative errno.
 */
#ifndef RXLAT_XDP_FRAGS_H
#define RXLAT_XDP_FRAGS_H

#include <bpf/libbpf.h>

static inline int rxlat_xdp_without_frags(void)
{
	static int handler;

	if (handler <= 0)
		handler =
		    libbpf_register_prog_handler("xdp.frags", BPF_PROG_TYPE_XDP, BPF_XDP, NULL);
	return handler > 0 ? 0 : handler;
}

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whether this kernel lets XDP programs call bpf_xdp_adjust_meta(), the
 * helper that makes the room in which the stamper hands its stamp to the
 * stack. Upstream kernels have let every XDP program call it since 4.15;
 * a kernel built to refuse it (the verifier's "program of this type cannot
 * use helper") takes no XDP stamper at all, and every stamp then comes from
 * tc ingress. Found by loading a program of four instructions that calls
 * it, beside one that does not: true only when the first alone is refused,
 * so that missing privileges stay the loader's to say.
 */
#ifndef RXLAT_XDP_META_H
#define RXLAT_XDP_META_H

#include <stdbool.h>
#include <unistd.h>
#include <bpf/bpf.h>

#define RXLAT_XDP_META_REFUSED                                                                \
	"this kernel refuses bpf_xdp_adjust_meta() to XDP programs: no XDP program can hand " \
	"a stamp to the stack here"

static inline bool rxlat_xdp_meta_refused(void)
{
	const struct bpf_insn meta[] = {
		{ .code = 0xb7, .dst_reg = 2, .imm = 0 }, /* r2 = 0 (r1: the context) */
		{ .code = 0x85, .imm = BPF_FUNC_xdp_adjust_meta },
		{ .code = 0xb7, .dst_reg = 0, .imm = 2 }, /* r0 = XDP_PASS */
		{ .code = 0x95 },			  /* exit */
	};
	static int known = -1;
	int fd;

	if (known >= 0)
		return known;
	fd = bpf_prog_load(BPF_PROG_TYPE_XDP, "rxlat_probe", "GPL", meta, 4, NULL);
	if (fd >= 0) {
		close(fd);
		return (known = false);
	}
	/* the same without the call: refused too, it is not the helper */
	fd = bpf_prog_load(BPF_PROG_TYPE_XDP, "rxlat_probe", "GPL", meta + 2, 2, NULL);
	if (fd < 0)
		return false;
	close(fd);
	return (known = true);
}

#endif

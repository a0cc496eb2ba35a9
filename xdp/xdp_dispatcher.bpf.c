// SPDX-License-Identifier: GPL-2.0
/*
 * A multi-program XDP dispatcher for libxdp 1.3 (Debian 12's xdp-tools),
 * installed as xdp-dispatcher.o and found by libxdp through
 * LIBXDP_OBJECT_PATH.
 *
 * libxdp runs several XDP programs on one interface by loading this object
 * and attaching each program as an extension (freplace) of one slot
 * function, prog0 to prog9, in run order; .rodata says how many slots are in
 * use and, per slot, which return codes go on to the next slot.
 *
 * Why rxlat ships one: since 6.12.y the verifier refuses an extension that
 * may change packet data (the stamper's bpf_xdp_adjust_meta() does) in place
 * of a function that does not, and the slots of libxdp 1.3's own dispatcher
 * do not. Here every slot calls a packet-changing helper, so the verifier
 * marks it as changing packet data and any XDP program may replace it. The
 * call never has an effect: with a program attached the slot's body does
 * not run, and the dispatcher never calls a slot it has no program for.
 *
 * What libxdp 1.3 checks in the object, and what it expects to find:
 * - a program named xdp_dispatcher in section "xdp", global functions
 *   prog0..prog9 and compat_test reachable from it (libbpf loads only the
 *   functions a program calls), with BTF;
 * - a second program xdp_pass in section "xdp": libxdp loads it as an
 *   extension of compat_test, and of itself, to probe the kernel;
 * - dispatcher_version in BTF (section xdp_metadata) no higher than its own;
 * - exactly one map, .rodata, holding only struct xdp_dispatcher_config.
 * Everything else (magic, frags flag, per-program flags) libxdp writes into
 * the config for its own bookkeeping; the dispatcher reads only the number
 * of programs and the chain-call bitmaps.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <xdp/prog_dispatcher.h>

/*
 * The layout and version are libxdp 1.3's (its own header, from
 * libxdp-dev). Should a newer header change them, the object would no
 * longer match what the dispatcher below does: fail the build instead.
 */
_Static_assert(XDP_DISPATCHER_VERSION == 2, "libxdp dispatcher version changed");
_Static_assert(MAX_DISPATCHER_ACTIONS == 10, "libxdp dispatcher slot count changed");
_Static_assert(sizeof(struct xdp_dispatcher_config) == 124, "libxdp dispatcher config changed");
_Static_assert(__builtin_offsetof(struct xdp_dispatcher_config, chain_call_actions) == 4,
	       "libxdp dispatcher config changed");

char LICENSE[] SEC("license") = "GPL";

/* Read by libxdp from the object's BTF (and from a loaded dispatcher's). */
__uint(dispatcher_version, XDP_DISPATCHER_VERSION) SEC(XDP_METADATA_SECTION);

/*
 * libxdp fills this in before load; the kernel then sees frozen read-only
 * data and drops the branches for unused slots. volatile keeps the compiler
 * from folding the all-zero initial value into the code.
 */
static const volatile struct xdp_dispatcher_config conf = {};

/*
 * The body of a slot without a program. Returns XDP_DISPATCHER_RETVAL,
 * which libxdp sets in every slot's chain-call bitmap, so an empty slot
 * goes on to the next one. The empty asm hides the constant from the
 * compiler, which would otherwise fold it into the dispatcher's tests.
 */
static __always_inline int empty_slot(struct xdp_md *ctx)
{
	int ret = XDP_DISPATCHER_RETVAL;

	/* moves the metadata start by 0 bytes: no effect, but the verifier
	 * now counts this function among those that change packet data */
	bpf_xdp_adjust_meta(ctx, 0);
	asm volatile("" : "+r"(ret));
	return ret;
}

/* Global (an extension cannot replace a static function) and never inlined:
 * each slot must stay a function of its own in the loaded program. */
#define DISPATCHER_SLOT(n)                                        \
	__attribute__((noinline)) int prog##n(struct xdp_md *ctx) \
	{                                                         \
		return empty_slot(ctx);                           \
	}

DISPATCHER_SLOT(0)
DISPATCHER_SLOT(1)
DISPATCHER_SLOT(2)
DISPATCHER_SLOT(3)
DISPATCHER_SLOT(4)
DISPATCHER_SLOT(5)
DISPATCHER_SLOT(6)
DISPATCHER_SLOT(7)
DISPATCHER_SLOT(8)
DISPATCHER_SLOT(9)

/*
 * libxdp's probe target: it attaches xdp_pass here to see whether the
 * kernel lets it replace a function of a loaded dispatcher. Never run.
 */
__attribute__((noinline)) int compat_test(struct xdp_md *ctx)
{
	int ret = XDP_DISPATCHER_RETVAL;

	if (!ctx)
		return XDP_ABORTED;
	asm volatile("" : "+r"(ret));
	return ret;
}

/*
 * Slot i runs when at least i + 1 programs are configured. Its return code
 * ends the chain unless that code's bit is set in the slot's bitmap (a code
 * above 31 has no bit: it ends the chain).
 */
#define RUN_SLOT(i)                                                                 \
	do {                                                                        \
		if (nprogs < (i) + 1)                                               \
			return XDP_PASS;                                            \
		ret = prog##i(ctx);                                                 \
		if ((__u32)ret > 31 || !(conf.chain_call_actions[i] & (1U << ret))) \
			return ret;                                                 \
	} while (0)

SEC("xdp")
int xdp_dispatcher(struct xdp_md *ctx)
{
	__u8 nprogs = conf.num_progs_enabled;
	int ret;

	RUN_SLOT(0);
	RUN_SLOT(1);
	RUN_SLOT(2);
	RUN_SLOT(3);
	RUN_SLOT(4);
	RUN_SLOT(5);
	RUN_SLOT(6);
	RUN_SLOT(7);
	RUN_SLOT(8);
	RUN_SLOT(9);

	/* never true (at most 10 programs): a call the compiler must keep, so
	 * that compat_test is part of the loaded program */
	if (nprogs > MAX_DISPATCHER_ACTIONS)
		compat_test(ctx);
	return XDP_PASS;
}

SEC("xdp")
int xdp_pass(struct xdp_md *ctx)
{
	return XDP_PASS;
}

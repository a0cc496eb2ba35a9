// SPDX-License-Identifier: GPL-2.0
/*
 * fentry and fexit on ip_rcv(). Loading needs BPF trampolines, which the
 * development host refuses and Debian's kernels allow; fentry_check.c
 * attaches both and sends loopback packets to see them fire.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

/* [0]: fentry runs, [1]: fexit runs; read by fentry_check.c from .bss */
__u64 hits[2];

SEC("fentry/ip_rcv")
int on_ip_rcv(void *ctx)
{
	(void)ctx;
	__sync_fetch_and_add(&hits[0], 1);
	return 0;
}

SEC("fexit/ip_rcv")
int after_ip_rcv(void *ctx)
{
	(void)ctx;
	__sync_fetch_and_add(&hits[1], 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";

// SPDX-License-Identifier: GPL-2.0
/*
 * The cookies of the network namespaces that rxlat holds open: a task_file
 * iterator over rxlat's own file descriptors, one record per nsfs file.
 * A namespace's inode is given to the next namespace as soon as it is
 * freed, its cookie never is; user space (collector/attach/groups/groups.c) opens
 * a namespace it found by inode and asks here which one it really is.
 * User space sees the cookie no other way without CAP_SYS_ADMIN (setns()
 * and SO_NETNS_COOKIE), which rxlat drops once attached.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "rxlat.h"
#include "rxlat_net.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define NSFS_MAGIC_ 0x6e736673

SEC("iter/task_file")
int rxlat_netns_cookies(struct bpf_iter__task_file *ctx)
{
	struct task_struct *task = ctx->task;
	struct file *file = ctx->file;
	struct rxlat_netns_fd r = {};
	struct ns_common *ns;
	struct net *net;

	/*
	 * rxlat's own files only, where the kernel cannot narrow the walk: the
	 * iterator runs in the read() of the process that asks, and its pid
	 * is the kernel's, also inside a container's pid namespace.
	 */
	if (!task || !file || task->tgid != bpf_get_current_pid_tgid() >> 32)
		return 0;
	if (BPF_CORE_READ(file, f_inode, i_sb, s_magic) != NSFS_MAGIC_)
		return 0;
	/* user space checked with NS_GET_NSTYPE that the file is a network namespace */
	ns = BPF_CORE_READ(file, f_inode, i_private);
	if (!ns)
		return 0;
	net = (void *)ns - bpf_core_field_offset(struct net, ns);
	r.fd = ctx->fd;
	r.ino = BPF_CORE_READ(ns, inum);
	r.cookie =
	    rxlat_net_cookie_lazy(net) ? RXLAT_INODE_COOKIE(r.ino) : BPF_CORE_READ(net, net_cookie);
	bpf_seq_write(ctx->meta->seq, &r, sizeof(r));
	return 0;
}

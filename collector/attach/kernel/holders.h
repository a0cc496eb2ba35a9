/* SPDX-License-Identifier: GPL-2.0 */
#ifndef RXLAT_HOLDERS_H
#define RXLAT_HOLDERS_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/bpf.h>
#include <linux/types.h>

/* A program's name by id ("" when gone), and which process
 * holds a BPF link or program (0: none). */
void prog_name(__u32 id, char name[BPF_OBJ_NAME_LEN]);
bool prog_is(__u32 id, const char *want);
__u32 for_each_link(__u32 (*fn)(const struct bpf_link_info *, const void *), const void *arg);
pid_t link_holder(__u32 link_id, char comm[16]);
pid_t prog_holder(__u32 prog_id, char comm[16]);

#endif

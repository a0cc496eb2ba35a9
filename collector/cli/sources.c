// SPDX-License-Identifier: GPL-2.0
/* What the model of a run reads (collector/read/model.h): rxlat's maps and names. */
#include <errno.h>
#include "run.h"
#include "drops.h"
#include "groups.h"
#include "ifaces.h"
#include "log.h"
#include "model.h"
#include "stamper.h"

static void src_slots(void *ctx, __u64 *slot_key, __u32 n)
{
	const struct rxlat_run *c = ctx;

	hooks_ifslots(c->hooks, slot_key, n);
}

static void src_netns_name(void *ctx, __u32 ino, char *name, size_t len)
{
	(void)ctx;
	groups_netns_name(ino, name, len);
}

static void src_groups(void *ctx, __u64 *key, __u32 *netns, __u32 n)
{
	const struct rxlat_run *c = ctx;

	hooks_groups(c->hooks, key, netns, n);
}

static bool src_group_name(void *ctx, __u64 key, __u32 netns, struct group_names *g)
{
	const struct rxlat_run *c = ctx;

	return groups_name(c->groups, key, netns, g);
}

static void src_ifname(void *ctx, __u32 ifindex, char name[RXLAT_IFNAME_LEN])
{
	const struct rxlat_run *c = ctx;

	ifaces_ifname(c->ifaces, ifindex, name);
}

static bool src_wanted(void *ctx, __u32 ifindex)
{
	const struct rxlat_run *c = ctx;

	return ifaces_wanted(c->ifaces, ifindex);
}

static int src_xdp(void *ctx, struct rxlat_xdp_key **keys, struct rxlat_xdp_counters **vals,
		   size_t *n)
{
	const struct rxlat_run *c = ctx;

	return c->stamper ? stamper_counters(c->stamper, keys, vals, n) : 0;
}

static int src_drops(void *ctx, struct rxlat_drop_key **keys, struct rxlat_drop **vals, size_t *n)
{
	const struct rxlat_run *c = ctx;

	return drops_read(hooks_drops_fd(c->hooks), keys, vals, n);
}

static __u64 src_drops_lost(void *ctx)
{
	const struct rxlat_run *c = ctx;

	return hooks_drops_lost(c->hooks);
}

static const char *src_reason(void *ctx, __u32 reason)
{
	const struct rxlat_run *c = ctx;

	return drops_reason(c->drops, reason);
}

static int src_slow(void *ctx, __u64 counts[3])
{
	const struct rxlat_run *c = ctx;

	return hooks_slow_counts(c->hooks, &counts[0], &counts[1], &counts[2]);
}

int new_model(struct rxlat_run *c)
{
	const struct model_src src = {
		.store = hooks_series_store(c->hooks),
		.ctx = c,
		.slots = src_slots,
		.ifname = src_ifname,
		.netns_name = src_netns_name,
		.groups = c->groups ? src_groups : NULL,
		.group_name = src_group_name,
		.wanted = src_wanted,
		.xdp = src_xdp,
		.drops = c->drops ? src_drops : NULL,
		.drops_lost = c->drops ? src_drops_lost : NULL,
		.reason = src_reason,
		.slow = c->slow ? src_slow : NULL,
	};
	int err = model_new(&c->model, rxlat_config_dims(c->cfg), c->cfg->per_queue,
			    c->cfg->prom_listen[0] != '\0', &src);

	if (err)
		rxlat_err("out of memory");
	return err;
}

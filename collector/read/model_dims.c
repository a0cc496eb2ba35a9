// SPDX-License-Identifier: GPL-2.0
/*
 * The dimensions of the series index (rxlat_series_index()): per dimension
 * its size, whether its slots are summed, which slots hold a series, and
 * the labels of a slot. A new dimension is a line of model_dims[] and its
 * labeller.
 */
#include <stdio.h>
#include <string.h>
#include "model_impl.h"

static __u32 stage_size(const struct rxlat_model *m)
{
	(void)m;
	return RXLAT_NR_STAGES;
}

static bool never(const struct rxlat_model *m)
{
	(void)m;
	return false;
}

static bool always(const struct rxlat_model *m, __u32 slot, bool total)
{
	(void)m, (void)slot, (void)total;
	return true;
}

static void stage_label(const struct rxlat_model *m, __u32 slot, bool total, struct rxlat_series *s)
{
	(void)m, (void)total;
	rxlat_label_str(s, "stage", RXLAT_LABEL_BARE, "%s", rxlat_stage_names[slot]);
}

static __u32 iface_size(const struct rxlat_model *m)
{
	return m->max_ifaces + 1;
}

static bool iface_valid(const struct rxlat_model *m, __u32 slot, bool total)
{
	if (slot == m->max_ifaces)
		return true;
	return total ? m->slot_name[slot][0] != '\0' : m->slot_key[slot] != 0;
}

/*
 * The reports name a slot by its interface now (its last name once gone);
 * Prometheus by the name the slot was first seen with, for the whole run,
 * so that no exported series ever loses a part. A stamp taken in another
 * namespace names its interface by index ("if4"), and that namespace.
 */
static void iface_label(const struct rxlat_model *m, __u32 slot, bool total, struct rxlat_series *s)
{
	__u64 key = slot < m->max_ifaces ? m->slot_key[slot] : 0;
	__u32 ifindex = (__u32)key, netns = key >> 32;
	char name[RXLAT_IFNAME_LEN], ns[RXLAT_LABEL_LEN];

	if (total && slot < m->max_ifaces) {
		memcpy(name, m->slot_name[slot], sizeof(name));
		netns = m->slot_netns[slot];
	} else if (netns) {
		snprintf(name, sizeof(name), "if%u", ifindex);
	} else if (ifindex) {
		m->src.ifname(m->src.ctx, ifindex, name);
	} else {
		snprintf(name, sizeof(name), "other");
	}
	rxlat_label_str(s, "ifname", 0, "%.*s", RXLAT_IFNAME_LEN, name);
	rxlat_label_num(s, "ifindex", RXLAT_LABEL_JSON_ONLY, ifindex);
	if (!netns)
		return;
	m->src.netns_name(m->src.ctx, netns, ns, sizeof(ns));
	rxlat_label_str(s, "if_netns", 0, "%s", ns);
}

/* ---- groups (--by): slot 0 is rxlat's namespace, the last the overflow */

static __u32 group_size(const struct rxlat_model *m)
{
	return rxlat_group_slots(m->max_groups);
}

static bool group_valid(const struct rxlat_model *m, __u32 slot, bool total)
{
	if (slot == 0 || slot == m->max_groups + 1)
		return true;
	return total ? m->group[slot].named : m->group_key[slot] != 0;
}

/*
 * Named once, when first seen (model.c, name_slots()): the names stay the
 * slot's until it is released, in the reports and in Prometheus.
 */
static void group_label(const struct rxlat_model *m, __u32 slot, bool total, struct rxlat_series *s)
{
	const struct group_names *g = &m->group[slot];

	(void)total;
	if (slot == 0)
		return; /* rxlat's own namespace: no label, as without --by */
	if (slot == m->max_groups + 1) {
		rxlat_label_str(s, "netns", 0, "other");
		return;
	}
	if (g->netns[0]) {
		rxlat_label_str(s, "netns", 0, "%s", g->netns);
		rxlat_label_num(s, "netns_ino", RXLAT_LABEL_JSON_ONLY, g->netns_ino);
		if (g->netns_cookie)
			rxlat_label_num(s, "netns_cookie", RXLAT_LABEL_JSON_ONLY, g->netns_cookie);
	}
	if (g->cgroup[0]) {
		rxlat_label_str(s, "cgroup", 0, "%s", g->cgroup);
		if (g->container[0])
			rxlat_label_str(s, "container", 0, "%s", g->container);
	}
}

static __u32 queue_size(const struct rxlat_model *m)
{
	return m->max_queues + 1;
}

static bool queue_summed(const struct rxlat_model *m)
{
	return !m->per_queue;
}

static void queue_label(const struct rxlat_model *m, __u32 slot, bool total, struct rxlat_series *s)
{
	(void)total;
	if (slot == SUMMED)
		rxlat_label_null(s, "queue", "all");
	else if (slot == m->max_queues)
		rxlat_label_str(s, "queue", 0, "other");
	else
		rxlat_label_num(s, "queue", 0, slot);
}

/* Outermost first, as rxlat_series_index() lays the series out. */
const struct model_dim model_dims[MODEL_ND] = {
	[MODEL_DIM_STAGE] = { stage_size, never, always, stage_label, NULL, MODEL_RELEASED_NONE },
	[MODEL_DIM_GROUP] = { group_size, never, group_valid, group_label, "max_groups",
			      MODEL_RELEASED_GROUP },
	[MODEL_DIM_IFACE] = { iface_size, never, iface_valid, iface_label, "max_ifaces",
			      MODEL_RELEASED_IFACE },
	[MODEL_DIM_QUEUE] = { queue_size, queue_summed, always, queue_label, "max_queues",
			      MODEL_RELEASED_NONE },
};

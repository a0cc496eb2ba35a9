// SPDX-License-Identifier: GPL-2.0
/* Dropping the capabilities rxlat no longer needs; see caps.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/capability.h>
#include "caps.h"
#include "log.h"

int caps_drop(bool net_admin)
{
	cap_value_t want[] = { CAP_BPF, CAP_NET_ADMIN }, keep[2];
	cap_t cur = cap_get_proc(), caps = cap_init();
	int nkeep = 0, err = 0;

	if (!cur || !caps) {
		err = -errno;
		goto out;
	}
	/* only what is held: a capability not permitted cannot be set */
	for (int i = 0; i < (net_admin ? 2 : 1); i++) {
		cap_flag_value_t held = CAP_CLEAR;

		if (!cap_get_flag(cur, want[i], CAP_PERMITTED, &held) && held == CAP_SET)
			keep[nkeep++] = want[i];
	}
	if (nkeep && (cap_set_flag(caps, CAP_EFFECTIVE, nkeep, keep, CAP_SET) ||
		      cap_set_flag(caps, CAP_PERMITTED, nkeep, keep, CAP_SET))) {
		err = -errno;
		goto out;
	}
	if (cap_set_proc(caps))
		err = -errno;
out:
	if (err)
		rxlat_err("cannot drop the capabilities no longer needed: %s", strerror(-err));
	if (cur)
		cap_free(cur);
	if (caps)
		cap_free(caps);
	return err;
}

static bool held(cap_t cur, cap_value_t cap)
{
	cap_flag_value_t v = CAP_CLEAR;

	return cur && !cap_get_flag(cur, cap, CAP_EFFECTIVE, &v) && v == CAP_SET;
}

int caps_check(void)
{
	cap_t cur = cap_get_proc();
	bool sys = held(cur, CAP_SYS_ADMIN);
	char missing[64] = "";
	int n = 0;

	/* CAP_SYS_ADMIN stands in for the first two, not for CAP_NET_ADMIN */
	if (!sys && !held(cur, CAP_BPF))
		n += snprintf(missing + n, sizeof(missing) - n, "%sCAP_BPF", n ? ", " : "");
	if (!sys && !held(cur, CAP_PERFMON))
		n += snprintf(missing + n, sizeof(missing) - n, "%sCAP_PERFMON", n ? ", " : "");
	if (!held(cur, CAP_NET_ADMIN))
		n += snprintf(missing + n, sizeof(missing) - n, "%sCAP_NET_ADMIN", n ? ", " : "");
	if (cur)
		cap_free(cur);
	if (!n)
		return 0;
	rxlat_err("rxlat needs CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN) to load its programs "
		  "and CAP_NET_ADMIN to attach them (XDP, tc, cgroup_skb); this process lacks %s: "
		  "run it as root, or grant it those",
		  missing);
	return -EPERM;
}

// SPDX-License-Identifier: GPL-2.0
/* Dropping the capabilities rxlat no longer needs; see caps.h. */
#include <errno.h>
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

// SPDX-License-Identifier: GPL-2.0
/* Dropping the capabilities rxlat no longer needs; see caps.h. */
#include <errno.h>
#include <string.h>
#include <sys/capability.h>
#include "caps.h"
#include "log.h"

int caps_drop(void)
{
	cap_value_t keep[] = { CAP_BPF };
	cap_t cur = cap_get_proc(), caps = cap_init();
	cap_flag_value_t held = CAP_CLEAR;
	int nkeep = 1, err = 0;

	if (!cur || !caps) {
		err = -errno;
		goto out;
	}
	/* only what is held: a capability not permitted cannot be set */
	if (cap_get_flag(cur, CAP_BPF, CAP_PERMITTED, &held) || held != CAP_SET)
		nkeep = 0;
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

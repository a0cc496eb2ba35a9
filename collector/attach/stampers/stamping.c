// SPDX-License-Identifier: GPL-2.0
/*
 * Which stamper stamps each named interface, and why (stamping.h): the
 * rules, the state, and the line that says each decision.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include "log.h"
#include "opt.h"
#include "series.h"
#include "stamper.h"
#include "stamping.h"
#include "tc.h"
#include "xdp_device.h"
#include "xdp_meta.h"

struct rxlat_stamping {
	const struct rxlat_config *cfg;
	enum stamping_why why[RXLAT_MAX_CLI_IFACES];
	/* by default: what holds the XDP hook, and how to stamp in XDP all the same */
	char *taken[RXLAT_MAX_CLI_IFACES];
};

int stamping_new(struct rxlat_stamping **out, const struct rxlat_config *cfg)
{
	struct rxlat_stamping *s = calloc(1, sizeof(*s));

	if (!s) {
		rxlat_err("out of memory");
		return -ENOMEM;
	}
	s->cfg = cfg;
	for (int i = 0; i < cfg->nifaces; i++)
		s->why[i] = cfg->tc ? STAMPING_TC_ASKED : STAMPING_XDP;
	*out = s;
	return 0;
}

void stamping_free(struct rxlat_stamping *s)
{
	if (!s)
		return;
	for (int i = 0; i < RXLAT_MAX_CLI_IFACES; i++)
		free(s->taken[i]);
	free(s);
}

const char *stamping_xdp_taken(const struct rxlat_stamping *s, int i)
{
	return s->taken[i];
}

bool stamping_uses_tc(const struct rxlat_stamping *s, int i)
{
	return s->why[i] >= STAMPING_TC_ASKED;
}

bool stamping_any_tc(const struct rxlat_stamping *s)
{
	for (int i = 0; i < s->cfg->nifaces; i++)
		if (stamping_uses_tc(s, i))
			return true;
	return false;
}

enum stamping_why stamping_why(const struct rxlat_stamping *s, int i)
{
	return s->why[i];
}

bool stamping_attaches_xdp(const struct rxlat_stamping *s)
{
	const struct rxlat_config *cfg = s->cfg;

	return cfg->nifaces && !cfg->no_xdp && !cfg->tc;
}

void stamping_driver(const char *ifname, char *out, size_t len)
{
	struct ethtool_drvinfo info = { .cmd = ETHTOOL_GDRVINFO };
	struct ifreq ifr = { .ifr_data = (void *)&info };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	char path[PATH_MAX], link[PATH_MAX], *base;
	ssize_t n;

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (fd >= 0 && !ioctl(fd, SIOCETHTOOL, &ifr) && info.driver[0]) {
		close(fd);
		snprintf(out, len, "%.*s", (int)sizeof(info.driver), info.driver);
		return;
	}
	if (fd >= 0)
		close(fd);
	/* sysfs shows the namespace it was mounted in: the fallback only */
	snprintf(path, sizeof(path), "/sys/class/net/%s/device/driver", ifname);
	n = readlink(path, link, sizeof(link) - 1);
	if (n > 0) {
		link[n] = '\0';
		base = strrchr(link, '/');
		snprintf(out, len, "%.32s", base ? base + 1 : link);
		return;
	}
	snprintf(out, len, "(unknown)");
}

static const char *mode_name(const struct rxlat_config *cfg)
{
	return cfg->xdp_mode == RXLAT_XDP_SKB ? "skb" : "native";
}

int stamping_refuse_xdp(const struct rxlat_stamping *s, int i, const char *why, const char *hint)
{
	const struct rxlat_config *cfg = s->cfg;

	rxlat_err("%s: %s: %s %s asks for the XDP stamper; %s%srun without %s to stamp at tc "
		  "ingress",
		  cfg->ifnames[i], why, opt(OPT_XDP_MODE), mode_name(cfg), hint ? hint : "",
		  hint ? ", or " : "", opt(OPT_XDP_MODE));
	return -EOPNOTSUPP;
}

/*
 * Where the command line asks for no XDP (no --xdp-mode), rxlat stamps at
 * tc ingress, on every driver: attaching XDP changes the device it
 * measures, before rxlat could know whether XDP even carries its stamp
 * (xdp_device.c's table: virtio_net turns its guest offloads off;
 * vmxnet3 resets itself and leaves LRO off; mlx5 switches every channel;
 * a veth's peer loses TSO/GSO; make bench parts A and V measure TCP),
 * while the tc stamper changes nothing on it and reaches the containers
 * behind it too. What only the XDP stamp gives, the time before GRO, is one
 * option away. Said once the tc stamper is attached (ifaces_attach_tc()).
 */
static int by_default(struct rxlat_stamping *s, int i)
{
	const struct rxlat_config *cfg = s->cfg;
	char why[512], hint[64];

	if (!cfg->xdp_forced) {
		s->why[i] = STAMPING_TC_DEFAULT;
		return 0;
	}
	/* asked for: refused before anything touches a driver that has no room for the stamp */
	if (cfg->xdp_mode == RXLAT_XDP_NATIVE &&
	    xdp_device_no_meta(cfg->ifnames[i], why, sizeof(why))) {
		snprintf(hint, sizeof(hint), "%s skb stamps in generic XDP", opt(OPT_XDP_MODE));
		return stamping_refuse_xdp(s, i, why, hint);
	}
	return 0;
}

/* What holds named interface i's XDP hook decides first, then its kind. */
static int decide(struct rxlat_stamping *s, int i)
{
	const struct rxlat_config *cfg = s->cfg;
	char why[512], hint[PATH_MAX + 256];
	int err;

	err = stamper_xdp_holder(cfg->ifindexes[i], cfg->ifnames[i], why, sizeof(why), hint,
				 sizeof(hint));
	if (err < 0)
		return err;
	if (err && !cfg->xdp_forced) {
		s->why[i] = STAMPING_TC_DEFAULT; /* tc by default all the same */
		if (asprintf(&s->taken[i], "%s%s%s", why, hint[0] ? "; " : "", hint) < 0)
			s->taken[i] = NULL;
		return 0;
	}
	if (err)
		return stamping_refuse_xdp(s, i, why, hint[0] ? hint : NULL);
	return by_default(s, i);
}

/* The XDP stamper could not be attached to named interface i (err): an error. */
static int attach_failed(struct rxlat_stamping *s, int i, int err)
{
	const struct rxlat_config *cfg = s->cfg;
	char why[512], hint[PATH_MAX + 256];
	int held;

	if (err == -EBUSY || err == -EEXIST) {
		/* taken since the check before the stamper was loaded */
		held = stamper_xdp_holder(cfg->ifindexes[i], cfg->ifnames[i], why, sizeof(why),
					  hint, sizeof(hint));
		if (held < 0)
			return held;
		if (held)
			return stamping_refuse_xdp(s, i, why, hint[0] ? hint : NULL);
	}
	/* generic XDP runs on every device */
	snprintf(hint, sizeof(hint), "%s skb stamps in generic XDP", opt(OPT_XDP_MODE));
	snprintf(why, sizeof(why), "the XDP stamper cannot attach in %s mode (%s)", mode_name(cfg),
		 strerror(-err));
	return stamping_refuse_xdp(s, i, why, cfg->xdp_mode == RXLAT_XDP_SKB ? NULL : hint);
}

int stamping_attach_xdp(struct rxlat_stamping *s, struct rxlat_stamper **out)
{
	const struct rxlat_config *cfg = s->cfg;
	struct rxlat_stamper *st = NULL;
	int err = 0, i, nxdp = 0;

	*out = NULL;
	if (!stamping_attaches_xdp(s))
		return 0;
	for (i = 0; i < cfg->nifaces; i++) {
		err = decide(s, i);
		if (err < 0)
			return err;
		nxdp += !stamping_uses_tc(s, i);
	}
	if (!nxdp)
		return 0;
	/* before any driver is touched: a kernel whose XDP cannot carry the stamp */
	for (i = 0; i < cfg->nifaces; i++)
		if (!stamping_uses_tc(s, i) && rxlat_xdp_meta_refused())
			return stamping_refuse_xdp(s, i, RXLAT_XDP_META_REFUSED, NULL);
	err = stamper_load(&st, cfg);
	if (err)
		return err;
	for (i = 0; i < cfg->nifaces; i++) {
		if (stamping_uses_tc(s, i))
			continue;
		err = stamper_attach_iface(st, cfg, i, cfg->ifindexes[i]);
		if (err) {
			err = attach_failed(s, i, err);
			goto fail;
		}
		rxlat_info("XDP stamper attached to %s in %s mode, %s stamps", cfg->ifnames[i],
			   mode_name(cfg),
			   cfg->stamp == RXLAT_STAMP_PACKET ? "per-packet" : "per-poll");
	}
	err = stamper_attach_reset(st);
	if (err)
		goto fail;
	*out = st;
	return 0;
fail:
	stamper_destroy(st);
	return err ? err : -EINVAL;
}

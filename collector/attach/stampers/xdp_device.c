// SPDX-License-Identifier: GPL-2.0
/*
 * What attaching XDP does to a device (xdp_device.h): the driver table,
 * and the offloads put back after detach. The table is docs/tc-stamper.md's
 * (DRIVERS), which says how each row is known.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include "log.h"
#include "opt.h"
#include "stamping.h"
#include "xdp_device.h"
#include "xdp_meta.h"

struct xdp_driver {
	const char *name;
	bool no_native;	    /* no native XDP at all (no ndo_bpf) */
	bool no_meta;	    /* native XDP gets no room for metadata: refused */
	const char *native; /* what attaching native XDP does, NULL: nothing known */
};

static const struct xdp_driver drivers[] = {
	{ "virtio_net", false, false,
	  "stops NAPI on every queue while attaching, takes more queue pairs for XDP_TX, and "
	  "turns the guest receive offloads (the host's large segments) off while attached: "
	  "TCP slower than with nothing attached (make bench part V measures it)" },
	{ "veth", false, false,
	  "switches its peer's TSO/GSO off while attached: TCP slower than with nothing "
	  "attached (make bench part A measures it)" },
	{ "mlx5_core", false, false,
	  "switches every channel (queues closed and reopened, the receive queue type "
	  "changed), and refuses XDP while HW-GRO or LRO is on" },
	{ "bnxt_en", false, false, "closes and reopens the NIC" },
	{ "ixgbe", false, false, "rebuilds its rings" },
	{ "i40e", false, false, "rebuilds its rings" },
	{ "ice", false, false, "rebuilds its rings" },
	{ "igb", false, false, "rebuilds its rings" },
	{ "igc", false, false, "rebuilds its rings" },
	{ "vmxnet3", false, true, "quiesces and resets the device, and turns LRO off for good" },
	{ "ena", false, true, "reconfigures its queues" },
	{ "gve", false, false,
	  "reconfigures its queues, and in its GQI format gives XDP no room for metadata" },
	{ "mana", false, true, "reconfigures its queues" },
	{ "hv_netvsc", false, true, "reconfigures its queues" },
	{ "sfc", false, true, NULL },
	{ "e1000e", true, false, NULL },
	{ "mvneta", false, true, NULL },
	{ "mvpp2", false, true, NULL },
};

/* stamping_driver() named none (loopback, some virtual devices) */
static bool unknown(const char *drv)
{
	return drv[0] == '(';
}

static const struct xdp_driver *driver_of(const char *drv)
{
	for (size_t i = 0; i < sizeof(drivers) / sizeof(drivers[0]); i++)
		if (!strcmp(drivers[i].name, drv))
			return &drivers[i];
	return NULL;
}

const char *xdp_device_native(const char *drv)
{
	const struct xdp_driver *d = driver_of(drv);

	return d ? d->native : NULL;
}

/* ---- offloads ------------------------------------------------------- */

/* netdev_features_t: 64 bits (the kernel's ETHTOOL_DEV_FEATURE_WORDS) */
#define FEATURE_WORDS 2

struct xdp_device {
	__u32 active[FEATURE_WORDS];
};

static int ethtool_ioctl(int fd, const char *ifname, void *data)
{
	struct ifreq ifr = { .ifr_data = data };

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	return ioctl(fd, SIOCETHTOOL, &ifr) < 0 ? -errno : 0;
}

/* ifname's features, requested and active: 0 or -errno */
static int features_get(int fd, const char *ifname, __u32 requested[FEATURE_WORDS],
			__u32 active[FEATURE_WORDS])
{
	struct {
		struct ethtool_gfeatures g;
		struct ethtool_get_features_block b[FEATURE_WORDS];
	} req = { .g = { .cmd = ETHTOOL_GFEATURES, .size = FEATURE_WORDS } };
	int err = ethtool_ioctl(fd, ifname, &req);

	if (err)
		return err;
	for (int w = 0; w < FEATURE_WORDS; w++) {
		requested[w] = req.b[w].requested;
		active[w] = req.b[w].active;
	}
	return 0;
}

static int features_set(int fd, const char *ifname, const __u32 valid[FEATURE_WORDS],
			const __u32 requested[FEATURE_WORDS])
{
	struct {
		struct ethtool_sfeatures s;
		struct ethtool_set_features_block b[FEATURE_WORDS];
	} req = { .s = { .cmd = ETHTOOL_SFEATURES, .size = FEATURE_WORDS } };

	for (int w = 0; w < FEATURE_WORDS; w++) {
		req.b[w].valid = valid[w];
		req.b[w].requested = requested[w];
	}
	return ethtool_ioctl(fd, ifname, &req);
}

/* The name of feature bit, as ethtool -K takes it, in buf ("feature N" if unknown). */
static void feature_name(int fd, const char *ifname, int bit, char *buf, size_t len)
{
	struct {
		struct ethtool_sset_info i;
		__u32 n;
	} info = { .i = { .cmd = ETHTOOL_GSSET_INFO, .sset_mask = 1ull << ETH_SS_FEATURES } };
	struct ethtool_gstrings *s;

	snprintf(buf, len, "feature %d", bit);
	if (ethtool_ioctl(fd, ifname, &info) || !info.i.sset_mask || (__u32)bit >= info.n)
		return;
	s = calloc(1, sizeof(*s) + (size_t)info.n * ETH_GSTRING_LEN);
	if (!s)
		return;
	s->cmd = ETHTOOL_GSTRINGS;
	s->string_set = ETH_SS_FEATURES;
	s->len = info.n;
	if (!ethtool_ioctl(fd, ifname, s))
		snprintf(buf, len, "%.*s", ETH_GSTRING_LEN,
			 (const char *)s->data + (size_t)bit * ETH_GSTRING_LEN);
	free(s);
}

static int ctl_socket(void)
{
	return socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
}

static struct xdp_device *save(const char *ifname)
{
	__u32 requested[FEATURE_WORDS];
	struct xdp_device *d = calloc(1, sizeof(*d));
	int fd = ctl_socket();

	if (d && (fd < 0 || features_get(fd, ifname, requested, d->active))) {
		free(d);
		d = NULL;
	}
	if (fd >= 0)
		close(fd);
	return d;
}

void xdp_device_after(unsigned int ifindex, struct xdp_device *saved)
{
	__u32 req[FEATURE_WORDS], act[FEATURE_WORDS], lost[FEATURE_WORDS], off[FEATURE_WORDS] = {};
	char ifname[IF_NAMESIZE], name[ETH_GSTRING_LEN + 16];
	bool any = false;
	int fd;

	if (!saved)
		return;
	fd = ctl_socket();
	if (fd < 0 || !if_indextoname(ifindex, ifname) || features_get(fd, ifname, req, act))
		goto out;
	for (int w = 0; w < FEATURE_WORDS; w++) {
		lost[w] = saved->active[w] & ~act[w];
		any = any || lost[w];
	}
	if (!any)
		goto out;
	/*
	 * Requested on and still off (vmxnet3's LRO after XDP): the driver
	 * takes it again only from off, so off first.
	 */
	features_set(fd, ifname, lost, off);
	features_set(fd, ifname, lost, lost);
	if (features_get(fd, ifname, req, act))
		memset(act, 0, sizeof(act));
	for (int bit = 0; bit < 32 * FEATURE_WORDS; bit++) {
		__u32 m = 1u << (bit % 32);

		if (!(lost[bit / 32] & m))
			continue;
		feature_name(fd, ifname, bit, name, sizeof(name));
		if (act[bit / 32] & m)
			rxlat_info("%s: %s turned back on (attaching XDP had turned it off)",
				   ifname, name);
		else
			rxlat_warn("%s: %s is off since XDP was attached, and could not be turned "
				   "back on: 'ethtool -K %s %s off; ethtool -K %s %s on' does it",
				   ifname, name, ifname, name, ifname, name);
	}
out:
	if (fd >= 0)
		close(fd);
	free(saved);
}

/* ---- before --------------------------------------------------------- */

bool xdp_device_no_meta(const char *ifname, char *why, size_t why_len)
{
	const struct xdp_driver *d;
	char drv[64];

	stamping_driver(ifname, drv, sizeof(drv));
	d = driver_of(drv);
	if (!d || !d->no_meta)
		return false;
	snprintf(why, why_len,
		 "driver %s gives XDP programs no room for metadata (by its source: no packet "
		 "would carry a stamp)%s%s; rxlat does not attach it",
		 drv, d->native ? ", and attaching XDP " : "", d->native ? d->native : "");
	return true;
}

struct xdp_device *xdp_device_before(const char *ifname, bool skb)
{
	const struct xdp_driver *d;
	char drv[64];

	stamping_driver(ifname, drv, sizeof(drv));
	d = driver_of(drv);
	if (skb)
		rxlat_info(
		    "%s: attaching the XDP stamper in skb mode (generic XDP, driver %s): "
		    "the kernel turns LRO and hardware GRO off on it while attached (rxlat "
		    "turns them back on when it detaches), and copies each packet it must "
		    "make room for; without %s rxlat stamps at tc ingress and changes nothing "
		    "on the device",
		    ifname, drv, opt(OPT_XDP_MODE));
	else if (d && d->native)
		rxlat_info("%s: attaching the XDP stamper in native mode: driver %s %s; without "
			   "%s rxlat stamps at tc ingress and changes nothing on the device",
			   ifname, drv, d->native, opt(OPT_XDP_MODE));
	else
		rxlat_info("%s: attaching the XDP stamper in native mode: what that does to "
			   "%s%s is not known (many drivers reset their queues or the link); "
			   "without %s rxlat stamps at tc ingress and changes nothing on the "
			   "device",
			   ifname, unknown(drv) ? "" : "driver ",
			   unknown(drv) ? "this device" : drv, opt(OPT_XDP_MODE));
	return save(ifname);
}

void xdp_device_hint(const char *ifname, char *out, size_t len)
{
	const struct xdp_driver *d;
	char drv[64];

	stamping_driver(ifname, drv, sizeof(drv));
	d = driver_of(drv);
	/* no --xdp-mode to offer */
	if (rxlat_xdp_meta_refused())
		snprintf(out, len, "%s", RXLAT_XDP_META_REFUSED);
	else if (d && (d->no_meta || d->no_native))
		snprintf(out, len,
			 "driver %s %s: '%s skb' stamps in generic XDP (LRO and hardware GRO off "
			 "meanwhile)",
			 drv,
			 d->no_native ? "has no native XDP"
				      : "gives native XDP no room for metadata",
			 opt(OPT_XDP_MODE));
	else if (d && d->native)
		snprintf(out, len, "'%s native' stamps in XDP, before GRO, where driver %s %s",
			 opt(OPT_XDP_MODE), drv, d->native);
	else
		snprintf(
		    out, len,
		    "'%s native' stamps in XDP, before GRO (what attaching XDP does to %s%s is "
		    "not known: many drivers reset their queues or the link)",
		    opt(OPT_XDP_MODE), unknown(drv) ? "" : "driver ",
		    unknown(drv) ? "this device" : drv);
}

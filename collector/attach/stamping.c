// SPDX-License-Identifier: GPL-2.0
/*
 * Which stamper stamps each named interface, and why (stamping.h): the
 * rules, the state, and the line that says each decision.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
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

struct rxlat_stamping {
	const struct rxlat_config *cfg;
	enum stamping_why why[RXLAT_MAX_CLI_IFACES];
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
	free(s);
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

int stamping_may_leave_xdp(const struct rxlat_stamping *s, int i, const char *why, const char *hint)
{
	const struct rxlat_config *cfg = s->cfg;

	if (!cfg->xdp_forced)
		return 0;
	rxlat_err("%s: %s: %s %s asks for the XDP stamper; %s%srun without %s to stamp at tc "
		  "ingress",
		  cfg->ifnames[i], why, opt(OPT_XDP_MODE), mode_name(cfg), hint ? hint : "",
		  hint ? ", or " : "", opt(OPT_XDP_MODE));
	return -EOPNOTSUPP;
}

void stamping_switch_to_tc(struct rxlat_stamping *s, int i, enum stamping_why w, const char *why,
			   const char *tail)
{
	s->why[i] = w;
	rxlat_info("%s: %s: stamping at tc ingress instead%s", s->cfg->ifnames[i], why, tail);
}

/*
 * Named interface i cannot be stamped in XDP, for the reason given: the tc
 * stamper takes over (attached later, by ifaces_attach_tc()), said in one
 * line, 1. With --xdp-mode an error instead, -EOPNOTSUPP (nothing is
 * attached yet). hint, when not NULL, is how to stamp in XDP all the same.
 */
static int __attribute__((format(printf, 5, 6)))
tc_instead(struct rxlat_stamping *s, int i, enum stamping_why w, const char *hint, const char *fmt,
	   ...)
{
	char why[512], tail[PATH_MAX + 512];
	va_list ap;
	int err;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	err = stamping_may_leave_xdp(s, i, why, hint);
	if (err)
		return err;
	snprintf(tail, sizeof(tail), "%s%s", hint ? "; " : "", hint ? hint : "");
	stamping_switch_to_tc(s, i, w, why, tail);
	return 1;
}

/*
 * Where the command line names no stamper, rxlat picks one by the kind of
 * interface. On a veth, tc: any XDP program there switches its peer's
 * TSO/GSO off, so the peer segments in software and TCP runs at 0.26-0.41x
 * of nothing attached, where the tc stamper keeps 0.85-1.12x (make bench,
 * part A). What only the XDP stamp gives is worth little there: the time
 * before the veth's GRO, and stamps that reach the namespaces a packet is
 * forwarded to, while a veth is most often a container's own link. On every
 * other driver, XDP where it can: the stamp is taken in the driver's poll and
 * reaches the containers behind the interface. A veth is said once its
 * stamper is attached: at tc by ifaces_attach_tc(), in XDP (for want of
 * tcx links) below.
 */
static void by_default(struct rxlat_stamping *s, int i)
{
	const struct rxlat_config *cfg = s->cfg;
	char drv[64];

	/* --stamp packet asks for per-packet XDP stamps */
	if (cfg->xdp_forced || cfg->stamp == RXLAT_STAMP_PACKET)
		return;
	stamping_driver(cfg->ifnames[i], drv, sizeof(drv));
	if (strcmp(drv, "veth"))
		return;
	/*
	 * Without tcx links (before 6.6) the tc stamper is a cls_bpf filter,
	 * which a killed rxlat leaves behind: XDP there.
	 */
	if (!tc_has_tcx(cfg->ifindexes[i])) {
		s->why[i] = STAMPING_XDP_VETH;
		return;
	}
	/* napi_wait (and --from schedule) has samples of XDP stamps only */
	if (cfg->stages[RXLAT_STAGE_NAPI_WAIT]) {
		s->why[i] = STAMPING_XDP_WAIT;
		return;
	}
	s->why[i] = STAMPING_TC_VETH;
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
	if (err)
		return tc_instead(s, i, STAMPING_TC_TAKEN, hint[0] ? hint : NULL, "%s", why);
	by_default(s, i);
	return 0;
}

/*
 * The XDP stamper could not be attached to named interface i (err): tc
 * instead, or an error (tc_instead()).
 */
static int attach_failed(struct rxlat_stamping *s, int i, int err)
{
	const struct rxlat_config *cfg = s->cfg;
	char why[512], hint[PATH_MAX + 256];

	if (err == -EBUSY || err == -EEXIST) {
		/* taken since the check before the stamper was loaded */
		err = stamper_xdp_holder(cfg->ifindexes[i], cfg->ifnames[i], why, sizeof(why), hint,
					 sizeof(hint));
		if (err > 0)
			return tc_instead(s, i, STAMPING_TC_TAKEN, hint[0] ? hint : NULL, "%s",
					  why);
		if (!err)
			s->why[i] = STAMPING_TC_TAKEN; /* free again by now: tc all the same */
		return err;
	}
	/* generic XDP runs on every device */
	snprintf(hint, sizeof(hint), "%s skb stamps in generic XDP", opt(OPT_XDP_MODE));
	return tc_instead(s, i, STAMPING_TC_NO_XDP, cfg->xdp_mode == RXLAT_XDP_SKB ? NULL : hint,
			  "the XDP stamper cannot attach in %s mode (%s)", mode_name(cfg),
			  strerror(-err));
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
	err = stamper_load(&st, cfg);
	if (err)
		return err;
	for (i = 0; i < cfg->nifaces; i++) {
		if (stamping_uses_tc(s, i))
			continue;
		err = stamper_attach_iface(st, cfg, i, cfg->ifindexes[i]);
		if (err) {
			err = attach_failed(s, i, err);
			if (err < 0)
				goto fail;
			continue;
		}
		rxlat_info("XDP stamper attached to %s in %s mode, %s stamps", cfg->ifnames[i],
			   mode_name(cfg),
			   cfg->stamp == RXLAT_STAMP_PACKET ? "per-packet" : "per-poll");
		if (s->why[i] == STAMPING_XDP_VETH)
			rxlat_info(
			    "%s: a veth, stamped in XDP: this kernel has no tcx links, and "
			    "the tc stamper's cls_bpf filter would outlive a killed rxlat; its "
			    "peer's TSO/GSO are off while rxlat runs (%s keeps them)",
			    cfg->ifnames[i], opt(OPT_TC));
		if (s->why[i] == STAMPING_XDP_WAIT)
			rxlat_info("%s: a veth, stamped in XDP for stage %s (a tc stamp carries no "
				   "poll); its peer's TSO/GSO are off while rxlat runs",
				   cfg->ifnames[i], rxlat_stage_names[RXLAT_STAGE_NAPI_WAIT]);
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

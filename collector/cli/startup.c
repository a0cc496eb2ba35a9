// SPDX-License-Identifier: GPL-2.0
/*
 * What rxlat checks and says at start-up, before its first report: the
 * standard descriptors, the plan of the stages (--list-stages, and the
 * lines once everything is attached), the refusals that come before any
 * device is touched, and the run without a stamper.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "hooks.h"
#include "log.h"
#include "opt.h"
#include "series.h"
#include "startup.h"

/*
 * One line per stage asked for: its attach point and the protocols it
 * measures ("tp_btf:tcp_probe [tcp]"), and why it fell back, or why it is
 * unavailable. A protocol left out has its reason among the fallback's.
 */
void print_plan(const struct rxlat_config *cfg, const struct rxlat_hooks_info *info, FILE *f,
		const char *prefix, const bool *extra)
{
	for (int s = 0; s < RXLAT_NR_STAGES; s++) {
		char protos[32], more[160] = "";

		if (!cfg->stages[s])
			continue;
		/* where a wait before the stamp ends depends on the stamper */
		if (s == RXLAT_STAGE_NAPI_WAIT && info->attach[s])
			snprintf(more, sizeof(more),
				 " (to the poll's stamp: in XDP its start, at tc ingress its first "
				 "packet, after GRO)");
		if (extra && extra[s])
			snprintf(more + strlen(more), sizeof(more) - strlen(more),
				 " (not by default: %s +%s)", opt(OPT_STAGES),
				 rxlat_stage_names[s]);
		rxlat_protos_str(info->coverage[s].measured, protos, sizeof(protos));
		if (info->attach[s] && info->fallback_why[s])
			fprintf(f, "%s%-15s %s [%s] (fallback: %s)%s\n", prefix,
				rxlat_stage_names[s], info->attach[s], protos,
				info->fallback_why[s], more);
		else if (info->attach[s])
			fprintf(f, "%s%-15s %s [%s]%s\n", prefix, rxlat_stage_names[s],
				info->attach[s], protos, more);
		else
			fprintf(f, "%s%-15s unavailable: %s%s\n", prefix, rxlat_stage_names[s],
				info->unavailable[s], more);
	}
}

/*
 * fds 0-2 closed at exec would be taken by rxlat's next open files (a BPF
 * object's fd as stdout): closed stdin and stderr get /dev/null, a closed
 * stdout is an error, as the reports go there. 0 or -EBADF, printed.
 */
int check_std_fds(void)
{
	bool out_closed = false;

	for (int fd = 0; fd <= 2; fd++) {
		int got;

		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		/* the lowest free fd: this one, as those below are open */
		got = open("/dev/null", fd ? O_WRONLY : O_RDONLY);
		if (got != fd) {
			if (got >= 0)
				close(got);
			return -EBADF;
		}
		out_closed |= fd == STDOUT_FILENO;
	}
	if (out_closed) {
		rxlat_err("stdout is closed: rxlat writes its reports there; redirect it to a "
			  "file or to /dev/null");
		return -EBADF;
	}
	return 0;
}

/*
 * Generic XDP stamps in __netif_receive_skb_core(), after the tracepoint
 * that is ip_rcv's fallback, where napi_wait reads an XDP stamp: with
 * --xdp-mode skb on that set napi_wait, and --from schedule with it, would
 * measure nothing. Refused before anything is attached to a device: true
 * (said).
 */
bool skb_mode_wait(const struct rxlat_config *cfg, const struct rxlat_hooks_info *info)
{
	const char *ip = info->attach[RXLAT_STAGE_IP_RCV];

	if (!cfg->xdp_forced || cfg->xdp_mode != RXLAT_XDP_SKB ||
	    !cfg->stages[RXLAT_STAGE_NAPI_WAIT] || !ip || !strstr(ip, "netif_receive_skb"))
		return false;
	rxlat_err("%s skb: generic XDP stamps after ip_rcv's fallback (%s), where %s reads an "
		  "XDP stamp: it would measure nothing on this kernel%s; leave out %s to measure "
		  "it from the tc stamp",
		  opt(OPT_XDP_MODE), ip, rxlat_stage_names[RXLAT_STAGE_NAPI_WAIT],
		  cfg->bpf.from == RXLAT_FROM_SCHEDULE ? ", nor the stages from the schedule" : "",
		  opt(OPT_XDP_MODE));
	return true;
}

/*
 * No stamper of any kind (no -i, none loaded): said, and napi_wait, which
 * measures a poll by its stamp, is not measured, whatever its programs.
 */
void no_stamper(const struct rxlat_config *cfg, struct rxlat_hooks_info *info)
{
	static const char why[] = "no stamper: a poll is known by its stamp (name an interface "
				  "with -i)";
	struct rxlat_coverage *w = &info->coverage[RXLAT_STAGE_NAPI_WAIT];

	rxlat_info("no XDP stamper attached (no %s given and none loaded): only kernel receive "
		   "timestamps can be measured%s",
		   opt_short(OPT_INTERFACE),
		   cfg->stages[RXLAT_STAGE_NAPI_WAIT] ? ", and no napi_wait" : "");
	if (!cfg->stages[RXLAT_STAGE_NAPI_WAIT])
		return;
	for (int p = 0; p < RXLAT_NR_PROTOS; p++)
		if (w->measured & RXLAT_PROTO_BIT(p))
			w->why_not[p] = why;
	w->measured = 0;
}

/*
 * --list-stages: the plan of the stages asked for (the default ones with
 * those asked for by name), proven by loading them; 0 or 1, the exit status.
 */
int list_stages(struct rxlat_config *cfg, struct rxlat_hooks_info *info)
{
	bool extra[RXLAT_NR_STAGES] = { false }, dflt = true;
	int err;

	for (int s = 0; s < RXLAT_NR_STAGES; s++)
		dflt = dflt && cfg->stages[s] == !RXLAT_STAGE_OPT_IN(s);
	for (int s = 0; s < RXLAT_NR_STAGES && dflt; s++)
		if (RXLAT_STAGE_OPT_IN(s))
			cfg->stages[s] = extra[s] = true;
	err = hooks_plan(cfg, info);
	if (err == -EINTR)
		return 0; /* stopped by a signal: no plan to print */
	/* a plan without a stage is printed too (it says why); any other error is said */
	if (err && err != -EOPNOTSUPP)
		return 1;
	print_plan(cfg, info, stdout, "", extra);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * rxlat's command line: one argtable2 table drives parsing and --help, the
 * stage table of rxlat.h the list of stages, and each option's choices both
 * its --help syntax and its error message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <argtable2.h>
#include <bpf/libbpf.h>
#include "config.h"
#include "log.h"
#include "options.h"
#include "prom.h"
#include "report.h"
#include "slow.h"

struct opts {
	struct arg_str *iface, *xdp_mode, *stamp, *stages, *attach, *output, *prometheus;
	struct arg_str *proto, *port, *cgroup, *slow;
	struct arg_int *slow_rate;
	struct arg_lit *no_xdp, *tc, *per_queue, *list_stages, *verbose, *help, *version;
	struct arg_lit *drops;
	struct arg_dbl *interval, *duration;
	struct arg_int *max_ifaces, *max_queues, *prom_buckets;
	struct arg_end *end;
};

/* The choices of the options that take one, indexed by the value they set. */
static const char *const xdp_modes[] = { [RXLAT_XDP_NATIVE] = "native", [RXLAT_XDP_SKB] = "skb" };
static const char *const stamps[] = {
	[RXLAT_STAMP_BATCH] = "batch", [RXLAT_STAMP_PACKET] = "packet"
};
static const char *const attaches[] = { [RXLAT_ATTACH_AUTO] = "auto",
					[RXLAT_ATTACH_FENTRY] = "fentry",
					[RXLAT_ATTACH_FALLBACK] = "fallback" };
static const char *const outputs[] = {
	[RXLAT_OUT_TEXT] = "text", [RXLAT_OUT_JSON] = "json", [RXLAT_OUT_NONE] = "none"
};
#define NCHOICES(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* names joined by sep into buf, which is returned */
static const char *join(char *buf, size_t len, const char *const *names, int n, const char *sep)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < n && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s", i ? sep : "", names[i]);
	return buf;
}

static int parse_choice(const char *opt, const char *val, const char *const *names, int n)
{
	char list[128];

	for (int i = 0; i < n; i++)
		if (!strcmp(val, names[i]))
			return i;
	rxlat_err("invalid value '%s' for %s: choose one of %s", val, opt,
		  join(list, sizeof(list), names, n, ", "));
	return -1;
}

static int parse_stages(const char *list, bool *stages)
{
	char buf[256], *tok, *save = NULL;
	int named = 0;

	if (strlen(list) >= sizeof(buf)) {
		rxlat_err("--stages: list too long");
		return -1;
	}
	strcpy(buf, list);
	memset(stages, 0, RXLAT_NR_STAGES * sizeof(*stages));
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int s = 0;

		while (s < RXLAT_NR_STAGES && strcmp(tok, rxlat_stage_names[s]))
			s++;
		if (s == RXLAT_NR_STAGES) {
			rxlat_err("unknown stage '%s' in --stages: see rxlat --list-stages", tok);
			return -1;
		}
		stages[s] = true;
		named++;
	}
	if (!named) {
		rxlat_err("--stages '%s' names no stage: give one or more of rxlat --list-stages",
			  list);
		return -1;
	}
	return 0;
}

/*
 * argtable's first error as one line of ours: it writes "PROGNAME: what"
 * per error, so its text comes after the first ": ".
 */
static void print_arg_error(const struct opts *o)
{
	char *buf = NULL, *msg, *nl;
	size_t len = 0;
	FILE *m;

	/* more -i than the table holds: say the limit, argtable does not */
	if (o->end->count && o->end->parent[0] == o->iface) {
		rxlat_err("-i: at most %d interfaces can be named", RXLAT_MAX_CLI_IFACES);
		return;
	}
	m = open_memstream(&buf, &len);
	if (!m) {
		rxlat_err("invalid command line: see rxlat --help");
		return;
	}
	arg_print_errors(m, o->end, "");
	fclose(m);
	msg = buf && !strncmp(buf, ": ", 2) ? buf + 2 : buf ? buf : "";
	nl = strchr(msg, '\n');
	if (nl)
		*nl = '\0';
	rxlat_err("%s: see rxlat --help", msg[0] ? msg : "invalid command line");
	free(buf);
}

/* --prometheus and what goes with it */
static int parse_prometheus(const struct opts *o, struct rxlat_config *cfg)
{
	int k = o->prom_buckets->count ? o->prom_buckets->ival[0] : PROM_BUCKETS_DEFAULT;

	if (!o->prometheus->count) {
		if (cfg->output == RXLAT_OUT_NONE) {
			rxlat_err("-o none prints no report: give --prometheus [ADDR:]PORT to "
				  "export the metrics, or choose -o text or -o json");
			return -1;
		}
		if (o->prom_buckets->count) {
			rxlat_err("--prometheus-buckets applies to --prometheus only: give "
				  "--prometheus [ADDR:]PORT too");
			return -1;
		}
		return 0;
	}
	if (k != 1 && k != 2 && k != 4 && k != 8) {
		rxlat_err("--prometheus-buckets %d: choose 1, 2, 4 or 8 buckets per power of two",
			  k);
		return -1;
	}
	cfg->prom_buckets = (unsigned int)k;
	return prom_parse_listen(o->prometheus->sval[0], cfg) ? -1 : 0;
}

/* One option per entry, its text wrapped at word boundaries into the
 * right-hand column (argtable2's own GNU glossary cuts words and drops a
 * character at each wrap). */
enum { GLOSS_COL = 28, GLOSS_WIDTH = 80 };

static void print_glossary(FILE *f, void **table)
{
	for (struct arg_hdr **h = (struct arg_hdr **)table; !((*h)->flag & ARG_TERMINATOR); h++) {
		const struct arg_hdr *a = *h;
		const char *text = a->glossary;
		char opt[64], shortopt[5] = "    ";
		int n;

		if (!text)
			continue;
		if (a->shortopts && a->shortopts[0])
			snprintf(shortopt, sizeof(shortopt), "-%c, ", a->shortopts[0]);
		n = snprintf(opt, sizeof(opt), "  %s--%s%s%s", shortopt,
			     a->longopts ? a->longopts : "", a->datatype ? "=" : "",
			     a->datatype ? a->datatype : "");
		fputs(opt, f);
		if (n >= GLOSS_COL) {
			fputc('\n', f);
			n = 0;
		}
		while (*text) {
			size_t len = strlen(text), cut = len;

			if (len > GLOSS_WIDTH - GLOSS_COL) {
				cut = GLOSS_WIDTH - GLOSS_COL;
				while (cut > 0 && text[cut] != ' ')
					cut--;
				if (!cut) /* one word longer than the column */
					cut = strcspn(text, " ");
			}
			fprintf(f, "%*s%.*s\n", GLOSS_COL - n, "", (int)cut, text);
			n = 0;
			text += cut;
			while (*text == ' ')
				text++;
		}
	}
}

static void usage(FILE *f, void **table)
{
	fputs("Usage: rxlat", f);
	arg_print_syntaxv(f, table, "\n");
	fputs("Measure how long received packets spend in the network stack, per stage,\n"
	      "interface and receive queue.\n\n",
	      f);
	print_glossary(f, table);
	fputs("\nStages:", f);
	for (int s = 0; s < RXLAT_NR_STAGES; s++)
		fprintf(f, "%s %s", s ? "," : "", rxlat_stage_names[s]);
	fputs(".\nBPF objects for xdp-loader and tc: " RXLAT_LIBDIR "\n"
	      "See rxlat(8).\n",
	      f);
}

int options_parse(int argc, char **argv, struct rxlat_config *cfg)
{
	char xdp_mode_syntax[64], stamp_syntax[64], attach_syntax[64], output_syntax[64];
	struct opts o = {
		.iface =
		    arg_strn("i", "interface", "IFACE", 0, RXLAT_MAX_CLI_IFACES,
			     "attach the XDP stamper to IFACE and report only it (repeatable)"),
		.xdp_mode = arg_str0(NULL, "xdp-mode",
				     join(xdp_mode_syntax, sizeof(xdp_mode_syntax), xdp_modes,
					  NCHOICES(xdp_modes), "|"),
				     "XDP attach mode (default: native)"),
		.no_xdp =
		    arg_lit0(NULL, "no-xdp", "use a stamper that xdp-loader attached, attach none"),
		.tc = arg_lit0(NULL, "tc",
			       "stamp at tc ingress of each -i IFACE instead of in XDP (rxlat "
			       "falls back to it where XDP cannot attach)"),
		.stamp = arg_str0(
		    NULL, "stamp",
		    join(stamp_syntax, sizeof(stamp_syntax), stamps, NCHOICES(stamps), "|"),
		    "one stamp per NAPI poll (default, keeps GRO) or per packet"),
		.per_queue = arg_lit0(NULL, "per-queue", "one series per receive queue"),
		.stages = arg_str0(NULL, "stages", "LIST",
				   "comma-separated stages to attach (default: all)"),
		.attach = arg_str0(
		    NULL, "attach",
		    join(attach_syntax, sizeof(attach_syntax), attaches, NCHOICES(attaches), "|"),
		    "auto (default): fentry where the kernel allows it, else "
		    "the fallback; fentry: fentry only; fallback: no trampolines"),
		.interval = arg_dbl0("r", "interval", "SECONDS",
				     "report interval, fractions allowed (default: 1)"),
		.duration = arg_dbl0("d", "duration", "SECONDS",
				     "run time; 0 runs until SIGINT/SIGTERM (default: 0)"),
		.output = arg_str0(
		    "o", "output",
		    join(output_syntax, sizeof(output_syntax), outputs, NCHOICES(outputs), "|"),
		    "terminal histograms, JSON lines or no report (default: text)"),
		.prometheus = arg_str0(NULL, "prometheus", "[ADDR:]PORT",
				       "serve /metrics there (a bare port: 127.0.0.1)"),
		.prom_buckets = arg_int0(NULL, "prometheus-buckets", "1|2|4|8",
					 "exported buckets per power of two (default: 2)"),
		.proto = arg_str0(NULL, "proto", "tcp|udp", "only packets of this protocol"),
		.port = arg_str0(NULL, "port", "N[,N..]", "only packets to these local ports"),
		.cgroup = arg_str0(NULL, "cgroup", "PATH",
				   "only sockets of this cgroup v2 (not its children); "
				   "ip_rcv, before any socket, records nothing"),
		.drops =
		    arg_lit0(NULL, "drops", "count dropped stamped packets per reason (5.17+)"),
		.slow = arg_str0(NULL, "slow", "DURATION",
				 "a record per sample from DURATION up (as in 2ms)"),
		.slow_rate =
		    arg_int0(NULL, "slow-rate", "N", "records a second per CPU (default: 1000)"),
		.max_ifaces = arg_int0(NULL, "max-ifaces", "N",
				       "interfaces with a series of their own (default: 16)"),
		.max_queues = arg_int0(NULL, "max-queues", "N",
				       "queues with a series of their own (default: 16)"),
		.list_stages = arg_lit0(NULL, "list-stages",
					"print each stage's attach point on this kernel and exit"),
		.verbose = arg_lit0("v", "verbose", "print libbpf and verifier messages"),
		.help = arg_lit0("h", "help", "print this help and exit"),
		.version = arg_lit0("V", "version", "print the version and exit"),
		.end = arg_end(10),
	};
	void *table[] = { o.iface,	o.xdp_mode,    o.no_xdp,       o.tc,	    o.stamp,
			  o.per_queue,	o.stages,      o.attach,       o.interval,  o.duration,
			  o.output,	o.prometheus,  o.prom_buckets, o.proto,	    o.port,
			  o.cgroup,	o.drops,       o.slow,	       o.slow_rate, o.max_ifaces,
			  o.max_queues, o.list_stages, o.verbose,      o.help,	    o.version,
			  o.end };
	const int ntable = sizeof(table) / sizeof(table[0]);
	int ret = -1, v;

	if (arg_nullcheck(table)) {
		rxlat_err("out of memory");
		goto out;
	}
	if (arg_parse(argc, argv, table) > 0) {
		print_arg_error(&o);
		goto out;
	}
	if (o.help->count) {
		usage(stdout, table);
		ret = 1;
		goto out;
	}
	if (o.version->count) {
		printf("rxlat %s (libbpf %s)\n", RXLAT_VERSION, libbpf_version_string());
		ret = 1;
		goto out;
	}

	cfg->verbose = o.verbose->count > 0;
	cfg->no_xdp = o.no_xdp->count > 0;
	cfg->tc = o.tc->count > 0;
	cfg->per_queue = o.per_queue->count > 0;
	cfg->drops = o.drops->count > 0;
	cfg->list_stages = o.list_stages->count > 0;
	cfg->interval_s = o.interval->count ? o.interval->dval[0] : 1.0;
	cfg->duration_s = o.duration->count ? o.duration->dval[0] : 0.0;
	cfg->bpf.max_ifaces =
	    o.max_ifaces->count ? (__u32)o.max_ifaces->ival[0] : RXLAT_MAX_IFACES_DEFAULT;
	cfg->bpf.max_queues =
	    o.max_queues->count ? (__u32)o.max_queues->ival[0] : RXLAT_MAX_QUEUES_DEFAULT;
	for (int s = 0; s < RXLAT_NR_STAGES; s++)
		cfg->stages[s] = true;

	if (!(cfg->interval_s >= 0.01 && cfg->interval_s <= 86400)) {
		rxlat_err("-r %g: the report interval must be between 0.01 and 86400 seconds",
			  cfg->interval_s);
		goto out;
	}
	if (!(cfg->duration_s >= 0 && cfg->duration_s <= 1e9)) {
		rxlat_err("-d %g: the run time must be 0 (until a signal) or a positive number "
			  "of seconds up to 1e9",
			  cfg->duration_s);
		goto out;
	}
	if (o.max_ifaces->count &&
	    (o.max_ifaces->ival[0] < 1 || o.max_ifaces->ival[0] > RXLAT_MAX_IFACES_LIMIT)) {
		rxlat_err("--max-ifaces must be between 1 and %d", RXLAT_MAX_IFACES_LIMIT);
		goto out;
	}
	if (o.max_queues->count &&
	    (o.max_queues->ival[0] < 1 || o.max_queues->ival[0] > RXLAT_MAX_QUEUES_LIMIT)) {
		rxlat_err("--max-queues must be between 1 and %d", RXLAT_MAX_QUEUES_LIMIT);
		goto out;
	}
	if (o.xdp_mode->count) {
		if ((v = parse_choice("--xdp-mode", o.xdp_mode->sval[0], xdp_modes,
				      NCHOICES(xdp_modes))) < 0)
			goto out;
		cfg->xdp_mode = v;
	}
	if (o.stamp->count) {
		if ((v = parse_choice("--stamp", o.stamp->sval[0], stamps, NCHOICES(stamps))) < 0)
			goto out;
		cfg->stamp = v;
	}
	if (o.attach->count) {
		if ((v = parse_choice("--attach", o.attach->sval[0], attaches,
				      NCHOICES(attaches))) < 0)
			goto out;
		cfg->attach = v;
	}
	if (o.output->count) {
		if ((v = parse_choice("-o", o.output->sval[0], outputs, NCHOICES(outputs))) < 0)
			goto out;
		cfg->output = v;
	}
	if (o.stages->count && parse_stages(o.stages->sval[0], cfg->stages))
		goto out;
	if (parse_prometheus(&o, cfg))
		goto out;
	if (o.proto->count && filters_parse_proto(o.proto->sval[0], cfg))
		goto out;
	if (o.port->count && filters_parse_ports(o.port->sval[0], cfg))
		goto out;
	if (o.cgroup->count && filters_parse_cgroup(o.cgroup->sval[0], cfg))
		goto out;
	if (o.slow->count && slow_parse_duration("--slow", o.slow->sval[0], &cfg->bpf.slow_ns))
		goto out;
	cfg->slow_rate = 1000;
	if (o.slow_rate->count) {
		if (!o.slow->count) {
			rxlat_err("--slow-rate applies to --slow only: give --slow DURATION too");
			goto out;
		}
		if (o.slow_rate->ival[0] < 1 || o.slow_rate->ival[0] > 1000000) {
			rxlat_err("--slow-rate %d: give a number of records a second from 1 to "
				  "1000000",
				  o.slow_rate->ival[0]);
			goto out;
		}
		cfg->slow_rate = (unsigned int)o.slow_rate->ival[0];
	}
	cfg->bpf.slow_cost_ns = 1000000000ull / cfg->slow_rate;
	if (cfg->bpf.slow_ns && cfg->output == RXLAT_OUT_NONE) {
		rxlat_err("--slow writes its records with the reports: choose -o text or -o json");
		goto out;
	}
	if (cfg->no_xdp && (o.xdp_mode->count || o.stamp->count)) {
		rxlat_err("--no-xdp uses a stamper loaded elsewhere: --xdp-mode and --stamp "
			  "do not apply");
		goto out;
	}
	if (cfg->tc && (o.xdp_mode->count || o.stamp->count)) {
		rxlat_err("--tc stamps at tc ingress: --xdp-mode and --stamp do not apply");
		goto out;
	}
	if (cfg->tc && !o.iface->count) {
		rxlat_err("--tc needs the interfaces to stamp: add -i IFACE");
		goto out;
	}
	for (int i = 0; i < o.iface->count; i++) {
		const char *name = o.iface->sval[i];

		if (strlen(name) >= IF_NAMESIZE || !(cfg->ifindexes[i] = if_nametoindex(name))) {
			rxlat_err("unknown interface '%s': see 'ip link' for the interfaces of "
				  "this network namespace",
				  name);
			goto out;
		}
		for (int j = 0; j < i; j++)
			if (cfg->ifindexes[j] == cfg->ifindexes[i]) {
				rxlat_err("interface '%s' named twice", name);
				goto out;
			}
		strcpy(cfg->ifnames[i], name);
		cfg->nifaces++;
	}
	if ((__u32)cfg->nifaces > cfg->bpf.max_ifaces) {
		rxlat_err("%d interfaces named but --max-ifaces is %u", cfg->nifaces,
			  cfg->bpf.max_ifaces);
		goto out;
	}
	ret = 0;
out:
	arg_freetable(table, ntable);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * rxlat's command line, read from the option table (options_table.h): the
 * argtable2 entries, --help, each value's default, range or choices and the
 * field it goes to. What is left here by hand is what concerns several
 * options at once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <argtable2.h>
#include <bpf/libbpf.h>
#include "log.h"
#include "objects.h"
#include "options.h"

static const struct rxlat_option options[RXLAT_NR_OPTS] = {
#define OPTION RXLAT_OPTION_ENTRY
#include "options_table.h"
#undef OPTION
};

/* the argtable2 entry of each option, as the type its kind makes */
union cli_arg {
	void *any;
	struct arg_lit *lit;
	struct arg_int *i;
	struct arg_dbl *d;
	struct arg_str *s;
};

struct cli {
	union cli_arg arg[RXLAT_NR_OPTS];
	struct arg_end *end;
	void *table[RXLAT_NR_OPTS + 1]; /* arg[], then end: what argtable2 reads */
	char metavar[RXLAT_NR_OPTS][64];
};

/* the names of o's choices joined by sep into buf, which is returned */
static const char *join_choices(const struct rxlat_option *o, const char *sep, char *buf,
				size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < o->nchoices && used < len; i++)
		if (o->choices[i])
			used += snprintf(buf + used, len - used, "%s%s", used ? sep : "",
					 o->choices[i]);
	return buf;
}

/* times o was given */
static int given(const struct cli *c, enum rxlat_opt id)
{
	switch (options[id].kind) {
	case KIND_FLAG:
		return c->arg[id].lit->count;
	case KIND_UINT:
		return c->arg[id].i->count;
	case KIND_DOUBLE:
		return c->arg[id].d->count;
	default:
		return c->arg[id].s->count;
	}
}

static int build(struct cli *c)
{
	for (int id = 0; id < RXLAT_NR_OPTS; id++) {
		const struct rxlat_option *o = &options[id];
		const char *s = o->shortopt[0] ? o->shortopt : NULL, *l = o->longopt;
		const char *mv = o->metavar;

		if (o->kind == KIND_CHOICE)
			mv = join_choices(o, "|", c->metavar[id], sizeof(c->metavar[id]));
		switch (o->kind) {
		case KIND_FLAG:
			c->arg[id].lit = arg_lit0(s, l, o->help);
			break;
		case KIND_UINT:
			c->arg[id].i = arg_int0(s, l, mv, o->help);
			break;
		case KIND_DOUBLE:
			c->arg[id].d = arg_dbl0(s, l, mv, o->help);
			break;
		default:
			c->arg[id].s =
			    arg_strn(s, l, mv, 0, o->max_count ? o->max_count : 1, o->help);
		}
		c->table[id] = c->arg[id].any;
	}
	c->end = arg_end(10);
	c->table[RXLAT_NR_OPTS] = c->end;
	return arg_nullcheck(c->table);
}

/*
 * argtable's first error as one line of ours: it writes "PROGNAME: what"
 * per error, so its text comes after the first ": ".
 */
static void print_arg_error(const struct cli *c)
{
	char *buf = NULL, *msg, *nl;
	size_t len = 0;
	FILE *m;

	/* more -i than the table holds: say the limit, argtable does not */
	if (c->end->count && c->end->parent[0] == c->arg[OPT_INTERFACE].any) {
		rxlat_err("%s: at most %d interfaces can be named", opt_short(OPT_INTERFACE),
			  options[OPT_INTERFACE].max_count);
		return;
	}
	m = open_memstream(&buf, &len);
	if (!m) {
		rxlat_err("invalid command line: see rxlat %s", opt(OPT_HELP));
		return;
	}
	arg_print_errors(m, c->end, "");
	fclose(m);
	msg = buf && !strncmp(buf, ": ", 2) ? buf + 2 : buf ? buf : "";
	nl = strchr(msg, '\n');
	if (nl)
		*nl = '\0';
	rxlat_err("%s: see rxlat %s", msg[0] ? msg : "invalid command line", opt(OPT_HELP));
	free(buf);
}

/* ---- --help ------------------------------------------------------------ */

/* One option per entry, its text wrapped at word boundaries into the
 * right-hand column (argtable2's own GNU glossary cuts words and drops a
 * character at each wrap). */
enum { GLOSS_COL = 28, GLOSS_WIDTH = 80 };

static void print_glossary(FILE *f, const struct cli *c)
{
	for (int id = 0; id < RXLAT_NR_OPTS; id++) {
		const struct rxlat_option *o = &options[id];
		const char *mv = o->kind == KIND_CHOICE ? c->metavar[id] : o->metavar;
		char left[64], shortopt[5] = "    ", buf[256];
		const char *text = rxlat_option_help(o, buf, sizeof(buf));
		int n;

		if (o->shortopt[0])
			snprintf(shortopt, sizeof(shortopt), "-%s, ", o->shortopt);
		n = snprintf(left, sizeof(left), "  %s--%s%s%s", shortopt, o->longopt,
			     mv ? "=" : "", mv ? mv : "");
		fputs(left, f);
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

static void usage(FILE *f, const struct cli *c)
{
	fputs("Usage: rxlat", f);
	arg_print_syntaxv(f, (void **)c->table, "\n");
	fputs("Measure how long received packets spend in the network stack, per stage,\n"
	      "interface and receive queue.\n\n",
	      f);
	print_glossary(f, c);
	fputs("\nStages:", f);
	for (int s = 0; s < RXLAT_NR_STAGES; s++)
		fprintf(f, "%s %s", s ? "," : "", rxlat_stage_names[s]);
	/* where this rxlat loads them from; a long path goes on a line of its own */
	fprintf(f, ".\nBPF objects for xdp-loader and tc:%s%s\nSee rxlat(8).\n",
		strlen(rxlat_objects_dir()) > 44 ? "\n  " : " ", rxlat_objects_dir());
}

/* ---- the values -------------------------------------------------------- */

static int out_of_range(enum rxlat_opt id, double v)
{
	char lo[32], hi[32];

	rxlat_err(options[id].range, opt_short(id), v, opt_num(options[id].min, lo, sizeof(lo)),
		  opt_num(options[id].max, hi, sizeof(hi)));
	return -1;
}

/* v into o's field: memcpy, the field being any of bool, an integer, an enum or double */
static void store(struct rxlat_config *cfg, const struct rxlat_option *o, const void *v, size_t n)
{
	if (o->size == n)
		memcpy((char *)cfg + o->off, v, n);
}

/* o's integer or enum field, whatever its width */
static unsigned int load_uint(const struct rxlat_config *cfg, const struct rxlat_option *o)
{
	__u8 v8;
	unsigned int v = 0;

	if (o->size == sizeof(v8)) {
		memcpy(&v8, (const char *)cfg + o->off, sizeof(v8));
		return v8;
	}
	if (o->size == sizeof(v))
		memcpy(&v, (const char *)cfg + o->off, sizeof(v));
	return v;
}

/* v into o's integer or enum field, whatever its width */
static void store_uint(struct rxlat_config *cfg, const struct rxlat_option *o, unsigned int v)
{
	__u8 v8 = (__u8)v;

	if (o->size == sizeof(v8))
		store(cfg, o, &v8, sizeof(v8));
	else
		store(cfg, o, &v, sizeof(v));
}

/* o's value given on the command line into its field */
static int set_value(const struct cli *c, enum rxlat_opt id, struct rxlat_config *cfg)
{
	const struct rxlat_option *o = &options[id];
	const bool yes = true;
	char list[128];
	double v;

	switch (o->kind) {
	case KIND_FLAG:
		store(cfg, o, &yes, sizeof(yes));
		return 0;
	case KIND_UINT:
	case KIND_DOUBLE:
		v = o->kind == KIND_UINT ? c->arg[id].i->ival[0] : c->arg[id].d->dval[0];
		if (!(v >= o->min && v <= o->max))
			return out_of_range(id, v);
		if (o->kind == KIND_UINT)
			store_uint(cfg, o, (unsigned int)v);
		else
			store(cfg, o, &v, sizeof(v));
		return 0;
	case KIND_CHOICE:
		for (int i = 0; i < o->nchoices; i++)
			if (o->choices[i] && !strcmp(c->arg[id].s->sval[0], o->choices[i])) {
				store_uint(cfg, o, (unsigned int)i);
				return 0;
			}
		rxlat_err("invalid value '%s' for %s: choose one of %s", c->arg[id].s->sval[0],
			  opt_short(id), join_choices(o, ", ", list, sizeof(list)));
		return -1;
	default: /* its own syntax: parse_values(), once the rest is known */
		return 0;
	}
}

/* Every option's value, or its default where not given: 0 or -1 said. */
static int set_values(const struct cli *c, struct rxlat_config *cfg)
{
	for (int s = 0; s < RXLAT_NR_STAGES; s++)
		cfg->stages[s] = !RXLAT_STAGE_OPT_IN(s);
	for (int id = 0; id < RXLAT_NR_OPTS; id++) {
		const struct rxlat_option *o = &options[id];

		if (o->kind == KIND_DOUBLE)
			store(cfg, o, &o->def, sizeof(o->def));
		else if (o->kind == KIND_UINT || o->kind == KIND_CHOICE)
			store_uint(cfg, o, (unsigned int)o->def);
		if (!given(c, id))
			continue;
		if (set_value(c, id, cfg))
			return -1;
	}
	return 0;
}

/*
 * The series index is stages x groups x interfaces x queues, and its table
 * (8 bytes a series) and the model's walk grow with it: at most
 * RXLAT_MAX_SERIES. The group slots of --by yield to --max-ifaces and
 * --max-queues unless given (down to none: rxlat's namespace only, said);
 * given, a product past the limit is refused.
 */
static int fit_groups(const struct cli *c, struct rxlat_config *cfg)
{
	__u32 base = RXLAT_NR_STAGES * (cfg->bpf.max_ifaces + 1) * (cfg->bpf.max_queues + 1);
	__u32 fit = RXLAT_MAX_SERIES / base;

	if (cfg->bpf.by == RXLAT_BY_NONE) {
		cfg->bpf.max_groups = 0; /* rxlat's namespace only: one group slot */
		return 0;
	}
	if (fit >= cfg->bpf.max_groups + 2)
		return 0;
	if (given(c, OPT_MAX_GROUPS) || (given(c, OPT_BY) && fit < 3)) {
		rxlat_err("%s %s with %s %u x %s %u x %s %u makes more than %u series: lower one "
			  "of them, or give %s none",
			  opt(OPT_BY), options[OPT_BY].choices[cfg->bpf.by], opt(OPT_MAX_GROUPS),
			  cfg->bpf.max_groups, opt(OPT_MAX_IFACES), cfg->bpf.max_ifaces,
			  opt(OPT_MAX_QUEUES), cfg->bpf.max_queues, RXLAT_MAX_SERIES, opt(OPT_BY));
		return -1;
	}
	if (fit < 3) {
		cfg->bpf.by = RXLAT_BY_NONE;
		cfg->bpf.max_groups = 0;
		rxlat_info("%s %u x %s %u leave no room for other namespaces' series (at most %u "
			   "series): measuring this namespace only (%s none)",
			   opt(OPT_MAX_IFACES), cfg->bpf.max_ifaces, opt(OPT_MAX_QUEUES),
			   cfg->bpf.max_queues, RXLAT_MAX_SERIES, opt(OPT_BY));
		return 0;
	}
	cfg->bpf.max_groups = fit - 2;
	rxlat_info("%s lowered to %u: with %s %u and %s %u more would make over %u series",
		   opt(OPT_MAX_GROUPS), cfg->bpf.max_groups, opt(OPT_MAX_IFACES),
		   cfg->bpf.max_ifaces, opt(OPT_MAX_QUEUES), cfg->bpf.max_queues, RXLAT_MAX_SERIES);
	return 0;
}

/* What the values say together: 0 or -1 said. */
static int check_together(const struct cli *c, const struct rxlat_config *cfg)
{
	const char *out = opt_short(OPT_OUTPUT), *prom = opt(OPT_PROMETHEUS);
	const char *xdp_mode = opt(OPT_XDP_MODE), *stamp = opt(OPT_STAMP);

	if (cfg->output == RXLAT_OUT_NONE && !given(c, OPT_PROMETHEUS) && !given(c, OPT_HEATMAP)) {
		rxlat_err("%s none prints no report: give %s %s to export the metrics or %s %s to "
			  "draw them, or choose %s text or %s json",
			  out, prom, options[OPT_PROMETHEUS].metavar, opt(OPT_HEATMAP),
			  options[OPT_HEATMAP].metavar, out, out);
		return -1;
	}
	if (cfg->prom_buckets & (cfg->prom_buckets - 1))
		return out_of_range(OPT_PROMETHEUS_BUCKETS, cfg->prom_buckets);
	if (given(c, OPT_SLOW) && cfg->output == RXLAT_OUT_NONE) {
		rxlat_err("%s writes its records with the reports: choose %s text or %s json",
			  opt(OPT_SLOW), out, out);
		return -1;
	}
	if (cfg->no_xdp && (given(c, OPT_XDP_MODE) || given(c, OPT_STAMP))) {
		rxlat_err("%s uses a stamper loaded elsewhere: %s and %s do not apply",
			  opt(OPT_NO_XDP), xdp_mode, stamp);
		return -1;
	}
	if (cfg->tc && (given(c, OPT_XDP_MODE) || given(c, OPT_STAMP))) {
		rxlat_err("%s stamps at tc ingress: %s and %s do not apply", opt(OPT_TC), xdp_mode,
			  stamp);
		return -1;
	}
	if (given(c, OPT_STAMP) && given(c, OPT_INTERFACE) && !given(c, OPT_XDP_MODE)) {
		rxlat_err(
		    "%s applies to the XDP stamper, which %s native asks for (without it rxlat "
		    "stamps at tc ingress): give %s native too",
		    stamp, xdp_mode, xdp_mode);
		return -1;
	}
	return 0;
}

/*
 * What each option given applies to, as its table entry says: the one rule
 * for all of them. Without the option it needs, an error (it was likely
 * forgotten, and the run would not be what was asked); where another
 * option's value chosen on purpose, or --stages, leaves it nothing to do, a
 * note (the run is exactly what that value asks for). 0 or -1 said.
 */
static int check_applies(const struct cli *c, const struct rxlat_config *cfg)
{
	for (int id = 0; id < RXLAT_NR_OPTS; id++) {
		const struct rxlat_option *o = &options[id];
		int need = o->needs - 1, moot = o->moot_with - 1, stage = o->stage - 1;

		if (!given(c, id))
			continue;
		if (o->needs && !given(c, need)) {
			rxlat_err("%s applies to %s only: give %s %s too", opt_short(id),
				  opt_short(need), opt_short(need), options[need].metavar);
			return -1;
		}
		if (o->moot_with && given(c, moot) &&
		    load_uint(cfg, &options[moot]) == o->moot_value)
			rxlat_info("%s does nothing with %s %s: ignored", opt_short(id),
				   opt_short(moot), options[moot].choices[o->moot_value]);
		if (o->stage && given(c, OPT_STAGES) && !cfg->stages[stage])
			rxlat_info("%s does nothing without stage %s (%s %s): ignored",
				   opt_short(id), rxlat_stage_names[stage], opt(OPT_STAGES),
				   c->arg[OPT_STAGES].s->sval[0]);
	}
	return 0;
}

/*
 * The values of their own syntax, last: some look at the system
 * (interfaces, cgroups). 0 or -1 said.
 */
static int parse_values(const struct cli *c, struct rxlat_config *cfg)
{
	for (int id = 0; id < RXLAT_NR_OPTS; id++) {
		if (options[id].kind != KIND_STRING)
			continue;
		for (int i = 0; i < given(c, id); i++)
			if (options[id].parse(c->arg[id].s->sval[i], cfg) < 0)
				return -1;
	}
	if ((__u32)cfg->nifaces > cfg->bpf.max_ifaces) {
		rxlat_err("%d interfaces named but %s is %u", cfg->nifaces, opt(OPT_MAX_IFACES),
			  cfg->bpf.max_ifaces);
		return -1;
	}
	return 0;
}

/*
 * The option argv element a names ("--port", "--port=80", "--po=80", "-r",
 * "-r2"): its id, or -1. A long name may be cut short where only one option
 * starts so, as getopt_long() takes it.
 */
static int raw_option(const char *a, const char **val)
{
	size_t n = strcspn(a, "=");
	int found = -1, prefixes = 0;

	*val = NULL;
	if (a[0] != '-' || !a[1])
		return -1;
	for (int id = 0; id < RXLAT_NR_OPTS; id++) {
		const struct rxlat_option *o = &options[id];

		if (a[1] == '-' && n > 2 && !strncmp(a + 2, o->longopt, n - 2)) {
			if (!o->longopt[n - 2]) { /* the whole name */
				found = id;
				break;
			}
			found = id;
			prefixes++;
		}
		if (a[1] != '-' && o->shortopt[0] && a[1] == o->shortopt[0]) {
			*val = a[2] ? a + 2 : NULL;
			return id;
		}
	}
	if (prefixes > 1 && (found < 0 || options[found].longopt[n - 2]))
		return -1; /* ambiguous: argtable says so */
	if (found >= 0 && a[n])
		*val = a + n + 1;
	return found;
}

/* A number as a person writes it: decimal digits, a point, an exponent (doubles). */
static bool plain_number(const char *v, bool frac)
{
	size_t d = strspn(v, "0123456789");

	if (!frac)
		return d && !v[d];
	if (v[d] == '.')
		d += 1 + strspn(v + d + 1, "0123456789");
	if (!d || (d == 1 && v[0] == '.'))
		return false;
	if (v[d] == 'e' || v[d] == 'E') {
		d += 1 + (v[d + 1] == '+' || v[d + 1] == '-');
		if (!strspn(v + d, "0123456789"))
			return false;
		d += strspn(v + d, "0123456789");
	}
	return !v[d];
}

/*
 * Is a, the argument after an option that wants a value, rather the next
 * option? One rxlat knows, or any "--" word: getopt would take it as the
 * value and leave the next word unexpected ("--from -d 1": 'unexpected
 * argument "1"'). No short option is a digit or '.', so "-1" and "-.5"
 * stay values, for the range checks to judge.
 */
static bool next_option(const char *a)
{
	const char *val;

	return !strncmp(a, "--", 2) || raw_option(a, &val) >= 0;
}

/* "--from needs a value (stamp or schedule): give it after --from[, before -d]" */
static int needs_value(const char *name, enum rxlat_opt id, const char *next)
{
	const struct rxlat_option *o = &options[id];
	char what[256];

	if (o->kind == KIND_CHOICE) {
		size_t used = 0;
		int n = 0, k = 0;

		for (int i = 0; i < o->nchoices; i++)
			n += o->choices[i] != NULL;
		for (int i = 0; i < o->nchoices && used < sizeof(what); i++) {
			if (!o->choices[i])
				continue;
			k++;
			used += snprintf(what + used, sizeof(what) - used, "%s%s",
					 k == 1 ? "" : (k == n ? " or " : ", "), o->choices[i]);
		}
	} else {
		snprintf(what, sizeof(what), "%s", o->metavar ? o->metavar : "VALUE");
	}
	if (next)
		rxlat_err("%s needs a value (%s): give it after %s, before %s", name, what, name,
			  next);
	else
		rxlat_err("%s needs a value (%s): give it after %s", name, what, name);
	return -1;
}

/*
 * What argtable takes too kindly, before it parses: a value given to a
 * flag and an empty value (its messages then name no option), a missing
 * value (the next option taken for it), and numbers that strtod() and
 * strtol() read beyond decimal ("0x10" as 16, "inf"). A leading '-' is
 * left to the range checks. 0 or -1 said.
 */
static int check_raw(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		const char *val;
		int id = raw_option(argv[i], &val);
		enum rxlat_opt_kind k = id < 0 ? KIND_FLAG : options[id].kind;

		if (id >= 0 && k == KIND_FLAG && val && (argv[i][1] == '-' || val[0] == '=')) {
			const char *name = argv[i][1] == '-' ? opt(id) : opt_short(id);

			rxlat_err("%s takes no value: give %s alone, not %s", name, name, argv[i]);
			return -1;
		}
		if (k == KIND_FLAG)
			continue;
		if (!val) {
			const char *name = argv[i][1] == '-' ? opt(id) : opt_short(id);

			if (i + 1 == argc || !strcmp(argv[i + 1], "--"))
				return needs_value(name, id, NULL);
			if (next_option(argv[i + 1]))
				return needs_value(name, id, argv[i + 1]);
			val = argv[++i];
		}
		if (!*val) {
			rxlat_err("%s was given an empty value: see rxlat %s", opt(id),
				  opt(OPT_HELP));
			return -1;
		}
		if ((k == KIND_UINT || k == KIND_DOUBLE) && val[0] != '-' &&
		    !plain_number(val, k == KIND_DOUBLE)) {
			rxlat_err("invalid value '%s' for %s: give a decimal number", val,
				  opt_short(id));
			return -1;
		}
	}
	return 0;
}

/*
 * --from schedule starts the stages at napi_wait's start: it adds that
 * stage (check_napi_wait() then wants ip_rcv). An XDP stamper's packets
 * find their poll's schedule by their poll's stamp: batch stamps. 0 or -1
 * said.
 */
static int check_from(struct rxlat_config *cfg)
{
	const char *from = opt(OPT_FROM);

	if (cfg->bpf.from != RXLAT_FROM_SCHEDULE)
		return 0;
	cfg->stages[RXLAT_STAGE_NAPI_WAIT] = true;
	if (cfg->stamp == RXLAT_STAMP_PACKET) {
		rxlat_err("%s schedule: the stages find a poll's schedule by its stamp, which %s "
			  "packet gives the poll's first packet only; leave out %s",
			  from, opt(OPT_STAMP), opt(OPT_STAMP));
		return -1;
	}
	return 0;
}

/* napi_wait, named in --stages or added by --from schedule, is read at ip_rcv. */
static int check_napi_wait(const struct cli *c, const struct rxlat_config *cfg)
{
	const char *wait = rxlat_stage_names[RXLAT_STAGE_NAPI_WAIT],
		   *ip = rxlat_stage_names[RXLAT_STAGE_IP_RCV], *list;

	if (!cfg->stages[RXLAT_STAGE_NAPI_WAIT] || cfg->stages[RXLAT_STAGE_IP_RCV])
		return 0;
	/* ip_rcv is a default stage: only --stages (given once) leaves it out */
	list = c->arg[OPT_STAGES].s->sval[0];
	if (cfg->bpf.from == RXLAT_FROM_SCHEDULE)
		rxlat_err("%s schedule: the schedule (stage %s) is read at %s; add it to %s '%s'",
			  opt(OPT_FROM), wait, ip, opt(OPT_STAGES), list);
	else
		rxlat_err("%s '%s': stage %s is read at %s; add it, as in %s %s,%s",
			  opt(OPT_STAGES), list, wait, ip, opt(OPT_STAGES), wait, ip);
	return -1;
}

int options_parse(int argc, char **argv, struct rxlat_config *cfg)
{
	struct cli c = {};
	int ret = -1;

	if (check_raw(argc, argv))
		return -1;
	if (build(&c)) {
		rxlat_err("out of memory");
		goto out;
	}
	if (arg_parse(argc, argv, c.table) > 0) {
		print_arg_error(&c);
		goto out;
	}
	if (given(&c, OPT_HELP)) {
		usage(stdout, &c);
		ret = 1;
		goto out;
	}
	if (given(&c, OPT_VERSION)) {
		printf("rxlat %s (libbpf %s)\n", RXLAT_VERSION, libbpf_version_string());
		ret = 1;
		goto out;
	}
	if (set_values(&c, cfg) || check_together(&c, cfg) || fit_groups(&c, cfg) ||
	    parse_values(&c, cfg) || check_applies(&c, cfg) || check_from(cfg) ||
	    check_napi_wait(&c, cfg))
		goto out;
	cfg->bpf.slow_cost_ns = 1000000000ull / cfg->slow_rate;
	cfg->xdp_forced = given(&c, OPT_XDP_MODE) > 0;
	ret = 0;
out:
	arg_freetable(c.table, RXLAT_NR_OPTS + 1);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The option table (collector/base/options_table.h) and what is made from
 * it: the names messages use, each option's default and field, the exact
 * error lines of bad values, and the OPTIONS of the built man page. Needs
 * no privilege and no BPF: -i names lo. One PASS or FAIL line per check.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "unit.h"
#include "options.h"

static const struct rxlat_option table[RXLAT_NR_OPTS] = {
#define OPTION RXLAT_OPTION_ENTRY
#include "options_table.h"
#undef OPTION
};

/*
 * options_parse() of the words of line (split at spaces) into *cfg; its
 * return value, and in err its first line on stderr (empty if none).
 */
static int parse(const char *line, struct rxlat_config *cfg, char *err, size_t errlen)
{
	char buf[512], *argv[64] = { "rxlat" }, *save = NULL, *nl;
	char path[] = "/tmp/rxlat-options-test.XXXXXX";
	int argc = 1, fd = mkstemp(path), saved = dup(2), ret;
	FILE *f;

	snprintf(buf, sizeof(buf), "%s", line);
	for (char *w = strtok_r(buf, " ", &save); w && argc < 63; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	memset(cfg, 0, sizeof(*cfg));
	err[0] = '\0';
	if (fd < 0 || saved < 0) {
		snprintf(err, errlen, "cannot redirect stderr");
		return -2;
	}
	fflush(stderr);
	dup2(fd, 2);
	ret = options_parse(argc, argv, cfg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	f = fdopen(fd, "r");
	if (f) {
		rewind(f);
		if (!fgets(err, (int)errlen, f))
			err[0] = '\0';
		fclose(f);
	}
	unlink(path);
	nl = strchr(err, '\n');
	if (nl)
		*nl = '\0';
	return ret;
}

static void check_names(void)
{
	const struct {
		const char *got, *want;
	} names[] = {
		{ opt(OPT_SLOW), "--slow" },	       { opt(OPT_SLOW_RATE), "--slow-rate" },
		{ opt(OPT_INTERFACE), "--interface" }, { opt_short(OPT_INTERFACE), "-i" },
		{ opt_short(OPT_OUTPUT), "-o" },       { opt_short(OPT_SLOW), "--slow" },
		{ opt(OPT_VERSION), "--version" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(names[i].got, names[i].want))
			check_fail("got %s, want %s", names[i].got, names[i].want);
	check_done("names");
}

/* What every kind and field of the table needs to be parsed, shown and documented. */
static void check_table(void)
{
	for (int id = 0; id < RXLAT_NR_OPTS; id++) {
		const struct rxlat_option *o = &table[id];
		int need = o->needs - 1, moot = o->moot_with - 1;

		if (!o->longopt || !o->help || strlen(o->shortopt) > 1)
			check_fail("%s: a long name, at most one short letter and a help text",
				   opt(id));
		if (o->kind != KIND_FLAG && o->kind != KIND_CHOICE && !o->metavar)
			check_fail("%s: a value needs its name (metavar)", opt(id));
		if ((o->kind == KIND_UINT || o->kind == KIND_DOUBLE) &&
		    (!o->range || !(o->min <= o->def && o->def <= o->max)))
			check_fail("%s: a number needs a range holding its default", opt(id));
		if (o->kind == KIND_CHOICE && o->size != 1 && o->size != sizeof(unsigned int))
			check_fail("%s: a choice's field must be 1 or %zu bytes", opt(id),
				   sizeof(unsigned int));
		if (o->kind == KIND_STRING && !o->parse)
			check_fail("%s: a value of its own syntax needs its parser", opt(id));
		if (o->needs && (need < 0 || need >= RXLAT_NR_OPTS || !table[need].metavar))
			check_fail("%s: needs an option that takes a value", opt(id));
		if (o->moot_with &&
		    (moot < 0 || moot >= RXLAT_NR_OPTS || table[moot].kind != KIND_CHOICE ||
		     o->moot_value >= (unsigned int)table[moot].nchoices ||
		     !table[moot].choices[o->moot_value]))
			check_fail("%s: moot with a choice of another option, by its value",
				   opt(id));
		if (o->stage && (o->stage < 1 || o->stage > RXLAT_NR_STAGES))
			check_fail("%s: concerns a stage that is not in the stage table", opt(id));
		if (o->man && o->man[strlen(o->man) - 1] != '\n')
			check_fail("%s: the man text must end in a newline", opt(id));
		if (o->man_next && (o->man || id + 1 == RXLAT_NR_OPTS))
			check_fail("%s: described with the next option, it has no text", opt(id));
	}
	check_done("table");
}

/*
 * The man text gives a number's default and limits through @DEF@, @MIN@ and
 * @MAX@, never retyped: none of them stands in it as a number of its own.
 */
static void check_man_numbers(void)
{
	for (int id = 0; id < RXLAT_NR_OPTS; id++) {
		const struct rxlat_option *o = &table[id];
		const double nums[] = { o->def, o->min, o->max };

		if (!o->man || (o->kind != KIND_UINT && o->kind != KIND_DOUBLE))
			continue;
		for (const char *p = o->man; *p; p++) {
			size_t n = strspn(p, "0123456789.e");
			char tok[32], num[32];

			if (!isdigit((unsigned char)*p) ||
			    (p > o->man && isalnum((unsigned char)p[-1]))) {
				continue;
			}
			while (n &&
			       (p[n - 1] == '.' || p[n - 1] == 'e')) /* a sentence's full stop */
				n--;
			snprintf(tok, sizeof(tok), "%.*s", (int)n, p);
			for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
				if (!strcmp(tok, opt_num(nums[i], num, sizeof(num))))
					check_fail(
					    "%s: the man text types %s; use @DEF@, @MIN@ or @MAX@",
					    opt(id), tok);
			p += n ? n - 1 : 0;
		}
	}
	check_done("man_numbers");
}

static void check_defaults(void)
{
	struct rxlat_config cfg;
	char err[512];
	int ret = parse("", &cfg, err, sizeof(err));

	CHECK_U64("return", (uint64_t)ret, 0);
	if (cfg.interval_s != 1 || cfg.duration_s != 0)
		check_fail("-r %g -d %g, want 1 and 0", cfg.interval_s, cfg.duration_s);
	CHECK_U64("--max-ifaces", cfg.bpf.max_ifaces, RXLAT_MAX_IFACES_DEFAULT);
	CHECK_U64("--max-queues", cfg.bpf.max_queues, RXLAT_MAX_QUEUES_DEFAULT);
	CHECK_U64("--slow-rate", cfg.slow_rate, 1000);
	CHECK_U64("slow_cost_ns", cfg.bpf.slow_cost_ns, 1000000);
	CHECK_U64("--prometheus-buckets", cfg.prom_buckets, PROM_BUCKETS_DEFAULT);
	CHECK_U64("-o", cfg.output, RXLAT_OUT_TEXT);
	CHECK_U64("--proto", cfg.bpf.filter_proto, 0);
	for (int s = 0; s < RXLAT_NR_STAGES; s++)
		if (cfg.stages[s] != (s != RXLAT_STAGE_NAPI_WAIT))
			check_fail("stage %s %s", rxlat_stage_names[s],
				   cfg.stages[s] ? "on" : "off");
	/* +LIST: besides the default ones */
	if (parse("--stages +napi_wait", &cfg, err, sizeof(err)))
		check_fail("--stages +napi_wait: %s", err);
	for (int s = 0; s < RXLAT_NR_STAGES; s++)
		if (!cfg.stages[s])
			check_fail("--stages +napi_wait: stage %s off", rxlat_stage_names[s]);
	if (cfg.no_xdp || cfg.tc || cfg.per_queue || cfg.drops || cfg.verbose || cfg.nifaces)
		check_fail("a flag or an interface set by default");
	CHECK_U64("--from", cfg.bpf.from, RXLAT_FROM_STAMP);
	/* --from schedule adds napi_wait to any list that has ip_rcv */
	if (parse("--stages ip_rcv,sock_read --from schedule", &cfg, err, sizeof(err)))
		check_fail("--from schedule: %s", err);
	CHECK_U64("--from schedule", cfg.bpf.from, RXLAT_FROM_SCHEDULE);
	for (int s = 0; s < RXLAT_NR_STAGES; s++)
		if (cfg.stages[s] != (s == RXLAT_STAGE_NAPI_WAIT || s == RXLAT_STAGE_IP_RCV ||
				      s == RXLAT_STAGE_SOCK_READ))
			check_fail("--stages ip_rcv,sock_read --from schedule: stage %s %s",
				   rxlat_stage_names[s], cfg.stages[s] ? "on" : "off");
	check_done("defaults");
}

static void check_values(void)
{
	struct rxlat_config cfg;
	char err[512];
	int ret = parse("-i lo --xdp-mode skb --stamp packet --per-queue --stages ip_rcv,sock_read "
			"--attach fallback -r 0.5 -d 3 -o json --prometheus [::1]:9474 "
			"--prometheus-buckets 8 --proto udp --port 53,9000 --drops --slow 1.5ms "
			"--slow-rate 10 --max-ifaces 4 --max-queues 2 -v",
			&cfg, err, sizeof(err));

	if (ret)
		check_fail("returned %d: %s", ret, err);
	CHECK_U64("-i", (uint64_t)cfg.nifaces, 1);
	if (strcmp(cfg.ifnames[0], "lo") || !cfg.ifindexes[0])
		check_fail("-i lo: %s, ifindex %u", cfg.ifnames[0], cfg.ifindexes[0]);
	CHECK_U64("--xdp-mode", cfg.xdp_mode, RXLAT_XDP_SKB);
	CHECK_U64("--stamp", cfg.stamp, RXLAT_STAMP_PACKET);
	CHECK_U64("--attach", cfg.attach, RXLAT_ATTACH_FALLBACK);
	CHECK_U64("-o", cfg.output, RXLAT_OUT_JSON);
	CHECK_U64("--proto", cfg.bpf.filter_proto, IPPROTO_UDP);
	CHECK_U64("--prometheus-buckets", cfg.prom_buckets, 8);
	CHECK_U64("--slow", cfg.bpf.slow_ns, 1500000);
	CHECK_U64("--slow-rate", cfg.slow_rate, 10);
	CHECK_U64("slow_cost_ns", cfg.bpf.slow_cost_ns, 100000000);
	CHECK_U64("--max-ifaces", cfg.bpf.max_ifaces, 4);
	CHECK_U64("--max-queues", cfg.bpf.max_queues, 2);
	CHECK_U64("--port 53", (cfg.bpf.port_bits[0] >> 53) & 1, 1);
	CHECK_U64("--port 9000", (cfg.bpf.port_bits[9000 / 64] >> (9000 % 64)) & 1, 1);
	if (cfg.interval_s != 0.5 || cfg.duration_s != 3)
		check_fail("-r %g -d %g, want 0.5 and 3", cfg.interval_s, cfg.duration_s);
	if (!cfg.per_queue || !cfg.drops || !cfg.verbose || cfg.no_xdp || cfg.tc)
		check_fail("flags: per-queue %d drops %d verbose %d no-xdp %d tc %d", cfg.per_queue,
			   cfg.drops, cfg.verbose, cfg.no_xdp, cfg.tc);
	if (strcmp(cfg.prom_listen, "[::1]:9474") || cfg.prom_addr.ss_family != AF_INET6)
		check_fail("--prometheus: %s, family %d", cfg.prom_listen, cfg.prom_addr.ss_family);
	for (int s = 0; s < RXLAT_NR_STAGES; s++)
		if (cfg.stages[s] != (s == RXLAT_STAGE_IP_RCV || s == RXLAT_STAGE_SOCK_READ))
			check_fail("--stages: stage %s %s", rxlat_stage_names[s],
				   cfg.stages[s] ? "on" : "off");
	check_done("values");
}

/* Each error line exactly as the tests of bad input know it. */
static void check_errors(void)
{
	static const struct {
		const char *line, *err;
	} cases[] = {
		{ "-r 0", "-r 0: the report interval must be between 0.01 and 86400 seconds" },
		{ "-d 1e10", "-d 1e+10: the run time must be 0 (until a signal) or a positive "
			     "number of seconds up to 1e9" },
		{ "--max-queues 257", "--max-queues 257: must be between 1 and 256" },
		{ "--max-queues x2", "invalid value 'x2' for --max-queues: give a decimal number" },
		{ "-r 0x10", "invalid value '0x10' for -r: give a decimal number" },
		{ "--port 80,80", "port 80 given twice in --port '80,80'" },
		{ "-o xml", "invalid value 'xml' for -o: choose one of text, json, none" },
		{ "--proto sctp", "invalid value 'sctp' for --proto: choose one of tcp, udp" },
		{ "--slow-rate 5", "--slow-rate applies to --slow only: give --slow DURATION too" },
		{ "--slow 1ms --slow-rate 0",
		  "--slow-rate 0: give a number of records a second from 1 to 1000000" },
		{ "--prometheus 9474 --prometheus-buckets 3",
		  "--prometheus-buckets 3: choose 1, 2, 4 or 8 buckets per power of two" },
		{ "--prometheus-buckets 4", "--prometheus-buckets applies to --prometheus only: "
					    "give --prometheus [ADDR:]PORT too" },
		{ "-o none",
		  "-o none prints no report: give --prometheus [ADDR:]PORT to export "
		  "the metrics or --heatmap FILE to draw them, or choose -o text or -o json" },
		{ "--no-xdp --stamp packet", "--no-xdp uses a stamper loaded elsewhere: --xdp-mode "
					     "and --stamp do not apply" },
		{ "--tc", "--tc applies to -i only: give -i IFACE too" },
		{ "--xdp-mode native", "--xdp-mode applies to -i only: give -i IFACE too" },
		{ "--stamp packet -d 1", "--stamp applies to -i only: give -i IFACE too" },
		{ "--include-ooo=yes",
		  "--include-ooo takes no value: give --include-ooo alone, not "
		  "--include-ooo=yes" },
		{ "--include-o=no", "--include-ooo takes no value: give --include-ooo alone, not "
				    "--include-o=no" },
		{ "--per-queue= -d 1", "--per-queue takes no value: give --per-queue alone, not "
				       "--per-queue=" },
		{ "-v=1", "-v takes no value: give -v alone, not -v=1" },
		{ "--stages ,", "--stages ',' names no stage: give one or more of rxlat "
				"--list-stages" },
		{ "--stages napi_wait,sock_read", "--stages 'napi_wait,sock_read': stage napi_wait "
						  "is read at ip_rcv; add it, as in "
						  "--stages napi_wait,ip_rcv" },
		{ "--from schedule --stages sock_read",
		  "--from schedule: the schedule (stage napi_wait) is read at ip_rcv; add it to "
		  "--stages 'sock_read'" },
		{ "-i lo --stamp packet",
		  "--stamp applies to the XDP stamper, which --xdp-mode native asks for (without "
		  "it rxlat stamps at tc ingress): give --xdp-mode native too" },
		{ "--from schedule -i lo --xdp-mode native --stamp packet",
		  "--from schedule: the stages find a poll's schedule by its stamp, which --stamp "
		  "packet gives the poll's first packet only; leave out --stamp" },
		{ "--from interrupt", "invalid value 'interrupt' for --from: choose one of stamp, "
				      "schedule" },
		{ "--port 80,x", "invalid port 'x' in --port: give local ports from 1 to 65535, "
				 "comma-separated" },
		{ "--slow 2", "invalid duration '2' for --slow: give a number and a unit, ns, us, "
			      "ms or s, as in --slow 2ms" },
		{ "--prometheus 0", "--prometheus '0': the port must be from 1 to 65535; give a "
				    "port (127.0.0.1), ADDR:PORT or [ADDR6]:PORT, as in "
				    "--prometheus 9474 or --prometheus 0.0.0.0:9474" },
		{ "-i lo -i lo", "interface 'lo' named twice" },
		{ "--bogus", "invalid option \"--bogus\": see rxlat --help" },
		/* a missing value: never the next option taken for it */
		{ "--from -d 1", "--from needs a value (stamp or schedule): give it after --from, "
				 "before -d" },
		{ "--stages -d 1", "--stages needs a value (LIST): give it after --stages, before "
				   "-d" },
		{ "--prometheus -d 1", "--prometheus needs a value ([ADDR:]PORT): give it after "
				       "--prometheus, before -d" },
		{ "--attach --tc", "--attach needs a value (auto, fentry or fallback): give it "
				   "after --attach, before --tc" },
		{ "-r --per-queue", "-r needs a value (SECONDS): give it after -r, before "
				    "--per-queue" },
		{ "--fr -d 1", "--from needs a value (stamp or schedule): give it after --from, "
			       "before -d" },
		{ "--port --nosuch", "--port needs a value (N[,N..]): give it after --port, before "
				     "--nosuch" },
		{ "-d 1 --from", "--from needs a value (stamp or schedule): give it after --from" },
		{ "-d", "-d needs a value (SECONDS): give it after -d" },
		/* a negative number is a value, for the range check */
		{ "-d -1", "-d -1: the run time must be 0 (until a signal) or a positive number "
			   "of seconds up to 1e9" },
		{ "-r -.5", "-r -0.5: the report interval must be between 0.01 and 86400 seconds" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rxlat_config cfg;
		char err[512], want[512];
		int ret = parse(cases[i].line, &cfg, err, sizeof(err));

		snprintf(want, sizeof(want), "rxlat: error: %s", cases[i].err);
		if (ret != -1)
			check_fail("'%s' returned %d", cases[i].line, ret);
		else if (strcmp(err, want))
			check_fail("'%s' said \"%s\", want \"%s\"", cases[i].line, err, want);
	}
	check_done("errors");
}

/*
 * An option that another one given makes do nothing: a run, and one note
 * naming both, the first line on stderr.
 */
static void check_notes(void)
{
	static const struct {
		const char *line, *note;
	} cases[] = {
		{ "--by none --max-groups 5", "--max-groups does nothing with --by none: ignored" },
		{ "--include-ooo --proto udp",
		  "--include-ooo does nothing with --proto udp: ignored" },
		{ "--include-ooo --stages ip_rcv,tcp_do_rcv",
		  "--include-ooo does nothing without stage sock_read (--stages "
		  "ip_rcv,tcp_do_rcv): "
		  "ignored" },
		{ "--max-groups 5 --by netns", "" },
		{ "--include-ooo --proto tcp --stages sock_read", "" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rxlat_config cfg;
		char err[512], want[512] = "";
		int ret = parse(cases[i].line, &cfg, err, sizeof(err));

		if (cases[i].note[0])
			snprintf(want, sizeof(want), "rxlat: %s", cases[i].note);
		if (ret != 0)
			check_fail("'%s' returned %d: %s", cases[i].line, ret, err);
		else if (strcmp(err, want))
			check_fail("'%s' said \"%s\", want \"%s\"", cases[i].line, err, want);
	}
	check_done("notes");
}

/* The built page names every option, in the table's order, under OPTIONS. */
static void check_man(void)
{
	char *text = slurp(RXLAT_MAN_PAGE), *p;

	if (!text) {
		check_failed("man", "cannot read %s (run from the repo root)", RXLAT_MAN_PAGE);
		return;
	}
	p = strstr(text, "\n.SH OPTIONS\n");
	if (!p)
		check_fail("no OPTIONS section");
	for (const char *m = strchr(text, '@'); m; m = strchr(m + 1, '@')) {
		size_t n = strspn(m + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_");

		if (n && m[n + 1] == '@')
			check_fail("a marker left: %.*s", (int)n + 2, m);
	}
	for (int id = 0; p && id < RXLAT_NR_OPTS; id++) {
		char name[64] = "\\fB", *w = name + 3;

		for (const char *c = opt(id); *c && w < name + sizeof(name) - 6; c++)
			w += sprintf(w, *c == '-' ? "\\-" : "%c", *c);
		strcpy(w, "\\fR");
		p = strstr(p, name);
		if (!p)
			check_fail("%s not in OPTIONS, or out of the table's order", opt(id));
	}
	check_done("man");
	free(text);
}

int main(int argc, char **argv)
{
	check_args(argc, argv);
	CHECK_RUN(check_names);
	CHECK_RUN(check_table);
	CHECK_RUN(check_defaults);
	CHECK_RUN(check_values);
	CHECK_RUN(check_errors);
	CHECK_RUN(check_notes);
	CHECK_RUN(check_man);
	CHECK_RUN(check_man_numbers);
	return check_exit_status();
}

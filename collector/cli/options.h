/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rxlat's command line. Each option is one entry of options_table.h, a
 * struct rxlat_option; options.c parses and prints --help from that table,
 * man.c writes rxlat.8's SYNOPSIS and OPTIONS from it at build time, and
 * opt.h names the options in messages.
 */
#ifndef RXLAT_OPTIONS_H
#define RXLAT_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <netinet/in.h> /* the table's IPPROTO_* */
#include "config.h"
#include "opt.h"
#include "series.h" /* the table's RXLAT_PERCENTILE_NAMES */

enum rxlat_opt_kind {
	KIND_FLAG,   /* no value; sets a bool */
	KIND_UINT,   /* an unsigned int within [min, max] */
	KIND_DOUBLE, /* a double within [min, max] */
	KIND_CHOICE, /* one of choices: choice i sets the field to i */
	KIND_STRING, /* a value of its own syntax, for parse() */
};

struct rxlat_option {
	const char *shortopt; /* "i", or "" */
	const char *longopt;  /* "interface" */
	enum rxlat_opt_kind kind;
	/* the value's name in --help and rxlat.8; a choice's is its choices */
	const char *metavar;
	/* --help; for a number, " (default: N)" is added from def */
	const char *help;
	/* rxlat.8's text, in roff; NULL: the help text as a sentence */
	const char *man;
	/* rxlat.8 describes it together with the next option */
	bool man_next;
	/* given more than once, up to this many times (0: once) */
	int max_count;
	/* the field of struct rxlat_config it sets: offset and size (0: none) */
	size_t off, size;
	/* numbers: the default, the range, and the error outside it (a printf
	 * format given the option's name, the value as a double, then min and
	 * max as strings, opt_num()); a choice's default is the value of its
	 * default choice. In the man text @DEF@, @MIN@ and @MAX@ stand for them. */
	double def, min, max;
	const char *range;
	/* choices[value] is the name of a choice; NULL slots are none */
	const char *const *choices;
	int nchoices;
	/*
	 * What it applies to, checked in one place (options.c, check_applies):
	 * needs: given only with this option (its id + 1; 0: any time), an
	 * error without it; moot_with: does nothing where this option (its id +
	 * 1, a choice) is given with the value moot_value, a note; stage:
	 * concerns this stage only (its index + 1), a note where --stages
	 * leaves it out.
	 */
	int needs;
	int moot_with;
	unsigned int moot_value;
	int stage;
	/* KIND_STRING: each value given, into cfg; 0, or < 0 with the error printed */
	int (*parse)(const char *val, struct rxlat_config *cfg);
};

/*
 * What an entry of options_table.h is made of. The kind and the field go
 * together, and the field's type is checked against the kind at compile
 * time (_Generic has no default: any other type is an error).
 */
#define RXLAT_CFG_FIELD(f, type)                                      \
	.off = offsetof(struct rxlat_config, f) +                     \
	       0 * _Generic(((struct rxlat_config *)0)->f, type : 0), \
	.size = sizeof(((struct rxlat_config *)0)->f)
#define FLAG(f)	  .kind = KIND_FLAG, RXLAT_CFG_FIELD(f, bool)
#define UINT(f)	  .kind = KIND_UINT, RXLAT_CFG_FIELD(f, unsigned int)
#define DOUBLE(f) .kind = KIND_DOUBLE, RXLAT_CFG_FIELD(f, double)
/* CHOICE(field, [VALUE] = "name", ...): an enum or integer field */
#define CHOICE(f, ...)                                                \
	.kind = KIND_CHOICE, .off = offsetof(struct rxlat_config, f), \
	.size = sizeof(((struct rxlat_config *)0)->f),                \
	.choices = (const char *const[]){ __VA_ARGS__ },              \
	.nchoices = sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(const char *)
/* STRING(parse): man.c, which links no parser, defines it without parse */
#ifndef STRING
#define STRING(fn) .kind = KIND_STRING, .parse = fn
#endif
#define NEEDS(id)	      .needs = OPT_##id + 1
#define MOOT_WITH(id, value)  .moot_with = OPT_##id + 1, .moot_value = (value)
#define FOR_STAGE(stage_name) .stage = RXLAT_STAGE_##stage_name + 1
/* An entry as an element of an array indexed by the ids of opt.h. */
#define RXLAT_OPTION_ENTRY(id, s, l, ...) [OPT_##id] = { .shortopt = s, .longopt = l, __VA_ARGS__ },

/* o's help text; a number's default is said from the table */
static inline const char *rxlat_option_help(const struct rxlat_option *o, char *buf, size_t len)
{
	if (o->kind != KIND_UINT && o->kind != KIND_DOUBLE)
		return o->help;
	snprintf(buf, len, "%s (default: %g)", o->help, o->def);
	return buf;
}

/*
 * Fills *cfg from the command line. 0: run; 1: exit 0 (--help, --version
 * printed); -1: exit 1 (the error is printed).
 */
int options_parse(int argc, char **argv, struct rxlat_config *cfg);

/*
 * values.c: the values with a syntax of their own (-i, --stages,
 * --prometheus, --web-config, --port, --cgroup, --slow, --heatmap), each into cfg: 0, or -1 with
 * the error printed.
 */
int parse_interface(const char *name, struct rxlat_config *cfg);
int parse_stages(const char *list, struct rxlat_config *cfg);
int parse_prometheus(const char *arg, struct rxlat_config *cfg);
int parse_web_config(const char *path, struct rxlat_config *cfg);
int parse_ports(const char *list, struct rxlat_config *cfg);
int parse_cgroup(const char *path, struct rxlat_config *cfg);
int parse_slow(const char *duration, struct rxlat_config *cfg);
int parse_heatmap(const char *path, struct rxlat_config *cfg);

/* A number of the table as people write it: "0.01", "1000000", "1e9". */
static inline const char *opt_num(double v, char *buf, size_t len)
{
	char *e;

	if (v == (double)(long long)v && v > -1e7 && v < 1e7)
		snprintf(buf, len, "%lld", (long long)v);
	else
		snprintf(buf, len, "%g", v);
	e = strchr(buf, 'e');
	if (e && (e[1] == '+' || e[1] == '-')) {
		char *d = e + 1 + (e[1] == '+'); /* "1e+09" -> "1e9", "1e-05" -> "1e-5" */
		char *z = d + (*d == '-');

		while (*z == '0' && z[1])
			memmove(z, z + 1, strlen(z));
		memmove(e + 1, d, strlen(d) + 1);
	}
	return buf;
}

#endif

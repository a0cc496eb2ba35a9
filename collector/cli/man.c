// SPDX-License-Identifier: GPL-2.0
/*
 * The build's rxlat.8 from collector/cli/rxlat.8: its @SYNOPSIS@ and
 * @OPTIONS@ lines become the options of options_table.h, the same table the
 * parser and --help are made from; every other line is copied.
 *
 *	rxlat-man collector/cli/rxlat.8 > rxlat.8
 *
 * A build tool, compiled on its own by the top Makefile's rxlat.8 rule
 * (collector/collector.mk leaves it out of rxlat).
 */
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
/* no parser is linked in: only what the table says about the value */
#define STRING(fn) .kind = KIND_STRING
#include "options.h"

static const struct rxlat_option options[RXLAT_NR_OPTS] = {
#define OPTION RXLAT_OPTION_ENTRY
#include "options_table.h"
#undef OPTION
};

/* s with roff's minus sign for each '-', as options are written */
static void put_minus(FILE *f, const char *s)
{
	for (; *s; s++)
		if (*s == '-')
			fputs("\\-", f);
		else
			fputc(*s, f);
}

/* "\fB\-i\fR" or "\fB\-\-interface\fR" */
static void put_name(FILE *f, const struct rxlat_option *o, bool short_name)
{
	fputs("\\fB", f);
	put_minus(f, short_name ? "-" : "--");
	put_minus(f, short_name ? o->shortopt : o->longopt);
	fputs("\\fR", f);
}

/* the value: choices as they are, the placeholders (upper-case words) in italics */
static bool put_value(FILE *f, const struct rxlat_option *o)
{
	const char *sep = "";

	if (o->kind == KIND_CHOICE) {
		for (int i = 0; i < o->nchoices; i++)
			if (o->choices[i]) {
				fprintf(f, "%s%s", sep, o->choices[i]);
				sep = "|";
			}
		return true;
	}
	if (!o->metavar)
		return false;
	for (const char *p = o->metavar; *p; p++) {
		if (isupper((unsigned char)*p) &&
		    (p == o->metavar || !isupper((unsigned char)p[-1])))
			fputs("\\fI", f);
		fputc(*p, f);
		if (isupper((unsigned char)*p) && !isupper((unsigned char)p[1]))
			fputs("\\fR", f);
	}
	return true;
}

/*
 * One line per option, "\%[\fB\-i\fR\ \fIIFACE\fR]...\&", filled by man:
 * not hyphenated (\%), not stretched to the right margin (.na), never
 * broken between an option and its value (\ ), and "..." is no end of a
 * sentence (\&).
 */
static void put_synopsis(FILE *f)
{
	fputs(".na\n", f);
	for (int id = 0; id < RXLAT_NR_OPTS; id++) {
		const struct rxlat_option *o = &options[id];

		fputs("\\%[", f);
		put_name(f, o, o->shortopt[0]);
		if (o->kind != KIND_FLAG) {
			fputs("\\ ", f);
			put_value(f, o);
		}
		fputs(o->max_count ? "]...\\&\n" : "]\n", f);
	}
	fputs(".ad\n", f);
}

/* "\fB\-i\fR, \fB\-\-interface\fR=\fIIFACE\fR" */
static void put_header(FILE *f, const struct rxlat_option *o)
{
	if (o->shortopt[0]) {
		put_name(f, o, true);
		fputs(", ", f);
	}
	put_name(f, o, false);
	if (o->kind != KIND_FLAG) {
		fputc('=', f);
		put_value(f, o);
	}
}

/*
 * The man text, its @DEF@, @MIN@ and @MAX@ the table's numbers, and
 * @HIST_BYTES@, @CHUNK_SERIES@ and @HISTS_MIB@ those of include/rxlat.h
 * and config.h.
 */
static void put_man(FILE *f, const struct rxlat_option *o)
{
	const struct {
		const char *mark;
		double v;
	} nums[] = { { "@DEF@", o->def },
		     { "@MIN@", o->min },
		     { "@MAX@", o->max },
		     { "@HIST_BYTES@", (double)sizeof(struct rxlat_hist) },
		     { "@CHUNK_SERIES@", RXLAT_CHUNK_SERIES },
		     { "@HISTS_MIB@", RXLAT_HISTS_BYTES_LIMIT >> 20 } };
	const size_t n = sizeof(nums) / sizeof(nums[0]);
	char num[32];

	for (const char *p = o->man; *p; p++) {
		size_t i = 0;

		while (i < n && strncmp(p, nums[i].mark, strlen(nums[i].mark)))
			i++;
		if (i == n) {
			fputc(*p, f);
			continue;
		}
		fputs(opt_num(nums[i].v, num, sizeof(num)), f);
		p += strlen(nums[i].mark) - 1;
	}
}

/* The help text as a sentence where the table has no man text of its own. */
static void put_text(FILE *f, const struct rxlat_option *o)
{
	char buf[256];
	const char *text = rxlat_option_help(o, buf, sizeof(buf));

	if (o->man) {
		put_man(f, o);
		return;
	}
	fputc(toupper((unsigned char)text[0]), f);
	for (const char *p = text + 1; *p; p++)
		if (*p == '-' && p[-1] == ' ') /* an option's name */
			fputs("\\-", f);
		else
			fputc(*p, f);
	fputs(".\n", f);
}

/*
 * What the option applies to, from its table entry: the sentence that says
 * the error or the note rxlat gives (options.c, check_applies).
 */
static void put_applies(FILE *f, const struct rxlat_option *o)
{
#define STAGE_NAME(id, name, ...) [RXLAT_STAGE_##id] = name,
	static const char *const stage_names[RXLAT_NR_STAGES] = { RXLAT_STAGES(STAGE_NAME) };
#undef STAGE_NAME

	if (o->needs) {
		fputs("Refused without\\~", f);
		put_name(f, &options[o->needs - 1], options[o->needs - 1].shortopt[0]);
		fputs(".\n", f);
	}
	if (o->moot_with) {
		fputs("With\\~", f);
		put_name(f, &options[o->moot_with - 1], false);
		fprintf(f, "\\~%s it does nothing, and rxlat says so in one line.\n",
			options[o->moot_with - 1].choices[o->moot_value]);
	}
	if (o->stage) {
		fputs("Where\\~", f);
		put_name(f, &options[OPT_STAGES], false);
		fprintf(f, " leaves out\n.B %s\nit does nothing, and rxlat says so in one line.\n",
			stage_names[o->stage - 1]);
	}
}

/* ".TP", the names and the value, the text; man_next shares the next one's */
static void put_options(FILE *f)
{
	for (int id = 0; id < RXLAT_NR_OPTS; id++) {
		fputs(".TP\n", f);
		put_header(f, &options[id]);
		while (options[id].man_next && id + 1 < RXLAT_NR_OPTS) {
			fputs(", ", f);
			put_header(f, &options[++id]);
		}
		fputc('\n', f);
		put_text(f, &options[id]);
		put_applies(f, &options[id]);
	}
}

int main(int argc, char **argv)
{
	FILE *in = argc == 2 ? fopen(argv[1], "re") : NULL;
	int synopsis = 0, opts = 0;
	char line[1024];

	if (!in) {
		fprintf(stderr, "usage: rxlat-man TEMPLATE (collector/cli/rxlat.8) > rxlat.8\n");
		return 1;
	}
	while (fgets(line, sizeof(line), in)) {
		if (!strcmp(line, "@SYNOPSIS@\n")) {
			put_synopsis(stdout);
			synopsis++;
		} else if (!strcmp(line, "@STAGE_PROTOS@\n")) {
			char protos[256];

			printf("%s.\n", rxlat_stage_protos_str(protos, sizeof(protos)));
		} else if (!strcmp(line, "@OPTIONS@\n")) {
			put_options(stdout);
			opts++;
		} else {
			fputs(line, stdout);
		}
	}
	fclose(in);
	if (synopsis != 1 || opts != 1) {
		fprintf(stderr, "rxlat-man: %s: want one @SYNOPSIS@ and one @OPTIONS@ line\n",
			argv[1]);
		return 1;
	}
	return fflush(stdout) || ferror(stdout) ? 1 : 0;
}

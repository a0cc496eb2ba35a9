// SPDX-License-Identifier: GPL-2.0
/*
 * The stage table of include/rxlat.h against the two places that describe it
 * to people: the "Stages" list of collector/cli/rxlat.8 and the stage table of
 * docs/design.md. Both must name exactly the table's stages, in its order, with
 * its fentry targets and fallback attach points, so that a stage added,
 * renamed or moved to another attach point cannot leave the docs behind.
 * Runs from the repository root; one PASS or FAIL line per check.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "unit.h"
#include "rxlat.h"

static bool ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* WORD in [text, end) as a whole identifier, not as part of a longer one */
static bool has_word(const char *text, const char *end, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = text; p + n <= end; p++)
		if (!strncmp(p, word, n) && (p == text || !ident_char(p[-1])) &&
		    (p + n == end || !ident_char(p[n])))
			return true;
	return false;
}

/* the target of "type:target" */
static const char *target(const char *point)
{
	const char *colon = strchr(point, ':');

	return colon ? colon + 1 : point;
}

/* ---- docs/design.md: | `stage` | preferred (fentry) | fallback ... | -- */

/*
 * The backquoted words of one table cell, "type:word" where a program type
 * precedes the word (as in "tp_btf `tcp_probe`"), else "word".
 */
static int cell_words(const char *cell, const char *end, char words[][64], int max)
{
	static const char *const types[] = { "tp_btf", "cgroup_skb", "fentry", "kprobe" };
	int n = 0;

	for (const char *p = cell; p < end && n < max; p++) {
		const char *q, *type = NULL;

		if (*p != '`')
			continue;
		q = memchr(p + 1, '`', end - p - 1);
		if (!q)
			break;
		for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
			size_t l = strlen(types[i]);
			const char *t = p - 1 - l;

			if (t > cell && p[-1] == ' ' && !strncmp(t, types[i], l) &&
			    !ident_char(t[-1]))
				type = types[i];
		}
		snprintf(words[n++], 64, "%s%s%.*s", type ? type : "", type ? ":" : "",
			 (int)(q - p - 1), p + 1);
		p = q;
	}
	return n;
}

/* Is WANT ("type:target" or a bare function name) among the cell's words? */
static bool cell_has(char words[][64], int n, const char *want)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(words[i], want) ||
		    (!strncmp(words[i], "fentry:", 7) && !strcmp(words[i] + 7, want)))
			return true;
	return false;
}

static void check_design_row(const struct stage *st, const char *row, const char *end)
{
	const char *c1 = strchr(row + 1, '|'), *c2 = c1 ? strchr(c1 + 1, '|') : NULL;
	const char *c3 = c2 ? strchr(c2 + 1, '|') : NULL;
	char pref[8][64], fb[8][64];
	int npref, nfb, want;

	if (!c3 || c3 > end) {
		check_fail("row of %s: not three cells", st->name);
		return;
	}
	npref = cell_words(c1, c2, pref, 8);
	nfb = cell_words(c2, c3, fb, 8);

	want = 0;
	for (int i = 0; i < 2; i++)
		if (st->fentry[i]) {
			want++;
			if (!cell_has(pref, npref, st->fentry[i]))
				check_fail("%s: fentry target %s missing", st->name, st->fentry[i]);
		}
	if (st->common) {
		want++;
		if (!cell_has(pref, npref, st->common))
			check_fail("%s: %s missing from the preferred set", st->name, st->common);
	}
	if (npref != want)
		check_fail("%s: %d attach points in the preferred cell, the table has %d", st->name,
			   npref, want);

	/* the common point is the same in both sets: "same" stands for it */
	want = 0;
	if (st->fallback) {
		want++;
		if (!cell_has(fb, nfb, st->fallback))
			check_fail("%s: fallback %s missing", st->name, st->fallback);
	} else if (!st->kprobe && strncmp(c2 + 1 + strspn(c2 + 1, " "), "none", 4)) {
		check_fail("%s: no fallback in the table, docs/design.md names one", st->name);
	}
	/* the last resort: the fentry targets by kprobe */
	for (int i = 0; i < 2 && st->kprobe; i++) {
		char kp[80];

		if (!st->fentry[i])
			continue;
		want++;
		snprintf(kp, sizeof(kp), "kprobe:%s", st->fentry[i]);
		if (!cell_has(fb, nfb, kp))
			check_fail("%s: %s missing from the fallback cell", st->name, kp);
	}
	if (nfb != want)
		check_fail("%s: %d attach points in the fallback cell, the table has %d", st->name,
			   nfb, want);
}

static void check_design(void)
{
	const char *hdr = "| stage | preferred (fentry) | fallback";
	char *text = slurp("docs/design.md");
	const char *p;
	int s = 0;

	if (!text) {
		check_failed("design.stage_table",
			     "cannot read docs/design.md (run from the repo root)");
		return;
	}
	p = strstr(text, hdr);
	if (!p) {
		check_failed("design.stage_table", "no line starting with '%s'", hdr);
		free(text);
		return;
	}
	check_pass("design.stage_table");
	p = strchr(p, '\n');
	if (p)
		p = strchr(p + 1, '\n'); /* past the |---| line */
	while (p && p[1] == '|') {
		const char *row = p + 1, *end = strchr(row, '\n');
		char name[64];
		int len;

		if (!end)
			end = row + strlen(row);
		if (sscanf(row, "| `%63[^`]` |%n", name, &len) != 1) {
			check_failed("design.rows", "row without a `stage` name: %.*s",
				     (int)(end - row), row);
			free(text);
			return;
		}
		if (s >= RXLAT_NR_STAGES) {
			check_failed("design.rows", "stage %s is not in the stage table", name);
			free(text);
			return;
		}
		if (strcmp(name, stages[s].name)) {
			check_failed("design.rows", "row %d is %s, the stage table has %s", s + 1,
				     name, stages[s].name);
			free(text);
			return;
		}
		check_design_row(&stages[s], row, end);
		snprintf(name, sizeof(name), "design.%s", stages[s].name);
		check_done(name);
		s++;
		p = end;
	}
	if (s == RXLAT_NR_STAGES)
		check_pass("design.rows");
	else
		check_failed("design.rows", "%d stages in docs/design.md, %d in the stage table", s,
			     RXLAT_NR_STAGES);
	free(text);
}

/* ---- man page: .TP / .B stage / description, under "Stages," ----------- */

static void check_man(void)
{
	char *text = slurp("collector/cli/rxlat.8");
	const char *p, *end;
	int s = 0;

	if (!text) {
		check_failed("man.stages",
			     "cannot read collector/cli/rxlat.8 (run from the repo root)");
		return;
	}
	p = strstr(text, "\nStages,");
	end = p ? strstr(p, "\n.PP") : NULL;
	if (!p || !end) {
		check_failed("man.stages", "no \"Stages,\" paragraph ending in .PP");
		free(text);
		return;
	}
	check_pass("man.stages");
	while ((p = strstr(p, "\n.TP\n.B ")) && p < end) {
		const char *name = p + 8, *nl = strchr(name, '\n');
		const char *desc = nl + 1, *next = strstr(desc, "\n.TP");
		char check[64];

		if (!next || next > end)
			next = end;
		if (s >= RXLAT_NR_STAGES) {
			check_failed("man.entries", "stage %.*s is not in the stage table",
				     (int)(nl - name), name);
			free(text);
			return;
		}
		if ((size_t)(nl - name) != strlen(stages[s].name) ||
		    strncmp(name, stages[s].name, nl - name)) {
			check_failed("man.entries", "entry %d is %.*s, the stage table has %s",
				     s + 1, (int)(nl - name), name, stages[s].name);
			free(text);
			return;
		}
		for (int i = 0; i < 2; i++)
			if (stages[s].fentry[i] && !has_word(desc, next, stages[s].fentry[i]))
				check_fail("fentry target %s not named", stages[s].fentry[i]);
		if (stages[s].fallback && !has_word(desc, next, target(stages[s].fallback)))
			check_fail("fallback %s not named", stages[s].fallback);
		if (!stages[s].fallback && !stages[s].kprobe &&
		    !has_word(desc, next, "fentry only"))
			check_fail("no fallback in the table: the entry must say \"fentry only\"");
		if (stages[s].kprobe && !has_word(desc, next, "kprobe"))
			check_fail("the fentry targets by kprobe: the entry must say \"kprobe\"");
		if (stages[s].common && !has_word(desc, next, target(stages[s].common)))
			check_fail("%s not named", stages[s].common);
		snprintf(check, sizeof(check), "man.%s", stages[s].name);
		check_done(check);
		s++;
		p = next;
	}
	if (s == RXLAT_NR_STAGES)
		check_pass("man.entries");
	else
		check_failed("man.entries", "%d stages in the man page, %d in the stage table", s,
			     RXLAT_NR_STAGES);
	free(text);
}

int main(int argc, char **argv)
{
	check_args(argc, argv);
	CHECK_RUN(check_design);
	CHECK_RUN(check_man);
	return check_exit_status();
}

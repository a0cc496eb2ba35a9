// SPDX-License-Identifier: GPL-2.0
/*
 * The programs of hooks.bpf.o against the loader's program table
 * (collector/attach/hooks/plan.c) and the stage table it is made from
 * (include/rxlat.h), both ways: every attach point of the tables has
 * exactly one program, of the right type, in the section of that attach
 * point; every program of the object is in the table. The object is opened
 * with libbpf, never loaded: no privileges, any kernel. The object is
 * $BUILD/hooks.bpf.o (run.sh sets BUILD), else the one of the build that
 * made this test. One PASS or FAIL line per check; its cases by name
 * (check_args()).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "check.h"
#include "unit.h"
#include "plan.h"

#ifndef RXLAT_HOOKS_OBJ
#define RXLAT_HOOKS_OBJ "build/hooks.bpf.o"
#endif

#define NPROGS	(sizeof(plan_progs) / sizeof(plan_progs[0]))
#define NEXTRAS (sizeof(plan_extras) / sizeof(plan_extras[0]))

static bool same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/*
 * The loader's entries of stage s are the stage table's attach points, in
 * the order fentry, fentry6, fallback, common, kprobe, kprobe6.
 */
static void check_stage(int s)
{
	const struct plan_prog *pp = &plan_progs[s * PLAN_PER_STAGE];
	const struct stage *st = &stages[s];
	char name[64];

	for (int i = 0; i < PLAN_PER_STAGE; i++)
		if (pp[i].stage != (enum rxlat_stage)s)
			check_fail("entry %d belongs to stage %d", i, pp[i].stage);
	if (!same(pp[0].fentry, st->fentry[0]) || pp[0].point || pp[0].set != P_FENTRY)
		check_fail("fentry entry is not fentry:%s", st->fentry[0]);
	if (!same(pp[1].fentry, st->fentry[1]) || pp[1].point || pp[1].set != P_FENTRY)
		check_fail("fentry6 entry is not fentry:%s",
			   st->fentry[1] ? st->fentry[1] : "(none)");
	if (pp[2].fentry || !same(pp[2].point, st->fallback) || pp[2].set != P_FALLBACK)
		check_fail("fallback entry is not %s", st->fallback ? st->fallback : "(none)");
	if (pp[3].fentry || !same(pp[3].point, st->common) || pp[3].set != P_BOTH)
		check_fail("common entry is not %s", st->common ? st->common : "(none)");
	for (int i = 0; i < 2; i++)
		if (pp[4 + i].fentry || pp[4 + i].point || pp[4 + i].set != P_KPROBE ||
		    !same(pp[4 + i].kprobe, st->kprobe ? st->fentry[i] : NULL))
			check_fail("kprobe entry %d is not kprobe:%s", i,
				   st->kprobe && st->fentry[i] ? st->fentry[i] : "(none)");
	snprintf(name, sizeof(name), "table.%s", st->name);
	check_done(name);
}

/* The program type and attach type that libbpf gives a section's prefix. */
static void check_type(const struct bpf_program *p, const char *sec)
{
	static const struct {
		const char *prefix;
		enum bpf_prog_type type;
		enum bpf_attach_type attach;
	} kinds[] = {
		{ "fentry/", BPF_PROG_TYPE_TRACING, BPF_TRACE_FENTRY },
		{ "fexit/", BPF_PROG_TYPE_TRACING, BPF_TRACE_FEXIT },
		{ "tp_btf/", BPF_PROG_TYPE_TRACING, BPF_TRACE_RAW_TP },
		{ "cgroup_skb/ingress", BPF_PROG_TYPE_CGROUP_SKB, BPF_CGROUP_INET_INGRESS },
		{ "kprobe/", BPF_PROG_TYPE_KPROBE, 0 },
	};

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (strncmp(sec, kinds[i].prefix, strlen(kinds[i].prefix)))
			continue;
		if (bpf_program__type(p) != kinds[i].type ||
		    bpf_program__expected_attach_type(p) != kinds[i].attach)
			check_fail("%s: program type %d, attach type %d; want %d, %d", sec,
				   bpf_program__type(p), bpf_program__expected_attach_type(p),
				   kinds[i].type, kinds[i].attach);
		return;
	}
	check_fail("%s: not a kind of attach point the loader knows", sec);
}

static bool is_extra(const char *name)
{
	for (size_t i = 0; i < NEXTRAS; i++)
		if (!strcmp(plan_extras[i].name, name))
			return true;
	return false;
}

/* Table to object: each attach point has exactly one program there. */
static void check_entry(struct bpf_object *obj, const struct plan_prog *pp)
{
	const char *point = pp->fentry ? pp->fentry : pp->kprobe ? pp->kprobe : pp->point;
	struct bpf_program *p, *found = NULL;
	char sec[128], name[160];
	int n = 0;

	if (!plan_prog_section(pp, sec, sizeof(sec)))
		return; /* an attach point the stage does not have */
	bpf_object__for_each_program (p, obj)
		if (!is_extra(bpf_program__name(p)) && !strcmp(bpf_program__section_name(p), sec)) {
			found = p;
			n++;
		}
	if (n != 1)
		check_fail("%d programs in section %s, want 1", n, sec);
	else
		check_type(found, sec);
	snprintf(name, sizeof(name), "entry.%s.%s%s", stages[pp->stage].name,
		 pp->fentry   ? "fentry:"
		 : pp->kprobe ? "kprobe:"
			      : "",
		 point);
	check_done(name);
}

static void check_extra(struct bpf_object *obj, const struct plan_extra *e)
{
	struct bpf_program *p = bpf_object__find_program_by_name(obj, e->name);
	char name[80];

	if (!p)
		check_fail("no program %s in the object", e->name);
	else if (strcmp(bpf_program__section_name(p), e->section))
		check_fail("%s is in section %s, the table says %s", e->name,
			   bpf_program__section_name(p), e->section);
	else
		check_type(p, e->section);
	snprintf(name, sizeof(name), "extra.%s", e->name);
	check_done(name);
}

/* Object to table: each program is an attach point of the table or an extra. */
static void check_prog(const struct bpf_program *p)
{
	const char *sec = bpf_program__section_name(p);
	char name[80];

	if (!is_extra(bpf_program__name(p)) && !plan_prog_of(sec))
		check_fail("section %s is no attach point of the stage table, and %s is not "
			   "in plan_extras",
			   sec, bpf_program__name(p));
	snprintf(name, sizeof(name), "prog.%s", bpf_program__name(p));
	check_done(name);
}

/* The stage table's rows. */
static void test_stages(void)
{
	for (int s = 0; s < RXLAT_NR_STAGES; s++)
		check_stage(s);
}

/* The object at path against the tables, both ways. */
static void test_object(const char *path)
{
	struct bpf_object *obj = bpf_object__open_file(path, NULL);
	struct bpf_program *p;

	if (!obj) {
		check_failed("open", "cannot open %s (run from the repo root)", path);
		return;
	}
	check_pass("open");
	for (size_t i = 0; i < NPROGS; i++)
		check_entry(obj, &plan_progs[i]);
	for (size_t i = 0; i < NEXTRAS; i++)
		check_extra(obj, &plan_extras[i]);
	bpf_object__for_each_program (p, obj)
		check_prog(p);
	bpf_object__close(obj);
}

/*
 * Atomic instructions whose kind a verifier before 5.12 refuses, wherever
 * they are ("BPF_STX uses reserved fields"): any but the plain add.
 */
static int newer_atomics(struct bpf_object *obj)
{
	struct bpf_program *p;
	int n = 0;

	bpf_object__for_each_program (p, obj) {
		const struct bpf_insn *in = bpf_program__insns(p);

		for (size_t i = 0; i < bpf_program__insn_cnt(p); i++)
			n += in[i].code == (BPF_STX | BPF_ATOMIC | BPF_DW) ||
				     in[i].code == (BPF_STX | BPF_ATOMIC | BPF_W)
				 ? in[i].imm != BPF_ADD
				 : 0;
	}
	return n;
}

/*
 * Whether obj has a map like m: of its name, or for a section's map
 * (".rodata", ".bss", named after the object) of its section, and of its
 * value size.
 */
static bool same_map(struct bpf_object *obj, const struct bpf_map *m)
{
	const char *sec = strchr(bpf_map__name(m), '.');
	struct bpf_map *o;

	bpf_object__for_each_map (o, obj) {
		const char *osec = strchr(bpf_map__name(o), '.');

		if ((sec ? osec && !strcmp(sec, osec)
			 : !strcmp(bpf_map__name(m), bpf_map__name(o))) &&
		    bpf_map__value_size(o) == bpf_map__value_size(m))
			return true;
	}
	return false;
}

/*
 * The object of the hooks without fetch-add and compare-and-swap, and the tc
 * stamper (loaded as it is by iproute2), have none; the hooks' other
 * object has them, and both have the same programs and maps, so that one
 * skeleton opens either (collector/attach/hooks/hooks_skel.c).
 */
static void test_no_fetch(const char *build)
{
	char path[4096];
	struct bpf_object *fetch, *nofetch, *tc;
	struct bpf_program *p;
	struct bpf_map *m;

	snprintf(path, sizeof(path), "%s/hooks.bpf.o", build);
	fetch = bpf_object__open_file(path, NULL);
	snprintf(path, sizeof(path), "%s/hooks_nofetch.bpf.o", build);
	nofetch = bpf_object__open_file(path, NULL);
	snprintf(path, sizeof(path), "%s/rxlat_tc.bpf.o", build);
	tc = bpf_object__open_file(path, NULL);
	if (!fetch || !nofetch || !tc) {
		check_failed("no_fetch.open", "cannot open the objects in %s (run make)", build);
	} else {
		__u64 progs = 0, maps = 0;

		check_pass("no_fetch.open");
		CHECK_U64("no_fetch.hooks", (__u64)newer_atomics(nofetch), 0);
		check_done("no_fetch.hooks");
		CHECK_U64("no_fetch.tc", (__u64)newer_atomics(tc), 0);
		check_done("no_fetch.tc");
		CHECK_U64("no_fetch.fetch_has_them", newer_atomics(fetch) > 0, 1);
		check_done("no_fetch.fetch_has_them");
		bpf_object__for_each_program (p, fetch)
			progs += !bpf_object__find_program_by_name(nofetch, bpf_program__name(p));
		bpf_object__for_each_map (m, fetch)
			maps += !same_map(nofetch, m);
		CHECK_U64("no_fetch.same_progs", progs, 0);
		check_done("no_fetch.same_progs");
		CHECK_U64("no_fetch.same_maps", maps, 0);
		check_done("no_fetch.same_maps");
	}
	bpf_object__close(fetch);
	bpf_object__close(nofetch);
	bpf_object__close(tc);
}

int main(int argc, char **argv)
{
	const char *build = getenv("BUILD"); /* run.sh's, also inside the test VM */
	char path[4096] = RXLAT_HOOKS_OBJ;

	check_args(argc, argv);
	if (build && *build)
		snprintf(path, sizeof(path), "%s/hooks.bpf.o", build);
	else
		build = "build";
	libbpf_set_print(NULL);
	CHECK_RUN(test_stages);
	CHECK_RUN(test_object, path);
	CHECK_RUN(test_no_fetch, build);
	return check_exit_status();
}

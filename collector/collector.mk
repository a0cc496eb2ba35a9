# SPDX-License-Identifier: GPL-2.0
# The rxlat command, one folder per job along the data's path, above a base
# that every one of them uses:
#   collector/base    the shared vocabulary: the configuration, the option
#                     table and names, messages, stop signals, the series
#                     and their names, a group's names
#   collector/attach  what goes into the kernel, a room per job, from the
#                     bottom:
#     attach/kernel     what rxlat asks of the kernel outside BPF: netlink
#                       (links.c), who holds a hook (holders.c), where the
#                       BPF objects are (objects.c)
#     attach/stampers   the loaders of the XDP and tc stampers, whose
#                       programs are xdp/ and tc/, and which one each named
#                       interface gets (stamping.c)
#     attach/hooks      the latency hooks: hooks.bpf.c and its parts, the
#                       attach plan, the loader, the series store
#     attach/groups     --by: the groups and their names (netns_cookie.bpf.c)
#     attach/ifaces     the named interfaces as they go and come back, each
#                       with its stamper and its slot in the hooks
#   collector/read    the model: every map's snapshots, baselines, cursors
#   collector/render  text and JSON reports, --slow records, the Prometheus
#                     exposition
#   collector/cli     the command line, its parser, stdout, the main loop
# plus the skeletons of its BPF objects. Its unit tests are in
# unit-tests. A folder includes only from itself and the folders
# listed before it (include/ first): scripts/check-layers.sh, in make lint.

ATTACH_ROOMS   := kernel stampers hooks groups ifaces
COLLECTOR_DIRS := collector/base $(addprefix collector/attach/,$(ATTACH_ROOMS)) collector/read \
                  collector/render collector/cli
# cli/man.c is a build tool: it makes the man page from the option table;
# cli/rxlat_heatmap.c is the main() of rxlat-heatmap
USER_SOURCES := $(filter-out %.bpf.c collector/cli/man.c collector/cli/rxlat_heatmap.c,$(wildcard $(addsuffix /*.c,$(COLLECTOR_DIRS))))
USER_HEADERS := $(wildcard $(addsuffix /*.h,$(COLLECTOR_DIRS)))
LINT_SOURCES  = $(wildcard include/*.h xdp/*.c tc/*.c $(addsuffix /*.c,$(COLLECTOR_DIRS)) \
                 $(USER_HEADERS) netns-tests/*.c netns-tests/*.h unit-tests/*.c \
                 bench/*.c)
USER_LIBS    := -lbpf -lelf -lz -ljson-c -largtable2 -lmnl -lcap -lmicrohttpd -lyaml -lgnutls -lcrypt -lm
CFLAGS       += $(addprefix -I,$(COLLECTOR_DIRS))

# hooks.bpf.c's skeleton is hooks_bpf (struct hooks_bpf, hooks_bpf__open()),
# so that its names do not collide with the loader's own hooks_*() functions.
SKELS := $(BUILD)/rxlat_xdp.skel.h $(BUILD)/rxlat_reset.skel.h $(BUILD)/hooks_bpf.skel.h \
         $(BUILD)/hooks_nofetch_bpf.skel.h $(BUILD)/rxlat_tc.skel.h $(BUILD)/netns_cookie_bpf.skel.h

$(BUILD)/hooks_bpf.skel.h: $(BUILD)/hooks.bpf.o
	$(BPFTOOL) gen skeleton $< name hooks_bpf > $@.tmp && mv $@.tmp $@

# the hooks again without atomic instructions that return a value, for a
# verifier that has none (before 5.12; include/rxlat_atomic.bpf.h): the same
# maps and variables, so that hooks_skel.c opens either as a struct hooks_bpf
$(BUILD)/hooks_nofetch.bpf.o: collector/attach/hooks/hooks.bpf.c $(BPF_DEPS) $(wildcard collector/attach/*/*.bpf.h)
	$(CLANG) $(BPF_CFLAGS) -DRXLAT_NO_FETCH -c $< -o $@

$(BUILD)/hooks_nofetch_bpf.skel.h: $(BUILD)/hooks_nofetch.bpf.o
	$(BPFTOOL) gen skeleton $< name hooks_nofetch_bpf > $@.tmp && mv $@.tmp $@

$(BUILD)/netns_cookie_bpf.skel.h: $(BUILD)/netns_cookie.bpf.o
	$(BPFTOOL) gen skeleton $< name netns_cookie_bpf > $@.tmp && mv $@.tmp $@

# the same for the tc stamper: tc.c has tc_*() functions of its own
$(BUILD)/rxlat_tc.skel.h: $(BUILD)/rxlat_tc.bpf.o
	$(BPFTOOL) gen skeleton $< name rxlat_tc_bpf > $@.tmp && mv $@.tmp $@

$(BUILD)/collector/%.o: collector/%.c $(SKELS) include/*.h $(USER_HEADERS) | $(BUILD)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/rxlat: $(patsubst collector/%.c,$(BUILD)/collector/%.o,$(USER_SOURCES))
	$(CC) $(CFLAGS) $^ -o $@ $(USER_LIBS)

# rxlat-heatmap: rxlat's heatmap writer, fed from rxlat -o json; no BPF
HEATMAP_OBJS := $(addprefix $(BUILD)/collector/,cli/rxlat_heatmap.o render/heatmap.o render/heatmap_svg.o base/series.o)
$(BUILD)/rxlat-heatmap: $(HEATMAP_OBJS)
	$(CC) $(CFLAGS) $^ -o $@ -ljson-c -lm

$(BUILD)/rxlat-heatmap.1: collector/cli/rxlat-heatmap.1 VERSION | $(BUILD)
	sed -e 's|@VERSION@|$(VERSION)|g' $< > $@.tmp && mv $@.tmp $@

# SPDX-License-Identifier: GPL-2.0
# The rxlat command: collector/*.c plus the skeletons of its BPF objects.

USER_SOURCES := $(filter-out collector/%_test.c collector/%.bpf.c,$(wildcard collector/*.c))
LINT_SOURCES  = $(wildcard include/*.h xdp/*.c tc/*.c collector/*.c collector/*.h \
                 netns-tests/*.c netns-tests/*.h)
USER_LIBS    := -lbpf -lelf -lz -ljson-c -largtable2 -lmnl -lcap -lmicrohttpd -lm

# hooks.bpf.c's skeleton is hooks_bpf (struct hooks_bpf, hooks_bpf__open()),
# so that its names do not collide with hooks.c's own hooks_*() functions.
SKELS := $(BUILD)/rxlat_xdp.skel.h $(BUILD)/rxlat_reset.skel.h $(BUILD)/hooks_bpf.skel.h \
         $(BUILD)/rxlat_tc.skel.h

$(BUILD)/hooks_bpf.skel.h: $(BUILD)/hooks.bpf.o
	$(BPFTOOL) gen skeleton $< name hooks_bpf > $@.tmp && mv $@.tmp $@

# the same for the tc stamper: tc.c has tc_*() functions of its own
$(BUILD)/rxlat_tc.skel.h: $(BUILD)/rxlat_tc.bpf.o
	$(BPFTOOL) gen skeleton $< name rxlat_tc_bpf > $@.tmp && mv $@.tmp $@

$(BUILD)/collector/%.o: collector/%.c $(SKELS) include/*.h collector/*.h | $(BUILD)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/rxlat: $(patsubst collector/%.c,$(BUILD)/collector/%.o,$(USER_SOURCES))
	$(CC) $(CFLAGS) $^ -o $@ $(USER_LIBS)

# Unit tests of the histogram scheme, the renderers, the map deltas and the
# stage table against the docs (run.sh runs every build/rxlat-*-test).
UNIT_TESTS := $(BUILD)/rxlat-report-test $(BUILD)/rxlat-hist-bpf-test $(BUILD)/hist_bpf_test.bpf.o \
              $(BUILD)/rxlat-collect-test $(BUILD)/rxlat-stages-test $(BUILD)/rxlat-prom-test

$(BUILD)/rxlat-report-test: collector/report_test.c collector/report.c collector/report.h \
		include/rxlat.h include/rxlat_hist.h netns-tests/check.h | $(BUILD)
	$(CC) $(CFLAGS) -Inetns-tests collector/report_test.c collector/report.c -o $@ -ljson-c -lm

$(BUILD)/hist_bpf_test.bpf.o: collector/hist_bpf_test.c $(BPF_DEPS)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/rxlat-hist-bpf-test: collector/hist_bpf_run_test.c include/rxlat.h \
		include/rxlat_hist.h netns-tests/check.h | $(BUILD)
	$(CC) $(CFLAGS) -Inetns-tests $< -o $@ -lbpf -lelf -lz

$(BUILD)/rxlat-collect-test: collector/collect_test.c collector/collect.c collector/collect.h \
		collector/report.c collector/report.h include/rxlat.h netns-tests/check.h | $(BUILD)
	$(CC) $(CFLAGS) -Inetns-tests collector/collect_test.c collector/collect.c collector/report.c \
		-o $@ -ljson-c -lm

$(BUILD)/rxlat-stages-test: collector/stages_test.c include/rxlat.h netns-tests/check.h | $(BUILD)
	$(CC) $(CFLAGS) -Inetns-tests $< -o $@

# The exposition without BPF or HTTP: exact le bounds, coarse sums, counters
# that never go down.
$(BUILD)/rxlat-prom-test: collector/prom_test.c collector/prom.c collector/prom.h \
		collector/report.c collector/report.h include/rxlat.h include/rxlat_hist.h \
		netns-tests/check.h | $(BUILD)
	$(CC) $(CFLAGS) -Inetns-tests collector/prom_test.c collector/prom.c collector/report.c \
		-o $@ -ljson-c -lm

# SPDX-License-Identifier: GPL-2.0
# Unit tests of the collector: the histogram scheme (also through
# BPF_PROG_TEST_RUN), the renderers, the model's deltas and totals, and the
# stage table against the docs. netns-tests/run.sh runs every
# build/rxlat-*-test. Included from the top Makefile.

UNIT := netns-tests/unit
UNIT_CFLAGS = $(CFLAGS) -Inetns-tests
UNIT_TESTS := $(BUILD)/rxlat-report-test $(BUILD)/rxlat-hist-bpf-test $(BUILD)/hist_bpf_test.bpf.o \
              $(BUILD)/rxlat-collect-test $(BUILD)/rxlat-stages-test $(BUILD)/rxlat-prom-test

$(BUILD)/rxlat-report-test: $(UNIT)/report_test.c collector/render/report.c collector/render/report.h \
		include/rxlat.h include/rxlat_hist.h netns-tests/check.h | $(BUILD)
	$(CC) $(UNIT_CFLAGS) $(UNIT)/report_test.c collector/render/report.c -o $@ -ljson-c -lm

$(BUILD)/rxlat-hist-bpf-test: $(UNIT)/hist_bpf_run_test.c include/rxlat.h \
		include/rxlat_hist.h netns-tests/check.h | $(BUILD)
	$(CC) $(UNIT_CFLAGS) $< -o $@ -lbpf -lelf -lz

$(BUILD)/rxlat-collect-test: $(UNIT)/collect_test.c collector/read/collect.c collector/read/collect.h \
		collector/render/report.c collector/render/report.h include/rxlat.h netns-tests/check.h | $(BUILD)
	$(CC) $(UNIT_CFLAGS) $(UNIT)/collect_test.c collector/read/collect.c collector/render/report.c \
		-o $@ -ljson-c -lm

$(BUILD)/rxlat-stages-test: $(UNIT)/stages_test.c include/rxlat.h netns-tests/check.h | $(BUILD)
	$(CC) $(UNIT_CFLAGS) $< -o $@

# The exposition without BPF or HTTP: exact le bounds, coarse sums, counters
# that never go down.
$(BUILD)/rxlat-prom-test: $(UNIT)/prom_test.c collector/render/prom.c collector/render/prom.h \
		collector/render/report.c collector/render/report.h include/rxlat.h include/rxlat_hist.h \
		netns-tests/check.h | $(BUILD)
	$(CC) $(UNIT_CFLAGS) $(UNIT)/prom_test.c collector/render/prom.c collector/render/report.c \
		-o $@ -ljson-c -lm

test-binaries: $(UNIT_TESTS)

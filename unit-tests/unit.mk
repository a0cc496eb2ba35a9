# SPDX-License-Identifier: GPL-2.0
# Unit tests of the collector: the histogram scheme, the renderers, the
# model's deltas and totals, one series from the store to every output, the
# option table, the attach plan, and the stage table against the docs and
# the hooks object. No kernel and no root:
# `make check` runs them (unit-tests/check.sh), and netns-tests/run.sh with
# the rest (every build/rxlat-*-test). Included from the top Makefile.

UNIT := unit-tests
UNIT_CFLAGS = $(CFLAGS) -Inetns-tests
MODEL  := collector/read/model.c collector/read/model_dims.c collector/read/model_rows.c collector/read/model_frozen.c \
          collector/read/tally.c
SERIES := collector/base/series.c
RENDER := $(SERIES) collector/render/report.c collector/render/text.c collector/render/json.c collector/render/heatmap.c
PROM_SRC := collector/render/prom.c collector/render/prom_metrics.c collector/render/prom_accept.c \
            collector/render/prom_pb.c
UNIT_TESTS := $(BUILD)/rxlat-hist-test $(BUILD)/rxlat-report-test $(BUILD)/rxlat-report-json-test \
              $(BUILD)/rxlat-model-test $(BUILD)/rxlat-model-totals-test $(BUILD)/rxlat-stages-test \
              $(BUILD)/rxlat-prom-test $(BUILD)/rxlat-prom-pb-test $(BUILD)/rxlat-options-test \
              $(BUILD)/rxlat-plan-test $(BUILD)/rxlat-progs-test $(BUILD)/rxlat-web-config-test \
              $(BUILD)/rxlat-heatmap-test $(BUILD)/rxlat-path-test

# The bucket scheme against a table built the slow way, percentiles and
# merging: no renderer.
$(BUILD)/rxlat-hist-test: $(UNIT)/hist_test.c $(UNIT)/hist_ref.h $(SERIES) collector/base/series.h \
		include/rxlat.h include/rxlat_hist.h netns-tests/check.h | $(BUILD)
	$(CC) $(UNIT_CFLAGS) $< $(SERIES) -o $@ -lm

$(BUILD)/rxlat-report-test: $(UNIT)/report_test.c $(UNIT)/report_fixture.h $(UNIT)/hist_ref.h \
		$(RENDER) collector/render/report.h collector/render/heatmap.h collector/read/model.h \
		collector/base/series.h include/rxlat.h include/rxlat_hist.h netns-tests/check.h | $(BUILD)
	$(CC) $(UNIT_CFLAGS) $< $(RENDER) -o $@ -ljson-c -lm

$(BUILD)/rxlat-report-json-test: $(UNIT)/report_json_test.c $(UNIT)/report_fixture.h $(UNIT)/hist_ref.h \
		$(RENDER) collector/render/report.h collector/render/heatmap.h collector/read/model.h \
		collector/base/series.h include/rxlat.h include/rxlat_hist.h netns-tests/check.h | $(BUILD)
	$(CC) $(UNIT_CFLAGS) $< $(RENDER) -o $@ -ljson-c -lm

HEATMAP_SRC := $(SERIES) collector/render/heatmap.c collector/render/heatmap_svg.c
$(BUILD)/rxlat-heatmap-test: $(UNIT)/heatmap_test.c $(HEATMAP_SRC) collector/render/heatmap.h \
		collector/render/heatmap_impl.h include/rxlat_hist.h netns-tests/check.h | $(BUILD)
	$(CC) $(UNIT_CFLAGS) $< $(HEATMAP_SRC) -o $@ -lm

# The model over plain memory (model_fixture.h): its reports' deltas and
# stamper rows, and its totals across released slots.
MODEL_TEST_DEPS := $(UNIT)/model_fixture.h $(MODEL) collector/read/*.h collector/attach/hooks/series_store.h \
		   $(SERIES) collector/base/series.h include/rxlat.h netns-tests/check.h $(UNIT)/unit.h
$(BUILD)/rxlat-model-test: $(UNIT)/model_test.c $(MODEL_TEST_DEPS) | $(BUILD)
	$(CC) $(UNIT_CFLAGS) $< $(MODEL) $(SERIES) -o $@ -ljson-c -lm

$(BUILD)/rxlat-model-totals-test: $(UNIT)/model_totals_test.c $(MODEL_TEST_DEPS) | $(BUILD)
	$(CC) $(UNIT_CFLAGS) $< $(MODEL) $(SERIES) -o $@ -ljson-c -lm

$(BUILD)/rxlat-stages-test: $(UNIT)/stages_test.c include/rxlat.h netns-tests/check.h $(UNIT)/unit.h | $(BUILD)
	$(CC) $(UNIT_CFLAGS) $< -o $@

# The exposition without BPF or HTTP (prom_fixture.h): in text, exact le
# bounds, coarse sums, counters that never go down; in protobuf, decoded by
# protoc, the text's values in native buckets; and which Accept gets which.
PROM_TEST_DEPS := $(UNIT)/prom_fixture.h $(PROM_SRC) collector/render/prom.h collector/render/prom_pb.h \
		  $(MODEL) $(SERIES) collector/base/series.h include/rxlat.h include/rxlat_hist.h \
		  collector/attach/hooks/series_store.h netns-tests/check.h $(UNIT)/unit.h
$(BUILD)/rxlat-prom-test: $(UNIT)/prom_test.c $(PROM_TEST_DEPS) | $(BUILD)
	$(CC) $(UNIT_CFLAGS) $< $(PROM_SRC) $(MODEL) $(SERIES) -o $@ -ljson-c -lm

$(BUILD)/rxlat-prom-pb-test: $(UNIT)/prom_pb_test.c $(PROM_TEST_DEPS) | $(BUILD)
	$(CC) $(UNIT_CFLAGS) $< $(PROM_SRC) $(MODEL) $(SERIES) -o $@ -ljson-c -lm

# One series from the hooks' store to the text, JSON and Prometheus
# outputs, through the model and the renderers rxlat runs.
$(BUILD)/rxlat-path-test: $(UNIT)/path_test.c $(MODEL) $(RENDER) $(PROM_SRC) collector/read/*.h \
		collector/render/*.h collector/attach/hooks/series_store.h collector/base/series.h \
		include/rxlat.h include/rxlat_hist.h netns-tests/check.h $(UNIT)/unit.h | $(BUILD)
	$(CC) $(UNIT_CFLAGS) $< $(MODEL) $(RENDER) $(PROM_SRC) -o $@ -ljson-c -lm

# The option table: names, defaults, fields, exact error lines, and the man
# page made from it.
OPTIONS_SRC := collector/cli/options.c collector/cli/values.c collector/base/log.c collector/base/cgroup2.c \
               $(SERIES) collector/attach/kernel/objects.c collector/render/web_config.c
$(BUILD)/rxlat-options-test: $(UNIT)/options_test.c $(OPTIONS_SRC) collector/cli/options.h \
		collector/base/options_table.h collector/base/opt.h collector/base/config.h \
		netns-tests/check.h $(BUILD)/rxlat.8 | $(BUILD)
	$(CC) $(UNIT_CFLAGS) -DRXLAT_MAN_PAGE='"$(BUILD)/rxlat.8"' $< $(OPTIONS_SRC) -o $@ \
		-largtable2 -lbpf -ljson-c -lyaml -lgnutls -lcrypt -lm

# --web-config's reading, on files the test writes: no root, no server.
$(BUILD)/rxlat-web-config-test: $(UNIT)/web_config_test.c collector/render/web_config.c \
		collector/render/web_config.h collector/base/log.c netns-tests/check.h | $(BUILD)
	$(CC) $(UNIT_CFLAGS) $< collector/render/web_config.c collector/base/log.c -o $@ \
		-lyaml -lgnutls -lcrypt -lbpf

# The attach plan's decisions on made-up kernels: no kernel, no BPF.
$(BUILD)/rxlat-plan-test: $(UNIT)/plan_test.c collector/attach/hooks/plan.c collector/attach/hooks/plan.h \
		collector/attach/hooks/hooks.h collector/base/series.h include/rxlat.h netns-tests/check.h \
		$(UNIT)/unit.h | $(BUILD)
	$(CC) $(UNIT_CFLAGS) $< collector/attach/hooks/plan.c -o $@

# The programs of hooks.bpf.o against the loader's program table and the
# stage table, both ways: the object opened with libbpf, never loaded.
$(BUILD)/rxlat-progs-test: $(UNIT)/progs_test.c collector/attach/hooks/plan.c collector/attach/hooks/plan.h \
		include/rxlat.h netns-tests/check.h $(UNIT)/unit.h $(BUILD)/hooks.bpf.o \
		$(BUILD)/hooks_nofetch.bpf.o $(BUILD)/rxlat_tc.bpf.o | $(BUILD)
	$(CC) $(UNIT_CFLAGS) -DRXLAT_HOOKS_OBJ='"$(BUILD)/hooks.bpf.o"' $< collector/attach/hooks/plan.c \
		-o $@ -lbpf -lelf -lz

test-binaries: $(UNIT_TESTS)

.PHONY: check
check: $(UNIT_TESTS)
	BUILD=$(BUILD) ./unit-tests/check.sh $(notdir $(UNIT_TESTS))

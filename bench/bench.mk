# SPDX-License-Identifier: GPL-2.0
# `make bench` only: the reference programs of the per-run cost figures
# (empty and floor programs at every hook's attach point, an XDP floor
# with and without a clock read) and their loader, and the filler of
# rxlat's series. bench/bench.sh runs them; `make bench-binaries` builds
# them into $(BUILD). Included from the top Makefile.
BENCH_BINARIES := $(BUILD)/rxlat-bench-floor $(BUILD)/rxlat-bench-fill $(BUILD)/bench_floor.bpf.o \
                  $(BUILD)/xdp_floor.bpf.o $(BUILD)/xdp_clock.bpf.o $(BUILD)/xdp_pass.bpf.o \
                  $(BUILD)/tstamp_clear.bpf.o

$(BUILD)/xdp_clock.bpf.o: bench/xdp_floor.bpf.c $(BPF_DEPS)
	$(CLANG) $(BPF_CFLAGS) -DXDP_FLOOR_CLOCK -c $< -o $@

.PHONY: bench-binaries
bench-binaries: $(BENCH_BINARIES)

$(BUILD)/rxlat-bench-floor: bench/bench_floor.c | $(BUILD)
	$(CC) $(CFLAGS) $< -o $@ -lbpf -lelf -lz

$(BUILD)/rxlat-bench-fill: bench/bench_fill.c include/rxlat.h | $(BUILD)
	$(CC) $(CFLAGS) $< -o $@ -lbpf -lelf -lz

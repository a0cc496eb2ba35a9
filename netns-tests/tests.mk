# SPDX-License-Identifier: GPL-2.0
# Test-only programs: traffic generator, XDP unit test, metadata observer.
# netns-tests/run.sh runs them; `make test-binaries` builds them into $(BUILD).

TEST_BINARIES := $(BUILD)/rxlat-pktgen $(BUILD)/rxlat-xdp-unit \
                 $(BUILD)/rxlat-meta-probe $(BUILD)/meta_probe.bpf.o \
                 $(BUILD)/rxlat_xdp_packet.bpf.o $(BUILD)/xdp_count.bpf.o \
                 $(BUILD)/tc_count.bpf.o $(BUILD)/old_stamper.bpf.o $(BUILD)/rxlat-clockstep \
                 $(BUILD)/rxlat-tcpstream $(BUILD)/rxlat-hist-bpf-test $(BUILD)/hist_bpf_test.bpf.o

.PHONY: test-binaries
test-binaries: $(TEST_BINARIES) $(BUILD)/rxlat_xdp.bpf.o

$(BUILD)/rxlat-pktgen: netns-tests/pktgen.c netns-tests/pktgen_payload.c netns-tests/pktgen_payload.h \
		netns-tests/frame.h | $(BUILD)
	$(CC) $(CFLAGS) netns-tests/pktgen.c netns-tests/pktgen_payload.c -o $@ -lpcap

# the BPF side of the histogram scheme, through BPF_PROG_TEST_RUN
$(BUILD)/rxlat-hist-bpf-test: netns-tests/hist_bpf_run.c include/rxlat.h \
		include/rxlat_hist.h netns-tests/check.h | $(BUILD)
	$(CC) $(CFLAGS) $< -o $@ -lbpf -lelf -lz

$(BUILD)/rxlat-clockstep: netns-tests/clockstep.c | $(BUILD)
	$(CC) $(CFLAGS) $< -o $@

$(BUILD)/rxlat-tcpstream: netns-tests/tcpstream.c | $(BUILD)
	$(CC) $(CFLAGS) $< -o $@

$(BUILD)/rxlat-xdp-unit: netns-tests/xdp_unit.c netns-tests/check.h netns-tests/frame.h \
		collector/attach/stampers/xdp_counters.h collector/attach/stampers/xdp_frags.h \
		collector/attach/stampers/xdp_meta.h \
		$(BUILD)/rxlat_xdp.skel.h include/rxlat.h | $(BUILD)
	$(CC) $(CFLAGS) -Icollector/attach/stampers $< -o $@ -lbpf -lelf -lz

$(BUILD)/rxlat-meta-probe: netns-tests/meta_probe.c netns-tests/meta_probe.h \
		$(BUILD)/meta_probe.skel.h include/rxlat.h | $(BUILD)
	$(CC) $(CFLAGS) $< -o $@ -lbpf -lelf -lz

$(BUILD)/meta_probe.bpf.o: netns-tests/meta_probe.h

# The stamper with rxlat_stamp_mode = RXLAT_STAMP_PACKET built in, for
# loaders that cannot set read-only data (xdp-loader).
$(BUILD)/rxlat_xdp_packet.bpf.o: xdp/rxlat_xdp.bpf.c $(BPF_DEPS)
	$(CLANG) $(BPF_CFLAGS) -DRXLAT_XDP_STAMP_MODE=RXLAT_STAMP_PACKET -c $< -o $@

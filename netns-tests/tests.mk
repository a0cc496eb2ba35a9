# SPDX-License-Identifier: GPL-2.0
# Test-only programs: traffic generator, XDP unit test, metadata observer.
# netns-tests/run.sh runs them; `make test-binaries` builds them into $(BUILD).

TEST_BINARIES := $(BUILD)/rxlat-pktgen $(BUILD)/rxlat-xdp-unit \
                 $(BUILD)/rxlat-meta-probe $(BUILD)/meta_probe.bpf.o \
                 $(BUILD)/rxlat_xdp_packet.bpf.o $(BUILD)/xdp_count.bpf.o

.PHONY: test-binaries
test-binaries: $(TEST_BINARIES) $(BUILD)/rxlat_xdp.bpf.o

$(BUILD)/rxlat-pktgen: netns-tests/pktgen.c | $(BUILD)
	$(CC) $(CFLAGS) $< -o $@ -lpcap

$(BUILD)/rxlat-xdp-unit: netns-tests/xdp_unit.c $(BUILD)/rxlat_xdp.skel.h include/rxlat.h | $(BUILD)
	$(CC) $(CFLAGS) $< -o $@ -lbpf -lelf -lz

$(BUILD)/rxlat-meta-probe: netns-tests/meta_probe.c netns-tests/meta_probe.h \
		$(BUILD)/meta_probe.skel.h include/rxlat.h | $(BUILD)
	$(CC) $(CFLAGS) $< -o $@ -lbpf -lelf -lz

$(BUILD)/meta_probe.bpf.o: netns-tests/meta_probe.h

LLVM_OBJCOPY ?= llvm-objcopy
LLVM_OBJDUMP ?= llvm-objdump

# The stamper with rxlat_stamp_mode = RXLAT_STAMP_PACKET (1) written into its
# .rodata, for loaders that cannot set read-only data (xdp-loader). The value
# is written little-endian, as the BPF objects of x86 and arm64 hosts are.
$(BUILD)/rxlat_xdp_packet.bpf.o: $(BUILD)/rxlat_xdp.bpf.o
	@hex=$$($(LLVM_OBJDUMP) -t $< | awk '$$NF == "rxlat_stamp_mode" { print $$1 }'); \
	test -n "$$hex" || { echo "error: $< has no rxlat_stamp_mode symbol" >&2; exit 1; }; \
	$(LLVM_OBJCOPY) --dump-section .rodata=$@.rodata $< && \
	printf '\001\000\000\000' | dd of=$@.rodata bs=1 seek=$$((0x$$hex)) conv=notrunc status=none && \
	$(LLVM_OBJCOPY) --update-section .rodata=$@.rodata $< $@.tmp && \
	rm -f $@.rodata && mv $@.tmp $@

# `make test` builds test-binaries; let it build the other unit tests too.
test-binaries: $(UNIT_TESTS)

# SPDX-License-Identifier: GPL-2.0
# rxlat's libxdp dispatcher (xdp/xdp_dispatcher.bpf.c), built under the one
# file name libxdp looks for, alone in its directory: point
# LIBXDP_OBJECT_PATH at $(BUILD)/libxdp (or, installed, at $(LIBDIR)).
# Included from the top Makefile.

XDP_DISPATCHER := $(BUILD)/libxdp/xdp-dispatcher.o

all: $(XDP_DISPATCHER)

$(XDP_DISPATCHER): xdp/xdp_dispatcher.bpf.c
	@mkdir -p $(dir $@)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

# The tests load programs into this dispatcher with rxlat-xdp-attach, which
# uses the shared libxdp: Debian's xdp-loader carries its own dispatcher in a
# static libxdp and does not read LIBXDP_OBJECT_PATH.
test-binaries: $(BUILD)/rxlat-xdp-attach $(XDP_DISPATCHER)

$(BUILD)/rxlat-xdp-attach: netns-tests/xdp_attach.c | $(BUILD)
	$(CC) $(CFLAGS) $< -o $@ -lxdp -lbpf

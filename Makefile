# SPDX-License-Identifier: GPL-2.0
# rxlat: everything builds into build/. docs/install.md and docs/tests.md say
# what the targets do.

# ARCH: the kernel's name of the architecture built for (x86, arm64); not
# the host's, it is a cross build (scripts/cross.mk) into build/ARCH.
HOST_ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
ARCH     ?= $(HOST_ARCH)
# A BUILD from the environment (the tests export theirs) names the host's
# tree: the cross tree goes below it, never over it.
ifneq ($(ARCH),$(HOST_ARCH))
ifeq ($(origin BUILD),environment)
BUILD    := $(BUILD)/$(ARCH)
endif
BUILD    ?= build/$(ARCH)
endif
BUILD    ?= build
PREFIX   ?= /usr/local
DESTDIR  ?=
BINDIR   := $(PREFIX)/sbin
LIBDIR   := $(PREFIX)/lib/rxlat
MANDIR   := $(PREFIX)/share/man/man8
# rxlat-heatmap draws what rxlat wrote, needing no privilege: a user's command
USERBINDIR := $(PREFIX)/bin
MAN1DIR  := $(PREFIX)/share/man/man1
SHAREDIR := $(PREFIX)/share/rxlat
UNITDIR  ?= /etc/systemd/system

CC       ?= cc
CLANG    ?= clang
BPFTOOL  ?= bpftool
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux
VERSION  := $(shell cat VERSION)

CFLAGS   ?= -O2 -g
CFLAGS   += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror \
            -I$(BUILD) -Iinclude -DRXLAT_VERSION='"$(VERSION)"' \
            -DRXLAT_LIBDIR='"$(LIBDIR)"'
# programs that run during the build (the man page generator)
HOSTCC   ?= cc
HOST_CFLAGS = $(CFLAGS)
# where the BPF objects find <asm/types.h>
BPF_SYS_INCLUDE ?= /usr/include/$(shell uname -m)-linux-gnu
ifneq ($(ARCH),$(HOST_ARCH))
include scripts/cross.mk
endif
# BPF_EXTRA: more flags for the BPF objects (make bench part C's breakdown)
BPF_EXTRA ?=
BPF_CFLAGS := -g -O2 -Werror -Wall -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) \
              -I$(BUILD) -Iinclude -I$(BPF_SYS_INCLUDE) $(BPF_EXTRA)

all: $(BUILD)/rxlat $(BUILD)/rxlat-heatmap $(BUILD)/rxlat-heatmap.1 $(BUILD)/rxlat_xdp.bpf.o $(BUILD)/rxlat_tc.bpf.o $(BUILD)/rxlat.8 $(BUILD)/rxlat.service

$(BUILD):
	@mkdir -p $@

# vmlinux.h comes from the running kernel's BTF; CO-RE relocates at load.
$(BUILD)/vmlinux.h: | $(BUILD)
	@test -r $(VMLINUX_BTF) || { echo "error: $(VMLINUX_BTF) not found: rxlat needs a kernel built with CONFIG_DEBUG_INFO_BTF=y (or set VMLINUX_BTF=path)" >&2; exit 1; }
	$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@.tmp && mv $@.tmp $@

BPF_DEPS := $(BUILD)/vmlinux.h $(wildcard include/*.h)

# One rule for every BPF object, wherever its source lives; the collector's
# programs also include collector/attach/*/*.bpf.h.
vpath %.bpf.c xdp tc collector/attach/hooks collector/attach/groups netns-tests bench

$(BUILD)/%.bpf.o: %.bpf.c $(BPF_DEPS) $(wildcard collector/attach/*/*.bpf.h)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $(subst .bpf.o,,$(notdir $<)) > $@.tmp && mv $@.tmp $@

# Installed files that name the version or an install path: generated
# here, so that VERSION and PREFIX/BINDIR are the only places they are set.
# The unit depends on the Makefile, where PREFIX and BINDIR are defined.
# Its SYNOPSIS and OPTIONS come from the option table that the parser and
# --help are made from, through a generator built from the same header.
$(BUILD)/rxlat-man: collector/cli/man.c collector/base/series.c $(wildcard collector/*/*.h include/*.h) | $(BUILD)
	$(HOSTCC) $(HOST_CFLAGS) $(filter %.c,$^) -o $@ -lm

$(BUILD)/rxlat.8: collector/cli/rxlat.8 $(BUILD)/rxlat-man VERSION | $(BUILD)
	$(BUILD)/rxlat-man $< > $@.tmp && sed -i -e 's|@VERSION@|$(VERSION)|g' $@.tmp && mv $@.tmp $@

$(BUILD)/rxlat.service: configs/rxlat.service.in Makefile | $(BUILD)
	sed -e 's|@BINDIR@|$(BINDIR)|g' $< > $@.tmp && mv $@.tmp $@

include collector/collector.mk
include xdp/xdp.mk
include netns-tests/tests.mk
include unit-tests/unit.mk
include netns-tests/vm/vm.mk
include bench/bench.mk
include configs/deploy.mk

.PHONY: all deps test lint format install uninstall clean demo vmtest bench

deps:
	./scripts/deps.sh

# The test, bench and demo targets install nothing: the README's commands
# run netns-tests/deps.sh (make deps) first.
# the package, then the host suite with the same suite beside it in
# Debian's kernels under QEMU, x86-64 and arm64 (netns-tests/all.sh); the
# two trees are built with a job per core unless make was given -j
TEST_JOBS = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc))
test:
	$(MAKE) $(TEST_JOBS) all test-binaries vmcheck
	$(MAKE) $(TEST_JOBS) ARCH=arm64 BUILD=$(BUILD)/arm64 all test-binaries
	BUILD=$(BUILD) ./netns-tests/all.sh

# throughput, per-program cost and map memory figures; on demand, not a test
bench:
	$(MAKE) all test-binaries bench-binaries
	BUILD=$(BUILD) ./bench/bench.sh

demo:
	$(MAKE) all test-binaries
	./scripts/demo.sh

SHELL_SCRIPTS := $(wildcard netns-tests/*.sh netns-tests/vm/*.sh scripts/*.sh bench/*.sh) netns-tests/vm/init .ci/run

# cppcheck leaves out build/: the skeletons embed whole BPF objects and
# take it minutes to read. shellcheck runs from the top of the tree, where
# the "shellcheck source=" paths of the scripts start. check-layers.sh
# refuses an include from a folder above the includer's (collector.mk).
lint:
	./scripts/check-layers.sh
	clang-format --dry-run --Werror $(LINT_SOURCES)
	shellcheck -x $(SHELL_SCRIPTS)
	cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
		--inline-suppr --std=c11 -Iinclude $(addprefix -I,$(COLLECTOR_DIRS)) \
		--include=/usr/include/bpf/libbpf_common.h \
		--include=scripts/cppcheck-macros.h \
		$(USER_SOURCES) collector/cli/man.c collector/cli/rxlat_heatmap.c $(filter-out %.bpf.c,$(wildcard netns-tests/*.c unit-tests/*.c bench/*.c))

format:
	clang-format -i $(LINT_SOURCES)

install: all
	install -D -m 0755 $(BUILD)/rxlat $(DESTDIR)$(BINDIR)/rxlat
	install -D -m 0644 $(BUILD)/rxlat_xdp.bpf.o $(DESTDIR)$(LIBDIR)/rxlat_xdp.bpf.o
	install -D -m 0644 $(BUILD)/rxlat_tc.bpf.o $(DESTDIR)$(LIBDIR)/rxlat_tc.bpf.o
	install -D -m 0644 $(BUILD)/rxlat.8 $(DESTDIR)$(MANDIR)/rxlat.8
	install -D -m 0755 $(BUILD)/rxlat-heatmap $(DESTDIR)$(USERBINDIR)/rxlat-heatmap
	install -D -m 0644 $(BUILD)/rxlat-heatmap.1 $(DESTDIR)$(MAN1DIR)/rxlat-heatmap.1
	install -D -m 0644 $(BUILD)/rxlat.service $(DESTDIR)$(UNITDIR)/rxlat.service
	install -D -m 0644 $(BUILD)/libxdp/xdp-dispatcher.o $(DESTDIR)$(LIBDIR)/xdp-dispatcher.o
	install -d $(DESTDIR)$(SHAREDIR)
	install -m 0644 configs/prometheus.yml configs/rxlat.rules.yml configs/rxlat.rules.test.yml \
		configs/rxlat-dashboard.json $(DESTDIR)$(SHAREDIR)/
	test -e $(DESTDIR)/etc/default/rxlat || \
		install -D -m 0644 configs/rxlat.default $(DESTDIR)/etc/default/rxlat

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/rxlat $(DESTDIR)$(MANDIR)/rxlat.8 $(DESTDIR)$(UNITDIR)/rxlat.service
	rm -f $(DESTDIR)$(USERBINDIR)/rxlat-heatmap $(DESTDIR)$(MAN1DIR)/rxlat-heatmap.1
	rm -rf $(DESTDIR)$(LIBDIR) $(DESTDIR)$(SHAREDIR)

clean:
	rm -rf $(BUILD)

# SPDX-License-Identifier: GPL-2.0
# A cross build: make ARCH=arm64 builds rxlat, its BPF objects and the test
# programs for arm64 into build/arm64, against a root of Debian's arm64
# packages (scripts/sysroot.sh) in build/arm64/sysroot; the host's own
# packages are not touched. Needs gcc-aarch64-linux-gnu (make deps).
# Included from the top Makefile when ARCH is not the host's.

CROSS_TRIPLE_arm64 := aarch64-linux-gnu
CROSS_DEB_ARCH_arm64 := arm64
CROSS_TRIPLE := $(CROSS_TRIPLE_$(ARCH))
CROSS_DEB_ARCH := $(CROSS_DEB_ARCH_$(ARCH))
ifeq ($(CROSS_TRIPLE),)
$(error ARCH=$(ARCH): rxlat cross-builds for arm64 only (or ARCH=$(HOST_ARCH), this host's))
endif

ifeq ($(origin CC),default)
CC := $(CROSS_TRIPLE)-gcc
endif
# SYSROOT: a root made before may be named (make deb's build reuses the
# tree's)
SYSROOT ?= $(BUILD)/sysroot
SR      := $(SYSROOT)/root
# the -dev packages the build links against, and the kernel whose BTF
# vmlinux.h is made from (the newest Debian 12 kernel of that architecture)
CROSS_PACKAGES := libbpf-dev libelf-dev zlib1g-dev libjson-c-dev libargtable2-dev libmnl-dev \
                  libcap-dev libmicrohttpd-dev libpcap0.8-dev libxdp-dev \
                  libyaml-dev libgnutls28-dev libcrypt-dev \
                  linux-image-6.12-cloud-$(CROSS_DEB_ARCH)
CROSS_FLAGS := -I$(SR)/usr/include -I$(SR)/usr/include/$(CROSS_TRIPLE) \
               -L$(SR)/usr/lib/$(CROSS_TRIPLE) -L$(SR)/lib/$(CROSS_TRIPLE) \
               -Wl,-rpath-link,$(SR)/usr/lib/$(CROSS_TRIPLE):$(SR)/lib/$(CROSS_TRIPLE)
CFLAGS += $(CROSS_FLAGS)
HOST_CFLAGS = $(filter-out $(CROSS_FLAGS),$(CFLAGS))
BPF_SYS_INCLUDE := /usr/$(CROSS_TRIPLE)/include
VMLINUX_BTF := $(BUILD)/vmlinux.btf

$(SYSROOT)/.stamp: scripts/cross.mk scripts/sysroot.sh
	@command -v $(CC) >/dev/null || { echo "error: $(CC) not found: apt-get install gcc-$(CROSS_TRIPLE) (or make deps)" >&2; exit 1; }
	./scripts/sysroot.sh $(CROSS_DEB_ARCH) $(SYSROOT) $(CROSS_PACKAGES)
	touch $@

# everything in $(BUILD) is made after the root is there
$(BUILD): | $(SYSROOT)/.stamp

$(VMLINUX_BTF): $(SYSROOT)/.stamp scripts/image-btf.sh
	./scripts/image-btf.sh $$(ls -1 $(SR)/boot/vmlinuz-* | sort -V | tail -n 1) $@

$(BUILD)/vmlinux.h: $(VMLINUX_BTF)

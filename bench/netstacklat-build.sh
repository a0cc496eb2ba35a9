#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Builds netstacklat, the closest existing tool, from a bpf-examples
# checkout (https://github.com/xdp-project/bpf-examples) against Debian's
# libbpf, for make bench part C (BENCH_NETSTACKLAT=OUT/netstacklat). Not
# vendored: the user's checkout, the user's build. bpf-examples' own make
# wants its libbpf and libxdp submodules; netstacklat needs neither: its
# BPF object with the checkout's headers, a bpftool skeleton, and one C
# file linked with -lbpf -lm.
#
#   bench/netstacklat-build.sh BPF_EXAMPLES_DIR [OUT_DIR]   (default: build/netstacklat)
set -eu

die() { echo "netstacklat-build: $*" >&2; exit 1; }

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	die "usage: $0 BPF_EXAMPLES_DIR [OUT_DIR]"
fi
src=$1/netstacklat
out=${2:-$(dirname "$0")/../build/netstacklat}
if [ ! -f "$src/netstacklat.bpf.c" ] || [ ! -f "$1/headers/vmlinux_local.h" ]; then
	die "$1 is not a bpf-examples checkout (no netstacklat/netstacklat.bpf.c, headers/vmlinux_local.h)"
fi
for t in clang bpftool cc; do
	command -v "$t" >/dev/null || die "$t not found: run ./netns-tests/deps.sh"
done
arch=$(uname -m)
case $arch in
x86_64) barch=x86 ;;
aarch64) barch=arm64 ;;
*) die "no BPF target arch known for $arch" ;;
esac
mkdir -p "$out"
out=$(cd "$out" && pwd)
clang -O2 -g -target bpf -D__TARGET_ARCH_$barch -I"$1/headers" -I"$src" \
	-I"/usr/include/$arch-linux-gnu" -c "$src/netstacklat.bpf.c" -o "$out/netstacklat.bpf.o"
bpftool gen skeleton "$out/netstacklat.bpf.o" >"$out/netstacklat.bpf.skel.h"
cc -O2 -I"$out" -I"$src" -o "$out/netstacklat" "$src/netstacklat.c" -lbpf -lm
echo "$out/netstacklat ($(git -C "$1" rev-parse --short HEAD 2>/dev/null || echo "not a git checkout"))"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The arm64 tree (make ARCH=arm64, in BUILD/arm64) is arm64 and the host's
# tree is still the host's: every program of the arm64 tree is an AArch64
# ELF, every BPF object a BPF ELF, the host's rxlat is still an x86-64 ELF
# and nothing of the host tree is out of date after the arm64 build (it
# wrote nothing there). make test runs it on the host before the arm64
# kernels; it ends with "[arm64-build] N passed, M failed, K skipped".

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here/.." || exit 1
# shellcheck source=netns-tests/lib.sh
. netns-tests/lib.sh # BUILD (absolute), pass, fail
A=$BUILD/arm64
T_RESULTS=$(mktemp /tmp/rxlat-cross.XXXXXX)
trap 'rm -f "$T_RESULTS"' EXIT

elf_class() { readelf -h "$1" 2>/dev/null | awk -F': *' '$1 ~ /Data/ { print $2 }'; }

arm64_programs=(rxlat rxlat-pktgen rxlat-xdp-unit rxlat-meta-probe rxlat-clockstep rxlat-tcpstream
	rxlat-xdp-attach)
for p in "${arm64_programs[@]}"; do
	if [[ ! -e $A/$p ]]; then
		fail "arm64_program.$p" "$A/$p does not exist: make ARCH=arm64 all test-binaries"
		continue
	fi
	assert_eq "arm64_program.$p" AArch64 "$(elf_machine "$A/$p")" "readelf -h $A/$p"
done
objs=("$A"/*.bpf.o "$A/libxdp/xdp-dispatcher.o")
assert_ge arm64_bpf_objects 10 "${#objs[@]}" "BPF objects in $A" || true
for o in "${objs[@]}"; do
	[[ -e $o ]] || continue
	assert_eq "arm64_bpf.${o##*/}" "Linux BPF/2's complement, little endian" \
		"$(elf_machine "$o")/$(elf_class "$o")" "readelf -h $o"
done
# the kernel's BTF the arm64 objects were made against: arm64's
assert_match arm64_vmlinux_h 'struct user_pt_regs \{' "$(grep -m1 'struct user_pt_regs {' "$A/vmlinux.h")" \
	"$A/vmlinux.h (from the arm64 kernel's BTF)"
assert_eq host_program_machine "$(elf_machine "$(readlink -f /bin/bash)")" "$(elf_machine "$BUILD/rxlat")" \
	"readelf -h $BUILD/rxlat, against this host's bash"
if make -q BUILD="$BUILD" all test-binaries >/dev/null 2>&1; then
	pass host_tree_up_to_date
else
	fail host_tree_up_to_date "make -q all test-binaries: the host tree in $BUILD is out of date after the arm64 build"
fi
P=$(grep -c P "$T_RESULTS") F=$(grep -c F "$T_RESULTS") S=$(grep -c S "$T_RESULTS")
echo "[arm64-build] $P passed, $F failed, $S skipped"
((F == 0 && P > 0))

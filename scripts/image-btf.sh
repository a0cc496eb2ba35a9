#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel's BTF out of an uncompressed kernel Image (arm64's vmlinuz
# is one): the .BTF section is found by its header (magic 0xeb9f, version
# 1, header length 24) and written out as raw BTF, which bpftool reads as
# it reads /sys/kernel/btf/vmlinux; a booted kernel gives the same bytes.
#
#   scripts/image-btf.sh IMAGE OUT

set -euo pipefail
[ $# = 2 ] || { echo "usage: scripts/image-btf.sh IMAGE OUT" >&2; exit 2; }
img=$1 out=$2
[ -r "$img" ] || { echo "image-btf: $img: cannot read it" >&2; exit 1; }
u32() { od -An -t u4 -j "$1" -N 4 "$img" | tr -d ' '; }
found=
while IFS=: read -r off _; do
	# header: magic, version, flags, hdr_len, type_off, type_len, str_off, str_len
	type_off=$(u32 $((off + 8))) type_len=$(u32 $((off + 12)))
	str_off=$(u32 $((off + 16))) str_len=$(u32 $((off + 20)))
	# the strings come after the types in a kernel's BTF
	((str_off >= type_off + type_len && type_len > 0 && str_len > 0)) || continue
	len=$((24 + str_off + str_len))
	dd if="$img" of="$out.tmp" bs=4096 iflag=skip_bytes,count_bytes skip="$off" count="$len" status=none
	found=1
	break
done < <(LC_ALL=C grep -obUaP '\x9f\xeb\x01\x00\x18\x00\x00\x00' "$img")
[ -n "$found" ] || { echo "image-btf: no BTF in $img: is it an uncompressed Image of a kernel built with CONFIG_DEBUG_INFO_BTF?" >&2; exit 1; }
mv "$out.tmp" "$out"

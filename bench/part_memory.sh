#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Part 6 of the benchmark (bench/bench.sh, whose header describes every
# part): map memory by size limits. bench.sh sources this file after
# bench/lib.sh and calls part_memory after setup.

# ------------------------------------------------------ part 6: memory

MEM_ROWS="$T_DIR/mem.tsv"

part_memory()
{
	local sz a b line kib ml rss summary="" why
	: >"$MEM_ROWS"
	for sz in $MEM_SIZES; do
		a=${sz%x*}
		b=${sz#*x}
		note "memory: --max-ifaces $a --max-queues $b"
		if ! rxlat_start "$T_DIR/rx-mem.json" -i "$IF_R" --max-ifaces "$a" --max-queues "$b" -d 60 -o json; then
			why=$(grep -m1 -i 'rxlat' "$T_DIR/rxlat.err" | cut -c1-140)
			printf '%s\t%s\trefused\t-\t-\t%s\n' "$a" "$b" "$why" >>"$MEM_ROWS"
			summary+="$sz refused; "
			continue
		fi
		line=$(grep -m1 'map memory:' "$T_DIR/rxlat.err")
		kib=$(sed -n 's/.*map memory: \([0-9.]*\) KiB.*/\1/p' <<<"$line")
		ml=$(rxlat_memlock)
		rss=$(proc_status_kb "$RX_PID" VmRSS)
		rxlat_stop
		printf '%s\t%s\t%s\t%s\t%s\t\n' "$a" "$b" "${kib:--}" "$ml" "$rss" >>"$MEM_ROWS"
		summary+="$sz $(calc 'sprintf("%.1f", m / 1048576)' -v m="$ml") MiB; "
	done
	echo
	echo "6. Map memory by size limits, no series in use: what rxlat prints ('map memory'), the kernel's"
	echo "   memlock of the maps it holds (bpftool), and its RSS once started"
	echo
	awk -F'\t' '
	BEGIN { printf "   %7s %7s %14s %16s %10s\n", "ifaces", "queues", "rxlat (KiB)", "memlock (MiB)", "RSS (MiB)" }
	$3 == "refused" { printf "   %7d %7d refused: %s\n", $1, $2, $6; next }
	{ printf "   %7d %7d %14s %16.1f %10.1f\n", $1, $2, $3, $4 / 1048576, $5 / 1024 }' "$MEM_ROWS"
	row "Map memory (kernel memlock) at no series in use" "${summary%; }" "(printed)" "-"
}

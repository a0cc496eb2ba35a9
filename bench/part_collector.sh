#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Part 7 of the benchmark (bench/bench.sh, whose header describes every
# part): the collector at -r 1 with 5,000 live series. bench.sh sources this
# file after bench/lib.sh, where its namespace of 16 interfaces
# (many_setup, shared with part 8) is, and calls part_collector.

# ---------------------------------------------------- part 7: collector

part_collector()
{
	local args=() ml0 rss0 ml1 t0 n0 n1 cpu hwm live full i fill_pid v mib NS_R=$NS_R
	many_setup
	mapfile -t args < <(many_args)
	note "collector: rxlat -r 1, $PROM_IFACES x $PROM_QUEUES x 5 series kept live, ${COLL_SECS}s"
	rxlat_start_or_die "$T_DIR/rx-coll.json" "${args[@]}" --per-queue --max-ifaces "$PROM_IFACES" \
		--max-queues "$PROM_QUEUES" -r 1 -o json
	sleep 1
	ml0=$(rxlat_memlock)
	rss0=$(proc_status_kb "$RX_PID" VmRSS)
	t_bg fill "$FILLER" "$RX_PID" "$PROM_IFACES" "$PROM_QUEUES" "$PROM_IFACES" "$PROM_QUEUES" 500
	fill_pid=$BG_PID
	for ((i = 0; i < 100; i++)); do
		grep -q '^filled' "$T_DIR/fill.out" && break
		kill -0 "$fill_pid" 2>/dev/null || break
		sleep 0.1
	done
	if ! grep -q '^filled' "$T_DIR/fill.out"; then
		rxlat_stop
		row "Collector CPU at -r 1, 5,000 live series" "$(tail -n 1 "$T_DIR/fill.err" | cut -c1-100)" "<= 1% of a core" "not measured"
		return 0
	fi
	sleep 2
	n0=$(wc -l <"$T_DIR/rx-coll.json")
	t0=$(date +%s%N)
	i=$(proc_ticks "$RX_PID")
	sleep "$COLL_SECS"
	cpu=$(calc 'sprintf("%.2f", 100 * d / hz / (ns / 1e9))' -v d="$(($(proc_ticks "$RX_PID") - i))" \
		-v hz="$(getconf CLK_TCK)" -v ns="$(($(date +%s%N) - t0))")
	n1=$(wc -l <"$T_DIR/rx-coll.json")
	hwm=$(proc_status_kb "$RX_PID" VmHWM)
	ml1=$(rxlat_memlock)
	_t_kill_pid "$fill_pid"
	rxlat_stop
	# live series: the median series count of the window's reports, and
	# how many reports had 5,000 or more
	read -r live full < <(sed -n "$((n0 + 1)),${n1}p" "$T_DIR/rx-coll.json" |
		gojq -rs '[.[] | .series | length] | sort | "\(.[length / 2 | floor] // 0) \([.[] | select(. >= 5000)] | length)"')
	echo
	echo "7. Collector: rxlat -i rxp0..rxp15 --per-queue --max-ifaces $PROM_IFACES --max-queues $PROM_QUEUES -r 1 -o json,"
	echo "   series kept changing twice a second by rxlat-bench-fill; ${COLL_SECS}s window, $((n1 - n0)) reports,"
	echo "   median $live series each, $full of them with 5,000 or more"
	echo "     CPU: $cpu% of one core; RSS at start $(calc 'sprintf("%.1f", r / 1024)' -v r="$rss0") MiB, high-water $(calc 'sprintf("%.1f", r / 1024)' -v r="$hwm") MiB"
	echo "     maps' memlock: $(calc 'sprintf("%.1f", m / 1048576)' -v m="$ml0") MiB with no series in use, $(calc 'sprintf("%.1f", m / 1048576)' -v m="$ml1") MiB with $live"
	row "Collector CPU at -r 1, $live live series, ${COLL_SECS}s" "$cpu% of one core" "<= 1%" "$(verdict "$cpu" '<=' 1)"
	mib=$(calc 'sprintf("%.1f", r / 1024)' -v r="$hwm")
	row "Collector high-water RSS (VmHWM), same run" "$mib MiB" "<= 32 MiB" "$(verdict "$mib" '<=' 32)"
	v=$(verdict "$ml0" '<=' "$((ml1 / 2))")
	row "Map memory follows use: memlock, no series vs $live in use" \
		"$(calc 'sprintf("%.1f", m / 1048576)' -v m="$ml0") vs $(calc 'sprintf("%.1f", m / 1048576)' -v m="$ml1") MiB" \
		"few <= half of many" "$v"
}

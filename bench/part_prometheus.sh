#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Part 8 of the benchmark (bench/bench.sh, whose header describes every
# part): the Prometheus endpoint. bench.sh sources this file after
# bench/lib.sh, where its namespace of 16 interfaces (many_setup, shared
# with part 7) is, and calls part_prometheus (BENCH_PROM).

# ------------------------------------------------- part 8: Prometheus

PROM_SECS=${BENCH_PROM_SECONDS:-60}

# One run at K buckets per power of two: prints a row of the table; every
# (stage, interface, queue) series gets a few samples from rxlat-bench-fill.
prom_run()	# K
{
	local k=$1 args=() i t0 t1 rss0 hwm idle busy n=0 size=0 dur=0 series out code secs
	mapfile -t args < <(many_args)
	rxlat_start_or_die /dev/null "${args[@]}" --per-queue --max-ifaces "$PROM_IFACES" \
		--max-queues "$PROM_QUEUES" -o none --prometheus 9474 --prometheus-buckets "$k"
	"$FILLER" "$RX_PID" "$PROM_IFACES" "$PROM_QUEUES" "$PROM_IFACES" "$PROM_QUEUES" 0 \
		>"$T_DIR/fill.out" || die "rxlat-bench-fill (filling the series) failed"
	rss0=$(proc_status_kb "$RX_PID" VmRSS)
	# idle: the report timer only, no scrape
	t0=$(proc_ticks "$RX_PID")
	sleep 10
	idle=$(awk -v d="$(($(proc_ticks "$RX_PID") - t0))" -v hz="$(getconf CLK_TCK)" \
		'BEGIN { printf "%.1f", 100 * d / hz / 10 }')
	t0=$(proc_ticks "$RX_PID")
	t1=$(date +%s%N)
	for ((i = 0; i < PROM_SECS; i++)); do
		out=$(in_ns "$NS_R" curl -s -o "$T_DIR/scrape.prom" -w '%{http_code} %{size_download} %{time_total}' \
			--max-time 10 http://127.0.0.1:9474/metrics) || die "scrape $i failed"
		read -r code size secs <<<"$out"
		[ "$code" = 200 ] || die "scrape $i: HTTP $code"
		dur=$(awk -v a="$dur" -v b="$secs" 'BEGIN { print a + b }')
		n=$((n + 1))
		sleep "$(awk -v t="$i" -v s="$t1" -v now="$(date +%s%N)" \
			'BEGIN { d = s / 1e9 + t + 1 - now / 1e9; printf "%.3f", (d > 0 ? d : 0) }')"
	done
	busy=$(awk -v d="$(($(proc_ticks "$RX_PID") - t0))" -v hz="$(getconf CLK_TCK)" \
		-v ns="$(($(date +%s%N) - t1))" 'BEGIN { printf "%.1f", 100 * d / hz / (ns / 1e9) }')
	hwm=$(proc_status_kb "$RX_PID" VmHWM)
	series=$(grep -vc '^#' "$T_DIR/scrape.prom")
	printf '%4d %9d %11.1f %11.1f %9.1f %9.1f %10.1f %10.0f\n' "$k" "$series" \
		"$(awk -v b="$size" 'BEGIN { print b / 1048576 }')" \
		"$(awk -v d="$dur" -v n="$n" 'BEGIN { print 1000 * d / n }')" "$idle" "$busy" \
		"$(awk -v r="$rss0" 'BEGIN { print r / 1024 }')" "$(awk -v r="$hwm" 'BEGIN { print r / 1024 }')"
	rxlat_stop
}

part_prometheus()
{
	local k NS_R=$NS_R
	command -v curl >/dev/null || die "'curl' not found (make deps installs it)"
	many_setup
	echo
	echo "8. Prometheus endpoint: $PROM_IFACES interfaces x $PROM_QUEUES queues x 5 stages, every series"
	echo "   with samples, scraped once a second for $PROM_SECS s (CPU: share of one CPU; idle: 10 s, no scrape)"
	echo
	printf '%4s %9s %11s %11s %9s %9s %10s %10s\n' "k" "samples" "scrape" "scrape" "CPU idle" \
		"CPU 1/s" "RSS" "RSS peak"
	printf '%4s %9s %11s %11s %9s %9s %10s %10s\n' "" "(lines)" "(MiB)" "(ms)" "(%)" "(%)" "(MiB)" "(MiB)"
	for k in 2 8; do
		prom_run "$k"
	done
	echo
	echo "   k: exported buckets per power of two (--prometheus-buckets); samples: lines of one scrape"
}

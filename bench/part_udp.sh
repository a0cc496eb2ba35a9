#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Part 2 of the benchmark (bench/bench.sh, whose header describes every
# part): small UDP, rxlat against XDP_PASS. bench.sh sources this file after
# bench/lib.sh and calls part_udp after setup.

# shellcheck disable=SC2153 # UDP_DROPS is set by bench/lib.sh's udp_load

# ------------------------------------------------------ part 2: small UDP

declare -A UDP_RATES UDP_DROPSUM UDP_SOCK
UDP_QUEUES=""

udp_one()
{
	local conf=$1 r=$2 q0 q1
	case $conf in
	pass) xdp_attach "$PASS_OBJ" ;;
	rxlat) rxlat_start_or_die "$T_DIR/rx-udp.json" -i "$IF_R" -d $((SECS + 60)) -o json ;;
	esac
	q0=$(queue_counts)
	udp_load "$SECS" "udp-$conf-$r"
	q1=$(queue_counts)
	case $conf in
	pass) xdp_detach ;;
	rxlat) rxlat_stop ;;
	esac
	UDP_RATES[$conf]="${UDP_RATES[$conf]:-}$(printf '%.0f' "$UDP_KPPS") "
	UDP_DROPSUM[$conf]=$((${UDP_DROPSUM[$conf]:-0} + UDP_DROPS))
	UDP_SOCK[$conf]="${UDP_SOCK[$conf]:-}$(printf '%.0f' "$UDP_SOCK_KPPS") "
	UDP_QUEUES=$(awk -v a="$q0" -v b="$q1" 'BEGIN { n = split(a, x, " "); split(b, y, " ")
		for (i = 1; i <= n; i++) t += y[i] - x[i]
		for (i = 1; i <= n; i++) printf "q%d %.0f%% ", i - 1, (t > 0 ? 100 * (y[i] - x[i]) / t : 0) }')
}

part_udp()
{
	local r c v pass rx spass srx
	for ((r = 1; r <= UDP_ROUNDS; r++)); do
		for c in pass rxlat; do
			note "UDP round $r/$UDP_ROUNDS: $c"
			udp_one "$c" "$r"
		done
	done
	pass=$(best_of "${UDP_RATES[pass]}")
	rx=$(best_of "${UDP_RATES[rxlat]}")
	spass=$(best_of "${UDP_SOCK[pass]}")
	srx=$(best_of "${UDP_SOCK[rxlat]}")
	echo
	echo "2. Small UDP: $UDP_FLOWS iperf3 clients (-u -b 0 -l $UDP_LEN, one port each), ${SECS}s x $UDP_ROUNDS rounds alternated;"
	echo "   read: receiver's Udp InDatagrams per second (datagrams the applications read); to sockets:"
	echo "   InDatagrams + RcvbufErrors (what the stack delivered, the full receive buffers' drops included);"
	echo "   kpkt/s: the best run of each configuration"
	echo
	printf '   %-30s %8s %8s  %-20s %9s %8s  %s\n' configuration "read/s" "vs PASS" "runs (kpkt/s)" \
		"to socks" "vs PASS" "runs"
	printf '   %-30s %8.0f %7sx  %-20s %9.0f %7sx  %s\n' "XDP_PASS only" "$pass" 1.00 "${UDP_RATES[pass]}" \
		"$spass" 1.00 "${UDP_SOCK[pass]}"
	printf '   %-30s %8.0f %7sx  %-20s %9.0f %7sx  %s\n' "rxlat default, all stages" "$rx" \
		"$(ratio "$rx" "$pass")" "${UDP_RATES[rxlat]}" "$srx" "$(ratio "$srx" "$spass")" "${UDP_SOCK[rxlat]}"
	echo "   receive queues of the last run (veth XDP counters): $UDP_QUEUES"
	v=$(ratio "$rx" "$pass")
	row "Small UDP ($UDP_LEN B, $UDP_FLOWS flows, 4 queues): rxlat all stages vs XDP_PASS (best runs)" \
		"${v}x ($(printf '%.0f' "$rx") vs $(printf '%.0f' "$pass") kpkt/s read; to sockets $(ratio "$srx" "$spass")x; means $(ratio "$(mean_of "${UDP_RATES[rxlat]}")" "$(mean_of "${UDP_RATES[pass]}")")x)" \
		">= 0.90x" "$(verdict "$v" '>=' 0.90)$(noisy "${UDP_RATES[rxlat]}" "${UDP_RATES[pass]}")"
}

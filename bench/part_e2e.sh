#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Part 4 of the benchmark (bench/bench.sh, whose header describes every
# part): the UDP rate end to end, rxlat against bpftrace. bench.sh sources
# this file after bench/lib.sh and calls part_e2e after setup.

# ------------------------------------------- part 4: bpftrace end to end

declare -A E2E_RATES
E2E_CONFS="pass stamper rxlat bpftrace"

e2e_one()	# CONF ROUND
{
	case $1 in
	pass) xdp_attach "$PASS_OBJ" ;;
	stamper) xl_load ;;
	rxlat) rxlat_start_or_die "$T_DIR/rx-e2e.json" -i "$IF_R" --stages ip_rcv -d $((SECS + 60)) -o json ;;
	bpftrace)
		xl_load
		bt_start hist bt-e2e
		;;
	esac
	udp_load "$SECS" "e2e-$1-$2"
	case $1 in
	pass) xdp_detach ;;
	stamper) xl_unload ;;
	rxlat) rxlat_stop ;;
	bpftrace)
		bt_stop
		xl_unload
		;;
	esac
	E2E_RATES[$1]="${E2E_RATES[$1]:-}$(printf '%.0f' "$UDP_SOCK_KPPS") "
}

part_e2e()
{
	local r c p s x b dx db v
	for ((r = 1; r <= E2E_ROUNDS; r++)); do
		for c in $E2E_CONFS; do
			note "end to end round $r/$E2E_ROUNDS: $c"
			e2e_one "$c" "$r"
		done
	done
	p=$(best_of "${E2E_RATES[pass]}")
	s=$(best_of "${E2E_RATES[stamper]}")
	x=$(best_of "${E2E_RATES[rxlat]}")
	b=$(best_of "${E2E_RATES[bpftrace]}")
	echo
	echo "4. End to end, UDP load of part 2, ${SECS}s x $E2E_ROUNDS rounds alternated; the rate is the datagrams"
	echo "   that reached the sockets (InDatagrams + RcvbufErrors: the stack's rate, not the readers');"
	echo "   kpkt/s: the best run of each; added ns per packet vs XDP_PASS: 1e6 / kpkt/s - 1e6 / kpkt/s of XDP_PASS"
	echo
	printf '   %-50s %8s %10s  %s\n' configuration kpkt/s "ns/pkt +" runs
	printf '   %-50s %8.0f %10s  %s\n' "XDP_PASS only" "$p" 0 "${E2E_RATES[pass]}"
	printf '   %-50s %8.0f %10.0f  %s\n' "stamper alone (xdp-loader, no reset)" "$s" \
		"$(calc '1e6 / s - 1e6 / p' -v s="$s" -v p="$p")" "${E2E_RATES[stamper]}"
	printf '   %-50s %8.0f %10.0f  %s\n' "rxlat --stages ip_rcv (stamper, reset, hook)" "$x" \
		"$(calc '1e6 / x - 1e6 / p' -v x="$x" -v p="$p")" "${E2E_RATES[rxlat]}"
	printf '   %-50s %8.0f %10.0f  %s\n' "stamper (xdp-loader) + bpftrace histogram" "$b" \
		"$(calc '1e6 / b - 1e6 / p' -v b="$b" -v p="$p")" "${E2E_RATES[bpftrace]}"
	dx=$(calc 'sprintf("%.0f", 1e6 / x - 1e6 / s)' -v x="$x" -v s="$s")
	db=$(calc 'sprintf("%.0f", 1e6 / b - 1e6 / s)' -v b="$b" -v s="$s")
	v=$(ratio "$dx" "$db")
	if [ "$db" -le 0 ] || [ "$dx" -le 0 ]; then
		row "End to end, max UDP rate: rxlat ip_rcv vs bpftrace, ns/pkt over the stamper alone" \
			"rxlat +$dx, bpftrace +$db ns/pkt (stamper alone +$(calc 'sprintf("%.0f", 1e6 / s - 1e6 / p)' -v s="$s" -v p="$p"))" \
			"<= 0.33" "not measured (within noise)"
	else
		row "End to end, max UDP rate: rxlat ip_rcv vs bpftrace, ns/pkt over the stamper alone" \
			"$v (rxlat +$dx ns, bpftrace +$db ns; stamper alone +$(calc 'sprintf("%.0f", 1e6 / s - 1e6 / p)' -v s="$s" -v p="$p") vs XDP_PASS)" \
			"<= 0.33" "$(verdict "$v" '<=' 0.33)$(noisy "${E2E_RATES[pass]}" "${E2E_RATES[stamper]}" \
				"${E2E_RATES[rxlat]}" "${E2E_RATES[bpftrace]}")"
	fi
}

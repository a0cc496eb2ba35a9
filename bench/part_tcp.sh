#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Part 1 of the benchmark (bench/bench.sh, whose header describes every
# part): TCP throughput and reordering. bench.sh sources this file after
# bench/lib.sh and calls part_tcp after setup.

# ------------------------------------------------ part 1: TCP, reordering

declare -A TCP_DESC TCP_G TCP_SKBS TCP_SEGS TCP_RETR TCP_DSACK TCP_OFO TCP_DROP TCP_XRETR TCP_XOFO
TCP_CONFS="none pass batch packet"
TCP_DESC[none]="no XDP"
TCP_DESC[pass]="XDP_PASS only"
TCP_DESC[batch]="rxlat default (batch stamps, all stages)"
TCP_DESC[packet]="rxlat --stamp packet, all stages"
PACKET_WARNING=""

# frames the sending veth dropped because the receiver's ring was full
# (veth counts them as its transmit drops): losses, not reordering
veth_tx_dropped()
{
	ip -n "$NS_S" -s -j link show dev "$IF_S" | gojq '.[0].stats64.tx.dropped'
}

tcp_one()
{
	local conf=$1 out="$T_DIR/tcp-$1-$2.json" s0=() s1=() o0 o1 skb0 seg0 skb1 seg1 g x0 x1
	local dur=$((SECS + 60))
	case $conf in
	pass) xdp_attach "$PASS_OBJ" ;;
	batch) rxlat_start_or_die "$T_DIR/rx-tcp.json" -i "$IF_R" -d "$dur" -o json ;;
	packet)
		rxlat_start_or_die "$T_DIR/rx-tcp.json" -i "$IF_R" --stamp packet -d "$dur" -o json
		# a start-up warning about TCP for this mode, if rxlat gives one
		PACKET_WARNING=$(grep -iE 'reorder|retransmi' "$T_DIR/rxlat.err" | head -n 1)
		;;
	esac
	read -r -a s0 < <(nstat_get "$NS_S" TcpRetransSegs TcpExtTCPDSACKRecv)
	read -r o0 < <(nstat_get "$NS_R" TcpExtTCPOFOQueue)
	read -r skb0 seg0 < <(ip_counters)
	x0=$(veth_tx_dropped)
	iperf_run "$out" "$SECS"
	x1=$(veth_tx_dropped)
	read -r skb1 seg1 < <(ip_counters)
	read -r -a s1 < <(nstat_get "$NS_S" TcpRetransSegs TcpExtTCPDSACKRecv)
	read -r o1 < <(nstat_get "$NS_R" TcpExtTCPOFOQueue)
	case $conf in
	pass) xdp_detach ;;
	batch | packet) rxlat_stop ;;
	esac
	g=$(tcp_gbps "$out")
	TCP_G[$conf]="${TCP_G[$conf]:-}$(printf '%.2f' "$g") "
	TCP_SKBS[$conf]=$((${TCP_SKBS[$conf]:-0} + skb1 - skb0))
	TCP_SEGS[$conf]=$((${TCP_SEGS[$conf]:-0} + seg1 - seg0))
	TCP_RETR[$conf]="${TCP_RETR[$conf]:-}$((s1[0] - s0[0])) "
	TCP_DSACK[$conf]="${TCP_DSACK[$conf]:-}$((s1[1] - s0[1])) "
	TCP_OFO[$conf]="${TCP_OFO[$conf]:-}$((o1 - o0)) "
	TCP_DROP[$conf]="${TCP_DROP[$conf]:-}$((x1 - x0)) "
}

part_tcp()
{
	local r c base mean v reorder
	for ((r = 1; r <= ROUNDS; r++)); do
		for c in $TCP_CONFS; do
			note "TCP round $r/$ROUNDS: ${TCP_DESC[$c]}"
			tcp_one "$c" "$r"
		done
	done
	base=$(best_of "${TCP_G[pass]}")
	echo
	echo "1. TCP, one iperf3 stream, ${SECS}s x $ROUNDS rounds alternated, sender TSO/GSO off, receiver GRO $GRO"
	echo "   per run: sender TcpRetransSegs and TcpExtTCPDSACKRecv, receiver TcpExtTCPOFOQueue (nstat),"
	echo "   ring drops: frames the sending veth dropped on the receiver's full ring (lost, not reordered);"
	echo "   Gbit/s: the best run of each configuration (other users of the machine only slow runs down)"
	echo
	printf '   %-42s %7s %7s %7s %9s  %-22s %-16s %-16s %-16s %-16s\n' configuration Gbit/s "vs PASS" mean \
		segs/skb runs retransmits DSACKs "out-of-order" "ring drops"
	for c in $TCP_CONFS; do
		mean=$(best_of "${TCP_G[$c]}")
		printf '   %-42s %7s %6sx %7s %9s  %-22s %-16s %-16s %-16s %-16s\n' "${TCP_DESC[$c]}" "$mean" \
			"$(ratio "$mean" "$base")" "$(mean_of "${TCP_G[$c]}")" \
			"$(ratio "${TCP_SEGS[$c]}" "${TCP_SKBS[$c]}")" "${TCP_G[$c]}" \
			"${TCP_RETR[$c]}" "${TCP_DSACK[$c]}" "${TCP_OFO[$c]}" "${TCP_DROP[$c]}"
	done
	echo "   segs/skb: TCP segments per skb at IP in the receiver (GRO merging; 1.00 = none)"

	v=$(ratio "$(best_of "${TCP_G[batch]}")" "$base")
	row "TCP with GRO: rxlat default vs XDP_PASS throughput (best runs)" \
		"${v}x ($(best_of "${TCP_G[batch]}") vs $base Gbit/s; means $(ratio "$(mean_of "${TCP_G[batch]}")" "$(mean_of "${TCP_G[pass]}")")x)" \
		">= 0.97x" "$(verdict "$v" '>=' 0.97)$(noisy "${TCP_G[batch]}" "${TCP_G[pass]}")"
	# judged against XDP_PASS alone, as the issue asks; the range without
	# XDP is printed beside it. A frame the sending veth dropped on a full
	# ring is lost, not reordered: it is retransmitted (no DSACK) and the
	# segments behind it wait in the out-of-order queue. Reordering is what
	# remains: retransmits beyond the ring drops, DSACKs (spurious
	# retransmits), and out-of-order segments in runs that dropped nothing.
	for c in none pass batch packet; do
		TCP_XRETR[$c]=$(excess_of "${TCP_RETR[$c]}" "${TCP_DROP[$c]}")
		TCP_XOFO[$c]=$(where_zero "${TCP_DROP[$c]}" "${TCP_OFO[$c]}")
	done
	for c in batch packet; do
		reorder="retr beyond drops $(range_of "${TCP_XRETR[$c]}"), DSACK $(range_of "${TCP_DSACK[$c]}"), OFO without drops $(range_of "${TCP_XOFO[$c]}") (PASS $(range_of "${TCP_XRETR[pass]}"), $(range_of "${TCP_DSACK[pass]}"), $(range_of "${TCP_XOFO[pass]}"); no XDP $(range_of "${TCP_XRETR[none]}"), $(range_of "${TCP_DSACK[none]}"), $(range_of "${TCP_XOFO[none]}")); ring drops $(range_of "${TCP_DROP[$c]}") (PASS $(range_of "${TCP_DROP[pass]}"))"
		v=met
		[ "$(max_of "${TCP_XRETR[$c]}")" -le "$(max_of "${TCP_XRETR[pass]}")" ] || v="not met"
		[ "$(max_of "${TCP_DSACK[$c]}")" -le "$(max_of "${TCP_DSACK[pass]}")" ] || v="not met"
		[ "$(max_of "${TCP_XOFO[$c]}")" -le "$(max_of "${TCP_XOFO[pass]}")" ] || v="not met"
		[ -n "${TCP_XOFO[$c]}" ] || v="not measured (every run dropped)"
		if [ "$c" = batch ]; then
			row "TCP reordering per ${SECS}s run, rxlat default" "$reorder" "within XDP_PASS range" "$v"
		else
			if [ "$v" != met ]; then
				if [ -n "$PACKET_WARNING" ]; then v="not met, warned"; else v="not met, no warning"; fi
			fi
			row "TCP reordering per ${SECS}s run, --stamp packet" "$reorder" \
				"within range, or warned at start" "$v"
		fi
	done
}

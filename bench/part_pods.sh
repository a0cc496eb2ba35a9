#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Part P of the benchmark (bench/bench.sh, whose header describes every
# part): a pod behind a container host, the host's NIC stamped in XDP or,
# as on a NIC whose driver gives XDP no metadata room, at tc. Three
# namespaces: outside -> host (its veth h0 stands in for the NIC, 4 queues)
# -> pod, routed over a veth pair; iperf3 -u -b 0 -l UDP_LEN from outside to
# the pod, PODS_ROUNDS rounds of nothing attached, rxlat with the XDP
# stamper and rxlat with the tc stamper, alternated. Reported: the pod's
# datagrams per second against nothing attached, and with bpf_stats on, in
# separate runs, ns per run of each stamper and of the hooks that measure
# the pod's packets (their runs on the host's own pass included).

PODS_ROUNDS=${BENCH_PODS_ROUNDS:-2}
P_O='' P_H='' P_P=''
declare -A POD_PPS POD_NS

pods_setup()
{
	local mac_h0 mac_p0 mac_h1
	{ ns_create P_O && ns_create P_H && ns_create P_P; } || die "cannot create the pod namespaces"
	{ ip -n "$P_O" link add o0 numrxqueues 4 numtxqueues 4 type veth peer name h0 \
		netns "$P_H" numrxqueues 4 numtxqueues 4 &&
		ip -n "$P_H" link add h1 type veth peer name p0 netns "$P_P" &&
		ip -n "$P_O" addr add 10.88.0.1/24 dev o0 && ip -n "$P_H" addr add 10.88.0.2/24 dev h0 &&
		ip -n "$P_H" addr add 10.88.1.1/24 dev h1 && ip -n "$P_P" addr add 10.88.1.2/24 dev p0 &&
		ip -n "$P_O" link set o0 up && ip -n "$P_H" link set h0 up &&
		ip -n "$P_H" link set h1 up && ip -n "$P_P" link set p0 up &&
		ip -n "$P_P" link set lo up &&
		ip -n "$P_O" route add 10.88.1.0/24 via 10.88.0.2 &&
		ip -n "$P_P" route add default via 10.88.1.1 &&
		in_ns "$P_H" sysctl -qw net.ipv4.ip_forward=1; } || die "cannot build the pod's host"
	mac_h0=$(link_mac "$P_H" h0) mac_p0=$(link_mac "$P_P" p0) mac_h1=$(link_mac "$P_H" h1)
	{ ip -n "$P_O" neigh replace 10.88.0.2 lladdr "$mac_h0" dev o0 nud permanent &&
		ip -n "$P_H" neigh replace 10.88.1.2 lladdr "$mac_p0" dev h1 nud permanent &&
		ip -n "$P_P" neigh replace 10.88.1.1 lladdr "$mac_h1" dev p0 nud permanent; } ||
		die "cannot set the pod's neighbours"
	t_bg pods_iperf in_ns "$P_P" iperf3 -s -p 5399
	sleep 0.5
}

# datagrams per second the pod's iperf3 server got, from the client's JSON
pods_load()	# NAME
{
	in_ns "$P_O" iperf3 -c 10.88.1.2 -p 5399 -u -b 0 -l "$UDP_LEN" -t "$SECS" -J \
		>"$T_DIR/$1.json" 2>/dev/null || die "iperf3 into the pod failed"
	gojq '.end.sum | .packets * (1 - .lost_percent / 100) / .seconds | floor' "$T_DIR/$1.json"
}

# conf: none, xdp or tc; stats: 1 for a bpf_stats run (ns per run), else
# a throughput run
pods_one()	# CONF ROUND STATS
{
	local conf=$1 r=$2 stats=$3 pps ids=() id line
	# shellcheck disable=SC2034 # read by rxlat_start (bench/lib.sh)
	local NS_R=$P_H # rxlat_start runs rxlat there
	case $conf in
	xdp) rxlat_start_or_die "$T_DIR/rx-pods.json" -i h0 -d $((SECS + 60)) -o json ;;
	tc) rxlat_start_or_die "$T_DIR/rx-pods.json" -i h0 --tc -d $((SECS + 60)) -o json ;;
	esac
	[ "$conf" != none ] && mapfile -t ids < <(pid_bpf_ids "$RX_PID" prog)
	((stats)) && sysctl -q -w kernel.bpf_stats_enabled=1 >/dev/null
	pps=$(pods_load "pods-$conf-$r-$stats")
	((stats)) && sysctl -q -w kernel.bpf_stats_enabled=0 >/dev/null
	if ((stats)); then
		for id in "${ids[@]}"; do
			line=$(bpftool -j prog show id "$id" 2>/dev/null | gojq -r \
				'select((.run_cnt // 0) > 0) | "\(.name) \(.run_time_ns / .run_cnt | floor)"')
			[ -n "$line" ] && POD_NS[$conf:${line% *}]="${POD_NS[$conf:${line% *}]:-}${line#* } "
		done
	else
		POD_PPS[$conf]="${POD_PPS[$conf]:-}$pps "
	fi
	[ "$conf" != none ] && rxlat_stop
	return 0
}

# ns per run of program NAME under CONF: the lowest of the rounds
pods_ns()	# CONF NAME
{
	local v=${POD_NS[$1:$2]:-}
	[ -n "$v" ] && awk '{ lo = $1; for (i = 2; i <= NF; i++) if ($i < lo) lo = $i; print lo }' <<<"$v" ||
		echo "-"
}

part_pods()
{
	local r c s none xdp tc ip_x ip_t udp_x udp_t hook_d
	pods_setup
	# shellcheck disable=SC2034 # restored by cleanup (bench/lib.sh)
	STATS_OLD=$(sysctl -n kernel.bpf_stats_enabled) || die "cannot read kernel.bpf_stats_enabled"
	for ((r = 1; r <= PODS_ROUNDS; r++)); do
		for s in 0 1; do
			for c in none xdp tc; do
				((s)) && [ "$c" = none ] && continue
				note "pods round $r/$PODS_ROUNDS: $c$( ((s)) && echo ", bpf_stats")"
				pods_one "$c" "$r" "$s"
			done
		done
	done
	none=$(best_of "${POD_PPS[none]}") xdp=$(best_of "${POD_PPS[xdp]}") tc=$(best_of "${POD_PPS[tc]}")
	ip_x=$(pods_ns xdp rxlat_tp_ip_rcv) ip_t=$(pods_ns tc rxlat_tp_ip_rcv)
	udp_x=$(pods_ns xdp rxlat_cg_udp_queue_rcv) udp_t=$(pods_ns tc rxlat_cg_udp_queue_rcv)
	[ "$ip_x" = - ] && ip_x=$(pods_ns xdp rxlat_fentry_ip_rcv) ip_t=$(pods_ns tc rxlat_fentry_ip_rcv)
	[ "$udp_x" = - ] && udp_x=$(pods_ns xdp rxlat_fentry_udp_queue_rcv) udp_t=$(pods_ns tc rxlat_fentry_udp_queue_rcv)
	echo
	echo "P. A pod behind the host: outside -> host (h0, the NIC, 4 queues) -> routed veth -> pod;"
	echo "   iperf3 -u -b 0 -l $UDP_LEN for ${SECS}s, $PODS_ROUNDS rounds alternated; datagrams/s the pod got"
	echo "   (best run), and ns per run (bpf_stats, separate runs, the lowest round)"
	echo
	printf '   %-34s %9s %8s  %s\n' configuration "pkt/s" "vs none" "runs"
	printf '   %-34s %9s %7sx  %s\n' "nothing attached" "$none" 1.00 "${POD_PPS[none]}"
	printf '   %-34s %9s %7sx  %s\n' "rxlat, XDP stamper on h0" "$xdp" "$(ratio "$xdp" "$none")" "${POD_PPS[xdp]}"
	printf '   %-34s %9s %7sx  %s\n' "rxlat, tc stamper on h0" "$tc" "$(ratio "$tc" "$none")" "${POD_PPS[tc]}"
	echo
	printf '   %-34s %12s %12s\n' "ns per run" "XDP stamp" "tc stamp"
	printf '   %-34s %12s %12s\n' "stamper" "$(pods_ns xdp rxlat_xdp)" "$(pods_ns tc rxlat_tc)"
	printf '   %-34s %12s %12s\n' "ip_rcv hook" "$ip_x" "$ip_t"
	printf '   %-34s %12s %12s\n' "udp_queue_rcv hook" "$udp_x" "$udp_t"
	hook_d=$(awk -v a="$ip_t" -v b="$ip_x" -v c="$udp_t" -v d="$udp_x" \
		'BEGIN { x = a - b; y = c - d; print (x > y ? x : y) }')
	row "Pod behind a tc-stamped NIC: hooks on the pod's packets, tc stamp vs XDP stamp (ns per run, worse of ip_rcv and udp_queue_rcv)" \
		"${hook_d} ns (ip_rcv $ip_t vs $ip_x, udp_queue_rcv $udp_t vs $udp_x)" "<= +20 ns" \
		"$(verdict "$hook_d" '<=' 20)"
	row "Pod behind the host: small UDP into the pod, tc stamper vs nothing attached (best runs)" \
		"$(ratio "$tc" "$none")x ($tc vs $none pkt/s; XDP stamper $(ratio "$xdp" "$none")x)" \
		"(printed)" "-"
}

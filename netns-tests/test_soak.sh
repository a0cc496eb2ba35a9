#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Soak: UDP as fast as one sender can inject it over the 4-queue veth pair,
# 60 s (15 s under QEMU), rxlat -i IF --per-queue -o json -r 0.1. The
# counts of its hundreds of intervals must add up exactly to the kernel's
# own counters, per queue, and its memory must stay flat.

# shellcheck source=netns-tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RXLAT=$BUILD/rxlat
PKTGEN=$BUILD/rxlat-pktgen
PORT=7400
SOAK_S=${RXLAT_TEST_SOAK_S:-60} RSS_FROM_S=10
RSS_SLACK_KB=1024 # growth allowed after RSS_FROM_S: a few pages of stdio and libc

need() { need_rxlat timeout ethtool; }

# UDP counters of namespace NS: "InDatagrams NoPorts InErrors RcvbufErrors".
# /proc/net follows the reader's network namespace: read it from inside.
udp_snmp()	# NS
{
	in_ns "$1" cat /proc/net/snmp | awk '
		$1 == "Udp:" && !h { for (i = 2; i <= NF; i++) col[$i] = i; h = 1; next }
		$1 == "Udp:" { print $col["InDatagrams"], $col["NoPorts"], $col["InErrors"], $col["RcvbufErrors"] }'
}

soak()
{
	local s0 s1 pid i t rss=() hwm
	need_xdp_stamp
	host_only "a long run's sums and memory (the exact-count tests run here)" && return 0
	need || return 1
	ns_pair || t_abort setup "cannot create the namespaces"

	t_bg rxlat in_ns "$NS_B" "$RXLAT" -i "$IF_B" --xdp-mode native --per-queue -o json -r 0.1
	pid=$BG_PID
	t_wait_line "$T_DIR/rxlat.err" 'map memory' 30 "$pid" ||
		t_abort rxlat_start "rxlat did not start: $(tail -n 1 "$T_DIR/rxlat.err")"
	t_bg recv in_ns "$NS_B" "$PKTGEN" recv --port "$PORT" --count 4000000000 \
		--timeout $((SOAK_S + 15))
	t_wait_line "$T_DIR/recv.out" '^ready$' 10 "$BG_PID" ||
		t_abort receiver "rxlat-pktgen recv did not start: $(tail -n 1 "$T_DIR/recv.err")"
	# rxlat's start-up is over: from here on only the sender's datagrams
	read -r -a s0 <<<"$(udp_snmp "$NS_B")"
	veth_xdp_queues "$NS_B" "$IF_B" >"$T_DIR/xdp.before"

	t_bg send in_ns "$NS_A" timeout -s INT "$SOAK_S" "$PKTGEN" send --dev "$IF_A" \
		--dst-mac "$MAC_B" --src-ip "$IP4_A" --dst-ip "$IP4_B" --dport "$PORT" \
		--count 4000000000 --flows 16 --size 200
	local send_pid=$BG_PID
	for ((t = 1; t <= SOAK_S; t++)); do
		sleep 1
		rss+=("$(proc_status_kb "$pid" VmRSS)")
	done
	t_wait_pid "$send_pid" 10 >/dev/null 2>&1
	sleep 0.5 # the last datagrams through the stack
	read -r -a s1 <<<"$(udp_snmp "$NS_B")"
	veth_xdp_queues "$NS_B" "$IF_B" >"$T_DIR/xdp.after"
	hwm=$(proc_status_kb "$pid" VmHWM)
	sleep 0.3 # one more interval
	kill -INT "$pid"
	t_wait_pid "$pid" 15
	assert_eq rxlat_exit 0 "$?" "rxlat exit status after SIGINT" || return 1
	assert_eq final_report true "$(tail -n 1 "$T_DIR/rxlat.out" | gojq -r .final)"

	local in=$((s1[0] - s0[0])) noports=$((s1[1] - s0[1])) inerr=$((s1[2] - s0[2]))
	local lost=$((s1[3] - s0[3])) udp objects per_q_udp per_q_xdp
	objects=$(wc -l <"$T_DIR/rxlat.out")
	udp=$(q --arg i "$IF_B" '[.[].series[] | select(.stage == "udp_queue_rcv" and .ifname == $i) | .count] | add // 0')
	log "soak: ${SOAK_S} s, $objects reports, $in datagrams received by the socket (InDatagrams, $((in / SOAK_S))/s), $lost lost at the socket (RcvbufErrors), InErrors $inerr, NoPorts $noports, VmHWM ${hwm} kB"

	assert_ge traffic $((SOAK_S * 1000)) "$in" "datagrams the socket received"
	assert_eq no_closed_port 0 "$noports" "datagrams to a closed port"
	# udp_queue_rcv runs at the entry of udp_queue_rcv_one_skb (fentry) or
	# from its sk_filter (cgroup_skb): before the receive buffer check, so
	# a datagram dropped there (RcvbufErrors) is counted too, and a queued
	# one (InDatagrams) exactly once.
	assert_eq udp_equals_indatagrams $((in + lost)) "$udp" \
		"sum of the intervals' udp_queue_rcv counts, against InDatagrams + RcvbufErrors"
	assert_eq udp_all_stamped "$udp" \
		"$(q --arg i "$IF_B" '[.[].series[] | select(.stage == "udp_queue_rcv" and .ifname == $i) | .sources.xdp] | add // 0')" \
		"udp_queue_rcv samples with an XDP stamp"
	# Per queue: every datagram the stamper saw on queue q reaches the
	# socket once (nothing else crosses the link: static neighbours, quiet
	# IPv6), and veth's own per-queue XDP counter saw the same packets.
	per_q_udp=$(q -c --arg i "$IF_B" '[.[].series[] | select(.stage == "udp_queue_rcv" and .ifname == $i)]
		| group_by(.queue) | map({q: .[0].queue, n: (map(.count) | add)})')
	per_q_xdp=$(q -c --arg i "$IF_B" '[.[].xdp[] | select(.ifname == $i)]
		| group_by(.queue) | map({q: .[0].queue, n: (map(.stamped) | add)})')
	assert_eq per_queue_udp_equals_xdp "$per_q_xdp" "$per_q_udp" "per-queue udp_queue_rcv vs XDP stamped"
	assert_ge queues_used 2 "$(gojq length <<<"$per_q_udp")" "queues with datagrams"
	assert_eq per_queue_xdp_equals_veth "$per_q_xdp" \
		"$(queue_delta "$T_DIR/xdp.before" "$T_DIR/xdp.after")" \
		"per-queue XDP stamped vs veth's rx_queue_N_xdp_packets (ethtool -S)"
	# within one report the numbers agree: a series' count is the sum of
	# its sources
	assert_eq reports_consistent 0 \
		"$(q '[.[].series[] | select(.count != (.sources | add))] | length')" \
		"series whose count differs from the sum of its sources in the same report"

	log "soak: VmRSS kB each second: ${rss[*]}"
	assert_le rss_flat $((rss[RSS_FROM_S - 1] + RSS_SLACK_KB)) "${rss[SOAK_S - 1]}" \
		"VmRSS in kB at the end, against $((rss[RSS_FROM_S - 1])) kB at ${RSS_FROM_S} s"
	for i in "${rss[@]}"; do
		[[ -n $i ]] || fail rss_sampled "rxlat was gone during the soak"
	done
}

suite_begin
run_test soak soak
suite_end

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# --drops on known losses: an nftables drop rule on one port (exactly the
# datagrams sent to it, reason NETFILTER_DROP, on the queues they came in
# on, none of the flow that is let through), and a UDP receiver that does
# not read until its buffer overflows (reason SOCKET_RCVBUFF, exactly the
# kernel's RcvbufErrors). Without --drops the reports have no drops section.

# shellcheck source=netns-tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RXLAT=$BUILD/rxlat
PKTGEN=$BUILD/rxlat-pktgen
N=${RXLAT_TEST_PACKETS:-1000}
M=$((N * 3 / 5))
PORT=7100
DROP_PORT=7300
ATTACH=${RXLAT_TEST_ATTACH:-auto}
RXLAT_ARGS=(--attach "$ATTACH")

drops_sum()	# REASON: drops of that reason over the run
{
	q --arg r "$1" '[.[].drops[]? | select(.reason == $r) | .count] | add // 0'
}

send_udp()	# CHECK PORT COUNT SPORT-BASE
{
	assert_cmd "$1" in_ns "$NS_A" timeout 60 "$PKTGEN" send --dev "$IF_A" --dst-mac "$MAC_B" \
		--src-ip "$IP4_A" --dst-ip "$IP4_B" --dport "$2" --count "$3" --flows 8 \
		--sport-base "$4"
}

netfilter_drop()
{
	local recv_pid by_queue
	need_rxlat nft || return 1
	ns_pair || t_abort setup "cannot create the namespaces"
	nft_drop_port "$NS_B" "$DROP_PORT"
	start_rxlat -i "$IF_B" --per-queue --drops --prometheus 9474 || return 1
	t_bg recv in_ns "$NS_B" "$PKTGEN" recv --port "$PORT" --count "$M" --timeout 30
	recv_pid=$BG_PID
	t_wait_line "$T_DIR/recv.out" '^ready$' 10 "$recv_pid" || t_abort receiver "not ready"
	send_udp send_dropped "$DROP_PORT" "$N" 20000
	send_udp send_passed "$PORT" "$M" 30000
	t_wait_pid "$recv_pid" 40
	assert_eq recv_passed "received $M valid $M invalid 0 duplicate 0" "$(tail -n 1 "$T_DIR/recv.out")"
	sleep 0.6
	if command -v curl >/dev/null; then
		in_ns "$NS_B" curl -sf --max-time 5 -o "$T_DIR/metrics" http://127.0.0.1:9474/metrics
		assert_eq prometheus_netfilter_drops "$N" "$(awk '/^rxlat_drops_total\{.*reason="NETFILTER_DROP"/ { n += $2 } END { print n + 0 }' "$T_DIR/metrics")"
		assert_eq prometheus_one_reason 0 "$(grep '^rxlat_drops_total' "$T_DIR/metrics" | grep -vc 'reason="NETFILTER_DROP"')"
	else
		skip prometheus_netfilter_drops "curl is not installed here"
	fi
	stop_rxlat || return 1

	assert_eq netfilter_drops "$N" "$(drops_sum NETFILTER_DROP)"
	assert_eq no_other_drops "$N" "$(q '[.[].drops[]?.count] | add // 0')" "drops of any reason"
	assert_eq nothing_lost 0 "$(q '[.[].drops_lost] | add // 0')"
	assert_eq drops_named_interface "[\"$IF_B\"]" "$(q -c '[.[].drops[]?.ifname] | unique')"
	# per queue: what the stamper stamped there, less what reached the socket
	by_queue=$(q -c --argjson i "$IFINDEX_B" '
		([.[].xdp[] | select(.ifindex == $i)] | group_by(.queue)
		 | map({key: (.[0].queue | tostring), value: (map(.stamped) | add)}) | from_entries) as $st
		| ([.[].series[] | select(.stage == "udp_queue_rcv")] | group_by(.queue)
		 | map({key: (.[0].queue | tostring), value: (map(.count) | add)}) | from_entries) as $ok
		| $st | to_entries | map({q: (.key | tonumber), n: (.value - ($ok[.key] // 0))})
		| map(select(.n > 0))')
	assert_eq drops_per_queue "$by_queue" \
		"$(q -c '[.[].drops[]?] | group_by(.queue) | map({q: .[0].queue, n: (map(.count) | add)})')" \
		"drops per queue against stamped less received"
	assert_ge drops_on_queues 2 "$(gojq length <<<"$by_queue")" "queues with drops"
	# stamp to drop: a time that was measured, and no "years"
	assert_le drop_time_below_1s 999999999 "$(q '[.[].drops[]?.max_ns] | max // 0')"
	assert_ge drop_time_measured 1 "$(q '[.[].drops[]?.sum_ns] | add // 0')"
}

rcvbuf_drop()
{
	local before after recv_pid got
	need_rxlat || return 1
	ns_pair || t_abort setup "cannot create the namespaces"
	start_rxlat -i "$IF_B" --drops || return 1
	before=$(mib Udp RcvbufErrors)
	# a 4 KiB buffer that nobody reads for 3 s: most of the burst overflows it
	t_bg recv in_ns "$NS_B" "$PKTGEN" recv --port "$PORT" --count "$N" --timeout 5 \
		--hold 3000 --rcvbuf 4096
	recv_pid=$BG_PID
	t_wait_line "$T_DIR/recv.out" '^ready$' 10 "$recv_pid" || t_abort receiver "not ready"
	send_udp send "$PORT" "$N" 20000
	t_wait_pid "$recv_pid" 40
	after=$(mib Udp RcvbufErrors)
	sleep 0.6
	stop_rxlat || return 1
	got=$(tail -n 1 "$T_DIR/recv.out" | awk '$1 == "received" { print $2 }')
	assert_ge rcvbuf_errors_happened 1 $((after - before)) "RcvbufErrors delta"
	assert_eq rcvbuf_drops_equal_snmp $((after - before)) "$(drops_sum SOCKET_RCVBUFF)" \
		"SOCKET_RCVBUFF drops against the RcvbufErrors delta"
	assert_eq received_plus_dropped "$N" $((got + $(drops_sum SOCKET_RCVBUFF)))
	assert_eq only_rcvbuf_drops "$(drops_sum SOCKET_RCVBUFF)" "$(q '[.[].drops[]?.count] | add // 0')"
}

# features off: no drops section, no drop program loaded
drops_off()
{
	need_rxlat || return 1
	ns_pair || t_abort setup "cannot create the namespaces"
	start_rxlat -i "$IF_B" || return 1
	assert_eq no_drop_program 0 \
		"$(bpftool -j prog show | gojq '[.[] | select(.name == "rxlat_tp_drop")] | length')"
	stop_rxlat || return 1
	assert_eq no_drops_section 0 "$(q '[.[] | select(has("drops"))] | length')"
	# text: the section is there with --drops, even with nothing dropped
	in_ns "$NS_B" "$RXLAT" --attach "$ATTACH" -i "$IF_B" --drops -d 0.3 >"$T_DIR/text.out" 2>&1
	assert_match text_drops_section '^drops \(time from the stamp to the drop\):' \
		"$(grep '^drops' "$T_DIR/text.out" | head -n 1)"
}

# every feature at once, then SIGKILL, SIGTERM and -d: nothing stays loaded
all_features_nothing_left()
{
	local before sig rx
	need_xdp_stamp
	need_rxlat || return 1
	ns_pair || t_abort setup "cannot create the namespaces"
	before=$(rxlat_prog_count)
	for sig in KILL TERM; do
		# the XDP stamper, as on a NIC: without tcx links a SIGKILL leaves
		# the tc stamper's cls_bpf filter, stamping nothing (test_kill.sh)
		t_bg "rx_$sig" in_ns "$NS_B" "$RXLAT" --attach "$ATTACH" -i "$IF_B" --xdp-mode native --drops --slow 1us \
			--proto udp --port "$PORT" --prometheus 9474 -o json
		rx=$BG_PID
		t_wait_line "$T_DIR/rx_$sig.err" 'map memory' 30 "$rx" || t_abort "start_$sig" "rxlat did not start"
		pair_udp "traffic_$sig" "$NS_A" 50
		kill -"$sig" "$rx"
		t_wait_pid "$rx" 10 2>/dev/null
		assert_eq "sig${sig}_no_programs" "$before" "$(prog_count_settles "$before")"
		assert_eq "sig${sig}_no_xdp" "" "$(link_xdp_prog "$NS_B" "$IF_B")"
	done
	in_ns "$NS_B" "$RXLAT" --attach "$ATTACH" -i "$IF_B" --drops --slow 1us --cgroup "$(cgroup2_root)" \
		-d 0.5 -o json >/dev/null 2>"$T_DIR/d.err"
	assert_eq duration_exit 0 "$?"
	assert_eq duration_no_programs "$before" "$(prog_count_settles "$before")"
}

SFX=${RXLAT_TEST_ATTACH:+_$ATTACH}

suite_begin
run_test "netfilter_drop$SFX" netfilter_drop
run_test "rcvbuf_drop$SFX" rcvbuf_drop
run_test "drops_off" one_vm_kernel 6.12 drops_off
run_test "all_features_nothing_left$SFX" one_vm_kernel 6.1 all_features_nothing_left
suite_end

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The tc ingress stamper, with real traffic over a veth pair:
#   - with --tc every UDP sample of a known count comes from tc, exactly;
#   - with the XDP stamper there too, XDP wins and tc adds nothing;
#   - loaded with iproute2 alone, rxlat uses it and leaves it in place;
#   - another user's clsact filter stays, and sees every packet, whatever
#     way rxlat exits (SIGKILL included, then rxlat started again), and a
#     clsact qdisc rxlat added does not outlive it;
#   - an application asking for SO_TIMESTAMPNS gets stamps within 1 s of
#     its own CLOCK_REALTIME, with and without the tc stamper;
#   - TCP segments whose sender's delivery time has passed are stamped too;
#   - on a veth the tc stamper is rxlat's default: said, the sender's TSO
#     kept; --xdp-mode native stamps in XDP (and the sender's TSO goes off);
#   - wrong input, two rxlat at once, the interface pulled away and back.

# shellcheck source=netns-tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RXLAT=$BUILD/rxlat
PKTGEN=$BUILD/rxlat-pktgen
TC_OBJ=$BUILD/rxlat_tc.bpf.o
STAMPER=$BUILD/rxlat_xdp.bpf.o
FOREIGN_TC=$BUILD/tc_count.bpf.o
N=${RXLAT_TEST_PACKETS:-1000}
PORT=7400
RXLAT_HANDLE=0x52584c54

need()
{
	need_rxlat tc "$@" && require_file build "$TC_OBJ" "run 'make'" &&
		require_file build "$FOREIGN_TC" "run 'make test-binaries'"
}

setup()
{
	need "$@" || return 1
	ns_pair || t_abort setup "cannot create the namespaces"
	# iproute2 makes its work directories (tc/globals, xdp/globals) in
	# the bpf filesystem when it loads an object: in this test's own
	TC_BPF_MNT=$(t_pin_dir iproute2)
	mkdir -p "$TC_BPF_MNT"
	export TC_BPF_MNT
}

# rxlat's own cls_bpf filters at ingress of IF_B (kernels without tcx)
own_filters()
{
	tc -n "$NS_B" -j filter show dev "$IF_B" ingress 2>/dev/null |
		gojq --arg h "$RXLAT_HANDLE" '[.[] | select(.options.handle? == $h)] | length'
}

has_clsact()
{
	tc -n "$NS_B" -j qdisc show dev "$IF_B" | gojq '[.[] | select(.kind == "clsact")] | length'
}

# The foreign counting filter, iproute2's default priority; FOREIGN_PROG
# its program id
add_foreign_filter()
{
	if ! tc -n "$NS_B" qdisc add dev "$IF_B" clsact ||
		! in_ns "$NS_B" tc filter add dev "$IF_B" ingress bpf da obj "$FOREIGN_TC" sec tc; then
		t_abort foreign_setup "cannot add the foreign tc filter"
	fi
	FOREIGN_PROG=$(tc -n "$NS_B" -j filter show dev "$IF_B" ingress |
		gojq '[.[] | select(.options.prog.name? == "tc_count") | .options.prog.id][0] // 0')
}

foreign_count()
{
	local map
	map=$(bpftool -j prog show id "$FOREIGN_PROG" | gojq '.map_ids[0]')
	bpftool -j map dump id "$map" | gojq '.[0].formatted.value'
}

udp_from_tc()
{
	[[ ${RXLAT_ENTER:-} == netns-exec ]] && host_only "entering the namespace by ip netns exec (nsenter runs here)" && return 0
	setup || return 1
	start_rxlat --tc -i "$IF_B" || return 1
	assert_match says_tc "tc stamper attached to $IF_B ingress through (a tcx link|a cls_bpf filter)" \
		"$(cat "$T_DIR/rxlat.err")"
	pair_udp udp "$NS_A" "$N"
	sleep 0.6
	stop_rxlat || return 1
	assert_eq udp_count "$N" "$(stage_sum udp_queue_rcv .count)"
	assert_eq udp_all_from_tc "$N" "$(stage_sum udp_queue_rcv .sources.tc)"
	assert_eq udp_none_from_kernel 0 "$(stage_sum udp_queue_rcv .sources.kernel)"
	assert_eq udp_none_unstamped 0 "$(stage_sum udp_queue_rcv .sources.none)"
	# ip_rcv's fallback tracepoint fires before tc ingress: counted, not
	# measured; fentry on ip_rcv_core runs after it
	if [[ $(q -r '.[0].attach.ip_rcv') == fentry:* ]]; then
		assert_eq ip_rcv_from_tc "$N" "$(stage_sum ip_rcv .sources.tc)"
	else
		assert_eq ip_rcv_before_tc "$N" "$(stage_sum ip_rcv .sources.none)"
	fi
	assert_le below_1s 999999999 "$(q '[.[].series[].max_ns] | max // 0')" "largest sample in ns"
	assert_eq no_filter_left 0 "$(own_filters)"
	assert_eq no_qdisc_left 0 "$(has_clsact)"
}

# The stamper in XDP (loaded by xdp-loader) and rxlat's tc stamper: every
# sample from XDP, none from tc
xdp_wins()
{
	setup xdp-loader || return 1
	t_track_xdp "$NS_B" "$IF_B"
	t_xdp_load "$NS_B" "$IF_B" native "$STAMPER" "$(t_pin_dir wins)" ||
		t_abort load "xdp-loader load failed"
	start_rxlat --no-xdp --tc -i "$IF_B" || return 1
	pair_udp udp "$NS_A" "$N"
	sleep 0.6
	stop_rxlat || return 1
	assert_eq udp_all_from_xdp "$N" "$(stage_sum udp_queue_rcv .sources.xdp)"
	assert_eq tc_adds_nothing 0 "$(q '[.[].series[].sources.tc] | add // 0')"
}

# tc filter add ... obj rxlat_tc.bpf.o: rxlat uses that filter, labels its
# stamps, and leaves it where it was
iproute2_filter()
{
	local before
	setup || return 1
	assert_cmd qdisc_add tc -n "$NS_B" qdisc add dev "$IF_B" clsact || return 1
	assert_cmd filter_add in_ns "$NS_B" tc filter add dev "$IF_B" ingress bpf da obj "$TC_OBJ" sec tc ||
		return 1
	before=$(tc -n "$NS_B" -j filter show dev "$IF_B" ingress | gojq -c .)
	start_rxlat --tc -i "$IF_B" || return 1
	assert_match uses_it "^rxlat: $IF_B: stamped by the rxlat tc program that a tc filter \\(pref 49152\\) runs, loaded without rxlat\$" \
		"$(grep 'stamped by' "$T_DIR/rxlat.err")"
	pair_udp udp "$NS_A" "$N"
	sleep 0.6
	stop_rxlat || return 1
	assert_eq udp_all_from_tc "$N" "$(stage_sum udp_queue_rcv .sources.tc)"
	assert_eq filter_unchanged "$before" "$(tc -n "$NS_B" -j filter show dev "$IF_B" ingress | gojq -c .)"
}

# One exit path: rxlat --tc beside the foreign filter, traffic, the exit;
# the foreign filter is still there and counted every packet.
foreign_round()	# NAME SIG|duration
{
	local name=$1 how=$2 count rc
	count=$(foreign_count)
	if [[ $how == duration ]]; then
		t_bg "$name" in_ns "$NS_B" "$RXLAT" --tc -i "$IF_B" -o json -r 0.5 -d 4
	else
		t_bg "$name" in_ns "$NS_B" "$RXLAT" --tc -i "$IF_B" -o json -r 0.5
	fi
	local pid=$BG_PID
	t_wait_line "$T_DIR/$name.err" 'map memory' 30 "$pid" ||
		t_abort "${name}_start" "rxlat did not start: $(tail -n 1 "$T_DIR/$name.err")"
	pair_udp "$name" "$NS_A" "$N"
	[[ $how != duration ]] && kill -"$how" "$pid"
	t_wait_pid "$pid" 15 2>/dev/null # bash reports a kill otherwise
	rc=$?
	if [[ $how == KILL ]]; then
		# no final report: the last interval's samples go with it
		assert_eq "${name}_killed" 137 "$rc"
	else
		assert_eq "${name}_exit" 0 "$rc" "exit status: $(grep error "$T_DIR/$name.err")"
		assert_eq "${name}_own_filter_gone" 0 "$(own_filters)"
		assert_eq "${name}_tc_samples" "$N" \
			"$(gojq -s '[.[].series[] | select(.stage == "udp_queue_rcv") | .sources.tc] | add // 0' "$T_DIR/$name.out")"
	fi
	assert_eq "${name}_foreign_stays" 1 "$(tc -n "$NS_B" -j filter show dev "$IF_B" ingress |
		gojq --argjson p "$FOREIGN_PROG" '[.[] | select(.options.prog.id? == $p)] | length')"
	assert_eq "${name}_foreign_saw_all" "$N" $(($(foreign_count) - count))
	assert_eq "${name}_qdisc_stays" 1 "$(has_clsact)"
}

foreign_filter()
{
	local count
	setup || return 1
	add_foreign_filter
	foreign_round sigint INT
	foreign_round sigterm TERM
	foreign_round duration duration
	foreign_round sigkill KILL
	# what SIGKILL left (a cls_bpf filter, without tcx) still passes
	# every packet on to the foreign one
	count=$(foreign_count)
	pair_udp after_kill "$NS_A" "$N"
	assert_eq after_kill_foreign_saw_all "$N" $(($(foreign_count) - count))
	foreign_round again INT
	if (($(own_filters) == 0)) && [[ -s $T_DIR/again.err ]]; then
		pass nothing_of_rxlat_left
	else
		fail nothing_of_rxlat_left "$(own_filters) rxlat filters at $IF_B ingress"
	fi
}

# a clsact qdisc that rxlat added goes with it, on every exit but SIGKILL
qdisc_cleanup()
{
	setup || return 1
	assert_eq no_qdisc_before 0 "$(has_clsact)"
	in_ns "$NS_B" "$RXLAT" --tc -i "$IF_B" -d 0.5 -o json >/dev/null 2>"$T_DIR/e"
	assert_eq exit 0 "$?" "$(grep error "$T_DIR/e")"
	assert_eq no_qdisc_after 0 "$(has_clsact)"
}

# SO_TIMESTAMPNS: asked for before the datagrams come (the kernel stamps
# them), or only after they queued (tc's stamp, or none: the kernel then
# stamps at the read): within 1 s of the reader's CLOCK_REALTIME
timestamps_round()	# NAME RECV-ARGS...
{
	local name=$1 line
	shift
	pair_udp "$name" "$NS_A" "$N" "$@"
	line=$(grep '^timestamps' "$T_DIR/recv_${name}.out")
	assert_eq "${name}_all_stamped" "$N" "$(awk '{ print $2 }' <<<"$line")"
	assert_le "${name}_within_1s" 999999999 "$(awk '{ print $4 }' <<<"$line")" "largest offset in ns"
}

so_timestamp()
{
	setup || return 1
	# The late round first: the kernel stops stamping received packets only
	# when a work item patches its static key after the last timestamping
	# socket closed, and under emulation (6.1 in QEMU) that has taken longer
	# than seconds. Before any round here, no socket asked for stamps.
	start_rxlat --tc -i "$IF_B" || return 1
	timestamps_round tc_late --timestamp-late --hold 400
	timestamps_round tc_early --timestamp
	sleep 0.6
	stop_rxlat || return 1
	timestamps_round plain_early --timestamp
	timestamps_round plain_late --timestamp-late --hold 400
	# the late round's datagrams carried tc's stamp, the early one's the kernel's
	assert_ge late_from_tc "$N" "$(stage_sum udp_queue_rcv .sources.tc)" \
		"udp_queue_rcv sources: tc $(stage_sum udp_queue_rcv .sources.tc), kernel $(stage_sum udp_queue_rcv .sources.kernel), none $(stage_sum udp_queue_rcv .sources.none)"
	assert_ge early_from_kernel "$N" "$(stage_sum udp_queue_rcv .sources.kernel)"
}

# TCP over veth carries the sender's delivery time; once passed, the tc
# stamp replaces it, so that the socket stages measure TCP too
tcp_from_tc()
{
	local n
	setup iperf3 || return 1
	start_rxlat --tc -i "$IF_B" || return 1
	t_bg iperf_s in_ns "$NS_B" iperf3 -s -1 -p 5201
	sleep 0.3
	assert_cmd iperf3 in_ns "$NS_A" timeout 30 iperf3 -c "$IP4_B" -p 5201 -t 1
	sleep 0.6
	stop_rxlat || return 1
	n=$(stage_sum tcp_do_rcv .count)
	assert_ge tcp_samples 100 "$n"
	assert_ge tcp_mostly_from_tc $((n * 9 / 10)) "$(stage_sum tcp_do_rcv .sources.tc)" \
		"tcp_do_rcv samples from tc, of $n"
	assert_le below_1s 999999999 "$(q '[.[].series[] | select(.stage == "tcp_do_rcv") | .max_ns] | max // 0')"
}

# A veth: without a stamper option rxlat stamps at tc (its default there
# where tcx links are, 6.6+), says why in one line, and the sender's TSO
# stays on; --xdp-mode native stamps in XDP, and the sender's TSO goes off
# while it runs. Without tcx: XDP, said.
peer_tso()	# the sending veth's tx-tcp-segmentation, as ethtool -k shows it
{
	in_ns "$NS_A" ethtool -k "$IF_A" | awk -F': ' '$1 == "tcp-segmentation-offload" { print $2 }'
}

veth_default()
{
	setup ethtool || return 1
	device_state "$NS_B" "$IF_B" >"$T_DIR/state.before"
	device_state "$NS_A" "$IF_A" >"$T_DIR/state.peer"
	RXLAT_STAMPER=default start_rxlat -i "$IF_B" || return 1
	state_same during
	state_same peer_during "$NS_A" "$IF_A" peer
	# also without tcx links (before 6.6): a cls_bpf filter, which a killed
	# rxlat leaves behind stamping nothing (test_kill.sh)
	# with the way to stamp in XDP, where the kernel's XDP can carry a stamp
	local how="'--xdp-mode native' stamps in XDP, before GRO, where driver veth switches its peer's TSO/GSO off while attached: TCP slower than with nothing attached \\(make bench part A measures it\\)"
	xdp_meta_refused &&
		how="this kernel refuses bpf_xdp_adjust_meta\\(\\) to XDP programs: no XDP program can hand a stamp to the stack here"
	assert_eq veth_line 1 "$(grep -cE "^rxlat: $IF_B: stamping at tc ingress, rxlat's default: it changes nothing on the device; $how\$" "$T_DIR/rxlat.err")"
	assert_eq veth_no_xdp "" "$(link_xdp_prog "$NS_B" "$IF_B")" "XDP program on $IF_B"
	assert_eq veth_no_netns_line 0 "$(grep -c 'tc stamps do not reach' "$T_DIR/rxlat.err")" \
		"the veth line says it already"
	assert_eq peer_tso_kept on "$(peer_tso)" "the sender's TSO while rxlat stamps at tc"
	# the fallback of ip_rcv fires before tc ingress: said
	if grep -q '^rxlat: stage ip_rcv .*netif_receive_skb' "$T_DIR/rxlat.err"; then
		assert_eq ip_rcv_before_tc_said 1 "$(grep -c '^rxlat: ip_rcv is measured before tc ingress here' "$T_DIR/rxlat.err")"
	else
		assert_eq ip_rcv_before_tc_unsaid 0 "$(grep -c 'ip_rcv is measured before tc' "$T_DIR/rxlat.err")"
	fi
	pair_udp udp "$NS_A" "$N"
	sleep 0.6
	state_same traffic
	stop_rxlat || return 1
	state_same after
	state_same peer_after "$NS_A" "$IF_A" peer
	assert_eq veth_udp_all_from_tc "$N" "$(stage_sum udp_queue_rcv .sources.tc)"
	assert_eq veth_udp_count "$N" "$(stage_sum udp_queue_rcv .count)"
	assert_eq veth_no_xdp_samples 0 "$(stage_sum udp_queue_rcv .sources.xdp)"

	start_rxlat -i "$IF_B" --xdp-mode native || return 1
	assert_eq forced_xdp_line 1 "$(grep -c "^rxlat: XDP stamper attached to $IF_B in native mode" "$T_DIR/rxlat.err")"
	# what attaching does, said before it is done
	assert_eq forced_said_first "rxlat: $IF_B: attaching the XDP stamper in native mode: driver veth switches its peer's TSO/GSO off while attached: TCP slower than with nothing attached (make bench part A measures it); without --xdp-mode rxlat stamps at tc ingress and changes nothing on the device" \
		"$(grep -B1 "^rxlat: XDP stamper attached to $IF_B" "$T_DIR/rxlat.err" | head -n 1)"
	assert_eq forced_no_default_line 0 "$(grep -c "stamping at tc ingress, rxlat's default" "$T_DIR/rxlat.err")"
	assert_match peer_tso_off "^off" "$(peer_tso)" "the sender's TSO while XDP runs on its peer"
	pair_udp udp2 "$NS_A" "$N"
	sleep 0.6
	stop_rxlat || return 1
	assert_eq forced_udp_all_from_xdp "$N" "$(stage_sum udp_queue_rcv .sources.xdp)"
	assert_eq peer_tso_back on "$(peer_tso)" "the sender's TSO once rxlat is gone"
	state_same forced_after
	state_same forced_peer_after "$NS_A" "$IF_A" peer
}

bad_input()
{
	local rc
	host_only "option checks" && return 0
	setup || return 1
	in_ns "$NS_B" "$RXLAT" --tc >/dev/null 2>"$T_DIR/e1"
	rc=$?
	assert_eq no_iface_exit 1 "$rc"
	assert_eq no_iface_message "rxlat: error: --tc applies to -i only: give -i IFACE too" "$(cat "$T_DIR/e1")"
	in_ns "$NS_B" "$RXLAT" --tc -i "$IF_B" --stamp packet >/dev/null 2>"$T_DIR/e2"
	rc=$?
	assert_eq stamp_exit 1 "$rc"
	assert_eq stamp_one_line 1 "$(wc -l <"$T_DIR/e2")"
	# the hint of the first error, followed: -i added
	in_ns "$NS_B" "$RXLAT" --tc -i "$IF_B" -d 0.3 -o json >/dev/null 2>"$T_DIR/e3"
	assert_eq hint_works 0 "$?" "$(grep error "$T_DIR/e3")"
}

# Two at once: the second names the first and its PID; the hint, followed,
# frees the interface
two_at_once()
{
	local rc cmd
	setup || return 1
	start_rxlat --tc -i "$IF_B" || return 1
	in_ns "$NS_B" "$RXLAT" --tc -i "$IF_B" -d 1 >/dev/null 2>"$T_DIR/second.err"
	rc=$?
	assert_eq second_exit 1 "$rc"
	assert_match second_names_first "^rxlat: error: $IF_B already has the rxlat tc stamper attached by rxlat \\(pid $RXLAT_PID\\): stop it \\(kill $RXLAT_PID\\), then run rxlat again\$" \
		"$(grep error "$T_DIR/second.err")"
	assert_eq second_one_error 1 "$(grep -c error "$T_DIR/second.err")"
	cmd=$(grep -oE '\(kill [0-9]+\)' "$T_DIR/second.err" | tr -d '()')
	$cmd
	t_wait_pid "$RXLAT_PID" 15
	assert_eq first_stopped 0 "$?"
	in_ns "$NS_B" "$RXLAT" --tc -i "$IF_B" -d 0.3 -o json >/dev/null 2>"$T_DIR/third.err"
	assert_eq then_attaches 0 "$?" "$(grep error "$T_DIR/third.err")"
}

# Interface indexes are per namespace: an rxlat in each end's namespace,
# both ifindex 2, both stamping at tc; neither takes the other's for its own
same_ifindex()
{
	local pid_a
	setup || return 1
	assert_eq same_ifindex "$IFINDEX_A" "$IFINDEX_B" "ifindexes of the two ends"
	t_bg rxlat_a in_ns "$NS_A" "$RXLAT" --tc -i "$IF_A" -o json -r 0.5
	pid_a=$BG_PID
	t_wait_line "$T_DIR/rxlat_a.err" 'map memory' 30 "$pid_a" ||
		t_abort a_start "rxlat in $NS_A did not start: $(tail -n 1 "$T_DIR/rxlat_a.err")"
	start_rxlat --tc -i "$IF_B" || return 1
	pair_udp udp "$NS_A" "$N"
	sleep 0.6
	stop_rxlat || return 1
	kill -INT "$pid_a"
	t_wait_pid "$pid_a" 15
	assert_eq a_exit 0 "$?"
	assert_eq b_udp_from_tc "$N" "$(stage_sum udp_queue_rcv .sources.tc)"
	assert_eq a_no_udp 0 "$(gojq -s '[.[].series[] | select(.stage == "udp_queue_rcv") | .count] | add // 0' "$T_DIR/rxlat_a.out")"
}

# The interface deleted and made again: the tc stamper follows it
iface_back()
{
	setup || return 1
	start_rxlat --tc -i "$IF_B" || return 1
	ip -n "$NS_A" link del "$IF_A"
	t_wait_line "$T_DIR/rxlat.err" "$IF_B is gone" 10 "$RXLAT_PID" ||
		t_abort gone "rxlat did not see $IF_B go"
	if ! { ip -n "$NS_A" link add "$IF_A" type veth peer name "$IF_B" netns "$NS_B" &&
		ip -n "$NS_A" addr add "$IP4_A/24" dev "$IF_A" &&
		ip -n "$NS_B" addr add "$IP4_B/24" dev "$IF_B" &&
		ip -n "$NS_A" link set "$IF_A" up && ip -n "$NS_B" link set "$IF_B" up; }; then
		t_abort recreate "cannot make the pair again"
	fi
	MAC_B=$(link_mac "$NS_B" "$IF_B")
	ip -n "$NS_A" neigh replace "$IP4_B" lladdr "$MAC_B" dev "$IF_A" nud permanent
	ip -n "$NS_B" neigh replace "$IP4_A" lladdr "$(link_mac "$NS_A" "$IF_A")" dev "$IF_B" nud permanent
	t_wait_line "$T_DIR/rxlat.err" "$IF_B is back .*tc stamper attached again" 10 "$RXLAT_PID" ||
		t_abort back "rxlat did not attach again: $(tail -n 1 "$T_DIR/rxlat.err")"
	pass attached_again
	local lines
	lines=$(wc -l <"$T_DIR/rxlat.out")
	pair_udp udp "$NS_A" "$N"
	sleep 0.6
	stop_rxlat || return 1
	assert_eq udp_from_tc_after "$N" "$(tail -n +"$((lines + 1))" "$T_DIR/rxlat.out" |
		gojq -s '[.[].series[] | select(.stage == "udp_queue_rcv") | .sources.tc] | add // 0')"
}

suite_begin
run_test udp_from_tc udp_from_tc
RXLAT_ENTER=netns-exec run_test udp_from_tc_netns_exec udp_from_tc
run_test xdp_wins one_vm_kernel 6.1 xdp_wins
run_test iproute2_filter iproute2_filter
run_test foreign_filter foreign_filter
run_test qdisc_cleanup qdisc_cleanup
run_test so_timestamp one_vm_kernel 6.12,5.10 so_timestamp
run_test tcp_from_tc one_vm_kernel 6.1,5.10 tcp_from_tc
run_test veth_default one_vm_kernel 6.12 veth_default
run_test bad_input bad_input
run_test two_at_once one_vm_kernel 6.1 two_at_once
run_test same_ifindex one_vm_kernel 6.12 same_ifindex
run_test iface_back one_vm_kernel 6.1 iface_back
suite_end

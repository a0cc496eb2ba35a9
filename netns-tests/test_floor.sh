#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rxlat's floor, Linux 5.10 (docs/design.md, "Kernels"), and what it gives
# there (make test boots Debian 11's 5.10 under QEMU for this file): on
# every kernel, --list-stages loads what it lists, each stage's attach point
# in it is the one a run attaches, and nothing speaks of a floor; the tc
# stamper, loaded by rxlat and by iproute2 alone, gives exact UDP counts
# at every UDP stage, and leaves nothing behind; the kprobes that serve
# where a stage's fallback cannot (tcp_data_queue, udp_queue_rcv before
# 6.3) count exactly as fentry does, or are said to be missing; TCP's reads
# are counted exactly. Which form of the hooks a kernel takes (with or
# without fetch-add and compare-and-swap) is rxlat's choice; the unit test
# progs_test checks that the second has none.

# shellcheck source=netns-tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RXLAT=$BUILD/rxlat
PKTGEN=$BUILD/rxlat-pktgen
TCPSTREAM=$BUILD/rxlat-tcpstream
N=${RXLAT_TEST_PACKETS:-500}
PORT=7300
BYTES=2000000

# no_trace NAME IF NS: nothing rxlat attaches is left on IF of namespace NS
no_trace()
{
	assert_eq "$1_no_clsact" "" "$(tc -n "$3" qdisc show dev "$2" | grep -o clsact)" "qdiscs of $2" &&
		assert_eq "$1_no_xdp" "" "$(ip -n "$3" -d link show dev "$2" | grep -o 'prog/xdp')" "XDP on $2"
}

# plan_is_run LIST JSON: each stage's attach point in --list-stages (file
# LIST) is the one the run attached (.attach of its first JSON report);
# one the run left out is unavailable, not a default stage, or one that
# --stages left out (not listed)
plan_is_run()
{
	local s a rest
	for s in $(gojq -r '.attach | keys[]' <<<"$2"); do
		a=$(gojq -r --arg s "$s" '.attach[$s] // "-"' <<<"$2")
		rest=$(sed -nE "s/^$s +//p" "$1")
		if [[ $a == - ]]; then
			assert_match "plan_$s" '^unavailable|not by default|^$' "$rest" "--list-stages for $s, which the run left out"
		else
			assert_eq "plan_$s" "$a" "${rest%% *}" "--list-stages' attach point of $s"
		fi
	done
}

floor()
{
	require_file build "$RXLAT" "run 'make'" || return 1
	log "kernel $(uname -r)"
	assert_cmd floor_section grep -qx '## Kernels' docs/design.md || return 1
	ns_pair || return 1
	"$RXLAT" --list-stages >"$T_DIR/list.out" 2>"$T_DIR/list.err"
	assert_eq list_stages_rc 0 "$?" "rxlat --list-stages: $(tail -n 1 "$T_DIR/list.err")" &&
		assert_eq list_stages_no_floor "" "$(grep -i floor "$T_DIR/list.err")" "its stderr"
	in_ns "$NS_B" "$RXLAT" -i "$IF_B" -d 0.5 -o json >"$T_DIR/run.json" 2>"$T_DIR/run.err"
	assert_eq run_rc 0 "$?" "rxlat -i $IF_B -d 0.5: $(tail -n 1 "$T_DIR/run.err")" &&
		assert_eq run_no_floor "" "$(grep -i floor "$T_DIR/run.err")" "its stderr" ||
		return 1
	plan_is_run "$T_DIR/list.out" "$(head -n 1 "$T_DIR/run.json")"
	no_trace after_run "$IF_B" "$NS_B"
}

# N datagrams stamped at tc ingress by rxlat's own stamper: each counted once
# at every UDP stage, each from the tc stamp
tc_exact()
{
	local s a
	need_rxlat tc || return 1
	ns_pair || return 1
	start_rxlat -i "$IF_B" --tc || return 1
	pair_udp udp "$NS_A" "$N"
	sleep 0.6 # one more report interval
	stop_rxlat || return 1
	for s in ip_rcv udp_queue_rcv sock_read; do
		a=$(q -r --arg s "$s" '.[0].attach[$s] // ""')
		if [[ -n $a && $a != *netif_receive_skb* &&
			$(q -r --arg s "$s" '.[0].measures[$s] // [] | index("udp") // ""') != "" ]]; then
			assert_eq "${s}_count" "$N" "$(stage_sum "$s" .count)"
			assert_eq "${s}_from_tc" "$N" "$(stage_sum "$s" .sources.tc)"
		else
			# not here (no attach point, UDP not seen, or before tc ingress): said why
			assert_match "${s}_why" '.+' "$(q -r --arg s "$s" \
				'.[0] | (.unavailable[$s] // .not_measured[$s].udp // (if (.attach[$s] // "") |
				test("netif_receive_skb") then "before tc ingress" else "" end))')" "why $s has no tc count"
		fi
	done
	no_trace after_tc "$IF_B" "$NS_B"
}

# the tc stamper's object as iproute2 loads it, with nothing of rxlat's
iproute2_loads()
{
	require_cmd tools tc || return 1
	ns_pair || return 1
	t_track_qdisc "$NS_B" "$IF_B" clsact
	assert_cmd qdisc tc -n "$NS_B" qdisc add dev "$IF_B" clsact &&
		assert_cmd filter tc -n "$NS_B" filter add dev "$IF_B" ingress bpf da \
			obj "$BUILD/rxlat_tc.bpf.o" sec tc || return 1
	assert_match filter_shown 'rxlat_tc' "$(tc -n "$NS_B" filter show dev "$IF_B" ingress)" \
		"tc filter show"
	pair_udp through "$NS_A" 100
	assert_cmd qdisc_del tc -n "$NS_B" qdisc del dev "$IF_B" clsact
	no_trace after_iproute2 "$IF_B" "$NS_B"
}

# The stamper of the cases below, and the source its stamps count under:
# XDP, as on a NIC, or where the kernel's XDP cannot carry a stamp, tc
stamper()
{
	STAMP=() SRC=xdp
	if xdp_meta_refused; then
		STAMP=(--tc) SRC=tc
	fi
}

# BYTES over one TCP connection from NS_A to NS_B; the receiver keeps a
# clone of every frame (--tap), so that no skb is merged into another
tcp_stream()
{
	t_bg tcprecv in_ns "$NS_B" "$TCPSTREAM" recv --port "$PORT" --bytes "$BYTES" --tap "$IF_B"
	local pid=$BG_PID
	t_wait_line "$T_DIR/tcprecv.out" '^ready$' 10 "$pid" || t_abort tcp_receiver "not ready"
	assert_cmd tcp_send in_ns "$NS_A" timeout 60 "$TCPSTREAM" send --dst "$IP4_B" --port "$PORT" \
		--bytes "$BYTES"
	t_wait_pid "$pid" 40
	assert_eq tcp_received "received $BYTES" "$(tail -n 1 "$T_DIR/tcprecv.out")"
}

# the fallback set forced: a stage whose fallback cannot serve here takes a
# kprobe on its fentry target, and counts as fentry does; where there is
# none (no kprobes, or the function inlined), the stage says so by name
kprobes()
{
	local a
	need_rxlat || return 1
	require_file build "$TCPSTREAM" "run 'make test-binaries'" || return 1
	ns_pair || return 1
	"$RXLAT" --attach fallback --stages ip_rcv,tcp_do_rcv,tcp_data_queue,udp_queue_rcv \
		--list-stages >"$T_DIR/list.out" 2>"$T_DIR/list.err"
	assert_eq list_rc 0 "$?" "rxlat --attach fallback --list-stages" || return 1
	stamper
	start_rxlat -i "$IF_B" "${STAMP[@]}" --attach fallback \
		--stages ip_rcv,tcp_do_rcv,tcp_data_queue,udp_queue_rcv || return 1
	pair_udp udp4 "$NS_A" "$N"
	pair_udp udp6 "$NS_A" "$N" --v6
	tcp_stream
	sleep 0.6 # one more report interval
	stop_rxlat || return 1
	plan_is_run "$T_DIR/list.out" "$(head -n 1 "$T_DIR/rxlat.out")"
	a=$(q -r '.[0].attach.udp_queue_rcv // ""')
	log "udp_queue_rcv: ${a:-$(q -r '.[0].unavailable.udp_queue_rcv')}"
	if [[ $a == kprobe:* ]]; then
		assert_eq udp_kprobes kprobe:udp_queue_rcv_one_skb,udpv6_queue_rcv_one_skb "$a"
		assert_eq udp_kprobe_count $((2 * N)) "$(stage_sum udp_queue_rcv .count)"
		assert_eq "udp_kprobe_from_$SRC" $((2 * N)) "$(stage_sum udp_queue_rcv ".sources.$SRC")"
	elif [[ $a == cgroup_skb:* ]]; then
		assert_eq udp_cgroup_skb_count $((2 * N)) "$(stage_sum udp_queue_rcv .count)"
	else
		assert_match udp_no_kprobe_says_why 'no kprobe either: ' \
			"$(q -r '.[0].unavailable.udp_queue_rcv // ""')" "why udp_queue_rcv is unavailable"
	fi
	a=$(q -r '.[0].attach.tcp_data_queue // ""')
	log "tcp_data_queue: ${a:-$(q -r '.[0].unavailable.tcp_data_queue')}," \
		"$(stage_sum tcp_data_queue .count) samples, tcp_do_rcv $(stage_sum tcp_do_rcv .count)," \
		"Tcp InSegs $(mib Tcp InSegs)"
	if [[ $a == kprobe:* ]]; then
		assert_eq tcp_kprobe kprobe:tcp_data_queue "$a"
		# how many segments pass tcp_data_queue is the kernel's choice: its
		# fast path takes most in-order ones past it, and a FIN that finds
		# the receiver closed passes it from tcp_rcv_state_process(), not
		# by tcp_do_rcv's tracepoint (tcp_rcv_established() only): one more
		# than tcp_do_rcv in about half the runs on 6.1. A bound the kernel
		# keeps: every segment NS_B took in but the SYN
		assert_ge tcp_kprobe_samples 1 "$(stage_sum tcp_data_queue .count)"
		assert_le tcp_kprobe_within_segments $(($(mib Tcp InSegs) - 1)) \
			"$(stage_sum tcp_data_queue .count)" "tcp_data_queue samples against Tcp InSegs less the SYN"
		assert_eq tcp_kprobe_all_stamped "$(stage_sum tcp_data_queue .count)" \
			"$(stage_sum tcp_data_queue ".sources.$SRC")"
	else
		assert_match tcp_no_kprobe_says_why 'no tracepoint inside.*no kprobe either: ' \
			"$(q -r '.[0].unavailable.tcp_data_queue // ""')" "why tcp_data_queue is unavailable"
	fi
	no_trace after_kprobes "$IF_B" "$NS_B"
}

# TCP's reads, exactly: one sample per skb with data that reached the
# socket (counted at the input hook), none merged into another; the
# segments' own stages see each of them
tcp_exact()
{
	local data
	need_rxlat nft || return 1
	require_file build "$TCPSTREAM" "run 'make test-binaries'" || return 1
	ns_pair || return 1
	in_ns "$NS_B" nft -f - <<-EOF || t_abort nft "cannot load the nftables rule"
		table inet rxlat_floor {
			counter data { }
			chain input {
				type filter hook input priority 0; policy accept;
				tcp dport $PORT tcp flags & syn == 0 meta length > 52 counter name data
			}
		}
	EOF
	stamper
	start_rxlat -i "$IF_B" "${STAMP[@]}" --proto tcp || return 1
	tcp_stream
	sleep 0.6 # one more report interval
	stop_rxlat || return 1
	data=$(in_ns "$NS_B" nft -j list counter inet rxlat_floor data | gojq '.nftables[] | .counter? // empty | .packets')
	log "data skbs $data, TcpExt TCPRcvCoalesce $(mib TcpExt TCPRcvCoalesce) TCPHPHits $(mib TcpExt TCPHPHits)"
	assert_eq tcp_no_coalescing 0 "$(mib TcpExt TCPRcvCoalesce)" "TcpExt TCPRcvCoalesce" || return 1
	assert_ge tcp_data_skbs 10 "$data" "data skbs at the input hook" || return 1
	assert_eq sock_read_tcp_count "$data" "$(stage_sum sock_read .count)"
	assert_eq "sock_read_tcp_from_$SRC" "$data" "$(stage_sum sock_read ".sources.$SRC")"
	assert_ge tcp_do_rcv_sees_all "$data" "$(stage_sum tcp_do_rcv .count)"
	assert_eq tcp_do_rcv_all_stamped "$(stage_sum tcp_do_rcv .count)" \
		"$(stage_sum tcp_do_rcv ".sources.$SRC")"
	no_trace after_tcp "$IF_B" "$NS_B"
}

suite_begin
run_test floor floor
run_test tc_exact tc_exact
run_test iproute2_loads iproute2_loads
run_test kprobes kprobes
run_test tcp_exact tcp_exact
suite_end

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# TCP reads held behind out-of-order data. One TCP stream into NS_B loses
# exactly one data segment on purpose (an nftables rule in NS_B's input
# drops the 20th data packet of the flow, once; a second run drops the 20th
# and the 26th, two holes at once); the segments that arrive
# after it, before its retransmission, wait in the out-of-order queue. The
# kernel counts them (TcpExtTCPOFOQueue, less TcpExtTCPOFOMerge for those it
# merged away): rxlat must count exactly that many sock_read reads as
# held{ooo}, leave them out of the histogram by default and put them in it
# with --include-ooo. The receiver keeps a packet socket open on its
# interface so that the kernel does not coalesce received skbs (checked:
# TcpExtTCPRcvCoalesce stays 0), which makes "one read per skb" exact, and
# the reads of the run are then the data packets that passed the rule less
# the duplicates the receiver saw (its D-SACKs).

# shellcheck source=netns-tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RXLAT=$BUILD/rxlat
PKTGEN=$BUILD/rxlat-pktgen
TCPSTREAM=$BUILD/rxlat-tcpstream
BYTES=${RXLAT_TEST_TCP_BYTES:-4000000}
PORT=7400
DROP_NTH=(20)
ATTACH=${RXLAT_TEST_ATTACH:-auto}
RXLAT_ARGS=(--attach "$ATTACH")

# the packets the rule named NAME matched (table inet rxlat_ooo)
nft_packets()	# NAME
{
	in_ns "$NS_B" nft -j list counter inet rxlat_ooo "$1" | gojq '.nftables[] | .counter? // empty | .packets'
}

# Drops the data packets to PORT numbered in DROP_NTH (1 is the first), once
# each (numgen counts the data packets, no wrap within a run); counts the
# data packets let through. A data packet: longer than a bare header with
# timestamps (52), not the SYN.
nft_drop()
{
	local n nums=()
	for n in "${DROP_NTH[@]}"; do nums+=("$((n - 1))"); done
	in_ns "$NS_B" nft -f - <<-EOF || t_abort nft "cannot load the nftables rules"
		table inet rxlat_ooo {
			counter dropped { }
			counter passed { }
			chain input {
				type filter hook input priority 0; policy accept;
				tcp dport $PORT tcp flags & syn == 0 meta length > 52 numgen inc mod 1000000000 { $(IFS=,; echo "${nums[*]}") } counter name dropped drop
				tcp dport $PORT tcp flags & syn == 0 meta length > 52 counter name passed
			}
		}
	EOF
}

sock_read_sum()	# FIELD
{
	stage_sum sock_read "$1"
}

# programs named NAME that the running rxlat holds
rxlat_holds_prog()	# NAME
{
	local ids
	ids=$(cat /proc/"$RXLAT_PID"/fdinfo/* 2>/dev/null | awk '$1 == "prog_id:" { print $2 }' |
		sort -u | gojq -s -c .)
	bpftool -j prog show | gojq --argjson ids "$ids" --arg n "$1" \
		'[.[] | select(.name == $n and ([.id] | inside($ids)))] | length'
}

# One stream with one segment lost; rxlat with ARGS. Sets EXPECT_HELD and
# EXPECT_READS from the kernel's counters, after checking the premises.
# OWN_PROG: 1 when the segments are noted by a program of their own (no
# tcp_do_rcv stage), 0 when the tcp_do_rcv programs note them.
ooo_stream()	# CHECK OWN_PROG ARGS...
{
	local check=$1 own=$2 recv_pid ofo merge coalesce dsack
	shift 2
	need_rxlat nft || return 1
	require_file build "$TCPSTREAM" "run 'make test-binaries'" || return 1
	ns_pair || t_abort setup "cannot create the namespaces"
	nft_drop
	start_rxlat -i "$IF_B" --proto tcp "$@" || return 1
	assert_eq "${check}_own_program" "$own" "$(rxlat_holds_prog rxlat_tp_tcp_ooo)" \
		"rxlat_tp_tcp_ooo loaded"
	t_bg recv in_ns "$NS_B" "$TCPSTREAM" recv --port "$PORT" --bytes "$BYTES" --tap "$IF_B"
	recv_pid=$BG_PID
	t_wait_line "$T_DIR/recv.out" '^ready$' 10 "$recv_pid" || t_abort receiver "not ready"
	assert_cmd "${check}_send" in_ns "$NS_A" timeout 60 "$TCPSTREAM" send --dst "$IP4_B" \
		--port "$PORT" --bytes "$BYTES"
	t_wait_pid "$recv_pid" 40
	assert_eq "${check}_received" "received $BYTES" "$(tail -n 1 "$T_DIR/recv.out")"
	sleep 0.6
	stop_rxlat || return 1

	ofo=$(mib TcpExt TCPOFOQueue) merge=$(mib TcpExt TCPOFOMerge)
	coalesce=$(mib TcpExt TCPRcvCoalesce)
	dsack=$(($(mib TcpExt TCPDSACKOldSent) + $(mib TcpExt TCPDSACKOfoSent)))
	log "$check: TCPOFOQueue $ofo TCPOFOMerge $merge TCPRcvCoalesce $coalesce D-SACKs $dsack," \
		"data packets passed $(nft_packets passed)"
	assert_eq "${check}_segments_dropped" "${#DROP_NTH[@]}" "$(nft_packets dropped)" || return 1
	assert_ge "${check}_segments_queued_out_of_order" 1 "$ofo" || return 1
	assert_eq "${check}_no_coalescing" 0 "$coalesce" "TcpExtTCPRcvCoalesce" || return 1
	EXPECT_HELD=$((ofo - merge))
	EXPECT_READS=$(($(nft_packets passed) - dsack))
}

held_excluded()
{
	# all stages: tcp_do_rcv's programs note the out-of-order segments
	ooo_stream excluded 0 || return 1
	assert_eq held_ooo "$EXPECT_HELD" "$(sock_read_sum .held.ooo)" "reads held behind ooo data"
	assert_eq held_not_in_histogram "$((EXPECT_READS - EXPECT_HELD))" "$(sock_read_sum .count)" \
		"sock_read samples"
	assert_eq held_not_in_sources "$((EXPECT_READS - EXPECT_HELD))" \
		"$(q '[.[].series[] | select(.stage == "sock_read") | .sources | add] | add // 0')"
}

held_included()
{
	# sock_read alone: a program of its own does
	ooo_stream included 1 --stages sock_read --include-ooo || return 1
	assert_eq held_ooo "$EXPECT_HELD" "$(sock_read_sum .held.ooo)" "reads held behind ooo data"
	assert_eq held_in_histogram "$EXPECT_READS" "$(sock_read_sum .count)" "sock_read samples"
}

# two holes open at once: the ranges after each are noted apart, and the
# second retransmission, in order when it comes, is no held read
held_two_holes()
{
	DROP_NTH=(20 26)
	ooo_stream two_holes 0 || return 1
	assert_eq held_ooo "$EXPECT_HELD" "$(sock_read_sum .held.ooo)" "reads held behind ooo data"
	assert_eq held_not_in_histogram "$((EXPECT_READS - EXPECT_HELD))" "$(sock_read_sum .count)" \
		"sock_read samples"
}

SFX=${RXLAT_TEST_ATTACH:+_$ATTACH}

suite_begin
run_test "held_excluded$SFX" one_vm_kernel 6.1 held_excluded
run_test "held_included$SFX" one_vm_kernel 6.12 held_included
run_test "held_two_holes$SFX" one_vm_kernel 6.1 held_two_holes
suite_end

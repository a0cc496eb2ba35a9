#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rxlat's floor, Linux 5.10 (docs/design.md, "Kernels"), and what it gives
# there (make test boots Debian 11's 5.10 under QEMU for this file): on
# every kernel, --list-stages loads what it lists, each stage's attach point
# in it is the one a run attaches, and nothing speaks of a floor; the tc
# stamper, loaded by rxlat and by iproute2 alone, gives exact UDP counts
# at every UDP stage, and leaves nothing behind. Which form of the hooks a
# kernel takes (with or without fetch-add and compare-and-swap) is rxlat's
# choice; the unit test progs_test checks that the second has none.

# shellcheck source=netns-tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RXLAT=$BUILD/rxlat
PKTGEN=$BUILD/rxlat-pktgen
N=${RXLAT_TEST_PACKETS:-500}
PORT=7300

# no_trace NAME IF NS: nothing rxlat attaches is left on IF of namespace NS
no_trace()
{
	assert_eq "$1_no_clsact" "" "$(tc -n "$3" qdisc show dev "$2" | grep -o clsact)" "qdiscs of $2" &&
		assert_eq "$1_no_xdp" "" "$(ip -n "$3" -d link show dev "$2" | grep -o 'prog/xdp')" "XDP on $2"
}

# plan_is_run LIST JSON: each stage's attach point in --list-stages (file
# LIST) is the one the run attached (.attach of its first JSON report);
# one the run left out is unavailable or not a default stage there
plan_is_run()
{
	local s a rest
	for s in $(gojq -r '.attach | keys[]' <<<"$2"); do
		a=$(gojq -r --arg s "$s" '.attach[$s] // "-"' <<<"$2")
		rest=$(sed -nE "s/^$s +//p" "$1")
		if [[ $a == - ]]; then
			assert_match "plan_$s" '^unavailable|not by default' "$rest" "--list-stages for $s, which the run left out"
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

suite_begin
run_test floor floor
run_test tc_exact tc_exact
run_test iproute2_loads iproute2_loads
suite_end

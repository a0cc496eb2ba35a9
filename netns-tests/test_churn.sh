#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Interface churn, as on a container host: rxlat without -i while veth
# pairs are created and deleted round after round. The slots of deleted
# interfaces are released, so that a new interface still gets a series of
# its own after many more interfaces than --max-ifaces have come and gone;
# no Prometheus counter ever goes down meanwhile; and when interfaces do
# find every slot taken, one line on stderr says so. Every frame is sent by
# rxlat-pktgen, so each interface's ip_rcv samples are known exactly.

# shellcheck source=netns-tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RXLAT=$BUILD/rxlat
PKTGEN=$BUILD/rxlat-pktgen
PORT=7600
PROM=9476
MAX_IFACES=6

need() { need_rxlat curl "$@"; }

# A veth pair from NS_A (a$1) into NS_B (b$1), addressed 10.12.$1.0/24, up.
add_pair()	# N
{
	ip -n "$NS_A" link add "a$1" type veth peer name "b$1" netns "$NS_B" &&
		ip -n "$NS_A" addr add "10.12.$1.1/24" dev "a$1" &&
		ip -n "$NS_B" addr add "10.12.$1.2/24" dev "b$1" &&
		ip -n "$NS_A" link set "a$1" up && ip -n "$NS_B" link set "b$1" up
}

# COUNT datagrams from a$1 to b$1 (to a closed port: each is one ip_rcv sample in NS_B).
send_to()	# N COUNT
{
	in_ns "$NS_A" "$PKTGEN" send --dev "a$1" --dst-mac "$(link_mac "$NS_B" "b$1")" \
		--src-ip "10.12.$1.1" --dst-ip "10.12.$1.2" --dport "$PORT" --count "$2" \
		>/dev/null 2>&1
}

# The exposition's sample lines ("name{labels} value"), sorted.
scrape()
{
	in_ns "$NS_B" curl -sf "http://127.0.0.1:$PROM/metrics" | grep -v '^#' | sort
}

# ip_rcv samples of interface IF over the whole run (none: no stamper here)
ip_rcv_of()	# IF
{
	q --arg i "$1" '[.[].series[] | select(.stage == "ip_rcv" and .ifname == $i) |
		.sources.none + .count] | add // 0'
}

churn()
{
	local round i n=0 down=""
	need || return 1
	ns_pair || t_abort setup "cannot create the namespaces"
	start_rxlat --max-ifaces "$MAX_IFACES" --prometheus "$PROM" || return 1
	scrape >"$T_DIR/prom.0" || t_abort scrape "cannot scrape /metrics"
	# 8 rounds of 4 pairs: 32 interfaces through 6 slots, 3 datagrams each
	for ((round = 1; round <= 8; round++)); do
		for ((i = 1; i <= 4; i++)); do
			add_pair $((round * 10 + i)) || t_abort add_pair "cannot create a veth pair"
			send_to $((round * 10 + i)) 3 || t_abort send "rxlat-pktgen send failed"
		done
		sleep 0.7 # a report with their samples
		scrape >"$T_DIR/prom.$round"
		for ((i = 1; i <= 4; i++)); do
			ip -n "$NS_A" link del "a$((round * 10 + i))"
		done
		sleep 2 # two reports: the slots are released after the second
		down+=$(went_down "$T_DIR/prom.$((round - 1))" "$T_DIR/prom.$round")
	done
	add_pair 99 || t_abort add_pair "cannot create the last veth pair"
	send_to 99 5 || t_abort send "rxlat-pktgen send failed"
	sleep 0.7
	scrape >"$T_DIR/prom.last"
	down+=$(went_down "$T_DIR/prom.8" "$T_DIR/prom.last")
	stop_rxlat || return 1
	for ((round = 1; round <= 8; round++)); do
		for ((i = 1; i <= 4; i++)); do
			n=$((n + $(ip_rcv_of "b$((round * 10 + i))")))
		done
	done
	assert_eq every_churned_interface_by_name $((8 * 4 * 3)) "$n" \
		"ip_rcv samples of the 32 churned interfaces, each under its own name"
	assert_eq new_interface_own_series 5 "$(ip_rcv_of b99)" "ip_rcv samples of b99"
	assert_eq nothing_as_other 0 "$(ip_rcv_of other)" "ip_rcv samples under \"other\""
	assert_eq no_slots_full_line 0 "$(grep -c 'every interface slot is taken' "$T_DIR/rxlat.err")"
	assert_eq prometheus_never_down "" "$down" "counters that went down or vanished"
	assert_eq prometheus_b99 5 \
		"$(awk -F' ' '/^rxlat_stage_samples_total\{stage="ip_rcv",ifname="b99",queue="all",source="none"\}/ { print $2 }' "$T_DIR/prom.last")"
	assert_eq prometheus_churned_kept 3 \
		"$(awk -F' ' '/^rxlat_stage_samples_total\{stage="ip_rcv",ifname="b11",queue="all",source="none"\}/ { print $2 }' "$T_DIR/prom.last")"
}

# More interfaces at once than slots: one line says so, the rest is "other".
slots_full()
{
	local i
	need || return 1
	ns_pair || t_abort setup "cannot create the namespaces"
	start_rxlat --max-ifaces "$MAX_IFACES" || return 1
	for ((i = 1; i <= 10; i++)); do
		add_pair $((20 + i)) || t_abort add_pair "cannot create a veth pair"
		send_to $((20 + i)) 2 || t_abort send "rxlat-pktgen send failed"
	done
	sleep 1.2
	stop_rxlat || return 1
	assert_eq one_line 1 "$(grep -c 'every interface slot is taken' "$T_DIR/rxlat.err")"
	assert_eq all_counted 20 "$(($(q '[.[].series[] | select(.stage == "ip_rcv" and
		(.ifname | test("^b2[0-9]$|^b30$|^other$"))) | .sources.none + .count] | add // 0')))"
	assert_ge some_as_other 2 "$(ip_rcv_of other)" "ip_rcv samples under \"other\""
}

suite_begin
run_test churn one_vm_kernel 6.1 churn
run_test slots_full one_vm_kernel 6.12 slots_full
suite_end

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rxlat on real NIC drivers, inside the VM that netns-tests/vm/drivers.sh
# boots: for each pair of NICs in RXLAT_NIC_PAIRS ("DRIVER=MAC_A=MAC_B ..."),
# the two NICs go into two namespaces, rxlat runs on the second, and known
# traffic goes from the first: UDP over IPv4 and IPv6 (rxlat-pktgen, 8
# flows) and TCP over IPv4 and IPv6 (iperf3, receive GRO off so that every
# frame is one skb). Checked per driver: the stamper rxlat chose and the line
# that says so; every stage's count against the datagrams sent and the
# NIC's own receive counter; the stamp source of every sample; the samples
# per receive queue against the driver's per-queue counters (ethtool -S)
# and, in XDP, the stamper's; nothing left on the NICs afterwards. On
# vmxnet3, which gives XDP programs no room for metadata: the switch to the
# tc stamper, --xdp-mode native refused, the hint --xdp-mode skb followed,
# a stamper xdp-loader attached (--no-xdp) said, its hint followed, and a
# pod routed behind the NIC measured from the tc stamp (UDP over IPv4 and
# IPv6, TCP).
#
# Prints one line "driver NAME: N passed, M failed, K skipped" per driver,
# then "N passed, M failed, K skipped" over all of them.
#
#   drivers_guest.sh             every pair of RXLAT_NIC_PAIRS
#   drivers_guest.sh --one NAME  the test of one driver (lib.sh's verdict lines)
#   drivers_guest.sh --bench NAME...
#                                make bench part V on those drivers' pairs, one
#                                after the other (bench_driver)

# shellcheck source=netns-tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
# real NICs here: rxlat picks the stamper itself, as on a user's machine
RXLAT_STAMPER=default

RXLAT=$BUILD/rxlat
PKTGEN=$BUILD/rxlat-pktgen
N=${RXLAT_TEST_PACKETS:-1000}
PORT=7300
TCP_BYTES=${RXLAT_TEST_TCP_BYTES:-2M}
PPS=${RXLAT_TEST_PPS:-2000}
# the traffic phases of each driver, and how many times over (docs/tests.md)
PHASES=${RXLAT_DRIVER_PHASES:-udp4 udp6 tcp4 tcp6}
REPEAT=${RXLAT_DRIVER_REPEAT:-1}

need() { need_rxlat ethtool iperf3 "$@"; }

# The interface of this namespace with MAC, waiting for it to come back
# from a namespace being deleted (the kernel returns physical NICs to the
# initial namespace).
nic_by_mac()	# MAC
{
	local i dev
	for ((i = 0; i < 100; i++)); do
		dev=$(ip -j link show | gojq -r --arg m "$1" '.[] | select(.address == $m) | .ifname')
		[[ -n $dev ]] && echo "$dev" && return 0
		sleep 0.1
	done
	return 1
}

# rx packets of NS's IF, as the driver counts them
rx_packets()	# NS IF
{
	ip -n "$1" -s -j link show dev "$2" | gojq -r '.[0].stats64.rx.packets'
}

tx_packets()	# NS IF
{
	ip -n "$1" -s -j link show dev "$2" | gojq -r '.[0].stats64.tx.packets'
}

# The driver's own per-queue receive counters, as {"queue": packets}:
# virtio_net's rxN_xdp_packets (6.12 moved its plain per-queue packet
# counts out of ethtool -S, to netlink's qstats; rxlat stamps in XDP there),
# vmxnet3's "Rx Queue#: N" blocks (unicast, multicast and broadcast), queue
# 0 of a single-queue NIC (e1000e).
driver_queues()	# NS IF
{
	in_ns "$1" ethtool -S "$2" | awk -v drv="$DRIVER" '
		drv == "virtio_net" && $1 ~ /^rx[0-9]+_xdp_packets:$/ {
			q = $1; gsub(/^rx|_xdp_packets:$/, "", q); n[q] += $2 }
		drv == "vmxnet3" && /Rx Queue#:/ { rxq = $3 }
		drv == "vmxnet3" && /Tx Queue#:/ { rxq = "" }
		drv == "vmxnet3" && rxq != "" && /(ucast|mcast|bcast) pkts rx:/ { n[rxq] += $NF }
		drv == "e1000e" && $1 == "rx_packets:" { n[0] += $2 }
		END { printf "{"; s = ""; for (q in n) { printf "%s\"%s\": %d", s, q, n[q]; s = ", " } print "}" }'
}

# nic_pair DRIVER: the pair's NICs as NS_A's IF_A and NS_B's IF_B, set up
# as ns_pair sets up a veth pair (addresses, static neighbours, quiet IPv6),
# up, and quiet. virtio_net gets its 4 queues (the guest starts with 2).
nic_pair()	# DRIVER
{
	local pair mac_a mac_b dev_a dev_b i stable=0 last=-1 now ns dev
	for pair in $RXLAT_NIC_PAIRS; do
		[[ $pair == "$1="* ]] && break
		pair=
	done
	[[ -n $pair ]] || return 1
	IFS='=' read -r _ mac_a mac_b <<<"$pair"
	dev_a=$(nic_by_mac "$mac_a") && dev_b=$(nic_by_mac "$mac_b") || return 1
	ns_create NS_A && ns_create NS_B || return 1
	IF_A=nica IF_B=nicb
	IP4_A=10.12.0.1 IP4_B=10.12.0.2 IP6_A=fd12::1 IP6_B=fd12::2
	ip link set dev "$dev_a" netns "$NS_A" && ip link set dev "$dev_b" netns "$NS_B" &&
		ip -n "$NS_A" link set dev "$dev_a" name "$IF_A" &&
		ip -n "$NS_B" link set dev "$dev_b" name "$IF_B" || return 1
	for ns in "$NS_A" "$NS_B"; do
		dev=$IF_A
		[[ $ns == "$NS_B" ]] && dev=$IF_B
		in_ns "$ns" sysctl -q -w "net.ipv6.conf.$dev.addr_gen_mode=1" \
			"net.ipv6.conf.$dev.router_solicitations=0" >/dev/null || return 1
		if [[ $1 == virtio_net ]]; then
			in_ns "$ns" ethtool -L "$dev" combined 4 || return 1
		fi
	done
	ip -n "$NS_A" addr add "$IP4_A/24" dev "$IF_A" &&
		ip -n "$NS_B" addr add "$IP4_B/24" dev "$IF_B" &&
		ip -n "$NS_A" addr add "$IP6_A/64" dev "$IF_A" nodad &&
		ip -n "$NS_B" addr add "$IP6_B/64" dev "$IF_B" nodad &&
		ip -n "$NS_A" link set "$IF_A" up &&
		ip -n "$NS_B" link set "$IF_B" up || return 1
	MAC_A=$mac_a MAC_B=$mac_b
	ip -n "$NS_A" neigh replace "$IP4_B" lladdr "$MAC_B" dev "$IF_A" nud permanent &&
		ip -n "$NS_A" neigh replace "$IP6_B" lladdr "$MAC_B" dev "$IF_A" nud permanent &&
		ip -n "$NS_B" neigh replace "$IP4_A" lladdr "$MAC_A" dev "$IF_B" nud permanent &&
		ip -n "$NS_B" neigh replace "$IP6_A" lladdr "$MAC_A" dev "$IF_B" nud permanent ||
		return 1
	# every frame one skb: the NIC's counter and ip_rcv then count alike
	in_ns "$NS_B" ethtool -K "$IF_B" gro off || return 1
	# carrier (e1000e takes a moment), then quiet links (MLD reports done)
	for ((i = 0; i < 100; i++)); do
		[[ $(ip -n "$NS_B" -j link show dev "$IF_B" | gojq -r '.[0].operstate') == UP &&
			$(ip -n "$NS_A" -j link show dev "$IF_A" | gojq -r '.[0].operstate') == UP ]] && break
		sleep 0.1
	done
	for ((i = 0; i < 100 && stable < 5; i++)); do
		sleep 0.1
		now=$(($(rx_packets "$NS_A" "$IF_A") + $(rx_packets "$NS_B" "$IF_B")))
		if ((now == last)); then
			((stable++))
		else
			stable=0 last=$now
		fi
	done
	IFINDEX_B=$(link_ifindex "$NS_B" "$IF_B")
}

# ---- phases: the reports of one kind of traffic

# The next reports are the next phase's: the previous phase's samples are
# all reported once two report intervals (-r 0.5) have passed. A phase's
# checks read its reports from MARK to END, the lines complete when it
# ended: rxlat goes on writing while they run, and a reader can catch its
# next line half-written (a write of a regular file is seen a page at a
# time).
phase_begin()
{
	sleep 1.2
	MARK=$(wc -l <"$T_DIR/rxlat.out")
	RX0=$(rx_packets "$NS_B" "$IF_B")
	DQ0=$(driver_queues "$NS_B" "$IF_B")
}

phase_end()
{
	sleep 1.2
	END=$(wc -l <"$T_DIR/rxlat.out")
	RX=$(($(rx_packets "$NS_B" "$IF_B") - RX0))
	DQ=$(gojq -nc --argjson a "$DQ0" --argjson b "$(driver_queues "$NS_B" "$IF_B")" \
		'[$b | to_entries[] | {q: (.key | tonumber), n: (.value - ($a[.key] // 0))}
		  | select(.n > 0)] | sort_by(.q)')
}

# gojq over the reports of the phase, as one array
pq()	# JQ-PROGRAM [ARGS...]
{
	sed -n "$((MARK + 1)),${END}p" "$T_DIR/rxlat.out" | gojq -s "$@"
}

psum()	# STAGE FIELD
{
	pq --arg s "$1" "[.[].series[] | select(.stage == \$s) | $2] | add // 0"
}

# The checks of one phase: every frame the NIC received is one ip_rcv
# sample from SOURCE; per queue, ip_rcv's samples are the driver's counts
# (and, stamped in XDP, the stamper's).
phase_checks()	# CHECK SOURCE
{
	local qs
	assert_eq "$1_ip_rcv_count" "$RX" "$(psum ip_rcv .count)" "ip_rcv samples vs the NIC's rx packets"
	assert_eq "$1_ip_rcv_from_$2" "$RX" "$(psum ip_rcv ".sources.$2")"
	qs=$(pq -c '[.[].series[] | select(.stage == "ip_rcv")] | group_by(.queue)
		| map({q: .[0].queue, n: (map(.count) | add)}) | map(select(.n > 0))')
	log "$1: the NIC received $RX frames; per queue, ethtool -S $DQ, rxlat ip_rcv $qs"
	# virtio_net counts per queue in ethtool -S only what XDP saw (6.12)
	[[ $DRIVER == virtio_net && $2 != xdp ]] ||
		assert_eq "$1_per_queue_vs_driver" "$DQ" "$qs" "ip_rcv per queue vs ethtool -S"
	if [[ $2 == xdp ]]; then
		assert_eq "$1_per_queue_vs_stamper" "$qs" "$(pq -c --argjson i "$IFINDEX_B" \
			'[.[].xdp[] | select(.ifindex == $i)] | group_by(.queue)
			| map({q: .[0].queue, n: (map(.stamped) | add)}) | map(select(.n > 0))')"
		# and the polls that took them, on the same queues
		assert_eq "$1_queues_polled" "$(gojq -c 'map(.q)' <<<"$qs")" \
			"$(pq -c --argjson i "$IFINDEX_B" '[.[].xdp[] | select(.ifindex == $i)]
			| group_by(.queue) | map(select(map(.polls) | add > 0)) | map(.[0].queue)')"
	fi
	if [[ -n ${WAIT_CHECKS:-} && $2 == tc ]]; then
		napi_wait_tc_checks "$1"
	elif [[ -n ${WAIT_CHECKS:-} ]]; then
		napi_wait_checks "$1"
	fi
	return 0
}

# napi_wait from the NIC's interrupts to each poll's first packet at tc
# ingress: a sample from the tc stamp or a reason for none per poll, so at
# most one per frame; none unsampled as busy or late; on the queues that
# took the frames.
napi_wait_tc_checks()	# CHECK
{
	local n un
	n=$(psum napi_wait .count)
	un=$(psum napi_wait '(.unsampled | add)')
	log "$1: napi_wait: $n samples, unsampled $(pq -c '[.[].series[] | select(.stage == "napi_wait")
		| .unsampled] | reduce .[] as $u ({}; . as $a | $u | with_entries(.value += ($a[.key] // 0)))')"
	assert_ge "$1_napi_wait_samples" 1 "$n" "napi_wait samples"
	assert_eq "$1_napi_wait_from_tc" "$n" "$(psum napi_wait .sources.tc)" "napi_wait samples from the tc stamp"
	assert_le "$1_napi_wait_per_frame" "$RX" "$((n + un))" "napi_wait samples and unsampled polls"
	assert_eq "$1_napi_wait_busy_late" 0 "$(psum napi_wait '(.unsampled.busy + .unsampled.late)')"
	assert_eq "$1_napi_wait_queues" '[]' "$(pq -c '([.[].series[] | select(.stage == "ip_rcv" and .count > 0)
		| .queue] | unique) as $q | [.[].series[] | select(.stage == "napi_wait" and .count > 0)
		| .queue] | unique | map(select(. as $x | $q | index($x) | not))')" \
		"napi_wait queues without ip_rcv samples"
}

# napi_wait from the NIC's interrupts: per queue, every poll counted once at
# ip_rcv, as a sample or under the reason it has none (unsampled). Only a
# poll that went on after one that used its whole budget follows no
# schedule of its own (after_full: at most polls_full of them); every other
# poll has its sample.
napi_wait_checks()	# CHECK
{
	local per_queue
	per_queue=$(pq -c --argjson i "$IFINDEX_B" '
		([.[].series[] | select(.stage == "napi_wait")] | group_by(.queue)
		 | map({key: (.[0].queue | tostring), value: {wait: (map(.count) | add),
			after_full: (map(.unsampled.after_full) | add),
			unscheduled: (map(.unsampled.unscheduled) | add),
			busy: (map(.unsampled.busy) | add),
			late: (map(.unsampled.late) | add)}}) | from_entries) as $w
		| [.[].xdp[] | select(.ifindex == $i)] | group_by(.queue)
		| map({q: .[0].queue, polls: (map(.polls) | add), full: (map(.polls_full) | add)})
		| map(select(.polls > 0))
		| map(. + ($w[.q | tostring] // {wait: 0, after_full: 0, unscheduled: 0, busy: 0, late: 0}))')
	log "$1: napi_wait per queue: $per_queue"
	# a program the kernel did not run, as it was running on that CPU already
	# (an interrupt's schedule inside the schedule program): not an assertion
	log "$1: recursion misses: $(bpftool -j prog show | gojq -c '[.[] | select(.name |
		startswith("rxlat_wait")) | {(.name): (.recursion_misses // 0)}] | add')"
	assert_ge "$1_napi_wait_samples" 1 "$(psum napi_wait .count)" "napi_wait samples"
	assert_eq "$1_napi_wait_polls_counted" '[]' "$(gojq -c 'map(select(.wait + .after_full
		+ .unscheduled + .busy + .late != .polls))' <<<"$per_queue")" \
		"queues whose napi_wait samples and unsampled polls are not their polls"
	assert_eq "$1_napi_wait_unsampled" '[]' "$(gojq -c 'map(select(.unscheduled + .busy + .late > 0
		or .after_full > .full))' <<<"$per_queue")" \
		"queues with polls unsampled for another reason than a full poll before them"
	assert_eq "$1_napi_wait_per_poll" '[]' "$(gojq -c 'map(select(.wait > .polls or .wait < .polls - .full))' \
		<<<"$per_queue")" "queues whose napi_wait samples are not their polls less at most the full ones"
}

udp_phase()	# CHECK 4|6 SOURCE
{
	local src=$IP4_A dst=$IP4_B v6=() s
	[[ $2 == 6 ]] && src=$IP6_A dst=$IP6_B v6=(--v6)
	phase_begin
	t_bg "recv_$1" in_ns "$NS_B" "$PKTGEN" recv --port "$PORT" --count "$N" --timeout 60 "${v6[@]}"
	local pid=$BG_PID
	t_wait_line "$T_DIR/recv_$1.out" '^ready$' 20 "$pid" ||
		t_abort "$1_receiver" "rxlat-pktgen recv did not start"
	# paced: under emulation on a busy host, a burst of 1000 overflowed the
	# way through the host's taps now and then (2 of 1000 never reached
	# the receiving NIC)
	assert_cmd "$1_send" in_ns "$NS_A" timeout 60 "$PKTGEN" send --dev "$IF_A" --dst-mac "$MAC_B" \
		--src-ip "$src" --dst-ip "$dst" --dport "$PORT" --count "$N" --flows 8 --pps "$PPS"
	t_wait_pid "$pid" 60
	assert_eq "$1_received" "received $N valid $N invalid 0 duplicate 0" \
		"$(tail -n 1 "$T_DIR/recv_$1.out")"
	phase_end
	assert_eq "$1_nic_rx" "$N" "$RX" "the NIC's rx packets"
	for s in udp_queue_rcv sock_read; do
		assert_eq "$1_${s}_count" "$N" "$(psum "$s" .count)"
		assert_eq "$1_${s}_from_$3" "$N" "$(psum "$s" ".sources.$3")"
	done
	phase_checks "$1" "$3"
}

tcp_phase()	# CHECK 4|6 SOURCE
{
	local dst=$IP4_B v=-4
	[[ $2 == 6 ]] && dst=$IP6_B v=-6
	phase_begin
	t_bg "iperf_$1" in_ns "$NS_B" iperf3 -s -1 -p 5201 "$v" --forceflush
	t_wait_line "$T_DIR/iperf_$1.out" 'listening' 20 "$BG_PID" ||
		t_abort "$1_server" "iperf3 -s did not start"
	assert_cmd "$1_iperf3" in_ns "$NS_A" timeout 120 iperf3 -c "$dst" -p 5201 "$v" -n "$TCP_BYTES"
	phase_end
	# at least 32 frames of 64 KiB: with the device as it was, virtio_net
	# takes the host's large segments (XDP would turn that off)
	assert_ge "$1_nic_rx" 32 "$RX" "the NIC's rx packets"
	assert_ge "$1_tcp_do_rcv_samples" 1 "$(psum tcp_do_rcv .count)"
	assert_eq "$1_tcp_do_rcv_unstamped" 0 "$(psum tcp_do_rcv .sources.none)"
	phase_checks "$1" "$3"
}

# Nothing of rxlat left: no XDP and no clsact qdisc on the receiving NIC,
# and no rxlat program loaded (nothing else in the VM loads one; a tcx link
# would hold the tc stamper's). The kernel releases links a moment after
# the process is gone.
nic_clean()	# CHECK
{
	assert_eq "$1_no_rxlat_programs" 0 "$(prog_count_settles 0)"
	assert_eq "$1_no_xdp" "" "$(link_xdp_prog "$NS_B" "$IF_B")"
	assert_eq "$1_no_clsact" "" "$(tc -n "$NS_B" -j qdisc show dev "$IF_B" |
		gojq -r '.[] | select(.kind == "clsact") | .kind')"
}

# ---- a pod behind the receiving NIC

# A pod namespace NS_P routed behind NS_B over a veth pair: 10.13.0.2 and
# fd13::2, which NS_A reaches through the NIC.
pod_behind()
{
	local hmac pmac
	NS_P=''
	ns_create NS_P || return 1
	ip -n "$NS_B" link add hp0 type veth peer name eth0 netns "$NS_P" &&
		ip -n "$NS_B" addr add 10.13.0.1/24 dev hp0 &&
		ip -n "$NS_B" addr add fd13::1/64 dev hp0 nodad &&
		ip -n "$NS_P" addr add 10.13.0.2/24 dev eth0 &&
		ip -n "$NS_P" addr add fd13::2/64 dev eth0 nodad &&
		ip -n "$NS_B" link set hp0 up && ip -n "$NS_P" link set eth0 up &&
		ip -n "$NS_P" route add default via 10.13.0.1 &&
		ip -n "$NS_P" route add default via fd13::1 &&
		ip -n "$NS_A" route add 10.13.0.0/24 via "$IP4_B" &&
		ip -n "$NS_A" route add fd13::/64 via "$IP6_B" &&
		in_ns "$NS_B" sysctl -q -w net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 \
			>/dev/null || return 1
	hmac=$(link_mac "$NS_B" hp0) pmac=$(link_mac "$NS_P" eth0)
	ip -n "$NS_B" neigh replace 10.13.0.2 lladdr "$pmac" dev hp0 nud permanent &&
		ip -n "$NS_B" neigh replace fd13::2 lladdr "$pmac" dev hp0 nud permanent &&
		ip -n "$NS_P" neigh replace 10.13.0.1 lladdr "$hmac" dev eth0 nud permanent &&
		ip -n "$NS_P" neigh replace fd13::1 lladdr "$hmac" dev eth0 nud permanent
}

# FIELD summed over the pod's series of STAGE in the phase's reports
pod_sum()	# STAGE FIELD
{
	pq --arg s "$1" --arg n "$NS_P" "[.[].series[] | select(.stage == \$s and .netns == \$n) | $2] | add // 0"
}

# N datagrams into the pod: its ip_rcv and udp_queue_rcv count each one
# from SOURCE, under the NIC.
pod_udp_phase()	# CHECK 4|6 SOURCE
{
	local src=$IP4_A dst=10.13.0.2 v6=() s
	[[ $2 == 6 ]] && src=$IP6_A dst=fd13::2 v6=(--v6)
	phase_begin
	t_bg "recv_$1" in_ns "$NS_P" "$PKTGEN" recv --port "$PORT" --count "$N" --timeout 60 "${v6[@]}"
	local pid=$BG_PID
	t_wait_line "$T_DIR/recv_$1.out" '^ready$' 20 "$pid" ||
		t_abort "$1_receiver" "rxlat-pktgen recv did not start"
	assert_cmd "$1_send" in_ns "$NS_A" timeout 60 "$PKTGEN" send --dev "$IF_A" --dst-mac "$MAC_B" \
		--src-ip "$src" --dst-ip "$dst" --dport "$PORT" --count "$N" --flows 8 --pps "$PPS"
	t_wait_pid "$pid" 60
	assert_eq "$1_received" "received $N valid $N invalid 0 duplicate 0" \
		"$(tail -n 1 "$T_DIR/recv_$1.out")"
	phase_end
	for s in ip_rcv udp_queue_rcv sock_read; do
		assert_eq "$1_${s}_from_$3" "$N" "$(pod_sum "$s" ".sources.$3")" "the pod's $s samples"
	done
	assert_eq "$1_unstamped" 0 "$(pod_sum udp_queue_rcv .sources.none)"
	assert_eq "$1_under_the_nic" "$IF_B" "$(pq -r --arg n "$NS_P" '[.[].series[] |
		select(.netns == $n) | .ifname] | unique | join(",")')" "interfaces of the pod's series"
}

# TCP into the pod: every segment at its tcp_do_rcv from SOURCE.
pod_tcp_phase()	# CHECK SOURCE
{
	local n
	phase_begin
	t_bg "iperf_$1" in_ns "$NS_P" iperf3 -s -1 -p 5202 --forceflush
	t_wait_line "$T_DIR/iperf_$1.out" 'listening' 20 "$BG_PID" ||
		t_abort "$1_server" "iperf3 -s did not start"
	assert_cmd "$1_iperf3" in_ns "$NS_A" timeout 120 iperf3 -c 10.13.0.2 -p 5202 -n "$TCP_BYTES"
	phase_end
	n=$(pod_sum tcp_do_rcv .count)
	assert_ge "$1_tcp_do_rcv_samples" 32 "$n" "the pod's tcp_do_rcv samples"
	assert_eq "$1_tcp_do_rcv_from_$2" "$n" "$(pod_sum tcp_do_rcv ".sources.$2")"
}

# ---- the drivers

driver_test()	# DRIVER
{
	DRIVER=$1
	need || return 1
	nic_pair "$DRIVER" || t_abort setup "cannot set up the $DRIVER pair"
	assert_eq driver "$DRIVER" "$(in_ns "$NS_B" ethtool -i "$IF_B" | awk '$1 == "driver:" { print $2 }')"
	device_state "$NS_B" "$IF_B" >"$T_DIR/state.before"
	# rxlat's defaults: stamped at tc ingress, the device left as it was;
	# virtio_net: the wait before the stamp too, from the NIC's interrupts
	WAIT_CHECKS=''
	if [[ $DRIVER == virtio_net ]]; then
		WAIT_CHECKS=1
		start_rxlat -i "$IF_B" --per-queue --stages +napi_wait || return 1
	else
		start_rxlat -i "$IF_B" --per-queue || return 1
	fi
	SOURCE=tc
	assert_match default_line "^rxlat: $IF_B: stamping at tc ingress, rxlat's default: it changes nothing on the device; " \
		"$(cat "$T_DIR/rxlat.err")"
	assert_eq default_no_xdp "" "$(link_xdp_prog "$NS_B" "$IF_B")"
	state_same during
	local r p c
	for ((r = 1; r <= REPEAT; r++)); do
		for p in $PHASES; do
			c=$p
			((REPEAT == 1)) || c=${p}_r$r
			case $p in
			udp4 | udp6) udp_phase "$c" "${p#udp}" "$SOURCE" ;;
			tcp4 | tcp6) tcp_phase "$c" "${p#tcp}" "$SOURCE" ;;
			esac
		done
	done
	if [[ $DRIVER == virtio_net && " $PHASES " == *" udp4 "* ]]; then
		assert_ge udp_queues_used 2 "$(gojq -s '[.[].series[] | select(.stage == "ip_rcv")
			| .queue] | unique | length' "$T_DIR/rxlat.out")" "receive queues with samples"
	fi
	state_same traffic
	stop_rxlat || return 1
	nic_clean after
	state_same after
	WAIT_CHECKS=''
	case $DRIVER in
	virtio_net) xdp_native ;;
	e1000e) xdp_none ;;
	vmxnet3) no_meta ;;
	esac
	pod_test
}

# A pod behind the NIC, measured from the tc stamp with rxlat's defaults.
# Last: forwarding, which the pod needs, makes the kernel turn LRO off on
# every device of the namespace (dev_disable_lro()), so the device's state
# "before" is taken again once the pod is there.
pod_test()
{
	pod_behind || t_abort pod "cannot put a pod behind $IF_B"
	device_state "$NS_B" "$IF_B" >"$T_DIR/state.before"
	start_rxlat -i "$IF_B" --per-queue || return 1
	pod_udp_phase pod_udp4 4 tc
	pod_udp_phase pod_udp6 6 tc
	pod_tcp_phase pod_tcp4 tc
	state_same pod_traffic
	stop_rxlat || return 1
	nic_clean pod
	state_same pod_after
}

# --xdp-mode native on virtio_net: the line that says what XDP does to the
# driver before the stamper is attached, every datagram from the XDP stamp
# (per queue against the driver's and the stamper's counts), and the device
# as it was once rxlat is gone.
xdp_native()
{
	local said attached
	start_rxlat -i "$IF_B" --per-queue --xdp-mode native || return 1
	said=$(grep -n "^rxlat: $IF_B: attaching the XDP stamper in native mode: driver virtio_net stops NAPI on every queue" \
		"$T_DIR/rxlat.err" | cut -d: -f1)
	attached=$(grep -n "XDP stamper attached to $IF_B in native mode" "$T_DIR/rxlat.err" | cut -d: -f1)
	assert_match native_line '^[0-9]+$' "$said" "the line before the attach"
	assert_ge native_line_first $((${said:-0} + 1)) "${attached:-0}" \
		"line of the attach, after the one that says what it does"
	udp_phase native_udp4 4 xdp
	stop_rxlat || return 1
	nic_clean native
	state_same native_after
}

# rxlat -i IF_B --xdp-mode native, refused: exit status 1 and one error,
# matching ERE, nothing left attached, the device as it was; checks NAME_*.
native_refused()	# NAME ERE
{
	local rc
	t_bg native in_ns "$NS_B" "$RXLAT" -i "$IF_B" --xdp-mode native -o json -r 0.5
	t_wait_pid "$BG_PID" 60
	rc=$?
	assert_eq "$1_exit" 1 "$rc" "rxlat exit status ($(tail -n 1 "$T_DIR/native.err"))"
	assert_match "$1_error" "$2" "$(grep '^rxlat: error' "$T_DIR/native.err")"
	assert_eq "$1_one_error" 1 "$(grep -c '^rxlat: error' "$T_DIR/native.err")"
	nic_clean "$1"
	state_same "$1_after"
}

# e1000e has no native XDP: --xdp-mode native ends with an error, the
# device untouched.
xdp_none()
{
	native_refused native \
		"^rxlat: error: $IF_B: the XDP stamper cannot attach in native mode \\([^)]*\\): --xdp-mode native asks for the XDP stamper; --xdp-mode skb stamps in generic XDP, or run without --xdp-mode to stamp at tc ingress\$"
}

# vmxnet3 gives XDP programs no room for metadata: --xdp-mode native is
# refused before the device is touched (its carrier does not move); the
# hint --xdp-mode skb measures every datagram from the XDP stamp, and LRO,
# which generic XDP turns off, is on again after rxlat; a stamper that
# xdp-loader attached (--no-xdp) is said, and its hint followed.
no_meta()
{
	native_refused refused \
		"^rxlat: error: $IF_B: driver vmxnet3 gives XDP programs no room for metadata \\(by its source: no packet would carry a stamp\\), and attaching XDP quiesces and resets the device, and turns LRO off for good; rxlat does not attach it: --xdp-mode native asks for the XDP stamper; --xdp-mode skb stamps in generic XDP, or run without --xdp-mode to stamp at tc ingress\$"

	# the hint: generic XDP
	start_rxlat -i "$IF_B" --per-queue --xdp-mode skb || return 1
	assert_match skb_line "^rxlat: $IF_B: attaching the XDP stamper in skb mode \\(generic XDP, driver vmxnet3\\): the kernel turns LRO and hardware GRO off" \
		"$(cat "$T_DIR/rxlat.err")"
	assert_match skb_mode "XDP stamper attached to $IF_B in skb mode" "$(cat "$T_DIR/rxlat.err")"
	udp_phase skb_udp4 4 xdp
	stop_rxlat || return 1
	if grep -q '^large-receive-offload: on' "$T_DIR/state.before"; then
		assert_eq skb_lro_back 1 \
			"$(grep -c "^rxlat: $IF_B: rx-lro turned back on (attaching XDP had turned it off)\$" "$T_DIR/rxlat.err")" \
			"lines saying LRO is on again"
	fi
	nic_clean skb
	state_same skb_after
	meta_found
}

# vmxnet3 with the stamper that xdp-loader attached (--no-xdp): rxlat cannot
# move it to tc; it says so once, and its hint works.
meta_found()
{
	local pin line
	pin=$(t_pin_dir xl)
	t_xdp_load "$NS_B" "$IF_B" native "$BUILD/rxlat_xdp.bpf.o" "$pin" ||
		t_abort found_load "xdp-loader could not load the stamper"
	start_rxlat --no-xdp -i "$IF_B" --per-queue || return 1
	in_ns "$NS_A" "$PKTGEN" send --dev "$IF_A" --dst-mac "$MAC_B" --src-ip "$IP4_A" \
		--dst-ip "$IP4_B" --dport 9 --count 8 --flows 1 >/dev/null 2>&1
	t_wait_line "$T_DIR/rxlat.err" "no room for metadata" 10 "$RXLAT_PID"
	sleep 1.2 # two reports: said once
	stop_rxlat || return 1
	assert_eq found_one_line 1 "$(grep -c "no room for metadata" "$T_DIR/rxlat.err")"
	line=$(grep "no room for metadata" "$T_DIR/rxlat.err")
	assert_match found_line \
		"^rxlat: warning: $IF_B: driver vmxnet3 gives the XDP stamper loaded without rxlat no room for metadata \\([0-9]+ packets, none stamped\\): no stage gets its stamps; unload it \\('xdp-loader unload -a $IF_B'\\) and run 'rxlat -i $IF_B' to stamp at tc ingress\$" \
		"$line"
	# the hint, as written
	assert_cmd found_hint_unload in_ns "$NS_B" xdp-loader unload -a "$IF_B"
	rm -rf -- "$pin"
	assert_eq found_hint_no_xdp "" "$(link_xdp_prog "$NS_B" "$IF_B")"
	start_rxlat -i "$IF_B" --per-queue || return 1
	udp_phase found_udp4 4 tc
	stop_rxlat || return 1
	nic_clean found
}

# ---- make bench: what attaching costs on DRIVER, against nothing attached

# One iperf3 -P 2 run of SECONDS into NS_B: Gbit/s, or nothing
bench_tcp()	# SECONDS
{
	in_ns "$NS_A" timeout $(($1 + 30)) iperf3 -c "$IP4_B" -p 5201 -P 2 -t "$1" -J 2>/dev/null |
		gojq -r '.end.sum_received.bits_per_second / 1e9 | . * 100 | round / 100'
}

# The guest's busy CPU time so far, in /proc/stat's ticks (USER_HZ, 100 a
# second) summed over its CPUs
bench_cpu_busy()
{
	awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8; exit }' /proc/stat
}

# Small UDP for SECONDS: rxlat-pktgen from NS_A as fast as it sends (8
# flows, BENCH_VM_UDP_LEN bytes of payload) to the reader bench_driver
# started in NS_B. Over SECONDS after one second of warm-up: "READ NIC SENT
# BUSY", the kpkt/s the receiving namespace read (Udp InDatagrams), its NIC
# took in and the sending NIC sent, and the guest's CPUs' busy share (%:
# under 100, something outside the guest set the pace); or nothing
bench_udp()	# SECONDS
{
	local pid c0 c1 n0 n1 s0 s1 b0 b1 t0 t1
	in_ns "$NS_A" timeout $(($1 + 2)) "$PKTGEN" send --dev "$IF_A" --dst-mac "$MAC_B" \
		--src-ip "$IP4_A" --dst-ip "$IP4_B" --dport 5301 --count 100000000 --flows 8 \
		--size "${BENCH_VM_UDP_LEN:-200}" >/dev/null 2>&1 &
	pid=$!
	sleep 1
	c0=$(mib Udp InDatagrams) n0=$(rx_packets "$NS_B" "$IF_B") s0=$(tx_packets "$NS_A" "$IF_A")
	b0=$(bench_cpu_busy) t0=$(date +%s%N)
	sleep "$1"
	c1=$(mib Udp InDatagrams) n1=$(rx_packets "$NS_B" "$IF_B") s1=$(tx_packets "$NS_A" "$IF_A")
	b1=$(bench_cpu_busy) t1=$(date +%s%N)
	wait "$pid" || : # timeout stops it
	awk -v c0="$c0" -v c1="$c1" -v n0="$n0" -v n1="$n1" -v s0="$s0" -v s1="$s1" -v b0="$b0" \
		-v b1="$b1" -v t0="$t0" -v t1="$t1" -v ncpu="$(nproc)" '
		BEGIN { s = (t1 - t0) / 1e6
			if (c1 > c0) printf "%.1f %.1f %.1f %.0f\n", (c1 - c0) / s, (n1 - n0) / s, (s1 - s0) / s,
				(b1 - b0) / ncpu / (s / 1000) }'
}

# The configurations of DRIVER: nothing attached and rxlat's default
# (RXLAT_DEFAULT_ARGS) on every driver; on virtio_net, which carries XDP
# metadata, XDP_PASS and rxlat --xdp-mode native as well. None on e1000e
# (no native XDP) nor vmxnet3: it gives XDP no metadata room, and native
# XDP leaves its LRO off after the program is gone, which would slow every
# configuration after it.
bench_confs()	# DRIVER
{
	case $1 in
	virtio_net) echo none default pass xdp ;;
	*) echo none default ;;
	esac
}

# bench/part_vm.sh reads the lines "bench DRIVER CONF KEY: VALUE" of each
# configuration of bench_confs, alternated over BENCH_VM_ROUNDS rounds with
# receive GRO on: tcp and udp, the runs (Gbit/s of iperf3 -P 2, kpkt/s of
# small UDP read); udp_wire, per UDP run the kpkt/s the receiving NIC took
# in, the kpkt/s the sending one sent and the guest's CPUs' busy share
# ("NIC/SENT/BUSY%"); xdp, the program on the receiving NIC while it ran
# ("none"); offloads, the NIC's receive offloads that ethtool shows then.
bench_driver()	# DRIVER
{
	local secs=${BENCH_VM_SECONDS:-4} rounds=${BENCH_VM_ROUNDS:-2} r c g u
	local -A tcp=() udp=() wire=() offl=() xdp=()
	DRIVER=$1
	need || return 1
	nic_pair "$DRIVER" || t_abort setup "cannot set up the $DRIVER pair"
	assert_eq driver "$DRIVER" "$(in_ns "$NS_B" ethtool -i "$IF_B" | awk '$1 == "driver:" { print $2 }')"
	in_ns "$NS_B" ethtool -K "$IF_B" gro on || t_abort gro "cannot turn GRO on"
	t_bg iperf_s in_ns "$NS_B" iperf3 -s -p 5201 --forceflush
	t_wait_line "$T_DIR/iperf_s.out" 'listening' 20 "$BG_PID" || t_abort server "iperf3 -s did not start"
	t_bg udp_r in_ns "$NS_B" "$PKTGEN" recv --port 5301 --count 1000000000 --timeout 86400
	local reader=$BG_PID
	t_wait_line "$T_DIR/udp_r.out" '^ready$' 20 "$reader" || t_abort reader "rxlat-pktgen recv did not start"
	for ((r = 1; r <= rounds; r++)); do
		for c in $(bench_confs "$DRIVER"); do
			case $c in
			pass)
				t_track_xdp "$NS_B" "$IF_B"
				ip -n "$NS_B" link set dev "$IF_B" xdpdrv obj "$BUILD/xdp_pass.bpf.o" sec xdp ||
					t_abort pass "cannot attach XDP_PASS"
				;;
			xdp) start_rxlat -i "$IF_B" --xdp-mode native -r 5 || return 1 ;;
			default) start_rxlat -i "$IF_B" "${RXLAT_DEFAULT_ARGS[@]}" -r 5 || return 1 ;;
			esac
			offl[$c]=$(in_ns "$NS_B" ethtool -k "$IF_B" | awk -F': ' '
				$1 ~ /^(generic-receive-offload|large-receive-offload|rx-gro-hw|rx-checksumming)$/ {
					printf "%s%s %s", s, $1, $2; s = ", " }')
			xdp[$c]=$(link_xdp_prog "$NS_B" "$IF_B")
			# the default touches no device
			if [[ $c == default ]]; then
				assert_eq "bench_default_no_xdp_$r" "" "${xdp[$c]}" \
					"XDP program on $IF_B while rxlat's default runs"
				assert_match "bench_default_line_$r" "$IF_B: stamping at tc ingress, rxlat's default" \
					"$(cat "$T_DIR/rxlat.err")"
			fi
			g=$(bench_tcp "$secs")
			assert_match "bench_${c}_tcp_$r" '^[0-9.]+$' "$g" "iperf3 Gbit/s"
			u=$(bench_udp "$secs")
			assert_match "bench_${c}_udp_$r" '^[0-9.]+ [0-9.]+ [0-9.]+ [0-9]+$' "$u" \
				"kpkt/s read, NIC, sent; CPU busy %"
			tcp[$c]+="$g " udp[$c]+="${u%% *} " wire[$c]+="$(awk '{ print $2 "/" $3 "/" $4 "%" }' <<<"$u") "
			case $c in
			pass) ip -n "$NS_B" link set dev "$IF_B" xdpdrv off ;;
			xdp | default) stop_rxlat >/dev/null || return 1 ;;
			esac
		done
	done
	if kill -0 "$reader" 2>/dev/null; then
		pass bench_udp_reader
	else
		fail bench_udp_reader "rxlat-pktgen recv exited: $(tail -n 1 "$T_DIR/udp_r.err")"
	fi
	for c in $(bench_confs "$DRIVER"); do
		echo "bench $DRIVER $c tcp: ${tcp[$c]}"
		echo "bench $DRIVER $c udp: ${udp[$c]}"
		echo "bench $DRIVER $c udp_wire: ${wire[$c]}"
		echo "bench $DRIVER $c xdp: ${xdp[$c]:-none}"
		echo "bench $DRIVER $c offloads: ${offl[$c]}"
	done
}

# ---- the driver lines

if [[ ${1:-} == --bench ]]; then
	shift
	export RXLAT_TEST_TIMEOUT=${RXLAT_TEST_TIMEOUT:-1200}
	suite_begin
	for d in "$@"; do
		run_test "bench_$d" bench_driver "$d"
	done
	suite_end
	exit 0
fi

for p in $PHASES; do
	[[ $p == udp4 || $p == udp6 || $p == tcp4 || $p == tcp6 ]] || {
		echo "drivers_guest.sh: RXLAT_DRIVER_PHASES: unknown phase '$p' (udp4 udp6 tcp4 tcp6)" >&2
		exit 2
	}
done
[[ $REPEAT =~ ^[1-9][0-9]*$ ]] || {
	echo "drivers_guest.sh: RXLAT_DRIVER_REPEAT: '$REPEAT' is not a count" >&2
	exit 2
}

if [[ ${1:-} == --one ]]; then
	export RXLAT_TEST_TIMEOUT=${RXLAT_TEST_TIMEOUT:-600}
	suite_begin
	run_test "$2" driver_test "$2"
	suite_end
	exit 0
fi

if [[ $EUID -ne 0 ]]; then
	echo "drivers_guest.sh: must run as root" >&2
	exit 1
fi
bpffs_setup || exit 1
total_p=0 total_f=0 total_s=0 lines=()
for pair in $RXLAT_NIC_PAIRS; do
	driver=${pair%%=*}
	P=0 F=0 S=0
	count()
	{
		echo "$1"
		case $1 in
		"PASS "*) ((P++)) ;;
		"FAIL "*) ((F++)) ;;
		"SKIP "*) ((S++)) ;;
		esac
	}
	t0=$SECONDS
	echo "# === driver $driver"
	t_stream count bash "${BASH_SOURCE[0]}" --one "$driver"
	((P + F + S)) || count "FAIL $driver.result: the test reported no check"
	echo "# driver $driver: $((SECONDS - t0)) s"
	lines+=("driver $driver: $P passed, $F failed, $S skipped")
	((total_p += P, total_f += F, total_s += S))
	[[ -z $_T_STOP ]] || break
done
bpffs_teardown
for l in "${lines[@]}"; do
	echo "$l"
done
echo "$total_p passed, $total_f failed, $total_s skipped"
[[ -n $_T_STOP ]] && exit 130
((total_f == 0 && total_p > 0))

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Overlays: two hosts joined by an underlay veth, a VXLAN (or Geneve)
# tunnel between them, and a pod behind the receiving host, routed over a
# veth pair. rxlat's stamper runs on the receiving host's underlay; rxlat
# runs in the pod. The stamp has to survive the decapsulation (the MAC
# header moves to the inner frame, the metadata stays before the outer
# headers): every datagram counts at the pod's ip_rcv and udp_queue_rcv
# with source xdp, none as none. UDP over IPv4 and IPv6 inside, IPv4 and
# IPv6 outside, and a TCP transfer; and the underlay stamped at tc, whose
# stamp does not reach the pod.
#
#   far host (NS_FAR)            receiving host (NS_HOST)        pod (NS_POD)
#   ul0 192.168.77.1 ----------- ul1 192.168.77.2 [stamper]
#   tun0 10.78.0.1               tun0 10.78.0.2
#                                hp0 10.79.0.1 ------------------ eth0 10.79.0.2
#
# RXLAT_TEST_ATTACH=auto|fentry|fallback selects the hooks' set (default auto).

# shellcheck source=netns-tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RXLAT=$BUILD/rxlat
PKTGEN=$BUILD/rxlat-pktgen
N=${RXLAT_TEST_PACKETS:-1000}
PORT=7700
PROM=9478
ATTACH=${RXLAT_TEST_ATTACH:-auto}
RXLAT_ARGS=(--attach "$ATTACH")

need() { need_rxlat "$@"; }

# Whether tunnel devices of KIND (vxlan|geneve) can be created here; when
# not, WHY says why. Tried in a namespace of this test.
tunnel_works()	# KIND
{
	local out
	modprobe "$1" >/dev/null 2>&1
	ns_create NS_PROBE || return 1
	if [[ $1 == vxlan ]]; then
		out=$(ip -n "$NS_PROBE" link add t0 type vxlan id 1 dstport 4789 local 127.0.0.1 2>&1)
	else
		out=$(ip -n "$NS_PROBE" link add t0 type geneve id 1 remote 127.0.0.2 2>&1)
	fi
	ip -n "$NS_PROBE" link del t0 2>/dev/null
	[[ -z $out ]] && return 0
	WHY="this kernel has no $1 devices ($(uname -r): ${out//$'\n'/ })"
	return 1
}

# Both ends of a link up.
links_up()	# NS IF [NS IF]...
{
	while (($# >= 2)); do
		ip -n "$1" link set "$2" up || return 1
		shift 2
	done
}

# The three namespaces, the underlay over IPv4 or IPv6 (OUTER 4|6) and a
# tunnel of KIND between the hosts, with static neighbours everywhere so
# that nothing but the test's datagrams crosses. Sets NS_FAR NS_HOST
# NS_POD, and NS_B (where start_rxlat runs) to the pod.
overlay_setup()	# KIND OUTER [tc]
{
	local kind=$1 outer=$2 far_ul host_ul far_tun host_tun pod_mac hp_mac
	local -a far_args host_args
	ns_create NS_FAR && ns_create NS_HOST && ns_create NS_POD || return 1
	ip -n "$NS_FAR" link add ul0 numrxqueues 4 numtxqueues 4 type veth \
		peer name ul1 netns "$NS_HOST" numrxqueues 4 numtxqueues 4 &&
		ip -n "$NS_POD" link add eth0 type veth peer name hp0 netns "$NS_HOST" || return 1
	far_ul=$(link_mac "$NS_FAR" ul0) host_ul=$(link_mac "$NS_HOST" ul1)
	if [[ $outer == 4 ]]; then
		ip -n "$NS_FAR" addr add 192.168.77.1/24 dev ul0 &&
			ip -n "$NS_HOST" addr add 192.168.77.2/24 dev ul1 &&
			ip -n "$NS_FAR" neigh replace 192.168.77.2 lladdr "$host_ul" dev ul0 nud permanent &&
			ip -n "$NS_HOST" neigh replace 192.168.77.1 lladdr "$far_ul" dev ul1 nud permanent ||
			return 1
		far_args=(remote 192.168.77.2) host_args=(remote 192.168.77.1)
		[[ $kind == vxlan ]] && far_args+=(local 192.168.77.1) host_args+=(local 192.168.77.2)
	else
		ip -n "$NS_FAR" addr add fd77::1/64 dev ul0 nodad &&
			ip -n "$NS_HOST" addr add fd77::2/64 dev ul1 nodad &&
			ip -n "$NS_FAR" neigh replace fd77::2 lladdr "$host_ul" dev ul0 nud permanent &&
			ip -n "$NS_HOST" neigh replace fd77::1 lladdr "$far_ul" dev ul1 nud permanent ||
			return 1
		far_args=(remote fd77::2) host_args=(remote fd77::1)
		[[ $kind == vxlan ]] && far_args+=(local fd77::1) host_args+=(local fd77::2)
	fi
	if [[ $kind == vxlan ]]; then
		far_args+=(dstport 4789 dev ul0) host_args+=(dstport 4789 dev ul1)
	fi
	ip -n "$NS_FAR" link add tun0 type "$kind" id 42 "${far_args[@]}" &&
		ip -n "$NS_HOST" link add tun0 type "$kind" id 42 "${host_args[@]}" || return 1
	links_up "$NS_FAR" ul0 "$NS_HOST" ul1 "$NS_FAR" tun0 "$NS_HOST" tun0 \
		"$NS_HOST" hp0 "$NS_POD" eth0 || return 1
	far_tun=$(link_mac "$NS_FAR" tun0) host_tun=$(link_mac "$NS_HOST" tun0)
	pod_mac=$(link_mac "$NS_POD" eth0) hp_mac=$(link_mac "$NS_HOST" hp0)
	TUN_MAC=$host_tun
	in_ns "$NS_HOST" sysctl -q -w net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 &&
		ip -n "$NS_FAR" addr add 10.78.0.1/24 dev tun0 &&
		ip -n "$NS_FAR" addr add fd78::1/64 dev tun0 nodad &&
		ip -n "$NS_HOST" addr add 10.78.0.2/24 dev tun0 &&
		ip -n "$NS_HOST" addr add fd78::2/64 dev tun0 nodad &&
		ip -n "$NS_HOST" addr add 10.79.0.1/24 dev hp0 &&
		ip -n "$NS_HOST" addr add fd79::1/64 dev hp0 nodad &&
		ip -n "$NS_POD" addr add 10.79.0.2/24 dev eth0 &&
		ip -n "$NS_POD" addr add fd79::2/64 dev eth0 nodad &&
		ip -n "$NS_FAR" route add 10.79.0.0/24 via 10.78.0.2 &&
		ip -n "$NS_FAR" route add fd79::/64 via fd78::2 &&
		ip -n "$NS_POD" route add default via 10.79.0.1 &&
		ip -n "$NS_POD" route add default via fd79::1 &&
		ip -n "$NS_FAR" neigh replace 10.78.0.2 lladdr "$host_tun" dev tun0 nud permanent &&
		ip -n "$NS_FAR" neigh replace fd78::2 lladdr "$host_tun" dev tun0 nud permanent &&
		ip -n "$NS_HOST" neigh replace 10.78.0.1 lladdr "$far_tun" dev tun0 nud permanent &&
		ip -n "$NS_HOST" neigh replace fd78::1 lladdr "$far_tun" dev tun0 nud permanent &&
		ip -n "$NS_HOST" neigh replace 10.79.0.2 lladdr "$pod_mac" dev hp0 nud permanent &&
		ip -n "$NS_HOST" neigh replace fd79::2 lladdr "$pod_mac" dev hp0 nud permanent &&
		ip -n "$NS_POD" neigh replace 10.79.0.1 lladdr "$hp_mac" dev eth0 nud permanent &&
		ip -n "$NS_POD" neigh replace fd79::1 lladdr "$hp_mac" dev eth0 nud permanent || return 1
	NS_B=$NS_POD
	export NS_B
	# rxlat's stamper on the receiving host's underlay (rxlat's tc stamper: later)
	[[ ${3:-} == tc ]] && { links_quiet; return 0; }
	t_xdp_load "$NS_HOST" ul1 native "$BUILD/rxlat_xdp.bpf.o" "$(t_pin_dir stamper)" >/dev/null ||
		return 1
	links_quiet
}

# Waits until no link of the three namespaces has moved for 0.3 s (IPv6
# MLD reports of the new devices done).
links_quiet()
{
	local i stable=0 last=-1 now l
	for ((i = 0; i < 50 && stable < 3; i++)); do
		sleep 0.1
		now=0
		for l in "$NS_FAR ul0" "$NS_HOST ul1" "$NS_HOST hp0" "$NS_POD eth0"; do
			now=$((now + $(_t_link_packets "${l% *}" "${l#* }")))
		done
		if ((now == last)); then
			((stable++))
		else
			stable=0 last=$now
		fi
	done
}

# The samples of STAGE in the pod by source: "xdp none kernel tc".
sources_of()	# STAGE
{
	echo "$(stage_sum "$1" .sources.xdp) $(stage_sum "$1" .sources.none)" \
		"$(stage_sum "$1" .sources.kernel) $(stage_sum "$1" .sources.tc)"
}

# On a kernel with bpf_rdonly_cast() (6.2+), the run read the metadata
# with direct loads, before that with probe reads: the decapsulated case
# passed the verifier in both read modes, each on the kernels that take it.
assert_read_mode()
{
	local mode want="direct loads" major minor
	mode=$(grep -o 'metadata read with .*' "$T_DIR/rxlat.err" | head -n 1)
	log "$mode"
	IFS=. read -r major minor _ <<<"$(uname -r)"
	if ((major < 6 || (major == 6 && minor < 2))); then
		want="bpf_probe_read_kernel()"
	fi
	assert_eq read_mode "metadata read with $want" "$mode" "read mode on $(uname -r)"
}

# N UDP datagrams from the far host through the tunnel to a socket in the
# pod: every one at ip_rcv and udp_queue_rcv with source xdp.
overlay_udp()	# KIND OUTER INNER
{
	local kind=$1 outer=$2 inner=$3 src=10.78.0.1 dst=10.79.0.2 recv_args=()
	need || return 1
	if ! tunnel_works "$kind"; then
		skip "$kind" "$WHY"
		return 0
	fi
	overlay_setup "$kind" "$outer" || t_abort setup "cannot create the overlay namespaces"
	if [[ $inner == 6 ]]; then
		src=fd78::1 dst=fd79::2 recv_args=(--v6)
	fi
	start_rxlat -v || return 1
	t_bg recv in_ns "$NS_POD" "$PKTGEN" recv --port "$PORT" --count "$N" --timeout 30 "${recv_args[@]}"
	local recv_pid=$BG_PID
	t_wait_line "$T_DIR/recv.out" '^ready$' 10 "$recv_pid" ||
		t_abort receiver "rxlat-pktgen recv did not start: $(tail -n 1 "$T_DIR/recv.err")"
	assert_cmd send in_ns "$NS_FAR" timeout 60 "$PKTGEN" send --dev tun0 --dst-mac "$TUN_MAC" \
		--src-ip "$src" --dst-ip "$dst" --dport "$PORT" --count "$N" --flows 8
	t_wait_pid "$recv_pid" 40
	assert_eq received "received $N valid $N invalid 0 duplicate 0" "$(tail -n 1 "$T_DIR/recv.out")"
	sleep 0.6 # one more report interval
	stop_rxlat || return 1

	assert_eq ip_rcv_sources "$N 0 0 0" "$(sources_of ip_rcv)" "pod ip_rcv samples: xdp none kernel tc"
	assert_eq ip_rcv_count "$N" "$(stage_sum ip_rcv .count)"
	assert_eq udp_queue_rcv_sources "$N 0 0 0" "$(sources_of udp_queue_rcv)" \
		"pod udp_queue_rcv samples: xdp none kernel tc"
	assert_eq udp_queue_rcv_count "$N" "$(stage_sum udp_queue_rcv .count)"
	assert_le below_1s 999999999 "$(q '[.[].series[] | .max_ns] | max // 0')" "largest sample in ns"
	assert_read_mode
}

# rxlat in the receiving host: each datagram passes ip_rcv twice there,
# encapsulated on the underlay and decapsulated on the tunnel device, both
# times with the stamp.
overlay_host()	# KIND OUTER
{
	local kind=$1 outer=$2
	need || return 1
	if ! tunnel_works "$kind"; then
		skip "$kind" "$WHY"
		return 0
	fi
	overlay_setup "$kind" "$outer" || t_abort setup "cannot create the overlay namespaces"
	NS_B=$NS_HOST
	start_rxlat || return 1
	t_bg recv in_ns "$NS_POD" "$PKTGEN" recv --port "$PORT" --count "$N" --timeout 30
	local recv_pid=$BG_PID
	t_wait_line "$T_DIR/recv.out" '^ready$' 10 "$recv_pid" ||
		t_abort receiver "rxlat-pktgen recv did not start: $(tail -n 1 "$T_DIR/recv.err")"
	assert_cmd send in_ns "$NS_FAR" timeout 60 "$PKTGEN" send --dev tun0 --dst-mac "$TUN_MAC" \
		--src-ip 10.78.0.1 --dst-ip 10.79.0.2 --dport "$PORT" --count "$N" --flows 8
	t_wait_pid "$recv_pid" 40
	assert_eq received "received $N valid $N invalid 0 duplicate 0" "$(tail -n 1 "$T_DIR/recv.out")"
	sleep 0.6
	stop_rxlat || return 1
	assert_eq host_ip_rcv_sources "$((2 * N)) 0 0 0" "$(sources_of ip_rcv)" \
		"host ip_rcv samples (outer and inner): xdp none kernel tc"
}

# A TCP transfer through the tunnel into the pod: every segment of every
# stage from the XDP stamp, none unstamped.
overlay_tcp()	# KIND OUTER
{
	local kind=$1 outer=$2 n stage
	need iperf3 || return 1
	if ! tunnel_works "$kind"; then
		skip "$kind" "$WHY"
		return 0
	fi
	overlay_setup "$kind" "$outer" || t_abort setup "cannot create the overlay namespaces"
	start_rxlat -v || return 1
	t_bg iperf_s in_ns "$NS_POD" iperf3 -s -1 -p 5203
	sleep 0.3
	assert_cmd iperf3 in_ns "$NS_FAR" timeout 30 iperf3 -c 10.79.0.2 -p 5203 -t 2
	sleep 0.6
	stop_rxlat || return 1
	for stage in ip_rcv tcp_do_rcv; do
		n=$(stage_sum "$stage" .count)
		assert_ge "${stage}_samples" 100 "$n"
		assert_eq "${stage}_all_from_xdp" "$n" "$(stage_sum "$stage" .sources.xdp)"
		assert_eq "${stage}_unstamped" 0 "$(stage_sum "$stage" .sources.none)"
	done
	assert_le below_1s 999999999 "$(q '[.[].series[] | .max_ns] | max // 0')" "largest sample in ns"
}

# test names say which set ran when it was forced
SFX=${RXLAT_TEST_ATTACH:+_$ATTACH}

# The underlay stamped at tc, rxlat in the receiving host: the outer packet
# is the host's own, its realtime stamp reaches the decapsulated packet,
# and forwarding into the pod clears it. The pod is not measured, as rxlat
# says at start-up, naming the tunnel, which the reports and the
# Prometheus endpoint list as unreached (a second tunnel too, while it is
# there); the host's underlay ip_rcv counts every datagram.
overlay_tc_pod()	# KIND OUTER
{
	local kind=$1 outer=$2 extra=(remote 192.0.2.9)
	local said='^rxlat: containers behind %s \(%s\) are not measured: the tc stamp does not reach the packets a tunnel decapsulates, which count at the stages of the interface they came in on \("unreached" in the report\)$'
	local metric='rxlat_unreached_interfaces{ifname="%s",kind="%s"} 1'
	need curl || return 1
	if ! tunnel_works "$kind"; then
		skip "$kind" "$WHY"
		return 0
	fi
	overlay_setup "$kind" "$outer" tc || t_abort setup "cannot create the overlay namespaces"
	NS_B=$NS_HOST
	start_rxlat -i ul1 --tc --prometheus "127.0.0.1:$PROM" || return 1
	t_bg recv in_ns "$NS_POD" "$PKTGEN" recv --port "$PORT" --count "$N" --timeout 30
	local recv_pid=$BG_PID
	t_wait_line "$T_DIR/recv.out" '^ready$' 10 "$recv_pid" ||
		t_abort receiver "rxlat-pktgen recv did not start: $(tail -n 1 "$T_DIR/recv.err")"
	assert_cmd send in_ns "$NS_FAR" timeout 60 "$PKTGEN" send --dev tun0 --dst-mac "$TUN_MAC" \
		--src-ip 10.78.0.1 --dst-ip 10.79.0.2 --dport "$PORT" --count "$N" --flows 8
	t_wait_pid "$recv_pid" 40
	assert_eq received "received $N valid $N invalid 0 duplicate 0" "$(tail -n 1 "$T_DIR/recv.out")"
	# a tunnel that comes while rxlat runs, and goes
	[[ $kind == vxlan ]] && extra+=(dstport 4790)
	ip -n "$NS_HOST" link add tun9 type "$kind" id 9 "${extra[@]}" ||
		t_abort tun9 "cannot create a second $kind device"
	sleep 0.6
	in_ns "$NS_HOST" curl -sf "http://127.0.0.1:$PROM/metrics" >"$T_DIR/prom1.txt"
	ip -n "$NS_HOST" link del tun9
	sleep 0.6
	in_ns "$NS_HOST" curl -sf "http://127.0.0.1:$PROM/metrics" >"$T_DIR/prom2.txt"
	stop_rxlat || return 1
	assert_eq tc_tunnel_said 1 "$(grep -c '^rxlat: containers behind ul1 are measured from its tc stamps up to sock_read, but not behind a VXLAN or Geneve tunnel$' "$T_DIR/rxlat.err")"
	# shellcheck disable=SC2059 # the formats are the expected lines
	{
		assert_eq tc_tunnel_named 1 "$(grep -cE "$(printf "$said" tun0 "$kind")" "$T_DIR/rxlat.err")"
		assert_eq tc_tunnel_new_named 1 "$(grep -cE "$(printf "$said" tun9 "$kind")" "$T_DIR/rxlat.err")"
		assert_eq tc_tunnel_scraped 1 "$(grep -cxF "$(printf "$metric" tun0 "$kind")" "$T_DIR/prom1.txt")"
		assert_eq tc_tunnel_new_scraped 1 "$(grep -cxF "$(printf "$metric" tun9 "$kind")" "$T_DIR/prom1.txt")"
		assert_eq tc_tunnel_still_scraped 1 "$(grep -cxF "$(printf "$metric" tun0 "$kind")" "$T_DIR/prom2.txt")"
	}
	assert_eq tc_tunnel_gone_not_scraped 0 "$(grep -c 'ifname="tun9"' "$T_DIR/prom2.txt")"
	assert_eq tc_tunnel_every_report 0 "$(q '[.[] | select(.unreached | map(.ifname) |
		index("tun0") == null)] | length')" "reports without tun0 in unreached"
	assert_eq tc_tunnel_new_reported true "$(q '[.[].unreached[].ifname] | index("tun9") != null')"
	assert_eq tc_tunnel_final_report "[{\"ifname\":\"tun0\",\"kind\":\"$kind\"}]" \
		"$(q -c '.[-1].unreached')"
	assert_eq tc_tunnel_pod_not_measured 0 "$(q --arg n "$NS_POD" '[.[].series[] |
		select(.netns == $n)] | length')" "series of the pod"
	assert_eq tc_tunnel_underlay "$N" "$(q '[.[].series[] | select(.stage == "ip_rcv" and
		.ifname == "ul1") | .sources | (.tc + .none)] | add // 0')" "the host's underlay ip_rcv"
}

suite_begin
run_test "vxlan4_udp4$SFX" one_vm_kernel 6.1 overlay_udp vxlan 4 4
run_test "vxlan4_udp6$SFX" one_vm_kernel 6.12 overlay_udp vxlan 4 6
run_test "vxlan6_udp4$SFX" one_vm_kernel 6.12 overlay_udp vxlan 6 4
run_test "vxlan6_udp6$SFX" one_vm_kernel 6.1 overlay_udp vxlan 6 6
run_test "vxlan4_tcp$SFX" one_vm_kernel 6.12 overlay_tcp vxlan 4
run_test "vxlan4_host$SFX" one_vm_kernel 6.1 overlay_host vxlan 4
run_test "vxlan4_tc_pod$SFX" one_vm_kernel 6.12 overlay_tc_pod vxlan 4
run_test "geneve4_udp4$SFX" one_vm_kernel 6.1 overlay_udp geneve 4 4
run_test "geneve6_udp6$SFX" one_vm_kernel 6.12 overlay_udp geneve 6 6
run_test "geneve4_tcp$SFX" one_vm_kernel 6.1 overlay_tcp geneve 4
suite_end

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench, part "vmcost" (bench/part_vmcost.sh): what rxlat's BPF
# programs cost per UDP datagram and per TCP segment on the fentry set,
# inside the 6.12 VM that netns-tests/vm/vmtest.sh boots. Two namespaces
# joined by a 4-queue veth pair (ns_pair), the sender's TSO/GSO off and the
# receiver's GRO on, as in bench/bench.sh: MTU-sized frames reach the
# stamper one by one, and GRO merges them before the hooks see them.
#
# With kernel.bpf_stats_enabled=1, for each configuration of BENCH_VMCOST_CONFS
# (xdp: rxlat --xdp-mode native; default: rxlat's default stamper, with
# netns-tests/lib.sh's RXLAT_DEFAULT_ARGS; tc: rxlat --tc; xdp-filter: xdp with
# --port of both loads' ports, a filter every packet passes; xdp-NAME: the same as xdp
# with the rxlat binary $BUILD/vmcost/rxlat-NAME, a build to compare against
# in the same run; netstacklat: $BUILD/vmcost/netstacklat, the closest
# existing tool, with all its probes, started in the receiving namespace
# (which its default filter then takes); pass, floor: bench/xdp_pass.bpf.c or bench/xdp_floor.bpf.c
# alone in native XDP, the least an XDP program and an XDP stamper cost per
# frame), alternated over BENCH_VMCOST_ROUNDS rounds, rxlat (all
# stages, its defaults otherwise) is started afresh and takes two loads,
# BENCH_VMCOST_REPS times each (short repetitions: a host that preempts the
# emulated CPU inflates the run time of whatever program runs then, and the
# host side takes the median over the repetitions):
#
#   udp  BENCH_VMCOST_UDP datagrams of rxlat-pktgen (8 flows, paced at
#        BENCH_VMCOST_PPS), received by rxlat-pktgen recv
#   tcp  one iperf3 stream of BENCH_VMCOST_TCP_BYTES
#   tcpnic
#        the same with the sender's departure times taken off at its egress
#        (bench/tstamp_clear.bpf.c): the segments arrive as from a NIC,
#        without the monotonic delivery time that TCP puts on them and a
#        veth carries, which netstacklat does not read; the kernel's
#        realtime receive stamp is there where a socket asked for receive
#        timestamps (netstacklat does)
#
# Per load it prints, for host-side parsing:
#
#   vmcost CONF LOAD units FRAMES SNMP  frames the receiving veth took in
#                                       during the load (datagrams, TCP
#                                       segments) and the receiving
#                                       namespace's Udp InDatagrams or Tcp
#                                       InSegs (which counts a GRO'd skb once)
#   vmcost CONF LOAD prog NAME TYPE RUN_CNT RUN_TIME_NS
#                                       each of rxlat's programs: the growth
#                                       of its bpf_stats over the load

# shellcheck source=netns-tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

RXLAT=$BUILD/rxlat
PKTGEN=$BUILD/rxlat-pktgen
PORT=7400
CONFS=${BENCH_VMCOST_CONFS:-xdp default}
ROUNDS=${BENCH_VMCOST_ROUNDS:-2}
REPS=${BENCH_VMCOST_REPS:-3}
UDP_N=${BENCH_VMCOST_UDP:-10000}
PPS=${BENCH_VMCOST_PPS:-10000}
TCP_BYTES=${BENCH_VMCOST_TCP_BYTES:-40M}

# "id name type run_cnt run_time_ns" of each program of PROG_IDS (one
# bpftool call)
prog_stats()
{
	local ids=$PROG_IDS
	bpftool -j prog show | gojq -r --arg ids " $ids " '.[] | .id as $i |
		select($ids | contains(" \($i) ")) |
		[.id, (.name // "?"), .type, (.run_cnt // 0), (.run_time_ns // 0)] | @tsv'
}

# Frames the receiving veth took in: one per datagram, and one per TCP
# segment (the sender's TSO/GSO is off), counted before GRO merges them
rx_frames()
{
	ip -n "$NS_B" -s -j link show dev "$IF_B" | gojq -r '.[0].stats64.rx.packets'
}

load_udp()
{
	t_bg recv in_ns "$NS_B" "$PKTGEN" recv --port "$PORT" --count "$UDP_N" --timeout 120
	local pid=$BG_PID
	t_wait_line "$T_DIR/recv.out" '^ready$' 20 "$pid" || t_abort receiver "rxlat-pktgen recv did not start"
	in_ns "$NS_A" timeout 300 "$PKTGEN" send --dev "$IF_A" --dst-mac "$MAC_B" --src-ip "$IP4_A" \
		--dst-ip "$IP4_B" --dport "$PORT" --count "$UDP_N" --flows 8 --pps "$PPS" >/dev/null ||
		t_abort send "rxlat-pktgen send failed"
	t_wait_pid "$pid" 60
	log "udp: $(tail -n 1 "$T_DIR/recv.out")"
}

load_tcp()
{
	in_ns "$NS_A" timeout 300 iperf3 -c "$IP4_B" -p 5201 -n "$TCP_BYTES" -J >"$T_DIR/iperf.json" ||
		t_abort iperf3 "iperf3 -c failed"
	log "tcp: $(gojq -r '.end.sum_received | "\(.bytes) bytes, \(.bits_per_second / 1e6 | round) Mbit/s"' "$T_DIR/iperf.json")"
}

load_tcpnic()
{
	if ! in_ns "$NS_A" tc qdisc add dev "$IF_A" clsact ||
		! in_ns "$NS_A" tc filter add dev "$IF_A" egress bpf direct-action \
			obj "$BUILD/tstamp_clear.bpf.o" sec tc; then
		t_abort tstamp_clear "cannot attach $BUILD/tstamp_clear.bpf.o at the sender's egress"
	fi
	load_tcp
	in_ns "$NS_A" tc qdisc del dev "$IF_A" clsact
}

# rxlat's program stats around one load: the lines described above
measure()	# CONF LOAD
{
	local conf=$1 load=$2 before after u0 u1 f0 f1 proto field
	case $load in
	udp) proto=Udp field=InDatagrams ;;
	tcp*) proto=Tcp field=InSegs ;;
	esac
	before=$(prog_stats)
	u0=$(mib "$proto" "$field") f0=$(rx_frames)
	"load_$load"
	u1=$(mib "$proto" "$field") f1=$(rx_frames)
	after=$(prog_stats)
	echo "vmcost $conf $load units $((f1 - f0)) $((u1 - u0))"
	awk -F'\t' -v c="$conf" -v l="$load" '
		NR == FNR { n[$1] = $4; t[$1] = $5; next }
		{ printf "vmcost %s %s prog %s %s %d %d\n", c, l, $2, $3, $4 - n[$1], $5 - t[$1] }' \
		<(echo "$before") <(echo "$after")
	pass "${conf}_$load"
}

# REPS times each load, with the same programs attached
measure_reps()	# CONF
{
	local i
	for ((i = 0; i < REPS; i++)); do
		measure "$1" udp
		measure "$1" tcp
		measure "$1" tcpnic
	done
}

# netstacklat's programs over the loads: started afresh, as rxlat is
measure_netstacklat()
{
	local i pid nlinks=0
	t_bg netstacklat in_ns "$NS_B" "$BUILD/vmcost/netstacklat" -r 60
	pid=$BG_PID
	# every program attached (a link each; trampolines take a while under
	# emulation), else the first load would miss some
	for ((i = 0; i < 300; i++)); do
		PROG_IDS=$(proc_bpf_prog_ids "$pid")
		nlinks=$(grep -ls '^link_id:' /proc/"$pid"/fdinfo/* | wc -l)
		[[ -n $PROG_IDS ]] && ((nlinks >= $(wc -w <<<"$PROG_IDS"))) && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	[[ -n $PROG_IDS ]] || t_abort netstacklat "netstacklat loaded no program: $(tail -n 3 "$T_DIR/netstacklat.err")"
	log "netstacklat: $(wc -w <<<"$PROG_IDS") programs, $nlinks links"
	measure_reps netstacklat
	kill -INT "$pid"
	t_wait_pid "$pid" 20
}

bench_cost()
{
	local r c old args
	need_rxlat iperf3 ethtool || return 1
	ns_pair || t_abort setup "cannot set up the veth pair"
	in_ns "$NS_A" ethtool -K "$IF_A" tso off gso off >/dev/null || t_abort tso "cannot turn TSO/GSO off"
	in_ns "$NS_B" ethtool -K "$IF_B" gro on >/dev/null || t_abort gro "cannot turn GRO on"
	t_bg iperf_s in_ns "$NS_B" iperf3 -s -p 5201 --forceflush
	t_wait_line "$T_DIR/iperf_s.out" 'listening' 20 "$BG_PID" || t_abort server "iperf3 -s did not start"
	echo "vmcost clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
	old=$(sysctl -n kernel.bpf_stats_enabled)
	sysctl -q -w kernel.bpf_stats_enabled=1 >/dev/null || t_abort stats "cannot enable bpf_stats"
	for ((r = 1; r <= ROUNDS; r++)); do
		for c in $CONFS; do
			RXLAT=$BUILD/rxlat
			case $c in
			pass | floor)
				t_track_xdp "$NS_B" "$IF_B"
				ip -n "$NS_B" link set dev "$IF_B" xdpdrv obj "$BUILD/xdp_$c.bpf.o" sec xdp ||
					t_abort "$c" "cannot attach $BUILD/xdp_$c.bpf.o"
				PROG_IDS=$(link_xdp_prog "$NS_B" "$IF_B")
				measure_reps "$c"
				ip -n "$NS_B" link set dev "$IF_B" xdpdrv off
				continue
				;;
			netstacklat)
				measure_netstacklat
				continue
				;;
			xdp) args=(--xdp-mode native) ;;
			default) args=("${RXLAT_DEFAULT_ARGS[@]}") ;;
			default-base) args=("${RXLAT_DEFAULT_ARGS[@]}") RXLAT=$BUILD/vmcost/rxlat-base ;;
			tc) args=(--tc) ;;
			xdp-filter) args=(--xdp-mode native --port "$PORT,5201") ;;
			xdp-*) args=(--xdp-mode native) RXLAT=$BUILD/vmcost/rxlat-${c#xdp-} ;;
			*) t_abort conf "unknown configuration '$c'" ;;
			esac
			RXLAT_STAMPER=default start_rxlat -i "$IF_B" -r 5 "${args[@]}" || return 1
			PROG_IDS=$(proc_bpf_prog_ids "$RXLAT_PID")
			measure_reps "$c"
			stop_rxlat >/dev/null || return 1
		done
	done
	sysctl -q -w kernel.bpf_stats_enabled="$old" >/dev/null
}

suite_begin
RXLAT_TEST_TIMEOUT=${RXLAT_TEST_TIMEOUT:-1800} run_test vmcost bench_cost
suite_end

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rxlat benchmark (`make bench`; not part of `make test`). Run as root from
# anywhere; it needs build/rxlat and build/xdp_pass.bpf.o.
#
# Two network namespaces joined by a veth pair; iperf3 sends from one to the
# other with TSO/GSO off on the sender, so the receiver gets MTU-sized frames
# and GRO on the receiving veth matters (veth has GRO off by default; this
# turns it on for the receiver, as a NIC driver would have it). Three parts:
#
#   1. TCP throughput on the receiving veth with no XDP, an XDP_PASS-only
#      program, and rxlat in several modes. Ratios are to the XDP_PASS run:
#      any XDP program changes the veth receive path, so that is the fair
#      baseline (the no-XDP figure is printed beside it).
#   2. Cost per program run of rxlat's BPF programs (kernel bpf_stats:
#      run_time_ns / run_cnt) under a TCP and a small-packet UDP load, batch
#      and per-packet stamps, with the XDP_PASS program as reference. These
#      runs are separate from part 1 because bpf_stats itself adds two clock
#      reads to every program run.
#   3. Map memory for several --max-ifaces x --max-queues sizes: what rxlat
#      reports and what the kernel accounts (memlock) for its maps.
#
# The machines this runs on are noisy: compare figures within one run only.
#
# Environment:
#   BENCH_SECONDS       iperf3 time per throughput run (default 5)
#   BENCH_ROUNDS        rounds of the throughput runs, interleaved (default 2)
#   BENCH_GRO           on (default) or off: GRO on the receiving veth
#   BENCH_COST_SECONDS  iperf3 time per cost run (default 3)
#   BENCH_UDP_LEN       UDP payload bytes of the cost runs (default 200)
#   BENCH_MEM_SIZES     IFACESxQUEUES list (default "4x4 16x16 64x16 16x64")
#   BENCH_PROM          "only": the Prometheus figure alone (part 4, below);
#                       any other non-empty value: parts 1-3, then part 4
#   BENCH_PROM_SECONDS  length of each part 4 run (default 60)
#   BUILD               build directory (default: build/ of this tree)
#
# 4. (on demand, BENCH_PROM) the Prometheus endpoint serving 16 interfaces x
#    64 queues x 5 stages, every series holding samples (written into the
#    series array with bpftool, as traffic cannot reach every stage on every
#    kernel), scraped once a second: the collector's RSS and CPU share, the
#    exposition's size and series count, at 2 (default) and 8 buckets per
#    power of two.

set -u -o pipefail

# The namespaces, background processes and cleanup of the tests
# shellcheck source=netns-tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
RXLAT=$BUILD/rxlat
PASS_OBJ=$BUILD/xdp_pass.bpf.o

SECS=${BENCH_SECONDS:-5}
ROUNDS=${BENCH_ROUNDS:-2}
GRO=${BENCH_GRO:-on}
COST_SECS=${BENCH_COST_SECONDS:-3}
UDP_LEN=${BENCH_UDP_LEN:-200}
MEM_SIZES=${BENCH_MEM_SIZES:-4x4 16x16 64x16 16x64}

# Unique per run: namespaces are global, interface names live inside them.
# lib.sh's cleanup removes everything named with T_PREFIX.
T_PREFIX="${RXLAT_T_PREFIX}$$"
T_NETNS=() T_PINS=() T_PIDS=() T_XDP=() T_QDISC=() T_NS_SEQ=0 T_DIR=''
NS_S='' NS_R='' NS_P=''
IF_S=rxlat-b${$}s # at most 15 characters: pid_max is 7 digits
IF_R=rxlat-b${$}r
ADDR_S=192.0.2.1
ADDR_R=192.0.2.2
PORT=5201

RX_PID=""
STATS_OLD=""

die()
{
	echo "bench: error: $*" >&2
	exit 1
}

note()
{
	echo "bench: $*" >&2
}

# lib.sh's cleanup (processes, XDP, namespaces, T_DIR), after putting
# bpf_stats back the way it was.
cleanup()
{
	local rc=$?
	trap '' INT TERM
	if [ -n "$STATS_OLD" ]; then
		sysctl -q -w kernel.bpf_stats_enabled="$STATS_OLD" >/dev/null 2>&1 ||
			note "could not restore kernel.bpf_stats_enabled=$STATS_OLD"
	fi
	_bench_status "$rc"
	_t_cleanup
}

_bench_status() { return "$1"; }

trap cleanup EXIT
trap 'note "interrupted"; exit 130' INT
trap 'note "terminated"; exit 143' TERM

# ---------------------------------------------------------------- checks

# ratio A B: A / B with two decimals, 0 when B is not positive
ratio()
{
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "0" }'
}

is_uint()
{
	case $1 in '' | *[!0-9]*) return 1 ;; esac
	return 0
}

need_uint()
{
	if ! is_uint "$2" || [ "$2" -lt "$3" ]; then
		die "$1 must be a whole number >= $3"
	fi
}

need_uint BENCH_SECONDS "$SECS" 1
need_uint BENCH_ROUNDS "$ROUNDS" 1
need_uint BENCH_COST_SECONDS "$COST_SECS" 1
need_uint BENCH_UDP_LEN "$UDP_LEN" 16
case $GRO in on | off) ;; *) die "BENCH_GRO must be on or off" ;; esac
for sz in $MEM_SIZES; do
	[[ $sz =~ ^[0-9]+x[0-9]+$ ]] || die "BENCH_MEM_SIZES: '$sz' is not IFACESxQUEUES"
done

[ "$(id -u)" -eq 0 ] || die "must run as root (network namespaces, XDP, BPF)"
for cmd in ip iperf3 ethtool bpftool jq nsenter timeout sysctl awk ss; do
	command -v "$cmd" >/dev/null 2>&1 ||
		die "'$cmd' not found (Debian: make deps installs iproute2, iperf3, ethtool, bpftool, jq, util-linux)"
done
[ -x "$RXLAT" ] || die "$RXLAT missing: build it first (make build/rxlat)"
[ -r "$PASS_OBJ" ] || die "$PASS_OBJ missing: build it first (make build/xdp_pass.bpf.o)"
[ -r /proc/sys/kernel/bpf_stats_enabled ] || die "kernel has no kernel.bpf_stats_enabled sysctl"

T_DIR=$(mktemp -d "/tmp/${T_PREFIX}.XXXXXX") || die "mktemp failed"

# ----------------------------------------------------------------- setup

setup()
{
	ns_create NS_S || die "cannot create the sender's namespace"
	ns_create NS_R || die "cannot create the receiver's namespace"
	ip link add "$IF_S" netns "$NS_S" type veth peer name "$IF_R" netns "$NS_R" ||
		die "cannot create veth pair"
	if ! { ip -n "$NS_S" addr add "$ADDR_S/24" dev "$IF_S" &&
		ip -n "$NS_R" addr add "$ADDR_R/24" dev "$IF_R" &&
		ip -n "$NS_S" link set "$IF_S" up && ip -n "$NS_R" link set "$IF_R" up; }; then
		die "cannot configure the veth pair"
	fi
	ip netns exec "$NS_S" ethtool -K "$IF_S" tso off gso off >/dev/null ||
		die "ethtool -K $IF_S tso off gso off failed"
	ip netns exec "$NS_R" ethtool -K "$IF_R" gro "$GRO" >/dev/null ||
		die "ethtool -K $IF_R gro $GRO failed"

	t_bg iperf3-server in_ns "$NS_R" iperf3 -s -B "$ADDR_R" -p "$PORT"
	local i srv=$BG_PID
	for ((i = 0; i < 100; i++)); do
		[ -n "$(in_ns "$NS_R" ss -Hltn "sport = :$PORT" 2>/dev/null)" ] && return 0
		kill -0 "$srv" 2>/dev/null || break
		sleep 0.1
	done
	die "iperf3 server did not start listening: $(tail -3 "$T_DIR/iperf3-server.out" "$T_DIR/iperf3-server.err")"
}

# ----------------------------------------------------------- XDP_PASS

pass_attach()
{
	t_track_xdp "$NS_R" "$IF_R"
	ip -n "$NS_R" link set dev "$IF_R" xdpdrv obj "$PASS_OBJ" sec xdp ||
		die "cannot attach $PASS_OBJ to $IF_R in native mode"
}

pass_detach()
{
	ip -n "$NS_R" link set dev "$IF_R" xdpdrv off || die "cannot detach XDP from $IF_R"
}

pass_prog_id()
{
	ip -n "$NS_R" -j link show dev "$IF_R" | jq -r '.[0].xdp.prog.id // empty'
}

# ---------------------------------------------------------------- rxlat

# rxlat_start OUTFILE ARGS...: start rxlat in the receiver namespace and wait
# until its programs are attached (the "map memory" line on stderr).
rxlat_start()
{
	local out=$1 i
	shift
	: >"$T_DIR/rxlat.err"
	nsenter --net="/run/netns/$NS_R" "$RXLAT" "$@" >"$out" 2>"$T_DIR/rxlat.err" &
	RX_PID=$!
	t_track_pid "$RX_PID"
	for ((i = 0; i < 300; i++)); do
		grep -q 'map memory:' "$T_DIR/rxlat.err" && return 0
		kill -0 "$RX_PID" 2>/dev/null || break
		sleep 0.1
	done
	_t_kill_pid "$RX_PID"
	RX_PID=""
	die "rxlat $* did not start within 30 s; its stderr:
$(tail -n 20 "$T_DIR/rxlat.err")"
}

rxlat_stop()
{
	kill -0 "$RX_PID" 2>/dev/null ||
		die "rxlat exited before the run ended; its stderr:
$(tail -n 20 "$T_DIR/rxlat.err")"
	_t_kill_pid "$RX_PID"
	RX_PID=""
}

# Ids of the BPF programs or maps ("prog" or "map") that rxlat holds open.
rxlat_ids()
{
	grep -sh "^$1_id:" /proc/"$RX_PID"/fdinfo/* | awk '{ print $2 }' | sort -un
}

# Samples rxlat reported (all stages) and packets its stamper saw.
rxlat_counts()
{
	jq -s '[(map(.series[]?.count) | add // 0), (map(.xdp[]?.stamped) | add // 0)] | @tsv' -r "$1" 2>/dev/null ||
		printf '0\t0\n'
}

# ---------------------------------------------------------------- iperf3

# iperf_run OUTFILE SECONDS [extra iperf3 args]: run the client, fail loudly.
iperf_run()
{
	local out=$1 secs=$2 err
	shift 2
	ip netns exec "$NS_S" timeout --foreground $((secs + 20)) \
		iperf3 -c "$ADDR_R" -p "$PORT" -t "$secs" -J "$@" >"$out" 2>"$T_DIR/iperf3-client.err"
	err=$(jq -r '.error // empty' "$out" 2>/dev/null)
	if [ -n "$err" ] || ! jq -e '.end' "$out" >/dev/null 2>&1; then
		die "iperf3 $* failed: ${err:-$(tail -n 3 "$T_DIR/iperf3-client.err")}"
	fi
}

# IP packets (skbs) and segments the receiver namespace took in: their
# ratio is how many segments GRO merged into one skb on average.
ip_counters()
{
	# shellcheck disable=SC2016 # awk's own variables
	ip netns exec "$NS_R" awk '
		/^Ip: [0-9]/ { skbs = $4 }
		/^IpExt: [A-Za-z]/ { for (i = 2; i <= NF; i++) col[$i] = i }
		/^IpExt: [0-9]/ { segs = $col["InNoECTPkts"] + $col["InECT1Pkts"] + $col["InECT0Pkts"] + $col["InCEPkts"] }
		END { print skbs + 0, segs + 0 }' /proc/net/snmp /proc/net/netstat
}

tcp_gbps()
{
	jq -r '.end.sum_received.bits_per_second / 1e9' "$1"
}

# UDP: offered and received packets per second (the receiving socket drops
# what iperf3 cannot read in time; the stack has handled those packets too)
udp_kpps()
{
	jq -r '.end as $e | ($e.sum_sent // $e.sum) as $s | ($e.sum_received // $e.sum) as $r |
		"\($s.packets / $s.seconds / 1000 | floor) kpkt/s sent, \(($r.packets - $r.lost_packets) / $r.seconds / 1000 | floor) kpkt/s read by iperf3"' "$1"
}

# ---------------------------------------------------------- part 1: TCP

declare -A CONF_DESC CONF_SUM CONF_RUNS CONF_SAMPLES CONF_SKBS CONF_SEGS CONF_STAMPS
CONFS="a b c d e"
CONF_DESC[a]="no XDP"
CONF_DESC[b]="XDP_PASS only"
CONF_DESC[c]="rxlat --stamp batch, all stages"
CONF_DESC[d]="rxlat --stamp packet, all stages"
CONF_DESC[e]="rxlat --stamp batch --stages ip_rcv"

throughput_one()
{
	local conf=$1 out="$T_DIR/tcp-$1-$2.json" rxout="$T_DIR/rx-$1-$2.json" g
	local skb0 seg0 skb1 seg1 n stamps
	local dur=$((SECS + 60))

	case $conf in
	a) ;;
	b) pass_attach ;;
	c) rxlat_start "$rxout" -i "$IF_R" --stamp batch -d "$dur" -o json ;;
	d) rxlat_start "$rxout" -i "$IF_R" --stamp packet -d "$dur" -o json ;;
	e) rxlat_start "$rxout" -i "$IF_R" --stamp batch --stages ip_rcv -d "$dur" -o json ;;
	esac
	read -r skb0 seg0 < <(ip_counters)
	iperf_run "$out" "$SECS"
	read -r skb1 seg1 < <(ip_counters)
	CONF_SKBS[$conf]=$((${CONF_SKBS[$conf]:-0} + skb1 - skb0))
	CONF_SEGS[$conf]=$((${CONF_SEGS[$conf]:-0} + seg1 - seg0))
	case $conf in
	b) pass_detach ;;
	c | d | e)
		rxlat_stop
		read -r n stamps < <(rxlat_counts "$rxout")
		CONF_SAMPLES[$conf]=$((${CONF_SAMPLES[$conf]:-0} + n))
		CONF_STAMPS[$conf]=$((${CONF_STAMPS[$conf]:-0} + stamps))
		;;
	esac
	g=$(tcp_gbps "$out")
	CONF_SUM[$conf]=$(awk -v a="${CONF_SUM[$conf]:-0}" -v b="$g" 'BEGIN { print a + b }')
	CONF_RUNS[$conf]="${CONF_RUNS[$conf]:-}$(printf '%.2f ' "$g")"
}

part_throughput()
{
	local r c mean base

	echo
	echo "1. TCP throughput, iperf3 ${SECS}s x $ROUNDS round(s), sender TSO/GSO off, receiver veth $IF_R"
	echo
	for ((r = 1; r <= ROUNDS; r++)); do
		for c in $CONFS; do
			note "throughput round $r/$ROUNDS: (${c}) ${CONF_DESC[$c]}"
			throughput_one "$c" "$r"
		done
	done
	base=$(awk -v s="${CONF_SUM[b]}" -v n="$ROUNDS" 'BEGIN { print s / n }')
	printf '%-40s %7s %7s  %-*s %9s %13s %12s\n' "configuration" "Gbit/s" "vs (b)" \
		$((ROUNDS * 6)) "runs" "segs/skb" "rxlat samples" "XDP stamps"
	for c in $CONFS; do
		mean=$(awk -v s="${CONF_SUM[$c]}" -v n="$ROUNDS" 'BEGIN { printf "%.2f", s / n }')
		printf '%-40s %7s %6sx  %-*s %9s %13s %12s\n' "(${c}) ${CONF_DESC[$c]}" "$mean" \
			"$(ratio "$mean" "$base")" $((ROUNDS * 6)) "${CONF_RUNS[$c]}" \
			"$(ratio "${CONF_SEGS[$c]}" "${CONF_SKBS[$c]}")" \
			"${CONF_SAMPLES[$c]:--}" "${CONF_STAMPS[$c]:--}"
		TP_MEAN[$c]=$mean
		TP_GRO[$c]=$(ratio "${CONF_SEGS[$c]}" "${CONF_SKBS[$c]}")
	done
	TP_BASE=$base
	echo
	echo "   segs/skb: TCP segments per skb at IP in the receiver (GRO merging; 1.00 = none), from the"
	echo "   namespace's IpExt In*Pkts / Ip InReceives. rxlat samples: all stages, all rounds."
}

# ------------------------------------------------------- part 2: cost

COST_ROWS="$T_DIR/cost.tsv"
COST_LOAD="$T_DIR/cost-load.tsv"

# Append "load mode program type run_cnt run_time_ns" rows for program ids.
record_stats()
{
	local load=$1 mode=$2 id
	shift 2
	for id in "$@"; do
		bpftool -j prog show id "$id" 2>/dev/null |
			jq -r --arg l "$load" --arg m "$mode" \
				'[$l, $m, .name, .type, (.run_cnt // 0), (.run_time_ns // 0)] | @tsv'
	done >>"$COST_ROWS"
}

cost_one()
{
	local load=$1 mode=$2 out="$T_DIR/cost-$1-$2.json" rxout="$T_DIR/rx-cost-$1-$2.json"
	local ids=() args=() id fig skb0 seg0 skb1 seg1

	[ "$load" = udp ] && args=(-u -b 0 -l "$UDP_LEN")
	case $mode in
	xdp_pass)
		pass_attach
		id=$(pass_prog_id)
		[ -n "$id" ] || die "cannot find the XDP_PASS program id on $IF_R"
		ids=("$id")
		;;
	*)
		if [ "$mode" = tc ]; then
			rxlat_start "$rxout" -i "$IF_R" --tc -d $((COST_SECS + 60)) -o json
		else
			rxlat_start "$rxout" -i "$IF_R" --stamp "$mode" -d $((COST_SECS + 60)) -o json
		fi
		mapfile -t ids < <(rxlat_ids prog)
		[ "${#ids[@]}" -gt 0 ] || die "no BPF programs found in rxlat's file descriptors"
		;;
	esac
	read -r skb0 seg0 < <(ip_counters)
	iperf_run "$out" "$COST_SECS" "${args[@]}"
	read -r skb1 seg1 < <(ip_counters)
	# read while the programs still exist: they go away with rxlat
	record_stats "$load" "$mode" "${ids[@]}"
	if [ "$mode" = xdp_pass ]; then
		pass_detach
	else
		rxlat_stop
	fi
	if [ "$load" = udp ]; then
		fig=$(udp_kpps "$out")
	else
		fig="$(printf '%.2f' "$(tcp_gbps "$out")") Gbit/s, $(ratio $((seg1 - seg0)) $((skb1 - skb0))) segs/skb"
	fi
	printf '%s\t%s\t%s\n' "$load" "$mode" "$fig" >>"$COST_LOAD"
}

part_cost()
{
	local load mode fig

	STATS_OLD=$(sysctl -n kernel.bpf_stats_enabled) || die "cannot read kernel.bpf_stats_enabled"
	sysctl -q -w kernel.bpf_stats_enabled=1 >/dev/null || die "cannot set kernel.bpf_stats_enabled=1"
	: >"$COST_ROWS"
	: >"$COST_LOAD"
	for load in tcp udp; do
		for mode in xdp_pass batch packet tc; do
			note "cost: $load load, $mode"
			cost_one "$load" "$mode"
		done
	done
	sysctl -q -w kernel.bpf_stats_enabled="$STATS_OLD" >/dev/null ||
		die "cannot restore kernel.bpf_stats_enabled=$STATS_OLD"
	STATS_OLD=""

	echo
	echo "2. Cost per BPF program run: kernel.bpf_stats_enabled=1, run_time_ns / run_cnt, iperf3 ${COST_SECS}s per row group"
	echo "   tcp: TCP as in part 1; udp: iperf3 -u -b 0 -l $UDP_LEN. Loads measured with bpf_stats on:"
	while IFS=$'\t' read -r load mode fig; do
		printf '     %-4s %-8s %s\n' "$load" "$mode" "$fig"
	done <"$COST_LOAD"
	echo "   tc: rxlat --tc, the tc ingress stamper instead of XDP (its hooks convert realtime stamps)."
	echo "   runs/pkt: run_cnt / run_cnt of the XDP program, or of the tc stamper in the tc rows (packets"
	echo "   that reached the veth); below 1 where"
	echo "   GRO merged packets, above 1 where a hook runs twice per packet or also sees other traffic on the"
	echo "   host (tracepoint and cgroup programs run for every namespace). ns/pkt = ns/run x runs/pkt."
	echo "   ns/run includes bpf_stats' own overhead: the XDP_PASS rows (an empty program) show that floor."
	echo
	awk -F'\t' '
	function show(i, r) {
		r = xdp[key[i]] > 0 ? cnt[i] / xdp[key[i]] : 0
		ns = cnt[i] > 0 ? tim[i] / cnt[i] : 0
		printf "%-4s %-8s %-24s %-11s %11d %8.0f %9.2f %8.0f\n", ld[i], md[i], nm[i], ty[i], cnt[i], ns, r, ns * r
		tot[key[i]] += ns * r
	}
	{
		n++; ld[n] = $1; md[n] = $2; nm[n] = $3; ty[n] = $4; cnt[n] = $5; tim[n] = $6
		key[n] = $1 " " $2
		if ($4 == "xdp" || $4 == "sched_cls") xdp[key[n]] = $5
	}
	END {
		printf "%-4s %-8s %-24s %-11s %11s %8s %9s %8s\n", "load", "stamp", "program", "type", "run_cnt", "ns/run", "runs/pkt", "ns/pkt"
		for (i = 1; i <= n; i++) {
			show(i)
			if (i == n || key[i + 1] != key[i])
				printf "%-4s %-8s %-24s %-11s %11s %8s %9s %8.0f\n", ld[i], md[i], "= all programs", "", "", "", "", tot[key[i]]
		}
	}' "$COST_ROWS"
}

# ------------------------------------------------------ part 3: memory

MEM_ROWS="$T_DIR/mem.tsv"

part_memory()
{
	local sz a b line kib series each name bytes hist total

	: >"$MEM_ROWS"
	for sz in $MEM_SIZES; do
		a=${sz%x*}
		b=${sz#*x}
		note "memory: --max-ifaces $a --max-queues $b"
		rxlat_start "$T_DIR/rx-mem-$sz.json" -i "$IF_R" --max-ifaces "$a" --max-queues "$b" -d 60 -o json
		line=$(grep -m1 'map memory:' "$T_DIR/rxlat.err")
		kib=$(sed -n 's/.*map memory: \([0-9.]*\) KiB.*/\1/p' <<<"$line")
		series=$(sed -n 's/.*KiB (\([0-9]*\) series.*/\1/p' <<<"$line")
		each=$(sed -n 's/.*, \([0-9]*\) bytes each.*/\1/p' <<<"$line")
		hist=0
		total=0
		# the kernel's accounting of the maps this rxlat process holds
		while IFS=$'\t' read -r name bytes; do
			[ "$name" = rxlat_hists ] && hist=$((hist + bytes))
			case $name in rxlat*) total=$((total + bytes)) ;; esac
		done < <(for id in $(rxlat_ids map); do
			bpftool -j map show id "$id" 2>/dev/null | jq -r '[.name, (.bytes_memlock // 0)] | @tsv'
		done)
		rxlat_stop
		if [ -z "$kib" ] || [ -z "$series" ] || [ -z "$each" ]; then
			die "unexpected map memory line from rxlat: $line"
		fi
		[ "$hist" -gt 0 ] || die "no rxlat_hists map found among rxlat's file descriptors"
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$a" "$b" "$series" "$each" "$kib" "$hist" "$total" >>"$MEM_ROWS"
	done

	echo
	echo "3. Map memory by size limits: the 'map memory' line rxlat prints, and the kernel's memlock"
	echo "   accounting (bpftool map show) of the maps the running rxlat holds"
	echo
	awk -F'\t' '
	BEGIN {
		printf "%7s %7s %7s %12s %14s %18s %15s\n", "ifaces", "queues", "series", "rxlat (KiB)",
			"hists memlock", "memlock - series", "all rxlat maps"
		printf "%7s %7s %7s %12s %14s %18s %15s\n", "", "", "", "", "(KiB)", "x entry (bytes)", "(KiB)"
	}
	{
		printf "%7d %7d %7d %12.1f %14.1f %18d %15.1f\n", $1, $2, $3, $5, $6 / 1024, $6 - $3 * $4, $7 / 1024
	}' "$MEM_ROWS"
	echo
	echo "   series = 5 stages x (ifaces + 1) x (queues + 1), one $(head -n1 "$MEM_ROWS" | cut -f4)-byte histogram each; the extra slots"
	echo "   take overflow. 'all rxlat maps' adds the stamper's fixed-size maps (per-CPU counters) and page rounding."
}

# ------------------------------------------------- part 4: Prometheus

PROM_IFACES=16
PROM_QUEUES=64
PROM_SECS=${BENCH_PROM_SECONDS:-60}

# A bpftool batch file that gives every (stage, interface, queue) series of
# the series array map ID a few samples: 5 x 16 x 64 lines.
prom_fill_batch()	# MAP-ID OUT
{
	awk -v id="$1" -v ni="$PROM_IFACES" -v nq="$PROM_QUEUES" 'BEGIN {
		# struct rxlat_hist: 226 buckets, sum_ns, 4 sources, 2 maxima (u64 each)
		for (b = 0; b < 1864; b++)
			v[b] = 0
		v[8 * 40] = 100; v[8 * 48] = 7; v[8 * 226 + 2] = 3; v[8 * 227] = 107
		val = ""
		for (b = 0; b < 1864; b++)
			val = val " " v[b]
		for (s = 0; s < 5; s++)
			for (i = 0; i < ni; i++)
				for (q = 0; q < nq; q++) {
					k = (s * (ni + 1) + i) * (nq + 1) + q
					printf "map update id %d key %d %d %d %d value%s\n", id,
						k % 256, int(k / 256) % 256, int(k / 65536) % 256, 0, val
				}
	}' >"$2"
}

# CPU ticks (user + system) of PID
proc_ticks()	# PID
{
	awk '{ print $14 + $15 }' "/proc/$1/stat"
}

# One run at K buckets per power of two: prints a row of the table.
prom_run()	# K
{
	local k=$1 args=() i id t0 t1 rss0 hwm idle busy n=0 size=0 dur=0 series out
	for ((i = 0; i < PROM_IFACES; i++)); do
		args+=(-i "rxp$i")
	done
	rxlat_start /dev/null "${args[@]}" --per-queue --max-ifaces "$PROM_IFACES" \
		--max-queues "$PROM_QUEUES" -o none --prometheus 9474 --prometheus-buckets "$k"
	for id in $(rxlat_ids map); do
		[ "$(bpftool -j map show id "$id" | jq -r .name)" = rxlat_hists ] && break
	done
	prom_fill_batch "$id" "$T_DIR/fill.batch"
	bpftool batch file "$T_DIR/fill.batch" >/dev/null || die "bpftool batch (filling the series) failed"
	rss0=$(proc_status_kb "$RX_PID" VmRSS)
	# idle: the report timer only, no scrape
	t0=$(proc_ticks "$RX_PID")
	sleep 10
	idle=$(awk -v d="$(($(proc_ticks "$RX_PID") - t0))" -v hz="$(getconf CLK_TCK)" \
		'BEGIN { printf "%.1f", 100 * d / hz / 10 }')
	t0=$(proc_ticks "$RX_PID")
	t1=$(date +%s%N)
	for ((i = 0; i < PROM_SECS; i++)); do
		out=$(in_ns "$NS_P" curl -s -o "$T_DIR/scrape.prom" -w '%{http_code} %{size_download} %{time_total}' \
			--max-time 10 http://127.0.0.1:9474/metrics) || die "scrape $i failed"
		read -r code size secs <<<"$out"
		[ "$code" = 200 ] || die "scrape $i: HTTP $code"
		dur=$(awk -v a="$dur" -v b="$secs" 'BEGIN { print a + b }')
		n=$((n + 1))
		sleep "$(awk -v t="$i" -v s="$t1" -v now="$(date +%s%N)" \
			'BEGIN { d = s / 1e9 + t + 1 - now / 1e9; printf "%.3f", (d > 0 ? d : 0) }')"
	done
	busy=$(awk -v d="$(($(proc_ticks "$RX_PID") - t0))" -v hz="$(getconf CLK_TCK)" \
		-v ns="$(($(date +%s%N) - t1))" 'BEGIN { printf "%.1f", 100 * d / hz / (ns / 1e9) }')
	hwm=$(proc_status_kb "$RX_PID" VmHWM)
	series=$(grep -vc '^#' "$T_DIR/scrape.prom")
	printf '%4d %9d %11.1f %11.1f %9.1f %9.1f %10.1f %10.0f\n' "$k" "$series" \
		"$(awk -v b="$size" 'BEGIN { print b / 1048576 }')" \
		"$(awk -v d="$dur" -v n="$n" 'BEGIN { print 1000 * d / n }')" "$idle" "$busy" \
		"$(awk -v r="$rss0" 'BEGIN { print r / 1024 }')" "$(awk -v r="$hwm" 'BEGIN { print r / 1024 }')"
	rxlat_stop
}

part_prometheus()
{
	local i
	ns_create NS_P || die "cannot create the namespace of part 4"
	for ((i = 0; i < PROM_IFACES; i++)); do
		if ! { ip -n "$NS_P" link add "rxp$i" numrxqueues "$PROM_QUEUES" \
			numtxqueues "$PROM_QUEUES" type veth peer name "rxq$i" \
			numrxqueues "$PROM_QUEUES" numtxqueues "$PROM_QUEUES" &&
			ip -n "$NS_P" link set "rxp$i" up && ip -n "$NS_P" link set "rxq$i" up; }; then
			die "cannot create veth rxp$i"
		fi
	done
	NS_R=$NS_P # rxlat_start runs rxlat there
	echo
	echo "4. Prometheus endpoint: $PROM_IFACES interfaces x $PROM_QUEUES queues x 5 stages, every series"
	echo "   with samples, scraped once a second for $PROM_SECS s (CPU: share of one CPU; idle: 10 s, no scrape)"
	echo
	printf '%4s %9s %11s %11s %9s %9s %10s %10s\n' "k" "samples" "scrape" "scrape" "CPU idle" \
		"CPU 1/s" "RSS" "RSS peak"
	printf '%4s %9s %11s %11s %9s %9s %10s %10s\n' "" "(lines)" "(MiB)" "(ms)" "(%)" "(%)" "(MiB)" "(MiB)"
	for k in 2 8; do
		prom_run "$k"
	done
	echo
	echo "   k: exported buckets per power of two (--prometheus-buckets); samples: lines of one scrape"
}

# ------------------------------------------------------------------ main

declare -A TP_MEAN TP_GRO
TP_BASE=0
START=$(date +%s)

echo "rxlat benchmark: kernel $(uname -r), $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
if [ "${BENCH_PROM:-}" = only ]; then
	command -v curl >/dev/null || die "'curl' not found (make deps installs it)"
	part_prometheus
	exit 0
fi
setup
echo "namespaces $NS_S -> $NS_R, veth $IF_S -> $IF_R, receiver GRO $GRO"
part_throughput
part_cost
part_memory
[ -n "${BENCH_PROM:-}" ] && part_prometheus

# one line: throughput ratios, stamper cost, memory per series
cost_of()
{
	awk -F'\t' -v l="$1" -v m="$2" -v t="$3" \
		'$1 == l && $2 == m && $4 == t && $5 > 0 { printf "%.0f", $6 / $5; exit }' "$COST_ROWS"
}
mem_fit=$(awk -F'\t' '{ o = $6 - $3 * $4; if (!n++ || o > hi) hi = o; e = $4 }
	END { printf "%d B x series + at most %.1f KiB", e, hi / 1024 }' "$MEM_ROWS")
echo
printf 'summary: TCP with rxlat vs XDP_PASS (%s Gbit/s; no XDP %s): batch %sx (GRO %s segs/skb), packet %sx (%s), ip_rcv only %sx; XDP stamper %s ns/run batch, %s packet (XDP_PASS %s), tc stamper %s under UDP; histograms %s; took %ds\n' \
	"${TP_MEAN[b]}" "${TP_MEAN[a]}" \
	"$(ratio "${TP_MEAN[c]}" "$TP_BASE")" "${TP_GRO[c]}" "$(ratio "${TP_MEAN[d]}" "$TP_BASE")" "${TP_GRO[d]}" \
	"$(ratio "${TP_MEAN[e]}" "$TP_BASE")" \
	"$(cost_of udp batch xdp)" "$(cost_of udp packet xdp)" "$(cost_of udp xdp_pass xdp)" \
	"$(cost_of udp tc sched_cls)" \
	"$mem_fit" $(($(date +%s) - START))

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The helpers of bench/bench.sh, which sources this file after
# netns-tests/lib.sh (namespaces, background processes, cleanup) and its
# own settings, before the parts (bench/part_*.sh, bench/bench_features.sh):
# messages and cleanup, checks, the table, setup, XDP programs, rxlat,
# bpftrace, traffic, statistics of lists, and what parts 7 and 8 share.

# shellcheck disable=SC2153 # the settings (NS_S, PORT...) are bench.sh's, BG_PID netns-tests/lib.sh's

RX_PID=""
STATS_OLD=""
TRACEFS_MOUNTED=""

die()
{
	echo "bench: error: $*" >&2
	exit 1
}

note()
{
	echo "bench: $*" >&2
}

# netns-tests/lib.sh's cleanup (processes, XDP, namespaces, pins, T_DIR),
# after putting bpf_stats back the way it was; then the mounts this run
# made.
cleanup()
{
	local rc=$?
	trap '' INT TERM
	if [ -n "$STATS_OLD" ]; then
		sysctl -q -w kernel.bpf_stats_enabled="$STATS_OLD" >/dev/null 2>&1 ||
			note "could not restore kernel.bpf_stats_enabled=$STATS_OLD"
	fi
	(
		_bench_status "$rc"
		_t_cleanup
	)
	[ -n "$TRACEFS_MOUNTED" ] && { umount "$TRACEFS_MOUNTED" 2>/dev/null ||
		note "could not unmount $TRACEFS_MOUNTED"; }
	bpffs_teardown
	exit "$rc"
}

_bench_status() { return "$1"; }

# ---------------------------------------------------------------- checks

# ratio A B: A / B with two decimals, 0 when B is not positive
ratio()
{
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "0" }'
}

# calc EXPR [awk -v assignments...]: one awk expression, printed as is
calc()
{
	local e=$1
	shift
	awk "$@" "BEGIN { print $e }"
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

# ------------------------------------------------------------- the table

# row FIGURE MEASURED TARGET VERDICT: one line of the final table
row()
{
	printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$ROWS"
}

# table_print ROWS: the final table as the terminal shows it, in columns
table_print()
{
	awk -F'\t' '
		{ n++; f[n] = $1; m[n] = $2; t[n] = $3; v[n] = $4; if (length($1) > wf) wf = length($1); if (length($3) > wt) wt = length($3) }
		END {
			fmt = "%-" wf "s | %-" wt "s | %-8s | %s\n"
			printf fmt, "figure", "target", "verdict", "measured"
			for (i = 1; i <= n; i++)
				printf fmt, f[i], t[i], v[i], m[i]
		}' "$1"
}

# results_write ROWS FILE PARTS SECONDS: the final table into FILE as
# Markdown, after the run's date, machine, kernel, settings and parts, so
# that a figure never travels without them. FILE is replaced whole (through
# a temporary file beside it): a run that stops early leaves the last one.
results_write()
{
	local rows=$1 file=$2 parts=$3 secs=$4 cpu mem settings tmp
	cpu=$(awk -F': *' '$1 ~ /^model name/ { print $2; exit }' /proc/cpuinfo)
	mem=$(awk '$1 == "MemTotal:" { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
	settings=$(env | awk -F= '/^BENCH_/ && $1 != "BENCH_RESULTS"' | sort | paste -sd " ")
	tmp="$file.tmp$$"
	{
		echo "# rxlat benchmark results"
		echo
		echo "Written by \`make bench\` (bench/bench.sh), replaced by each run: the"
		echo "figures of the last run, each beside its target. How to read them:"
		echo "[docs/performance.md](../docs/performance.md)."
		echo
		echo "## The last run"
		echo
		echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "- machine: $(nproc) CPUs, ${cpu:-CPU model unknown}, ${mem:-unknown} memory"
		echo "- kernel: $(uname -r)"
		echo "- parts run: $parts"
		echo "- settings: ${settings:-the defaults}"
		echo "- took: $secs s"
		echo
		echo "| figure | target | verdict | measured |"
		echo "|---|---|---|---|"
		awk -F'\t' '{ for (i = 1; i <= 4; i++) gsub(/\|/, "\\|", $i); printf "| %s | %s | %s | %s |\n", $1, $3, $4, $2 }' "$rows"
	} >"$tmp" || { rm -f "$tmp"; note "could not write $tmp"; return 1; }
	if ! mv -f "$tmp" "$file"; then
		rm -f "$tmp"
		note "could not write $file"
		return 1
	fi
	note "results written to $file"
}

# verdict A OP B: "met" when the numeric comparison holds (a unit after
# the number, such as x, is ignored), else "not met"
verdict()
{
	awk -v a="$1" -v b="$3" "BEGIN { exit !(a + 0 $2 b + 0) }" && echo met || echo "not met"
}

has_part()
{
	[[ " $PARTS " == *" $1 "* ]]
}

# ----------------------------------------------------------------- setup

# tracefs for the tracepoint programs (libbpf and bpftrace look for it),
# bpffs for xdp-loader's pins: mounted for the run if absent.
mounts_setup()
{
	if [ ! -e /sys/kernel/tracing/events ] && [ ! -e /sys/kernel/debug/tracing/events ]; then
		mount -t tracefs tracefs /sys/kernel/tracing || die "cannot mount tracefs"
		TRACEFS_MOUNTED=/sys/kernel/tracing
	fi
	bpffs_setup || die "cannot mount a bpf filesystem"
}

setup()
{
	local mac_s
	ns_create NS_S || die "cannot create the sender's namespace"
	ns_create NS_R || die "cannot create the receiver's namespace"
	ip link add "$IF_S" netns "$NS_S" numrxqueues 4 numtxqueues 4 type veth \
		peer name "$IF_R" netns "$NS_R" numrxqueues 4 numtxqueues 4 ||
		die "cannot create veth pair"
	if ! { ip -n "$NS_S" addr add "$ADDR_S/24" dev "$IF_S" &&
		ip -n "$NS_R" addr add "$ADDR_R/24" dev "$IF_R" &&
		ip -n "$NS_S" link set "$IF_S" up && ip -n "$NS_R" link set "$IF_R" up; }; then
		die "cannot configure the veth pair"
	fi
	mac_s=$(link_mac "$NS_S" "$IF_S") MAC_R=$(link_mac "$NS_R" "$IF_R")
	# no ARP in the counts
	if ! { ip -n "$NS_S" neigh replace "$ADDR_R" lladdr "$MAC_R" dev "$IF_S" nud permanent &&
		ip -n "$NS_R" neigh replace "$ADDR_S" lladdr "$mac_s" dev "$IF_R" nud permanent; }; then
		die "cannot add static neighbours"
	fi
	NETNS_INUM=$(stat -L -c %i "/run/netns/$NS_R") || die "no inode for $NS_R"
	ip netns exec "$NS_S" ethtool -K "$IF_S" tso off gso off >/dev/null ||
		die "ethtool -K $IF_S tso off gso off failed"
	ip netns exec "$NS_R" ethtool -K "$IF_R" gro "$GRO" >/dev/null ||
		die "ethtool -K $IF_R gro $GRO failed"

	local i port
	for ((i = 0; i <= UDP_FLOWS; i++)); do
		port=$PORT
		((i > 0)) && port=$((UDP_PORT + i - 1))
		t_bg "iperf3-server-$port" in_ns "$NS_R" "${RCV_PIN[@]}" iperf3 -s -B "$ADDR_R" -p "$port"
	done
	for ((i = 0; i < 100; i++)); do
		[ "$(in_ns "$NS_R" ss -Hltn | wc -l)" -gt "$UDP_FLOWS" ] && return 0
		sleep 0.1
	done
	die "iperf3 servers did not start listening: $(tail -3 "$T_DIR"/iperf3-server-*.err)"
}

# ----------------------------------------------------------- XDP programs

# xdp_attach OBJ: one program of ours (native mode) on the receiving veth
xdp_attach()
{
	t_track_xdp "$NS_R" "$IF_R"
	ip -n "$NS_R" link set dev "$IF_R" xdpdrv obj "$1" sec xdp ||
		die "cannot attach $1 to $IF_R in native mode"
}

xdp_detach()
{
	ip -n "$NS_R" link set dev "$IF_R" xdpdrv off || die "cannot detach XDP from $IF_R"
}

xdp_prog_id()
{
	link_xdp_prog "$NS_R" "$IF_R"
}

# The stamper loaded by xdp-loader alone, as docs/tc-stamper.md's standalone use
# has it: no rxlat, so no poll-end reset.
XL_PIN=""
xl_load()
{
	XL_PIN=$(t_pin_dir xl)
	t_track_pin "$XL_PIN"
	t_xdp_load "$NS_R" "$IF_R" native "$STAMPER_OBJ" "$XL_PIN" >&2 ||
		die "xdp-loader could not load $STAMPER_OBJ on $IF_R"
}

xl_unload()
{
	in_ns "$NS_R" xdp-loader unload -a "$IF_R" >/dev/null 2>&1 ||
		die "xdp-loader could not unload $IF_R"
	rm -rf -- "$XL_PIN"
}

# ---------------------------------------------------------------- rxlat

# rxlat_start OUTFILE ARGS...: start rxlat in the receiver namespace and wait
# until its programs are attached (the "map memory" line on stderr).
# rxlat ARGS in NS_R, its JSON in OUT; a veth named with -i is stamped in
# XDP unless ARGS say --tc or --no-xdp (nic_stamper(): the bench's veths
# stand in for NICs, and "rxlat (XDP stamper)" is what its rows say)
rxlat_start()	# OUT ARGS...
{
	local out=$1 i xdp
	shift
	mapfile -t xdp < <(nic_stamper "$@")
	: >"$T_DIR/rxlat.err"
	nsenter --net="/run/netns/$NS_R" "$RXLAT" "$@" "${xdp[@]}" >"$out" 2>"$T_DIR/rxlat.err" &
	RX_PID=$!
	t_track_pid "$RX_PID"
	for ((i = 0; i < 300; i++)); do
		grep -q 'map memory:' "$T_DIR/rxlat.err" && return 0
		kill -0 "$RX_PID" 2>/dev/null || break
		sleep 0.1
	done
	_t_kill_pid "$RX_PID"
	RX_PID=""
	return 1
}

rxlat_start_or_die()
{
	rxlat_start "$@" || die "rxlat ${*:2} did not start within 30 s; its stderr:
$(tail -n 20 "$T_DIR/rxlat.err")"
}

# SIGINT, as a user stops it: the final report is written
rxlat_stop()
{
	kill -0 "$RX_PID" 2>/dev/null ||
		die "rxlat exited before the run ended; its stderr:
$(tail -n 20 "$T_DIR/rxlat.err")"
	kill -INT "$RX_PID"
	t_wait_pid "$RX_PID" 10 >/dev/null
	_t_kill_pid "$RX_PID"
	RX_PID=""
}

# Ids of the BPF programs or maps ("prog" or "map") that PID holds open.
pid_bpf_ids()	# PID prog|map
{
	grep -sh "^$2_id:" /proc/"$1"/fdinfo/* | awk '{ print $2 }' | sort -un
}

# Kernel memlock of the maps rxlat holds (bytes), and its map named NAME's id
rxlat_memlock()
{
	local id total=0 b
	for id in $(pid_bpf_ids "$RX_PID" map); do
		b=$(bpftool -j map show id "$id" 2>/dev/null | gojq -r 'select((.name // "") | startswith("rxlat")) | .bytes_memlock // 0')
		total=$((total + ${b:-0}))
	done
	echo "$total"
}

rxlat_map_id()	# NAME
{
	local id
	for id in $(pid_bpf_ids "$RX_PID" map); do
		[ "$(bpftool -j map show id "$id" 2>/dev/null | gojq -r .name)" = "$1" ] && echo "$id" && return 0
	done
	return 1
}

# ---------------------------------------------------------------- bpftrace

# The ip_rcv latency as rxlat's fallback computes it, from the rxlat_meta
# stamp right before the MAC header (include/rxlat.h: magic at 0, ifindex
# at 4, rx_queue at 8, stamp_lo at 12, stamp_hi at 16), for packets of the
# receiver's namespace only, as rxlat counts them. ACTION: the histogram
# keyed by interface and queue, or one line per packet.
bt_script()	# hist|print
{
	local act
	if [ "$1" = hist ]; then
		act='@h[*(uint32 *)($m + 4), *(uint16 *)($m + 8)] = hist(nsecs - $st);'
	else
		act='printf("%lu\n", nsecs - $st);'
	fi
	cat <<EOF
tracepoint:net:netif_receive_skb
{
	\$skb = (struct sk_buff *)args->skbaddr;
	if (\$skb->dev->nd_net.net->ns.inum == $NETNS_INUM) {
		\$m = \$skb->head + \$skb->mac_header - 20;
		if (*(uint32 *)\$m == 0x52584c01) {
			\$st = ((uint64)*(uint32 *)(\$m + 16) << 32) | *(uint32 *)(\$m + 12);
			$act
		}
	}
}
EOF
}

BT_PID=""
bt_start()	# hist|print NAME
{
	local i
	bt_script "$1" >"$T_DIR/$2.bt"
	t_bg "$2" bpftrace "$T_DIR/$2.bt"
	BT_PID=$BG_PID
	for ((i = 0; i < 300; i++)); do
		grep -q '^Attaching' "$T_DIR/$2.out" 2>/dev/null && return 0
		kill -0 "$BT_PID" 2>/dev/null || break
		sleep 0.1
	done
	die "bpftrace did not start: $(grep -v RLIMIT_MEMLOCK "$T_DIR/$2.err" | tail -n 5)"
}

bt_stop()
{
	kill -INT "$BT_PID" 2>/dev/null
	t_wait_pid "$BT_PID" 10 >/dev/null
	_t_kill_pid "$BT_PID"
	BT_PID=""
}

# ---------------------------------------------------------------- traffic

# iperf_run OUTFILE SECONDS [extra iperf3 args]: run the client, fail loudly.
iperf_run()
{
	local out=$1 secs=$2 err
	shift 2
	ip netns exec "$NS_S" timeout --foreground $((secs + 20)) \
		"${SND_PIN[@]}" iperf3 -c "$ADDR_R" -p "$PORT" -t "$secs" -J "$@" >"$out" 2>"$T_DIR/iperf3-client.err"
	err=$(gojq -r '.error // empty' "$out" 2>/dev/null)
	if [ -n "$err" ] || ! gojq -e '.end' "$out" >/dev/null 2>&1; then
		die "iperf3 $* failed: ${err:-$(tail -n 3 "$T_DIR/iperf3-client.err")}"
	fi
}

tcp_gbps()
{
	gojq -r '.end.sum_received.bits_per_second / 1e9' "$1"
}

# IP packets (skbs) and segments the receiver namespace took in: their
# ratio is how many segments GRO merged into one skb on average.
ip_counters()
{
	in_ns "$NS_R" awk '
		/^Ip: [0-9]/ { skbs = $4 }
		/^IpExt: [A-Za-z]/ { for (i = 2; i <= NF; i++) col[$i] = i }
		/^IpExt: [0-9]/ { segs = $col["InNoECTPkts"] + $col["InECT1Pkts"] + $col["InECT0Pkts"] + $col["InCEPkts"] }
		END { print skbs + 0, segs + 0 }' /proc/net/snmp /proc/net/netstat
}

# nstat_get NS NAME...: absolute values, in the order asked (0 if absent);
# -s: the history file of other nstat users is left alone
nstat_get()
{
	local ns=$1
	shift
	in_ns "$ns" nstat -asz "$@" 2>/dev/null |
		awk -v want="$*" '!/^#/ { v[$1] = $2 } END { n = split(want, w, " "); for (i = 1; i <= n; i++) printf "%s%d", (i > 1 ? " " : ""), v[w[i]]; print "" }'
}

# udp_load SECONDS NAME: UDP_FLOWS iperf3 clients, one port each, as fast
# as they send; sets UDP_KPPS (the receiver's Udp InDatagrams per second
# over SECONDS inside the run, after a second of warm-up) and UDP_DROPS
# (RcvbufErrors in the same window); UDP_SOCK_KPPS: both, the datagrams
# that reached the sockets.
# shellcheck disable=SC2034 # UDP_KPPS, UDP_DROPS and UDP_SOCK_KPPS are for the parts
udp_load()
{
	local secs=$1 name=$2 i pids=() c0 d0 c1 d1 t0 t1 err
	for ((i = 0; i < UDP_FLOWS; i++)); do
		ip netns exec "$NS_S" timeout --foreground $((secs + 25)) "${SND_PIN[@]}" \
			iperf3 -u -b 0 -l "$UDP_LEN" -c "$ADDR_R" -p $((UDP_PORT + i)) -t $((secs + 2)) -J \
			>"$T_DIR/udp-$name-$i.json" 2>"$T_DIR/udp-$name-$i.err" &
		pids+=($!)
		t_track_pid "$!"
	done
	sleep 1
	read -r c0 d0 < <(nstat_get "$NS_R" UdpInDatagrams UdpRcvbufErrors)
	t0=$(date +%s%N)
	sleep "$secs"
	read -r c1 d1 < <(nstat_get "$NS_R" UdpInDatagrams UdpRcvbufErrors)
	t1=$(date +%s%N)
	for i in "${!pids[@]}"; do
		wait "${pids[i]}"
		err=$(gojq -r '.error // empty' "$T_DIR/udp-$name-$i.json" 2>/dev/null)
		[ -n "$err" ] && die "iperf3 -u to port $((UDP_PORT + i)) failed: $err"
	done
	UDP_KPPS=$(calc '(c1 - c0) / ((t1 - t0) / 1e9) / 1000' -v c0="$c0" -v c1="$c1" -v t0="$t0" -v t1="$t1")
	UDP_DROPS=$((d1 - d0))
	UDP_SOCK_KPPS=$(calc '(c1 - c0 + d1 - d0) / ((t1 - t0) / 1e9) / 1000' -v c0="$c0" -v c1="$c1" \
		-v d0="$d0" -v d1="$d1" -v t0="$t0" -v t1="$t1")
}

# veth's per-queue XDP counters of the receiver: "q0 q1 q2 q3"
queue_counts()
{
	ip netns exec "$NS_R" ethtool -S "$IF_R" 2>/dev/null |
		awk '/rx_queue_[0-9]+_xdp_packets/ { split($1, a, "_"); n[a[3]] = $2 } END { printf "%d %d %d %d\n", n[0], n[1], n[2], n[3] }'
}

# ------------------------------------------------------------ statistics

# list statistics: "mean", "min-max", "max"
mean_of() { awk '{ for (i = 1; i <= NF; i++) s += $i } END { printf "%.2f", NF ? s / NF : 0 }' <<<"$1"; }
range_of() { awk '{ if (!NF) { printf "none"; exit } lo = hi = $1; for (i = 2; i <= NF; i++) { if ($i < lo) lo = $i; if ($i > hi) hi = $i } printf "%d-%d", lo, hi }' <<<"$1"; }
max_of() { awk '{ hi = $1; for (i = 2; i <= NF; i++) if ($i > hi) hi = $i; printf "%d", hi }' <<<"$1"; }
# spread of runs, % of the best: "noisy" past 20 (ratios then say little)
spread_of() { awk '{ lo = hi = $1; for (i = 2; i <= NF; i++) { if ($i < lo) lo = $i; if ($i > hi) hi = $i } printf "%.0f", (hi > 0 ? 100 * (hi - lo) / hi : 0) }' <<<"$1"; }
# noisy LIST...: ", noisy (runs N% apart)" when a list spreads over 20%
noisy()
{
	local l m=0 sp
	for l in "$@"; do
		sp=$(spread_of "$l")
		((sp > m)) && m=$sp
	done
	((m > 20)) && printf ', noisy (runs %d%% apart)' "$m"
	return 0
}
# excess_of LIST SUBTRAHENDS: per run, LIST minus the run's SUBTRAHEND (>= 0)
excess_of() { awk -v b="$2" 'BEGIN { split(b, minus) } { for (i = 1; i <= NF; i++) { d = $i - minus[i]; printf "%d ", (d > 0 ? d : 0) } }' <<<"$1"; }
# where_zero COND LIST: LIST's values in the runs where COND is 0
where_zero() { awk -v c="$1" 'BEGIN { split(c, cond) } { for (i = 1; i <= NF; i++) if (cond[i] == 0) printf "%d ", $i }' <<<"$2"; }
# best run: other users of the machine only ever slow a run down
best_of() { awk '{ hi = $1; for (i = 2; i <= NF; i++) if ($i + 0 > hi + 0) hi = $i; printf "%s", hi }' <<<"$1"; }

# ------------------------------------------- shared by parts 7 and 8

PROM_IFACES=16
PROM_QUEUES=64

# A namespace with 16 veth pairs of 64 queues, for rxlat -i rxp0..15; rxlat
# runs there (rxlat_start uses NS_R) for the part that called this, which
# keeps NS_R local: the parts after it run on the benchmark's own veth.
many_setup()
{
	local i
	[ -n "$NS_P" ] && { NS_R=$NS_P; return 0; }
	ns_create NS_P || die "cannot create the namespace of parts 7 and 8"
	for ((i = 0; i < PROM_IFACES; i++)); do
		if ! { ip -n "$NS_P" link add "rxp$i" numrxqueues "$PROM_QUEUES" \
			numtxqueues "$PROM_QUEUES" type veth peer name "rxq$i" \
			numrxqueues "$PROM_QUEUES" numtxqueues "$PROM_QUEUES" &&
			ip -n "$NS_P" link set "rxp$i" up && ip -n "$NS_P" link set "rxq$i" up; }; then
			die "cannot create veth rxp$i"
		fi
	done
	NS_R=$NS_P
}

many_args()
{
	local i
	for ((i = 0; i < PROM_IFACES; i++)); do
		printf -- '-i\nrxp%d\n' "$i"
	done
}

# CPU ticks (user + system) of PID
proc_ticks()	# PID
{
	awk '{ print $14 + $15 }' "/proc/$1/stat"
}

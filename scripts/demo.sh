#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The built-in demo (make demo): a container host built of network
# namespaces. "outside" sends over a 4-queue veth (o0 -> h0) to "host",
# which routes to two pods over veth pairs, as Calico does: pod-web runs
# an iperf3 TCP server, pod-dns an iperf3 UDP server, each inside a cgroup
# named the way Docker names a container's, each pod's traffic on h0
# queues of its own. rxlat runs in "host" with its defaults (it stamps h0
# at tc ingress and changes nothing on the device) and follows the packets
# into the pods (--per-queue --by cgroup), for DEMO_SECONDS (default 10);
# the host's firewall drops UDP to pod-dns above a rate (--drops). h0's
# queues are NAPI instances (GRO on, as a NIC's), polled in NAPI threads
# (threaded NAPI), each pod's on the other pod's CPU, and rxlat measures
# the wait from a queue's schedule to its poll's first packet at tc
# (napi_wait); for part of the run a SCHED_FIFO busy loop takes the
# CPU of pod-dns's queues 40 ms in every 100, as a real-time task on a
# queue's interrupt CPU would. The demo prints rxlat's start-up lines, one
# line per report, a table of the whole run per pod, stage and queue, a
# summary that points at the queues that waited, and where the run's
# heatmap is (build/demo-heatmap.svg); it leaves nothing behind on any
# exit path.

# shellcheck source=netns-tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../netns-tests/lib.sh"

SECONDS_RUN=${DEMO_SECONDS:-10}
INTERVAL=${DEMO_INTERVAL:-2}
RXLAT=$BUILD/rxlat
JQ=$(dirname "${BASH_SOURCE[0]}")/demo.jq

if [[ $EUID -ne 0 ]]; then
	echo "error: the demo must run as root (namespaces, BPF): sudo make demo" >&2
	exit 1
fi
for c in ip nsenter ethtool iperf3 gojq taskset chrt flock "$RXLAT"; do
	command -v "$c" >/dev/null || { echo "error: $c not found: run 'make deps all'" >&2; exit 1; }
done

# Names of our own (rxlat-demo<pid>-...): apart from the tests' rxlat-t<pid>
# and from another demo running at the same time.
PREFIX="rxlat-demo$$"
NETNS=() PIDS=() CGROUPS=() TMP=
NS_outside='' NS_host='' # set by ns
CPU_web=() CPU_dns=() # set by setup
HOG_CPU='' # the CPU of the hog, if there is one
PINS='{}' # h0 queue -> the CPU its NAPI thread is pinned to (napi_threads_pinned)
cleanup()
{
	local p ns d i
	trap - EXIT INT TERM
	for p in "${PIDS[@]}"; do
		kill -TERM "$p" 2>/dev/null
	done
	wait 2>/dev/null
	for ns in "${NETNS[@]}"; do
		for p in $(ip netns pids "$ns" 2>/dev/null); do
			kill -KILL "$p" 2>/dev/null
		done
		# h0, and rxlat's tc link on it if rxlat left one, go with the namespace
		ip netns del "$ns" 2>/dev/null
	done
	for d in "${CGROUPS[@]}"; do
		# a killed process leaves its cgroup a moment after it is gone
		for ((i = 0; i < 40; i++)); do
			[[ -d $d ]] || break
			rmdir -- "$d" 2>/dev/null && break
			sleep 0.05
		done
	done
	[[ -n $TMP ]] && rm -rf -- "$TMP"
	echo "demo: torn down (namespaces, tc link, hooks, processes, cgroups)"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ns NAME: a namespace of ours, named PREFIX-NAME, in NS_<NAME without '-'>
ns()
{
	local name="$PREFIX-$1"
	ip netns add "$name" || return 1
	NETNS+=("$name")
	printf -v "NS_${1//-/_}" '%s' "$name"
	in_ns "$name" sysctl -q -w net.ipv6.conf.default.addr_gen_mode=1 \
		net.ipv6.conf.default.router_solicitations=0 >/dev/null &&
		ip -n "$name" link set lo up
}

# pod N NAME: a pod behind the host by a routed veth pair hN -- eth0,
# 10.77.N.2, its default route through the host; static neighbours.
pod()
{
	local n=$1 p hmac pmac
	ns "$2" || return 1
	p=NS_${2//-/_}
	p=${!p}
	ip -n "$NS_host" link add "h$n" type veth peer name eth0 netns "$p" &&
		ip -n "$NS_host" addr add "10.77.$n.1/24" dev "h$n" &&
		ip -n "$p" addr add "10.77.$n.2/24" dev eth0 &&
		ip -n "$NS_host" link set "h$n" up && ip -n "$p" link set eth0 up &&
		ip -n "$p" route add default via "10.77.$n.1" || return 1
	hmac=$(link_mac "$NS_host" "h$n") pmac=$(link_mac "$p" eth0)
	ip -n "$NS_host" neigh replace "10.77.$n.2" lladdr "$pmac" dev "h$n" nud permanent &&
		ip -n "$p" neigh replace "10.77.$n.1" lladdr "$hmac" dev eth0 nud permanent
}

# container NAME: a cgroup v2 directory .../docker-ID.scope, ID made from
# NAME, in CG_<NAME>; nothing (and no container label) without cgroup v2.
container()
{
	local root id d
	root=$(cgroup2_root)
	[[ -n $root ]] || return 0
	id=$(printf '%s' "$PREFIX-$1" | sha256sum | cut -c1-64)
	d=$root/$PREFIX
	if [[ ! -d $d ]]; then
		mkdir "$d" && CGROUPS+=("$d") || return 0
	fi
	# the leaves before their parent
	mkdir "$d/docker-$id.scope" && CGROUPS=("$d/docker-$id.scope" "${CGROUPS[@]}") || return 0
	printf -v "CG_${1//-/_}" '%s' "$d/docker-$id.scope"
}

# in_pod NAME CMD...: CMD in the background in pod NAME and its container
in_pod()
{
	local p=NS_${1//-/_} cg=CG_${1//-/_}
	nsenter --net="/run/netns/${!p}" -- sh -c \
		'[ -z "$1" ] || echo $$ > "$1/cgroup.procs" || exit 1; shift; exec "$@"' \
		sh "${!cg:-}" "${@:2}" >/dev/null 2>&1 &
	PIDS+=($!)
}

setup()
{
	ns outside && ns host && pod 1 pod-web && pod 2 pod-dns || return 1
	# the host's "NIC": h0, 4 receive queues, facing outside (10.77.0.0/24)
	ip -n "$NS_outside" link add o0 numrxqueues 4 numtxqueues 4 type veth \
		peer name h0 netns "$NS_host" numrxqueues 4 numtxqueues 4 &&
		ip -n "$NS_outside" addr add 10.77.0.1/24 dev o0 &&
		ip -n "$NS_host" addr add 10.77.0.2/24 dev h0 &&
		ip -n "$NS_outside" link set o0 up && ip -n "$NS_host" link set h0 up &&
		ip -n "$NS_outside" route add 10.77.0.0/16 via 10.77.0.2 &&
		ip -n "$NS_outside" neigh replace 10.77.0.2 lladdr "$(link_mac "$NS_host" h0)" \
			dev o0 nud permanent &&
		ip -n "$NS_host" neigh replace 10.77.0.1 lladdr "$(link_mac "$NS_outside" o0)" \
			dev h0 nud permanent &&
		in_ns "$NS_host" sysctl -qw net.ipv4.ip_forward=1 || return 1
	# The demo builds its stand-in NIC (rxlat changes nothing on h0): a
	# NIC's receive queues are NAPI instances, a veth's are once GRO is on
	# (Linux 5.13+); and a NIC receives frames of the wire's MTU, where
	# veth_xmit() hands a TSO sender's large segments to the backlog,
	# past the NAPI instances: o0 segments them itself (GSO), and h0's GRO
	# merges them again, as a NIC's does
	in_ns "$NS_host" ethtool -K h0 gro on >/dev/null &&
		in_ns "$NS_outside" ethtool -K o0 tso off >/dev/null || return 1
	# A veth's receive queue is the sender's transmit queue. Transmit
	# queues 0-1 of o0 for CPU 0, 2-3 for CPU 1 (XPS), and each pod's
	# sender and receiver on a CPU of their own (TCP sends where ACKs come
	# in): each pod gets h0 queues of its own, where the host's ip_rcv
	# holds that pod's packets only (on a NIC, RSS mixes pods on a queue)
	if (($(nproc) >= 2)); then
		for q in 0 1 2 3; do
			ns_sysfs_write "$NS_outside" "/sys/class/net/o0/queues/tx-$q/xps_cpus" $((q < 2 ? 1 : 2)) ||
				return 1
		done
		CPU_web=(taskset -c 0) CPU_dns=(taskset -c 1)
	fi
	container pod-web && container pod-dns
	# the host's firewall caps UDP to pod-dns at 10000 datagrams a second
	if command -v nft >/dev/null; then
		in_ns "$NS_host" nft add table inet rxlat_demo &&
			in_ns "$NS_host" nft add chain inet rxlat_demo forward \
				'{ type filter hook forward priority 0; policy accept; }' &&
			in_ns "$NS_host" nft add rule inet rxlat_demo forward \
				ip daddr 10.77.2.2 udp dport 5201 limit rate over 10000/second burst 1000 packets drop
	fi
}

# Threaded NAPI on h0 (its NAPI instances came with GRO, in setup): its
# threads, told from another demo's as the ones that came with the write,
# pinned each to the CPU its queue's sender does not run on (queues 0-1 to
# CPU 1, 2-3 to CPU 0), so that a hog on one CPU stops a queue's polls,
# not the sender that fills them. The pins go to the summary (PINS).
napi_threads_pinned()
{
	local before after mine t i=0 lock pins=()
	# another demo's h0 makes napi/h0-* threads too: one demo at a time
	# here, by a lock on this script (no file of its own to leave behind)
	exec {lock}<"${BASH_SOURCE[0]}" && flock -w 10 "$lock" || return 1
	mapfile -t before < <(napi_threads h0)
	ns_sysfs_write "$NS_host" /sys/class/net/h0/threaded 1 || return 1
	mapfile -t after < <(napi_threads h0)
	exec {lock}>&-
	# napi/h0-ID: the IDs count up in queue order
	mapfile -t mine < <(for t in "${after[@]}"; do
		[[ " ${before[*]} " == *" $t "* ]] || echo "$(ps -o comm= -p "$t") $t"
	done | sort -t- -k2 -n | cut -d' ' -f2)
	((${#mine[@]} == 4)) || return 1
	for t in "${mine[@]}"; do
		taskset -pc $((i < 2 ? 1 : 0)) "$t" >/dev/null || return 1
		pins+=("\"$i\": $((i < 2 ? 1 : 0))")
		i=$((i + 1))
	done
	PINS="{$(IFS=,; echo "${pins[*]}")}"
}

echo "demo: a container host in namespaces: outside -> host (h0, 4 rx queues) -> pod-web (TCP) and pod-dns (UDP), ${SECONDS_RUN} s of iperf3."
echo "demo: rxlat in the host, with its defaults, stamps h0 at tc ingress and follows each packet into its pod: per pod and h0 queue, time from the stamp to each stage."
echo "demo: a pod's packet passes ip_rcv twice: the host's (it routes the packet on) and the pod's (it arrives there); the difference is the host's forwarding, where rxlat can measure the host's (the summary says)."
setup || { echo "error: cannot build the demo's namespaces" >&2; exit 1; }
TMP=$(mktemp -d /tmp/rxlat-demo.XXXXXX) || exit 1

: >"$TMP/err"
# h0 is a veth standing in for the host's NIC; rxlat as a user runs it, with
# its defaults: the tc stamp, which reaches the pods
args=(-i h0 --per-queue --by cgroup --drops --stages +napi_wait -o json
	-r "$INTERVAL" -d "$SECONDS_RUN")
echo "demo: in the host: rxlat ${args[*]}"
nsenter --net="/run/netns/$NS_host" -- "$RXLAT" "${args[@]}" \
	> >(tee "$TMP/report.json" | gojq -r --arg prefix "$PREFIX" --arg mode live --arg hog_cpu '' \
		--argjson pins '{}' -f "$JQ") \
	2> >(tee "$TMP/err" >&2) &
PIDS+=($!)
RX=$!
for ((i = 0; i < 100; i++)); do
	grep -q "map memory" "$TMP/err" && break
	kill -0 "$RX" 2>/dev/null || exit 1
	sleep 0.1
done
hog=$((SECONDS_RUN - 6))
if (($(nproc) < 2)); then
	echo "demo: one CPU here: no hog (it would stop the senders too)"
elif ! napi_threads_pinned; then
	echo "demo: h0's NAPI threads could not be pinned: no hog"
elif ((hog < 2)); then
	echo "demo: no hog in a run under 8 s (DEMO_SECONDS)"
else
	HOG_CPU=0
fi

# pod-web: 2 TCP streams; pod-dns: 2 UDP streams of 200-byte datagrams,
# 12500 a second in all. Two flows each: each pod on one or two of h0's
# queues, often one of its own (the flow hash decides)
in_pod pod-web "${CPU_web[@]}" iperf3 -s -p 5201
in_pod pod-dns "${CPU_dns[@]}" iperf3 -s -p 5201
sleep 0.5
t=$((SECONDS_RUN > 3 ? SECONDS_RUN - 2 : 1))
in_ns "$NS_outside" "${CPU_web[@]}" iperf3 -c 10.77.1.2 -p 5201 -t "$t" -P 2 >/dev/null 2>&1 &
PIDS+=($!)
in_ns "$NS_outside" "${CPU_dns[@]}" iperf3 -c 10.77.2.2 -p 5201 -u -b 10M -l 200 -t "$t" -P 2 >/dev/null 2>&1 &
PIDS+=($!)

if [[ -n $HOG_CPU ]]; then
	sleep 3
	echo "demo: a SCHED_FIFO busy loop on CPU $HOG_CPU for $hog s, 40 ms in every 100: h0 queues 2-3's NAPI threads (pod-dns) wait behind it"
	cpu_hog_cmd "$HOG_CPU" "$hog" 40 60
	"${HOG[@]}" &
	PIDS+=($!)
fi
wait "$RX"
# the live lines' pipe drains once rxlat's last report is in
for ((i = 0; i < 20; i++)); do
	grep -q '"final":true' "$TMP/report.json" && break
	sleep 0.1
done
sleep 0.2
gojq -r -s --arg prefix "$PREFIX" --arg mode end --arg hog_cpu "$HOG_CPU" \
	--argjson pins "$PINS" -f "$JQ" "$TMP/report.json"

# The heatmap of napi_wait and of each pod's stages per h0 queue, kept in
# the build tree: the temporary directory goes with the demo
HEATMAP_SVG=$BUILD/demo-heatmap.svg
gojq -c 'if .series then .series |= map(select(.stage == "napi_wait" or .netns != null)) else . end' \
	"$TMP/report.json" |
	"$BUILD/rxlat-heatmap" -t "make demo: napi_wait and each pod's stages per h0 queue" \
		-o "$HEATMAP_SVG" &&
	echo "demo: the run's heatmap (napi_wait and each pod's stages, per h0 queue; hover a cell for its numbers): $HEATMAP_SVG"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The built-in demo (make demo): two namespaces joined by a 4-queue veth,
# rxlat attached to the receiving end with --per-queue, TCP and UDP traffic
# over several queues for DEMO_SECONDS (default 10), live reports with the
# drops section (an nftables rule drops UDP above 20000 datagrams a second
# when nft is there), two slow records a second per CPU (samples from 1 ms,
# and drops), and a teardown that leaves nothing behind on any exit
# path.

# shellcheck source=netns-tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../netns-tests/lib.sh"

SECONDS_RUN=${DEMO_SECONDS:-10}
RXLAT=$BUILD/rxlat

if [[ $EUID -ne 0 ]]; then
	echo "error: the demo must run as root (namespaces, XDP): sudo make demo" >&2
	exit 1
fi
for c in ip nsenter iperf3 gojq "$RXLAT"; do
	command -v "$c" >/dev/null || { echo "error: $c not found: run 'make deps all'" >&2; exit 1; }
done

# the test library's namespace helpers and its sweep, under a prefix of ours
# shellcheck disable=SC2034 # T_NETNS and T_NS_SEQ are lib.sh's, for ns_create
T_PREFIX="${RXLAT_T_PREFIX}$$" T_NETNS=() T_NS_SEQ=0
PIDS=()
cleanup()
{
	local p
	trap - EXIT INT TERM
	for p in "${PIDS[@]}"; do
		kill -TERM "$p" 2>/dev/null
	done
	wait 2>/dev/null
	t_sweep_prefix "$T_PREFIX"
	echo "demo: torn down (namespaces, XDP program, hooks, processes)"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ns_pair || { echo "error: cannot create the demo namespaces" >&2; exit 1; }
echo "demo: $NS_A/$IF_A -> $NS_B/$IF_B (4 rx queues), rxlat on $IF_B for ${SECONDS_RUN}s"

errf=$(mktemp /tmp/rxlat-demo.XXXXXX)
if command -v nft >/dev/null; then
	in_ns "$NS_B" nft add table inet rxlat_demo &&
		in_ns "$NS_B" nft add chain inet rxlat_demo input \
			'{ type filter hook input priority 0; policy accept; }' &&
		in_ns "$NS_B" nft add rule inet rxlat_demo input udp dport 5202 limit rate over 20000/second drop
fi
in_ns "$NS_B" "$RXLAT" -i "$IF_B" --per-queue --drops --slow 1ms --slow-rate 2 -r "${DEMO_INTERVAL:-5}" \
	-d "$SECONDS_RUN" 2> >(tee "$errf" >&2) &
PIDS+=($!)
RX=$!
for ((i = 0; i < 100; i++)); do
	grep -q "map memory" "$errf" && break
	kill -0 "$RX" 2>/dev/null || { rm -f "$errf"; exit 1; }
	sleep 0.1
done
rm -f "$errf"

# TCP: 4 parallel streams (several flows, so several queues); UDP: 4 more.
in_ns "$NS_B" iperf3 -s -p 5201 >/dev/null 2>&1 &
PIDS+=($!)
in_ns "$NS_B" iperf3 -s -p 5202 >/dev/null 2>&1 &
PIDS+=($!)
sleep 0.5
t=$((SECONDS_RUN > 3 ? SECONDS_RUN - 2 : 1))
in_ns "$NS_A" iperf3 -c "$IP4_B" -p 5201 -t "$t" -P 4 >/dev/null 2>&1 &
PIDS+=($!)
in_ns "$NS_A" iperf3 -c "$IP4_B" -p 5202 -u -b 50M -l 200 -t "$t" -P 4 >/dev/null 2>&1 &
PIDS+=($!)

wait "$RX"

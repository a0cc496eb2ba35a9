#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rxlat benchmark (`make bench`; not part of `make test`). Run as root from
# anywhere; `make bench` builds what it needs (bench-binaries in
# bench/bench.mk). It measures every target in one run and ends with a
# table: each figure beside its target, "met" or "not met"; the same table
# goes into bench/results.md (BENCH_RESULTS) with the date, the machine,
# the kernel and the parts that ran.
# This file holds the settings, their checks, which parts run and the
# table; bench/lib.sh the helpers every part uses; bench/part_*.sh one part
# each (part F: bench/bench_features.sh).
#
# Two network namespaces joined by a veth pair with 4 receive and transmit
# queues (flows spread over queues as the sender's transmit queue choice
# spreads them); the sender has TSO/GSO off, so the receiver gets MTU-sized
# frames and GRO on the receiving veth matters (veth has GRO off by default;
# it is turned on for the receiver, as a NIC driver would have it).
#
#   1. TCP (iperf3, one stream): no XDP, XDP_PASS only, rxlat default
#      (batch stamps, all stages), rxlat --stamp packet, alternated over the
#      rounds: throughput ratio to XDP_PASS, and per run the sender's
#      TcpRetransSegs and TcpExtTCPDSACKRecv, the receiver's
#      TcpExtTCPOFOQueue (nstat) and the frames the sending veth dropped on
#      the receiver's full ring: does stamping reorder TCP? (A ring drop is
#      a loss: one retransmit, and out-of-order segments behind the gap.)
#   2. Small UDP: 200-byte datagrams from several iperf3 clients (one port
#      each, so several flows over the queues) sending as fast as they can;
#      the rate is the receiver's Udp InDatagrams over a window inside the
#      run: rxlat with all stages against XDP_PASS only.
#   3. Cost per program run (kernel bpf_stats, run_time_ns / run_cnt) under
#      the UDP and the TCP load: rxlat's programs, and at the same attach
#      points an empty program, a floor program (one clock read, one
#      atomic add: bench/bench_floor.bpf.c) and a stamp floor (the
#      floor plus reading the XDP stamp as the hooks do), all in one run; the
#      stamper against XDP_PASS and an XDP floor (bench/xdp_floor.bpf.c)
#      in runs of their own (one XDP program per interface); the poll-end
#      reset per run and per packet; a bpftrace script computing rxlat's
#      ip_rcv histogram at net:netif_receive_skb, in the same run as
#      rxlat's ip_rcv hook.
#   4. bpftrace end to end: the UDP rate with XDP_PASS, with the stamper
#      alone (xdp-loader), with rxlat --stages ip_rcv, and with the stamper
#      and the bpftrace script: added ns per packet.
#   5. Standalone accuracy: the stamper loaded by xdp-loader alone, UDP at
#      1 kpps, ip_rcv p50 read by a bpftrace script; then rxlat started
#      beside it (it attaches the poll-end reset to that stamper), the same
#      p50 read the same way, and rxlat's own.
#   6. Map memory at several --max-ifaces x --max-queues (what rxlat says,
#      the kernel's memlock of its maps, its RSS at start).
#   7. The collector at -r 1 with 5,000 live series (16 interfaces x 64
#      queues x 5 stages, kept changing by build/rxlat-bench-fill, since no
#      traffic reaches them all): CPU share of one core from /proc/PID/stat,
#      high-water RSS, and its maps' memlock with no series in use and with
#      all of them.
#   8. (on demand, BENCH_PROM) the Prometheus endpoint serving 16 interfaces
#      x 64 queues x 5 stages, every series holding samples (written into
#      rxlat's histograms by rxlat-bench-fill): at 2 buckets per power of
#      two (the default) a text scrape and a protobuf one (native
#      histograms) in turn, once a second each, then Debian's Prometheus
#      scraping it, one server per format; at 8 text alone. Per format:
#      bytes, entries (lines; Metric messages) and ms per scrape, rxlat's
#      CPU per scrape, idle CPU share and RSS, the server's head series
#      and RSS after ten scrapes, and the ratios text/protobuf; then at 2
#      text alone and text over TLS (--web-config), one rxlat each, their
#      CPU per scrape and the ratio (target <= 1.2x).
#   F. the cost of the filters, --slow, --drops, --by and napi_wait
#      (bench/bench_features.sh).
#   A. against nothing attached (bench/part_attach.sh): the sender's
#      TSO/GSO on, TCP (iperf3 -P 2) and part 2's UDP with nothing attached,
#      XDP_PASS, rxlat --xdp-mode native and rxlat's default (the
#      arguments of netns-tests/lib.sh's RXLAT_DEFAULT_ARGS: none, the tc
#      stamper), alternated over the rounds; ratios to nothing attached
#      (the targets: the default's), and the sender's TSO as ethtool shows
#      it while each is attached (XDP on a veth turns its peer's TSO/GSO
#      off).
#   P. a pod behind the host (bench/part_pods.sh): outside -> host -> a
#      routed pod, the host's veth stamped in XDP and at tc (as a NIC
#      without XDP metadata is); small UDP into the pod against nothing
#      attached, and ns per run of the stampers and of the hooks that
#      measure the pod's packets.
#   S. the time before tc ingress (bench/part_stamp.sh): small UDP
#      (rxlat-pktgen, paced) and one paced iperf3 TCP stream, each measured
#      by rxlat's default (stamped at tc ingress, after GRO) and by rxlat
#      --xdp-mode native (stamped in the driver's poll, before GRO),
#      alternated over the rounds; per stage the mean and p50 of each and
#      their difference, what the XDP stamp measures before tc ingress.
#   V. the same on real NIC drivers, virtio_net, e1000e and vmxnet3, in
#      Debian's generic 6.12 kernel under QEMU, one boot for the three
#      (bench/part_vm.sh, netns-tests/vm/drivers.sh --bench, bench_driver in
#      netns-tests/vm/drivers_guest.sh): TCP (iperf3 -P 2) and small UDP
#      (rxlat-pktgen as fast as it sends, part 2's payload length, the rate
#      read) with nothing attached and rxlat's default, on virtio_net
#      XDP_PASS and rxlat --xdp-mode native too (no XDP on e1000e, nor on
#      vmxnet3, whose LRO stays off after XDP), alternated over the rounds;
#      per UDP run what the NICs took in and sent and how busy the guest's
#      CPUs were (who set the pace); ratios only, as emulation sets the
#      pace.
#   C. what all of rxlat's BPF programs cost per UDP datagram and per TCP
#      segment on the fentry set, in Debian's 6.12 kernel under QEMU
#      (bench/part_vmcost.sh, netns-tests/vm/cost_guest.sh): veth in the
#      guest, bpf_stats per program, rxlat --xdp-mode native and rxlat's
#      default, each stamper's share of the total, and with BENCH_NETSTACKLAT
#      each against netstacklat (the default's target: <= 1.0x per datagram
#      and per segment); shares and ratios only, as emulation inflates every
#      ns.
#
# Ratios are taken inside one run with the configurations alternated, since
# these machines are noisy: compare figures within one run only. bpf_stats
# adds its own two clock reads to every program run: the empty programs
# show that floor, and the throughput parts run with bpf_stats off.
#
# Environment:
#   BENCH_SECONDS         length of each TCP and UDP throughput run (default 4)
#   BENCH_ROUNDS          rounds of part 1 (default 3)
#   BENCH_UDP_ROUNDS      rounds of part 2 (default 4)
#   BENCH_GRO             on (default) or off: GRO on the receiving veth
#   BENCH_UDP_LEN         UDP payload bytes (default 200)
#   BENCH_UDP_FLOWS       parallel UDP clients, one port each (default 4)
#   BENCH_COST_SECONDS    length of each cost run (default 3)
#   BENCH_COST_LOADS      loads of part 3 (default "udp tcp")
#   BENCH_COST_BASE       an rxlat binary (its BPF objects beside it, as a
#                         build/ has them) part 3 measures beside this one,
#                         program by program, each rxlat alone
#   BENCH_E2E_ROUNDS      rounds of part 4 (default 3)
#   BENCH_ACC_SECONDS     length of each phase of part 5 (default 5)
#   BENCH_MEM_SIZES       IFACESxQUEUES list (default "16x16 64x64 256x256")
#   BENCH_COLL_SECONDS    CPU window of part 7 (default 30)
#   BENCH_FEAT_ROUNDS     rounds of part F (default 2)
#   BENCH_FEAT_CONFS      configurations of part F (default: all of them)
#   BENCH_ATTACH_ROUNDS   rounds of part A (default 2)
#   BENCH_VM_ROUNDS       rounds of part V (default 2)
#   BENCH_VMCOST_ROUNDS   rounds of part C (default 3)
#   BENCH_VMCOST_UDP      datagrams per UDP load of part C (default 10000)
#   BENCH_VMCOST_TCP_BYTES bytes per TCP load of part C (default 40M)
#   BENCH_VMCOST_BASE     an rxlat binary part C measures beside this one
#                         (say, a build of an earlier stamper)
#   BENCH_NETSTACKLAT     a netstacklat binary part C measures beside rxlat
#                         (bench/netstacklat-build.sh BPF_EXAMPLES_DIR)
#   BENCH_VMCOST_BREAKDOWN on: part C also measures four builds of rxlat,
#                         each with one feature of the hooks off, and prints
#                         what each feature adds per hook run
#   BENCH_PODS_ROUNDS     rounds of part P (default 2)
#   BENCH_STAMP_ROUNDS    rounds of part S (default 3)
#   BENCH_STAMP_PPS       datagrams per second of part S's UDP (default 20000)
#   BENCH_STAMP_TCP_RATE  iperf3 -b of part S's TCP stream (default 1G; 0:
#                         as fast as it goes)
#   BENCH_PARTS           parts to run (default "tcp udp cost e2e accuracy
#                         memory collector features attach pods stamp vm
#                         vmcost"); rows of
#                         parts left out say so
#   BENCH_PIN             on: iperf3 clients on CPU 0 (where veth runs the
#                         receive path, in the sender's softirq), servers on
#                         CPU 1; off (default): no pinning. On 2 CPUs pinning
#                         made UDP's stack rate vary less between runs, but
#                         cut TCP to a quarter and made it vary more.
#   BENCH_PROM            "only": the Prometheus figure alone (part 8);
#                         any other non-empty value: the parts, then part 8
#   BENCH_PROM_SECONDS    length of each part 8 run (default 60)
#   BENCH_RESULTS         where the final table is written (default
#                         bench/results.md; not with BENCH_PROM=only)
#   BUILD                 build directory (default: build/ of this tree)

set -u -o pipefail

# The namespaces, background processes and cleanup of the tests
# shellcheck source=netns-tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../netns-tests/lib.sh"
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RXLAT=$BUILD/rxlat
PASS_OBJ=$BUILD/xdp_pass.bpf.o
STAMPER_OBJ=$BUILD/rxlat_xdp.bpf.o
FLOOR_OBJ=$BUILD/bench_floor.bpf.o
XDP_FLOOR_OBJ=$BUILD/xdp_floor.bpf.o
XDP_CLOCK_OBJ=$BUILD/xdp_clock.bpf.o
FLOOR_LOADER=$BUILD/rxlat-bench-floor
FILLER=$BUILD/rxlat-bench-fill
PKTGEN=$BUILD/rxlat-pktgen

SECS=${BENCH_SECONDS:-4}
ROUNDS=${BENCH_ROUNDS:-3}
UDP_ROUNDS=${BENCH_UDP_ROUNDS:-4}
GRO=${BENCH_GRO:-on}
UDP_LEN=${BENCH_UDP_LEN:-200}
UDP_FLOWS=${BENCH_UDP_FLOWS:-4}
COST_SECS=${BENCH_COST_SECONDS:-3}
COST_LOADS=${BENCH_COST_LOADS:-udp tcp}
E2E_ROUNDS=${BENCH_E2E_ROUNDS:-3}
FEAT_ROUNDS=${BENCH_FEAT_ROUNDS:-2}
ACC_SECS=${BENCH_ACC_SECONDS:-5}
ACC_PPS=1000
MEM_SIZES=${BENCH_MEM_SIZES:-16x16 64x64 256x256}
COLL_SECS=${BENCH_COLL_SECONDS:-30}
VMC_ROUNDS=${BENCH_VMCOST_ROUNDS:-3}
VMC_UDP=${BENCH_VMCOST_UDP:-10000}
VMC_TCP_BYTES=${BENCH_VMCOST_TCP_BYTES:-40M}
PARTS=${BENCH_PARTS:-tcp udp cost e2e accuracy memory collector features attach pods stamp vm vmcost}
PIN=${BENCH_PIN:-off}
RESULTS=${BENCH_RESULTS:-$HERE/results.md}

# Unique per run: namespaces are global, interface names live inside them.
# netns-tests/lib.sh's cleanup removes everything named with T_PREFIX.
T_PREFIX="${RXLAT_T_PREFIX}$$"
T_NETNS=() T_PINS=() T_PIDS=() T_XDP=() T_QDISC=() T_NS_SEQ=0 T_DIR=''
NS_S='' NS_R='' NS_P=''
IF_S=rxlat-b${$}s # at most 15 characters: pid_max is 7 digits
IF_R=rxlat-b${$}r
ADDR_S=192.0.2.1
ADDR_R=192.0.2.2
PORT=5201
UDP_PORT=5301
NETNS_INUM='' MAC_R=''

# The helpers of every part: messages and cleanup, checks, the table,
# setup, XDP programs, rxlat, bpftrace, traffic, statistics
# shellcheck source=bench/lib.sh
. "$HERE/lib.sh"

trap cleanup EXIT
trap 'note "interrupted"; exit 130' INT
trap 'note "terminated"; exit 143' TERM

# ---------------------------------------------------------------- checks

need_uint BENCH_SECONDS "$SECS" 2
need_uint BENCH_ROUNDS "$ROUNDS" 1
need_uint BENCH_UDP_ROUNDS "$UDP_ROUNDS" 1
need_uint BENCH_COST_SECONDS "$COST_SECS" 1
need_uint BENCH_UDP_LEN "$UDP_LEN" 16
need_uint BENCH_UDP_FLOWS "$UDP_FLOWS" 1
need_uint BENCH_E2E_ROUNDS "$E2E_ROUNDS" 1
need_uint BENCH_FEAT_ROUNDS "$FEAT_ROUNDS" 1
need_uint BENCH_ACC_SECONDS "$ACC_SECS" 1
need_uint BENCH_COLL_SECONDS "$COLL_SECS" 1
need_uint BENCH_ATTACH_ROUNDS "${BENCH_ATTACH_ROUNDS:-2}" 1
need_uint BENCH_VMCOST_ROUNDS "$VMC_ROUNDS" 1
need_uint BENCH_PODS_ROUNDS "${BENCH_PODS_ROUNDS:-2}" 1
need_uint BENCH_STAMP_ROUNDS "${BENCH_STAMP_ROUNDS:-3}" 1
need_uint BENCH_STAMP_PPS "${BENCH_STAMP_PPS:-20000}" 100
[[ ${BENCH_STAMP_TCP_RATE:-1G} =~ ^(0|[1-9][0-9]*[KMG]?)$ ]] || die "BENCH_STAMP_TCP_RATE must be a rate, as iperf3 -b takes it (1G; 0: unpaced)"
need_uint BENCH_VMCOST_UDP "$VMC_UDP" 100
[[ $VMC_TCP_BYTES =~ ^[1-9][0-9]*[KMG]?$ ]] || die "BENCH_VMCOST_TCP_BYTES must be bytes, as iperf3 -n takes them (40M)"
if [ -n "${BENCH_NETSTACKLAT:-}" ] && [ ! -x "$BENCH_NETSTACKLAT" ]; then
	die "BENCH_NETSTACKLAT: $BENCH_NETSTACKLAT is not an executable (bench/netstacklat-build.sh BPF_EXAMPLES_DIR builds one)"
fi
case $GRO in on | off) ;; *) die "BENCH_GRO must be on or off" ;; esac
case $PIN in on | off) ;; *) die "BENCH_PIN must be on or off" ;; esac
# taskset prefixes of senders and receivers
SND_PIN=() RCV_PIN=()
if [ "$PIN" = on ] && [ "$(nproc)" -ge 2 ]; then
	SND_PIN=(taskset -c 0) RCV_PIN=(taskset -c 1)
fi
for sz in $MEM_SIZES; do
	[[ $sz =~ ^[0-9]+x[0-9]+$ ]] || die "BENCH_MEM_SIZES: '$sz' is not IFACESxQUEUES"
done
for p in $PARTS; do
	case $p in tcp | udp | cost | e2e | accuracy | memory | collector | features | attach | pods | stamp | vm | vmcost) ;;
	*) die "BENCH_PARTS: unknown part '$p'" ;;
	esac
done
for l in $COST_LOADS; do
	case $l in tcp | udp) ;; *) die "BENCH_COST_LOADS: unknown load '$l'" ;; esac
done

[ "$(id -u)" -eq 0 ] || die "must run as root (network namespaces, XDP, BPF)"
for cmd in ip iperf3 ethtool bpftool gojq nsenter timeout sysctl awk ss nstat xdp-loader bpftrace taskset; do
	command -v "$cmd" >/dev/null 2>&1 ||
		die "'$cmd' not found (Debian: make deps installs iproute2, iperf3, ethtool, bpftool, gojq, util-linux, xdp-tools, bpftrace)"
done
for f in "$RXLAT" "$PASS_OBJ" "$STAMPER_OBJ" "$FLOOR_OBJ" "$XDP_FLOOR_OBJ" "$XDP_CLOCK_OBJ" \
	"$FLOOR_LOADER" "$FILLER" "$PKTGEN"; do
	[ -r "$f" ] || die "$f missing: build it first (make all test-binaries bench-binaries)"
done
[ -r /proc/sys/kernel/bpf_stats_enabled ] || die "kernel has no kernel.bpf_stats_enabled sysctl"

T_DIR=$(mktemp -d "/tmp/${T_PREFIX}.XXXXXX") || die "mktemp failed"

# ------------------------------------------------------------- the table

ROWS=$T_DIR/rows.tsv
: >"$ROWS"

# ----------------------------------------------------------------- parts

# one file a part; each defines part_NAME and its own settings
# shellcheck source=bench/part_tcp.sh
. "$HERE/part_tcp.sh"
# shellcheck source=bench/part_udp.sh
. "$HERE/part_udp.sh"
# shellcheck source=bench/part_cost.sh
. "$HERE/part_cost.sh"
# shellcheck source=bench/part_e2e.sh
. "$HERE/part_e2e.sh"
# shellcheck source=bench/part_accuracy.sh
. "$HERE/part_accuracy.sh"
# shellcheck source=bench/part_memory.sh
. "$HERE/part_memory.sh"
# shellcheck source=bench/part_collector.sh
. "$HERE/part_collector.sh"
# shellcheck source=bench/part_prometheus.sh
. "$HERE/part_prometheus.sh"
# shellcheck source=bench/part_attach.sh
. "$HERE/part_attach.sh"
# shellcheck source=bench/part_pods.sh
. "$HERE/part_pods.sh"
# shellcheck source=bench/part_stamp.sh
. "$HERE/part_stamp.sh"
# shellcheck source=bench/part_vm.sh
. "$HERE/part_vm.sh"
# shellcheck source=bench/part_vmcost.sh
. "$HERE/part_vmcost.sh"

# ------------------------------------------------------------------ main

START=$(date +%s)

echo "rxlat benchmark: kernel $(uname -r), $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
mounts_setup
if [ "${BENCH_PROM:-}" = only ]; then
	part_prometheus
	exit 0
fi
setup
echo "namespaces $NS_S -> $NS_R, veth $IF_S -> $IF_R (4 queues each way), receiver GRO $GRO"
has_part tcp && part_tcp
has_part udp && part_udp
has_part cost && part_cost
# the cost of the filters, --slow, --drops, --by and napi_wait (part F), on part 2's veth
# shellcheck source=bench/bench_features.sh
. "$HERE/bench_features.sh"
has_part features && part_features
has_part e2e && part_e2e
has_part accuracy && part_accuracy
has_part memory && part_memory
has_part collector && part_collector
has_part attach && part_attach
has_part pods && part_pods
has_part stamp && part_stamp
has_part vm && part_vm
has_part vmcost && part_vmcost
[ -n "${BENCH_PROM:-}" ] && part_prometheus

echo
echo "Targets (kernel $(uname -r), $(nproc) CPUs; parts run: $PARTS)"
echo
table_print "$ROWS"
echo
took=$(($(date +%s) - START))
echo "took $took s"
results_write "$ROWS" "$RESULTS" "$PARTS" "$took"

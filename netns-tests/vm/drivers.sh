#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rxlat on real NIC drivers: boots Debian's generic 6.12 kernel under QEMU
# (TCG) with two NICs of each driver, connected back to back through two host
# taps on a host bridge of their own, and runs netns-tests/vm/drivers_guest.sh
# inside, which puts each NIC of a pair in a namespace of its own and sends
# traffic from one to the other.
#
#   netns-tests/vm/drivers.sh [DRIVER...]          (default: virtio_net e1000e vmxnet3)
#   netns-tests/vm/drivers.sh --bench [DRIVER...]  (make bench part V: TCP and small
#                                                   UDP against nothing attached,
#                                                   drivers_guest.sh --bench, every
#                                                   driver in the same boot)
#
# The host side is a bridge and two taps per driver, named rxdrv<pid>... and
# made with IPv6 off, so that the host sends nothing into the test's links;
# they are removed on every exit (a trap), and a later run removes those of a
# run that was killed (its pid is gone). The exit status is the guest's, as
# for vmtest.sh; the vmtest summary ends with one line per driver.
#
# Environment: as vmtest.sh (VMTEST_TIMEOUT, default here 900 s), and
# DRIVERS_KERNEL (6.12-generic: e1000e is not in the cloud kernels),
# RXLAT_DRIVER_PHASES and RXLAT_DRIVER_REPEAT (passed to the guest:
# drivers_guest.sh); with --bench, BENCH_VM_SECONDS, BENCH_VM_ROUNDS and
# BENCH_VM_UDP_LEN (bench_driver in drivers_guest.sh).

set -Eeuo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PREFIX=rxdrv
ALL=(virtio_net e1000e vmxnet3)

die() {
	echo "drivers: error: $*" >&2
	exit 2
}
[[ $EUID -eq 0 ]] || die "must run as root (host taps and a bridge): try sudo $0"
command -v ip >/dev/null || die "ip not found: install iproute2 (make deps)"

GUEST=(./netns-tests/vm/drivers_guest.sh)
bench=''
if [[ ${1:-} == --bench ]]; then
	bench=1
	shift
fi
DRIVERS=("$@")
((${#DRIVERS[@]})) || DRIVERS=("${ALL[@]}")
for d in "${DRIVERS[@]}"; do
	[[ " ${ALL[*]} " == *" $d "* ]] || die "unknown driver '$d': choose among ${ALL[*]}"
done
[[ -z $bench ]] || GUEST+=(--bench "${DRIVERS[@]}")

# Links of a run that no longer exists: rxdrv<pid>...
sweep() {
	local dev pid
	for dev in $(ip -o link show | awk -F': ' '{ print $2 }' | sed 's/@.*//'); do
		[[ $dev =~ ^${PREFIX}([0-9]+)[a-z] ]] || continue
		pid=${BASH_REMATCH[1]}
		[[ $pid == "$$" ]] || ! kill -0 "$pid" 2>/dev/null || continue
		ip link del "$dev" 2>/dev/null || true
	done
}

# shellcheck disable=SC2317 # called through the trap
cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	sweep
	exit "$rc"
}
vm_pid='' stop=''
sweep
trap cleanup EXIT
# a stop signal goes on to vmtest.sh, which stops QEMU; then the links go
trap 'stop=130; [[ -n $vm_pid ]] && kill -TERM "$vm_pid" 2>/dev/null' INT
trap 'stop=143; [[ -n $vm_pid ]] && kill -TERM "$vm_pid" 2>/dev/null' TERM

# A link of this run with IPv6 off before it is up: no router
# solicitation, no MLD report, nothing of the host's own on the wire.
quiet_up() { # DEV
	sysctl -q -w "net.ipv6.conf.$1.disable_ipv6=1" >/dev/null 2>&1 || true
	ip link set dev "$1" up
}

# No option ROMs (romfile=): iPXE's banner per NIC only slows the boot.
qemu_args=() pairs=()
for i in "${!DRIVERS[@]}"; do
	d=${DRIVERS[i]}
	br=$PREFIX$$s$i # the switch between the two taps
	ip link add "$br" type bridge
	quiet_up "$br"
	macs=()
	for side in a b; do
		tap=$PREFIX$$$side$i
		mac=$(printf '52:54:00:d%x:00:%s' "$i" "$([[ $side == a ]] && echo 0a || echo 0b)")
		macs+=("$mac")
		case $d in
		virtio_net)
			# several queues: the guest's NIC spreads flows over them
			ip tuntap add dev "$tap" mode tap multi_queue
			qemu_args+=(-netdev "tap,id=n$side$i,ifname=$tap,script=no,downscript=no,queues=4,vhost=off"
				-device "virtio-net-pci,netdev=n$side$i,mq=on,vectors=10,mac=$mac,romfile=")
			;;
		*)
			ip tuntap add dev "$tap" mode tap
			qemu_args+=(-netdev "tap,id=n$side$i,ifname=$tap,script=no,downscript=no"
				-device "$d,netdev=n$side$i,mac=$mac,romfile=")
			;;
		esac
		# room for a burst while the emulated guest catches up
		ip link set dev "$tap" master "$br" txqueuelen 10000
		quiet_up "$tap"
	done
	pairs+=("$d=${macs[0]}=${macs[1]}")
done

export VMTEST_QEMU_ARGS="${VMTEST_QEMU_ARGS:-} ${qemu_args[*]}"
export VMTEST_ENV="${VMTEST_ENV:-}
export RXLAT_NIC_PAIRS='${pairs[*]}'
${RXLAT_DRIVER_PHASES:+export RXLAT_DRIVER_PHASES='$RXLAT_DRIVER_PHASES'}
${RXLAT_DRIVER_REPEAT:+export RXLAT_DRIVER_REPEAT='$RXLAT_DRIVER_REPEAT'}
${BENCH_VM_SECONDS:+export BENCH_VM_SECONDS=$BENCH_VM_SECONDS}
${BENCH_VM_ROUNDS:+export BENCH_VM_ROUNDS=$BENCH_VM_ROUNDS}
${BENCH_VM_UDP_LEN:+export BENCH_VM_UDP_LEN=$BENCH_VM_UDP_LEN}"
export VMTEST_TIMEOUT=${VMTEST_TIMEOUT:-900}
# the NIC drivers, not the main suite's modules (nftables and the like)
export VMTEST_MODULES=$here/drivers.modules
[[ -z $stop ]] || exit "$stop"
"$here/vmtest.sh" --kernel "${DRIVERS_KERNEL:-6.12-generic}" -- "${GUEST[@]}" &
vm_pid=$!
while :; do
	wait "$vm_pid" && rc=0 || rc=$?
	kill -0 "$vm_pid" 2>/dev/null || break
done
[[ -z $stop ]] || exit "$stop"
exit "$rc"

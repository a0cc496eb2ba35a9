#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Part V of the benchmark (bench/bench.sh, whose header describes every
# part): part A's question on real NIC drivers, virtio_net, e1000e and
# vmxnet3, in Debian's generic 6.12 kernel under QEMU, all three in one boot
# (netns-tests/vm/drivers.sh --bench: two NICs of each driver back to back
# through host taps; bench_driver in netns-tests/vm/drivers_guest.sh). Per
# driver, alternated over BENCH_VM_ROUNDS rounds: nothing attached and
# rxlat's default (netns-tests/lib.sh's RXLAT_DEFAULT_ARGS), on virtio_net
# XDP_PASS and rxlat --xdp-mode native as well (no XDP on e1000e, which has
# no native XDP, nor on vmxnet3, which gives XDP no metadata room and keeps
# LRO off after an XDP program is gone). TCP: iperf3 -P 2; small UDP:
# rxlat-pktgen as fast as it sends, 8 flows, part 2's payload length, the
# datagrams the receiving namespace read per second. Software emulation
# sets the pace, so only the ratios mean anything.

VM_DRIVERS="virtio_net e1000e vmxnet3"
VM_CONFS="none default pass xdp"
declare -A VM_DESC=([none]="nothing attached" [default]="rxlat's default ($RXLAT_DEFAULT_CMD)"
	[pass]="XDP_PASS only" [xdp]="rxlat --xdp-mode native (XDP stamper)")

# vm_value LOG DRIVER CONF KEY: the last "bench DRIVER CONF KEY: VALUE" of LOG
vm_value()
{
	sed -n "s/^\\[6.12-generic\\] bench $2 $3 $4: //p" "$1" | tail -n 1 | sed 's/ *$//'
}

part_vm()
{
	local log="$T_DIR/vm-bench.log" rounds=${BENCH_VM_ROUNDS:-2} d c t u t0 u0 x desc
	local -A tcp=() udp=() wire=() xdp=() offl=()
	note "VM part: $VM_DRIVERS under QEMU, one boot (boot included, about $((2 + 3 * rounds)) min)"
	# shellcheck disable=SC2086 # a list of drivers
	VMTEST_TIMEOUT=${VMTEST_TIMEOUT:-$((600 + 600 * rounds))} \
		VMTEST_ENV="export RXLAT_TEST_TIMEOUT=$((300 + 300 * rounds))" \
		BENCH_VM_SECONDS=$SECS BENCH_VM_ROUNDS=$rounds BENCH_VM_UDP_LEN=$UDP_LEN BUILD=$BUILD \
		"$HERE/../netns-tests/vm/drivers.sh" --bench $VM_DRIVERS >"$log" 2>&1 ||
		note "the VM part failed: see its last lines below"
	echo
	echo "V. Real NIC drivers under QEMU (TCG; Debian 6.12 generic, one boot), receive GRO on:"
	echo "   TCP iperf3 -P 2; small UDP: rxlat-pktgen as fast as it sends, 8 flows, $UDP_LEN B,"
	echo "   kpkt/s read by the receiving namespace; ${SECS}s runs x $rounds rounds alternated;"
	echo "   ratios only (emulation sets the pace); the best run of each configuration. Per UDP run,"
	echo "   NIC/sent/busy: the kpkt/s the receiving NIC took in and the sending one sent, and the"
	echo "   guest's CPUs' busy share (all sent taken in: the sender set the pace; busy under 100%:"
	echo "   the host did). XDP: the program on the receiving NIC while the configuration ran"
	echo
	printf '   %-10s %-42s %7s %8s  %-11s %7s %8s  %-11s %-28s %-5s %s\n' driver configuration Gbit/s \
		"vs none" runs kpkt/s "vs none" runs NIC/sent/busy XDP "rx offloads"
	for d in $VM_DRIVERS; do
		for c in $VM_CONFS; do
			tcp[$c]=$(vm_value "$log" "$d" "$c" tcp)
			udp[$c]=$(vm_value "$log" "$d" "$c" udp)
			wire[$c]=$(vm_value "$log" "$d" "$c" udp_wire)
			xdp[$c]=$(vm_value "$log" "$d" "$c" xdp)
			offl[$c]=$(vm_value "$log" "$d" "$c" offloads)
		done
		t0=$(best_of "${tcp[none]}")
		u0=$(best_of "${udp[none]}")
		if [ -z "$t0" ] || [ -z "$u0" ] || [ -z "${tcp[default]}" ]; then
			printf '   %-10s no result\n' "$d"
			row "$d under QEMU, ${VM_DESC[default]}: TCP -P 2 and small UDP against nothing attached" \
				"no result (see part V)" ">= 0.95x TCP, >= 0.90x UDP" "not measured"
			continue
		fi
		for c in $VM_CONFS; do
			[ -n "${tcp[$c]}" ] || continue
			t=$(best_of "${tcp[$c]}")
			u=$(best_of "${udp[$c]}")
			printf '   %-10s %-42s %7s %7sx  %-11s %7s %7sx  %-11s %-28s %-5s %s\n' "$d" "${VM_DESC[$c]}" \
				"$t" "$(ratio "$t" "$t0")" "${tcp[$c]}" "$u" "$(ratio "$u" "$u0")" "${udp[$c]}" \
				"${wire[$c]}" "${xdp[$c]}" "${offl[$c]}"
		done
		for c in pass xdp; do
			[ -n "${tcp[$c]}" ] || continue
			t=$(best_of "${tcp[$c]}")
			u=$(best_of "${udp[$c]}")
			row "$d under QEMU, ${VM_DESC[$c]}: TCP -P 2, small UDP against nothing attached (best runs)" \
				"TCP $(ratio "$t" "$t0")x ($t vs $t0 Gbit/s), UDP $(ratio "$u" "$u0")x ($u vs $u0 kpkt/s), emulated$(noisy "${tcp[$c]}" "${tcp[none]}")" \
				"(printed)" "-"
		done
		# the targets: what a user gets without options
		x="tc stamper"
		[ "${xdp[default]}" = none ] || x="XDP program ${xdp[default]} on the NIC"
		desc="${VM_DESC[default]}, $x"
		t=$(best_of "${tcp[default]}")
		u=$(best_of "${udp[default]}")
		row "$d under QEMU, $desc: TCP -P 2 against nothing attached (best runs)" \
			"$(ratio "$t" "$t0")x ($t vs $t0 Gbit/s, emulated)$(noisy "${tcp[default]}" "${tcp[none]}")" \
			">= 0.95x" "$(verdict "$(ratio "$t" "$t0")" '>=' 0.95)"
		row "$d under QEMU, $desc: small UDP against nothing attached (best runs)" \
			"$(ratio "$u" "$u0")x ($u vs $u0 kpkt/s read, emulated)$(noisy "${udp[default]}" "${udp[none]}")" \
			">= 0.90x" "$(verdict "$(ratio "$u" "$u0")" '>=' 0.90)"
	done
	if grep -q '^\[6.12-generic\] FAIL ' "$log"; then
		echo "   failed checks in the VM:"
		grep '^\[6.12-generic\] FAIL ' "$log" | sed 's/^/   /'
	fi
	if ! grep -q '^\[6.12-generic\] bench ' "$log"; then
		echo "   the VM's last lines:"
		tail -n 5 "$log" | sed 's/^/   /'
	fi
}

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Part V of the benchmark (bench/bench.sh, whose header describes every
# part): part A's question on virtio_net, in Debian's generic 6.12 kernel
# under QEMU (netns-tests/vm/drivers.sh --bench virtio_net, two NICs of the
# guest back to back through host taps). TCP only, iperf3 -P 2: nothing
# attached, XDP_PASS, rxlat (XDP stamper), rxlat --tc. Software emulation
# sets the pace, so only the ratios mean anything.

part_vm()
{
	local log="$T_DIR/vm-bench.log" c runs best none offl
	local -A vm_best=() vm_runs=() vm_offl=()
	note "VM part: virtio_net under QEMU (boot included, about 1.5 min)"
	BENCH_VM_SECONDS=$SECS BENCH_VM_ROUNDS=${BENCH_VM_ROUNDS:-2} BUILD=$BUILD \
		"$HERE/../netns-tests/vm/drivers.sh" --bench virtio_net >"$log" 2>&1 ||
		note "the VM part failed: see its last lines below"
	for c in none pass xdp tc; do
		IFS=, read -r runs offl < <(sed -n "s/^\\[6.12-generic\\] bench $c: //p" "$log" | tail -n 1)
		vm_runs[$c]=$runs
		vm_best[$c]=$(best_of "$runs")
		vm_offl[$c]=${offl# }
	done
	none=${vm_best[none]}
	echo
	echo "V. virtio_net under QEMU (TCG; Debian 6.12 generic): TCP iperf3 -P 2, ${SECS}s runs, receive GRO on;"
	echo "   ratios only (emulation sets the pace); the best run of each configuration"
	echo
	if [ -z "$none" ]; then
		echo "   no result:"
		tail -n 5 "$log" | sed 's/^/   /'
		row "virtio_net under QEMU, against nothing attached" "no result (see part V)" "(printed)" "-"
		return 0
	fi
	printf '   %-30s %8s %8s  %s\n' configuration Gbit/s "vs none" runs
	for c in none pass xdp tc; do
		printf '   %-30s %8s %7sx  %s\n' "${ATT_DESC[$c]}" "${vm_best[$c]}" \
			"$(ratio "${vm_best[$c]}" "$none")" "${vm_runs[$c]}"
	done
	echo "   receiving NIC while rxlat's XDP stamper ran: ${vm_offl[xdp]}"
	for c in pass xdp tc; do
		best=${vm_best[$c]}
		row "virtio_net under QEMU, ${ATT_DESC[$c]}: TCP -P 2 against nothing attached" \
			"$(ratio "$best" "$none")x ($best vs $none Gbit/s, emulated)$(noisy "${vm_runs[$c]}" "${vm_runs[none]}")" \
			"(printed)" "-"
	done
}

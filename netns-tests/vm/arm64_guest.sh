#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Inside Debian's arm64 kernels under QEMU (make test's arm64 part): what
# depends on the architecture. User space is the same code on both
# architectures: the host run proves it.
#   both        the XDP stamper's unit test, the histogram lookup run by
#               the kernel (hist-bpf-test), the stage table against the
#               hooks object (progs-test), and every stage's exact counts
#               (collector: on 6.12 the fentry set and the fallback set
#               forced; 6.1 refuses fentry on arm64 and runs the fallback set)
#   arm64-6.1   the XDP stamper's exact counts (xdp), and the floor's
#               checks (floor: --list-stages against a run, the kprobes
#               that give udp_queue_rcv and tcp_data_queue there, with no
#               fentry and no bpf_cast_to_kern_ctx before 6.3)
#   arm64-6.12  the tc stamper's (tc), pods behind the host (containers),
#               the fentry-only checks (vm_trampolines: every stage's fentry
#               point, libxdp's dispatcher).
# make test leaves the test files that arm64 6.12 runs out of x86-64's 6.12
# (run.sh, RXLAT_VM_PROVEN_ELSEWHERE): the same kernel line runs them here,
# and the same architecture under 6.1.
#
#   arm64_guest.sh          run them (RXLAT_VM_LINE says which kernel)
#   arm64_guest.sh --list   the test files arm64 6.12 runs, one line

ON_61=(xdp floor)
ON_612=(tc containers vm_trampolines)
if [[ ${1:-} == --list ]]; then
	echo "collector ${ON_612[*]}"
	exit 0
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here/../.." || exit 125
tests=(xdp-unit hist-bpf-test progs-test collector)
case ${RXLAT_VM_LINE:-} in
arm64-6.1) tests+=("${ON_61[@]}") ;;
arm64-6.12) tests+=("${ON_612[@]}") ;;
*)
	echo "arm64_guest.sh: RXLAT_VM_LINE is '${RXLAT_VM_LINE:-}', not an arm64 line" >&2
	exit 2
	;;
esac
exec ./netns-tests/run.sh "${tests[@]}"

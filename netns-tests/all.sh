#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make test: the suite on the host kernel, then rxlat installed as operators
# install it (netns-tests/deploy.sh: the package, the image, the DaemonSet),
# then inside Debian's 6.1 and 6.12 kernels under QEMU (make vmtest), then
# rxlat on real NIC drivers under QEMU (netns-tests/vm/drivers.sh, and
# virtio_net on arm64 beside it), then the arm64 tree (make ARCH=arm64) on
# Debian's arm64 kernels. Ends with a summary of which kernel ran which
# attach set, a line per driver, the FAIL lines of the run (the first 20),
# and one line "N passed, M failed, K skipped" over all of them.
#
# RXLAT_VMTEST=0 leaves the QEMU part out (the summary then says so, and it
# counts as a failure: make test is not complete without it).
#
# A deadline for the whole run, RXLAT_TEST_DEADLINE seconds (default 5100:
# 85 min, inside CI's 90): past it, the running part is stopped as a stop
# signal stops it (it cleans up), the parts after it do not run, and the
# summary names the part with a failure; a hang shows as that line, not as
# CI's limit.

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here/.." || exit 1
# shellcheck source=netns-tests/lib.sh
. netns-tests/lib.sh # BUILD (absolute, exported), signal forwarding

if [[ $EUID -ne 0 ]]; then
	echo "all.sh: must run as root (namespaces, XDP, QEMU); try: sudo make test" >&2
	exit 1
fi

log=$(mktemp /tmp/rxlat-all.XXXXXX)
deadline=${RXLAT_TEST_DEADLINE:-5100}
[[ $deadline =~ ^[1-9][0-9]*$ ]] || {
	echo "all.sh: RXLAT_TEST_DEADLINE must be a number of seconds, not '$deadline'" >&2
	exit 2
}
part_file=$log.part # the part running now, and "hit" once the deadline passed
echo "start-up" >"$part_file"
(
	# its sleep goes with it: nothing is left running after the suite
	trap 'kill "$nap" 2>/dev/null; exit 0' TERM
	sleep "$deadline" &
	nap=$!
	wait "$nap" || exit 0
	echo "all.sh: the deadline of $deadline s passed while '$(cat "$part_file")' ran: stopping it" >&2
	echo hit >"$part_file.hit"
	kill -TERM $$
) &
watchdog=$!
arm64_nic='' # a part that runs beside another one
trap 'kill "$watchdog" 2>/dev/null; [[ -z $arm64_nic ]] || { kill -TERM "$arm64_nic" 2>/dev/null; t_wait_exit "$arm64_nic"; }
	rm -f "$log" "$log.arm64-nic" "$part_file" "$part_file.hit"' EXIT
# A stop signal goes on to the running part at once (a foreground pipeline
# would hold it until the part ends), and to the one beside it: run.sh,
# vmtest.sh and drivers.sh clean up on SIGTERM, then this script exits 130.
forward_stop() {
	_t_forward_signal
	[[ -z $arm64_nic ]] || kill -TERM "$arm64_nic" 2>/dev/null
}
trap forward_stop INT TERM

# run_part CMD...: CMD's output to the terminal and to $log (lib.sh's
# t_stream, which forwards the stop signal)
log_line() { echo "$1"; echo "$1" >>"$log"; }
deadline_hit=''
run_part()	# NAME CMD...
{
	[[ -z $deadline_hit ]] || return 0
	echo "$1" >"$part_file"
	shift
	t_stream log_line "$@"
	[[ -z $_T_STOP ]] && return 0
	if [[ -e $part_file.hit ]]; then
		deadline_hit=$(cat "$part_file")
		rows+=("FAIL deadline: $deadline s passed during '$deadline_hit': it was stopped, and what came after it did not run")
		((failed++))
		return 0
	fi
	exit 130
}

passed=0 failed=0 skipped=0 rows=()

# P, F and S of the last "N passed, M failed, K skipped" line that follows
# PREFIX (taken literally) in $log, after its line FROM if given; a line
# without the skipped count (an older run.sh) counts 0 skipped.
take_counts()	# PREFIX [FROM]
{
	local line
	line=$(awk -v p="$1" -v from="${2:-0}" 'NR > from && (p == "" || substr($0, 1, length(p)) == p)' "$log" |
		grep -E "[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$" | tail -n 1)
	line=${line#"$1"}
	[[ $line =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed(,\ ([0-9]+)\ skipped)?$ ]] || return 1
	P=${BASH_REMATCH[1]} F=${BASH_REMATCH[2]} S=${BASH_REMATCH[4]:-0}
}

# tally PREFIX FROM LABEL MISSING [AFTER]: the counts of a part's result
# line (take_counts PREFIX FROM) added to the totals, with the summary row
# "LABEL: N passed, M failed, K skipped AFTER"; without that line a failure,
# "LABEL: FAIL MISSING". Nothing when the deadline stopped the part: the
# summary says so.
tally()
{
	[[ -z $deadline_hit ]] || return 0
	if take_counts "$1" "$2"; then
		((passed += P, failed += F, skipped += S))
		rows+=("$3: $P passed, $F failed, $S skipped${5:-}")
	else
		((failed++))
		rows+=("$3: FAIL $4")
	fi
}

host_set()
{
	"$BUILD/rxlat" --list-stages 2>/dev/null | grep -q 'fentry:' && echo "fentry where allowed" ||
		echo "fallback set: BPF trampolines refused"
}

echo "# === host kernel $(uname -r)"
run_part "the host suite" ./netns-tests/run.sh
if take_counts ""; then
	((passed += P, failed += F, skipped += S))
	rows+=("host $(uname -r) ($(host_set)): $P passed, $F failed, $S skipped, in $((SECONDS / 60)) min")
else
	((failed++))
	rows+=("host $(uname -r): FAIL no result line")
fi

# the package, the image and the DaemonSet (a few minutes; the lines of
# this part alone are counted)
if [[ -z $deadline_hit ]]; then
	echo "# === deploy: the package, the image, the DaemonSet"
	t0=$SECONDS from=$(wc -l <"$log")
	run_part "deploy (deploy.sh)" ./netns-tests/deploy.sh
	tally "" "$from" "deploy (deb, image, DaemonSet)" "no result line" ", in $(((SECONDS - t0) / 60)) min"
fi

# the arm64 tree is arm64, and the host's tree untouched by its build
if [[ -z $deadline_hit ]]; then
	echo "# === the arm64 build"
	from=$(wc -l <"$log")
	run_part "the arm64 build (cross_check.sh)" ./netns-tests/cross_check.sh
	tally "[arm64-build] " "$from" "arm64 build (make ARCH=arm64)" "no result line"
fi

if [[ -n $deadline_hit ]]; then
	: # the summary says which part the deadline stopped
elif [[ ${RXLAT_VMTEST:-1} == 0 ]]; then
	((failed++))
	rows+=("QEMU kernels: FAIL not run (RXLAT_VMTEST=0)")
else
	echo "# === Debian kernels under QEMU"
	t0=$SECONDS
	# what arm64's 6.12 runs below is not run again by x86-64's 6.12
	run_part "the QEMU kernels (vmtest)" env VMTEST_ENV="export RXLAT_VM_PROVEN_ELSEWHERE='$(
		./netns-tests/vm/arm64_guest.sh --list)'" ./netns-tests/vm/vmtest.sh --kernel all
	for line in 6.1 6.12; do
		[[ -z $deadline_hit ]] || break
		kver=$(grep -E "^\[$line\] RXLAT-VM-BOOTED " "$log" | awk '{print $4}' | tail -n 1)
		if take_counts "[$line] "; then
			((passed += P, failed += F, skipped += S))
			what="fentry forced; fallback forced for the exact counts; libxdp dispatcher where it takes the stamper"
			[[ $line == 6.12 ]] && what="fentry; $(./netns-tests/vm/arm64_guest.sh --list | sed 's/ /, /g') on arm64 6.12"
			rows+=("vm $line ${kver:-?} ($what): $P passed, $F failed, $S skipped")
		else
			((failed++))
			rows+=("vm $line ${kver:-?}: FAIL no result (boot failure, panic or timeout: see build/vm/$line/console.log)")
		fi
	done
	rows+=("both QEMU kernels in $(((SECONDS - t0) / 60)) min")

	# NIC drivers: virtio_net, e1000e and vmxnet3 of Debian's generic 6.12
	# kernel, back to back through host taps (netns-tests/vm/drivers.sh);
	# beside it, virtio_net under Debian's arm64 6.12: one guest alone
	# leaves part of the two cores idle, two use them. Its lines join the
	# log when the x86-64 part is done.
	echo "# === NIC drivers under QEMU (and virtio_net on arm64 beside them)"
	t0=$SECONDS
	env BUILD="$BUILD/arm64" DRIVERS_KERNEL=arm64-6.12 ./netns-tests/vm/drivers.sh virtio_net \
		>"$log.arm64-nic" 2>&1 &
	arm64_nic=$!
	run_part "the NIC drivers (drivers.sh)" ./netns-tests/vm/drivers.sh
	if [[ -n $deadline_hit ]]; then
		: # said in the summary
	elif take_counts "[6.12-generic] "; then
		((passed += P, failed += F, skipped += S))
		while read -r l; do
			rows+=("vm 6.12-generic ${l#\[6.12-generic\] }")
		done < <(grep -E '^\[6.12-generic\] driver [^ ]+: [0-9]+ passed' "$log")
		rows+=("NIC drivers: $P passed, $F failed, $S skipped, in $(((SECONDS - t0) / 60)) min")
	else
		((failed++))
		rows+=("NIC drivers: FAIL no result (boot failure, panic or timeout: see build/vm/6.12-generic/console.log)")
	fi
	t_wait_exit "$arm64_nic"
	arm64_nic=''
	echo "# === virtio_net under Debian's arm64 6.12 (run beside the NIC drivers)"
	from=$(wc -l <"$log")
	while IFS= read -r l; do log_line "$l"; done <"$log.arm64-nic"
	tally "[arm64-6.12] " "$from" "vm arm64-6.12 driver virtio_net" \
		"no result (see build/arm64/vm/arm64-6.12/console.log)"

	# Debian's arm64 6.1 and 6.12 kernels side by side, with the arm64 tree
	# (make ARCH=arm64, in build/arm64): what depends on the architecture,
	# split between the two kernels (netns-tests/vm/arm64_guest.sh).
	echo "# === Debian's arm64 kernels under QEMU"
	t0=$SECONDS from=$(wc -l <"$log")
	run_part "the arm64 kernels (vmtest)" env BUILD="$BUILD/arm64" \
		./netns-tests/vm/vmtest.sh --kernel arm64 -- ./netns-tests/vm/arm64_guest.sh
	for line in arm64-6.1 arm64-6.12; do
		[[ -z $deadline_hit ]] || break
		kver=$(awk -v from="$from" 'NR > from' "$log" | grep -E "^\[$line\] RXLAT-VM-BOOTED " | awk '{print $4}' | tail -n 1)
		set="fallback set: BPF trampolines refused"
		awk -v from="$from" 'NR > from' "$log" | grep -qE "^\[$line\] # === collector-fentry" &&
			set="fentry set; fallback forced for the exact counts"
		tally "[$line] " "$from" "vm $line ${kver:-?} ($set)" \
			"no result (boot failure, panic or timeout: see build/arm64/vm/$line/console.log)"
	done
	[[ -n $deadline_hit ]] || rows+=("both arm64 kernels in $(((SECONDS - t0) / 60)) min")
fi

echo "# summary"
for r in "${rows[@]}"; do
	echo "#   $r"
done
# the failed checks themselves, where CI shows them: at the end of the run
if ((failed > 0)); then
	mapfile -t fails < <(grep -E '^(\[[^]]+\] )?FAIL ' "$log")
	for f in "${fails[@]:0:20}"; do
		echo "#   $f"
	done
	((${#fails[@]} <= 20)) || echo "#   ... and $((${#fails[@]} - 20)) more FAIL lines above"
fi
echo "$passed passed, $failed failed, $skipped skipped"
((failed == 0 && passed > 0))

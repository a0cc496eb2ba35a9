#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make test: rxlat installed as operators install it (netns-tests/deploy.sh:
# the package, the image, the DaemonSet), the arm64 tree checked
# (cross_check.sh), then the suite on the host kernel with the QEMU guests
# beside it: Debian's 6.1 and 6.12 kernels (vmtest.sh), its arm64 6.1 and
# 6.12 kernels with the arm64 tree (make ARCH=arm64), real NIC drivers
# (netns-tests/vm/drivers.sh, and virtio_net on arm64), and Debian 11's
# 5.10, rxlat's floor (test_floor.sh and the collector, tc, containers
# and XDP suites), as a pool of
# guests (vm_pool below). Ends with a summary of which kernel ran which
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
pool='' # the QEMU guests, beside the host parts
trap 'kill "$watchdog" 2>/dev/null; [[ -z $pool ]] || { kill -TERM "$pool" 2>/dev/null; t_wait_exit "$pool"; }
	rm -f "$log" "$log".vm-* "$log.host" "$part_file" "$part_file.hit"' EXIT
# A stop signal goes on to the running part at once (a foreground pipeline
# would hold it until the part ends), and to the guests beside it: run.sh,
# vmtest.sh and drivers.sh clean up on SIGTERM, then this script exits 130.
forward_stop() {
	_t_forward_signal
	[[ -z $pool ]] || kill -TERM "$pool" 2>/dev/null
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
	[[ -z $_T_STOP ]] || part_stopped
}

# After a stop signal: the deadline's row if the deadline sent it, else
# exit 130.
part_stopped()
{
	[[ -e $part_file.hit ]] || exit 130
	deadline_hit=$(cat "$part_file")
	rows+=("FAIL deadline: $deadline s passed during '$deadline_hit': it was stopped, and what came after it did not run")
	((failed++))
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

# The QEMU guests: seven jobs, each a guest and its suite, run as a pool
# beside the host parts. Longest first, so that the last ones to end are
# short. A guest under emulation keeps a little more than one core busy;
# the host suite about half of the two (it waits on timers and traffic):
# one guest runs beside it and two once it is done. The guests run as
# SCHED_IDLE: a host test that wants a core has it at once, and the guests
# take what the host leaves.
VM_JOBS=(x86-6.1 arm64-6.12 x86-6.12 arm64-6.1 drivers arm64-nic x86-5.10)
# what arm64's 6.12 runs is not run again by x86-64's 6.12
proven="export RXLAT_VM_PROVEN_ELSEWHERE='$(./netns-tests/vm/arm64_guest.sh --list)'"
vm_cmd()	# JOB: CMD, the job's command
{
	case $1 in
	x86-5.10) CMD=(./netns-tests/vm/vmtest.sh --kernel 5.10 -- ./netns-tests/run.sh floor collector tc containers xdp) ;;
	x86-*) CMD=(env VMTEST_ENV="$proven" ./netns-tests/vm/vmtest.sh --kernel "${1#x86-}") ;;
	arm64-6.*) CMD=(env BUILD="$BUILD/arm64" ./netns-tests/vm/vmtest.sh --kernel "$1") ;;
	drivers) CMD=(./netns-tests/vm/drivers.sh) ;;
	arm64-nic) CMD=(env BUILD="$BUILD/arm64" DRIVERS_KERNEL=arm64-6.12 ./netns-tests/vm/drivers.sh virtio_net) ;;
	esac
	CMD=(chrt --idle 0 "${CMD[@]}")
}

# vm_pool: runs the jobs, at most one while $log.host runs and two after;
# JOB's output goes to $log.vm-JOB, and "STATUS SECONDS" to $log.vm-JOB.done
# when it ends. A stop signal stops the running jobs (they clean up).
vm_pool()
{
	local j n max running=() left=() # running: PID:JOB
	trap 'for n in "${running[@]}"; do kill -TERM "${n%%:*}" 2>/dev/null; done
		for n in "${running[@]}"; do t_wait_exit "${n%%:*}"; done; exit 143' TERM INT
	for j in "${VM_JOBS[@]}"; do
		while :; do
			left=()
			for n in "${running[@]}"; do
				[[ -e $log.vm-${n#*:}.done ]] || left+=("$n")
			done
			running=("${left[@]}")
			max=2
			[[ -e $log.host ]] && max=1
			((${#running[@]} < max)) && break
			sleep 1
		done
		vm_cmd "$j"
		echo "# QEMU: $j starts"
		(
			c='' t0=$SECONDS
			trap '[[ -z $c ]] || kill -TERM "$c" 2>/dev/null' TERM INT
			"${CMD[@]}" >"$log.vm-$j" 2>&1 &
			c=$!
			t_wait_exit "$c"
			echo "$? $((SECONDS - t0))" >"$log.vm-$j.done"
		) &
		running+=("$!:$j")
	done
	for n in "${running[@]}"; do
		t_wait_exit "${n%%:*}"
	done
}

# the package, the image and the DaemonSet (a few minutes, with both cores:
# before any guest; the lines of this part alone are counted)
echo "# === deploy: the package, the image, the DaemonSet"
t0=$SECONDS from=$(wc -l <"$log")
run_part "deploy (deploy.sh)" ./netns-tests/deploy.sh
tally "" "$from" "deploy (deb, image, DaemonSet)" "no result line" ", in $(((SECONDS - t0) / 60)) min"

# the arm64 tree is arm64, and the host's tree untouched by its build
if [[ -z $deadline_hit ]]; then
	echo "# === the arm64 build"
	from=$(wc -l <"$log")
	run_part "the arm64 build (cross_check.sh)" ./netns-tests/cross_check.sh
	tally "[arm64-build] " "$from" "arm64 build (make ARCH=arm64)" "no result line"
fi

vm_t0=$SECONDS
if [[ -n $deadline_hit ]]; then
	: # the summary says which part the deadline stopped
elif [[ ${RXLAT_VMTEST:-1} == 0 ]]; then
	((failed++))
	rows+=("QEMU kernels: FAIL not run (RXLAT_VMTEST=0)")
else
	echo "# === the QEMU guests start beside the host suite: ${VM_JOBS[*]}"
	: >"$log.host"
	vm_pool &
	pool=$!
fi

if [[ -z $deadline_hit ]]; then
	echo "# === host kernel $(uname -r)"
	t0=$SECONDS from=$(wc -l <"$log")
	run_part "the host suite" ./netns-tests/run.sh
	tally "" "$from" "host $(uname -r) ($(host_set))" "no result line" ", in $(((SECONDS - t0) / 60)) min"
fi
rm -f "$log.host" # the second guest starts

# each job's lines join the log as it ends, then its summary rows
vm_rows()	# JOB FROM
{
	local line=${1#x86-} kver what set l
	kver=$(awk -v from="$2" 'NR > from' "$log" | grep -E "^\[$line\] RXLAT-VM-BOOTED " | awk '{print $4}' | tail -n 1)
	case $1 in
	x86-5.10)
		tally "[$line] " "$2" "vm $line ${kver:-?} (rxlat's floor: the hooks without fetch atomics, the clock offset from user space)" \
			"no result (boot failure, panic or timeout: see build/vm/$line/console.log)"
		;;
	x86-*)
		what="fentry forced; fallback forced for the exact counts; libxdp dispatcher where it takes the stamper"
		[[ $line == 6.12 ]] && what="fentry; $(./netns-tests/vm/arm64_guest.sh --list | sed 's/ /, /g') on arm64 6.12"
		tally "[$line] " "$2" "vm $line ${kver:-?} ($what)" \
			"no result (boot failure, panic or timeout: see build/vm/$line/console.log)"
		;;
	arm64-6.*)
		set="fallback set: BPF trampolines refused"
		awk -v from="$2" 'NR > from' "$log" | grep -qE "^\[$1\] # === collector-fentry" &&
			set="fentry set; fallback forced for the exact counts"
		tally "[$1] " "$2" "vm $1 ${kver:-?} ($set)" \
			"no result (boot failure, panic or timeout: see build/arm64/vm/$1/console.log)"
		;;
	drivers)
		tally "[6.12-generic] " "$2" "NIC drivers" \
			"no result (boot failure, panic or timeout: see build/vm/6.12-generic/console.log)"
		while read -r l; do
			rows+=("vm 6.12-generic ${l#\[6.12-generic\] }")
		done < <(awk -v from="$2" 'NR > from' "$log" | grep -E '^\[6.12-generic\] driver [^ ]+: [0-9]+ passed')
		;;
	arm64-nic)
		tally "[arm64-6.12] " "$2" "vm arm64-6.12 driver virtio_net" \
			"no result (see build/arm64/vm/arm64-6.12/console.log)"
		;;
	esac
}

if [[ -n ${pool:-} ]]; then
	echo "# === the QEMU guests (${VM_JOBS[*]}), each as it ends"
	echo "the QEMU guests" >"$part_file"
	shown=()
	declare -A job_rows=() # the summary rows of each job, shown in VM_JOBS order
	while ((${#shown[@]} < ${#VM_JOBS[@]})) && [[ -z $_T_STOP && -z $deadline_hit ]]; do
		for j in "${VM_JOBS[@]}"; do
			[[ " ${shown[*]} " != *" $j "* && -e $log.vm-$j.done ]] || continue
			read -r rc secs <"$log.vm-$j.done"
			echo "# === QEMU: $j (exit status $rc, $((secs / 60)) min)"
			from=$(wc -l <"$log")
			while IFS= read -r l; do log_line "$l"; done <"$log.vm-$j"
			n=${#rows[@]}
			vm_rows "$j" "$from"
			job_rows[$j]=$(printf '%s\n' "${rows[@]:n}")
			rows=("${rows[@]:0:n}")
			shown+=("$j")
		done
		((${#shown[@]} < ${#VM_JOBS[@]})) && sleep 1
	done
	for j in "${VM_JOBS[@]}"; do
		[[ -n ${job_rows[$j]:-} ]] && mapfile -t -O "${#rows[@]}" rows <<<"${job_rows[$j]}"
	done
	if [[ -n $_T_STOP || -n $deadline_hit ]]; then
		kill -TERM "$pool" 2>/dev/null
		t_wait_exit "$pool"
		pool=''
	fi
	if [[ -n $deadline_hit ]]; then
		: # the host suite's part said it
	elif [[ -n $_T_STOP ]]; then
		part_stopped
	else
		t_wait_exit "$pool"
		pool=''
		rows+=("QEMU guests in $(((SECONDS - vm_t0) / 60)) min, beside the host suite")
	fi
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

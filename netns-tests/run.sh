#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs rxlat's tests and counts their verdicts:
#   - build/rxlat-xdp-unit (required), and build/rxlat-unit,
#     build/rxlat-*-unit, build/rxlat-*-test where they exist,
#   - every netns-tests/test_*.sh,
# then checks that nothing was left behind. Every check prints one line,
# "PASS name", "FAIL name: reason" or "SKIP name: reason"; the last line is
# "N passed, M failed, K skipped". A skip is never counted as a pass.
# Exit status 0 iff nothing failed and something passed.
#
# usage: netns-tests/run.sh [NAME[/CASE]...]
#   NAME selects what runs (shell patterns allowed): a test program's name
#   without rxlat-, e.g. "xdp-unit", or a test file's name without test_
#   and .sh, e.g. "xdp". RXLAT_TESTS="a b" does the same. NAME/CASE runs
#   one test of it: a test file's test by the name its lines carry
#   ("tc/veth_default"), a program's case by its name (PROGRAM --list).
#   RXLAT_TEST_FILTER=regex selects test functions by name inside the test
#   files. Must run as root (the unit programs alone do not: make check).

if [[ $EUID -ne 0 ]]; then
	echo "run.sh: must run as root (network namespaces, XDP, bpffs); try: sudo $0 $*" >&2
	exit 1
fi

RXLAT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$RXLAT_ROOT" || exit 1
. netns-tests/lib.sh
export RXLAT_RUNNER=1

PASSED=0
FAILED=0
SKIPPED=0

report()	# PASS|FAIL NAME [REASON]
{
	emit "$1 $2${3:+: $3}"
}

trap _t_forward_signal INT TERM # lib.sh: to _T_CHILD, and sets _T_STOP

# run_item NAME CMD...: runs CMD, echoing and counting its verdict lines
# (lib.sh's t_stream: a stop signal reaches CMD at once).
run_item()
{
	local name=$1 rc p0=$PASSED f0=$FAILED s0=$SKIPPED t0=$SECONDS
	shift
	echo "# === $name"
	t_stream emit "$@"
	rc=$?
	if ((rc != 0 && FAILED == f0)); then
		report FAIL "$name" "exited with status $rc without reporting a failed check"
	elif ((PASSED + FAILED + SKIPPED == p0 + f0 + s0)) && [[ -n $SEL_CASE && $kind == file ]]; then
		# run_one's kind and f: a case asked of a test file that has none such
		report FAIL "$name" "no test $name/$SEL_CASE; its tests: $(sed -n 's/^run_test \([^ $]*\) .*/\1/p' "$f" | tr '\n' ' ')"
	elif ((PASSED + FAILED + SKIPPED == p0 + f0 + s0)); then
		report FAIL "$name" "reported no check at all"
	fi
	echo "# $name: $((SECONDS - t0)) s"
}

selected()	# NAME: and SEL_CASE, the CASE asked of it ('' for all)
{
	local i
	SEL_CASE=''
	((${#SELECT[@]} == 0)) && return 0
	for i in "${!SELECT[@]}"; do
		# shellcheck disable=SC2053
		[[ $1 == ${SELECT[i]} ]] && SEL_CASE=${CASES[i]} && return 0
	done
	return 1
}

# rxlat-t<pid>-...: made by a test of this run, or by one that is gone?
# (Names of a live test of a parallel run are not leftovers.)
leftover_name()
{
	local pid=${1#"$RXLAT_T_PREFIX"}
	pid=${pid%%[!0-9]*}
	[[ -n $pid ]] || return 1
	grep -qx -- "$pid" "$RXLAT_RUN_PIDS" 2>/dev/null && return 0
	! kill -0 "$pid" 2>/dev/null
}

# Program ids named like ours that no process holds and that are not
# attached to a link visible from here (another run's programs would be)
our_progs()
{
	bpftool -j prog show 2>/dev/null | gojq -r '
		.[] | select(.name != null)
		| select(.name | test("^(rxlat|meta_probe|xdp_dispatcher)"))
		| select((.pids // []) | length == 0) | .id' |
		grep -vxF -f <(attached_xdp_progs; echo none) | sort -n
}

host_xdp()	# "ifname prog-id" of host links with XDP
{
	ip -j link show | gojq -r '.[] | select(.xdp != null) | "\(.ifname) \(.xdp.prog.id // .xdp.mode)"'
}

# Anything a test run may leave: test namespaces and pins whose test is
# gone, libxdp dispatcher pins and rxlat pins that appeared during the
# run, and programs of ours that are still loaded though no process holds
# them (attached somewhere or pinned). Namespaces are torn down by the
# kernel asynchronously, so give it a few seconds.
check_leftovers()
{
	local problems=() i ns f new_progs
	for ((i = 0; i < 50; i++)); do
		new_progs=$(our_progs | grep -vxF -f <(printf '%s\n' "$PROGS_BEFORE") | tr '\n' ' ')
		[[ -z ${new_progs// /} ]] && break
		sleep 0.1
	done
	[[ -n ${new_progs// /} ]] && problems+=("BPF programs still loaded: ids $new_progs")

	for ns in $(ip netns list 2>/dev/null | awk '{print $1}'); do
		[[ $ns == "$RXLAT_T_PREFIX"[0-9]*-* ]] || continue
		leftover_name "$ns" || continue
		problems+=("namespace $ns")
		t_sweep_prefix "${ns%-*}"
	done
	for f in "$RXLAT_BPFFS/$RXLAT_T_PREFIX"[0-9]*; do
		[[ -e $f ]] || continue
		leftover_name "${f##*/}" || continue
		problems+=("pin $f")
		rm -rf -- "$f"
	done
	for f in /tmp/"$RXLAT_T_PREFIX"[0-9]*; do
		[[ -e $f ]] || continue
		leftover_name "${f##*/}" || continue
		problems+=("temp $f")
		rm -rf -- "$f"
	done
	while read -r f; do
		[[ -n $f ]] || continue
		grep -qxF -- "$f" <<<"$HOST_XDP_BEFORE" || problems+=("XDP on host link ${f% *}")
	done <<<"$(host_xdp)"
	if [[ -e $RXLAT_BPFFS/rxlat && -z $RXLAT_PINS_BEFORE ]]; then
		problems+=("pin directory $RXLAT_BPFFS/rxlat")
	fi
	for f in "$RXLAT_BPFFS"/xdp/*; do
		[[ -e $f ]] || continue
		grep -qxF -- "$f" <<<"$XDP_PINS_BEFORE" || problems+=("libxdp pin $f")
	done

	if ((${#problems[@]} == 0)); then
		report PASS run.nothing_left_behind
	else
		report FAIL run.nothing_left_behind "$(IFS=';'; echo "${problems[*]}")"
	fi
}

ASKED=("$@")
if ((${#ASKED[@]} == 0)) && [[ -n ${RXLAT_TESTS:-} ]]; then
	read -r -a ASKED <<<"$RXLAT_TESTS"
fi
SELECT=() CASES=() # NAME patterns, and the CASE asked of each
for a in "${ASKED[@]}"; do
	SELECT+=("${a%%/*}")
	if [[ $a == */* ]]; then CASES+=("${a#*/}"); else CASES+=(''); fi
done

# each_item FN: FN NAME KIND PATH for every test, in the order they run;
# KIND is prog (a test program), file (test_*.sh) or vm (vm_*.sh)
each_item()
{
	local f name
	"$1" xdp-unit prog "$BUILD/rxlat-xdp-unit"
	for f in "$BUILD"/rxlat-unit "$BUILD"/rxlat-*-unit "$BUILD"/rxlat-*-test; do
		[[ -x $f && $f != "$BUILD/rxlat-xdp-unit" ]] || continue
		"$1" "${f##*/rxlat-}" prog "$f"
	done
	for f in netns-tests/test_*.sh; do
		[[ -e $f ]] || continue
		name=${f##*/test_}
		"$1" "${name%.sh}" file "$f"
	done
	for f in netns-tests/vm_*.sh; do
		[[ -e $f ]] || continue
		name=${f##*/}
		"$1" "${name%.sh}" vm "$f"
	done
}

# a pattern that matches no test's name is a typo, not a run of nothing
NAMES=()
add_name() { NAMES+=("$1"); }
each_item add_name
for pat in "${SELECT[@]}"; do
	found=
	for n in "${NAMES[@]}"; do
		# shellcheck disable=SC2053
		[[ $n == $pat ]] && found=1 && break
	done
	if [[ -z $found ]]; then
		echo "run.sh: no test named '$pat'; the names: ${NAMES[*]}" >&2
		exit 2
	fi
done

missing=()
for c in ip tc nsenter xdp-loader bpftool gojq awk mount; do
	command -v "$c" >/dev/null 2>&1 || missing+=("$c")
done
((${#missing[@]})) && report FAIL run.tools "not found: ${missing[*]}; run 'make deps'"

if ! bpffs_setup; then
	report FAIL run.bpffs "no bpf filesystem on $RXLAT_BPFFS and mounting one failed"
fi

RXLAT_RUN_PIDS=$(mktemp /tmp/rxlat-run-pids.XXXXXX)
export RXLAT_RUN_PIDS
PROGS_BEFORE=$(our_progs)
HOST_XDP_BEFORE=$(host_xdp)
XDP_PINS_BEFORE=$(printf '%s\n' "$RXLAT_BPFFS"/xdp/*)
RXLAT_PINS_BEFORE=$([[ -e $RXLAT_BPFFS/rxlat ]] && echo yes)

# Whether this kernel lets rxlat attach fentry programs (BPF trampolines):
# Debian's arm64 6.1 does not (no direct calls from ftrace before 6.4), and
# runs the fallback set as the host kernel does.
# Read inside the test VM only, where it decides something: each rxlat
# start-up costs seconds under emulation.
TRAMPOLINES=''
[[ -n ${RXLAT_VM:-} ]] && "$BUILD/rxlat" --list-stages 2>/dev/null | grep -q 'fentry:' && TRAMPOLINES=1

# make test runs some files on arm64's 6.12 and leaves them out of x86-64's
# 6.12, where they would prove nothing more (netns-tests/vm/arm64_guest.sh)
proven_elsewhere()	# NAME
{
	[[ -n ${RXLAT_VM:-} && ${RXLAT_VM_LINE:-} == 6.12 &&
		" ${RXLAT_VM_PROVEN_ELSEWHERE:-} " == *" $1 "* ]] || return 1
	report SKIP "$1" "arm64's 6.12 runs this file in make test: the same kernel line, and 6.1 here the same architecture"
}

run_one()	# NAME KIND PATH
{
	local name=$1 kind=$2 f=$3
	[[ -z $_T_STOP ]] && selected "$name" || return 0
	proven_elsewhere "$name" && return 0
	case $kind in
	prog)
		if [[ -x $f ]]; then
			run_item "$name" "$f" ${SEL_CASE:+"$SEL_CASE"}
		else
			report FAIL "$name" "$f is missing; run 'make test-binaries'"
		fi
		;;
	file)
		# Inside make vmtest the kernel allows BPF trampolines: the
		# collector's tests run with fentry forced, and the exact-count
		# ones again with the fallback set forced, so that one kernel
		# proves both sets.
		if [[ -n ${RXLAT_VM:-} && $name == collector && -n $TRAMPOLINES ]]; then
			run_item "$name-fentry" env RXLAT_TEST_ATTACH=fentry bash "$f"
			[[ -z $_T_STOP ]] && run_item "$name-fallback" env RXLAT_TEST_ATTACH=fallback \
				RXLAT_TEST_FILTER='^udp' bash "$f"
		elif [[ -n $SEL_CASE ]]; then
			# the case by its own name or by the one its lines carry
			run_item "$name" env RXLAT_TEST_FILTER="^($name\\.)?$SEL_CASE\$" bash "$f"
		else
			run_item "$name" bash "$f"
		fi
		;;
	vm)
		# vm_*.sh need BPF trampolines (fentry, libxdp's dispatcher):
		# inside make vmtest only. Not a PASS where they do not run: a
		# comment says so.
		if [[ -z ${RXLAT_VM:-} ]]; then
			echo "# $name: not run here (needs BPF trampolines); make vmtest runs it"
		elif [[ -z $TRAMPOLINES ]]; then
			report SKIP "$name" "kernel $(uname -r) refuses BPF trampolines (fentry): rxlat runs the fallback set here, which the other tests prove"
		else
			run_item "$name" bash "$f"
		fi
		;;
	esac
}
each_item run_one

check_leftovers
rm -f "$RXLAT_RUN_PIDS"
bpffs_teardown
echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
[[ -n $_T_STOP ]] && exit 130
((FAILED == 0 && PASSED > 0))

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boots Debian's own kernels under QEMU (TCG, no KVM needed) and runs the
# namespace test suite inside, on kernels that allow BPF trampolines
# (fentry/fexit, freplace for libxdp's dispatcher).
#
#   netns-tests/vm/vmtest.sh [--kernel 5.10|6.1|6.12|6.12-generic|all|arm64-6.1|arm64-6.12|arm64]
#                            [--timeout SECONDS]
#                            [-- COMMAND...]
#
# COMMAND runs in /rxlat inside the VM (a copy of build/, netns-tests/ and
# configs/ at their usual relative paths) and defaults to ./netns-tests/run.sh
# (./netns-tests/vm/arm64_guest.sh on the arm64 lines).
# The exit status is the command's; a kernel panic, a timeout or a missing
# result marker is always a failure.
#
# Environment: VMTEST_KERNEL, VMTEST_TIMEOUT (seconds per kernel, boot
# included, default 3600), VMTEST_PARALLEL (1: the kernels boot at the same
# time; 0: one after the other), VMTEST_MEM (MiB, 1024), VMTEST_SMP (2),
# VMTEST_APPEND (extra kernel command line), VMTEST_MODULES (a module list
# instead of netns-tests/vm/modules.list), VMTEST_QEMU_ARGS (extra QEMU
# options), VMTEST_ENV (shell lines the VM's /init sources before COMMAND,
# e.g. "export FOO=1"), VMTEST_BOOT_TRIES (boots of a kernel that dies before
# /init starts, default 2), VMTEST_KEEP_STAGE (directory to keep a copy of the
# staged userland in, for debugging), BUILD (build directory, ./build).
# Inside the VM, RXLAT_VM=1 and RXLAT_VM_LINE=6.1|6.12|arm64-6.1|... are set.
#
# The arm64 lines boot Debian's arm64 kernels with qemu-system-aarch64 and
# run the arm64 tree: BUILD is then the cross build (make ARCH=arm64, in
# build/arm64), and the userland is made of the arm64 packages of this
# host's programs (initramfs.sh, through scripts/sysroot.sh).
#
# The work is in three files this script sources: fetch-kernel.sh (Debian's
# kernel packages), initramfs.sh (the initramfs pieces) and boot.sh (QEMU,
# the console and its markers); this script parses the options, builds and
# caches the pieces, boots each kernel and prints the summary.
#
# Files: build/vm/cache/ keeps the downloaded kernel packages,
# build/vm/userland.cpio.gz the cached userland archive, build/vm/<line>/
# the unpacked kernel, its module archive and console.log of the last run.
# Lists: netns-tests/vm/programs.list (host programs copied in) and
# netns-tests/vm/modules.list (kernel modules loaded at boot).

set -Eeuo pipefail
trap 'echo "vmtest: error: command failed at line $LINENO: $BASH_COMMAND" >&2' ERR

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$top/build}
case $BUILD in /*) ;; *) BUILD=$top/$BUILD ;; esac
VMDIR=$BUILD/vm
CACHE=$VMDIR/cache
MEM=${VMTEST_MEM:-1024}
SMP=${VMTEST_SMP:-2}
TIMEOUT=${VMTEST_TIMEOUT:-3600}
PARALLEL=${VMTEST_PARALLEL:-1}
KERNEL=${VMTEST_KERNEL:-all}
GRACE=60 # seconds allowed for power-off after the result marker

die() {
	echo "vmtest: error: $*" >&2
	exit 2
}
note() { echo "vmtest: $*" >&2; }

# The three parts: kernel packages, initramfs pieces, boot.
# shellcheck source=netns-tests/vm/fetch-kernel.sh
. "$here/fetch-kernel.sh"
# shellcheck source=netns-tests/vm/initramfs.sh
. "$here/initramfs.sh"
# shellcheck source=netns-tests/vm/boot.sh
. "$here/boot.sh"

usage() {
	cat <<EOF
usage: netns-tests/vm/vmtest.sh [--kernel LINE] [--timeout SECONDS] [-- COMMAND...]
  --kernel   which Debian kernel line to boot: 5.10 (Debian 11's), 6.1, 6.12,
             6.12-generic (every NIC driver), arm64-6.1, arm64-6.12 (BUILD an
             arm64 tree), all (6.1 and 6.12 at the same time, the default) or
             arm64 (both arm64 lines)
  --timeout  seconds allowed per kernel, boot included (default: 3600)
  COMMAND    run in /rxlat inside the VM (default: ./netns-tests/run.sh; on the
             arm64 lines ./netns-tests/vm/arm64_guest.sh)
EOF
	exit "${1:-0}"
}

while [ $# -gt 0 ]; do
	case $1 in
	--kernel) [ $# -ge 2 ] || die "--kernel needs an argument"; KERNEL=$2; shift 2 ;;
	--kernel=*) KERNEL=${1#*=}; shift ;;
	--timeout) [ $# -ge 2 ] || die "--timeout needs an argument"; TIMEOUT=$2; shift 2 ;;
	--timeout=*) TIMEOUT=${1#*=}; shift ;;
	-h | --help) usage 0 ;;
	--) shift; break ;;
	*) echo "vmtest: unknown argument '$1'" >&2; usage 2 ;;
	esac
done
CMD=("$@")
[[ $TIMEOUT =~ ^[1-9][0-9]*$ ]] || die "--timeout wants a positive number of seconds, got '$TIMEOUT'"
case $KERNEL in
all) RUN_LINES=("${LINES[@]}") ;;
arm64) RUN_LINES=("${ARM64_LINES[@]}") ;;
5.10 | 6.1 | 6.12 | 6.12-generic | arm64-6.1 | arm64-6.12) RUN_LINES=("$KERNEL") ;;
*) die "--kernel wants 5.10, 6.1, 6.12, 6.12-generic, all, arm64-6.1, arm64-6.12 or arm64, got '$KERNEL'" ;;
esac
VM_ARCH=amd64
case $KERNEL in arm64*) VM_ARCH=arm64 ;; esac
if [ ${#CMD[@]} -eq 0 ]; then
	[ -f "$top/netns-tests/run.sh" ] ||
		die "netns-tests/run.sh does not exist yet; pass a command after '--' (e.g. -- ./netns-tests/vm/selftest.sh)"
	CMD=(./netns-tests/run.sh)
	# the arm64 kernels run what depends on the architecture (arm64 6.1's
	# fallback set has no udp_queue_rcv, which some files count on)
	[ "$VM_ARCH" = arm64 ] && CMD=(./netns-tests/vm/arm64_guest.sh)
fi

need() { # need PROGRAM PACKAGE
	command -v "$1" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin:/sbin command -v "$1" >/dev/null 2>&1 ||
		die "$1 not found: install package $2 (apt-get install $2, or make deps)"
}
if [ "$VM_ARCH" = arm64 ]; then
	need qemu-system-aarch64 qemu-system-arm
	need readelf binutils
	[ "$(readelf -h "$BUILD/rxlat" 2>/dev/null | awk '$1 == "Machine:" { print $2 }')" = AArch64 ] ||
		die "$BUILD/rxlat is not an arm64 program: build the arm64 tree (make ARCH=arm64 all test-binaries), then run BUILD=$top/build/arm64 $0 --kernel $KERNEL"
else
	need qemu-system-x86_64 qemu-system-x86
fi
need cpio cpio
need gzip gzip
need dpkg-deb dpkg
need apt-get apt
need depmod kmod
need ldd libc-bin
need xz xz-utils
[ -x /bin/busybox ] || die "/bin/busybox not found: install package busybox-static"
export PATH=$PATH:/usr/sbin:/sbin

mkdir -p "$CACHE"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rxlat-vmtest.XXXXXX")
qpid=
LINE_PIDS=()
# shellcheck disable=SC2317 # called through traps
# stop_qemu PID: QEMU asked to stop, then killed
stop_qemu() {
	[ -n "$1" ] && kill -0 "$1" 2>/dev/null || return 0
	kill -TERM "$1" 2>/dev/null || true
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.2
	done
	kill -KILL "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}
# shellcheck disable=SC2317 # called through trap
cleanup() {
	local rc=$? pid
	trap - EXIT INT TERM ERR
	stop_qemu "$qpid"
	for pid in "${LINE_PIDS[@]}"; do
		kill -TERM "$pid" 2>/dev/null || true
	done
	for pid in "${LINE_PIDS[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	rm -rf "$tmp" "$CACHE/.dl.$$"
	rm -f "$VMDIR"/*.tmp.$$ "$VMDIR"/*/*.tmp.$$
	exit "$rc"
}
trap cleanup EXIT
trap 'echo "vmtest: interrupted" >&2; exit 130' INT TERM

now() { echo "${EPOCHREALTIME/,/.}"; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# ---------------------------------------------------------------------------

T_START=$(now)
NONCE=$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')

[ -e "$BUILD/rxlat" ] || note "warning: $BUILD/rxlat does not exist: run 'make all test-binaries' first"

# Kernels first: a download problem should show before any other work.
declare -A L_PKG=() L_VER=() L_DEB=()
# the arm64 lines share the cross build's apt state, where there is one
[ -d "$BUILD/sysroot/apt" ] && export SYSROOT_APT=$BUILD/sysroot/apt
for line in "${RUN_LINES[@]}"; do
	if [ "$VM_ARCH" = arm64 ]; then
		fetch_foreign_kernel "$line" arm64
	elif [ "$line" = 5.10 ]; then
		fetch_foreign_kernel "$line" amd64
	else
		resolve_kernel "$line"
	fi
	L_PKG[$line]=$PKG L_VER[$line]=$VER L_DEB[$line]=$DEB
done
# The arm64 userland: the arm64 packages of this host's programs
if [ "$VM_ARCH" = arm64 ]; then
	mapfile -t ul_pkgs < <(userland_packages)
	"$top/scripts/sysroot.sh" arm64 "$VMDIR/userland" "${ul_pkgs[@]}" ||
		die "the arm64 userland packages could not be fetched"
	UL_ROOT=$VMDIR/userland/root UL_TRIPLE=aarch64-linux-gnu
	UL_LIB_ROOTS=("$UL_ROOT" "$BUILD/sysroot/root")
fi

# The initrd of each kernel is three concatenated archives: the userland
# (cached until programs.list, init, this script or the installed packages
# change), the kernel's modules (cached per kernel) and the project files
# with the command (built for every run).
t=$(now)
sys_cpio=$VMDIR/userland.cpio.gz
sys_key=$( (cat "$here/programs.list" "$here/init" "${BASH_SOURCE[0]}" "$here/initramfs.sh"
	stat -L -c '%n %Y %s' /var/lib/dpkg/status /bin/busybox
	[ -z "$UL_ROOT" ] || cat "$VMDIR"/userland/control/*/.deb) | md5sum | cut -d' ' -f1)
if [ ! -s "$sys_cpio" ] || [ "$(cat "$sys_cpio.key" 2>/dev/null)" != "$sys_key" ]; then
	build_userland "$tmp/userland"
	mkcpio "$tmp/userland" "$sys_cpio.tmp.$$"
	if [ -n "${VMTEST_KEEP_STAGE:-}" ]; then
		rm -rf "$VMTEST_KEEP_STAGE"
		cp -a "$tmp/userland" "$VMTEST_KEEP_STAGE"
	fi
	rm -rf "$tmp/userland"
	mv "$sys_cpio.tmp.$$" "$sys_cpio"
	echo "$sys_key" >"$sys_cpio.key"
	note "initramfs userland: $(du -h "$sys_cpio" | cut -f1) in $(elapsed "$t" "$(now)")s"
fi
t=$(now)
build_project "$tmp/project"
mkcpio "$tmp/project" "$tmp/project.cpio.gz"
rm -rf "$tmp/project"
note "initramfs project files: $(du -h "$tmp/project.cpio.gz" | cut -f1) in $(elapsed "$t" "$(now)")s"

# boot_line LINE: boots LINE (once more if it died before /init started) and
# writes its RES_* entries to $tmp/res-LINE, for the summary
boot_line() {
	local line=$1 a
	boot "$line" "$tmp/initrd-$line"
	# Under TCG the kernel itself now and then dies in its first seconds (seen:
	# a 6.12 oops in enqueue_timer at 1.5 s, a jump into the middle of an
	# instruction), before any of the project runs. Such a boot says nothing
	# about rxlat: boot once more, and say so. A panic or a failure after
	# /init started is never retried.
	if [ -n "$EARLY_DEATH" ] && [ "${VMTEST_BOOT_TRIES:-2}" -gt 1 ]; then
		cp "$VMDIR/$line/console.log" "$VMDIR/$line/console.first.log"
		note "kernel $line died before /init started (${RES_TEXT[$line]}); booting it once more"
		boot "$line" "$tmp/initrd-$line"
		RES_TEXT[$line]="${RES_TEXT[$line]}, second boot: the first died before /init (console.first.log)"
	fi
	rm -f "$tmp/initrd-$line"
	for a in RES_KVER RES_PKG RES_BOOT RES_SUITE RES_RC RES_TEXT; do
		local -n r=$a
		printf '%s[%q]=%q\n' "$a" "$line" "${r[$line]-}"
		unset -n r
	done >"$tmp/res-$line"
}

for line in "${RUN_LINES[@]}"; do
	PKG=${L_PKG[$line]} VER=${L_VER[$line]} DEB=${L_DEB[$line]}
	if [ "$VM_ARCH" = arm64 ]; then
		fetch_foreign_kernel "$line" arm64
	elif [ "$line" = 5.10 ]; then
		fetch_foreign_kernel "$line" amd64
	else
		unpack_kernel "$line"
	fi
	build_modules "$line" "$VMDIR/$line/modules.cpio.gz"
	cat "$sys_cpio" "$VMDIR/$line/modules.cpio.gz" "$tmp/project.cpio.gz" >"$tmp/initrd-$line"
	if [ "$PARALLEL" = 1 ] && [ ${#RUN_LINES[@]} -gt 1 ]; then
		# A guest keeps about 1.2 of the two host cores busy (the suite
		# waits on timers and traffic): two at once take about a third
		# less time than one after the other.
		(
			trap 'stop_qemu "$qpid"; exit 143' TERM INT
			boot_line "$line"
		) &
		LINE_PIDS+=("$!")
	else
		boot_line "$line"
	fi
done
for pid in "${LINE_PIDS[@]}"; do
	wait "$pid" || true
done
LINE_PIDS=()
for line in "${RUN_LINES[@]}"; do
	if [ -s "$tmp/res-$line" ]; then
		# shellcheck disable=SC1090 # written by boot_line above
		. "$tmp/res-$line"
	else
		RES_RC[$line]=1 RES_TEXT[$line]="FAIL (no result from the boot of this kernel)"
	fi
done

echo
echo "vmtest summary (command: ${CMD[*]}; total $(elapsed "$T_START" "$(now)")s)"
printf '  %-5s %-34s %-22s %-8s %-9s %s\n' line kernel package boot suite result
final=0
for line in "${RUN_LINES[@]}"; do
	printf '  %-5s %-34s %-22s %-8s %-9s %s\n' "$line" "${RES_KVER[$line]}" "${RES_PKG[$line]#* }" \
		"${RES_BOOT[$line]:--}" "${RES_SUITE[$line]:--}" "${RES_TEXT[$line]}"
	[ "$final" = 0 ] && final=${RES_RC[$line]}
	# the driver tests' own lines (netns-tests/vm/drivers_guest.sh)
	grep -E '^driver [^ ]+: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped' "$VMDIR/$line/console.log" |
		sed 's/^/  /' || true
done
exit "$final"

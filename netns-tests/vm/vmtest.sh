#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boots Debian's own kernels under QEMU (TCG, no KVM needed) and runs the
# namespace test suite inside, on kernels that allow BPF trampolines
# (fentry/fexit, freplace for libxdp's dispatcher).
#
#   netns-tests/vm/vmtest.sh [--kernel 6.1|6.12|all] [--timeout SECONDS]
#                            [-- COMMAND...]
#
# COMMAND runs in /rxlat inside the VM (a copy of build/, netns-tests/ and
# configs/ at their usual relative paths) and defaults to ./netns-tests/run.sh.
# The exit status is the command's; a kernel panic, a timeout or a missing
# result marker is always a failure.
#
# Environment: VMTEST_KERNEL, VMTEST_TIMEOUT (seconds per kernel, boot
# included, default 1200), VMTEST_MEM (MiB, 1024), VMTEST_SMP (2),
# VMTEST_APPEND (extra kernel command line), VMTEST_QEMU_ARGS (extra QEMU
# options), VMTEST_ENV (shell lines the VM's /init sources before COMMAND,
# e.g. "export FOO=1"), VMTEST_BOOT_TRIES (boots of a kernel that dies before
# /init starts, default 2), VMTEST_KEEP_STAGE (directory to keep a copy of the
# staged userland in, for debugging), BUILD (build directory, ./build).
# Inside the VM, RXLAT_VM=1 and RXLAT_VM_LINE=6.1|6.12 are set.
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

# Kernel lines: metapackage and a glob for cached packages (offline re-use).
LINES=(6.1 6.12)
declare -A META=([6.1]=linux-image-cloud-amd64 [6.12]=linux-image-6.12-cloud-amd64)
declare -A CACHED_GLOB=([6.1]='linux-image-6.1.0-*-cloud-amd64_*_amd64.deb'
	[6.12]='linux-image-6.12.*-cloud-amd64_*_amd64.deb')

MEM=${VMTEST_MEM:-1024}
SMP=${VMTEST_SMP:-2}
TIMEOUT=${VMTEST_TIMEOUT:-1200}
KERNEL=${VMTEST_KERNEL:-all}
GRACE=60 # seconds allowed for power-off after the result marker

die() {
	echo "vmtest: error: $*" >&2
	exit 2
}
note() { echo "vmtest: $*" >&2; }

usage() {
	cat <<EOF
usage: netns-tests/vm/vmtest.sh [--kernel 6.1|6.12|all] [--timeout SECONDS] [-- COMMAND...]
  --kernel   which Debian kernel line to boot (default: all, one after the other)
  --timeout  seconds allowed per kernel, boot included (default: 1200)
  COMMAND    run in /rxlat inside the VM (default: ./netns-tests/run.sh)
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
6.1 | 6.12) RUN_LINES=("$KERNEL") ;;
*) die "--kernel wants 6.1, 6.12 or all, got '$KERNEL'" ;;
esac
if [ ${#CMD[@]} -eq 0 ]; then
	[ -f "$top/netns-tests/run.sh" ] ||
		die "netns-tests/run.sh does not exist yet; pass a command after '--' (e.g. -- ./netns-tests/vm/selftest.sh)"
	CMD=(./netns-tests/run.sh)
fi

need() { # need PROGRAM PACKAGE
	command -v "$1" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin:/sbin command -v "$1" >/dev/null 2>&1 ||
		die "$1 not found: install package $2 (apt-get install $2, or make deps)"
}
need qemu-system-x86_64 qemu-system-x86
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
# shellcheck disable=SC2317 # called through trap
cleanup() {
	local rc=$?
	trap - EXIT INT TERM ERR
	if [ -n "$qpid" ] && kill -0 "$qpid" 2>/dev/null; then
		kill -TERM "$qpid" 2>/dev/null || true
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			kill -0 "$qpid" 2>/dev/null || break
			sleep 0.2
		done
		kill -KILL "$qpid" 2>/dev/null || true
		wait "$qpid" 2>/dev/null || true
	fi
	rm -rf "$tmp" "$CACHE/.dl.$$"
	rm -f "$VMDIR"/*.tmp.$$ "$VMDIR"/*/*.tmp.$$
	exit "$rc"
}
trap cleanup EXIT
trap 'echo "vmtest: interrupted" >&2; exit 130' INT TERM

now() { echo "${EPOCHREALTIME/,/.}"; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# ---------------------------------------------------------------------------
# Kernel packages

apt_updated=
# resolve_kernel LINE: sets PKG, VER and DEB (path of the cached .deb)
resolve_kernel() {
	local line=$1 meta=${META[$1]} try deb
	PKG='' VER='' DEB=''
	for try in 1 2; do
		PKG=$(apt-cache depends "$meta" 2>/dev/null |
			awk '$1 == "Depends:" && $2 ~ /^linux-image-/ { print $2; exit }') || true
		[ -n "$PKG" ] && VER=$(apt-cache show --no-all-versions "$PKG" 2>/dev/null |
			awk '$1 == "Version:" { print $2; exit }') || true
		[ -n "$PKG" ] && [ -n "$VER" ] && break
		PKG='' VER=''
		[ "$try" = 1 ] && [ -z "$apt_updated" ] && [ "$(id -u)" = 0 ] || break
		note "$meta not found in the package lists: running apt-get update"
		apt_updated=1
		apt-get update -qq >&2 || note "apt-get update failed"
	done
	if [ -z "$PKG" ]; then
		# Offline: fall back to the newest package already in the cache.
		# shellcheck disable=SC2086,SC2012 # the glob is meant to expand
		deb=$(cd "$CACHE" && ls -1 ${CACHED_GLOB[$line]} 2>/dev/null | sort -V | tail -n 1) || true
		[ -n "$deb" ] ||
			die "cannot resolve the package behind $meta (kernel $line): check the apt sources and run 'apt-get update' as root"
		note "cannot resolve $meta; re-using cached $deb"
		DEB=$CACHE/$deb
		PKG=${deb%%_*}
		VER=${deb#*_}
		VER=${VER%_*}
		return
	fi
	DEB=$CACHE/${PKG}_${VER//:/%3a}_amd64.deb
	[ -s "$DEB" ] && return
	note "downloading $PKG $VER"
	rm -rf "$CACHE/.dl.$$" && mkdir -p "$CACHE/.dl.$$"
	if ! (cd "$CACHE/.dl.$$" && apt-get download -q "$PKG=$VER" 2>&1 |
		grep -v -e 'Download is performed unsandboxed' -e '^Get:' >&2); then
		:
	fi
	deb=$(ls -1 "$CACHE/.dl.$$"/*.deb 2>/dev/null | head -n 1) || true
	[ -n "$deb" ] && [ -s "$deb" ] ||
		die "apt-get download $PKG=$VER failed (kernel $line): check network access and the apt sources"
	mv "$deb" "$DEB"
	rm -rf "$CACHE/.dl.$$"
}

# unpack_kernel LINE: unpacks $DEB into build/vm/LINE/root; sets KVER, VMLINUZ
unpack_kernel() {
	local line=$1 dir=$VMDIR/$1 stamp
	stamp=$(basename "$DEB")
	if [ "$(cat "$dir/root.stamp" 2>/dev/null)" != "$stamp" ] || [ ! -d "$dir/root/lib/modules" ]; then
		rm -rf "$dir/root" "$dir/root.stamp"
		mkdir -p "$dir/root"
		dpkg-deb -x "$DEB" "$dir/root" ||
			die "dpkg-deb -x $DEB failed: delete the file and run again to download it anew"
		KVER=$(ls -1 "$dir/root/lib/modules" | head -n 1)
		[ -n "$KVER" ] || die "$DEB holds no lib/modules/<version>: not a kernel image package?"
		# The package generates modules.dep only at installation.
		depmod -b "$dir/root" "$KVER" || die "depmod -b $dir/root $KVER failed"
		echo "$stamp" >"$dir/root.stamp"
	fi
	KVER=$(ls -1 "$dir/root/lib/modules" | head -n 1)
	VMLINUZ=$dir/root/boot/vmlinuz-$KVER
	[ -r "$VMLINUZ" ] || die "$VMLINUZ missing from $DEB"
}

# ---------------------------------------------------------------------------
# Initramfs pieces

declare -A COPIED=()
# copy_in STAGE SRC [DST]: copy a file (dereferenced) to the same path
copy_in() {
	local stage=$1 src=$2 dst=${3:-$2}
	[ -n "${COPIED[$stage:$dst]:-}" ] && return 0
	mkdir -p "$stage$(dirname "$dst")"
	cp -L --preserve=mode "$src" "$stage$dst"
	COPIED[$stage:$dst]=1
}

# copy_libs STAGE FILE: the shared libraries and the loader FILE needs
copy_libs() {
	local stage=$1 f=$2 lib out
	out=$(ldd "$f" 2>/dev/null) || return 0
	if grep -q 'not found' <<<"$out"; then
		die "$f needs libraries that are not installed: $(grep 'not found' <<<"$out" | tr -s ' \t' ' ')"
	fi
	for lib in $(awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' <<<"$out"); do
		copy_in "$stage" "$lib"
	done
}

# copy_prog STAGE PATH: a program and its libraries
copy_prog() {
	copy_in "$1" "$2"
	copy_libs "$1" "$2"
}

find_cmd() {
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin command -v "$1" 2>/dev/null
}

# build_userland DIR: the part of the initramfs shared by all kernels
build_userland() {
	local s=$1 entry opt name p f n applet d found
	mkdir -p "$s"/usr/{bin,sbin,lib,lib64} "$s"/{dev,proc,sys,run,tmp,root,etc,var,rxlat}
	ln -s usr/bin "$s/bin"
	ln -s usr/sbin "$s/sbin"
	ln -s usr/lib "$s/lib"
	ln -s usr/lib64 "$s/lib64"
	if [ "$(id -u)" = 0 ]; then
		mknod -m 600 "$s/dev/console" c 5 1
		mknod -m 666 "$s/dev/null" c 1 3
	fi
	install -m 0755 "$here/init" "$s/init"
	copy_prog "$s" /bin/busybox

	while IFS= read -r entry; do
		entry=${entry%%#*}
		read -r entry <<<"$entry" || true # trim blanks
		[ -n "$entry" ] || continue
		opt=
		case $entry in "?"*) opt=1; entry=${entry#?} ;; esac
		case $entry in
		pkg:*)
			name=${entry#pkg:}
			if ! dpkg-query -W -f='${Status}' "$name" 2>/dev/null | grep -q 'ok installed'; then
				[ -n "$opt" ] || die "package $name (programs.list) is not installed: apt-get install $name"
				note "package $name not installed, not copied into the VM"
				continue
			fi
			while IFS= read -r f; do
				[ -f "$f" ] && [ -x "$f" ] && copy_prog "$s" "$f"
			done < <(dpkg -L "$name" | grep -E '/s?bin/[^/]+$')
			;;
		*)
			p=$(find_cmd "$entry") || p=
			if [ -z "$p" ] || [ ! -e "$p" ]; then
				[ -n "$opt" ] || die "$entry not found on this host (needed inside the VM): run make deps"
				continue
			fi
			copy_prog "$s" "$p"
			;;
		esac
	done <"$here/programs.list"

	# libxdp's dispatcher and helper programs, at the path libxdp searches.
	found=
	if dpkg-query -W -f='${Status}' libxdp1 2>/dev/null | grep -q 'ok installed'; then
		while IFS= read -r f; do
			[ -f "$f" ] && copy_in "$s" "$f" && found=1
		done < <(dpkg -L libxdp1 | grep -E '/bpf/[^/]+\.o$')
	fi
	[ -n "$found" ] || die "libxdp's BPF objects (xdp-dispatcher.o) not found: apt-get install libxdp1"

	# busybox applets for every command not already provided
	while IFS= read -r applet; do
		n=${applet##*/}
		found=
		for d in usr/bin usr/sbin usr/local/bin usr/local/sbin; do
			[ -e "$s/$d/$n" ] && found=1
		done
		[ -n "$found" ] && continue
		ln -s /bin/busybox "$s/$applet"
	done < <(/bin/busybox --list-full)
	ln -sf /bin/bash "$s/bin/sh"

	# configuration files the tools look for
	printf 'root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' >"$s/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$s/etc/group"
	printf '127.0.0.1\tlocalhost rxlat-vm\n::1\tlocalhost ip6-localhost ip6-loopback\n' >"$s/etc/hosts"
	printf 'passwd: files\ngroup: files\nhosts: files\nservices: files\nprotocols: files\n' >"$s/etc/nsswitch.conf"
	echo rxlat-vm >"$s/etc/hostname"
	ln -s /proc/self/mounts "$s/etc/mtab"
	[ -d /usr/lib/locale/C.utf8 ] && mkdir -p "$s/usr/lib/locale" && cp -a /usr/lib/locale/C.utf8 "$s/usr/lib/locale/"
	for f in /etc/services /etc/protocols /etc/ethertypes /etc/rpc; do
		[ -r "$f" ] && cp -L "$f" "$s/etc/"
	done
	for d in /etc/iproute2 /usr/share/iproute2 /usr/lib/iproute2; do
		[ -d "$d" ] && mkdir -p "$s$(dirname "$d")" && cp -rL "$d" "$s$(dirname "$d")/"
	done
	if [ -r /etc/ld.so.conf.d/x86_64-linux-gnu.conf ]; then
		mkdir -p "$s/etc/ld.so.conf.d"
		cp /etc/ld.so.conf.d/x86_64-linux-gnu.conf "$s/etc/ld.so.conf.d/"
		echo 'include /etc/ld.so.conf.d/*.conf' >"$s/etc/ld.so.conf"
	fi
}

# build_project DIR: build/ and netns-tests/ (plus configs/) under /rxlat
build_project() {
	local s=$1 f rel d
	mkdir -p "$s/rxlat/build" "$s/etc/rxlat-vm" "$s"/usr/{lib,lib64}
	# same merged-/usr layout as the userland archive, for libraries
	ln -s usr/lib "$s/lib"
	ln -s usr/lib64 "$s/lib64"
	if [ -d "$BUILD" ]; then
		while IFS= read -r -d '' f; do
			rel=${f#"$BUILD"/}
			mkdir -p "$s/rxlat/build/$(dirname "$rel")"
			cp -L --preserve=mode "$f" "$s/rxlat/build/$rel"
			[ -x "$f" ] && copy_libs "$s" "$f"
		done < <(find "$BUILD" -path "$VMDIR" -prune -o -type f \
			! -name '*.h' ! -name '*.d' ! -name '*.tmp' ! -name '*.a' \
			\( -name '*.bpf.o' -o -name xdp-dispatcher.o -o ! -name '*.o' \) -print0)
	fi
	for d in netns-tests configs; do
		[ -d "$top/$d" ] && cp -a "$top/$d" "$s/rxlat/"
	done
	{
		echo "# generated by vmtest.sh"
		echo "cd /rxlat || exit 125"
		printf 'exec'
		printf ' %q' "${CMD[@]}"
		echo
	} >"$s/etc/rxlat-vm/cmd"
	echo "$NONCE" >"$s/etc/rxlat-vm/nonce"
	printf '%s\n' "${VMTEST_ENV:-}" >"$s/etc/rxlat-vm/env"
}

# build_modules LINE OUT.cpio.gz: the modules of modules.list with their
# dependencies (from modules.dep and modules.softdep), decompressed, in
# load order in /etc/rxlat-vm/modules, plus depmod data for modprobe.
build_modules() {
	local line=$1 out=$2 root=$VMDIR/$1/root s=$tmp/modules-$1
	local mdir=$root/lib/modules/$KVER key n dep l name rest rel dst
	key=$( (echo "$KVER $(cat "$VMDIR/$line/root.stamp")"; cat "$here/modules.list" "$here/vmtest.sh") | md5sum | cut -d' ' -f1)
	if [ -s "$out" ] && [ "$(cat "$out.key" 2>/dev/null)" = "$key" ]; then
		return
	fi
	declare -A path=() deps=() builtin=() seen=()
	local order=()
	while IFS= read -r l; do
		rel=${l%%:*}
		n=${rel##*/}
		n=${n%%.ko*}
		n=${n//-/_}
		path[$n]=$rel
		deps[$n]=${l#*:}
	done <"$mdir/modules.dep"
	while IFS= read -r l; do
		n=${l##*/}
		n=${n%%.ko*}
		builtin[${n//-/_}]=1
	done <"$mdir/modules.builtin"
	if [ -r "$mdir/modules.softdep" ]; then
		while read -r l name rest; do
			[ "$l" = softdep ] || continue
			name=${name//-/_}
			[ -n "${path[$name]:-}" ] || continue
			rest=${rest%%post:*}
			for dep in ${rest#pre:}; do
				dep=${dep//-/_}
				[ -n "${path[$dep]:-}" ] && deps[$name]="${path[$dep]} ${deps[$name]}"
			done
		done <"$mdir/modules.softdep"
	fi
	visit() {
		local m=$1 d dn
		[ -n "${seen[$m]:-}" ] && return
		seen[$m]=1
		for d in ${deps[$m]}; do
			dn=${d##*/}
			dn=${dn%%.ko*}
			visit "${dn//-/_}"
		done
		order+=("$m")
	}
	while IFS= read -r l; do
		l=${l%%#*}
		read -r l <<<"$l" || true # trim blanks
		[ -n "$l" ] || continue
		n=${l//-/_}
		if [ -n "${path[$n]:-}" ]; then
			visit "$n"
		elif [ -z "${builtin[$n]:-}" ]; then
			note "warning: kernel $KVER has no module $l (modules.list)"
		fi
	done <"$here/modules.list"

	rm -rf "$s"
	mkdir -p "$s/usr/lib/modules/$KVER" "$s/etc/rxlat-vm"
	ln -s usr/lib "$s/lib"
	for n in "${order[@]}"; do
		rel=${path[$n]}
		dst=${rel%.xz}
		dst=${dst%.zst}
		dst=${dst%.gz}
		mkdir -p "$s/lib/modules/$KVER/$(dirname "$dst")"
		case $rel in
		*.xz) xz -dc "$mdir/$rel" >"$s/lib/modules/$KVER/$dst" ;;
		*.zst) zstd -qdc "$mdir/$rel" >"$s/lib/modules/$KVER/$dst" ;;
		*.gz) gzip -dc "$mdir/$rel" >"$s/lib/modules/$KVER/$dst" ;;
		*) cp "$mdir/$rel" "$s/lib/modules/$KVER/$dst" ;;
		esac
		echo "/lib/modules/$KVER/$dst" >>"$s/etc/rxlat-vm/modules"
	done
	touch "$s/etc/rxlat-vm/modules"
	for f in modules.builtin modules.builtin.modinfo modules.order; do
		[ -r "$mdir/$f" ] && cp "$mdir/$f" "$s/lib/modules/$KVER/"
	done
	depmod -b "$s" "$KVER" || die "depmod for the VM's modules of $KVER failed"
	echo "$line" >"$s/etc/rxlat-vm/line"
	(cd "$s" && find usr etc | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$out.tmp.$$"
	mv "$out.tmp.$$" "$out"
	echo "$key" >"$out.key"
	note "kernel $KVER: ${#order[@]} modules: ${order[*]}"
	rm -rf "$s"
}

mkcpio() { # mkcpio DIR OUT
	(cd "$1" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$2"
}

# ---------------------------------------------------------------------------
# Boot

# boot LINE INITRD: boots, streams the console, sets RES_* for the summary
boot() {
	local line=$1 initrd=$2 log=$VMDIR/$1/console.log fifo=$tmp/console-$1
	local t0 tb='' ts='' te='' deadline left l rc=- status='' booted_kver='' panic='' qrc
	rm -f "$fifo"
	mkfifo "$fifo"
	: >"$log"
	note "booting kernel $KVER ($line), timeout ${TIMEOUT}s"
	t0=$(now)
	# shellcheck disable=SC2086 # VMTEST_QEMU_ARGS is a list of options
	qemu-system-x86_64 -accel tcg -cpu max -m "$MEM" -smp "$SMP" \
		-nographic -no-reboot -nic none ${VMTEST_QEMU_ARGS:-} \
		-kernel "$VMLINUZ" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 quiet ${VMTEST_APPEND:-}" \
		</dev/null >"$fifo" 2>&1 &
	qpid=$!
	exec 3<"$fifo"
	deadline=$((${t0%.*} + TIMEOUT))
	while :; do
		left=$((deadline - EPOCHSECONDS))
		if [ "$left" -le 0 ]; then
			status=timeout
			break
		fi
		if IFS= read -r -t "$left" -u 3 l; then
			:
		else
			rc_read=$?
			if [ "$rc_read" -gt 128 ]; then
				status=timeout
				break
			fi
			[ -n "$l" ] || break # end of output: QEMU exited
		fi
		l=${l//$'\r'/}
		l=${l//$'\e'c/}
		while [[ $l =~ $'\e'\[[0-9?\;]*[a-zA-Z] ]]; do
			l=${l/"${BASH_REMATCH[0]}"/}
		done
		printf '%s\n' "$l" >>"$log"
		case $l in
		*"TCG doesn't support requested feature"*) continue ;;
		esac
		[ -n "$l" ] && printf '[%s] %s\n' "$line" "$l"
		case $l in
		*"RXLAT-VM-BOOTED $NONCE "*)
			tb=$(now)
			booted_kver=${l##* }
			;;
		*"RXLAT-VM-START $NONCE"*) ts=$(now) ;;
		*"RXLAT-VM-RESULT $NONCE rc="*)
			te=$(now)
			rc=${l##*rc=}
			rc=${rc%%[!0-9]*}
			# wait for the power-off, but not forever
			deadline=$((EPOCHSECONDS + GRACE))
			;;
		*"Kernel panic"*) panic=1 ;;
		esac
	done
	exec 3<&-
	if kill -0 "$qpid" 2>/dev/null; then
		if [ "$status" = timeout ] && [ -z "$te" ]; then
			note "kernel $line: no result within ${TIMEOUT}s: stopping QEMU"
		fi
		kill -TERM "$qpid" 2>/dev/null || true
		sleep 0.5
		kill -KILL "$qpid" 2>/dev/null || true
	fi
	qrc=0
	wait "$qpid" 2>/dev/null || qrc=$?
	qpid=
	rm -f "$fifo"

	# died before /init printed its first line: nothing of the project ran
	EARLY_DEATH=
	[ -z "$tb" ] && [ "$status" != timeout ] && EARLY_DEATH=1

	RES_KVER[$line]=${booted_kver:-$KVER}
	RES_PKG[$line]="$PKG $VER"
	RES_BOOT[$line]=${tb:+$(elapsed "$t0" "$tb")s}
	RES_SUITE[$line]=
	[ -n "$ts" ] && [ -n "$te" ] && RES_SUITE[$line]=$(elapsed "$ts" "$te")s
	if [ -n "$te" ] && [ -n "$rc" ] && [ "$rc" != - ]; then
		RES_RC[$line]=$rc
		if [ "$rc" = 0 ]; then RES_TEXT[$line]="PASS (rc=0)"; else RES_TEXT[$line]="FAIL (rc=$rc)"; fi
	elif [ -n "$panic" ]; then
		RES_RC[$line]=1
		RES_TEXT[$line]="FAIL (kernel panic; see $log)"
	elif [ "$status" = timeout ]; then
		RES_RC[$line]=124
		RES_TEXT[$line]="FAIL (timeout after ${TIMEOUT}s)"
	elif [ -z "$tb" ]; then
		RES_RC[$line]=1
		RES_TEXT[$line]="FAIL (VM did not boot, qemu exit $qrc; see $log)"
	else
		RES_RC[$line]=1
		RES_TEXT[$line]="FAIL (no result marker, qemu exit $qrc; see $log)"
	fi
}

# ---------------------------------------------------------------------------

T_START=$(now)
NONCE=$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')
declare -A RES_KVER=() RES_PKG=() RES_BOOT=() RES_SUITE=() RES_RC=() RES_TEXT=()

[ -e "$BUILD/rxlat" ] || note "warning: $BUILD/rxlat does not exist: run 'make all test-binaries' first"

# Kernels first: a download problem should show before any other work.
declare -A L_PKG=() L_VER=() L_DEB=()
for line in "${RUN_LINES[@]}"; do
	resolve_kernel "$line"
	L_PKG[$line]=$PKG L_VER[$line]=$VER L_DEB[$line]=$DEB
done

# The initrd of each kernel is three concatenated archives: the userland
# (cached until programs.list, init, this script or the installed packages
# change), the kernel's modules (cached per kernel) and the project files
# with the command (built for every run).
t=$(now)
sys_cpio=$VMDIR/userland.cpio.gz
sys_key=$( (cat "$here/programs.list" "$here/init" "${BASH_SOURCE[0]}"
	stat -L -c '%n %Y %s' /var/lib/dpkg/status /bin/busybox) | md5sum | cut -d' ' -f1)
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

for line in "${RUN_LINES[@]}"; do
	PKG=${L_PKG[$line]} VER=${L_VER[$line]} DEB=${L_DEB[$line]}
	unpack_kernel "$line"
	build_modules "$line" "$VMDIR/$line/modules.cpio.gz"
	cat "$sys_cpio" "$VMDIR/$line/modules.cpio.gz" "$tmp/project.cpio.gz" >"$tmp/initrd-$line"
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
done

echo
echo "vmtest summary (command: ${CMD[*]}; total $(elapsed "$T_START" "$(now)")s)"
printf '  %-5s %-34s %-22s %-8s %-9s %s\n' line kernel package boot suite result
final=0
for line in "${RUN_LINES[@]}"; do
	printf '  %-5s %-34s %-22s %-8s %-9s %s\n' "$line" "${RES_KVER[$line]}" "${RES_PKG[$line]#* }" \
		"${RES_BOOT[$line]:--}" "${RES_SUITE[$line]:--}" "${RES_TEXT[$line]}"
	[ "$final" = 0 ] && final=${RES_RC[$line]}
done
exit "$final"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Part of netns-tests/vm/vmtest.sh, sourced by it: finds Debian's kernel
# packages, downloads them into build/vm/cache/ and unpacks them into
# build/vm/<line>/root. Uses vmtest.sh's CACHE, VMDIR, die and note.

# Kernel lines: metapackage and a glob for cached packages (offline re-use).
# LINES are the lines of --kernel all; 6.12-generic is Debian's generic
# flavour, for the NIC drivers the cloud kernels leave out (e1000e), booted
# by netns-tests/vm/drivers.sh.
# shellcheck disable=SC2034 # LINES is used by vmtest.sh
# arm64-6.1 and arm64-6.12 are Debian's arm64 cloud kernels (the arm64 tree,
# make ARCH=arm64), fetched by scripts/sysroot.sh with apt state of its own.
# 5.10 is Debian 11's cloud kernel, from Debian 11's archive through an apt
# state of its own (netns-tests/vm/bullseye.list), fetched as the arm64
# lines are.
LINES=(6.1 6.12)
ARM64_LINES=(arm64-6.1 arm64-6.12)
declare -A META=([6.1]=linux-image-cloud-amd64 [6.12]=linux-image-6.12-cloud-amd64
	[5.10]=linux-image-cloud-amd64
	[6.12-generic]=linux-image-6.12-amd64
	[arm64-6.1]=linux-image-cloud-arm64 [arm64-6.12]=linux-image-6.12-cloud-arm64)
declare -A CACHED_GLOB=([6.1]='linux-image-6.1.0-*-cloud-amd64_*_amd64.deb'
	[6.12]='linux-image-6.12.*-cloud-amd64_*_amd64.deb'
	[6.12-generic]='linux-image-6.12.*+deb12-amd64_*_amd64.deb')

apt_updated=
# resolve_kernel LINE: sets PKG, VER and DEB (path of the cached .deb)
resolve_kernel() {
	local line=$1 meta=${META[$1]} try deb
	PKG='' VER='' DEB=''
	for try in 1 2; do
		PKG=$(apt-cache depends "$meta" 2>/dev/null |
			awk '$1 == "Depends:" && $2 ~ /^linux-image-/ { print $2; exit }') || true
		if [ -n "$PKG" ]; then
			VER=$(apt-cache show --no-all-versions "$PKG" 2>/dev/null |
				awk '$1 == "Version:" { print $2; exit }') || true
		fi
		[ -n "$PKG" ] && [ -n "$VER" ] && break
		PKG='' VER=''
		if [ "$try" != 1 ] || [ -n "$apt_updated" ] || [ "$(id -u)" != 0 ]; then
			break
		fi
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
	# shellcheck disable=SC2012 # a Debian package file name: no odd characters
	deb=$(ls -1 "$CACHE/.dl.$$"/*.deb 2>/dev/null | head -n 1) || true
	if [ -z "$deb" ] || [ ! -s "$deb" ]; then
		die "apt-get download $PKG=$VER failed (kernel $line): check network access and the apt sources"
	fi
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
		# shellcheck disable=SC2012 # a kernel version: no odd characters
		KVER=$(ls -1 "$dir/root/lib/modules" | head -n 1)
		[ -n "$KVER" ] || die "$DEB holds no lib/modules/<version>: not a kernel image package?"
		# The package generates modules.dep only at installation.
		depmod -b "$dir/root" "$KVER" || die "depmod -b $dir/root $KVER failed"
		echo "$stamp" >"$dir/root.stamp"
	fi
	# shellcheck disable=SC2012 # a kernel version: no odd characters
	KVER=$(ls -1 "$dir/root/lib/modules" | head -n 1)
	VMLINUZ=$dir/root/boot/vmlinuz-$KVER
	[ -r "$VMLINUZ" ] || die "$VMLINUZ missing from $DEB"
}

# fetch_foreign_kernel LINE ARCH: the kernel of an arm64 line, or of
# another Debian release (5.10), through scripts/sysroot.sh into
# build/.../vm/LINE/root; sets PKG, VER, KVER, VMLINUZ
fetch_foreign_kernel() {
	local line=$1 arch=$2 dir=$VMDIR/$1 c apt=${SYSROOT_APT:-$VMDIR/apt} sources=
	if [ "$line" = 5.10 ]; then
		# shellcheck disable=SC2154 # here: vmtest.sh's
		apt=$VMDIR/apt-bullseye sources=$here/bullseye.list
	fi
	# shellcheck disable=SC2154 # top: vmtest.sh's
	SYSROOT_APT=$apt SYSROOT_SOURCES=$sources "$top/scripts/sysroot.sh" "$arch" "$dir" "${META[$line]}" ||
		die "the $arch kernel ${META[$line]} (line $line) could not be fetched"
	# shellcheck disable=SC2012 # package names: no odd characters
	c=$(ls -1d "$dir"/control/linux-image-[0-9]* 2>/dev/null | sort -V | tail -n 1) ||
		die "${META[$line]} named no kernel package"
	PKG=${c##*/}
	VER=$(awk '$1 == "Version:" { print $2 }' "$c/control")
	DEB=$dir/debs/$(cat "$c/.deb")
	# shellcheck disable=SC2012 # a kernel version: no odd characters
	KVER=$(ls -1 "$dir/root/lib/modules" | sort -V | tail -n 1)
	[ -n "$KVER" ] || die "$PKG holds no lib/modules/<version>"
	if [ "$(cat "$dir/root.stamp" 2>/dev/null)" != "$(cat "$c/.deb")" ]; then
		depmod -b "$dir/root" "$KVER" || die "depmod -b $dir/root $KVER failed"
		cat "$c/.deb" >"$dir/root.stamp"
	fi
	VMLINUZ=$dir/root/boot/vmlinuz-$KVER
	[ -r "$VMLINUZ" ] || die "$VMLINUZ missing from $PKG"
}

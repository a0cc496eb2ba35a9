#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Part of netns-tests/vm/vmtest.sh, sourced by it: the pieces of the VM's
# initramfs (the userland shared by all kernels, each kernel's modules, the
# project files with the command). Uses vmtest.sh's here, top, BUILD,
# VMDIR, tmp, CMD, NONCE, KVER, die and note.
# shellcheck disable=SC2154 # globals of vmtest.sh, which sources this file

# The userland comes from this host (its programs, ldd for their libraries)
# or, for a kernel of another architecture, from a root of that
# architecture's Debian packages: UL_ROOT, made by scripts/sysroot.sh from
# the packages of this host's programs, with the libraries looked up by
# their DT_NEEDED in UL_LIB_ROOTS (UL_ROOT, then the cross build's root).
UL_ROOT=${UL_ROOT:-}
UL_TRIPLE=${UL_TRIPLE:-}
UL_LIB_ROOTS=()

declare -A COPIED=()
# copy_in STAGE SRC [DST]: copy a file (dereferenced) to the same path
copy_in() {
	local stage=$1 src=$2 dst=${3:-$2}
	[ -n "${COPIED[$stage:$dst]:-}" ] && return 0
	mkdir -p "$stage$(dirname "$dst")"
	cp -L --preserve=mode "$src" "$stage$dst"
	COPIED[$stage:$dst]=1
}

# in_root ROOT PATH: PATH with its symlinks followed inside ROOT
in_root() {
	local r=$1 p=$2 t n=0
	while [ -L "$r$p" ] && [ $n -lt 40 ]; do
		t=$(readlink "$r$p")
		case $t in /*) p=$t ;; *) p=$(dirname "$p")/$t ;; esac
		p=$(realpath -sm "$p")
		n=$((n + 1))
	done
	echo "$p"
}

# copy_libs_foreign STAGE FILE: the loader and the libraries (DT_NEEDED,
# recursively) that FILE of UL_ROOT's architecture needs, from UL_LIB_ROOTS
copy_libs_foreign() {
	local stage=$1 todo=("$2") f lib r d p q found
	while [ ${#todo[@]} -gt 0 ]; do
		f=${todo[0]}
		todo=("${todo[@]:1}")
		while read -r lib; do
			[ -n "${COPIED[$stage:so:$lib]:-}" ] && continue
			found=
			for r in "${UL_LIB_ROOTS[@]}"; do
				for d in "/lib/$UL_TRIPLE" "/usr/lib/$UL_TRIPLE" /lib /usr/lib; do
					case $lib in /*) p=$lib ;; *) p=$d/$lib ;; esac
					[ -e "$r$p" ] || [ -L "$r$p" ] || continue
					q=$r$(in_root "$r" "$p")
					copy_in "$stage" "$q" "$p"
					todo+=("$q")
					found=1
					break 2
				done
			done
			[ -n "$found" ] || die "$f needs $lib, which none of ${UL_LIB_ROOTS[*]} holds"
			COPIED[$stage:so:$lib]=1
		done < <({ readelf -lW "$f" || true; } 2>/dev/null | sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p'
			{ readelf -dW "$f" || true; } 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p')
	done
}

# copy_libs STAGE FILE: the shared libraries and the loader FILE needs
copy_libs() {
	local stage=$1 f=$2 lib out
	if [ -n "$UL_ROOT" ]; then
		copy_libs_foreign "$stage" "$f"
		return
	fi
	out=$(ldd "$f" 2>/dev/null) || return 0
	if grep -q 'not found' <<<"$out"; then
		die "$f needs libraries that are not installed: $(grep 'not found' <<<"$out" | tr -s ' \t' ' ')"
	fi
	while read -r lib; do
		copy_in "$stage" "$lib"
	done < <(awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' <<<"$out")
}

# copy_prog STAGE PATH [DST]: a program (of UL_ROOT, if set) and its libraries
copy_prog() {
	local src=$UL_ROOT$2
	[ -z "$UL_ROOT" ] || src=$UL_ROOT$(in_root "$UL_ROOT" "$2")
	copy_in "$1" "$src" "${3:-$2}"
	copy_libs "$1" "$src"
}

find_cmd() {
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin command -v "$1" 2>/dev/null
}

# find_root_cmd NAME: NAME's path in UL_ROOT; a name this host has through
# an alternative (awk) is looked for under the name it resolves to here
find_root_cmd() {
	local d n h
	for n in "$1" "$(h=$(find_cmd "$1") && basename "$(readlink -f "$h")")"; do
		[ -n "$n" ] || continue
		for d in /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin; do
			[ -f "$UL_ROOT$(in_root "$UL_ROOT" "$d/$n")" ] && echo "$d/$n" && return 0
		done
	done
	return 1
}

# host_pkg PATH: the installed package that holds this host's PATH
host_pkg() {
	local p q
	for p in "$1" "$(readlink -f "$1")"; do
		for q in "$p" "${p#/usr}" "/usr$p"; do
			dpkg -S "$q" 2>/dev/null | awk -F'[:,]' 'NR == 1 { print $1 }' | grep . && return 0
		done
	done
	return 1
}

# userland_packages: the Debian packages that hold programs.list's programs
# on this host, busybox and libxdp's dispatcher, for UL_ROOT
userland_packages() {
	local entry name p
	echo busybox-static
	echo libxdp1
	while IFS= read -r entry; do
		entry=${entry%%#*}
		read -r entry <<<"$entry" || true
		[ -n "$entry" ] || continue
		entry=${entry#\?}
		case $entry in
		pkg:*)
			name=${entry#pkg:}
			dpkg-query -W -f='${Status}' "$name" 2>/dev/null | grep -q 'ok installed' && echo "$name"
			;;
		*)
			if p=$(find_cmd "$entry"); then host_pkg "$p" || true; fi
			;;
		esac
	done <"$here/programs.list" | sort -u
}

# build_userland DIR: the part of the initramfs shared by all kernels
build_userland() {
	local s=$1 entry opt name p f g n applet d found
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
	[ -z "$UL_ROOT" ] || mkdir -p "$s/usr/lib/$UL_TRIPLE"

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
				g=$f
				[ -z "$UL_ROOT" ] || g=$(in_root "$UL_ROOT" "$f")
				[ -f "$UL_ROOT$g" ] && [ -x "$UL_ROOT$g" ] && copy_prog "$s" "$f"
			done < <(if [ -n "$UL_ROOT" ]; then cat "$UL_ROOT/../control/$name/.list"; else dpkg -L "$name"; fi |
				grep -E '/s?bin/[^/]+$')
			;;
		*)
			if [ -n "$UL_ROOT" ]; then
				p=$(find_root_cmd "$entry") || p=
			else
				p=$(find_cmd "$entry") || p=
			fi
			if [ -z "$p" ] || [ ! -e "$UL_ROOT$p" ]; then
				[ -n "$opt" ] || die "$entry not found on this host (needed inside the VM): run make deps"
				continue
			fi
			# under the name asked for (awk, not mawk)
			copy_prog "$s" "$p" "$(dirname "$p")/$entry"
			;;
		esac
	done <"$here/programs.list"

	# libxdp's dispatcher and helper programs, at the path libxdp searches.
	found=
	if [ -n "$UL_ROOT" ]; then
		while IFS= read -r f; do
			[ -f "$UL_ROOT$f" ] && copy_in "$s" "$UL_ROOT$f" "$f" && found=1
		done < <(grep -E '/bpf/[^/]+\.o$' "$UL_ROOT/../control/libxdp1/.list")
	elif dpkg-query -W -f='${Status}' libxdp1 2>/dev/null | grep -q 'ok installed'; then
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
	if [ -n "$UL_ROOT" ]; then
		mkdir -p "$s/etc/ld.so.conf.d"
		printf '/usr/local/lib/%s\n/lib/%s\n/usr/lib/%s\n' "$UL_TRIPLE" "$UL_TRIPLE" "$UL_TRIPLE" \
			>"$s/etc/ld.so.conf.d/$UL_TRIPLE.conf"
		echo 'include /etc/ld.so.conf.d/*.conf' >"$s/etc/ld.so.conf"
	elif [ -r /etc/ld.so.conf.d/x86_64-linux-gnu.conf ]; then
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
		done < <(find "$BUILD" \( -path "$VMDIR" -o -path "$BUILD/sysroot" -o -path "$BUILD/arm64" \
			-o -path "$BUILD/deb" \) -prune -o -type f \
			! -name '*.h' ! -name '*.d' ! -name '*.tmp' ! -name '*.a' \
			! -name rxlat-man ! -name '*.btf' ! -name '*.deb' \
			\( -name '*.bpf.o' -o -name xdp-dispatcher.o -o ! -name '*.o' \) -print0)
	fi
	for d in netns-tests configs; do
		[ -d "$top/$d" ] && cp -a "$top/$d" "$s/rxlat/"
	done
	# the documents rxlat-stages-test holds against the stage table
	mkdir -p "$s/rxlat/collector/cli"
	mkdir -p "$s/rxlat/docs"
	cp "$top/docs/design.md" "$s/rxlat/docs/"
	cp "$top/collector/cli/rxlat.8" "$s/rxlat/collector/cli/"
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

# build_modules LINE OUT.cpio.gz: the modules of modules.list (or of the
# list VMTEST_MODULES names) with their
# dependencies (from modules.dep and modules.softdep), decompressed, in
# load order in /etc/rxlat-vm/modules, plus depmod data for modprobe.
build_modules() {
	local line=$1 out=$2 root=$VMDIR/$1/root s=$tmp/modules-$1
	local mdir=$root/lib/modules/$KVER key n dep l name rest rel dst opt
	local list=${VMTEST_MODULES:-$here/modules.list}
	key=$( (echo "$KVER $(cat "$VMDIR/$line/root.stamp")"; cat "$list" "$here/initramfs.sh") | md5sum | cut -d' ' -f1)
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
		opt=
		case $l in "?"*) opt=1; l=${l#?} ;; esac
		n=${l//-/_}
		if [ -n "${path[$n]:-}" ]; then
			visit "$n"
		elif [ -z "${builtin[$n]:-}" ] && [ -z "$opt" ]; then
			note "warning: kernel $KVER has no module $l (${list##*/})"
		fi
	done <"$list"

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

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A root of another architecture's Debian packages, for the cross build
# (make ARCH=arm64) and for the test VM of that architecture: downloads
# PKG... and the library packages they depend on, for ARCH, from the apt
# sources this host already has, and unpacks them into DIR/root. The host's
# own packages and its dpkg state are left alone: apt runs with lists,
# cache and status of its own under DIR (no dpkg --add-architecture, no
# install).
#
#   scripts/sysroot.sh ARCH DIR PKG...
#
# Follows Depends and Pre-Depends to packages named lib* or zlib1g (the
# first of alternatives), not to -dev packages: those the caller names; and
# from a kernel metapackage to its kernel (linux-image-*). A
# package already unpacked at the same version is not unpacked again, so
# several callers can add to one root. DIR/debs keeps the downloads,
# DIR/control/PKG the control files (shlibs, symbols) of each package and
# .list, its file list. apt's own state is in DIR/apt, or in SYSROOT_APT
# (several roots can share it); its package lists are refreshed when older
# than a day. SYSROOT_SOURCES: a sources.list of its own instead of this
# host's (another Debian release: the test VM's Debian 11 kernel).

set -Eeuo pipefail
trap 'echo "sysroot: error: command failed at line $LINENO: $BASH_COMMAND" >&2' ERR

die() {
	echo "sysroot: error: $*" >&2
	exit 2
}
[ $# -ge 3 ] || die "usage: scripts/sysroot.sh ARCH DIR PKG..."
arch=$1 dir=$2
shift 2
case $arch in
arm64 | amd64 | armhf | ppc64el | s390x | riscv64) ;;
*) die "ARCH is a Debian architecture (arm64, amd64, ...), not '$arch'" ;;
esac
for c in apt-get apt-cache dpkg-deb; do
	command -v "$c" >/dev/null || die "$c not found: this needs a Debian host (package apt, dpkg)"
done
apt=${SYSROOT_APT:-$dir/apt}
mkdir -p "$dir"/{debs,root,control} "$apt"/{lists/partial,cache/archives/partial}
dir=$(cd "$dir" && pwd) apt=$(cd "$apt" && pwd)
# apt runs without its own locks here (they are the host's): a second run
# on the same root or apt state waits for the first
exec 8>"$dir/.lock" 9>"$apt/.lock"
flock 8
flock 9
touch "$apt/status"
APT=(-o "APT::Architecture=$arch" -o "APT::Architectures::=$arch"
	-o "Dir::State::Lists=$apt/lists" -o "Dir::State::Status=$apt/status"
	-o "Dir::Cache=$apt/cache" -o Debug::NoLocking=1 -q)
if [ -n "${SYSROOT_SOURCES:-}" ]; then
	[ -r "$SYSROOT_SOURCES" ] || die "SYSROOT_SOURCES: cannot read $SYSROOT_SOURCES"
	APT+=(-o "Dir::Etc::SourceList=$SYSROOT_SOURCES" -o "Dir::Etc::SourceParts=$apt/no-parts")
	mkdir -p "$apt/no-parts"
fi
# apt drops to the _apt user for downloads where it can; as root that user
# must be able to write there
[ "$(id -u)" = 0 ] && id _apt >/dev/null 2>&1 && chown -R _apt "$apt/lists/partial" "$apt/cache/archives/partial"

lists_age=$(find "$apt/lists" -maxdepth 1 -name '*_Packages*' -mmin -1440 | wc -l)
if [ "$lists_age" = 0 ]; then
	echo "sysroot: package lists for $arch" >&2
	apt-get "${APT[@]}" update -qq >&2 ||
		die "apt-get update for $arch failed: check network access and the apt sources"
fi

# the closure: the named packages, then the libraries they need
declare -A want=()
queue=("$@")
while [ ${#queue[@]} -gt 0 ]; do
	next=()
	for p in "${queue[@]}"; do want[$p]=1; done
	while read -r kind name; do
		case $kind in Depends: | PreDepends: | "|Depends:" | "|PreDepends:") ;; *) continue ;; esac
		case $name in "<"*) continue ;; esac
		name=${name%:"$arch"}
		case $name in *-dev) continue ;; lib* | zlib1g | linux-image-*) ;; *) continue ;; esac
		[ -n "${want[$name]:-}" ] || { want[$name]=1 && next+=("$name"); }
	done < <(apt-cache "${APT[@]}" depends --no-recommends --no-suggests --no-conflicts --no-breaks \
		--no-replaces --no-enhances "${queue[@]}" 2>/dev/null | awk '/^ / { print $1, $2 }')
	queue=("${next[@]}")
done

# the candidate version of each, then whatever is not downloaded yet
mapfile -t pkgs < <(printf '%s\n' "${!want[@]}" | sort)
declare -A ver=()
while read -r p v; do ver[$p]=$v; done < <(apt-cache "${APT[@]}" policy "${pkgs[@]}" 2>/dev/null |
	awk '/^[^ ]/ { sub(":$", "", $1); p = $1 } $1 == "Candidate:" { print p, $2 }')
missing=() files=()
for p in "${pkgs[@]}"; do
	v=${ver[$p]:-}
	if [ -z "$v" ] || [ "$v" = "(none)" ]; then die "package $p has no $arch version in the apt sources"; fi
	f=$dir/debs/${p}_${v//:/%3a}_$arch.deb
	[ -s "${f%_"$arch".deb}_all.deb" ] && f=${f%_"$arch".deb}_all.deb
	[ -s "$f" ] || missing+=("$p=$v")
	files+=("$p $f")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "sysroot: downloading ${#missing[@]} $arch packages" >&2
	(cd "$dir/debs" && apt-get "${APT[@]}" download "${missing[@]}" >/dev/null 2>&1) ||
		die "apt-get download of ${missing[*]} ($arch) failed: check network access and the apt sources"
fi

# unpack what changed
n=0
for pf in "${files[@]}"; do
	p=${pf%% *} f=${pf#* }
	[ -s "$f" ] || f=${f%_"$arch".deb}_all.deb
	[ -s "$f" ] || die "$p was not downloaded"
	[ "$(cat "$dir/control/$p/.deb" 2>/dev/null)" = "${f##*/}" ] && continue
	dpkg-deb -x "$f" "$dir/root" || die "dpkg-deb -x $f failed: delete it and run again"
	rm -rf "$dir/control/$p" && mkdir -p "$dir/control/$p"
	dpkg-deb -e "$f" "$dir/control/$p"
	dpkg-deb --fsys-tarfile "$f" | tar -t | sed -e 's|^\.||' >"$dir/control/$p/.list"
	echo "${f##*/}" >"$dir/control/$p/.deb"
	n=$((n + 1))
done
[ "$n" = 0 ] || echo "sysroot: $n $arch packages unpacked into $dir/root" >&2

# Links to an absolute path (zlib1g-dev's libz.so -> /lib/...) point into
# this host from here: made relative, they stay inside the root, where the
# linker and the test VM's userland look
while IFS= read -r -d '' l; do
	t=$(readlink "$l")
	ln -sfn "$(realpath -m --relative-to="$(dirname "$l")" "$dir/root$t")" "$l"
done < <(find "$dir/root" -type l -lname '/*' -print0)

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make image: the container image of rxlat as a Prometheus exporter, made
# offline from Debian's archive, no image registry needed.
#
# usage: scripts/image.sh DEB IMAGE
#
# mmdebstrap makes a Debian 12 root (variant essential) with the package
# DEB installed by apt, which brings its libraries. The image keeps only
# what rxlat runs with: the package's files (rxlat-heatmap among them,
# whose libraries are rxlat's too), the libraries ldd names and
# the links that lead to them, with the copyright files of the packages
# they come from. No shell, no package manager: nothing the exporter
# does not run. configs/Containerfile puts that root into an image FROM
# scratch, built with podman.
#
# Environment: MIRROR (default: Debian's), TMPDIR (the work directory is
# made there and removed on every exit).

set -euo pipefail

if (($# != 2)); then
	echo "usage: $0 DEB IMAGE" >&2
	exit 2
fi
deb=$(realpath -e "$1")
image=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
for c in mmdebstrap podman; do
	command -v "$c" >/dev/null || {
		echo "error: $c not found; run 'make deps'" >&2
		exit 1
	}
done

# The root is made by installing the package (its scripts run here) and
# reading rxlat's libraries with ldd: a package of this host's architecture.
arch=$(dpkg-deb -f "$deb" Architecture)
if [[ $arch != "$(dpkg --print-architecture)" ]]; then
	echo "error: ${deb##*/} is for $arch: make its image on a machine of that architecture (make image there)" >&2
	exit 1
fi

work=$(mktemp -d -t rxlat-image.XXXXXX)
# never across a mount: mmdebstrap's, in its root, while it undoes them
trap 'rm -rf --one-file-system "$work"' EXIT
full=$work/full slim=$work/slim

# file-mirror-automount makes the local .deb visible inside the root
# while apt installs it (and unmounts it afterwards); mmdebstrap's own
# temporary directory goes under $work too.
TMPDIR=$work mmdebstrap --quiet --variant=essential --include="$deb" \
	--hook-dir=/usr/share/mmdebstrap/hooks/file-mirror-automount \
	--dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
	bookworm "$full" ${MIRROR:+"$MIRROR"}

# add PATH: the file, each directory made canonical inside the root, and
# every symbolic link on the way to the file, the link as it is.
add()	# PATH
{
	local p=$1 d t
	while [[ -n $p ]]; do
		d=$(chroot "$full" realpath "$(dirname "$p")")
		p=${d%/}/$(basename "$p")
		mkdir -p "$slim$d"
		cp -a "$full$p" "$slim$p"
		if [[ -L $full$p ]]; then
			t=$(readlink "$full$p")
			[[ $t == /* ]] || t=$d/$t
			p=$t
		else
			p=
		fi
	done
}

mkdir -p "$slim"
# the merged /usr: /lib64 -> usr/lib64 and the like, so that the
# interpreter's path in rxlat (/lib64/ld-linux-x86-64.so.2) resolves
for l in bin sbin lib lib32 lib64 libx32; do
	[[ -L $full/$l ]] && cp -a "$full/$l" "$slim/$l"
done
# (the man page is left out: path-exclude above)
while read -r f; do
	[[ -e $full$f || -L $full$f ]] || continue
	[[ -d $full$f ]] || add "$f" # directories come with their files
done < <(chroot "$full" dpkg -L rxlat | grep '^/.')
libs=$(chroot "$full" ldd /usr/sbin/rxlat | awk '$2 == "=>" { print $3 } $1 ~ /^\// { print $1 }')
pkgs=(rxlat)
for f in $libs; do
	add "$f"
	# the package a library comes from, for its copyright file; dpkg
	# knows some under /lib, others under /usr/lib
	owner=$(chroot "$full" dpkg -S "$f" 2>/dev/null ||
		chroot "$full" dpkg -S "$(chroot "$full" realpath "$f")" 2>/dev/null || true)
	pkgs+=("${owner%%:*}")
done
for p in $(printf '%s\n' "${pkgs[@]}" | sort -u); do
	[[ -e $full/usr/share/doc/$p/copyright ]] && add "/usr/share/doc/$p/copyright"
done
add /etc/ld.so.cache
mkdir -p "$slim"/{proc,sys,dev,tmp,run,etc}
chmod 1777 "$slim/tmp"

# one tarball, in name order with the package's own time: the same
# inputs give the same layer
epoch=$(stat -c %Y "$full/usr/sbin/rxlat")
tar -C "$slim" --sort=name --mtime="@$epoch" --numeric-owner -cf "$work/rootfs.tar" .
cp "$here/configs/Containerfile" "$work/Containerfile"
# the image's config names the architecture of the package it was made from
podman build --quiet --no-cache --arch "$arch" -f "$work/Containerfile" -t "$image" \
	--label "org.opencontainers.image.version=$(dpkg-deb -f "$deb" Version)" "$work" >/dev/null
echo "$image: $(podman image inspect --format '{{.Size}}' "$image") bytes"

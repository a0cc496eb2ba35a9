#!/bin/sh
# Installs the Debian 12 packages that building, testing and the demo need.
# Idempotent: packages already present are not fetched again.
set -eu

PKGS="make clang llvm gcc libc6-dev pkg-config bpftool libbpf-dev libxdp-dev \
xdp-tools libpcap-dev libjson-c-dev libargtable2-dev libmnl-dev libcap-dev \
iproute2 util-linux nftables gojq iperf3 ethtool clang-format cppcheck shellcheck \
qemu-system-x86 qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross busybox-static cpio kmod xz-utils procps libmicrohttpd-dev \
libyaml-dev libgnutls28-dev libcrypt-dev openssl apache2-utils \
prometheus protobuf-compiler curl systemd bpftrace \
dpkg-dev debhelper lintian mmdebstrap podman runc libxml2-utils chromium"
# kubectl (the DaemonSet's offline check): Debian's kubernetes-client,
# unless a kubectl is installed already (its files would clash)
command -v kubectl >/dev/null 2>&1 || PKGS="$PKGS kubernetes-client"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "error: packages missing:$missing; run 'make deps' as root" >&2
	exit 1
fi
echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
# The tests run a Prometheus server of their own on a namespace's loopback,
# and promtool: the service the package starts on port 9090 is not wanted.
case " $missing " in
*" prometheus "*)
	if [ -d /run/systemd/system ]; then
		systemctl disable --now prometheus.service >/dev/null 2>&1 || true
	fi
	;;
esac

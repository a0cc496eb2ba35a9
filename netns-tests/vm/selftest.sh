#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Checks inside the test VM that the kernel features the suite relies on
# work there: BPF trampolines (fentry/fexit), libxdp's multi-program
# dispatcher (freplace) in skb and native mode, tc clsact with cls_bpf,
# nftables, network namespaces over veth, BTF, tracefs, bpffs, cgroup v2.
#   netns-tests/vm/vmtest.sh -- ./netns-tests/vm/selftest.sh
# Prints lib.sh's verdict lines ("PASS name", "FAIL name: reason",
# "SKIP name: reason") and "N passed, M failed, K skipped".
# It changes lo and global nftables state, so it refuses to run outside the
# VM unless SELFTEST_ON_HOST=1 (where the trampoline checks then fail).

if [ -z "${RXLAT_VM:-}" ] && [ -z "${SELFTEST_ON_HOST:-}" ]; then
	echo "selftest.sh: meant for the test VM (vmtest.sh -- ./netns-tests/vm/selftest.sh); set SELFTEST_ON_HOST=1 to force" >&2
	exit 2
fi
cd "$(dirname "$0")/../.." || exit 1
. netns-tests/lib.sh
B=$BUILD
XDP_OBJ=${XDP_OBJ:-$B/rxlat_xdp.bpf.o}
out=

# indent TEXT: TEXT's lines, indented under a verdict line
indent() {
	local l
	while IFS= read -r l; do printf '    %s\n' "$l"; done <<<"$1"
}

# check NAME COMMAND...: PASS when COMMAND succeeds, else FAIL followed by
# its output (shown on PASS too when SHOW=1)
check() {
	local name=$1
	shift
	if out=$("$@" 2>&1); then
		pass "$name"
		[ -n "${SHOW:-}" ] && [ -n "$out" ] && indent "$out"
	else
		fail "$name" "'$*' failed"
		[ -n "$out" ] && indent "$out"
	fi
	out=
}

cleanup() {
	xdp-loader unload --all lo >/dev/null 2>&1
	ip link del vmt0 >/dev/null 2>&1
	ip netns del vmt >/dev/null 2>&1
	nft delete table inet rxlat_vmtest >/dev/null 2>&1
	[ -n "${T_RESULTS:-}" ] && rm -f "$T_RESULTS"
}
trap cleanup EXIT
cleanup
# lib.sh's pass/fail/skip append P, F or S here: the counts of the last line
T_RESULTS=$(mktemp /tmp/rxlat-selftest.XXXXXX) || exit 1

xdp_version() { xdp-loader status --version 2>/dev/null | awk '{ print $3; exit }'; }

echo "kernel $(uname -r), xdp-tools $(xdp_version)"

check btf test -r /sys/kernel/btf/vmlinux
check bpffs grep -q ' /sys/fs/bpf bpf ' /proc/mounts
check tracefs test -e /sys/kernel/tracing/trace
check cgroup2 grep -q ' cgroup2 ' /proc/mounts

if [ -x "$B/vmcheck/fentry_check" ]; then
	SHOW=1 check fentry_fexit_attach "$B/vmcheck/fentry_check" "$B/vmcheck/fentry_check.bpf.o"
else
	fail fentry_fexit_attach "$B/vmcheck/fentry_check missing: run make vmcheck"
fi

probe=$(bpftool feature probe kernel 2>/dev/null)
for t in tracing ext xdp sched_cls cgroup_skb; do
	if grep -q "program_type $t is available" <<<"$probe"; then
		pass "probe_prog_type_$t"
	else
		fail "probe_prog_type_$t" "bpftool feature probe does not report it"
	fi
done

# libxdp dispatcher (needs freplace): two programs at once on one interface.
# libxdp's own pass-all filter program does not change packet data, so it
# shows whether the dispatcher itself works on this kernel.
XDP_PASSALL=${XDP_PASSALL:-/usr/lib/x86_64-linux-gnu/bpf/xdpfilt_alw_all.o}
xdp_dispatcher() { # xdp_dispatcher DEV MODE OBJ1 OBJ2
	local st
	xdp-loader load -m "$2" "$1" "$3" || return 1
	xdp-loader load -m "$2" "$1" "$4" || return 1
	st=$(xdp-loader status "$1") || return 1
	echo "$st" | grep -E 'xdp_dispatcher|=>'
	grep -q 'xdp_dispatcher' <<<"$st" || { echo "no xdp_dispatcher on $1"; return 1; }
	[ "$(grep -c '=>' <<<"$st")" -ge 2 ] || { echo "fewer than two programs under the dispatcher"; return 1; }
	xdp-loader unload --all "$1"
}
# Direct attach without the dispatcher (the fallback when it is refused).
xdp_direct() { # xdp_direct DEV MODE OBJ
	LIBXDP_SKIP_DISPATCHER=1 xdp-loader load -m "$2" "$1" "$3" || return 1
	ip link show dev "$1" | grep -E 'prog/xdp' || { echo "no XDP program on $1"; return 1; }
	xdp-loader unload --all "$1"
}
veth_up() {
	ip link del vmt0 2>/dev/null
	ip link add vmt0 type veth peer name vmt1 && ip link set vmt0 up && ip link set vmt1 up
}
if [ -r "$XDP_PASSALL" ]; then
	SHOW=1 check xdp_dispatcher_skb_lo xdp_dispatcher lo skb "$XDP_PASSALL" "$XDP_PASSALL"
	veth_up && SHOW=1 check xdp_dispatcher_native_veth xdp_dispatcher vmt0 native "$XDP_PASSALL" "$XDP_PASSALL"
else
	fail xdp_dispatcher "$XDP_PASSALL missing (package libxdp1)"
fi
if [ -r "$XDP_OBJ" ]; then
	veth_up && check xdp_rxlat_direct_native_veth xdp_direct vmt0 native "$XDP_OBJ"
	check xdp_rxlat_direct_skb_lo xdp_direct lo skb "$XDP_OBJ"
	# rxlat's stamper calls bpf_xdp_adjust_meta(). Kernels with the
	# "changes_pkt_data" check for extension programs (6.13, and 6.12.y
	# stable) refuse it as a replacement of the slots of libxdp's dispatcher
	# before xdp-tools 1.5.5 (xdp-tools PR #509); Debian 12 ships 1.3.1.
	veth_up
	if out=$(xdp_dispatcher vmt0 native "$XDP_PASSALL" "$XDP_OBJ" 2>&1); then
		pass xdp_rxlat_in_dispatcher
	elif xdp-loader unload --all vmt0 >/dev/null 2>&1; xdp-loader load -m native vmt0 "$XDP_PASSALL" >/dev/null 2>&1 &&
		xdp-loader load -vv -m native vmt0 "$XDP_OBJ" 2>&1 | grep -q 'changes packet data'; then
		skip xdp_rxlat_in_dispatcher "this kernel refuses a packet-changing program in the dispatcher of xdp-tools $(xdp_version) (\"Extension program changes packet data, while original does not\", fixed in xdp-tools 1.5); rxlat attaches directly instead"
	else
		fail xdp_rxlat_in_dispatcher "xdp-loader failed"
		[ -n "$out" ] && indent "$out"
	fi
	out=
	xdp-loader unload --all vmt0 >/dev/null 2>&1
	ip link del vmt0 2>/dev/null
else
	fail xdp_rxlat "$XDP_OBJ missing: run make"
fi

tc_clsact() {
	ip link add vmt0 type veth peer name vmt1 &&
		tc qdisc add dev vmt0 clsact &&
		tc filter add dev vmt0 ingress bpf bytecode '1,6 0 0 4294967295,' classid 1:1 &&
		tc filter show dev vmt0 ingress | grep -q bpf &&
		ip link del vmt0
}
check tc_clsact_cls_bpf tc_clsact

nft_rules() {
	nft -f - <<-EOF || return 1
		table inet rxlat_vmtest {
			chain input {
				type filter hook input priority 0; policy accept;
				ct state established,related accept
				iifname "lo" accept
				tcp dport 5201 counter accept
				udp dport 9 limit rate 10/second counter drop
				meta l4proto icmp reject
			}
		}
	EOF
	nft list table inet rxlat_vmtest | grep -q 'dport 5201' &&
		nft delete table inet rxlat_vmtest
}
check nftables_inet_filter nft_rules

netns_veth() {
	ip netns add vmt &&
		ip link add vmt0 type veth peer name vmt1 netns vmt &&
		ip addr add 10.199.0.1/24 dev vmt0 && ip link set vmt0 up &&
		ip -n vmt addr add 10.199.0.2/24 dev vmt1 && ip -n vmt link set vmt1 up &&
		ip -n vmt link set lo up &&
		ping -c 2 -W 2 10.199.0.2 &&
		ip netns exec vmt ping -c 1 -W 2 10.199.0.1 &&
		nsenter --net=/run/netns/vmt ip -br addr show vmt1 &&
		ip link del vmt0 && ip netns del vmt
}
check netns_veth_ping netns_veth

passed=$(grep -cx P "$T_RESULTS")
failed=$(grep -cx F "$T_RESULTS")
skipped=$(grep -cx S "$T_RESULTS")
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]

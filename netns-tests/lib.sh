#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Shared runner for the netns tests. A test file sources this, defines test
# functions and calls
#
#	suite_begin
#	run_test NAME FUNCTION [ARGS...]   (as often as needed)
#	suite_end
#
# Every test function runs in its own subshell, with its own network
# namespaces and a cleanup that always runs (EXIT trap, also reached from
# INT/TERM, from an error exit and from the watchdog), removing what the
# test made: processes, XDP programs, qdiscs, namespaces, pins, temp files.
# Everything a test creates carries the name prefix rxlat-t<pid>, pid being
# the test subshell's, so parallel runs never clash and leftovers of a dead
# test can be recognised and swept.
#
# Reporting: every check prints exactly one line, "PASS <name>",
# "FAIL <name>: <reason>" or "SKIP <name>: <reason>". Lines starting with
# "#" are comments. A SKIP is counted apart and is never a pass: it is for
# a check this kernel or these tools cannot run for a known, named reason.
# A missing prerequisite of the project itself is a FAIL, never a skip.
#
# Tools used: bash, iproute2 (ip, tc), nsenter, xdp-loader, bpftool, gojq and
# the basic utilities busybox provides (awk, grep, mktemp, mount, sleep...).
#
# Environment:
#	RXLAT_TEST_FILTER   extended regex; only tests whose name matches run
#	RXLAT_TEST_TIMEOUT  seconds before a test is killed (default 300)

RXLAT_ROOT=${RXLAT_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BUILD=${BUILD:-$RXLAT_ROOT/build}
case $BUILD in /*) ;; *) BUILD=$RXLAT_ROOT/$BUILD ;; esac
RXLAT_T_PREFIX=rxlat-t
RXLAT_BPFFS=/sys/fs/bpf
export RXLAT_ROOT BUILD RXLAT_BPFFS

# ---------------------------------------------------------------- reporting

_t_fullname()
{
	if [[ -n ${T_NAME:-} ]]; then
		printf '%s.%s' "$T_NAME" "$1"
	else
		printf '%s' "$1"
	fi
}

pass()
{
	echo "PASS $(_t_fullname "$1")"
	[[ -n ${T_RESULTS:-} ]] && echo P >>"$T_RESULTS"
	return 0
}

# fail NAME REASON...
fail()
{
	local name=$1
	shift
	# one line, whatever the reason contains
	local why="$*"
	why=${why//$'\n'/ | }
	echo "FAIL $(_t_fullname "$name"): ${why:-failed}"
	[[ -n ${T_RESULTS:-} ]] && echo F >>"$T_RESULTS"
	return 1
}

# skip NAME REASON...: the check did not run; REASON says why.
skip()
{
	local name=$1
	shift
	local why="$*"
	why=${why//$'\n'/ | }
	echo "SKIP $(_t_fullname "$name"): ${why:-no reason given}"
	[[ -n ${T_RESULTS:-} ]] && echo S >>"$T_RESULTS"
	return 0
}

log()
{
	echo "# $*"
}

# A test of user space alone (option parsing, signals, report formats): the
# same code on every kernel. Under QEMU a SKIP that names WHAT, and true: the
# host run covers it, and under emulation it would take minutes of the time
# each kernel has.
host_only()	# WHAT
{
	[[ -n ${RXLAT_VM:-} ]] || return 1
	skip user_space_only "$*, the same code on every kernel: the host run covers it"
}

# one_vm_kernel LINE FUNCTION [ARGS...]: FUNCTION, except under QEMU on a
# kernel line other than LINE (6.1, 6.12, or both: every line), where a SKIP
# says which line runs it. Each
# emulated kernel takes most of a run's time, so a case whose path is the
# same on Debian's 6.1 and 6.12 runs on one of them (group slots, slow
# records, filters, names, overlays, pods: user space and the hooks' common
# code); what differs between the two runs on both (the stamp read and the
# exact counts, tc attach (tcx on 6.12), the dispatcher, capabilities, the
# kernel's own stamps and drop reasons, SIGKILL clean-up). The host run
# runs every case.
one_vm_kernel()	# LINE[,LINE...]|both FN [ARGS...]
{
	local line=$1 here=${RXLAT_VM_LINE:-}
	shift
	# arm64's 6.12 runs the files that make test leaves out of x86-64's
	# 6.12 (RXLAT_VM_PROVEN_ELSEWHERE): their 6.12 cases with them
	[[ $here == arm64-6.12 ]] && here=6.12
	if [[ -n ${RXLAT_VM:-} && $line != both && ",$line," != *",$here,"* ]]; then
		skip other_vm_kernel "the same path on 6.1 and 6.12 with the fentry set: the $line kernel's run proves it"
		return 0
	fi
	"$@"
}

# whether this kernel's BPF has helper NAME (BPF_FUNC_...), by its BTF, as rxlat finds it
kernel_has_helper()	# NAME
{
	bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null | grep -q "'$1' val="
}

# ---------------------------------------------------------------- assertions
# All return 0 on PASS and 1 on FAIL, so that a test can "|| return 1".

assert_eq()	# NAME EXPECTED ACTUAL [WHAT]
{
	if [[ "$3" == "$2" ]]; then
		pass "$1"
	else
		fail "$1" "${4:+$4: }got '$3', want '$2'"
	fi
}

assert_ne()	# NAME UNWANTED ACTUAL [WHAT]
{
	if [[ "$3" != "$2" ]]; then
		pass "$1"
	else
		fail "$1" "${4:+$4: }got '$3', which it must not be"
	fi
}

_t_is_int()
{
	[[ $1 =~ ^-?[0-9]+$ ]]
}

assert_ge()	# NAME MIN ACTUAL [WHAT]
{
	if _t_is_int "$3" && _t_is_int "$2" && (($3 >= $2)); then
		pass "$1"
	else
		fail "$1" "${4:+$4: }got '$3', want at least $2"
	fi
}

assert_le()	# NAME MAX ACTUAL [WHAT]
{
	if _t_is_int "$3" && _t_is_int "$2" && (($3 <= $2)); then
		pass "$1"
	else
		fail "$1" "${4:+$4: }got '$3', want at most $2"
	fi
}

assert_match()	# NAME ERE STRING [WHAT]
{
	if [[ $3 =~ $2 ]]; then
		pass "$1"
	else
		fail "$1" "${4:+$4: }'$3' does not match /$2/"
	fi
}

assert_true()	# NAME REASON-IF-FALSE CMD...
{
	local name=$1 why=$2
	shift 2
	if "$@"; then
		pass "$name"
	else
		fail "$name" "$why"
	fi
}

# Runs CMD, PASS iff it exits 0; the FAIL line carries its last output line.
assert_cmd()	# NAME CMD...
{
	local name=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	if ((rc == 0)); then
		pass "$name"
	else
		fail "$name" "'$*' exited $rc: $(tail -n 1 <<<"$out")"
	fi
}

# The machine an ELF file is for, as readelf -h names it ("AArch64",
# "Linux BPF", "Advanced Micro Devices X86-64"); empty for a file that is
# no ELF
elf_machine()	# FILE
{
	readelf -h "$1" 2>/dev/null | awk -F': *' '$1 ~ /Machine/ { print $2 }'
}

# Prerequisites: FAIL (never PASS, never a skip) when something is missing.
require_cmd()	# NAME CMD...
{
	local name=$1 c missing=()
	shift
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || missing+=("$c")
	done
	((${#missing[@]} == 0)) && return 0
	fail "$name" "required command(s) not found: ${missing[*]}; run 'make deps'"
}

require_file()	# NAME PATH [HINT]
{
	[[ -e $2 ]] && return 0
	fail "$1" "$2 is missing${3:+; $3}"
}

# ---------------------------------------------------------------- bpffs

# Mount point of the first bpf filesystem in this mount namespace. Read from
# mountinfo: fixed paths lie under "ip netns exec", which remounts /sys.
bpffs_find()
{
	awk '{ for (i = 7; i <= NF; i++) if ($i == "-") { if ($(i + 1) == "bpf") { print $5; exit } break } }' \
		/proc/self/mountinfo
}

_bpffs_is_mounted()	# PATH
{
	awk -v p="$1" '{ for (i = 7; i <= NF; i++) if ($i == "-") { if ($(i + 1) == "bpf" && $5 == p) f = 1; break } } END { exit !f }' \
		/proc/self/mountinfo
}

# Makes /sys/fs/bpf a bpffs for the run; remembers whether it mounted it.
bpffs_setup()
{
	# libxdp (xdp-loader) makes its lock directory xdp/ there and never
	# removes it: bpffs_teardown does, when it was not there before
	[[ -e $RXLAT_BPFFS/xdp || -n ${RXLAT_XDP_LOCK_DIR_BY:-} ]] || export RXLAT_XDP_LOCK_DIR_BY=$$
	if _bpffs_is_mounted "$RXLAT_BPFFS"; then
		return 0
	fi
	if ! mkdir -p "$RXLAT_BPFFS" || ! mount -t bpf bpf "$RXLAT_BPFFS"; then
		echo "error: cannot mount a bpf filesystem on $RXLAT_BPFFS" >&2
		return 1
	fi
	export RXLAT_BPFFS_MOUNTED_BY=$$
}

bpffs_teardown()
{
	if [[ ${RXLAT_XDP_LOCK_DIR_BY:-} == "$$" ]]; then
		rmdir "$RXLAT_BPFFS/xdp" 2>/dev/null # empty unless something is left pinned
		unset RXLAT_XDP_LOCK_DIR_BY
	fi
	[[ ${RXLAT_BPFFS_MOUNTED_BY:-} == "$$" ]] || return 0
	umount "$RXLAT_BPFFS" && unset RXLAT_BPFFS_MOUNTED_BY
}

# ---------------------------------------------------------------- namespaces

# nsenter, not "ip netns exec": the latter mounts a fresh /sys without the
# bpffs, and pinned objects must be shared with the host view.
in_ns()	# NS CMD...
{
	local ns=$1
	shift
	nsenter --net="/run/netns/$ns" -- "$@"
}

# For sysfs: under nsenter /sys/class/net still shows the namespace the
# sysfs was mounted in; "ip netns exec" remounts it for NS.
ns_sysfs_write()	# NS PATH VALUE
{
	ip netns exec "$1" sh -c 'echo "$2" > "$1"' sh "$2" "$3"
}

ns_sysfs_read()	# NS PATH
{
	ip netns exec "$1" cat "$2"
}

# veth's own count of frames it ran through XDP, "Q N" per receive queue
# (rx_queue_Q_xdp_packets in ethtool -S): what a stamper saw, counted by the
# driver rather than by a tracepoint.
veth_xdp_queues()	# NS IF
{
	in_ns "$1" ethtool -S "$2" |
		awk -F'[_:]' '/rx_queue_[0-9]+_xdp_packets:/ { gsub(/ /, "", $NF); print $3, $NF }'
}

# [{"n":N,"q":Q}...] of the queues whose count grew between two snapshots of
# veth_xdp_queues, in queue order; keys as gojq -c prints them (sorted)
queue_delta()	# BEFORE-FILE AFTER-FILE
{
	awk 'NR == FNR { b[$1] = $2; next }
		{ d = $2 - b[$1]; if (d) printf "%s{\"n\":%d,\"q\":%d}", (n++ ? "," : "["), d, $1 }
		END { print n ? "]" : "[]" }' "$1" "$2"
}

# The same from rxlat's JSON reports in FILE: FIELD of the stamper rows of
# one ifindex, summed per queue, the queues where it is not 0
rxlat_queue_counts()	# FILE IFINDEX FIELD
{
	gojq -sc --argjson i "$2" "[.[].xdp[]? | select(.ifindex == \$i)]
		| group_by(.queue) | map({q: .[0].queue, n: (map(.$3) | add)})
		| map(select(.n > 0))" "$1"
}

_t_link_json()	# NS IF
{
	ip -n "$1" -j link show dev "$2"
}

link_mac()	# NS IF
{
	_t_link_json "$1" "$2" | gojq -r '.[0].address'
}

link_ifindex()	# NS IF
{
	_t_link_json "$1" "$2" | gojq -r '.[0].ifindex'
}

# Prints the id of the XDP program attached to IF, nothing when none.
link_xdp_prog()	# NS IF
{
	_t_link_json "$1" "$2" |
		gojq -r '.[0].xdp | if . == null then empty else (.prog.id // (.attached[]?.prog.id) // "attached") end' |
		head -n 1
}

# Sum of rx+tx packets of IF, to see when a link has gone quiet.
_t_link_packets()	# NS IF
{
	ip -n "$1" -s -j link show dev "$2" |
		gojq -r '.[0].stats64 | (.rx.packets + .tx.packets)'
}

# Creates a namespace of this test and registers it for cleanup.
ns_create()	# VAR-NAME
{
	local name="${T_PREFIX}-$((++T_NS_SEQ))"
	ip netns add "$name" || return 1
	T_NETNS+=("$name")
	printf -v "$1" '%s' "$name"
	# Quiet IPv6: no link-local address (no DAD, no router solicitations)
	# and MLD reports sent at once rather than over the next second, so
	# that counters of a test see only the test's own packets.
	in_ns "$name" sysctl -q -w net.ipv6.conf.default.addr_gen_mode=1 \
		net.ipv6.conf.default.router_solicitations=0 \
		net.ipv6.conf.default.mldv1_unsolicited_report_interval=0 \
		net.ipv6.conf.default.mldv2_unsolicited_report_interval=0 >/dev/null &&
		ip -n "$name" link set lo up
}

# ns_pair: two namespaces joined by a 4-queue veth pair, addressed and up.
# Sets NS_A NS_B IF_A IF_B MAC_A MAC_B IFINDEX_A IFINDEX_B IP4_A IP4_B IP6_A
# IP6_B. Returns when the links have gone quiet (IPv6 MLD reports done).
ns_pair()
{
	local ns i stable=0 last=-1 now
	ns_create NS_A && ns_create NS_B || return 1
	IF_A=veth0 IF_B=veth1
	IP4_A=10.11.0.1 IP4_B=10.11.0.2 IP6_A=fd11::1 IP6_B=fd11::2
	ip -n "$NS_A" link add "$IF_A" numrxqueues 4 numtxqueues 4 type veth \
		peer name "$IF_B" netns "$NS_B" numrxqueues 4 numtxqueues 4 || return 1
	ip -n "$NS_A" addr add "$IP4_A/24" dev "$IF_A" &&
		ip -n "$NS_B" addr add "$IP4_B/24" dev "$IF_B" &&
		ip -n "$NS_A" addr add "$IP6_A/64" dev "$IF_A" nodad &&
		ip -n "$NS_B" addr add "$IP6_B/64" dev "$IF_B" nodad &&
		ip -n "$NS_A" link set "$IF_A" up &&
		ip -n "$NS_B" link set "$IF_B" up || return 1
	MAC_A=$(link_mac "$NS_A" "$IF_A") MAC_B=$(link_mac "$NS_B" "$IF_B")
	# Static neighbours: no ARP/NDP exchange (say, for an ICMP error the
	# receiver sends back) ever adds packets to a test's exact counts.
	ip -n "$NS_A" neigh replace "$IP4_B" lladdr "$MAC_B" dev "$IF_A" nud permanent &&
		ip -n "$NS_A" neigh replace "$IP6_B" lladdr "$MAC_B" dev "$IF_A" nud permanent &&
		ip -n "$NS_B" neigh replace "$IP4_A" lladdr "$MAC_A" dev "$IF_B" nud permanent &&
		ip -n "$NS_B" neigh replace "$IP6_A" lladdr "$MAC_A" dev "$IF_B" nud permanent ||
		return 1
	IFINDEX_A=$(link_ifindex "$NS_A" "$IF_A") IFINDEX_B=$(link_ifindex "$NS_B" "$IF_B")
	export NS_A NS_B IF_A IF_B MAC_A MAC_B IFINDEX_A IFINDEX_B IP4_A IP4_B IP6_A IP6_B

	for ((i = 0; i < 50 && stable < 3; i++)); do
		sleep 0.1
		now=$(($(_t_link_packets "$NS_A" "$IF_A") + $(_t_link_packets "$NS_B" "$IF_B")))
		if ((now == last)); then
			((stable++))
		else
			stable=0 last=$now
		fi
	done
}

# ---------------------------------------------------------------- resources

t_track_pid()	{ T_PIDS+=("$1"); }
t_track_pin()	{ T_PINS+=("$1"); }
t_track_xdp()	{ T_XDP+=("$1|$2"); }
t_track_qdisc()	{ T_QDISC+=("$1|$2|$3"); }	# NS IF root|clsact|ingress

# Prints a pin directory of this test on the bpffs. The cleanup removes
# every $RXLAT_BPFFS/$T_PREFIX-*, so this also works from $(...), where the
# registration itself is lost with the command substitution's subshell.
t_pin_dir()	# NAME
{
	local d="$RXLAT_BPFFS/${T_PREFIX}-$1"
	t_track_pin "$d"
	printf '%s' "$d"
}

# Starts CMD in the background with output in $T_DIR/NAME.out/.err and
# registers it; BG_PID is its pid.
t_bg()	# NAME CMD...
{
	local name=$1
	shift
	# A shell function would run in a forked shell whose death leaves the
	# real command running: call nsenter directly, which execs CMD, so
	# that BG_PID is CMD itself.
	if [[ $1 == in_ns ]]; then
		set -- nsenter --net="/run/netns/$2" -- "${@:3}"
	fi
	"$@" >"$T_DIR/$name.out" 2>"$T_DIR/$name.err" &
	BG_PID=$!
	t_track_pid "$BG_PID"
}

# Waits until FILE has a line matching ERE; 1 on timeout or if PID died.
t_wait_line()	# FILE ERE TIMEOUT-SECONDS [PID]
{
	local i n=$(($3 * 20))
	for ((i = 0; i < n; i++)); do
		grep -Eq -- "$2" "$1" 2>/dev/null && return 0
		[[ -n ${4:-} ]] && ! kill -0 "$4" 2>/dev/null && {
			grep -Eq -- "$2" "$1" 2>/dev/null
			return
		}
		sleep 0.05
	done
	return 1
}

# Waits for a background PID of this test; its exit status, 124 on timeout.
t_wait_pid()	# PID TIMEOUT-SECONDS
{
	local i n=$(($2 * 20))
	for ((i = 0; i < n; i++)); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.05
	done
	kill -0 "$1" 2>/dev/null && return 124
	wait "$1"
}

# xdp-loader under nsenter so that -p PIN resolves on the host's bpffs.
# Prints xdp-loader's last lines on failure. Call it directly, not from
# $(...), so that the registration stays (the cleanup also unloads XDP from
# every link of the test's namespaces, whatever registered it).
# Where libxdp's dispatcher refuses the program (xdp_dispatcher_refuses),
# loads it again without the dispatcher and says so in a comment.
t_xdp_load()	# NS IF MODE OBJECT PIN-DIR
{
	local out
	case $(basename "$4") in rxlat_xdp.bpf.o | old_stamper.bpf.o) need_xdp_stamp ;; esac
	t_track_xdp "$1" "$2"
	out=$(in_ns "$1" xdp-loader load -m "$3" -p "$5" "$2" "$4" 2>&1) && return 0
	if xdp_dispatcher_refuses "$@"; then
		log "libxdp's dispatcher refuses a program that changes packet data on $(uname -r); loading it without the dispatcher"
		out=$(in_ns "$1" env LIBXDP_SKIP_DISPATCHER=1 xdp-loader load -m "$3" -p "$5" "$2" "$4" 2>&1) &&
			return 0
	fi
	echo "$out" | tail -n 3
	return 1
}

# True when xdp-loader failed because libxdp's dispatcher refused a program
# that changes packet data (bpf_xdp_adjust_meta does): kernels from 6.12.y
# on check this for extensions, and the dispatcher of libxdp before 1.5
# does not declare it. Direct attach works there.
xdp_dispatcher_refuses()	# NS IF MODE OBJECT PIN-DIR
{
	local out
	# all of its output first: xdp-loader killed by SIGPIPE (grep -q) would
	# leave its lock file behind, and every later xdp-loader fails on it
	out=$(in_ns "$1" xdp-loader load -vv -m "$3" -p "$5" "$2" "$4" 2>&1)
	grep -q "changes packet data" <<<"$out"
}

_t_kill_pid()
{
	local pid=$1 i
	kill -0 "$pid" 2>/dev/null || return 0
	kill -TERM "$pid" 2>/dev/null
	for ((i = 0; i < 40; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
}

_t_xdp_off()	# NS IF
{
	[[ -e /run/netns/$1 ]] || return 0
	ip -n "$1" link show dev "$2" >/dev/null 2>&1 || return 0
	[[ -z $(link_xdp_prog "$1" "$2") ]] && return 0
	# xdp-loader also removes libxdp's dispatcher pins (where it has one)
	in_ns "$1" xdp-loader unload -a "$2" >/dev/null 2>&1
	[[ -z $(link_xdp_prog "$1" "$2") ]] && return 0
	ip -n "$1" link set dev "$2" xdpgeneric off 2>/dev/null
	ip -n "$1" link set dev "$2" xdpdrv off 2>/dev/null
}

# Removes all that carries PREFIX: processes in its namespaces, XDP on
# their links, the namespaces, pins. Used by the cleanup and, for a test
# that could not clean up after itself, by run_test.
t_sweep_prefix()	# PREFIX
{
	local prefix=$1 ns pid dev
	[[ $prefix == "$RXLAT_T_PREFIX"[0-9]* ]] || return 1
	for ns in $(ip netns list 2>/dev/null | awk '{print $1}'); do
		[[ $ns == "$prefix"-* ]] || continue
		for pid in $(ip netns pids "$ns" 2>/dev/null); do
			kill -KILL "$pid" 2>/dev/null
		done
		for dev in $(ip -n "$ns" -j link show 2>/dev/null | gojq -r '.[] | select(.xdp != null) | .ifname'); do
			_t_xdp_off "$ns" "$dev"
		done
		ip netns del "$ns" 2>/dev/null
	done
	for dev in "$RXLAT_BPFFS/$prefix"-*; do
		[[ -e $dev ]] && rm -rf -- "$dev"
	done
	t_cgroup_sweep "$prefix"
	return 0
}

# A cgroup v2 child of this test (t_cgroup), removed by the cleanup once its
# processes are gone (they live in the test's namespaces and are killed).
t_cgroup()	# NAME
{
	local root
	root=$(cgroup2_root)
	[[ -n $root ]] || return 1
	mkdir -p "$root/${T_PREFIX}-$1" && printf '%s' "$root/${T_PREFIX}-$1"
}

t_cgroup_sweep()	# PREFIX
{
	local root dir i
	root=$(cgroup2_root)
	[[ -n $root ]] || return 0
	for dir in "$root/$1"-*; do
		[[ -d $dir ]] || continue
		# an exiting process leaves its cgroup a moment after it is killed
		for ((i = 0; i < 40; i++)); do
			rmdir -- "$dir" 2>/dev/null && break
			sleep 0.05
		done
	done
}

_t_cleanup()
{
	local rc=$? i item ns dev kind
	trap - EXIT INT TERM ERR
	set +e
	for ((i = ${#T_PIDS[@]} - 1; i >= 0; i--)); do
		_t_kill_pid "${T_PIDS[i]}"
	done
	# and whatever the test put in the background without t_bg
	for i in $(jobs -p); do
		_t_kill_pid "$i"
	done
	for item in "${T_XDP[@]}"; do
		_t_xdp_off "${item%%|*}" "${item#*|}"
	done
	for item in "${T_QDISC[@]}"; do
		IFS='|' read -r ns dev kind <<<"$item"
		if [[ -e /run/netns/$ns ]]; then
			tc -n "$ns" qdisc del dev "$dev" "$kind" 2>/dev/null
		fi
	done
	t_sweep_prefix "$T_PREFIX"
	for item in "${T_PINS[@]}"; do
		[[ $item == "$RXLAT_BPFFS"/* ]] && rm -rf -- "$item"
	done
	[[ -n ${T_DIR:-} && -d $T_DIR ]] && rm -rf -- "$T_DIR"
	exit "$rc"
}

# Ends the current test with a FAIL line (the cleanup still runs).
t_abort()	# CHECK-NAME REASON...
{
	fail "$@"
	exit 1
}

# ---------------------------------------------------------------- running

_t_main()	# NAME RESULTS FUNCTION [ARGS...]
{
	T_NAME=$1 T_RESULTS=$2 T_SUBSHELL=$BASH_SUBSHELL
	shift 2
	T_PREFIX="${RXLAT_T_PREFIX}${BASHPID}"
	T_NETNS=() T_PINS=() T_PIDS=() T_XDP=() T_QDISC=() T_NS_SEQ=0
	trap _t_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	# A failing command is not fatal (assertions decide), but say where it
	# happened when the test ends without a verdict for it.
	set -E
	trap '[[ -n ${T_RESULTS:-} ]] && echo "E line $LINENO: $BASH_COMMAND" >>"$T_RESULTS"' ERR
	T_DIR=$(mktemp -d "/tmp/${T_PREFIX}.XXXXXX") || exit 1
	[[ -n ${RXLAT_RUN_PIDS:-} ]] && echo "$BASHPID" >>"$RXLAT_RUN_PIDS"
	# The verdict is in the PASS/FAIL/SKIP lines; what the function returns is
	# not. Leaving through exit, a signal or the watchdog is a failure.
	"$@"
	exit 0
}

# Sleeps without a child process (read -t on a fifo nobody writes), so that
# killing the watchdog leaves nothing behind; ends by itself once the test
# or the shell that started it is gone.
_t_watchdog()	# PID SECONDS PARENT-PID
{
	local fd i fifo
	fifo=$(mktemp -u /tmp/rxlat-wd.XXXXXX)
	mkfifo "$fifo" || exit 1
	exec {fd}<>"$fifo"
	rm -f "$fifo"
	for ((i = 0; i < $2; i++)); do
		read -r -t 1 -u "$fd"
		kill -0 "$1" 2>/dev/null && kill -0 "$3" 2>/dev/null || exit 0
	done
	echo "# watchdog: test $1 ran for more than $2 s, terminating it"
	kill -TERM "$1" 2>/dev/null
	read -r -t 15 -u "$fd"
	kill -KILL "$1" 2>/dev/null
}

_T_CHILD=
_T_STOP=
_t_forward_signal()
{
	_T_STOP=1
	[[ -n $_T_CHILD ]] && kill -TERM "$_T_CHILD" 2>/dev/null
}

# The exit status of the background child PID. wait returns early when a
# trapped signal arrives: keep waiting until the child itself has ended.
t_wait_exit()	# PID
{
	local rc
	while :; do
		wait "$1"
		rc=$?
		kill -0 "$1" 2>/dev/null || break
	done
	return "$rc"
}

# t_stream FN CMD...: runs CMD in the background as _T_CHILD, calls FN LINE
# for each line of its output (stdout and stderr), and returns CMD's exit
# status. The output comes through a fifo rather than a pipeline so that a
# stop signal is forwarded (_t_forward_signal) at once, not after CMD ends.
# Both ends are open in this shell before CMD starts, and CMD inherits the
# write end: no open can race the fifo's removal, and a CMD stopped before
# it ran still ends the loop.
t_stream()	# FN CMD...
{
	local fn=$1 fifo fd w line r rc
	shift
	fifo=$(mktemp -u /tmp/rxlat-stream.XXXXXX)
	mkfifo "$fifo" || return 1
	exec {w}<>"$fifo" # read-write: never blocks
	exec {fd}<"$fifo" # a writer is open: does not block
	rm -f "$fifo"
	"$@" >&"$w" 2>&1 {w}>&- {fd}<&- &
	_T_CHILD=$!
	exec {w}>&-
	while :; do
		IFS= read -r -u "$fd" line
		r=$?
		((r > 128)) && continue # interrupted by a signal: keep reading
		((r != 0)) && [[ -z $line ]] && break
		"$fn" "$line"
	done
	exec {fd}<&-
	t_wait_exit "$_T_CHILD"
	rc=$?
	_T_CHILD=
	return "$rc"
}

# run_test NAME FUNCTION [ARGS...]: runs FUNCTION in its own subshell.
run_test()
{
	local name=$1 results rc wd pid t0=$SECONDS
	shift
	if [[ -n ${RXLAT_TEST_FILTER:-} && ! $name =~ $RXLAT_TEST_FILTER ]]; then
		return 0
	fi
	[[ -n $_T_STOP ]] && return 0
	results=$(mktemp /tmp/rxlat-results.XXXXXX) || return 1
	(_t_main "$name" "$results" "$@") &
	pid=$!
	_T_CHILD=$pid
	_t_watchdog "$pid" "${RXLAT_TEST_TIMEOUT:-300}" "$BASHPID" &
	wd=$!
	t_wait_exit "$pid"
	rc=$?
	_T_CHILD=
	kill "$wd" 2>/dev/null
	wait "$wd" 2>/dev/null
	t_sweep_prefix "${RXLAT_T_PREFIX}$pid"
	rm -rf /tmp/"${RXLAT_T_PREFIX}$pid".* 2>/dev/null
	if ((rc != 0)) && ! grep -qx F "$results"; then
		local last
		last=$(grep '^E ' "$results" | tail -n 1)
		T_NAME=$name fail status "test exited with status $rc without a failed check${last:+ (last failing command: ${last#E })}"
	elif ! grep -qxE '[PFS]' "$results"; then
		T_NAME=$name fail result "test reported no check"
	fi
	rm -f "$results"
	# where a run's time goes, for the suite's time limit
	echo "# $name: $((SECONDS - t0)) s"
	return 0
}

# Standalone use of a test file sets up what run.sh would.
suite_begin()
{
	if [[ $EUID -ne 0 ]]; then
		echo "error: $(basename "$0") must run as root (namespaces, XDP, bpffs)" >&2
		exit 1
	fi
	trap _t_forward_signal INT TERM
	[[ -n ${RXLAT_RUNNER:-} ]] && return 0
	bpffs_setup || exit 1
}

suite_end()
{
	trap - INT TERM
	[[ -z ${RXLAT_RUNNER:-} ]] && bpffs_teardown
	[[ -z $_T_STOP ]] || exit 143
}

# ---------------------------------------------------------------- leftovers

# Ids of BPF programs in use: held by a process (a program or link fd, whose
# fdinfo names the program; bpftool's pids need BPF iterators, not always
# there), or attached to XDP on a link of the host or of a named namespace
# (xdp-loader attaches, pins and exits).
bpf_prog_ids_in_use()
{
	grep -hs '^prog_id:' /proc/[0-9]*/fdinfo/* | awk '{ print $2 }'
	attached_xdp_progs
}

# XDP program ids attached to links of the host and of every named netns
attached_xdp_progs()
{
	local ns
	{
		ip -j link show
		for ns in $(ip netns list 2>/dev/null | awk '{print $1}'); do
			ip -n "$ns" -j link show 2>/dev/null
		done
	} | gojq -r '.[] | .xdp? | select(. != null) | (.prog.id?, .attached[]?.prog.id?) | select(. != null)'
}

# "id:name" of loaded programs named rxlat* that nothing uses: what a dead
# rxlat would leave behind.
rxlat_loose_progs()
{
	bpftool -j prog show 2>/dev/null |
		gojq -r '.[] | select((.name // "") | startswith("rxlat")) | "\(.id):\(.name)"' |
		grep -v -E "^($(bpf_prog_ids_in_use | sort -u | paste -sd '|' -)):" | sort
}

# Mount point of the cgroup v2 hierarchy in this mount namespace, if any.
cgroup2_root()
{
	awk '{ for (i = 7; i <= NF; i++) if ($i == "-") { if ($(i + 1) == "cgroup2") { print $5; exit } break } }' \
		/proc/self/mountinfo
}

# "id:name" of rxlat* programs on the cgroup v2 root that no process holds.
cgroup_root_rxlat_progs()
{
	local root
	root=$(cgroup2_root)
	[[ -n $root ]] || return 0
	bpftool -j cgroup show "$root" 2>/dev/null |
		gojq -r '.[] | select((.name // "") | startswith("rxlat")) | "\(.id):\(.name)"' |
		grep -v -E "^($(grep -hs '^prog_id:' /proc/[0-9]*/fdinfo/* | awk '{ print $2 }' | sort -u | paste -sd '|' -)):" |
		sort
}

# Ids of the BPF programs PID holds, through program and link fds. Stop
# it first (SIGSTOP) for a list that cannot change while it is read.
proc_bpf_prog_ids()	# PID
{
	grep -hs '^prog_id:' /proc/"$1"/fdinfo/* | awk '{ print $2 }' | sort -un | paste -sd ' ' -
}

# What a gone rxlat left: with "=ID..." (from proc_bpf_prog_ids) those of
# its programs that are still loaded; else rxlat programs nothing uses that
# were not in the list BEFORE (from rxlat_loose_progs: a weaker check,
# since the stamper of a namespace being deleted elsewhere looks loose for
# a while). Then rxlat programs on the cgroup root that no process holds,
# and XDP on the links given. The kernel releases links and programs some
# tens of ms after the process exits: polls up to 2 s (10 s under QEMU).
# Prints nothing when clean.
rxlat_leftovers()	# BEFORE|=ID... [NS IF]...
{
	local before=$1 out i end id
	local -a links=("${@:2}")
	end=$(($(date +%s%N) / 1000000 + (${RXLAT_VM:+8000} + 2000)))
	while :; do
		if [[ $before == =* ]]; then
			out=
			for id in ${before#=}; do
				bpftool prog show id "$id" >/dev/null 2>&1 && out+=" program $id"
			done
		else
			out=$(comm -23 <(rxlat_loose_progs) <(sort <<<"$before") | sed 's/^/program /')
		fi
		out+=$(cgroup_root_rxlat_progs | sed 's/^/ cgroup-root /')
		for ((i = 0; i + 1 < ${#links[@]}; i += 2)); do
			[[ -n $(link_xdp_prog "${links[i]}" "${links[i + 1]}" 2>/dev/null) ]] &&
				out+=" XDP on ${links[i + 1]}"
		done
		[[ -z ${out// /} ]] && return 0
		(($(date +%s%N) / 1000000 >= end)) && break
		sleep 0.05
	done
	echo "$out" | tr '\n' ' '
	return 1
}

# A field of /proc/PID/status in kB (VmRSS, VmHWM); empty once PID is gone.
proc_status_kb()	# PID FIELD
{
	awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status" 2>/dev/null
}

# For a runner of test files (run.sh, deploy.sh): LINE printed, and counted
# in PASSED, FAILED or SKIPPED (the runner's) if it is a verdict.
emit()	# LINE
{
	echo "$1"
	case $1 in
	"PASS "*) ((PASSED++)) ;;
	"FAIL "*) ((FAILED++)) ;;
	"SKIP "*) ((SKIPPED++)) ;;
	esac
}

# ---------------------------------------------------------------- rxlat runs
# Shared by the test files that run rxlat and read its JSON reports. They set
# RXLAT (the binary) and PKTGEN; RXLAT_ARGS (an array) is put before the
# arguments of every start; RXLAT_ENTER=netns-exec starts it through
# "ip netns exec" instead of nsenter; RXLAT_SIGDFL=SIG[,SIG] starts it with
# those signals at their default action, whatever this shell inherited
# (a suite run under nohup ignores SIGHUP, and so would rxlat).

# What rxlat must leave as it found it on NS's IF: the features (ethtool
# -k), channels (-l), rings (-g), MTU, carrier changes and ip -d link, one
# block each (a device without channels or rings says so the same way each
# time).
device_state()	# NS IF
{
	local f
	for f in -k -l -g; do
		echo "# ethtool $f"
		in_ns "$1" ethtool "$f" "$2" 2>&1
	done
	echo "# mtu $(ip -n "$1" -j link show dev "$2" | gojq -r '.[0].mtu')"
	echo "# carrier_changes $(ns_sysfs_read "$1" "/sys/class/net/$2/carrier_changes")"
	echo "# ip -d link"
	ip -n "$1" -d link show dev "$2"
}

# The state of NS's IF now against $T_DIR/state.before (or BEFORE's file,
# as device_state wrote it), as check NAME
state_same()	# NAME [NS IF [BEFORE]]
{
	local ns=${2:-$NS_B} dev=${3:-$IF_B} before=${4:-before}
	device_state "$ns" "$dev" >"$T_DIR/state.$1"
	assert_eq "$1_device_as_before" "" "$(diff "$T_DIR/state.$before" "$T_DIR/state.$1")" \
		"ethtool -k/-l/-g, MTU, carrier_changes, ip -d link of $dev against before rxlat"
}

# The tools and binaries a test of rxlat needs; FAIL when one is missing.
need_rxlat()	# [CMD...]
{
	require_cmd tools ip nsenter gojq bpftool "$@" || return 1
	require_file build "$RXLAT" "run 'make'" &&
		require_file build "$PKTGEN" "run 'make test-binaries'"
}

# Whether this kernel refuses bpf_xdp_adjust_meta() to XDP programs
# (rxlat-xdp-unit --meta, once per run): then no XDP stamper loads here and
# rxlat stamps at tc ingress only.
xdp_meta_refused()
{
	if [[ -z ${RXLAT_XDP_META:-} ]]; then
		RXLAT_XDP_META=$("$BUILD/rxlat-xdp-unit" --meta 2>/dev/null)
		export RXLAT_XDP_META
	fi
	[[ $RXLAT_XDP_META == refused ]]
}

# The rest of this case needs an XDP stamp: on a kernel whose XDP cannot
# carry one, the case ends here with a SKIP that says why (the kernels under
# QEMU, whose XDP carries it, run the case).
need_xdp_stamp()
{
	xdp_meta_refused || return 0
	# an exit here would leave a command substitution, not the case
	if [[ $BASH_SUBSHELL != "${T_SUBSHELL:-$BASH_SUBSHELL}" ]]; then
		fail need_xdp_stamp "reached inside a command substitution: call need_xdp_stamp at the start of the case"
		exit 1
	fi
	skip xdp_stamp "this kernel refuses bpf_xdp_adjust_meta() to XDP programs: no XDP stamper loads here (the kernels under QEMU run this case)"
	exit 0
}

# The veths of the tests stand in for NICs: a run of rxlat ARGS that names
# interfaces stamps them in XDP, as rxlat does on a NIC, with the arguments
# printed here (--xdp-mode native, one per line; on a veth rxlat's own
# default is tc), unless ARGS choose the stamper (--tc, --no-xdp,
# --xdp-mode) or RXLAT_STAMPER is "default" (rxlat's own choice).
nic_stamper()	# ARGS...
{
	[[ " $* " =~ \ (-i|--interface)\  && ! " $* " =~ \ --(tc|no-xdp|xdp-mode)[\ =] &&
		${RXLAT_STAMPER:-} != default ]] && printf '%s\n' --xdp-mode native
	return 0
}

# rxlat's default stamper, as `make bench` measures it against nothing
# attached (parts A, V and C): the arguments after -i IF that give what a
# user gets without options, started with RXLAT_STAMPER=default so that
# nic_stamper() adds none: none, since without --xdp-mode rxlat stamps at
# tc ingress on every driver.
RXLAT_DEFAULT_ARGS=()
# the same as words, for the benchmark's tables: "rxlat -i IF"
# shellcheck disable=SC2034 # for the benchmark's parts
RXLAT_DEFAULT_CMD="rxlat -i IF${RXLAT_DEFAULT_ARGS[*]:+ ${RXLAT_DEFAULT_ARGS[*]}}"

# rxlat in NS_B, JSON lines in $T_DIR/rxlat.out; returns once it measures
# ("map memory" is printed after the first interval's baseline). Reports
# every 0.5 s unless ARGS say otherwise; nic_stamper() adds its arguments.
start_rxlat()	# ARGS...
{
	local r=(-r 0.5) into_ns=(in_ns "$NS_B") dfl=() xdp
	[[ " $* " == *" -r "* ]] && r=()
	mapfile -t xdp < <(nic_stamper "$@")
	[[ ${#xdp[@]} -gt 0 || " ${RXLAT_ARGS[*]} $* " =~ \ --(no-xdp|xdp-mode)[\ =] ]] && need_xdp_stamp
	[[ ${RXLAT_ENTER:-} == netns-exec ]] && into_ns=(ip netns exec "$NS_B")
	[[ -n ${RXLAT_SIGDFL:-} ]] && dfl=(env --default-signal="$RXLAT_SIGDFL")
	# the wait below must not see a previous run's lines
	: >"$T_DIR/rxlat.err"
	t_bg rxlat "${into_ns[@]}" "${dfl[@]}" "$RXLAT" "${RXLAT_ARGS[@]}" "${xdp[@]}" -o json "${r[@]}" "$@"
	RXLAT_PID=$BG_PID
	t_wait_line "$T_DIR/rxlat.err" 'map memory' 30 "$RXLAT_PID" && return 0
	fail rxlat_start "rxlat did not start: $(tail -n 1 "$T_DIR/rxlat.err")"
}

# SIG (default INT, as a user would): exit 0, and the last object is the
# final report.
stop_rxlat()	# [SIG]
{
	local rc
	kill -"${1:-INT}" "$RXLAT_PID"
	t_wait_pid "$RXLAT_PID" 15
	rc=$?
	assert_eq rxlat_exit 0 "$rc" "rxlat exit status after SIG${1:-INT}" || return 1
	assert_eq final_report true "$(tail -n 1 "$T_DIR/rxlat.out" | gojq -r .final)"
}

# Every counter of OLD (a scrape's sample lines) still there in NEW, none lower: the names
# of those that went down or vanished.
went_down()	# OLD NEW
{
	awk 'NR == FNR { if ($1 ~ /_total\{|_count\{|_bucket\{/) old[$1] = $2; next }
	     { new[$1] = $2 }
	     END { for (k in old) if (!(k in new) || new[k] + 0 < old[k] + 0) print k }' "$1" "$2"
}

# gojq over every report of the run, as one array
q()	# JQ-PROGRAM [ARGS...]
{
	gojq -s "$@" "$T_DIR/rxlat.out"
}

# rxlat's protobuf exposition (delimited: a varint length before each
# MetricFamily message) in FILE, in protoc's text format: each length is
# made the key of field 1 of a wrapper message, so that protoc decodes the
# whole scrape as "family { ... }" after "family { ... }", with the message
# definitions of unit-tests/prom_metrics.proto (client_model's field numbers).
pb_decode()	# FILE
{
	local dir
	dir=$(mktemp -d "$T_DIR/pb.XXXXXX") || return 1
	cp "$RXLAT_ROOT/unit-tests/prom_metrics.proto" "$dir/" || return 1
	printf '%s\n' 'syntax = "proto2";' 'import "prom_metrics.proto";' \
		'message Scrape { repeated io.prometheus.client.MetricFamily family = 1; }' >"$dir/scrape.proto"
	od -An -v -tu1 "$1" | LC_ALL=C awk '{ for (i = 1; i <= NF; i++) b[n++] = $i }
		END {
			for (i = 0; i < n;) {
				printf "%c", 10 # field 1, length-delimited
				l = 0
				m = 1
				do { c = b[i++]; printf "%c", c; l += (c % 128) * m; m *= 128 } while (c >= 128)
				for (e = i + l; i < e && i < n; i++) printf "%c", b[i]
			}
		}' | protoc --decode=Scrape -I "$dir" "$dir/scrape.proto"
}

# HOG=(...): a command that runs a SCHED_FIFO busy loop on CPU for
# SECONDS: BUSY_MS busy, then IDLE_MS asleep (0: never), over and over;
# every other task of that CPU waits while it is busy (the kernel's RT
# throttling leaves them 5% of each second). timeout, at a higher
# priority, ends it, and passes a SIGTERM on. Run it in the background
# (t_bg hog "${HOG[@]}").
cpu_hog_cmd()	# CPU SECONDS BUSY_MS IDLE_MS
{
	# shellcheck disable=SC2034 # for the caller
	HOG=(taskset -c "$1" chrt -f 20 timeout "$2" chrt -f 10 bash -c '
		busy=$(($1 * 1000)) idle=$(printf "%d.%03d" $(($2 / 1000)) $(($2 % 1000)))
		while :; do
			t=${EPOCHREALTIME/./}
			while ((${EPOCHREALTIME/./} - t < busy)); do :; done
			[[ $idle == 0.000 ]] || sleep "$idle"
		done' cpu_hog "$3" "$4")
}

# The PIDs of the NAPI threads of interface IF (threaded NAPI:
# "napi/IF-ID", the name cut at 15 characters).
napi_threads()	# IF
{
	local want="napi/$1-" pid comm
	want=${want:0:15}
	while read -r pid comm; do
		[[ $comm == "$want"* ]] && echo "$pid"
	done < <(ps -e -o pid=,comm=)
}

# rxlat's histogram buckets (include/rxlat_hist.h), worked out here from
# their definition, not from rxlat's table: bound j = floor(1e9 * 2^((j -
# 192) / 8)) ns for j = 0..224; bucket 0 holds 0..bound 0, bucket b the
# values in (bound b-1, bound b], bucket 225 what is above bound 224 (16 s).
# Doubles suffice: no bound is within 1e-6 of an integer but the exact ones.
hist_bucket()	# NS: the bucket that holds NS
{
	awk -v ns="$1" 'BEGIN { for (j = 0; j < 225; j++) if (ns <= int(1e9 * 2 ^ ((j - 192) / 8))) break; print j }'
}

hist_lower_from()	# NS: the smallest lower bound of a bucket that is NS or more
{
	awk -v ns="$1" 'BEGIN { for (j = -1; j < 225; j++) { l = j < 0 ? 0 : int(1e9 * 2 ^ ((j - 192) / 8)) + 1; if (l >= ns) break } printf "%.0f\n", l }'
}

stage_sum()	# STAGE FIELD [FILE]: FIELD .count, .sources.xdp, ...; FILE the reports
{
	gojq -s --arg s "$1" "[.[].series[] | select(.stage == \$s) | $2] | add // 0" \
		"${3:-$T_DIR/rxlat.out}"
}

# A refusal: exit status 1 and one line on stderr that matches ERE.
assert_one_line_error()	# NAME ERE RC ERR-FILE
{
	assert_eq "$1_exit" 1 "$3"
	assert_match "$1_message" "$2" "$(cat "$4")"
	assert_eq "$1_one_line" 1 "$(wc -l <"$4")"
}

# rxlat ARGS, run here, refused that way.
rxlat_refused()	# NAME ERE ARGS...
{
	local name=$1 ere=$2 rc
	shift 2
	"$RXLAT" "$@" >/dev/null 2>"$T_DIR/$name.err"
	rc=$?
	assert_one_line_error "$name" "$ere" "$rc" "$T_DIR/$name.err"
}

# An nftables rule in NS that drops UDP to PORT (table inet rxlat_drop).
nft_drop_port()	# NS PORT
{
	in_ns "$1" nft -f - <<-EOF || t_abort nft "cannot load the nftables rule"
		table inet rxlat_drop {
			chain input {
				type filter hook input priority 0; policy accept;
				udp dport $2 drop
			}
		}
	EOF
}

# COUNT UDP datagrams over 8 flows, port $PORT, from FROM-NS's end of the
# ns_pair to the other end, every one received intact; RECV-ARGS go to the
# receiver, whose lines stay in $T_DIR/recv_CHECK.out (over IPv6 when they
# have --v6).
pair_udp()	# CHECK FROM-NS COUNT [RECV-ARGS...]
{
	local check=$1 from=$2 n=$3 dev mac src dst to
	shift 3
	if [[ $from == "$NS_A" ]]; then
		dev=$IF_A mac=$MAC_B src=$IP4_A dst=$IP4_B to=$NS_B
		[[ " $* " == *" --v6 "* ]] && src=$IP6_A dst=$IP6_B
	else
		dev=$IF_B mac=$MAC_A src=$IP4_B dst=$IP4_A to=$NS_A
		[[ " $* " == *" --v6 "* ]] && src=$IP6_B dst=$IP6_A
	fi
	t_bg "recv_$check" in_ns "$to" "$PKTGEN" recv --port "$PORT" --count "$n" --timeout 30 "$@"
	local recv_pid=$BG_PID
	t_wait_line "$T_DIR/recv_$check.out" '^ready$' 10 "$recv_pid" ||
		t_abort "${check}_receiver" "rxlat-pktgen recv did not start"
	in_ns "$from" timeout 60 "$PKTGEN" send --dev "$dev" --dst-mac "$mac" --src-ip "$src" \
		--dst-ip "$dst" --dport "$PORT" --count "$n" --flows 8 >/dev/null 2>&1 ||
		t_abort "${check}_send" "rxlat-pktgen send failed"
	t_wait_pid "$recv_pid" 40
	assert_eq "${check}_received" "received $n valid $n invalid 0 duplicate 0" \
		"$(tail -n 1 "$T_DIR/recv_$check.out")"
}

# counter NAME of GROUP (Tcp, TcpExt, Udp, ...) in NS_B's MIBs, from
# /proc/net/snmp or /proc/net/netstat, whichever has the group
mib()	# GROUP NAME
{
	in_ns "$NS_B" awk -v g="$1:" -v k="$2" '$1 == g {
		if (!n) { for (i = 2; i <= NF; i++) if ($i == k) c = i; n = 1 } else print (c ? $c : "missing") }' \
		/proc/net/snmp /proc/net/netstat
}

rxlat_prog_count()
{
	bpftool -j prog show | gojq '[.[] | select(.name | startswith("rxlat_"))] | length'
}

# The kernel frees a program shortly after its last reference goes (RCU):
# wait up to 2 s for the count to come back to WANT.
prog_count_settles()	# WANT
{
	local i n
	for ((i = 0; i < 40; i++)); do
		n=$(rxlat_prog_count)
		[[ $n == "$1" ]] && break
		sleep 0.05
	done
	echo "$n"
}

# ---------------------------------------------------------------- TLS
# For the tests of --web-config and of the image the DaemonSet runs.

# A CA, a server certificate for 127.0.0.1 and a client one, in DIR.
tls_certs()	# DIR [SERVER-NAME]
{
	local d=$1 ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
	mkdir -p "$d"
	[[ -e $d/ca.crt ]] ||
		openssl req -x509 "${ec[@]}" -keyout "$d/ca.key" -out "$d/ca.crt" -days 2 \
			-subj /CN=rxlat-test-ca 2>/dev/null || return 1
	printf 'subjectAltName=IP:127.0.0.1\n' >"$d/san"
	openssl req "${ec[@]}" -keyout "$d/server.key" -out "$d/server.csr" \
		-subj "/CN=${2:-rxlat}" 2>/dev/null &&
		openssl x509 -req -in "$d/server.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" \
			-CAcreateserial -out "$d/server.crt" -days 2 -extfile "$d/san" 2>/dev/null &&
		openssl req "${ec[@]}" -keyout "$d/client.key" -out "$d/client.csr" \
			-subj /CN=prometheus 2>/dev/null &&
		openssl x509 -req -in "$d/client.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" \
			-CAcreateserial -out "$d/client.crt" -days 2 2>/dev/null
}

# bcrypt of PASSWORD, as exporter-toolkit's documentation makes it
bcrypt_hash()	# PASSWORD
{
	htpasswd -nbBC 10 x "$1" | cut -d: -f2
}

# COUNT connections to PORT of 127.0.0.1 that each send FIRST (printf %b:
# half a request, a TLS record header) and wait, held SECONDS: prints how
# many of them the server had closed by then.
half_open_flood()	# PORT COUNT SECONDS FIRST
{
	local fds=() fd i closed=0 line
	for ((i = 0; i < $2; i++)); do
		exec {fd}<>"/dev/tcp/127.0.0.1/$1" 2>/dev/null || { closed=$((closed + 1)); continue; }
		printf '%b' "$4" 2>/dev/null 1>&"$fd"
		fds+=("$fd")
	done
	sleep "$3"
	for fd in "${fds[@]}"; do
		# EOF (after an alert, or none): status 1 at once; still open: a timeout (> 128)
		IFS= read -r -t 0.2 -u "$fd" line
		(($? <= 128)) && closed=$((closed + 1))
		exec {fd}<&-
	done
	echo "$closed"
}

# FUNCTION of this shell with ARGS, run in namespace NS
in_ns_fn()	# NS FUNCTION ARGS...
{
	local ns=$1 fn=$2
	shift 2
	in_ns "$ns" bash -c "$(declare -f "$fn"); $fn $(printf '%q ' "$@")"
}

# A host with a routed pod, as a routed CNI makes one: outside NS_O
# --(o0 / UPLINK, 4 queues)-- host NS_H --(h1 / p0)-- pod NS_P, 10.41.0.0/24
# outside, 10.41.1.0/24 to the pod; static neighbours, so that nothing but
# the test's datagrams is in the counts. MAC_UP: UPLINK's address.
# shellcheck disable=SC2153 # ns_create sets NS_O, NS_H and NS_P
pod_behind_host()	# UPLINK
{
	local up=$1
	ns_create NS_O && ns_create NS_H && ns_create NS_P || return 1
	ip -n "$NS_O" link add o0 numrxqueues 4 numtxqueues 4 type veth peer name "$up" \
		netns "$NS_H" numrxqueues 4 numtxqueues 4 &&
		ip -n "$NS_H" link add h1 type veth peer name p0 netns "$NS_P" || return 1
	ip -n "$NS_O" addr add 10.41.0.1/24 dev o0 && ip -n "$NS_H" addr add 10.41.0.2/24 dev "$up" &&
		ip -n "$NS_H" addr add 10.41.1.1/24 dev h1 && ip -n "$NS_P" addr add 10.41.1.2/24 dev p0 &&
		ip -n "$NS_O" link set o0 up && ip -n "$NS_H" link set "$up" up &&
		ip -n "$NS_H" link set h1 up && ip -n "$NS_P" link set p0 up &&
		ip -n "$NS_O" route add 10.41.0.0/16 via 10.41.0.2 &&
		ip -n "$NS_P" route add default via 10.41.1.1 || return 1
	MAC_UP=$(link_mac "$NS_H" "$up")
	ip -n "$NS_O" neigh replace 10.41.0.2 lladdr "$MAC_UP" dev o0 nud permanent &&
		ip -n "$NS_H" neigh replace 10.41.0.1 lladdr "$(link_mac "$NS_O" o0)" dev "$up" nud permanent &&
		ip -n "$NS_H" neigh replace 10.41.1.2 lladdr "$(link_mac "$NS_P" p0)" dev h1 nud permanent &&
		ip -n "$NS_P" neigh replace 10.41.1.1 lladdr "$(link_mac "$NS_H" h1)" dev p0 nud permanent &&
		in_ns "$NS_H" sysctl -qw net.ipv4.ip_forward=1
}

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The latency hooks under the ways people really start rxlat: inside
# "ip netns exec" (a mount namespace with /sys remounted: no cgroup2, no
# bpffs, no tracefs) as well as under nsenter; without -i, where interfaces
# get their series slots as their packets come (and rxlat's own start-up
# check must take none); stage lists that name nothing or nothing available
# here; --list-stages against what a run attaches, and without privileges;
# and series arrays too large to allocate.
#
# Every check asserts exact counts where the traffic is known, the exit code
# and the one-line error of a refusal, and that nothing stays attached.

# shellcheck source=netns-tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RXLAT=$BUILD/rxlat
PKTGEN=$BUILD/rxlat-pktgen
XDP_OBJ=$BUILD/rxlat_xdp.bpf.o
N=${RXLAT_TEST_PACKETS:-1000}
PORT=7300

need() { need_rxlat "$@"; }

# rxlat entered the way ENTER says (netns-exec or nsenter), with -v
start_rxlat_via()	# ENTER ARGS...
{
	RXLAT_ENTER=$1 start_rxlat -v "${@:2}"
}

# samples of every source: measured, or counted without a start time
SEEN='([.sources[]] | add)'

# rxlat's programs that no process holds (through a program or link fd):
# what an exit left attached. The stamper is left out (xdp-loader's own
# stay attached without a holder, and other tests' runs may have some), and
# so are programs held by other processes: the machine may run other rxlat.
orphan_progs()
{
	local held
	held=$(cat /proc/[0-9]*/fdinfo/* 2>/dev/null | awk '$1 == "prog_id:" { print $2 }' |
		sort -u | gojq -s -c .)
	bpftool -j prog show | gojq --argjson held "$held" '[.[] | select((.name | startswith("rxlat_"))
		and .name != "rxlat_xdp" and ([.id] | inside($held) | not))] | length'
}

# The kernel frees a program shortly after its last holder goes: up to 2 s.
orphans_settle()
{
	local i n
	for ((i = 0; i < 40; i++)); do
		n=$(orphan_progs)
		[[ $n == 0 ]] && break
		sleep 0.05
	done
	echo "$n"
}

# N datagrams from NS_A over DEV to IP in NS_B, all received.
send_udp()	# CHECK DEV DST-MAC SRC-IP DST-IP [SEND-ARGS...]
{
	local check=$1 dev=$2 mac=$3 src=$4 dst=$5
	shift 5
	t_bg "recv_$check" in_ns "$NS_B" "$PKTGEN" recv --port "$PORT" --count "$N" --timeout 30
	local pid=$BG_PID
	t_wait_line "$T_DIR/recv_$check.out" '^ready$' 10 "$pid" ||
		t_abort "${check}_receiver" "rxlat-pktgen recv did not start"
	in_ns "$NS_A" timeout 60 "$PKTGEN" send --dev "$dev" --dst-mac "$mac" --src-ip "$src" \
		--dst-ip "$dst" --dport "$PORT" --count "$N" --flows 8 "$@" >/dev/null 2>&1 ||
		t_abort "${check}_send" "rxlat-pktgen send failed"
	t_wait_pid "$pid" 40
	assert_eq "${check}_received" "received $N valid $N invalid 0 duplicate 0" \
		"$(tail -n 1 "$T_DIR/recv_$check.out")"
}

# The udp_queue_rcv count of a --attach fallback run: N, by cgroup_skb or
# (before 6.3) by its kprobes, or where neither can serve, exactly why.
assert_udp_fallback_count()	# CHECK WANT
{
	local reason
	if [[ $(q -r '.[0].attach.udp_queue_rcv // ""') =~ ^(cgroup_skb|kprobe): ]]; then
		assert_eq "$1" "$2" "$(stage_sum udp_queue_rcv .count)"
	else
		reason=$(q -r '.[0].unavailable.udp_queue_rcv // ""')
		assert_match "${1}_no_fallback" 'no kprobe either: ' \
			"$reason" "why udp_queue_rcv has no fallback"
	fi
}

# The exact-count UDP test with the fallback set, rxlat entered with ENTER:
# "ip netns exec" must measure what nsenter measures.
udp_exact_via()	# netns-exec|nsenter
{
	local enter=$1 mounts
	[[ $enter == netns-exec ]] && host_only "entering the namespace by ip netns exec (nsenter runs here)" && return 0
	need || return 1
	ns_pair || t_abort setup "cannot create the namespaces"
	mounts=$(grep -c ' - cgroup2 ' /proc/self/mountinfo)
	start_rxlat_via "$enter" -i "$IF_B" --attach fallback || return 1
	send_udp udp "$IF_A" "$MAC_B" "$IP4_A" "$IP4_B"
	sleep 0.6
	stop_rxlat || return 1

	assert_udp_fallback_count udp_queue_rcv_count "$N"
	assert_eq ip_rcv_count "$N" "$(stage_sum ip_rcv .count)"
	assert_eq ip_rcv_from_xdp "$N" "$(stage_sum ip_rcv .sources.xdp)"
	if [[ $(q -r '.[0].attach.udp_queue_rcv // ""') == cgroup_skb:* ]]; then
		if [[ $enter == netns-exec ]] &&
			! ip netns exec "$NS_B" grep -q ' - cgroup2 ' /proc/self/mountinfo; then
			assert_match cgroup_private_mount 'cgroup_skb attached through a private cgroup2 mount' \
				"$(cat "$T_DIR/rxlat.err")"
		else
			assert_match cgroup_mount_named 'cgroup_skb attached through the cgroup v2 mount /' \
				"$(cat "$T_DIR/rxlat.err")"
		fi
	fi
	# a private mount is nobody else's: none added to the caller's table
	assert_eq no_mount_added "$mounts" "$(grep -c ' - cgroup2 ' /proc/self/mountinfo)"
	assert_eq nothing_attached 0 "$(orphans_settle)"
	assert_eq no_xdp_left "" "$(link_xdp_prog "$NS_B" "$IF_B")"
}

# A stamper loaded by xdp-loader, rxlat --no-xdp inside "ip netns exec",
# where there is no bpffs: it must still find the stamper and count.
no_xdp_netns_exec()
{
	host_only "entering the namespace by ip netns exec (nsenter runs here)" && return 0
	need xdp-loader || return 1
	require_file build "$XDP_OBJ" "run 'make'" || return 1
	ns_pair || t_abort setup "cannot create the namespaces"
	t_xdp_load "$NS_B" "$IF_B" native "$XDP_OBJ" "$(t_pin_dir stamper)" >/dev/null ||
		t_abort stamper_load "xdp-loader load failed"
	start_rxlat_via netns-exec --no-xdp --attach fallback || return 1
	send_udp udp "$IF_A" "$MAC_B" "$IP4_A" "$IP4_B"
	sleep 0.6
	stop_rxlat || return 1
	assert_eq ip_rcv_from_xdp "$N" "$(stage_sum ip_rcv .sources.xdp)"
	assert_udp_fallback_count udp_queue_rcv_count "$N"
}

# Without -i: rxlat's start-up check must not give lo (or anything) a slot:
# with one slot, the one interface with traffic gets it.
no_lo_slot()
{
	need || return 1
	ns_pair || t_abort setup "cannot create the namespaces"
	start_rxlat_via nsenter --max-ifaces 1 || return 1
	send_udp udp "$IF_A" "$MAC_B" "$IP4_A" "$IP4_B"
	sleep 0.6
	stop_rxlat || return 1
	assert_eq interfaces_reported "[\"$IF_B\"]" "$(q -c '[.[].series[].ifname] | unique')"
	assert_eq no_lo_series 0 "$(q '[.[].series[] | select(.ifname == "lo")] | length')"
	assert_eq ip_rcv_seen "$N" "$(stage_sum ip_rcv "$SEEN")"
}

# Four links with traffic at once, two slots: exactly two interfaces get a
# series of their own, with every packet of theirs, and the rest is "other".
two_of_four()
{
	local i ifs named other total senders=() receivers=()
	need || return 1
	ns_pair || t_abort setup "cannot create the namespaces"
	for i in 1 2 3; do
		if ! ip -n "$NS_A" link add "va$i" numrxqueues 4 numtxqueues 4 type veth \
			peer name "vb$i" netns "$NS_B" numrxqueues 4 numtxqueues 4 ||
			! ip -n "$NS_A" addr add "10.2$i.0.1/24" dev "va$i" ||
			! ip -n "$NS_B" addr add "10.2$i.0.2/24" dev "vb$i" ||
			! ip -n "$NS_A" link set "va$i" up || ! ip -n "$NS_B" link set "vb$i" up; then
			t_abort setup "cannot add link $i"
		fi
	done
	sleep 1 # the new links' own start-up packets, before rxlat
	start_rxlat_via nsenter --max-ifaces 2 || return 1
	# one receiver per link: the senders' sequence numbers overlap
	for i in 0 1 2 3; do
		t_bg "recv$i" in_ns "$NS_B" "$PKTGEN" recv --port $((PORT + i)) --count "$N" --timeout 30
		receivers+=("$BG_PID")
		t_wait_line "$T_DIR/recv$i.out" '^ready$' 10 "$BG_PID" || t_abort receiver "not ready"
	done
	in_ns "$NS_A" "$PKTGEN" send --dev "$IF_A" --dst-mac "$MAC_B" --src-ip "$IP4_A" \
		--dst-ip "$IP4_B" --dport "$PORT" --count "$N" --flows 8 >/dev/null 2>&1 &
	senders+=($!)
	for i in 1 2 3; do
		in_ns "$NS_A" "$PKTGEN" send --dev "va$i" --dst-mac "$(link_mac "$NS_B" "vb$i")" \
			--src-ip "10.2$i.0.1" --dst-ip "10.2$i.0.2" --dport $((PORT + i)) --count "$N" \
			--flows 8 >/dev/null 2>&1 &
		senders+=($!)
	done
	for i in "${senders[@]}"; do
		t_track_pid "$i"
		t_wait_pid "$i" 60
	done
	for i in 0 1 2 3; do
		t_wait_pid "${receivers[i]}" 40
		assert_eq "received_$i" "received $N valid $N invalid 0 duplicate 0" \
			"$(tail -n 1 "$T_DIR/recv$i.out")"
	done
	sleep 0.6
	stop_rxlat || return 1
	ifs=$(q -c '[.[].series[] | select(.stage == "ip_rcv") | .ifname] | unique')
	named=$(gojq -c 'map(select(. != "other"))' <<<"$ifs")
	assert_eq named_interfaces 2 "$(gojq length <<<"$named")" "interfaces with a series: $ifs"
	assert_eq named_are_links 2 \
		"$(gojq -c "map(select(. == \"$IF_B\" or startswith(\"vb\"))) | length" <<<"$named")"
	for i in $(gojq -r '.[]' <<<"$named"); do
		assert_eq "every_packet_of_$i" "$N" \
			"$(q --arg i "$i" "[.[].series[] | select(.stage == \"ip_rcv\" and .ifname == \$i) | $SEEN] | add // 0")"
	done
	other=$(q "[.[].series[] | select(.stage == \"ip_rcv\" and .ifname == \"other\") | $SEEN] | add // 0")
	assert_eq other_count $((2 * N)) "$other"
	total=$(stage_sum ip_rcv "$SEEN")
	assert_eq total_count $((4 * N)) "$total"
}

# RC, one line on stderr matching ERE, and no program left.
assert_refused()	# CHECK ERE RC ERR-FILE
{
	assert_one_line_error "$@"
	assert_eq "$1_nothing_attached" 0 "$(orphans_settle)"
}

stages_misuse()
{
	local rc
	need || return 1
	ns_pair || t_abort setup "cannot create the namespaces"

	in_ns "$NS_B" "$RXLAT" -i "$IF_B" --stages , -d 1 >/dev/null 2>"$T_DIR/e1"
	rc=$?
	assert_refused stages_comma "^rxlat: error: --stages ',' names no stage" "$rc" "$T_DIR/e1"

	# tcp_data_queue has no fallback but its kprobe: where the kernel has
	# no kprobes, nothing is left to attach
	if "$RXLAT" --attach fallback --stages tcp_data_queue --list-stages 2>/dev/null |
		grep -q 'tcp_data_queue  *kprobe:'; then
		skip stages_none_available "tcp_data_queue has its kprobe here: a kernel without kprobes (the host) runs this check"
		return 0
	fi
	in_ns "$NS_B" "$RXLAT" -i "$IF_B" --attach fallback --stages tcp_data_queue -d 1 \
		>/dev/null 2>"$T_DIR/e2"
	rc=$?
	assert_refused stages_none_available \
		"^rxlat: error: none of the stages .*tcp_data_queue: .*no tracepoint inside.*no kprobe either" \
		"$rc" "$T_DIR/e2"
	assert_eq stages_none_available_no_xdp "" "$(link_xdp_prog "$NS_B" "$IF_B")"

	# some available: runs, and says which is not
	in_ns "$NS_B" "$RXLAT" -i "$IF_B" --attach fallback --stages tcp_data_queue,ip_rcv -d 0.3 \
		-o json >"$T_DIR/o3" 2>"$T_DIR/e3"
	assert_eq stages_some_exit 0 "$?"
	assert_match stages_some_says_which 'stage tcp_data_queue +unavailable: ' "$(cat "$T_DIR/e3")"
	assert_eq stages_some_attached '"tp_btf:netif_receive_skb"' \
		"$(head -n 1 "$T_DIR/o3" | gojq -c .attach.ip_rcv)"
	assert_eq stages_some_nothing_attached 0 "$(orphans_settle)"
}

# --list-stages says what a run attaches, reasons included.
list_matches_run()
{
	local attach=$1
	need || return 1
	ns_pair || t_abort setup "cannot create the namespaces"
	in_ns "$NS_B" "$RXLAT" --attach "$attach" --list-stages >"$T_DIR/list" 2>"$T_DIR/list.err"
	assert_eq list_exit 0 "$?"
	in_ns "$NS_B" "$RXLAT" -i "$IF_B" --attach "$attach" -d 0.2 -o json >/dev/null 2>"$T_DIR/run.err"
	assert_eq run_exit 0 "$?"
	assert_eq list_is_run "$(sed -n 's/^rxlat: stage //p' "$T_DIR/run.err")" \
		"$(grep -v ' (not by default: --stages +[a-z_]*)$' "$T_DIR/list")"
	# the stages a run leaves out unless asked for, listed and said so
	assert_match list_opt_in '^napi_wait .* \(not by default: --stages \+napi_wait\)$' \
		"$(grep '^napi_wait ' "$T_DIR/list")"
}

# An unprivileged command runner: util-linux setpriv as nobody, else (busybox's
# setpriv has no --reuid) a user namespace of its own, which has no
# capability outside.
unprivileged()	# CMD...
{
	local p
	for p in $(type -ap setpriv); do
		if "$p" --help 2>&1 | grep -q -- --reuid; then
			"$p" --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$@"
			return
		fi
	done
	unshare --user -- "$@"
}

list_unprivileged()
{
	local rc
	need unshare || return 1
	unprivileged "$RXLAT" --list-stages >"$T_DIR/out" 2>"$T_DIR/err"
	rc=$?
	assert_eq unprivileged_exit 1 "$rc"
	assert_match unprivileged_message '^rxlat: error: .*EPERM.*run rxlat as root' "$(cat "$T_DIR/err")"
	assert_eq unprivileged_one_line 1 "$(wc -l <"$T_DIR/err")"
	assert_eq unprivileged_no_listing "" "$(cat "$T_DIR/out")"
}

# Map memory follows the series in use: 256 x 256 (587 MiB if every series
# were made) starts with the series table and one chunk of histograms, and
# the datagrams sent are all counted.
memory_follows_use()
{
	local kib
	need || return 1
	ns_pair || t_abort setup "cannot create the namespaces"
	start_rxlat_via nsenter -i "$IF_B" --max-ifaces 256 --max-queues 256 --attach fallback ||
		return 1
	send_udp udp "$IF_A" "$MAC_B" "$IP4_A" "$IP4_B"
	sleep 0.6
	stop_rxlat || return 1
	kib=$(sed -n 's/.*map memory: \([0-9]*\)\.[0-9] KiB ([0-9]* series: [0-9]* stages x 1 group slots x 257 interface slots x 257 queue slots.*/\1/p' \
		"$T_DIR/rxlat.err")
	assert_match start_memory '^[0-9]+$' "$kib"
	assert_le start_memory_small 4096 "${kib:-999999}" "KiB of map at start-up for 256 x 256"
	assert_eq ip_rcv_count "$N" "$(stage_sum ip_rcv .count)"
	assert_udp_fallback_count udp_queue_rcv_count "$N"
	assert_eq nothing_attached 0 "$(orphans_settle)"
}

suite_begin
run_test hooks_misuse.udp_exact_netns_exec udp_exact_via netns-exec
run_test hooks_misuse.udp_exact_nsenter one_vm_kernel 6.1 udp_exact_via nsenter
run_test hooks_misuse.no_xdp_netns_exec no_xdp_netns_exec
run_test hooks_misuse.no_lo_slot one_vm_kernel 6.12 no_lo_slot
run_test hooks_misuse.two_of_four one_vm_kernel 6.1 two_of_four
run_test hooks_misuse.stages one_vm_kernel 6.12 stages_misuse
run_test hooks_misuse.list_matches_run list_matches_run auto
run_test hooks_misuse.list_matches_run_fallback one_vm_kernel 6.12 list_matches_run fallback
run_test hooks_misuse.list_unprivileged list_unprivileged
run_test hooks_misuse.memory_follows_use one_vm_kernel 6.1 memory_follows_use
suite_end

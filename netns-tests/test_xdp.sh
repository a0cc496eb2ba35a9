#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The XDP stamper on real traffic between two namespaces: loaded by
# xdp-loader and by rxlat itself, in native and skb mode, with exact packet
# counts; batch versus packet stamping seen from tc ingress; and that a
# test leaves nothing behind, whether it passes or fails.
#
# Run through run.sh, or alone as root: netns-tests/test_xdp.sh
# (RXLAT_TEST_FILTER=regex selects tests by name). RXLAT_TEST_PACKETS sets
# the packet count (default 1000), RXLAT_TEST_PPS a send rate for kernels
# whose veth drops instead of pushing back (before 6.16).

# shellcheck source=netns-tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PKTGEN=$BUILD/rxlat-pktgen
PROBE=$BUILD/rxlat-meta-probe
RXLAT=$BUILD/rxlat
XDP_OBJ=$BUILD/rxlat_xdp.bpf.o
XDP_OBJ_PACKET=$BUILD/rxlat_xdp_packet.bpf.o
N=${RXLAT_TEST_PACKETS:-1000}
FLOWS=8
PORT=7000

need_test_binaries()
{
	require_cmd tools ip tc nsenter xdp-loader bpftool gojq || return 1
	local f
	for f in "$PKTGEN" "$XDP_OBJ" "$@"; do
		require_file build "$f" "run 'make test-binaries'" || return 1
	done
}

# Receiver in NS_B; returns once its socket is bound.
start_receiver()	# COUNT [recv args...]
{
	t_bg recv in_ns "$NS_B" "$PKTGEN" recv --port "$PORT" --count "$1" --timeout 30 "${@:2}"
	RECV_PID=$BG_PID
	t_wait_line "$T_DIR/recv.out" '^ready$' 10 "$RECV_PID" && return 0
	fail receiver "rxlat-pktgen recv did not get ready: $(tail -n 1 "$T_DIR/recv.err")"
}

send_traffic()	# COUNT [v6]
{
	local src=$IP4_A dst=$IP4_B
	[[ ${2:-} == v6 ]] && src=$IP6_A dst=$IP6_B
	assert_cmd send in_ns "$NS_A" timeout 60 "$PKTGEN" send --dev "$IF_A" \
		--dst-mac "$MAC_B" --src-ip "$src" --dst-ip "$dst" --dport "$PORT" \
		--count "$1" --flows "$FLOWS" ${RXLAT_TEST_PPS:+--pps "$RXLAT_TEST_PPS"}
}

check_receiver()	# COUNT
{
	local line
	t_wait_pid "$RECV_PID" 40
	line=$(tail -n 1 "$T_DIR/recv.out")
	assert_eq recv "received $1 valid $1 invalid 0 duplicate 0" "$line" \
		"receiver in $NS_B"
}

# "seen stamped refused queues-with-traffic" for IFINDEX, summed over CPUs
# and queues, from the pinned per-CPU slot array rxlat_xdp_slots (each CPU's
# slot names its key) and the per-CPU hash rxlat_xdp_stats (keys whose slot
# another key holds).
pinned_counters()	# PIN-DIR IFINDEX
{
	{
		bpftool -j map dump pinned "$1/rxlat_xdp_slots" | gojq -c '
			.[] | .formatted.values[].value | select(.ifindex != 0)
			| { q: .rx_queue, ifindex, seen: .c.seen, stamped: .c.stamped,
			    refused: .c.meta_refused }'
		bpftool -j map dump pinned "$1/rxlat_xdp_stats" | gojq -c '
			.[] | .formatted | .key as $k | .values[].value
			| { q: $k.rx_queue, ifindex: $k.ifindex, seen, stamped, refused: .meta_refused }'
	} | gojq -rs --argjson ifi "$2" '
		map(select(.ifindex == $ifi)) | group_by(.q)
		| map({ seen: (map(.seen) | add), stamped: (map(.stamped) | add),
			refused: (map(.refused) | add) })
		| "\(map(.seen) | add // 0) \(map(.stamped) | add // 0) \(map(.refused) | add // 0) \(map(select(.seen > 0)) | length)"'
}

pinned_overflow()	# PIN-DIR
{
	bpftool -j map dump pinned "$1/rxlat_xdp_overflow" |
		gojq -r '[.[] | .formatted.values[].value | .seen + .stamped + .meta_refused] | add // 0'
}

# Kernel attach mode as ip link reports it: 1 driver, 2 generic (skb).
xdp_attach_mode()	# NS IF
{
	ip -n "$1" -j link show dev "$2" | gojq -r '.[0].xdp.mode // empty'
}

check_counters()	# "seen stamped refused queues" EXPECTED-N
{
	local seen stamped refused queues
	read -r seen stamped refused queues <<<"$1"
	assert_eq seen "$2" "$seen" "packets the stamper saw on ifindex $IFINDEX_B"
	assert_eq stamped "$2" "$stamped" "packets stamped on ifindex $IFINDEX_B"
	assert_eq meta_refused 0 "$refused" "packets without metadata room"
	assert_ge queues 2 "$queues" "rx queues that carried traffic ($FLOWS flows)"
}

# ------------------------------------------------------------------ tests

test_xdp_loader()	# MODE
{
	local mode=$1 pin out want_mode
	need_test_binaries || return 1
	ns_pair || t_abort setup "cannot create the namespace pair"
	pin=$(t_pin_dir xdp)
	t_xdp_load "$NS_B" "$IF_B" "$mode" "$XDP_OBJ" "$pin" >"$T_DIR/load.out" ||
		t_abort load "xdp-loader load -m $mode failed: $(tail -n 1 "$T_DIR/load.out")"
	pass load
	[[ $mode == native ]] && want_mode=1 || want_mode=2
	assert_eq attach_mode "$want_mode" "$(xdp_attach_mode "$NS_B" "$IF_B")" \
		"kernel XDP attach mode (1 driver, 2 skb)"
	out=$(in_ns "$NS_B" xdp-loader status "$IF_B" 2>&1)
	# alone: "IF rxlat_xdp MODE ..."; under libxdp's dispatcher the mode
	# is on the dispatcher's line and the program on a "=>" line below
	if grep -Eq "^${IF_B}[[:space:]].*[[:space:]]${mode}[[:space:]]" <<<"$out" &&
		grep -Eq "[[:space:]]rxlat_xdp[[:space:]]" <<<"$out"; then
		pass status
	else
		fail status "xdp-loader status does not show rxlat_xdp in $mode mode on $IF_B: $out"
	fi

	start_receiver "$N" || return 1
	send_traffic "$N"
	check_receiver "$N"
	check_counters "$(pinned_counters "$pin" "$IFINDEX_B")" "$N"
	assert_eq overflow 0 "$(pinned_overflow "$pin")" "counters in the overflow slot"

	assert_cmd unload in_ns "$NS_B" xdp-loader unload -a "$IF_B"
	assert_eq detached "" "$(link_xdp_prog "$NS_B" "$IF_B")" "XDP program on $IF_B after unload"
}

# IPv6 frames with a correct UDP checksum reach the socket unchanged.
test_xdp_loader_v6()
{
	local pin out
	need_test_binaries || return 1
	ns_pair || t_abort setup "cannot create the namespace pair"
	pin=$(t_pin_dir xdp)
	t_xdp_load "$NS_B" "$IF_B" native "$XDP_OBJ" "$pin" >"$T_DIR/load.out" ||
		t_abort load "xdp-loader load failed: $(tail -n 1 "$T_DIR/load.out")"
	start_receiver "$N" --v6 || return 1
	send_traffic "$N" v6
	check_receiver "$N"
	check_counters "$(pinned_counters "$pin" "$IFINDEX_B")" "$N"
}

# rxlat attaches the stamper itself, runs, detaches, reports in JSON.
test_rxlat_loader()	# XDP-MODE STAMP
{
	local mode=$1 stamp=$2 pid i rc last counters
	need_xdp_stamp
	need_test_binaries || return 1
	require_file rxlat "$RXLAT" "build rxlat with 'make'" || return 1
	ns_pair || t_abort setup "cannot create the namespace pair"
	start_receiver "$N" || return 1

	t_bg rxlat in_ns "$NS_B" "$RXLAT" -i "$IF_B" --xdp-mode "$mode" \
		--stamp "$stamp" -d 5 -o json
	pid=$BG_PID
	for ((i = 0; i < 200; i++)); do
		[[ -n $(link_xdp_prog "$NS_B" "$IF_B") ]] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	[[ -n $(link_xdp_prog "$NS_B" "$IF_B") ]] ||
		t_abort attach "rxlat did not attach XDP to $IF_B within 10 s: $(tail -n 1 "$T_DIR/rxlat.err")"
	pass attach
	# the first interval starts once everything is attached, with this line
	t_wait_line "$T_DIR/rxlat.err" 'map memory' 30 "$pid" ||
		t_abort start "rxlat did not start measuring: $(tail -n 1 "$T_DIR/rxlat.err")"

	send_traffic "$N"
	check_receiver "$N"
	t_wait_pid "$pid" 30
	rc=$?
	assert_eq exit 0 "$rc" "rxlat exit status ($(tail -n 1 "$T_DIR/rxlat.err"))"
	assert_eq detached "" "$(link_xdp_prog "$NS_B" "$IF_B")" "XDP program on $IF_B after rxlat exited"

	# Each JSON line reports one interval (interval_s) and the last one
	# is marked final; the totals are the sums over all lines, per queue.
	last=$(grep '^{' "$T_DIR/rxlat.out" | tail -n 1)
	assert_eq json_final true "$(gojq -r '.final' <<<"$last" 2>/dev/null)" \
		"\"final\" in rxlat's last JSON line"
	assert_eq json_xdp array "$(gojq -r '.xdp | type' <<<"$last" 2>/dev/null)" \
		"type of \"xdp\" in rxlat's last JSON line"
	counters=$(grep '^{' "$T_DIR/rxlat.out" | gojq -s -r --argjson ifi "$IFINDEX_B" '
		[ .[].xdp[]? | select(.ifindex == $ifi) ] | group_by(.queue)
		| map({ seen: (map(.seen) | add), stamped: (map(.stamped) | add),
			refused: (map(.meta_refused) | add) })
		| "\(map(.seen) | add // 0) \(map(.stamped) | add // 0) \(map(.refused) | add // 0) \(map(select(.seen > 0)) | length)"' \
		2>/dev/null)
	[[ -n $counters ]] || t_abort json "rxlat's output has no parsable JSON lines: ${last:0:200}"
	check_counters "$counters" "$N"
}

# rxlat's poll health of IF_B (the JSON reports in OUT) against the probe's
# own count of napi:napi_poll events of IF_B's NAPI instances that took
# packets, per receive queue (LINE: "queue_polls=Q:N,... queue_full=Q:N,...
# queue_ksoftirqd=Q:N,..."): the polls, those that used
# their whole budget and those run in ksoftirqd (the probe reads the task's
# name with the helper). The stamped packets per queue are checked against
# veth's own count (XDP), not against the events' work: under two senders
# the work that napi:napi_poll reports falls short of what veth ran through
# XDP one run in about eight (6.18: 59755 of 60000, with rx_queue_0_
# xdp_packets at 60000 and no recursion miss), and rxlat's polls, which
# start at those events, fall short with it.
check_polls()	# LINE OUT
{
	local line=$1 out=$2 polls
	polls=$(_probe_field "$line" queue_polls)
	[[ -n $polls ]] || t_abort probe_polls "no poll counts from rxlat-meta-probe: '$line'"
	log "probe: $line"
	assert_eq polls_per_queue "$polls" "$(_rxlat_per_queue "$out" .polls)" \
		"rxlat's polls per queue vs napi:napi_poll"
	assert_eq full_per_queue "$(_probe_field "$line" queue_full)" \
		"$(_rxlat_per_queue "$out" .polls_full)" "polls that used their whole budget"
	assert_eq ksoftirqd_per_queue "$(_probe_field "$line" queue_ksoftirqd)" \
		"$(_rxlat_per_queue "$out" .polls_ksoftirqd)" "polls run in ksoftirqd"
}

_probe_field()	# LINE NAME
{
	sed -n "s/.*\\b$2=\\([^ ]*\\).*/\\1/p" <<<"$1"
}

# "Q:SUM,..." of FIELD over IF_B's stamper rows with polls, in queue order
_rxlat_per_queue()	# OUT FIELD
{
	gojq -rs --argjson i "$IFINDEX_B" "[.[].xdp[] | select(.ifindex == \$i and .polls > 0)]
		| group_by(.queue) | map(\"\\(.[0].queue):\\(map($2) | add)\") | join(\",\")" "$1"
}

_rxlat_xdp_sum()	# OUT FIELD
{
	gojq -s --argjson i "$IFINDEX_B" "[.[].xdp[] | select(.ifindex == \$i) | $2] | add // 0" "$1"
}

# Two senders on two CPUs into one queue of the XDP-stamped veth (one flow
# each, the same): polls find packets waiting, some use their whole budget,
# and the kernel defers some to ksoftirqd (about 1% of them here). rxlat's
# counts of each, per queue, against the probe's.
test_poll_contention()
{
	local pid c n=$((N * 30)) senders=()
	need_test_binaries "$PROBE" "$BUILD/meta_probe.bpf.o" || return 1
	require_cmd tools taskset ethtool || return 1
	(($(nproc) >= 2)) || {
		skip two_cpus "one CPU here: two senders cannot contend"
		return 0
	}
	ns_pair || t_abort setup "cannot create the namespace pair"
	t_bg probe in_ns "$NS_B" "$PROBE" --dev "$IF_B" --seconds 120
	pid=$BG_PID
	t_wait_line "$T_DIR/probe.out" '^attached$' 10 "$pid" ||
		t_abort probe "rxlat-meta-probe did not attach: $(tail -n 1 "$T_DIR/probe.err")"
	start_rxlat -i "$IF_B" || return 1
	veth_xdp_queues "$NS_B" "$IF_B" >"$T_DIR/xdp.before"
	for c in 0 1; do
		t_bg "send$c" in_ns "$NS_A" taskset -c "$c" "$PKTGEN" send --dev "$IF_A" \
			--dst-mac "$MAC_B" --src-ip "$IP4_A" --dst-ip "$IP4_B" --dport "$PORT" \
			--count "$n" --flows 1
		senders+=("$BG_PID")
	done
	for c in "${senders[@]}"; do
		t_wait_pid "$c" 120
		assert_eq sender_exit 0 "$?" "rxlat-pktgen send exit status"
	done
	sleep 0.6 # one more report interval
	veth_xdp_queues "$NS_B" "$IF_B" >"$T_DIR/xdp.after"
	stop_rxlat || return 1
	kill -INT "$pid"
	t_wait_pid "$pid" 20
	assert_eq probe_exit 0 "$?" "rxlat-meta-probe exit status ($(tail -n 1 "$T_DIR/probe.err"))"
	assert_eq stamped $((2 * n)) "$(_rxlat_xdp_sum "$T_DIR/rxlat.out" .stamped)"
	assert_eq stamped_per_queue "$(queue_delta "$T_DIR/xdp.before" "$T_DIR/xdp.after")" \
		"$(rxlat_queue_counts "$T_DIR/rxlat.out" "$IFINDEX_B" stamped)" \
		"rxlat's stamped packets per queue vs veth's rx_queue_N_xdp_packets"
	check_polls "$(grep '^queue_polls=' "$T_DIR/probe.out")" "$T_DIR/rxlat.out"
	assert_ge polls_full 1 "$(_rxlat_xdp_sum "$T_DIR/rxlat.out" .polls_full)" \
		"polls that used their whole budget under two senders"
	assert_ge polls_ksoftirqd 1 "$(_rxlat_xdp_sum "$T_DIR/rxlat.out" .polls_ksoftirqd)" \
		"polls deferred to ksoftirqd under two senders"
	assert_eq polls_thread 0 "$(_rxlat_xdp_sum "$T_DIR/rxlat.out" .polls_thread)" \
		"polls in a NAPI thread (not threaded)"
}

# Batch stamps shared by the packets of a NAPI poll, packet stamps unique,
# as seen from tc ingress with threaded NAPI (so that polls carry several
# packets). With rxlat's poll-end reset attached (rxlat --no-xdp running
# beside the xdp-loader stamper: "reset") a poll carries exactly one stamp,
# whether or not the tick came during it: a stamp that changed mid-poll would
# split what GRO holds and reorder TCP. Without the reset ("batch") the
# stamper renews its stamp after a gap or when jiffies move, so a poll may
# carry two stamps; only sharing is checked there.
test_stamp_modes()
{
	local mode obj pin out pid rxlat_pid summary n=$((N * 2))
	local packets distinct multi mixed multi_tl mixed_tl no_meta bad_magic lost
	need_test_binaries "$PROBE" "$BUILD/meta_probe.bpf.o" "$XDP_OBJ_PACKET" || return 1
	ns_pair || t_abort setup "cannot create the namespace pair"

	for mode in batch reset packet; do
		T_NAME=${T_NAME%%.*}.$mode
		[[ $mode == packet ]] && obj=$XDP_OBJ_PACKET || obj=$XDP_OBJ
		pin=$(t_pin_dir "xdp-$mode")
		t_xdp_load "$NS_B" "$IF_B" native "$obj" "$pin" >"$T_DIR/load.out" ||
			t_abort load "xdp-loader load failed: $(tail -n 1 "$T_DIR/load.out")"
		# veth has NAPI only while XDP is attached: set threaded after
		if ! ip netns exec "$NS_B" test -e "/sys/class/net/$IF_B/threaded"; then
			skip threaded "threaded NAPI (5.12) is what gives a poll several packets here; $(uname -r) has none"
			in_ns "$NS_B" xdp-loader unload -a "$IF_B" >/dev/null 2>&1
			return 0
		fi
		ns_sysfs_write "$NS_B" "/sys/class/net/$IF_B/threaded" 1
		assert_eq threaded 1 "$(ns_sysfs_read "$NS_B" "/sys/class/net/$IF_B/threaded")" \
			"threaded NAPI on $IF_B"

		t_bg "probe-$mode" in_ns "$NS_B" "$PROBE" --dev "$IF_B" --seconds 60
		pid=$BG_PID
		t_wait_line "$T_DIR/probe-$mode.out" '^attached$' 10 "$pid" ||
			t_abort probe "rxlat-meta-probe did not attach: $(tail -n 1 "$T_DIR/probe-$mode.err")"
		if [[ $mode == reset ]]; then
			t_bg rxlat-reset in_ns "$NS_B" "$RXLAT" --no-xdp -i "$IF_B" -d 60 -o json
			rxlat_pid=$BG_PID
			t_wait_line "$T_DIR/rxlat-reset.err" 'map memory' 30 "$rxlat_pid" ||
				t_abort start "rxlat --no-xdp did not start: $(tail -n 1 "$T_DIR/rxlat-reset.err")"
		fi
		start_receiver "$n" || return 1
		send_traffic "$n"
		check_receiver "$n"
		kill -INT "$pid"
		t_wait_pid "$pid" 20
		if [[ $mode == reset ]]; then
			kill -INT "$rxlat_pid"
			t_wait_pid "$rxlat_pid" 20
			assert_eq rxlat_exit 0 "$?" "rxlat --no-xdp exit status ($(tail -n 1 "$T_DIR/rxlat-reset.err"))"
		fi
		assert_eq probe_exit 0 "$?" "rxlat-meta-probe exit status ($(tail -n 1 "$T_DIR/probe-$mode.err"))"
		summary=$(grep '^packets=' "$T_DIR/probe-$mode.out")
		log "$mode: $summary"
		assert_cmd unload in_ns "$NS_B" xdp-loader unload -a "$IF_B"
		assert_eq clsact_removed "" \
			"$(tc -n "$NS_B" qdisc show dev "$IF_B" | grep -w clsact)" "clsact qdisc left by the probe"

		eval "$(sed -n 's/^packets=\([0-9]*\) distinct_stamps=\([0-9]*\) polls_multi=\([0-9]*\) polls_mixed=\([0-9]*\) polls_multi_tickless=\([0-9]*\) polls_mixed_tickless=\([0-9]*\) no_meta=\([0-9]*\) bad_magic=\([0-9]*\) lost=\([0-9]*\)$/packets=\1 distinct=\2 multi=\3 mixed=\4 multi_tl=\5 mixed_tl=\6 no_meta=\7 bad_magic=\8 lost=\9/p' <<<"$summary")"
		[[ -n ${packets:-} ]] || t_abort summary "no summary from rxlat-meta-probe: '$summary'"
		assert_eq lost 0 "$lost" "events the probe's ring buffer dropped"
		assert_eq no_meta 0 "$no_meta" "packets at tc ingress without an rxlat_meta"
		assert_eq bad_magic 0 "$bad_magic" "packets with a wrong magic"
		assert_eq packets "$n" "$packets" "stamped packets seen at tc ingress"
		if [[ $mode == reset ]]; then
			check_polls "$(grep '^queue_polls=' "$T_DIR/probe-$mode.out")" \
				"$T_DIR/rxlat-reset.out"
			assert_eq polls_threaded "$(_rxlat_xdp_sum "$T_DIR/rxlat-reset.out" .polls)" \
				"$(_rxlat_xdp_sum "$T_DIR/rxlat-reset.out" .polls_thread)" "polls run in the NAPI thread"
			assert_ge multi_packet_polls 1 "$multi" "polls with at least 2 packets ($multi_tl tick-free)"
			assert_eq one_stamp_per_poll 0 "$mixed" \
				"polls with more than one stamp, ticks or not ($mixed_tl tick-free)"
			assert_le shared_stamps $((packets - 1)) "$distinct" "distinct stamps"
		elif [[ $mode == batch ]]; then
			# without the reset, sharing depends on packets coming within
			# 20 us of each other (checked with measured gaps in xdp_unit);
			# under emulation they come further apart
			if [[ -n ${RXLAT_VM:-} ]] && ((distinct == packets)); then
				skip shared_stamps "no two packets within the 20 us gap under emulation ($distinct distinct stamps): sharing is checked where packets come closer (the host here, and xdp_unit)"
			else
				assert_le shared_stamps $((packets - 1)) "$distinct" "distinct stamps"
			fi
		else
			assert_eq unique_stamps "$packets" "$distinct" "distinct (cpu, stamp) pairs"
		fi
		unset packets
	done
}

# Processes whose command line is exactly CMDLINE (no procps needed).
count_cmdline()	# CMDLINE
{
	local f line n=0
	for f in /proc/[0-9]*/cmdline; do
		line=$(tr '\0' ' ' <"$f" 2>/dev/null)
		[[ ${line% } == "$1" ]] && ((n++))
	done
	echo "$n"
}

# A test that fails half-way, or is killed, must still leave nothing behind.
_leaky_body()	# HOW
{
	local pin obj=$XDP_OBJ
	ns_pair || exit 1
	pin=$(t_pin_dir leaky)
	# what is left behind is the point: any XDP program will do
	xdp_meta_refused && obj=$BUILD/xdp_count.bpf.o
	t_xdp_load "$NS_B" "$IF_B" skb "$obj" "$pin" >/dev/null || exit 1
	tc -n "$NS_A" qdisc add dev "$IF_A" clsact && t_track_qdisc "$NS_A" "$IF_A" clsact
	t_bg sleeper in_ns "$NS_B" sleep 600
	echo "$T_PREFIX" >"$LEAKY_OUT.prefix"
	case $1 in
	fail)
		fail inner "failing on purpose"
		false
		exit 3
		;;
	kill)
		pass inner
		# wait for the outer test to signal this one
		sleep 600 &
		wait $!
		;;
	esac
}

test_cleanup()	# fail|kill
{
	local how=$1 prefix pid left
	host_only "the suite's own clean-up" && return 0
	need_test_binaries || return 1
	LEAKY_OUT=$(mktemp "/tmp/${T_PREFIX}.leaky.XXXXXX")
	export LEAKY_OUT
	if [[ $how == fail ]]; then
		(T_NAME='' T_RESULTS='' RXLAT_TEST_FILTER='' run_test inner_fail _leaky_body fail) >"$LEAKY_OUT" 2>&1
	else
		(
			trap _t_forward_signal INT TERM
			T_NAME='' T_RESULTS='' RXLAT_TEST_FILTER='' run_test inner_kill _leaky_body kill
		) >"$LEAKY_OUT" 2>&1 &
		pid=$!
		t_wait_line "$LEAKY_OUT.prefix" . 20 ||
			t_abort inner "the inner test did not start"
		# let it reach its wait, then stop the runner the way ^C would
		t_wait_line "$LEAKY_OUT" '^PASS' 10
		kill -TERM "$pid"
		t_wait_pid "$pid" 30
	fi
	prefix=$(cat "$LEAKY_OUT.prefix" 2>/dev/null)
	[[ -n $prefix ]] || t_abort inner "the inner test did not set up: $(tail -n 2 "$LEAKY_OUT")"
	if [[ $how == fail ]]; then
		assert_match inner_failed '^FAIL inner_fail.inner: failing on purpose' "$(cat "$LEAKY_OUT")" \
			"the inner test's report"
	fi
	left=$(ip netns list | awk '{print $1}' | grep -c "^$prefix-")
	assert_eq netns 0 "$left" "namespaces named $prefix-*"
	left=$(find "$RXLAT_BPFFS" -maxdepth 1 -name "$prefix-*" | wc -l)
	assert_eq pins 0 "$left" "pin directories $RXLAT_BPFFS/$prefix-*"
	left=$(find /tmp -maxdepth 1 -name "$prefix.*" | wc -l)
	assert_eq tmp 0 "$left" "temp directories /tmp/$prefix.*"
	left=$(count_cmdline "sleep 600")
	assert_eq processes 0 "$left" "'sleep 600' processes left by the inner test"
	rm -f "$LEAKY_OUT" "$LEAKY_OUT.prefix"
}

suite_begin
run_test xdp.loader_native test_xdp_loader native
run_test xdp.loader_skb one_vm_kernel 6.12 test_xdp_loader skb
run_test xdp.loader_v6 one_vm_kernel 6.1 test_xdp_loader_v6
run_test xdp.rxlat_native test_rxlat_loader native batch
run_test xdp.rxlat_skb one_vm_kernel 6.12 test_rxlat_loader skb packet
run_test xdp.stamp_modes test_stamp_modes
run_test xdp.poll_contention one_vm_kernel 6.1 test_poll_contention
run_test xdp.cleanup_fail one_vm_kernel 6.12 test_cleanup fail
run_test xdp.cleanup_kill test_cleanup kill
suite_end

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rxlat over its lifetime: a named interface deleted and created again
# while it runs, the first interval covering only itself, the reports of
# one interval agreeing with themselves at a high report rate, stop
# signals in every state (start-up, blocked stdout, ignored SIGINT, SIGHUP
# with and without nohup), errors writing stdout, and the capabilities it
# keeps once attached. Exact counts with rxlat-pktgen where traffic is
# known; nothing may be left attached afterwards.

# shellcheck source=netns-tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RXLAT=$BUILD/rxlat
PKTGEN=$BUILD/rxlat-pktgen
N=${RXLAT_TEST_PACKETS:-1000}
PORT=7200

need() { need_rxlat xdp-loader "$@"; }

# N datagrams from NS_A to a receiver in NS_B that checks each one.
send_udp()	# CHECK N [SPORT-BASE]
{
	t_bg "recv_$1" in_ns "$NS_B" "$PKTGEN" recv --port "$PORT" --count "$2" --timeout 30
	local pid=$BG_PID
	t_wait_line "$T_DIR/recv_$1.out" '^ready$' 10 "$pid" ||
		t_abort "$1_receiver" "rxlat-pktgen recv did not start"
	assert_cmd "$1_send" in_ns "$NS_A" timeout 60 "$PKTGEN" send --dev "$IF_A" \
		--dst-mac "$(link_mac "$NS_B" "$IF_B")" --src-ip "$IP4_A" --dst-ip "$IP4_B" \
		--dport "$PORT" --count "$2" --flows 8 --sport-base "${3:-10000}"
	t_wait_pid "$pid" 40
	assert_eq "$1_recv" "received $2 valid $2 invalid 0 duplicate 0" \
		"$(tail -n 1 "$T_DIR/recv_$1.out")"
}

# The veth pair of ns_pair again, under the same names (new ifindexes),
# once the old one is gone; returns when the links are quiet.
recreate_pair()
{
	local i stable=0 last=-1 now
	ip -n "$NS_A" link add "$IF_A" numrxqueues 4 numtxqueues 4 type veth \
		peer name "$IF_B" netns "$NS_B" numrxqueues 4 numtxqueues 4 &&
		ip -n "$NS_A" addr add "$IP4_A/24" dev "$IF_A" &&
		ip -n "$NS_B" addr add "$IP4_B/24" dev "$IF_B" &&
		ip -n "$NS_A" link set "$IF_A" up && ip -n "$NS_B" link set "$IF_B" up &&
		ip -n "$NS_A" neigh replace "$IP4_B" lladdr "$(link_mac "$NS_B" "$IF_B")" \
			dev "$IF_A" nud permanent &&
		ip -n "$NS_B" neigh replace "$IP4_A" lladdr "$(link_mac "$NS_A" "$IF_A")" \
			dev "$IF_B" nud permanent || return 1
	for ((i = 0; i < 50 && stable < 3; i++)); do
		sleep 0.1
		now=$(ip -n "$NS_B" -s -j link show dev "$IF_B" | gojq '.[0].stats64.rx.packets')
		if ((now == last)); then
			((stable++))
		else
			stable=0 last=$now
		fi
	done
}

# Waits until PID is rxlat and catches SIG (SigCgt of /proc/PID/status):
# before that a shell or nsenter would take the signal in its place, or the
# signal would meet its default action in the moments between rxlat's exec
# and its handlers (a host run had SIGTERM end it there: 143). 1 when not
# within 10 s.
wait_rxlat_catches()	# PID SIG
{
	local i cgt bit=$((1 << ($(kill -l "$2") - 1)))
	for ((i = 0; i < 1000; i++)); do
		if [[ $(readlink "/proc/$1/exe") == "$(readlink -f "$RXLAT")" ]]; then
			cgt=$(awk '$1 == "SigCgt:" { print $2 }' "/proc/$1/status" 2>/dev/null)
			[[ -n $cgt ]] && (((16#$cgt & bit) != 0)) && return 0
		fi
		sleep 0.01
	done
	return 1
}

# ---------------------------------------------------------------- tests

iface_recreated()
{
	local old new
	need || return 1
	ns_pair || t_abort setup "cannot create the namespaces"
	old=$IFINDEX_B
	start_rxlat -i "$IF_B" || return 1
	send_udp before "$N"
	sleep 0.6
	ip -n "$NS_A" link del "$IF_A" || t_abort delete "cannot delete the veth pair"
	t_wait_line "$T_DIR/rxlat.err" "is gone" 5 "$RXLAT_PID"
	assert_eq gone_message \
		"rxlat: $IF_B is gone: its stamper was detached; no named interface is left: waiting for one to come back" \
		"$(grep 'is gone' "$T_DIR/rxlat.err")"
	sleep 1
	assert_true still_running_when_all_gone "rxlat exited with its interface gone" \
		kill -0 "$RXLAT_PID"

	recreate_pair || t_abort recreate "cannot create the veth pair again"
	new=$(link_ifindex "$NS_B" "$IF_B")
	t_wait_line "$T_DIR/rxlat.err" "is back" 5 "$RXLAT_PID"
	assert_eq back_message \
		"rxlat: $IF_B is back (ifindex $new): stamper attached again, reported under the same name" \
		"$(grep 'is back' "$T_DIR/rxlat.err")"
	assert_ne stamper_on_new_link "" "$(link_xdp_prog "$NS_B" "$IF_B")"
	send_udp after "$N" 20000
	sleep 0.6
	stop_rxlat || return 1

	assert_eq udp_count_total $((2 * N)) "$(stage_sum udp_queue_rcv .count)"
	assert_eq udp_stamped_total $((2 * N)) "$(stage_sum udp_queue_rcv .sources.xdp)"
	assert_eq udp_count_after "$N" \
		"$(q --argjson i "$new" '[.[].series[] | select(.stage == "udp_queue_rcv" and .ifindex == $i) | .count] | add // 0')"
	assert_eq xdp_stamped_new_ifindex_ge "true" \
		"$(q --argjson i "$new" --argjson n "$N" '([.[].xdp[] | select(.ifindex == $i) | .stamped] | add // 0) >= $n')"
	assert_eq one_name "[\"$IF_B\"]" "$(q -c '[.[].series[].ifname, .[].xdp[].ifname] | unique')"
	assert_eq both_ifindexes "[$old,$new]" "$(q -c '[.[].series[].ifindex] | unique')"
	assert_eq no_xdp_left "" "$(link_xdp_prog "$NS_B" "$IF_B")"
}

# The text report: each report opens with a line that says which it is,
# and the attach and measures lines come once, with the first report, also
# across an interface that goes and comes back (which changes neither).
text_reports()
{
	local xdp out=$T_DIR/text.out
	local hdr='^(final )?report at [0-9]{2}:[0-9]{2}:[0-9]{2}, covering the last [0-9.]+ (ms|s)$'
	need_xdp_stamp
	need || return 1
	ns_pair || t_abort setup "cannot create the namespaces"
	mapfile -t xdp < <(nic_stamper -i "$IF_B")
	t_bg text in_ns "$NS_B" "$RXLAT" -i "$IF_B" "${xdp[@]}" -r 0.3
	RXLAT_PID=$BG_PID
	t_wait_line "$T_DIR/text.err" 'map memory' 30 "$RXLAT_PID" ||
		t_abort rxlat_start "rxlat did not start: $(tail -n 1 "$T_DIR/text.err")"
	send_udp before "$N"
	sleep 0.4
	ip -n "$NS_A" link del "$IF_A" || t_abort delete "cannot delete the veth pair"
	t_wait_line "$T_DIR/text.err" "is gone" 5 "$RXLAT_PID"
	sleep 0.4
	recreate_pair || t_abort recreate "cannot create the veth pair again"
	t_wait_line "$T_DIR/text.err" "is back" 5 "$RXLAT_PID"
	send_udp after "$N" 20000
	sleep 0.4
	kill -INT "$RXLAT_PID"
	t_wait_pid "$RXLAT_PID" 15
	assert_eq text_exit 0 "$?" "rxlat exit status after SIGINT"

	assert_match first_line_names_report "$hdr" "$(head -n 1 "$out")"
	assert_match second_line_attach '^attach: napi_wait=off  ip_rcv=' "$(sed -n 2p "$out")"
	assert_match third_line_measures '^measures: napi_wait=none  ip_rcv=' "$(sed -n 3p "$out")"
	assert_eq attach_lines 1 "$(grep -c '^attach: ' "$out")"
	assert_eq measures_lines 1 "$(grep -c '^measures: ' "$out")"
	# about 0.3 s a report over at least 2.4 s
	assert_ge reports 6 "$(grep -cE "$hdr" "$out")"
	assert_eq headers_after_blank_line "" \
		"$(awk -v h="$hdr" 'NR > 1 && $0 ~ h && prev != "" { print NR } { prev = $0 }' "$out")" \
		"report lines not after the previous report's blank line"
	assert_eq final_last "final report at" "$(grep -E "$hdr" "$out" | tail -n 1 | cut -d' ' -f1-3)"
	assert_eq one_final 1 "$(grep -c '^final report at ' "$out")"
	assert_eq no_bare_time "" "$(grep -nE '^[0-9]{2}:[0-9]{2}:[0-9]{2}' "$out")"
	assert_eq udp_count_total $((2 * N)) \
		"$(awk '/^udp_queue_rcv / { s = 1 } s && /^count / { n += $2; s = 0 } END { print n + 0 }' "$out")"
	assert_eq no_xdp_left "" "$(link_xdp_prog "$NS_B" "$IF_B")"
}

# Without -i, an interface gone keeps its name in the reports of its last
# interval (not "if<N>").
iface_name_kept()
{
	need || return 1
	ns_pair || t_abort setup "cannot create the namespaces"
	start_rxlat -r 2 || return 1
	send_udp traffic "$N"
	ip -n "$NS_A" link del "$IF_A" || t_abort delete "cannot delete the veth pair"
	sleep 2.2
	stop_rxlat || return 1
	assert_eq udp_samples "$N" \
		"$(q '[.[].series[] | select(.stage == "udp_queue_rcv") | .sources.kernel + .sources.none] | add // 0')"
	assert_eq name_kept "[\"$IF_B\"]" \
		"$(q -c '[.[].series[] | select(.stage == "udp_queue_rcv") | .ifname] | unique')"
}

# Traffic before rxlat starts is not in its first report: with a stamper
# loaded beforehand (--no-xdp), and the stamper rxlat attaches (-i).
first_interval()
{
	host_only "the first report's baseline" && return 0
	need || return 1
	ns_pair || t_abort setup "cannot create the namespaces"
	t_xdp_load "$NS_B" "$IF_B" native "$BUILD/rxlat_xdp.bpf.o" "$(t_pin_dir first)" >/dev/null ||
		t_abort xdp_load "xdp-loader load failed"
	send_udp before "$N"
	start_rxlat --no-xdp -i "$IF_B" || return 1
	sleep 1.2
	assert_eq first_report_no_xdp_rows 0 "$(head -n 1 "$T_DIR/rxlat.out" | gojq '.xdp | length')"
	assert_eq first_report_no_series 0 "$(head -n 1 "$T_DIR/rxlat.out" | gojq '.series | length')"
	send_udp during "$N" 20000
	sleep 0.6
	stop_rxlat || return 1
	assert_eq xdp_seen_run "$N" "$(q '[.[].xdp[].seen] | add // 0')"
	assert_eq udp_count_run "$N" "$(stage_sum udp_queue_rcv .count)"
}

# -r 0.01 under a UDP flood: in every object, per series, the count, the
# measured sources and the buckets agree.
torn_intervals()
{
	local bad objs
	host_only "the agreement within reports" && return 0
	need || return 1
	ns_pair || t_abort setup "cannot create the namespaces"
	start_rxlat -i "$IF_B" -r 0.01 || return 1
	t_bg sink in_ns "$NS_B" "$PKTGEN" recv --port "$PORT" --count 100000000 --timeout 60
	t_wait_line "$T_DIR/sink.out" '^ready$' 10 "$BG_PID" || t_abort receiver "not ready"
	# 4 s at whatever rate this machine sends (QEMU's emulation is slow)
	in_ns "$NS_A" timeout 4 "$PKTGEN" send --dev "$IF_A" --dst-mac "$MAC_B" \
		--src-ip "$IP4_A" --dst-ip "$IP4_B" --dport "$PORT" --count 100000000 --flows 8
	assert_eq flood_for_4s 124 "$?" "exit status of the flood, cut at 4 s by timeout"
	stop_rxlat || return 1
	objs=$(q '[.[] | select(.series | length > 0)] | length')
	assert_ge objects_with_samples 100 "$objs"
	bad=$(q -c '[.[] | .series[] | select(.count != (.sources.xdp + .sources.kernel + .sources.tc)
		or .count != ([.buckets[].count] | add // 0))
		| {stage, queue, count, sources}] | .[:3]')
	assert_eq no_torn_series "[]" "$bad" "series whose count, sources and buckets differ"
}

# Stdout is a pipe nobody reads: SIGTERM still ends the run at once, and
# the final report is given up after a second, with a note.
sigterm_blocked_stdout()
{
	local fifo fd rc
	host_only "signal and stdout handling" && return 0
	need || return 1
	ns_pair || t_abort setup "cannot create the namespaces"
	fifo="$T_DIR/pipe"
	if ! mkfifo "$fifo" || ! exec {fd}<>"$fifo"; then
		t_abort fifo "cannot make the pipe"
	fi
	nsenter --net="/run/netns/$NS_B" -- "$RXLAT" -i "$IF_B" -o json -r 0.01 \
		>"$fifo" 2>"$T_DIR/rxlat.err" &
	RXLAT_PID=$!
	t_track_pid "$RXLAT_PID"
	t_wait_line "$T_DIR/rxlat.err" 'map memory' 30 "$RXLAT_PID" || t_abort start "rxlat did not start"
	# 64 KiB of pipe at about 1 KiB per object: full within a second
	sleep 3
	kill -TERM "$RXLAT_PID"
	t_wait_pid "$RXLAT_PID" 5
	rc=$?
	assert_eq exit_status 0 "$rc" "exit status after SIGTERM with stdout blocked"
	assert_match final_not_written_note "the final report was not written" "$(cat "$T_DIR/rxlat.err")"
	assert_eq no_xdp_left "" "$(link_xdp_prog "$NS_B" "$IF_B")"
	exec {fd}>&-
}

# A script's background job starts with SIGINT ignored: SIGINT still stops
# rxlat, during start-up as well as later.
sigint_ignored()
{
	local rc before
	host_only "signal and stdout handling" && return 0
	need || return 1
	ns_pair || t_abort setup "cannot create the namespaces"
	before=$(prog_count_settles 0) # a previous test's programs may be on their way out
	t_bg early bash -c 'trap "" INT; exec "$@"' sh nsenter --net="/run/netns/$NS_B" -- \
		"$RXLAT" -i "$IF_B" -o json
	wait_rxlat_catches "$BG_PID" INT || t_abort exec "rxlat did not start, or does not catch SIGINT"
	kill -INT "$BG_PID"
	t_wait_pid "$BG_PID" 10
	rc=$?
	assert_eq startup_exit 0 "$rc" "exit status after SIGINT during start-up"
	assert_match startup_message "^rxlat: SIGINT during start-up: stopped before the first report$" \
		"$(tail -n 1 "$T_DIR/early.err")"
	assert_eq startup_nothing_left "$before" "$(prog_count_settles "$before")"
	assert_eq startup_no_xdp "" "$(link_xdp_prog "$NS_B" "$IF_B")"

	t_bg rxlat bash -c 'trap "" INT; exec "$@"' sh nsenter --net="/run/netns/$NS_B" -- \
		"$RXLAT" -i "$IF_B" -o json -r 0.5
	RXLAT_PID=$BG_PID
	t_wait_line "$T_DIR/rxlat.err" 'map memory' 30 "$RXLAT_PID" || t_abort start "rxlat did not start"
	send_udp running "$N"
	sleep 0.6
	stop_rxlat INT || return 1
	assert_eq running_udp_count "$N" "$(stage_sum udp_queue_rcv .count)"
	assert_eq running_nothing_left "$before" "$(prog_count_settles "$before")"
}

sigterm_startup()
{
	local rc before
	need || return 1
	ns_pair || t_abort setup "cannot create the namespaces"
	before=$(prog_count_settles 0) # a previous test's programs may be on their way out
	t_bg early in_ns "$NS_B" "$RXLAT" -i "$IF_B" -o json
	wait_rxlat_catches "$BG_PID" TERM || t_abort exec "rxlat did not start, or does not catch SIGTERM"
	kill -TERM "$BG_PID"
	t_wait_pid "$BG_PID" 10
	rc=$?
	assert_eq exit_status 0 "$rc" "exit status after SIGTERM during start-up"
	assert_match message "^rxlat: SIGTERM during start-up: stopped before the first report$" \
		"$(tail -n 1 "$T_DIR/early.err")"
	assert_eq nothing_left "$before" "$(prog_count_settles "$before")"
	assert_eq no_xdp "" "$(link_xdp_prog "$NS_B" "$IF_B")"
}

# SIGHUP ends the run like SIGTERM, unless it was ignored at start (nohup).
sighup()
{
	host_only "signal and stdout handling" && return 0
	need nohup || return 1
	ns_pair || t_abort setup "cannot create the namespaces"
	RXLAT_SIGDFL=HUP start_rxlat -i "$IF_B" || return 1
	stop_rxlat HUP || return 1

	: >"$T_DIR/rxlat.out"
	: >"$T_DIR/rxlat.err"
	t_bg rxlat nohup nsenter --net="/run/netns/$NS_B" -- "$RXLAT" -i "$IF_B" -o json -r 0.5
	RXLAT_PID=$BG_PID
	t_wait_line "$T_DIR/rxlat.err" 'map memory' 30 "$RXLAT_PID" || t_abort start "rxlat did not start"
	kill -HUP "$RXLAT_PID"
	sleep 1
	assert_true nohup_keeps_running "rxlat stopped on SIGHUP under nohup" kill -0 "$RXLAT_PID"
	send_udp nohup "$N"
	sleep 0.6
	stop_rxlat INT || return 1
	assert_eq nohup_udp_count "$N" "$(stage_sum udp_queue_rcv .count)"
}

stdout_errors()
{
	local rc before
	host_only "signal and stdout handling" && return 0
	need || return 1
	ns_pair || t_abort setup "cannot create the namespaces"
	before=$(prog_count_settles 0) # a previous test's programs may be on their way out
	in_ns "$NS_B" "$RXLAT" -i "$IF_B" -d 0.3 >/dev/full 2>"$T_DIR/full.err"
	rc=$?
	assert_eq full_exit 1 "$rc"
	assert_eq full_message "rxlat: error: cannot write the report to stdout: No space left on device" \
		"$(grep error "$T_DIR/full.err")"
	in_ns "$NS_B" "$RXLAT" -i "$IF_B" -d 0.3 >&- 2>"$T_DIR/closed.err"
	rc=$?
	assert_eq closed_exit 1 "$rc"
	assert_eq closed_message \
		"rxlat: error: stdout is closed: rxlat writes its reports there; redirect it to a file or to /dev/null" \
		"$(cat "$T_DIR/closed.err")"
	assert_eq nothing_left "$before" "$(prog_count_settles "$before")"
	assert_eq no_xdp "" "$(link_xdp_prog "$NS_B" "$IF_B")"
	# closed stdin and stderr: the run goes on, its reports on stdout
	in_ns "$NS_B" "$RXLAT" -i "$IF_B" -d 0.3 -o json <&- 2>&- >"$T_DIR/ok.out"
	assert_eq closed_stderr_exit 0 "$?"
	assert_eq closed_stderr_final true "$(tail -n 1 "$T_DIR/ok.out" | gojq -r .final)"
	"$RXLAT" --bogus 2>"$T_DIR/bogus.err"
	assert_eq argtable_message 'rxlat: error: invalid option "--bogus": see rxlat --help' \
		"$(cat "$T_DIR/bogus.err")"
	# the help: whole words in 80 columns (past the usage line), no text lost
	"$RXLAT" --help >"$T_DIR/help.out" 2>&1
	assert_eq help_exit 0 "$?"
	assert_eq help_wide_lines "" "$(awk 'NR > 1 && length($0) > 80' "$T_DIR/help.out")"
	assert_eq help_tc_text 1 "$(tr -s ' \n' ' ' <"$T_DIR/help.out" |
		grep -c 'stamp at tc ingress of each -i IFACE (the default) --stamp')"
	# the objects where this rxlat loads them: the build tree, or installed
	assert_eq help_objects_build "$(realpath "$BUILD")" \
		"$(tr -s ' \n' ' ' <"$T_DIR/help.out" | grep -oE 'for xdp-loader and tc: [^ ]+' | cut -d' ' -f5)"
	cp "$RXLAT" "$T_DIR/rxlat-alone"
	assert_eq help_objects_installed "BPF objects for xdp-loader and tc: /usr/local/lib/rxlat" \
		"$("$T_DIR/rxlat-alone" --help | grep '^BPF objects')"
}

# Once attached, rxlat keeps CAP_BPF, and still reports, attaches the
# stamper to an interface that comes back, and detaches. With an XDP
# stamper of its own (--xdp-mode) it keeps CAP_NET_ADMIN too, to turn back
# on at detach an offload that XDP turned off; with the tc stamper, only on
# kernels without tcx links (before 6.6: a cls_bpf filter to delete).
capabilities()
{
	local before want=0000008000001000 tc=0000008000000000 major minor
	need || return 1
	ns_pair || t_abort setup "cannot create the namespaces"
	before=$(prog_count_settles 0) # a previous test's programs may be on their way out
	IFS=. read -r major minor _ <<<"$(uname -r)"
	((major < 6 || (major == 6 && minor < 6))) && tc=0000008000001000
	start_rxlat -i "$IF_B" || return 1
	assert_eq cap_eff_with_i "$want" \
		"$(awk '/^CapEff/ { print $2 }' "/proc/$RXLAT_PID/status")" "CapEff before any packet"
	assert_eq cap_prm_with_i "$want" \
		"$(awk '/^CapPrm/ { print $2 }' "/proc/$RXLAT_PID/status")"
	send_udp traffic "$N"
	sleep 0.5 # the metadata check runs every 0.2 s
	assert_eq cap_eff_after_packets "$want" \
		"$(awk '/^CapEff/ { print $2 }' "/proc/$RXLAT_PID/status")" "CapEff (CAP_BPF, CAP_NET_ADMIN)"
	assert_eq cap_prm_after_packets "$want" \
		"$(awk '/^CapPrm/ { print $2 }' "/proc/$RXLAT_PID/status")"
	ip -n "$NS_A" link del "$IF_A" || t_abort delete "cannot delete the veth pair"
	t_wait_line "$T_DIR/rxlat.err" "is gone" 5 "$RXLAT_PID"
	recreate_pair || t_abort recreate "cannot create the veth pair again"
	t_wait_line "$T_DIR/rxlat.err" "is back" 5 "$RXLAT_PID"
	assert_match attached_again_without_caps "stamper attached again" "$(cat "$T_DIR/rxlat.err")"
	send_udp again "$N" 20000
	sleep 0.6
	stop_rxlat || return 1
	assert_eq udp_count $((2 * N)) "$(stage_sum udp_queue_rcv .count)"
	assert_eq nothing_left "$before" "$(prog_count_settles "$before")"
	assert_eq no_xdp "" "$(link_xdp_prog "$NS_B" "$IF_B")"

	: >"$T_DIR/rxlat.out"
	RXLAT_STAMPER=default start_rxlat -i "$IF_B" || return 1
	assert_eq cap_eff_tc "$tc" "$(awk '/^CapEff/ { print $2 }' "/proc/$RXLAT_PID/status")" \
		"CapEff with the tc stamper"
	stop_rxlat || return 1
	: >"$T_DIR/rxlat.out"
	start_rxlat || return 1
	assert_eq cap_eff_without_i 0000008000000000 \
		"$(awk '/^CapEff/ { print $2 }' "/proc/$RXLAT_PID/status")" "CapEff (CAP_BPF)"
	stop_rxlat || return 1
}

suite_begin
run_test iface_recreated one_vm_kernel 6.12 iface_recreated
run_test iface_name_kept one_vm_kernel 6.12 iface_name_kept
run_test text_reports one_vm_kernel 6.1 text_reports
run_test first_interval first_interval
run_test torn_intervals torn_intervals
run_test sigterm_blocked_stdout sigterm_blocked_stdout
run_test sigint_ignored sigint_ignored
run_test sigterm_startup one_vm_kernel 6.1 sigterm_startup
run_test sighup sighup
run_test stdout_errors stdout_errors
run_test capabilities capabilities
suite_end

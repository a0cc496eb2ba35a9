#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rxlat killed or signalled at random moments under UDP traffic: afterwards
# no XDP program on the link, no rxlat program loaded, none on the cgroup v2
# root, and the next start is clean. SIGTERM and SIGINT must stop it
# promptly in every state: during start-up, with SIGINT inherited as
# ignored (started in the background by a script), with stdout a pipe that
# nobody reads. SIGHUP does what rxlat(8) says.

# shellcheck source=netns-tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RXLAT=$BUILD/rxlat
PKTGEN=$BUILD/rxlat-pktgen
PORT=7300
# QEMU's software emulation is slow: fewer rounds, a lower rate, and more
# time for an exit.
if [[ -n ${RXLAT_VM:-} ]]; then
	KILL_ROUNDS=${RXLAT_TEST_KILL_ROUNDS:-5} PPS=1000 EXIT_S=6
else
	KILL_ROUNDS=${RXLAT_TEST_KILL_ROUNDS:-30} PPS=5000 EXIT_S=2
fi

# shellcheck disable=SC2120 # callers may name more commands
need()
{
	require_cmd tools ip nsenter jq bpftool timeout nohup "$@" || return 1
	require_file build "$RXLAT" "run 'make'" &&
		require_file build "$PKTGEN" "run 'make test-binaries'"
}

# Namespaces and UDP from A to a reader in B for the whole test, spread
# over the queues by 8 flows.
traffic()
{
	ns_pair || t_abort setup "cannot create the namespaces"
	t_bg recv in_ns "$NS_B" "$PKTGEN" recv --port "$PORT" --count 100000000 --timeout 600
	t_wait_line "$T_DIR/recv.out" '^ready$' 10 "$BG_PID" ||
		t_abort receiver "rxlat-pktgen recv did not start: $(tail -n 1 "$T_DIR/recv.err")"
	t_bg send in_ns "$NS_A" "$PKTGEN" send --dev "$IF_A" --dst-mac "$MAC_B" \
		--src-ip "$IP4_A" --dst-ip "$IP4_B" --dport "$PORT" --count 100000000 \
		--flows 8 --pps "$PPS"
}

# Sends SIG to PID with PID stopped meanwhile, so that IDS is exactly the
# set of BPF programs it holds when the signal comes.
signal_snap()	# SIG PID
{
	kill -STOP "$2" 2>/dev/null
	IDS="=$(proc_bpf_prog_ids "$2")"
	kill "-$1" "$2" 2>/dev/null
	[[ $1 == KILL ]] || kill -CONT "$2" 2>/dev/null
}

# A random delay in ms, MIN..MAX
rand_ms()	# MIN MAX
{
	echo $(($1 + (RANDOM * 32768 + RANDOM) % ($2 - $1 + 1)))
}

sleep_ms()	# MS
{
	sleep "$(printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)))"
}

alive()	# PID
{
	kill -0 "$1" 2>/dev/null
}

# Waits up to SECONDS for PID (not necessarily a child) to be gone.
pid_gone()	# PID SECONDS
{
	local i
	for ((i = 0; i < $2 * 20; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.05
	done
	! kill -0 "$1" 2>/dev/null
}

# A start must attach, report, exit 0 and leave nothing. Prints what went
# wrong.
clean_start()	# TAG
{
	local rc ids left
	t_bg next in_ns "$NS_B" "$RXLAT" -i "$IF_B" -d 1 -o json
	if ! t_wait_line "$T_DIR/next.err" 'map memory' 30 "$BG_PID"; then
		t_wait_pid "$BG_PID" 10
		echo "$1: next start failed ($?): $(tail -n 1 "$T_DIR/next.err")"
		return
	fi
	ids="=$(proc_bpf_prog_ids "$BG_PID")"
	t_wait_pid "$BG_PID" 30
	rc=$?
	if ((rc != 0)); then
		echo "$1: next start exited $rc: $(tail -n 1 "$T_DIR/next.err")"
	elif [[ $(tail -n 1 "$T_DIR/next.out" | jq -r .final 2>/dev/null) != true ]]; then
		echo "$1: next start printed no final report"
	fi
	left=$(rxlat_leftovers "$ids" "$NS_B" "$IF_B") || echo "$1: after the clean run: $left"
}

# Each round's start also shows that the round before left nothing in the
# way: a leftover stamper would make it fail at once (the link is busy), so
# at its kill it must still be running with no error printed. Every tenth
# round a full run follows, exit 0 and a final report.
sigkill_rounds()
{
	local r ms left bad=() unclean=() early=0 min=99999 max=0 out
	need || return 1
	traffic
	for ((r = 1; r <= KILL_ROUNDS; r++)); do
		ms=$(rand_ms 5 4000)
		((ms < min)) && min=$ms
		((ms > max)) && max=$ms
		t_bg "kill$r" in_ns "$NS_B" "$RXLAT" -i "$IF_B" -o json -r 0.1
		sleep_ms "$ms"
		grep -q 'map memory' "$T_DIR/kill$r.err" || ((early++))
		if ! kill -0 "$BG_PID" 2>/dev/null || grep -q 'error' "$T_DIR/kill$r.err"; then
			unclean+=("round $r: $(tail -n 1 "$T_DIR/kill$r.err")")
		fi
		signal_snap KILL "$BG_PID"
		t_wait_pid "$BG_PID" 10 2>/dev/null
		left=$(rxlat_leftovers "$IDS" "$NS_B" "$IF_B") || bad+=("round $r at $ms ms: $left")
		if ((r % 10 == 0 || r == KILL_ROUNDS)); then
			out=$(clean_start "round $r")
			[[ -z $out ]] || unclean+=("$out")
		fi
	done
	log "kill: $KILL_ROUNDS SIGKILL rounds under $PPS pps UDP, $early of them before 'map memory', delays ${min}..${max} ms"
	assert_eq nothing_left "" "${bad[*]}" "left behind after SIGKILL"
	assert_eq next_start_clean "" "${unclean[*]}"
}

# SIGTERM and SIGINT at random moments, the first of each during start-up.
# SIGINT as a user at a terminal sends it: started with SIGINT at its
# default (test functions run in the background, where bash ignores it).
term_rounds()
{
	local sig r ms early=0 slow=() bad=() n=0 left
	need || return 1
	traffic
	for sig in TERM INT; do
		for ((r = 1; r <= 3; r++)); do
			if ((r == 1)); then ms=$(rand_ms 5 200); else ms=$(rand_ms 5 3000); fi
			((n++))
			t_bg "sig$n" in_ns "$NS_B" env --default-signal=INT "$RXLAT" -i "$IF_B" -o json -r 0.1
			sleep_ms "$ms"
			grep -q 'map memory' "$T_DIR/sig$n.err" || ((early++))
			signal_snap "$sig" "$BG_PID"
			if ! pid_gone "$BG_PID" "$EXIT_S"; then
				slow+=("SIG$sig at $ms ms")
				kill -KILL "$BG_PID"
			fi
			t_wait_pid "$BG_PID" 10 2>/dev/null
			left=$(rxlat_leftovers "$IDS" "$NS_B" "$IF_B") || bad+=("SIG$sig at $ms ms: $left")
		done
	done
	log "signals: $n SIGTERM/SIGINT rounds, $early of them during start-up"
	assert_eq exit_within_${EXIT_S}s "" "${slow[*]}" "still running ${EXIT_S} s after"
	assert_eq nothing_left "" "${bad[*]}" "left behind"
}

# A script that starts rxlat in the background: without job control bash
# starts it with SIGINT ignored. kill -INT must still stop it, also when it
# arrives during start-up.
sigint_inherited_ignored()	# startup|running
{
	local pid ign
	need || return 1
	traffic
	t_bg script in_ns "$NS_B" bash -c \
		"\"\$0\" -i \"\$1\" -o json -r 0.1 >\"\$2/bg.out\" 2>\"\$2/bg.err\" & echo \$! >\"\$2/bg.pid\"; wait" \
		"$RXLAT" "$IF_B" "$T_DIR"
	t_wait_line "$T_DIR/bg.pid" '^[0-9]+$' 5 || t_abort start "the script did not start rxlat"
	pid=$(cat "$T_DIR/bg.pid")
	t_track_pid "$pid"
	ign=$(awk '$1 == "SigIgn:" { print $2 }' "/proc/$pid/status" 2>/dev/null)
	# bit 1: SIGINT (2)
	assert_eq sigint_ignored_at_start 2 "$((0x${ign:-0} & 2))" \
		"SIGINT in the SigIgn mask rxlat inherited (the premise of this test)"
	if [[ $1 == running ]]; then
		t_wait_line "$T_DIR/bg.err" 'map memory' 30 "$pid" || t_abort start "rxlat did not start"
	else
		sleep 0.05
		assert_eq signal_during_startup "" "$(grep -o 'map memory' "$T_DIR/bg.err")" \
			"rxlat had finished starting before the signal"
	fi
	signal_snap INT "$pid"
	if ! pid_gone "$pid" "$EXIT_S"; then
		fail stops "still running ${EXIT_S} s after SIGINT ($1)"
		kill -KILL "$pid"
		pid_gone "$pid" 5
	else
		pass stops
	fi
	assert_eq nothing_left "" "$(rxlat_leftovers "$IDS" "$NS_B" "$IF_B")" "left behind"
}

# stdout a pipe nobody reads: rxlat sits in pipe_write; SIGTERM must still
# stop it and detach.
sigterm_blocked_stdout()
{
	local fifo fd pid i
	need || return 1
	traffic
	fifo=$T_DIR/stdout.fifo
	mkfifo "$fifo" || t_abort fifo "mkfifo failed"
	exec {fd}<>"$fifo" # a reader that never reads
	nsenter --net="/run/netns/$NS_B" -- "$RXLAT" -i "$IF_B" -o json -r 0.01 --per-queue \
		>"$fifo" 2>"$T_DIR/blocked.err" &
	pid=$!
	t_track_pid "$pid"
	t_wait_line "$T_DIR/blocked.err" 'map memory' 30 "$pid" || t_abort start "rxlat did not start"
	for ((i = 0; i < 200; i++)); do
		grep -q pipe_write "/proc/$pid/wchan" 2>/dev/null && break
		sleep 0.05
	done
	assert_match blocked_in_write pipe_write "$(cat "/proc/$pid/wchan" 2>/dev/null)" \
		"where rxlat waits (the premise of this test)"
	signal_snap TERM "$pid"
	if pid_gone "$pid" "$EXIT_S"; then
		pass stops
	else
		fail stops "still running ${EXIT_S} s after SIGTERM, blocked writing to stdout"
		kill -KILL "$pid"
	fi
	wait "$pid" 2>/dev/null
	exec {fd}<&-
	assert_eq nothing_left "" "$(rxlat_leftovers "$IDS" "$NS_B" "$IF_B")" "left behind"
}

# SIGHUP ends the run like SIGTERM (exit 0, final report), unless rxlat was
# started with SIGHUP ignored (nohup): then it keeps running.
# NOTE: this encodes what collector/rxlat.8 is to document for SIGHUP; when
# the signal handling changes, change this test together with the page.
sighup()	# plain|nohup
{
	local pid rc
	need || return 1
	traffic
	if [[ $1 == nohup ]]; then
		t_bg hup in_ns "$NS_B" nohup "$RXLAT" -i "$IF_B" -o json -r 0.1
	else
		t_bg hup in_ns "$NS_B" "$RXLAT" -i "$IF_B" -o json -r 0.1
	fi
	pid=$BG_PID
	t_wait_line "$T_DIR/hup.err" 'map memory' 30 "$pid" || t_abort start "rxlat did not start"
	signal_snap HUP "$pid"
	if [[ $1 == nohup ]]; then
		sleep 1
		assert_true keeps_running "SIGHUP ended a run started with SIGHUP ignored (nohup)" \
			alive "$pid"
		kill -TERM "$pid" 2>/dev/null
	fi
	t_wait_pid "$pid" "$EXIT_S"
	rc=$?
	assert_eq exit 0 "$rc" "exit status ($1; 124: still running ${EXIT_S} s after the signal)"
	((rc == 124)) && kill -KILL "$pid"
	assert_eq final_report true "$(tail -n 1 "$T_DIR/hup.out" | jq -r .final 2>/dev/null)"
	assert_eq nothing_left "" "$(rxlat_leftovers "$IDS" "$NS_B" "$IF_B")" "left behind"
}

suite_begin
run_test sigkill sigkill_rounds
run_test sigterm_sigint term_rounds
run_test sigint_ignored_startup sigint_inherited_ignored startup
run_test sigint_ignored_running sigint_inherited_ignored running
run_test sigterm_blocked_stdout sigterm_blocked_stdout
run_test sighup sighup plain
run_test sighup_nohup sighup nohup
suite_end

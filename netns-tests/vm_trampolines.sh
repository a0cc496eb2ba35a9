#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What only a kernel that allows BPF trampolines can show, so run.sh runs
# this file inside make vmtest only: every stage that has an fentry attach
# point gets it, and rxlat's libxdp dispatcher (build/libxdp) runs the
# stamper together with another XDP program.

# shellcheck source=netns-tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RXLAT=$BUILD/rxlat
PKTGEN=$BUILD/rxlat-pktgen
COUNT_OBJ=$BUILD/xdp_count.bpf.o
N=${RXLAT_TEST_PACKETS:-1000}
PORT=7200

# The stage names, from the "Stages: a, b, c." line of rxlat --help, so
# that a stage added to rxlat is checked here without editing this file.
rxlat_stages()
{
	"$RXLAT" --help 2>&1 | sed -n 's/^Stages: \(.*\)\.$/\1/p' | tr -d ',' | head -n 1
}

fentry_everywhere()
{
	local plan s stages
	require_file build "$RXLAT" "run 'make'" || return 1
	log "kernel $(uname -r)"
	plan=$("$RXLAT" --list-stages 2>&1)
	while read -r line; do log "$line"; done <<<"$plan"
	read -r -a stages <<<"$(rxlat_stages)"
	assert_ge stages_listed 1 "${#stages[@]}" "stages in the Stages: line of rxlat --help" ||
		return 1
	for s in "${stages[@]}"; do
		assert_match "$s" "^$s +([a-z_]+:[a-z_0-9]+,)*fentry:" "$(grep "^$s " <<<"$plan")" \
			"attach point of $s"
	done
	# --attach fentry must not fall back anywhere
	assert_cmd attach_fentry_only "$RXLAT" --attach fentry -d 0.2 -o json
}

dispatcher_count()	# PIN-DIR
{
	bpftool -j map dump pinned "$1/xdp_count_pkts" | gojq '.[0].formatted.value'
}

send_and_receive()	# CHECK-SUFFIX
{
	t_bg "recv$1" in_ns "$NS_B" "$PKTGEN" recv --port "$PORT" --count "$N" --timeout 30
	local pid=$BG_PID
	t_wait_line "$T_DIR/recv$1.out" '^ready$' 10 "$pid" || t_abort "receiver$1" "not ready"
	assert_cmd "send$1" in_ns "$NS_A" timeout 60 "$PKTGEN" send --dev "$IF_A" --dst-mac "$MAC_B" \
		--src-ip "$IP4_A" --dst-ip "$IP4_B" --dport "$PORT" --count "$N" --flows 8
	t_wait_pid "$pid" 40
	assert_eq "recv$1" "received $N valid $N invalid 0 duplicate 0" "$(tail -n 1 "$T_DIR/recv$1.out")"
}

# Slots of rxlat's dispatcher call bpf_xdp_adjust_meta(), which no slot of
# libxdp 1.3's own does (a kernel from 6.12.y on refuses the stamper there).
rxlat_dispatcher_on()	# NS IF
{
	local id xlated
	id=$(link_xdp_prog "$1" "$2")
	[[ $id =~ ^[0-9]+$ ]] || return 1
	xlated=$(bpftool prog dump xlated id "$id")
	grep -q bpf_xdp_adjust_meta <<<"$xlated"
}

multiprog()
{
	local pins status id obj attach=$BUILD/rxlat-xdp-attach
	# Debian's xdp-loader has its own dispatcher built in and ignores this:
	# rxlat-xdp-attach, linked with the shared libxdp, loads through it.
	local -x LIBXDP_OBJECT_PATH=$BUILD/libxdp
	require_cmd tools xdp-loader bpftool gojq || return 1
	require_file build "$COUNT_OBJ" "run 'make test-binaries'" || return 1
	require_file build "$attach" "run 'make test-binaries'" || return 1
	require_file build "$LIBXDP_OBJECT_PATH/xdp-dispatcher.o" "run 'make'" || return 1
	ns_pair || t_abort setup "cannot create the namespaces"
	pins=$(t_pin_dir multiprog)
	mkdir -p "$pins"
	t_track_xdp "$NS_B" "$IF_B"
	for obj in "$COUNT_OBJ" "$BUILD/rxlat_xdp.bpf.o"; do
		in_ns "$NS_B" "$attach" --mode native --pin-dir "$pins" --dev "$IF_B" "$obj" \
			>"$T_DIR/load.out" 2>&1 ||
			t_abort "load_${obj##*/}" "rxlat-xdp-attach failed: $(tail -n 1 "$T_DIR/load.out")"
	done
	assert_true rxlat_dispatcher "the dispatcher on $IF_B is not build/libxdp's" \
		rxlat_dispatcher_on "$NS_B" "$IF_B"
	status=$(in_ns "$NS_B" xdp-loader status "$IF_B" 2>&1)
	while read -r line; do log "$line"; done <<<"$status"
	assert_match dispatcher "xdp_dispatcher" "$status" "xdp-loader status"
	assert_match both_programs "rxlat_xdp.*"$'\n'".*xdp_count" "$status" "programs in run order"

	# rxlat finds the stamper through its name, and measures with its stamps
	t_bg rxlat in_ns "$NS_B" "$RXLAT" --no-xdp -i "$IF_B" -o json -r 0.5
	local rx=$BG_PID
	t_wait_line "$T_DIR/rxlat.err" 'map memory' 30 "$rx" || t_abort rxlat "did not start"
	send_and_receive ""
	sleep 0.6
	kill -INT "$rx"
	t_wait_pid "$rx" 15
	assert_eq stamps_reach_sockets "$N" \
		"$(gojq -s '[.[].series[] | select(.stage == "udp_queue_rcv") | .sources.xdp] | add // 0' "$T_DIR/rxlat.out")"
	assert_eq stamper_counted "$N" \
		"$(gojq -s --argjson i "$IFINDEX_B" '[.[].xdp[] | select(.ifindex == $i) | .stamped] | add // 0' "$T_DIR/rxlat.out")"
	assert_eq other_program_counted "$N" "$(dispatcher_count "$pins")"

	# unloading rxlat's program leaves the other one attached and running
	id=$(bpftool -j prog show name rxlat_xdp | gojq -s -r 'flatten | map(.id) | max // empty')
	assert_match rxlat_prog_id '^[0-9]+$' "$id" || return 1
	assert_cmd unload_rxlat in_ns "$NS_B" xdp-loader unload -i "$id" "$IF_B"
	status=$(in_ns "$NS_B" xdp-loader status "$IF_B" 2>&1)
	assert_match other_still_attached "xdp_count" "$status"
	assert_eq rxlat_gone "" "$(grep rxlat_xdp <<<"$status")"
	send_and_receive _after
	assert_eq other_program_still_counts $((2 * N)) "$(dispatcher_count "$pins")"
}

suite_begin
run_test fentry_everywhere fentry_everywhere
run_test multiprog multiprog
suite_end

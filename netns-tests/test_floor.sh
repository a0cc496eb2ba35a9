#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rxlat's floor, Linux 6.1 (docs/design.md, "Kernels"): on a kernel below it
# (make test boots Debian 11's 5.10 under QEMU for this file), --list-stages
# and every run end with one line that names the kernel and what its BPF
# lacks, exit 1, and leave nothing on the interface (no clsact qdisc, no XDP
# program); the hint in that line names a section that exists. On a kernel
# at or above it, neither --list-stages nor a run says it, and every stage's
# attach point in --list-stages is the one a run attaches.

# shellcheck source=netns-tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RXLAT=$BUILD/rxlat
FLOOR_RE="^rxlat: error: this kernel \($(uname -r | sed 's/[.+]/\\&/g')\) is older than rxlat's floor, Linux 6\.1: its BPF lacks .*; see docs/design\.md, \"Kernels\"$"

# below_floor: whether this kernel is older than 6.1 (the test's own
# reading of the version; rxlat probes what it needs instead)
below_floor()
{
	local v
	v=$(uname -r | awk -F. '{ printf "%d%03d", $1, $2 }')
	((v < 6001))
}

# no_trace NAME IF NS: nothing rxlat attaches is left on IF of namespace NS
no_trace()
{
	assert_eq "$1_no_clsact" "" "$(tc -n "$3" qdisc show dev "$2" | grep -o clsact)" "qdiscs of $2" &&
		assert_eq "$1_no_xdp" "" "$(ip -n "$3" -d link show dev "$2" | grep -o 'prog/xdp')" "XDP on $2"
}

# plan_is_run LIST JSON: each stage's attach point in --list-stages (file
# LIST) is the one the run attached (.attach of its first JSON report);
# one the run left out is unavailable or not a default stage there
plan_is_run()
{
	local s a rest
	for s in $(gojq -r '.attach | keys[]' <<<"$2"); do
		a=$(gojq -r --arg s "$s" '.attach[$s] // "-"' <<<"$2")
		rest=$(sed -nE "s/^$s +//p" "$1")
		if [[ $a == - ]]; then
			assert_match "plan_$s" '^unavailable|not by default' "$rest" "--list-stages for $s, which the run left out"
		else
			assert_eq "plan_$s" "$a" "${rest%% *}" "--list-stages' attach point of $s"
		fi
	done
}

floor()
{
	local c args
	require_file build "$RXLAT" "run 'make'" || return 1
	log "kernel $(uname -r)"
	assert_cmd floor_section grep -qx '## Kernels' docs/design.md || return 1
	ns_pair || return 1
	if ! below_floor; then
		"$RXLAT" --list-stages >"$T_DIR/list.out" 2>"$T_DIR/list.err"
		assert_eq list_stages_rc 0 "$?" "rxlat --list-stages" &&
			assert_eq list_stages_no_floor "" "$(grep -i floor "$T_DIR/list.err")" "its stderr"
		in_ns "$NS_B" "$RXLAT" -i "$IF_B" -d 0.5 -o json >"$T_DIR/run.json" 2>"$T_DIR/run.err"
		assert_eq run_rc 0 "$?" "rxlat -i $IF_B -d 0.5" &&
			assert_eq run_no_floor "" "$(grep -i floor "$T_DIR/run.err")" "its stderr" ||
			return 1
		plan_is_run "$T_DIR/list.out" "$(head -n 1 "$T_DIR/run.json")"
		return 0
	fi
	rxlat_refused list_stages "$FLOOR_RE" --list-stages
	for c in default:-d,1 native:--xdp-mode,native,-d,1 skb:--xdp-mode,skb,-d,1 tc:--tc,-d,1 \
		fallback:--attach,fallback,-d,1; do
		IFS=, read -r -a args <<<"${c#*:}"
		in_ns "$NS_B" "$RXLAT" -i "$IF_B" "${args[@]}" >/dev/null 2>"$T_DIR/${c%%:*}.err"
		assert_one_line_error "run_${c%%:*}" "$FLOOR_RE" "$?" "$T_DIR/${c%%:*}.err"
		no_trace "run_${c%%:*}" "$IF_B" "$NS_B"
	done
}

suite_begin
run_test floor floor
suite_end

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Part S of the benchmark (bench/bench.sh, whose header describes every
# part): what the XDP stamp measures that the tc stamp does not. rxlat
# stamps at tc ingress by default, after GRO; with --xdp-mode native it
# stamps in the driver's poll, before GRO. The same load is measured with
# each, alternated over STAMP_ROUNDS rounds (the order swapped every
# round), on the benchmark's veth (receiver GRO on unless BENCH_GRO=off):
# small UDP from rxlat-pktgen, paced so that nothing drops, and one paced
# iperf3 TCP stream. Per stage, the mean and p50 of each stamp (each
# configuration's runs pooled) and their difference: the time from the XDP
# stamp to tc ingress (the rest of the driver's poll, GRO, and the age of
# the poll's one stamp for the packets after the poll's first). A stage
# whose attach point runs before tc ingress (the fallback ip_rcv,
# tp_btf:netif_receive_skb) has no tc stamp to read, and says so.
# bench.sh sources this file after bench/lib.sh and calls part_stamp after
# setup.

STAMP_ROUNDS=${BENCH_STAMP_ROUNDS:-3}
STAMP_PPS=${BENCH_STAMP_PPS:-20000}
STAMP_TCP_RATE=${BENCH_STAMP_TCP_RATE:-1G}
STAMP_UDP_PORT=5391
STAMP_STAGES="ip_rcv udp_queue_rcv tcp_do_rcv sock_read"
declare -A STAMP_FILES STAMP_LOAD

# The stats of STAGE over rxlat's JSON reports in FILES (every report,
# interface and queue pooled): "count none xdp tc mean p50 attach", the
# p50 interpolated in the pooled buckets as rxlat interpolates (bucket i
# holds (le(i-1), le(i)], le(i-1) = le(i) / 2^(1/8) to the nanosecond);
# mean and p50 "-" without samples. attach: the stage's attach point.
stamp_stats()	# STAGE FILE...
{
	local stage=$1
	shift
	gojq -rn --arg s "$stage" '
		[inputs] as $reps
		| [$reps[] | .series[]? | select(.stage == $s)] as $ss
		| ([$ss[].count] | add // 0) as $n
		| ([$ss[].max_ns] | max // 0) as $max
		| ([$ss[].buckets[]? | {le: (if .le_ns == "+Inf" then 1e18 else .le_ns end), c: .count}]
			| group_by(.le) | map({le: .[0].le, c: ([.[].c] | add)})) as $b
		| ([$n / 2 | ceil, 1] | max) as $rank
		| (reduce $b[] as $k ({cum: 0, v: null};
			if .v != null then .
			elif $k.c >= $rank - .cum then
				(if $k.le < 60 then 0 else ($k.le / pow(2; 0.125) | floor) + 1 end) as $lo
				| ([$k.le, $max] | min) as $hi
				| .v = ([$lo + ($hi - $lo) * ($rank - .cum) / $k.c, $max] | min)
			else .cum += $k.c end) | .v) as $p50
		| [$n, ([$ss[].sources.none // 0] | add // 0), ([$ss[].sources.xdp // 0] | add // 0),
			([$ss[].sources.tc // 0] | add // 0),
			(if $n > 0 then ([$ss[].sum_ns] | add) / $n | floor else "-" end),
			(if $p50 == null then "-" else $p50 | floor end),
			([$reps[].attach[$s]? // empty] | first // "-")]
		| map(tostring) | join(" ")' "$@"
}

# Why STAGE has no samples of PROTO in the reports of FILE: rxlat's own
# reason where it gives one, else the attach point.
stamp_why_not()	# STAGE PROTO FILE
{
	gojq -rn --arg s "$1" --arg p "$2" '
		[inputs] as $r
		| ([$r[].not_measured[$s][$p]? // empty] | first)
			// ([$r[].unavailable[$s]? // empty] | first)
			// ("attached at " + (([$r[].attach[$s]? // empty] | first) // "nothing"))' "$3"
}

# rxlat with CONF's stamper on the receiving veth, PROTO only, one report
# at exit; checks that it left no XDP program and no clsact behind, so that
# the next run starts from the same device.
stamp_rxlat_start()	# CONF PROTO OUT
{
	local conf=$1 proto=$2 out=$3
	t_track_xdp "$NS_R" "$IF_R"
	t_track_qdisc "$NS_R" "$IF_R" clsact
	if [ "$conf" = tc ]; then
		# rxlat's default, as a user runs it (no --tc, no nic_stamper())
		# shellcheck disable=SC2034 # read by nic_stamper (netns-tests/lib.sh)
		local RXLAT_STAMPER=default
		rxlat_start_or_die "$out" -i "$IF_R" --proto "$proto" -r 600 -o json
	else
		rxlat_start_or_die "$out" -i "$IF_R" --xdp-mode native --proto "$proto" -r 600 -o json
	fi
}

stamp_rxlat_stop()
{
	rxlat_stop
	[ -z "$(xdp_prog_id)" ] || die "rxlat left an XDP program on $IF_R"
	! tc -n "$NS_R" qdisc show dev "$IF_R" | grep -q clsact || die "rxlat left its clsact on $IF_R"
}

# One run of LOAD (udp, tcp) under CONF (tc, xdp); the load's own figure
# (datagrams received of those sent; Gbit/s and retransmits) in STAMP_LOAD
stamp_one()	# LOAD CONF ROUND
{
	local load=$1 conf=$2 r=$3 out n recv got
	out=$T_DIR/stamp-$load-$conf-$r.json
	stamp_rxlat_start "$conf" "$load" "$out"
	if [ "$load" = udp ]; then
		n=$((SECS * STAMP_PPS))
		t_bg "stamp-recv-$r-$conf" in_ns "$NS_R" "$PKTGEN" recv --port "$STAMP_UDP_PORT" --count "$n" \
			--size "$UDP_LEN" --timeout $((SECS + 30))
		recv=$BG_PID
		t_wait_line "$T_DIR/stamp-recv-$r-$conf.out" '^ready$' 10 "$recv" ||
			die "rxlat-pktgen recv did not start: $(tail -n 2 "$T_DIR/stamp-recv-$r-$conf.err")"
		in_ns "$NS_S" timeout $((SECS + 30)) "$PKTGEN" send --dev "$IF_S" --dst-mac "$MAC_R" \
			--src-ip "$ADDR_S" --dst-ip "$ADDR_R" --dport "$STAMP_UDP_PORT" --count "$n" \
			--flows 8 --size "$UDP_LEN" --pps "$STAMP_PPS" >/dev/null 2>"$T_DIR/pktgen.err" ||
			die "rxlat-pktgen send failed: $(tail -n 2 "$T_DIR/pktgen.err")"
		t_wait_pid "$recv" 10 >/dev/null
		_t_kill_pid "$recv"
		got=$(awk '$1 == "received" { print $2 }' "$T_DIR/stamp-recv-$r-$conf.out")
		STAMP_LOAD[$load:$conf]="${STAMP_LOAD[$load:$conf]:-}${got:-0}/$n "
	else
		iperf_run "$T_DIR/stamp-iperf-$conf-$r.json" "$SECS" -b "$STAMP_TCP_RATE"
		STAMP_LOAD[$load:$conf]="${STAMP_LOAD[$load:$conf]:-}$(gojq -r \
			'"\(.end.sum_received.bits_per_second / 1e9 * 100 | round / 100)G/\(.end.sum_sent.retransmits // 0)r"' \
			"$T_DIR/stamp-iperf-$conf-$r.json") "
	fi
	stamp_rxlat_stop
	STAMP_FILES[$load:$conf]="${STAMP_FILES[$load:$conf]:-}$out "
}

# The table of LOAD and its rows; the stages the load does not reach
# (udp_queue_rcv for TCP, tcp_do_rcv for UDP) are left out.
stamp_report()	# LOAD TITLE
{
	local load=$1 title=$2 stage tcf=() xdpf=() t x dm dp per r a b why n_t n_x
	read -ra tcf <<<"${STAMP_FILES[$load:tc]}"
	read -ra xdpf <<<"${STAMP_FILES[$load:xdp]}"
	echo
	echo "   $title"
	echo "   per run (tc runs, then XDP runs): ${STAMP_LOAD[$load:tc]}| ${STAMP_LOAD[$load:xdp]}"
	printf '   %-14s %10s %10s %10s %10s %10s %10s  %s\n' stage "tc mean" "tc p50" "XDP mean" "XDP p50" \
		"+mean" "+p50" "+p50 per round"
	for stage in $STAMP_STAGES; do
		[ "$load" = udp ] && [ "$stage" = tcp_do_rcv ] && continue
		[ "$load" = tcp ] && [ "$stage" = udp_queue_rcv ] && continue
		read -ra t < <(stamp_stats "$stage" "${tcf[@]}")
		read -ra x < <(stamp_stats "$stage" "${xdpf[@]}")
		n_t=${t[0]} n_x=${x[0]}
		# a stamp of the other kind means the run did not measure what it says
		{ [ "${t[2]}" -eq 0 ] && [ "${x[3]}" -eq 0 ]; } ||
			die "part S, $load $stage: tc runs had ${t[2]} XDP stamps, XDP runs ${x[3]} tc stamps"
		if [ "$n_x" -eq 0 ]; then
			why=$(stamp_why_not "$stage" "$load" "${xdpf[0]}")
			printf '   %-14s not measured by either stamp: %s\n' "$stage" "$why"
			row "Before tc ingress (XDP stamp minus tc stamp), $load, $stage" \
				"not measured: $why" "(printed)" "-"
			continue
		fi
		if [ "$n_t" -eq 0 ]; then
			if [ "${t[1]}" -gt 0 ] && [ "${t[6]}" = tp_btf:netif_receive_skb ]; then
				why="no tc stamp there: its attach point (${t[6]}, the fallback without BPF trampolines) runs before tc ingress; ${t[1]} packets counted as none"
			else
				why=$(stamp_why_not "$stage" "$load" "${tcf[0]}")
			fi
			printf '   %-14s %10s %10s %10s %10s %10s %10s  %s\n' "$stage" - - "${x[4]}" "${x[5]}" - - \
				"(XDP only: $why)"
			row "Before tc ingress (XDP stamp minus tc stamp), $load, $stage" \
				"not measured at tc: $why (XDP stamp: mean ${x[4]} ns, p50 ${x[5]} ns)" "(printed)" "-"
			continue
		fi
		dm=$((x[4] - t[4])) dp=$((x[5] - t[5]))
		per=""
		for r in "${!tcf[@]}"; do
			read -r a < <(stamp_stats "$stage" "${tcf[r]}" | awk '{ print $6 }')
			read -r b < <(stamp_stats "$stage" "${xdpf[r]}" | awk '{ print $6 }')
			per="$per$(calc 'b - a' -v a="$a" -v b="$b") "
		done
		printf '   %-14s %10s %10s %10s %10s %+10d %+10d  %s\n' "$stage" "${t[4]}" "${t[5]}" "${x[4]}" \
			"${x[5]}" "$dm" "$dp" "$per"
		row "Before tc ingress (XDP stamp minus tc stamp), $load, $stage: mean, p50" \
			"$(printf '%+d ns, %+d ns (XDP %s/%s ns, tc %s/%s ns; +p50 per round %s)' "$dm" "$dp" \
				"${x[4]}" "${x[5]}" "${t[4]}" "${t[5]}" "${per% }")" "(printed)" "-"
	done
}

part_stamp()
{
	local r load c confs
	for ((r = 1; r <= STAMP_ROUNDS; r++)); do
		confs="tc xdp"
		((r % 2 == 0)) && confs="xdp tc"
		for load in udp tcp; do
			for c in $confs; do
				note "stamp round $r/$STAMP_ROUNDS: $load, $c stamp"
				stamp_one "$load" "$c" "$r"
			done
		done
	done
	echo
	echo "S. The time before tc ingress: rxlat -i $IF_R (its default, stamped at tc ingress, after GRO) against"
	echo "   rxlat -i $IF_R --xdp-mode native (stamped in the driver's poll, before GRO), the same load measured"
	echo "   by each, $STAMP_ROUNDS rounds alternated, ${SECS}s a run, receiver GRO $GRO; ns, each configuration's"
	echo "   runs pooled; +: XDP minus tc, the driver's poll and GRO after the XDP stamp (with the age of the"
	echo "   poll's one stamp for its later packets)"
	stamp_report udp "UDP: rxlat-pktgen, $UDP_LEN-byte datagrams, 8 flows, $STAMP_PPS pkt/s (received/sent per run)"
	stamp_report tcp "TCP: one iperf3 stream at -b $STAMP_TCP_RATE (Gbit/s and retransmits per run)"
}

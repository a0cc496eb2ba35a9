#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Part 3 of the benchmark (bench/bench.sh, whose header describes every
# part): cost per BPF program run, from kernel bpf_stats. bench.sh sources
# this file after bench/lib.sh and calls part_cost after setup; part F
# (bench/bench_features.sh) uses its record_stats too.

# ------------------------------------------------------- part 3: cost

COST_ROWS="$T_DIR/cost.tsv"

# record_stats LOAD CONF LABEL ID...: "load conf name type run_cnt
# run_time_ns" rows; LABEL replaces the program's name unless empty. Names
# are cut to the kernel's 15 characters, as bpf_prog_info has them.
record_stats()
{
	local load=$1 conf=$2 label=$3 id
	shift 3
	for id in "$@"; do
		bpftool -j prog show id "$id" 2>/dev/null |
			gojq -r --arg l "$load" --arg c "$conf" --arg n "$label" \
				'[$l, $c, (if $n != "" then $n else (.name // "?")[0:15] end), .type, (.run_cnt // 0), (.run_time_ns // 0)] | @tsv'
	done >>"$COST_ROWS"
}

# load for the cost runs: the UDP generator of part 2, or one TCP stream
cost_load()	# LOAD NAME
{
	if [ "$1" = udp ]; then
		udp_load "$COST_SECS" "$2"
	else
		iperf_run "$T_DIR/$2.json" "$COST_SECS"
	fi
}

# rxlat-bench-floor in the background (BG_PID), once its programs are
# attached; no-stamp leaves the stamp floors out.
floor_start()	# [no-stamp]
{
	local i
	t_bg floor "$FLOOR_LOADER" "$FLOOR_OBJ" "$(cgroup2_root)" "$@"
	for ((i = 0; i < 100; i++)); do
		grep -q '^ready' "$T_DIR/floor.out" && return 0
		kill -0 "$BG_PID" 2>/dev/null || die "rxlat-bench-floor failed: $(tail -n 3 "$T_DIR/floor.err")"
		sleep 0.1
	done
	die "rxlat-bench-floor did not attach its programs within 10 s"
}

cost_one()	# LOAD CONF
{
	local load=$1 conf=$2 ids=() fl_pid i bt=0
	case $conf in
	rxlat)
		# The empty and floor programs run before rxlat's at each point:
		# a program that runs right after rxlat's pays for the memory
		# operations those leave pending (a floor placed after the hooks
		# measured up to 25 ns more), which would flatter rxlat's ratio.
		# The stamp floors stay out: run before rxlat's, they would bring
		# in the lines its hooks read (they are measured in "stamp").
		floor_start no-stamp
		fl_pid=$BG_PID
		rxlat_start_or_die "$T_DIR/rx-cost.json" -i "$IF_R" -d $((COST_SECS + 60)) -o json
		mapfile -t ids < <(pid_bpf_ids "$RX_PID" prog)
		if [ "$load" = udp ]; then
			bt_start hist bt-cost
			bt=1
		fi
		;;
	tc)
		rxlat_start_or_die "$T_DIR/rx-cost.json" -i "$IF_R" --tc -d $((COST_SECS + 60)) -o json
		mapfile -t ids < <(pid_bpf_ids "$RX_PID" prog)
		;;
	xdp) # alone, as tc: no reference program warms what the hooks read
		rxlat_start_or_die "$T_DIR/rx-cost.json" -i "$IF_R" -d $((COST_SECS + 60)) -o json
		mapfile -t ids < <(pid_bpf_ids "$RX_PID" prog)
		;;
	base) # BENCH_COST_BASE, started as xdp is
		RXLAT=$BENCH_COST_BASE rxlat_start_or_die "$T_DIR/rx-cost.json" -i "$IF_R" \
			-d $((COST_SECS + 60)) -o json
		mapfile -t ids < <(pid_bpf_ids "$RX_PID" prog)
		;;
	pass) xdp_attach "$PASS_OBJ" ;;
	floor) xdp_attach "$XDP_FLOOR_OBJ" ;;
	clock) xdp_attach "$XDP_CLOCK_OBJ" ;;
	stamp)
		# the reference programs first at their points, on stamped packets
		xl_load
		floor_start
		fl_pid=$BG_PID
		;;
	esac
	cost_load "$load" "cost-$load-$conf"
	# read while the programs still exist
	case $conf in
	rxlat)
		record_stats "$load" "$conf" "" "${ids[@]}"
		while read -r _ i; do
			record_stats "$load" "$conf" "" "$i"
		done < <(grep -v '^ready' "$T_DIR/floor.out")
		if ((bt)); then
			mapfile -t ids < <(pid_bpf_ids "$BT_PID" prog)
			record_stats "$load" "$conf" bpftrace "${ids[@]}"
			bt_stop
		fi
		_t_kill_pid "$fl_pid"
		rxlat_stop
		;;
	tc | xdp | base)
		record_stats "$load" "$conf" "" "${ids[@]}"
		rxlat_stop
		;;
	stamp)
		while read -r _ i; do
			record_stats "$load" "$conf" "" "$i"
		done < <(grep -v '^ready' "$T_DIR/floor.out")
		_t_kill_pid "$fl_pid"
		xl_unload
		;;
	*)
		record_stats "$load" "$conf" "" "$(xdp_prog_id)"
		xdp_detach
		;;
	esac
}

# cost_of LOAD NAME [CONF]: "ns_per_run run_cnt" of a program, summed over
# the runs of CONF, or of all but tc, xdp, base and stamp (their table
# lines are read on their own)
cost_of()
{
	awk -F'\t' -v l="$1" -v n="$2" -v r="${3:-}" '$1 == l && $3 == n &&
		(r == "" ? $2 != "tc" && $2 != "xdp" && $2 != "base" && $2 != "stamp" : $2 == r) { c += $5; t += $6 }
		END { if (c > 0) printf "%.1f %d\n", t / c, c; else print "- 0" }' "$COST_ROWS"
}

# Hook attach points of the host's fallback set: stage, rxlat's program,
# the empty, floor and stamp floor programs of bench_floor.bpf.c, the load
# that exercises the stage, the attach point. rxlat's names are cut to the
# kernel's 15 characters.
COST_POINTS="ip_rcv rxlat_tp_ip_rcv empty_ip_rcv floor_ip_rcv stamp_ip_rcv udp tp_btf:netif_receive_skb
ip_rcv rxlat_tp_ip_rcv empty_ip_rcv floor_ip_rcv stamp_ip_rcv tcp tp_btf:netif_receive_skb
tcp_do_rcv rxlat_tp_tcp_do empty_tcp_do floor_tcp_do stamp_tcp_do tcp tp_btf:tcp_probe
udp_queue_rcv rxlat_cg_udp_qu empty_udp_q floor_udp_q stamp_udp_q udp cgroup_skb:ingress
sock_read(UDP) rxlat_tp_udp_re empty_udp_read floor_udp_read stamp_udp_read udp tp_btf:consume_skb
sock_read(TCP) rxlat_tp_sock_r empty_sock_rd floor_sock_rd stamp_sock_rd tcp tp_btf:skb_copy_datagram_iovec"

# tc_vs_xdp LOAD: the row of the hooks after tc ingress that LOAD is about,
# ns per run with a tc stamp against with an XDP stamp, each rxlat alone
# (runs xdp and tc, alternated); the worst counts.
tc_vs_xdp()
{
	local load=$1 h x xn t tn d worst="" what="" hooks=rxlat_cg_udp_qu
	[ "$load" = tcp ] && hooks="rxlat_tp_tcp_do rxlat_tp_sock_r"
	for h in $hooks; do
		read -r x xn < <(cost_of "$load" "$h" xdp)
		read -r t tn < <(cost_of "$load" "$h" tc)
		if [ "$x" = - ] || [ "$t" = - ] || [ "$xn" -lt 1000 ] || [ "$tn" -lt 1000 ]; then
			continue
		fi
		d=$(calc 'sprintf("%.1f", t - x)' -v t="$t" -v x="$x")
		what+="${what:+, }$h $t vs $x"
		[ -z "$worst" ] || awk -v d="$d" -v w="$worst" 'BEGIN { exit !(d > w) }' && worst=$d
	done
	[ -n "$worst" ] || return 0
	row "Hooks after tc ingress, $load: tc stamp vs XDP stamp (ns per run, worst hook)" \
		"$worst ns ($what)" "<= +20 ns" "$(verdict "$worst" '<=' 20)"
}

# base_vs_xdp LOAD: with BENCH_COST_BASE, each of rxlat's programs that
# LOAD runs, ns per run in this build against in the base build, each
# rxlat alone (runs xdp and base, alternated and summed).
base_vs_xdp()
{
	local load=$1 n x xn b bn what=""
	[ -n "${BENCH_COST_BASE:-}" ] || return 0
	while read -r n; do
		read -r x xn < <(cost_of "$load" "$n" xdp)
		read -r b bn < <(cost_of "$load" "$n" base)
		if [ "$x" = - ] || [ "$b" = - ] || [ "$xn" -lt 1000 ] || [ "$bn" -lt 1000 ]; then
			continue
		fi
		what+="${what:+; }$n $x vs $b ($(ratio "$x" "$b")x)"
	done < <(awk -F'\t' -v l="$load" '$1 == l && $2 == "base" { print $3 }' "$COST_ROWS" | sort -u)
	row "rxlat's programs, $load: this build vs BENCH_COST_BASE (ns per run, each alone)" \
		"${what:-no program with 1000 runs in both}" "(printed)" "-"
}

part_cost()
{
	local load conf stage rx em fl st pl at r e f s rn en fn sn x net fnet snet sfnet sx v xp xf xs xc pkts rs rc
	STATS_OLD=$(sysctl -n kernel.bpf_stats_enabled) || die "cannot read kernel.bpf_stats_enabled"
	sysctl -q -w kernel.bpf_stats_enabled=1 >/dev/null || die "cannot set kernel.bpf_stats_enabled=1"
	: >"$COST_ROWS"
	local confs="rxlat xdp tc xdp tc pass floor clock stamp"
	if [ -n "${BENCH_COST_BASE:-}" ]; then
		[ -x "$BENCH_COST_BASE" ] || die "BENCH_COST_BASE: $BENCH_COST_BASE is not an executable"
		confs="rxlat xdp tc base xdp tc base pass floor clock stamp"
	fi
	for load in $COST_LOADS; do
		for conf in $confs; do
			note "cost: $load load, $conf"
			cost_one "$load" "$conf"
		done
	done
	sysctl -q -w kernel.bpf_stats_enabled="$STATS_OLD" >/dev/null ||
		die "cannot restore kernel.bpf_stats_enabled=$STATS_OLD"
	STATS_OLD=""

	echo
	echo "3. Cost per BPF program run: kernel.bpf_stats_enabled=1, run_time_ns / run_cnt, ${COST_SECS}s per run"
	echo "   udp: the load of part 2; tcp: one iperf3 stream. rxlat, the empty and floor programs (attached"
	echo "   first) and bpftrace under UDP in one run; XDP_PASS, the XDP floor and the XDP clock floor each in"
	echo "   a run of its own; stamp: the stamp floors with xdp-loader's stamper, no hooks; tc: rxlat --tc,"
	echo "   the tc ingress stamper instead of XDP (its hooks convert realtime stamps); xdp: rxlat alone,"
	echo "   as tc, to set the two side by side (xdp and tc run twice, alternated, their runs summed);"
	echo "   base: BENCH_COST_BASE's rxlat, alone as xdp is, alternated with it (only with BENCH_COST_BASE)."
	echo "   runs/pkt: run_cnt / run_cnt of that run's XDP (tc: sched_cls) program (hooks also see other"
	echo "   traffic of the host)"
	echo
	awk -F'\t' '
	{
		n++; ld[n] = $1; cf[n] = $2; nm[n] = $3; ty[n] = $4; cnt[n] = $5; tim[n] = $6
		if ($4 == "xdp" || $4 == "sched_cls") xdp[$1 " " $2] = $5
	}
	END {
		printf "   %-4s %-6s %-16s %-14s %11s %8s %9s %8s\n", "load", "run", "program", "type", "run_cnt", "ns/run", "runs/pkt", "ns/pkt"
		for (i = 1; i <= n; i++) {
			k = ld[i] " " cf[i]
			r = xdp[k] > 0 ? cnt[i] / xdp[k] : 0
			ns = cnt[i] > 0 ? tim[i] / cnt[i] : 0
			printf "   %-4s %-6s %-16s %-14s %11d %8.1f %9.2f %8.1f\n", ld[i], cf[i], nm[i], ty[i], cnt[i], ns, r, ns * r
		}
	}' "$COST_ROWS"

	for load in $COST_LOADS; do
		while read -r stage rx em fl st pl at; do
			[ "$pl" = "$load" ] || continue
			read -r r rn < <(cost_of "$load" "$rx")
			read -r e en < <(cost_of "$load" "$em")
			read -r f fn < <(cost_of "$load" "$fl")
			if [ "$rn" -eq 0 ]; then
				row "Hook $stage ($at), $load: net cost vs floor's" \
					"rxlat attached no program there on this kernel" "<= 1.5x" "not measured"
				continue
			fi
			# a point this load hardly reaches says nothing
			if [ "$rn" -lt 1000 ] || [ "$en" -lt 1000 ] || [ "$fn" -lt 1000 ]; then
				row "Hook $stage ($at), $load: net cost vs floor's" \
					"too few runs (rxlat $rn, empty $en, floor $fn)" "<= 1.5x" "not measured"
				continue
			fi
			net=$(calc 'r - e' -v r="$r" -v e="$e")
			fnet=$(calc 'f - e' -v f="$f" -v e="$e")
			x=$(ratio "$net" "$fnet")
			v=$(verdict "$x" '<=' 1.5)
			awk -v f="$fnet" 'BEGIN { exit !(f <= 0) }' && x="n/a" v="not measured (floor at or below empty)"
			row "Hook $stage ($at), $load: net cost vs floor's" \
				"${x}x (rxlat $r - empty $e = $net ns; floor $f - $e = $fnet ns)" "<= 1.5x" "$v"
			# the floor plus the stamp read that every hook must make, in
			# a run of their own (stamper, no hooks: the first program at
			# the point pays for the cache misses). Absolute ns differ
			# from run to run by more than the read costs, so each is
			# taken against the floor of its own run: rxlat's ratio over
			# the stamp floor's.
			read -r s sn < <(cost_of "$load" "$st" stamp)
			read -r e en < <(cost_of "$load" "$em" stamp)
			read -r f fn < <(cost_of "$load" "$fl" stamp)
			if [ "$sn" -lt 1000 ] || [ "$en" -lt 1000 ] || [ "$fn" -lt 1000 ]; then
				continue
			fi
			snet=$(calc 's - e' -v s="$s" -v e="$e")
			sfnet=$(calc 'f - e' -v f="$f" -v e="$e")
			awk -v s="$snet" -v f="$sfnet" -v x="$x" 'BEGIN { exit !(s > 0 && f > 0 && x > 0) }' || continue
			sx=$(ratio "$snet" "$sfnet")
			row "Hook $stage, $load: vs stamp floor (floor + stamp read), each against its run's floor" \
				"$(ratio "$x" "$sx")x (rxlat ${x}x its floor; stamp floor ${sx}x, $snet vs $sfnet ns, run of their own)" \
				"(printed)" "-"
		done <<<"$COST_POINTS"

		read -r xs _ < <(cost_of "$load" rxlat_xdp)
		read -r xp _ < <(cost_of "$load" xdp_pass)
		read -r xf _ < <(cost_of "$load" xdp_floor)
		if [ "$xs" != - ] && [ "$xp" != - ] && [ "$xf" != - ]; then
			net=$(calc 's - p' -v s="$xs" -v p="$xp")
			fnet=$(calc 'f - p' -v f="$xf" -v p="$xp")
			x=$(ratio "$net" "$fnet")
			row "Stamper rxlat_xdp, $load: net cost vs XDP floor's" \
				"${x}x (rxlat_xdp $xs - XDP_PASS $xp = $net ns; floor $xf - $xp = $fnet ns)" "<= 1.5x" \
				"$(verdict "$x" '<=' 1.5)"
		fi
		# what no stamper can leave out: one clock read per poll, and
		# under small UDP nearly every datagram is a poll of its own
		read -r xc _ < <(cost_of "$load" xdp_clock)
		if [ "$xs" != - ] && [ "$xp" != - ] && [ "$xf" != - ] && [ "$xc" != - ]; then
			snet=$(calc 'c - p' -v c="$xc" -v p="$xp")
			row "Stamper rxlat_xdp, $load: net cost vs XDP clock floor's (floor + one clock read)" \
				"$(ratio "$net" "$snet")x (clock floor $xc - $xp = $snet ns: the clock read alone $(calc 'c - f' -v c="$xc" -v f="$xf") ns)" \
				"(printed)" "-"
		fi
		# the hooks after tc ingress reading a tc stamp (rxlat --tc) against
		# the same hooks reading an XDP stamp, same run of the part; the
		# fallback ip_rcv runs before tc ingress and reads no tc stamp
		tc_vs_xdp "$load"
		base_vs_xdp "$load"
		read -r rs rc < <(cost_of "$load" rxlat_napi_rese)
		read -r _ pkts < <(cost_of "$load" rxlat_xdp)
		if [ "$rs" != - ] && [ "$pkts" -gt 0 ]; then
			row "Poll-end reset rxlat_napi_reset, $load" \
				"$rs ns/run, $(ratio "$rc" "$pkts") runs/pkt: $(calc 'sprintf("%.1f", s * c / p)' -v s="$rs" -v c="$rc" -v p="$pkts") ns/pkt" \
				"(printed)" "-"
		fi
	done

	if [[ " $COST_LOADS " == *" udp "* ]]; then
		read -r r _ < <(cost_of udp rxlat_tp_ip_rcv)
		read -r e _ < <(cost_of udp empty_ip_rcv)
		read -r f fn < <(cost_of udp bpftrace)
		read -r x _ < <(cost_of udp empty_tp_rcv)
		if [ "$r" != - ] && [ "$f" != - ]; then
			v=$(ratio "$r" "$f")
			row "Per event, udp: rxlat ip_rcv vs bpftrace (same histogram, same run)" \
				"${v} (rxlat $r ns, bpftrace $f ns; net of empty: $(calc 'r - e' -v r="$r" -v e="$e") vs $(calc 'f - x' -v f="$f" -v x="$x") ns)" \
				"<= 0.33" "$(verdict "$v" '<=' 0.33)"
		fi
	fi
}

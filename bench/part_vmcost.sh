#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Part C of the benchmark (bench/bench.sh, whose header describes every
# part): what all of rxlat's BPF programs cost per UDP datagram and per TCP
# segment on the fentry set, which the host kernel refuses (no BPF
# trampolines), so in Debian's 6.12 cloud kernel under QEMU
# (netns-tests/vm/vmtest.sh --kernel 6.12, netns-tests/vm/cost_guest.sh):
# veth between two namespaces of the guest, the sender's TSO/GSO off, the
# receiver's GRO on, kernel.bpf_stats_enabled=1. Per configuration (rxlat
# --xdp-mode native, rxlat's default: netns-tests/lib.sh's
# RXLAT_DEFAULT_ARGS, the tc stamper; XDP_PASS and the XDP floor alone for
# reference), alternated over the rounds: each program's run_cnt and
# run_time_ns over a known UDP load (rxlat-pktgen) and a known TCP load
# (iperf3 -n), the latter twice: as a veth delivers it, each segment with
# the sender's departure time, and as from a NIC (tcpnic: those times taken
# off at the sender's egress; netstacklat reads no skb that has one),
# divided by the frames the receiving veth took in (one per datagram, one
# per segment). Under TCG every ns is inflated, and a clock
# read (bpf_stats makes two per run) costs more against the rest than in
# hardware: the shares are what to read, not the ns.
#
# BENCH_VMCOST_BASE: an rxlat binary (say, a build of the previous stamper)
# measured in the same run as configurations "xdp-base" and "default-base".
# BENCH_NETSTACKLAT: a netstacklat binary (bench/netstacklat-build.sh makes
# one from a bpf-examples checkout), measured in the same rounds as
# configuration "netstacklat", all its probes on; the targets' "vs
# netstacklat" rows compare with it: all of rxlat's programs with the
# default stamper at <= 1.0x of netstacklat per UDP datagram and per TCP
# segment (over the veth and as from a NIC), and with the XDP stamper at
# <= 1.3x (its hooks alone at <= 1.0x).

# BENCH_VMCOST_BREAKDOWN=on: rxlat built four more times, each with one
# feature of the hooks off (RXLAT_COST_OFF in collector/attach/hooks/hooks.bpf.c),
# as configurations xdp-nostamp, xdp-nogroup, xdp-noooo, xdp-nohist, and
# rxlat's own build once more with a filter that every packet of the loads
# passes (xdp-filter: --port of the UDP load's and of iperf3's); a table
# gives what each feature adds per run of each hook (about 5 min of builds
# and 12 of the VM more).

declare -A VMC_DESC=([xdp]="rxlat --xdp-mode native" [default]="rxlat's default ($RXLAT_DEFAULT_CMD)"
	[xdp-base]="BENCH_VMCOST_BASE --xdp-mode native"
	[default-base]="BENCH_VMCOST_BASE with rxlat's default"
	[netstacklat]="netstacklat (BENCH_NETSTACKLAT), all probes"
	[xdp-nostamp]="as xdp, the hooks' stamp read off (a made-up stamp)"
	[xdp-nogroup]="as xdp, the group lookup off (--by's)"
	[xdp-noooo]="as xdp, the out-of-order notes and check off"
	[xdp-nohist]="as xdp, the histogram adds off"
	[xdp-filter]="as xdp, with --port of the loads' ports (every packet passes)")
# the breakdown's features: configuration suffix and RXLAT_COST_OFF bit
VMC_FEATURES="stamp:1 group:2 ooo:4 hist:8"
# the loads (netns-tests/vm/cost_guest.sh): tcpnic is tcp with the sender's
# departure times taken off, the segments as from a NIC
VMC_LOADS="udp tcp tcpnic"
# the targets against netstacklat, as ratios of its cost per frame, one
# figure for the rows and the budget: all of rxlat's programs with its
# default stamper; with the XDP stamper (which also measures the time
# before GRO), and its hooks alone
VMC_MAX_DEFAULT=1.0 VMC_MAX_TOTAL=1.3 VMC_MAX_HOOKS=1.0

# vmc_unit LOAD [short]: what LOAD's figures are per
vmc_unit()
{
	case $1${2:+-$2} in
	udp-short) echo dg ;;
	tcp*-short) echo seg ;;
	udp) echo "UDP datagram" ;;
	tcp) echo "TCP segment" ;;
	tcpnic) echo "TCP segment as from a NIC (no departure time)" ;;
	esac
}

# vmc_breakdown_figures SUMMARY LOAD: per hook of LOAD (the programs of
# configuration xdp that are neither stamper nor poll-end reset), a line
# "HOOK<tab>ALL<tab>+F..." of its ns per run with every feature on, what each
# feature of VMC_FEATURES adds (ns per run less the build without it) and
# what a filter that lets every packet through adds (xdp-filter less xdp);
# "-" where a configuration did not run
vmc_breakdown_figures()
{
	awk -v l="$2" -v feats="$VMC_FEATURES" '
	$2 == l && $4 != "xdp" && $4 != "sched_cls" && $3 !~ /^rxlat_napi/ {
		ns[$1, $3] = $6
		if ($1 == "xdp") order[++np] = $3
	}
	function delta(with, without) {
		if (!((with SUBSEP p) in ns) || !((without SUBSEP p) in ns)) return "-"
		return sprintf("%+.0f", ns[with, p] - ns[without, p])
	}
	END {
		nf = split(feats, f, " ")
		for (i = 1; i <= np; i++) {
			p = order[i]; out = sprintf("%s\t%.0f", p, ns["xdp", p])
			for (j = 1; j <= nf; j++) {
				split(f[j], kv, ":"); out = out "\t" delta("xdp", "xdp-no" kv[1])
			}
			print out "\t" delta("xdp-filter", "xdp")
		}
	}' <<<"$1"
}

# vmc_breakdown SUMMARY: those figures as a table per load
vmc_breakdown()
{
	local l fv
	for l in $VMC_LOADS; do
		printf '   %-28s %9s' "hook ($l), ns/run" "all on"
		for fv in $VMC_FEATURES; do printf ' %9s' "+${fv%%:*}"; done
		printf ' %9s\n' +filter
		vmc_breakdown_figures "$1" "$l" | awk -F'\t' '{
			printf "   %-28s", $1
			for (i = 2; i <= NF; i++) printf " %9s", $i
			printf "\n"
		}'
		echo
	done
}

# vmc_breakdown_rows SUMMARY: the same figures as rows of the targets table,
# for the loads whose comparison with netstacklat is like for like
vmc_breakdown_rows()
{
	local l line
	for l in udp tcpnic; do
		while read -r line; do
			row "Where a hook's cost goes (6.12 VM, fentry set), $(vmc_unit "$l"): ${line%%$'\t'*}, ns/run and what each feature adds" \
				"$(awk -F'\t' -v feats="$VMC_FEATURES filter:" '{
					n = split(feats, f, " "); out = $2 " all on"
					for (i = 1; i <= n; i++) { split(f[i], kv, ":"); out = out "; " kv[1] " " $(i + 2) }
					print out " (emulated)"
				}' <<<"$line")" "(printed)" "-"
		done < <(vmc_breakdown_figures "$1" "$l")
	done
}

# vmc_summary LINES: "CONF LOAD PROGRAM TYPE RUNS/UNIT NS/RUN UNITS" per
# program that ran, in the order first seen: runs per frame over all the
# repetitions, and the median over them of ns per run (a host that
# preempts the emulated CPU while a program runs inflates that run, now
# and then by milliseconds: the median leaves such repetitions out)
vmc_summary()
{
	awk '
	$4 == "units" { k = $2 SUBSEP $3; u[k] += $5; next }
	$4 == "prog" && $7 > 0 {
		k = $2 SUBSEP $3 SUBSEP $5
		if (!(k in n)) { order[++np] = k; ty[k] = $6; cl[k] = $2 SUBSEP $3 }
		c[k] += $7; v[k, ++n[k]] = $8 / $7
	}
	END {
		for (i = 1; i <= np; i++) {
			k = order[i]; m = n[k]
			# insertion sort of the m values, then the median
			for (a = 2; a <= m; a++)
				for (b = a; b > 1 && v[k, b - 1] > v[k, b]; b--) {
					x = v[k, b]; v[k, b] = v[k, b - 1]; v[k, b - 1] = x
				}
			med = m % 2 ? v[k, (m + 1) / 2] : (v[k, m / 2] + v[k, m / 2 + 1]) / 2
			split(k, f, SUBSEP)
			if (u[cl[k]] > 0)
				printf "%s %s %s %s %.4f %.1f %d\n", f[1], f[2], f[3], ty[k], c[k] / u[cl[k]], med, u[cl[k]]
		}
	}' <<<"$1"
}

# vmc_table SUMMARY LOAD UNIT CONF...: the per-program table of one load
vmc_table()
{
	local sum=$1 load=$2 unit=$3
	shift 3
	awk -v load="$load" -v unit="$unit" -v confs="$*" '
	$2 == load {
		k = $1 SUBSEP $3; r[k] = $5; ns[k] = $6
		if (!($3 in ty)) { ty[$3] = $4; order[++np] = $3 }
	}
	END {
		nc = split(confs, cf, " ")
		printf "   %-28s", "program (" load ")"
		for (j = 1; j <= nc; j++)
			printf " | %-26s", cf[j]
		printf "\n   %-28s", ""
		for (j = 1; j <= nc; j++)
			printf " | %8s %8s %8s", "runs/" unit, "ns/run", "ns/" unit
		printf "\n"
		for (i = 1; i <= np; i++) {
			p = order[i]; line = sprintf("   %-28s", p); any = 0
			for (j = 1; j <= nc; j++) {
				k = cf[j] SUBSEP p
				if (k in r) {
					line = line sprintf(" | %8.2f %8.0f %8.1f", r[k], ns[k], r[k] * ns[k])
					tot[j] += r[k] * ns[k]; any = 1
					if (ty[p] == "xdp" || ty[p] == "sched_cls") st[j] += r[k] * ns[k]
				} else
					line = line sprintf(" | %8s %8s %8s", "-", "-", "-")
			}
			if (any) print line
		}
		printf "   %-28s", "total"
		for (j = 1; j <= nc; j++)
			printf " | %8s %8s %8.1f", "", "", tot[j]
		printf "\n   %-28s", "stamper share of total"
		for (j = 1; j <= nc; j++)
			printf " | %8s %8s %7.0f%%", "", "", (tot[j] > 0 ? 100 * st[j] / tot[j] : 0)
		printf "\n"
	}' <<<"$sum"
}

# vmc_figure SUMMARY CONF LOAD WHAT: ns per frame of all CONF's programs
# (WHAT total), of its stamper (stamper), of its poll-end reset (reset), of
# its latency hooks alone, the stamper and the poll-end reset left out
# (hooks), or the frames (units)
vmc_figure()
{
	awk -v c="$2" -v l="$3" -v w="$4" '
	$1 == c && $2 == l {
		u = $7; t += $5 * $6
		if ($4 == "xdp" || $4 == "sched_cls") s += $5 * $6
		else if ($3 ~ /^rxlat_napi/) x += $5 * $6
	}
	END {
		if (w == "units") { print u + 0; exit }
		if (u <= 0) { print "-"; exit }
		printf "%.1f\n", (w == "stamper" ? s : w == "reset" ? x : w == "hooks" ? t - s - x : t)
	}' <<<"$1"
}

# vmc_vs_netstacklat SUMMARY: the targets' rows against netstacklat (all
# of rxlat's programs with the default stamper; with the XDP stamper, and
# its hooks alone), or "not measured" rows without BENCH_NETSTACKLAT
vmc_vs_netstacklat()
{
	local l unit what conf a b r target name
	for l in $VMC_LOADS; do
		unit=$(vmc_unit "$l")
		for what in default total hooks; do
			case $what in
			default)
				conf=default target="<= ${VMC_MAX_DEFAULT}x" what=total
				name="vs netstacklat (6.12 VM), per $unit: rxlat all programs, ${VMC_DESC[default]}"
				;;
			total)
				conf=xdp target="<= ${VMC_MAX_TOTAL}x"
				name="vs netstacklat (6.12 VM), per $unit: rxlat all programs, XDP stamper (--xdp-mode native)"
				;;
			hooks)
				conf=xdp target="<= ${VMC_MAX_HOOKS}x"
				name="vs netstacklat (6.12 VM), per $unit: rxlat hooks only (no stamper, no reset), --xdp-mode native"
				;;
			esac
			if [ -z "${BENCH_NETSTACKLAT:-}" ]; then
				row "$name" "not measured (BENCH_NETSTACKLAT unset)" "$target" "not measured"
				continue
			fi
			a=$(vmc_figure "$1" "$conf" "$l" "$what")
			b=$(vmc_figure "$1" netstacklat "$l" total)
			if [ "$a" = - ] || [ "$b" = - ]; then
				row "$name" "no result (see part C)" "$target" "not measured"
				continue
			fi
			r=$(ratio "$a" "$b")
			row "$name" "${r}x ($a vs $b ns, emulated)" "$target" "$(verdict "$r" '<=' "${target//[<= x]/}")"
		done
		if [ -n "${BENCH_NETSTACKLAT:-}" ]; then vmc_stamper_budget "$1" "$l"; fi
	done
}

# vmc_stamper_budget SUMMARY LOAD: what the all-programs target leaves the XDP
# stamper per frame once the hooks and the poll-end reset have their
# measured share, beside what an XDP program that writes the metadata and
# nothing else costs (the XDP floor): a budget under the floor is one that
# no metadata stamper meets with these hooks
vmc_stamper_budget()
{
	local b h x f p v left
	b=$(vmc_figure "$1" netstacklat "$2" total)
	h=$(vmc_figure "$1" xdp "$2" hooks)
	x=$(vmc_figure "$1" xdp "$2" reset)
	f=$(vmc_figure "$1" floor "$2" total)
	p=$(vmc_figure "$1" pass "$2" total)
	for v in "$b" "$h" "$x" "$f" "$p"; do
		if [ "$v" = - ]; then return 0; fi
	done
	left=$(awk -v m="$VMC_MAX_TOTAL" -v b="$b" -v h="$h" -v x="$x" 'BEGIN { printf "%.1f", m * b - h - x }')
	row "vs netstacklat (6.12 VM), per $(vmc_unit "$2"): what ${VMC_MAX_TOTAL}x leaves the XDP stamper, against the XDP floor" \
		"$left ns/frame left ($VMC_MAX_TOTAL x $b - hooks $h - reset $x); XDP floor $f, XDP_PASS $p (emulated)" "(printed)" "-"
}

# vmc_net SUMMARY CONF...: what any program that runs per frame pays here
# before doing anything (XDP's call, bpf_stats' own clock reads: XDP_PASS
# alone), and the XDP stamper's share of the total without it
vmc_net()
{
	local sum=$1 c l t s x
	shift
	for c in "$@"; do
		[[ $c == xdp* ]] || continue
		for l in $VMC_LOADS; do
			t=$(vmc_figure "$sum" "$c" "$l" total)
			s=$(vmc_figure "$sum" "$c" "$l" stamper)
			x=$(vmc_figure "$sum" pass "$l" total)
			{ [ "$t" = - ] || [ "$x" = - ]; } && continue
			printf '   %s, %s: stamper less XDP_PASS %s ns/frame; its share of the total less XDP_PASS %s%%\n' \
				"$l" "$c" "$(calc 'sprintf("%.1f", s - x)' -v s="$s" -v x="$x")" \
				"$(calc 'sprintf("%.0f", 100 * (s - x) / (t - x))' -v s="$s" -v x="$x" -v t="$t")"
		done
	done
}

part_vmcost()
{
	local log="$T_DIR/vmcost.log" lines sum confs="xdp default" c l x s u t0=$SECONDS unit
	local vbuild="$BUILD/vmcost"
	rm -rf "$vbuild"
	if [ -n "${BENCH_VMCOST_BASE:-}" ]; then
		[ -x "$BENCH_VMCOST_BASE" ] || die "BENCH_VMCOST_BASE: $BENCH_VMCOST_BASE is not an executable"
		mkdir -p "$vbuild" || die "cannot make $vbuild"
		cp "$BENCH_VMCOST_BASE" "$vbuild/rxlat-base" || die "cannot copy $BENCH_VMCOST_BASE"
		confs="xdp-base xdp default-base default"
	fi
	if [ "${BENCH_VMCOST_BREAKDOWN:-off}" = on ]; then
		local fv
		mkdir -p "$vbuild" || die "cannot make $vbuild"
		for fv in $VMC_FEATURES; do
			note "part C: rxlat built with RXLAT_COST_OFF=${fv#*:} (${fv%%:*} off)"
			make -s -C "$HERE/.." -j"$(nproc)" BUILD="$vbuild/build-${fv%%:*}" \
				BPF_EXTRA="-DRXLAT_COST_OFF=${fv#*:}" "$vbuild/build-${fv%%:*}/rxlat" \
				>"$T_DIR/build-${fv%%:*}.log" 2>&1 ||
				die "cannot build rxlat with RXLAT_COST_OFF=${fv#*:}: $(tail -n 3 "$T_DIR/build-${fv%%:*}.log")"
			cp "$vbuild/build-${fv%%:*}/rxlat" "$vbuild/rxlat-no${fv%%:*}" || die "cannot copy"
			rm -rf "$vbuild/build-${fv%%:*}"
			confs+=" xdp-no${fv%%:*}"
		done
		confs+=" xdp-filter"
	fi
	if [ -n "${BENCH_NETSTACKLAT:-}" ]; then
		[ -x "$BENCH_NETSTACKLAT" ] ||
			die "BENCH_NETSTACKLAT: $BENCH_NETSTACKLAT is not an executable (bench/netstacklat-build.sh builds one)"
		mkdir -p "$vbuild" || die "cannot make $vbuild"
		cp "$BENCH_NETSTACKLAT" "$vbuild/netstacklat" || die "cannot copy $BENCH_NETSTACKLAT"
		confs+=" netstacklat"
	fi
	note "part C: rxlat's BPF cost per packet in the 6.12 VM (boot included, about 4 min)"
	VMTEST_TIMEOUT=${VMTEST_TIMEOUT:-1800} BUILD=$BUILD VMTEST_ENV="
export BENCH_VMCOST_CONFS='pass floor $confs'
export BENCH_VMCOST_ROUNDS=$VMC_ROUNDS
export BENCH_VMCOST_UDP=$VMC_UDP
export BENCH_VMCOST_TCP_BYTES=$VMC_TCP_BYTES" \
		"$HERE/../netns-tests/vm/vmtest.sh" --kernel 6.12 -- ./netns-tests/vm/cost_guest.sh >"$log" 2>&1 ||
		note "the VM of part C failed: see its last lines below"
	rm -rf "$vbuild"
	lines=$(sed -n 's/^\[6.12\] \(vmcost .*\)$/\1/p' "$log")
	sum=$(vmc_summary "$lines")
	echo
	echo "C. BPF cost per UDP datagram and per TCP segment, fentry set: Debian 6.12 under QEMU (TCG),"
	echo "   veth between two namespaces of the guest (sender TSO/GSO off, receiver GRO on),"
	echo "   kernel.bpf_stats_enabled=1, $VMC_ROUNDS rounds of $VMC_UDP datagrams (rxlat-pktgen) and"
	echo "   $VMC_TCP_BYTES of iperf3 -n per configuration, alternated; runs/dg and runs/seg are"
	echo "   run_cnt over the frames the receiving veth took in. tcpnic: the same TCP load with the"
	echo "   sender's departure times taken off at its egress, so that segments arrive as from a NIC"
	echo "   (netstacklat reads no skb that carries one). Emulation inflates every ns: read the"
	echo "   shares and ratios, not the ns."
	for c in $confs; do
		echo "   $c: ${VMC_DESC[$c]}"
	done
	echo
	if ! grep -q ' units ' <<<"$lines"; then
		echo "   no result:"
		tail -n 5 "$log" | sed 's/^/   /'
		row "BPF cost per TCP segment (6.12 VM): stamper's share" "no result (see part C)" "< 25%" "not measured"
		vmc_vs_netstacklat ""
		return 0
	fi
	for l in $VMC_LOADS; do
		# shellcheck disable=SC2086 # a list of configurations
		vmc_table "$sum" "$l" "$(vmc_unit "$l" short)" $confs
		echo
	done
	for l in $VMC_LOADS; do
		printf '   %s, alone in native XDP: XDP_PASS %s ns/frame, XDP floor (meta, no clock, no map) %s ns/frame\n' \
			"$l" "$(vmc_figure "$sum" pass "$l" total)" "$(vmc_figure "$sum" floor "$l" total)"
	done
	# shellcheck disable=SC2086 # a list of configurations
	vmc_net "$sum" $confs
	echo "   $(sed -n 's/^vmcost clocksource /guest clocksource: /p' <<<"$lines" | head -n 1)"
	for c in $confs; do
		[[ $c == netstacklat || $c == xdp-no* || $c == xdp-filter ]] && continue
		for l in $VMC_LOADS; do
			unit=$(vmc_unit "$l")
			t=$(vmc_figure "$sum" "$c" "$l" total)
			s=$(vmc_figure "$sum" "$c" "$l" stamper)
			u=$(vmc_figure "$sum" "$c" "$l" units)
			[ "$t" = - ] && continue
			x=$(calc 'sprintf("%.0f", 100 * s / t)' -v s="$s" -v t="$t")
			if [ "$c" = xdp ] && [ "$l" = tcp ]; then
				row "BPF cost per $unit (6.12 VM, veth), ${VMC_DESC[xdp]}: stamper's share" \
					"$x% ($s of $t ns/segment, emulated; $u segments)" "< 25%" "$(verdict "$x" '<' 25)"
			else
				row "BPF cost per $unit (6.12 VM, veth), ${VMC_DESC[$c]}: stamper's share" \
					"$x% ($s of $t ns, emulated; $u frames)" "(printed)" "-"
			fi
		done
	done
	vmc_vs_netstacklat "$sum"
	if [[ " $confs " == *" xdp-nohist "* ]]; then
		echo
		echo "   What each feature of the hooks adds per run (ns/run of xdp less that of the build"
		echo "   without it; emulated, and within the spread of the runs where small):"
		echo
		vmc_breakdown "$sum"
		vmc_breakdown_rows "$sum"
	fi
	echo
	echo "   part C took $((SECONDS - t0)) s"
}

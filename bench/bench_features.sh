#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The cost of the filters, --slow, --drops, --by, napi_wait and --from schedule, for
# bench/bench.sh, which
# sources this file after its helpers (bench/lib.sh: rxlat_start_or_die,
# rxlat_stop, pid_bpf_ids, udp_load, note, die; bench/part_cost.sh:
# record_stats) and settings (FEAT_ROUNDS) and calls part_features after
# setup.
#
# Same method as part 3 (bench/part_cost.sh): kernel bpf_stats
# (run_time_ns / run_cnt of every program rxlat holds), under the
# small-packet UDP load of part 2 (BENCH_UDP_FLOWS iperf3 -u -b 0 -l
# BENCH_UDP_LEN), batch stamps, the default stages.
# One run per configuration and round, the configurations alternated in
# each of BENCH_FEAT_ROUNDS rounds (default 2), so that a slow spell of the
# machine does not land on one configuration alone:
#
#   off          no feature (the reference)
#   port_out     --port 1: a filter that filters every packet out
#   port_match   --port with the load's ports: every packet passes the filter
#   slow_above   --slow 10s: records on, a threshold above every sample
#   slow_below   --slow 1ns: a threshold below every sample (records at
#                the default --slow-rate of 1000/s per CPU, the rest held
#                back by the token bucket)
#   drops        --drops (the socket overflows under this load: drops)
#   by_none      --by none: rxlat's namespace only (off is --by netns, the
#                default: one comparison more per sample)
#   by_cgroup    --by cgroup: every sample of a socket stage reads the
#                socket's cgroup id and finds its group slot (the per-CPU
#                last key, then the hash), the path a pod's samples take
#                under --by netns too, less the cgroup read
#   napi_wait    --stages +napi_wait: the schedule programs (fentry on
#                __napi_schedule*, or softirq_raise/_entry/_exit without
#                trampolines) run once per NAPI schedule (per NET_RX round)
#                and ip_rcv takes one sample more per poll
#   from_sched   --from schedule: napi_wait, and every sample finds its
#                poll's wait by the stamp (one array lookup; one word
#                written per poll)
#
# Printed per configuration, over its runs: ns per run of each latency hook
# and of the kfree_skb program, and ns per packet of all hooks (ns/run x runs
# / runs of the XDP stamper), beside the "off" row.

# shellcheck disable=SC2034 # FEAT_* are read by the awk program below

FEAT_CONFS=${BENCH_FEAT_CONFS:-off port_out port_match slow_above slow_below drops by_none by_cgroup napi_wait from_sched}

feature_args()	# CONF
{
	case $1 in
	off) ;;
	port_out) echo "--port 1" ;;
	port_match) echo "--port $(seq -s, "$UDP_PORT" $((UDP_PORT + UDP_FLOWS - 1)))" ;;
	slow_above) echo "--slow 10s" ;;
	slow_below) echo "--slow 1ns" ;;
	drops) echo "--drops" ;;
	by_none) echo "--by none" ;;
	by_cgroup) echo "--by cgroup" ;;
	napi_wait) echo "--stages +napi_wait" ;;
	from_sched) echo "--from schedule" ;;
	esac
}

feature_one()	# CONF ROWS
{
	local conf=$1 rows=$2 ids=() extra
	read -r -a extra <<<"$(feature_args "$conf")"
	rxlat_start_or_die "$T_DIR/rx-feat-$conf.json" -i "$IF_R" -d $((COST_SECS + 60)) -o json \
		"${extra[@]}"
	mapfile -t ids < <(pid_bpf_ids "$RX_PID" prog)
	[ "${#ids[@]}" -gt 0 ] || die "no BPF programs found in rxlat's file descriptors"
	udp_load "$COST_SECS" "feat-$conf"
	COST_ROWS=$rows record_stats udp "$conf" "" "${ids[@]}"
	rxlat_stop
	printf '%s\t%.0f\n' "$conf" "$UDP_KPPS" >>"$rows.load"
}

part_features()
{
	local rows="$T_DIR/features.tsv" conf old r

	old=$(sysctl -n kernel.bpf_stats_enabled) || die "cannot read kernel.bpf_stats_enabled"
	sysctl -q -w kernel.bpf_stats_enabled=1 >/dev/null || die "cannot set kernel.bpf_stats_enabled=1"
	: >"$rows"
	: >"$rows.load"
	for ((r = 1; r <= FEAT_ROUNDS; r++)); do
		for conf in $FEAT_CONFS; do
			note "features round $r/$FEAT_ROUNDS: $conf $(feature_args "$conf")"
			feature_one "$conf" "$rows"
		done
	done
	sysctl -q -w kernel.bpf_stats_enabled="$old" >/dev/null ||
		die "cannot restore kernel.bpf_stats_enabled=$old"

	echo
	echo "F. Cost of the filters, --slow, --drops, --by, napi_wait and --from schedule: bpf_stats, iperf3 -u -b 0 -l $UDP_LEN for ${COST_SECS}s per run,"
	echo "   $FEAT_ROUNDS rounds alternated, batch stamps, the default stages. hooks ns/pkt: every latency hook (and"
	echo "   kfree_skb) ns/run x runs / XDP runs, over the rounds. Datagrams read per run (kpkt/s):"
	echo
	awk -F'\t' '{ if (!($1 in r)) o[++n] = $1; r[$1] = r[$1] " " $2 }
		END { for (i = 1; i <= n; i++) printf "     %-11s%s\n", o[i], r[o[i]] }' "$rows.load"
	echo
	awk -F'\t' '
	{
		c = $2; if (!(c in seen)) { seen[c] = 1; order[++n] = c }
		if ($4 == "xdp") { xdp[c] += $5; next }
		if ($5 > 0) { cnt[c, $3] += $5; tns[c, $3] += $6; progs[$3] = 1 }
		tim[c] += $6
	}
	END {
		printf "%-11s %9s %9s", "config", "hooks", "vs off"
		np = 0
		for (p in progs) list[++np] = p
		for (i = 1; i <= np; i++) for (j = i + 1; j <= np; j++) if (list[j] < list[i]) { t = list[i]; list[i] = list[j]; list[j] = t }
		for (i = 1; i <= np; i++) { h = list[i]; sub(/^rxlat_/, "", h); printf " %14s", substr(h, 1, 14) }
		printf "\n%-11s %9s %9s", "", "ns/pkt", ""
		for (i = 1; i <= np; i++) printf " %14s", "ns/run"
		printf "\n"
		for (k = 1; k <= n; k++) {
			c = order[k]
			per = xdp[c] > 0 ? tim[c] / xdp[c] : 0
			if (k == 1) base = per
			printf "%-11s %9.0f %+9.0f", c, per, per - base
			for (i = 1; i <= np; i++) {
				if ((c, list[i]) in cnt) printf " %14.0f", tns[c, list[i]] / cnt[c, list[i]]
				else printf " %14s", "-"
			}
			printf "\n"
		}
	}' "$rows"
}

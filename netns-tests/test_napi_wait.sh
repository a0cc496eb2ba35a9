#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# napi_wait, the wait before the stamp: from the schedule of the receiving
# queue's NAPI instance to the stamp of the poll that took the packet.
# Datagrams paced so that every poll follows a schedule of its own: one
# sample per poll, per queue, equal to rxlat's own poll count and to
# rxlat-meta-probe's count of napi:napi_poll events that took packets. A
# known wait (the probe busy-waits at the entry of every NET_RX softirq)
# moves napi_wait's mean by that much and leaves ip_rcv's alone. Threaded
# NAPI: measured to the poll in the instance's thread in both sets (fentry:
# the instance's schedule; the fallback: the wake-up of its thread).
#
# On the host (no BPF trampolines) this proves the fallback set, under QEMU
# (make vmtest) the fentry set.

# shellcheck source=netns-tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RXLAT=$BUILD/rxlat
PKTGEN=$BUILD/rxlat-pktgen
PROBE=$BUILD/rxlat-meta-probe
N=${RXLAT_TEST_PACKETS:-300}
PORT=7700
RXLAT_ARGS=()
# the known wait: well above the emulated guest's own jitter
if [[ -n ${RXLAT_VM:-} ]]; then
	DELAY_US=2000 PPS=100
else
	DELAY_US=300 PPS=500
fi

need() { need_rxlat && require_file build "$PROBE" "run 'make test-binaries'"; }

# "Q:SUM,..." of napi_wait's samples per queue, in queue order
wait_per_queue()	# FILE
{
	gojq -rs '[.[].series[] | select(.stage == "napi_wait" and .count > 0)]
		| group_by(.queue) | map("\(.[0].queue):\(map(.count) | add)") | join(",")' "$1"
}

# "Q:{REASON:N,...},..." of napi_wait's polls without a sample, per queue
unsampled_per_queue()	# FILE
{
	gojq -rcs '[.[].series[] | select(.stage == "napi_wait")] | group_by(.queue)
		| map("\(.[0].queue):\(map(.unsampled | to_entries) | add | group_by(.key)
		| map({(.[0].key): (map(.value) | add)}) | add)") | join(",")' "$1"
}

# "Q:SUM,..." of napi_wait's samples and polls without one, per queue
counted_per_queue()	# FILE
{
	gojq -rs '[.[].series[] | select(.stage == "napi_wait")] | group_by(.queue)
		| map({q: .[0].queue, n: (map(.count + (.unsampled | add)) | add)})
		| map(select(.n > 0)) | map("\(.q):\(.n)") | join(",")' "$1"
}

# "Q:SUM,..." of the stamper's polls of IF_B per queue, in queue order
polls_per_queue()	# FILE
{
	gojq -rs --argjson i "$IFINDEX_B" '[.[].xdp[] | select(.ifindex == $i and .polls > 0)]
		| group_by(.queue) | map("\(.[0].queue):\(map(.polls) | add)")
		| join(",")' "$1"
}

# mean ns of STAGE over the reports of FILE
stage_mean()	# FILE STAGE
{
	gojq -s --arg s "$2" '[.[].series[] | select(.stage == $s)]
		| if (map(.count) | add // 0) == 0 then 0
		  else ((map(.sum_ns) | add) / (map(.count) | add) | floor) end' "$1"
}

# "polls/stamped/ksoftirqd" of IF_B over the reports of FILE
xdp_line()	# FILE
{
	gojq -rs --argjson i "$IFINDEX_B" '[.[].xdp[] | select(.ifindex == $i)]
		| "\(map(.polls) | add // 0)/\(map(.stamped) | add // 0)/\(map(.polls_ksoftirqd) | add // 0)"' "$1"
}

# COUNT datagrams, one flow (one queue), paced at PPS, all received; the
# sender and the receiver under PIN (taskset -c CPU), if set
PIN=()
send_paced()	# COUNT
{
	local pid
	t_bg recv in_ns "$NS_B" "${PIN[@]}" "$PKTGEN" recv --port "$PORT" --count "$1" --timeout 60
	pid=$BG_PID
	t_wait_line "$T_DIR/recv.out" '^ready$' 10 "$pid" ||
		t_abort receiver "rxlat-pktgen recv did not start: $(tail -n 1 "$T_DIR/recv.err")"
	assert_cmd send in_ns "$NS_A" "${PIN[@]}" timeout 60 "$PKTGEN" send --dev "$IF_A" --dst-mac "$MAC_B" \
		--src-ip "$IP4_A" --dst-ip "$IP4_B" --dport "$PORT" --count "$1" --flows 1 --pps "$PPS"
	t_wait_pid "$pid" 60
	assert_eq recv "received $1 valid $1 invalid 0 duplicate 0" "$(tail -n 1 "$T_DIR/recv.out")"
}

# the attach point rxlat chose for napi_wait: a schedule function or the raise
attach_of_wait()
{
	gojq -rs '.[0].attach.napi_wait // ""' "$T_DIR/rxlat.out"
}

# One sample per poll, on every queue: rxlat's napi_wait against its own
# poll count and against the probe's count of napi:napi_poll events.
polls()
{
	local pid probe_polls
	need || return 1
	ns_pair || t_abort setup "cannot create the namespaces"
	t_bg probe in_ns "$NS_B" "$PROBE" --dev "$IF_B" --seconds 120
	pid=$BG_PID
	t_wait_line "$T_DIR/probe.out" '^attached$' 10 "$pid" ||
		t_abort probe "rxlat-meta-probe did not attach: $(tail -n 1 "$T_DIR/probe.err")"
	start_rxlat -i "$IF_B" --per-queue --stages +napi_wait || return 1
	send_paced "$N"
	sleep 0.6 # one more report interval
	stop_rxlat || return 1
	kill -INT "$pid"
	t_wait_pid "$pid" 20
	assert_eq probe_exit 0 "$?" "rxlat-meta-probe exit status ($(tail -n 1 "$T_DIR/probe.err"))"
	probe_polls=$(sed -n 's/^queue_polls=\([^ ]*\).*/\1/p' "$T_DIR/probe.out")
	log "napi_wait per queue: $(wait_per_queue "$T_DIR/rxlat.out"); polls: $probe_polls"

	if [[ -n ${RXLAT_VM:-} ]]; then
		assert_eq attach fentry:__napi_schedule,__napi_schedule_irqoff,softirq_raise "$(attach_of_wait)"
	else
		assert_eq attach tp_btf:softirq_raise,sched_waking "$(attach_of_wait)"
	fi
	assert_ge samples 1 "$(stage_sum napi_wait .count)" "napi_wait samples"
	assert_eq per_queue_vs_polls "$(polls_per_queue "$T_DIR/rxlat.out")" \
		"$(wait_per_queue "$T_DIR/rxlat.out")" "napi_wait samples vs rxlat's polls, per queue"
	assert_eq per_queue_vs_probe "$probe_polls" "$(wait_per_queue "$T_DIR/rxlat.out")" \
		"napi_wait samples vs napi:napi_poll events, per queue"
	assert_eq from_xdp "$(stage_sum napi_wait .count)" \
		"$(stage_sum napi_wait .sources.xdp)" "napi_wait samples from XDP stamps"
	assert_eq ip_rcv_count "$N" "$(stage_sum ip_rcv .count)"
}

# A known wait: DELAY_US at every NET_RX softirq's entry, between the
# schedule and the poll. napi_wait's mean moves by the mean wait the probe
# made (at least DELAY_US each; more where the CPU was taken away meanwhile,
# as the host takes an emulated one): at least 90% of it, at most 110% + 2
# us; ip_rcv's (after the stamp) by less than a tenth of it.
delay()
{
	local lines w0 w1 i0 i1 d
	need || return 1
	ns_pair || t_abort setup "cannot create the namespaces"
	start_rxlat -i "$IF_B" --stages +napi_wait || return 1
	send_paced "$N"
	sleep 1.2 # every sample of the first part in a finished report
	lines=$(wc -l <"$T_DIR/rxlat.out")
	head -n "$lines" "$T_DIR/rxlat.out" >"$T_DIR/base.json"
	probe_part delayed --softirq-delay-us "$DELAY_US"
	sleep 0.6
	stop_rxlat || return 1
	tail -n +"$((lines + 1))" "$T_DIR/rxlat.out" >"$T_DIR/delayed.json"
	d=$(sed -n 's/^delay_runs=[1-9][0-9]* delay_mean_ns=\([0-9]*\)$/\1/p' "$T_DIR/probe-delayed.out")
	assert_ge delay_made $((DELAY_US * 1000)) "${d:-0}" "mean wait the probe made, ns" || return 1

	w0=$(stage_mean "$T_DIR/base.json" napi_wait) w1=$(stage_mean "$T_DIR/delayed.json" napi_wait)
	i0=$(stage_mean "$T_DIR/base.json" ip_rcv) i1=$(stage_mean "$T_DIR/delayed.json" ip_rcv)
	log "mean ns: napi_wait $w0 -> $w1, ip_rcv $i0 -> $i1 (wait added: $d ns on average, $DELAY_US us asked)"
	log "polls, stamped, in ksoftirqd: $(xdp_line "$T_DIR/base.json") -> $(xdp_line "$T_DIR/delayed.json")"
	assert_eq base_samples "$N" "$(stage_sum napi_wait .count "$T_DIR/base.json")" "napi_wait samples before"
	assert_eq delayed_samples "$N" "$(stage_sum napi_wait .count "$T_DIR/delayed.json")" \
		"napi_wait samples with the wait"
	assert_ge wait_moved $((d * 9 / 10)) $((w1 - w0)) "napi_wait mean moved by"
	assert_le wait_moved_at_most $((d * 11 / 10 + 2000)) $((w1 - w0)) "napi_wait mean moved by"
	assert_le ip_rcv_still $((d / 10)) $((i1 > i0 ? i1 - i0 : i0 - i1)) "ip_rcv mean moved by"
}

# N paced datagrams while rxlat-meta-probe runs with PROBE-ARGS, named NAME
probe_part()	# NAME PROBE-ARGS...
{
	local pid name=$1
	shift
	t_bg "probe-$name" in_ns "$NS_B" "$PROBE" --dev "$IF_B" --seconds 120 "$@"
	pid=$BG_PID
	t_wait_line "$T_DIR/probe-$name.out" '^attached$' 10 "$pid" ||
		t_abort probe "rxlat-meta-probe did not attach: $(tail -n 1 "$T_DIR/probe-$name.err")"
	send_paced "$N"
	kill -INT "$pid"
	t_wait_pid "$pid" 20
	assert_eq "probe_exit_$name" 0 "$?" "rxlat-meta-probe exit status ($(tail -n 1 "$T_DIR/probe-$name.err"))"
}

# --from schedule, with the known wait of delay(): every stage after the
# stamp starts at the schedule of the packet's poll. One datagram per poll,
# so each packet's poll has its schedule: every stage that measures UDP has
# a sample from XDP of every datagram and none without one. Per packet, a
# stage from the schedule is its poll's wait plus the time from the stamp:
# the sums of the stages' latencies rise from napi_wait's in the order the
# packet reaches them, and the last stage's mean is at least the wait the
# probe made. (sock_read measures UDP where the kernel lets it: rxlat's
# "measures" says where.)
from_schedule()
{
	local d s prev=0 sum means='' stages=(ip_rcv udp_queue_rcv) src=xdp
	need || return 1
	ns_pair || t_abort setup "cannot create the namespaces"
	start_rxlat -i "$IF_B" --from schedule || return 1
	probe_part delayed --softirq-delay-us "$DELAY_US"
	sleep 0.6
	stop_rxlat || return 1
	if [[ ${RXLAT_STAMPER:-} == default ]]; then
		src=tc
		# ip_rcv's fallback runs before tc ingress: no stamp there yet
		[[ $(gojq -rs '.[0].attach.ip_rcv' "$T_DIR/rxlat.out") == *netif_receive_skb* ]] &&
			stages=(udp_queue_rcv)
	fi
	d=$(sed -n 's/^delay_runs=[1-9][0-9]* delay_mean_ns=\([0-9]*\)$/\1/p' "$T_DIR/probe-delayed.out")
	assert_eq from_json schedule "$(gojq -rs '.[0].from' "$T_DIR/rxlat.out")" "the reports' from"
	assert_eq napi_wait_samples "$N" "$(stage_sum napi_wait .count)"
	[[ $(gojq -rs '.[0].measures.sock_read | index("udp") != null' "$T_DIR/rxlat.out") == true ]] &&
		stages+=(sock_read)
	for s in napi_wait "${stages[@]}"; do
		means+=" $s $(stage_mean "$T_DIR/rxlat.out" "$s")"
	done
	log "mean ns from the schedule:$means (wait added: ${d:-?} ns on average)"
	for s in "${stages[@]}"; do
		assert_eq "${s}_from_$src" "$N" "$(stage_sum "$s" ".sources.$src")" "$s samples with a schedule"
		assert_eq "${s}_none" 0 "$(stage_sum "$s" .sources.none)" "$s samples without one"
	done
	for s in napi_wait "${stages[@]}"; do
		sum=$(stage_sum "$s" .sum_ns)
		assert_ge "${s}_sum_in_order" "$prev" "$sum" "sum of $s's latencies, ns"
		prev=$sum
	done
	assert_ge last_from_schedule $((${d:-1} * 9 / 10)) "$(stage_mean "$T_DIR/rxlat.out" "$s")" \
		"$s's mean from the schedule, ns"
}

# Threaded NAPI on the receiving veth: every poll runs in the instance's
# thread.
threaded()
{
	local polls
	need || return 1
	ns_pair || t_abort setup "cannot create the namespaces"
	start_rxlat -i "$IF_B" --per-queue --stages +napi_wait || return 1
	# veth has NAPI instances only while XDP is attached
	ns_sysfs_write "$NS_B" "/sys/class/net/$IF_B/threaded" 1
	assert_eq threaded 1 "$(ns_sysfs_read "$NS_B" "/sys/class/net/$IF_B/threaded")" \
		"threaded NAPI on $IF_B"
	send_paced "$N"
	sleep 0.6
	stop_rxlat || return 1
	polls=$(gojq -s --argjson i "$IFINDEX_B" '[.[].xdp[] | select(.ifindex == $i) | .polls] | add // 0' \
		"$T_DIR/rxlat.out")
	assert_ge polls 1 "$polls" "polls of $IF_B"
	assert_eq polls_thread "$polls" "$(gojq -s '[.[].xdp[].polls_thread] | add // 0' "$T_DIR/rxlat.out")" \
		"polls in the NAPI thread"
	log "napi_wait per queue: $(wait_per_queue "$T_DIR/rxlat.out"), unsampled: $(unsampled_per_queue "$T_DIR/rxlat.out")"
	# the schedule per instance: the wait to the poll in its thread. A
	# datagram that comes while the thread still runs wakes nothing
	# (unscheduled), and on a loaded host the thread may find a full budget
	# (after_full): each poll a sample or counted under its reason
	assert_eq per_queue_counted "$(polls_per_queue "$T_DIR/rxlat.out")" \
		"$(counted_per_queue "$T_DIR/rxlat.out")" "napi_wait samples and unsampled polls vs polls, per queue"
	assert_eq unsampled_reasons '{"busy":0,"full_over":0,"late":0}' "$(gojq -cs --argjson i "$IFINDEX_B" '
		([.[].series[] | select(.stage == "napi_wait") | .unsampled]) as $u
		| {busy: ($u | map(.busy) | add // 0), late: ($u | map(.late) | add // 0),
		   full_over: ([($u | map(.after_full) | add // 0) - ([.[].xdp[] | select(.ifindex == $i)
			| .polls_full] | add // 0), 0] | max)}' "$T_DIR/rxlat.out")" \
		"polls unsampled as busy, late, or after more full polls than there were"
	assert_eq ip_rcv_count "$N" "$(stage_sum ip_rcv .count)"
}

# napi_wait's p99 over the reports of FILE: the upper bound (le_ns) of
# the bucket that holds it, its buckets merged over reports and queues
wait_p99()	# FILE
{
	gojq -s '[.[].series[] | select(.stage == "napi_wait") | .buckets[]]
		| group_by(.le_ns | tostring) | map({le: .[0].le_ns, n: (map(.count) | add)})
		| sort_by(.le | if type == "number" then . else infinite end)
		| (map(.n) | add // 0) as $t | if $t == 0 then 0 else
		  first(foreach .[] as $b (0; . + $b.n; select(. >= 0.99 * $t) | $b.le)) end' "$1"
}

# A SCHED_FIFO hog on the CPU of the receiving queue's NAPI thread, the
# sender and receiver on another: the thread waits behind the hog, and
# napi_wait's p99 rises with it (at least 10 ms and ten times the p99
# before); with the hog gone, it falls back (under a tenth). Threaded NAPI,
# because on a veth the NET_RX softirq runs in the sender, which the hog
# would stop as well, and since Linux 6.5 a softirq raised by an interrupt
# runs at its exit even on a busy CPU: a NAPI thread is a task like any
# other, as ksoftirqd is.
hog()
{
	local t n=100 threads=() p0 p1 p2 lines pid
	need || return 1
	require_cmd tools taskset || return 1
	require_cmd tools chrt || return 1
	(($(nproc) >= 2)) || {
		skip two_cpus "one CPU here: the hog would stop the sender as well"
		return 0
	}
	ns_pair || t_abort setup "cannot create the namespaces"
	start_rxlat -i "$IF_B" --per-queue --stages +napi_wait || return 1
	ns_sysfs_write "$NS_B" "/sys/class/net/$IF_B/threaded" 1
	mapfile -t threads < <(napi_threads "$IF_B")
	assert_ge napi_threads 1 "${#threads[@]}" "NAPI threads of $IF_B" || return 1
	for t in "${threads[@]}"; do
		assert_cmd pin taskset -pc 1 "$t" || return 1
	done
	PIN=(taskset -c 0)
	part()	# NAME: N datagrams, their reports in $T_DIR/NAME.json
	{
		local end
		lines=$(wc -l <"$T_DIR/rxlat.out")
		send_paced "$n"
		sleep 1.2 # every sample in a finished report
		# the complete lines: rxlat may be writing the next one
		end=$(wc -l <"$T_DIR/rxlat.out")
		sed -n "$((lines + 1)),${end}p" "$T_DIR/rxlat.out" >"$T_DIR/$1.json"
	}
	part before
	cpu_hog_cmd 1 4 1000 0
	t_bg hog "${HOG[@]}"
	pid=$BG_PID
	sleep 0.3
	part hogged
	t_wait_pid "$pid" 10
	part after
	stop_rxlat || return 1
	p0=$(wait_p99 "$T_DIR/before.json") p1=$(wait_p99 "$T_DIR/hogged.json") p2=$(wait_p99 "$T_DIR/after.json")
	log "napi_wait p99 (bucket bound, ns): $p0 before, $p1 with the hog, $p2 after;" \
		"polls/stamped/ksoftirqd $(xdp_line "$T_DIR/hogged.json") with the hog"
	assert_eq hogged_in_thread "$(gojq -s '[.[].xdp[].polls] | add // 0' "$T_DIR/hogged.json")" \
		"$(gojq -s '[.[].xdp[].polls_thread] | add // 0' "$T_DIR/hogged.json")" "polls in the thread"
	assert_ge hogged_samples 1 "$(stage_sum napi_wait .count "$T_DIR/hogged.json")" "napi_wait samples"
	assert_ge hogged_p99 10000000 "$p1" "napi_wait p99 with the hog, ns"
	assert_ge hogged_p99_vs_before $((p0 * 10)) "$p1" "napi_wait p99 with the hog, ns"
	assert_le after_p99 $((p1 / 10)) "$p2" "napi_wait p99 with the hog gone, ns"
	assert_eq ip_rcv_count $((3 * n)) "$(stage_sum ip_rcv .count)"
}

# Where napi_wait would measure nothing, it never says it does: without a
# stamper (no -i, none loaded) it is not measured, with the reason; with
# generic XDP on the fallback set (ip_rcv's tracepoint runs before generic
# XDP stamps) the run is refused before anything is attached, and its hint,
# the default stamper, measures every datagram's poll.
unmeasured()
{
	local rc
	need || return 1
	ns_pair || t_abort setup "cannot create the namespaces"
	in_ns "$NS_B" "$RXLAT" --stages +napi_wait -d 0.3 -r 0.1 -o json >"$T_DIR/none.out" 2>"$T_DIR/none.err"
	assert_eq no_stamper_exit 0 "$?"
	assert_eq no_stamper_measures '[]' "$(gojq -sc '.[-1].measures.napi_wait' "$T_DIR/none.out")"
	assert_match no_stamper_why '^no stamper' "$(gojq -sr '.[-1].not_measured.napi_wait.udp' "$T_DIR/none.out")"
	assert_eq no_stamper_said 1 "$(grep -c '^rxlat: no XDP stamper attached .*, and no napi_wait$' "$T_DIR/none.err")"
	in_ns "$NS_B" "$RXLAT" --list-stages >"$T_DIR/list" 2>&1
	grep -q '^ip_rcv .*netif_receive_skb' "$T_DIR/list" || return 0
	in_ns "$NS_B" "$RXLAT" -i "$IF_B" --xdp-mode skb --stages +napi_wait -d 1 -o json \
		>/dev/null 2>"$T_DIR/skb.err"
	rc=$?
	assert_one_line_error skb_refused \
		"^rxlat: error: --xdp-mode skb: generic XDP stamps after ip_rcv's fallback \\(tp_btf:netif_receive_skb\\), where napi_wait reads an XDP stamp: it would measure nothing on this kernel; leave out --xdp-mode to measure it from the tc stamp\$" \
		"$rc" "$T_DIR/skb.err"
	assert_eq skb_nothing_attached "" "$(link_xdp_prog "$NS_B" "$IF_B")"
	# the hint, followed
	RXLAT_STAMPER=default start_rxlat -i "$IF_B" --stages +napi_wait || return 1
	send_paced "$N"
	sleep 0.6
	stop_rxlat || return 1
	assert_eq hint_samples "$N" "$(stage_sum napi_wait .sources.tc)" "napi_wait samples from the tc stamp"
}

# delay() and from_schedule() on rxlat's default stamper: the veth stamped
# at tc ingress, where the wait ends at the poll's first packet (a veth
# without NAPI: the round of the sender CPU's backlog, from the raise)
on_tc()	# TEST
{
	RXLAT_STAMPER=default "$1"
}

suite_begin
run_test napi_wait.polls polls
run_test napi_wait.delay one_vm_kernel 6.12 delay
run_test napi_wait.delay_tc on_tc delay
run_test napi_wait.from_schedule_tc one_vm_kernel 6.1 on_tc from_schedule
run_test napi_wait.unmeasured one_vm_kernel 6.12 unmeasured
run_test napi_wait.threaded one_vm_kernel 6.1 threaded
run_test napi_wait.hog one_vm_kernel 6.1 hog
run_test napi_wait.from_schedule one_vm_kernel 6.1 from_schedule
suite_end

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Part 5 of the benchmark (bench/bench.sh, whose header describes every
# part): the accuracy of the stamper loaded alone. bench.sh sources this
# file after bench/lib.sh and calls part_accuracy after setup.

# --------------------------------------- part 5: standalone accuracy

# p50 of the values in FILE (one number a line), ns
p50_of()
{
	sort -n "$1" | awk '/^[0-9]+$/ { v[n++] = $1 } END { if (n) print v[int((n - 1) / 2)]; else print 0 }'
}

acc_phase()	# NAME
{
	bt_start print "$1"
	in_ns "$NS_S" timeout $((ACC_SECS + 30)) "$PKTGEN" send --dev "$IF_S" --dst-mac "$MAC_R" \
		--src-ip "$ADDR_S" --dst-ip "$ADDR_R" --dport 9 --count $((ACC_SECS * ACC_PPS)) \
		--flows 8 --size "$UDP_LEN" --pps "$ACC_PPS" >/dev/null 2>"$T_DIR/pktgen.err" ||
		die "rxlat-pktgen send failed: $(tail -n 2 "$T_DIR/pktgen.err")"
	sleep 0.5
	bt_stop
}

part_accuracy()
{
	local alone reset own n1 n2 d v
	note "accuracy: stamper by xdp-loader alone, ${ACC_PPS} pkt/s"
	xl_load
	acc_phase acc-alone
	note "accuracy: the same stamper with rxlat's reset attached"
	rxlat_start_or_die "$T_DIR/rx-acc.json" --no-xdp -i "$IF_R" --stages ip_rcv -r 600 -o json
	acc_phase acc-reset
	rxlat_stop
	xl_unload
	alone=$(p50_of "$T_DIR/acc-alone.out")
	reset=$(p50_of "$T_DIR/acc-reset.out")
	n1=$(grep -c '^[0-9]' "$T_DIR/acc-alone.out")
	n2=$(grep -c '^[0-9]' "$T_DIR/acc-reset.out")
	own=$(gojq -rs '[.[].series[]? | select(.stage == "ip_rcv")] | max_by(.count) | .p50_ns // "-"' \
		"$T_DIR/rx-acc.json" 2>/dev/null)
	echo
	echo "5. Standalone accuracy: UDP at $ACC_PPS pkt/s for ${ACC_SECS}s per phase, ip_rcv latency read by bpftrace"
	echo "   at net:netif_receive_skb from the stamp, p50 (samples):"
	echo "     stamper loaded by xdp-loader alone:            $alone ns ($n1)"
	echo "     the same with rxlat --no-xdp (reset attached): $reset ns ($n2); rxlat's own ip_rcv p50: $own ns"
	d=$(calc 'd < 0 ? -d : d' -v d=$((alone - reset)))
	v=$(awk -v d="$d" -v r="$reset" -v n1="$n1" -v n2="$n2" \
		'BEGIN { if (n1 == 0 || n2 == 0) print "not measured"; else if (d <= 2000 || d <= 0.2 * r) print "met"; else print "not met" }')
	row "Standalone accuracy at 1 kpps: ip_rcv p50, xdp-loader stamper alone vs with rxlat's reset" \
		"$alone vs $reset ns (rxlat's own p50 $own ns)" "within 20% or 2 us" "$v"
}

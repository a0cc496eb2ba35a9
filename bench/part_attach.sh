#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Part A of the benchmark (bench/bench.sh, whose header describes every
# part): what attaching costs against nothing attached. The other parts
# compare rxlat with XDP_PASS, with the sender's TSO/GSO off; users compare
# with nothing attached, offloads as the system has them. Here the sender
# keeps TSO/GSO on, and each configuration runs in turn, over the rounds:
# nothing attached, XDP_PASS, rxlat with the XDP stamper (--xdp-mode
# native, as rxlat_start asks for), rxlat with the tc stamper (--tc); the
# one rxlat picks on this veth without either is labelled its default
# (tc where the kernel has tcx links, else XDP). TCP: iperf3 -P 2; UDP:
# part 2's load. The sender's TSO as ethtool shows it while each
# configuration is attached says what attaching did to the offloads.

declare -A ATT_TCP ATT_UDP ATT_TSO ATT_DESC
ATT_CONFS="none pass xdp tc"
ATT_DESC[none]="nothing attached"
ATT_DESC[pass]="XDP_PASS only"
ATT_DESC[xdp]="rxlat, XDP stamper"
ATT_DESC[tc]="rxlat --tc (tc stamper)"
ATT_ROUNDS=${BENCH_ATTACH_ROUNDS:-2}
ATT_DEFAULT=""

# The stamper rxlat picks on IF_R when no option names one, as it says at
# start-up ("a veth: stamping at tc ingress, rxlat's default there"), into
# ATT_DEFAULT: tc or xdp. Its label says so.
default_stamper()
{
	RXLAT_STAMPER=default rxlat_start_or_die "$T_DIR/rx-default.json" -i "$IF_R" -d 60 -o json
	if grep -q "stamping at tc ingress, rxlat's default there" "$T_DIR/rxlat.err"; then
		ATT_DEFAULT=tc
	elif grep -q "XDP stamper attached to $IF_R" "$T_DIR/rxlat.err"; then
		ATT_DEFAULT=xdp
	fi
	rxlat_stop
	[[ -n $ATT_DEFAULT ]] || die "rxlat -i $IF_R said neither stamper at start-up"
	ATT_DESC[$ATT_DEFAULT]+=", the default on this veth"
}

# the sender's TSO as ethtool shows it ("on", "off [requested on]", ...)
sender_tso()
{
	ip netns exec "$NS_S" ethtool -k "$IF_S" | awk -F': ' '$1 == "tcp-segmentation-offload" { print $2 }'
}

attach_one()
{
	local conf=$1 r=$2 out="$T_DIR/att-tcp-$1-$2.json"
	case $conf in
	pass) xdp_attach "$PASS_OBJ" ;;
	xdp) rxlat_start_or_die "$T_DIR/rx-att.json" -i "$IF_R" -d $((3 * SECS + 60)) -o json ;;
	tc) rxlat_start_or_die "$T_DIR/rx-att.json" -i "$IF_R" --tc -d $((3 * SECS + 60)) -o json ;;
	esac
	ATT_TSO[$conf]=$(sender_tso)
	iperf_run "$out" "$SECS" -P 2
	udp_load "$SECS" "att-$conf-$r"
	case $conf in
	pass) xdp_detach ;;
	xdp | tc) rxlat_stop ;;
	esac
	ATT_TCP[$conf]="${ATT_TCP[$conf]:-}$(printf '%.2f' "$(tcp_gbps "$out")") "
	ATT_UDP[$conf]="${ATT_UDP[$conf]:-}$(printf '%.0f' "$UDP_KPPS") "
}

part_attach()
{
	local r c tcp0 udp0 t u
	ip netns exec "$NS_S" ethtool -K "$IF_S" tso on gso on >/dev/null ||
		die "ethtool -K $IF_S tso on gso on failed"
	default_stamper
	for ((r = 1; r <= ATT_ROUNDS; r++)); do
		for c in $ATT_CONFS; do
			note "attach round $r/$ATT_ROUNDS: ${ATT_DESC[$c]}"
			attach_one "$c" "$r"
		done
	done
	# the other parts run with the sender's offloads off
	ip netns exec "$NS_S" ethtool -K "$IF_S" tso off gso off >/dev/null ||
		die "ethtool -K $IF_S tso off gso off failed"
	tcp0=$(best_of "${ATT_TCP[none]}")
	udp0=$(best_of "${ATT_UDP[none]}")
	echo
	echo "A. Against nothing attached: sender TSO/GSO on, receiver GRO $GRO; TCP iperf3 -P 2, UDP as part 2;"
	echo "   ${SECS}s runs x $ATT_ROUNDS rounds alternated; the best run of each configuration"
	echo
	printf '   %-50s %8s %8s  %-16s %8s %8s  %-16s %s\n' configuration Gbit/s "vs none" runs \
		"kpkt/s" "vs none" runs "sender TSO"
	for c in $ATT_CONFS; do
		t=$(best_of "${ATT_TCP[$c]}")
		u=$(best_of "${ATT_UDP[$c]}")
		printf '   %-50s %8s %7sx  %-16s %8s %7sx  %-16s %s\n' "${ATT_DESC[$c]}" "$t" \
			"$(ratio "$t" "$tcp0")" "${ATT_TCP[$c]}" "$u" "$(ratio "$u" "$udp0")" "${ATT_UDP[$c]}" \
			"${ATT_TSO[$c]}"
	done
	for c in pass xdp tc; do
		t=$(best_of "${ATT_TCP[$c]}")
		u=$(best_of "${ATT_UDP[$c]}")
		if [[ $c == "$ATT_DEFAULT" ]]; then # the targets: what a user gets without options
			row "Against nothing attached, ${ATT_DESC[$c]}: UDP (best runs)" \
				"$(ratio "$u" "$udp0")x ($u vs $udp0 kpkt/s)$(noisy "${ATT_UDP[$c]}" "${ATT_UDP[none]}")" \
				">= 0.90x" "$(verdict "$(ratio "$u" "$udp0")" '>=' 0.90)"
			row "Against nothing attached, ${ATT_DESC[$c]}: TCP -P 2 (best runs)" \
				"$(ratio "$t" "$tcp0")x ($t vs $tcp0 Gbit/s); sender TSO ${ATT_TSO[$c]}$(noisy "${ATT_TCP[$c]}" "${ATT_TCP[none]}")" \
				">= 0.95x" "$(verdict "$(ratio "$t" "$tcp0")" '>=' 0.95)"
			continue
		fi
		row "Against nothing attached, ${ATT_DESC[$c]}: TCP -P 2, UDP (best runs)" \
			"TCP $(ratio "$t" "$tcp0")x ($t vs $tcp0 Gbit/s), UDP $(ratio "$u" "$udp0")x ($u vs $udp0 kpkt/s); sender TSO ${ATT_TSO[$c]}$(noisy "${ATT_TCP[$c]}" "${ATT_TCP[none]}")" \
			"(printed)" "-"
	done
}

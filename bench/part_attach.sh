#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Part A of the benchmark (bench/bench.sh, whose header describes every
# part): what attaching costs against nothing attached. The other parts
# compare rxlat with XDP_PASS, with the sender's TSO/GSO off; users compare
# with nothing attached, offloads as the system has them. Here the sender
# keeps TSO/GSO on, and each configuration runs in turn, over the rounds:
# nothing attached, XDP_PASS, rxlat with the XDP stamper (--xdp-mode
# native), and rxlat's default (netns-tests/lib.sh's RXLAT_DEFAULT_ARGS:
# what a user gets without options, the tc stamper), which the targets
# judge. TCP: iperf3 -P 2; UDP: part 2's load. The sender's TSO as ethtool
# shows it while each configuration is attached says what attaching did to
# the offloads, and the receiving veth's XDP program while the default
# runs which stamper it took.

declare -A ATT_TCP ATT_UDP ATT_TSO ATT_DESC
ATT_CONFS="none pass xdp default"
ATT_DESC[none]="nothing attached"
ATT_DESC[pass]="XDP_PASS only"
ATT_DESC[xdp]="rxlat --xdp-mode native (XDP stamper)"
ATT_DESC[default]="rxlat's default ($RXLAT_DEFAULT_CMD)"
ATT_ROUNDS=${BENCH_ATTACH_ROUNDS:-2}
# the stamper the default took on IF_R: "tc stamper" or "XDP stamper"
ATT_DEFAULT=""

# The stamper rxlat's default runs on IF_R, from the device while it runs:
# an XDP program there is the XDP stamper's. Its label says so.
default_stamper()
{
	local s="tc stamper"
	[[ -n $(xdp_prog_id) ]] && s="XDP stamper"
	if [[ -n $ATT_DEFAULT && $s != "$ATT_DEFAULT" ]]; then
		die "rxlat's default took the $s on $IF_R, the $ATT_DEFAULT in an earlier round"
	fi
	ATT_DEFAULT=$s
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
	xdp) rxlat_start_or_die "$T_DIR/rx-att.json" -i "$IF_R" --xdp-mode native -d $((3 * SECS + 60)) -o json ;;
	default)
		RXLAT_STAMPER=default rxlat_start_or_die "$T_DIR/rx-att.json" -i "$IF_R" \
			"${RXLAT_DEFAULT_ARGS[@]}" -d $((3 * SECS + 60)) -o json
		default_stamper
		;;
	esac
	ATT_TSO[$conf]=$(sender_tso)
	iperf_run "$out" "$SECS" -P 2
	udp_load "$SECS" "att-$conf-$r"
	case $conf in
	pass) xdp_detach ;;
	xdp | default) rxlat_stop ;;
	esac
	ATT_TCP[$conf]="${ATT_TCP[$conf]:-}$(printf '%.2f' "$(tcp_gbps "$out")") "
	ATT_UDP[$conf]="${ATT_UDP[$conf]:-}$(printf '%.0f' "$UDP_KPPS") "
}

part_attach()
{
	local r c tcp0 udp0 t u d
	ip netns exec "$NS_S" ethtool -K "$IF_S" tso on gso on >/dev/null ||
		die "ethtool -K $IF_S tso on gso on failed"
	for ((r = 1; r <= ATT_ROUNDS; r++)); do
		for c in $ATT_CONFS; do
			note "attach round $r/$ATT_ROUNDS: ${ATT_DESC[$c]}"
			attach_one "$c" "$r"
		done
	done
	# the other parts run with the sender's offloads off
	ip netns exec "$NS_S" ethtool -K "$IF_S" tso off gso off >/dev/null ||
		die "ethtool -K $IF_S tso off gso off failed"
	ATT_DESC[default]+=", $ATT_DEFAULT"
	tcp0=$(best_of "${ATT_TCP[none]}")
	udp0=$(best_of "${ATT_UDP[none]}")
	echo
	echo "A. Against nothing attached: sender TSO/GSO on, receiver GRO $GRO; TCP iperf3 -P 2, UDP as part 2;"
	echo "   ${SECS}s runs x $ATT_ROUNDS rounds alternated; the best run of each configuration"
	echo
	printf '   %-55s %8s %8s  %-16s %8s %8s  %-16s %s\n' configuration Gbit/s "vs none" runs \
		"kpkt/s" "vs none" runs "sender TSO"
	for c in $ATT_CONFS; do
		t=$(best_of "${ATT_TCP[$c]}")
		u=$(best_of "${ATT_UDP[$c]}")
		printf '   %-55s %8s %7sx  %-16s %8s %7sx  %-16s %s\n' "${ATT_DESC[$c]}" "$t" \
			"$(ratio "$t" "$tcp0")" "${ATT_TCP[$c]}" "$u" "$(ratio "$u" "$udp0")" "${ATT_UDP[$c]}" \
			"${ATT_TSO[$c]}"
	done
	for c in pass xdp; do
		t=$(best_of "${ATT_TCP[$c]}")
		u=$(best_of "${ATT_UDP[$c]}")
		row "Against nothing attached (veth), ${ATT_DESC[$c]}: TCP -P 2, UDP (best runs)" \
			"TCP $(ratio "$t" "$tcp0")x ($t vs $tcp0 Gbit/s), UDP $(ratio "$u" "$udp0")x ($u vs $udp0 kpkt/s); sender TSO ${ATT_TSO[$c]}$(noisy "${ATT_TCP[$c]}" "${ATT_TCP[none]}")" \
			"(printed)" "-"
	done
	# the targets: what a user gets without options
	d=${ATT_DESC[default]}
	t=$(best_of "${ATT_TCP[default]}")
	u=$(best_of "${ATT_UDP[default]}")
	row "Against nothing attached (veth), $d: TCP -P 2 (best runs)" \
		"$(ratio "$t" "$tcp0")x ($t vs $tcp0 Gbit/s); sender TSO ${ATT_TSO[default]}$(noisy "${ATT_TCP[default]}" "${ATT_TCP[none]}")" \
		">= 0.95x" "$(verdict "$(ratio "$t" "$tcp0")" '>=' 0.95)"
	row "Against nothing attached (veth), $d: small UDP (best runs)" \
		"$(ratio "$u" "$udp0")x ($u vs $udp0 kpkt/s)$(noisy "${ATT_UDP[default]}" "${ATT_UDP[none]}")" \
		">= 0.90x" "$(verdict "$(ratio "$u" "$udp0")" '>=' 0.90)"
}

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rxlat's Prometheus endpoint (--prometheus) with a real Prometheus server:
# Debian's prometheus scrapes rxlat every second on the receiving
# namespace's loopback during traffic of a known count; through its HTTP API
# histogram_quantile(0.99) agrees with rxlat's own p99 within one bucket and
# _count grows by exactly the datagrams sent; with native histograms on
# (Prometheus asks for protobuf) the same from one native histogram per
# label set, equal to the text scrape's count and sum, and the configs'
# rules and panels answer from them. Also: promtool on a live scrape and
# on configs/, 20 scrapes a second for 30 s, hostile clients
# (malformed, oversized, one byte a second, hundreds at once) while scrapes
# go on, the systemd unit (systemd-analyze verify, and its command line
# under its capability bounding set with setpriv), and bad input.
#
# Not under QEMU: prometheus and promtool (two Go binaries, 98 MB) are not
# in the VM's initramfs; the endpoint is user space only and reads the map
# whose kernel side test_collector.sh proves on every kernel.

# shellcheck source=netns-tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RXLAT=$BUILD/rxlat
PKTGEN=$BUILD/rxlat-pktgen
N=${RXLAT_TEST_PACKETS:-2000}
PORT=7100
MPORT=9474 # rxlat's endpoint, on the receiving namespace's loopback
PPORT=9090 # the test's Prometheus server, there too
# one rxlat_build_info per stage: the stages of rxlat --help's last lines
NSTAGES=$("$RXLAT" --help 2>/dev/null | sed -n 's/^Stages: \(.*\)\.$/\1/p' | tr ',' '\n' | grep -c .)
URL=http://127.0.0.1:$MPORT/metrics
UNIT_IN=$RXLAT_ROOT/configs/rxlat.service.in
RXLAT_ARGS=()

# A skip for the whole test under QEMU, where the tools are not: true then.
vm_skip()	# NAME
{
	[[ -n ${RXLAT_VM:-} ]] || return 1
	skip "$1" "prometheus and promtool (Go binaries of 98 MB together) are not in the VM's" \
		"initramfs; the endpoint is user space only, the host run covers it"
}

need() { need_rxlat curl prometheus promtool "$@"; }

# The endpoint's exposition, from inside NS_B, into FILE; curl's status.
scrape_to()	# FILE
{
	in_ns "$NS_B" curl -sf --max-time 5 -o "$1" "$URL"
}

# rxlat as a pure exporter (no -o json of start_rxlat); stdout in rxlat.out.
start_exporter()	# CMD... (ending in rxlat's arguments; nic_stamper() adds its own)
{
	local xdp
	mapfile -t xdp < <(nic_stamper "$@")
	[[ ${#xdp[@]} -gt 0 ]] && need_xdp_stamp
	: >"$T_DIR/rxlat.err"
	t_bg rxlat in_ns "$NS_B" "$@" "${xdp[@]}"
	RXLAT_PID=$BG_PID
	t_wait_line "$T_DIR/rxlat.err" 'map memory' 30 "$RXLAT_PID" && return 0
	fail rxlat_start "rxlat did not start: $(tail -n 1 "$T_DIR/rxlat.err")"
}

# N datagrams from NS_A to NS_B, all received (8 flows over the queues).
send_udp()	# CHECK N [PKTGEN-SEND-ARGS...]
{
	local check=$1 n=$2 pid
	shift 2
	t_bg "recv_$check" in_ns "$NS_B" "$PKTGEN" recv --port "$PORT" --count "$n" --timeout 60
	pid=$BG_PID
	t_wait_line "$T_DIR/recv_$check.out" '^ready$' 10 "$pid" ||
		t_abort "${check}_receiver" "rxlat-pktgen recv did not start"
	assert_cmd "${check}_send" in_ns "$NS_A" timeout 90 "$PKTGEN" send --dev "$IF_A" \
		--dst-mac "$MAC_B" --src-ip "$IP4_A" --dst-ip "$IP4_B" --dport "$PORT" \
		--count "$n" --flows 8 "$@"
	t_wait_pid "$pid" 60
	assert_eq "${check}_recv" "received $n valid $n invalid 0 duplicate 0" \
		"$(tail -n 1 "$T_DIR/recv_$check.out")"
}

# ---------------------------------------------------------------- Prometheus

# Debian's Prometheus in NS_B, scraping rxlat every second, with the
# recording rules of configs/; returns once it has scraped rxlat.
# --enable-feature=native-histograms among the ARGS: it asks for protobuf.
start_prometheus()	# [PROMETHEUS-ARGS...]
{
	local i
	cat >"$T_DIR/prometheus.yml" <<-EOF
		global: {scrape_interval: 1s, scrape_timeout: 1s, evaluation_interval: 1s}
		rule_files: ["$RXLAT_ROOT/configs/rxlat.rules.yml"]
		scrape_configs:
		  - job_name: rxlat
		    static_configs: [{targets: ["127.0.0.1:$MPORT"]}]
	EOF
	t_bg prometheus in_ns "$NS_B" prometheus --config.file="$T_DIR/prometheus.yml" \
		--storage.tsdb.path="$T_DIR/tsdb" --web.listen-address="127.0.0.1:$PPORT" \
		--log.level=warn "$@"
	PROM_PID=$BG_PID
	for ((i = 0; i < 300; i++)); do
		[[ $(promq 'max(up{job="rxlat"})' | gojq -r '.[0].value[1] // 0') == 1 ]] &&
			[[ $(promq 'count(rxlat_build_info)' | gojq -r '.[0].value[1] // 0') == "$NSTAGES" ]] &&
			return 0
		kill -0 "$PROM_PID" 2>/dev/null || break
		sleep 0.1
	done
	fail prometheus_start "prometheus did not scrape rxlat: $(tail -n 2 "$T_DIR/prometheus.err")"
}

# The result array of an instant query, at TIME (default now); [] on error.
promq()	# EXPR [TIME]
{
	local args=(--data-urlencode "query=$1")
	[[ -n ${2:-} ]] && args+=(--data-urlencode "time=$2")
	in_ns "$NS_B" curl -s --max-time 10 --get "${args[@]}" \
		"http://127.0.0.1:$PPORT/api/v1/query" | gojq -c 'if .status == "success" then .data.result else [] end' 2>/dev/null ||
		echo '[]'
}

# One number from an instant query; 0 when it has no result.
promv()	# EXPR [TIME]
{
	promq "$@" | gojq -r '.[0].value[1] // "0"'
}

# ---------------------------------------------------------------- buckets

# Exported bucket of a latency, at K buckets per power of two.
export_bucket()	# NS K
{
	local b
	b=$(hist_bucket "$1")
	if ((b == 0 || b == 225)); then
		echo $((b == 0 ? 0 : 1 + 28 * $2))
	else
		echo $((1 + (b - 1) / (8 / $2)))
	fi
}

# ---------------------------------------------------------------- tests

# Every panel query of the dashboard, the variables filled in (with their
# "All" values), returns data: those of the per-pod panels (they name
# $netns) with PODS set, the others without.
dashboard_queries()	# TIME [PODS]
{
	local expr empty=() n=0 pods=${2:+pods}
	while IFS= read -r expr; do
		expr=${expr//'$__rate_interval'/5s}
		expr=${expr//'$instance'/.*}
		expr=${expr//'$stage'/udp_queue_rcv}
		expr=${expr//'$netns'/.+}
		expr=${expr//'$container'/.*}
		n=$((n + 1))
		[[ $(promq "$expr" "$1" | gojq length) -gt 0 ]] || empty+=("$expr")
	done < <(gojq -r --arg pods "$pods" '.panels[] | .targets[]?.expr
		| select(test("[$]netns") == ($pods != ""))' "$RXLAT_ROOT/configs/rxlat-dashboard.json")
	assert_eq "dashboard_${pods:-host}_queries_answer" "$n of $n" "$((n - ${#empty[@]})) of $n" \
		"panel queries with data${empty[0]:+ (none: ${empty[0]})}"
}

# Prometheus' p99 and _count against rxlat's own for the same samples, at K
# buckets per power of two.
quantile_and_count()	# K
{
	local k=$1 t0 t1 c0 c1 p99 prom_ns rxlat_ns eb_prom eb_rxlat
	vm_skip quantile && return 0
	need || return 1
	ns_pair || t_abort setup "cannot create the namespaces"
	# one report, at exit: its p99 covers exactly the samples of the run
	start_rxlat -i "$IF_B" -r 1000 --prometheus "$MPORT" --prometheus-buckets "$k" || return 1
	start_prometheus || return 1
	scrape_to "$T_DIR/live.prom" || t_abort scrape "curl $URL failed"
	assert_cmd promtool_check_metrics promtool check metrics <"$T_DIR/live.prom"
	t0=$(date +%s.%N)
	sleep 1.2
	send_udp traffic "$N"
	sleep 3 # two scrapes and more after the last datagram
	t1=$(date +%s.%N)

	c0=$(promv 'sum(rxlat_stage_latency_seconds_count{stage="udp_queue_rcv"})' "$t0")
	c1=$(promv 'sum(rxlat_stage_latency_seconds_count{stage="udp_queue_rcv"})' "$t1")
	assert_eq count_before 0 "$c0" "udp_queue_rcv _count before the traffic"
	assert_eq count_increase "$N" "$((c1 - c0))" "udp_queue_rcv _count increase"
	assert_eq ip_rcv_count_increase "$N" \
		"$(promv 'sum(rxlat_stage_latency_seconds_count{stage="ip_rcv"})' "$t1")"
	assert_eq xdp_seen "$N" "$(promv 'sum(rxlat_xdp_packets_seen_total)' "$t1")"
	assert_ge polls 1 "$(promv 'sum(rxlat_napi_polls_total)' "$t1")" "NAPI polls counted"
	assert_le polls_at_most_one_per_packet "$N" "$(promv 'sum(rxlat_napi_polls_total)' "$t1")"
	assert_eq poll_cpu_per_polled_queue \
		"$(promq 'count(rxlat_napi_polls_total > 0)' "$t1" | gojq -r '.[0].value[1] // 0')" \
		"$(promq 'count(rxlat_napi_poll_cpu)' "$t1" | gojq -r '.[0].value[1] // 0')"
	assert_eq samples_from_xdp "$N" \
		"$(promv 'sum(rxlat_stage_samples_total{stage="udp_queue_rcv",source="xdp"})' "$t1")"
	p99=$(promv 'histogram_quantile(0.99, sum by (le) (rxlat_stage_latency_seconds_bucket{stage="udp_queue_rcv"}))' "$t1")
	# without native histograms on, Prometheus asks for text: no native series
	assert_eq classic_not_native "[]" "$(promq 'rxlat_stage_latency_seconds' "$t1")"
	dashboard_queries "$t1"
	assert_ne recording_rule_p99 "[]" \
		"$(promq 'instance_stage:rxlat_stage_latency_seconds:p99_5m{stage="udp_queue_rcv"}' "$t1")"
	stop_rxlat || return 1

	rxlat_ns=$(q '[.[].series[] | select(.stage == "udp_queue_rcv")] | .[0].p99_ns // 0')
	assert_eq report_count "$N" "$(stage_sum udp_queue_rcv .count)" "rxlat's own count"
	prom_ns=$(awk -v s="$p99" 'BEGIN { printf "%.0f", s * 1e9 }')
	eb_prom=$(export_bucket "$prom_ns" "$k")
	eb_rxlat=$(export_bucket "$rxlat_ns" "$k")
	log "p99: Prometheus $prom_ns ns (bucket $eb_prom), rxlat $rxlat_ns ns (bucket $eb_rxlat), $k per power of two"
	assert_le p99_within_one_bucket 1 "$((eb_prom > eb_rxlat ? eb_prom - eb_rxlat : eb_rxlat - eb_prom))" \
		"buckets between Prometheus' p99 ($prom_ns ns) and rxlat's ($rxlat_ns ns)"
	assert_eq build_info_attach "$(q -r '.[0].attach.udp_queue_rcv')" \
		"$(promq 'rxlat_build_info{stage="udp_queue_rcv"}' "$t1" | gojq -r '.[0].metric.attach')"
}

# 20 scrapes a second for 30 s, one at a time, from inside NS_B: prints
# "ok failed elapsed-ms"; the last exposition is in DIR/last.
scrape_loop()	# URL SECONDS PER-SECOND DIR
{
	local n=$(($2 * $3)) i ok=0 bad=0 start next now d code
	start=$(date +%s%N)
	for ((i = 0; i < n; i++)); do
		next=$((start + i * 1000000000 / $3))
		now=$(date +%s%N)
		d=$((next - now))
		((d > 0)) && sleep "$((d / 1000000000)).$(printf '%09d' $((d % 1000000000)))"
		code=$(curl -s -o "$4/last" -w '%{http_code}' --max-time 5 "$1")
		if [[ $code == 200 ]] && [[ $(tail -n 1 "$4/last") == rxlat_build_info* ]]; then
			ok=$((ok + 1))
		else
			bad=$((bad + 1))
			echo "scrape $i: HTTP $code" >>"$4/failed"
		fi
	done
	echo "$ok $bad $((($(date +%s%N) - start) / 1000000))"
}

# Sum of the values of the exposition's lines that start with PREFIX (and
# hold TEXT).
expo_sum()	# FILE PREFIX [TEXT]
{
	awk -v p="$2" -v t="${3:-}" 'index($0, p) == 1 && index($0, t) { s += $NF }
		END { printf "%d", s }' "$1"
}

scrape_storm()
{
	local total=15000 res ok bad ms st send_pid
	vm_skip storm && return 0
	need || return 1
	ns_pair || t_abort setup "cannot create the namespaces"
	start_rxlat -i "$IF_B" --per-queue -r 1 --prometheus "$MPORT" || return 1
	# 500 datagrams a second during the 30 s of scrapes
	t_bg recv in_ns "$NS_B" "$PKTGEN" recv --port "$PORT" --count "$total" --timeout 90
	local recv_pid=$BG_PID
	t_wait_line "$T_DIR/recv.out" '^ready$' 10 "$recv_pid" || t_abort receiver "not ready"
	t_bg send in_ns "$NS_A" "$PKTGEN" send --dev "$IF_A" --dst-mac "$MAC_B" --src-ip "$IP4_A" \
		--dst-ip "$IP4_B" --dport "$PORT" --count "$total" --flows 8 --pps 500
	send_pid=$BG_PID
	mkdir -p "$T_DIR/storm"
	res=$(in_ns "$NS_B" bash -c "$(declare -f scrape_loop); scrape_loop $URL 30 20 $T_DIR/storm")
	read -r ok bad ms <<<"$res"
	log "600 scrapes: $ok answered, $bad failed, in $ms ms"
	assert_eq storm_no_failed_scrape 0 "$bad" "failed scrapes ($(head -n 1 "$T_DIR/storm/failed" 2>/dev/null))"
	assert_eq storm_scrapes 600 "$ok"
	assert_le storm_rate_kept 33000 "$ms" "ms for 600 scrapes at 20/s"
	t_wait_pid "$send_pid" 30
	t_wait_pid "$recv_pid" 30
	assert_eq storm_recv "received $total valid $total invalid 0 duplicate 0" "$(tail -n 1 "$T_DIR/recv.out")"
	sleep 1.2 # a report interval: the samples in flight are in a report
	scrape_to "$T_DIR/final.prom" || t_abort final_scrape "curl $URL failed"
	stop_rxlat || return 1
	for st in ip_rcv udp_queue_rcv; do
		assert_eq "final_count_$st" "$(stage_sum "$st" .count)" \
			"$(expo_sum "$T_DIR/final.prom" "rxlat_stage_latency_seconds_count{stage=\"$st\"")" \
			"$st: last scrape's _count vs the sum of rxlat's reports"
		assert_eq "final_xdp_source_$st" "$(stage_sum "$st" .sources.xdp)" \
			"$(expo_sum "$T_DIR/final.prom" "rxlat_stage_samples_total{stage=\"$st\"" 'source="xdp"')"
	done
	assert_eq final_count_is_total "$total" "$(stage_sum udp_queue_rcv .count)"
	assert_eq final_xdp_seen "$(q '[.[].xdp[].seen] | add')" \
		"$(expo_sum "$T_DIR/final.prom" rxlat_xdp_packets_seen_total)"
}

# ---------------------------------------------------------------- native histograms

PB_ACCEPT='application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited'

# The endpoint's protobuf exposition, asked for as Prometheus asks for it
# with native histograms on, into FILE; prints the Content-Type.
scrape_pb_to()	# FILE
{
	in_ns "$NS_B" curl -sf --max-time 5 -H "Accept: $PB_ACCEPT" -o "$1" -w '%{content_type}' "$URL"
}

# "LABELS VALUE" a line, sorted, of the text exposition's histogram lines
# ending in SUFFIX (_count, _sum): LABELS as name=value,... sorted by name,
# those with an empty value left out (Prometheus drops them); VALUE times
# SCALE, rounded (1e9: a _sum in ns).
text_hist_lines()	# FILE SUFFIX SCALE
{
	LC_ALL=C awk -v p="rxlat_stage_latency_seconds$2{" -v sc="$3" 'index($0, p) == 1 {
		l = substr($0, length(p) + 1)
		l = substr(l, 1, index(l, "} ") - 1)
		n = split(l, kv, "\",")
		sub(/"$/, "", kv[n])
		m = 0
		for (i = 1; i <= n; i++) {
			j = index(kv[i], "=\"")
			if (j + 1 == length(kv[i]))
				continue
			k[++m] = substr(kv[i], 1, j - 1) "=" substr(kv[i], j + 2)
			for (x = m; x > 1 && k[x - 1] > k[x]; x--) {
				t = k[x]; k[x] = k[x - 1]; k[x - 1] = t
			}
		}
		out = k[1]
		for (i = 2; i <= m; i++)
			out = out "," k[i]
		printf "%s %.0f\n", out, $NF * sc
	}' "$1" | LC_ALL=C sort
}

# The same for an instant query's result at TIME (instance and job left out).
prom_hist_lines()	# EXPR TIME SCALE
{
	promq "$1" "$2" | gojq -r '.[] | (.metric | del(.__name__, .instance, .job) | to_entries
		| sort_by(.key) | map("\(.key)=\(.value)") | join(",")) + " " + .value[1]' |
		LC_ALL=C awk -v sc="$3" '{ printf "%s %.0f\n", $1, $2 * sc }' | LC_ALL=C sort
}

# No rule of the test's Prometheus failed its last evaluation (2.42 logs a
# discarded result as a warning only).
rules_healthy()	# NAME
{
	assert_eq "$1" "" "$(in_ns "$NS_B" curl -s --max-time 10 "http://127.0.0.1:$PPORT/api/v1/rules" |
		gojq -r '.data.groups[].rules[] | select(.health != "ok") | "\(.name // .alert): \(.lastError)"' |
		head -n 1)" "a rule that failed"
}

# Two lists of lines alike: a pass, or a fail with how many lines differ
# and the first of them.
assert_same_lines()	# NAME WANT GOT [WHAT]
{
	local d
	d=$(diff <(printf '%s\n' "$2") <(printf '%s\n' "$3") | grep '^[<>]')
	assert_eq "$1" 0 "$(grep -c . <<<"$d")" \
		"${4:+$4: }lines that differ (<: wanted, >: got; the first: ${d%%$'\n'*})"
}

# Prometheus with native histograms on, so that it asks for protobuf:
# every histogram label set of the text exposition is one native histogram
# there, with no _bucket, _count or _sum series; its count and sum are the
# text's at the same state; its p99 is within one bucket of rxlat's own;
# the recording rules and the dashboard's host panels answer from native
# histograms alone. One Prometheus run for all of it.
native_histograms()
{
	local t0 t1 ct st sets rec n=0 empty=() lbl ns prom_ns worst=0 d
	vm_skip native && return 0
	need protoc || return 1
	ns_pair || t_abort setup "cannot create the namespaces"
	# one report, at exit: its p99 per queue covers exactly the run's samples
	start_rxlat -i "$IF_B" --per-queue -r 1000 --prometheus "$MPORT" || return 1
	start_prometheus --enable-feature=native-histograms || return 1
	t0=$(date +%s.%N)
	sleep 1.2
	# 64 flows: the queue a flow lands on is its hash's, whose key changes
	# with each boot, and 8 flows leave one of 4 queues empty on about a
	# third of boots; 64 all but never (4 x (3/4)^64)
	send_udp native "$N" --flows 64
	# the state after the traffic, in text and in protobuf, and then at
	# least one scrape of Prometheus: nothing moves in between
	sleep 1.2
	scrape_to "$T_DIR/native.prom" || t_abort scrape "curl $URL failed"
	ct=$(scrape_pb_to "$T_DIR/native.pb") || t_abort scrape_pb "curl $URL (protobuf) failed"
	sleep 2.2
	t1=$(date +%s.%N)

	assert_match native_content_type \
		'^application/vnd\.google\.protobuf; ?proto=io\.prometheus\.client\.MetricFamily; ?encoding=delimited' "$ct"
	sets=$(text_hist_lines "$T_DIR/native.prom" _count 1 | cut -d ' ' -f 1)
	assert_ge native_label_sets 8 "$(grep -c . <<<"$sets")" "histogram label sets (2 stages x 4 queues at least)"
	assert_same_lines native_every_label_set "$(text_hist_lines "$T_DIR/native.prom" _count 1 |
		cut -d ' ' -f 1 | sed 's/$/ histogram/')" \
		"$(promq rxlat_stage_latency_seconds "$t1" | gojq -r '.[] | (.metric | del(.__name__, .instance, .job)
			| to_entries | sort_by(.key) | map("\(.key)=\(.value)") | join(","))
			+ if .histogram then " histogram" else " float" end' | LC_ALL=C sort)" \
		"a native histogram per label set of the text's _count lines"
	assert_eq native_no_classic_series "[]" \
		"$(promq 'count({__name__=~"rxlat_stage_latency_seconds_(bucket|count|sum)"})' "$t1")"
	assert_eq native_count_before 0 \
		"$(promv 'sum(histogram_count(rxlat_stage_latency_seconds{stage="udp_queue_rcv"}))' "$t0")"
	for st in ip_rcv udp_queue_rcv; do
		assert_eq "native_count_$st" "$N" \
			"$(promv "sum(histogram_count(rxlat_stage_latency_seconds{stage=\"$st\"}))" "$t1")" \
			"$st: histogram_count, datagrams sent $N"
	done
	assert_same_lines native_count_is_text "$(text_hist_lines "$T_DIR/native.prom" _count 1)" \
		"$(prom_hist_lines 'histogram_count(rxlat_stage_latency_seconds)' "$t1" 1)" "histogram_count vs _count"
	assert_same_lines native_sum_is_text "$(text_hist_lines "$T_DIR/native.prom" _sum 1e9)" \
		"$(prom_hist_lines 'histogram_sum(rxlat_stage_latency_seconds)' "$t1" 1e9)" "histogram_sum vs _sum, in ns"
	# the protobuf scrape: native only by default (--prometheus-classic off)
	pb_decode "$T_DIR/native.pb" >"$T_DIR/native.pb.txt" || t_abort pb_decode "protoc cannot decode the scrape"
	assert_eq native_pb_schema_3 "$(grep -c . <<<"$sets")" "$(grep -c '^ *schema: 3$' "$T_DIR/native.pb.txt")" \
		"histograms of schema 3 in the protobuf scrape"
	assert_eq native_pb_no_classic_buckets 0 "$(grep -c '^ *bucket {' "$T_DIR/native.pb.txt")"

	# the recording rules (run every second here): every latency rule
	# answers, none fails, the classic bucket rates are empty
	rules_healthy native_rules_healthy
	assert_eq native_rule_no_bucket_rate "[]" \
		"$(promq '{__name__=~".+:rxlat_stage_latency_seconds_bucket:rate5m"}' "$t1")"
	while IFS= read -r rec; do
		n=$((n + 1))
		[[ $(promq "$rec{stage=\"udp_queue_rcv\"}" "$t1" | gojq length) -gt 0 ]] || empty+=("$rec")
	done < <(gojq --yaml-input -r '.groups[] | select(.name == "rxlat-recording") | .rules[].record // empty
		| select(test("latency_seconds:"))' "$RXLAT_ROOT/configs/rxlat.rules.yml")
	assert_eq native_rules_answer "$n of $n" "$((n - ${#empty[@]})) of $n" \
		"latency rules with data${empty[0]:+ (none: ${empty[0]})}"
	dashboard_queries "$t1"
	stop_rxlat || return 1

	# p99 per queue: Prometheus' from the native histogram, rxlat's from
	# its report; one bucket is a factor 2^(1/8)
	while read -r lbl prom_ns; do
		ns=$(q -r --arg l "$lbl" '.[-1].series[] | select("ifname=\(.ifname),queue=\(.queue),stage=\(.stage)" == $l) | .p99_ns')
		[[ -n $ns ]] || { fail native_p99_series "no series $lbl in rxlat's report"; continue; }
		d=$(($(hist_bucket "$prom_ns") - $(hist_bucket "$ns")))
		d=${d#-}
		log "p99 $lbl: Prometheus $prom_ns ns, rxlat $ns ns, $d buckets apart"
		((d > worst)) && worst=$d
	done < <(prom_hist_lines 'histogram_quantile(0.99, rxlat_stage_latency_seconds{stage="udp_queue_rcv"})' "$t1" 1e9)
	assert_le native_p99_within_one_bucket 1 "$worst" "buckets between Prometheus' p99 and rxlat's, the worst queue"
}

# ---------------------------------------------------------------- hostile clients
# These run inside NS_B (bash -c with the function's text): bash's /dev/tcp.

# One raw request; prints the response's status line, or "closed".
# The first line of the answer, or "closed" if none came within TIMEOUT
# seconds (default 10).
raw_request()	# PORT REQUEST-TEXT [TIMEOUT]
{
	local fd line req
	# one write where it fits: the server may answer (and close) after the
	# first line, and a second write would be cut short
	trap '' PIPE
	printf -v req '%b' "$2"
	exec {fd}<>"/dev/tcp/127.0.0.1/$1" || { echo "refused"; return; }
	printf '%s' "$req" 2>/dev/null 1>&"$fd"
	if IFS= read -r -t "${3:-10}" -u "$fd" line; then
		echo "${line%$'\r'}"
	else
		echo "closed"
	fi
	exec {fd}<&-
}

# GET / on one connection, its whole response read, then REQUEST-TEXT on
# the same connection; prints the two statuses ("closed" for none).
second_request()	# PORT REQUEST-TEXT
{
	local fd line req len=0 got=()
	trap '' PIPE
	printf -v req '%b' "$2"
	exec {fd}<>"/dev/tcp/127.0.0.1/$1" || { echo "refused"; return; }
	printf 'GET / HTTP/1.1\r\nHost: x\r\n\r\n' 2>/dev/null 1>&"$fd"
	while IFS= read -r -t 10 -u "$fd" line; do
		line=${line%$'\r'}
		[[ $line =~ ^HTTP/1\.1\ ([0-9]+) ]] && got+=("${BASH_REMATCH[1]}")
		[[ ${line,,} =~ ^content-length:\ *([0-9]+) ]] && len=${BASH_REMATCH[1]}
		[[ -z $line ]] && break
	done
	((len > 0)) && read -r -N "$len" -t 10 -u "$fd" _
	printf '%s' "$req" 2>/dev/null 1>&"$fd"
	if IFS= read -r -t 10 -u "$fd" line && [[ $line =~ ^HTTP/1\.1\ ([0-9]+) ]]; then
		got+=("${BASH_REMATCH[1]}")
	else
		got+=(closed)
	fi
	exec {fd}<&-
	echo "${got[*]}"
}

# A request sent one byte a second; prints after how many seconds the
# server closed the connection, or what it answered.
slow_client()	# PORT
{
	local fd req i line rc
	req=$'GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: one-byte-a-second-and-then-some\r\n\r\n'
	trap '' PIPE
	exec {fd}<>"/dev/tcp/127.0.0.1/$1" || { echo "refused"; return; }
	for ((i = 0; i < ${#req}; i++)); do
		printf '%s' "${req:i:1}" 2>/dev/null 1>&"$fd" || { echo "closed $i"; return; }
		IFS= read -r -t 1 -u "$fd" line
		rc=$?
		((rc > 128)) && continue # a second of silence: go on
		if ((rc != 0)) && [[ -z $line ]]; then
			echo "closed $i"
			return
		fi
		echo "answered ${line%$'\r'}"
		return
	done
	echo "completed"
}

in_nsb_fn()	# FUNCTION ARGS...
{
	local fn=$1
	shift
	in_ns "$NS_B" bash -c "$(declare -f "$fn"); $fn $*"
}

# Malformed requests, each on a connection of its own, get a status line:
# docs/prometheus.md says which. A request line without a space (garbage,
# a bare method) is one libmicrohttpd 0.9.75 closes on without a word.
malformed_requests()
{
	local got
	vm_skip malformed && return 0
	need || return 1
	ns_pair || t_abort setup "cannot create the namespaces"
	start_exporter "$RXLAT" -i "$IF_B" -o none --prometheus "$MPORT" || return 1

	assert_eq malformed 'HTTP/1.1 400 Bad Request' \
		"$(in_nsb_fn raw_request "$MPORT" "'BLAH BLAH\r\n\r\n'")"
	assert_eq garbage 'HTTP/1.1 400 Bad Request' \
		"$(in_nsb_fn raw_request "$MPORT" "'garbage\r\n\r\n'")"
	assert_eq bare_method 'HTTP/1.1 400 Bad Request' \
		"$(in_nsb_fn raw_request "$MPORT" "'GET\r\n\r\n'")"
	assert_eq no_method 'HTTP/1.1 400 Bad Request' \
		"$(in_nsb_fn raw_request "$MPORT" "' /metrics HTTP/1.1\r\n\r\n'")"
	assert_eq header_no_colon 'HTTP/1.1 400 Bad Request' \
		"$(in_nsb_fn raw_request "$MPORT" "'GET /metrics HTTP/1.1\r\nHost x\r\n\r\n'")"
	assert_eq after_keepalive '200 400' "$(in_nsb_fn second_request "$MPORT" "'garbage\r\n\r\n'")" \
		"the statuses of a good request and a malformed one on one connection"
	assert_match bad_version '^HTTP/1\.[01] 505' \
		"$(in_nsb_fn raw_request "$MPORT" "'GET /metrics HTTP/7.1\r\nHost: x\r\n\r\n'")"
	assert_match post_refused '^HTTP/1\.[01] 405' \
		"$(in_nsb_fn raw_request "$MPORT" "'POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc'")"
	assert_match unknown_path '^HTTP/1\.[01] 404' \
		"$(in_nsb_fn raw_request "$MPORT" "'GET /nope HTTP/1.1\r\nHost: x\r\n\r\n'")"
	got=$(in_nsb_fn raw_request "$MPORT" "'GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: $(printf 'a%.0s' {1..70000})\r\n\r\n'")
	assert_match oversized_header '^(HTTP/1\.[01] 4[0-9][0-9]|closed)' "$got"
	got=$(in_nsb_fn raw_request "$MPORT" "'GET /metrics?$(printf 'a%.0s' {1..70000}) HTTP/1.1\r\nHost: x\r\n\r\n'")
	assert_match oversized_url '^(HTTP/1\.[01] 4[0-9][0-9]|closed)' "$got"
	# a client that goes silent halfway is closed on, as before: no 400
	# for a request that may still have been coming
	got=$(in_nsb_fn raw_request "$MPORT" "'GET /metr'" 15)
	assert_eq half_request closed "$got" "what a half request got within 10 s"
	if scrape_to "$T_DIR/after.prom"; then
		pass scrape_after
	else
		fail scrape_after "curl $URL failed after the malformed requests"
	fi
	kill -INT "$RXLAT_PID"
	t_wait_pid "$RXLAT_PID" 15
	assert_eq exporter_exit 0 "$?"
}

hostile_clients()
{
	local got slow_pid flood_pid conc_pid ok bad ms i many=()
	vm_skip hostile && return 0
	need || return 1
	ns_pair || t_abort setup "cannot create the namespaces"
	start_exporter "$RXLAT" -i "$IF_B" --per-queue -o none --prometheus "$MPORT" || return 1
	send_udp traffic 200

	# a slow client and a flood of half requests, while scrapes go on
	in_nsb_fn slow_client "$MPORT" >"$T_DIR/slow.out" 2>&1 &
	slow_pid=$!
	in_ns_fn "$NS_B" half_open_flood "$MPORT" 300 14 'GET /metrics HTTP/1.1\r\nHost: x\r\n' \
		>"$T_DIR/flood.out" 2>&1 &
	flood_pid=$!
	sleep 1
	mkdir -p "$T_DIR/conc"
	in_ns "$NS_B" bash -c "$(declare -f scrape_loop); scrape_loop $URL 10 5 $T_DIR/conc" \
		>"$T_DIR/conc.res" &
	conc_pid=$!
	# and 100 whole requests at once, 5 times
	for ((i = 0; i < 100; i++)); do
		many+=(-o /dev/null "$URL")
	done
	for _ in 1 2 3 4 5; do
		got=$(in_ns "$NS_B" curl -s --parallel --parallel-max 100 --max-time 20 \
			-w '%{http_code}\n' "${many[@]}" 2>/dev/null | sort | uniq -c | tr -s ' \n' ' ')
		log "100 requests at once: how many got which HTTP status (000: refused): $got"
	done
	t_wait_exit "$conc_pid"
	read -r ok bad ms <"$T_DIR/conc.res"
	assert_eq scrapes_during_attack 50 "$ok" "scrapes answered (failed: $bad; $(head -n 1 "$T_DIR/conc/failed" 2>/dev/null))"
	t_wait_exit "$slow_pid"
	t_wait_exit "$flood_pid"
	got=$(cat "$T_DIR/slow.out")
	assert_match slow_client_cut '^closed ([0-9]+)$' "$got" "the slow client"
	[[ $got =~ ^closed\ ([0-9]+)$ ]] &&
		assert_le slow_client_cut_in_time 13 "${BASH_REMATCH[1]}" "seconds (bytes) before the cut"
	assert_eq flood_all_closed 300 "$(cat "$T_DIR/flood.out")" "half requests closed within 14 s"
	assert_true still_running "rxlat died" kill -0 "$RXLAT_PID"
	if scrape_to "$T_DIR/after.prom"; then
		pass scrape_after
	else
		fail scrape_after "curl $URL failed after the attack"
	fi
	kill -INT "$RXLAT_PID"
	t_wait_pid "$RXLAT_PID" 15
	assert_eq exporter_exit 0 "$?"
	assert_eq exporter_no_report 0 "$(wc -c <"$T_DIR/rxlat.out")" "bytes on stdout with -o none"
}

# ---------------------------------------------------------------- the unit

# CapabilityBoundingSet of the unit as setpriv's -all,+cap,...
unit_bounding_set()	# UNIT
{
	awk -F= '$1 == "CapabilityBoundingSet" { print $2 }' "$1" |
		tr '[:upper:]' '[:lower:]' | sed -e 's/cap_/+/g' -e 's/ /,/g' -e 's/^/-all,/'
}

# The unit's options (configs/rxlat.default), for the test's interface.
unit_opts()
{
	sed -n -e 's/^RXLAT_OPTS="\(.*\)"$/\1/p' "$RXLAT_ROOT/configs/rxlat.default" |
		sed -e "s/eth0/$IF_B/"
}

unit_file()
{
	local unit out bset opts plan before
	vm_skip unit && return 0
	need setpriv systemd-analyze || return 1
	unit=$T_DIR/rxlat.service
	sed -e "s|@BINDIR@|$BUILD|g" "$UNIT_IN" >"$unit"
	# Documentation=man:rxlat(8) must resolve: the man page of this build
	mkdir -p "$T_DIR/man/man8" && cp "$BUILD/rxlat.8" "$T_DIR/man/man8/"
	if out=$(MANPATH=$T_DIR/man systemd-analyze verify "$unit" 2>&1); then
		pass systemd_analyze_verify
	elif grep -qiE 'not been booted|failed to (initialize|connect)|No such file or directory.*(/run/systemd|bus)' <<<"$out"; then
		skip systemd_analyze_verify "systemd-analyze cannot run in this container: $(tail -n 1 <<<"$out")"
	else
		fail systemd_analyze_verify "$out"
	fi
	log "$(systemd-analyze security --offline=true "$unit" 2>/dev/null | tail -n 1)"

	bset=$(unit_bounding_set "$unit")
	assert_match bounding_set '^-all(,\+[a-z_]+)+$' "$bset"
	ns_pair || t_abort setup "cannot create the namespaces"
	read -r -a opts <<<"$(unit_opts)"
	before=$(prog_count_settles 0)
	# the plan with every capability, then the unit's command line under
	# its bounding set and NoNewPrivileges, as an operator runs it: rxlat's
	# default stamper (with tcx links, CAP_BPF alone once attached)
	local RXLAT_STAMPER=default
	start_exporter "$RXLAT" "${opts[@]}" || return 1
	plan=$(grep 'rxlat: stage' "$T_DIR/rxlat.err")
	kill -TERM "$RXLAT_PID"
	t_wait_pid "$RXLAT_PID" 15
	start_exporter setpriv --bounding-set="$bset" --inh-caps=-all --no-new-privs -- \
		"$RXLAT" "${opts[@]}" || return 1
	assert_eq unit_same_plan "$plan" "$(grep 'rxlat: stage' "$T_DIR/rxlat.err")" \
		"stages under the unit's bounding set"
	assert_eq unit_keeps_cap_bpf 0000008000000000 \
		"$(awk '/^CapEff/ { print $2 }' "/proc/$RXLAT_PID/status")" "CapEff once attached"
	send_udp unit "$N"
	sleep 0.3
	scrape_to "$T_DIR/unit.prom" || t_abort unit_scrape "curl $URL failed"
	assert_eq unit_count "$N" \
		"$(expo_sum "$T_DIR/unit.prom" 'rxlat_stage_latency_seconds_count{stage="udp_queue_rcv"')"
	kill -TERM "$RXLAT_PID" # the unit's KillSignal
	t_wait_pid "$RXLAT_PID" 15
	assert_eq unit_exit 0 "$?" "exit status after SIGTERM"
	assert_eq unit_nothing_left "$before" "$(prog_count_settles "$before")"
	assert_eq unit_no_xdp "" "$(link_xdp_prog "$NS_B" "$IF_B")"
}

# ---------------------------------------------------------------- bad input

# rxlat ARGS in NS_B: exit 1, one line matching ERE, nothing attached.
refused()	# NAME ERE ARGS...
{
	local name=$1 ere=$2 before rc
	shift 2
	before=$(prog_count_settles "$(rxlat_prog_count)")
	in_ns "$NS_B" "$RXLAT" -i "$IF_B" "$@" >/dev/null 2>"$T_DIR/$name.err"
	rc=$?
	assert_one_line_error "$name" "^rxlat: error: $ere" "$rc" "$T_DIR/$name.err"
	assert_eq "${name}_nothing_attached" "$before" "$(prog_count_settles "$before")"
}

bad_input()
{
	local xdp_before
	vm_skip bad_input && return 0
	need || return 1
	ns_pair || t_abort setup "cannot create the namespaces"
	refused port_zero "--prometheus '0': the port must be from 1 to 65535" --prometheus 0
	refused port_big "--prometheus '70000': the port must be from 1 to 65535" --prometheus 70000
	refused port_word "--prometheus 'metrics': the port is not a number" --prometheus metrics
	refused bad_ipv4 "--prometheus '999.1.1.1:9474': not a numeric IPv4 address" \
		--prometheus 999.1.1.1:9474
	refused bad_ipv6 "--prometheus '\[fe80::zz\]:9474': not a numeric IPv6 address" \
		--prometheus '[fe80::zz]:9474'
	refused foreign_addr "--prometheus 192.0.2.77:9474: no interface of this network namespace has that address" \
		--prometheus 192.0.2.77:9474
	refused buckets "--prometheus-buckets 3: choose 1, 2, 4 or 8" --prometheus 9474 --prometheus-buckets 3
	refused buckets_alone "--prometheus-buckets applies to --prometheus only" --prometheus-buckets 2
	refused none_alone "-o none prints no report: give --prometheus" -o none
	# a port below 1024 without CAP_NET_BIND_SERVICE
	in_ns "$NS_B" setpriv --bounding-set=-net_bind_service --inh-caps=-net_bind_service -- \
		"$RXLAT" -i "$IF_B" --prometheus 80 >/dev/null 2>"$T_DIR/low.err"
	assert_eq low_port_exit 1 "$?"
	assert_match low_port_message \
		"^rxlat: error: --prometheus 80: a port below 1024 needs CAP_NET_BIND_SERVICE: choose a port from 1024 up$" \
		"$(cat "$T_DIR/low.err")"
	# the port of a running rxlat: the second one attaches nothing
	start_exporter "$RXLAT" -i "$IF_B" -o none --prometheus "$MPORT" || return 1
	xdp_before=$(link_xdp_prog "$NS_B" "$IF_B")
	in_ns "$NS_B" "$RXLAT" --no-xdp --prometheus "$MPORT" >/dev/null 2>"$T_DIR/inuse.err"
	assert_eq port_in_use_exit 1 "$?"
	assert_match port_in_use_message \
		"^rxlat: error: --prometheus $MPORT: the port is in use \(another rxlat or exporter\?\): stop it, or choose another port$" \
		"$(cat "$T_DIR/inuse.err")"
	assert_eq port_in_use_xdp_unchanged "$xdp_before" "$(link_xdp_prog "$NS_B" "$IF_B")"
	kill -INT "$RXLAT_PID"
	t_wait_pid "$RXLAT_PID" 15
	assert_eq first_exporter_exit 0 "$?"
}

# A container host: NS_A sends through NS_B, where rxlat and Prometheus
# run, to a pod behind a routed veth pair, whose receiver sits in a cgroup
# named like a Docker container's. The dashboard's per-pod panels and the
# pods' recording rules answer, the host's forwarding time among them.
# native: the same with Prometheus asking for native histograms and rxlat
# sending the classic buckets beside them (--prometheus-classic), which
# 2.42 does not keep: the panels and rules answer from native histograms
# alone, and the protobuf scrape holds both.
containers_dashboard()	# [native]
{
	local pod cg t1 hmac pmac id=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
	local native=${1:-} exp=() prom=() count='rxlat_stage_latency_seconds_count{SEL}' b
	[[ -n $native ]] && exp=(--prometheus-classic) prom=(--enable-feature=native-histograms) \
		count='histogram_count(rxlat_stage_latency_seconds{SEL})'
	vm_skip containers_dashboard && return 0
	need || return 1
	{ ns_pair && ns_create pod; } || t_abort setup "cannot create the namespaces"
	{ ip -n "$NS_B" link add hp type veth peer name p0 netns "$pod" &&
		ip -n "$NS_B" addr add 10.12.0.1/24 dev hp && ip -n "$pod" addr add 10.12.0.2/24 dev p0 &&
		ip -n "$NS_B" link set hp up && ip -n "$pod" link set p0 up &&
		ip -n "$pod" route add default via 10.12.0.1 &&
		ip -n "$NS_A" route add 10.12.0.0/24 via "$IP4_B" &&
		in_ns "$NS_B" sysctl -qw net.ipv4.ip_forward=1; } || t_abort setup "cannot route to the pod"
	hmac=$(link_mac "$NS_B" hp) pmac=$(link_mac "$pod" p0)
	{ ip -n "$NS_B" neigh replace 10.12.0.2 lladdr "$pmac" dev hp nud permanent &&
		ip -n "$pod" neigh replace 10.12.0.1 lladdr "$hmac" dev p0 nud permanent; } ||
		t_abort setup "cannot set the pod's neighbours"
	cg=$(t_cgroup "docker-$id.scope") || { skip containers_dashboard "no cgroup v2 here"; return 0; }
	start_exporter "$RXLAT" -i "$IF_B" --per-queue --by cgroup -o none --prometheus "$MPORT" \
		"${exp[@]}" || return 1
	start_prometheus "${prom[@]}" || return 1
	t_bg recv in_ns "$pod" sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$cg" \
		"$PKTGEN" recv --port "$PORT" --count "$N" --timeout 60
	t_wait_line "$T_DIR/recv.out" '^ready$' 10 "$BG_PID" || t_abort receiver "rxlat-pktgen recv did not start"
	assert_cmd pod_send in_ns "$NS_A" timeout 90 "$PKTGEN" send --dev "$IF_A" --dst-mac "$MAC_B" \
		--src-ip "$IP4_A" --dst-ip 10.12.0.2 --dport "$PORT" --count "$N" --flows 8 --pps 400
	t_wait_pid "$BG_PID" 60
	assert_eq pod_recv "received $N valid $N invalid 0 duplicate 0" "$(tail -n 1 "$T_DIR/recv.out")"
	# a scrape after the last datagram; the panels' 5 s rates still hold
	# traffic, which the forwarding time needs (queues with a rate of the pod)
	sleep 1.5
	t1=$(date +%s.%N)
	dashboard_queries "$t1" pods
	assert_eq pod_count "$N" \
		"$(promv "sum(${count/SEL/stage=\"udp_queue_rcv\",netns=\"$pod\",container=\"$id\"})" "$t1")"
	assert_eq host_rule_no_pod_socket "[]" \
		"$(promq 'instance_stage:rxlat_stage_latency_seconds:p99_5m{stage="udp_queue_rcv"}' "$t1")"
	assert_ne netns_rule_p99 "[]" \
		"$(promq "instance_netns_stage:rxlat_stage_latency_seconds:p99_5m{netns=\"$pod\",stage=\"udp_queue_rcv\"}" "$t1")"
	# the pod's ip_rcv comes after the host's, from the same stamps
	assert_ne forwarding_rule 0 \
		"$(promv "count(instance_netns_queue:rxlat_host_forwarding_seconds:p50_5m{netns=\"$pod\"} > 0)" "$t1")" \
		"queues with a positive forwarding time"
	if [[ -n $native ]]; then
		rules_healthy pods_rules_healthy
		assert_eq pods_native_only "[]" \
			"$(promq 'count({__name__=~"rxlat_stage_latency_seconds_(bucket|count|sum)"})' "$t1")" \
			"classic series kept by Prometheus 2.42 of histograms sent both ways"
		# the wire: each histogram native (schema 3) and with the text's
		# classic buckets, at the same state (the traffic is over), but for
		# +Inf, which protobuf leaves to the histogram's count
		scrape_to "$T_DIR/pods.prom" || t_abort scrape "curl $URL failed"
		scrape_pb_to "$T_DIR/pods.pb" >/dev/null || t_abort scrape_pb "curl $URL (protobuf) failed"
		pb_decode "$T_DIR/pods.pb" >"$T_DIR/pods.pb.txt" || t_abort pb_decode "protoc cannot decode the scrape"
		assert_eq pods_pb_schema_3 "$(grep -c '^rxlat_stage_latency_seconds_count{' "$T_DIR/pods.prom")" \
			"$(grep -c '^ *schema: 3$' "$T_DIR/pods.pb.txt")" "native histograms in protobuf vs _count lines in text"
		grep '^rxlat_stage_latency_seconds_bucket{' "$T_DIR/pods.prom" | grep -v 'le="+Inf"' >"$T_DIR/pods.buckets"
		b=$(grep -c . "$T_DIR/pods.buckets")
		assert_ge pods_pb_classic_buckets 1 "$b" "_bucket lines in text, +Inf left out"
		assert_eq pods_pb_classic_buckets_text "$b" "$(grep -c '^ *bucket {' "$T_DIR/pods.pb.txt")" \
			"classic buckets in protobuf vs finite _bucket lines in text"
		assert_eq pods_pb_classic_counts_text "$(expo_sum "$T_DIR/pods.buckets" 'rxlat_stage_latency_seconds_bucket{')" \
			"$(awk '$1 == "cumulative_count:" { s += $2 } END { printf "%d", s }' "$T_DIR/pods.pb.txt")" \
			"sum of the classic buckets' counts, protobuf vs text"
	fi
	kill -INT "$RXLAT_PID"
	t_wait_pid "$RXLAT_PID" 15
	assert_eq rxlat_exit 0 "$?"
}

# The files of configs/: promtool checks them, and the rules' own tests pass.
configs_check()
{
	vm_skip configs && return 0
	require_cmd tools promtool gojq || return 1
	assert_cmd promtool_check_config promtool check config "$RXLAT_ROOT/configs/prometheus.yml"
	assert_cmd promtool_check_rules promtool check rules "$RXLAT_ROOT/configs/rxlat.rules.yml"
	assert_cmd promtool_test_rules promtool test rules "$RXLAT_ROOT/configs/rxlat.rules.test.yml"
	# every latency query has its native form beside the classic one (the
	# classic bucket rates' own rules apart)
	assert_eq rules_native_form "" "$(gojq --yaml-input -r '.groups[].rules[]
		| select((.record // "") | endswith("_bucket:rate5m") | not) | select(.expr | test("_bucket"))
		| select(.expr | test("rxlat_stage_latency_seconds[{]") | not) | .record // .alert' \
		"$RXLAT_ROOT/configs/rxlat.rules.yml")" "rules reading classic buckets alone"
	assert_eq dashboard_native_form "" "$(gojq -r '.panels[] | select(any(.targets[]?.expr; test("_bucket")
		and (test("rxlat_stage_latency_seconds[{]") | not))) | .title' "$RXLAT_ROOT/configs/rxlat-dashboard.json")" \
		"panels reading classic buckets alone"
	assert_eq dashboard_panels "heatmap table timeseries" \
		"$(gojq -r '[.panels[].type | select(. != "row")] | unique | join(" ")' \
			"$RXLAT_ROOT/configs/rxlat-dashboard.json")"
}

suite_begin
run_test configs configs_check
run_test quantile_fine quantile_and_count 8
run_test quantile_default quantile_and_count 2
run_test native native_histograms
run_test containers_dashboard containers_dashboard
run_test containers_native containers_dashboard native
run_test storm scrape_storm
run_test malformed malformed_requests
run_test hostile hostile_clients
run_test unit unit_file
run_test bad_input bad_input
suite_end

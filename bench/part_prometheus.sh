#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Part 8 of the benchmark (bench/bench.sh, whose header describes every
# part): the Prometheus endpoint. bench.sh sources this file after
# bench/lib.sh, where its namespace of 16 interfaces (many_setup, shared
# with part 7) is, and calls part_prometheus (BENCH_PROM).

# ------------------------------------------------- part 8: Prometheus

PROM_SECS=${BENCH_PROM_SECONDS:-60}
PROM_PB_ACCEPT='application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited'
PROM_SERVER_SCRAPES=10

# One scrape of rxlat in FORMAT (text, protobuf as Prometheus asks for
# native histograms, or tls: text over https, a new connection each time
# as Prometheus' 5 s interval mostly finds its kept one closed) into FILE:
# prints "bytes seconds rxlat-CPU-ticks".
prom_scrape()	# FORMAT FILE
{
	local accept=() out code size secs t0 url=http://127.0.0.1:9474/metrics
	[ "$1" = protobuf ] && accept=(-H "Accept: $PROM_PB_ACCEPT")
	[ "$1" = tls ] && url=https://127.0.0.1:9474/metrics accept=(--cacert "$T_DIR/tls/ca.crt")
	t0=$(proc_ticks "$RX_PID")
	out=$(in_ns "$NS_R" curl -s "${accept[@]}" -o "$2" -w '%{http_code} %{size_download} %{time_total}' \
		--max-time 30 "$url") || die "$1 scrape failed"
	read -r code size secs <<<"$out"
	[ "$code" = 200 ] || die "$1 scrape: HTTP $code"
	echo "$size $secs $(($(proc_ticks "$RX_PID") - t0))"
}

# Entries of one scrape: the text's sample lines, or the protobuf's Metric
# messages (one a series; a native histogram is one).
prom_entries()	# FORMAT FILE
{
	if [ "$1" = protobuf ]; then
		pb_decode "$2" | grep -c '^  metric {$'
	else
		grep -vc '^#' "$2"
	fi
}

# Debian's Prometheus in NS_R scraping rxlat every 5 s with FLAGS (the
# native histograms feature: it asks for protobuf); after ten scrapes that
# succeeded, prints "head-series RSS-KiB latency-series" of that Prometheus
# (the last: the series of rxlat_stage_latency_seconds), and stops it.
prom_server()	# NAME [FLAGS...]
{
	local name=$1 pid i ok=0 series rss lat
	shift
	printf '%s\n' 'global: {scrape_interval: 5s, scrape_timeout: 5s}' 'scrape_configs:' \
		'  - job_name: rxlat' '    static_configs: [{targets: ["127.0.0.1:9474"]}]' >"$T_DIR/$name.yml"
	t_bg "$name" in_ns "$NS_R" prometheus --config.file="$T_DIR/$name.yml" \
		--storage.tsdb.path="$T_DIR/$name.tsdb" --web.listen-address=127.0.0.1:9090 --log.level=warn "$@"
	pid=$BG_PID
	for ((i = 0; i < 240; i++)); do
		sleep 0.5
		kill -0 "$pid" 2>/dev/null || die "prometheus ($name) died: $(tail -n 2 "$T_DIR/$name.err")"
		ok=$(in_ns "$NS_R" curl -s --max-time 5 --get --data-urlencode 'query=sum_over_time(up{job="rxlat"}[1h])' \
			http://127.0.0.1:9090/api/v1/query 2>/dev/null | gojq -r '.data.result[0].value[1] // 0' 2>/dev/null)
		[ "${ok:-0}" -ge "$PROM_SERVER_SCRAPES" ] && break
	done
	[ "${ok:-0}" -ge "$PROM_SERVER_SCRAPES" ] ||
		die "prometheus ($name): $ok of $PROM_SERVER_SCRAPES scrapes succeeded in 120 s"
	series=$(in_ns "$NS_R" curl -s --max-time 10 http://127.0.0.1:9090/metrics |
		awk '$1 == "prometheus_tsdb_head_series" { printf "%d", $2 }')
	rss=$(proc_status_kb "$pid" VmRSS)
	lat=$(in_ns "$NS_R" curl -s --max-time 120 --get \
		--data-urlencode 'query=count({__name__=~"rxlat_stage_latency_seconds.*"})' \
		http://127.0.0.1:9090/api/v1/query | gojq -r '.data.result[0].value[1] // 0')
	kill -TERM "$pid"
	t_wait_pid "$pid" 30 >/dev/null || die "prometheus ($name) did not stop"
	echo "$series $rss $lat"
}

# rxlat at K buckets per power of two (and ARGS), every (stage, interface,
# queue) series with a few samples from rxlat-bench-fill; sets IDLE (CPU %
# without scrapes), then after the scrapes RSS0 and HWM (KiB).
prom_rxlat()	# K [ARGS...]
{
	local args=() t0 k=$1
	shift
	mapfile -t args < <(many_args)
	rxlat_start_or_die /dev/null "${args[@]}" --per-queue --max-ifaces "$PROM_IFACES" \
		--max-queues "$PROM_QUEUES" -o none --prometheus 9474 --prometheus-buckets "$k" "$@"
	"$FILLER" "$RX_PID" "$PROM_IFACES" "$PROM_QUEUES" "$PROM_IFACES" "$PROM_QUEUES" 0 \
		>"$T_DIR/fill.out" || die "rxlat-bench-fill (filling the series) failed"
	RSS0=$(proc_status_kb "$RX_PID" VmRSS)
	# idle: the report timer only, no scrape
	t0=$(proc_ticks "$RX_PID")
	sleep 10
	IDLE=$(awk -v d="$(($(proc_ticks "$RX_PID") - t0))" -v hz="$(getconf CLK_TCK)" \
		'BEGIN { printf "%.1f", 100 * d / hz / 10 }')
}

# PROM_SECS rounds, one a second, of one scrape of each FORMAT in turn;
# sets, per format F, S_BYTES[F] (the last scrape's), S_MS[F] and S_CPU[F]
# (ms per scrape, wall and rxlat's CPU) and S_ENTRIES[F].
prom_rounds()	# FORMAT...
{
	local i f t1 size secs ticks hz n=0
	local -A dur=() cpu=()
	hz=$(getconf CLK_TCK)
	t1=$(date +%s%N)
	for ((i = 0; i < PROM_SECS; i++)); do
		for f in "$@"; do
			read -r size secs ticks <<<"$(prom_scrape "$f" "$T_DIR/scrape.$f")"
			S_BYTES[$f]=$size
			dur[$f]=$(awk -v a="${dur[$f]:-0}" -v b="$secs" 'BEGIN { print a + b }')
			cpu[$f]=$((${cpu[$f]:-0} + ticks))
		done
		n=$((n + 1))
		sleep "$(awk -v t="$i" -v s="$t1" -v now="$(date +%s%N)" \
			'BEGIN { d = s / 1e9 + t + 1 - now / 1e9; printf "%.3f", (d > 0 ? d : 0) }')"
	done
	for f in "$@"; do
		S_MS[$f]=$(awk -v d="${dur[$f]}" -v n="$n" 'BEGIN { print 1000 * d / n }')
		S_CPU[$f]=$(awk -v t="${cpu[$f]}" -v n="$n" -v hz="$hz" 'BEGIN { print 1000 * t / hz / n }')
		S_ENTRIES[$f]=$(prom_entries "$f" "$T_DIR/scrape.$f")
	done
}

# A CA and a server certificate for 127.0.0.1 (P-256, as cert-manager's
# default ECDSA ones), and --web-config's file serving them, in T_DIR/tls.
prom_tls_files()
{
	local d=$T_DIR/tls ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
	mkdir -p "$d"
	printf 'subjectAltName=IP:127.0.0.1\n' >"$d/san"
	if ! openssl req -x509 "${ec[@]}" -keyout "$d/ca.key" -out "$d/ca.crt" -days 2 \
		-subj /CN=bench-ca 2>/dev/null ||
		! openssl req "${ec[@]}" -keyout "$d/server.key" -out "$d/server.csr" -subj /CN=rxlat \
			2>/dev/null ||
		! openssl x509 -req -in "$d/server.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" \
			-CAcreateserial -out "$d/server.crt" -days 2 -extfile "$d/san" 2>/dev/null; then
		die "openssl could not make the benchmark's certificates"
	fi
	printf 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n' >"$d/web.yml"
}

# A row of the table.
prom_row()	# FORMAT K ENTRIES BYTES MS CPU-MS IDLE RSS0-KIB HWM-KIB HEAD-SERIES PROM-RSS-KIB
{
	printf '%-9s %2s %9d %9.2f %9.1f %9.1f %8.1f %7.1f %8.1f %10s %9s\n' "$1" "$2" "$3" \
		"$(awk -v b="$4" 'BEGIN { print b / 1048576 }')" "$5" "$6" "$7" \
		"$(awk -v r="$8" 'BEGIN { print r / 1024 }')" "$(awk -v r="$9" 'BEGIN { print r / 1024 }')" \
		"${10}" "$(awk -v r="${11}" 'BEGIN { if (r == "-") print "-"; else printf "%.0f", r / 1024 }')"
}

# Text scrapes over TLS against clear-text ones, each alone as the other
# (one rxlat has one listener, TLS or not): rxlat at k = 2 in clear text,
# then again with --web-config, the same series filled the same way, a new
# connection per scrape both times. Prints both rows; sets TLS_LINE.
prom_tls_round()
{
	local clear clear_ms
	prom_rxlat 2
	prom_rounds text
	clear=${S_CPU[text]} clear_ms=${S_MS[text]}
	prom_row text 2 "${S_ENTRIES[text]}" "${S_BYTES[text]}" "${S_MS[text]}" "${S_CPU[text]}" \
		"$IDLE" "$RSS0" "$(proc_status_kb "$RX_PID" VmHWM)" - -
	rxlat_stop
	prom_tls_files
	prom_rxlat 2 --web-config "$T_DIR/tls/web.yml"
	prom_rounds tls
	prom_row "text+TLS" 2 "${S_ENTRIES[tls]}" "${S_BYTES[tls]}" "${S_MS[tls]}" "${S_CPU[tls]}" \
		"$IDLE" "$RSS0" "$(proc_status_kb "$RX_PID" VmHWM)" - -
	rxlat_stop
	TLS_LINE=$(awk -v t="${S_CPU[tls]}" -v c="$clear" -v tm="${S_MS[tls]}" -v cm="$clear_ms" \
		'BEGIN { printf "text over TLS / clear text at k = 2: CPU per scrape %.1f / %.1f ms = %.2fx (target <= 1.2x), wall %.1f / %.1f ms", \
			t, c, (c > 0 ? t / c : 0), tm, cm }')
}

part_prometheus()
{
	local NS_R=$NS_R idle2 rss2 hwm2 text_srv pb_srv ratios
	local -A S_BYTES=() S_MS=() S_CPU=() S_ENTRIES=()
	local IDLE RSS0 TLS_LINE
	command -v curl >/dev/null || die "'curl' not found (make deps installs it)"
	command -v prometheus >/dev/null || die "'prometheus' not found (make deps installs it)"
	command -v protoc >/dev/null || die "'protoc' not found (make deps installs it)"
	command -v openssl >/dev/null || die "'openssl' not found (make deps installs it)"
	many_setup
	echo
	echo "8. Prometheus endpoint: $PROM_IFACES interfaces x $PROM_QUEUES queues x 5 stages, every series"
	echo "   with samples; at k = 2 a text and a protobuf scrape (native histograms) in turn, once a"
	echo "   second each for $PROM_SECS s, then Prometheus $(prometheus --version 2>/dev/null |
		sed -n 's/^prometheus, version \([0-9.]*\).*/\1/p') scraping it every 5 s, one"
	echo "   server per format; at k = 8 text alone, no server (CPU idle: share of one CPU, 10 s, no scrape);"
	echo "   then at k = 2 text alone, and text over TLS (--web-config, TLS 1.3, P-256) in a second rxlat,"
	echo "   once a second for $PROM_SECS s each; every scrape a new connection (curl), so TLS's figure"
	echo "   includes a handshake each time"
	echo
	prom_rxlat 2
	prom_rounds text protobuf
	text_srv=$(prom_server prom-text)
	pb_srv=$(prom_server prom-native --enable-feature=native-histograms)
	idle2=$IDLE rss2=$RSS0 hwm2=$(proc_status_kb "$RX_PID" VmHWM)
	rxlat_stop
	printf '%-9s %2s %9s %9s %9s %9s %8s %7s %8s %10s %9s\n' format k entries scrape scrape \
		"CPU per" "CPU idle" RSS "RSS peak" Prometheus Prometheus
	printf '%-9s %2s %9s %9s %9s %9s %8s %7s %8s %10s %9s\n' "" "" "" "(MiB)" "(ms)" \
		"scrape(ms)" "(%)" "(MiB)" "(MiB)" "head ser." "RSS (MiB)"
	prom_row text 2 "${S_ENTRIES[text]}" "${S_BYTES[text]}" "${S_MS[text]}" "${S_CPU[text]}" \
		"$idle2" "$rss2" "$hwm2" "${text_srv%% *}" "$(cut -d " " -f 2 <<<"$text_srv")"
	prom_row protobuf - "${S_ENTRIES[protobuf]}" "${S_BYTES[protobuf]}" "${S_MS[protobuf]}" \
		"${S_CPU[protobuf]}" "$idle2" "$rss2" "$hwm2" "${pb_srv%% *}" "$(cut -d " " -f 2 <<<"$pb_srv")"
	ratios=$(awk -v b1="${S_BYTES[text]}" -v b2="${S_BYTES[protobuf]}" -v e1="${S_ENTRIES[text]}" \
		-v e2="${S_ENTRIES[protobuf]}" -v m1="${S_MS[text]}" -v m2="${S_MS[protobuf]}" \
		-v c1="${S_CPU[text]}" -v c2="${S_CPU[protobuf]}" -v h1="${text_srv%% *}" -v h2="${pb_srv%% *}" \
		-v r1="$(cut -d ' ' -f 2 <<<"$text_srv")" -v r2="$(cut -d ' ' -f 2 <<<"$pb_srv")" \
		-v l1="${text_srv##* }" -v l2="${pb_srv##* }" 'function x(a, b) { return b > 0 ? sprintf("%.1fx", a / b) : "-" }
		BEGIN { printf "bytes %s, entries %s, ms %s, CPU %s, head series %s, Prometheus RSS %s;\n", \
			x(b1, b2), x(e1, e2), x(m1, m2), x(c1, c2), x(h1, h2), x(r1, r2)
			printf "   series of rxlat_stage_latency_seconds alone: %d / %d = %s", l1, l2, x(l1, l2) }')
	prom_rxlat 8
	prom_rounds text
	prom_row text 8 "${S_ENTRIES[text]}" "${S_BYTES[text]}" "${S_MS[text]}" "${S_CPU[text]}" \
		"$IDLE" "$RSS0" "$(proc_status_kb "$RX_PID" VmHWM)" - -
	rxlat_stop
	prom_tls_round
	echo
	echo "   classic text at k = 2 / native protobuf: $ratios"
	echo "   $TLS_LINE"
	echo "   k: classic buckets per power of two (--prometheus-buckets); entries: sample lines of a text"
	echo "   scrape, Metric messages (series) of a protobuf one; RSS: rxlat's, one run for the first two rows;"
	echo "   Prometheus: its prometheus_tsdb_head_series and RSS after $PROM_SERVER_SCRAPES scrapes"
}

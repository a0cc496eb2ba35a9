#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# --web-config: exporter-toolkit's web configuration on rxlat's /metrics.
# A CA, a server and a client certificate made by openssl in the test's
# directory (gone at exit), bcrypt hashes by htpasswd. Debian's Prometheus
# scrapes over https with tls_config (its client certificate required) and
# basic_auth during traffic of a known count: the stored count is exactly
# the datagrams sent. No credentials and a wrong password get 401 with
# WWW-Authenticate, each counted in rxlat_http_auth_failures_total; a client
# without a certificate gets nothing, nor does plain HTTP to the TLS port.
# A certificate replaced on disk is served after SIGHUP (and, changed again,
# at the next connection), a broken new file keeps the old one in one line.
# A Secret's files laid out as kubelet mounts them, rxlat under the unit's
# bounding set: a rotation (the ..data symlink swapped) served at the next
# connection. 300 handshakes that never finish do not keep good scrapes out.
# An unknown field, a missing file, a bad hash, a key that is not the
# certificate's: one line naming the file and the field, exit 1, nothing
# attached. configs/prometheus.yml's https job, with the test's files,
# passes promtool check config.
#
# Not under QEMU: prometheus is not in the VM's initramfs; all of this is
# user space.

# shellcheck source=netns-tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RXLAT=$BUILD/rxlat
PKTGEN=$BUILD/rxlat-pktgen
N=${RXLAT_TEST_PACKETS:-2000}
PORT=7100
MPORT=9474 # rxlat's endpoint, on the receiving namespace's loopback
PPORT=9090 # the test's Prometheus server, there too
URL=https://127.0.0.1:$MPORT/metrics

vm_skip()	# NAME
{
	[[ -n ${RXLAT_VM:-} ]] || return 1
	skip "$1" "prometheus is not in the VM's initramfs; --web-config is user space only," \
		"the host run covers it"
}

need() { need_rxlat curl openssl htpasswd "$@"; }

# rxlat in NS_B exporting with --web-config FILE; returns once it measures.
start_exporter()	# FILE [ARGS...]
{
	local web=$1
	shift
	: >"$T_DIR/rxlat.err"
	t_bg rxlat in_ns "$NS_B" "$RXLAT" -i "$IF_B" -o none --prometheus "$MPORT" \
		--web-config "$web" "$@"
	RXLAT_PID=$BG_PID
	t_wait_line "$T_DIR/rxlat.err" 'map memory' 30 "$RXLAT_PID" && return 0
	fail rxlat_start "rxlat did not start: $(tail -n 1 "$T_DIR/rxlat.err")"
}

# curl in NS_B against the endpoint: prints the HTTP status ("000": no answer)
status()	# CURL-ARGS...
{
	rm -f "$T_DIR/body" "$T_DIR/headers"
	in_ns "$NS_B" curl -s --max-time 5 -o "$T_DIR/body" -D "$T_DIR/headers" -w '%{http_code}' \
		"$@" 2>/dev/null
}

# NAME's line of the last status()'s response headers
header()	# NAME
{
	tr -d '\r' <"$T_DIR/headers" | grep -i "^$1:"
}

# The SHA-256 fingerprint of the certificate the endpoint serves.
served_fingerprint()
{
	in_ns "$NS_B" timeout 5 openssl s_client -connect "127.0.0.1:$MPORT" </dev/null 2>/dev/null |
		openssl x509 -noout -fingerprint -sha256 2>/dev/null
}

fingerprint()	# CERT-FILE
{
	openssl x509 -in "$1" -noout -fingerprint -sha256
}

# The result array of an instant query to the test's Prometheus; [] on error.
promv()	# EXPR [TIME]
{
	local args=(--data-urlencode "query=$1")
	[[ -n ${2:-} ]] && args+=(--data-urlencode "time=$2")
	in_ns "$NS_B" curl -s --max-time 10 --get "${args[@]}" \
		"http://127.0.0.1:$PPORT/api/v1/query" |
		gojq -r 'if .status == "success" then .data.result[0].value[1] // "0" else "0" end' \
			2>/dev/null || echo 0
}

# ---------------------------------------------------------------- tests

# Prometheus over https with its client certificate and basic auth, and
# the clients that must get nothing.
prometheus_https()
{
	local d=$T_DIR/tls t0 t1 c0 c1 i
	vm_skip prometheus_https && return 0
	need prometheus gojq || return 1
	tls_certs "$d" || t_abort certs "openssl could not make the certificates"
	cat >"$d/web.yml" <<-EOF
		tls_server_config:
		  cert_file: server.crt
		  key_file: server.key
		  client_auth_type: RequireAndVerifyClientCert
		  client_ca_file: ca.crt
		  min_version: TLS12
		http_server_config:
		  headers:
		    X-Content-Type-Options: nosniff
		basic_auth_users:
		  prometheus: $(bcrypt_hash 'scrape me')
	EOF
	ns_pair || t_abort setup "cannot create the namespaces"
	start_exporter "$d/web.yml" || return 1
	assert_match https_said "metrics at https://127\.0\.0\.1:$MPORT/metrics" "$(cat "$T_DIR/rxlat.err")"

	cat >"$T_DIR/prometheus.yml" <<-EOF
		global: {scrape_interval: 1s, scrape_timeout: 1s}
		scrape_configs:
		  - job_name: rxlat
		    scheme: https
		    tls_config: {ca_file: $d/ca.crt, cert_file: $d/client.crt, key_file: $d/client.key}
		    basic_auth: {username: prometheus, password: 'scrape me'}
		    static_configs: [{targets: ["127.0.0.1:$MPORT"]}]
	EOF
	t_bg prometheus in_ns "$NS_B" prometheus --config.file="$T_DIR/prometheus.yml" \
		--storage.tsdb.path="$T_DIR/tsdb" --web.listen-address="127.0.0.1:$PPORT" \
		--log.level=warn
	for ((i = 0; i < 300; i++)); do
		[[ $(promv 'max(up{job="rxlat"})') == 1 ]] && break
		sleep 0.1
	done
	assert_eq prometheus_up 1 "$(promv 'max(up{job="rxlat"})')" "up{job=\"rxlat\"} over https" ||
		return 1
	t0=$(date +%s.%N)
	sleep 1.2
	pair_udp traffic "$NS_A" "$N"
	sleep 3 # two scrapes and more after the last datagram
	t1=$(date +%s.%N)
	c0=$(promv 'sum(rxlat_stage_latency_seconds_count{stage="udp_queue_rcv"})' "$t0")
	c1=$(promv 'sum(rxlat_stage_latency_seconds_count{stage="udp_queue_rcv"})' "$t1")
	assert_eq count_increase "$N" "$((c1 - c0))" "udp_queue_rcv _count increase, stored by Prometheus"

	# with the client certificate: what basic auth says
	local cert=(--cacert "$d/ca.crt" --cert "$d/client.crt" --key "$d/client.key")
	assert_eq no_credentials_401 401 "$(status "${cert[@]}" "$URL")"
	assert_eq no_credentials_www_authenticate 'WWW-Authenticate: Basic realm="rxlat"' \
		"$(header WWW-Authenticate)"
	assert_eq no_credentials_no_metrics "" "$(grep rxlat_ "$T_DIR/body")"
	assert_eq wrong_password_401 401 "$(status "${cert[@]}" -u prometheus:wrong "$URL")"
	assert_eq wrong_password_www_authenticate 'WWW-Authenticate: Basic realm="rxlat"' \
		"$(header WWW-Authenticate)"
	assert_eq right_password_200 200 "$(status "${cert[@]}" -u 'prometheus:scrape me' "$URL")"
	assert_eq header_from_config 'X-Content-Type-Options: nosniff' "$(header X-Content-Type-Options)"
	assert_eq auth_failures_counted 2 \
		"$(sed -n 's/^rxlat_http_auth_failures_total //p' "$T_DIR/body")" \
		"rxlat_http_auth_failures_total after two refusals (Prometheus' scrapes pass)"
	# a client without a certificate: the handshake fails, nothing served
	assert_eq no_client_cert_refused 000 "$(status --cacert "$d/ca.crt" -u 'prometheus:scrape me' "$URL")"
	assert_eq no_client_cert_no_metrics "" "$(grep -s rxlat_ "$T_DIR/body")"
	# plain HTTP to the TLS port
	status -u 'prometheus:scrape me' "http://127.0.0.1:$MPORT/metrics" >/dev/null
	assert_eq plain_http_no_metrics "" "$(grep -s rxlat_ "$T_DIR/body")"
	kill -INT "$RXLAT_PID"
	t_wait_pid "$RXLAT_PID" 15
	assert_eq rxlat_exit 0 "$?"
}

# configs/prometheus.yml's commented https job, uncommented with this
# test's files in place of /etc/prometheus/rxlat: promtool takes it (it
# checks that the files exist), and it is the job Prometheus is given.
configs_https_job()
{
	local d=$T_DIR/tls
	vm_skip configs_https_job && return 0
	need promtool || return 1
	tls_certs "$d" || t_abort certs "openssl could not make the certificates"
	echo 'scrape me' >"$d/password"
	{
		echo 'scrape_configs:'
		sed -n '/^  # - job_name: rxlat$/,/^$/p' "$RXLAT_ROOT/configs/prometheus.yml" |
			sed 's/^  # /  /; s#/etc/prometheus/rxlat/ca\.crt#'"$d"'/ca.crt#;
				s#/etc/prometheus/rxlat/client#'"$d"'/client#; s#/etc/prometheus/rxlat/#'"$d"'/#'
	} >"$T_DIR/https.yml"
	assert_eq https_job_found 1 "$(grep -c 'scheme: https' "$T_DIR/https.yml")" \
		"the https job of configs/prometheus.yml"
	assert_cmd https_job_promtool promtool check config "$T_DIR/https.yml"
	assert_eq https_job_no_default_path "" "$(grep /etc/prometheus "$T_DIR/https.yml")"
}

# A new certificate on disk served after SIGHUP, a broken file kept out,
# a change seen at a connection.
reload()
{
	local d=$T_DIR/tls old new
	vm_skip reload && return 0
	need || return 1
	tls_certs "$d" first || t_abort certs "openssl could not make the certificates"
	printf 'tls_server_config:\n  cert_file: %s\n  key_file: %s\n' \
		"$d/server.crt" "$d/server.key" >"$d/web.yml"
	ns_pair || t_abort setup "cannot create the namespaces"
	start_exporter "$d/web.yml" || return 1
	old=$(fingerprint "$d/server.crt")
	assert_eq first_cert_served "$old" "$(served_fingerprint)"

	tls_certs "$d" second || t_abort certs "openssl could not make the certificates"
	new=$(fingerprint "$d/server.crt")
	kill -HUP "$RXLAT_PID"
	t_wait_line "$T_DIR/rxlat.err" 'read again \(SIGHUP\)' 5 "$RXLAT_PID"
	assert_eq new_cert_after_sighup "$new" "$(served_fingerprint)"
	assert_eq scrape_after_sighup 200 "$(status --cacert "$d/ca.crt" "$URL")"

	# a broken file: one line, the old one kept
	cp "$d/web.yml" "$d/web.yml.good"
	printf 'tls_server_config:\n  cert_file: %s\n  key_file: %s\n  bogus: 1\n' \
		"$d/server.crt" "$d/server.key" >"$d/web.yml"
	kill -HUP "$RXLAT_PID"
	t_wait_line "$T_DIR/rxlat.err" 'bogus' 5 "$RXLAT_PID"
	assert_eq broken_reload_one_line 1 "$(grep -c 'still serving' "$T_DIR/rxlat.err")"
	assert_match broken_reload_line \
		"^rxlat: warning: --web-config $d/web.yml: tls_server_config\.bogus: unknown field; still serving with the file as it was read before$" \
		"$(grep 'still serving' "$T_DIR/rxlat.err")"
	assert_eq kept_after_broken "$new" "$(served_fingerprint)"
	assert_eq scrape_after_broken 200 "$(status --cacert "$d/ca.crt" "$URL")"
	assert_eq broken_said_once 1 "$(grep -c 'still serving' "$T_DIR/rxlat.err")" \
		"refusals after connections to an unchanged broken file"

	# the good file back and a third certificate, no signal: seen at a connection
	tls_certs "$d" third || t_abort certs "openssl could not make the certificates"
	cp "$d/web.yml.good" "$d/web.yml"
	sleep 1.1 # files are looked at once a second at most
	served_fingerprint >/dev/null
	t_wait_line "$T_DIR/rxlat.err" 'read again \(changed on disk\)' 5 "$RXLAT_PID"
	assert_eq changed_on_disk_served "$(fingerprint "$d/server.crt")" "$(served_fingerprint)"
	assert_true still_running "SIGHUP stopped rxlat" kill -0 "$RXLAT_PID"
	kill -INT "$RXLAT_PID"
	t_wait_pid "$RXLAT_PID" 15
	assert_eq rxlat_exit 0 "$?"
}

# A Kubernetes Secret as kubelet mounts it in DIR: each file a symlink into
# ..data, itself a symlink to a folder of the files (mode 0400, root's),
# swapped in one rename at an update. The files of CERTS-DIR, as tls.crt,
# tls.key and ca.crt, and web.yml naming them.
secret_update()	# DIR CERTS-DIR STAMP
{
	local s=$1 f
	mkdir -p "$s/..$3"
	cp "$2/server.crt" "$s/..$3/tls.crt"
	cp "$2/server.key" "$s/..$3/tls.key"
	cp "$2/ca.crt" "$s/..$3/ca.crt"
	printf 'tls_server_config:\n  cert_file: tls.crt\n  key_file: tls.key\n' >"$s/..$3/web.yml"
	chmod 0400 "$s/..$3"/*
	ln -sfn "..$3" "$s/..data.tmp" && mv -T "$s/..data.tmp" "$s/..data"
	for f in tls.crt tls.key ca.crt web.yml; do
		[[ -L $s/$f ]] || ln -s "..data/$f" "$s/$f"
	done
}

# The Secret's files as the DaemonSet mounts them, rxlat under the unit's
# bounding set (it keeps CAP_BPF alone once attached): served, and a
# rotation of the Secret served at the next connection, without a signal.
secret_rotation()
{
	local d=$T_DIR/tls s=$T_DIR/secret bset
	vm_skip secret_rotation && return 0
	need setpriv || return 1
	bset=$(awk -F= '$1 == "CapabilityBoundingSet" { print $2 }' "$RXLAT_ROOT/configs/rxlat.service.in" |
		tr '[:upper:]' '[:lower:]' | sed -e 's/cap_/+/g' -e 's/ /,/g' -e 's/^/-all,/')
	tls_certs "$d" first || t_abort certs "openssl could not make the certificates"
	secret_update "$s" "$d" 1
	ns_pair || t_abort setup "cannot create the namespaces"
	: >"$T_DIR/rxlat.err"
	t_bg rxlat in_ns "$NS_B" setpriv --bounding-set="$bset" --inh-caps=-all --no-new-privs -- \
		"$RXLAT" -i "$IF_B" -o none --prometheus "$MPORT" --web-config "$s/web.yml"
	RXLAT_PID=$BG_PID
	t_wait_line "$T_DIR/rxlat.err" 'map memory' 30 "$RXLAT_PID" ||
		t_abort rxlat_start "rxlat did not start: $(tail -n 1 "$T_DIR/rxlat.err")"
	assert_eq secret_cert_served "$(fingerprint "$d/server.crt")" "$(served_fingerprint)"
	tls_certs "$d" second || t_abort certs "openssl could not make the certificates"
	secret_update "$s" "$d" 2
	sleep 1.1 # files are looked at once a second at most
	served_fingerprint >/dev/null
	t_wait_line "$T_DIR/rxlat.err" 'read again \(changed on disk\)' 5 "$RXLAT_PID"
	assert_eq rotated_cert_served "$(fingerprint "$d/server.crt")" "$(served_fingerprint)"
	assert_eq scrape_after_rotation 200 "$(status --cacert "$d/ca.crt" "$URL")"
	kill -INT "$RXLAT_PID"
	t_wait_pid "$RXLAT_PID" 15
	assert_eq rxlat_exit 0 "$?"
}

# 300 handshakes that never finish, while good TLS scrapes go on: every
# scrape answered, none slowed past 2 s, the 300 closed within 14 s.
handshake_flood()
{
	local d=$T_DIR/tls flood_pid ok=0 i t0 ms worst=0
	vm_skip handshake_flood && return 0
	need || return 1
	tls_certs "$d" || t_abort certs "openssl could not make the certificates"
	printf 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n' >"$d/web.yml"
	ns_pair || t_abort setup "cannot create the namespaces"
	start_exporter "$d/web.yml" || return 1
	# a TLS record header, and no ClientHello
	in_ns_fn "$NS_B" half_open_flood "$MPORT" 300 14 '\x16\x03\x01\x02' >"$T_DIR/flood.out" 2>&1 &
	flood_pid=$!
	sleep 1
	for ((i = 0; i < 10; i++)); do
		t0=$(date +%s%N)
		[[ $(status --cacert "$d/ca.crt" "$URL") == 200 ]] && ok=$((ok + 1))
		ms=$((($(date +%s%N) - t0) / 1000000))
		((ms > worst)) && worst=$ms
		sleep 0.5
	done
	log "slowest TLS scrape among the unfinished handshakes: $worst ms"
	assert_eq scrapes_during_flood 10 "$ok" "TLS scrapes answered among 300 unfinished handshakes"
	assert_le slowest_scrape_ms 2000 "$worst" "ms of the slowest of them"
	t_wait_exit "$flood_pid"
	assert_eq flood_all_closed 300 "$(cat "$T_DIR/flood.out")" "unfinished handshakes closed within 14 s"
	assert_true still_running "rxlat died" kill -0 "$RXLAT_PID"
	kill -INT "$RXLAT_PID"
	t_wait_pid "$RXLAT_PID" 15
	assert_eq rxlat_exit 0 "$?"
}

# One broken file: one line naming file and field, exit 1, nothing attached.
refused()	# NAME ERE WEB-FILE
{
	in_ns "$NS_B" "$RXLAT" -i "$IF_B" -d 1 --prometheus "$MPORT" --web-config "$3" \
		>/dev/null 2>"$T_DIR/$1.err"
	assert_one_line_error "$1" "$2" "$?" "$T_DIR/$1.err"
	assert_eq "$1_no_clsact" "" "$(tc -n "$NS_B" qdisc show dev "$IF_B" | grep -o clsact)" \
		"qdiscs of $IF_B"
	assert_eq "$1_no_xdp" "" "$(link_xdp_prog "$NS_B" "$IF_B")" "XDP on $IF_B"
}

bad_files()
{
	local d=$T_DIR/tls f
	vm_skip bad_files && return 0
	need || return 1
	tls_certs "$d" || t_abort certs "openssl could not make the certificates"
	f=$d/web.yml
	ns_pair || t_abort setup "cannot create the namespaces"
	printf 'tls_server_config:\n  cert_file: %s\n  key_file: %s\n  cert_chain: x\n' \
		"$d/server.crt" "$d/server.key" >"$f.unknown"
	refused unknown_field "^rxlat: error: --web-config $f\.unknown: tls_server_config\.cert_chain: unknown field$" \
		"$f.unknown"
	printf 'tls_server_config:\n  cert_file: %s\n  key_file: %s\n  cipher_suites: [TLS_AES_128_GCM_SHA256]\n' \
		"$d/server.crt" "$d/server.key" >"$f.unsupported"
	refused unsupported_field "^rxlat: error: --web-config $f\.unsupported: tls_server_config\.cipher_suites: not supported by rxlat$" \
		"$f.unsupported"
	refused missing_file "^rxlat: error: --web-config $d/nothere\.yml: cannot read it: No such file or directory$" \
		"$d/nothere.yml"
	printf 'tls_server_config:\n  cert_file: %s\n  key_file: %s\n' \
		"$d/gone.crt" "$d/server.key" >"$f.missing_cert"
	refused missing_cert "^rxlat: error: --web-config $f\.missing_cert: tls_server_config\.cert_file: $d/gone\.crt: cannot read it: No such file or directory$" \
		"$f.missing_cert"
	printf 'basic_auth_users:\n  prometheus: $2y$10$notahash\n' >"$f.hash"
	refused bad_hash "^rxlat: error: --web-config $f\.hash: basic_auth_users: prometheus: not a bcrypt hash" \
		"$f.hash"
	printf 'basic_auth_users:\n  prometheus: plaintext-password\n' >"$f.plain"
	refused plain_password "^rxlat: error: --web-config $f\.plain: basic_auth_users: prometheus: not a bcrypt hash" \
		"$f.plain"
	printf 'tls_server_config:\n  cert_file: %s\n  key_file: %s\n' \
		"$d/server.crt" "$d/client.key" >"$f.mismatch"
	refused key_mismatch "^rxlat: error: --web-config $f\.mismatch: tls_server_config\.key_file: $d/client\.key is not the key of the certificate in $d/server\.crt$" \
		"$f.mismatch"
	printf 'tls_server_config:\n  cert_file: %s\n  key_file: %s\n  client_auth_type: RequestClientCert\n' \
		"$d/server.crt" "$d/server.key" >"$f.request"
	refused client_auth_unverified "^rxlat: error: --web-config $f\.request: tls_server_config\.client_auth_type: RequestClientCert: not supported by rxlat" \
		"$f.request"
	printf 'tls_server_config: [\n' >"$f.yaml"
	refused not_yaml "^rxlat: error: --web-config $f\.yaml: line [0-9]+: not YAML: " "$f.yaml"
}

suite_begin
run_test prometheus_https prometheus_https
run_test configs_https_job configs_https_job
run_test reload reload
run_test secret_rotation secret_rotation
run_test handshake_flood handshake_flood
run_test bad_files bad_files
suite_end

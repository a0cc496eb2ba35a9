#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Latency heatmaps (rxlat-heatmap, rxlat --heatmap) of a real run with
# known phases: a TCP stream of small segments from outside through a
# host, where rxlat stamps h0, into a routed pod whose reader reads each
# segment at once, then waits a known time before each read (the segment
# waits in the socket's queue, after the stamp: sock_read measures it),
# then reads at once again. (netem would delay on the way, but this host's
# kernel has no sch_netem, and sock_read sees UDP reads only with fentry.)
# The picture parses as XML, its cells add up to the JSON's samples per
# stage exactly, the delayed intervals' cells of the pod's sock_read sit in
# the wait's bucket and no fast interval's does; the live file says as
# many reports as the run made and was renamed into place after each;
# bad input (no samples, a truncated line, not JSON) gives one line and a
# non-zero exit; headless Chromium renders the picture (a SKIP where there
# is no browser, as under QEMU).

# shellcheck source=netns-tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RXLAT=$BUILD/rxlat
HEATMAP=$BUILD/rxlat-heatmap
PKTGEN=$BUILD/rxlat-pktgen
TCPSTREAM=$BUILD/rxlat-tcpstream
PORT=7800
NS_O='' NS_H='' NS_P='' # set by pod_setup
# the injected wait, in us: 24.2 ms, low in its bucket (24.10 to 26.28
# ms), so that the forwarding and the reader's wake-up stay in it
DELAY_US=24200
PHASE=3	  # seconds of each phase
EVERY_MS=50 # a segment every 50 ms: one in the queue at a time

need()
{
	need_rxlat xmllint "$@" && require_file build "$HEATMAP" "run 'make'" &&
		require_file build "$TCPSTREAM" "run 'make test-binaries'"
}

# A routed pod behind the host's uplink h0 (lib.sh); rxlat runs in the
# host (NS_B, for start_rxlat).
pod_setup()
{
	pod_behind_host h0 || return 1
	NS_B=$NS_H
}

# The cells of heatmap FILE, one line each: "PANEL-TITLE|TOOLTIP".
svg_cells()	# FILE
{
	local f=$1 n i title g="(//*[local-name()='g'][@class='panel'])"
	n=$(xmllint --xpath "count($g)" "$f") || return 1
	for ((i = 1; i <= n; i++)); do
		title=$(xmllint --xpath "string(${g}[$i]/*[local-name()='text'][@class='title']/text())" "$f")
		xmllint --xpath "${g}[$i]/*[local-name()='rect']/*[local-name()='title']/text()" "$f" |
			awk -v t="$title" '{ print t "|" $0 }'
	done
}

# The reports a heatmap shows, from its heading ("12 reports, ...").
live_reports()	# FILE
{
	xmllint --xpath "string(//*[local-name()='text'][2])" "$1" | awk '{ print $1 + 0 }'
}

# The samples of TOOLTIP lines on stdin.
samples()
{
	awk '{ sub(/ samples$/, ""); sub(/.*: /, ""); n += $0 } END { print n + 0 }'
}

# Per stage, "STAGE SAMPLES" from the cells (svg_cells lines on stdin).
cell_sums()
{
	awk -F'|' '{ split($1, w, " "); n = $2; sub(/ samples$/, "", n); sub(/.*: /, "", n)
		s[w[1]] += n } END { for (k in s) print k, s[k] }' | sort
}

# The same from the JSON reports.
json_sums()	# FILE
{
	gojq -rs '[.[].series[]] | group_by(.stage) | .[] | "\(.[0].stage) \(map(.count) | add)"' "$1" |
		sort
}

# The cells of the pod's sock_read, as "TOOLTIP" lines: with "inside", those
# of intervals inside [FROM, TO] (seconds since the epoch) whose latency
# range is not bucket B's; with "below", those of the same intervals below
# bucket B; with "outside", those of intervals outside [FROM, TO] in bucket B.
pod_cells_vs()	# CELLS-FILE FROM TO B inside|below|outside
{
	local lo hi
	lo=$(awk -v b="$4" 'BEGIN { printf "%.0f", int(1e9 * 2 ^ ((b - 1 - 192) / 8)) + 1 }')
	hi=$(awk -v b="$4" 'BEGIN { printf "%.0f", int(1e9 * 2 ^ ((b - 192) / 8)) }')
	grep "^sock_read .*netns=$NS_P" "$1" | awk -F'|' -v from="$2" -v to="$3" -v lo="$lo" -v hi="$hi" \
		-v mode="$5" '
		function sod(t,  h) { split(t, h, ":"); return h[1] * 3600 + h[2] * 60 + h[3] }
		function ns(v, u) { return v * (u == "ns" ? 1 : u == "us" ? 1e3 : u == "ms" ? 1e6 : 1e9) }
		{
			# "15:00:00.000-15:00:01.000 UTC, 12 ms to 13.1 ms: 37 samples"
			split($2, r, ", ")
			split(r[1], t, /[- ]/)
			t0 = sod(t[1]); t1 = sod(t[2])
			f = from % 86400; e = to % 86400
			split(r[2], q, /[ :]+/)
			cl = ns(q[1], q[2]); ch = ns(q[4], q[5])
			same = q[3] == "to" && cl >= lo * 0.99 && cl <= lo * 1.01 && ch >= hi * 0.99 &&
				ch <= hi * 1.01
			if (mode == "inside" && t0 >= f && t1 <= e && !same)
				print $2
			if (mode == "below" && t0 >= f && t1 <= e && ch < lo * 0.99)
				print $2
			if (mode == "outside" && (t1 <= f || t0 >= e) && same)
				print $2
		}'
}

heatmap_phases()
{
	local b t_on t_off f=$T_DIR/run.svg live=$T_DIR/live.svg
	local bytes=$((3 * PHASE * 1000 * 100 / EVERY_MS)) k i n0 n1 reports recv send from to after delayed
	need || return 1
	pod_setup || t_abort setup "cannot create the namespaces"
	t_bg recv in_ns "$NS_P" "$TCPSTREAM" recv --port "$PORT" --bytes "$bytes" --timeout 30 \
		--wait-us "$DELAY_US"
	recv=$BG_PID
	t_wait_line "$T_DIR/recv.out" ready 10 "$recv" || t_abort recv "the receiver did not start"
	start_rxlat -i h0 --per-queue --heatmap "$live" || return 1
	assert_true live_written_at_start "no $live after start-up" test -s "$live"
	t_bg send in_ns "$NS_O" "$TCPSTREAM" send --dst 10.41.1.2 --port "$PORT" --bytes "$bytes" \
		--every-ms "$EVERY_MS"
	send=$BG_PID
	sleep "$PHASE"
	kill -USR1 "$recv"
	t_on=$(date +%s.%N)
	# the live file, two reports apart: two more reports in it
	n0=$(live_reports "$live")
	k=$(wc -l <"$T_DIR/rxlat.out")
	for ((i = 0; i < 40 && $(wc -l <"$T_DIR/rxlat.out") < k + 2; i++)); do sleep 0.05; done
	n1=$(live_reports "$live")
	assert_ge live_rewritten_each_report $((n0 + 2)) "$n1" "reports in $live two reports later"
	sleep "$((PHASE - 1))"
	kill -USR2 "$recv"
	t_off=$(date +%s.%N)
	t_wait_pid "$send" 30
	t_wait_pid "$recv" 30
	sleep 0.6
	stop_rxlat || return 1
	assert_eq received "received $bytes" "$(grep "^received" "$T_DIR/recv.out")"

	"$HEATMAP" -o "$f" "$T_DIR/rxlat.out" 2>"$T_DIR/hm.err"
	assert_eq heatmap_exit 0 "$?" "rxlat-heatmap exit status ($(head -n 1 "$T_DIR/hm.err"))"
	assert_cmd svg_is_xml xmllint --noout "$f"
	assert_cmd live_is_xml xmllint --noout "$live"
	assert_true no_tmp_left "$live.tmp is left" test ! -e "$live.tmp"
	json_sums "$T_DIR/rxlat.out" >"$T_DIR/json.sums"
	svg_cells "$f" >"$T_DIR/cells"
	assert_eq cells_per_stage_file "$(cat "$T_DIR/json.sums")" "$(cell_sums <"$T_DIR/cells")"
	assert_eq cells_per_stage_live "$(cat "$T_DIR/json.sums")" "$(svg_cells "$live" | cell_sums)"
	reports=$(wc -l <"$T_DIR/rxlat.out")
	assert_eq live_every_report "$reports" "$(live_reports "$live")" "reports in the live file"
	log "json per stage: $(tr '\n' ' ' <"$T_DIR/json.sums")"

	# The wait's bucket B. A delayed interval starts after the reader began
	# to wait and ends before it stopped, a fast one is over before it
	# began or starts once the last wait is over. No read waits less than
	# the wait, and on a machine shared with other work a read now and
	# then wakes up late, into the bucket above: at least 90% in B.
	b=$(hist_bucket $((DELAY_US * 1000)))
	from=$(awk -v t="$t_on" 'BEGIN { printf "%.3f", t + 0.05 }')
	to=$(awk -v t="$t_off" 'BEGIN { printf "%.3f", t }')
	after=$(awk -v t="$t_off" -v d="$DELAY_US" 'BEGIN { printf "%.3f", t + d / 1e6 + 0.05 }')
	pod_cells_vs "$T_DIR/cells" "$from" "$to" "$b" inside >"$T_DIR/off"
	delayed=$(pod_cells_vs "$T_DIR/cells" "$from" "$to" -1 inside | samples)
	log "delayed intervals: $delayed sock_read samples of the pod, $(samples <"$T_DIR/off") outside bucket $b"
	assert_ge delayed_reads $((PHASE * 1000 / EVERY_MS / 2)) "$delayed" \
		"sock_read samples of the pod in delayed intervals"
	assert_eq delayed_none_faster "" "$(pod_cells_vs "$T_DIR/cells" "$from" "$to" "$b" below | head -n 3)" \
		"cells of delayed intervals below bucket $b"
	assert_ge delayed_in_wait_bucket $((delayed * 9 / 10)) $((delayed - $(samples <"$T_DIR/off"))) \
		"of $delayed samples in bucket $b, the wait's (outside it: $(head -n 3 "$T_DIR/off" | tr '\n' ';'))"
	assert_eq fast_not_in_wait_bucket "" \
		"$(pod_cells_vs "$T_DIR/cells" "$t_on" "$after" "$b" outside | head -n 3)" \
		"cells of fast intervals in bucket $b"
	render "$f"
}

# "DISTINCT HEATMAP": the distinct colours of PNG file FILE, and how many
# of its pixels have a colour of the heatmap's scale (render/heatmap_svg.c).
# Decoded here with zlib: Debian's python3 has no image library.
png_colours()	# FILE
{
	python3 - "$1" <<-'EOF'
		import struct, sys, zlib
		data = open(sys.argv[1], "rb").read()
		pos, idat = 8, b""
		while pos < len(data):
		    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
		    body = data[pos + 8:pos + 8 + n]
		    if kind == b"IHDR":
		        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
		    elif kind == b"IDAT":
		        idat += body
		    pos += 12 + n
		bpp = {2: 3, 6: 4}[ctype]
		raw, stride, prev, seen, warm = zlib.decompress(idat), w * bpp, None, set(), 0
		scale = {(0xfe, 0xd9, 0x76), (0xfe, 0xb2, 0x4c), (0xfd, 0x8d, 0x3c),
		         (0xfc, 0x4e, 0x2a), (0xe3, 0x1a, 0x1c), (0xbd, 0x00, 0x26), (0x80, 0x00, 0x26),
		         (0x4a, 0x00, 0x14)}
		for y in range(h):
		    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
		    for i in range(stride):
		        a = line[i - bpp] if i >= bpp else 0
		        b = prev[i] if prev else 0
		        c = prev[i - bpp] if prev and i >= bpp else 0
		        if f == 1:
		            line[i] = (line[i] + a) & 255
		        elif f == 2:
		            line[i] = (line[i] + b) & 255
		        elif f == 3:
		            line[i] = (line[i] + (a + b) // 2) & 255
		        elif f == 4:
		            p = a + b - c
		            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
		            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
		    for x in range(0, stride, bpp):
		        px = tuple(line[x:x + 3])
		        seen.add(px)
		        warm += px in scale
		    prev = line
		print(len(seen), warm)
	EOF
}

# Headless Chromium's screenshot of FILE: not blank (colours of the cells).
render()	# FILE
{
	local png=$T_DIR/shot.png colours
	if ! command -v chromium >/dev/null; then
		skip render "no chromium here (under QEMU the initramfs has no browser): the picture is not rendered"
		return 0
	fi
	require_cmd render python3 || return 1
	# its profile, caches and crash database in the test's directory, not in ~
	mkdir -p "$T_DIR/home" || return 1
	HOME=$T_DIR/home XDG_CONFIG_HOME=$T_DIR/home/.config XDG_CACHE_HOME=$T_DIR/home/.cache \
		timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-crash-reporter \
		--user-data-dir="$T_DIR/home/chromium" --screenshot="$png" --window-size=1280,900 \
		"file://$1" >/dev/null 2>&1
	assert_true render_screenshot "chromium wrote no screenshot" test -s "$png" || return 1
	colours=$(png_colours "$png")
	log "screenshot: $colours"
	assert_ge render_not_blank 3 "${colours%% *}" "distinct colours in the screenshot"
	assert_ge render_cells_coloured 1 "${colours##* }" "heatmap colours in the screenshot"
}

# --heatmap beside the text report and without a report (-o none): the
# series reach the picture as the report takes them, or without one. N
# datagrams, every one at ip_rcv and udp_queue_rcv.
live_other_outputs()
{
	local out n=300 f sums
	need_xdp_stamp
	need || return 1
	ns_pair || t_abort setup "cannot create the namespaces"
	for out in text none; do
		f=$T_DIR/live-$out.svg
		: >"$T_DIR/rxlat.err"
		t_bg "rxlat_$out" in_ns "$NS_B" "$RXLAT" --xdp-mode native -i "$IF_B" \
			-o "$out" -r 0.5 --heatmap "$f"
		RXLAT_PID=$BG_PID
		t_wait_line "$T_DIR/rxlat_$out.err" 'map memory' 30 "$RXLAT_PID" ||
			t_abort "rxlat_$out" "rxlat did not start: $(tail -n 1 "$T_DIR/rxlat_$out.err")"
		pair_udp "udp_$out" "$NS_A" "$n"
		sleep 0.6
		kill -INT "$RXLAT_PID"
		t_wait_pid "$RXLAT_PID" 15
		assert_eq "${out}_exit" 0 "$?"
		assert_cmd "${out}_live_is_xml" xmllint --noout "$f"
		sums=$(svg_cells "$f" | cell_sums | grep -E '^(ip_rcv|udp_queue_rcv) ')
		assert_eq "${out}_live_cells" "ip_rcv $n"$'\n'"udp_queue_rcv $n" "$sums" \
			"samples per stage in the live file"
	done
	if [[ -s $T_DIR/rxlat_none.out ]]; then
		fail none_prints_nothing "-o none wrote: $(head -c 200 "$T_DIR/rxlat_none.out")"
	else
		pass none_prints_nothing
	fi
	assert_match text_report_printed "^report at " "$(head -n 1 "$T_DIR/rxlat_text.out")"
}

bad_input()
{
	local f=$T_DIR/in rc
	need || return 1
	# an empty run: rxlat with nothing to measure
	ns_pair || t_abort setup "cannot create the namespaces"
	start_rxlat -i "$IF_B" || return 1
	sleep 1.2
	stop_rxlat || return 1
	"$HEATMAP" -o "$T_DIR/empty.svg" "$T_DIR/rxlat.out" 2>"$T_DIR/empty.err"
	rc=$?
	assert_eq empty_exit 1 "$rc"
	assert_match empty_message "rxlat\.out: no samples in its [0-9]+ reports" "$(cat "$T_DIR/empty.err")"
	assert_eq empty_one_line 1 "$(wc -l <"$T_DIR/empty.err")"
	assert_cmd empty_svg_is_xml xmllint --noout "$T_DIR/empty.svg"
	assert_match empty_svg_says_so "no samples" "$(cat "$T_DIR/empty.svg")"

	# a truncated last line, as a run killed while writing leaves it
	{ head -n 1 "$T_DIR/rxlat.out"; tail -n 1 "$T_DIR/rxlat.out" | head -c 100; } >"$f.trunc"
	"$HEATMAP" -o "$T_DIR/trunc.svg" "$f.trunc" 2>"$T_DIR/trunc.err"
	assert_eq truncated_exit 2 "$?"
	assert_match truncated_message "^rxlat-heatmap: $f\.trunc:2: truncated JSON" "$(cat "$T_DIR/trunc.err")"
	assert_eq truncated_one_line 1 "$(wc -l <"$T_DIR/trunc.err")"
	assert_true truncated_no_picture "a picture of bad input" test ! -e "$T_DIR/trunc.svg"

	# not JSON: rxlat's text report, read from stdin
	printf 'report at 10:00:01, covering the last 1.00 s\n' >"$f.text"
	"$HEATMAP" <"$f.text" >"$T_DIR/text.svg" 2>"$T_DIR/text.err"
	assert_eq not_json_exit 2 "$?"
	assert_match not_json_message "^rxlat-heatmap: stdin:1: not JSON" "$(cat "$T_DIR/text.err")"
	assert_eq not_json_one_line 1 "$(wc -l <"$T_DIR/text.err")"
	assert_eq not_json_no_picture 0 "$(wc -c <"$T_DIR/text.svg")"

	# rxlat --heatmap where no file can be written: refused before it attaches
	rxlat_refused live_unwritable \
		"^rxlat: error: --heatmap $T_DIR/none/x.svg: cannot write it: No such file or directory\$" \
		-o none --heatmap "$T_DIR/none/x.svg"
}

suite_begin
# The picture is drawn in user space from the reports, whose counts the
# collector's tests prove on every kernel; and a wait measured to within a
# bucket needs a CPU that is not emulated.
on_host()	# FUNCTION
{
	host_only "rxlat's heatmap, drawn in user space from the reports" && return 0
	"$@"
}

run_test heatmap_phases on_host heatmap_phases
run_test heatmap_live_other_outputs on_host live_other_outputs
run_test heatmap_bad_input on_host bad_input
suite_end

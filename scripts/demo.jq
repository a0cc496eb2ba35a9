# SPDX-License-Identifier: GPL-2.0
#
# What make demo (scripts/demo.sh) prints from rxlat's JSON reports:
# --arg mode live, one report an input: a line per report; --arg mode end
# with -s, every report of the run: a table per pod, stage and h0 queue,
# and a summary per pod. $prefix is the demo's namespace prefix: the pod
# of a series is its netns label less it ("host": no netns label). $pins
# maps an h0 queue ("0".."3") to the CPU the demo pinned its NAPI thread
# to ({} if it pinned none), $hog_cpu is the CPU of the demo's hog ("" if
# none).
#
# Percentiles come from the buckets of several series and reports merged,
# interpolated inside their bucket as rxlat does; a bucket's lower bound
# follows from its le_ns (bound j is floor(1e9 * 2^((j - 192) / 8)) ns: the
# bound below le_ns is a factor 2^(1/8) under it, rounded down).

def pod: if .netns then .netns | ltrimstr($prefix + "-") else "host" end;
def lower: if . <= 59 then 0
	else (1e9 * pow(2; (8 * (. / 1e9 | log2) | round) / 8 - 1 / 8) | floor) + 1 end;
def merged: group_by(.le_ns | tostring)
	| map({le_ns: .[0].le_ns, count: (map(.count) | add)})
	| sort_by(.le_ns | if type == "number" then . else infinite end);
def pct($q): (map(.count) | add // 0) as $n | if $n == 0 then null else ($q * $n) as $want
	| first(foreach .[] as $b (0; . + $b.count; . as $c | select($c >= $want)
		| if ($b.le_ns | type) != "number" then null else ($b.le_ns | lower) as $lo
		| $lo + ($b.le_ns + 1 - $lo) * (($want - $c + $b.count) / $b.count) end)) end;
def sig: if . >= 100 then round elif . >= 10 then (. * 10 | round) / 10
	else (. * 100 | round) / 100 end;
def dur: if . == null then "-" elif . >= 1e9 then "\(. / 1e9 | sig) s"
	elif . >= 1e6 then "\(. / 1e6 | sig) ms" elif . >= 1e3 then "\(. / 1e3 | sig) us"
	else "\(round) ns" end;
def k: if . >= 10000 then "\(. / 1000 | round)k" else tostring end;
def stages: ["napi_wait", "ip_rcv", "tcp_do_rcv", "tcp_data_queue", "udp_queue_rcv", "sock_read"];
def rank: [(.pod | if . == "host" then 0 elif . == "pod-web" then 1 else 2 end),
	(.stage as $s | stages | index($s)), .queue];

# series of several reports, one row per pod, stage and queue
def rows: group_by([pod, .stage, .queue]) | map({pod: (.[0] | pod), stage: .[0].stage,
	queue: .[0].queue, container: .[0].container, cgroup: .[0].cgroup,
	n: (map(.count) | add), none: (map(.sources.none // 0) | add), max: (map(.max_ns // 0) | max),
	b: (map(.buckets[]) | merged)})
	| sort_by(rank);

# one line per report: what went where in its interval; what h0 received
# is what reached the host's ip_rcv from it, measured or not (source none)
def live:
	select(.series and (.final | not)) | .series as $s
	| ([$s[] | select(.stage == "ip_rcv" and (.netns | not) and .ifname == "h0")
		| .sources // {none: .count} | add] | add // 0) as $rx
	| ([.drops[]?.count] | add // 0) as $dr
	| "\(.time[11:19])  received on h0 \($rx | k)"
	+ ([$s[] | select(.stage == "ip_rcv" and .netns)] | group_by(pod) | sort_by(.[0] | {pod: pod} | rank)
		| map("  \(.[0] | pod) \(map(.count) | add | k) at its ip_rcv, p99 \(map(.buckets[]) | merged | pct(0.99) | dur)")
		| add // "  nothing in a pod yet")
	+ "  dropped in the host \($dr | k)"
	+ ([$s[] | select(.stage == "napi_wait" and .count > 0)] | max_by(.max_ns)
		| if . then "  longest wait for a poll: \(.max_ns | dur), h0 queue \(.queue)" else "" end);

def lpad($w): tostring | (" " * ([$w - length, 0] | max)) + .;
def rpad($w): tostring | . + (" " * ([$w - length, 0] | max));
def queues: "queue\(if length > 1 then "s" else "" end) \(map(tostring) | join(", "))";
def in_queues($qs): select(.queue as $q | $qs | index($q));
def p50p99: "\(pct(0.5) | dur) / \(pct(0.99) | dur)";
# a row's percentile (.b its buckets), never above its largest sample (.max),
# as rxlat's own are: the top bucket's le can be above it
def rpct($q): (.b | pct($q)) as $p | if .max > 0 and $p != null and $p > .max then .max else $p end;

# after the run, every report at once: a row per pod, stage and queue
def table($rows):
	"",
	"demo: the whole run, per pod and h0 receive queue, from the tc stamp on h0 to each stage"
	+ " (napi_wait: from the queue's schedule to the stamp of its poll's first packet):",
	"  \("where" | rpad(8)) \("stage" | rpad(15)) queue   samples       p50       p99",
	($rows[] | select(.n >= 100) | "  \(.pod | rpad(8)) \(.stage | rpad(15)) \(.queue | lpad(5))"
		+ " \(.n | lpad(9)) \(rpct(0.5) | dur | lpad(9)) \(rpct(0.99) | dur | lpad(9))"),
	"  (rows of fewer than 100 samples left out: iperf3's control connections)";

# what a newcomer reads of one pod: its labels and queues, p50/p99 per
# stage after the stamp, the host's forwarding where a queue carried this
# pod alone, and its slowest queue. $ip_rcv is where ip_rcv is attached:
# where that runs before tc ingress (rxlat's fallback set), the host's
# ip_rcv has no stamp to read yet and counts every packet under source
# none, and the host's forwarding is not measured
def pod_summary($rows; $ip_rcv):
	. as $p | .[0].pod as $name
	| (map(select(.stage == "ip_rcv" and .n >= 100))) as $in
	| ($in | map(.queue)) as $qs
	| [$rows[] | select(.pod != "host" and .pod != $name and .stage == "ip_rcv" and .n >= 100)]
		as $others
	# a queue of its own: other pods' packets there under 1% of its own
	| [$in[] | .queue as $q | .n as $n
		| select(([$others[] | select(.queue == $q) | .n] | add // 0) < $n / 100) | $q] as $own
	| ([.[] | select(.container)][0].container // null) as $id
	| "  \($name) (netns=\"\($prefix)-\($name)\"\(if $id then ", container=\"\($id[0:12])...\"" else "" end)):"
		+ " packets from h0 \($qs | queues)",
	"    p50 / p99 from the stamp: " + ([stages[] | select(. != "napi_wait") as $s | $p | map(select(.stage == $s))
		| select((map(.n) | add // 0) >= 100) | "\($s) \(map(.b[]) | merged | p50p99)"] | join(", ")),
	([$rows[] | select(.pod == "host" and .stage == "ip_rcv")]) as $host
	| (if ($host | map(.n) | add // 0) == 0 then
		"    the host's forwarding is not measured here: the host's ip_rcv (\($ip_rcv)) "
		+ (if ($host | map(.none) | add // 0) > 0 then
			"runs before tc ingress on this kernel and counted every packet under source none;"
		else "had no packet;" end),
		"      from h0's tc stamp to the pod's ip_rcv (the host's forwarding, the way into the pod included):"
		+ " p50 \($in | map(.b[]) | merged | pct(0.5) | dur)"
	elif ($own | length) > 0 then
		($host | map(in_queues($own)) | map(.b[]) | merged | pct(0.5)) as $h
		| ($in | map(in_queues($own)) | map(.b[]) | merged | pct(0.5)) as $d
		| if $h == null or $d == null then
			"    the host's ip_rcv has no sample on h0 \($own | queues) of \($name)'s own: compare ip_rcv per queue above"
		else "    the host's forwarding, on h0 \($own | queues) of its own: ip_rcv p50 \($h | dur) in the host,"
			+ " \($d | dur) in the pod: about \($d - $h | dur)" end
	else "    every queue of \($name) also carried another pod: compare ip_rcv per queue above" end),
	($in | select(length > 1) | max_by(.b | pct(0.99)) as $w | min_by(.b | pct(0.99)) as $b
		| select(($w.b | pct(0.99)) >= 2 * ($b.b | pct(0.99)))
		| "    its slowest h0 queue: \($w.queue), ip_rcv p99 \($w.b | pct(0.99) | dur)"
		+ " (queue \($b.queue): \($b.b | pct(0.99) | dur)); "
		+ ([$others[] | select(.queue == $w.queue) | .pod] | unique
			| if length > 0 then "it also carries \(join(", ")), in the same CPU's backlog"
			else "a queue standing out is one CPU's backlog" end));

# napi_wait per h0 queue (whichever pod's packet took a poll's sample), the
# CPU the demo pinned its NAPI thread to ($pins), and the queues that waited
# longest, beside the CPU the demo's hog ran on ($hog_cpu)
def pin: $pins[.queue | tostring];
def wait_summary($rows):
	[$rows[] | select(.stage == "napi_wait" and .n > 0)] | group_by(.queue)
	| map({queue: .[0].queue, n: (map(.n) | add), max: (map(.max) | max), b: (map(.b[]) | merged)}) as $w
	| select(($w | length) > 0)
	| "  the wait for each h0 queue's poll (napi_wait: from the queue's schedule to the tc stamp of the poll's"
	+ " first packet, after GRO):",
	($w[] | "    queue \(.queue): p50 \(rpct(0.5) | dur), p99 \(rpct(0.99) | dur), max \(.max | dur), \(.n | k) polls measured"
		+ (pin | if . then ", its NAPI thread pinned to CPU \(.)" else "" end)),
	# the queues above the first gap of 4x or more in their share of polls
	# that waited over 10 ms, from the largest down: a queue whose CPU is
	# taken away for tens of ms at a time has many, where another one's
	# longest waits (a NAPI thread behind its neighbour's long poll) are few
	($w | select(length > 1) | map(. + {p: (([.b[] | select((.le_ns | type) != "number" or .le_ns > 1e7)
		| .count] | add // 0) / .n)}) | sort_by(-.p) as $s
		| (first(range(0; ($s | length) - 1) | select($s[.].p > 0 and $s[.].p >= 4 * $s[. + 1].p)) // null) as $i
		| def share: "\(. * 1000 | round / 10)%";
		if $i == null then
			"    no queue's wait stood out (no gap of 4x between the queues' shares of polls that waited over 10 ms)"
		else ($s[0:$i + 1]) as $top | ($top | map(pin // empty) | unique) as $cpus
		| "    \($top | map(.queue) | queues) waited over 10 ms in \($top | map(.p | share) | join(", ")) of"
		+ " \(if ($top | length) > 1 then "their" else "its" end) polls (up to \($top | map(.max | dur) | join(", ")))"
		+ " against \($s[$i + 1].p | share) at most elsewhere"
		+ (if ($cpus | length) == 0 then ""
			else ": \(if ($top | length) > 1 then "their NAPI threads are" else "its NAPI thread is" end)"
			+ " pinned to CPU \($cpus | map(tostring) | join(", "))"
			+ (if $hog_cpu != "" and ($cpus | index($hog_cpu | tonumber)) then ", where the demo's SCHED_FIFO hog ran"
				else "" end) end)
		+ "; look for what else runs there (docs/output.md, \"NAPI polls\")" end);

def summary:
	[.[] | select(.series)] as $r | [$r[].series[]] | rows as $rows
	| [$r[].drops[]?] as $drops
	| table($rows),
	"",
	"demo: summary",
	wait_summary($rows),
	($rows | map(select(.pod != "host")) | group_by(.pod) | sort_by(.[0] | rank) | .[]
		| pod_summary($rows; $r[0].attach.ip_rcv // "not attached")),
	($drops | select(length > 0) | "  the host dropped \(map(.count) | add) packets from h0"
		+ " \(map(.queue) | unique | queues) (\(map(.reason) | unique | join(", ")): the demo's nft"
		+ " rule capping UDP to pod-dns)"),
	"  The tc stamp is taken after GRO, per skb: the time GRO held TCP segments to merge them is in no stage",
	"  after it; '--xdp-mode native' stamps in the driver's poll, before GRO, and counts it, where the",
	"  kernel lets XDP programs carry a stamp (docs/design.md, \"Kernels\").",
	"  sock_read also counts the time data waited for the application to read it: a big step up from",
	"  tcp_do_rcv or udp_queue_rcv to sock_read is the application's time, not the stack's.",
	"  next: docs/containers.md (the netns, cgroup and container labels, --by) and",
	"  docs/prometheus.md (configs/: the rules, and the dashboard's \"Containers\" row per pod and stage).";

if $mode == "live" then live else summary end

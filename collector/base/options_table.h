/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rxlat's options, in the order of --help and rxlat.8: the one place where
 * an option's names, value, help, documentation, default, range and the
 * field it sets are written. No include guard: each user defines
 * OPTION(ID, "short", "long", fields...) and includes this list to expand
 * it, as opt.h does for the ids and names, options.c for the parser and
 * --help, man.c for rxlat.8. The fields are struct rxlat_option's
 * (options.h); FLAG(), UINT(), DOUBLE(), CHOICE() and STRING() give the
 * kind and where the value goes; NEEDS(), MOOT_WITH() and FOR_STAGE() what
 * it applies to (an error without the option it needs, a note where a
 * value or --stages makes it do nothing).
 *
 * The man text is roff, as the rest of collector/cli/rxlat.8.
 */
#ifndef OPTION
#error "define OPTION(id, short, long, ...) before including options_table.h"
#endif

OPTION(INTERFACE, "i", "interface", STRING(parse_interface), .metavar = "IFACE",
       .max_count = RXLAT_MAX_CLI_IFACES,
       .help = "stamp IFACE at tc ingress (--xdp-mode: in XDP) and report only it (repeatable)",
       .man = "Stamp the packets of\n"
	      ".I IFACE\n"
	      "at tc ingress (through a tcx link where the kernel has them, 6.6+; see TC\n"
	      "STAMPER), which changes nothing on the device, or with\n"
	      ".B \\-\\-xdp\\-mode\n"
	      "in XDP, and report only this interface. Repeatable, up to 64 interfaces.\n"
	      "See INTERFACES THAT COME AND GO. Without\n"
	      ".BR \\-i ,\n"
	      "every interface that produced samples is reported, and a stamper already\n"
	      "loaded by xdp-loader is used if there is one.\n")

OPTION(XDP_MODE, "", "xdp-mode",
       CHOICE(xdp_mode, [RXLAT_XDP_NATIVE] = "native", [RXLAT_XDP_SKB] = "skb"), NEEDS(INTERFACE),
       .def = RXLAT_XDP_NATIVE,
       .help = "stamp in XDP, attached in this mode, instead of at tc ingress (which changes "
	       "nothing on the device); says first what XDP does to the driver",
       .man = "Stamp in XDP instead of at tc ingress: the XDP stamper, attached in this mode\n"
	      "(through a BPF link: the kernel detaches it when rxlat exits, however it\n"
	      "exits). Its stamp is taken in the driver's poll, before GRO. Attaching XDP\n"
	      "changes the device (see DRIVERS): rxlat says what, for the driver, in one line\n"
	      "before it attaches, refuses a driver known to give XDP no room for metadata,\n"
	      "and turns back on at exit the offloads that attaching turned off (generic XDP\n"
	      "turns off LRO and hardware GRO). Where the XDP stamper cannot attach, or the\n"
	      "driver's first packets carry no metadata, rxlat ends with an error.\n")

OPTION(NO_XDP, "", "no-xdp", FLAG(no_xdp),
       .help = "use a stamper that xdp-loader attached, attach none",
       .man = "Attach no stamper: use one that xdp-loader attached to an interface of this\n"
	      "network namespace (found by its program name, rxlat_xdp).\n")

OPTION(TC, "", "tc", FLAG(tc), NEEDS(INTERFACE),
       .help = "stamp at tc ingress of each -i IFACE (the default)",
       .man = "Stamp at tc ingress of each interface named with\n"
	      ".BR \\-i ,\n"
	      "as rxlat does without\n"
	      ".BR \\-\\-xdp\\-mode\n"
	      "(see TC STAMPER): given, it refuses\n"
	      ".BR \\-\\-xdp\\-mode .\n")

OPTION(STAMP, "", "stamp",
       CHOICE(stamp, [RXLAT_STAMP_BATCH] = "batch", [RXLAT_STAMP_PACKET] = "packet"),
       NEEDS(INTERFACE), .def = RXLAT_STAMP_BATCH,
       .help = "the XDP stamper's: one stamp per NAPI poll (default, keeps GRO) or per packet",
       .man = ".B batch\n"
	      "(default): one clock read per NAPI poll and CPU, shared by the packets of that\n"
	      "poll, so that GRO can still merge them; a packet's stamp is early by at most\n"
	      "the time from the start of its poll to its turn. rxlat's poll-end reset clears\n"
	      "the stamp when a poll ends; the stamp never changes in the middle of a poll,\n"
	      "where a change would make GRO deliver TCP segments out of order. Where GRO\n"
	      "still holds packets at the end of a poll that used its whole budget, the stamp\n"
	      "goes on into the next poll, for at most the jiffy it was taken in. A stamper\n"
	      "without the reset (loaded by xdp-loader, rxlat not running) starts a new stamp\n"
	      "after a 20 us gap between packets or in a new jiffy.\n"
	      ".BR packet :\n"
	      "a fresh stamp per packet; exact, but harmful to TCP: GRO never merges packets\n"
	      "whose metadata differs and delivers the segments it holds apart out of order\n"
	      "(spurious retransmits, TCP far slower: make bench part 1 counts them).\n"
	      "rxlat warns at start-up. Use it for UDP, or to check batch stamps' error.\n")

OPTION(PER_QUEUE, "", "per-queue", FLAG(per_queue), .help = "one series per receive queue",
       .man = "One series per receive queue instead of one per interface.\n")

OPTION(STAGES, "", "stages", STRING(parse_stages), .metavar = "LIST",
       .help = "comma-separated stages to attach, +LIST: besides the default ones (default: all "
	       "but napi_wait)",
       .man = "Comma-separated stages to attach; default all but napi_wait, which is asked for\n"
	      "by name (it runs for every NAPI schedule of the host, measured interface or not).\n"
	      "A list that begins with + adds its stages to the default ones (--stages\n"
	      "+napi_wait). napi_wait is read at ip_rcv, and needs that stage.\n")

OPTION(FROM, "", "from", CHOICE(bpf.from, RXLAT_FROM_NAMES), .def = RXLAT_FROM_STAMP,
       .help = "where the stages after the stamp start: stamp (default) or schedule, the "
	       "schedule of the packet's poll (the time since the interrupt; adds napi_wait)",
       .man = ".B stamp\n"
	      "(default): every stage is the time from the packet's stamp.\n"
	      ".BR schedule :\n"
	      "every stage after the stamp is the time from the schedule of the NAPI poll\n"
	      "that took the packet, the start of its\n"
	      ".B napi_wait\n"
	      "sample (the interrupt, the sender's veth_xmit(), or the raise of the NET_RX\n"
	      "softirq for a CPU's backlog): \"time since the interrupt\" per stage and queue.\n"
	      "It adds the stage napi_wait and needs ip_rcv; with the XDP stamper, batch\n"
	      "stamps. A packet whose poll has no known schedule (a kernel stamp, a tc stamp\n"
	      "of an iproute2-loaded stamper, a poll napi_wait has no sample for) is counted\n"
	      "under source\n"
	      ".BR none .\n")

OPTION(INCLUDE_OOO, "", "include-ooo", FLAG(include_ooo), MOOT_WITH(PROTO, IPPROTO_UDP),
       FOR_STAGE(SOCK_READ),
       .help = "count TCP reads held behind out-of-order data in the sock_read histogram too",
       .man = "Count the TCP reads that waited behind out-of-order data (the segments after\n"
	      "a lost one, queued until its retransmission arrived) as\n"
	      ".B sock_read\n"
	      "samples too. Without it they are only counted, as\n"
	      ".BR \"held ooo\" ,\n"
	      "and left out of the histogram, its sources and\n"
	      ".BR \\-\\-slow :\n"
	      "their latency is the loss recovery's, not the stack's. See HELD READS.\n")

OPTION(ATTACH, "", "attach",
       CHOICE(attach, [RXLAT_ATTACH_AUTO] = "auto", [RXLAT_ATTACH_FENTRY] = "fentry",
	      [RXLAT_ATTACH_FALLBACK] = "fallback"),
       .def = RXLAT_ATTACH_AUTO,
       .help = "auto (default): fentry where the kernel allows it, else the fallback; fentry: "
	       "fentry only; fallback: no trampolines",
       .man = ".B auto\n"
	      "(default) uses fentry where the kernel allows BPF trampolines and falls back\n"
	      "per stage, saying which and why;\n"
	      ".B fentry\n"
	      "fails where fentry is refused;\n"
	      ".B fallback\n"
	      "forces the non-trampoline set.\n")

OPTION(INTERVAL, "r", "interval", DOUBLE(interval_s), .metavar = "SECONDS", .def = 1, .min = 0.01,
       .max = 86400, .range = "%s %g: the report interval must be between %s and %s seconds",
       .help = "report interval, fractions allowed",
       .man = "Report interval, fractions allowed (@MIN@ to @MAX@); default @DEF@. The first\n"
	      "interval starts when everything is attached, with the line \"map memory\" on\n"
	      "stderr: what the hooks and the stamper saw while rxlat started, and the\n"
	      "history of a stamper loaded before it, are in no report.\n")

OPTION(DURATION, "d", "duration", DOUBLE(duration_s), .metavar = "SECONDS", .def = 0, .min = 0,
       .max = 1e9,
       .range = "%s %g: the run time must be %s (until a signal) or a positive number of seconds "
		"up to %s",
       .help = "run time; 0 runs until SIGINT/SIGTERM",
       .man = "Run time, up to @MAX@ seconds; @DEF@ (default) runs until a signal (see SIGNALS).\n"
	      "A final report is printed at exit.\n")

OPTION(OUTPUT, "o", "output",
       CHOICE(output, [RXLAT_OUT_TEXT] = "text", [RXLAT_OUT_JSON] = "json", /* an exporter: */
	      [RXLAT_OUT_NONE] = "none"),
       .def = RXLAT_OUT_TEXT,
       .help = "terminal histograms, JSON lines or no report (default: text)",
       .man = ".B text\n"
	      "prints per series a log2 histogram in the familiar bpftrace look and count,\n"
	      "mean, " RXLAT_PERCENTILE_NAMES "and max, under a line naming the report and the\n"
	      "time it covers; a line of each stage's attach point and one of the protocols\n"
	      "it measures come with the first report, and again only when they change.\n"
	      ".B json\n"
	      "prints one JSON object per line and interval; every count covers only the\n"
	      "time since the previous object, so the objects of a run add up to its totals.\n"
	      "Buckets are listed with\n"
	      ".IR le_ns ,\n"
	      "the largest value the bucket holds. Each object names each stage's attach\n"
	      "point\n"
	      ".RI ( attach ,\n"
	      ".IR unavailable )\n"
	      "and the protocols it measures\n"
	      ".RI ( measures ,\n"
	      ".I not_measured\n"
	      "with the reason per protocol).\n"
	      ".B none\n"
	      "prints no report: with\n"
	      ".B \\-\\-prometheus\n"
	      "only, rxlat runs as a pure exporter, with\n"
	      ".B \\-\\-heatmap\n"
	      "only it draws.\n")

OPTION(HEATMAP, "", "heatmap", STRING(parse_heatmap), .metavar = "FILE",
       .help = "rewrite FILE after every report: a latency heatmap (SVG) of the last reports",
       .man = "After every report, rewrite\n"
	      ".I FILE\n"
	      "with the latency heatmap of the last reports (see\n"
	      ".BR \\-\\-heatmap\\-window ),\n"
	      "the picture\n"
	      ".BR rxlat\\-heatmap (1)\n"
	      "draws: written to\n"
	      ".I FILE.tmp\n"
	      "and renamed, so that a browser reloading it never reads half a file. With any\n"
	      ".BR \\-o ,\n"
	      "none included. A file that cannot be written at start-up is refused; later,\n"
	      "a failed write is said on stderr and tried again after the next report.\n")

OPTION(HEATMAP_WINDOW, "", "heatmap-window", UINT(heatmap_window), NEEDS(HEATMAP), .metavar = "N",
       .def = 120, .min = 2, .max = 100000,
       .range = "%s %.0f: give a number of reports from %s to %s",
       .help = "reports the --heatmap picture keeps, the oldest dropped",
       .man = "The reports the\n"
	      ".B \\-\\-heatmap\n"
	      "picture keeps (default @DEF@, @MIN@ to @MAX@), the older ones dropped: with its\n"
	      "64 panels at most, they bound the memory it takes and the file's size.\n")

OPTION(PROMETHEUS, "", "prometheus", STRING(parse_prometheus), .metavar = "[ADDR:]PORT",
       .help = "serve /metrics there (a bare port: 127.0.0.1)",
       .man =
	   "Serve /metrics there, in the Prometheus text format, or in the protobuf one\n"
	   "with native histograms when the scraper's Accept prefers it: a bare port listens on\n"
	   "127.0.0.1, ADDR is a numeric IPv4 address or an IPv6 one in brackets\n"
	   "([::]:9474). Cumulative histograms per stage, interface and queue in seconds\n"
	   "(rxlat_stage_latency_seconds, every le the exact largest value of its\n"
	   "bucket), samples per source, samples in overflow series, the stamper's\n"
	   "counters, rxlat_stage_measured (1 or 0 per stage and protocol) and\n"
	   "rxlat_build_info with each stage's attach point; counted from the first\n"
	   "interval on, never reset. The port is bound before anything is\n"
	   "attached; one in use is refused. See docs/prometheus.md.\n")

OPTION(WEB_CONFIG, "", "web-config", STRING(parse_web_config), NEEDS(PROMETHEUS), .metavar = "FILE",
       .help = "TLS and basic auth for /metrics, as exporter-toolkit's web configuration file",
       .man = "Serve /metrics as Prometheus' exporters do with their\n"
	      ".BR \\-\\-web.config.file :\n"
	      ".I FILE\n"
	      "is exporter-toolkit's web configuration (YAML), and node_exporter's works\n"
	      "unchanged: TLS with\n"
	      ".B tls_server_config\n"
	      "(cert_file, key_file, min_version, max_version, client_auth_type\n"
	      "NoClientCert, VerifyClientCertIfGiven or RequireAndVerifyClientCert with\n"
	      "client_ca_file), HTTP basic auth with\n"
	      ".B basic_auth_users\n"
	      "(user: bcrypt hash; any other request gets 401, counted in\n"
	      "rxlat_http_auth_failures_total), and\n"
	      ".B http_server_config.headers\n"
	      "(the security headers). A field rxlat does not support is refused by name.\n"
	      "The file is read and checked as the command line is parsed (the key must\n"
	      "match the certificate); a broken one is refused in one line naming the\n"
	      "field. It is read again on SIGHUP, which then no longer stops rxlat, and when\n"
	      "it, the certificate, the key or the CA file changes on disk (seen at the next\n"
	      "connection): a broken new file keeps the old one, said in one line. New\n"
	      "certificates are served at once, on the same listening socket; connections\n"
	      "open at that moment are closed. See docs/prometheus.md.\n")

/* 1..8 here, and a power of two: options.c checks that with the same message */
OPTION(PROMETHEUS_BUCKETS, "", "prometheus-buckets", UINT(prom_buckets), NEEDS(PROMETHEUS),
       .metavar = "1|2|4|8", .def = PROM_BUCKETS_DEFAULT, .min = 1, .max = 8,
       .range = "%s %.0f: choose 1, 2, 4 or 8 buckets per power of two",
       .help = "exported buckets per power of two",
       .man = "Exported buckets per power of two (default @DEF@), each the exact sum of the\n"
	      "map's own @MAX@: fewer series per histogram (37, 65, 121 or 233 with the sum,\n"
	      "count, sources and held counter).\n")

OPTION(PROMETHEUS_CLASSIC, "", "prometheus-classic", FLAG(prom_classic), NEEDS(PROMETHEUS),
       .help = "protobuf scrapes get the classic buckets too",
       .man = "A scrape in the protobuf format (a Prometheus with native histograms\n"
	      "on) gets the classic buckets of\n"
	      ".B \\-\\-prometheus\\-buckets\n"
	      "beside the native histogram, for a server that stores both or only\n"
	      "the classic ones. Off by default: such a server asks for the native\n"
	      "form, and the classic buckets would make its scrape several times larger.\n")

OPTION(PROTO, "", "proto", CHOICE(bpf.filter_proto, [IPPROTO_TCP] = "tcp", [IPPROTO_UDP] = "udp"),
       .help = "only packets of this protocol",
       .man = "Only packets of this protocol are measured. The filters are applied in BPF\n"
	      "before any map update and combine with each other; with none given, a hook\n"
	      "pays one load of its read-only configuration (the verifier removes the rest),\n"
	      "and a packet filtered out costs one\n"
	      "comparison or bitmap load per stage, plus, at\n"
	      ".BR ip_rcv ,\n"
	      "one read of its headers.\n")

OPTION(PORT, "", "port", STRING(parse_ports), .metavar = "N[,N..]",
       .help = "only packets to these local ports",
       .man = "Only packets to these local (destination) ports, 1 to 65535. Stages with a\n"
	      "socket take the port from it;\n"
	      ".B ip_rcv\n"
	      "reads the TCP or UDP header after the IP header. IPv6 extension headers are\n"
	      "not walked, and IPv4 fragments other than the first carry no port: such packets\n"
	      "do not match at\n"
	      ".BR ip_rcv .\n")

OPTION(CGROUP, "", "cgroup", STRING(parse_cgroup), .metavar = "PATH",
       .help = "only sockets of this cgroup v2 (not its children); ip_rcv, before any socket, "
	       "records nothing",
       .man = "Only packets to sockets of this cgroup v2 directory (the cgroup of the process\n"
	      "that created the socket; sockets of its child cgroups do not match).\n"
	      ".B ip_rcv\n"
	      "comes before any socket and records nothing with this filter; the\n"
	      ".B consume_skb\n"
	      "fallback of UDP\n"
	      ".B sock_read\n"
	      "has lost the socket and uses the reading task's cgroup instead. A path that\n"
	      "does not exist or is not on cgroup v2 is refused, and the error names the\n"
	      "cgroup v2 mount. Under\n"
	      ".BR \"ip netns exec\" ,\n"
	      "whose /sys has no cgroup2, the path is the one its caller sees.\n")

OPTION(
    BY, "", "by",
    CHOICE(
	bpf.by, [RXLAT_BY_NONE] = "none", [RXLAT_BY_NETNS] = "netns", [RXLAT_BY_CGROUP] = "cgroup"),
    .def = RXLAT_BY_NETNS,
    .help = "also measure packets stamped here and delivered into other network namespaces, "
	    "grouped by namespace (netns, default) or also by the socket's cgroup (cgroup); "
	    "none: this namespace only",
    .man = "Where a sample was taken, besides the interface and queue where its packet\n"
	   "was stamped. A packet stamped on an interface of rxlat's network namespace\n"
	   "keeps its stamp when it is forwarded or bridged into another namespace, a\n"
	   "container's: with\n"
	   ".B netns\n"
	   "(default) its stages there are measured too, in series labelled with that\n"
	   "namespace\n"
	   ".RI ( netns :\n"
	   "its name under /run/netns or /var/run/docker/netns, else\n"
	   ".RI net:[ inode ],\n"
	   "as /proc/PID/ns/net shows it; a namespace gone before it was named, or\n"
	   "whose inode names another namespace by then,\n"
	   ".RI net:[ inode ]# cookie ).\n"
	   "Series of rxlat's own namespace carry no\n"
	   ".I netns\n"
	   "label. With\n"
	   ".B cgroup\n"
	   "the stages with a socket are also grouped by the receiving socket's cgroup v2\n"
	   ".RI ( cgroup ,\n"
	   "its path, and\n"
	   ".IR container ,\n"
	   "the container id found in the paths of Docker, containerd, CRI-O and\n"
	   "systemd scopes), in every namespace, one group per cgroup and namespace.\n"
	   ".B none\n"
	   "measures the stages of rxlat's own namespace only. Only packets stamped here\n"
	   "are measured in other namespaces; see CONTAINER HOSTS.\n")

OPTION(MAX_GROUPS, "", "max-groups", UINT(bpf.max_groups), MOOT_WITH(BY, RXLAT_BY_NONE),
       .metavar = "N", .def = RXLAT_MAX_GROUPS_DEFAULT, .min = 1, .max = RXLAT_MAX_GROUPS_LIMIT,
       .range = "%s %g: must be between %s and %s",
       .help = "namespaces or cgroups with series of their own (--by)",
       .man = "Network namespaces (or cgroups) other than rxlat's own that get series of\n"
	      "their own with\n"
	      ".B \\-\\-by\n"
	      "(default @DEF@, at most @MAX@). Further ones share series labelled\n"
	      ".BR netns=\"other\" ,\n"
	      "said once on stderr. A group whose namespace or cgroup is gone gives its slot\n"
	      "to the next one after its last report.\n")

OPTION(DROPS, "", "drops", FLAG(drops), .help = "count dropped stamped packets per reason (5.17+)",
       .man = "Count the packets rxlat stamped that the kernel frees with a drop reason\n"
	      "before a socket takes them (tracepoint\n"
	      ".BR kfree_skb ),\n"
	      "per interface, receive queue and reason, with a histogram of the time from\n"
	      "the stamp to the drop: a\n"
	      ".B drops\n"
	      "section in every report (JSON:\n"
	      ".B drops\n"
	      "and\n"
	      ".BR drops_lost ).\n"
	      "Reason names are the running kernel's own, from its BTF (enum\n"
	      ".BR skb_drop_reason ).\n"
	      "With\n"
	      ".BR \\-\\-prometheus ,\n"
	      "the counter\n"
	      ".B rxlat_drops_total\n"
	      "(labels ifname, queue, reason) is exported as well.\n"
	      "Kernels before 5.17 pass no drop reason: there\n"
	      ".B \\-\\-drops\n"
	      "is refused with that reason.\n")

OPTION(SLOW, "", "slow", STRING(parse_slow), .metavar = "DURATION",
       .help = "a record per sample from DURATION up (as in 2ms)",
       .man = "Write a record of every sample from\n"
	      ".I DURATION\n"
	      "up (a number and a unit: ns, us, ms or s), at any stage, and with\n"
	      ".B \\-\\-drops\n"
	      "of every drop: time, stage (or\n"
	      ".B drop\n"
	      "and its reason), interface, queue, CPU, protocol, addresses and ports,\n"
	      "latency and stamp source. Text: one line starting with\n"
	      ".BR slow ;\n"
	      "JSON: an object with\n"
	      ".B \\(dqtype\\(dq: \\(dqslow\\(dq\n"
	      "in the same stream as the reports. Records of an interval precede its report,\n"
	      "which counts them as sent, suppressed (over\n"
	      ".BR \\-\\-slow\\-rate )\n"
	      "and lost (the 1 MiB ring buffer was full). Not with\n"
	      ".BR \"\\-o none\" .\n")

OPTION(SLOW_RATE, "", "slow-rate", UINT(slow_rate), NEEDS(SLOW), .metavar = "N", .def = 1000,
       .min = 1, .max = 1000000,
       .range = "%s %.0f: give a number of records a second from %s to %s",
       .help = "records a second per CPU",
       .man = "At most\n"
	      ".I N\n"
	      "records a second per CPU (default @DEF@, bursts up to one second's worth),\n"
	      "counted in BPF with a token bucket; the others are counted, never waited for.\n")

OPTION(MAX_IFACES, "", "max-ifaces", UINT(bpf.max_ifaces), .metavar = "N",
       .def = RXLAT_MAX_IFACES_DEFAULT, .min = 1, .max = RXLAT_MAX_IFACES_LIMIT,
       .range = "%s %g: must be between %s and %s", .help = "interfaces with a series of their own",
       .man_next = true)

OPTION(MAX_QUEUES, "", "max-queues", UINT(bpf.max_queues), .metavar = "N",
       .def = RXLAT_MAX_QUEUES_DEFAULT, .min = 1, .max = RXLAT_MAX_QUEUES_LIMIT,
       .range = "%s %g: must be between %s and %s", .help = "queues with a series of their own",
       .man = "Interfaces and queues that get a series of their own (default @DEF@ each, at\n"
	      "most @MAX@). Further ones share an overflow series named \"other\"; nothing is\n"
	      "dropped. Map memory follows the series in use: a series gets its histogram\n"
	      "(@HIST_BYTES@ bytes) with its first sample, in chunks of @CHUNK_SERIES@ created\n"
	      "as they fill; at start-up only a table of 8 bytes per possible series and one\n"
	      "chunk are made. Past @HISTS_MIB@ MiB of histograms no chunk is added, and\n"
	      "rxlat says on stderr how many samples found none. Without\n"
	      ".BR \\-i ,\n"
	      "interfaces get their series in the order their first packet arrives.\n")

OPTION(LIST_STAGES, "", "list-stages", FLAG(list_stages),
       .help = "print each stage's attach point on this kernel and exit",
       .man = "Print the attach point each stage would use on this kernel and the\n"
	      "protocols it measures there, and exit. It\n"
	      "loads what a run loads, the hooks included (the verifier's word, not the probes'\n"
	      "alone), so it needs the same privileges and says exactly what a run would attach.\n"
	      "A run where none of the stages asked for can be attached is refused.\n")

OPTION(VERBOSE, "v", "verbose", FLAG(verbose), .help = "print libbpf and verifier messages")

OPTION(HELP, "h", "help", .kind = KIND_FLAG, .help = "print this help and exit",
       .man = "Print the options and exit.\n")

OPTION(VERSION, "V", "version", .kind = KIND_FLAG, .help = "print the version and exit")

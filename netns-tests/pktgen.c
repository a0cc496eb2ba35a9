// SPDX-License-Identifier: GPL-2.0
/*
 * rxlat-pktgen: exact-count UDP traffic for the netns tests.
 *
 * "send" writes whole Ethernet frames with libpcap, so that the test decides
 * the destination MAC and the UDP source ports (and thereby the veth queue a
 * frame lands on) without depending on ARP/NDP or the sender's routing.
 * "recv" checks that every datagram arrived exactly once and unchanged: the
 * payload is a pattern derived from a sequence number (pktgen_payload.c),
 * so a lost, repeated, reordered-into-another-slot or modified byte is
 * caught.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "frame.h"
#include "pktgen_payload.h"

#define RECV_BUF 65536

static const char *prog = "rxlat-pktgen";

static int parse_addr(const char *s, struct frame_addr *a)
{
	if (inet_pton(AF_INET, s, &a->v4) == 1) {
		a->family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, s, &a->v6) == 1) {
		a->family = AF_INET6;
		return 0;
	}
	return -EINVAL;
}

static int parse_mac(const char *s, uint8_t mac[6])
{
	unsigned int b[6];
	char tail;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &tail) != 6)
		return -EINVAL;
	for (int i = 0; i < 6; i++) {
		if (b[i] > 0xff)
			return -EINVAL;
		mac[i] = b[i];
	}
	return 0;
}

static int parse_ulong(const char *s, unsigned long min, unsigned long max, unsigned long *out)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || s[0] == '-' || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/*
 * Read the MAC with an ioctl rather than from /sys/class/net: under nsenter
 * the sysfs mount still shows the namespace it was mounted in.
 */
static int dev_mac(const char *dev, uint8_t mac[6])
{
	struct ifreq ifr = {};
	int fd, err = 0;

	if (strlen(dev) >= sizeof(ifr.ifr_name))
		return -ENAMETOOLONG;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	strcpy(ifr.ifr_name, dev);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0)
		err = -errno;
	else
		memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	close(fd);
	return err;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * Holds a frame back until its due time. Kernels without veth backpressure
 * (before 6.16) drop what overflows the peer's ring when a threaded NAPI
 * receiver falls behind; a rate keeps exact-count tests exact there.
 * Sleeps only when 50 us or more ahead, so that high rates send in bursts.
 */
#define PACE_SLACK_NS 20000000ull /* 20 ms */

static void pace(uint64_t due)
{
	uint64_t now = now_ns();
	struct timespec ts;

	if (due < now + 50000)
		return;
	ts.tv_sec = due / 1000000000ull;
	ts.tv_nsec = due % 1000000000ull;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: %s send --dev IF --dst-mac MAC --src-ip A --dst-ip B --dport P --count N\n"
		"                    [--flows F] [--size BYTES] [--sport-base S] [--pps RATE]\n"
		"       %s recv --port P --count N [--v6] [--size BYTES] [--timeout SECONDS]\n"
		"                   [--timestamp | --timestamp-late] [--hold MS after the first]\n"
		"                   [--rcvbuf BYTES]\n",
		prog, prog);
}

/*
 * A full qdisc makes the kernel refuse a frame (ENOBUFS) instead of queueing
 * it; the frame was not sent, so sending it again keeps the count exact.
 */
static int inject_retry(pcap_t *p, const uint8_t *buf, size_t len)
{
	struct timespec pause = { 0, 50 * 1000 };
	int tries = 0;

	for (;;) {
		errno = 0;
		if (pcap_inject(p, buf, len) == (int)len)
			return 0;
		if ((errno != ENOBUFS && errno != EAGAIN) || ++tries > 100000)
			return errno ? -errno : -EIO;
		nanosleep(&pause, NULL);
	}
}

struct send_opts {
	const char *dev;
	struct frame_spec f; /* sport and ip_id change per frame */
	unsigned long count, flows, size, sport_base, pps;
};

/* Parses send's options into *o: -1 to go on, else the exit status. */
static int parse_send_args(int argc, char **argv, struct send_opts *o)
{
	static const struct option opts[] = {
		{ "dev", required_argument, NULL, 'i' },
		{ "dst-mac", required_argument, NULL, 'm' },
		{ "src-ip", required_argument, NULL, 's' },
		{ "dst-ip", required_argument, NULL, 'd' },
		{ "dport", required_argument, NULL, 'p' },
		{ "count", required_argument, NULL, 'n' },
		{ "flows", required_argument, NULL, 'f' },
		{ "size", required_argument, NULL, 'b' },
		{ "sport-base", required_argument, NULL, 'S' },
		{ "pps", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool have_mac = false, have_src = false, have_dst = false;
	unsigned long dport = 0, v;
	int c, li = 0;
	size_t hdr;

	*o = (struct send_opts){ .flows = 8, .size = 64, .sport_base = 10000 };
	while ((c = getopt_long(argc, argv, "h", opts, &li)) != -1) {
		switch (c) {
		case 'i':
			o->dev = optarg;
			break;
		case 'm':
			if (parse_mac(optarg, o->f.dst_mac))
				goto bad_arg;
			have_mac = true;
			break;
		case 's':
			if (parse_addr(optarg, &o->f.src))
				goto bad_arg;
			have_src = true;
			break;
		case 'd':
			if (parse_addr(optarg, &o->f.dst))
				goto bad_arg;
			have_dst = true;
			break;
		case 'p':
			if (parse_ulong(optarg, 1, 65535, &dport))
				goto bad_arg;
			break;
		case 'n':
			if (parse_ulong(optarg, 1, ULONG_MAX, &o->count))
				goto bad_arg;
			break;
		case 'f':
			if (parse_ulong(optarg, 1, 65535, &o->flows))
				goto bad_arg;
			break;
		case 'b':
			if (parse_ulong(optarg, SEQ_LEN, FRAME_MAX, &o->size))
				goto bad_arg;
			break;
		case 'S':
			if (parse_ulong(optarg, 1, 65535, &v))
				goto bad_arg;
			o->sport_base = v;
			break;
		case 'r':
			if (parse_ulong(optarg, 1, 100000000, &o->pps))
				goto bad_arg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!o->dev || !have_mac || !have_src || !have_dst || !dport || !o->count) {
		fprintf(stderr,
			"%s send: --dev, --dst-mac, --src-ip, --dst-ip, --dport and --count are "
			"required\n",
			prog);
		return 2;
	}
	if (o->f.src.family != o->f.dst.family) {
		fprintf(stderr, "%s send: --src-ip and --dst-ip must both be IPv4 or both IPv6\n",
			prog);
		return 2;
	}
	if (o->sport_base + o->flows - 1 > 65535) {
		fprintf(stderr, "%s send: --sport-base + --flows - 1 exceeds 65535; lower one\n",
			prog);
		return 2;
	}
	hdr = frame_udp_hdr_len(&o->f);
	if (hdr + o->size > FRAME_MAX) {
		fprintf(stderr,
			"%s send: --size %lu does not fit a 1500-byte MTU; use at most %zu\n", prog,
			o->size, FRAME_MAX - hdr);
		return 2;
	}
	o->f.dport = dport;
	return -1;

bad_arg:
	fprintf(stderr, "%s send: bad value '%s' for --%s\n", prog, optarg, opts[li].name);
	usage(stderr);
	return 2;
}

/* A pcap handle that injects on DEV, or NULL after saying why. */
static pcap_t *open_injector(const char *dev)
{
	char errbuf[PCAP_ERRBUF_SIZE] = "";
	const char *what = "pcap_create";
	pcap_t *p;

	p = pcap_create(dev, errbuf);
	if (!p)
		goto fail;
	/* nothing is captured: keep the receive side of the handle small */
	pcap_set_snaplen(p, 64);
	pcap_set_buffer_size(p, 64 * 1024);
	if (pcap_activate(p) < 0) {
		snprintf(errbuf, sizeof(errbuf), "%s", pcap_geterr(p));
		what = "pcap_activate";
		goto fail;
	}
	/*
	 * Incoming-only stops the kernel from cloning every injected frame
	 * back to this socket (PACKET_IGNORE_OUTGOING); failure only costs
	 * time.
	 */
	pcap_setdirection(p, PCAP_D_IN);
	return p;

fail:
	fprintf(stderr, "%s send: %s on %s failed: %s; run as root and check the interface name\n",
		prog, what, dev, errbuf);
	if (p)
		pcap_close(p);
	return NULL;
}

/* Sends o->count frames, paced when o->pps is set: 0 or a negative errno. */
static int send_frames(pcap_t *p, struct send_opts *o)
{
	uint8_t buf[FRAME_MAX], payload[FRAME_MAX];
	uint64_t t0 = now_ns(), seq, s0 = 0, due, now;
	size_t len;
	int err;

	for (seq = 0; seq < o->count; seq++) {
		/*
		 * Paced from t0 on; a sender held back longer than
		 * PACE_SLACK_NS (a stalled virtual CPU) goes on at the rate
		 * from where it is, rather than sending what it owes in one
		 * burst that overflows the receiving CPU's backlog.
		 */
		if (o->pps) {
			due = t0 + (seq - s0) * 1000000000ull / o->pps;
			now = now_ns();
			if (now > due + PACE_SLACK_NS) {
				t0 = now;
				s0 = seq;
				due = now;
			}
			pace(due);
		}

		o->f.sport = o->sport_base + seq % o->flows;
		o->f.ip_id = seq & 0xffff;
		fill_payload(payload, o->size, seq);
		len = frame_udp(buf, &o->f, payload, o->size);
		err = inject_retry(p, buf, len);
		if (err) {
			fprintf(stderr,
				"%s send: injecting frame %llu of %lu on %s failed: %s; check that "
				"%s is up\n",
				prog, (unsigned long long)seq, o->count, o->dev, strerror(-err),
				o->dev);
			return err;
		}
	}
	return 0;
}

static int cmd_send(int argc, char **argv)
{
	struct send_opts o;
	pcap_t *p;
	int err;

	err = parse_send_args(argc, argv, &o);
	if (err >= 0)
		return err;
	err = dev_mac(o.dev, o.f.src_mac);
	if (err) {
		fprintf(stderr,
			"%s send: cannot read the MAC address of %s: %s; check the interface "
			"exists in this network namespace\n",
			prog, o.dev, strerror(-err));
		return 1;
	}
	p = open_injector(o.dev);
	if (!p)
		return 1;
	err = send_frames(p, &o);
	if (!err)
		printf("sent %lu\n", o.count);
	pcap_close(p);
	return err ? 1 : 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct recv_opts {
	unsigned long port, count, size, timeout, hold_ms, rcvbuf;
	bool v6, timestamp, timestamp_late;
};

struct recv_counts {
	unsigned long received, valid, invalid, dup;
	unsigned long stamps; /* datagrams with an SCM_TIMESTAMPNS */
	long long max_off_ns; /* largest |CLOCK_REALTIME at read - stamp| */
	unsigned long future; /* stamps later than the read */
	long long first_ns;   /* the earliest stamp, CLOCK_REALTIME ns */
	uint8_t *seen;	      /* one bit per sequence number */
};

/* Parses recv's options into *o: -1 to go on, else the exit status. */
static int parse_recv_args(int argc, char **argv, struct recv_opts *o)
{
	static const struct option opts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "count", required_argument, NULL, 'n' },
		{ "v6", no_argument, NULL, '6' },
		{ "size", required_argument, NULL, 'b' },
		{ "timeout", required_argument, NULL, 't' },
		{ "timestamp", no_argument, NULL, 'T' },
		{ "timestamp-late", no_argument, NULL, 'L' },
		{ "hold", required_argument, NULL, 'H' },
		{ "rcvbuf", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, li = 0;

	*o = (struct recv_opts){ .timeout = 10 };
	while ((c = getopt_long(argc, argv, "h", opts, &li)) != -1) {
		switch (c) {
		case 'p':
			if (parse_ulong(optarg, 1, 65535, &o->port))
				goto bad_arg;
			break;
		case 'n':
			if (parse_ulong(optarg, 1, ULONG_MAX / 2, &o->count))
				goto bad_arg;
			break;
		case '6':
			o->v6 = true;
			break;
		case 'T':
			o->timestamp = true;
			break;
		case 'L':
			o->timestamp_late = true;
			break;
		case 'H':
			if (parse_ulong(optarg, 0, 60000, &o->hold_ms))
				goto bad_arg;
			break;
		case 'R':
			if (parse_ulong(optarg, 256, 1 << 30, &o->rcvbuf))
				goto bad_arg;
			break;
		case 'b':
			if (parse_ulong(optarg, SEQ_LEN, RECV_BUF, &o->size))
				goto bad_arg;
			break;
		case 't':
			if (parse_ulong(optarg, 1, 86400, &o->timeout))
				goto bad_arg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!o->port || !o->count) {
		fprintf(stderr, "%s recv: --port and --count are required\n", prog);
		return 2;
	}
	return -1;

bad_arg:
	fprintf(stderr, "%s recv: bad value '%s' for --%s\n", prog, optarg, opts[li].name);
	usage(stderr);
	return 2;
}

/* A UDP socket bound to o->port, or -1 after saying why. */
static int open_receiver(const struct recv_opts *o)
{
	int fd, one = 1, rcvbuf = o->rcvbuf ? (int)o->rcvbuf : 16 << 20;
	struct sockaddr_storage ss = {};
	socklen_t sl;

	fd = socket(o->v6 ? AF_INET6 : AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, "%s recv: socket: %s\n", prog, strerror(errno));
		return -1;
	}
	/*
	 * A burst must not overflow the socket before this loop drains it:
	 * a drop here would look like a loss in the path under test (unless
	 * --rcvbuf asks for a small buffer, to make drops).
	 */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* receive timestamps: the kernel then stamps every packet it receives,
	 * on every socket, with CLOCK_REALTIME in skb->tstamp */
	if (o->timestamp && setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one))) {
		fprintf(stderr, "%s recv: SO_TIMESTAMPNS: %s\n", prog, strerror(errno));
		goto fail;
	}
	if (o->v6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
		s6->sin6_family = AF_INET6;
		s6->sin6_addr = in6addr_any;
		s6->sin6_port = htons(o->port);
		sl = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_addr.s_addr = htonl(INADDR_ANY);
		s4->sin_port = htons(o->port);
		sl = sizeof(*s4);
	}
	if (bind(fd, (struct sockaddr *)&ss, sl)) {
		fprintf(stderr, "%s recv: cannot bind UDP port %lu: %s; pick a free port\n", prog,
			o->port, strerror(errno));
		goto fail;
	}
	return fd;

fail:
	close(fd);
	return -1;
}

/* Counts one datagram of N bytes as valid, invalid or a duplicate. */
static void count_datagram(const uint8_t *buf, ssize_t n, const struct recv_opts *o,
			   struct recv_counts *c)
{
	bool ok = true;
	uint64_t seq;

	c->received++;
	if (n < SEQ_LEN || (o->size && (size_t)n != o->size)) {
		c->invalid++;
		return;
	}
	seq = get64(buf);
	for (ssize_t off = SEQ_LEN; off < n && ok; off++)
		ok = buf[off] == pattern_byte(seq, off);
	if (!ok || seq >= o->count) {
		c->invalid++;
	} else if (c->seen[seq / 8] & (1u << (seq % 8))) {
		c->dup++;
	} else {
		c->seen[seq / 8] |= 1u << (seq % 8);
		c->valid++;
	}
}

/* One datagram, and how far its receive timestamp (if any) is from now. */
static ssize_t read_one(int fd, uint8_t *buf, size_t len, struct recv_counts *c)
{
	char ctrl[CMSG_SPACE(sizeof(struct timespec))];
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov,
			      .msg_iovlen = 1,
			      .msg_control = ctrl,
			      .msg_controllen = sizeof(ctrl) };
	struct timespec now;
	ssize_t n = recvmsg(fd, &msg, MSG_DONTWAIT);

	if (n < 0)
		return n;
	clock_gettime(CLOCK_REALTIME, &now);
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
		struct timespec ts;
		long long off;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_TIMESTAMPNS)
			continue;
		memcpy(&ts, CMSG_DATA(cm), sizeof(ts));
		off = (now.tv_sec - ts.tv_sec) * 1000000000LL + (now.tv_nsec - ts.tv_nsec);
		if (!c->stamps || ts.tv_sec * 1000000000LL + ts.tv_nsec < c->first_ns)
			c->first_ns = ts.tv_sec * 1000000000LL + ts.tv_nsec;
		if (off < 0) {
			off = -off;
			c->future++;
		}
		if (off > c->max_off_ns)
			c->max_off_ns = off;
		c->stamps++;
	}
	return n;
}

/* Reads until o->count datagrams or the timeout: 0, or -1 on an error. */
static int receive(int fd, const struct recv_opts *o, struct recv_counts *c)
{
	static uint8_t buf[RECV_BUF];
	double deadline = now_s() + o->timeout;

	while (c->received < o->count) {
		double left = deadline - now_s();
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;
		int r;

		if (left <= 0)
			break;
		r = poll(&pfd, 1, (int)(left * 1000) + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			fprintf(stderr, "%s recv: poll: %s\n", prog, strerror(errno));
			return -1;
		}
		if (!r)
			continue;
		n = read_one(fd, buf, sizeof(buf), c);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			fprintf(stderr, "%s recv: recv: %s\n", prog, strerror(errno));
			return -1;
		}
		count_datagram(buf, n, o, c);
	}
	return 0;
}

static int cmd_recv(int argc, char **argv)
{
	struct recv_counts c = {};
	struct recv_opts o;
	int fd, ret;

	ret = parse_recv_args(argc, argv, &o);
	if (ret >= 0)
		return ret;
	c.seen = calloc((o.count + 7) / 8, 1);
	if (!c.seen) {
		fprintf(stderr, "%s recv: out of memory for %lu sequence numbers; lower --count\n",
			prog, o.count);
		return 1;
	}
	fd = open_receiver(&o);
	if (fd < 0) {
		free(c.seen);
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	/*
	 * --hold: datagrams queue up first, for hold_ms from the first one (not
	 * from "ready": a sender that starts slowly, as under emulation, would
	 * otherwise still be sending when the hold ends); --timestamp-late asks
	 * for receive timestamps only then, for datagrams that arrived without.
	 */
	if (o.hold_ms) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		poll(&pfd, 1, (int)(o.timeout * 1000));
		usleep((useconds_t)(o.hold_ms * 1000));
	}
	if (o.timestamp_late &&
	    setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &(int){ 1 }, sizeof(int))) {
		fprintf(stderr, "%s recv: SO_TIMESTAMPNS: %s\n", prog, strerror(errno));
		close(fd);
		free(c.seen);
		return 1;
	}

	ret = 1;
	if (!receive(fd, &o, &c)) {
		if (o.timestamp || o.timestamp_late)
			printf("timestamps %lu max_offset_ns %lld future %lu first_ns %lld\n",
			       c.stamps, c.max_off_ns, c.future, c.first_ns);
		printf("received %lu valid %lu invalid %lu duplicate %lu\n", c.received, c.valid,
		       c.invalid, c.dup);
		fflush(stdout);
		ret = c.received == o.count && c.valid == o.count ? 0 : 1;
	}
	close(fd);
	free(c.seen);
	return ret;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "send"))
		return cmd_send(argc - 1, argv + 1);
	if (!strcmp(argv[1], "recv"))
		return cmd_recv(argc - 1, argv + 1);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	fprintf(stderr, "%s: unknown command '%s'; use send or recv\n", prog, argv[1]);
	usage(stderr);
	return 2;
}

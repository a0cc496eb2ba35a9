// SPDX-License-Identifier: GPL-2.0
/*
 * rxlat-pktgen: exact-count UDP traffic for the netns tests.
 *
 * "send" writes whole Ethernet frames with libpcap, so that the test decides
 * the destination MAC and the UDP source ports (and thereby the veth queue a
 * frame lands on) without depending on ARP/NDP or the sender's routing.
 * "recv" checks that every datagram arrived exactly once and unchanged: the
 * payload is a pattern derived from a sequence number, so a lost, repeated,
 * reordered-into-another-slot or modified byte is caught.
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

#define ETH_HLEN_ 14
#define IP4_HLEN  20
#define IP6_HLEN  40
#define UDP_HLEN  8
#define SEQ_LEN	  8
#define MAX_FRAME 1514 /* standard MTU: the veth pairs keep 1500 */

static const char *prog = "rxlat-pktgen";

struct addr {
	int family;
	union {
		struct in_addr v4;
		struct in6_addr v6;
	};
};

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--) {
		p[i] = v & 0xff;
		v >>= 8;
	}
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/*
 * Payload byte at offset off (>= SEQ_LEN) of datagram seq. Mixing both
 * inputs makes two datagrams' payloads differ almost everywhere, so a
 * payload delivered under the wrong sequence number cannot pass.
 */
static uint8_t pattern_byte(uint64_t seq, size_t off)
{
	uint32_t x = (uint32_t)seq * 2654435761u ^ (uint32_t)(seq >> 32) ^ (uint32_t)off * 40503u;

	x ^= x >> 15;
	x *= 0x2c1b3c6du;
	x ^= x >> 12;
	return x & 0xff;
}

static void fill_payload(uint8_t *p, size_t len, uint64_t seq)
{
	put64(p, seq);
	for (size_t off = SEQ_LEN; off < len; off++)
		p[off] = pattern_byte(seq, off);
}

static uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (i < len)
		sum += (uint32_t)p[i] << 8;
	return sum;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum & 0xffff;
}

static int parse_addr(const char *s, struct addr *a)
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

struct frame_spec {
	uint8_t src_mac[6], dst_mac[6];
	struct addr src, dst;
	uint16_t sport, dport;
	size_t payload;
};

/* Builds one frame into buf and returns its length. */
static size_t build_frame(uint8_t *buf, const struct frame_spec *f, uint16_t sport, uint64_t seq)
{
	size_t udp_len = UDP_HLEN + f->payload;
	uint8_t *ip = buf + ETH_HLEN_, *udp;
	uint32_t sum;
	uint16_t csum;

	memcpy(buf, f->dst_mac, 6);
	memcpy(buf + 6, f->src_mac, 6);

	if (f->src.family == AF_INET) {
		put16(buf + 12, 0x0800);
		ip[0] = 0x45;
		ip[1] = 0;
		put16(ip + 2, IP4_HLEN + udp_len);
		put16(ip + 4, seq & 0xffff);
		put16(ip + 6, 0x4000); /* DF */
		ip[8] = 64;
		ip[9] = IPPROTO_UDP;
		put16(ip + 10, 0);
		memcpy(ip + 12, &f->src.v4, 4);
		memcpy(ip + 16, &f->dst.v4, 4);
		put16(ip + 10, csum_fold(csum_add(0, ip, IP4_HLEN)));
		udp = ip + IP4_HLEN;
		sum = csum_add(0, ip + 12, 8);
	} else {
		put16(buf + 12, 0x86dd);
		ip[0] = 0x60;
		ip[1] = ip[2] = ip[3] = 0;
		put16(ip + 4, udp_len);
		ip[6] = IPPROTO_UDP;
		ip[7] = 64;
		memcpy(ip + 8, &f->src.v6, 16);
		memcpy(ip + 24, &f->dst.v6, 16);
		udp = ip + IP6_HLEN;
		sum = csum_add(0, ip + 8, 32);
	}

	put16(udp, sport);
	put16(udp + 2, f->dport);
	put16(udp + 4, udp_len);
	put16(udp + 6, 0);
	fill_payload(udp + UDP_HLEN, f->payload, seq);

	/* pseudo header: addresses (added above), protocol, UDP length */
	sum += IPPROTO_UDP + udp_len;
	csum = csum_fold(csum_add(sum, udp, udp_len));
	put16(udp + 6, csum ? csum : 0xffff);

	return udp + udp_len - buf;
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
		"                   [--timestamp]\n",
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

static int cmd_send(int argc, char **argv)
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
	char errbuf[PCAP_ERRBUF_SIZE] = "";
	unsigned long count = 0, flows = 8, size = 64, sport_base = 10000, pps = 0;
	unsigned long dport = 0, v;
	const char *dev = NULL, *what = NULL;
	bool have_mac = false, have_src = false, have_dst = false;
	struct frame_spec f = {};
	uint8_t buf[MAX_FRAME];
	size_t hdr, len;
	pcap_t *p = NULL;
	uint64_t t0;
	int c, li = 0, err = 0;
	uint64_t seq;

	while ((c = getopt_long(argc, argv, "h", opts, &li)) != -1) {
		switch (c) {
		case 'i':
			dev = optarg;
			break;
		case 'm':
			if (parse_mac(optarg, f.dst_mac))
				goto bad_arg;
			have_mac = true;
			break;
		case 's':
			if (parse_addr(optarg, &f.src))
				goto bad_arg;
			have_src = true;
			break;
		case 'd':
			if (parse_addr(optarg, &f.dst))
				goto bad_arg;
			have_dst = true;
			break;
		case 'p':
			if (parse_ulong(optarg, 1, 65535, &dport))
				goto bad_arg;
			break;
		case 'n':
			if (parse_ulong(optarg, 1, ULONG_MAX, &count))
				goto bad_arg;
			break;
		case 'f':
			if (parse_ulong(optarg, 1, 65535, &flows))
				goto bad_arg;
			break;
		case 'b':
			if (parse_ulong(optarg, SEQ_LEN, MAX_FRAME, &size))
				goto bad_arg;
			break;
		case 'S':
			if (parse_ulong(optarg, 1, 65535, &v))
				goto bad_arg;
			sport_base = v;
			break;
		case 'r':
			if (parse_ulong(optarg, 1, 100000000, &pps))
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
	if (!dev || !have_mac || !have_src || !have_dst || !dport || !count) {
		fprintf(stderr,
			"%s send: --dev, --dst-mac, --src-ip, --dst-ip, --dport and --count are "
			"required\n",
			prog);
		return 2;
	}
	if (f.src.family != f.dst.family) {
		fprintf(stderr, "%s send: --src-ip and --dst-ip must both be IPv4 or both IPv6\n",
			prog);
		return 2;
	}
	if (sport_base + flows - 1 > 65535) {
		fprintf(stderr, "%s send: --sport-base + --flows - 1 exceeds 65535; lower one\n",
			prog);
		return 2;
	}
	hdr = ETH_HLEN_ + (f.src.family == AF_INET ? IP4_HLEN : IP6_HLEN) + UDP_HLEN;
	if (hdr + size > MAX_FRAME) {
		fprintf(stderr,
			"%s send: --size %lu does not fit a 1500-byte MTU; use at most %zu\n", prog,
			size, MAX_FRAME - hdr);
		return 2;
	}
	f.payload = size;
	f.dport = dport;

	err = dev_mac(dev, f.src_mac);
	if (err) {
		fprintf(stderr,
			"%s send: cannot read the MAC address of %s: %s; check the interface "
			"exists in this network namespace\n",
			prog, dev, strerror(-err));
		return 1;
	}

	p = pcap_create(dev, errbuf);
	if (!p) {
		what = "pcap_create";
		goto pcap_fail;
	}
	/* nothing is captured: keep the receive side of the handle small */
	pcap_set_snaplen(p, 64);
	pcap_set_buffer_size(p, 64 * 1024);
	err = pcap_activate(p);
	if (err < 0) {
		snprintf(errbuf, sizeof(errbuf), "%s", pcap_geterr(p));
		what = "pcap_activate";
		goto pcap_fail;
	}
	/*
	 * Incoming-only stops the kernel from cloning every injected frame
	 * back to this socket (PACKET_IGNORE_OUTGOING); failure only costs
	 * time.
	 */
	pcap_setdirection(p, PCAP_D_IN);

	t0 = now_ns();
	for (seq = 0; seq < count; seq++) {
		uint16_t sport = sport_base + seq % flows;

		if (pps)
			pace(t0 + seq * 1000000000ull / pps);

		len = build_frame(buf, &f, sport, seq);
		err = inject_retry(p, buf, len);
		if (err) {
			fprintf(stderr,
				"%s send: injecting frame %llu of %lu on %s failed: %s; check that "
				"%s is up\n",
				prog, (unsigned long long)seq, count, dev, strerror(-err), dev);
			goto out;
		}
	}
	printf("sent %lu\n", count);
out:
	pcap_close(p);
	return err ? 1 : 0;

pcap_fail:
	fprintf(stderr, "%s send: %s on %s failed: %s; run as root and check the interface name\n",
		prog, what, dev, errbuf);
	if (p)
		pcap_close(p);
	return 1;

bad_arg:
	fprintf(stderr, "%s send: bad value '%s' for --%s\n", prog, optarg, opts[li].name);
	usage(stderr);
	return 2;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmd_recv(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "count", required_argument, NULL, 'n' },
		{ "v6", no_argument, NULL, '6' },
		{ "size", required_argument, NULL, 'b' },
		{ "timeout", required_argument, NULL, 't' },
		{ "timestamp", no_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long port = 0, count = 0, size = 0, timeout = 10;
	bool timestamp = false;
	unsigned long received = 0, valid = 0, invalid = 0, dup = 0;
	int c, fd = -1, one = 1, rcvbuf = 16 << 20, ret = 1;
	struct sockaddr_storage ss = {};
	static uint8_t buf[65536];
	uint8_t *seen = NULL;
	bool v6 = false;
	double deadline;
	socklen_t sl;
	int li = 0;

	while ((c = getopt_long(argc, argv, "h", opts, &li)) != -1) {
		switch (c) {
		case 'p':
			if (parse_ulong(optarg, 1, 65535, &port))
				goto bad_arg;
			break;
		case 'n':
			if (parse_ulong(optarg, 1, ULONG_MAX / 2, &count))
				goto bad_arg;
			break;
		case '6':
			v6 = true;
			break;
		case 'T':
			timestamp = true;
			break;
		case 'b':
			if (parse_ulong(optarg, SEQ_LEN, sizeof(buf), &size))
				goto bad_arg;
			break;
		case 't':
			if (parse_ulong(optarg, 1, 86400, &timeout))
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
	if (!port || !count) {
		fprintf(stderr, "%s recv: --port and --count are required\n", prog);
		return 2;
	}

	seen = calloc((count + 7) / 8, 1);
	if (!seen) {
		fprintf(stderr, "%s recv: out of memory for %lu sequence numbers; lower --count\n",
			prog, count);
		return 1;
	}

	fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, "%s recv: socket: %s\n", prog, strerror(errno));
		goto out;
	}
	/*
	 * A burst must not overflow the socket before this loop drains it:
	 * a drop here would look like a loss in the path under test.
	 */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* receive timestamps: the kernel then stamps every packet it receives,
	 * on every socket, with CLOCK_REALTIME in skb->tstamp */
	if (timestamp && setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one))) {
		fprintf(stderr, "%s recv: SO_TIMESTAMPNS: %s\n", prog, strerror(errno));
		goto out;
	}
	if (v6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
		s6->sin6_family = AF_INET6;
		s6->sin6_addr = in6addr_any;
		s6->sin6_port = htons(port);
		sl = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_addr.s_addr = htonl(INADDR_ANY);
		s4->sin_port = htons(port);
		sl = sizeof(*s4);
	}
	if (bind(fd, (struct sockaddr *)&ss, sl)) {
		fprintf(stderr, "%s recv: cannot bind UDP port %lu: %s; pick a free port\n", prog,
			port, strerror(errno));
		goto out;
	}
	printf("ready\n");
	fflush(stdout);

	deadline = now_s() + timeout;
	while (received < count) {
		double left = deadline - now_s();
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		bool ok = true;
		ssize_t n;
		uint64_t seq;
		int r;

		if (left <= 0)
			break;
		r = poll(&pfd, 1, (int)(left * 1000) + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			fprintf(stderr, "%s recv: poll: %s\n", prog, strerror(errno));
			goto out;
		}
		if (!r)
			continue;
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			fprintf(stderr, "%s recv: recv: %s\n", prog, strerror(errno));
			goto out;
		}
		received++;
		if (n < SEQ_LEN || (size && (size_t)n != size)) {
			invalid++;
			continue;
		}
		seq = get64(buf);
		for (ssize_t off = SEQ_LEN; off < n && ok; off++)
			ok = buf[off] == pattern_byte(seq, off);
		if (!ok || seq >= count) {
			invalid++;
		} else if (seen[seq / 8] & (1u << (seq % 8))) {
			dup++;
		} else {
			seen[seq / 8] |= 1u << (seq % 8);
			valid++;
		}
	}
	printf("received %lu valid %lu invalid %lu duplicate %lu\n", received, valid, invalid, dup);
	fflush(stdout);
	ret = received == count && valid == count ? 0 : 1;
out:
	if (fd >= 0)
		close(fd);
	free(seen);
	return ret;

bad_arg:
	fprintf(stderr, "%s recv: bad value '%s' for --%s\n", prog, optarg, opts[li].name);
	usage(stderr);
	free(seen);
	return 2;
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

// SPDX-License-Identifier: GPL-2.0
/*
 * One TCP stream of a known number of bytes, for the tests of TCP reads
 * (netns-tests/test_ooo.sh):
 *
 *   rxlat-tcpstream recv --port P --bytes N [--tap IF] [--timeout S]
 *	listens on P (IPv4), prints "ready", reads one connection to its end
 *	with plain read()s and prints "received BYTES".
 *	--tap IF opens a packet socket on IF that never reads: it keeps a clone
 *	of every frame, and the kernel does not merge (coalesce) a received TCP
 *	skb into another while its data is shared with a clone
 *	(skb_try_coalesce()), so every skb the interface delivers is read as
 *	itself: counts of skbs stay exact.
 *	--wait-us US: after SIGUSR1, each read waits US from when the
 *	socket became readable (a known time in the socket's queue, which
 *	sock_read measures), until SIGUSR2 (test_heatmap.sh).
 *   rxlat-tcpstream send --dst A --port P --bytes N [--every-ms MS]
 *	connects, writes N bytes and closes; prints "sent N".
 *	--every-ms MS: 100 bytes every MS ms, each its own segment
 *	(TCP_NODELAY).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t waiting; /* --wait-us: SIGUSR1 on, SIGUSR2 off */

static void on_usr(int sig)
{
	waiting = sig == SIGUSR1;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: rxlat-tcpstream recv --port P --bytes N [--tap IF] [--timeout S]\n"
		     "                              [--wait-us US]\n"
		     "       rxlat-tcpstream send --dst A --port P --bytes N [--every-ms MS]\n");
}

static int die(const char *what)
{
	fprintf(stderr, "rxlat-tcpstream: %s: %s\n", what, strerror(errno));
	return 1;
}

/* A packet socket on ifname that holds what it receives (see the top). */
static int tap(const char *ifname)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	int fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL)), size = 256 << 20;

	sll.sll_ifindex = (int)if_nametoindex(ifname);
	if (fd < 0 || !sll.sll_ifindex)
		return -1;
	/* room for every frame of the test: a full buffer would drop, not clone */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) ||
	    bind(fd, (struct sockaddr *)&sll, sizeof(sll)))
		return -1;
	return fd;
}

/* --wait-us: once readable, wait_us more (a signal cuts it short) */
static void wait_readable(int s, unsigned long wait_us)
{
	struct pollfd p = { .fd = s, .events = POLLIN };
	struct timespec ts = { (time_t)(wait_us / 1000000), (long)(wait_us % 1000000) * 1000 };

	if (!waiting || poll(&p, 1, -1) != 1 || !waiting)
		return;
	nanosleep(&ts, NULL);
}

static int recv_main(unsigned port, unsigned long long bytes, const char *tapif, unsigned timeout,
		     unsigned long wait_us)
{
	struct sigaction sa = { .sa_handler = on_usr, .sa_flags = SA_RESTART };
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct timeval tv = { .tv_sec = timeout };
	unsigned long long got = 0;
	static char buf[65536];
	int one = 1, ls, s, t = -1;
	ssize_t n;

	if (tapif && (t = tap(tapif)) < 0)
		return die("packet socket");
	if (wait_us && (sigaction(SIGUSR1, &sa, NULL) || sigaction(SIGUSR2, &sa, NULL)))
		return die("sigaction");
	ls = socket(AF_INET, SOCK_STREAM, 0);
	if (ls < 0 || setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(ls, (struct sockaddr *)&a, sizeof(a)) || listen(ls, 1))
		return die("listen");
	setsockopt(ls, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	printf("ready\n");
	fflush(stdout);
	s = accept(ls, NULL, NULL);
	if (s < 0)
		return die("accept");
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	for (;;) {
		if (wait_us)
			wait_readable(s, wait_us);
		n = read(s, buf, sizeof(buf));
		/* a socket with a timeout is not restarted after a signal */
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (unsigned long long)n;
	}
	if (n < 0)
		return die("read");
	printf("received %llu\n", got);
	close(s);
	close(ls);
	if (t >= 0)
		close(t);
	return got == bytes ? 0 : 1;
}

static int send_main(const char *dst, unsigned port, unsigned long long bytes, unsigned every_ms)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct timespec gap = { (time_t)(every_ms / 1000), (long)(every_ms % 1000) * 1000000 };
	unsigned long long left = bytes;
	static char buf[65536];
	size_t chunk = every_ms ? 100 : sizeof(buf);
	int s, one = 1;

	if (inet_pton(AF_INET, dst, &a.sin_addr) != 1) {
		fprintf(stderr, "rxlat-tcpstream: --dst %s: not an IPv4 address\n", dst);
		return 1;
	}
	memset(buf, 'x', sizeof(buf));
	s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0 || (every_ms && setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one))) ||
	    connect(s, (struct sockaddr *)&a, sizeof(a)))
		return die("connect");
	while (left) {
		ssize_t n = write(s, buf, left < chunk ? left : chunk);

		if (n <= 0)
			return die("write");
		left -= (unsigned long long)n;
		if (every_ms && left)
			nanosleep(&gap, NULL);
	}
	/* the peer reads to the end: wait for its close, not just ours */
	shutdown(s, SHUT_WR);
	while (read(s, buf, sizeof(buf)) > 0)
		;
	close(s);
	printf("sent %llu\n", bytes);
	return 0;
}

int main(int argc, char **argv)
{
	const char *dst = NULL, *tapif = NULL;
	unsigned long long bytes = 0;
	unsigned port = 0, timeout = 30, every_ms = 0;
	unsigned long wait_us = 0;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	for (int i = 2; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--port"))
			port = (unsigned)strtoul(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--bytes"))
			bytes = strtoull(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--dst"))
			dst = argv[i + 1];
		else if (!strcmp(argv[i], "--tap"))
			tapif = argv[i + 1];
		else if (!strcmp(argv[i], "--timeout"))
			timeout = (unsigned)strtoul(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--wait-us"))
			wait_us = strtoul(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--every-ms"))
			every_ms = (unsigned)strtoul(argv[i + 1], NULL, 10);
		else
			break;
	}
	if (!port || !bytes || (argc % 2) != 0) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "recv"))
		return recv_main(port, bytes, tapif, timeout, wait_us);
	if (!strcmp(argv[1], "send") && dst)
		return send_main(dst, port, bytes, every_ms);
	usage(stderr);
	return 2;
}

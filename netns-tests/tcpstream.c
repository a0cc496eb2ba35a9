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
 *   rxlat-tcpstream send --dst A --port P --bytes N
 *	connects, writes N bytes and closes; prints "sent N".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void usage(FILE *out)
{
	fprintf(out, "usage: rxlat-tcpstream recv --port P --bytes N [--tap IF] [--timeout S]\n"
		     "       rxlat-tcpstream send --dst A --port P --bytes N\n");
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

static int recv_main(unsigned port, unsigned long long bytes, const char *tapif, unsigned timeout)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct timeval tv = { .tv_sec = timeout };
	unsigned long long got = 0;
	static char buf[65536];
	int one = 1, ls, s, t = -1;
	ssize_t n;

	if (tapif && (t = tap(tapif)) < 0)
		return die("packet socket");
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
	while ((n = read(s, buf, sizeof(buf))) > 0)
		got += (unsigned long long)n;
	if (n < 0)
		return die("read");
	printf("received %llu\n", got);
	close(s);
	close(ls);
	if (t >= 0)
		close(t);
	return got == bytes ? 0 : 1;
}

static int send_main(const char *dst, unsigned port, unsigned long long bytes)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	unsigned long long left = bytes;
	static char buf[65536];
	int s;

	if (inet_pton(AF_INET, dst, &a.sin_addr) != 1) {
		fprintf(stderr, "rxlat-tcpstream: --dst %s: not an IPv4 address\n", dst);
		return 1;
	}
	memset(buf, 'x', sizeof(buf));
	s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof(a)))
		return die("connect");
	while (left) {
		ssize_t n = write(s, buf, left < sizeof(buf) ? left : sizeof(buf));

		if (n <= 0)
			return die("write");
		left -= (unsigned long long)n;
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
	unsigned port = 0, timeout = 30;

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
		else
			break;
	}
	if (!port || !bytes || (argc % 2) != 0) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "recv"))
		return recv_main(port, bytes, tapif, timeout);
	if (!strcmp(argv[1], "send") && dst)
		return send_main(dst, port, bytes);
	usage(stderr);
	return 2;
}

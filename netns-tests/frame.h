/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one builder of test frames: Ethernet + IPv4 or IPv6 + UDP, with the
 * IPv4 header checksum and the UDP checksum filled in, so that a frame is
 * what a real sender would put on the wire. Used by the traffic generator
 * (netns-tests/pktgen.c) and the stamper's unit test (netns-tests/xdp_unit.c).
 * Header-only: each test program is a single translation unit.
 */
#ifndef RXLAT_FRAME_H
#define RXLAT_FRAME_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

#define FRAME_ETH_HLEN 14
#define FRAME_IP4_HLEN 20
#define FRAME_IP6_HLEN 40
#define FRAME_UDP_HLEN 8
#define FRAME_MAX      1514 /* standard MTU: the veth pairs keep 1500 */

struct frame_addr {
	int family; /* AF_INET or AF_INET6 */
	union {
		struct in_addr v4;
		struct in6_addr v6;
	};
};

struct frame_spec {
	uint8_t src_mac[6], dst_mac[6];
	struct frame_addr src, dst; /* both of the same family */
	uint16_t sport, dport;
	uint16_t ip_id; /* IPv4 identification; unused for IPv6 */
};

static inline void frame_put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static inline uint32_t frame_csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (i < len)
		sum += (uint32_t)p[i] << 8;
	return sum;
}

static inline uint16_t frame_csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum & 0xffff;
}

/* Length of the headers in front of the UDP payload of a frame of F. */
static inline size_t frame_udp_hdr_len(const struct frame_spec *f)
{
	return FRAME_ETH_HLEN + (f->src.family == AF_INET ? FRAME_IP4_HLEN : FRAME_IP6_HLEN) +
	       FRAME_UDP_HLEN;
}

/*
 * Builds the frame of F carrying LEN bytes of PAYLOAD into BUF, which must
 * hold frame_udp_hdr_len(f) + len bytes; returns the frame's length.
 */
static inline size_t frame_udp(uint8_t *buf, const struct frame_spec *f, const uint8_t *payload,
			       size_t len)
{
	size_t udp_len = FRAME_UDP_HLEN + len;
	uint8_t *ip = buf + FRAME_ETH_HLEN, *udp;
	uint32_t sum;
	uint16_t csum;

	memcpy(buf, f->dst_mac, 6);
	memcpy(buf + 6, f->src_mac, 6);

	if (f->src.family == AF_INET) {
		frame_put16(buf + 12, 0x0800);
		ip[0] = 0x45;
		ip[1] = 0;
		frame_put16(ip + 2, FRAME_IP4_HLEN + udp_len);
		frame_put16(ip + 4, f->ip_id);
		frame_put16(ip + 6, 0x4000); /* DF */
		ip[8] = 64;
		ip[9] = IPPROTO_UDP;
		frame_put16(ip + 10, 0);
		memcpy(ip + 12, &f->src.v4, 4);
		memcpy(ip + 16, &f->dst.v4, 4);
		frame_put16(ip + 10, frame_csum_fold(frame_csum_add(0, ip, FRAME_IP4_HLEN)));
		udp = ip + FRAME_IP4_HLEN;
		sum = frame_csum_add(0, ip + 12, 8);
	} else {
		frame_put16(buf + 12, 0x86dd);
		ip[0] = 0x60;
		ip[1] = ip[2] = ip[3] = 0;
		frame_put16(ip + 4, udp_len);
		ip[6] = IPPROTO_UDP;
		ip[7] = 64;
		memcpy(ip + 8, &f->src.v6, 16);
		memcpy(ip + 24, &f->dst.v6, 16);
		udp = ip + FRAME_IP6_HLEN;
		sum = frame_csum_add(0, ip + 8, 32);
	}

	frame_put16(udp, f->sport);
	frame_put16(udp + 2, f->dport);
	frame_put16(udp + 4, udp_len);
	frame_put16(udp + 6, 0);
	memcpy(udp + FRAME_UDP_HLEN, payload, len);

	/* pseudo header: addresses (added above), protocol, UDP length */
	sum += IPPROTO_UDP + udp_len;
	csum = frame_csum_fold(frame_csum_add(sum, udp, udp_len));
	frame_put16(udp + 6, csum ? csum : 0xffff);

	return udp + udp_len - buf;
}

#endif /* RXLAT_FRAME_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * The payload pattern of rxlat-pktgen (see pktgen_payload.h).
 */
#include "pktgen_payload.h"

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--) {
		p[i] = v & 0xff;
		v >>= 8;
	}
}

uint64_t get64(const uint8_t *p)
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
uint8_t pattern_byte(uint64_t seq, size_t off)
{
	uint32_t x = (uint32_t)seq * 2654435761u ^ (uint32_t)(seq >> 32) ^ (uint32_t)off * 40503u;

	x ^= x >> 15;
	x *= 0x2c1b3c6du;
	x ^= x >> 12;
	return x & 0xff;
}

void fill_payload(uint8_t *p, size_t len, uint64_t seq)
{
	put64(p, seq);
	for (size_t off = SEQ_LEN; off < len; off++)
		p[off] = pattern_byte(seq, off);
}

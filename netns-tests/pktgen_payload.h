/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The payload of rxlat-pktgen's datagrams: the sequence number (8 bytes,
 * big-endian), then a pattern derived from it. "send" fills it in, "recv"
 * checks every byte of it.
 */
#ifndef RXLAT_PKTGEN_PAYLOAD_H
#define RXLAT_PKTGEN_PAYLOAD_H

#include <stddef.h>
#include <stdint.h>

#define SEQ_LEN 8

uint64_t get64(const uint8_t *p);
uint8_t pattern_byte(uint64_t seq, size_t off);
void fill_payload(uint8_t *p, size_t len, uint64_t seq);

#endif /* RXLAT_PKTGEN_PAYLOAD_H */

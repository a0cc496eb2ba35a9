/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xdp_device.c: what attaching an XDP program does to a device, by driver:
 * the table that rxlat states before it attaches its XDP stamper (asked for
 * with --xdp-mode: its default stamps at tc ingress and touches no device),
 * the drivers it refuses before touching them (no room for metadata), and
 * the offloads that attaching turned off and detaching did not turn back
 * on, which it turns on again (LRO and hardware GRO: generic XDP turns
 * them off for good; vmxnet3 leaves LRO off).
 */
#ifndef RXLAT_XDP_DEVICE_H
#define RXLAT_XDP_DEVICE_H

#include <stdbool.h>
#include <stddef.h>

/* What a device's offloads were before XDP: one per attach. */
struct xdp_device;

/*
 * Is ifname's driver known to give XDP programs no room for metadata in
 * native mode (why, a phrase, in why)? rxlat then attaches nothing there.
 */
bool xdp_device_no_meta(const char *ifname, char *why, size_t why_len);
/*
 * Before attaching the XDP stamper to ifname (skb: generic XDP): the line
 * that says what it does to the device; the offloads as they are now, NULL
 * if they cannot be read (nothing to put back).
 */
struct xdp_device *xdp_device_before(const char *ifname, bool skb);
/*
 * After the stamper was detached from ifindex: the offloads that were on
 * before and are off now are turned on again, each said in one line, or,
 * where that fails, said with the command that does it. Frees saved.
 */
void xdp_device_after(unsigned int ifindex, struct xdp_device *saved);
/*
 * What attaching XDP in native mode does on driver drv, as a phrase ("stops
 * NAPI on every queue ..."), or NULL where rxlat does not know.
 */
const char *xdp_device_native(const char *drv);

/*
 * For the line of an interface stamped at tc by default: how to stamp it in
 * XDP instead, and what that does on its driver.
 */
void xdp_device_hint(const char *ifname, char *out, size_t len);

#endif

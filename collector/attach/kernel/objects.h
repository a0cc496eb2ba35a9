/* SPDX-License-Identifier: GPL-2.0 */
/* Where rxlat's BPF objects for xdp-loader and tc are. */
#ifndef RXLAT_OBJECTS_H
#define RXLAT_OBJECTS_H

/*
 * The directory rxlat loads rxlat_xdp.bpf.o from: beside the rxlat binary
 * when it is there (a run from the build tree), else where make install
 * puts it (RXLAT_LIBDIR). The help and the hints name this one.
 */
const char *rxlat_objects_dir(void);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
#ifndef RXLAT_OPTIONS_H
#define RXLAT_OPTIONS_H

#include "config.h"

/*
 * Fills *cfg from the command line. 0: run; 1: exit 0 (--help, --version
 * printed); -1: exit 1 (the error is printed).
 */
int options_parse(int argc, char **argv, struct rxlat_config *cfg);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* What rxlat checks and says at start-up (startup.c). */
#ifndef RXLAT_STARTUP_H
#define RXLAT_STARTUP_H

#include <stdbool.h>
#include <stdio.h>
#include "config.h"
#include "hooks.h"

/* Closed fds 0-2 made harmless, or a closed stdout refused: 0 or -EBADF, said. */
int check_std_fds(void);
/*
 * Each stage asked for into f, every line after prefix: its attach point
 * and protocols, its fallback or why it is unavailable; extra[s]: asked for
 * by name, not by default (NULL: none).
 */
void print_plan(const struct rxlat_config *cfg, const struct rxlat_hooks_info *info, FILE *f,
		const char *prefix, const bool *extra);
/* --list-stages: 0 or 1, the exit status. */
int list_stages(struct rxlat_config *cfg, struct rxlat_hooks_info *info);
/* --xdp-mode skb where it would leave napi_wait nothing to measure: true, said. */
bool skb_mode_wait(const struct rxlat_config *cfg, const struct rxlat_hooks_info *info);
/* No stamper at all: said, and napi_wait marked as not measured. */
void no_stamper(const struct rxlat_config *cfg, struct rxlat_hooks_info *info);

#endif /* RXLAT_STARTUP_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The options by id, for the messages that name one: opt(OPT_SLOW) is
 * "--slow", opt_short(OPT_INTERFACE) is "-i". Their names are written once,
 * in options_table.h; a message builds "--slow-rate applies to --slow only"
 * from these, never from a literal, so that renaming an option cannot leave
 * a message naming the old one.
 */
#ifndef RXLAT_OPT_H
#define RXLAT_OPT_H

enum rxlat_opt {
#define OPTION(id, shortopt, longopt, ...) OPT_##id,
#include "options_table.h"
#undef OPTION
	RXLAT_NR_OPTS
};

/* "--interface" */
static inline const char *opt(enum rxlat_opt id)
{
	static const char *const names[RXLAT_NR_OPTS] = {
#define OPTION(id, shortopt, longopt, ...) [OPT_##id] = "--" longopt,
#include "options_table.h"
#undef OPTION
	};

	return names[id];
}

/* "-i", or the long name for an option without a short one */
static inline const char *opt_short(enum rxlat_opt id)
{
	static const char *const names[RXLAT_NR_OPTS] = {
#define OPTION(id, shortopt, longopt, ...) [OPT_##id] = "-" shortopt,
#include "options_table.h"
#undef OPTION
	};

	return names[id][1] ? names[id] : opt(id);
}

#endif

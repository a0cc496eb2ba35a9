// SPDX-License-Identifier: GPL-2.0
/*
 * Moves the clocks under a running rxlat, for the clock tests in the VMs:
 *   rxlat-clockstep step SECONDS   CLOCK_REALTIME += SECONDS (may be < 0)
 *   rxlat-clockstep tai SECONDS    the kernel's TAI offset := SECONDS
 * Prints the realtime - monotonic offset before and after, in ns.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/timex.h>
#include <time.h>

static long long offset_ns(void)
{
	struct timespec r, m;

	clock_gettime(CLOCK_REALTIME, &r);
	clock_gettime(CLOCK_MONOTONIC, &m);
	return (r.tv_sec - m.tv_sec) * 1000000000LL + (r.tv_nsec - m.tv_nsec);
}

int main(int argc, char **argv)
{
	long long before = offset_ns();
	char *end;
	long v;

	if (argc != 3 || (strcmp(argv[1], "step") && strcmp(argv[1], "tai"))) {
		fprintf(stderr, "usage: rxlat-clockstep step|tai SECONDS\n");
		return 2;
	}
	v = strtol(argv[2], &end, 10);
	if (*end || !*argv[2]) {
		fprintf(stderr, "rxlat-clockstep: bad SECONDS '%s'\n", argv[2]);
		return 2;
	}
	if (!strcmp(argv[1], "step")) {
		struct timespec now;

		clock_gettime(CLOCK_REALTIME, &now);
		now.tv_sec += v;
		if (clock_settime(CLOCK_REALTIME, &now)) {
			fprintf(stderr, "rxlat-clockstep: clock_settime: %s\n", strerror(errno));
			return 1;
		}
	} else {
		struct timex tx = { .modes = ADJ_TAI, .constant = v };

		if (adjtimex(&tx) < 0) {
			fprintf(stderr, "rxlat-clockstep: adjtimex(ADJ_TAI): %s\n",
				strerror(errno));
			return 1;
		}
	}
	printf("offset_ns %lld -> %lld\n", before, offset_ns());
	return 0;
}

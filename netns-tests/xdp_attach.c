// SPDX-License-Identifier: GPL-2.0
/*
 * rxlat-xdp-attach: adds one XDP program to an interface's libxdp
 * multi-program dispatcher, through the shared libxdp, as xdp-loader load
 * does (maps pinned by name under --pin-dir).
 *
 * Why not xdp-loader itself: Debian's xdp-loader is linked with a static
 * libxdp that carries its own dispatcher object and never looks at
 * LIBXDP_OBJECT_PATH; the shared libxdp does. The tests use this program
 * to run rxlat's dispatcher (build/libxdp/xdp-dispatcher.o); xdp-loader
 * status and unload work on the result as on any libxdp dispatcher.
 */
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

static const char *prog = "rxlat-xdp-attach";
static int verbose;

static int print_libxdp(enum libxdp_print_level level, const char *fmt, va_list args)
{
	if (level == LIBXDP_DEBUG && !verbose)
		return 0;
	return vfprintf(stderr, fmt, args);
}

/* libbpf's notes on sections it skips are noise here; warnings (with the
 * verifier's log) are not */
static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level != LIBBPF_WARN && !verbose)
		return 0;
	return vfprintf(stderr, fmt, args);
}

static void usage(int rc)
{
	fprintf(rc ? stderr : stdout,
		"usage: %s --dev IF [--mode native|skb] [--pin-dir DIR] [-v] OBJECT\n", prog);
	exit(rc);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "mode", required_argument, NULL, 'm' },
		{ "pin-dir", required_argument, NULL, 'p' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	LIBBPF_OPTS(bpf_object_open_opts, open_opts);
	enum xdp_attach_mode mode = XDP_MODE_NATIVE;
	const char *dev = NULL, *pin_dir = NULL;
	struct xdp_program *xp;
	unsigned int ifindex;
	char msg[256];
	int c, err;

	while ((c = getopt_long(argc, argv, "d:m:p:vh", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			dev = optarg;
			break;
		case 'm':
			if (!strcmp(optarg, "native"))
				mode = XDP_MODE_NATIVE;
			else if (!strcmp(optarg, "skb"))
				mode = XDP_MODE_SKB;
			else
				usage(2);
			break;
		case 'p':
			pin_dir = optarg;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'h':
			usage(0);
			break;
		default:
			usage(2);
		}
	}
	if (!dev || optind != argc - 1)
		usage(2);
	ifindex = if_nametoindex(dev);
	if (!ifindex) {
		fprintf(stderr, "%s: no interface %s: %s\n", prog, dev, strerror(errno));
		return 1;
	}
	libxdp_set_print(print_libxdp);
	libbpf_set_print(print_libbpf);

	open_opts.pin_root_path = pin_dir;
	xp = xdp_program__open_file(argv[optind], NULL, &open_opts);
	err = (int)libxdp_get_error(xp);
	if (err) {
		libxdp_strerror(err, msg, sizeof(msg));
		fprintf(stderr, "%s: cannot open %s: %s\n", prog, argv[optind], msg);
		return 1;
	}
	err = xdp_program__attach(xp, (int)ifindex, mode, 0);
	if (err) {
		libxdp_strerror(err, msg, sizeof(msg));
		fprintf(stderr, "%s: cannot attach %s to %s: %s\n", prog, argv[optind], dev, msg);
		xdp_program__close(xp);
		return 1;
	}
	/* the dispatcher and the program's link stay pinned in bpffs */
	xdp_program__close(xp);
	return 0;
}

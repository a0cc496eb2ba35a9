// SPDX-License-Identifier: GPL-2.0
/*
 * rxlat-heatmap: the latency heatmap (render/heatmap.h) of a run that
 * rxlat -o json wrote, from a file or stdin, as one SVG file. Its manual
 * is rxlat-heatmap.1.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <json-c/json.h>

#include "rxlat_hist.h"
#include "heatmap.h"

#define MAX_LABELS 16

struct input {
	const char *name; /* as messages name it: the file, or "stdin" */
	unsigned long line;
	unsigned long reports;
	struct heatmap *h;
};

static void usage(FILE *f)
{
	fputs("usage: rxlat-heatmap [-o OUT.svg] [-n N] [-t TITLE] [FILE]\n"
	      "The latency heatmap of what rxlat -o json wrote to FILE (default: stdin), as\n"
	      "one SVG file: a panel per series, time across, latency up.\n"
	      "  -o, --output OUT.svg  write the picture there (default: stdout)\n"
	      "  -n, --last N          only the last N reports (default: all)\n"
	      "  -t, --title TITLE     the picture's heading (default: FILE)\n"
	      "  -h, --help            print this help and exit\n"
	      "  -V, --version         print the version and exit\n",
	      f);
}

/* One line naming the input and its line: the one message of a failure. */
static int bad(const struct input *in, const char *what)
{
	fprintf(stderr, "rxlat-heatmap: %s:%lu: %s\n", in->name, in->line, what);
	return -EINVAL;
}

/* "2026-12-02T15:00:01.123Z" in seconds since the epoch; -1 if it is not one. */
static double time_of(const char *s)
{
	struct tm tm = {};
	const char *end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	double frac = 0;

	if (!end)
		return -1;
	if (*end == '.')
		frac = strtod(end, NULL);
	return (double)timegm(&tm) + frac;
}

/* A series' labels: its members with a string, number or null, but the counts. */
static unsigned int labels_of(struct json_object *s, struct heatmap_label *l, char num[][24])
{
	unsigned int n = 0;

	json_object_object_foreach(s, key, val)
	{
		size_t k = strlen(key);
		enum json_type t = json_object_get_type(val);

		if (n == MAX_LABELS || !strcmp(key, "count") ||
		    (k > 3 && !strcmp(key + k - 3, "_ns")))
			continue;
		if (t == json_type_null) {
			l[n++] = (struct heatmap_label){ key, NULL };
		} else if (t == json_type_string) {
			l[n++] = (struct heatmap_label){ key, json_object_get_string(val) };
		} else if (t == json_type_int) {
			snprintf(num[n], sizeof(num[n]), "%lld",
				 (long long)json_object_get_int64(val));
			l[n] = (struct heatmap_label){ key, num[n] };
			n++;
		}
	}
	return n;
}

static int add_series(struct input *in, struct json_object *s)
{
	struct heatmap_label l[MAX_LABELS];
	char num[MAX_LABELS][24], msg[128];
	struct json_object *buckets, *le, *count;
	int p;

	if (!json_object_is_type(s, json_type_object) ||
	    !json_object_object_get_ex(s, "buckets", &buckets) ||
	    !json_object_is_type(buckets, json_type_array))
		return bad(in, "a series without \"buckets\": not a report of rxlat -o json");
	p = heatmap_series(in->h, l, labels_of(s, l, num));
	if (p == -ENOSPC)
		return 0; /* past the panel limit: named in the note */
	if (p < 0)
		return p;
	for (size_t i = 0; i < json_object_array_length(buckets); i++) {
		struct json_object *b = json_object_array_get_idx(buckets, i);
		__u64 le_ns;
		int k;

		if (!json_object_object_get_ex(b, "le_ns", &le) ||
		    !json_object_object_get_ex(b, "count", &count) ||
		    !json_object_is_type(count, json_type_int))
			return bad(in, "a bucket without \"le_ns\" and \"count\"");
		if (json_object_is_type(le, json_type_string) &&
		    !strcmp(json_object_get_string(le), "+Inf"))
			le_ns = ~0ULL;
		else if (json_object_is_type(le, json_type_int))
			le_ns = json_object_get_uint64(le);
		else
			return bad(in, "a bucket's \"le_ns\" is neither a number nor \"+Inf\"");
		k = heatmap_bucket_of(le_ns);
		if (k < 0) {
			snprintf(msg, sizeof(msg),
				 "le_ns %llu is not a bound of rxlat's buckets (another version?)",
				 (unsigned long long)le_ns);
			return bad(in, msg);
		}
		if (heatmap_cell(in->h, p, (__u32)k, json_object_get_uint64(count)))
			return -ENOMEM;
	}
	return 0;
}

/* One report: an interval of the heatmap. */
static int add_report(struct input *in, struct json_object *o)
{
	struct json_object *series, *t, *iv;
	double end;
	int err;

	if (!json_object_object_get_ex(o, "series", &series) ||
	    !json_object_is_type(series, json_type_array))
		return bad(in, "JSON, but not a report of rxlat -o json (no \"series\" array)");
	if (!json_object_object_get_ex(o, "time", &t) ||
	    !json_object_object_get_ex(o, "interval_s", &iv) ||
	    (end = time_of(json_object_get_string(t))) < 0)
		return bad(in, "a report without its \"time\" and \"interval_s\"");
	err = heatmap_interval(in->h, end, json_object_get_double(iv));
	for (size_t i = 0; !err && i < json_object_array_length(series); i++)
		err = add_series(in, json_object_array_get_idx(series, i));
	in->reports++;
	return err;
}

static int add_line(struct input *in, const char *line, size_t n)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *o, *type;
	enum json_tokener_error e;
	size_t used;
	int err = 0;

	if (!tok)
		return -ENOMEM;
	o = json_tokener_parse_ex(tok, line, (int)n);
	e = json_tokener_get_error(tok);
	used = json_tokener_get_parse_end(tok);
	if (e == json_tokener_continue) {
		err = bad(in, "truncated JSON: the line ends inside its object (a run cut short?)");
	} else if (e != json_tokener_success) {
		char msg[160];

		snprintf(msg, sizeof(msg), "not JSON (%s): not what rxlat -o json writes",
			 json_tokener_error_desc(e));
		err = bad(in, msg);
	} else if (line[used + strspn(line + used, " \t\r\n")] ||
		   !json_object_is_type(o, json_type_object)) {
		err = bad(in, "not one JSON object: not what rxlat -o json writes");
	} else if (json_object_object_get_ex(o, "type", &type)) {
		/* --slow records share the stream: not in a heatmap */
	} else {
		err = add_report(in, o);
	}
	json_object_put(o);
	json_tokener_free(tok);
	return err;
}

static int read_input(struct input *in, FILE *f)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int err = 0;

	while (!err && (n = getline(&line, &cap, f)) >= 0) {
		in->line++;
		if (line[strspn(line, " \t\r\n")] == '\0')
			continue;
		if ((size_t)n != strlen(line))
			err = bad(in, "a NUL byte: not what rxlat -o json writes");
		else
			err = add_line(in, line, (size_t)n);
	}
	if (!err && ferror(f)) {
		fprintf(stderr, "rxlat-heatmap: %s: %s\n", in->name, strerror(errno));
		err = -EIO;
	}
	free(line);
	return err;
}

static int write_out(const struct input *in, const char *out, const char *title)
{
	int err = out ? heatmap_write(in->h, title, out) : heatmap_svg(in->h, title, stdout);

	if (err)
		fprintf(stderr, "rxlat-heatmap: cannot write %s: %s\n", out ? out : "stdout",
			strerror(-err));
	return err;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "last", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{},
	};
	struct input in = { .name = "stdin" };
	const char *out = NULL, *title = NULL;
	unsigned long last = 0;
	FILE *f = stdin;
	char *end;
	int c, err;

	while ((c = getopt_long(argc, argv, "o:n:t:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 't':
			title = optarg;
			break;
		case 'n':
			errno = 0;
			last = strtoul(optarg, &end, 10);
			if (errno || *end || !last || last > 1000000) {
				fprintf(stderr,
					"rxlat-heatmap: --last %s: give a number of reports "
					"from 1 to 1000000\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("rxlat-heatmap %s\n", RXLAT_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (argc - optind > 1) {
		usage(stderr);
		return 2;
	}
	if (optind < argc && strcmp(argv[optind], "-")) {
		in.name = argv[optind];
		f = fopen(in.name, "r");
		if (!f) {
			fprintf(stderr, "rxlat-heatmap: cannot open %s: %s\n", in.name,
				strerror(errno));
			return 2;
		}
	}
	in.h = heatmap_new((unsigned int)last);
	err = in.h ? read_input(&in, f) : -ENOMEM;
	if (f != stdin)
		fclose(f);
	if (err == -ENOMEM)
		fprintf(stderr, "rxlat-heatmap: out of memory\n");
	/* bad input: no picture at all, rather than one of part of it */
	if (!err)
		err = write_out(&in, out, title ? title : in.name);
	if (!err && !heatmap_samples(in.h)) {
		fprintf(stderr,
			"rxlat-heatmap: %s: no samples in its %lu reports: the picture says so, "
			"and shows nothing\n",
			in.name, in.reports);
		err = 1;
	}
	heatmap_free(in.h);
	return err == 1 ? 1 : err ? 2 : 0;
}

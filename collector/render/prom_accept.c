// SPDX-License-Identifier: GPL-2.0
/*
 * Content negotiation of the Prometheus endpoint: which exposition an
 * Accept header asks for (prom.h, prom_negotiate()).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "prom.h"

/* s[0..n) without the blanks around it, and its length */
static const char *trim(const char *s, size_t *n)
{
	while (*n && (*s == ' ' || *s == '\t')) {
		s++;
		(*n)--;
	}
	while (*n && (s[*n - 1] == ' ' || s[*n - 1] == '\t'))
		(*n)--;
	return s;
}

static bool same(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && !strncasecmp(s, word, n);
}

/*
 * One media range of an Accept header, "type/sub;k=v;...;q=0.5": its q, and
 * which of rxlat's formats it names (-1: none).
 */
static int media_range(const char *s, size_t n, double *q)
{
	size_t end = strcspn(s, ";"), tn;
	const char *type;
	bool proto = false, delimited = true, version = true;
	int fmt;

	if (end > n)
		end = n;
	tn = end;
	type = trim(s, &tn);
	*q = 1;
	for (size_t at = end; at < n;) {
		const char *p = s + at + 1, *v;
		size_t pn = strcspn(p, ";"), kn, vn;

		if (pn > n - at - 1)
			pn = n - at - 1;
		at += pn + 1;
		kn = strcspn(p, "=");
		if (kn >= pn)
			continue;
		vn = pn - kn - 1;
		v = trim(p + kn + 1, &vn);
		if (vn >= 2 && v[0] == '"' && v[vn - 1] == '"') {
			v++;
			vn -= 2;
		}
		p = trim(p, &kn);
		if (same(p, kn, "q"))
			*q = strtod(v, NULL);
		else if (same(p, kn, "proto"))
			proto = vn == strlen("io.prometheus.client.MetricFamily") &&
				!strncmp(v, "io.prometheus.client.MetricFamily", vn);
		else if (same(p, kn, "encoding"))
			delimited = same(v, vn, "delimited");
		else if (same(p, kn, "version"))
			version = same(v, vn, "0.0.4");
	}
	if (same(type, tn, "application/vnd.google.protobuf"))
		fmt = proto && delimited ? PROM_FORMAT_PROTOBUF : -1;
	else if (same(type, tn, "text/plain"))
		fmt = version ? PROM_FORMAT_TEXT : -1;
	else if (same(type, tn, "text/*") || same(type, tn, "*/*"))
		fmt = PROM_FORMAT_TEXT;
	else
		fmt = -1;
	return fmt;
}

enum prom_format prom_negotiate(const char *accept)
{
	double best[2] = { 0, 0 };

	while (accept && *accept) {
		size_t n = strcspn(accept, ",");
		double q;
		int fmt = media_range(accept, n, &q);

		if (fmt >= 0 && q > best[fmt])
			best[fmt] = q;
		accept += n + (accept[n] == ',');
	}
	return best[PROM_FORMAT_PROTOBUF] > best[PROM_FORMAT_TEXT] ? PROM_FORMAT_PROTOBUF
								   : PROM_FORMAT_TEXT;
}

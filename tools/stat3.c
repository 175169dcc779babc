// SPDX-License-Identifier: MIT
#include <stdlib.h>

#include "stat3.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct stat3 stat3_of(double *v, uint32_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return (struct stat3){ .median = v[n / 2], .min = v[0], .max = v[n - 1] };
}

void emit_stat3(struct emit *e, const char *key, const struct stat3 *s, int digits)
{
	emit_object(e, key);
	emit_double(e, "median", s->median, digits);
	emit_double(e, "min", s->min, digits);
	emit_double(e, "max", s->max, digits);
	emit_end(e);
}

// SPDX-License-Identifier: MIT
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "alloc_trace.h"

static uint64_t xorshift64s(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 0x2545F4914F6CDD1Dull;
}

static double u01(uint64_t *x)
{
	return (double)(xorshift64s(x) >> 11) * 0x1p-53;
}

static uint64_t fnv1a_u64(uint64_t h, uint64_t word)
{
	for (int i = 0; i < 8; i++) {
		h ^= (word >> (8 * i)) & 0xff;
		h *= 0x100000001b3ull;
	}
	return h;
}

int alloc_trace_generate(uint64_t seed, size_t ops, struct alloc_trace *trace)
{
	const double lo = log(256.0), hi = log(4194304.0);
	uint64_t x = seed, h = 0xcbf29ce484222325ull;
	uint32_t *live, nlive = 0, next_id = 0;
	struct alloc_trace_op *op;

	trace->ops = calloc(ops ? ops : 1, sizeof(*trace->ops));
	/* At most one object is live per allocation, hence per operation. */
	live = malloc((ops ? ops : 1) * sizeof(*live));
	if (!trace->ops || !live) {
		free(trace->ops);
		free(live);
		trace->ops = NULL;
		return -ENOMEM;
	}

	for (size_t i = 0; i < ops; i++) {
		op = &trace->ops[i];
		if (nlive < ALLOC_TRACE_LIVE_MIN || u01(&x) < 0.5) {
			double s = u01(&x);

			op->id = next_id++;
			op->size = (uint64_t)llround(exp(lo + s * (hi - lo)));
			op->image = u01(&x) < 0.3;
			op->align = op->image ? 4096 : 256;
			if (op->image)
				op->size = (op->size + 4095) & ~4095ull;
			live[nlive++] = op->id;
			h = fnv1a_u64(h, 0);
			h = fnv1a_u64(h, op->id);
			h = fnv1a_u64(h, op->size | op->align << 32);
		} else {
			uint32_t idx = (uint32_t)(xorshift64s(&x) % nlive);

			op->free = 1;
			op->id = live[idx];
			live[idx] = live[--nlive];
			h = fnv1a_u64(h, 1);
			h = fnv1a_u64(h, op->id);
			h = fnv1a_u64(h, 0);
		}
	}
	free(live);
	trace->count = ops;
	trace->objects = next_id;
	trace->checksum = h;
	return 0;
}

void alloc_trace_release(struct alloc_trace *trace)
{
	free(trace->ops);
	trace->ops = NULL;
	trace->count = 0;
}

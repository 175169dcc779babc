// SPDX-License-Identifier: MIT
/*
 * The C side of python -m llmem.bench: the same calls the benchmark makes
 * from Python, in a C loop in the same process, session and memory, so that
 * the two are measured in one run.
 */
#include "_bench.h"
#include "_session.h"

#include <string.h>
#include <time.h>

/* The thread's CPU time, as the Python loop's time.thread_time_ns(): a busy
 * machine's other programs do not add to it. */
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* n buffer creations, each destroyed at once. */
static int bench_create(struct llmem_memory *m, uint64_t n, uint64_t size, uint64_t *ns)
{
	struct llmem_buffer_create_info ci = { .size = size };
	uint64_t t0 = now_ns();

	for (uint64_t i = 0; i < n; i++) {
		struct llmem_buffer *b;
		int ret = llmem_buffer_create(m, &ci, &b);

		if (ret)
			return ret;
		llmem_buffer_destroy(b);
	}
	*ns = now_ns() - t0;
	return 0;
}

/* n maps of one buffer, each unmapped at once. */
static int bench_map(struct llmem_memory *m, uint64_t n, uint64_t size, uint64_t *ns)
{
	struct llmem_buffer_create_info ci = { .size = size };
	struct llmem_buffer *b;
	uint64_t t0;
	int ret = llmem_buffer_create(m, &ci, &b);

	if (ret)
		return ret;
	t0 = now_ns();
	for (uint64_t i = 0; i < n && !ret; i++) {
		void *p;

		ret = llmem_buffer_map(b, &p);
		if (!ret)
			ret = llmem_buffer_unmap(b);
	}
	*ns = now_ns() - t0;
	llmem_buffer_destroy(b);
	return ret;
}

PyObject *pyl_bench_c(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
	static const char *const names[] = { "memory", "op", "n", "size", NULL };
	struct pyl_memory *mem;
	uint64_t n = 0, size = 4096, ns = 0;
	const char *op = NULL;
	PyObject *a[4];
	int ret;

	(void)module;
	if (pyl_args("_bench_c", args, nargs, kwnames, names, 4, 3, a) ||
	    pyl_str(a[1], "op", &op) || pyl_u64(a[2], "n", UINT64_MAX, &n) ||
	    pyl_u64(a[3], "size", UINT64_MAX, &size))
		return NULL;
	mem = pyl_as_memory(a[0]);
	if (!mem)
		return NULL;
	if (!op || (strcmp(op, "create") && strcmp(op, "map"))) {
		PyErr_SetString(PyExc_ValueError, "op must be 'create' or 'map'");
		return NULL;
	}
	PYL_PIN(mem);
	PYL_NOGIL(ret = !strcmp(op, "create") ? bench_create(mem->m, n, size, &ns)
					      : bench_map(mem->m, n, size, &ns));
	PYL_UNPIN(mem);
	if (ret)
		return pyl_error(ret);
	return PyLong_FromUnsignedLongLong(ns);
}

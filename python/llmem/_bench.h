/* SPDX-License-Identifier: MIT */
/* The benchmark's C loops (_bench.c): llmem._bench_c(). */
#ifndef LLMEM_PY_BENCH_H
#define LLMEM_PY_BENCH_H

#include "_base.h"

PyObject *pyl_bench_c(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);

#endif /* LLMEM_PY_BENCH_H */

/* SPDX-License-Identifier: MIT */
/* Frame conversion (_convert.c): llmem.convert() and llmem.Converter. */
#ifndef LLMEM_PY_CONVERT_H
#define LLMEM_PY_CONVERT_H

#include "_base.h"

extern PyTypeObject pyl_ConverterType;

/* llmem.convert(): llmem_convert() of one frame, either way. */
PyObject *pyl_convert(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);

#endif /* LLMEM_PY_CONVERT_H */

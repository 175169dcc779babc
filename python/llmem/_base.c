// SPDX-License-Identifier: MIT
/*
 * The base every file of the extension builds on (_base.h): the classes to
 * instantiate, llmem.Error, the readers of arguments and host memory.  It
 * calls no other file of the extension.
 */
#include "_base.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

PyObject *pyl_Error;

/* Strong references to the classes to instantiate, set by the module's init. */
static PyTypeObject *classes[PYL_CLASSES];

void pyl_set_class(enum pyl_class cls, PyTypeObject *type)
{
	Py_INCREF(type);
	Py_XSETREF(classes[cls], type);
}

PyObject *pyl_alloc(enum pyl_class cls)
{
	return classes[cls]->tp_alloc(classes[cls], 0);
}

PyObject *pyl_error(int err)
{
	const char *msg = llmem_last_error();
	PyObject *args;

	if (err >= 0)
		err = -EIO;
	if (!msg || !*msg)
		msg = llmem_strerror(err);
	args = Py_BuildValue("(is)", -err, msg);
	if (args) {
		PyErr_SetObject(pyl_Error, args);
		Py_DECREF(args);
	}
	return NULL;
}

PyObject *pyl_error_msg(int err, const char *fmt, ...)
{
	PyObject *msg, *args;
	va_list ap;

	va_start(ap, fmt);
	msg = PyUnicode_FromFormatV(fmt, ap);
	va_end(ap);
	if (!msg)
		return NULL;
	args = Py_BuildValue("(iN)", err, msg);
	if (args) {
		PyErr_SetObject(pyl_Error, args);
		Py_DECREF(args);
	}
	return NULL;
}

PyObject *pyl_closed(const char *what)
{
	PyErr_Format(PyExc_ValueError, "%s is closed", what);
	return NULL;
}

void *pyl_instance(PyObject *o, PyTypeObject *type, const char *what, const char *name)
{
	if (PyObject_TypeCheck(o, type))
		return o;
	PyErr_Format(PyExc_TypeError, "%s must be %s, not %.200s", what, name, Py_TYPE(o)->tp_name);
	return NULL;
}

int pyl_args(const char *fn, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
	     const char *const *names, int npos, int required, PyObject **out)
{
	int n = 0;

	while (names[n])
		out[n++] = NULL;
	if (nargs > npos) {
		PyErr_Format(PyExc_TypeError,
			     "%s() takes at most %d positional argument%s (%zd given)", fn, npos,
			     npos == 1 ? "" : "s", nargs);
		return -1;
	}
	for (Py_ssize_t i = 0; i < nargs; i++)
		out[i] = args[i];
	if (kwnames) {
		for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(kwnames); k++) {
			PyObject *key = PyTuple_GET_ITEM(kwnames, k);
			int j = 0;

			while (j < n && PyUnicode_CompareWithASCIIString(key, names[j]))
				j++;
			if (j == n) {
				PyErr_Format(PyExc_TypeError,
					     "%s() got an unexpected keyword argument '%U'", fn,
					     key);
				return -1;
			}
			if (out[j]) {
				PyErr_Format(PyExc_TypeError,
					     "%s() got multiple values for argument '%s'", fn,
					     names[j]);
				return -1;
			}
			out[j] = args[nargs + k];
		}
	}
	for (int j = 0; j < required; j++) {
		if (!out[j]) {
			PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'", fn,
				     names[j]);
			return -1;
		}
		/* None means "the default" to the readers: a required one has none. */
		if (out[j] == Py_None) {
			PyErr_Format(PyExc_TypeError, "%s() argument '%s' must not be None", fn,
				     names[j]);
			return -1;
		}
	}
	return 0;
}

int pyl_u64(PyObject *o, const char *what, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	PyObject *n;

	if (!o || o == Py_None)
		return 0;
	/* True is an int to Python, never a size or a count to a caller. */
	if (!PyIndex_Check(o) || PyBool_Check(o)) {
		PyErr_Format(PyExc_TypeError, "%s must be an int, not %.200s", what,
			     Py_TYPE(o)->tp_name);
		return -1;
	}
	n = PyNumber_Index(o);
	if (!n)
		return -1;
	v = PyLong_AsUnsignedLongLong(n);
	if (v == (unsigned long long)-1 && PyErr_Occurred()) {
		if (!PyErr_ExceptionMatches(PyExc_OverflowError)) {
			Py_DECREF(n);
			return -1;
		}
		/* Negative, or past 64 bits. */
		PyErr_Clear();
		v = 0;
		max = 0;
		out = NULL;
	}
	if (!out || v > max) {
		PyErr_Format(PyExc_ValueError, "%s is out of range: %S", what, n);
		Py_DECREF(n);
		return -1;
	}
	Py_DECREF(n);
	*out = v;
	return 0;
}

int pyl_u32(PyObject *o, const char *what, uint32_t *out)
{
	uint64_t v = *out;

	if (pyl_u64(o, what, UINT32_MAX, &v))
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int pyl_named(PyObject *o, const char *what, const char *const *names, uint32_t count,
	      uint32_t *out)
{
	char known[256] = "";
	size_t n = 0;
	const char *s;

	if (!o || o == Py_None)
		return 0;
	if (!PyUnicode_Check(o))
		return pyl_u32(o, what, out);
	s = PyUnicode_AsUTF8(o);
	if (!s)
		return -1;
	for (uint32_t i = 0; i < count; i++)
		if (names[i] && !strcmp(s, names[i])) {
			*out = i;
			return 0;
		}
	for (uint32_t i = 0; i < count && n < sizeof(known); i++)
		if (names[i])
			n += (size_t)snprintf(known + n, sizeof(known) - n, "%s'%s'", n ? ", " : "",
					      names[i]);
	PyErr_Format(PyExc_ValueError, "unknown %s %R: one of %s", what, o, known);
	return -1;
}

int pyl_str(PyObject *o, const char *what, const char **out)
{
	Py_ssize_t len;

	if (!o)
		return 0;
	if (o == Py_None) {
		*out = NULL;
		return 0;
	}
	if (!PyUnicode_Check(o)) {
		PyErr_Format(PyExc_TypeError, "%s must be a str or None, not %.200s", what,
			     Py_TYPE(o)->tp_name);
		return -1;
	}
	*out = PyUnicode_AsUTF8AndSize(o, &len);
	if (!*out)
		return -1;
	/* The library reads a C string: it would end at the NUL. */
	if (strlen(*out) != (size_t)len) {
		PyErr_Format(PyExc_ValueError, "%s must not contain a NUL character", what);
		return -1;
	}
	return 0;
}

int pyl_bool(PyObject *o, int *out)
{
	int v;

	if (!o)
		return 0;
	v = PyObject_IsTrue(o);
	if (v < 0)
		return -1;
	*out = v;
	return 0;
}

int pyl_u32_seq(PyObject *o, const char *what, uint32_t *out, int max)
{
	PyObject *seq;
	Py_ssize_t n;

	if (!PyTuple_Check(o) && !PyList_Check(o)) {
		PyErr_Format(PyExc_TypeError, "%s must be a tuple of ints, not %.200s", what,
			     Py_TYPE(o)->tp_name);
		return -1;
	}
	seq = PySequence_Fast(o, what);
	if (!seq)
		return -1;
	n = PySequence_Fast_GET_SIZE(seq);
	if (n > max) {
		PyErr_Format(PyExc_ValueError, "%s has %zd values, at most %d are allowed", what, n,
			     max);
		Py_DECREF(seq);
		return -1;
	}
	for (Py_ssize_t i = 0; i < n; i++)
		if (pyl_u32(PySequence_Fast_GET_ITEM(seq, i), what, &out[i])) {
			Py_DECREF(seq);
			return -1;
		}
	Py_DECREF(seq);
	return (int)n;
}

int pyl_get_host(PyObject *o, const char *what, int writable, int c_order, Py_buffer *view)
{
	int flags = (c_order ? PyBUF_C_CONTIGUOUS : PyBUF_ANY_CONTIGUOUS) | PyBUF_FORMAT;

	if (writable)
		flags |= PyBUF_WRITABLE;
	if (!PyObject_CheckBuffer(o)) {
		PyErr_Format(PyExc_TypeError,
			     "%s must support the buffer protocol (bytes, bytearray, memoryview, "
			     "array, numpy array), not %.200s",
			     what, Py_TYPE(o)->tp_name);
		return -1;
	}
	if (PyObject_GetBuffer(o, view, flags)) {
		struct pyl_saved_error saved;
		PyObject *why;

		if (!PyErr_ExceptionMatches(PyExc_BufferError))
			return -1;
		pyl_error_save(&saved);
		why = pyl_error_value(&saved);
		PyErr_Format(PyExc_ValueError, "%s must be %s%s memory: %S", what,
			     writable ? "writable, " : "", c_order ? "C-contiguous" : "contiguous",
			     why ? why : Py_None);
		pyl_error_discard(&saved);
		return -1;
	}
	return 0;
}

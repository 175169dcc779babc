/* SPDX-License-Identifier: MIT */
/*
 * The base of the _llmem extension, which every other file builds on and
 * which knows none of them: the classes to instantiate, llmem.Error and the
 * other errors raised, arguments (integers, names, truth values, host
 * memory through the buffer protocol), and running a call without the GIL.
 *
 * Every other file includes this header and the headers of files below its
 * own, never of one above (docs/python.md lists them by layer).
 *
 * Ownership: every object holds a strong reference to its parent (a buffer
 * to its memory, a memory to its session, a mapping to what it maps, an
 * event to its queue, a frame to its camera, a view to its image, a kernel
 * to its session), so a parent is never freed under a child.  close() frees
 * the C object at once; a parent's close() while children live fails with
 * EBUSY, as the C API's destroy functions do.
 */
#ifndef LLMEM_PY_BASE_H
#define LLMEM_PY_BASE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>

#include <llmem/llmem.h>

/* The classes to instantiate: the Python layer's subclasses once registered. */
enum pyl_class {
	PYL_SESSION,
	PYL_MEMORY,
	PYL_BUFFER,
	PYL_IMAGE,
	PYL_MAPPING,
	PYL_QUEUE,
	PYL_EVENT,
	PYL_CAMERA,
	PYL_FRAME,
	PYL_CUDA,
	PYL_CUDA_MEMORY,
	PYL_USER_EVENT,
	PYL_IMAGE_VIEW,
	PYL_KERNEL,
	PYL_BITSTREAM,
	PYL_DECODER,
	PYL_DECODED_FRAME,
	PYL_ENCODER,
	PYL_ENCODER_FRAME,
	PYL_PACKET,
	PYL_CONVERTER,
	PYL_CLASSES,
};
/* The class pyl_alloc() instantiates for @cls from now on (a reference is kept). */
void pyl_set_class(enum pyl_class cls, PyTypeObject *type);
PyObject *pyl_alloc(enum pyl_class cls);

/* llmem.Error, made by the module's init. */
extern PyObject *pyl_Error;
/* Errors: llmem.Error from a negative errno and llmem_last_error() (NULL). */
PyObject *pyl_error(int err);
/* llmem.Error with a message of the extension's own (NULL). */
PyObject *pyl_error_msg(int err, const char *fmt, ...);
/* ValueError "<what> is closed" (NULL). */
PyObject *pyl_closed(const char *what);

/* @o if it is a @type, else NULL and TypeError "<what> must be <name>, not <type>". */
void *pyl_instance(PyObject *o, PyTypeObject *type, const char *what, const char *name);

/*
 * Arguments of a METH_FASTCALL | METH_KEYWORDS method: @names (NULL-ended)
 * in order, of which the first @npos may be positional and the first
 * @required must be given, and not as None; @out[i] is the argument or
 * NULL.  TypeError otherwise.  Return: 0 or -1.
 */
int pyl_args(const char *fn, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
	     const char *const *names, int npos, int required, PyObject **out);

/* Integer arguments: absent (NULL) or None keep *@out; TypeError for a
 * non-integer or a bool, ValueError below 0 or above @max.  Return: 0 or -1. */
int pyl_u64(PyObject *o, const char *what, uint64_t max, uint64_t *out);
int pyl_u32(PyObject *o, const char *what, uint32_t *out);
/* One of @names (NULL entries are no name) by its str, or its index as an
 * integer; absent or None keep *@out.  ValueError naming the choices for
 * another str.  Return: 0 or -1. */
int pyl_named(PyObject *o, const char *what, const char *const *names, uint32_t count,
	      uint32_t *out);
/* A str or None (NULL kept); the UTF-8 lives as long as @o.  ValueError
 * for a str holding a NUL, which a C string cannot. */
int pyl_str(PyObject *o, const char *what, const char **out);
/* A truth value; NULL keeps *@out. */
int pyl_bool(PyObject *o, int *out);
/* A tuple or list of at most @max non-negative integers into @out; the count. */
int pyl_u32_seq(PyObject *o, const char *what, uint32_t *out, int max);

/*
 * Host memory of an argument, contiguous (C order for @c_order), writable
 * when @writable; TypeError for an object without the buffer protocol,
 * ValueError for one that is not contiguous or is read-only.
 */
int pyl_get_host(PyObject *o, const char *what, int writable, int c_order, Py_buffer *view);

/* Casts for the method tables. */
#define PYL_FAST(fn) ((PyCFunction)(void (*)(void))(fn))
#define PYL_FASTKW (METH_FASTCALL | METH_KEYWORDS)

/*
 * The exception set now, put aside while callbacks run and given back
 * after (PyErr_Fetch() before Python 3.12, which deprecates it).
 */
struct pyl_saved_error {
#if PY_VERSION_HEX >= 0x030C0000
	PyObject *exc;
#else
	PyObject *type, *value, *tb;
#endif
};

static inline void pyl_error_save(struct pyl_saved_error *e)
{
#if PY_VERSION_HEX >= 0x030C0000
	e->exc = PyErr_GetRaisedException();
#else
	PyErr_Fetch(&e->type, &e->value, &e->tb);
#endif
}

static inline void pyl_error_restore(struct pyl_saved_error *e)
{
#if PY_VERSION_HEX >= 0x030C0000
	PyErr_SetRaisedException(e->exc);
#else
	PyErr_Restore(e->type, e->value, e->tb);
#endif
}

/* The saved exception's value (its message), borrowed; and dropping it. */
static inline PyObject *pyl_error_value(struct pyl_saved_error *e)
{
#if PY_VERSION_HEX >= 0x030C0000
	return e->exc;
#else
	return e->value;
#endif
}

static inline void pyl_error_discard(struct pyl_saved_error *e)
{
#if PY_VERSION_HEX >= 0x030C0000
	Py_XDECREF(e->exc);
#else
	Py_XDECREF(e->type);
	Py_XDECREF(e->value);
	Py_XDECREF(e->tb);
#endif
}

/* Runs a statement without the GIL (Py_BEGIN_ALLOW_THREADS, in one piece). */
#define PYL_NOGIL(...)                                        \
	do {                                                  \
		PyThreadState *pyl_ts_ = PyEval_SaveThread(); \
		__VA_ARGS__;                                  \
		PyEval_RestoreThread(pyl_ts_);                \
	} while (0)

/* Pins @o (an object with a busy count) for a call without the GIL. */
#define PYL_PIN(o) ((o)->busy++)
#define PYL_UNPIN(o) ((o)->busy--)

#endif /* LLMEM_PY_BASE_H */

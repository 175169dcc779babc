// SPDX-License-Identifier: MIT
/*
 * Frame conversion on the device (convert.h): llmem.convert() converts one
 * frame, YUV to RGB or back, and returns once it is done; llmem.Converter
 * hands frames to the device and returns their tickets, as the C
 * converter does, frames_in_flight of them unfinished at most.
 *
 * The C converter keeps no buffer alive, and a buffer must outlive the
 * conversions that use it: a Converter holds the buffers of each ticket
 * (counted in their pending count, which their close() checks) until it
 * finds the ticket done, in wait(), completed, a later submit() or close().
 * It holds its session, which counts it.
 */
#include "_convert.h"
#include "_event.h"
#include "_layout.h"
#include "_objects.h"
#include "_session.h"

#include <errno.h>
#include <string.h>

static const char *const encodings[] = { "bt601", "bt709" };
static const char *const ranges[] = { "limited", "full" };

/* Convert.h's bound on frames_in_flight, and its default. */
#define MAX_FRAMES_IN_FLIGHT 16
#define DEFAULT_FRAMES_IN_FLIGHT 2

/*
 * One frame's buffers (@chroma None or absent for none), held in @holds for
 * as long as the device may use them.  Return: 0 or -1.
 */
static int hold_frame(PyObject *src, PyObject *chroma, PyObject *dst, struct pyl_holds *holds,
		      struct llmem_convert_frame *f)
{
	struct pyl_buffer *b[3] = { NULL, NULL, NULL };

	b[0] = pyl_as_buffer(src, "src");
	if (b[0])
		b[1] = pyl_as_buffer(dst, "dst");
	if (b[1] && chroma && chroma != Py_None)
		b[2] = pyl_as_buffer(chroma, "src_chroma");
	if (!b[1] || (chroma && chroma != Py_None && !b[2]))
		return -1;
	for (int i = 0; i < 3; i++)
		if (b[i] && pyl_holds_add_obj(holds, (PyObject *)b[i], &b[i]->pending)) {
			pyl_holds_clear(holds);
			return -1;
		}
	*f = (struct llmem_convert_frame){
		.src = b[0]->b,
		.src_chroma = b[2] ? b[2]->b : NULL,
		.dst = b[1]->b,
	};
	return 0;
}

static int parse_colour(PyObject *encoding, PyObject *range, uint32_t *enc, uint32_t *rng)
{
	return pyl_named(encoding, "encoding", encodings, 2, enc) ||
	       pyl_named(range, "range", ranges, 2, rng);
}

PyObject *pyl_convert(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
	static const char *const names[] = { "src",	 "src_layout", "dst",	     "dst_layout",
					     "encoding", "range",      "src_chroma", NULL };
	struct llmem_frame_layout src_l, dst_l;
	struct llmem_convert_frame f;
	struct llmem_convert_info ci = { 0 };
	struct pyl_holds holds = { 0 };
	PyObject *a[7];
	int ret;

	(void)module;
	if (pyl_args("convert", args, nargs, kwnames, names, 4, 4, a) ||
	    pyl_parse_frame_layout(a[1], &src_l) || pyl_parse_frame_layout(a[3], &dst_l) ||
	    parse_colour(a[4], a[5], &ci.encoding, &ci.range) ||
	    hold_frame(a[0], a[6], a[2], &holds, &f))
		return NULL;
	ci.src = f.src;
	ci.src_layout = &src_l;
	ci.dst = f.dst;
	ci.dst_layout = &dst_l;
	ci.src_chroma = f.src_chroma;
	PYL_NOGIL(ret = llmem_convert(&ci));
	pyl_holds_clear(&holds);
	if (ret)
		return pyl_error(ret);
	Py_RETURN_NONE;
}

/* ---- Converter -------------------------------------------------------- */

struct pyl_converter {
	PyObject_HEAD PyObject *weakrefs;
	struct llmem_converter *c;
	struct pyl_session *session;
	uint32_t frames_in_flight;
	/* What each ticket not yet found done holds, in the slot the C
	 * converter gives it, (ticket - 1) % frames_in_flight; that ticket. */
	struct pyl_holds holds[MAX_FRAMES_IN_FLIGHT];
	uint64_t held[MAX_FRAMES_IN_FLIGHT];
	/* Calls running without the GIL. */
	Py_ssize_t busy;
};

/* Lets go of what the tickets up to @done held. */
static void release_done(struct pyl_converter *self, uint64_t done)
{
	for (uint32_t i = 0; i < self->frames_in_flight; i++)
		if (self->held[i] && self->held[i] <= done) {
			self->held[i] = 0;
			pyl_holds_clear(&self->holds[i]);
		}
}

static PyObject *converter_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
	static char *kw[] = { "session", "src_layout",	     "dst_layout", "encoding",
			      "range",	 "frames_in_flight", "sync_files", NULL };
	PyObject *session, *src_layout, *dst_layout, *encoding = NULL, *range = NULL,
						     *frames = NULL, *sync = NULL;
	struct llmem_converter_create_info ci = { 0 };
	struct llmem_frame_layout src_l, dst_l;
	struct pyl_converter *self;
	struct pyl_session *s;
	int sync_files = 0, ret;

	if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOO|$OOOO:Converter", kw, &session,
					 &src_layout, &dst_layout, &encoding, &range, &frames,
					 &sync))
		return NULL;
	s = pyl_as_session(session);
	if (!s || pyl_parse_frame_layout(src_layout, &src_l) ||
	    pyl_parse_frame_layout(dst_layout, &dst_l) ||
	    parse_colour(encoding, range, &ci.encoding, &ci.range) ||
	    pyl_u32(frames, "frames_in_flight", &ci.frames_in_flight) ||
	    pyl_bool(sync, &sync_files))
		return NULL;
	ci.src_layout = &src_l;
	ci.dst_layout = &dst_l;
	ci.flags = sync_files ? LLMEM_CONVERTER_SYNC_FILES : 0;
	ci.session = s->s;
	self = (struct pyl_converter *)type->tp_alloc(type, 0);
	if (!self)
		return NULL;
	ret = llmem_converter_create(&ci, &self->c);
	if (ret) {
		Py_DECREF(self);
		return pyl_error(ret);
	}
	self->frames_in_flight =
		ci.frames_in_flight ? ci.frames_in_flight : DEFAULT_FRAMES_IN_FLIGHT;
	self->session = (struct pyl_session *)Py_NewRef(s);
	s->converters++;
	return (PyObject *)self;
}

/* Waits for every ticket (the C converter's destruction does), then lets go. */
static void converter_destroy(struct pyl_converter *self)
{
	struct llmem_converter *c = self->c;

	self->c = NULL;
	self->busy++;
	PYL_NOGIL(llmem_converter_destroy(c));
	self->busy--;
	release_done(self, UINT64_MAX);
	self->session->converters--;
	Py_CLEAR(self->session);
}

static void converter_dealloc(struct pyl_converter *self)
{
	if (self->weakrefs)
		PyObject_ClearWeakRefs((PyObject *)self);
	if (self->c)
		converter_destroy(self);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

/* NULL with the exception unless the converter is open and no call of it runs. */
static struct pyl_converter *usable(struct pyl_converter *self)
{
	if (!self->c)
		return (struct pyl_converter *)pyl_closed("converter");
	if (self->busy)
		return (struct pyl_converter *)pyl_error_msg(
			EBUSY, "converter is in use by another thread");
	return self;
}

static PyObject *converter_close(struct pyl_converter *self, PyObject *unused)
{
	(void)unused;
	if (!self->c)
		Py_RETURN_NONE;
	if (!usable(self))
		return NULL;
	converter_destroy(self);
	Py_RETURN_NONE;
}

static PyObject *converter_submit(struct pyl_converter *self, PyObject *const *args,
				  Py_ssize_t nargs, PyObject *kwnames)
{
	static const char *const names[] = { "src", "dst", "src_chroma", NULL };
	struct pyl_holds holds = { 0 };
	struct llmem_convert_frame f;
	uint64_t ticket;
	PyObject *a[3];
	uint32_t slot;
	int ret;

	if (pyl_args("submit", args, nargs, kwnames, names, 3, 2, a) || !usable(self) ||
	    hold_frame(a[0], a[2], a[1], &holds, &f))
		return NULL;
	self->busy++;
	PYL_NOGIL(ret = llmem_converter_submit(self->c, &f, &ticket));
	self->busy--;
	if (ret) {
		pyl_holds_clear(&holds);
		return pyl_error(ret);
	}
	/* The ticket that had the slot is done: the submission waited for it. */
	release_done(self, llmem_converter_completed(self->c));
	slot = (uint32_t)((ticket - 1) % self->frames_in_flight);
	if (self->held[slot])
		pyl_holds_clear(&self->holds[slot]);
	self->holds[slot] = holds;
	self->held[slot] = ticket;
	return PyLong_FromUnsignedLongLong(ticket);
}

static PyObject *converter_wait(struct pyl_converter *self, PyObject *const *args, Py_ssize_t nargs,
				PyObject *kwnames)
{
	static const char *const names[] = { "ticket", "timeout", NULL };
	uint64_t ticket = 0, ns;
	PyObject *a[2];
	int ret;

	if (pyl_args("wait", args, nargs, kwnames, names, 2, 1, a) ||
	    pyl_u64(a[0], "ticket", UINT64_MAX, &ticket) || pyl_timeout(a[1], &ns) || !usable(self))
		return NULL;
	self->busy++;
	if (ns)
		PYL_NOGIL(ret = llmem_converter_wait(self->c, ticket, ns));
	else
		ret = llmem_converter_wait(self->c, ticket, 0);
	self->busy--;
	if (ret == -ETIMEDOUT)
		Py_RETURN_FALSE;
	if (ret)
		return pyl_error(ret);
	release_done(self, llmem_converter_completed(self->c));
	Py_RETURN_TRUE;
}

static PyObject *converter_export_sync_file(struct pyl_converter *self, PyObject *const *args,
					    Py_ssize_t nargs, PyObject *kwnames)
{
	static const char *const names[] = { "ticket", NULL };
	uint64_t ticket = 0;
	PyObject *a[1];
	int fd, ret;

	if (pyl_args("export_sync_file", args, nargs, kwnames, names, 1, 1, a) ||
	    pyl_u64(a[0], "ticket", UINT64_MAX, &ticket) || !usable(self))
		return NULL;
	ret = llmem_converter_export_sync_file(self->c, ticket, &fd);
	if (ret)
		return pyl_error(ret);
	return PyLong_FromLong(fd);
}

static PyObject *converter_get_completed(struct pyl_converter *self, void *closure)
{
	uint64_t done;

	(void)closure;
	if (!self->c)
		return pyl_closed("converter");
	/* Any thread may ask, even while another one submits. */
	done = llmem_converter_completed(self->c);
	release_done(self, done);
	return PyLong_FromUnsignedLongLong(done);
}

static PyObject *converter_get_pending(struct pyl_converter *self, void *closure)
{
	Py_ssize_t n = 0;

	(void)closure;
	for (uint32_t i = 0; i < self->frames_in_flight; i++)
		n += self->held[i] != 0;
	return PyLong_FromSsize_t(n);
}

static PyObject *converter_get_frames_in_flight(struct pyl_converter *self, void *closure)
{
	(void)closure;
	return PyLong_FromUnsignedLong(self->frames_in_flight);
}

static PyObject *converter_get_closed(struct pyl_converter *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(!self->c);
}

static PyMethodDef converter_methods[] = {
	{ "submit", PYL_FAST(converter_submit), PYL_FASTKW,
	  "submit(src, dst, src_chroma=None) -> ticket: hands the conversion of the frame in "
	  "src into dst to the device (llmem_converter_submit()); the buffers are held until "
	  "the ticket is found done." },
	{ "wait", PYL_FAST(converter_wait), PYL_FASTKW,
	  "wait(ticket, timeout=None) -> True once conversion ticket (and every earlier one) "
	  "is done, False when the timeout in seconds passed first." },
	{ "export_sync_file", PYL_FAST(converter_export_sync_file), PYL_FASTKW,
	  "export_sync_file(ticket) -> fd: a sync_file signalled when the conversion is done, "
	  "a new fd the caller owns (Converter(sync_files=True) only)." },
	{ "close", (PyCFunction)converter_close, METH_NOARGS,
	  "Waits for every conversion submitted, then destroys the converter." },
	{ 0 },
};

static PyGetSetDef converter_getset[] = {
	{ "completed", (getter)converter_get_completed, NULL,
	  "The last ticket known done, without waiting (0: none); any thread may read it.", NULL },
	{ "pending", (getter)converter_get_pending, NULL,
	  "Tickets whose buffers are still held, not yet found done.", NULL },
	{ "frames_in_flight", (getter)converter_get_frames_in_flight, NULL,
	  "How many conversions may be unfinished at once.", NULL },
	{ "closed", (getter)converter_get_closed, NULL, "Whether close() was called.", NULL },
	{ 0 },
};

PyTypeObject pyl_ConverterType = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "llmem._llmem.Converter",
	.tp_basicsize = sizeof(struct pyl_converter),
	.tp_dealloc = (destructor)converter_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "Converter(session, src_layout, dst_layout, *, encoding=None, range=None, "
		  "frames_in_flight=0, sync_files=False): frames converted on the device with "
		  "frames in flight (llmem_converter_create()).",
	.tp_weaklistoffset = offsetof(struct pyl_converter, weakrefs),
	.tp_methods = converter_methods,
	.tp_getset = converter_getset,
	.tp_new = converter_new,
};

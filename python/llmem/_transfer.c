// SPDX-License-Identifier: MIT
/*
 * Queues: llmem.Queue records copies, fills and clears as transfer.h does,
 * and kernels' dispatches (_kernel.c), each as _operation.c has every
 * operation go: blocking by default or returning an llmem.Event
 * (_event.c), running without the GIL.  Host memory comes through the
 * buffer protocol and its size is checked against what the operation
 * touches.
 *
 * Until the device is done with an operation that did not block, its event
 * (or the open batch) holds what it uses: the buffers and images, whose
 * close() refuses meanwhile (EBUSY), and the host memory a read lands in
 * (when the event is waited for, or a later operation retires it).  Closing
 * the queue waits for everything.
 */
#include "_transfer.h"
#include "_kernel.h"
#include "_objects.h"
#include "_operation.h"
#include "_session.h"

#include <errno.h>
#include <string.h>

/* ---- Queue ------------------------------------------------------------ */

static PyObject *queue_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
	static char *kw[] = { "session",    "no_mapping", "staging_size",
			      "chunk_size", "profiling",  NULL };
	struct llmem_queue_create_info ci = { 0 };
	PyObject *session, *no_mapping = NULL, *staging = NULL, *chunk = NULL, *profiling = NULL;
	struct pyl_session *s;
	struct pyl_queue *self;
	int nm = 0, prof = 0, ret;

	if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|$OOOO:Queue", kw, &session, &no_mapping,
					 &staging, &chunk, &profiling))
		return NULL;
	s = pyl_as_session(session);
	if (!s)
		return NULL;
	if (pyl_bool(no_mapping, &nm) || pyl_bool(profiling, &prof) ||
	    pyl_u64(staging, "staging_size", UINT64_MAX, &ci.staging_size) ||
	    pyl_u64(chunk, "chunk_size", UINT64_MAX, &ci.chunk_size))
		return NULL;
	ci.flags = (nm ? LLMEM_QUEUE_NO_MAPPING : 0) | (prof ? LLMEM_QUEUE_PROFILING : 0);
	self = (struct pyl_queue *)type->tp_alloc(type, 0);
	if (!self)
		return NULL;
	ret = llmem_queue_create(s->s, &ci, &self->q);
	if (ret) {
		Py_DECREF(self);
		return pyl_error(ret);
	}
	self->session = (struct pyl_session *)Py_NewRef(s);
	s->queues++;
	return (PyObject *)self;
}

/*
 * The queue counts as closed before the library destroys it: callbacks its
 * destruction calls must not enqueue on it or ask it about its events.
 */
static void queue_destroy(struct pyl_queue *self)
{
	struct llmem_queue *q = self->q;

	self->q = NULL;
	PYL_NOGIL(llmem_queue_destroy(q));
	/* Everything enqueued is done and an open batch discarded. */
	while (self->holding)
		pyl_event_done(self->holding);
	pyl_holds_clear(&self->batch_holds);
	self->batch = 0;
	pyl_queue_callbacks_orphaned(self);
	self->session->queues--;
}

static void queue_dealloc(struct pyl_queue *self)
{
	if (self->weakrefs)
		PyObject_ClearWeakRefs((PyObject *)self);
	if (self->q)
		queue_destroy(self);
	Py_CLEAR(self->session);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *queue_close(struct pyl_queue *self, PyObject *unused)
{
	(void)unused;
	if (!self->q)
		Py_RETURN_NONE;
	if (self->busy)
		return pyl_error_msg(EBUSY, "queue is in use by another thread");
	queue_destroy(self);
	Py_RETURN_NONE;
}

static void op_pin_buffer(struct pyl_op *op, struct pyl_buffer *b)
{
	pyl_op_pin(op, (PyObject *)b, &b->busy, &b->pending);
}

static void op_pin_image(struct pyl_op *op, struct pyl_image *img)
{
	pyl_op_pin(op, (PyObject *)img, &img->busy, &img->pending);
}

static PyObject *queue_write_buffer(struct pyl_queue *self, PyObject *const *args, Py_ssize_t nargs,
				    PyObject *kwnames)
{
	static const char *const names[] = {
		"buffer", "src", "offset", "wait_for", "blocking", NULL
	};
	struct pyl_buffer *b;
	uint64_t offset = 0;
	PyObject *a[5];
	struct pyl_op op = { 0 };
	int ret;

	if (pyl_args("write_buffer", args, nargs, kwnames, names, 3, 2, a) ||
	    pyl_op_begin(&op, self, a[3], a[4]))
		goto fail;
	b = pyl_as_buffer(a[0], "buffer");
	if (!b || pyl_u64(a[2], "offset", UINT64_MAX, &offset) ||
	    pyl_get_host(a[1], "src", 0, 0, &op.host))
		goto fail;
	op.has_host = 1;
	op_pin_buffer(&op, b);
	pyl_op_enter(&op);
	PYL_NOGIL(ret = llmem_enqueue_write_buffer(self->q, b->b, offset, op.host.buf,
						   (uint64_t)op.host.len, pyl_op_wait_list(&op),
						   pyl_op_event(&op)));
	pyl_op_leave(&op);
	return pyl_op_end(&op, ret);
fail:
	pyl_op_free(&op);
	return NULL;
}

static PyObject *queue_read_buffer(struct pyl_queue *self, PyObject *const *args, Py_ssize_t nargs,
				   PyObject *kwnames)
{
	static const char *const names[] = {
		"buffer", "dst", "offset", "wait_for", "blocking", NULL
	};
	struct pyl_buffer *b;
	uint64_t offset = 0;
	PyObject *a[5];
	struct pyl_op op = { 0 };
	int ret;

	if (pyl_args("read_buffer", args, nargs, kwnames, names, 3, 2, a) ||
	    pyl_op_begin(&op, self, a[3], a[4]))
		goto fail;
	b = pyl_as_buffer(a[0], "buffer");
	if (!b || pyl_u64(a[2], "offset", UINT64_MAX, &offset) ||
	    pyl_get_host(a[1], "dst", 1, 0, &op.host))
		goto fail;
	op.has_host = 1;
	op.host_read = 1;
	op_pin_buffer(&op, b);
	pyl_op_enter(&op);
	PYL_NOGIL(ret = llmem_enqueue_read_buffer(self->q, b->b, offset, op.host.buf,
						  (uint64_t)op.host.len, pyl_op_wait_list(&op),
						  pyl_op_event(&op)));
	pyl_op_leave(&op);
	return pyl_op_end(&op, ret);
fail:
	pyl_op_free(&op);
	return NULL;
}

static PyObject *queue_copy_buffer(struct pyl_queue *self, PyObject *const *args, Py_ssize_t nargs,
				   PyObject *kwnames)
{
	static const char *const names[] = { "src",	   "dst",      "size",	   "src_offset",
					     "dst_offset", "wait_for", "blocking", NULL };
	struct pyl_buffer *src, *dst;
	uint64_t size = 0, so = 0, dof = 0;
	PyObject *a[7];
	struct pyl_op op = { 0 };
	int ret;

	if (pyl_args("copy_buffer", args, nargs, kwnames, names, 5, 2, a) ||
	    pyl_op_begin(&op, self, a[5], a[6]))
		goto fail;
	src = pyl_as_buffer(a[0], "src");
	dst = src ? pyl_as_buffer(a[1], "dst") : NULL;
	if (!dst || pyl_u64(a[3], "src_offset", UINT64_MAX, &so) ||
	    pyl_u64(a[4], "dst_offset", UINT64_MAX, &dof))
		goto fail;
	/* PyOpenCL's default: the rest of the source. */
	size = so < src->size ? src->size - so : 0;
	if (pyl_u64(a[2], "size", UINT64_MAX, &size))
		goto fail;
	op_pin_buffer(&op, src);
	op_pin_buffer(&op, dst);
	pyl_op_enter(&op);
	PYL_NOGIL(ret = llmem_enqueue_copy_buffer(self->q, src->b, so, dst->b, dof, size,
						  pyl_op_wait_list(&op), pyl_op_event(&op)));
	pyl_op_leave(&op);
	return pyl_op_end(&op, ret);
fail:
	pyl_op_free(&op);
	return NULL;
}

static PyObject *queue_fill_buffer(struct pyl_queue *self, PyObject *const *args, Py_ssize_t nargs,
				   PyObject *kwnames)
{
	static const char *const names[] = { "buffer",	 "pattern",  "offset", "size",
					     "wait_for", "blocking", NULL };
	struct pyl_buffer *b;
	uint64_t offset = 0, size;
	Py_buffer pattern;
	PyObject *a[6];
	struct pyl_op op = { 0 };
	int ret;

	if (pyl_args("fill_buffer", args, nargs, kwnames, names, 4, 2, a) ||
	    pyl_op_begin(&op, self, a[4], a[5]))
		goto fail;
	b = pyl_as_buffer(a[0], "buffer");
	if (!b || pyl_u64(a[2], "offset", UINT64_MAX, &offset))
		goto fail;
	size = offset < b->size ? b->size - offset : 0;
	if (pyl_u64(a[3], "size", UINT64_MAX, &size) ||
	    pyl_get_host(a[1], "pattern", 0, 0, &pattern))
		goto fail;
	op.host = pattern;
	op.has_host = 1;
	if (pattern.len > 16 || !pattern.len || (pattern.len & (pattern.len - 1))) {
		PyErr_Format(PyExc_ValueError, "pattern has %zd bytes: 1, 2, 4, 8 or 16",
			     pattern.len);
		goto fail;
	}
	op_pin_buffer(&op, b);
	pyl_op_enter(&op);
	PYL_NOGIL(ret = llmem_enqueue_fill_buffer(self->q, b->b, offset, size, op.host.buf,
						  (uint32_t)op.host.len, pyl_op_wait_list(&op),
						  pyl_op_event(&op)));
	pyl_op_leave(&op);
	return pyl_op_end(&op, ret);
fail:
	pyl_op_free(&op);
	return NULL;
}

/* origin and region as (x, y, z) and (width, height, depth) texels. */
static int parse_region(PyObject *origin, PyObject *region, struct llmem_image_region *r)
{
	memset(r, 0, sizeof(*r));
	if (origin && origin != Py_None && pyl_u32_seq(origin, "origin", r->origin, 3) < 0)
		return -1;
	if (region && region != Py_None && pyl_u32_seq(region, "region", r->extent, 3) < 0)
		return -1;
	return 0;
}

/*
 * The bytes a box of @img takes in host memory laid out as @l; -1 with a
 * ValueError when it does not fit in @len bytes.  A box outside the image
 * is the library's to refuse.
 */
static int check_host_box(const char *what, const struct llmem_image *img,
			  const struct llmem_image_region *r, const struct llmem_linear_layout *l,
			  Py_ssize_t len)
{
	const uint32_t size[3] = { llmem_image_width(img), llmem_image_height(img),
				   llmem_image_depth(img) };
	uint64_t e[3], texel = llmem_image_texel_size(img), rp, sp, need, t;

	for (int i = 0; i < 3; i++) {
		e[i] = r->extent[i]		? r->extent[i]
		       : r->origin[i] < size[i] ? size[i] - r->origin[i]
						: 0;
		if (!e[i])
			return 0;
	}
	rp = l->row_pitch ? l->row_pitch : e[0] * texel;
	sp = l->slice_pitch ? l->slice_pitch : rp * e[1];
	if (__builtin_mul_overflow(e[2] - 1, sp, &need) ||
	    __builtin_mul_overflow(e[1] - 1, rp, &t) || __builtin_add_overflow(need, t, &need) ||
	    __builtin_mul_overflow(e[0], texel, &t) || __builtin_add_overflow(need, t, &need) ||
	    need > (uint64_t)len) {
		PyErr_Format(PyExc_ValueError,
			     "%s has %zd bytes: the box of %llux%llux%llu texels of %llu bytes "
			     "(row pitch %llu, slice pitch %llu) needs more",
			     what, len, (unsigned long long)e[0], (unsigned long long)e[1],
			     (unsigned long long)e[2], (unsigned long long)texel,
			     (unsigned long long)rp, (unsigned long long)sp);
		return -1;
	}
	return 0;
}

static PyObject *queue_image_host(struct pyl_queue *self, PyObject *const *args, Py_ssize_t nargs,
				  PyObject *kwnames, int read)
{
	static const char *const names[] = { "image",	 "host",      "origin",
					     "region",	 "row_pitch", "slice_pitch",
					     "wait_for", "blocking",  NULL };
	struct llmem_linear_layout layout = { 0 };
	struct llmem_image_region region;
	struct pyl_image *img;
	PyObject *a[8];
	struct pyl_op op = { 0 };
	int ret;

	if (pyl_args(read ? "read_image" : "write_image", args, nargs, kwnames, names, 6, 2, a) ||
	    pyl_op_begin(&op, self, a[6], a[7]))
		goto fail;
	img = pyl_as_image(a[0], "image");
	if (!img || parse_region(a[2], a[3], &region) ||
	    pyl_u64(a[4], "row_pitch", UINT64_MAX, &layout.row_pitch) ||
	    pyl_u64(a[5], "slice_pitch", UINT64_MAX, &layout.slice_pitch) ||
	    pyl_get_host(a[1], read ? "dst" : "src", read, 1, &op.host))
		goto fail;
	op.has_host = 1;
	op.host_read = read;
	if (check_host_box(read ? "dst" : "src", img->img, &region, &layout, op.host.len))
		goto fail;
	op_pin_image(&op, img);
	pyl_op_enter(&op);
	PYL_NOGIL(ret = read ? llmem_enqueue_read_image(self->q, img->img, &region, op.host.buf,
							&layout, pyl_op_wait_list(&op),
							pyl_op_event(&op))
			     : llmem_enqueue_write_image(self->q, img->img, &region, op.host.buf,
							 &layout, pyl_op_wait_list(&op),
							 pyl_op_event(&op)));
	pyl_op_leave(&op);
	return pyl_op_end(&op, ret);
fail:
	pyl_op_free(&op);
	return NULL;
}

static PyObject *queue_write_image(struct pyl_queue *self, PyObject *const *args, Py_ssize_t nargs,
				   PyObject *kwnames)
{
	return queue_image_host(self, args, nargs, kwnames, 0);
}

static PyObject *queue_read_image(struct pyl_queue *self, PyObject *const *args, Py_ssize_t nargs,
				  PyObject *kwnames)
{
	return queue_image_host(self, args, nargs, kwnames, 1);
}

static PyObject *queue_buffer_image(struct pyl_queue *self, PyObject *const *args, Py_ssize_t nargs,
				    PyObject *kwnames, int to_image)
{
	static const char *const names[] = { "buffer",	    "image",  "offset", "row_pitch",
					     "slice_pitch", "origin", "region", "wait_for",
					     "blocking",    NULL };
	struct llmem_linear_layout layout = { 0 };
	struct llmem_image_region region;
	struct pyl_buffer *b;
	struct pyl_image *img;
	PyObject *a[9];
	struct pyl_op op = { 0 };
	int ret;

	if (pyl_args(to_image ? "copy_buffer_to_image" : "copy_image_to_buffer", args, nargs,
		     kwnames, names, 7, 2, a) ||
	    pyl_op_begin(&op, self, a[7], a[8]))
		goto fail;
	b = pyl_as_buffer(a[0], "buffer");
	img = b ? pyl_as_image(a[1], "image") : NULL;
	if (!img || pyl_u64(a[2], "offset", UINT64_MAX, &layout.offset) ||
	    pyl_u64(a[3], "row_pitch", UINT64_MAX, &layout.row_pitch) ||
	    pyl_u64(a[4], "slice_pitch", UINT64_MAX, &layout.slice_pitch) ||
	    parse_region(a[5], a[6], &region))
		goto fail;
	op_pin_buffer(&op, b);
	op_pin_image(&op, img);
	pyl_op_enter(&op);
	PYL_NOGIL(ret = to_image ? llmem_enqueue_copy_buffer_to_image(
					   self->q, b->b, &layout, img->img, &region,
					   pyl_op_wait_list(&op), pyl_op_event(&op))
				 : llmem_enqueue_copy_image_to_buffer(
					   self->q, img->img, &region, b->b, &layout,
					   pyl_op_wait_list(&op), pyl_op_event(&op)));
	pyl_op_leave(&op);
	return pyl_op_end(&op, ret);
fail:
	pyl_op_free(&op);
	return NULL;
}

static PyObject *queue_copy_buffer_to_image(struct pyl_queue *self, PyObject *const *args,
					    Py_ssize_t nargs, PyObject *kwnames)
{
	return queue_buffer_image(self, args, nargs, kwnames, 1);
}

static PyObject *queue_copy_image_to_buffer(struct pyl_queue *self, PyObject *const *args,
					    Py_ssize_t nargs, PyObject *kwnames)
{
	return queue_buffer_image(self, args, nargs, kwnames, 0);
}

/* A colour of up to four channels, as the image's channel type holds them. */
static int parse_color(PyObject *o, uint32_t channel_type, union llmem_color *c)
{
	PyObject *seq = PySequence_Fast(o, "color must be a sequence of up to 4 numbers");
	Py_ssize_t n;
	int ret = -1;

	memset(c, 0, sizeof(*c));
	if (!seq)
		return -1;
	n = PySequence_Fast_GET_SIZE(seq);
	if (n < 1 || n > 4) {
		PyErr_Format(PyExc_ValueError, "color has %zd values: 1 to 4", n);
		goto out;
	}
	for (Py_ssize_t i = 0; i < n; i++) {
		PyObject *v = PySequence_Fast_GET_ITEM(seq, i);

		if (channel_type >= LLMEM_CHANNEL_F16) {
			double d = PyFloat_AsDouble(v);

			if (d == -1.0 && PyErr_Occurred())
				goto out;
			c->f32[i] = (float)d;
		} else {
			long long x;

			if (!PyIndex_Check(v)) {
				PyErr_Format(PyExc_TypeError,
					     "an integer image's color takes ints, not %.200s",
					     Py_TYPE(v)->tp_name);
				goto out;
			}
			x = PyLong_AsLongLong(v);
			if (x == -1 && PyErr_Occurred())
				goto out;
			if (channel_type & 1) {
				if (x < INT32_MIN || x > INT32_MAX) {
					PyErr_Format(PyExc_ValueError,
						     "color value %lld does not fit 32 bits", x);
					goto out;
				}
				c->i32[i] = (int32_t)x;
			} else {
				if (x < 0 || x > UINT32_MAX) {
					PyErr_Format(PyExc_ValueError,
						     "color value %lld of an unsigned image", x);
					goto out;
				}
				c->u32[i] = (uint32_t)x;
			}
		}
	}
	ret = 0;
out:
	Py_DECREF(seq);
	return ret;
}

static PyObject *queue_clear_image(struct pyl_queue *self, PyObject *const *args, Py_ssize_t nargs,
				   PyObject *kwnames)
{
	static const char *const names[] = { "image",	 "color",    "origin", "region",
					     "wait_for", "blocking", NULL };
	struct llmem_image_region region;
	union llmem_color color;
	struct pyl_image *img;
	PyObject *a[6];
	struct pyl_op op = { 0 };
	int ret;

	if (pyl_args("clear_image", args, nargs, kwnames, names, 4, 2, a) ||
	    pyl_op_begin(&op, self, a[4], a[5]))
		goto fail;
	img = pyl_as_image(a[0], "image");
	if (!img || parse_color(a[1], llmem_image_channel_type(img->img), &color) ||
	    parse_region(a[2], a[3], &region))
		goto fail;
	op_pin_image(&op, img);
	pyl_op_enter(&op);
	PYL_NOGIL(ret = llmem_enqueue_clear_image(self->q, img->img, &region, &color,
						  pyl_op_wait_list(&op), pyl_op_event(&op)));
	pyl_op_leave(&op);
	return pyl_op_end(&op, ret);
fail:
	pyl_op_free(&op);
	return NULL;
}

/*
 * One texel of the image's own type: bytes of exactly its texel size (the
 * Python layer packs channel values into them), copied bit for bit.
 */
static PyObject *queue_fill_image(struct pyl_queue *self, PyObject *const *args, Py_ssize_t nargs,
				  PyObject *kwnames)
{
	static const char *const names[] = { "image",	 "texel",    "origin", "region",
					     "wait_for", "blocking", NULL };
	struct llmem_image_region region;
	struct pyl_image *img;
	PyObject *a[6];
	struct pyl_op op = { 0 };
	int ret;

	if (pyl_args("fill_image", args, nargs, kwnames, names, 4, 2, a) ||
	    pyl_op_begin(&op, self, a[4], a[5]))
		goto fail;
	img = pyl_as_image(a[0], "image");
	if (!img || parse_region(a[2], a[3], &region) ||
	    pyl_get_host(a[1], "texel", 0, 0, &op.host))
		goto fail;
	op.has_host = 1;
	if ((uint64_t)op.host.len != llmem_image_texel_size(img->img)) {
		PyErr_Format(PyExc_ValueError, "texel has %zd bytes: the image's texels have %u",
			     op.host.len, llmem_image_texel_size(img->img));
		goto fail;
	}
	op_pin_image(&op, img);
	pyl_op_enter(&op);
	PYL_NOGIL(ret = llmem_enqueue_fill_image(self->q, img->img, &region, op.host.buf,
						 (uint32_t)op.host.len, pyl_op_wait_list(&op),
						 pyl_op_event(&op)));
	pyl_op_leave(&op);
	return pyl_op_end(&op, ret);
fail:
	pyl_op_free(&op);
	return NULL;
}

/* (x, y, z) origins and a (width, height, depth) box, as struct llmem_image_copy. */
static int parse_image_copy(PyObject *src_origin, PyObject *dst_origin, PyObject *region,
			    struct llmem_image_copy *c)
{
	memset(c, 0, sizeof(*c));
	if (src_origin && src_origin != Py_None &&
	    pyl_u32_seq(src_origin, "src_origin", c->src_origin, 3) < 0)
		return -1;
	if (dst_origin && dst_origin != Py_None &&
	    pyl_u32_seq(dst_origin, "dst_origin", c->dst_origin, 3) < 0)
		return -1;
	if (region && region != Py_None && pyl_u32_seq(region, "region", c->extent, 3) < 0)
		return -1;
	return 0;
}

static PyObject *queue_copy_image(struct pyl_queue *self, PyObject *const *args, Py_ssize_t nargs,
				  PyObject *kwnames)
{
	static const char *const names[] = { "src",    "dst",	   "src_origin", "dst_origin",
					     "region", "wait_for", "blocking",	 NULL };
	struct llmem_image_copy copy;
	struct pyl_image *src, *dst;
	PyObject *a[7];
	struct pyl_op op = { 0 };
	int ret;

	if (pyl_args("copy_image", args, nargs, kwnames, names, 5, 2, a) ||
	    pyl_op_begin(&op, self, a[5], a[6]))
		goto fail;
	src = pyl_as_image(a[0], "src");
	dst = src ? pyl_as_image(a[1], "dst") : NULL;
	if (!dst || parse_image_copy(a[2], a[3], a[4], &copy))
		goto fail;
	op_pin_image(&op, src);
	op_pin_image(&op, dst);
	pyl_op_enter(&op);
	PYL_NOGIL(ret = llmem_enqueue_copy_image(self->q, src->img, dst->img, &copy,
						 pyl_op_wait_list(&op), pyl_op_event(&op)));
	pyl_op_leave(&op);
	return pyl_op_end(&op, ret);
fail:
	pyl_op_free(&op);
	return NULL;
}

static PyObject *queue_finish(struct pyl_queue *self, PyObject *unused)
{
	int ret;

	(void)unused;
	if (!self->q)
		return pyl_closed("queue");
	self->busy++;
	PYL_NOGIL(ret = llmem_queue_finish(self->q));
	self->busy--;
	if (ret)
		return pyl_error(ret);
	Py_RETURN_NONE;
}

static PyObject *queue_begin_batch(struct pyl_queue *self, PyObject *unused)
{
	int ret;

	(void)unused;
	if (!self->q)
		return pyl_closed("queue");
	ret = llmem_queue_begin_batch(self->q);
	if (ret)
		return pyl_error(ret);
	self->batch = 1;
	Py_RETURN_NONE;
}

static PyObject *queue_submit_batch(struct pyl_queue *self, PyObject *const *args, Py_ssize_t nargs,
				    PyObject *kwnames)
{
	static const char *const names[] = { "blocking", NULL };
	struct pyl_event *e = NULL;
	struct llmem_event *ev = NULL;
	PyObject *a[1];
	int blocking = 1, ret;

	if (!self->q)
		return pyl_closed("queue");
	if (pyl_args("submit_batch", args, nargs, kwnames, names, 1, 0, a) ||
	    pyl_bool(a[0], &blocking))
		return NULL;
	if (!blocking) {
		e = (struct pyl_event *)pyl_alloc(PYL_EVENT);
		if (!e)
			return NULL;
	}
	self->busy++;
	PYL_NOGIL(ret = llmem_queue_submit_batch(self->q, blocking ? NULL : &ev));
	self->busy--;
	if (ret) {
		/* Whatever failed, no batch is left open, and its reads never land. */
		llmem_queue_discard_batch(self->q);
		Py_XDECREF(e);
		pyl_error(ret);
	}
	self->batch = 0;
	if (ret || blocking) {
		pyl_holds_clear(&self->batch_holds);
		if (ret)
			return NULL;
		Py_RETURN_NONE;
	}
	e->ev = ev;
	e->queue = (struct pyl_queue *)Py_NewRef(self);
	e->holds = self->batch_holds;
	memset(&self->batch_holds, 0, sizeof(self->batch_holds));
	if (!pyl_holds_empty(&e->holds))
		pyl_event_link(e);
	return (PyObject *)e;
}

static PyObject *queue_discard_batch(struct pyl_queue *self, PyObject *unused)
{
	(void)unused;
	if (!self->q)
		return pyl_closed("queue");
	llmem_queue_discard_batch(self->q);
	self->batch = 0;
	pyl_holds_clear(&self->batch_holds);
	Py_RETURN_NONE;
}

static PyObject *queue_info(struct pyl_queue *self, PyObject *unused)
{
	struct llmem_queue_create_info ci;
	int ret;

	(void)unused;
	if (!self->q)
		return pyl_closed("queue");
	ret = llmem_queue_get_info(self->q, &ci);
	if (ret)
		return pyl_error(ret);
	return Py_BuildValue("{s:O,s:K,s:K,s:O}", "no_mapping",
			     ci.flags & LLMEM_QUEUE_NO_MAPPING ? Py_True : Py_False, "staging_size",
			     (unsigned long long)ci.staging_size, "chunk_size",
			     (unsigned long long)ci.chunk_size, "profiling",
			     ci.flags & LLMEM_QUEUE_PROFILING ? Py_True : Py_False);
}

static PyObject *queue_get_closed(struct pyl_queue *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(!self->q);
}

static PyObject *queue_get_batch(struct pyl_queue *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(self->batch);
}

static PyObject *queue_get_session(struct pyl_queue *self, void *closure)
{
	(void)closure;
	return Py_NewRef(self->session ? (PyObject *)self->session : Py_None);
}

static PyMethodDef queue_methods[] = {
	{ "write_buffer", PYL_FAST(queue_write_buffer), PYL_FASTKW,
	  "write_buffer(buffer, src, offset=0, wait_for=None, blocking=True): host bytes to a "
	  "buffer" },
	{ "read_buffer", PYL_FAST(queue_read_buffer), PYL_FASTKW,
	  "read_buffer(buffer, dst, offset=0, wait_for=None, blocking=True): a buffer's bytes "
	  "into writable host memory" },
	{ "copy_buffer", PYL_FAST(queue_copy_buffer), PYL_FASTKW,
	  "copy_buffer(src, dst, size=None, src_offset=0, dst_offset=0, wait_for=None, "
	  "blocking=True)" },
	{ "fill_buffer", PYL_FAST(queue_fill_buffer), PYL_FASTKW,
	  "fill_buffer(buffer, pattern, offset=0, size=None, wait_for=None, blocking=True): "
	  "repeat a pattern of 1, 2, 4, 8 or 16 bytes" },
	{ "write_image", PYL_FAST(queue_write_image), PYL_FASTKW,
	  "write_image(image, src, origin=None, region=None, row_pitch=0, slice_pitch=0, "
	  "wait_for=None, blocking=True)" },
	{ "read_image", PYL_FAST(queue_read_image), PYL_FASTKW,
	  "read_image(image, dst, origin=None, region=None, row_pitch=0, slice_pitch=0, "
	  "wait_for=None, blocking=True)" },
	{ "copy_buffer_to_image", PYL_FAST(queue_copy_buffer_to_image), PYL_FASTKW,
	  "copy_buffer_to_image(buffer, image, offset=0, row_pitch=0, slice_pitch=0, "
	  "origin=None, region=None, wait_for=None, blocking=True)" },
	{ "copy_image_to_buffer", PYL_FAST(queue_copy_image_to_buffer), PYL_FASTKW,
	  "copy_image_to_buffer(buffer, image, offset=0, row_pitch=0, slice_pitch=0, "
	  "origin=None, region=None, wait_for=None, blocking=True)" },
	{ "clear_image", PYL_FAST(queue_clear_image), PYL_FASTKW,
	  "clear_image(image, color, origin=None, region=None, wait_for=None, blocking=True)" },
	{ "fill_image", PYL_FAST(queue_fill_image), PYL_FASTKW,
	  "fill_image(image, texel, origin=None, region=None, wait_for=None, blocking=True): "
	  "texel is the bytes of one texel of the image's own type" },
	{ "copy_image", PYL_FAST(queue_copy_image), PYL_FASTKW,
	  "copy_image(src, dst, src_origin=None, dst_origin=None, region=None, wait_for=None, "
	  "blocking=True): texels copied bit for bit between images of one texel size" },
	{ "dispatch", PYL_FAST(pyl_queue_dispatch), PYL_FASTKW,
	  "dispatch(kernel, args, groups=(1, 1, 1), push=None, wait_for=None, blocking=True): "
	  "runs a Kernel on Buffers and ImageViews" },
	{ "finish", (PyCFunction)queue_finish, METH_NOARGS,
	  "Waits for every operation submitted." },
	{ "begin_batch", (PyCFunction)queue_begin_batch, METH_NOARGS,
	  "Records what follows into one submission." },
	{ "submit_batch", PYL_FAST(queue_submit_batch), PYL_FASTKW,
	  "submit_batch(blocking=True) -> None, or the batch's Event" },
	{ "discard_batch", (PyCFunction)queue_discard_batch, METH_NOARGS,
	  "Drops the open batch unsubmitted." },
	{ "close", (PyCFunction)queue_close, METH_NOARGS,
	  "Waits for everything enqueued, then frees the queue." },
	{ "_info", (PyCFunction)queue_info, METH_NOARGS, "llmem_queue_get_info() as a dict." },
	{ 0 },
};

static PyGetSetDef queue_getset[] = {
	{ "closed", (getter)queue_get_closed, NULL, "Whether close() was called.", NULL },
	{ "in_batch", (getter)queue_get_batch, NULL, "Whether a batch is open.", NULL },
	{ "session", (getter)queue_get_session, NULL, "The session.", NULL },
	{ 0 },
};

PyTypeObject pyl_QueueType = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "llmem._llmem.Queue",
	.tp_basicsize = sizeof(struct pyl_queue),
	.tp_dealloc = (destructor)queue_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "Queue(session, *, no_mapping=False, staging_size=0, chunk_size=0, "
		  "profiling=False): an in-order transfer queue.",
	.tp_weaklistoffset = offsetof(struct pyl_queue, weakrefs),
	.tp_methods = queue_methods,
	.tp_getset = queue_getset,
	.tp_new = queue_new,
};

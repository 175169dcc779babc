/* SPDX-License-Identifier: MIT */
/*
 * Layouts (_layout.c): how the bytes the extension hands out or takes are
 * laid out.  Items: a dtype as a struct-module format, and an image's
 * channel type as one.  Views: the shape and strides of host or device
 * memory exported through the buffer protocol and DLPack.  Frames: a DRM
 * fourcc with its planes' offsets and pitches, as llmem.FrameLayout.
 */
#ifndef LLMEM_PY_LAYOUT_H
#define LLMEM_PY_LAYOUT_H

#include "_base.h"

/* Dimensions of a view over host or CUDA memory (numpy's own limit is 32). */
#define PYL_MAX_DIMS 8

/*
 * The shape of an exported view: a struct-module format of one item, and
 * shape and strides in bytes, C order.
 */
struct pyl_layout {
	char format[2];
	Py_ssize_t itemsize;
	int ndim;
	Py_ssize_t shape[PYL_MAX_DIMS];
	Py_ssize_t strides[PYL_MAX_DIMS];
};

/* The struct format and size of @dtype: None ("B"), a str ("float32",
 * "<f4", "f"), a numpy dtype or scalar type.  Return: 0 or -1. */
int pyl_parse_dtype(PyObject *dtype, char *format, Py_ssize_t *itemsize);
/* The channel type of a struct format of one item, or -1 (no exception). */
int pyl_channel_type(const char *format);

/*
 * Lays out @shape (None: as many items as fit in @len) of @itemsize items,
 * C order; ValueError when it does not fit.  Return: 0 or -1.
 */
int pyl_layout_init(struct pyl_layout *l, const char *format, Py_ssize_t itemsize, PyObject *shape,
		    Py_ssize_t len);
/*
 * A mapped linear image's texels as numpy indexes them: the image's Python
 * shape of @ndim dimensions (Lluvia's: (width), (height, width), (height,
 * width, channels) or (depth, height, width, channels)), the driver's row
 * and slice pitches as strides, items of its channel type.
 */
void pyl_image_layout(const struct llmem_image *img, uint32_t ndim,
		      const struct llmem_image_mapping *im, struct pyl_layout *l);

/* A fourcc as an int or four characters ("YUYV", "NV12", "AB24"); None
 * or NULL keeps *@out.  Return: 0 or -1. */
int pyl_parse_fourcc(PyObject *o, uint32_t *out);
/* A frame layout from Python's FrameLayout tuple, and back. */
int pyl_parse_frame_layout(PyObject *o, struct llmem_frame_layout *l);
PyObject *pyl_frame_layout_tuple(const struct llmem_frame_layout *l);
/* llmem.frame_layout(): llmem_frame_layout_init() as a tuple. */
PyObject *pyl_frame_layout(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
			   PyObject *kwnames);

#endif /* LLMEM_PY_LAYOUT_H */

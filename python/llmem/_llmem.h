/* SPDX-License-Identifier: MIT */
/*
 * What the files of the _llmem extension share: the object structs and their
 * types, the argument and error helpers (_llmem.c), the views over host
 * memory that the buffer protocol and DLPack export (_mapping.c), what
 * operations in flight hold (_event.c), one operation's bookkeeping
 * (_transfer.c, used by _kernel.c's dispatch), and the pinning of objects
 * across calls that run without the GIL.
 *
 * Ownership: every object holds a strong reference to its parent (a buffer
 * to its memory, a memory to its session, a mapping to its buffer, an event
 * to its queue, a frame to its camera, a view to its image, a kernel to its
 * session), so a parent is never freed under a child.  close() frees the C object at once; a parent's close() while
 * children live fails with EBUSY, as the C API's destroy functions do.
 */
#ifndef LLMEM_PY_H
#define LLMEM_PY_H

#include "_base.h"
#include "_mapping.h"

struct pyl_session {
	PyObject_HEAD PyObject *weakrefs;
	struct llmem_session *s;
	/* [(severity, text)] the validation layer sent, when it is on. */
	PyObject *messages;
	/* Live children, by kind, for close()'s EBUSY and its message. */
	Py_ssize_t memories, queues, cameras, cudas, kernels;
};

struct pyl_memory {
	PyObject_HEAD PyObject *weakrefs;
	struct llmem_memory *m;
	struct pyl_session *session;
	PyObject *name;
	/* Host allocations imported as pages: Py_buffers held until close. */
	Py_buffer *hosts;
	Py_ssize_t nhosts;
	/* Host coherent (or not mappable): mappings need no flush. */
	int coherent;
	/* Pages imported into CUDA; calls running without the GIL. */
	Py_ssize_t cuda_imports, busy;
};

struct pyl_buffer {
	PyObject_HEAD PyObject *weakrefs;
	struct llmem_buffer *b;
	struct pyl_memory *memory;
	/* The buffer a sub-region was cut from, or NULL. */
	PyObject *parent;
	PyObject *name;
	uint64_t size;
	/* Live Mapping objects; calls running without the GIL; operations in
	 * flight that use it (their events or the open batch hold it). */
	Py_ssize_t mappings, busy, pending;
};

struct pyl_image {
	PyObject_HEAD PyObject *weakrefs;
	struct llmem_image *img;
	struct pyl_memory *memory;
	PyObject *name;
	uint32_t ndim;
	uint32_t shape[LLMEM_IMAGE_MAX_DIMS];
	/* Calls running without the GIL; operations in flight; live Mapping
	 * and ImageView objects. */
	Py_ssize_t busy, pending, mappings, views;
};

/* An image's view and sampler, for kernels' image bindings (_objects.c). */
struct pyl_view {
	PyObject_HEAD PyObject *weakrefs;
	struct llmem_image_view *v;
	struct pyl_image *image;
	Py_ssize_t busy, pending;
};

/* A user compute kernel (_kernel.c): binding types and push size kept for checks. */
struct pyl_kernel {
	PyObject_HEAD PyObject *weakrefs;
	struct llmem_kernel *k;
	struct pyl_session *session;
	PyObject *name;
	uint32_t bindings[LLMEM_KERNEL_MAX_BINDINGS];
	uint32_t binding_count, push_size;
	Py_ssize_t busy, pending;
};

/*
 * What operations in flight hold until the device is done with them: the
 * host memory their reads land in, and the buffers and images they use
 * (counted in each one's pending count, which close() checks).
 */
struct pyl_hold_obj {
	PyObject *obj;
	Py_ssize_t *pending;
};

struct pyl_holds {
	Py_buffer *views;
	Py_ssize_t nviews, views_cap;
	struct pyl_hold_obj *objs;
	Py_ssize_t nobjs, objs_cap;
};

struct pyl_event;

struct pyl_queue {
	PyObject_HEAD PyObject *weakrefs;
	struct llmem_queue *q;
	struct pyl_session *session;
	/* What the operations of the open batch hold. */
	struct pyl_holds batch_holds;
	int batch;
	/* Events of this queue that hold something, until they are done; and
	 * those with a callback registered and not yet called. */
	struct pyl_event *holding, *callbacks;
	Py_ssize_t busy;
};

struct pyl_event {
	PyObject_HEAD PyObject *weakrefs;
	struct llmem_event *ev;
	/* The queue of an operation's event; NULL for a user event, which
	 * holds its session instead. */
	struct pyl_queue *queue;
	struct pyl_session *session;
	struct pyl_holds holds;
	/* In the queue's list of events that hold something. */
	struct pyl_event *prev, *next;
	int done;
	Py_ssize_t busy;
	/* The callback registered and not yet called (it holds a reference on
	 * the event), in the queue's list; close() asked for while it was to
	 * come: the callback releases the C event. */
	PyObject *callback;
	struct pyl_event *cb_prev, *cb_next;
	int release_on_fire;
};

struct pyl_camera {
	PyObject_HEAD PyObject *weakrefs;
	struct llmem_camera *cam;
	struct pyl_session *session;
	struct llmem_camera_info info;
	/* The frame handed out and not yet released, or NULL. */
	PyObject *held;
	/* Live RGBA views (pyl_mapping objects of this camera). */
	Py_ssize_t views;
	int streaming;
	int busy;
	double timeout;
};

struct pyl_frame {
	PyObject_HEAD PyObject *weakrefs;
	struct pyl_camera *camera;
	struct llmem_camera_frame f;
	int released;
};

extern PyTypeObject pyl_SessionType, pyl_MemoryType, pyl_BufferType, pyl_ImageType, pyl_QueueType,
	pyl_EventType, pyl_CameraType, pyl_FrameType, pyl_CudaType, pyl_CudaMemoryType,
	pyl_UserEventType, pyl_ImageViewType, pyl_KernelType;

/* enum llmem_backend from an int or its name ("vulkan-dmabuf", ...); None
 * or NULL keeps *@out (_session.c).  And the names, by value. */
int pyl_backend(PyObject *o, uint32_t *out);
PyObject *pyl_backend_names(PyObject *module, PyObject *unused);

/* @o as a llmem Buffer or Image of an open object; TypeError/ValueError. */
struct pyl_buffer *pyl_as_buffer(PyObject *o, const char *what);
struct pyl_image *pyl_as_image(PyObject *o, const char *what);

/* New objects of a memory (_objects.c); the C object is destroyed on failure. */
PyObject *pyl_buffer_wrap(struct pyl_memory *mem, struct llmem_buffer *b, PyObject *name,
			  PyObject *parent);
PyObject *pyl_image_wrap(struct pyl_memory *mem, struct llmem_image *img, PyObject *name,
			 const struct llmem_image_create_info *ci);

/* Camera and CUDA bookkeeping (_share.c). */
int pyl_share_init(PyObject *module);

/* What operations in flight hold (_event.c). */
int pyl_holds_empty(const struct pyl_holds *h);
int pyl_holds_add_view(struct pyl_holds *h, Py_buffer *view);
int pyl_holds_add_obj(struct pyl_holds *h, PyObject *obj, Py_ssize_t *pending);
void pyl_holds_clear(struct pyl_holds *h);

/*
 * Events (_event.c): pinning one (and its queue) for a call without the
 * GIL; listing one that holds something in its queue; done, it lets go;
 * after the queue's destruction, the callbacks the library will never call
 * are dropped.  Timeouts in seconds (None: forever) as nanoseconds.
 */
void pyl_event_pin(struct pyl_event *e);
void pyl_event_unpin(struct pyl_event *e);
void pyl_event_link(struct pyl_event *e);
void pyl_event_done(struct pyl_event *e);
void pyl_queue_callbacks_orphaned(struct pyl_queue *q);
int pyl_timeout(PyObject *o, uint64_t *ns);
PyObject *pyl_wait_for_events(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
			      PyObject *kwnames);

/*
 * One queue operation (_operation.c): its wait list, whether it blocks, the
 * host memory it reads from or lands in, and the objects it uses (busy
 * while the call runs without the GIL, pending until the device is done).
 */
#define PYL_OP_PINS (LLMEM_KERNEL_MAX_BINDINGS + 2)

struct pyl_op {
	struct pyl_queue *q;
	struct llmem_wait_list wl;
	struct llmem_event **waits;
	struct pyl_event **wait_events;
	PyObject *wait_objs;
	int blocking;
	struct llmem_event *ev;
	Py_buffer host;
	int has_host, host_read;
	struct {
		PyObject *obj;
		Py_ssize_t *busy, *pending;
	} pins[PYL_OP_PINS];
	int npins;
};

/* Return: 0, or -1 with an exception; pyl_op_end() gives the result. */
int pyl_op_begin(struct pyl_op *op, struct pyl_queue *q, PyObject *wait_for, PyObject *blocking);
void pyl_op_pin(struct pyl_op *op, PyObject *obj, Py_ssize_t *busy, Py_ssize_t *pending);
void pyl_op_enter(struct pyl_op *op);
void pyl_op_leave(struct pyl_op *op);
void pyl_op_free(struct pyl_op *op);
const struct llmem_wait_list *pyl_op_wait_list(struct pyl_op *op);
struct llmem_event **pyl_op_event(struct pyl_op *op);
/* None, an Event, or NULL with an exception for @ret. */
PyObject *pyl_op_end(struct pyl_op *op, int ret);

/* User compute (_kernel.c): Queue.dispatch(). */
PyObject *pyl_queue_dispatch(struct pyl_queue *q, PyObject *const *args, Py_ssize_t nargs,
			     PyObject *kwnames);

/* The benchmark's C loops (_bench.c). */
PyObject *pyl_bench_c(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);

#endif /* LLMEM_PY_H */

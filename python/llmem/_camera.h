/* SPDX-License-Identifier: MIT */
/* The camera (_camera.c): its types, and the V4L2 formats named in the module. */
#ifndef LLMEM_PY_CAMERA_H
#define LLMEM_PY_CAMERA_H

#include "_base.h"

extern PyTypeObject pyl_CameraType, pyl_FrameType;

int pyl_camera_init(PyObject *module);

/*
 * The DMA-BUFs a camera Frame was captured into (the camera's, not to
 * close), one per memory plane, for an encoder to read.  Return: 1 with
 * @fd (-1 past *@num_planes) filled in for a Frame, 0 for another object,
 * -1 with ValueError for a released one.
 */
int pyl_camera_frame_fds(PyObject *o, int *fd, uint32_t *num_planes);

#endif /* LLMEM_PY_CAMERA_H */

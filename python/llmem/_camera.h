/* SPDX-License-Identifier: MIT */
/* The camera (_camera.c): its types, and the V4L2 formats named in the module. */
#ifndef LLMEM_PY_CAMERA_H
#define LLMEM_PY_CAMERA_H

#include "_base.h"

extern PyTypeObject pyl_CameraType, pyl_FrameType;

int pyl_camera_init(PyObject *module);

#endif /* LLMEM_PY_CAMERA_H */

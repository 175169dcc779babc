/* SPDX-License-Identifier: MIT */
/* The camera and CUDA (_share.c): their types, and the V4L2 formats named in the module. */
#ifndef LLMEM_PY_SHARE_H
#define LLMEM_PY_SHARE_H

#include "_base.h"

extern PyTypeObject pyl_CameraType, pyl_FrameType, pyl_CudaType, pyl_CudaMemoryType;

int pyl_share_init(PyObject *module);

#endif /* LLMEM_PY_SHARE_H */

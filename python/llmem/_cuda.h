/* SPDX-License-Identifier: MIT */
/* Pages in CUDA (_cuda.c): their types. */
#ifndef LLMEM_PY_CUDA_H
#define LLMEM_PY_CUDA_H

#include "_base.h"

extern PyTypeObject pyl_CudaType, pyl_CudaMemoryType;

#endif /* LLMEM_PY_CUDA_H */

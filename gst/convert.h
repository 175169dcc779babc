/* SPDX-License-Identifier: MIT */
/*
 * llmemconvert: YUY2 and NV12 frames to RGB, or RGB to YUY2 and NV12, on
 * the GPU with llmem's converters, reading the frame where upstream wrote
 * it and writing into llmem frames downstream imports.
 */
#ifndef GST_LLMEM_CONVERT_H
#define GST_LLMEM_CONVERT_H

#include "transform.h"

#define GST_TYPE_LLMEM_CONVERT gst_llmem_convert_get_type()
G_DECLARE_FINAL_TYPE(GstLlmemConvert, gst_llmem_convert, GST, LLMEM_CONVERT, GstLlmemTransform)

GST_ELEMENT_REGISTER_DECLARE(llmemconvert);

#endif

// SPDX-License-Identifier: MIT
#include "device/shaders.h"

#define LLMEM_SHADER(shader_name, words)                         \
	const struct llmem_shader llmem_shader_##shader_name = { \
		.name = #shader_name,                            \
		.code = words,                                   \
		.size = sizeof(words),                           \
	}

static const uint32_t yuyv_to_rgba_spv[] =
#include "yuyv_to_rgba.spv.inc"
	;
static const uint32_t nv12_to_rgba_spv[] =
#include "nv12_to_rgba.spv.inc"
	;
static const uint32_t rgb24_to_rgba_spv[] =
#include "rgb24_to_rgba.spv.inc"
	;
static const uint32_t rgba_to_yuyv_spv[] =
#include "rgba_to_yuyv.spv.inc"
	;
static const uint32_t rgba_to_nv12_spv[] =
#include "rgba_to_nv12.spv.inc"
	;
static const uint32_t fill_spv[] =
#include "fill.spv.inc"
	;
static const uint32_t clear_spv[] =
#include "clear.spv.inc"
	;

LLMEM_SHADER(yuyv_to_rgba, yuyv_to_rgba_spv);
LLMEM_SHADER(nv12_to_rgba, nv12_to_rgba_spv);
LLMEM_SHADER(rgb24_to_rgba, rgb24_to_rgba_spv);
LLMEM_SHADER(rgba_to_yuyv, rgba_to_yuyv_spv);
LLMEM_SHADER(rgba_to_nv12, rgba_to_nv12_spv);
LLMEM_SHADER(fill, fill_spv);
LLMEM_SHADER(clear, clear_spv);

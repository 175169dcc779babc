/* SPDX-License-Identifier: MIT */
#ifndef LLMEM_DEVICE_SHADERS_H
#define LLMEM_DEVICE_SHADERS_H

#include <stddef.h>
#include <stdint.h>

/*
 * SPIR-V of the compute shaders in shaders/, embedded at build time; the
 * tier that dispatches them makes them into the session's kernels.
 */
struct llmem_shader {
	const char *name;
	const uint32_t *code;
	size_t size; /* bytes */
};

extern const struct llmem_shader llmem_shader_yuyv_to_rgba;
extern const struct llmem_shader llmem_shader_nv12_to_rgba;
extern const struct llmem_shader llmem_shader_rgb24_to_rgba;
extern const struct llmem_shader llmem_shader_rgba_to_yuyv;
extern const struct llmem_shader llmem_shader_rgba_to_nv12;
extern const struct llmem_shader llmem_shader_fill;
extern const struct llmem_shader llmem_shader_clear;

#endif

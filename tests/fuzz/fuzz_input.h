/* SPDX-License-Identifier: MIT */
/*
 * Reading a libFuzzer input as fields: each read takes the next bytes, and
 * reads past the end give zeros, so every input is a complete case.
 */
#ifndef LLMEM_FUZZ_INPUT_H
#define LLMEM_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct fuzz_input {
	const uint8_t *data;
	size_t size;
};

static inline void fuzz_bytes(struct fuzz_input *in, void *out, size_t n)
{
	size_t take = n < in->size ? n : in->size;

	memset(out, 0, n);
	memcpy(out, in->data, take);
	in->data += take;
	in->size -= take;
}

static inline uint8_t fuzz_u8(struct fuzz_input *in)
{
	uint8_t v;

	fuzz_bytes(in, &v, sizeof(v));
	return v;
}

static inline uint32_t fuzz_u32(struct fuzz_input *in)
{
	uint32_t v;

	fuzz_bytes(in, &v, sizeof(v));
	return v;
}

static inline uint64_t fuzz_u64(struct fuzz_input *in)
{
	uint64_t v;

	fuzz_bytes(in, &v, sizeof(v));
	return v;
}

#endif

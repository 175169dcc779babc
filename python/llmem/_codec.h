/* SPDX-License-Identifier: MIT */
/*
 * Encoders (_encoder.c) and decoders with their bitstream sources
 * (_decoder.c): the codec.h objects, their frames and packets.
 */
#ifndef LLMEM_PY_CODEC_H
#define LLMEM_PY_CODEC_H

#include "_base.h"

extern PyTypeObject pyl_BitstreamType, pyl_DecoderType, pyl_DecodedFrameType;
extern PyTypeObject pyl_EncoderType, pyl_EncoderFrameType, pyl_PacketType;

/*
 * A timeout in seconds (None: forever) as the milliseconds the library
 * waits; NULL keeps *@ms.  ValueError for a negative one.  Return: 0 or -1.
 */
int pyl_codec_timeout(PyObject *o, int *ms);

#endif /* LLMEM_PY_CODEC_H */

// SPDX-License-Identifier: MIT
//
// RGB to Y'CbCr shared by the shaders that write YUV frames: the inverse
// of yuv.glsl's yuv_to_rgb() (include that first), same matrix and range,
// codes rounded to nearest.  A chroma sample is the mean of the Cb and Cr
// of the pixels it covers, which is the Cb and Cr of their mean colour:
// the matrix is linear.

// One pixel of the frame's word, R', G', B' in 0-255: bytes R, G, B, A in
// memory (ABGR8888), or with @bgra B, G, R, A (XRGB8888, ARGB8888).
vec3 unpack_pixel(uint word, uint bgra)
{
	vec3 c = vec3(float(word & 0xffu), float((word >> 8) & 0xffu),
		      float((word >> 16) & 0xffu));
	return bgra == 1u ? c.bgr : c;
}

// Y' of a pixel, 0-1.
float luma_of(vec3 rgb, vec2 k)
{
	return dot(rgb, vec3(k.x, 1.0 - k.x - k.y, k.y)) / 255.0;
}

// The Y code of @rgb (0-255 each), unrounded.
float luma_code(vec3 rgb, uint matrix, uint full_range)
{
	float y = luma_of(rgb, luma_weights(matrix));

	return full_range == 1u ? 255.0 * y : 16.0 + 219.0 * y;
}

// The Cb and Cr codes of @rgb (0-255 each), unrounded.
vec2 chroma_code(vec3 rgb, uint matrix, uint full_range)
{
	vec2 k = luma_weights(matrix);
	float y = luma_of(rgb, k);
	float cb = (rgb.b / 255.0 - y) / (2.0 * (1.0 - k.y));
	float cr = (rgb.r / 255.0 - y) / (2.0 * (1.0 - k.x));

	return 128.0 + (full_range == 1u ? 255.0 : 224.0) * vec2(cb, cr);
}

// A code as its byte: to nearest, halves up, within 0-255 (full range's
// pure blue has Cb 255.5).
uint code_byte(float code)
{
	return uint(clamp(floor(code + 0.5), 0.0, 255.0));
}

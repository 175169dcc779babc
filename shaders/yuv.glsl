// SPDX-License-Identifier: MIT
//
// Y'CbCr to RGB shared by the conversion shaders.  Frames arrive as raw
// bytes in a storage buffer (the DMA-BUF a camera wrote), so bytes are
// fetched from 32-bit words; V4L2 packs them little-endian.

// Kr and Kb of the matrix: 0 = BT.601, 1 = BT.709.
vec2 luma_weights(uint matrix)
{
	return matrix == 1u ? vec2(0.2126, 0.0722) : vec2(0.299, 0.114);
}

// Range: 0 = limited (16-235/16-240), 1 = full (0-255).
vec3 yuv_to_rgb(float y, float u, float v, uint matrix, uint full_range)
{
	vec2 k = luma_weights(matrix);
	float kr = k.x;
	float kb = k.y;
	float kg = 1.0 - kr - kb;
	float luma, cb, cr;

	if (full_range == 1u) {
		luma = y / 255.0;
		cb = (u - 128.0) / 255.0;
		cr = (v - 128.0) / 255.0;
	} else {
		luma = (y - 16.0) / 219.0;
		cb = (u - 128.0) / 224.0;
		cr = (v - 128.0) / 224.0;
	}
	float r = luma + 2.0 * (1.0 - kr) * cr;
	float b = luma + 2.0 * (1.0 - kb) * cb;
	float g = (luma - kr * r - kb * b) / kg;
	return clamp(vec3(r, g, b), 0.0, 1.0);
}

// One pixel as the word the frame holds, opaque: bytes R, G, B, A in
// memory (DRM's ABGR8888), or with @bgra B, G, R, A (XRGB8888, ARGB8888,
// what displays scan out).
uint pack_pixel(vec3 rgb, uint bgra)
{
	uvec3 c = uvec3(round(rgb * 255.0));
	if (bgra == 1u)
		c = c.bgr;
	return c.r | (c.g << 8) | (c.b << 16) | (255u << 24);
}

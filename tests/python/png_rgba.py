# SPDX-License-Identifier: MIT
"""PNG files read and written with zlib and numpy only: the tests compare
camera frames with the PNGs `llmem camera` writes (libpng, adaptive filters).

Only what those files use: 8-bit RGB or RGBA, not interlaced, one IDAT
stream, the five filter types of each row.
"""
import struct
import zlib

import numpy as np

SIGNATURE = b"\x89PNG\r\n\x1a\n"
CHANNELS = {2: 3, 6: 4}


def _chunks(data):
    pos = len(SIGNATURE)
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        crc, = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        if zlib.crc32(kind + body) != crc:
            raise ValueError(f"PNG chunk {kind!r}: bad CRC")
        yield kind, body
        pos += 12 + length


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def _unfilter(kind, line, prior, bpp):
    if kind == 0:
        return line
    if kind == 1:
        px = line.reshape(-1, bpp)
        return np.cumsum(px, axis=0, dtype=np.uint8).reshape(-1)
    if kind == 2:
        return line + prior
    out = bytearray(len(line))
    up = prior.tobytes()
    src = line.tobytes()
    for i in range(len(src)):
        a = out[i - bpp] if i >= bpp else 0
        b = up[i]
        if kind == 3:
            out[i] = (src[i] + ((a + b) >> 1)) & 0xFF
        elif kind == 4:
            c = up[i - bpp] if i >= bpp else 0
            out[i] = (src[i] + _paeth(a, b, c)) & 0xFF
        else:
            raise ValueError(f"PNG: unknown filter type {kind}")
    return np.frombuffer(bytes(out), np.uint8)


def read(path):
    """The pixels of a PNG file, a (height, width, channels) uint8 array."""
    with open(path, "rb") as f:
        data = f.read()
    if not data.startswith(SIGNATURE):
        raise ValueError(f"{path}: not a PNG file")
    header, idat = None, []
    for kind, body in _chunks(data):
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
    width, height, depth, color, _, _, interlace = header
    if depth != 8 or color not in CHANNELS or interlace:
        raise ValueError(f"{path}: only 8-bit RGB(A), not interlaced (have {header})")
    bpp = CHANNELS[color]
    stride = width * bpp
    raw = np.frombuffer(zlib.decompress(b"".join(idat)), np.uint8)
    if raw.size != height * (stride + 1):
        raise ValueError(f"{path}: {raw.size} bytes of rows, not {height * (stride + 1)}")
    rows = raw.reshape(height, stride + 1)
    out = np.zeros((height, stride), np.uint8)
    prior = np.zeros(stride, np.uint8)
    for y in range(height):
        prior = out[y] = _unfilter(int(rows[y, 0]), rows[y, 1:], prior, bpp)
    return out.reshape(height, width, bpp)


def _filter(kind, line, prior, bpp):
    """The forward filter of a row (for the decoder's tests)."""
    x = line.astype(np.int32)
    a = np.concatenate([np.zeros(bpp, np.int32), x[:-bpp]])
    b = prior.astype(np.int32)
    c = np.concatenate([np.zeros(bpp, np.int32), b[:-bpp]])
    if kind == 0:
        pred = np.zeros_like(x)
    elif kind == 1:
        pred = a
    elif kind == 2:
        pred = b
    elif kind == 3:
        pred = (a + b) >> 1
    else:
        pred = np.array([_paeth(int(p), int(q), int(r)) for p, q, r in zip(a, b, c)])
    return ((x - pred) & 0xFF).astype(np.uint8)


def write(path, pixels, filters=(0, 1, 2, 3, 4)):
    """Writes (height, width, 3 or 4) uint8 pixels, row y with filters[y % n]."""
    height, width, bpp = pixels.shape
    color = {3: 2, 4: 6}[bpp]
    flat = pixels.reshape(height, width * bpp)
    prior = np.zeros(width * bpp, np.uint8)
    body = bytearray()
    for y in range(height):
        kind = filters[y % len(filters)]
        body.append(kind)
        body += _filter(kind, flat[y], prior, bpp).tobytes()
        prior = flat[y]

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(
            ">I", zlib.crc32(kind + data))

    with open(path, "wb") as f:
        f.write(SIGNATURE + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, color,
                                                        0, 0, 0)) +
                chunk(b"IDAT", zlib.compress(bytes(body))) + chunk(b"IEND", b""))

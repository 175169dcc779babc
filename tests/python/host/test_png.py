# SPDX-License-Identifier: MIT
"""The PNG reader the camera tests use: every filter type, RGB and RGBA."""
import numpy as np
import pytest

import png_rgba


@pytest.mark.parametrize("channels", [3, 4])
@pytest.mark.parametrize("filters", [(0,), (1,), (2,), (3,), (4,), (0, 1, 2, 3, 4)])
def test_round_trip(tmp_path, channels, filters):
    pixels = np.random.default_rng(sum(filters) + channels).integers(
        0, 256, (13, 29, channels), np.uint8)
    # Runs of equal pixels, as a test pattern has.
    pixels[5:9] = pixels[5, 3]
    path = tmp_path / "image.png"
    png_rgba.write(path, pixels, filters)
    assert np.array_equal(png_rgba.read(path), pixels)


def test_bad_files(tmp_path):
    path = tmp_path / "bad.png"
    path.write_bytes(b"GIF89a")
    with pytest.raises(ValueError, match="not a PNG"):
        png_rgba.read(path)
    png_rgba.write(path, np.zeros((2, 2, 4), np.uint8))
    data = bytearray(path.read_bytes())
    data[20] ^= 1
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="CRC"):
        png_rgba.read(path)

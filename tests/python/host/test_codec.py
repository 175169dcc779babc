# SPDX-License-Identifier: MIT
"""Bitstream sources, decoders and encoders on the host, where no codec is:
every bad file and argument raises what the docs say, before any device is
needed (tests/python/vm/test_codec.py encodes and decodes in the guest)."""
import errno
import struct

import pytest

import llmem

FWHT_MAGIC = bytes([0x4F] * 4 + [0xFF] * 4)


def fwht_frame(width, height, payload, flags=0x5):
    """One FWHT frame: vicodec's 44-byte big-endian header, then the payload."""
    return FWHT_MAGIC + struct.pack(">9I", 3, width, height, flags, 0, 0, 0, 0,
                                    len(payload)) + payload


@pytest.fixture
def fwht_file(tmp_path):
    path = tmp_path / "two.fwht"
    path.write_bytes(fwht_frame(64, 48, b"a" * 10) + fwht_frame(64, 48, b"b" * 30))
    return path


def open_error(path):
    with pytest.raises(llmem.Error) as e:
        llmem.Bitstream.open_fwht(path)
    return e.value


def test_bitstream_reports_its_frames(fwht_file):
    with llmem.Bitstream.open_fwht(fwht_file) as bs:
        assert (bs.format, bs.width, bs.height, bs.flags) == ("FWHT", 64, 48, 0x5)
        assert (bs.units, bs.read, bs.bytes, bs.max_unit) == (2, 0, 128, 74)
        assert bs.fourcc == llmem.fourcc("FWHT")
        assert repr(bs) == "<llmem.Bitstream FWHT 64x48 2 units>"
    assert bs.closed and repr(bs) == "<llmem.Bitstream (closed)>"
    with pytest.raises(ValueError, match="bitstream is closed"):
        bs.units
    bs.close()


def test_bitstream_refuses_what_is_no_fwht_file(tmp_path):
    assert open_error(tmp_path / "missing").errno == errno.ENOENT
    assert open_error(tmp_path).errno == errno.EISDIR
    e = open_error("/dev/null")
    assert e.errno == errno.EINVAL and "not a regular file" in e.strerror
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    e = open_error(empty)
    assert e.errno == errno.EINVAL and "empty" in e.strerror
    garbage = tmp_path / "garbage"
    garbage.write_bytes(b"x" * 100)
    e = open_error(garbage)
    assert e.errno == errno.EINVAL and "byte 0 starts no whole FWHT frame" in e.strerror


def test_bitstream_refuses_a_cut_or_trailing_frame(tmp_path):
    cut = tmp_path / "cut"
    cut.write_bytes(fwht_frame(64, 48, b"a" * 10)[:-1])
    e = open_error(cut)
    assert e.errno == errno.EINVAL and "(after 0 frames)" in e.strerror
    trailing = tmp_path / "trailing"
    trailing.write_bytes(fwht_frame(64, 48, b"a") + fwht_frame(64, 48, b"b") + b"junk")
    e = open_error(trailing)
    assert e.errno == errno.EINVAL and "byte 90" in e.strerror and "(after 2 frames)" in e.strerror


def test_bitstream_path_arguments():
    with pytest.raises(TypeError):
        llmem.Bitstream.open_fwht(3)
    with pytest.raises(ValueError, match="embedded null byte"):
        llmem.Bitstream.open_fwht("a\0b")
    with pytest.raises(TypeError):
        llmem.Bitstream()


def test_decoder_argument_errors(session, fwht_file):
    with llmem.Bitstream.open_fwht(fwht_file) as bs:
        with pytest.raises(TypeError, match="source must be a Bitstream"):
            llmem.Decoder(session, str(fwht_file))
        with pytest.raises(TypeError):
            llmem.Decoder("session", bs)
        with pytest.raises(TypeError, match="frames must be an int"):
            llmem.Decoder(session, bs, frames="3")
        with pytest.raises(ValueError, match="frames is out of range"):
            llmem.Decoder(session, bs, frames=-1)
        with pytest.raises(ValueError, match="not four characters"):
            llmem.Decoder(session, bs, format="NV1")
        with pytest.raises(ValueError, match="timeout must be None or seconds >= 0"):
            llmem.Decoder(session, bs, timeout=-1)
        with pytest.raises(ValueError, match="unknown backend"):
            llmem.Decoder(session, bs, backend="nope")
    with pytest.raises(ValueError, match="bitstream is closed"):
        llmem.Decoder(session, bs)


@pytest.mark.parametrize("kwargs,message", [
    ({"frames": 17}, "17 frames; at most 16"),
    ({"bitstream_buffers": 9}, "9 bitstream buffers; at most 8"),
    ({"rgba_buffers": 5}, "5 RGBA buffers; at most 4"),
    ({"rgba_format": "NV12"}, "RGBA fourcc NV12"),
    ({"rgba_pitch_alignment": 3}, "RGBA pitch alignment 3 is no power of two"),
])
def test_decoder_refuses_bad_choices(session, fwht_file, kwargs, message):
    with llmem.Bitstream.open_fwht(fwht_file) as bs:
        with pytest.raises(llmem.Error) as e:
            llmem.Decoder(session, bs, **kwargs)
        assert e.value.errno == errno.EINVAL and message in e.value.strerror
        assert session._children["codecs"] == 0


def test_decoder_of_a_missing_node(session, fwht_file, tmp_path):
    with llmem.Bitstream.open_fwht(fwht_file) as bs:
        with pytest.raises(llmem.Error) as e:
            llmem.Decoder(session, bs, device=str(tmp_path / "video0"))
        assert e.value.errno == errno.ENOENT
        # The failed decoder let go of its source.
        bs.close()


def test_encoder_argument_errors(session):
    with pytest.raises(TypeError):
        llmem.Encoder("session")
    with pytest.raises(TypeError, match="size must be a tuple"):
        llmem.Encoder(session, size="640x480")
    with pytest.raises(ValueError, match=r"size must be \(width, height\)"):
        llmem.Encoder(session, size=(640,))
    with pytest.raises(ValueError, match=r"coded_size must be \(width, height\)"):
        llmem.Encoder(session, coded_size=(1008,))
    with pytest.raises(ValueError, match="at most 2"):
        llmem.Encoder(session, size=(640, 480, 3))
    with pytest.raises(ValueError, match="not four characters"):
        llmem.Encoder(session, format="YUY")
    with pytest.raises(ValueError, match="not four characters"):
        llmem.Encoder(session, coded_format="FWHTX")
    with pytest.raises(ValueError, match="timeout must be None or seconds >= 0"):
        llmem.Encoder(session, timeout=-0.5)
    with pytest.raises(TypeError, match="device must be a str or None"):
        llmem.Encoder(session, device=0)


@pytest.mark.parametrize("kwargs,message", [
    ({"frames": 17}, "17 frames; at most 16"),
    ({"bitstream_buffers": 9}, "9 bitstream buffers; at most 8"),
    ({"size": (640, 0)}, "size 640x0: give both sides or neither"),
    ({"coded_size": (1008, 0)}, "coded size 1008x0: give both sides or neither"),
])
def test_encoder_refuses_bad_choices(session, kwargs, message):
    with pytest.raises(llmem.Error) as e:
        llmem.Encoder(session, **kwargs)
    assert e.value.errno == errno.EINVAL and message in e.value.strerror
    assert session._children["codecs"] == 0


def test_encoder_of_a_missing_node(session, tmp_path):
    with pytest.raises(llmem.Error) as e:
        llmem.Encoder(session, device=str(tmp_path / "video0"))
    assert e.value.errno == errno.ENOENT

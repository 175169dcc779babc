# SPDX-License-Identifier: MIT
"""vicodec's FWHT encoder and decoder in the guest, through the package: frames
pushed three ways come back as packets, their file decodes back to the same
pictures by iterating a Decoder, and the objects refuse misuse.  Needs the
test drivers (suite drivers: tests/python/meson.build runs it on its own)."""
import errno
import gc

import numpy as np
import pytest

import llmem

WIDTH, HEIGHT = 640, 480
LUMAS = (40, 120, 200)


def yuyv(luma):
    """A flat grey YUYV frame: FWHT gives it back within a step or two."""
    frame = np.empty((HEIGHT, WIDTH, 2), np.uint8)
    frame[..., 0] = luma
    frame[..., 1] = 128
    return frame


@pytest.fixture
def stream(session, tmp_path):
    """Three frames encoded into a file of FWHT frames: its path."""
    path = tmp_path / "three.fwht"
    with llmem.Encoder(session, format="YUYV", size=(WIDTH, HEIGHT)) as enc:
        info = enc.info
        assert (info.driver, info.format, info.coded_format) == ("vicodec", "YUYV", "FWHT")
        assert (info.width, info.height, info.num_planes) == (WIDTH, HEIGHT, 1)
        assert (info.coded_width, info.coded_height) == (WIDTH, HEIGHT)
        assert info.sizeimage == (WIDTH * HEIGHT * 2,)
        with path.open("wb") as out:
            # The encoder's own frame, filled through its view.
            frame = enc.get_frame()
            view = np.asarray(frame.data)
            view[:] = yuyv(LUMAS[0]).ravel()
            del view
            enc.push(frame, id=10)
            with enc.pull() as packet:
                assert packet.id == 10 and packet.keyframe and packet.size > 44
                out.write(bytes(packet))
            # Bytes, copied into a frame of the encoder's.
            packet = enc.encode(yuyv(LUMAS[1]).tobytes(), id=11)
            assert packet.id == 11
            out.write(bytes(packet))
            enc.push(memoryview(yuyv(LUMAS[2]).ravel()), 12)
            enc.drain()
            ids = []
            for packet in enc:
                ids.append(packet.id)
                out.write(bytes(packet))
            assert ids == [12]
            packet = None
            with pytest.raises(llmem.Error) as e:
                enc.push(yuyv(LUMAS[0]).tobytes())
            assert e.value.errno == errno.EINVAL and "drained" in e.value.strerror
        gc.collect()
    return path


def test_frames_decode_back_to_what_was_encoded(session, stream):
    with llmem.Bitstream.open_fwht(stream) as bs:
        assert (bs.format, bs.width, bs.height, bs.units) == ("FWHT", WIDTH, HEIGHT, 3)
        dec = llmem.Decoder(session, bs, convert=True)
        try:
            with pytest.raises(llmem.Error) as e:
                bs.close()
            assert e.value.errno == errno.EBUSY
            assert dec.info.format == ""
            dec.start()
            info = dec.info
            assert (info.driver, info.width, info.height) == ("vicodec", WIDTH, HEIGHT)
            assert info.format == "YUYV" and info.source_changes == 1
            ids = []
            previous = None
            for frame in dec:
                if previous is not None:
                    assert previous.released
                ids.append(frame.id)
                assert frame.generation == 1 and not frame.corrupted
                data = np.asarray(frame.data).reshape(HEIGHT, WIDTH, 2)
                luma = LUMAS[len(ids) - 1]
                assert abs(float(data[..., 0].mean()) - luma) < 3
                assert abs(float(data[..., 1].mean()) - 128) < 3
                rgba = np.asarray(frame.rgba)
                assert rgba.shape == (HEIGHT, WIDTH, 4) and not rgba.flags.writeable
                assert abs(int(rgba[HEIGHT // 2, WIDTH // 2, 1]) -
                           (luma - 16) * 255 / 219) < 4
                # Views live: the decoder cannot close under them.
                with pytest.raises(llmem.Error) as e:
                    dec.close()
                assert e.value.errno == errno.EBUSY
                data = rgba = None
                previous = frame
            assert ids == [0, 1, 2]
            assert dec.info.frames_decoded == 3
            with pytest.raises(llmem.Error) as e:
                dec.next()
            assert e.value.errno == errno.ENODATA
        finally:
            data = rgba = frame = previous = None
            gc.collect()
            dec.close()


def test_a_viewed_frame_stays_until_its_views_go(session, stream):
    with llmem.Bitstream.open_fwht(stream) as bs:
        dec = llmem.Decoder(session, bs, frames=3)
        try:
            first = dec.next()
            kept = np.asarray(first.data)
            second = dec.next()
            assert first.released and not second.released
            with pytest.raises(ValueError, match="released"):
                first.data
            # The decoder still holds the first frame: its bytes are intact.
            assert abs(float(kept[0::2].mean()) - LUMAS[0]) < 3
            assert dec.views == 1
            kept = None
            gc.collect()
            assert dec.views == 0
            third = dec.next()
            assert third.id == 2
        finally:
            kept = first = second = third = None
            gc.collect()
            dec.close()


def test_encoder_refuses_misuse(session):
    with llmem.Encoder(session, size=(WIDTH, HEIGHT), frames=2) as enc:
        with pytest.raises(ValueError, match="bytes"):
            enc.push(b"\0" * 10)
        with pytest.raises(TypeError, match="EncoderFrame, a camera Frame or bytes-like"):
            enc.push(3)
        with pytest.raises(llmem.Error) as e:
            enc.pull(0)
        assert e.value.errno == errno.EAGAIN
        assert list(enc) == []
        frames = [enc.get_frame(), enc.get_frame()]
        with pytest.raises(llmem.Error) as e:
            enc.get_frame()
        assert e.value.errno == errno.EBUSY
        view = frames[0].data
        with pytest.raises(llmem.Error) as e:
            enc.close()
        assert e.value.errno == errno.EBUSY
        view = None
        with llmem.Encoder(session, size=(WIDTH, HEIGHT)) as other:
            with pytest.raises(ValueError, match="another encoder"):
                other.push(frames[0])
        frames = None
    assert enc.closed
    with pytest.raises(ValueError, match="encoder is closed"):
        enc.pull()


def test_copy_path_takes_bytes_only(session):
    with llmem.Encoder(session, size=(WIDTH, HEIGHT), copy=True) as enc:
        with pytest.raises(llmem.Error) as e:
            enc.get_frame()
        assert e.value.errno == errno.EINVAL
        with enc.encode(yuyv(LUMAS[1]).tobytes(), id=5) as packet:
            assert packet.id == 5 and packet.keyframe
        assert packet.released


def test_encoder_codes_a_picture_in_larger_frames(session):
    """vicodec codes 1000x562 YUYV in 1008x568 frames: the picture is its crop
    rectangle, the frames its coded size; frames laid out at another coded
    size are refused."""
    with llmem.Encoder(session, format="YUYV", size=(1000, 562)) as enc:
        info = enc.info
        assert (info.width, info.height) == (1000, 562)
        assert (info.coded_width, info.coded_height) == (1008, 568)
        assert info.bytesperline == (2016,) and info.sizeimage == (2016 * 568,)
        with enc.encode(bytes(2016 * 568), id=1) as packet:
            header = bytes(packet)[:44]
            assert (int.from_bytes(header[12:16], "big"),
                    int.from_bytes(header[16:20], "big")) == (1000, 562)
    with llmem.Encoder(session, format="YUYV", size=(1000, 562),
                       coded_size=(1008, 568)) as enc:
        assert (enc.info.coded_width, enc.info.coded_height) == (1008, 568)
    with pytest.raises(llmem.Error) as e:
        llmem.Encoder(session, format="YUYV", size=(1000, 562), coded_size=(1000, 562))
    assert e.value.errno == errno.EINVAL and "1008x568" in e.value.strerror

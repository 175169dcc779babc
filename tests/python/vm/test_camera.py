# SPDX-License-Identifier: MIT
"""The camera in the guest: vivid's frames arrive as numpy arrays, without
a copy, equal to the PNGs the C tool `llmem camera` writes of the same
picture; frames release themselves; misuse raises."""
import ctypes
import errno
import fcntl
import gc
import os
import pathlib
import runpy
import struct
import subprocess
import sys

import numpy as np
import pytest

import llmem
import png_rgba

VIDIOC_QUERYCAP = 0x80685600  # _IOR('V', 0, struct v4l2_capability)
V4L2_CAP_VIDEO_CAPTURE = 0x00000001
V4L2_CAP_STREAMING = 0x04000000


def vivid_capture_path(nth=0):
    """The nth vivid node that captures single-planar video with streaming."""
    for i in range(64):
        path = f"/dev/video{i}"
        try:
            fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            cap = fcntl.ioctl(fd, VIDIOC_QUERYCAP, bytes(104))
        finally:
            os.close(fd)
        driver = cap[:16].split(b"\0")[0]
        device_caps, = struct.unpack_from("I", cap, 88)
        want = V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING
        if driver == b"vivid" and device_caps & want == want:
            if nth == 0:
                return path
            nth -= 1
    pytest.fail("no vivid capture node: the VM rig loads vivid")


@pytest.fixture(scope="module")
def vivid():
    """vivid's first capture node, its clock and counters off: a static picture."""
    path = vivid_capture_path(0)
    subprocess.run(["v4l2-ctl", "-d", path, "-c", "osd_text_mode=2"], check=True)
    return path


_C_TOOL_FRAMES = {}


def c_tool_frame(vivid, fmt, tmp_path):
    """`llmem camera`'s second frame of vivid's picture in fmt, once per run."""
    if fmt in _C_TOOL_FRAMES:
        return _C_TOOL_FRAMES[fmt]
    out = tmp_path / f"c-{fmt}"
    proc = subprocess.run([os.environ["LLMEM_TOOL"], "camera", "--device", vivid,
                           "--format", fmt, "--size", "640x480", "--frames", "2",
                           "--input", "0", "--out", str(out)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    _C_TOOL_FRAMES[fmt] = png_rgba.read(out / "frame-001.png")
    return _C_TOOL_FRAMES[fmt]


@pytest.mark.parametrize("fmt", ["YUYV", "NV12"])
def test_frames_equal_the_c_tools_png(session, vivid, tmp_path, fmt):
    ref = c_tool_frame(vivid, fmt, tmp_path)
    assert ref.shape == (480, 640, 4)
    cam = llmem.Camera(session, vivid, format=fmt, size=(640, 480), input=0)
    rgba = None
    try:
        info = cam.info
        assert (info.format, info.width, info.height, info.driver) == (fmt, 640, 480, "vivid")
        assert info.backend != llmem.Backend.VULKAN and info.buffers >= 2
        assert info.rgba_layout.pitches[0] >= 640 * 4
        for frame in cam.frames(3):
            with frame:
                rgba = np.asarray(frame.rgba)
                assert rgba.shape == (480, 640, 4) and rgba.dtype == np.uint8
                assert not rgba.flags.writeable
                assert frame.bytes_copied == 0 and not frame.corrupted
                assert np.array_equal(rgba, ref), \
                    f"{np.count_nonzero(rgba != ref)} bytes differ from the C tool's frame"
                rgba = None
            assert frame.released
    finally:
        # A failure's traceback keeps this frame: drop the views it holds.
        rgba = None
        gc.collect()
        cam.close()


def test_frames_release_themselves(session, vivid):
    cam = llmem.Camera(session, vivid, size=(640, 480), input=0, buffers=4)
    view = arr = capsule = None
    try:
        assert not cam.streaming
        first = cam.next()
        assert cam.streaming and not first.released
        second = cam.next()
        assert first.released and not second.released
        with pytest.raises(ValueError, match="released"):
            first.rgba
        view = np.asarray(second.rgba)
        arr = np.from_dlpack(second.rgba)
        assert arr.shape == (480, 640, 4) and cam.views == 2
        capsule = second.rgba.__dlpack__(max_version=(1, 0))
        api = ctypes.pythonapi
        api.PyCapsule_GetPointer.restype = ctypes.c_void_p
        api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
        p = api.PyCapsule_GetPointer(capsule, b"dltensor_versioned")
        # DLManagedTensorVersioned: version, manager_ctx, deleter, then flags.
        assert ctypes.c_uint64.from_address(p + 24).value & 1  # DLPACK_FLAG_BITMASK_READ_ONLY
        capsule = None
        with pytest.raises(llmem.Error) as e:
            cam.close()
        assert e.value.errno == errno.EBUSY and "view" in e.value.strerror
        view = arr = None
        gc.collect()
        assert cam.views == 0
        d = cam.export_buffer(second.index)
        assert isinstance(d, llmem.DmaBuf) and d.size >= 640 * 480 * 2
        os.close(d.fd)
        count = 0
        for frame in cam:
            count += 1
            if count == 3:
                break
        assert second.released and not frame.released
        assert repr(second) == f"<llmem.Frame {second.sequence} (released)>"
        assert repr(frame) == f"<llmem.Frame {frame.sequence} in camera buffer {frame.index}>"
        cam.stop()
        assert frame.released and not cam.streaming
        # Streaming again; vivid counts frames from 0 once more.
        with cam.next(timeout=10) as f:
            assert not f.corrupted and f.index < cam.info.buffers
        assert f.released
    finally:
        view = arr = capsule = None
        gc.collect()
        cam.close()
    assert cam.closed
    with pytest.raises(ValueError, match="camera is closed"):
        cam.next()


def test_camera_errors(session, vivid):
    with pytest.raises(llmem.Error) as e:
        llmem.Camera(session, "/dev/no-such-camera")
    assert e.value.errno == errno.ENOENT and "/dev/no-such-camera" in e.value.strerror
    with pytest.raises(llmem.Error) as e:
        llmem.Camera(session, vivid, format="ABCD")
    assert e.value.errno == errno.EINVAL
    with pytest.raises(ValueError):
        llmem.Camera(session, vivid, size=(640,))
    with pytest.raises(TypeError):
        llmem.Camera(session, vivid, size="640x480")
    with pytest.raises(ValueError, match="unknown encoding 'bt2020': one of 'bt601', 'bt709'"):
        llmem.Camera(session, vivid, encoding="bt2020")
    with pytest.raises(ValueError):
        llmem.Camera(session, vivid, format="YUV")
    with pytest.raises(TypeError):
        llmem.Camera("session")
    with llmem.Camera(session, vivid, input=0, timeout=10) as cam:
        with pytest.raises(llmem.Error) as e:
            session.close()
        assert e.value.errno == errno.EBUSY
        with pytest.raises(ValueError):
            cam.next(timeout=-1)
    assert session._children["cameras"] == 0


def test_first_capable_node_by_default(session):
    with llmem.Camera(session, input=0) as cam:
        assert cam.info.driver == "vivid" and cam.info.device.startswith("/dev/video")
        assert (cam.info.width, cam.info.height, cam.info.format) == (640, 480, "YUYV")
        with cam.next(timeout=30) as f:
            assert memoryview(f.rgba).shape == (480, 640, 4)


def test_the_example_captures_into_numpy(vivid, tmp_path, capsys, monkeypatch):
    """examples/camera_numpy.py, run as a script: its last frame equals the C tool's."""
    ref = c_tool_frame(vivid, "YUYV", tmp_path)
    example = pathlib.Path(__file__).parents[3] / "examples" / "camera_numpy.py"
    out = tmp_path / "last.ppm"
    monkeypatch.setattr(sys, "argv", [str(example), "--device", vivid, "--frames", "2",
                                      "--out", str(out)])
    runpy.run_path(str(example), run_name="__main__")
    printed = capsys.readouterr().out
    assert "(vivid): YUYV 640x480" in printed and printed.count(" 0 bytes copied") == 2
    header, pixels = out.read_bytes().split(b"\n", 1)
    assert header == b"P6 640 480 255"
    rgb = np.frombuffer(pixels, np.uint8).reshape(480, 640, 3)
    assert np.array_equal(rgb, ref[..., :3])

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Camera frames into numpy without a copy.

The camera writes each frame into a page of device memory, the device
converts it to RGBA where it lies, and frame.rgba is that RGBA buffer as a
numpy array: no byte is copied between the camera and the array.  The
statistics are computed on the views; the last frame is saved as a PPM.

    python3 examples/camera_numpy.py --device /dev/video0 --frames 10 --out last.ppm

Whatever fails (no camera, a bad option, a file that cannot be written)
ends the program with one line on stderr: exit 2 for the command line, 1
for the rest.
"""
import argparse
import sys
import time

NAME = "camera_numpy.py"

try:
    import numpy as np

    import llmem
except ImportError as e:
    HOW = {"numpy": "apt install python3-numpy",
           "llmem": "build it and set PYTHONPATH=build/python, as README says"}
    sys.exit(f"{NAME}: no module {e.name} ({HOW.get(e.name, 'install it')})")


def frame_size(text):
    """WIDTHxHEIGHT, each side from 1."""
    sides = text.split("x")
    if len(sides) != 2 or not all(s.isdigit() and int(s) > 0 for s in sides):
        raise argparse.ArgumentTypeError(f"'{text}': expected WIDTHxHEIGHT, such as 640x480")
    return int(sides[0]), int(sides[1])


def frame_count(text):
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"'{text}': expected a whole number from 1")
    return int(text)


class Parser(argparse.ArgumentParser):
    def error(self, message):
        """One line, as every other failure: argparse's usage is --help's."""
        print(f"{NAME}: {message} ({NAME} --help)", file=sys.stderr)
        sys.exit(2)


def main():
    ap = Parser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", help="V4L2 capture node (default: the first that imports DMA-BUFs)")
    ap.add_argument("--format", default="YUYV", choices=["YUYV", "NV12"])
    ap.add_argument("--size", default=(640, 480), type=frame_size,
                    help="WIDTHxHEIGHT (640x480)")
    ap.add_argument("--frames", type=frame_count, default=10)
    ap.add_argument("--out", default="last.ppm", help="the last frame, as a binary PPM")
    args = ap.parse_args()
    width, height = args.size

    with llmem.Session() as session, llmem.Camera(session, args.device, format=args.format,
                                                   size=(width, height)) as camera:
        info = camera.info
        print(f"{info.device} ({info.driver}): {info.format} {info.width}x{info.height}, "
              f"{info.buffers} buffers, pages from {info.backend.label}")
        last = None
        start = time.monotonic()
        for n, frame in enumerate(camera.frames(args.frames)):
            with frame:
                rgba = np.asarray(frame.rgba)      # a view of the device's RGBA buffer
                mean = rgba[..., :3].mean(axis=(0, 1))
                print(f"frame {frame.sequence}: mean RGB {mean.round(1)}, "
                      f"{frame.bytes_copied} bytes copied, conversion "
                      f"{frame.convert_ns / 1e6:.1f} ms")
                if n == args.frames - 1:
                    last = np.array(rgba[..., :3])  # the one copy: what outlives the frame
                del rgba                            # views must go before the camera closes
        elapsed = time.monotonic() - start
    print(f"{args.frames} frames in {elapsed:.2f} s")
    if last is not None:
        with open(args.out, "wb") as f:
            f.write(b"P6 %d %d 255\n" % (last.shape[1], last.shape[0]))
            f.write(last.tobytes())
        print(f"last frame in {args.out}")


if __name__ == "__main__":
    try:
        main()
    except OSError as e:  # llmem.Error is one: the message names the call and the errno
        where = f"{e.filename}: " if e.filename else ""
        sys.exit(f"{NAME}: {where}{e.strerror or e}")
    except KeyboardInterrupt:
        sys.exit(130)

#!/usr/bin/env python3
"""RGB frames as tensors (docs/python.md, "RGB tensors"):

- Frame.array: one array over the whole picture, (H, W, C) for packed RGB
  formats and (C, H, W) for planar ones, in the frame's memory;
- GstAvhw.stack() and GstAvhw.batches(): (N, 3, H, W) or (N, H, W, 3)
  PyTorch tensors in R, G, B order whatever the format, split where the
  size changes, errors raised by name (not a timeout);
- with AVHW_TEST_EMULATED_CUDA=1 (tests/python/meson.build runs it on the
  CUDA emulation of tests/check/cuda-emulation, where device pointers are
  host memory): avhwconvertscale's RGBP frames in AVHWCUDA memory give the
  same picture through Frame.array's __cuda_array_interface__ as through
  avhwdownload.
Exits 77 (Meson: SKIP) without PyTorch or numpy, or, emulated, without a
cuda device.
"""
import ctypes
import os
import sys
import unittest

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstAvhw", "1.0")
from gi.repository import Gst, GstAvhw  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "pylib"))
from pipelines import pull_all  # noqa: E402

Gst.init(None)
EMULATED = os.environ.get("AVHW_TEST_EMULATED_CUDA") == "1"
# Odd sizes: rows padded in memory, planes not a power of two apart
W, H = 37, 21
SRC = "videotestsrc num-buffers={n} pattern=smpte ! video/x-raw,format={f},"\
      "width={w},height={h} ! appsink name=s sync=false"
PACKED = ["RGB", "BGR", "RGBA", "BGRA", "RGBx", "BGRx", "ARGB", "ABGR"]
PLANAR = ["RGBP", "BGRP", "GBR"]


def samples(fmt, n=3, w=W, h=H):
    return pull_all(SRC.format(n=n, f=fmt, w=w, h=h))


class Tensors(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import torch
        cls.torch = torch
        # The reference: videotestsrc's own RGB, (N, 3, H, W)
        ref = []
        for s in samples("RGB"):
            with GstAvhw.Frame(s) as f:
                ref.append(torch.from_numpy(
                    __import__("numpy").asarray(f.planes[0]).copy()))
        cls.ref = torch.stack(ref).permute(0, 3, 1, 2)

    def test_array_shapes(self):
        import numpy as np
        for fmt in PACKED + PLANAR:
            with self.subTest(fmt=fmt):
                with GstAvhw.Frame(samples(fmt, 1)[0]) as f:
                    a = np.asarray(f.array)
                    c = len(f.channels)
                    want = (c, H, W) if fmt in PLANAR else (H, W, c)
                    self.assertEqual(a.shape, want)
                    self.assertEqual(len(f.channels), 4 if "A" in fmt or
                                     "x" in fmt else 3)
                    # the same memory as the planes, no copy
                    self.assertTrue(np.shares_memory(a, np.asarray(
                        f.planes[0])))
                    if fmt in PLANAR:
                        for i, p in enumerate(f.planes):
                            self.assertTrue((a[i] == np.asarray(p)).all())
                    d = np.from_dlpack(f.array)
                    self.assertEqual(d.shape, want)
                    self.assertTrue((d == a).all())

    def test_yuv_has_no_array(self):
        with GstAvhw.Frame(samples("NV12", 1)[0]) as f:
            with self.assertRaises(ValueError) as cm:
                f.array
            self.assertIn("NV12", str(cm.exception))
        with self.assertRaises(ValueError) as cm:
            list(GstAvhw.batches(samples("I420", 2), 2))
        self.assertIn("avhwconvertscale", str(cm.exception))

    def test_every_format_gives_the_same_rgb(self):
        for fmt in PACKED + PLANAR:
            with self.subTest(fmt=fmt):
                got = GstAvhw.stack(samples(fmt))
                self.assertEqual(got.dtype, self.torch.uint8)
                self.assertEqual(tuple(got.shape), (3, 3, H, W))
                self.assertTrue(self.torch.equal(got, self.ref))
                hwc = GstAvhw.stack(samples(fmt), layout="HWC")
                self.assertEqual(tuple(hwc.shape), (3, H, W, 3))
                self.assertTrue(self.torch.equal(hwc.permute(0, 3, 1, 2),
                                                 self.ref))

    def test_batches_split_at_the_end_and_at_size_changes(self):
        seq = samples("BGRx", 5) + samples("RGBP", 2, 16, 10)
        got = list(GstAvhw.batches(seq, 2))
        self.assertEqual([tuple(b.shape) for b in got],
                         [(2, 3, H, W), (2, 3, H, W), (1, 3, H, W),
                          (2, 3, 10, 16)])
        self.assertTrue(self.torch.equal(got[0], self.ref[:2]))
        with self.assertRaises(ValueError):
            GstAvhw.stack(seq)
        with self.assertRaises(ValueError):
            list(GstAvhw.batches(seq, 2, layout="NCHW"))

    def test_batches_from_an_appsink(self):
        p = Gst.parse_launch(SRC.format(n=7, f="RGBA", w=W, h=H))
        p.set_state(Gst.State.PLAYING)
        got = list(GstAvhw.batches(p.get_by_name("s"), 3))
        p.set_state(Gst.State.NULL)
        self.assertEqual([b.shape[0] for b in got], [3, 3, 1])
        self.assertTrue(self.torch.equal(got[0], self.ref))

    def test_a_pipeline_error_is_raised_by_name(self):
        p = Gst.parse_launch("filesrc location=/nonexistent/clip.mp4 ! "
                             "parsebin ! avhwdec ! appsink name=s")
        p.set_state(Gst.State.PLAYING)
        with self.assertRaises(RuntimeError) as cm:
            list(GstAvhw.batches(p.get_by_name("s"), 4, timeout=30))
        p.set_state(Gst.State.NULL)
        self.assertIn("filesrc", str(cm.exception))

    @unittest.skipUnless(EMULATED, "needs AVHW_TEST_EMULATED_CUDA=1")
    def test_cuda_rgbp_in_place(self):
        conv = ("videotestsrc num-buffers=2 pattern=smpte ! "
                "video/x-raw,format=NV12,width=64,height=48 ! "
                "avhwupload device=cuda ! avhwconvertscale ! "
                f"video/x-raw(memory:AVHWCUDA),format={{f}},width={W},"
                f"height={H} ! {{tail}}appsink name=s sync=false")
        for fmt in ("RGBP", "BGRx"):
            with self.subTest(fmt=fmt):
                dev = pull_all(conv.format(f=fmt, tail=""))
                down = GstAvhw.stack(pull_all(conv.format(
                    f=fmt, tail="avhwdownload ! ")))
                backend, index = GstAvhw.buffer_get_backend(
                    dev[0].get_buffer())
                self.assertEqual(backend.get_name(), "cuda")
                self.assertEqual(index, 0)
                with GstAvhw.Frame(dev[0]) as f:
                    ai = f.array.__cuda_array_interface__
                    # emulated device memory is host memory: read it
                    shape, strides = ai["shape"], ai["strides"]
                    n = (shape[0] - 1) * strides[0] + \
                        (shape[1] - 1) * strides[1] + shape[2] * strides[2]
                    raw = self.torch.frombuffer(bytearray(ctypes.string_at(
                        ai["data"][0], n)), dtype=self.torch.uint8)
                    img = raw.as_strided(shape, strides)
                    chw = img if fmt == "RGBP" else img.permute(2, 0, 1)[:3]
                    if fmt == "BGRx":
                        chw = chw.flip(0)
                    self.assertTrue(self.torch.equal(chw, down[0]))


def main():
    try:
        import numpy  # noqa: F401
        import torch  # noqa: F401
    except ImportError as e:
        print(f"SKIP: {e.name} is not installed (python3-numpy, python3-torch)")
        return 77
    if EMULATED:
        try:
            GstAvhw.Device.open("cuda", None)
        except Exception as e:
            print(f"SKIP: no emulated cuda device: {e}")
            return 77
    r = unittest.main(verbosity=2, exit=False).result
    return 0 if r.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Python users' scenarios through PyGObject (see docs/python.md):

- the reuse scenario: a decode pipeline built, run and torn down in a loop
  opens the device once (and once per pipeline with reuse off);
- frames from an appsink in system memory as numpy arrays without a copy,
  and through DLPack;
- frames from an appsink in device memory: handles and pitches, and a clear
  error where no array interface exists (non-CUDA device memory).
Exits 77 (Meson: SKIP) without a device, x264enc or numpy.
"""
import hashlib
import os
import sys
import unittest

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstAvhw", "1.0")
from gi.repository import GLib, Gst, GstAvhw  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "pylib"))
from pipelines import pull_all, run  # noqa: E402

Gst.init(None)

CLIP_PIPE = ("videotestsrc num-buffers=6 pattern=ball ! "
             "video/x-raw,format=I420,width=96,"
             "height=64 ! x264enc speed-preset=ultrafast bframes=2 ! h264parse"
             " ! video/x-h264,stream-format=byte-stream ! filesink location={}")


class Frames(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = GLib.dir_make_tmp("avhw-py-XXXXXX")
        cls.clip = f"{cls.tmp}/clip.h264"
        run(CLIP_PIPE.format(cls.clip))

    def test_reuse_scenario(self):
        desc = (f"filesrc location={self.clip} ! h264parse ! avhwdec ! "
                "avhwdownload ! fakesink")
        GstAvhw.cache_clear()
        _, _, before, _ = GstAvhw.cache_get_stats()
        _, hits0, misses0 = GstAvhw.cache_get_decoder_stats()
        for _ in range(5):
            run(desc)
        _, _, after, _ = GstAvhw.cache_get_stats()
        self.assertEqual(after - before, 1, "reuse on: one device context")
        # the decoder too: in software, and in hardware since H.264 streams
        # end by a join that keeps FFmpeg's hwaccel (docs/architecture.md,
        # "Decoders kept across pipelines")
        kept, hits, misses = GstAvhw.cache_get_decoder_stats()
        self.assertEqual((hits - hits0, misses - misses0), (4, 1),
                         "decoder cache: hits and misses over five pipelines")
        self.assertEqual(kept, 1)

        GstAvhw.cache_set_reuse(False)
        try:
            for _ in range(3):
                run(desc)
            _, _, after2, _ = GstAvhw.cache_get_stats()
            self.assertEqual(after2 - after, 3, "reuse off: one per pipeline")
        finally:
            GstAvhw.cache_set_reuse(True)

    def test_lanes_for_pipelines_at_once(self):
        desc = (f"filesrc location={self.clip} ! h264parse ! avhwdec name=d "
                "! avhwdownload ! fakesink")
        GstAvhw.cache_clear()
        GstAvhw.cache_set_lanes(2)
        pipes = []
        try:
            _, _, before, _ = GstAvhw.cache_get_stats()
            for _ in range(2):
                p = Gst.parse_launch(desc)
                p.set_state(Gst.State.PLAYING)
                msg = p.get_bus().timed_pop_filtered(
                    30 * Gst.SECOND, Gst.MessageType.EOS
                    | Gst.MessageType.ERROR)
                self.assertEqual(msg.type, Gst.MessageType.EOS)
                pipes.append(p)
            devs = [p.get_by_name("d").props.active_device for p in pipes]
            self.assertNotEqual(devs[0].get_context_id(),
                                devs[1].get_context_id(),
                                "two pipelines at once, one context")
            self.assertEqual(devs[0].get_name(), devs[1].get_name())
            _, _, after, _ = GstAvhw.cache_get_stats()
            self.assertEqual(after - before, 2)
        finally:
            for p in pipes:
                p.set_state(Gst.State.NULL)
            GstAvhw.cache_set_lanes(0)
        self.assertEqual(GstAvhw.cache_get_lanes(), 0)

    def test_system_memory_as_numpy_without_copy(self):
        import numpy as np
        # videoconvert: a hardware decoder's frames are NV12 (the same
        # pixels; I420 is what avdec_h264 gives)
        samples = pull_all(f"filesrc location={self.clip} ! h264parse ! "
                           "avhwdec ! avhwdownload ! videoconvert ! "
                           "video/x-raw,format=I420 ! appsink name=s sync=false")
        ref = pull_all(f"filesrc location={self.clip} ! h264parse ! "
                       "avdec_h264 ! video/x-raw,format=I420 ! "
                       "appsink name=s sync=false")
        self.assertEqual(len(samples), 6)
        self.assertEqual(len(samples), len(ref))
        for s, r in zip(samples, ref):
            with GstAvhw.Frame(s) as f, GstAvhw.Frame(r) as g:
                self.assertEqual(f.format, "I420")
                y = np.asarray(f.planes[0])
                self.assertEqual(y.shape, (64, 96))
                u = np.asarray(f.planes[1])
                self.assertEqual(u.shape, (32, 48))
                # a view of the mapped buffer, not a copy
                ok, info = s.get_buffer().map(Gst.MapFlags.READ)
                whole = np.frombuffer(info.data, dtype=np.uint8)
                self.assertTrue(np.shares_memory(y, whole))
                s.get_buffer().unmap(info)
                # same pixels as FFmpeg's software decoder through gst-libav
                for a, b in zip(f.planes, g.planes):
                    self.assertTrue((np.asarray(a) == np.asarray(b)).all())
                # DLPack, also without a copy
                d = np.from_dlpack(f.planes[0])
                self.assertTrue(np.shares_memory(d, y))
                self.assertTrue((d == y).all())
                del d

    def test_device_memory_handles(self):
        dev = GstAvhw.Device.open("auto", None)
        feature = dev.get_backend().get_caps_feature()
        samples = pull_all(f"filesrc location={self.clip} ! h264parse ! "
                           f"avhwdec ! video/x-raw({feature}) ! "
                           "appsink name=s sync=false")
        self.assertEqual(len(samples), 6)
        buf = samples[0].get_buffer()
        self.assertEqual(GstAvhw.buffer_get_device(buf).get_context_id(),
                         dev.get_context_id())
        self.assertGreater(GstAvhw.buffer_get_n_planes(buf), 0)
        self.assertNotEqual(GstAvhw.buffer_get_plane_handle(buf, 0), 0)
        if dev.get_backend().get_name() != "cuda":
            with self.assertRaises(TypeError) as cm:
                GstAvhw.Frame(samples[0])
            self.assertIn("avhwdownload", str(cm.exception))
            self.assertIn(dev.get_name(), str(cm.exception))


if __name__ == "__main__":
    try:
        GstAvhw.Device.open("auto", None)
    except GLib.Error as e:
        print(f"SKIP: no avhw device: {e.message}")
        sys.exit(77)
    if Gst.ElementFactory.find("x264enc") is None:
        print("SKIP: x264enc (gst-plugins-ugly) is needed to make a clip")
        sys.exit(77)
    try:
        import numpy  # noqa: F401
    except ImportError:
        print("SKIP: numpy is not installed")
        sys.exit(77)
    unittest.main(verbosity=2)

#!/usr/bin/env python3
"""Decoded frames on a CUDA device, out of a real pipeline, into PyTorch and
CuPy without a copy (issue 18):

- `avhwdec device=cuda:N ! avhwconvertscale ! appsink` in device memory:
  torch.from_dlpack and cupy.asarray share the frame's device pointer, and
  the pixels equal the `... ! avhwdownload` path's, frame for frame;
- the decoder's own output the same way, at full size;
- the reuse loop: pipelines built and torn down in a loop open the device
  once, and PyTorch works on the same device meanwhile;
- RGBP from cuda-convert as (N, 3, H, W) batches on the GPU, equal to the
  avhwdownload path's;
- GStreamer's own CUDA memory (nvcodec's cudaupload), in place, where
  nvcodec has cudaupload.

Runs where PyTorch sees a CUDA GPU and avhw opens a cuda device; exits 77
naming what is missing elsewhere. AVHW_GPU_CLIP picks the clip (default: a
generated 320x240 H.264 clip); AVHW_GPU_DEVICE the device (default cuda:0).
"""
import os
import sys
import unittest

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstAvhw", "1.0")
from gi.repository import GLib, Gst, GstAvhw  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "pylib"))
from pipelines import each_frame, run  # noqa: E402

Gst.init(None)
DEVICE = os.environ.get("AVHW_GPU_DEVICE", "cuda:0")
CLIP_PIPE = ("videotestsrc num-buffers=30 pattern=ball ! "
             "video/x-raw,format=I420,width=320,height=240 ! "
             "x264enc speed-preset=ultrafast bframes=2 ! h264parse ! "
             "mp4mux ! filesink location={}")


class GpuFrames(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import torch
        cls.torch = torch
        cls.tmp = GLib.dir_make_tmp("avhw-gpu-XXXXXX")
        cls.clip = os.environ.get("AVHW_GPU_CLIP")
        if not cls.clip:
            cls.clip = f"{cls.tmp}/clip.mp4"
            run(CLIP_PIPE.format(cls.clip))
        dev = GstAvhw.Device.open(DEVICE, None)
        cls.feature = dev.get_backend().get_caps_feature()
        cls.cuda_index = dev.get_index()
        head = (f"filesrc location={cls.clip} ! parsebin ! "
                f"avhwdec device={DEVICE} fallback=false")
        cls.scaled = (f"{head} ! avhwconvertscale ! video/x-raw({cls.feature}),"
                      "width=224,height=224,format=NV12")
        cls.full = f"{head} ! video/x-raw({cls.feature}),format=NV12"

    def host_planes(self, desc):
        """The NV12 planes of every frame of desc ! avhwdownload, as numpy."""
        import numpy as np
        out = []

        def keep(s):
            with GstAvhw.Frame(s) as f:
                out.append([np.array(p) for p in f.planes])
        each_frame(f"{desc} ! avhwdownload ! video/x-raw,format=NV12 ! "
                   "appsink name=s sync=false", keep)
        return out

    def check_zero_copy(self, desc, cupy_too):
        torch = self.torch
        ref = self.host_planes(desc)
        got = []

        def take(s):
            buf = s.get_buffer()
            f = GstAvhw.Frame(s)
            self.assertEqual(f.format, "NV12")
            planes = []
            for i, p in enumerate(f.planes):
                t = torch.from_dlpack(p)
                self.assertTrue(t.is_cuda)
                self.assertEqual(t.device.index, self.cuda_index)
                # the tensor is the frame: same device pointer, no copy
                self.assertEqual(t.data_ptr(),
                                 GstAvhw.buffer_get_plane_handle(buf, i))
                planes.append(t.cpu().numpy())
                if cupy_too:
                    import cupy
                    c = cupy.asarray(p)
                    self.assertEqual(c.data.ptr, t.data_ptr())
                    self.assertTrue((cupy.asnumpy(c) == planes[-1]).all())
            got.append(planes)
            f.close()

        n = each_frame(f"{desc} ! appsink name=s sync=false", take)
        self.assertGreater(n, 0)
        self.assertEqual(len(got), len(ref), "frame count, device vs host")
        for k, (a, b) in enumerate(zip(got, ref)):
            for i, (pa, pb) in enumerate(zip(a, b)):
                self.assertEqual(pa.shape, pb.shape)
                self.assertTrue((pa == pb).all(),
                                f"frame {k} plane {i}: device != avhwdownload")
        return got

    def test_convertscale_frames_to_torch_and_cupy(self):
        try:
            import cupy  # noqa: F401
            cupy_too = True
        except ImportError:
            cupy_too = False
        got = self.check_zero_copy(self.scaled, cupy_too)
        self.assertEqual(got[0][0].shape, (224, 224))
        self.assertEqual(got[0][1].shape, (112, 112, 2))
        if not cupy_too:
            print("note: CuPy is not installed; checked PyTorch only")

    def test_decoder_frames_to_torch(self):
        self.check_zero_copy(self.full, False)

    def test_rgbp_batches_on_the_gpu(self):
        torch = self.torch
        rgbp = self.scaled.replace("format=NV12", "format=RGBP")
        p = Gst.parse_launch(f"{rgbp} ! appsink name=s sync=false")
        p.set_state(Gst.State.PLAYING)
        on_gpu = torch.cat(list(GstAvhw.batches(p.get_by_name("s"), 8)))
        p.set_state(Gst.State.NULL)
        self.assertTrue(on_gpu.is_cuda)
        self.assertEqual(tuple(on_gpu.shape[1:]), (3, 224, 224))
        p = Gst.parse_launch(f"{rgbp} ! avhwdownload ! appsink name=s "
                             "sync=false")
        p.set_state(Gst.State.PLAYING)
        on_host = torch.cat(list(GstAvhw.batches(p.get_by_name("s"), 8)))
        p.set_state(Gst.State.NULL)
        self.assertTrue(torch.equal(on_gpu.cpu(), on_host))

    @unittest.skipIf(Gst.ElementFactory.find("cudaupload") is None,
                     "nvcodec's cudaupload is not registered")
    def test_gstreamer_cuda_memory_in_place(self):
        torch = self.torch
        src = ("videotestsrc num-buffers=4 pattern=smpte ! "
               "video/x-raw,format=RGBA,width=96,height=54")
        ref = GstAvhw.stack(each_frame_samples(
            f"{src} ! appsink name=s sync=false"))
        samples = each_frame_samples(
            f"{src} ! cudaupload ! video/x-raw(memory:CUDAMemory) ! "
            "appsink name=s sync=false")
        backend, index = GstAvhw.buffer_get_backend(samples[0].get_buffer())
        self.assertEqual(backend.get_name(), "cuda")
        with GstAvhw.Frame(samples[0]) as f:
            t = torch.from_dlpack(f.array)
            self.assertTrue(t.is_cuda)
            self.assertEqual(t.data_ptr(), GstAvhw.buffer_get_plane_handle(
                samples[0].get_buffer(), 0))
        got = GstAvhw.stack(samples)
        self.assertTrue(got.is_cuda)
        self.assertTrue(torch.equal(got.cpu(), ref))

    def test_reuse_loop_keeps_one_device(self):
        torch = self.torch
        GstAvhw.cache_clear()
        _, _, before, _ = GstAvhw.cache_get_stats()
        sums = []

        def take(s):
            with GstAvhw.Frame(s) as f:
                sums.append(int(torch.from_dlpack(f.planes[0]).sum()))
        for _ in range(5):
            each_frame(f"{self.scaled} ! appsink name=s sync=false", take)
        _, _, after, _ = GstAvhw.cache_get_stats()
        self.assertEqual(after - before, 1, "five pipelines, one device open")
        n = len(sums) // 5
        self.assertEqual(sums[:n] * 5, sums, "the same frames every time")
        torch.cuda.synchronize()


def each_frame_samples(desc):
    out = []
    each_frame(desc, out.append)
    return out


def skip_reason():
    try:
        import torch
    except ImportError:
        return "PyTorch is not installed"
    if not torch.cuda.is_available():
        return "PyTorch sees no CUDA GPU"
    try:
        dev = GstAvhw.Device.open(DEVICE, None)
    except GLib.Error as e:
        return f"no avhw device {DEVICE}: {e.message}"
    if dev.get_backend().get_name() != "cuda":
        return f"{DEVICE} is not a cuda device"
    for f in ("x264enc", "mp4mux", "avhwconvertscale"):
        if Gst.ElementFactory.find(f) is None and not (
                f != "avhwconvertscale" and os.environ.get("AVHW_GPU_CLIP")):
            return f"no {f} element"
    return None


if __name__ == "__main__":
    why = skip_reason()
    if why:
        print(f"SKIP: {why}")
        sys.exit(77)
    unittest.main(verbosity=2)

# gst-avhw: PyGObject overrides for GstAvhw
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Frames out of an appsink, to numpy / CuPy / PyTorch without a copy.

    frame = GstAvhw.Frame(sample)       # keeps the buffer alive
    y, uv = frame.planes                # NV12: (H, W) and (H/2, W/2, 2)
    numpy.asarray(y)                    # system memory: a view, no copy
    cupy.asarray(y)                     # cuda memory: __cuda_array_interface__
    torch.from_dlpack(y)                # both: DLPack
    frame.close()                       # or `with GstAvhw.Frame(s) as frame:`

    frame.array                         # RGB formats: the whole picture,
                                        # (H, W, C) packed, (C, H, W) planar
    for batch in GstAvhw.batches(appsink, 32):   # (N, 3, H, W) uint8 RGB
        ...                                      # torch tensors

System-memory frames are mapped for reading while the Frame is open. Device
frames are used in place: the handle is FFmpeg's device pointer for the
`cuda` backend (frames come out of the decoder complete). Other backends'
device memory (vulkan images, OpenCL buffers) has no array interface; map it
to system memory with avhwdownload first, or use gst_avhw_buffer_*().
GStreamer's own CUDA memory (memory:CUDAMemory, after cudaupload or
cudaconvertscale) is used in place as the cuda backend's is.
"""
import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstVideo", "1.0")
from gi.repository import Gst, GstVideo  # noqa: E402

from ..module import get_introspection_module  # noqa: E402

GstAvhw = get_introspection_module("GstAvhw")
__all__ = ["Frame", "Plane", "batches", "samples", "stack"]

# format -> (numpy typestr, bits, [(row subsampling, column subsampling,
# channels) per plane])
_LAYOUTS = {
    "NV12": ("|u1", 8, [(1, 1, 1), (2, 2, 2)]),
    "NV16": ("|u1", 8, [(1, 1, 1), (1, 2, 2)]),
    "NV24": ("|u1", 8, [(1, 1, 1), (1, 1, 2)]),
    "P010_10LE": ("<u2", 16, [(1, 1, 1), (2, 2, 2)]),
    "P016_LE": ("<u2", 16, [(1, 1, 1), (2, 2, 2)]),
    "I420": ("|u1", 8, [(1, 1, 1), (2, 2, 1), (2, 2, 1)]),
    "Y42B": ("|u1", 8, [(1, 1, 1), (1, 2, 1), (1, 2, 1)]),
    "Y444": ("|u1", 8, [(1, 1, 1)] * 3),
    "I420_10LE": ("<u2", 16, [(1, 1, 1), (2, 2, 1), (2, 2, 1)]),
    "I422_10LE": ("<u2", 16, [(1, 1, 1), (1, 2, 1), (1, 2, 1)]),
    "Y444_10LE": ("<u2", 16, [(1, 1, 1)] * 3),
    "GRAY8": ("|u1", 8, [(1, 1, 1)]),
    "GRAY16_LE": ("<u2", 16, [(1, 1, 1)]),
    "RGBA": ("|u1", 8, [(1, 1, 4)]), "BGRA": ("|u1", 8, [(1, 1, 4)]),
    "RGBx": ("|u1", 8, [(1, 1, 4)]), "BGRx": ("|u1", 8, [(1, 1, 4)]),
    "ARGB": ("|u1", 8, [(1, 1, 4)]), "ABGR": ("|u1", 8, [(1, 1, 4)]),
    "RGB": ("|u1", 8, [(1, 1, 3)]), "BGR": ("|u1", 8, [(1, 1, 3)]),
    "RGBP": ("|u1", 8, [(1, 1, 1)] * 3), "BGRP": ("|u1", 8, [(1, 1, 1)] * 3),
    "GBR": ("|u1", 8, [(1, 1, 1)] * 3),
}

# RGB formats: their channels in memory order ("x": padding) and whether
# each channel is a plane of its own
_CHANNELS = {
    "RGBA": ("RGBA", False), "BGRA": ("BGRA", False),
    "RGBx": ("RGBx", False), "BGRx": ("BGRx", False),
    "ARGB": ("ARGB", False), "ABGR": ("ABGR", False),
    "RGB": ("RGB", False), "BGR": ("BGR", False),
    "RGBP": ("RGB", True), "BGRP": ("BGR", True), "GBR": ("GBR", True),
}

from ._gstavhw_arrays import Plane  # noqa: E402
from ._gstavhw_batch import batches, samples, stack  # noqa: E402


class Frame:
    """A decoded frame from a Gst.Sample, as planes other libraries wrap.

    System memory is mapped for reading until close(); device memory of the
    cuda backend is exposed in place. The Frame (and every tensor made from
    its planes) keeps the buffer, and so the device surface, alive.
    """

    def __init__(self, sample):
        caps = sample.get_caps()
        self.buffer = sample.get_buffer()
        self.info = GstVideo.VideoInfo.new_from_caps(caps)
        fmt = self.info.finfo.name if hasattr(self.info.finfo, "name") \
            else GstVideo.VideoFormat.to_string(self.info.finfo.format)
        self.format = fmt
        if fmt not in _LAYOUTS:
            raise ValueError(f"format {fmt} has no plane layout here")
        typestr, bits, layout = _LAYOUTS[fmt]
        self.width, self.height = self.info.width, self.info.height
        self.channels, self._planar = _CHANNELS.get(fmt, (None, False))
        # avhw device memory, or GStreamer's own of a backend's kind
        self.device = GstAvhw.buffer_get_device(self.buffer)
        backend, index = GstAvhw.buffer_get_backend(self.buffer)
        self._map = None
        self._open = True
        planes = []
        if backend is not None:
            if backend.get_name() != "cuda":
                where = self.device.get_name() if self.device else \
                    backend.get_name()
                raise TypeError(
                    f"frame is in {where} memory: array "
                    "interfaces exist for cuda frames and system memory; "
                    "put avhwdownload before the appsink")
            self.device_index = index
            for i, (sr, sc, ch) in enumerate(layout):
                ptr = GstAvhw.buffer_get_plane_handle(self.buffer, i)
                pitch = GstAvhw.buffer_get_plane_stride(self.buffer, i)
                planes.append(self._plane(ptr, pitch, sr, sc, ch, typestr,
                                          bits, True))
        else:
            self.device_index = 0
            ok, self._map = self.buffer.map(Gst.MapFlags.READ)
            if not ok:
                raise RuntimeError("could not map the buffer")
            base = _address_of(self._map.data)
            meta = GstVideo.buffer_get_video_meta(self.buffer)
            offsets = meta.offset if meta else self.info.offset
            pitches = meta.stride if meta else self.info.stride
            for i, (sr, sc, ch) in enumerate(layout):
                planes.append(self._plane(base + offsets[i], pitches[i], sr,
                                          sc, ch, typestr, bits, False))
        self.planes = planes

    @property
    def array(self):
        """The whole picture of an RGB frame as one array, channels in the
        format's order (self.channels, e.g. "BGRA"): (H, W, C) for packed
        formats, (C, H, W) for planar ones (RGBP, BGRP, GBR). Same memory
        as self.planes, and the same interfaces (numpy, CuPy, DLPack)."""
        if self.channels is None:
            raise ValueError(f"{self.format} is not an RGB format: its "
                             "planes differ in size, use frame.planes")
        if not self._planar:
            return self.planes[0]
        p = self.planes
        gap = p[1].ptr - p[0].ptr
        if p[2].ptr - p[1].ptr != gap or \
                any(q.strides != p[0].strides for q in p):
            raise ValueError(f"the {self.format} planes do not lie evenly "
                             "spaced in one block: use frame.planes")
        return Plane(self, p[0].ptr, (3,) + p[0].shape,
                     (gap,) + p[0].strides, p[0].typestr, p[0]._bits,
                     p[0]._cuda)

    def _plane(self, ptr, pitch, sr, sc, ch, typestr, bits, cuda):
        rows = -(-self.height // sr)
        cols = -(-self.width // sc)
        item = bits // 8
        if ch == 1:
            shape, strides = (rows, cols), (pitch, item)
        else:
            shape, strides = (rows, cols, ch), (pitch, ch * item, item)
        return Plane(self, ptr, shape, strides, typestr, bits, cuda)

    def _check_open(self):
        if not self._open:
            raise ValueError("frame is closed")

    def close(self):
        """Unmaps system memory; arrays made from it must not be used after."""
        if self._map is not None:
            self.buffer.unmap(self._map)
            self._map = None
        self._open = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _address_of(view):  # noqa: E302
    """Address of a (read-only) memoryview's first byte, without a copy."""
    import numpy
    return numpy.frombuffer(view, dtype=numpy.uint8).ctypes.data


Frame.__module__ = "gi.repository.GstAvhw"
batches.__module__ = "gi.repository.GstAvhw"
stack.__module__ = "gi.repository.GstAvhw"
samples.__module__ = "gi.repository.GstAvhw"
Plane.__module__ = "gi.repository.GstAvhw"

# gst-avhw: batches of RGB frames as PyTorch tensors (GstAvhw.batches,
# GstAvhw.stack). PyTorch is imported when first used, not by the overrides.
# SPDX-License-Identifier: LGPL-2.1-or-later
import collections

__all__ = ["batches", "samples", "stack"]

# CUDA frames whose copy into a batch may still be running: each is kept
# (its surface stays out of the decoder's pool) until its copy is done.
_IN_FLIGHT = 4


def _torch():
    try:
        import torch
    except ImportError as e:
        raise ImportError("GstAvhw.batches() and GstAvhw.stack() need "
                          "PyTorch (python3-torch, or pip's torch)") from e
    return torch


def _frame(item):
    from gi.repository import GstAvhw
    return item if isinstance(item, GstAvhw.Frame) else GstAvhw.Frame(item)


def _chw(torch, frame):
    """(C, H, W) view of the frame's picture, channels in memory order."""
    if frame.channels is None:
        raise ValueError(
            f"{frame.format} frames are not RGB: put avhwconvertscale ! "
            "video/x-raw(...),format=RGBP (or RGBA, BGRx...) before the "
            "appsink")
    t = torch.from_dlpack(frame.array)
    return t if frame._planar else t.permute(2, 0, 1)


def _copy_rgb(frame, src, dst):
    """dst (3, H, W) view <- src's R, G and B channels."""
    idx = [frame.channels.index(c) for c in "RGB"]
    if idx == list(range(idx[0], idx[0] + 3)):
        dst.copy_(src[idx[0]:idx[0] + 3])
    else:
        for c in range(3):
            dst[c].copy_(src[idx[c]])


def _empty(torch, n, src, layout):
    _, h, w = src.shape
    shape = (n, 3, h, w) if layout == "CHW" else (n, h, w, 3)
    return torch.empty(shape, dtype=src.dtype, device=src.device)


def _slot(out, i, layout):
    return out[i] if layout == "CHW" else out[i].permute(2, 0, 1)


def _check_layout(layout):
    if layout not in ("CHW", "HWC"):
        raise ValueError(f"layout {layout!r}: CHW or HWC")


def stack(frames, layout="CHW"):
    """One tensor of RGB frames of one size: (N, 3, H, W) for layout "CHW",
    (N, H, W, 3) for "HWC", in R, G, B order whatever the frames' format
    (alpha and padding dropped), of the frames' type (uint8 for 8-bit) and
    on their device (cuda frames stay on the GPU). @frames are
    GstAvhw.Frame or Gst.Sample; the tensor is a copy, so they can go
    after it returns."""
    torch = _torch()
    _check_layout(layout)
    items = list(frames)
    frames = [_frame(f) for f in items]
    if not frames:
        raise ValueError("no frames to stack")
    try:
        return _stack(torch, frames, layout)
    finally:
        for item, f in zip(items, frames):
            if f is not item:       # made here from a sample: unmap it
                f.close()


def _stack(torch, frames, layout):
    out = None
    for i, f in enumerate(frames):
        src = _chw(torch, f)
        if out is None:
            out = _empty(torch, len(frames), src, layout)
        elif src.shape[1:] != (out.shape[2:] if layout == "CHW"
                               else out.shape[1:3]):
            raise ValueError(f"frame {i} is {src.shape[2]}x{src.shape[1]}, "
                             "unlike the first: stack frames of one size")
        _copy_rgb(f, src, _slot(out, i, layout))
    if out.is_cuda:
        torch.cuda.current_stream(out.device).synchronize()
    return out


def batches(source, batch_size, layout="CHW", timeout=10.0):
    """Yields tensors of up to @batch_size RGB frames, as stack() makes
    them, from @source: an appsink (pulled until end of stream) or an
    iterable of Gst.Sample or GstAvhw.Frame. A batch ends early at the end
    of the stream and where the frame size changes. Each frame goes back
    to its pool as soon as its copy is done. From an appsink, an error
    message on its pipeline's bus is taken off the bus and raised as
    RuntimeError; TimeoutError when it gives no frame for @timeout seconds
    and is not at its end."""
    torch = _torch()
    _check_layout(layout)
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    in_flight = collections.deque()
    out, n = None, 0

    def release(keep):
        while len(in_flight) > keep:
            event, f = in_flight.popleft()
            if event is not None:
                event.synchronize()
            f.close()

    try:
        for item in (samples(source, timeout)
                     if _is_element(source) else source):
            f = _frame(item)
            src = _chw(torch, f)
            size = src.shape[1:]
            if out is not None and size != (out.shape[2:] if layout == "CHW"
                                            else out.shape[1:3]):
                release(0)
                yield out[:n]
                out, n = None, 0
            if out is None:
                out = _empty(torch, batch_size, src, layout)
            _copy_rgb(f, src, _slot(out, n, layout))
            del src
            event = None
            if out.is_cuda:
                event = torch.cuda.Event()
                event.record(torch.cuda.current_stream(out.device))
            in_flight.append((event, f))
            release(_IN_FLIGHT if out.is_cuda else 0)
            n += 1
            if n == batch_size:
                yield out
                out, n = None, 0
        release(0)
        if n:
            yield out[:n]
    finally:
        release(0)


def _is_element(source):
    from gi.repository import Gst
    return isinstance(source, Gst.Element)


def samples(appsink, timeout=10.0):
    """Yields the samples of @appsink until its end of stream. An error
    message on its pipeline's bus is taken off the bus and raised as
    RuntimeError naming the element that posted it; TimeoutError when no
    sample comes for @timeout seconds and the stream has not ended."""
    from gi.repository import Gst
    source = appsink
    top = source
    while top.get_parent() is not None:
        top = top.get_parent()
    bus = top.get_bus()
    waited, step = 0.0, 0.1
    while True:
        sample = source.emit("try-pull-sample", int(step * Gst.SECOND))
        if sample is not None:
            waited = 0.0
            yield sample
            continue
        if source.get_property("eos"):
            return
        # An error stops the stream before its end: say it, not a timeout.
        msg = bus.pop_filtered(Gst.MessageType.ERROR) if bus else None
        if msg is not None:
            err, dbg = msg.parse_error()
            raise RuntimeError(f"{msg.src.get_name()}: {err.message}")
        waited += step
        if waited >= timeout:
            raise TimeoutError(f"{source.get_name()}: no frame in "
                               f"{timeout} s and not at the end of stream")

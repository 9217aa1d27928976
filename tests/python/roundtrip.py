"""Helpers for the muxer round trips (test_encode_mux.py, test_transcode.py):
run a pipeline that writes one file per muxer, then read each file back
with GStreamer and with FFmpeg (ffprobe, ffmpeg) and compare the decoded
frames, their count and their PTS with the input's.

Every frame is I420 at WIDTH x HEIGHT, compared as packed bytes.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

WIDTH, HEIGHT, FPS = 320, 240, 30
FRAME_SIZE = WIDTH * HEIGHT * 3 // 2
RAW_CAPS = f"video/x-raw,format=I420,width={WIDTH},height={HEIGHT}"
# 1 ms: the coarsest container timescale here (Matroska's default)
PTS_TOLERANCE = Gst.MSECOND
# x264 and x265 at their default CRF on videotestsrc's moving bars give
# 35-50 dB; a neighbouring frame (the bars move 8 pixels a frame) gives
# under 20 dB, so the bound catches a frame lost, repeated or reordered.
MIN_PSNR = 28.0

# muxer element, file extension
MUXERS = [("mp4mux", "mp4"), ("matroskamux", "mkv"), ("mpegtsmux", "ts")]
# AV1: no mpegtsmux in GStreamer 1.22
AV1_MUXERS = MUXERS[:2]
PARSERS = {"h264": "h264parse", "h265": "h265parse", "av1": "av1parse"}


def missing_elements(names):
    return [n for n in names if Gst.ElementFactory.find(n) is None]


def missing(elements):
    """What a round trip needs and lacks: @elements, the muxers and their
    demuxers, ffprobe, ffmpeg, numpy."""
    what = missing_elements(
        elements + ["parsebin", "decodebin", "qtdemux", "matroskademux",
                    "tsdemux"] + [m for m, _ in MUXERS])
    what += [t for t in ("ffprobe", "ffmpeg") if shutil.which(t) is None]
    try:
        import numpy  # noqa: F401
    except ImportError:
        what.append("numpy")
    return what


def main(gone):
    """Runs the tests of __main__, or exits 77 (Meson: SKIP) naming what
    is missing. Also 77 when every test that ran skipped itself: nothing
    was tested, which is not a pass."""
    if gone:
        print("SKIP: missing " + ", ".join(gone))
        sys.exit(77)
    result = unittest.main(verbosity=2, exit=False).result
    if not result.wasSuccessful():
        sys.exit(1)
    if result.testsRun == len(result.skipped):
        print("SKIP: every test skipped itself")
        sys.exit(77)
    sys.exit(0)


def mux_branches(tee, codec, stem, muxers=MUXERS):
    """gst-launch text: one queue ! parser ! muxer ! filesink per muxer
    after the tee named @tee; the files are @stem.EXT."""
    return " ".join(
        f"{tee}. ! queue ! {PARSERS[codec]} ! {mux} ! "
        f"filesink location={stem}.{ext}" for mux, ext in muxers)


def tmpdir(test_class, prefix):
    """A folder for @test_class's files, removed after its tests unless
    AVHW_KEEP_FILES is set."""
    path = tempfile.mkdtemp(prefix=prefix)
    if not os.environ.get("AVHW_KEEP_FILES"):
        test_class.addClassCleanup(shutil.rmtree, path, True)
    return path


def run(desc, timeout=120, on_pipeline=None):
    """Runs @desc to EOS; raises on an error message. @on_pipeline(p) is
    called before it starts (to add probes)."""
    p = Gst.parse_launch(desc)
    if on_pipeline:
        on_pipeline(p)
    p.set_state(Gst.State.PLAYING)
    msg = p.get_bus().timed_pop_filtered(
        timeout * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    p.set_state(Gst.State.NULL)
    assert msg is not None, f"{desc}: no EOS in {timeout} s"
    if msg.type == Gst.MessageType.ERROR:
        err, dbg = msg.parse_error()
        raise AssertionError(f"{err.message} | {dbg}")


def record_frames(pad, frames):
    """Appends (running-time PTS, I420 bytes) of each buffer on @pad."""
    def probe(pad, info):
        buf = info.get_buffer()
        seg = pad.get_sticky_event(Gst.EventType.SEGMENT, 0).parse_segment()
        rt = seg.to_running_time(Gst.Format.TIME, buf.pts)
        frames.append((rt, buf.extract_dup(0, FRAME_SIZE)))
        return Gst.PadProbeReturn.OK
    pad.add_probe(Gst.PadProbeType.BUFFER, probe)


def gst_decode(path):
    """Every frame of @path as GStreamer demuxes and decodes it:
    [(running-time PTS, bytes)], key-frame PTS (from the demuxer)."""
    frames, keys = [], []
    desc = (f"filesrc location={path} ! parsebin name=pb ! decodebin ! "
            f"videoconvert ! {RAW_CAPS} ! fakesink name=sink")

    def on_pipeline(p):
        record_frames(p.get_by_name("sink").get_static_pad("sink"), frames)

        def pad_added(pb, pad):
            def probe(pad, info):
                buf = info.get_buffer()
                if not buf.has_flags(Gst.BufferFlags.DELTA_UNIT):
                    seg = pad.get_sticky_event(Gst.EventType.SEGMENT,
                                               0).parse_segment()
                    keys.append(seg.to_running_time(Gst.Format.TIME, buf.pts))
                return Gst.PadProbeReturn.OK
            pad.add_probe(Gst.PadProbeType.BUFFER, probe)
        p.get_by_name("pb").connect("pad-added", pad_added)
    run(desc, on_pipeline=on_pipeline)
    return frames, keys


def ffmpeg_decode(path):
    """Every frame of @path as FFmpeg decodes it: [(PTS ns, bytes)], and
    the PTS of its key packets; frames in presentation order."""
    out = subprocess.run(
        ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
         "frame=pts_time,best_effort_timestamp_time", "-of", "csv=p=0",
         path], check=True, capture_output=True, text=True).stdout
    pts = []
    for line in out.split():
        t = [v for v in line.split(",") if v not in ("", "N/A")]
        pts.append(round(float(t[0]) * Gst.SECOND) if t else None)
    out = subprocess.run(
        ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
         "packet=pts_time,flags", "-of", "csv=p=0", path],
        check=True, capture_output=True, text=True).stdout
    keys = sorted(round(float(t) * Gst.SECOND) for t, f in
                  (line.split(",")[:2] for line in out.split()) if "K" in f)
    raw = subprocess.run(
        ["ffmpeg", "-v", "error", "-i", path, "-map", "0:v:0", "-fps_mode",
         "passthrough", "-f", "rawvideo", "-pix_fmt", "yuv420p", "pipe:"],
        check=True, capture_output=True).stdout
    data = [raw[i:i + FRAME_SIZE] for i in range(0, len(raw), FRAME_SIZE)]
    assert len(data) == len(pts), \
        f"{path}: ffmpeg decodes {len(data)} frames, ffprobe {len(pts)}"
    return list(zip(pts, data)), keys


def ffprobe_extradata(path):
    """The codec configuration FFmpeg reads from @path, as bytes."""
    out = subprocess.run(
        ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_streams",
         "-show_data", path], check=True, capture_output=True,
        text=True).stdout
    data, inside = b"", False
    for line in out.splitlines():
        if line.startswith("extradata="):
            inside = True
        elif inside and line[:8].isalnum() and line[8:10] == ": ":
            data += bytes.fromhex(line[10:50].replace(" ", ""))
        elif inside:
            break
    return data


def psnr(a, b):
    import numpy
    x = numpy.frombuffer(a, numpy.uint8).astype(numpy.int32)
    y = numpy.frombuffer(b, numpy.uint8).astype(numpy.int32)
    mse = float(numpy.mean((x - y) ** 2))
    return 99.0 if mse == 0 else 10 * numpy.log10(255 * 255 / mse)


def compare(test, name, src, out):
    """@out (decoded) against @src (input), both [(pts, bytes)]: as many
    frames, the same PTS from the first one's, frame i like frame i."""
    test.assertEqual(len(out), len(src),
                     f"{name}: {len(out)} frames decoded, {len(src)} in")
    worst = 99.0
    for i, ((ps, fs), (po, fo)) in enumerate(zip(src, out)):
        test.assertIsNotNone(po, f"{name}: frame {i} has no PTS")
        want, got = ps - src[0][0], po - out[0][0]
        test.assertLessEqual(abs(got - want), PTS_TOLERANCE,
                             f"{name}: frame {i} at {got} ns, not {want}")
        p = psnr(fs, fo)
        test.assertGreaterEqual(p, MIN_PSNR, f"{name}: frame {i}: PSNR "
                                f"{p:.1f} dB < {MIN_PSNR}")
        worst = min(worst, p)
    return worst


def check_file(test, path, src, key_at=None):
    """Both decoders on @path against @src; @key_at: an input frame that
    must be a key frame in the file. Returns a line for the log."""
    line = [os.path.basename(path)]
    for who, decode in (("gst", gst_decode), ("ffmpeg", ffmpeg_decode)):
        frames, keys = decode(path)
        worst = compare(test, f"{path} ({who})", src, frames)
        if key_at is not None:
            want = src[key_at][0] - src[0][0]
            test.assertTrue(
                any(abs(k - keys[0] - want) <= PTS_TOLERANCE
                    for k in keys[1:]),
                f"{path} ({who}): frame {key_at} is not a key frame")
        line.append(f"{who} {len(frames)}/{len(src)} frames, "
                    f"{len(keys)} key, PSNR >= {worst:.1f} dB")
    return ": ".join(line[:2]) + "; " + "; ".join(line[2:])

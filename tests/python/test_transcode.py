#!/usr/bin/env python3
"""A full transcode through the muxers, frame-exact (issue 16):

    filesrc ! parsebin ! avhwdec device=D ! avhwenc device=D ! tee
        ! mp4mux / matroskamux / mpegtsmux

Each file is demuxed and decoded by GStreamer and FFmpeg: as many frames
as the clip has, at its PTS, each like the clip's frame (PSNR).

Environment (all optional):
  AVHW_TRANSCODE_DEVICES   comma-separated devices, default vulkan,opencl
                           (the CPU backends of CI); on an NVIDIA GPU:
                           cuda:0 (NVDEC in, the fallback encoder out where
                           the GPU has no NVENC)
  AVHW_TRANSCODE_FALLBACK  avhwenc's fallback, default libx264,libx265
  AVHW_TRANSCODE_CODEC     h264 (default) or h265: the output codec
  AVHW_TRANSCODE_CLIP      an H.264/H.265 file to transcode instead of the
                           clips made here (x264enc, B-frames, 40 frames)
  AVHW_KEEP_FILES          keep the files written (their folder is printed
                           in a failure's message)
A device in the list that is absent is reported as skipped by name; exits
77 (Meson: SKIP), naming what is missing, when none is present or an
element, numpy, ffprobe or ffmpeg is missing.
"""
import os
import unittest

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstAvhw", "1.0")
from gi.repository import GLib, Gst, GstAvhw  # noqa: E402

import roundtrip as rt  # noqa: E402

Gst.init(None)

DEVICES = os.environ.get("AVHW_TRANSCODE_DEVICES", "vulkan,opencl").split(",")
FALLBACK = os.environ.get("AVHW_TRANSCODE_FALLBACK", "libx264,libx265")
CODEC = os.environ.get("AVHW_TRANSCODE_CODEC", "h264")
CLIP = os.environ.get("AVHW_TRANSCODE_CLIP")
# The same stream in MP4 (qtdemux starts its PTS after the B-frame delay)
# and Matroska (matroskademux starts them at 0, with no room for DTS
# below).
CLIP_PIPE = (f"videotestsrc num-buffers=40 pattern=smpte horizontal-speed=8 "
             f"! {rt.RAW_CAPS},framerate={rt.FPS}/1 ! x264enc bframes=3 "
             "speed-preset=veryfast ! h264parse ! tee name=t "
             "t. ! queue ! mp4mux ! filesink location={0}/clip.mp4 "
             "t. ! queue ! matroskamux ! filesink location={0}/clip.mkv")


def present(device):
    try:
        GstAvhw.Device.open(device, None)
        return True
    except GLib.Error as e:
        print(f"  {device}: skipped ({e.message})")
        return False


class Transcode(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = rt.tmpdir(cls, "avhw-transcode-")
        cls.clips = [CLIP]
        if not CLIP:
            rt.run(CLIP_PIPE.format(cls.tmp))
            cls.clips = [f"{cls.tmp}/clip.mp4", f"{cls.tmp}/clip.mkv"]
        cls.devices = [d for d in DEVICES if present(d)]

    def transcode(self, clip):
        src, _ = rt.gst_decode(clip)
        for dev in self.devices:
            stem = f"{clip}-{dev.replace(':', '-')}"
            rt.run(f"filesrc location={clip} ! parsebin ! avhwdec "
                   f"device={dev} ! avhwenc device={dev} fallback={FALLBACK} "
                   f"b-frames=3 ! video/x-{CODEC} ! tee name=t "
                   f"{rt.mux_branches('t', CODEC, stem)}")
            for _, ext in rt.MUXERS:
                print(f"  {dev}: " + rt.check_file(
                    self, f"{stem}.{ext}", src), flush=True)

    def test_transcode(self):
        for clip in self.clips:
            with self.subTest(clip=os.path.basename(clip)):
                self.transcode(clip)


def missing():
    what = rt.missing(["avhwdec", "avhwenc", rt.PARSERS[CODEC]] +
                      ([] if CLIP else ["x264enc"]))
    if not any(present(d) for d in DEVICES):
        what.append("every device of " + ",".join(DEVICES))
    return what


if __name__ == "__main__":
    rt.main(missing())

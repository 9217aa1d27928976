#!/usr/bin/env python3
"""avhwenc's output through real muxers and back (issue 16).

For H.264 and H.265, B-frames on and off, frames uploaded to an avhw device
and encoded by the software fallback (libx264, libx265): the stream goes
into mp4mux, matroskamux and mpegtsmux; each file is demuxed and decoded by
GStreamer and by FFmpeg, which must give every input frame, at the input's
PTS, each like its input frame (PSNR). Also a live source with
tune=zerolatency, and a key unit forced mid-stream. And as a user links it,
like x264enc, with no parser: avhwenc straight into mp4mux, qtmux,
matroskamux, mpegtsmux and splitmuxsink, alone, behind a queue and behind
a tee, for H.264, H.265 and AV1 (issue 28: it refused every muxer).

AVHW_TEST_DEVICE picks the device (default: the first present of vulkan,
opencl, cuda, vaapi). Exits 77 (Meson: SKIP), naming what is missing,
without a device, an encoder, a muxer, a decoder, numpy or ffprobe.
"""
import os
import unittest

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstAvhw", "1.0")
gi.require_version("GstVideo", "1.0")
from gi.repository import GLib, Gst, GstAvhw, GstVideo  # noqa: E402

import roundtrip as rt  # noqa: E402

Gst.init(None)

N_FRAMES = 30
FORCE_AT = 17
BACKENDS = ["vulkan", "opencl", "cuda", "vaapi"]
DEVICE = None
# codec -> fallback encoder
ENCODERS = {"h264": "libx264", "h265": "libx265"}
# AV1 encoders FFmpeg may have, fastest settings; the first present is used
AV1_ENCODERS = [("libsvtav1", "preset=12"), ("libaom-av1", "cpu-used=8"),
                ("librav1e", "speed=10")]


def find_device():
    names = [os.environ["AVHW_TEST_DEVICE"]] if os.environ.get(
        "AVHW_TEST_DEVICE") else BACKENDS
    for name in names:
        try:
            return GstAvhw.Device.open(name, None).get_name()
        except GLib.Error:
            continue
    return None


def source(live=False):
    return (f"videotestsrc num-buffers={N_FRAMES} pattern=smpte "
            f"horizontal-speed=8 is-live={str(live).lower()} ! "
            f"{rt.RAW_CAPS},framerate={rt.FPS}/1 ! identity name=in")


class EncodeMux(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = rt.tmpdir(cls, "avhw-mux-")

    def encode(self, codec, props, name, live=False, force_at=None,
               muxers=rt.MUXERS, encoder=None):
        """Encodes into one file per muxer; returns the input frames."""
        stem = f"{self.tmp}/{name}"
        encoder = encoder or ENCODERS[codec]
        desc = (f"{source(live)} ! avhwupload device={DEVICE} ! avhwenc "
                f"name=enc device={DEVICE} fallback={encoder} {props} ! "
                f"video/x-{codec} ! tee name=t "
                f"{rt.mux_branches('t', codec, stem, muxers)}")
        src = []

        def on_pipeline(p):
            pad = p.get_by_name("in").get_static_pad("src")
            rt.record_frames(pad, src)
            if force_at is None:
                return
            enc_src = p.get_by_name("enc").get_static_pad("src")

            def force(pad, info):
                if len(src) == force_at + 1:
                    enc_src.send_event(
                        GstVideo.video_event_new_upstream_force_key_unit(
                            Gst.CLOCK_TIME_NONE, True, 1))
                return Gst.PadProbeReturn.OK
            pad.add_probe(Gst.PadProbeType.BUFFER, force)
        rt.run(desc, on_pipeline=on_pipeline)
        self.assertEqual(len(src), N_FRAMES)
        return stem, src

    def round_trip(self, codec, props, name, **kw):
        stem, src = self.encode(codec, props, name, **kw)
        for _, ext in rt.MUXERS:
            print(f"  {props}: " + rt.check_file(
                self, f"{stem}.{ext}", src, kw.get("force_at")), flush=True)

    def test_h264_b_frames(self):
        self.round_trip("h264", "b-frames=3", "h264-b")

    def test_h264_no_b_frames(self):
        self.round_trip("h264", "b-frames=0", "h264-nob")

    def test_h265_b_frames(self):
        self.round_trip("h265", "b-frames=3", "h265-b")

    def test_h265_no_b_frames(self):
        self.round_trip("h265", "b-frames=0", "h265-nob")

    def test_h264_live_zerolatency(self):
        self.round_trip("h264", "tune=zerolatency", "h264-live", live=True)

    def test_av1_codec_data(self):
        """AV1: av1C (marker, version 1, 8-bit 4:2:0, the sequence header
        OBU) in the caps, which matroskamux stores as CodecPrivate; every
        frame back from MP4 and Matroska."""
        have = [(e, o) for e, o in AV1_ENCODERS
                if avhwenc_takes(f"fallback={e}")]
        gone = rt.missing_elements(["av1parse"])
        if not have or gone:
            self.skipTest("missing " + (", ".join(gone) or "an FFmpeg AV1 "
                          "encoder (" + ", ".join(e for e, _ in AV1_ENCODERS)
                          + ")"))
        enc, opts = have[0]
        stem, src = self.encode("av1", f"options={opts}", "av1",
                                muxers=rt.AV1_MUXERS, encoder=enc)
        av1c = rt.ffprobe_extradata(f"{stem}.mkv")
        print(f"  {enc}: av1C {av1c.hex()}")
        self.assertGreater(len(av1c), 4, "no av1C in the Matroska file")
        self.assertEqual(av1c[0], 0x81, "av1C marker/version")
        self.assertEqual(av1c[2] & 0x7c, 0x0c, "not 8-bit 4:2:0")
        self.assertEqual((av1c[4] >> 3) & 0xf, 1, "no sequence header OBU")
        for _, ext in rt.AV1_MUXERS:
            print(f"  {enc}: " + rt.check_file(self, f"{stem}.{ext}", src),
                  flush=True)

    def direct(self, codec, encoder, opts=""):
        """avhwenc straight into each muxer: alone, behind a queue, behind
        a tee and a queue; every file read back."""
        muxers = rt.AV1_MUXERS if codec == "av1" else rt.MUXERS
        muxers = [(m, e, f"{m} ! filesink location=") for m, e in muxers]
        muxers += [("qtmux", "mov", "qtmux ! filesink location="),
                   ("splitmuxsink", "mp4", "splitmuxsink location=")]
        for mux, ext, sink in muxers:
            for link in ("", "queue ! ", "tee ! queue ! "):
                tag = f"{codec}-{mux}-{len(link)}"
                path = f"{self.tmp}/{tag}.{ext}"
                desc = (f"{source()} ! avhwupload device={DEVICE} ! avhwenc "
                        f"device={DEVICE} fallback={encoder} {opts} ! {link}"
                        f"{sink}{path}")
                src = []
                rt.run(desc, on_pipeline=lambda p: rt.record_frames(
                    p.get_by_name("in").get_static_pad("src"), src))
                self.assertEqual(len(src), N_FRAMES)
                print(f"  {link}{mux}: " + rt.check_file(self, path, src),
                      flush=True)

    def test_h264_no_parser(self):
        self.direct("h264", ENCODERS["h264"], "b-frames=3")

    def test_h265_no_parser(self):
        self.direct("h265", ENCODERS["h265"], "b-frames=3")

    def test_av1_no_parser(self):
        have = [(e, o) for e, o in AV1_ENCODERS
                if avhwenc_takes(f"fallback={e}")]
        if not have:
            self.skipTest("missing an FFmpeg AV1 encoder (" +
                          ", ".join(e for e, _ in AV1_ENCODERS) + ")")
        self.direct("av1", have[0][0], f"options={have[0][1]}")

    def test_h264_forced_key_unit(self):
        self.round_trip("h264", "b-frames=3 gop-size=250", "h264-fku",
                        force_at=FORCE_AT)


def avhwenc_takes(props):
    p = Gst.parse_launch(f"avhwenc {props}")
    ok = p.set_state(Gst.State.READY) != Gst.StateChangeReturn.FAILURE
    p.set_state(Gst.State.NULL)
    return ok


def missing():
    global DEVICE
    what = rt.missing(["avhwenc", "avhwupload", "h264parse", "h265parse",
                       "avdec_h264", "avdec_h265"])
    what += [f"FFmpeg encoder {enc} (or an avhw device)"
             for enc in ENCODERS.values()
             if not avhwenc_takes(f"fallback={enc}")]
    DEVICE = find_device()
    if DEVICE is None:
        what.append("an avhw device (" + (os.environ.get("AVHW_TEST_DEVICE")
                                          or ", ".join(BACKENDS)) + ")")
    return what


if __name__ == "__main__":
    gone = missing()
    if DEVICE:
        print(f"device {DEVICE}")
    rt.main(gone)

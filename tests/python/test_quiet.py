#!/usr/bin/env python3
"""Quiet by default (issue 28, item 6): FFmpeg's and the encoder
libraries' words go to GStreamer's debug log (category avhw-ffmpeg), not
to stderr, and each FFmpeg error is said once.

- Every software encoder avhwenc may fall back to that this FFmpeg has
  (libx264, libopenh264, libx265, libkvazaar, libaom-av1, librav1e,
  libsvtav1): `gst-launch-1.0 -q ... ! avhwenc fallback=NAME ! fakesink`
  writes nothing to stderr. x265 and SVT-AV1 print to stderr themselves,
  so avhwenc sets their level (also under an x265-params of the user's):
  they speak again with avhw-ffmpeg at INFO, and SVT-AV1 as the user asks
  with SVT_LOG set. The encoders this FFmpeg
  lacks are named as skipped.
- An encoder that does not open (libx264, a bad x264opts): without
  GST_DEBUG nothing of the debug log reaches stderr, FFmpeg's error is in
  the bus error once, and with GST_DEBUG the debug log has it once (not a
  second time from avhwenc; GStreamer's own echo of the bus error aside);
  in a process where gst-libav loaded after gst-avhw (and set FFmpeg's log
  callback to its own) too.

Exits 77 (Meson: SKIP), naming what is missing, without avhwenc or an
avhw device.
"""
import os
import re
import subprocess
import unittest

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstAvhw", "1.0")
from gi.repository import GLib, Gst, GstAvhw  # noqa: E402

import roundtrip as rt  # noqa: E402

Gst.init(None)

# every software encoder FFmpeg may have for avhwenc's codecs
SOFTWARE_ENCODERS = ["libx264", "libopenh264", "libx265", "libkvazaar",
                     "libaom-av1", "librav1e", "libsvtav1"]
# those that print to stderr themselves, and what they print at INFO
SELF_PRINTING = {"libx265": "x265 [info]", "libsvtav1": "Svt[info]"}
# one line of GStreamer's debug log (GST_DEBUG_NO_COLOR)
DEBUG_LINE = re.compile(r"^\d+:\d\d:\d\d\.\d+ +\d+ +0x[0-9a-f]+ +[A-Z]+ +"
                        r"(\S+) ", re.M)


def launch(args, extra_env=None, quiet=True):
    """Runs gst-launch-1.0 with @args; returns (exit code, stderr and
    stdout). GST_DEBUG and SVT-AV1's variables come from @extra_env
    only."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("GST_DEBUG", "SVT_LOG", "SVT_LOG_FILE")}
    env["GST_DEBUG_NO_COLOR"] = "1"
    env.update(extra_env or {})
    r = subprocess.run(["gst-launch-1.0"] + (["-q"] if quiet else []) + args,
                       env=env, capture_output=True, text=True, timeout=90)
    return r.returncode, r.stderr + r.stdout


def encode(encoder, extra_env=None, props=()):
    return launch(["videotestsrc", "num-buffers=5", "!", "avhwenc",
                   f"fallback={encoder}", *props, "!", "fakesink"],
                  extra_env)


def avhwenc_takes(props):
    p = Gst.parse_launch(f"avhwenc {props}")
    ok = p.set_state(Gst.State.READY) != Gst.StateChangeReturn.FAILURE
    p.set_state(Gst.State.NULL)
    return ok



def bus_errors(out, element):
    """gst-launch-1.0's ERROR messages from @element, each with its
    "Additional debug info" lines."""
    errors, cur = [], None
    for line in out.splitlines():
        if line.startswith("ERROR: from element"):
            cur = line if element in line else None
            if cur is not None:
                errors.append(cur)
        elif line.startswith("ERROR:") or not line.strip():
            cur = None
        elif cur is not None:
            errors[-1] += "\n" + line
    return errors

class Quiet(unittest.TestCase):

    def test_software_encoders_quiet(self):
        """Nothing on stderr under gst-launch -q, for each software
        encoder present; x265 and SVT-AV1 speak with avhw-ffmpeg:4."""
        have = [e for e in SOFTWARE_ENCODERS
                if avhwenc_takes(f"fallback={e}")]
        lacking = [e for e in SOFTWARE_ENCODERS if e not in have]
        if not have:
            self.skipTest("missing every FFmpeg software encoder (" +
                          ", ".join(SOFTWARE_ENCODERS) + ")")
        for enc in have:
            with self.subTest(encoder=enc):
                rc, out = encode(enc)
                self.assertEqual(rc, 0, out)
                self.assertEqual(out.strip(), "",
                                 f"{enc} wrote to stderr under -q")
                print(f"  {enc}: quiet", flush=True)
                if enc in SELF_PRINTING:
                    rc, out = encode(enc, {"GST_DEBUG": "avhw-ffmpeg:4"})
                    self.assertEqual(rc, 0, out)
                    self.assertIn(SELF_PRINTING[enc], out,
                                  f"avhw-ffmpeg:4 should let {enc} speak")
        if "libx265" in have:
            # an x265-params of the user's without log-level: still quiet
            rc, out = encode("libx265",
                             props=["options=x265-params=bframes=2"])
            self.assertEqual(rc, 0, out)
            self.assertEqual(out.strip(), "", "x265-params made x265 speak")
        if "libsvtav1" in have:
            # the user's SVT_LOG wins
            rc, out = encode("libsvtav1", {"SVT_LOG": "3"})
            self.assertEqual(rc, 0, out)
            self.assertIn("Svt[info]", out, "SVT_LOG=3 was overridden")
        if lacking:
            # a partial skip, named (unittest has no per-subtest skip
            # that still runs the rest)
            print("  SKIP: missing FFmpeg encoder " + ", ".join(lacking),
                  flush=True)

    def test_ffmpeg_error_once(self):
        """libx264 refuses an x264opts key in avcodec_open2(): FFmpeg's
        error is said once in the debug log and once in the bus error, and
        nothing of the debug log reaches stderr without GST_DEBUG."""
        if not avhwenc_takes("fallback=libx264"):
            self.skipTest("missing FFmpeg encoder libx264")
        args = ["videotestsrc", "num-buffers=5", "!", "avhwenc",
                "fallback=libx264", "options=x264opts=nosuchkey=1", "!",
                "fakesink"]
        # what FFmpeg says, from the debug log
        rc, out = launch(args, {"GST_DEBUG": "avhw-ffmpeg:1"}, quiet=False)
        self.assertNotEqual(rc, 0, "libx264 opened with a bad x264opts")
        said = [line for line in out.splitlines()
                if " avhw-ffmpeg " in line and "nosuchkey" in line]
        self.assertEqual(len(said), 1, "FFmpeg's error, not once in the "
                         "debug log:\n" + out)
        words = said[0].split("] ", 1)[-1].strip()
        bus = bus_errors(out, "avhwenc")
        self.assertEqual(len(bus), 1, out)
        # in its message or its debug string: with FFmpeg 7.1 the message
        # names the Vulkan encoders tried first, libx264's reason follows
        self.assertEqual(bus[0].count(words), 1,
                         f"the bus error should quote {words!r} once")

        # without GST_DEBUG: the bus error, no debug log
        rc, out = launch(args, quiet=False)
        self.assertNotEqual(rc, 0)
        self.assertEqual(DEBUG_LINE.findall(out), [],
                         "debug log on stderr without GST_DEBUG:\n" + out)
        self.assertEqual(out.count(words), 1, out)

        # everything at INFO: FFmpeg's line once, besides GStreamer's own
        # echoes of the bus error (GST_ELEMENT_ERROR's "error: ..." in the
        # element's category, GST_ERROR_SYSTEM's "posting message: ...")
        rc, out = launch(args, {"GST_DEBUG": "*:4"}, quiet=False)
        again = [line for line in out.splitlines()
                 if words in line and DEBUG_LINE.match(line)
                 and DEBUG_LINE.match(line).group(1) != "GST_ERROR_SYSTEM"
                 and not re.search(r" (error|warning): ", line)]
        self.assertEqual(len(again), 1,
                         "FFmpeg's error said more than once in the debug "
                         "log:\n" + "\n".join(again))
        print(f"  said once: {words}", flush=True)

    def test_ffmpeg_error_after_gst_libav(self):
        """gst-libav, loaded after gst-avhw, sets FFmpeg's log callback to
        its own: the bus error still quotes FFmpeg's error (avhwenc takes
        the callback back when an encoder opens)."""
        if not avhwenc_takes("fallback=libx264"):
            self.skipTest("missing FFmpeg encoder libx264")
        # gst-avhw is initialised (avhwenc_takes); now gst-libav loads
        if Gst.ElementFactory.make("avdec_h264") is None:
            self.skipTest("missing avdec_h264 (gst-libav)")
        p = Gst.parse_launch("videotestsrc num-buffers=5 ! avhwenc "
                             "fallback=libx264 options=x264opts=nosuchkey=1 "
                             "! fakesink")
        p.set_state(Gst.State.PLAYING)
        msg = p.get_bus().timed_pop_filtered(
            30 * Gst.SECOND, Gst.MessageType.ERROR | Gst.MessageType.EOS)
        p.set_state(Gst.State.NULL)
        self.assertIsNotNone(msg)
        self.assertEqual(msg.type, Gst.MessageType.ERROR)
        err, _ = msg.parse_error()
        self.assertIn("nosuchkey", err.message,
                      "FFmpeg's error is not in the message")


def missing():
    what = rt.missing_elements(["avhwenc", "videotestsrc", "fakesink"])
    if what:
        return what
    try:
        GstAvhw.Device.open("auto", None)
    except GLib.Error as e:
        what.append(f"an avhw device ({e.message})")
    return what


if __name__ == "__main__":
    rt.main(missing())

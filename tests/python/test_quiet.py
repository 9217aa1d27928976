#!/usr/bin/env python3
"""Quiet by default (issue 28, item 6): FFmpeg's and the encoder
libraries' words go to GStreamer's debug log (category avhw-ffmpeg), not
to stderr.

- Every software encoder avhwenc may fall back to that this FFmpeg has
  (libx264, libopenh264, libx265, libkvazaar, libaom-av1, librav1e,
  libsvtav1): `gst-launch-1.0 -q ... ! avhwenc fallback=NAME ! fakesink`
  writes nothing to stderr. x265 and SVT-AV1 print to stderr themselves,
  so avhwenc sets their level (also under an x265-params of the user's):
  they speak again with avhw-ffmpeg at INFO, and SVT-AV1 as the user asks
  with SVT_LOG set. The encoders this FFmpeg
  lacks are named as skipped.

Exits 77 (Meson: SKIP), naming what is missing, without avhwenc or an
avhw device.
"""
import os
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

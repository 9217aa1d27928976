#!/usr/bin/env python3
"""Many pipelines at once in one process (issue 32): N decode pipelines
running together on one device, round after round, find their decoders
kept. The decoder cache keeps as many per device as were open at once
(GST_AVHW_DECODERS_CACHE_AUTO, the default), not a fixed four; a fixed
limit below N misses again every round, which shows the test can fail.
Each round's frames are checked against the first round's.
Exits 77 (Meson: SKIP) without a device or x264enc.
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
from pipelines import run  # noqa: E402

Gst.init(None)
N = 6
CLIP_PIPE = ("videotestsrc num-buffers=8 pattern=ball ! "
             "video/x-raw,format=I420,width=96,height=64 ! "
             "x264enc speed-preset=ultrafast bframes=2 key-int-max=4 ! "
             "h264parse ! video/x-h264,stream-format=byte-stream ! "
             "filesink location={}")


def run_at_once(clip, n):
    """n pipelines decoding clip, all playing together; the MD5 of each
    one's frames."""
    pipes, digests = [], []
    for _ in range(n):
        p = Gst.parse_launch(f"filesrc location={clip} ! h264parse ! "
                             "avhwdec ! avhwdownload ! video/x-raw ! "
                             "appsink name=s sync=false")
        pipes.append(p)
    for p in pipes:
        assert p.set_state(Gst.State.PAUSED) != Gst.StateChangeReturn.FAILURE
    for p in pipes:
        p.set_state(Gst.State.PLAYING)
    for p in pipes:
        sink, md5 = p.get_by_name("s"), hashlib.md5()
        while True:
            s = sink.emit("try-pull-sample", 20 * Gst.SECOND)
            if s is None:
                break
            buf = s.get_buffer()
            md5.update(buf.extract_dup(0, buf.get_size()))
        assert sink.get_property("eos"), "a pipeline stopped before its end"
        digests.append(md5.hexdigest())
    # every decoder stays open until all pipelines are done
    for p in pipes:
        p.set_state(Gst.State.NULL)
    return digests


class Concurrent(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = GLib.dir_make_tmp("avhw-conc-XXXXXX")
        cls.clip = f"{cls.tmp}/clip.h264"
        run(CLIP_PIPE.format(cls.clip))

    def rounds(self, n_rounds):
        """Per round after the first: (hits, misses) of the decoder cache."""
        GstAvhw.cache_clear()
        first = run_at_once(self.clip, N)
        self.assertEqual(len(set(first)), 1, "N decodes of one clip differ")
        out = []
        for _ in range(n_rounds):
            _, h0, m0 = GstAvhw.cache_get_decoder_stats()
            got = run_at_once(self.clip, N)
            _, h1, m1 = GstAvhw.cache_get_decoder_stats()
            self.assertEqual(got, first, "a kept decoder gave other frames")
            out.append((h1 - h0, m1 - m0))
        return out

    def test_default_keeps_as_many_as_were_open(self):
        self.assertEqual(GstAvhw.cache_get_decoders_limit(),
                         GstAvhw.DECODERS_CACHE_AUTO)
        for hits, misses in self.rounds(2):
            self.assertEqual((hits, misses), (N, 0))
        kept, _, _ = GstAvhw.cache_get_decoder_stats()
        self.assertEqual(kept, N)

    def test_a_fixed_limit_below_n_misses(self):
        GstAvhw.cache_set_decoders_limit(GstAvhw.DECODERS_CACHE_DEFAULT_LIMIT)
        try:
            for hits, misses in self.rounds(2):
                self.assertEqual(hits + misses, N)
                self.assertEqual(misses, N - GstAvhw.DECODERS_CACHE_DEFAULT_LIMIT)
        finally:
            GstAvhw.cache_set_decoders_limit(GstAvhw.DECODERS_CACHE_AUTO)
        self.assertEqual(GstAvhw.cache_get_decoders_limit(),
                         GstAvhw.DECODERS_CACHE_AUTO)


if __name__ == "__main__":
    try:
        GstAvhw.Device.open("auto", None)
    except GLib.Error as e:
        print(f"SKIP: no avhw device: {e.message}")
        sys.exit(77)
    if Gst.ElementFactory.find("x264enc") is None:
        print("SKIP: x264enc (gst-plugins-ugly) is needed to make a clip")
        sys.exit(77)
    unittest.main(verbosity=2)

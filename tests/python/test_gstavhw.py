#!/usr/bin/env python3
"""gst-avhw from Python (PyGObject): the GstAvhw library and the elements.

Run through `meson test` (which sets GI_TYPELIB_PATH, LD_LIBRARY_PATH and
the plugin path to the build tree) or by hand inside `meson devenv`.
Exits 77 (Meson: SKIP) when no avhw device is present.
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
from gstcompat import caps_structure  # noqa: E402

Gst.init(None)

PIPELINE = ("videotestsrc num-buffers=3 ! video/x-raw,format=I420,width=64,"
            "height=48 ! avhwupload name=up ! avhwdownload name=down ! "
            "fakesink")


def run(pipeline):
    """Runs to EOS; raises on an error message."""
    bus = pipeline.get_bus()
    pipeline.set_state(Gst.State.PLAYING)
    msg = bus.timed_pop_filtered(30 * Gst.SECOND,
                                 Gst.MessageType.EOS | Gst.MessageType.ERROR)
    assert msg is not None, "pipeline neither ended nor failed in 30 s"
    if msg.type == Gst.MessageType.ERROR:
        err, dbg = msg.parse_error()
        raise AssertionError(f"{err.message} | {dbg}")


class LibraryTest(unittest.TestCase):
    def test_device_decodes_codec(self):
        dev = GstAvhw.Device.open(None, None)
        backend, index = dev.get_backend(), dev.get_index()
        ok, reason = backend.device_decodes_codec(index, "nosuchcodec")
        self.assertFalse(ok)
        self.assertIn("nosuchcodec", reason)
        ok, reason = backend.device_decodes_codec(index, "h264")
        self.assertTrue(ok or reason, "a no comes with its reason")

    def test_backends_listed(self):
        names = [b.get_name() for b in GstAvhw.Backend.list()]
        self.assertTrue(names, "no backend found on GST_PLUGIN_PATH")
        print("backends:", ", ".join(names))

    def test_open_same_device_twice(self):
        a = GstAvhw.Device.open("auto", None)
        b = GstAvhw.Device.open("auto", None)
        self.assertEqual(a.get_context_id(), b.get_context_id())
        self.assertIs(a, b)

    def test_clear_cache(self):
        a = GstAvhw.Device.open("auto", None)
        GstAvhw.cache_clear()
        b = GstAvhw.Device.open("auto", None)
        self.assertNotEqual(a.get_context_id(), b.get_context_id())
        n_devices, n_frames, opens, _ = GstAvhw.cache_get_stats()
        self.assertEqual(n_devices, 1)

    def test_sessions_and_clear_one_device(self):
        # what placement reads, and per-device clearing, from Python
        dev = GstAvhw.Device.open("auto", None)
        backend = dev.get_backend()
        self.assertEqual(dev.get_n_active(), 0)
        dev.acquire_session()
        self.assertEqual(dev.get_n_active(), 1)
        self.assertEqual(backend.get_n_active(dev.get_index()), 1)
        dev.release_session()
        self.assertEqual(dev.get_n_active(), 0)
        before, _, _, _ = GstAvhw.cache_get_stats()
        GstAvhw.cache_clear_device(dev)
        after, _, _, _ = GstAvhw.cache_get_stats()
        self.assertEqual(after, before - 1)
        again = GstAvhw.Device.open(dev.get_name(), None)
        self.assertNotEqual(again.get_context_id(), dev.get_context_id())

    def test_unknown_backend_is_a_clear_error(self):
        with self.assertRaises(GLib.Error) as cm:
            GstAvhw.Device.open("nosuch:0", None)
        self.assertIn('unknown avhw backend "nosuch"', cm.exception.message)
        self.assertIn("installed backends:", cm.exception.message)


class PipelineTest(unittest.TestCase):
    def test_application_device_through_need_context(self):
        app = GstAvhw.Device.open_uncached("auto", None)
        pipeline = Gst.parse_launch(PIPELINE)
        bus = pipeline.get_bus()

        def on_sync(bus, msg):
            if msg.type == Gst.MessageType.NEED_CONTEXT:
                ok, ctype = msg.parse_context_type()
                if ctype == "gst.avhw.device":
                    msg.src.set_context(GstAvhw.context_new(app))
            return Gst.BusSyncReply.PASS

        bus.set_sync_handler(on_sync)
        run(pipeline)
        for name in ("up", "down"):
            dev = pipeline.get_by_name(name).get_property("active-device")
            self.assertEqual(dev.get_context_id(), app.get_context_id())
        pipeline.set_state(Gst.State.NULL)
        bus.set_sync_handler(None)

    def test_one_device_across_pipelines(self):
        app = GstAvhw.Device.open_uncached("auto", None)
        ctx = GstAvhw.context_new(app)
        for _ in range(2):
            pipeline = Gst.parse_launch(PIPELINE)
            pipeline.set_context(ctx)
            run(pipeline)
            dev = pipeline.get_by_name("up").get_property("active-device")
            self.assertEqual(dev.get_context_id(), app.get_context_id())
            pipeline.set_state(Gst.State.NULL)

    def test_bad_device_property_fails_clearly(self):
        pipeline = Gst.parse_launch(PIPELINE.replace(
            "avhwupload name=up", "avhwupload name=up device=nosuch"))
        with self.assertRaises(AssertionError) as cm:
            run(pipeline)
        self.assertIn("nosuch", str(cm.exception))
        pipeline.set_state(Gst.State.NULL)


class PadTemplateTest(unittest.TestCase):
    """Pad templates list the memories and formats, as gst-inspect-1.0
    shows them (the registry's copy) and as pads use them (the class's)."""

    # element: (sink memories, src memories); "device": every backend's
    # device memory, "system": system memory
    MEMORIES = {
        "avhwupload": ({"device", "system"}, {"device"}),
        "avhwdownload": ({"device"}, {"system"}),
        "avhwconvertscale": ({"device"}, {"device"}),
        "avhwdec": (set(), {"device", "system"}),
        "avhwenc": ({"device", "system"}, set()),
    }

    @staticmethod
    def features(caps):
        out = set()
        for i in range(caps.get_size()):
            f = caps.get_features(i)
            if f.is_any():
                out.add("ANY")
            for j in range(f.get_size()):
                out.add(f.get_nth(j))
        return out

    def expected(self, memories):
        want = set()
        if "system" in memories:
            want.add("memory:SystemMemory")
        if "device" in memories:
            want |= {b.get_caps_feature() for b in GstAvhw.Backend.list()}
        return want

    def check(self, name, caps_by_pad):
        sink_mem, src_mem = self.MEMORIES[name]
        for pad, memories in (("sink", sink_mem), ("src", src_mem)):
            caps = caps_by_pad[pad]
            got = self.features(caps)
            self.assertNotIn("ANY", got, f"{name} {pad}: {caps}")
            missing = self.expected(memories) - got
            self.assertFalse(missing, f"{name} {pad} lacks {missing}")
            if memories:
                s = caps_structure(caps, 0)
                self.assertEqual(s.get_name(), "video/x-raw")
                self.assertTrue(s.has_field("format"), f"{name} {pad}")

    def test_registry_templates(self):
        for name in self.MEMORIES:
            factory = Gst.ElementFactory.find(name)
            self.assertIsNotNone(factory, name)
            caps = {t.name_template: t.get_caps()
                    for t in factory.get_static_pad_templates()}
            self.check(name, caps)

    def test_class_templates(self):
        for name in self.MEMORIES:
            element = Gst.ElementFactory.make(name, None)
            caps = {p: element.get_pad_template(p).get_caps()
                    for p in ("sink", "src")}
            self.check(name, caps)

    def test_autoplug_templates_name_their_backend(self):
        names = {b.get_name(): b.get_caps_feature()
                 for b in GstAvhw.Backend.list()}
        found = 0
        for factory in Gst.Registry.get().get_feature_list(
                Gst.ElementFactory):
            fname = factory.get_name()
            for backend, feature in names.items():
                if not (fname.startswith("avhw" + backend)
                        and fname[-3:] in ("dec", "enc")):
                    continue
                raw = "src" if fname.endswith("dec") else "sink"
                for t in factory.get_static_pad_templates():
                    if t.name_template == raw:
                        got = self.features(t.get_caps())
                        self.assertIn(feature, got, fname)
                        self.assertIn("memory:SystemMemory", got, fname)
                        self.assertNotIn("ANY", got, fname)
                        found += 1
        print(f"{found} autoplugging elements checked")


if __name__ == "__main__":
    try:
        GstAvhw.Device.open("auto", None)
    except GLib.Error as e:
        print(f"SKIP: no avhw device: {e.message}")
        sys.exit(77)
    unittest.main(verbosity=2)

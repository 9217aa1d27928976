# SPDX-License-Identifier: LGPL-2.1-or-later
"""What the docs tests share: the source and build trees, our plugins and
backends as the registry sees them, devices present, generated clips.

The tests run through `meson test --suite docs`, which sets the plugin path
(build tree plus GStreamer's own plugins), a private registry,
GI_TYPELIB_PATH and LD_LIBRARY_PATH, AVHW_SOURCE_ROOT and AVHW_BUILD_ROOT.
By hand: `meson devenv -C build-docs` and set the two roots.
"""
import os
import shutil
import subprocess
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GObject, Gst  # noqa: E402

Gst.init(None)

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.path.realpath(os.environ.get(
    "AVHW_SOURCE_ROOT", os.path.join(HERE, "..", "..")))
BUILD_ROOT = os.environ.get("AVHW_BUILD_ROOT")


def type_name(gtype):
    """The name of a GType (a pspec's owner_type, say)."""
    return GObject.type_name(gtype)


def fail_setup(why):
    """Exit 1: the test cannot judge anything (a broken environment is a
    failure, never a silent pass)."""
    print(f"ERROR: {why}")
    sys.exit(1)


def our_plugins():
    """Plugins loaded from the build tree (the elements plugin `avhw` and
    the backend plugins), as (plugin, [features])."""
    if not BUILD_ROOT:
        fail_setup("AVHW_BUILD_ROOT is not set (run through meson test)")
    root = os.path.realpath(BUILD_ROOT) + os.sep
    reg = Gst.Registry.get()
    out = []
    for plugin in reg.get_plugin_list():
        fn = plugin.get_filename()
        if fn and os.path.realpath(fn).startswith(root):
            out.append((plugin, reg.get_feature_list_by_plugin(
                plugin.get_name())))
    return out


def backend_names():
    """Backends the build tree registers (their dynamic-type features are
    named GstAvhw<Name>Backend), lower case, e.g. ['cuda', 'opencl']."""
    names = []
    for _, feats in our_plugins():
        for f in feats:
            n = f.get_name()
            if (isinstance(f, Gst.DynamicTypeFactory)
                    and n.startswith("GstAvhw")
                    and n.endswith("Backend")):
                names.append(n[len("GstAvhw"):-len("Backend")].lower())
    return sorted(names)


_device_cache = {}


def backend_built(backend):
    """The build tree holds this backend's plugin (backends/<name>/)."""
    import glob
    return bool(BUILD_ROOT and glob.glob(os.path.join(
        BUILD_ROOT, "backends", backend, f"libgstavhw{backend}*.so")))


def device_status(device):
    """(state, why) for a device string: 'ok' when it opens here; 'absent'
    when this machine lacks it (why: 'no cuda device', or the backend is not
    built); 'broken' when a backend of the build tree did not load or the
    string is wrong (a failure, never a skip)."""
    if device in _device_cache:
        return _device_cache[device]
    try:
        gi.require_version("GstAvhw", "1.0")
        from gi.repository import GLib, GstAvhw
    except (ValueError, ImportError) as e:
        fail_setup(f"GstAvhw typelib not found ({e}); GI_TYPELIB_PATH?")
    backend = device.split(":")[0]
    try:
        GstAvhw.Device.open(device, None)
        res = ("ok", "")
    except GLib.Error as e:
        if e.matches(GstAvhw.error_quark(), GstAvhw.Error.UNKNOWN_BACKEND):
            if backend_built(backend):
                res = ("broken", f"the {backend} backend is built but did "
                       f"not load (GST_DEBUG=GST_PLUGIN_LOADING:3 says why): "
                       f"{e.message}")
            else:
                res = ("absent", f"no {backend} device ({backend} backend "
                       f"not built)")
        elif e.matches(GstAvhw.error_quark(), GstAvhw.Error.NO_DEVICE):
            if backend != device and device_status(backend)[0] == "ok":
                res = ("absent", f"no {device} device")
            else:
                res = ("absent", f"no {backend} device")
        else:
            res = ("broken", f"{device}: {e.message}")
    _device_cache[device] = res
    return res


# Clips for placeholder inputs: by file extension, codec from the name.
FFMPEG_FRAMES = 10


def _ffmpeg_args(name):
    base, ext = os.path.splitext(name.lower())
    hevc = "265" in name or "hevc" in name.lower()
    x264 = ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-g", "5"]
    x265 = ["-c:v", "libx265", "-pix_fmt", "yuv420p", "-x265-params",
            "log-level=error:keyint=5"]
    if ext in (".h264", ".264", ".avc"):
        return x264 + ["-f", "h264"]
    if ext in (".h265", ".265", ".hevc"):
        return x265 + ["-f", "hevc"]
    if ext in (".mp4", ".mov", ".mkv", ".m4v"):
        return (x265 + ["-tag:v", "hvc1"] if hevc and ext != ".mkv"
                else x265 if hevc else x264)
    if ext in (".webm", ".ivf"):
        return ["-c:v", "libvpx-vp9", "-pix_fmt", "yuv420p"]
    return None


def make_clip(name, folder, frames=FFMPEG_FRAMES):
    """A `frames`-frame 320x240 clip named `name` in `folder` (made once),
    or raises RuntimeError saying why not."""
    path = os.path.join(folder, os.path.basename(name))
    if os.path.exists(path):
        return path
    args = _ffmpeg_args(os.path.basename(name))
    if args is None:
        raise RuntimeError(f"no clip recipe for a file named {name!r}")
    ffmpeg = shutil.which("ffmpeg")
    if not ffmpeg:
        raise RuntimeError("the ffmpeg CLI is missing (scripts/deps.sh "
                           "installs it)")
    cmd = [ffmpeg, "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi",
           "-i", "testsrc=size=320x240:rate=25", "-frames:v",
           str(frames)] + args + [path]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise RuntimeError(f"ffmpeg could not make {name}: "
                           f"{r.stderr.strip()[-300:]}")
    return path


def scaling_device():
    """The first device here that can scale (AVHW_EXAMPLE_DEVICE, else a
    cuda, vulkan or vaapi device with a scaling filter), or None."""
    import gi
    gi.require_version("GstAvhw", "1.0")
    from gi.repository import GLib, GstAvhw
    want = os.environ.get("AVHW_EXAMPLE_DEVICE")
    for name in [want] if want else ["cuda", "vulkan", "vaapi"]:
        try:
            dev = GstAvhw.Device.open(name, None)
        except GLib.Error:
            continue
        if dev.get_backend().get_scale_filter():
            return dev.get_name()
    return None

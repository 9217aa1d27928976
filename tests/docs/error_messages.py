#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A sample of the errors a user can hit, each provoked for real, and what
they say.

Each case runs a pipeline (or a GstAvhw call) in a child process of its own
(so a hang or a crash is that case's failure) and takes the first ERROR
message (text + debug, as gst-launch-1.0 prints them) or the GLib.Error /
exception. Then it checks that the message:
- element:   names the element (the debug string carries its path, e.g.
             /GstPipeline:pipeline0/GstAvhwDec:avhwdec0);
- device:    names the device, where one is concerned;
- next-step: says what to do next (lists the installed backends, gives the
             valid range, says "set fallback=true", "add videoconvert"...).

Where the code falls short today the check is a KNOWN-GAP below: printed
with the exact message and a one-line suggested fix, not a failure. Any
other check that fails is a FAIL (a regression). A KNOWN-GAP that now
passes prints XPASS: drop it from KNOWN_GAPS.

Prints one line per check that is not plain ok, one line per case, then
`N passed, N known gaps, N failed, N skipped`.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pylib"))
from gstcompat import caps_structure  # noqa: E402

# (case, check) -> suggested fix. The owner of the message fixes the C code,
# then removes the entry here.
KNOWN_GAPS = {
}

HERE = os.path.dirname(os.path.abspath(__file__))
CASE_TIMEOUT_S = 60


class Skip(Exception):
    pass


# ------------------------------------------------------- in the child ------

def child_setup():
    import gi
    gi.require_version("Gst", "1.0")
    gi.require_version("GstAvhw", "1.0")
    from gi.repository import GLib, Gst, GstAvhw
    Gst.init(None)
    return GLib, Gst, GstAvhw


def present_device(prefer=("vulkan", "opencl")):
    """The name of a device that opens here (a preferred backend first)."""
    from docs_common import backend_names, device_status
    _, _, GstAvhw = child_setup()
    for b in list(prefer) + backend_names():
        if device_status(b)[0] == "ok":
            return GstAvhw.Device.open(b, None).get_name()
    raise Skip("no avhw device on this machine")


def clip(name):
    from docs_common import make_clip
    folder = os.environ.get("AVHW_DOCS_TMP") or tempfile.mkdtemp()
    return make_clip(name, folder)


def first_error(desc, timeout_s=20):
    """Runs `desc` until its first ERROR or EOS; the error as a dict, or
    None at EOS."""
    _, Gst, _ = child_setup()
    p = Gst.parse_launch(desc)
    bus = p.get_bus()
    p.set_state(Gst.State.PLAYING)
    msg = bus.timed_pop_filtered(timeout_s * Gst.SECOND,
                                 Gst.MessageType.ERROR | Gst.MessageType.EOS)
    p.set_state(Gst.State.NULL)
    if msg is None:
        raise RuntimeError(f"neither error nor EOS in {timeout_s} s: {desc}")
    if msg.type == Gst.MessageType.EOS:
        return None
    err, dbg = msg.parse_error()
    return {"text": err.message, "debug": dbg or "",
            "src": msg.src.get_name() if msg.src else ""}


def gerror(fn):
    """Calls fn; the GLib.Error (or other exception) it raises as a dict."""
    GLib, _, GstAvhw = child_setup()
    try:
        fn()
    except GLib.Error as e:
        code = None
        if e.domain == GLib.quark_to_string(GstAvhw.error_quark()):
            code = GstAvhw.Error(e.code).value_nick
        return {"text": e.message, "debug": "", "src": "",
                "code": code}
    except Exception as e:   # noqa: BLE001: Python-side errors are the case
        return {"text": str(e), "debug": "", "src": "",
                "code": type(e).__name__}
    return None


CASES = {}


def case(name):
    def deco(fn):
        CASES[name] = fn
        return fn
    return deco


# Each case returns (observation, expectations): expectations holds
# 'element' (instance name), 'device' (a string the message must contain),
# 'next' (a regex, or a list of strings all of which must appear;
# 'next_in_text': True, in the message itself, not only its debug string),
# 'code' (GstAvhw.Error nick for Python cases); None: not checked.

@case("device-unknown-backend")
def _():
    from docs_common import backend_names
    obs = first_error("videotestsrc num-buffers=1 ! video/x-raw,format=NV12 "
                      "! avhwupload device=nosuch ! fakesink")
    return obs, {"element": "avhwupload0", "device": '"nosuch"',
                 "next": ["installed backends:"] + backend_names()}


@case("device-out-of-range")
def _():
    dev = present_device()
    b = dev.split(":")[0]
    obs = first_error("videotestsrc num-buffers=1 ! video/x-raw,format=I420 "
                      f"! avhwupload ! avhwdownload device={b}:99 ! fakesink")
    return obs, {"element": "avhwdownload0", "device": f"{b}:99",
                 "next": re.escape(f"{b}:0")}


@case("device-malformed-index")
def _():
    dev = present_device()
    b = dev.split(":")[0]
    obs = first_error(f"filesrc location={clip('in.h264')} ! h264parse ! "
                      f"avhwdec device={b}:x ! fakesink")
    return obs, {"element": "avhwdec0", "device": f"{b}:x",
                 "next": r"expected a number|BACKEND:INDEX"}


@case("device-malformed-string")
def _():
    obs = first_error("videotestsrc num-buffers=1 ! avhwenc device=:0 ! "
                      "fakesink")
    return obs, {"element": "avhwenc0", "device": '":0"',
                 "next": r"BACKEND:INDEX"}


@case("device-absent")
def _():
    from docs_common import backend_names, device_status
    for b in ("cuda", "vaapi"):
        if b in backend_names() and device_status(b)[0] == "absent":
            break
    else:
        raise Skip("every built GPU backend (cuda, vaapi) has a device here")
    obs = first_error("videotestsrc num-buffers=1 ! video/x-raw,format=NV12 "
                      f"! avhwupload device={b} ! fakesink")
    # what to do: the cause (driver missing, no /dev/dri) is the next step,
    # in the message a user reads, not only in the debug string (issue 28)
    return obs, {"element": "avhwupload0", "device": f'"{b}"',
                 "next": r"driver|/dev/", "next_in_text": True}


@case("decoder-unknown")
def _():
    obs = first_error(f"filesrc location={clip('in.h264')} ! h264parse ! "
                      "avhwdec decoder=nosuch ! fakesink")
    return obs, {"element": "avhwdec0", "device": None,
                 "next": r"leave decoder|decoder.{0,20}empty|decoders "
                         r"(here|for)|ffmpeg -decoders"}


@case("decoder-wrong-codec")
def _():
    obs = first_error(f"filesrc location={clip('in.h264')} ! h264parse ! "
                      "avhwdec decoder=hevc ! fakesink")
    return obs, {"element": "avhwdec0", "device": None,
                 "next": r"leave decoder|decoder.{0,20}empty|an h264 decoder"}


@case("fallback-false")
def _():
    dev = present_device(prefer=("opencl", "vulkan"))
    obs = first_error(f"filesrc location={clip('in.h264')} ! h264parse ! "
                      f"avhwdec device={dev} fallback=false ! fakesink")
    if obs is None:
        raise Skip(f"{dev} decodes h264 in hardware")
    return obs, {"element": "avhwdec0", "device": dev,
                 "next": r"fallback=true"}


@case("upload-format")
def _():
    _, Gst, _ = child_setup()
    dev = present_device()
    up = Gst.ElementFactory.make("avhwupload")
    up.set_property("device", dev)
    up.set_state(Gst.State.READY)
    caps = up.get_static_pad("sink").query_caps(None)
    up.set_state(Gst.State.NULL)
    held = set()
    for i in range(caps.get_size()):
        v = caps_structure(caps, i).get_value("format")
        held |= set(v) if isinstance(v, list) else {v} if v else set()
    fmt = next((f for f in ("RGB", "BGR", "UYVY", "v210", "YUY2", "RGB16")
                if f not in held), None)
    if fmt is None:
        raise Skip(f"{dev} holds every format tried")
    # Named: the probe element above took the default name avhwupload0.
    obs = first_error(f"videotestsrc num-buffers=1 ! video/x-raw,format={fmt} "
                      f"! avhwupload name=avhwupload0 device={dev} ! "
                      "avhwdownload ! fakesink")
    return obs, {"element": "avhwupload0", "device": dev,
                 "next": r"videoconvert", "note": f"format {fmt}"}


@case("upload-size")
def _():
    from docs_common import device_status
    if device_status("opencl")[0] != "ok":
        raise Skip("no opencl device")
    obs = first_error("videotestsrc num-buffers=1 pattern=black ! "
                      "video/x-raw,format=I420,width=100000,height=16 ! "
                      "avhwupload device=opencl ! avhwdownload ! fakesink")
    if obs is None:
        raise Skip("opencl:0 holds 100000x16 frames")
    return obs, {"element": "avhwupload0", "device": "opencl:0",
                 "next": r"scale|largest|at most|max"}


@case("downstream-refuses")
def _():
    dev = present_device()
    obs = first_error(f"filesrc location={clip('in.h264')} ! h264parse ! "
                      f"avhwdec device={dev} ! video/x-raw,format=RGBA ! "
                      "fakesink")
    return obs, {"element": "avhwdec0", "device": dev,
                 "next": r"videoconvert|avhwdownload"}


@case("downstream-refuses-after-download")
def _():
    # the refusal is past avhwdownload (a capsfilter asking another
    # format): avhwdec still names the decoded format and what to add
    dev = present_device()
    obs = first_error(f"filesrc location={clip('in.h264')} ! h264parse ! "
                      f"avhwdec device={dev} ! avhwdownload ! "
                      "video/x-raw,format=RGBA ! fakesink")
    return obs, {"element": "avhwdec0", "device": dev,
                 "next": ["could not pass on the decoded", "videoconvert"]}


@case("corrupt-stream")
def _():
    from docs_common import SOURCE_ROOT, make_clip
    dev = present_device()
    tmp = os.environ.get("AVHW_DOCS_TMP") or tempfile.mkdtemp()
    good = make_clip("corrupt-src.h264", tmp, frames=30)
    bad = os.path.join(tmp, "corrupt.h264")
    # tests/media's deterministic damage: 4 runs of 16 bytes inside NAL
    # payloads of the middle third
    subprocess.run([sys.executable, os.path.join(SOURCE_ROOT, "tests",
                    "media", "mangle.py"), "corrupt", good, bad, "--seed",
                    "1"], check=True, capture_output=True)
    obs = first_error(f"filesrc location={bad} ! h264parse ! avhwdec "
                      f"device={dev} max-errors=0 ! fakesink")
    if obs is None:
        raise Skip("the damaged clip decoded without an error")
    return obs, {"element": "avhwdec0", "device": dev,
                 "next": r"max-errors"}


@case("encoder-no-hardware")
def _():
    dev = present_device(prefer=("opencl", "vulkan"))
    obs = first_error(f"videotestsrc num-buffers=2 ! avhwenc device={dev} "
                      "fallback=false ! h264parse ! fakesink")
    if obs is None:
        raise Skip(f"{dev} encodes h264 in hardware")
    return obs, {"element": "avhwenc0", "device": dev,
                 "next": r"fallback=true"}


@case("encoder-unknown")
def _():
    obs = first_error("videotestsrc num-buffers=2 ! avhwenc encoder=nosuch ! "
                      "fakesink")
    return obs, {"element": "avhwenc0", "device": None,
                 "next": r"ffmpeg -encoders"}


@case("convertscale-refused-conversion")
def _():
    from docs_common import device_status
    if device_status("vulkan")[0] != "ok":
        raise Skip("no vulkan device")
    obs = first_error("videotestsrc num-buffers=2 ! "
                      "video/x-raw,format=NV12,width=320,height=240 ! "
                      "avhwupload device=vulkan ! avhwconvertscale ! "
                      "video/x-raw(memory:AVHWVulkan),format=I420,width=160,"
                      "height=120 ! avhwdownload ! fakesink")
    return obs, {"element": "avhwconvertscale0", "device": "vulkan:0",
                 "next": ["cannot make I420 from NV12", "it makes NV12",
                          "avhwdownload ! videoconvert ! avhwupload"]}


@case("convertscale-no-filter")
def _():
    from docs_common import device_status
    if device_status("opencl")[0] != "ok":
        raise Skip("no opencl device")
    obs = first_error("videotestsrc num-buffers=2 ! "
                      "video/x-raw,format=I420,width=320,height=240 ! "
                      "avhwupload device=opencl ! avhwconvertscale ! "
                      "video/x-raw(memory:AVHWOpenCL),width=160,height=120 ! "
                      "avhwdownload ! fakesink")
    return obs, {"element": "avhwconvertscale0", "device": "opencl:0",
                 "next": ["names no FFmpeg scale filter",
                          "avhwdownload ! videoconvertscale ! avhwupload"]}


@case("convertscale-method")
def _():
    dev = present_device(prefer=("vulkan",))
    if not dev.startswith("vulkan"):
        raise Skip("no vulkan device")
    obs = first_error("videotestsrc num-buffers=2 ! "
                      "video/x-raw,format=NV12,width=320,height=240 ! "
                      "avhwupload device=vulkan ! avhwconvertscale "
                      "method=lanczos ! video/x-raw(memory:AVHWVulkan),"
                      "width=160,height=120 ! avhwdownload ! fakesink")
    return obs, {"element": "avhwconvertscale0", "device": dev,
                 "next": r"set method to one it has: default, "
                         r"nearest-neighbour, bilinear"}


@case("convertscale-system-memory-in")
def _():
    obs = first_error("videotestsrc num-buffers=2 ! "
                      "video/x-raw,format=NV12,width=320,height=240 ! "
                      "avhwconvertscale ! avhwdownload ! fakesink")
    return obs, {"element": "avhwconvertscale0", "device": None,
                 "next": r"avhwupload before it"}


@case("convertscale-system-memory-out")
def _():
    dev = present_device(prefer=("vulkan",))
    obs = first_error("videotestsrc num-buffers=2 ! "
                      "video/x-raw,format=I420,width=320,height=240 ! "
                      f"avhwupload device={dev} ! avhwconvertscale ! "
                      "video/x-raw,width=160,height=120 ! fakesink")
    return obs, {"element": "avhwconvertscale0", "device": None,
                 "next": r"avhwdownload after it"}


# Refusals made where the link is delayed (parsebin, decodebin, a parser):
# the avhw element's own error, not the demuxer's "not-linked" or the
# parser's "not-negotiated" (issue 28, item 5).
def _no_scale_filter_device():
    from docs_common import backend_names, device_status
    _, _, GstAvhw = child_setup()
    for b in GstAvhw.Backend.list():
        if (not b.get_scale_filter()
                and device_status(b.get_name())[0] == "ok"):
            return b
    raise Skip("no device of a backend without a scale filter")


@case("convertscale-no-filter-behind-parsebin")
def _():
    b = _no_scale_filter_device()
    n, f = b.get_name(), b.get_caps_feature()
    obs = first_error(f"filesrc location={clip('in.mp4')} ! parsebin ! "
                      f"avhwdec device={n} ! avhwupload device={n} ! "
                      f"avhwconvertscale ! video/x-raw({f}),width=224,"
                      "height=224 ! fakesink")
    return obs, {"element": "avhwconvertscale0", "device": n,
                 "next": r"Scale on another device, or on the CPU"}


@case("convertscale-no-filter-behind-parser")
def _():
    b = _no_scale_filter_device()
    n, f = b.get_name(), b.get_caps_feature()
    obs = first_error(f"filesrc location={clip('in.h264')} ! h264parse ! "
                      f"avhwdec device={n} ! avhwconvertscale ! "
                      f"video/x-raw({f}),width=224,height=224 ! fakesink")
    return obs, {"element": "avhwconvertscale0", "device": n,
                 "next": r"Scale on another device, or on the CPU"}


@case("convertscale-system-memory-out-behind-parsebin")
def _():
    obs = first_error(f"filesrc location={clip('in.mp4')} ! parsebin ! "
                      "avhwdec ! avhwconvertscale ! "
                      "video/x-raw,width=224,height=224 ! fakesink")
    return obs, {"element": "avhwconvertscale0", "device": None,
                 "next": r"avhwdownload after it"}


@case("python-open-unknown-backend")
def _():
    from docs_common import backend_names
    _, _, GstAvhw = child_setup()
    obs = gerror(lambda: GstAvhw.Device.open("nosuch", None))
    return obs, {"device": '"nosuch"', "code": "unknown_backend",
                 "next": ["installed backends:"] + backend_names()}


@case("python-open-out-of-range")
def _():
    _, _, GstAvhw = child_setup()
    b = present_device().split(":")[0]
    obs = gerror(lambda: GstAvhw.Device.open(f"{b}:99", None))
    return obs, {"device": f"{b}:99", "code": "no_device",
                 "next": re.escape(f"{b}:0")}


@case("python-open-malformed")
def _():
    _, _, GstAvhw = child_setup()
    obs = gerror(lambda: GstAvhw.Device.open("vulkan:0:1", None))
    return obs, {"device": "vulkan:0:1", "code": "invalid_argument",
                 "next": r"expected a number|BACKEND:INDEX"}


@case("python-open-no-backend")
def _():
    # A plugin path with the elements and no backend (set by the parent).
    _, _, GstAvhw = child_setup()
    obs = gerror(lambda: GstAvhw.Device.open("auto", None))
    return obs, {"device": None, "code": "no_device",
                 "next": r"GST_PLUGIN_PATH"}


@case("python-frame-device-memory")
def _():
    _, Gst, GstAvhw = child_setup()
    dev = present_device()
    if dev.startswith("cuda"):
        raise Skip("cuda frames have array interfaces")
    p = Gst.parse_launch("videotestsrc num-buffers=1 ! "
                         "video/x-raw,format=I420,width=64,height=48 ! "
                         f"avhwupload device={dev} ! appsink name=s")
    p.set_state(Gst.State.PLAYING)
    sample = p.get_by_name("s").emit("pull-sample")
    obs = gerror(lambda: GstAvhw.Frame(sample).planes)
    p.set_state(Gst.State.NULL)
    return obs, {"device": dev, "code": "TypeError",
                 "next": r"avhwdownload"}


def run_child(name):
    sys.path.insert(0, HERE)
    try:
        obs, exp = CASES[name]()
        out = {"obs": obs, "exp": exp}
    except Skip as e:
        out = {"skip": str(e)}
    print("RESULT " + json.dumps(out))
    sys.stdout.flush()
    os._exit(0)     # no teardown races in driver threads


# ------------------------------------------------------ in the parent ------

def check(obs, exp):
    """{check: (ok, why)} for an observation."""
    res = {}
    if obs is None:
        return {"error": (False, "no error at all: the pipeline ended with "
                          "EOS or the call succeeded")}
    both = obs["text"] + "\n" + obs["debug"]
    if exp.get("element"):
        el = exp["element"]
        res["element"] = (el == obs["src"] or re.search(
            r"\b%s\b" % re.escape(el), both) is not None,
            f"comes from {obs['src']}, does not name {el}")
    if exp.get("device"):
        res["device"] = (exp["device"] in both,
                         f"does not name the device {exp['device']}")
    nxt = exp.get("next")
    if isinstance(nxt, list):
        missing = [s for s in nxt if s not in both]
        res["next-step"] = (not missing, f"lacks {', '.join(missing)}")
    elif nxt:
        where = obs["text"] if exp.get("next_in_text") else both
        res["next-step"] = (re.search(nxt, where, re.I) is not None,
                            f"says nothing matching /{nxt}/" +
                            (" in its message" if exp.get("next_in_text")
                             else ""))
    if exp.get("code"):
        res["code"] = (obs.get("code") == exp["code"],
                       f"is {obs.get('code')}, not {exp['code']}")
    return res


def one_line(s):
    return " | ".join(x.strip() for x in s.strip().splitlines())


def main():
    counts = {"passed": 0, "known gaps": 0, "failed": 0, "skipped": 0}
    with tempfile.TemporaryDirectory(prefix="avhw-errors-") as tmp:
        for name in CASES:
            env = dict(os.environ, AVHW_DOCS_TMP=tmp)
            if name == "python-open-no-backend":
                build = os.environ.get("AVHW_BUILD_ROOT", "")
                backends = os.path.realpath(os.path.join(build, "backends"))
                path = env.get("GST_PLUGIN_PATH_1_0", "").split(":")
                keep = [d for d in path
                        if not os.path.realpath(d).startswith(backends)]
                env["GST_PLUGIN_PATH_1_0"] = ":".join(keep)
                env["GST_REGISTRY_1_0"] = os.path.join(tmp, "nobackend.reg")
            try:
                r = subprocess.run([sys.executable, __file__, "--case", name],
                                   capture_output=True, text=True, env=env,
                                   timeout=CASE_TIMEOUT_S)
                line = next((l for l in r.stdout.splitlines()
                             if l.startswith("RESULT ")), None)
                if line is None:
                    raise RuntimeError(f"exit {r.returncode}: "
                                       f"{one_line(r.stderr)[-600:]}")
                out = json.loads(line[len("RESULT "):])
            except subprocess.TimeoutExpired:
                out = {"crash": f"no result within {CASE_TIMEOUT_S} s"}
            except RuntimeError as e:
                out = {"crash": str(e)}
            if "skip" in out:
                counts["skipped"] += 1
                print(f"SKIP {name}: {out['skip']}")
                continue
            if "crash" in out:
                counts["failed"] += 1
                print(f"FAIL {name}: {out['crash']}")
                continue
            obs, exp = out["obs"], out["exp"]
            msg = ("(none)" if obs is None else
                   f"\"{one_line(obs['text'])}\" debug "
                   f"\"{one_line(obs['debug'])}\""
                   + (f" from {obs['src']}" if obs.get("src") else "")
                   + (f" [{obs['code']}]" if obs.get("code") else ""))
            results = check(obs, exp)
            fails = gaps = 0
            for label, (ok, why) in results.items():
                gap = KNOWN_GAPS.get((name, label))
                if ok and gap:
                    print(f"XPASS {name} [{label}]: now passes; drop it from "
                          f"KNOWN_GAPS in tests/docs/error_messages.py")
                elif not ok and gap:
                    gaps += 1
                    print(f"KNOWN-GAP {name} [{label}]: {why}; message: {msg}"
                          f"\n    suggested: {gap}")
                elif not ok:
                    fails += 1
                    print(f"FAIL {name} [{label}]: {why}; message: {msg}")
            note = f" ({exp['note']})" if exp.get("note") else ""
            if fails:
                counts["failed"] += 1
            elif gaps:
                counts["known gaps"] += 1
                print(f"gap  {name}{note}: {gaps} known gap(s)")
            else:
                counts["passed"] += 1
                print(f"ok   {name}{note}: {msg}")
    print(", ".join(f"{v} {k}" for k, v in counts.items()))
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--case":
        run_child(sys.argv[2])
    sys.exit(main())

#!/usr/bin/env python3
"""Writes encbitstream-vectors.h: the test vectors of encbitstream.c.

Each vector is one frame (16x16) encoded by the ffmpeg CLI: libx264 with
the profiles baseline, main, high, high10, high422 and high444, libx265
main, main10, main422-10 and main444-8, libaom-av1 main (4:2:0) and high
(4:4:4). Beside the encoder's access unit, the references the test holds
gst-avhw's writing against:

- FFmpeg's: `ffmpeg -i in -c copy out.mp4` (hvc1 tag for H.265), then the
  avcC / hvcC / av1C box of the MP4 and its first sample (NAL units with
  4-byte lengths);
- GStreamer's: h264parse, h265parse and av1parse, their src caps'
  profile, level and tier.

Run with the system python (PyGObject) from anywhere; it rewrites the
header beside it. Needs ffmpeg with libx264, libx265 and libaom, and the
GStreamer videoparsersbad plugin.
"""
import os
import re
import struct
import subprocess
import sys
import tempfile

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

SIZE = "16x16"
VECTORS = [
    # name, codec, encoder, profile, pix_fmt, drop SEI
    ("h264_baseline", "h264", "libx264", "baseline", "yuv420p", False),
    ("h264_main", "h264", "libx264", "main", "yuv420p", True),
    ("h264_high", "h264", "libx264", "high", "yuv420p", True),
    ("h264_high10", "h264", "libx264", "high10", "yuv420p10le", True),
    ("h264_high422", "h264", "libx264", "high422", "yuv422p", True),
    ("h264_high444", "h264", "libx264", "high444", "yuv444p", True),
    ("h265_main", "h265", "libx265", "main", "yuv420p", True),
    ("h265_main10", "h265", "libx265", "main10", "yuv420p10le", True),
    ("h265_main422_10", "h265", "libx265", "main422-10", "yuv422p10le", True),
    ("h265_main444_8", "h265", "libx265", "main444-8", "yuv444p", True),
    ("av1_main", "av1", "libaom-av1", None, "yuv420p", False),
    ("av1_high", "av1", "libaom-av1", None, "yuv444p", False),
]
# the vectors whose MP4 sample is kept: one per codec (the H.264 one with
# x264's SEI)
SAMPLES = ("h264_baseline", "h265_main")
SAMPLE_ENTRY = {"h264": ("avc1", "avcC"), "h265": ("hvc1", "hvcC"),
                "av1": ("av01", "av1C")}


def ffmpeg(*args):
    subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y"]
                   + list(args), check=True)


def encode(tmp, name, codec, encoder, profile, pix_fmt, drop_sei):
    ext = {"h264": "h264", "h265": "hevc", "av1": "obu"}[codec]
    out = f"{tmp}/{name}.{ext}"
    args = ["-f", "lavfi", "-i", f"testsrc2=size={SIZE}:rate=25",
            "-frames:v", "1", "-pix_fmt", pix_fmt, "-c:v", encoder]
    if profile:
        args += ["-profile:v", profile]
    if encoder == "libx265":
        # info=0: no SEI with x265's version and settings (2 kB)
        args += ["-x265-params", "log-level=error:info=0"]
    if encoder == "libaom-av1":
        args += ["-cpu-used", "8"]
    if drop_sei:
        args += ["-bsf:v", "filter_units=remove_types=6"]
    ffmpeg(*args, out)
    mp4 = f"{tmp}/{name}.mp4"
    tag = ["-tag:v", "hvc1"] if codec == "h265" else []
    ffmpeg("-i", out, "-c", "copy", *tag, mp4)
    return out, mp4


def boxes(d, off, end):
    while off + 8 <= end:
        size, typ = struct.unpack(">I4s", d[off:off + 8])
        yield typ.decode("latin1"), off, off + size
        off += size


# bytes before the child boxes: stsd's entry count, a visual sample entry
HEADERS = {"stsd": 16, "avc1": 86, "hvc1": 86, "av01": 86}


def find_box(d, path, off=0, end=None):
    end = len(d) if end is None else end
    for typ, start, stop in boxes(d, off, end):
        if typ != path[0]:
            continue
        if len(path) == 1:
            return d[start + 8:stop]
        found = find_box(d, path[1:], start + HEADERS.get(typ, 8), stop)
        if found is not None:
            return found
    return None


def mp4_record_and_first_sample(mp4, codec):
    d = open(mp4, "rb").read()
    stbl = ["moov", "trak", "mdia", "minf", "stbl"]
    entry, rec = SAMPLE_ENTRY[codec]
    record = find_box(d, stbl + ["stsd", entry, rec])
    stsz = find_box(d, stbl + ["stsz"])
    stco = find_box(d, stbl + ["stco"])
    # sample_size, or 0 and a table of sizes
    size = struct.unpack(">I", stsz[4:8])[0] or struct.unpack(
        ">I", stsz[12:16])[0]
    offset = struct.unpack(">I", stco[8:12])[0]
    return record, d[offset:offset + size]


def gst_caps(path, codec):
    parse, fmt = {
        "h264": ("h264parse", "video/x-h264,stream-format=byte-stream"),
        "h265": ("h265parse", "video/x-h265,stream-format=byte-stream"),
        "av1": ("av1parse", "video/x-av1,stream-format=obu-stream"),
    }[codec]
    src = f"filesrc location={path} ! "
    if codec == "av1":
        src += "video/x-av1,stream-format=obu-stream ! "
    p = Gst.parse_launch(f"{src}{parse} ! {fmt} ! fakesink name=s")
    p.set_state(Gst.State.PLAYING)
    msg = p.get_bus().timed_pop_filtered(
        10 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    caps = p.get_by_name("s").sinkpads[0].get_current_caps()
    p.set_state(Gst.State.NULL)
    if msg is None or msg.type != Gst.MessageType.EOS or caps is None:
        sys.exit(f"{parse} failed on {path}")
    s = caps.get_structure(0)
    return {k: s.get_string(k) for k in ("profile", "level", "tier")}


def c_bytes(name, data):
    lines = [f"static const guint8 {name}[] = {{"]
    for i in range(0, len(data), 12):
        lines.append("  " + ", ".join(f"0x{b:02x}" for b in data[i:i + 12])
                     + ",")
    lines.append("};")
    return "\n".join(lines)


def c_str(v):
    return f'"{v}"' if v is not None else "NULL"


def main():
    Gst.init(None)
    here = os.path.dirname(os.path.abspath(__file__))
    ver = subprocess.run(["ffmpeg", "-version"], capture_output=True,
                         text=True, check=True).stdout.split()[2]
    out = ["/* Generated by encbitstream-vectors.py: do not edit.",
           f" * FFmpeg {ver}, {Gst.version_string()}",
           " * SPDX-License-Identifier: LGPL-2.1-or-later", " */", ""]
    table = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, codec, encoder, profile, pix_fmt, drop_sei in VECTORS:
            es, mp4 = encode(tmp, name, codec, encoder, profile, pix_fmt,
                             drop_sei)
            au = open(es, "rb").read()
            record, sample = mp4_record_and_first_sample(mp4, codec)
            caps = gst_caps(es, codec)
            seen = ", ".join(f"{k} {v}" for k, v in caps.items() if v)
            out.append(f"/* {encoder} {profile or ''} {pix_fmt}: "
                       f"{seen} */".replace("  ", " "))
            out.append(c_bytes(f"{name}_au", au))
            out.append(c_bytes(f"{name}_record", record))
            keep_sample = name in SAMPLES
            if keep_sample:
                out.append(c_bytes(f"{name}_sample", sample))
            out.append("")
            codec_id = {"h264": "AV_CODEC_ID_H264", "h265": "AV_CODEC_ID_HEVC",
                        "av1": "AV_CODEC_ID_AV1"}[codec]
            sample_ref = (f"{name}_sample, sizeof ({name}_sample)"
                          if keep_sample else "NULL, 0")
            table.append(
                f'  {{"{name}", {codec_id}, {name}_au, sizeof ({name}_au),\n'
                f"      {name}_record, sizeof ({name}_record),\n"
                f"      {sample_ref},\n"
                f"      {c_str(caps['profile'])}, {c_str(caps['level'])}, "
                f"{c_str(caps['tier'])}}},")
    out += ["typedef struct", "{", "  const gchar *name;",
            "  enum AVCodecID codec_id;",
            "  const guint8 *au;            /* the encoder's access unit */",
            "  gsize au_size;",
            "  const guint8 *record;        /* FFmpeg's avcC/hvcC/av1C */",
            "  gsize record_size;",
            "  const guint8 *sample;        /* FFmpeg's MP4 sample, or NULL */",
            "  gsize sample_size;",
            "  const gchar *profile, *level, *tier;  /* the GStreamer parser's */",
            "} Vector;", "", "static const Vector vectors[] = {"]
    out += table
    out += ["};", ""]
    text = "\n".join(out)
    text = re.sub(r"[ \t]+\n", "\n", text)
    with open(os.path.join(here, "encbitstream-vectors.h"), "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Every gst-launch-1.0 line of docs/*.md and README.md runs.

A line is taken from fenced code blocks and indented (code) lines, with
backslash continuations joined and a trailing `# comment` dropped. Before
it runs:
- placeholder inputs (`location=in.mp4`, `uri=file:///path/to/in.mp4`, any
  input file that does not exist) become small clips made with the ffmpeg
  CLI (libx264/libx265, a few frames) in a temporary folder, by name:
  .h264/.264, .h265/.265/.hevc, .mp4/.mkv/.mov (H.265 when the name says
  265 or hevc), .webm/.ivf (VP9); outputs (`filesink location=`) go there
  too;
- sinks that need a display or a sound card (autovideosink, xvimagesink,
  glimagesink...) become fakesink; playbin gets fakesink sinks.
A line whose trailing comment says `FFmpeg X only` is skipped, saying so,
with another FFmpeg (libavfilter's major version, from pkg-config).
Then it must exit 0 within 30 s having reached EOS. A line naming a device
this machine lacks (`device=cuda:0`, `memory:AVHWCUDA`, `avhwvaapih264dec`)
is reported `SKIP <line>: no cuda:0 device`. A line whose element is
missing (a plugin not built yet) fails: docs show only what works.

Prints one line per launch line, then `N passed, N failed, N skipped`.
"""
import glob
import os
import re
import shlex
import subprocess
import sys
import tempfile

from docs_common import SOURCE_ROOT, backend_names, device_status, make_clip

TIMEOUT_S = 30
DISPLAY_SINKS = {"autovideosink", "xvimagesink", "ximagesink", "glimagesink",
                 "waylandsink", "kmssink", "fbdevsink", "gtksink", "gtkglsink",
                 "qmlglsink", "d3d11videosink", "autoaudiosink", "alsasink",
                 "pulsesink", "pipewiresink", "jackaudiosink"}
PLAYBINS = {"playbin", "playbin3"}
OUTPUT_ELEMENTS = {"filesink", "multifilesink", "splitmuxsink"}


def doc_files():
    files = sorted(glob.glob(os.path.join(SOURCE_ROOT, "docs", "*.md")))
    return files + [os.path.join(SOURCE_ROOT, "README.md")]


def extract(path):
    """[(lineno, line)] of the gst-launch-1.0 lines in a Markdown file."""
    out = []
    in_fence = False
    pending = None      # (lineno, text so far) of a continued line
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    for no, raw in enumerate(lines, 1):
        if raw.lstrip().startswith("```"):
            in_fence = not in_fence
            pending = None
            continue
        is_code = in_fence or raw.startswith("    ") or raw.startswith("\t")
        if not is_code:
            pending = None
            continue
        text = raw.strip()
        if pending is not None:
            text = pending[1] + " " + text
            start = pending[0]
        else:
            if text.startswith("$ "):
                text = text[2:].lstrip()
            if not text.startswith("gst-launch-1.0"):
                continue
            start = no
        if text.endswith("\\"):
            pending = (start, text[:-1].rstrip())
            continue
        pending = None
        m = re.search(r"\s+#\s.*$", text)
        comment = m.group(0) if m else ""
        text = text[:m.start()] if m else text
        need = re.search(r"FFmpeg (\d+(?:\.\d+)?) only", comment)
        out.append((start, text + (f" {NEEDS}{need.group(1)}" if need else "")))
    return out


# A line whose trailing comment says "FFmpeg X only" runs only with that
# FFmpeg (libavfilter's major version names it); elsewhere it is skipped,
# saying so. extract() passes the version on behind this marker.
NEEDS = "#needs-ffmpeg="
AVFILTER_MAJOR = {"5.1": 8, "6": 9, "7": 10, "7.1": 10}


def ffmpeg_mismatch(line):
    """Why `line` cannot run with this FFmpeg, or None."""
    if NEEDS not in line:
        return None
    want = line.split(NEEDS, 1)[1]
    try:
        ver = subprocess.run(["pkg-config", "--modversion", "libavfilter"],
                             capture_output=True, text=True).stdout.strip()
        major = int(ver.split(".")[0])
    except (OSError, ValueError):
        return "libavfilter's version is unknown (pkg-config)"
    if AVFILTER_MAJOR.get(want) != major:
        return f"needs FFmpeg {want}, this is libavfilter {ver}"
    return None


def devices_named(argv):
    """Device strings a line needs: device=..., memory:AVHW<Backend> caps
    and avhw<backend>...dec autoplugging elements."""
    backends = backend_names() or ["cuda", "vaapi", "vulkan", "opencl"]
    needs = []
    for tok in argv:
        m = re.match(r"^device=[\"']?([^\"'\s]+)", tok)
        if m and m.group(1) != "auto":
            needs.append(m.group(1))
        for feat in re.findall(r"memory:AVHW([A-Za-z0-9]+)", tok):
            needs.append(feat.lower())
        m = re.match(r"^avhw(%s)[a-z0-9]+dec$" % "|".join(backends), tok)
        if m:
            needs.append(m.group(1))
    for tok in argv:
        # GStreamer's own elements of those APIs (cudaupload, nvh264dec,
        # vah264dec, vapostproc)
        if re.match(r"^(cuda[a-z]+|nv[a-z0-9]+(dec|enc))$", tok):
            needs.append("cuda")
        if re.match(r"^va(api)?[a-z0-9]*(dec|enc|postproc|deinterlace)$", tok):
            needs.append("vaapi")
    return needs


def prepare(argv, tmp):
    """The argv to run: inputs, outputs and sinks replaced."""
    out = []
    element = None
    expect_element = True
    has_playbin = False
    for tok in argv[1:]:
        if tok == "!":
            out.append(tok)
            expect_element = True
            continue
        if expect_element and "=" not in tok and "/" not in tok:
            element = tok
            if tok in DISPLAY_SINKS:
                tok = "fakesink"
            has_playbin |= tok in PLAYBINS
        expect_element = False
        m = re.match(r"^location=(.*)$", tok)
        if m:
            path = m.group(1).strip("\"'")
            if element in OUTPUT_ELEMENTS:
                tok = "location=" + os.path.join(tmp, os.path.basename(path))
            elif not os.path.exists(path):
                tok = "location=" + make_clip(path, tmp)
        m = re.match(r"^uri=file://(.*)$", tok)
        if m and not os.path.exists(m.group(1)):
            tok = "uri=file://" + make_clip(m.group(1), tmp)
        m = re.match(r"^(video-sink|audio-sink)=(.*)$", tok)
        if m and m.group(2) in DISPLAY_SINKS:
            tok = m.group(1) + "=fakesink"
        out.append(tok)
    if has_playbin:
        for prop in ("video-sink", "audio-sink"):
            if not any(t.startswith(prop + "=") for t in out):
                out.append(prop + "=fakesink")
    return [argv[0]] + out


def run_line(line, tmp):
    """('PASS'|'FAIL'|'SKIP', reason)."""
    why = ffmpeg_mismatch(line)
    if why:
        return "SKIP", why
    line = line.split(NEEDS, 1)[0].rstrip()
    try:
        argv = shlex.split(line)
    except ValueError as e:
        return "FAIL", f"cannot split the line: {e}"
    for dev in devices_named(argv):
        state, why = device_status(dev)
        if state == "absent":
            return "SKIP", why
        if state == "broken":
            return "FAIL", why
    try:
        cmd = prepare(argv, tmp)
    except RuntimeError as e:
        return "FAIL", str(e)
    try:
        r = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=TIMEOUT_S, cwd=tmp)
    except subprocess.TimeoutExpired:
        return "FAIL", f"no end within {TIMEOUT_S} s: {shlex.join(cmd)}"
    out = r.stdout + r.stderr
    if r.returncode == 0 and "Got EOS from element" in out:
        return "PASS", ""
    errs = [l for l in out.splitlines()
            if l.startswith("ERROR") or l.startswith("WARNING: erroneous")
            or "no element" in l or "could not link" in l]
    detail = "; ".join(errs[:3]) or out.strip().splitlines()[-1:] or ["?"]
    if isinstance(detail, list):
        detail = detail[0]
    return "FAIL", (f"exit {r.returncode}"
                    + ("" if "Got EOS" in out else ", no EOS")
                    + f": {detail}\n    ran: {shlex.join(cmd)}")


def main():
    counts = {"PASS": 0, "FAIL": 0, "SKIP": 0}
    with tempfile.TemporaryDirectory(prefix="avhw-docs-") as tmp:
        for path in doc_files():
            rel = os.path.relpath(path, SOURCE_ROOT)
            for no, line in extract(path):
                verdict, why = run_line(line, tmp)
                counts[verdict] += 1
                print(f"{verdict} {line}" + (f": {why}" if why else "")
                      + f"  [{rel}:{no}]")
    print(f"{counts['PASS']} passed, {counts['FAIL']} failed, "
          f"{counts['SKIP']} skipped")
    if sum(counts.values()) == 0:
        print("ERROR: no gst-launch-1.0 line found")
        return 1
    return 1 if counts["FAIL"] else 0


if __name__ == "__main__":
    sys.exit(main())

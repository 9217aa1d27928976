#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Bit-exact conformance harness for GStreamer video decoders (avhwdec).

How to run
----------
Use /usr/bin/python3 (it needs PyGObject with Gst/GstVideo typelibs).

    # the element under test, on the default device, against the shared corpus
    tests/conformance/conformance.py ../shared/media/MANIFEST.tsv --device auto \\
        --jobs 2 --expected tests/conformance/expected-software.txt

    # validate the harness itself with GStreamer's software decoders
    tests/conformance/conformance.py ../shared/media/MANIFEST.tsv --decoder decodebin \\
        --jobs 2 --expected tests/conformance/expected-decodebin.txt

    # generated clips (tests/media/make-clips.sh OUTDIR writes OUTDIR/MANIFEST.tsv)
    tests/media/make-clips.sh /tmp/clips
    tests/conformance/conformance.py /tmp/clips/MANIFEST.tsv --decoder decodebin
    tests/conformance/run-clips.sh /tmp/clips --device auto   # both steps in one

    # device memory output downloaded by the element's own downloader
    tests/conformance/conformance.py M.tsv --decoder "avhwdec device=vulkan ! avhwdownload"

    # only some streams, record a new expected list (merged into an existing one)
    tests/conformance/conformance.py M.tsv --filter 'FRExt|CVFC1' --write-expected out.txt

When the element is built but not installed, point GST_PLUGIN_PATH at the build
directory (e.g. GST_PLUGIN_PATH=$BUILD/ext/avhw:$BUILD/backends/vulkan:...), or run
`meson devenv -C build`. tests/conformance/meson.build defines the Meson tests
conformance/media (option media-dir) and conformance/clips; tests/meson.build includes it
with subdir('conformance').

Expected lists: expected-decodebin.txt (GStreamer's own decoders, a sanity list for this
harness) and expected-software.txt (avhwdec on a machine without GPU: vulkan/opencl backends
decode in software); a GPU machine gets its own, e.g. expected-nvidia.txt, written with
--write-expected. Each list covers the shared corpus and the generated clips (names differ).

What it does
------------
For every row of the manifest (the layout of ../shared/media/MANIFEST.tsv: file, codec,
width, height, pix_fmt, frames, ffmpeg_md5, ..., notes) it runs, in a child process:

    filesrc location=F ! parsebin ! <DECODER> ! videoconvert ! video/x-raw,format=<FMT> ! appsink

<DECODER> is `avhwdec device=<--device>` unless --decoder gives another bin description
("decodebin", "avdec_h264", "avdec_h265 ! videoconvert dither=none ! video/x-raw,format=P010_10LE").
The first video pad of parsebin goes to the decoder; other pads (audio) go to a fakesink.
parsebin fixes the stream format before the decoder is linked: H.264 comes as
stream-format=avc and H.265 as hvc1 (even from raw Annex-B files), alignment=au; VP9/AV1 from
IVF, VP8 from IVF. A decoder whose sink caps refuse the stream is a SKIP.
--demuxer names an element (qtdemux) that takes parsebin's place; its pads are not
parsed, so the decoder description starts with a parser (`h264parse ! avhwdec`). Unlike
parsebin's parsers, `qtdemux ! h264parse` leaves an MP4's parameter sets in its codec data
only, none in the stream.
<FMT> is the GStreamer format of the manifest's pix_fmt (FFmpeg's native software format):
yuv420p/yuvj420p->I420, yuv420p10le->I420_10LE, yuv422p->Y42B, yuv444p->Y444, gray->GRAY8,
yuv422p10le->I422_10LE, yuv444p10le->Y444_10LE; other pix_fmts are SKIPped.

The videoconvert only repacks (dither, chroma resampling, matrix/gamma/primaries conversion
are off), so a hardware decoder's NV12 is compared as I420 (lossless) and its P010_10LE as
I420_10LE. P010 keeps the 10-bit value in the top bits; videoconvert's >>6 repack is exact
ONLY with dither=none: with the default (bayer) dither, full_qcif_10f_10bit.265 decoded by
avdec_h265 -> P010_10LE -> I420_10LE gives 6a8e13ed... instead of FFmpeg's 19efbf36....
Checked: --decoder "decodebin ! videoconvert dither=none ! video/x-raw,format=P010_10LE" on
the 10-bit streams and --decoder "decodebin ! videoconvert ! video/x-raw,format=NV12" on
the 8-bit 4:2:0 streams give the same PASS results as plain decodebin.

The MD5 is taken over all frames, each plane's visible rows concatenated without stride
padding, i.e. exactly `ffmpeg -f md5` of rawvideo; the frame count is compared as well. On a
mismatch the per-frame MD5s are compared with framemd5/<basename>.framemd5 next to the
manifest to name the first differing frame. Each output frame is laid out from its own caps,
so a mid-stream resolution change is hashed at each frame's size (like -autoscale 0).

Result per stream, one line: `PASS|FAIL|SKIP|ERROR <file> <reason>`
  PASS   MD5 and frame count match (or an alternate MD5 given in the notes as
         "md5 with <how> = <md5>", e.g. CVFC1's spec crop with -flags unaligned).
  FAIL   wrong MD5 / frame count, timeout (a hang), crash, or a hang at shutdown.
  ERROR  the pipeline posted an error (the bus message is the reason).
  SKIP   no GStreamer format for the pix_fmt, file missing, or the decoder does not
         accept the stream's caps (link refused).
Robustness streams - notes containing "expect: error-or-concealment" or "reflects FFmpeg's
own error concealment", or ffmpeg_md5 NONE - PASS when the decode finishes (EOS or a bus
error) without hang or crash; the reason says whether an error was reported, how many frames
came out and whether they equal FFmpeg's concealment output (not required).

Each stream runs in its own process with --timeout seconds (default 60); the harness kills
it (SIGKILL) after the timeout plus a grace period, so a hung or crashing decoder is a FAIL,
never a hang or crash of the harness.

Expected results: --expected FILE with lines `file<TAB>PASS|FAIL|SKIP[<TAB># reason]`
('#' comments). Exit 1 if a stream expected PASS is now not PASS (regression); improvements
are printed; exit 0 otherwise. Without --expected, exit 1 if any stream FAILs or ERRORs.
--write-expected FILE writes (merges into) such a list from this run; ERROR is written as
FAIL; lines starting with '##' (hand-written notes) are kept. Exit 77 (Meson's SKIP) when the manifest does not exist, 2 when the decoder
description cannot be instantiated. The last line is `N passed, N failed, N skipped`
(failed includes ERROR).
"""

import argparse
import collections
import concurrent.futures
import hashlib
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'pylib'))
from gstcompat import caps_structure  # noqa: E402

# FFmpeg pix_fmt (native software format of the reference) -> GStreamer video format
PIX_FMT_TO_GST = {
    'yuv420p': 'I420',
    'yuvj420p': 'I420',  # same bytes as yuv420p, full range
    'yuv420p10le': 'I420_10LE',
    'yuv422p': 'Y42B',
    'yuvj422p': 'Y42B',
    'yuv444p': 'Y444',
    'yuvj444p': 'Y444',
    'gray': 'GRAY8',
    'yuv422p10le': 'I422_10LE',
    'yuv444p10le': 'Y444_10LE',
    'yuv420p12le': 'I420_12LE',
    'yuv422p12le': 'I422_12LE',
    'yuv444p12le': 'Y444_12LE',
}

ROBUST_MARKERS = ('expect: error-or-concealment', "reflects FFmpeg's own error concealment")
DISPUTED_MARKERS = ('UNRESOLVED', 'REFERENCE DISAGREEMENT')
ALT_MD5_RE = re.compile(r'md5 with ([^=|]+?) = ([0-9a-f]{32})')

CONVERT = ('videoconvert name=harness_convert qos=false dither=none chroma-mode=none '
           'matrix-mode=none gamma-mode=none primaries-mode=none')
RESULT_TAG = '@@CONFORMANCE-RESULT@@ '
STREAM_TAG = '@@CONFORMANCE-STREAM@@ '
CACHE_TAG = '@@CONFORMANCE-DECODER-CACHE@@ '
TEARDOWN_TAG = '@@CONFORMANCE-TEARDOWN-OK@@'
GRACE_S = 15


# ---------------------------------------------------------------------------------------
# worker: one decode in this process, result as one JSON line on stdout
# ---------------------------------------------------------------------------------------

def plane_layout(info):
    """[(plane, row_bytes, rows)] of the visible area for a planar/semi-planar format."""
    fi = info.finfo
    out = []
    for p in range(fi.n_planes):
        comps = [c for c in range(fi.n_components) if fi.plane[c] == p]
        c = comps[0]
        w = -((-info.width) >> fi.w_sub[c])
        h = -((-info.height) >> fi.h_sub[c])
        out.append((p, w * fi.pixel_stride[c], h))
    return out


def chain_desc(decoder, fmt):
    return ('identity name=harness_in silent=true ! %s ! %s ! video/x-raw,format=%s ! '
            'appsink name=harness_sink sync=false emit-signals=true enable-last-sample=false' % (
                decoder, CONVERT, fmt))


def worker(job):
    import gi
    gi.require_version('Gst', '1.0')
    gi.require_version('GstVideo', '1.0')
    from gi.repository import Gst, GstVideo, GLib
    Gst.init(None)
    return run_job(job, Gst, GstVideo, GLib)


def worker_many(spec):
    """Decodes spec['jobs'] one after the other in this one process (--one-process)."""
    import gi
    gi.require_version('Gst', '1.0')
    gi.require_version('GstVideo', '1.0')
    from gi.repository import Gst, GstVideo, GLib
    Gst.init(None)
    try:
        gi.require_version('GstAvhw', '1.0')
        from gi.repository import GstAvhw
        GstAvhw.init()
        if spec.get('decoders_limit') is not None:
            GstAvhw.cache_set_decoders_limit(spec['decoders_limit'])
    except (ValueError, ImportError):
        GstAvhw = None
    for i, job in enumerate(spec['jobs']):
        print(STREAM_TAG + str(i), flush=True)
        run_job(job, Gst, GstVideo, GLib)
    if GstAvhw is not None:
        n_cached, hits, misses = GstAvhw.cache_get_decoder_stats()
        print(CACHE_TAG + json.dumps({'kept': n_cached, 'hits': hits, 'misses': misses,
                                      'limit': GstAvhw.cache_get_decoders_limit()}), flush=True)
    return 0


def run_job(job, Gst, GstVideo, GLib):
    res = {'frames': 0, 'md5': None, 'frame_md5s': [], 'frame_sizes': [], 'dims': [],
           'dec_formats': [], 'in_caps': None, 'error': None, 'warnings': [],
           'eos': False, 'timed_out': False, 'link_refused': None, 'decoders': [],
           'elapsed': 0.0}
    lock = threading.Lock()
    total = hashlib.md5()
    layout_cache = {}

    pipeline = Gst.Pipeline.new('conformance')
    src = Gst.ElementFactory.make('filesrc', None)
    src.set_property('location', job['path'])
    # --demuxer: a demuxer alone instead (its pads unparsed: the chain parses)
    pb = Gst.ElementFactory.make(job.get('demuxer') or 'parsebin', None)
    # identity marks the chain's entry: parse_bin_from_description's ghosting of "unlinked"
    # pads would pick videoconvert's sink while decodebin's delayed link is pending.
    desc = chain_desc(job['decoder'], job['format'])
    try:
        chain = Gst.parse_bin_from_description(desc, False)
    except GLib.Error as e:
        res['error'] = 'cannot build pipeline "%s": %s' % (desc, e.message)
        print(RESULT_TAG + json.dumps(res), flush=True)
        return 0
    chain_sink = Gst.GhostPad.new('sink', chain.get_by_name('harness_in').get_static_pad('sink'))
    chain.add_pad(chain_sink)
    for e in (src, pb, chain):
        pipeline.add(e)
    src.link(pb)
    sink = chain.get_by_name('harness_sink')
    conv = chain.get_by_name('harness_convert')
    state = {'linked': False}

    def add_fakesink(pad):
        fs = Gst.ElementFactory.make('fakesink', None)
        fs.set_property('sync', False)
        fs.set_property('async', False)
        pipeline.add(fs)
        fs.sync_state_with_parent()
        pad.link(fs.get_static_pad('sink'))

    def on_pad_added(_pb, pad):
        caps = pad.get_current_caps() or pad.query_caps(None)
        name = caps_structure(caps).get_name() if caps and caps.get_size() else ''
        with lock:
            if name.startswith('video/') and not state['linked']:
                state['linked'] = True
                res['in_caps'] = caps.to_string()
                try:
                    ret = pad.link(chain_sink)
                except Exception as e:  # gi overrides raise LinkError
                    ret = e.args[0] if e.args else Gst.PadLinkReturn.REFUSED
                if ret != Gst.PadLinkReturn.OK:
                    short = re.sub(r', codec_data=\(buffer\)[0-9a-f]+', '', caps.to_string())
                    res['link_refused'] = '%s refused %s (%s)' % (
                        job['decoder'], short[:160], ret.value_nick)
                else:
                    return
        add_fakesink(pad)

    pb.connect('pad-added', on_pad_added)

    def on_new_sample(appsink):
        sample = appsink.emit('pull-sample')
        if sample is None:
            return Gst.FlowReturn.EOS
        buf = sample.get_buffer()
        caps = sample.get_caps()
        key = caps.to_string()
        ent = layout_cache.get(key)
        if ent is None:
            info = GstVideo.VideoInfo.new_from_caps(caps)
            ent = (info, plane_layout(info))
            layout_cache[key] = ent
        info, layout = ent
        vmeta = GstVideo.buffer_get_video_meta(buf)
        ok, mi = buf.map(Gst.MapFlags.READ)
        if not ok:
            res['error'] = 'cannot map output buffer'
            return Gst.FlowReturn.ERROR
        try:
            data = mi.data
            fh = hashlib.md5()
            nbytes = 0
            for p, rowb, rows in layout:
                off = vmeta.offset[p] if vmeta else info.offset[p]
                stride = vmeta.stride[p] if vmeta else info.stride[p]
                if stride == rowb:
                    chunk = data[off:off + rowb * rows]
                    fh.update(chunk)
                    total.update(chunk)
                else:
                    for r in range(rows):
                        chunk = data[off + r * stride:off + r * stride + rowb]
                        fh.update(chunk)
                        total.update(chunk)
                nbytes += rowb * rows
        finally:
            buf.unmap(mi)
        with lock:
            res['frame_md5s'].append(fh.hexdigest())
            res['frame_sizes'].append(nbytes)
            dim = '%dx%d' % (info.width, info.height)
            changed = not res['dims'] or res['dims'][-1][1] != dim
            if changed:
                res['dims'].append((len(res['frame_md5s']) - 1, dim))
            if conv is not None and changed:
                c = conv.get_static_pad('sink').get_current_caps()
                if c is not None:
                    f = caps_structure(c).get_value('format')
                    feat = c.get_features(0).to_string()
                    tag = f if feat == 'memory:SystemMemory' else '%s(%s)' % (f, feat)
                    if tag not in res['dec_formats']:
                        res['dec_formats'].append(tag)
        return Gst.FlowReturn.OK

    sink.connect('new-sample', on_new_sample)

    bus = pipeline.get_bus()
    t0 = time.monotonic()
    deadline = t0 + job['timeout']
    pipeline.set_state(Gst.State.PLAYING)
    mask = Gst.MessageType.ERROR | Gst.MessageType.EOS | Gst.MessageType.WARNING
    while True:
        if res['link_refused']:
            break
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            res['timed_out'] = True
            break
        msg = bus.timed_pop_filtered(int(min(remaining, 0.25) * Gst.SECOND), mask)
        if msg is None:
            continue
        if msg.type == Gst.MessageType.ERROR:
            err, dbg = msg.parse_error()
            where = msg.src.get_name() if msg.src else '?'
            res['error'] = '%s: %s' % (where, err.message)
            # debug = "file(line): func (): /element/path:\ndetail"; keep the detail
            detail = ' '.join(l.strip() for l in (dbg or '').splitlines()[1:]).strip()
            if detail:
                res['error_debug'] = detail[:300]
            break
        if msg.type == Gst.MessageType.EOS:
            res['eos'] = True
            break
        if msg.type == Gst.MessageType.WARNING:
            res['n_warnings'] = res.get('n_warnings', 0) + 1
            if len(res['warnings']) < 5:
                w, _dbg = msg.parse_warning()
                res['warnings'].append('%s: %s' % (msg.src.get_name() if msg.src else '?', w.message))
    res['elapsed'] = round(time.monotonic() - t0, 3)

    # names of the decoder elements that actually ran (decodebin picks one)
    it = pipeline.iterate_recurse()
    while True:
        r, el = it.next()
        if r != Gst.IteratorResult.OK:
            break
        f = el.get_factory()
        if f and 'Decoder' in (f.get_metadata('klass') or ''):
            res['decoders'].append(f.get_name())

    with lock:
        res['frames'] = len(res['frame_md5s'])
        res['md5'] = total.hexdigest()
        print(RESULT_TAG + json.dumps(res), flush=True)
    if res['timed_out']:
        # do not risk blocking in set_state(NULL) of a hung element
        os._exit(0)
    pipeline.set_state(Gst.State.NULL)
    print(TEARDOWN_TAG, flush=True)
    return 0


# ---------------------------------------------------------------------------------------
# parent
# ---------------------------------------------------------------------------------------

Result = collections.namedtuple('Result', 'file codec status reason elapsed')


def read_manifest(path):
    rows = []
    with open(path, encoding='utf-8') as f:
        header = f.readline().rstrip('\n').split('\t')
        for line in f:
            line = line.rstrip('\n')
            if not line.strip() or line.startswith('#'):
                continue
            vals = line.split('\t')
            vals += [''] * (len(header) - len(vals))
            rows.append(dict(zip(header, vals)))
    return rows


def read_framemd5(path):
    """[(size, md5)] of stream 0, or None."""
    try:
        out = []
        with open(path, encoding='utf-8') as f:
            for line in f:
                if line.startswith('#') or not line.strip():
                    continue
                parts = [p.strip() for p in line.split(',')]
                if parts[0] != '0':
                    continue
                out.append((int(parts[4]), parts[5]))
        return out
    except OSError:
        return None


def read_expected(path):
    exp = {}
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.rstrip('\n')
            if not line.strip() or line.startswith('#'):
                continue
            parts = line.split('\t')
            if len(parts) >= 2:
                exp[parts[0]] = parts[1].strip()
    return exp


def write_expected(path, results, order, cmdline):
    old = {}
    notes = []
    if os.path.exists(path):
        with open(path, encoding='utf-8') as f:
            for line in f:
                if line.startswith('##'):
                    notes.append(line.rstrip('\n'))  # hand-written notes are kept
                if line.startswith('#') or not line.strip():
                    continue
                parts = line.rstrip('\n').split('\t')
                old[parts[0]] = line.rstrip('\n')
    new = dict(old)
    for r in results:
        st = 'FAIL' if r.status == 'ERROR' else r.status
        reason = r.reason.replace('\t', ' ').replace('\n', ' ')
        new[r.file] = '%s\t%s\t# %s%s' % (r.file, st, 'ERROR: ' if r.status == 'ERROR' else '',
                                          reason[:200])
    # keep the existing order, add new streams in manifest order
    keys = list(old) + [k for k in order if k not in old]
    with open(path, 'w', encoding='utf-8') as f:
        f.write('# expected conformance results: file<TAB>PASS|FAIL|SKIP<TAB># reason\n')
        f.write('# last written by: %s\n' % cmdline)
        for n in notes:
            f.write(n + '\n')
        for k in keys:
            f.write(new[k] + '\n')


def evaluate(entry, mdir, out, rc, killed, stderr, timeout):
    file = entry['file']
    notes = entry.get('notes', '')
    robust = (any(m in notes for m in ROBUST_MARKERS)
              or entry.get('ffmpeg_md5', '').strip().upper() in ('', 'NONE'))
    res = None
    teardown_ok = False
    for line in out.splitlines():
        if line.startswith(RESULT_TAG):
            res = json.loads(line[len(RESULT_TAG):])
        elif line.startswith(TEARDOWN_TAG):
            teardown_ok = True
    tail = ' | '.join(l for l in stderr.strip().splitlines()[-3:])[:300]

    if res is None:
        if killed:
            return 'FAIL', 'hang: no result after %ds, child killed' % (timeout + GRACE_S)
        if rc < 0:
            return 'FAIL', 'crash: %s%s' % (signal.Signals(-rc).name, (' (' + tail + ')') if tail else '')
        return 'ERROR', 'worker failed (rc=%d)%s' % (rc, (': ' + tail) if tail else '')
    if res.get('link_refused'):
        return 'SKIP', 'decoder does not accept the stream: ' + res['link_refused']
    info = []
    if res['decoders']:
        info.append(','.join(res['decoders']))
    if res['dec_formats']:
        info.append('out ' + '/'.join(res['dec_formats']))
    info = (' [%s]' % '; '.join(info)) if info else ''
    if res['timed_out']:
        return 'FAIL', 'timeout after %ds (hang), %d frames so far%s' % (timeout, res['frames'], info)
    if killed:
        return 'FAIL', 'hang at shutdown (set_state NULL) after %d frames%s' % (res['frames'], info)
    if rc < 0:
        return 'FAIL', 'crash at shutdown: %s after %d frames%s' % (signal.Signals(-rc).name, res['frames'], info)
    if not teardown_ok:
        return 'FAIL', 'worker exited rc=%d before teardown finished%s' % (rc, info)

    ref_md5 = entry.get('ffmpeg_md5', '').strip().lower()
    try:
        ref_frames = int(entry.get('frames') or 0)
    except ValueError:
        ref_frames = -1
    md5_ok = res['md5'] == ref_md5 and res['frames'] == ref_frames

    if robust:
        if res['error']:
            told = 'error reported: ' + res['error']
        elif res['warnings']:
            told = 'no error; %d warning(s): %s' % (res.get('n_warnings', 0),
                                                    ' / '.join(res['warnings'])[:200])
        else:
            told = 'no error or warning reported'
        return 'PASS', 'robustness: finished without hang/crash (%s), %d frames%s, %s%s' % (
            'EOS' if res['eos'] else 'stopped on error',
            res['frames'],
            ' (ref %d)' % ref_frames if ref_frames >= 0 else '',
            told,
            ', equals FFmpeg output' if md5_ok else '') + info

    if res['error']:
        dbg = res.get('error_debug')
        return 'ERROR', '%s%s (after %d frames)%s' % (
            res['error'], (' [' + dbg + ']') if dbg else '', res['frames'], info)
    want = '%sx%s' % (entry.get('width'), entry.get('height'))
    dims = ','.join('%s@%d' % (d, i) if i else d for i, d in res['dims'])
    if md5_ok:
        size = '' if not res['dims'] or res['dims'][0][1] == want else \
            ' (output %s, manifest says %s)' % (dims, want)
        if not size and len(res['dims']) > 1:
            size = ' (sizes %s)' % dims
        return 'PASS', 'md5 ok, %d frames%s%s' % (res['frames'], size, info)
    for how, alt in ALT_MD5_RE.findall(notes):
        if res['md5'] == alt:
            return 'PASS', 'md5 equals the alternate reference (%s) from the notes, %d frames%s' % (
                how.strip(), res['frames'], info)

    why = []
    if res['frames'] != ref_frames:
        why.append('%d frames, ref %d' % (res['frames'], ref_frames))
    if res['dims'] and res['dims'][0][1] != want:
        why.append('size %s, manifest %s' % (dims, want))
    ref = read_framemd5(os.path.join(mdir, 'framemd5', os.path.basename(file) + '.framemd5'))
    if ref is None:
        why.append('no framemd5 to locate the first differing frame')
    else:
        got = list(zip(res['frame_sizes'], res['frame_md5s']))
        first = None
        for i, (g, r) in enumerate(zip(got, ref)):
            if g != r:
                first = i
                break
        if first is not None:
            g, r = got[first], ref[first]
            d = '' if g[0] == r[0] else ' (%d bytes, ref %d)' % (g[0], r[0])
            why.append('first differing frame #%d%s' % (first, d))
            # dropped frames: is the output the reference with some frames left out?
            if len(got) < len(ref):
                j, missing = 0, []
                for i, fr in enumerate(ref):
                    if j < len(got) and got[j] == fr:
                        j += 1
                    else:
                        missing.append(i)
                if j == len(got):
                    why.append('every output frame is bit-exact but reference frames %s%s are '
                               'missing' % (','.join('#%d' % m for m in missing[:10]),
                                            '...' if len(missing) > 10 else ''))
        elif len(got) != len(ref):
            why.append('first %d frames identical, then %d extra/missing' % (
                min(len(got), len(ref)), abs(len(got) - len(ref))))
        else:
            why.append('per-frame md5s equal but total differs?!')
    if any(m in notes for m in DISPUTED_MARKERS):
        why.append('reference disputed per manifest notes')
    return 'FAIL', 'md5 mismatch: ' + '; '.join(why) + info


def run_child(args, timeout):
    """This script with ARGS in a child process of its own session, killed with its
    group after TIMEOUT seconds. Returns (stdout, stderr, returncode, killed)."""
    cmd = [sys.executable, os.path.abspath(__file__)] + args
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True, text=True, errors='replace')
    killed = False
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        killed = True
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = proc.communicate()
    return out, err, proc.returncode, killed


def run_one(entry, mdir, opts):
    file = entry['file']
    codec = entry.get('codec') or (file.split('/')[0] if '/' in file else '?')
    t0 = time.monotonic()
    job, skipped = make_job(entry, mdir, opts)
    if job is None:
        return skipped
    out, err, rc, killed = run_child(['--worker', json.dumps(job)], opts.timeout + GRACE_S)
    status, reason = evaluate(entry, mdir, out, rc, killed, err, opts.timeout)
    if opts.verbose and err.strip():
        reason += '\n    stderr: ' + err.strip().replace('\n', '\n    stderr: ')[-2000:]
    return Result(file, codec, status, reason, time.monotonic() - t0)


def make_job(entry, mdir, opts):
    """(job, None) for a stream to decode, or (None, Result) for one that is not run."""
    file = entry['file']
    codec = entry.get('codec') or (file.split('/')[0] if '/' in file else '?')
    path = os.path.join(mdir, file)
    if not os.path.exists(path):
        return None, Result(file, codec, 'SKIP', 'file missing: ' + path, 0.0)
    pix = entry.get('pix_fmt', '').strip()
    robust = (any(m in entry.get('notes', '') for m in ROBUST_MARKERS)
              or entry.get('ffmpeg_md5', '').strip().upper() in ('', 'NONE'))
    fmt = PIX_FMT_TO_GST.get(pix)
    if fmt is None:
        if robust and not pix:
            fmt = 'I420'
        else:
            return None, Result(file, codec, 'SKIP', 'no GStreamer format for pix_fmt "%s"' % pix, 0.0)
    return {'path': path, 'format': fmt, 'decoder': opts.decoder_desc, 'timeout': opts.timeout,
            'demuxer': opts.demuxer}, None


def run_many(entries, mdir, opts):
    """Every entry, in this order, in ONE child process (decoders and devices kept from
    stream to stream, as an application decoding many files does). Returns (results,
    decoder cache stats or None)."""
    results = [None] * len(entries)
    jobs, where = [], []
    for i, e in enumerate(entries):
        job, skipped = make_job(e, mdir, opts)
        if job is None:
            results[i] = skipped
        else:
            where.append(i)
            jobs.append(job)
    spec = {'jobs': jobs, 'decoders_limit': opts.decoders_limit}
    t0 = time.monotonic()
    # in a file: thousands of jobs do not fit on a command line
    with tempfile.NamedTemporaryFile('w', suffix='.json', prefix='conformance-') as f:
        json.dump(spec, f)
        f.flush()
        out, err, rc, killed = run_child(['--worker-many', '@' + f.name],
                                         sum(j['timeout'] for j in jobs) + GRACE_S)
    chunks, stats, cur = {}, None, None
    for line in out.splitlines():
        if line.startswith(STREAM_TAG):
            cur = int(line[len(STREAM_TAG):])
            chunks[cur] = []
        elif line.startswith(CACHE_TAG):
            stats = json.loads(line[len(CACHE_TAG):])
        elif cur is not None:
            chunks[cur].append(line)
    last = max(chunks) if chunks else -1
    for k, i in enumerate(where):
        e = entries[i]
        codec = e.get('codec') or '?'
        if k not in chunks:
            results[i] = Result(e['file'], codec, 'FAIL', 'not run: the process ended in stream %d '
                                '(%s)' % (last, entries[where[last]]['file'] if last >= 0 else '-'), 0.0)
            continue
        done = k < last or (rc == 0 and not killed)
        status, reason = evaluate(e, mdir, '\n'.join(chunks[k]), 0 if done else rc,
                                  killed and not done, err if not done else '', opts.timeout)
        results[i] = Result(e['file'], codec, status, reason, 0.0)
    if opts.verbose and err.strip():
        print('# worker stderr:\n' + err.strip()[-4000:])
    print('# one process: %d streams in %.1f s' % (len(jobs), time.monotonic() - t0))
    return results, stats


def check_decoder(desc):
    import gi
    gi.require_version('Gst', '1.0')
    from gi.repository import Gst, GLib
    Gst.init(None)
    try:
        Gst.parse_bin_from_description(chain_desc(desc, 'I420'), False)
    except GLib.Error as e:
        return e.message
    return None


def main(argv):
    if len(argv) >= 2 and argv[0] == '--worker':
        return worker(json.loads(argv[1]))
    if len(argv) >= 2 and argv[0] == '--worker-many':
        with open(argv[1][1:]) as f:
            return worker_many(json.load(f))

    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('manifest', help='MANIFEST.tsv (file paths are relative to its folder)')
    ap.add_argument('--device', default='auto', help='avhwdec device (default: auto)')
    ap.add_argument('--decoder', default=None,
                    help='decoder bin description instead of "avhwdec device=DEVICE" '
                         '(e.g. decodebin, avdec_h264)')
    ap.add_argument('--demuxer', default=None,
                    help='a demuxer (e.g. qtdemux) in place of parsebin; the decoder '
                         'description then starts with a parser')
    ap.add_argument('--filter', default=None, help='regex (or substring) matched against file names')
    ap.add_argument('--expected', default=None, help='expected-results list; exit 1 on regressions')
    ap.add_argument('--write-expected', default=None, help='write/merge an expected-results list')
    ap.add_argument('--jobs', '-j', type=int, default=1, help='streams decoded in parallel')
    ap.add_argument('--timeout', type=int, default=60, help='seconds per stream (default 60)')
    ap.add_argument('--verbose', '-v', action='store_true', help='append the worker stderr')
    ap.add_argument('--one-process', action='store_true',
                    help='decode every stream in one child process, one after the other '
                         '(devices and decoders kept between streams); --jobs is ignored')
    ap.add_argument('--shuffle', type=int, default=None, metavar='SEED',
                    help='with --one-process: shuffled order (seeded; each pass its own order)')
    ap.add_argument('--passes', type=int, default=1,
                    help='with --one-process: decode the list this many times over')
    ap.add_argument('--first', default='',
                    help='with --one-process: comma-separated files decoded first, in this '
                         'order (repeats allowed), before the passes')
    ap.add_argument('--decoders-limit', type=int, default=None,
                    help='with --one-process: gst_avhw_cache_set_decoders_limit() in the child')
    ap.add_argument('--expect-reuse', action='store_true',
                    help='with --one-process: fail unless the decoder cache had hits')
    ap.add_argument('--max-misses', type=int, default=None,
                    help='with --one-process: fail when the decoder cache missed more often '
                         '(decoders opened)')
    opts = ap.parse_args(argv)

    if not os.path.isfile(opts.manifest):
        print('SKIP: manifest not found: %s' % opts.manifest)
        return 77
    opts.decoder_desc = opts.decoder or 'avhwdec device=%s' % opts.device
    problem = check_decoder(opts.decoder_desc)
    if problem:
        print('error: cannot create decoder "%s": %s' % (opts.decoder_desc, problem), file=sys.stderr)
        print('(is GST_PLUGIN_PATH pointing at the build directory?)', file=sys.stderr)
        return 2

    mdir = os.path.dirname(os.path.abspath(opts.manifest))
    entries = read_manifest(opts.manifest)
    if opts.filter:
        rx = re.compile(opts.filter)
        entries = [e for e in entries if rx.search(e['file']) or opts.filter in e['file']]
    expected = read_expected(opts.expected) if opts.expected else None

    print('# manifest %s: %d streams, decoder "%s", jobs %d, timeout %ds' % (
        opts.manifest, len(entries), opts.decoder_desc, opts.jobs, opts.timeout), flush=True)
    t0 = time.monotonic()
    results = []
    stats = None
    if opts.one_process:
        by_file = {e['file']: e for e in entries}
        order = [by_file[f] for f in opts.first.split(',') if f in by_file]
        missing = [f for f in opts.first.split(',') if f and f not in by_file]
        if missing:
            print('error: --first names streams not in the manifest: %s' % ', '.join(missing),
                  file=sys.stderr)
            return 2
        for p in range(max(1, opts.passes)):
            batch = list(entries)
            if opts.shuffle is not None:
                random.Random(opts.shuffle + p).shuffle(batch)
            order += batch
        results, stats = run_many(order, mdir, opts)
        for r in results:
            print('%s %s %s' % (r.status, r.file, r.reason), flush=True)
    else:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, opts.jobs)) as ex:
            for r in ex.map(lambda e: run_one(e, mdir, opts), entries):
                results.append(r)
                print('%s %s %s' % (r.status, r.file, r.reason), flush=True)
    wall = time.monotonic() - t0

    per_codec = collections.OrderedDict()
    for r in results:
        c = per_codec.setdefault(r.codec, collections.Counter())
        c[r.status] += 1
        c['total'] += 1
    print('\n# summary (%.1f s wall, decoder "%s")' % (wall, opts.decoder_desc))
    for codec, c in per_codec.items():
        print('#   %-6s %3d/%-3d passed  (%d failed, %d error, %d skipped)' % (
            codec, c['PASS'], c['total'], c['FAIL'], c['ERROR'], c['SKIP']))

    rc = 0
    if opts.one_process:
        if stats is None:
            print('# decoder cache: no stats (GstAvhw typelib not found: GI_TYPELIB_PATH)')
        else:
            print('# decoder cache: %(hits)d hits, %(misses)d misses, %(kept)d kept at the end '
                  '(limit %(limit)d per device)' % stats)
        if opts.expect_reuse and (stats is None or stats['hits'] == 0):
            print('REUSE: --expect-reuse, but no decoder was reused')
            rc = 1
        if opts.max_misses is not None and (stats is None or stats['misses'] > opts.max_misses):
            print('REUSE: --max-misses %d, but %s decoders were opened'
                  % (opts.max_misses, '?' if stats is None else stats['misses']))
            rc = 1
    if expected is not None:
        regressions, improvements, new = [], [], []
        for r in results:
            e = expected.get(r.file)
            if e is None:
                new.append(r)
            elif e == 'PASS' and r.status != 'PASS':
                regressions.append(r)
            elif e != 'PASS' and r.status == 'PASS':
                improvements.append((e, r))
        for e, r in improvements:
            print('IMPROVEMENT %s: expected %s, now PASS (update %s)' % (r.file, e, opts.expected))
        for r in new:
            print('NEW %s: not in the expected list, %s' % (r.file, r.status))
        for r in regressions:
            print('REGRESSION %s: expected PASS, now %s: %s' % (r.file, r.status, r.reason))
        print('# %d regressions, %d improvements vs %s' % (len(regressions), len(improvements),
                                                           opts.expected))
        rc = 1 if regressions or rc else 0
    elif not opts.write_expected:
        rc = 1 if rc or any(r.status in ('FAIL', 'ERROR') for r in results) else 0

    if opts.write_expected:
        cmdline = 'conformance.py ' + ' '.join(a for a in argv if a != opts.write_expected
                                               and a != '--write-expected')
        write_expected(opts.write_expected, results, [e['file'] for e in entries], cmdline)
        print('# wrote %s' % opts.write_expected)

    n = collections.Counter(r.status for r in results)
    print('%d passed, %d failed, %d skipped' % (n['PASS'], n['FAIL'] + n['ERROR'], n['SKIP']))
    return rc


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))

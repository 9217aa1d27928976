#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Deterministic damage for Annex-B test clips (stdlib only; used by make-clips.sh).

  mangle.py corrupt  IN OUT [--seed S]   overwrite 4 runs of 16 pseudo-random bytes
                                         (SHA-256 counter stream of the seed) in the
                                         middle third of the file, inside NAL payloads
  mangle.py truncate IN OUT              cut in the middle of the NAL unit that holds
                                         the point at 60 % of the file

Prints a one-line description (offsets) for the manifest notes.
"""

import hashlib
import sys


def nal_spans(d):
    """[(payload_start, end)] of the Annex-B NAL units (start code excluded)."""
    starts = []
    i = d.find(b'\x00\x00\x01')
    while i >= 0:
        starts.append(i + 3)
        i = d.find(b'\x00\x00\x01', i + 3)
    spans = []
    for k, s in enumerate(starts):
        e = starts[k + 1] - 3 if k + 1 < len(starts) else len(d)
        while k + 1 < len(starts) and e > s and d[e - 1] == 0:  # 4-byte start code
            e -= 1
        spans.append((s, e))
    return spans


def prng(seed, n):
    out = b''
    c = 0
    while len(out) < n:
        out += hashlib.sha256(b'%s:%d' % (seed.encode(), c)).digest()
        c += 1
    return out[:n]


def corrupt(d, seed):
    d = bytearray(d)
    runs, run_len = 4, 16
    lo, hi = len(d) // 3, 2 * len(d) // 3
    spans = [(s, e) for s, e in nal_spans(d) if e > lo and s < hi and e - s > 3 * run_len]
    if not spans:
        raise SystemExit('corrupt: no NAL big enough in the middle third')
    noise = prng(seed, runs * (run_len + 8))
    done = []
    for r in range(runs):
        s, e = spans[(r * len(spans)) // runs]
        # skip the NAL header and the first bytes of the slice header
        span = e - s - 8 - run_len
        off = s + 8 + int.from_bytes(noise[r * (run_len + 8):r * (run_len + 8) + 4], 'big') % max(span, 1)
        d[off:off + run_len] = noise[r * (run_len + 8) + 8:r * (run_len + 8) + 8 + run_len]
        done.append(off)
    return bytes(d), 'corrupt: %d runs of %d pseudo-random bytes (seed %s) at offsets %s of %d' % (
        runs, run_len, seed, ','.join(map(str, done)), len(d))


def truncate(d):
    point = len(d) * 6 // 10
    for s, e in nal_spans(d):
        if s <= point < e:
            cut = s + (e - s) // 2
            return d[:cut], 'truncated: cut at byte %d of %d, mid-NAL (NAL %d..%d, header 0x%02x)' % (
                cut, len(d), s, e, d[s])
    raise SystemExit('truncate: no NAL at %d' % point)


def main(argv):
    if len(argv) < 3 or argv[0] not in ('corrupt', 'truncate'):
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1], 'rb') as f:
        d = f.read()
    seed = argv[argv.index('--seed') + 1] if '--seed' in argv else '1'
    out, desc = corrupt(d, seed) if argv[0] == 'corrupt' else truncate(d)
    with open(argv[2], 'wb') as f:
        f.write(out)
    print(desc)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))

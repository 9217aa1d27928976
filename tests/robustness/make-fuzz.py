#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Damaged copies of the corpus's small H.264, H.265 and VP9 streams, for
tests/robustness/robustness.sh (stdlib only, deterministic).

  make-fuzz.py MEDIA_DIR OUT_DIR [--seeds N] [--max-bytes B] [--total-bytes T]
               [--codecs h264,hevc,h265,vp9]

Takes the streams of MEDIA_DIR/MANIFEST.tsv with one of the codecs (default
h264, hevc/h265, vp9) of at most B bytes (default 60000), smallest first, until T bytes of
sources (default 120000), and writes for each seed s in 0..N-1 (default 5):
  NAME.ow<s>  1-8 runs of 1-64 bytes overwritten (random, zero or 0xff) in
              the middle 80 % of the file
  NAME.tr<s>  cut at a random point (seed 0: within the first 400 bytes, the
              headers)
  NAME.hb<s>  1-8 bits flipped in the first 200 bytes (SPS/PPS/VPS, IVF header)
Each seed's random numbers come from CRC-32 of "path:seed", so the same
corpus gives the same files.
"""
import argparse
import os
import random
import zlib

CODECS = "h264,hevc,h265,vp9"


def sources(media, codecs, max_bytes, total_bytes):
    rows = []
    with open(os.path.join(media, "MANIFEST.tsv")) as f:
        head = f.readline().rstrip("\n").split("\t")
        for line in f:
            r = dict(zip(head, line.rstrip("\n").split("\t")))
            if r.get("codec") in codecs and int(r.get("size_bytes", 0)) <= max_bytes:
                rows.append((int(r["size_bytes"]), r["file"]))
    out, total = [], 0
    for size, path in sorted(rows):
        if total + size > total_bytes:
            break
        out.append(path)
        total += size
    return out


def damage(data, path, seed):
    r = random.Random(zlib.crc32(f"{path}:{seed}".encode()))
    n = len(data)
    ow = bytearray(data)
    for _ in range(r.randint(1, 8)):
        length = r.randint(1, 64)
        off = r.randint(n // 10, max(n // 10 + 1, 9 * n // 10 - length))
        mode = r.choice(["rand", "zero", "ff"])
        fill = (bytes(r.getrandbits(8) for _ in range(length)) if mode == "rand"
                else (b"\0" if mode == "zero" else b"\xff") * length)
        ow[off:off + length] = fill
    cut = r.randint(1, min(n - 1, 400)) if seed == 0 else r.randint(1, n - 1)
    hb = bytearray(data)
    for _ in range(r.randint(1, 8)):
        hb[r.randrange(min(200, n))] ^= 1 << r.randrange(8)
    return {"ow": bytes(ow), "tr": data[:cut], "hb": bytes(hb)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("media")
    ap.add_argument("out")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--max-bytes", type=int, default=60000)
    ap.add_argument("--total-bytes", type=int, default=120000)
    ap.add_argument("--codecs", default=CODECS)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    made = 0
    codecs = set(a.codecs.split(","))
    for path in sources(a.media, codecs, a.max_bytes, a.total_bytes):
        with open(os.path.join(a.media, path), "rb") as f:
            data = f.read()
        base = path.replace("/", "_")
        for s in range(a.seeds):
            for kind, blob in damage(data, path, s).items():
                with open(os.path.join(a.out, f"{base}.{kind}{s}"), "wb") as f:
                    f.write(blob)
                made += 1
    print(f"make-fuzz: {made} damaged stream(s) in {a.out}")


if __name__ == "__main__":
    main()

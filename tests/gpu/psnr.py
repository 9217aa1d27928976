#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""psnr.py A B [--rgba]: the PSNR in dB of two raw 8-bit files of one size
over all their bytes (the planes as they are; --rgba: packed RGBA, alpha
left out), 10 log10(255^2 / MSE). Prints "inf" when they are equal. For the GPU
machine, whose minimal FFmpeg has no psnr filter; numpy where it is there,
else the standard library."""
import math
import sys


def mse(a, b):
    try:
        import numpy
        x = numpy.frombuffer(a, numpy.uint8).astype(numpy.int32)
        y = numpy.frombuffer(b, numpy.uint8).astype(numpy.int32)
        return float(((x - y) ** 2).mean())
    except ImportError:
        return sum((p - q) * (p - q) for p, q in zip(a, b)) / len(a)


def main():
    args = [a for a in sys.argv[1:] if a != "--rgba"]
    if len(args) != 2:
        sys.exit(__doc__)
    a, b = (open(f, "rb").read() for f in args)
    if "--rgba" in sys.argv:
        a, b = (bytes(v for i, v in enumerate(x) if i % 4 != 3) for x in (a, b))
    if not a or len(a) != len(b):
        sys.exit(f"psnr.py: {len(a)} and {len(b)} bytes: not one size")
    m = mse(a, b)
    print("inf" if m == 0 else f"{10 * math.log10(255 * 255 / m):.2f}")


if __name__ == "__main__":
    main()

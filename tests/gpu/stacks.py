#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""stacks.py - names the frames of tests/bench/vk-time.c's thread stacks.

vk-time prints each thread's stack with glibc's backtrace_symbols_fd(): a
frame is "LIBRARY(SYMBOL+0xOFF)[0xADDR]" or, for a function the library
does not export (FFmpeg's ff_* functions, static ones), "LIBRARY(+0xOFF)
[0xADDR]". The GPU machine's libraries are stripped copies of the ones the
bundle was built from; this looks each library up by its file name in the
folders given (the unstripped build outputs) and names the frame with
addr2line (function, file:line, inlined frames too).

    python3 tests/gpu/stacks.py STACKS.txt DIR [DIR...]

DIRs are searched recursively, first match per file name wins, e.g. the
Debian 13 chroot's FFmpeg build and the bundle's build folder:
    /var/tmp/debian13-gpu/tmp/ffmin-build/ffmpeg-7.1.5-0+deb13u1
    /tmp/avhw-gpu-src/COMMIT/build-gpu-d13
Threads with the same stack are printed once, with their count.
"""
import collections
import os
import re
import subprocess
import sys

FRAME = re.compile(r"^(?P<lib>[^(\[]+)\((?P<sym>[^+)]*)(?:\+(?P<off>0x[0-9a-f]+))?\)\s*\[(?P<addr>0x[0-9a-f]+)\]")


def find_files(dirs):
    found = {}
    for d in dirs:
        for root, _, files in os.walk(d):
            for f in files:
                if ".so" in f or "." not in f:
                    found.setdefault(f, os.path.join(root, f))
    return found


def symbol_address(path, sym, cache={}):
    if path not in cache:
        table = {}
        out = subprocess.run(["nm", "-D", "--defined-only", path],
                             capture_output=True, text=True).stdout
        out += subprocess.run(["nm", "--defined-only", path],
                              capture_output=True, text=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 3:
                table.setdefault(parts[2].split("@")[0], int(parts[0], 16))
        cache[path] = table
    return cache[path].get(sym)


def name(path, offset):
    out = subprocess.run(["addr2line", "-f", "-C", "-i", "-e", path,
                          hex(offset)], capture_output=True, text=True).stdout
    lines = out.strip().splitlines()
    pairs = [f"{lines[i]} {os.path.basename(lines[i + 1])}"
             for i in range(0, len(lines) - 1, 2)]
    return " / ".join(pairs) if pairs else "?"


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    files = find_files(sys.argv[2:])
    stacks, tid, cur = collections.OrderedDict(), None, []
    for line in open(sys.argv[1], errors="replace"):
        line = line.rstrip("\n")
        if line.startswith("VK-STACK"):
            if tid is not None:
                stacks.setdefault(tuple(cur), []).append(tid)
            tid, cur = (line.split("tid=")[1] if "tid=" in line else None), []
            continue
        m = FRAME.match(line)
        if not m or tid is None:
            continue
        lib = os.path.basename(m["lib"])
        text = f"{lib} {m['sym'] or ''}{'+' + m['off'] if m['off'] else ''}"
        local = files.get(lib)
        if local and m["off"]:
            off = int(m["off"], 16)
            if m["sym"]:
                base = symbol_address(local, m["sym"])
                off = base + off if base is not None else None
            if off is not None:
                # a return address: the call is the byte before it
                text = f"{lib}: {name(local, off - 1)}"
        cur.append(text)
    if tid is not None:
        stacks.setdefault(tuple(cur), []).append(tid)
    for frames, tids in stacks.items():
        print(f"== {len(tids)} thread(s): {' '.join(tids[:8])}")
        # the first frames are vk-time's handler and the signal trampoline
        for f in frames:
            if "libavhw-vk-time" in f:
                continue
            print("   ", f)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""plot.py OUTDIR [MORE_RESULTS.txt...]: OUTDIR/bench.png from run-all.sh's
reuse.csv and results.txt (plus the RESULT lines of further files, e.g. a later
throughput.sh/scaling.sh run's).

Three panels: time to first frame per iteration (reuse on / off), single-stream
fps per decoder (best run, whole process), aggregate fps against stream count.
Needs matplotlib (no GStreamer, no PyGObject).
"""
import collections
import csv
import os
import sys

import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402


def results(paths):
    """RESULT rows of every file, failed runs (failures != 0, no frame) left out."""
    rows = []
    for path in paths:
        if not os.path.exists(path):
            continue
        with open(path) as f:
            for line in f:
                d = {}
                for tok in line.split():
                    if '=' in tok:
                        k, v = tok.split('=', 1)
                        d[k] = v
                if d.get('failures', '0') != '0' or d.get('frames') == '0':
                    continue
                rows.append(d)
    return rows


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def main():
    out = sys.argv[1]
    rows = results([os.path.join(out, 'results.txt')] + sys.argv[2:])
    fig, axes = plt.subplots(1, 3, figsize=(18, 5))

    ax = axes[0]
    path = os.path.join(out, 'reuse.csv')
    if os.path.exists(path):
        series = collections.defaultdict(list)
        with open(path) as f:
            for r in csv.reader(f):
                t = num(r[3])
                if t is not None and t >= 0:
                    series[r[0]].append((int(r[1]), t))
        for label, pts in sorted(series.items()):
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker='o', label=label)
        ax.set_yscale('log')
        ax.legend()
    ax.set_title('reuse: time to first frame')
    ax.set_xlabel('iteration')
    ax.set_ylabel('ms (log)')

    ax = axes[1]
    best = {}
    for d in rows:
        if d.get('bench') != 'throughput' or d.get('clip') == '30f':
            continue
        frames, proc = num(d.get('frames')), num(d.get('process_s'))
        if not frames or not proc:
            continue
        key = (d.get('codec', '?'), d.get('label', '?'))
        best[key] = max(best.get(key, 0), frames / proc)
    if best:
        keys = sorted(best)
        ax.barh(['%s %s' % (k[0], k[1].replace('_', ' ')) for k in keys], [best[k] for k in keys])
    ax.set_title('1080p decode, one stream (best run, whole process)')
    ax.set_xlabel('fps')

    ax = axes[2]
    series = collections.defaultdict(list)
    for d in rows:
        if d.get('bench') != 'scaling':
            continue
        label = d.get('label', '?').replace('_', ' ').split(',')[0]
        series[label].append((int(d.get('streams', 0)), num(d.get('fps')) or 0))
    for label, pts in sorted(series.items()):
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker='o', label=label)
    if series:
        ax.legend()
    ax.set_title('concurrent streams: aggregate fps')
    ax.set_xlabel('streams')
    ax.set_ylabel('fps')

    fig.tight_layout()
    fig.savefig(os.path.join(out, 'bench.png'), dpi=80)


if __name__ == '__main__':
    main()

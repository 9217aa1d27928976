#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# python-on-gpu.sh - PyGObject for the GPU machine's own Python (3.12, with
# PyTorch and CuPy), then the Python tests and the docs example with real
# pipelines there. Run by run-on-gpu.sh's stage `python`, with a bundle's
# env.sh sourced (GPUBUNDLE set) and .gpu/pygobject-kit.tar.xz carried
# (tests/gpu/make-pygobject-kit.sh):
#   bash tests/gpu/python-on-gpu.sh [TEST...]
# TESTs: names under tests/python (default: gpu_frames frames gstavhw
# cuda_arrays tensors concurrent), `example` (docs/examples/clip_batches.py
# over EXAMPLE_DIR, default a folder of the 30-frame 1080p clips, 10 of each
# codec (EX_N), with --pipelines each of EX_PIPELINES, default 4), `manyclips` (docs/examples/many_clips.py --threads 7 over the same
# folders) and `dataset` (docs/examples/clip_dataset.py as one torchrun
# rank, DataLoader workers 0 and 2).
# PyGObject's gi._gi and gst-python's _gi_gst are compiled here with the
# machine's C compiler and Python headers (tests/gpu/build-pygobject.sh); where
# that fails, the kit's prebuilt ones are used, and the log says which and why.
# Writes $OUT/python.txt (one line a test: PASS/FAIL/SKIP) and logs to $LOGS/python.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP" || exit 1
[ -n "${GPUBUNDLE:-}" ] || { echo "python-on-gpu: source a bundle env.sh first" >&2; exit 2; }
OUT=${OUT:-/tmp/gpu-out}
LOGS=${LOGS:-/tmp/gpu-logs}
PY=${PYTHON:-python3}
KIT_TAR=${KIT_TAR:-.gpu/pygobject-kit.tar.xz}
W=${PG_WORK:-/tmp/avhw-pg}
L=$LOGS/python
mkdir -p "$OUT" "$L"
rm -rf "$W"; mkdir -p "$W"
res() { echo "$*" | tee -a "$OUT/python.txt"; }

[ -f "$KIT_TAR" ] || { res "SKIP python: no $KIT_TAR (tests/gpu/make-pygobject-kit.sh)"; exit 0; }
tar -xJf "$KIT_TAR" -C "$W" || { res "FAIL python: cannot unpack $KIT_TAR"; exit 1; }
KIT=$W/pgkit
echo "python: $($PY -c 'import sys; print(sys.executable, sys.version.split()[0])')"
PYINC=$($PY -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
EXT=$($PY -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
echo "python headers: $PYINC ($( [ -f "$PYINC/Python.h" ] && echo present || echo 'no Python.h')), extension suffix $EXT"
echo "C compiler: $(command -v gcc || echo none) $(gcc -dumpfullversion 2>/dev/null)"
echo "sources: $(cat "$KIT/src/pygobject/SOURCE-PACKAGE") $(cat "$KIT/src/gst-python/SOURCE-PACKAGE")"

# the gi package: pygobject's Python files, its _gi, gst-python's overrides
SITE=$W/site
mkdir -p "$SITE"
cp -r "$KIT/src/pygobject/gi" "$SITE/"
find "$SITE/gi" \( -name '*.c' -o -name '*.h' -o -name 'meson.build' \) -delete
cp "$KIT"/src/gst-python/gi/overrides/*.py "$SITE/gi/overrides/"
t0=$(date +%s%N)
if KIT=$KIT PYINC=$PYINC OUTDIR=$W/built EXT_SUFFIX=$EXT GLIB_LIBDIR=$GPUBUNDLE/lib \
        bash tests/gpu/build-pygobject.sh > "$L/build.log" 2>&1; then
    how="built here in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
    MODS=$W/built
else
    how="prebuilt (building here failed: $(grep -m1 'build-pygobject:' "$L/build.log" || tail -n1 "$L/build.log"))"
    MODS=$KIT/prebuilt
fi
cp "$MODS/_gi$EXT" "$SITE/gi/" 2>/dev/null || { res "FAIL python: no _gi$EXT ($how)"; exit 1; }
cp "$MODS/_gi_gst$EXT" "$SITE/gi/overrides/" 2>/dev/null || echo "python: no _gi_gst$EXT: Gst overrides without it"
echo "PyGObject: $how"

export PYTHONPATH=$SITE:$TOP/python${PYTHONPATH:+:$PYTHONPATH}
export GI_TYPELIB_PATH=$KIT/typelibs${GI_TYPELIB_PATH:+:$GI_TYPELIB_PATH}
export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$KIT/lib
export PYTHONUNBUFFERED=1
if ! timeout 60 "$PY" -c '
import gi, sys
gi.require_version("Gst", "1.0"); gi.require_version("GstAvhw", "1.0")
from gi.repository import Gst, GstAvhw
Gst.init(None)
try:
    import torch
    t = f"torch {torch.__version__}, " + ("CUDA" if torch.cuda.is_available() else "no CUDA")
except ImportError:
    t = "no torch"
print("gi", gi.__version__, "from", gi.__file__, "|", Gst.version_string(), "|", t,
      "| avhwdec:", Gst.ElementFactory.find("avhwdec") is not None)
' > "$L/import.log" 2>&1; then
    cat "$L/import.log"
    res "FAIL python: import gi / Gst / GstAvhw (PyGObject $how)"
    exit 1
fi
cat "$L/import.log"

# the docs example's folder: 10 copies of each 30-frame 1080p clip
EX=${EXAMPLE_DIR:-$W/clips}
if [ -z "${EXAMPLE_DIR:-}" ]; then
    mkdir -p "$EX"
    for c in h264 h265; do
        f=$TOP/.gpu/bench/bench-1080p-$c-30f.mp4
        [ -f "$f" ] || continue
        for i in $(seq 0 $((${EX_N:-10} - 1))); do ln -sf "$f" "$EX/$c-$i.mp4"; done
    done
fi

TESTS=${*:-gpu_frames frames gstavhw cuda_arrays tensors concurrent example manyclips dataset}
for t in $TESTS; do
    if [ "$t" = manyclips ] || [ "$t" = dataset ]; then
        for c in h264 h265; do
            ls "$EX"/$c-*.mp4 > /dev/null 2>&1 || continue
            mkdir -p "$W/ex-$c"; ln -sf "$EX"/$c-*.mp4 "$W/ex-$c/"
            if [ "$t" = manyclips ]; then
                runs=("docs/examples/many_clips.py --threads 7 --rounds 2 --size 224 --check")
            else
                runs=("docs/examples/clip_dataset.py --workers 0 --size 224 --check"
                      "docs/examples/clip_dataset.py --workers 2 --size 224 --check")
            fi
            for cmd in "${runs[@]}"; do
                # shellcheck disable=SC2086  # cmd: words
                RANK=0 LOCAL_RANK=0 WORLD_SIZE=1 LOCAL_WORLD_SIZE=1 MASTER_ADDR=127.0.0.1 \
                    MASTER_PORT=29533 timeout -k 5 240 "$PY" $cmd --device "${DEVICE:-cuda:0}" \
                    "$W/ex-$c" > "$L/$t-$c.log" 2>&1
                rc=$?
                tail -n 4 "$L/$t-$c.log"
                if [ $rc = 0 ]; then r=PASS; elif [ $rc = 77 ]; then r=SKIP; else r="FAIL (exit $rc)"; fi
                res "$r $t $c: $cmd: $(grep -E '^(round 2|rank 0)' "$L/$t-$c.log" | head -n1)"
            done
        done
        continue
    fi
    if [ "$t" = example ]; then
        for c in h264 h265; do
            ls "$EX"/$c-*.mp4 > /dev/null 2>&1 || continue
            mkdir -p "$W/ex-$c"; ln -sf "$EX"/$c-*.mp4 "$W/ex-$c/"
            for np in ${EX_PIPELINES:-4}; do
                timeout -k 5 240 "$PY" docs/examples/clip_batches.py --device "${DEVICE:-cuda:0}" \
                    --size 224 --batch 32 --pipelines "$np" --check "$W/ex-$c" > "$L/example-$c-p$np.log" 2>&1
                rc=$?
                tail -n 4 "$L/example-$c-p$np.log"
                if [ $rc = 0 ]; then r=PASS; elif [ $rc = 77 ]; then r=SKIP; else r="FAIL (exit $rc)"; fi
                res "$r example $c: $(grep -m1 -E '^[0-9]+ clips' "$L/example-$c-p$np.log")"
            done
        done
        continue
    fi
    f=tests/python/test_$t.py
    [ -f "$f" ] || { res "FAIL $t: no $f"; continue; }
    AVHW_GPU_DEVICE=${DEVICE:-cuda:0} timeout -k 5 300 "$PY" "$f" > "$L/$t.log" 2>&1
    rc=$?
    grep -E '^(test_|Ran |OK|FAILED|SKIP|note|[0-9]+ passed)|Error|assert' "$L/$t.log" | head -n 30
    if [ $rc = 0 ]; then r=PASS
    elif [ $rc = 77 ]; then r="$(grep -m1 "^SKIP" "$L/$t.log")"
    else r="FAIL (exit $rc)"; tail -n 20 "$L/$t.log"
    fi
    res "$r python/$t"
done

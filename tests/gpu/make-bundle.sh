#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# make-bundle.sh - everything tests/gpu/run-on-gpu.sh needs on the GPU machine,
# in the git-ignored folder .gpu/ (carried with `carry: [".gpu"]`):
#   .gpu/gpubundle.tar.xz  GStreamer 1.22 + minimal FFmpeg 5.1 + this tree
#                          (plugins, libgstavhw, gst-avhw-info), the tests/check
#                          programs and the tests/bench programs (shared/gpu/mkbundle)
#   .gpu/media/            the shared conformance corpus's streams + MANIFEST.tsv
#   .gpu/bench/            the benchmark clips (tests/bench/make-clips.sh)
#   .gpu/fuzz/             damaged small streams (tests/robustness/make-fuzz.py)
# Run on the Debian 12 dev machine, as root, from the repository root:
#   bash tests/gpu/make-bundle.sh [--worktree]
# By default it builds the last commit (HEAD), exported with `git archive` into
# /tmp/avhw-gpu-src/COMMIT, so that uncommitted work in the tree stays out of
# the GPU run; --worktree builds the working tree as it is (in build-gpu/).
# Environment: STAGE (default /tmp/avhw-gpu-stage), SHARED (default ../shared),
# MEDIA (default $SHARED/media).
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP"
STAGE=${STAGE:-/tmp/avhw-gpu-stage}
SHARED=${SHARED:-$TOP/../shared}
MEDIA=${MEDIA:-$SHARED/media}
GPU=$TOP/.gpu
mkdir -p "$GPU"
if [ "${1:-}" = --worktree ]; then
    SRC=$TOP
    echo "tree: working tree of $(git log -1 --format='%h %s')" > "$GPU/TREE"
else
    COMMIT=$(git rev-parse --short=12 HEAD)
    SRC=/tmp/avhw-gpu-src/$COMMIT
    if [ ! -d "$SRC" ]; then
        mkdir -p "$SRC.tmp" && git archive HEAD | tar -x -C "$SRC.tmp" && mv "$SRC.tmp" "$SRC"
    fi
    echo "tree: commit $(git log -1 --format='%h %s')" > "$GPU/TREE"
fi
BUILD=$SRC/build-gpu
echo "make-bundle: building $SRC in $BUILD"

# 1. the minimal FFmpeg (once per machine; needs deb-src for `apt-get source`)
[ -x /opt/ffmin/bin/ffmpeg ] || bash "$SHARED/gpu/build-ffmpeg.sh"

# 2. this tree, installed into a stage
[ -f "$BUILD/build.ninja" ] || meson setup "$BUILD" "$SRC" --prefix=/usr/local -Dwerror=true
meson compile -C "$BUILD"
rm -rf "$STAGE"
meson install -C "$BUILD" --destdir "$STAGE" --quiet
BIN=$STAGE/usr/local/bin
mkdir -p "$BIN"

# 3. the tests/check programs (not installed by meson)
for t in "$BUILD"/tests/check/libs_* "$BUILD"/tests/check/elements_*; do
    [ -f "$t" ] && [ -x "$t" ] && cp "$t" "$BIN/"
done

# 4. the benchmark programs: from the build when tests/meson.build has
# subdir('bench'), else compiled here the same way
CFLAGS_BENCH="-std=c11 -O2 -D_GNU_SOURCE -DGST_USE_UNSTABLE_API -Wall -Werror -Wno-unused-parameter"
for b in reuse:avhw-bench-reuse decode-bench:avhw-bench-decode updown:avhw-bench-updown \
        cuda-context:avhw-bench-cuda-context; do
    exe=${b#*:}; b=${b%%:*}
    if [ -x "$BUILD/tests/bench/$exe" ]; then
        cp "$BUILD/tests/bench/$exe" "$BIN/"
    else
        # shellcheck disable=SC2046,SC2086
        cc $CFLAGS_BENCH -I"$SRC" -I"$BUILD" "tests/bench/$b.c" -o "$BIN/$exe" \
            $(pkg-config --cflags --libs gstreamer-1.0 libavutil libavcodec) \
            -L"$BUILD/gst/avhw" -lgstavhw-1.0 -Wl,-rpath,"$BUILD/gst/avhw" -ldl
        mkdir -p "$BUILD/tests/bench" && cp "$BIN/$exe" "$BUILD/tests/bench/$exe"
    fi
done

# the LD_PRELOAD timer (tests/bench/lavc-time.c), beside the programs
if [ -f "$BUILD/tests/bench/libavhw-lavc-time.so" ]; then
    cp "$BUILD/tests/bench/libavhw-lavc-time.so" "$BIN/"
else
    cc -shared -fPIC -O2 -Wall -Werror tests/bench/lavc-time.c -o "$BIN/libavhw-lavc-time.so" -ldl
fi

# 5. the bundle (ivfparse: parsebin needs it for the IVF streams of the corpus)
bash "$SHARED/gpu/mkbundle" "$GPU/gpubundle.tar.xz" --add-prefix "$STAGE" --plugin ivfparse
bash "$SHARED/gpu/check-bundle.sh" "$GPU/gpubundle.tar.xz" --element avhwdec

# 6. the corpus (streams and manifest; framemd5/, reference/ and licenses/ stay)
if [ -f "$MEDIA/MANIFEST.tsv" ]; then
    rm -rf "$GPU/media"
    mkdir -p "$GPU/media"
    cp "$MEDIA/MANIFEST.tsv" "$GPU/media/"
    for d in h264 h265 vp9 av1 vp8 mp4; do
        [ -d "$MEDIA/$d" ] && cp -r "$MEDIA/$d" "$GPU/media/"
    done
    chmod -R u+w "$GPU/media"
fi

# 6b. damaged copies of the small streams, for the robustness stage
if [ -f "$MEDIA/MANIFEST.tsv" ]; then
    rm -rf "$GPU/fuzz"
    python3 tests/robustness/make-fuzz.py "$MEDIA" "$GPU/fuzz"
fi

# 7. the benchmark clips
bash tests/bench/make-clips.sh "$GPU/bench"
# 7b. the GOP-parallel clips (tests/bench/parallel.sh; about 22 MiB for
# 1800 frames, so only when asked: PARALLEL_CLIPS=1, PARALLEL_FRAMES=N)
if [ "${PARALLEL_CLIPS:-0}" = 1 ]; then
    bash tests/bench/parallel.sh --clips "$GPU/bench" --make-only \
        --frames "${PARALLEL_FRAMES:-1800}"
fi

du -sh "$GPU"/* | sed 's/^/make-bundle: /'
total=$(du -sb "$GPU" | cut -f1)
echo "make-bundle: .gpu is $((total / 1048576)) MiB (the working tree and carried paths travel up to 64 MiB)"

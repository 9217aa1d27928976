#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# make-bundle.sh - everything tests/gpu/run-on-gpu.sh needs on the GPU machine,
# in the git-ignored folder .gpu/ (carried with `carry: [".gpu"]`):
#   .gpu/gpubundle.tar.xz  GStreamer 1.22 + minimal FFmpeg 5.1 + this tree
#                          (plugins, libgstavhw, gst-avhw-info), the tests/check
#                          programs and the tests/bench programs (shared/gpu/mkbundle)
#   .gpu/gpubundle-d13.tar.xz  (--d13) the same from Debian 13: GStreamer 1.26 +
#                          minimal FFmpeg 7.1 (Debian 13's source) + this tree with
#                          the cuda backend, built in a Debian 13 chroot
#   .gpu/media/            the shared conformance corpus's streams + MANIFEST.tsv
#   .gpu/clips/            tests/media/make-clips.sh's generated clips
#   .gpu/distinct/         its 'distinct' set, 320x240, 20 frames (stage distinct)
#   .gpu/distinct-mp4/     the same clips in MP4 ('distinct-mp4': codec data only)
#   .gpu/bench/            the benchmark clips (tests/bench/make-clips.sh)
#   .gpu/fuzz/             damaged small streams (tests/robustness/make-fuzz.py)
# Run on the Debian 12 dev machine, as root, from the repository root:
#   bash tests/gpu/make-bundle.sh [--worktree] [--d13]
# By default it builds the last commit (HEAD), exported with `git archive` into
# /tmp/avhw-gpu-src/COMMIT, so that uncommitted work in the tree stays out of
# the GPU run; --worktree builds the working tree as it is (in build-gpu/);
# --bundle-only makes .gpu/gpubundle.tar.xz and nothing else (no corpus,
# clips or fuzz streams: those of an earlier run stay).
# --d13 makes only .gpu/gpubundle-d13.tar.xz (media, clips and fuzz come from a
# run without it): it runs this script with --in-d13 inside a Debian 13 chroot
# (shared/distros/debian13.sh --root D13_ROOT) whose /src is the tree being
# built; there FFmpeg 7.1 is built by shared/gpu/build-ffmpeg.sh into the
# chroot's /opt/ffmin (once; apt-get source with a deb-src line for trixie,
# added when missing) and the tree in build-gpu-d13/.
# Environment: GPU_DIR (default .gpu: where the outputs go), STAGE (default
# /tmp/avhw-gpu-stage), SHARED (default ../shared), MEDIA (default
# $SHARED/media), D13_ROOT (default /var/tmp/debian13-gpu: the chroot),
# BENCH_FRAMES (default 1800: the benchmark clips' length), FUZZ (default 1; 0
# leaves .gpu/fuzz out), PARALLEL_CLIPS and SPEED_CLIPS (below). Both bundles, media, 1800-frame clips and fuzz pass the
# device call's 64 MiB: for run-both.sh make .gpu with BENCH_FRAMES=900 FUZZ=0.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP"
STAGE=${STAGE:-/tmp/avhw-gpu-stage}
SHARED=${SHARED:-$TOP/../shared}
MEDIA=${MEDIA:-$SHARED/media}
GPU=${GPU_DIR:-$TOP/.gpu}
D13_ROOT=${D13_ROOT:-/var/tmp/debian13-gpu}
WORKTREE=0 MODE=d12 BUNDLE_ONLY=0
for a in "$@"; do
    case $a in
        --worktree) WORKTREE=1 ;;
        --bundle-only) BUNDLE_ONLY=1 ;;
        --d13) MODE=d13 ;;
        --in-d13) MODE=in-d13 ;;
        *) echo "make-bundle: unknown argument $a" >&2; exit 2 ;;
    esac
done
mkdir -p "$GPU"
GPU=$(cd "$GPU" && pwd)
if [ "$MODE" = in-d13 ]; then
    SRC=$TOP            # /src in the chroot: the tree the host picked
elif [ "$WORKTREE" = 1 ]; then
    SRC=$TOP
    TREE="tree: working tree of $(git log -1 --format='%h %s')"
else
    COMMIT=$(git rev-parse --short=12 HEAD)
    SRC=/tmp/avhw-gpu-src/$COMMIT
    if [ ! -d "$SRC" ]; then
        mkdir -p "$SRC.tmp" && git archive HEAD | tar -x -C "$SRC.tmp" && mv "$SRC.tmp" "$SRC"
    fi
    TREE="tree: commit $(git log -1 --format='%h %s')"
fi

# what travels: .gpu and the working tree's files (git ls-files), 64 MiB at most
size_note() {
    local g t
    g=$(du -sb "$GPU" | cut -f1)
    t=$(git ls-files -z | du -cb --files0-from=- 2>/dev/null | tail -n 1 | cut -f1)
    echo "make-bundle: .gpu is $((g / 1048576)) MiB, with the tree's files $(((g + ${t:-0}) / 1048576)) MiB (the device call carries 64 MiB at most)"
    [ $((g + ${t:-0})) -lt $((64 * 1048576)) ] ||
        echo "make-bundle: TOO BIG to carry: make it again with BENCH_FRAMES=900 FUZZ=0 (see tests/gpu/README.md)"
}

# --d13, on the host: this script again, inside the Debian 13 chroot, whose
# /src is $SRC; the bundle comes back through $SRC/build-gpu-d13/out
if [ "$MODE" = d13 ]; then
    echo "make-bundle: building $SRC in a Debian 13 chroot ($D13_ROOT)"
    rm -f "$SRC/build-gpu-d13/out/gpubundle-d13.tar.xz"
    (cd "$SRC" && bash "$SHARED/distros/debian13.sh" --root "$D13_ROOT" -- \
        env GPU_DIR=/src/build-gpu-d13/out bash tests/gpu/make-bundle.sh --in-d13)
    cp "$SRC/build-gpu-d13/out/gpubundle-d13.tar.xz" "$GPU/"
    echo "$TREE" > "$GPU/TREE-d13"
    ls -l "$GPU/gpubundle-d13.tar.xz" | sed 's/^/make-bundle: /'
    size_note
    exit 0
fi
if [ "$MODE" = d12 ]; then
    echo "$TREE" > "$GPU/TREE"
    BUILD=$SRC/build-gpu MESON_OPTS="" BUNDLE=$GPU/gpubundle.tar.xz
else
    BUILD=$SRC/build-gpu-d13 MESON_OPTS="-Dcuda=enabled -Dcuda-kernels=enabled" BUNDLE=$GPU/gpubundle-d13.tar.xz
fi
echo "make-bundle: building $SRC in $BUILD"

# 0. (in the Debian 13 chroot) the build dependencies, and deb-src for FFmpeg's source
if [ "$MODE" = in-d13 ]; then
    [ "$(. /etc/os-release && echo "$VERSION_ID")" = 13 ] || { echo "make-bundle: --in-d13 outside Debian 13" >&2; exit 1; }
    pkgs="meson ninja-build pkg-config gcc clang libc6-dev binutils xz-utils dpkg-dev libglib2.0-dev
        libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libgstreamer-plugins-bad1.0-dev
        gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
        gstreamer1.0-plugins-bad gstreamer1.0-plugins-ugly gstreamer1.0-libav
        libavcodec-dev libavutil-dev libavformat-dev libavfilter-dev libffmpeg-nvenc-dev libvulkan-dev
        libxkbcommon-dev libxkbcommon-x11-dev libva-dev libdrm-dev ocl-icd-opencl-dev
        gobject-introspection libgirepository1.0-dev gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0"
    missing="" update=0
    for p in $pkgs; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
    done
    if ! grep -rqs '^deb-src .* trixie' /etc/apt/sources.list /etc/apt/sources.list.d/; then
        sed -n 's/^deb \(.* trixie .*\)/deb-src \1/p' /etc/apt/sources.list > /etc/apt/sources.list.d/trixie-src.list
        update=1
    fi
    if [ -n "$missing" ] || [ "$update" = 1 ]; then
        echo "make-bundle: apt-get update; install:${missing:- nothing}"
        apt-get update -q > /dev/null
        # shellcheck disable=SC2086
        [ -z "$missing" ] || apt-get install -y -q --no-install-recommends $missing > /dev/null
    fi
fi

# 0'. (on the Debian 12 machine) deb-src for FFmpeg's source, added when missing
# (a fresh machine has only deb lines, in the deb822 debian.sources)
if [ "$MODE" = d12 ] && [ ! -x /opt/ffmin/bin/ffmpeg ] \
    && ! grep -rqsE '^deb-src .* bookworm|^Types:.*deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    echo "deb-src http://deb.debian.org/debian bookworm main" > /etc/apt/sources.list.d/bookworm-src.list
    echo "make-bundle: added /etc/apt/sources.list.d/bookworm-src.list; apt-get update"
    apt-get update -q > /dev/null
fi

# 1. the minimal FFmpeg (once per machine or chroot; needs deb-src for `apt-get source`).
# In Debian 13 with scale_vulkan too (avhwconvertscale on NVIDIA's Vulkan driver,
# issue 18): FFmpeg 7.1 compiles the filter's shaders with libshaderc. The shared
# script has no switch for it, so a copy with the filter, the library and its -dev
# package added builds into /opt/ffmin-vk (the stamp tells the two builds apart).
# With the libplacebo filter as well (the vulkan backend's RGB converter, issue
# 31): Debian 13's libplacebo (7.349), into /opt/ffmin-vkpl.
FFPREFIX=/opt/ffmin
if [ "$MODE" = in-d13 ] && [ "${FFMPEG_SCALE_VULKAN:-1}" = 1 ]; then
    FFPREFIX=/opt/ffmin-vkpl
    sed -e 's/^FILTERS="scale /FILTERS="scale scale_vulkan libplacebo /' \
        -e 's/--enable-vulkan --enable-opencl/--enable-vulkan --enable-libshaderc --enable-libplacebo --enable-opencl/' \
        -e 's/^need_pkgs="build-essential /need_pkgs="build-essential libshaderc-dev libplacebo-dev /' \
        "$SHARED/gpu/build-ffmpeg.sh" > /tmp/build-ffmpeg-scale-vulkan.sh
    grep -q 'scale scale_vulkan libplacebo' /tmp/build-ffmpeg-scale-vulkan.sh && grep -q 'enable-libplacebo' \
        /tmp/build-ffmpeg-scale-vulkan.sh || { echo "make-bundle: build-ffmpeg.sh changed; cannot add scale_vulkan and libplacebo" >&2; exit 1; }
    [ -x $FFPREFIX/bin/ffmpeg ] || bash /tmp/build-ffmpeg-scale-vulkan.sh --prefix "$FFPREFIX"
else
    [ -x $FFPREFIX/bin/ffmpeg ] || bash "$SHARED/gpu/build-ffmpeg.sh"
fi
# FFmpeg 7.1's minimal libavfilter calls zlib (inflate*) without naming libz.so.1
# as NEEDED: loaded by avhw's elements plugin alone it fails ("undefined symbol:
# inflateEnd"). Name it, in this chroot's copy (shared/ stays untouched).
AVF=$(readlink -f $FFPREFIX/lib/libavfilter.so 2>/dev/null || true)
if [ -n "$AVF" ] && nm -D --undefined-only "$AVF" | grep -qw inflateEnd \
        && ! readelf -d "$AVF" | grep -q 'libz\.so'; then
    command -v patchelf > /dev/null || apt-get install -y -q --no-install-recommends patchelf zlib1g > /dev/null
    patchelf --add-needed libz.so.1 "$AVF"
    echo "make-bundle: $AVF now names libz.so.1 as NEEDED"
fi

# 2. this tree, installed into a stage
# shellcheck disable=SC2086
[ -f "$BUILD/build.ninja" ] || meson setup "$BUILD" "$SRC" --prefix=/usr/local -Dwerror=true $MESON_OPTS
meson compile -C "$BUILD"
rm -rf "$STAGE"
meson install -C "$BUILD" --destdir "$STAGE" --quiet
BIN=$STAGE/usr/local/bin
mkdir -p "$BIN"

# 3. the tests/check programs (not installed by meson)
for t in "$BUILD"/tests/check/libs_* "$BUILD"/tests/check/elements_*; do
    [ -f "$t" ] && [ -x "$t" ] && cp "$t" "$BIN/"
done

# docs/examples/many-clips (tests/gpu/many-clips.sh)
[ -x "$BUILD/tests/docs/many-clips" ] && cp "$BUILD/tests/docs/many-clips" "$BIN/"

# 4. the benchmark programs: from the build when tests/meson.build has
# subdir('bench'), else compiled here the same way
CFLAGS_BENCH="-std=c11 -O2 -D_GNU_SOURCE -DGST_USE_UNSTABLE_API -Wall -Werror -Wno-unused-parameter"
for b in reuse:avhw-bench-reuse decode-bench:avhw-bench-decode updown:avhw-bench-updown \
        cuda-context:avhw-bench-cuda-context decode-many:avhw-decode-many; do
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
# where opening a Vulkan device goes: built only with Vulkan headers
[ -x "$BUILD/tests/bench/avhw-bench-vk-open" ] && cp "$BUILD/tests/bench/avhw-bench-vk-open" "$BIN/"

# the LD_PRELOAD timers (tests/bench/lavc-time.c, cu-time.c, vk-time.c), beside the programs
for t in lavc-time cu-time vk-time; do
    if [ -f "$BUILD/tests/bench/libavhw-$t.so" ]; then
        cp "$BUILD/tests/bench/libavhw-$t.so" "$BIN/"
    else
        cc -shared -fPIC -O2 -Wall -Werror "tests/bench/$t.c" -o "$BIN/libavhw-$t.so" -ldl
    fi
done

# 5. the bundle (ivfparse: parsebin needs it for the IVF streams of the corpus;
# mpegtsmux: tests/gpu/transcode.sh; vulkan, Debian 13 only: vulkandownload for
# tests/gpu/vulkan-video.sh, which needs FFmpeg 7.1's Vulkan decoder anyway)
extra=()
[ "$MODE" = d12 ] || extra=(--plugin vulkan)
bash "$SHARED/gpu/mkbundle" "$BUNDLE" --ffmpeg-prefix "$FFPREFIX" --add-prefix "$STAGE" \
    --plugin ivfparse --plugin mpegtsmux "${extra[@]}"
bash "$SHARED/gpu/check-bundle.sh" "$BUNDLE" --element avhwdec
[ "$MODE" = d12 ] || { ls -l "$BUNDLE"; exit 0; }   # the rest is done on the host
[ "$BUNDLE_ONLY" = 0 ] || { ls -l "$BUNDLE"; size_note; exit 0; }

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

# 6a. the generated clips of tests/media/make-clips.sh (under 1 MiB): the
# decoder-reuse run (run-on-gpu.sh reuseprofile) starts with their pairs of
# equal coded size and different crop
rm -rf "$GPU/clips"
bash tests/media/make-clips.sh "$GPU/clips" > /dev/null || rm -rf "$GPU/clips"

# 6a'. the 'distinct' clips (run-on-gpu.sh distinct: one decoder taking clip
# after clip with other parameter sets; issue 30)
rm -rf "$GPU/distinct"
SIZE=320x240 FRAMES=20 bash tests/media/make-clips.sh "$GPU/distinct" distinct > /dev/null \
    || rm -rf "$GPU/distinct"
rm -rf "$GPU/distinct-mp4"
SIZE=320x240 FRAMES=20 bash tests/media/make-clips.sh "$GPU/distinct-mp4" distinct-mp4 > /dev/null \
    || rm -rf "$GPU/distinct-mp4"

# 6b. damaged copies of the small streams, for the robustness stage (FUZZ=0: none)
rm -rf "$GPU/fuzz"
if [ "${FUZZ:-1}" = 1 ] && [ -f "$MEDIA/MANIFEST.tsv" ]; then
    python3 tests/robustness/make-fuzz.py "$MEDIA" "$GPU/fuzz"
fi

# 7. the benchmark clips, BENCH_FRAMES long (a clip of another length is made again)
frames=${BENCH_FRAMES:-1800}
for c in h264 h265; do
    f=$GPU/bench/bench-1080p-$c.mp4
    [ -f "$f" ] || continue
    n=$(ffprobe -v error -select_streams v:0 -count_packets -show_entries stream=nb_read_packets -of csv=p=0 "$f")
    [ "$n" = "$frames" ] || rm -f "$f"
done
bash tests/bench/make-clips.sh "$GPU/bench" "$frames"
# 7b. the GOP-parallel clips (tests/bench/parallel.sh; about 22 MiB for
# 1800 frames, so only when asked: PARALLEL_CLIPS=1, PARALLEL_FRAMES=N)
if [ "${PARALLEL_CLIPS:-0}" = 1 ]; then
    bash tests/bench/parallel.sh --clips "$GPU/bench" --make-only \
        --frames "${PARALLEL_FRAMES:-1800}"
fi

# 7c. 900-frame benchmark clips for tests/gpu/speed.sh (about 10 MiB, so
# only when asked: SPEED_CLIPS=1)
if [ "${SPEED_CLIPS:-0}" = 1 ]; then
    bash tests/bench/make-clips.sh "$GPU/prof" 900
fi

du -sh "$GPU"/* | sed 's/^/make-bundle: /'
size_note

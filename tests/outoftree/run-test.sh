#!/usr/bin/env bash
# Out-of-tree backend test: a vendor's backend built against an INSTALLED
# gst-avhw, not its source tree.
#
#   bash tests/outoftree/run-test.sh <main-build-dir>     (built first)
#
# 1. meson install -C <main-build-dir> --no-rebuild --destdir $tmp/dest
# 2. builds tests/outoftree (the "example" backend) with PKG_CONFIG_PATH
#    pointing into that DESTDIR, and checks it compiled against the
#    installed headers
# 3. with GST_PLUGIN_PATH = the example plugin + the installed elements and
#    backends, LD_LIBRARY_PATH = the installed library and a registry of its
#    own: gst-avhw-info lists "example" with a device; videotestsrc !
#    avhwupload device=example ! avhwdownload gives the same bytes (MD5) as
#    videotestsrc alone; avhwdec device=example decodes H.264 to the same
#    bytes as avdec_h264 (skipped, saying so, without x264enc/avdec_h264);
#    avhwconvertscale scales on it through its scale_filter;
#    the backend contract suite (tests/check/libs/contract.c, from the main
#    build) passes with AVHW_BACKEND=example.
#
# Exit 0: passed; 1: failed; 77: something it needs is missing (says what).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

[ $# -ge 1 ] || { echo "usage: $0 <main-build-dir>" >&2; exit 2; }
build=$(cd "$1" 2>/dev/null && pwd) || skip "no build folder $1"
[ -f "$build/build.ninja" ] || skip "$build is not a configured Meson build"
for tool in meson ninja pkg-config gst-launch-1.0 gst-inspect-1.0 md5sum; do
  command -v "$tool" >/dev/null || skip "$tool is not installed"
done
pkg-config --exists vulkan || skip "the example's SDK (pkg-config vulkan, libvulkan-dev) is not installed"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/avhw-outoftree.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/dest

echo "== install $build into DESTDIR $dest"
# --no-rebuild: under `meson test` the build is done, and a second ninja
# in the same build folder is not wanted.
meson install -C "$build" --no-rebuild --destdir "$dest" >"$tmp/install.log" 2>&1 \
  || { tail -20 "$tmp/install.log"; fail "meson install failed (is $build built?)"; }

pc=$(find "$dest" -name gstreamer-avhw-1.0.pc -print -quit)
[ -n "$pc" ] || fail "the install has no gstreamer-avhw-1.0.pc"
# The .pc names the real prefix (/usr/local...); a DESTDIR install lives
# below $dest. A copy with prefix moved there, inside the DESTDIR, is what
# PKG_CONFIG_PATH points at: the other variables derive from prefix.
prefix=$(sed -n 's/^prefix=//p' "$pc")
mkdir -p "$dest/relocated-pkgconfig"
sed "s|^prefix=.*|prefix=$dest$prefix|" "$pc" \
  >"$dest/relocated-pkgconfig/gstreamer-avhw-1.0.pc"
export PKG_CONFIG_PATH=$dest/relocated-pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
libdir=$(pkg-config --variable=libdir gstreamer-avhw-1.0)
pluginsdir=$(pkg-config --variable=pluginsdir gstreamer-avhw-1.0)
bindir=$dest$prefix/bin
[ -f "$libdir/libgstavhw-1.0.so" ] || fail "no libgstavhw-1.0.so in $libdir"
[ -d "$pluginsdir" ] || fail "no plugins folder $pluginsdir"

echo "== build the example backend against it"
meson setup "$tmp/example" "$here" >"$tmp/setup.log" 2>&1 \
  || { tail -30 "$tmp/setup.log"; fail "meson setup of tests/outoftree failed"; }
ninja -C "$tmp/example" >"$tmp/ninja.log" 2>&1 \
  || { tail -30 "$tmp/ninja.log"; fail "building the example failed"; }
plugin=$(find "$tmp/example" -maxdepth 1 -name 'libgstavhwexample.so' -print -quit)
[ -n "$plugin" ] || fail "no libgstavhwexample.so built"
# Compiled against the installed headers, not gst-avhw's source tree.
ninja -C "$tmp/example" -t commands >"$tmp/commands.txt"
grep -q -- "-I$dest$prefix/include/gstreamer-1.0" "$tmp/commands.txt" \
  || fail "the example was not compiled against the DESTDIR headers"
if grep -q -- "-I$(cd "$here/../.." && pwd)" "$tmp/commands.txt"; then
  fail "the example saw gst-avhw's source tree"
fi

# The installed application header, gst/avhw/gstavhw.h, reads no FFmpeg
# header (tests/headers/app.c, with GStreamer's flags and the DESTDIR's).
cc=${CC:-cc}
if command -v "$cc" >/dev/null; then
  # shellcheck disable=SC2046
  "$cc" -H -fsyntax-only -Wall -Werror -I"$dest$prefix/include/gstreamer-1.0" \
    $(pkg-config --cflags gstreamer-1.0 gstreamer-video-1.0) \
    "$here/../headers/app.c" >"$tmp/app.txt" 2>&1 \
    || { grep -v '^[./]' "$tmp/app.txt"; fail "an application does not compile against the installed gstavhw.h"; }
  grep -q "$dest$prefix/include/gstreamer-1.0/gst/avhw/gstavhw.h" "$tmp/app.txt" \
    || fail "the application check did not read the installed gstavhw.h"
  if grep -E '/lib(av(codec|util|filter|format)|sw(scale|resample))/' "$tmp/app.txt"; then
    fail "the installed gstavhw.h reads FFmpeg headers"
  fi
  echo "== the installed gstavhw.h reads no FFmpeg header"
fi

# Only the installed copy and the example: no build tree, a registry of
# its own. GStreamer's own plugins come from the system path.
unset GST_PLUGIN_PATH_1_0 GST_REGISTRY_1_0 GST_PLUGIN_SYSTEM_PATH_1_0
export GST_PLUGIN_PATH=$tmp/example:$pluginsdir
export GST_REGISTRY=$tmp/registry.bin
export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

echo "== gst-avhw-info"
"$bindir/gst-avhw-info" >"$tmp/info.txt" 2>&1 || true
cat "$tmp/info.txt"
grep -q '^  example:' "$tmp/info.txt" || fail "gst-avhw-info does not list the example backend"
if ! grep -q '^    example:0 ' "$tmp/info.txt"; then
  skip "the example backend has no device here: $(grep -A1 '^  example:' "$tmp/info.txt" | tail -1)"
fi

caps="video/x-raw,format=NV12,width=320,height=240,framerate=30/1"
echo "== videotestsrc ! avhwupload device=example ! avhwdownload"
gst-launch-1.0 -q videotestsrc num-buffers=10 pattern=smpte ! "$caps" \
  ! filesink location="$tmp/ref.yuv" || fail "the reference pipeline failed"
gst-launch-1.0 -v videotestsrc num-buffers=10 pattern=smpte ! "$caps" \
  ! avhwupload device=example ! avhwdownload device=example ! "$caps" \
  ! filesink location="$tmp/out.yuv" >"$tmp/up.log" 2>&1 \
  || { tail -5 "$tmp/up.log"; fail "the example pipeline failed"; }
grep -q 'avhwupload0.GstPad:src: caps = video/x-raw(memory:AVHWExample)' \
  "$tmp/up.log" || fail "avhwupload did not output example device memory"
ref=$(md5sum <"$tmp/ref.yuv" | cut -d' ' -f1)
out=$(md5sum <"$tmp/out.yuv" | cut -d' ' -f1)
echo "reference $ref, through the example device $out ($(stat -c %s "$tmp/out.yuv") bytes)"
[ "$ref" = "$out" ] || fail "bytes differ after the example device"

echo "== avhwconvertscale on the example device (its scale_filter)"
half="video/x-raw(memory:AVHWExample),width=160,height=120"
gst-launch-1.0 -q videotestsrc num-buffers=10 pattern=smpte ! "$caps" \
  ! avhwupload device=example ! avhwconvertscale ! "$half" \
  ! avhwdownload device=example ! filesink location="$tmp/half.yuv" \
  >"$tmp/scale.log" 2>&1 || { tail -5 "$tmp/scale.log"; fail "avhwconvertscale on the example device failed"; }
[ "$(stat -c %s "$tmp/half.yuv")" = $((160 * 120 * 3 / 2 * 10)) ] \
  || fail "avhwconvertscale did not make ten 160x120 NV12 frames"
echo "ten 160x120 NV12 frames scaled on the example device"

echo "== avhwdec device=example"
if gst-inspect-1.0 x264enc >/dev/null 2>&1 && gst-inspect-1.0 avdec_h264 >/dev/null 2>&1; then
  i420="video/x-raw,format=I420,width=320,height=240"
  gst-launch-1.0 -q videotestsrc num-buffers=10 pattern=smpte ! "$i420,framerate=30/1" \
    ! x264enc ! video/x-h264,stream-format=byte-stream \
    ! filesink location="$tmp/in.h264" || fail "encoding the H.264 input failed"
  gst-launch-1.0 -q filesrc location="$tmp/in.h264" ! h264parse ! avdec_h264 \
    ! "$i420" ! filesink location="$tmp/decref.yuv" || fail "avdec_h264 failed"
  # -v: the caps avhwdec chose show that its frames were on the example
  # device (memory:AVHWExample) before avhwdownload.
  gst-launch-1.0 -v filesrc location="$tmp/in.h264" ! h264parse \
    ! avhwdec device=example ! avhwdownload device=example ! "$i420" \
    ! filesink location="$tmp/dec.yuv" >"$tmp/dec.log" 2>&1 \
    || { tail -5 "$tmp/dec.log"; fail "avhwdec device=example failed"; }
  grep -q 'avhwdec0.GstPad:src: caps = video/x-raw(memory:AVHWExample)' \
    "$tmp/dec.log" || fail "avhwdec did not output example device memory"
  ref=$(md5sum <"$tmp/decref.yuv" | cut -d' ' -f1)
  out=$(md5sum <"$tmp/dec.yuv" | cut -d' ' -f1)
  echo "avdec_h264 $ref, avhwdec on the example device $out"
  [ "$ref" = "$out" ] || fail "avhwdec device=example decodes differently"
else
  echo "NOTE: no x264enc or avdec_h264: the avhwdec part is not run"
fi

echo "== the backend contract suite on the example (AVHW_BACKEND=example)"
contract=$build/tests/check/libs_contract
if [ -x "$contract" ]; then
  AVHW_BACKEND=example CK_FORK=no "$contract" || fail "the contract suite fails on the example backend"
else
  echo "NOTE: $contract is not built (-Dtests=disabled?): the contract suite is not run"
fi

echo "PASS: the out-of-tree example backend works from an installed gst-avhw"

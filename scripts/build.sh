#!/usr/bin/env bash
# Configures and builds gst-avhw in ./build (warnings are errors). Passes the
# shared media corpus to the conformance test when it sits beside the repo.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/builddir.sh

# prefix /usr: the distribution's layout, which tests/install checks
opts=(-Dwerror=true --prefix=/usr)
if [ -f ../shared/media/MANIFEST.tsv ]; then
  opts+=("-Dmedia-dir=$(cd ../shared/media && pwd)")
fi
if [ -f "$BUILD_DIR/build.ninja" ]; then
  meson setup --reconfigure "$BUILD_DIR" "${opts[@]}" >/dev/null
else
  meson setup --wipe "$BUILD_DIR" "${opts[@]}" 2>/dev/null \
    || meson setup "$BUILD_DIR" "${opts[@]}"
fi
(. /etc/os-release 2>/dev/null && echo "${ID:-linux}${VERSION_ID:-}") \
  >"$BUILD_DIR/.distribution"
meson compile -C "$BUILD_DIR"

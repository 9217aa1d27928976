#!/usr/bin/env bash
# Configures and builds gst-avhw in ./build (warnings are errors). Passes the
# shared media corpus to the conformance test when it sits beside the repo.
set -euo pipefail
cd "$(dirname "$0")/.."

opts=(-Dwerror=true)
if [ -f ../shared/media/MANIFEST.tsv ]; then
  opts+=("-Dmedia-dir=$(cd ../shared/media && pwd)")
fi
if [ -d build ]; then
  meson setup --reconfigure build "${opts[@]}" >/dev/null
else
  meson setup build "${opts[@]}"
fi
meson compile -C build

#!/usr/bin/env bash
# Installs everything gst-avhw needs to build, test and run on Debian 12.
# Idempotent; needs root (or sudo).
set -euo pipefail

pkgs=(
  meson ninja-build pkg-config gcc libc6-dev
  libglib2.0-dev libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  libgstreamer-plugins-bad1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  gstreamer1.0-plugins-bad gstreamer1.0-plugins-ugly gstreamer1.0-libav
  libavcodec-dev libavutil-dev libavformat-dev libavfilter-dev ffmpeg x264 x265
  gobject-introspection libgirepository1.0-dev gir1.2-gstreamer-1.0
  gir1.2-gst-plugins-base-1.0 python3-gi python3-gst-1.0 python3-numpy
  python3-torch
  gi-docgen
  libvulkan-dev mesa-vulkan-drivers vulkan-tools
  libxkbcommon-dev libxkbcommon-x11-dev
  libva-dev libdrm-dev
  ocl-icd-opencl-dev ocl-icd-libopencl1 pocl-opencl-icd clinfo
  libffmpeg-nvenc-dev
  # the CUDA backend's kernels, compiled to PTX by clang's CUDA support
  # (backends/cuda/kernels; no CUDA toolkit needed)
  clang
  valgrind indent
)

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all ${#pkgs[@]} packages present"
  exit 0
fi

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"

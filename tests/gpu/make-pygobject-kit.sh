#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# make-pygobject-kit.sh - what the GPU machine needs to build PyGObject for its
# own Python (3.12, with PyTorch and CuPy), in .gpu/pygobject-kit.tar.xz:
#   src/pygobject/     Debian's pygobject source package (the gi package: its
#                      Python files and the C sources of gi._gi)
#   src/gst-python/    Debian's gst-python1.0 source package (the Gst overrides:
#                      Gst.py, GstVideo.py, ... and the C source of _gi_gst)
#   include/           GLib, gobject-introspection, libffi and GStreamer headers
#   lib/               libgirepository-1.0.so.1 (gi._gi needs it; the bundles
#                      do not carry it) and libffi
#   typelibs/          GLib, GObject, Gio, GModule and GStreamer typelibs
#   prebuilt/          gi._gi and _gi_gst built here against CPython 3.12
#                      headers (PY312, default pyenv's 3.12), used only when the
#                      GPU machine cannot compile them (tests/gpu/python-on-gpu.sh
#                      says which it used)
# Headers, libraries and typelibs come from the Debian 13 chroot the d13 bundle
# is made in (D13_ROOT, default /var/tmp/debian13-gpu), so they match that
# bundle's GLib 2.84 and GStreamer 1.26. The sources are Debian 12's
# (pygobject 3.42.2, gst-python 1.22.0): this workplace's mirror serves those
# and not trixie's, and 3.42.2 builds against GLib 2.84 and Python 3.12.
# Run on the Debian 12 dev machine, as root, from the repository root:
#   bash tests/gpu/make-pygobject-kit.sh
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP"
GPU=${GPU_DIR:-$TOP/.gpu}
SHARED=${SHARED:-$TOP/../shared}
D13_ROOT=${D13_ROOT:-/var/tmp/debian13-gpu}
PY312=${PY312:-/root/.pyenv/versions/3.12.1}
W=${KIT_WORK:-/tmp/avhw-pgkit}

if [ "${1:-}" = --in-d13 ]; then
    # inside the chroot: /src is this tree, /kit the kit being filled
    K=/kit/pgkit
    export DEBIAN_FRONTEND=noninteractive
    pkgs="libglib2.0-dev libgirepository1.0-dev libffi-dev libgstreamer1.0-dev
        gir1.2-glib-2.0 gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0 gcc libc6-dev"
    missing=""
    for p in $pkgs; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
    done
    # shellcheck disable=SC2086
    [ -z "$missing" ] || { apt-get update -q > /dev/null; apt-get install -y -q --no-install-recommends $missing > /dev/null; }
    ML=$(gcc -print-multiarch)
    mkdir -p "$K/include" "$K/lib" "$K/typelibs"
    cp -rL /usr/include/glib-2.0 /usr/include/gobject-introspection-1.0 /usr/include/gstreamer-1.0 "$K/include/"
    mkdir -p "$K/include/glibconfig" "$K/include/ffi"
    cp -L "/usr/lib/$ML/glib-2.0/include/glibconfig.h" "$K/include/glibconfig/"
    cp -L /usr/include/"$ML"/ffi*.h "$K/include/ffi/" 2>/dev/null || cp -L /usr/include/ffi*.h "$K/include/ffi/"
    for l in libgirepository-1.0.so.1 libffi.so.8; do cp -L "/usr/lib/$ML/$l" "$K/lib/"; done
    for t in GLib-2.0 GObject-2.0 Gio-2.0 GModule-2.0 GIRepository-2.0 Gst-1.0 GstBase-1.0 \
            GstVideo-1.0 GstAudio-1.0 GstApp-1.0 GstPbutils-1.0 GstTag-1.0; do
        f=/usr/lib/$ML/girepository-1.0/$t.typelib
        [ -f "$f" ] && cp -L "$f" "$K/typelibs/"
    done
    # the prebuilt modules, when CPython 3.12 headers were handed in
    if [ -f /kit/py312/include/python3.12/Python.h ]; then
        mkdir -p "$K/prebuilt"
        PYGOBJECT_SRC=$K/src/pygobject KIT=$K PYINC=/kit/py312/include/python3.12 GLIB_LIBDIR=/usr/lib/$ML \
            OUTDIR=$K/prebuilt bash /src/tests/gpu/build-pygobject.sh
    fi
    exit 0
fi

rm -rf "$W"; mkdir -p "$W/kit/pgkit/src" "$W/dl"
# 1. the sources: Debian's source packages (deb-src of the running Debian)
(cd "$W/dl" && apt-get source -q --download-only pygobject gst-python1.0 > /dev/null 2>&1) ||
    { echo "make-pygobject-kit: apt-get source pygobject gst-python1.0 failed (deb-src?)" >&2; exit 1; }
for p in pygobject gst-python1.0; do
    o=$(ls "$W"/dl/${p}_*.orig.tar.* | head -n1)
    mkdir -p "$W/x/$p" && tar -xf "$o" -C "$W/x/$p" --strip-components=1
    d=$(ls "$W"/dl/${p}_*.debian.tar.* | head -n1)
    tar -xf "$d" -C "$W/x/$p"
    # Debian's patches, in order (series may be empty)
    if [ -s "$W/x/$p/debian/patches/series" ]; then
        grep -v '^#' "$W/x/$p/debian/patches/series" | while read -r patch _; do
            [ -n "$patch" ] && patch -s -d "$W/x/$p" -p1 < "$W/x/$p/debian/patches/$patch"
        done
    fi
    for f in "$W"/dl/"${p}"_*.dsc; do basename "$f"; done > "$W/x/$p/SOURCE-PACKAGE"
done
mkdir -p "$W/kit/pgkit/src/pygobject" "$W/kit/pgkit/src/gst-python"
cp -r "$W/x/pygobject/gi" "$W/x/pygobject/COPYING" "$W/x/pygobject/SOURCE-PACKAGE" "$W/kit/pgkit/src/pygobject/"
mkdir -p "$W/kit/pgkit/src/gst-python/gi"
cp -r "$W/x/gst-python1.0/gi/overrides" "$W/kit/pgkit/src/gst-python/gi/"
cp "$W/x/gst-python1.0/COPYING" "$W/x/gst-python1.0/SOURCE-PACKAGE" "$W/kit/pgkit/src/gst-python/"
# 2. CPython 3.12 headers for the prebuilt fallback (optional)
if [ -f "$PY312/include/python3.12/Python.h" ]; then
    mkdir -p "$W/kit/py312/include" && cp -r "$PY312/include/python3.12" "$W/kit/py312/include/"
else
    echo "make-pygobject-kit: no CPython 3.12 headers in $PY312: no prebuilt fallback"
fi
# 3. headers, libraries, typelibs and the prebuilt modules from the Debian 13 chroot
mkdir -p "$W/chroot-src"
(cd "$TOP" && bash "$SHARED/distros/debian13.sh" --root "$D13_ROOT" -- true)
mkdir -p "$D13_ROOT/kit" && mount --bind "$W/kit" "$D13_ROOT/kit"
trap 'umount -l "$D13_ROOT/kit" 2>/dev/null || true' EXIT
(cd "$TOP" && bash "$SHARED/distros/debian13.sh" --root "$D13_ROOT" -- bash tests/gpu/make-pygobject-kit.sh --in-d13)
umount -l "$D13_ROOT/kit"; trap - EXIT
mkdir -p "$GPU"
tar -cJf "$GPU/pygobject-kit.tar.xz" -C "$W/kit" pgkit
ls -l "$GPU/pygobject-kit.tar.xz" | sed 's/^/make-pygobject-kit: /'
ls "$W/kit/pgkit/prebuilt" 2>/dev/null | sed 's/^/make-pygobject-kit: prebuilt /'

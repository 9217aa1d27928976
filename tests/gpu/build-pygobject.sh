#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# build-pygobject.sh - compiles PyGObject's gi._gi and gst-python's _gi_gst for
# one CPython from the kit of make-pygobject-kit.sh, with the C compiler alone
# (no pkg-config: the kit's headers and libraries are named directly).
#   KIT=DIR/pgkit PYINC=.../include/python3.12 OUTDIR=DIR bash build-pygobject.sh
# PYGOBJECT_SRC (default $KIT/src/pygobject), EXT_SUFFIX (default
# .cpython-312-x86_64-linux-gnu.so), CC (default gcc), JOBS (default nproc).
# Writes OUTDIR/_gi$EXT_SUFFIX and OUTDIR/_gi_gst$EXT_SUFFIX; exit 1 naming
# what failed.
set -euo pipefail
: "${KIT:?}" "${PYINC:?}" "${OUTDIR:?}"
SRC=${PYGOBJECT_SRC:-$KIT/src/pygobject}
EXT=${EXT_SUFFIX:-.cpython-312-x86_64-linux-gnu.so}
CC=${CC:-gcc}
JOBS=${JOBS:-$(nproc)}
[ -f "$PYINC/Python.h" ] || { echo "build-pygobject: no Python.h in $PYINC" >&2; exit 1; }
command -v "$CC" > /dev/null || { echo "build-pygobject: no C compiler ($CC)" >&2; exit 1; }
mkdir -p "$OUTDIR"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# pygobject's meson.build writes these into config.h
ver=$(grep -o 'pygobject_[0-9.]*[0-9]' "$SRC/SOURCE-PACKAGE" 2>/dev/null | head -n1 | sed 's/pygobject_//')
IFS=. read -r major minor micro <<< "${ver:-3.42.2}"
printf '#define PYGOBJECT_MAJOR_VERSION %s\n#define PYGOBJECT_MINOR_VERSION %s\n#define PYGOBJECT_MICRO_VERSION %s\n' \
    "$major" "$minor" "${micro:-0}" > "$T/config.h"
INC="-I$T -I$SRC/gi -I$PYINC -I$KIT/include/glib-2.0 -I$KIT/include/glibconfig"
INC="$INC -I$KIT/include/gobject-introspection-1.0 -I$KIT/include/ffi -I$KIT/include/gstreamer-1.0"
CFLAGS="-O2 -fPIC -DPY_SSIZE_T_CLEAN -w"
LIBS="$KIT/lib/libgirepository-1.0.so.1 $KIT/lib/libffi.so.8"
# the bundle's GLib (GPUBUNDLE/lib) or the kit's own copy
GLIBDIR=${GLIB_LIBDIR:-${GPUBUNDLE:+$GPUBUNDLE/lib}}
GLIBDIR=${GLIBDIR:-$KIT/lib}
for l in libgio-2.0.so.0 libgobject-2.0.so.0 libglib-2.0.so.0; do
    [ -f "$GLIBDIR/$l" ] || { echo "build-pygobject: no $l in $GLIBDIR" >&2; exit 1; }
    LIBS="$LIBS $GLIBDIR/$l"
done
# the C sources of gi._gi: the list in gi/meson.build (cairo left out)
srcs=$(sed -n '/^sources = \[/,/\]/p' "$SRC/gi/meson.build" | grep -o "'[a-z_-]*\.c'" | tr -d "'")
[ -n "$srcs" ] || { echo "build-pygobject: no source list in $SRC/gi/meson.build" >&2; exit 1; }
# shellcheck disable=SC2086  # word lists
printf '%s\n' $srcs | xargs -P "$JOBS" -I{} sh -c "$CC $CFLAGS $INC -c '$SRC/gi/{}' -o '$T/{}.o'" ||
    { echo "build-pygobject: compiling gi._gi failed" >&2; exit 1; }
# shellcheck disable=SC2086
$CC -shared -o "$OUTDIR/_gi$EXT" "$T"/*.c.o $LIBS -Wl,--as-needed ||
    { echo "build-pygobject: linking gi._gi failed" >&2; exit 1; }
GSTLIB=${GST_LIBDIR:-$GLIBDIR}/libgstreamer-1.0.so.0
if [ -f "$KIT/src/gst-python/gi/overrides/gstmodule.c" ] && [ -f "$GSTLIB" ]; then
    # shellcheck disable=SC2086
    $CC $CFLAGS $INC -I"$SRC/gi" -DPY_SSIZE_T_CLEAN -shared \
        "$KIT/src/gst-python/gi/overrides/gstmodule.c" -o "$OUTDIR/_gi_gst$EXT" \
        "$GSTLIB" $LIBS || { echo "build-pygobject: building _gi_gst failed" >&2; exit 1; }
else
    echo "build-pygobject: no gstmodule.c or no $GSTLIB: _gi_gst not built" >&2
fi
ls "$OUTDIR"

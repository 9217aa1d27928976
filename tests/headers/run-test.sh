#!/usr/bin/env bash
# The application headers read no FFmpeg header: app.c, which includes
# gst/avhw/gstavhw.h, compiles with GStreamer's flags only, and the
# compiler's list of the headers it read (-H) names none of FFmpeg's
# (libavcodec, libavutil, libavfilter, libswscale...). impl.c, which
# includes gstavhw-impl.h, must read them: the check itself works.
# argv: the source folder (the repository root), then the C compiler
# command. Exits 77 without pkg-config or GStreamer's .pc files.
set -u
root=$1
shift
command -v pkg-config >/dev/null \
  || { echo "SKIP: no pkg-config"; exit 77; }
flags=$(pkg-config --cflags gstreamer-1.0 gstreamer-video-1.0) \
  || { echo "SKIP: no gstreamer-1.0/gstreamer-video-1.0 .pc files"; exit 77; }
ffmpeg='/lib(av(codec|util|filter|format|device)|sw(scale|resample)|postproc)/'
here="$root/tests/headers"
rc=0
app=$("$@" -H -fsyntax-only -Wall -Werror -I"$root" $flags "$here/app.c" 2>&1)
if [ $? -ne 0 ]; then
  echo "FAIL: app.c does not compile with GStreamer's flags only:"
  echo "$app" | grep -v -e '^\.' -e '^/' -e '^Multiple include guards'
  rc=1
fi
if echo "$app" | grep -E "$ffmpeg" >/dev/null; then
  echo "FAIL: gst/avhw/gstavhw.h reads FFmpeg headers:"
  echo "$app" | grep -E "$ffmpeg|gst/avhw/"
  rc=1
fi
avflags=$(pkg-config --cflags libavcodec libavutil 2>/dev/null)
impl=$("$@" -H -fsyntax-only -Wall -Werror -I"$root" $flags $avflags \
  "$here/impl.c" 2>&1)
if ! echo "$impl" | grep -E "$ffmpeg" >/dev/null; then
  echo "FAIL: gst/avhw/gstavhw-impl.h reads no FFmpeg header (the check finds nothing):"
  echo "$impl" | head -20
  rc=1
fi
n=$(echo "$app" | grep -c "gst/avhw/")
[ $rc -eq 0 ] && echo "gstavhw.h: $n avhw headers read, no FFmpeg header"
exit $rc

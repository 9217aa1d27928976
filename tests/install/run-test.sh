#!/usr/bin/env bash
# install/system: gst-avhw installed with the distribution's layout works
# with no environment variable set, as README's Install section says.
#
#   bash tests/install/run-test.sh <main-build-dir>     (built first)
#
# 1. meson install -C <main-build-dir> --no-rebuild --destdir $tmp/dest
#    (the build's prefix must be /usr: scripts/build.sh configures it so);
# 2. in a private mount namespace, an overlay over / (writes go to a
#    tmpfs) gets the DESTDIR copied in, so the machine itself is left
#    untouched, and the rest runs chrooted there with `env -i` (no
#    GST_PLUGIN_PATH, no PYTHONPATH, no LD_LIBRARY_PATH, no GI_TYPELIB_PATH):
#    - gst-inspect-1.0 avhwdec, gst-avhw-info;
#    - python3: from gi.repository import GstAvhw, open a device, the
#      overrides' Frame class;
#    - docs/examples/share-device.c compiled against the installed
#      gstreamer-avhw-1.0.pc and run (docs/c-api.md).
#
# Exit 0: passed; 1: failed; 77: something it needs is missing (says what).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

[ $# -ge 1 ] || { echo "usage: $0 <main-build-dir>" >&2; exit 2; }
build=$(cd "$1" 2>/dev/null && pwd) || skip "no build folder $1"
prefix=$(meson introspect --buildoptions "$build" | /usr/bin/python3 -c \
  'import json, sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"))')
[ "$prefix" = /usr ] || skip "the build's prefix is $prefix, not /usr (scripts/build.sh configures /usr)"
[ "$(id -u)" -eq 0 ] || skip "needs root (a mount namespace and a chroot)"
for tool in unshare chroot cc pkg-config; do
  command -v "$tool" >/dev/null || skip "$tool is not installed"
done

# A private mount namespace needs / to be a mount point: inside a chroot
# (the Debian 13 run of CI) it is not, and mounts made there could reach
# the host; the test then says so and stops.
unshare -m --propagation private true 2>/dev/null \
  || skip "no private mount namespace here ($(unshare -m --propagation private true 2>&1 | head -n1)); / is not a mount point inside a chroot"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/avhw-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "== meson install -C $build --destdir $tmp/dest (prefix $prefix)"
meson install -C "$build" --no-rebuild --destdir "$tmp/dest" >"$tmp/install.log" 2>&1 \
  || { tail -20 "$tmp/install.log"; fail "meson install failed"; }
mkdir -p "$tmp/dest/tmp/avhw-install"
cp "$src/docs/examples/share-device.c" "$tmp/dest/tmp/avhw-install/"

# What runs as a user would, in the installed system.
cat >"$tmp/dest/tmp/avhw-install/check.sh" <<'EOF'
set -eu
cd /tmp/avhw-install
echo "== environment: $(env | sort | tr '\n' ' ')"
echo "== gst-inspect-1.0 avhwdec"
gst-inspect-1.0 avhwdec >inspect.txt 2>&1 || { cat inspect.txt; exit 1; }
grep -E "Long-name|Filename" inspect.txt
echo "== gst-avhw-info"
gst-avhw-info | head -n 12
echo "== python3: GstAvhw from gi.repository"
/usr/bin/python3 - <<'PY'
import gi
gi.require_version("Gst", "1.0")
gi.require_version("GstAvhw", "1.0")
from gi.repository import Gst, GstAvhw
Gst.init(None)
dev = GstAvhw.Device.open("auto", None)
print("device", dev.get_name(), "| overrides (GstAvhw.Frame):", hasattr(GstAvhw, "Frame"))
assert hasattr(GstAvhw, "Frame"), "the Python overrides (GstAvhw.Frame) are not found"
GstAvhw.cache_clear()
PY
echo "== cc share-device.c \$(pkg-config --cflags --libs gstreamer-avhw-1.0)"
# shellcheck disable=SC2046
cc -Wall -Wextra -Werror share-device.c -o share-device $(pkg-config --cflags --libs gstreamer-avhw-1.0)
./share-device
EOF

unshare -m --propagation private bash -c '
  set -eu
  t=$1
  mkdir -p "$t/ovl" "$t/root"
  mount -t tmpfs tmpfs "$t/ovl"
  mkdir -p "$t/ovl/up" "$t/ovl/work"
  mount -t overlay overlay -o "lowerdir=/,upperdir=$t/ovl/up,workdir=$t/ovl/work" "$t/root" \
    || { echo "SKIP: no overlay mount here"; exit 77; }
  cp -a "$t/dest/." "$t/root/"
  for d in proc sys dev; do mount --rbind "/$d" "$t/root/$d"; done
  mkdir -p "$t/root/tmp/home"
  chroot "$t/root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp/home LANG=C.UTF-8 \
    bash /tmp/avhw-install/check.sh
' _ "$tmp" || { rc=$?; [ $rc -eq 77 ] && exit 77; fail "the installed gst-avhw did not work without environment variables (exit $rc)"; }
echo "PASS: installed with prefix /usr, found with no environment variable"

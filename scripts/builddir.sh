# Sourced by build.sh, test.sh and run.sh: sets BUILD_DIR, the Meson build
# folder for the distribution running the script. One tree can be built on
# the host and in a chroot of another release (../shared/distros/
# debian13.sh): `build` belongs to the first distribution that configures
# it (recorded in build/.distribution); another one builds in
# build-<ID><VERSION_ID> (build-debian13) instead of reconfiguring it.
# BUILD_DIR set by the caller wins.
if [ -z "${BUILD_DIR:-}" ]; then
  _distro=$(. /etc/os-release 2>/dev/null && echo "${ID:-linux}${VERSION_ID:-}")
  _distro=${_distro:-linux}
  if [ ! -f build/build.ninja ] || [ ! -f build/.distribution ] \
      || [ "$(cat build/.distribution)" = "$_distro" ]; then
    BUILD_DIR=build
  else
    BUILD_DIR=build-$_distro
  fi
  unset _distro
fi
export BUILD_DIR

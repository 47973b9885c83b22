#!/usr/bin/env bash
# Builds VeriStrong (VLDB 2026, github.com/CzxingcHen/VeriStrong), the SER
# and SI checker over hyper-polygraphs, for scripts/veristrong-bench.sh.
#   scripts/veristrong-build.sh CHECKOUT [DEST]
# CHECKOUT is a VeriStrong checkout (the directory that holds veristrong/
# and history/). Its README's steps, on Debian 12 rather than Ubuntu 22.04:
# the Debian packages it names (gcc 12 is Debian 12's own), then a Meson
# release build of veristrong/ with its vendored subprojects (MonoSAT,
# argparse and its two acyclic MiniSat solvers). The build directory is
# DEST (default /tmp/veristrong-build); the checker is DEST/checker.
# This is the artifact's default variant (`builddir-release-veristrong` in
# its README). Its fig 5 and table 1 variants differ by compile-time macros
# and are not built here.
set -euo pipefail
src=${1:?a VeriStrong checkout}/veristrong
dest=${2:-/tmp/veristrong-build}
[ -f "$src/meson.build" ] || { echo "no $src/meson.build" >&2; exit 2; }
if [ "$(id -u)" = 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
        g++-12 pkg-config cmake meson ninja-build libboost-log-dev \
        libboost-test-dev libboost-graph-dev zlib1g-dev libgmp-dev libfmt-dev time
fi
# Meson refuses a build directory that another source tree configured.
[ -f "$dest/build.ninja" ] ||
    CC=gcc-12 CXX=g++-12 meson setup "$dest" "$src" --buildtype=release
meson compile -C "$dest" -j "${CARGO_BUILD_JOBS:-1}" checker
echo "built $dest/checker"

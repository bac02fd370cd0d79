#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine lacks, then builds gpuprof into
# ./build. Safe to run again: it installs and configures only what is missing.
# Sourced by run-example.sh and run-tests.sh. Arguments are meson options of
# the build folder (GPUPROF_BUILD), e.g. the sanitizer folders of
# run-tests.sh and run-tsan.sh: -Db_sanitize=address,undefined -Db_lundef=false
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GPUPROF_BUILD:-$top/build}

packages=(meson ninja-build pkg-config gcc libc6-dev
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libjson-glib-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  gstreamer1.0-plugins-bad jq valgrind time
  gstreamer1.0-plugins-ugly gstreamer1.0-libav  # x264enc, avdec_h264: own threads
  graphviz chromium             # tools-html: dot -Tsvg, headless browser
  python3-gi gir1.2-gstreamer-1.0
  prometheus                    # live-metrics: a real Prometheus, promtool
  libasan8 libubsan1 libtsan2)   # sanitizer runtimes (also pulled in by gcc)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "gpuprof: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}"
fi

if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" "$top" "$@"
else
  # new source files are picked up at configure time
  meson setup --reconfigure "$build" "$top" "$@" >/dev/null
fi
ninja -C "$build"

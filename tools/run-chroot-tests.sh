#!/usr/bin/env bash
# The test suite on the GStreamer releases our users run besides Debian 12's
# 1.22: built and run in a Debian 13 (trixie, GStreamer 1.26) chroot, and
# the same build run over Debian sid's GStreamer 1.28 libraries unpacked
# beside it (docs/testing.md, "Other GStreamer releases").
#
#   tools/run-chroot-tests.sh [--gst 1.26|1.28] [meson test args...]
#   tools/run-chroot-tests.sh [--gst 1.26|1.28] --run 'COMMAND'
#
# --run runs COMMAND (bash) in the worktree inside the chroot instead of the
# suite, after the build, with that GStreamer and the build's plugins on
# GST_PLUGIN_PATH: e.g. --run 'GST_TRACERS=gpuprof gst-launch-1.0 ...'.
#
# The chroot is made once with debootstrap (minbase, only the packages the
# tests need, no Recommends) in $GPUPROF_CHROOT_DIR (default
# /var/cache/gpuprof-chroots) and reused while the machine keeps it; the
# sid libraries go in its /opt/gst-1.28. The worktree is bind-mounted at
# /src inside (a private mount namespace: nothing stays mounted), the build
# is ./build-trixie (plain, no sanitizer). Needs root (or sudo) and, the
# first time, Debian's mirror ($GPUPROF_MIRROR, default deb.debian.org).
# Exit status: the suite's; 3 when the chroot or the 1.28 libraries could
# not be set up (the error says why: CI must not read that as green).
set -uo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
gst=1.26 run=""
while [ $# -gt 0 ]; do
  case "$1" in
    --gst) gst=${2:-}; shift 2 ;;
    --gst=*) gst=${1#--gst=}; shift ;;
    --run) run=${2:-}; shift 2 ;;
    *) break ;;
  esac
done
case "$gst" in
  1.26|1.28) ;;
  *) echo "run-chroot-tests: --gst must be 1.26 or 1.28, not '$gst'" >&2; exit 2 ;;
esac

dir=${GPUPROF_CHROOT_DIR:-/var/cache/gpuprof-chroots}
mirror=${GPUPROF_MIRROR:-http://deb.debian.org/debian}
release=trixie
root=$dir/$release
build=${GPUPROF_CHROOT_BUILD:-$top/build-$release}
sid_dir=/opt/gst-1.28           # inside the chroot

# What the suite needs in the chroot, nothing more: the build, GStreamer's
# tools and plugins the tests use, jq, PyGObject for the Python tests,
# graphviz for tools-html's graph, x264enc and avdec_h264 (plugins-ugly,
# libav: tracer-own-threads; in the 1.28 set too, where a plugin needing
# sid's libraries is left out, below, and its cases skip). Left out (those parts skip, and run in
# the Debian 12 suite): chromium (tools-html's page checks), prometheus
# (live-metrics), valgrind and the sanitizer runtimes (plain build only).
# dpkg-dev: meson asks its dpkg-architecture for Debian's multiarch libdir
# (lib/x86_64-linux-gnu, GStreamer's plugin folder for --prefix=/usr;
# without it lib64); a Debian machine installing with Recommends has it.
packages=(meson ninja-build pkg-config gcc libc6-dev dpkg-dev
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libjson-glib-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  gstreamer1.0-plugins-bad jq graphviz python3-gi gir1.2-gstreamer-1.0
  gstreamer1.0-plugins-ugly gstreamer1.0-libav
  python3 procps)
# sid's GStreamer at run time: the libraries, plugins and tools the build
# above links and the tests load, and the typelibs for PyGObject
sid_packages=(libgstreamer1.0-0 gstreamer1.0-tools
  libgstreamer-plugins-base1.0-0 gstreamer1.0-plugins-base
  gstreamer1.0-plugins-good gstreamer1.0-plugins-bad
  gstreamer1.0-plugins-ugly gstreamer1.0-libav
  libgstreamer-plugins-bad1.0-0 gir1.2-gstreamer-1.0
  gir1.2-gst-plugins-base-1.0)

die () {
  echo "run-chroot-tests: ERROR: $*" >&2
  echo "run-chroot-tests: the GStreamer $gst suite did not run" >&2
  exit 3
}

if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null \
    || die "needs root (debootstrap, chroot, mount) and there is no sudo"
  if [ -n "$run" ]; then
    exec sudo -E bash "$0" --gst "$gst" --run "$run" "$@"
  fi
  exec sudo -E bash "$0" --gst "$gst" "$@"
fi
for tool in debootstrap unshare chroot flock; do
  command -v $tool >/dev/null && continue
  if [ $tool = debootstrap ] && command -v apt-get >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >&2 \
      || die "could not install debootstrap"
  else
    die "$tool is missing"
  fi
done
mkdir -p "$dir" || die "cannot create $dir"
unshare --mount --propagation private true \
  || die "cannot make a mount namespace (unshare --mount: a container without CAP_SYS_ADMIN?)"

# in_chroot CMD...: runs CMD in the chroot, in a mount namespace of its own
# with /proc, /sys, /dev, the worktree at /src, and where the machine has
# them the test clip and the CUDA headers (NVTX, and CUPTI's for the fake
# libcupti; not nvcc: the example's GPU code does not depend on GStreamer)
in_chroot () {
  local cuda=/usr/local/cuda media
  media=$(cd "$top/.." && pwd)/shared/media
  unshare --mount --propagation private bash -c '
    set -e
    root=$1 top=$2 cuda=$3 media=$4; shift 4
    mount -t proc proc "$root/proc"
    mount --rbind /sys "$root/sys"
    mount --rbind /dev "$root/dev"
    mkdir -p "$root/src" "$root/tmp"
    mount --bind "$top" "$root/src"
    mount -t tmpfs -o size=4g tmpfs "$root/tmp"
    if [ -d "$cuda/include" ]; then
      mkdir -p "$root/usr/local/cuda/include"
      mount --bind -o ro "$(readlink -f "$cuda/include")" "$root/usr/local/cuda/include"
    fi
    if [ -d "$media" ]; then
      mkdir -p "$root/shared/media"
      mount --bind -o ro "$media" "$root/shared/media"
    fi
    cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
    exec chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
      PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
      "$@"' in-chroot "$root" "$top" "$cuda" "$media" "$@"
}

missing_packages () {
  chroot "$root" dpkg-query -W -f='${Package} ${Status}\n' "${packages[@]}" \
    2>/dev/null | awk '$NF == "installed" { print $1 }' | sort > "$root/.have"
  printf '%s\n' "${packages[@]}" | sort | comm -23 - "$root/.have"
}

# The chroot, made or completed; under an exclusive lock (another worktree
# may be setting it up too)
setup_chroot () {
  local t0=$SECONDS missing
  if [ ! -x "$root/usr/bin/apt-get" ]; then
    rm -rf "$root.new"
    echo "run-chroot-tests: debootstrap $release from $mirror into $root" >&2
    debootstrap --variant=minbase "$release" "$root.new" "$mirror" \
        > "$dir/debootstrap-$release.log" 2>&1 \
      || { tail -20 "$dir/debootstrap-$release.log" >&2
           die "debootstrap $release from $mirror failed (mirror unreachable?); log: $dir/debootstrap-$release.log"; }
    mv "$root.new" "$root"
    echo "run-chroot-tests: debootstrap took $(( SECONDS - t0 )) s" >&2
  fi
  missing=$(missing_packages | tr '\n' ' ')
  if [ -n "${missing// /}" ]; then
    t0=$SECONDS
    echo "run-chroot-tests: installing in the chroot: $missing" >&2
    in_chroot sh -c "apt-get update -q && DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -q --no-install-recommends $missing && apt-get clean \
        && rm -rf /var/lib/apt/lists/*" \
        > "$dir/apt-$release.log" 2>&1 \
      || { tail -20 "$dir/apt-$release.log" >&2
           die "installing $missing in the $release chroot failed (mirror unreachable?); log: $dir/apt-$release.log"; }
    missing=$(missing_packages | tr '\n' ' ')
    [ -z "${missing// /}" ] || die "still missing in the chroot: $missing"
    echo "run-chroot-tests: packages took $(( SECONDS - t0 )) s" >&2
  fi
}

# sid's GStreamer unpacked in the chroot's $sid_dir, with an apt of its own
# (sid's Release outlives its Valid-Until on a frozen mirror)
setup_sid () {
  local t0=$SECONDS stamp want
  want="$mirror ${sid_packages[*]}"
  stamp=$root$sid_dir/.packages
  [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && return 0
  echo "run-chroot-tests: unpacking sid's GStreamer into $sid_dir" >&2
  rm -rf "$root$sid_dir"
  rm -rf "$root$sid_dir.apt"
  mkdir -p "$root$sid_dir.apt/lists/partial" "$root$sid_dir.apt/archives/partial"
  echo "deb $mirror sid main" > "$root$sid_dir.apt/sources.list"
  in_chroot sh -c '
    set -e
    a=$1; shift
    opts="-o Dir::Etc::SourceList=$a/sources.list -o Dir::Etc::SourceParts=/nonexistent
      -o Dir::State::Lists=$a/lists -o Dir::Cache::Archives=$a/archives
      -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=
      -o Acquire::Check-Valid-Until=false"
    apt-get $opts update -q
    cd $a/archives && rm -f ./*.deb && apt-get $opts download "$@"
    new=$a/../gst-1.28.new
    for d in ./*.deb; do dpkg-deb -x "$d" "$new"; done
    rm -f ./*.deb
    # plugins needing libraries trixie lacks (sid sonames) would warn in
    # every registry scan: left out, and listed
    lib=$new/usr/lib/x86_64-linux-gnu
    for so in "$lib"/gstreamer-1.0/*.so; do
      if LD_LIBRARY_PATH=$lib ldd "$so" | grep -q "not found"; then
        echo "left out (libraries missing): ${so##*/}"
        rm -f "$so"
      fi
    done
    rm -rf "$a"' sid "$sid_dir.apt" "${sid_packages[@]}" \
    > "$dir/apt-sid.log" 2>&1 \
    || { tail -20 "$dir/apt-sid.log" >&2
         die "fetching sid's GStreamer (${sid_packages[*]}) from $mirror failed (mirror unreachable?); log: $dir/apt-sid.log"; }
  mv "$root/opt/gst-1.28.new" "$root$sid_dir"
  echo "$want" > "$stamp"
  echo "run-chroot-tests: sid's GStreamer took $(( SECONDS - t0 )) s" >&2
}

exec 9> "$dir/$release.lock"
flock -x 9
setup_chroot
[ "$gst" = 1.28 ] && setup_sid
flock -s 9                      # runs may share it; set-up waits for them

# the environment that puts sid's GStreamer before trixie's
gst_env=()
if [ "$gst" = 1.28 ]; then
  lib=$sid_dir/usr/lib/x86_64-linux-gnu
  gst_env=(LD_LIBRARY_PATH=$lib GST_PLUGIN_SYSTEM_PATH_1_0=$lib/gstreamer-1.0
    GST_PLUGIN_SCANNER_1_0=$lib/gstreamer1.0/gstreamer-1.0/gst-plugin-scanner
    GI_TYPELIB_PATH=$lib/girepository-1.0
    PATH=$sid_dir/usr/bin:/usr/local/bin:/usr/bin:/bin)
fi

rel=${build#"$top"/}
case "$rel" in
  /*) die "the build folder $build must be inside the worktree $top" ;;
esac
# shellcheck disable=SC2016
in_chroot env "${gst_env[@]}" bash -c '
  set -u
  want=$1 build=/src/$2 run=$3; shift 3
  cd /src
  have=$(gst-launch-1.0 --version | sed -n "s/.*GStreamer \([0-9]*\.[0-9]*\.[0-9]*\).*/\1/p")
  case "$have" in
    "$want".*) ;;
    *) echo "run-chroot-tests: ERROR: GStreamer $have, not $want.x" >&2; exit 3 ;;
  esac
  echo "run-chroot-tests: GStreamer $have, GLib $(pkg-config --modversion glib-2.0) (headers), $(. /etc/os-release; echo "$PRETTY_NAME")"
  if [ ! -f "$build/build.ninja" ]; then
    meson setup "$build" /src > /dev/null || exit 3
  else
    meson setup --reconfigure "$build" /src > /dev/null || exit 3
  fi
  nice ninja -C "$build" > "$build/ninja.log" 2>&1 || { tail -40 "$build/ninja.log"; exit 3; }
  if [ -n "$run" ]; then
    export GST_PLUGIN_PATH=$build/tracers:$build/elements/gpuprofmeter:$build/examples/analytics
    exec bash -c "$run"
  fi
  meson test -C "$build" --print-errorlogs "$@"' run "$gst" "$rel" "$run" "$@"

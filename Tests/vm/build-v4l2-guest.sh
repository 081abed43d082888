#!/usr/bin/env bash
# Builds what the VM harness's second, short boot (the `v4l2` check) needs, into a cache directory:
#   $cache/v4l2/kver                    the backports kernel ABI booted (e.g. 6.12.95+deb12-amd64)
#   $cache/v4l2/<kver>/vmlinuz, initrd.gz  Debian's bookworm-backports kernel + busybox initramfs
#                                       (Tests/vm/init; the 9p stack, the V4L2/vb2 modules, then
#                                       v4l2-mem2mem and visl)
#   $cache/v4l2/<kver>/{v4l2-mem2mem,visl}.ko  built out of tree from linux-source-6.12: Debian's
#                                       6.12 image has neither (CONFIG_VIDEO_VISL and
#                                       CONFIG_V4L2_MEM2MEM_DEV are off), visl with
#                                       Tests/vm/visl-*.patch applied
#   $cache/bin/gst-keep-entry-points.so  guest/gst-keep-entry-points.c (see there)
# Debian packages come from bookworm-backports through a private apt configuration under
# $cache/v4l2/apt (its own sources list, state and cache): the machine's apt sources are never
# touched. linux-source-6.12 (150 MB) is downloaded once; only visl's directory and
# v4l2-mem2mem.c are kept.
# Idempotent: each artefact is rebuilt only when missing or older than its inputs.
# usage: build-v4l2-guest.sh CACHE_DIR        (prints the kernel ABI on stdout)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=$1
base=$cache/v4l2
pinned=6.12.95+deb12-amd64
log() { echo "vm-build-v4l2: $*" >&2; }
mkdir -p "$base" "$cache/bin"

# --- private apt for bookworm-backports
apt_dir=$base/apt
mkdir -p "$apt_dir/etc" "$apt_dir/state/lists/partial" "$apt_dir/cache/archives/partial"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm-backports main" \
  > "$apt_dir/etc/sources.list"
touch "$apt_dir/state/status"
apt_opts=(-o "Dir::Etc::sourcelist=$apt_dir/etc/sources.list" -o "Dir::Etc::sourceparts=-"
          -o "Dir::State=$apt_dir/state" -o "Dir::State::status=$apt_dir/state/status"
          -o "Dir::Cache=$apt_dir/cache" -o "APT::Sandbox::User=root" -o "Debug::NoLocking=1")
apt_update() { log "apt-get update (bookworm-backports, private lists)"; apt-get -q "${apt_opts[@]}" update >&2; }
[ -n "$(ls "$apt_dir/state/lists/" | grep -v -e partial -e lock -e auxfiles || true)" ] || apt_update
# download PACKAGE... into the current directory, refreshing the lists once if the archive moved on
download() { apt-get -q "${apt_opts[@]}" download "$@" >&2 || { apt_update; apt-get -q "${apt_opts[@]}" download "$@" >&2; }; }

# --- the kernel ABI: the pin while backports has it, else the newest 6.12 ABI it lists
if [ -f "$base/kver" ] && [ -f "$base/$(cat "$base/kver")/vmlinuz" ]; then
  kver=$(cat "$base/kver")
elif apt-cache "${apt_opts[@]}" show "linux-image-$pinned" >/dev/null 2>&1; then
  kver=$pinned
else
  kver=$(apt-cache "${apt_opts[@]}" pkgnames linux-image-6.12. 2>/dev/null \
    | grep -E '^linux-image-6\.12\.[0-9]+\+deb12(\.[0-9]+)?-amd64$' | sed 's/^linux-image-//' | sort -V | tail -1 || true)
  [ -n "$kver" ] || { log "bookworm-backports lists no linux-image-6.12.*-amd64"; exit 1; }
fi
k=$base/$kver
mkdir -p "$k"

# --- kernel image and headers (+ common, kbuild), unpacked; module index rebuilt for modprobe
if [ ! -f "$k/kernel/boot/vmlinuz-$kver" ] || [ ! -d "$k/hdr/usr/src/linux-headers-$kver" ]; then
  abi=${kver%-amd64}
  log "downloading linux-image-$kver, linux-headers-$kver (+ -common, linux-kbuild-$abi)"
  rm -rf "$k/kernel" "$k/hdr" "$k/dl" && mkdir -p "$k/dl"
  (cd "$k/dl" && download "linux-image-$kver" "linux-headers-$kver" "linux-headers-$abi-common" "linux-kbuild-$abi")
  dpkg-deb -f "$k"/dl/linux-image-"$kver"_*.deb Version > "$k/image-version"
  dpkg -x "$k"/dl/linux-image-"$kver"_*.deb "$k/kernel.tmp"
  depmod -b "$k/kernel.tmp" "$kver"
  mkdir -p "$k/hdr.tmp"
  for d in "$k"/dl/linux-headers-*.deb "$k"/dl/linux-kbuild-*.deb; do dpkg -x "$d" "$k/hdr.tmp"; done
  # the headers' Makefile includes the common tree by absolute path: point it into ours
  sed -i "s#include /usr/src/#include $k/hdr/usr/src/#" "$k/hdr.tmp/usr/src/linux-headers-$kver/Makefile"
  mv "$k/kernel.tmp" "$k/kernel" && mv "$k/hdr.tmp" "$k/hdr" && rm -rf "$k/dl"
fi
build=$k/hdr/usr/src/linux-headers-$kver

# --- the two source files sets, from linux-source-6.12 of the image's version
if [ ! -f "$k/src/visl/visl-core.c" ] || [ ! -f "$k/src/m2m/v4l2-mem2mem.c" ]; then
  ver=$(cat "$k/image-version")
  log "downloading linux-source-6.12 $ver (visl and v4l2-mem2mem.c are kept)"
  rm -rf "$k/src" "$k/srcdl" && mkdir -p "$k/srcdl" "$k/src/m2m"
  (cd "$k/srcdl" && { download "linux-source-6.12=$ver" || download linux-source-6.12; })
  dpkg-deb --fsys-tarfile "$k"/srcdl/linux-source-6.12_*_all.deb | tar -xO ./usr/src/linux-source-6.12.tar.xz \
    | tar -xJ -C "$k/srcdl" linux-source-6.12/drivers/media/test-drivers/visl linux-source-6.12/drivers/media/v4l2-core/v4l2-mem2mem.c
  mv "$k/srcdl/linux-source-6.12/drivers/media/test-drivers/visl" "$k/src/visl"
  mv "$k/srcdl/linux-source-6.12/drivers/media/v4l2-core/v4l2-mem2mem.c" "$k/src/m2m/"
  rm -rf "$k/srcdl"
fi

# --- v4l2-mem2mem.ko, then visl.ko against its symbols (no pahole here: no BTF for modules)
kmake() { make -s -C "$build" CONFIG_DEBUG_INFO_BTF_MODULES= "$@" >&2; }
if [ ! -f "$k/v4l2-mem2mem.ko" ]; then
  log "building v4l2-mem2mem"
  rm -rf "$k/m2m-build" && cp -r "$k/src/m2m" "$k/m2m-build"
  echo 'obj-m := v4l2-mem2mem.o' > "$k/m2m-build/Makefile"
  kmake M="$k/m2m-build" modules
  strip --strip-debug -o "$k/v4l2-mem2mem.ko" "$k/m2m-build/v4l2-mem2mem.ko"
  cp "$k/m2m-build/Module.symvers" "$k/m2m.symvers"
  rm -rf "$k/m2m-build"
fi
patches=$(ls "$here"/visl-*.patch | sort)
stale=0
for pf in $patches; do [ "$pf" -nt "$k/visl.ko" ] && stale=1; done
if [ ! -f "$k/visl.ko" ] || [ $stale = 1 ]; then
  log "building visl"
  src=$k/visl-build
  rm -rf "$src" && cp -r "$k/src/visl" "$src"
  for pf in $patches; do patch -d "$src" -p1 --quiet < "$pf"; done
  # Out of tree the trace headers are found beside the sources, not under drivers/media/…
  sed -i 's|^#define TRACE_INCLUDE_PATH .*|#define TRACE_INCLUDE_PATH .|' "$src"/visl-trace-*.h
  echo 'ccflags-y += -I$(src)' >> "$src/Makefile"
  kmake M="$src" CONFIG_VIDEO_VISL=m KBUILD_EXTRA_SYMBOLS="$k/m2m.symvers" modules
  strip --strip-debug -o "$k/visl.ko" "$src/visl.ko"
  rm -rf "$src"
fi

# --- the GStreamer workaround (LD_PRELOAD), compiled for the host root the guest runs
gstkeep=$cache/bin/gst-keep-entry-points.so
if [ ! -f "$gstkeep" ] || [ "$here/guest/gst-keep-entry-points.c" -nt "$gstkeep" ]; then
  log "compiling gst-keep-entry-points.so"
  gcc -O2 -Wall -Wextra -shared -fPIC -o "$gstkeep" "$here/guest/gst-keep-entry-points.c"
fi

# --- initramfs: busybox, init, the 9p stack and the V4L2 modules in dependency order, ours last
if [ ! -f "$k/initrd.gz" ] || [ "$here/init" -nt "$k/initrd.gz" ] || [ "$k/visl.ko" -nt "$k/initrd.gz" ] \
   || [ "$k/v4l2-mem2mem.ko" -nt "$k/initrd.gz" ] || [ "$here/build-v4l2-guest.sh" -nt "$k/initrd.gz" ]; then
  log "assembling initramfs"
  root=$k/initrd.tmp
  rm -rf "$root" && mkdir -p "$root"/{bin,mods,dev,proc,sys,host}
  cp "$(command -v busybox)" "$root/bin/busybox"
  if ldd "$root/bin/busybox" >/dev/null 2>&1; then log "busybox is not static (install busybox-static)"; exit 1; fi
  cp "$here/init" "$root/init" && chmod 755 "$root/init"
  n=10
  for m in 9pnet_virtio 9p virtio_pci videobuf2-vmalloc videobuf2-v4l2 v4l2-tpg; do
    modprobe -d "$k/kernel" -S "$kver" --show-depends "$m"
  done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }' | while read -r ko; do
    name=$(basename "$ko")
    case $ko in
      *.ko.xz) xz -dc "$ko" > "$root/mods/$n-${name%.xz}" ;;
      *) cp "$ko" "$root/mods/$n-$name" ;;
    esac
    n=$((n + 1))
  done
  cp "$k/v4l2-mem2mem.ko" "$root/mods/98-v4l2-mem2mem.ko"
  cp "$k/visl.ko" "$root/mods/99-visl.ko"
  (cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$k/initrd.gz.tmp"
  mv "$k/initrd.gz.tmp" "$k/initrd.gz"
  cp "$k/kernel/boot/vmlinuz-$kver" "$k/vmlinuz"
  rm -rf "$root"
fi
echo "$kver" > "$base/kver"
echo "$kver"

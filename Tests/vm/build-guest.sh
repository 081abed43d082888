#!/usr/bin/env bash
# Builds what the VM harness boots, once per kernel version, into a cache directory:
#   $cache/<kver>/vmlinuz, initrd.gz   Debian kernel + busybox initramfs (init, modules in load order)
#   $cache/<kver>/vkms.ko              vkms built out of tree from linux-source-6.1 (Debian ships none)
#   $cache/bin/kmstool                 guest-side libdrm helper (guest/kmstool.c)
#   $cache/bin/inputtool               guest-side uinput/uhid device maker (guest/inputtool.c)
#   $cache/bin/cectool                 guest-side raw CEC frame sender, the hostile TV (guest/cectool.c)
# vivid and its dependencies (the cec check) are not in the initramfs: the check loads them from
# the unpacked kernel package ($cache/<kver>/kernel, over 9p) with modprobe -d, so no other check
# ever sees /dev/cec*.
# Idempotent: each artefact is rebuilt only when missing or older than its inputs.
# usage: build-guest.sh CACHE_DIR KERNEL_VERSION        (run.sh passes both)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=$1
kver=$2
k=$cache/$kver
mkdir -p "$k" "$cache/bin"
log() { echo "vm-build: $*" >&2; }

# --- guest helper (runs in the guest from the host root over 9p, so it links the host's libdrm)
if [ ! -x "$cache/bin/kmstool" ] || [ "$here/guest/kmstool.c" -nt "$cache/bin/kmstool" ]; then
  log "compiling kmstool"
  gcc -O2 -Wall -Wextra -o "$cache/bin/kmstool" "$here/guest/kmstool.c" $(pkg-config --cflags --libs libdrm)
fi

if [ ! -x "$cache/bin/inputtool" ] || [ "$here/guest/inputtool.c" -nt "$cache/bin/inputtool" ]; then
  log "compiling inputtool"
  gcc -O2 -Wall -Wextra -o "$cache/bin/inputtool" "$here/guest/inputtool.c"
fi

if [ ! -x "$cache/bin/cectool" ] || [ "$here/guest/cectool.c" -nt "$cache/bin/cectool" ]; then
  log "compiling cectool"
  gcc -O2 -Wall -Wextra -o "$cache/bin/cectool" "$here/guest/cectool.c"
fi

# --- kernel package: downloaded, unpacked, module index rebuilt for modprobe --show-depends
if [ ! -f "$k/kernel/boot/vmlinuz-$kver" ]; then
  log "downloading linux-image-$kver"
  rm -rf "$k/kernel" "$k/dl" && mkdir -p "$k/dl"
  (cd "$k/dl" && apt-get download -q "linux-image-$kver" >&2)
  dpkg-deb -f "$k"/dl/linux-image-"$kver"_*.deb Version > "$k/image-version"
  dpkg -x "$k"/dl/linux-image-"$kver"_*.deb "$k/kernel.tmp"
  depmod -b "$k/kernel.tmp" "$kver"
  mv "$k/kernel.tmp" "$k/kernel" && rm -rf "$k/dl"
fi

# --- vkms: only drivers/gpu/drm/vkms of the matching linux-source, built against the headers
# every Tests/vm/vkms-*.patch, applied in name order; a newer patch rebuilds the module
patches=$(ls "$here"/vkms-*.patch | sort)
stale=0
for pf in $patches; do [ "$pf" -nt "$k/vkms.ko" ] && stale=1; done
if [ ! -f "$k/vkms.ko" ] || [ $stale = 1 ]; then
  [ -d "/lib/modules/$kver/build" ] || { echo "vm-build: linux-headers-$kver missing (Tests/tools/install-deps.sh installs it)" >&2; exit 1; }
  ver=$(cat "$k/image-version")
  log "building vkms from linux-source-6.1 $ver"
  rm -rf "$k/vkms-build" && mkdir -p "$k/vkms-build"
  (cd "$k/vkms-build" && { apt-get download -q "linux-source-6.1=$ver" >&2 || apt-get download -q linux-source-6.1 >&2; })
  dpkg-deb --fsys-tarfile "$k"/vkms-build/linux-source-6.1_*_all.deb \
    | tar -xO ./usr/src/linux-source-6.1.tar.xz \
    | tar -xJ -C "$k/vkms-build" linux-source-6.1/drivers/gpu/drm/vkms
  src=$k/vkms-build/linux-source-6.1/drivers/gpu/drm/vkms
  for pf in $patches; do patch -d "$src" -p1 --quiet < "$pf"; done
  make -s -C "/lib/modules/$kver/build" M="$src" CONFIG_DRM_VKMS=m modules >&2
  strip --strip-debug -o "$k/vkms.ko" "$src/vkms.ko"
  rm -rf "$k/vkms-build"
fi

# --- initramfs: busybox, init, the modules the checks need in dependency order, vkms last
# (so bochs-drm and virtio-gpu probe first; the checks pick cards by driver name anyway)
if [ ! -f "$k/initrd.gz" ] || [ "$here/init" -nt "$k/initrd.gz" ] || [ "$k/vkms.ko" -nt "$k/initrd.gz" ] \
   || [ "$here/build-guest.sh" -nt "$k/initrd.gz" ]; then
  log "assembling initramfs"
  root=$k/initrd.tmp
  rm -rf "$root" && mkdir -p "$root"/{bin,mods,dev,proc,sys,host}
  cp "$(command -v busybox)" "$root/bin/busybox"
  if ldd "$root/bin/busybox" >/dev/null 2>&1; then echo "vm-build: busybox is not static (install busybox-static)" >&2; exit 1; fi
  cp "$here/init" "$root/init" && chmod 755 "$root/init"
  n=10
  # evdev, uinput, uhid + hid-playstation (ff-memless, led-class-multicolor): the input check;
  # snd-aloop: the audio check
  for m in bochs virtio-gpu 9pnet_virtio 9p virtio_pci vgem evdev uinput uhid hid-playstation snd-aloop; do
    modprobe -d "$k/kernel" -S "$kver" --show-depends "$m"
  done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }' | while read -r ko; do
    name=$(basename "$ko")
    case $ko in
      *.ko.xz) xz -dc "$ko" > "$root/mods/$n-${name%.xz}" ;;
      *) cp "$ko" "$root/mods/$n-$name" ;;
    esac
    # snd-aloop as card 0 "Loopback" (the audio check plays to hw:Loopback,0, records hw:Loopback,1)
    case $name in snd-aloop.ko*) echo "index=0 id=Loopback pcm_substreams=2" > "$root/mods/$n-snd-aloop.params" ;; esac
    n=$((n + 1))
  done
  cp "$k/vkms.ko" "$root/mods/99-vkms.ko"
  echo "enable_overlay=1" > "$root/mods/99-vkms.params"   # ARGB overlay planes (the stats overlay check)
  (cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$k/initrd.gz.tmp"
  mv "$k/initrd.gz.tmp" "$k/initrd.gz"
  cp "$k/kernel/boot/vmlinuz-$kver" "$k/vmlinuz"
  rm -rf "$root"
fi

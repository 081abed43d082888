#!/usr/bin/env bash
# Installs every Debian package punktfunk-kiosk builds, tests or runs against (Debian 12).
# Idempotent and quick when everything is present. Swift packages come from SwiftPM itself.
set -euo pipefail

packages=(
  build-essential pkg-config
  libngtcp2-dev libngtcp2-crypto-gnutls-dev libgnutls28-dev   # QUIC + TLS 1.3
  libsodium-dev                                               # SPAKE2 point/scalar ops (pairing)
  libopus-dev                                                 # Opus audio
  libasound2-dev                                              # ALSA output (Audio sink)
  libva-dev libdrm-dev                                        # VA-API decode, KMS
  libavcodec-dev                                              # software HEVC rung
  libcairo2-dev fonts-dejavu-core                             # stats overlay text (fontconfig "monospace")
  libevdev-dev libudev-dev                                    # evdev input, udev hot-plug
  libpango1.0-dev                                             # the shell's text (pango on cairo, DejaVu Sans)
  libwayland-dev wayland-protocols libxkbcommon-dev           # the Wayland backend (wayland-scanner runs at build time)
  libxcb1-dev libxcb-present-dev libxcb-shm0-dev libxcb-xinput-dev libxcb-dri3-dev libxcb-xfixes0-dev \
    libxcb-randr0-dev libxcb-xtest0-dev libxcb-ewmh-dev libxcb-icccm4-dev libxcb-render0-dev   # the X11 backend (xcb and its extensions)
  xvfb matchbox-window-manager x11-apps xdotool x11-utils    # X11 tests: Xvfb, an EWMH window manager, xwd screenshots, XTEST keys (xdotool), xprop
  ffmpeg                                                      # test oracles: libx265 fixtures, trace_headers
  lintian dpkg-dev fakeroot iproute2 util-linux               # package checks (build-deb.sh --check); mDNS tests in a netns
  desktop-file-utils                                          # build-deb.sh --check: desktop-file-validate on the desktop entry
  sway weston cage grim wayland-utils xwayland               # Wayland harness (Tests/wayland): headless compositors, screenshots (cage 0.1.4 exits without Xwayland)
  libwayland-dev wayland-protocols libxkbcommon-dev gcc       # Wayland harness: its C test client (wayland-scanner, xkbcommon)
  kwin-wayland mutter dbus-daemon libglib2.0-dev              # Wayland harness: KWin 5.27 --virtual and mutter 43 --headless, each on a session bus of its own; KWin's screenshots over D-Bus (gio); ~170 packages, 77 MB
  qemu-system-x86 busybox-static cpio kmod xz-utils           # VM harness (Tests/vm): TCG guest + initramfs
  alsa-utils                                                  # VM audio check: aplay feeds the mic's aloop cable
  tesseract-ocr tesseract-ocr-eng                             # VM shell check: OCR of the shell's screendumps
  v4l-utils                                                   # VM cec check: cec-ctl (the TV side), cec-compliance
  edid-decode                                                 # VM hdr check: the oracle for the sink's EDID HDR facts
  hostapd wpasupplicant iw                                    # VM wifi check: an access point and a station on mac80211_hwsim; iw is the oracle
  gstreamer1.0-tools gstreamer1.0-plugins-bad               # VM v4l2 check: gst-launch-1.0 + v4l2slh265dec, the oracle on visl
  "linux-headers-$("$(dirname "$0")/../vm/kernel-version.sh")"  # builds vkms for the VM's Debian kernel
)
# Tests/aarch64: the C targets built for AArch64 and the NEON FEC run under qemu; an arm64 machine
# builds and runs them natively.
if [ "$(dpkg --print-architecture)" != arm64 ]; then
  packages+=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "install-deps: installing ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2

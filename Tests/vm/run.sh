#!/usr/bin/env bash
# The VM harness: glass, pacing, restore, VT switching, loss (re-anchor gate) and probe checks of
# punktfunk-kiosk on real KMS drivers (bochs-drm, virtio-gpu, vkms) in one QEMU TCG boot of Debian's kernel, then the v4l2
# check in a second, short boot of the backports 6.12 kernel with visl (run-v4l2.sh). Prints one
# PASS/FAIL line per check with its figures and exits non-zero if any check fails or a VM cannot
# run.
#   PF_VM_KIOSK   kiosk binary to test (default: .build/release/punktfunk-kiosk, built here as the
#                 test command and the package build it: release, Swift runtime linked in). Release,
#                 because under TCG a debug build presents ~7 frames/s, far below the 60 Hz pacing needs
#   PF_VM_CACHE   cache directory (default .build-vm in the repository; gitignored)
#   PF_VM_TIMEOUT VM wall-clock limit in seconds (default 900)
#   PF_VM_TESTHOST pf-testhost binary for the input, audio and autoconnect checks (default:
#                 .build/release/pf-testhost, built here)
#   PF_VM_RELAY   pf-relay binary for the loss check (default: .build/release/pf-relay, built here)
#   PF_VM_CHECKS  subset of "probe check glass demo loss restore pacing overlay hdr dmabuf vt input
#                 pointer wifi audio hotplug autoconnect shell cec v4l2" to run (default all; for iterating;
#                 without any of the first boot's checks that boot is skipped)
#   PF_VM_SKIP_V4L2 set: no v4l2 boot here (the test command runs run-v4l2.sh itself, beside the
#                 Debian package's checks)
set -euo pipefail
export PATH=$PATH:/usr/sbin:/sbin   # depmod, modprobe for non-root users
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${PF_VM_CACHE:-$repo/.build-vm}
started=$(date +%s)

fail() { echo "FAIL vm-harness: $*"; exit 1; }
for tool in qemu-system-x86_64 busybox cpio depmod modprobe ffmpeg gcc python3 tesseract cec-ctl cec-compliance; do
  command -v "$tool" >/dev/null || fail "$tool not installed (Tests/tools/install-deps.sh installs the harness packages)"
done
# release_binary NAME VAR PRODUCT: sets NAME to the absolute path of the binary $VAR names, else
# of PRODUCT built here with the test command's release flags (Tests/tools/test.sh: found built)
release_binary() {
  local given=${!2:-} path
  if [ -z "$given" ]; then
    echo "vm-harness: swift build -c release --static-swift-stdlib --product $3" >&2
    (cd "$repo" && swift build -c release --static-swift-stdlib --product "$3" >&2) || fail "building the release $3 failed"
  fi
  path=$(realpath -m "${given:-$repo/.build/release/$3}")
  [ -x "$path" ] || fail "$3 binary $path not found"
  printf -v "$1" '%s' "$path"
}
release_binary kiosk PF_VM_KIOSK punktfunk-kiosk
# the input, audio and autoconnect checks' host (PF_VM_TESTHOST: a pf-testhost binary to use instead of building one)
release_binary testhost PF_VM_TESTHOST pf-testhost
# the loss check's lossy UDP relay (PF_VM_RELAY: a pf-relay binary to use instead of building one)
release_binary relay PF_VM_RELAY pf-relay

kver=$("$here/kernel-version.sh")
mkdir -p "$cache"
cache=$(realpath "$cache")
"$here/build-guest.sh" "$cache" "$kver" || fail "building the guest (kernel $kver) failed"

# --- fixtures: libx265 Annex-B HEVC tagged BT.709 limited range, moving test pattern (every frame
# differs), no B-frames. Glass fixtures are named <anything>-<W>x<H>.hevc: their size is the mode.
fixtures=$cache/fixtures
mkdir -p "$fixtures"
encode() { # name size frames
  local out=$fixtures/$1.hevc
  [ -s "$out" ] && [ "$out" -nt "$here/run.sh" ] && return 0
  ffmpeg -loglevel error -y -f lavfi -i "testsrc2=size=$2:rate=60" -frames:v "$3" \
    -vf "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p" \
    -c:v libx265 -preset ultrafast \
    -x265-params "log-level=error:bframes=0:keyint=60:colorprim=bt709:transfer=bt709:colormatrix=bt709:range=limited" \
    -f hevc "$out.tmp" && mv "$out.tmp" "$out"
}
encode glass-1280x800 1280x800 24 || fail "encoding fixtures with ffmpeg/libx265 failed"
encode glass-1024x768 1024x768 24 || fail "encoding fixtures with ffmpeg/libx265 failed"
encode small-320x240 320x240 24 || fail "encoding fixtures with ffmpeg/libx265 failed"
encode pacing-64x64 64x64 120 || fail "encoding fixtures with ffmpeg/libx265 failed"
# HDR10: Main10 BT.2020/PQ with mastering-display + content-light-level SEI (the hdr check); the
# "change" fixture is it followed by a second coded video sequence with other metadata
hdr_master='G(8500,39850)B(6550,2300)R(35400,14600)WP(15635,16450)L(40000000,50)'
hdr_cll='1100,450'
hdr_master2='G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1)'
hdr_cll2='800,200'
encode_hdr() { # name master cll
  local out=$fixtures/$1.hevc
  [ -s "$out" ] && [ "$out" -nt "$here/run.sh" ] && return 0
  ffmpeg -loglevel error -y -f lavfi -i "testsrc2=size=320x240:rate=60" -frames:v 24 -pix_fmt yuv420p10le \
    -c:v libx265 -preset ultrafast \
    -x265-params "log-level=error:bframes=0:keyint=60:hdr10=1:colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc:range=limited:master-display=$2:max-cll=$3" \
    -f hevc "$out.tmp" && mv "$out.tmp" "$out"
}
encode_hdr hdr10-320x240 "$hdr_master" "$hdr_cll" || fail "encoding the HDR10 fixture with ffmpeg/libx265 failed"
encode_hdr hdr10-second-320x240 "$hdr_master2" "$hdr_cll2" || fail "encoding the HDR10 fixture with ffmpeg/libx265 failed"
cat "$fixtures/hdr10-320x240.hevc" "$fixtures/hdr10-second-320x240.hevc" > "$fixtures/hdr10-change-320x240.hevc"
# the same Main10 BT.2020/PQ picture without SEI: streamed by pf-testhost, whose 0xCE datagrams are
# then the only HDR metadata the kiosk gets (the hdr check's stream case)
if [ ! -s "$fixtures/hdr10-nosei-320x240.hevc" ] || [ "$here/run.sh" -nt "$fixtures/hdr10-nosei-320x240.hevc" ]; then
  ffmpeg -loglevel error -y -f lavfi -i "testsrc2=size=320x240:rate=60" -frames:v 24 -pix_fmt yuv420p10le -c:v libx265 -preset ultrafast \
    -x265-params "log-level=error:bframes=0:keyint=60:colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc:range=limited" \
    -f hevc "$fixtures/hdr10-nosei-320x240.hevc.tmp" && mv "$fixtures/hdr10-nosei-320x240.hevc.tmp" "$fixtures/hdr10-nosei-320x240.hevc" \
    || fail "encoding the HDR10 fixture with ffmpeg/libx265 failed"
fi
# 10-bit SDR: Main10 tagged BT.709 (the hdr check's sdr10 case: no HDR signalling)
if [ ! -s "$fixtures/sdr10-320x240.hevc" ] || [ "$here/run.sh" -nt "$fixtures/sdr10-320x240.hevc" ]; then
  ffmpeg -loglevel error -y -f lavfi -i "testsrc2=size=320x240:rate=60" -frames:v 24 \
    -vf "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p10le" -c:v libx265 -preset ultrafast \
    -x265-params "log-level=error:bframes=0:keyint=60:colorprim=bt709:transfer=bt709:colormatrix=bt709:range=limited" \
    -f hevc "$fixtures/sdr10-320x240.hevc.tmp" && mv "$fixtures/sdr10-320x240.hevc.tmp" "$fixtures/sdr10-320x240.hevc" \
    || fail "encoding the 10-bit SDR fixture with ffmpeg/libx265 failed"
fi
cp "$repo/Sources/PunktfunkTestHost/Resources/demo.hevc" "$fixtures/demo-640x360.hevc"   # what `connect --demo` streams

# --- one VM run for every check
out=$cache/run
rm -rf "$out" && mkdir -p "$out"
checks=${PF_VM_CHECKS:-probe check glass demo loss restore pacing overlay hdr dmabuf vt input pointer wifi audio hotplug autoconnect shell cec v4l2}
main_checks=$(echo " $checks " | sed 's/ v4l2 / /g; s/^ *//; s/ *$//')
cat > "$out/guest.env" <<EOF
CHECKS='$checks'
KIOSK='$kiosk'
KMSTOOL='$cache/bin/kmstool'
INPUTTOOL='$cache/bin/inputtool'
TESTHOST='$testhost'
RELAY='$relay'
FIXTURES='$fixtures'
GLASS_FIXTURES='glass-1280x800.hevc glass-1024x768.hevc'
SMALL_FIXTURE='small-320x240.hevc'
PACING_FIXTURE='pacing-64x64.hevc'
GLASS_FRAMES='5,20'
FIT_FRAMES='1,20'
DEMO_FIXTURE='demo-640x360.hevc'
DEMO_FRAMES='20,60'
DEMO_SECONDS=15
LOSS_SECONDS=14
LOSS_SIZE=320x192
LOSS_PADDING=3000
LOSS_MODE=640x480
LOSS_RELAY_ARGS='--loss 3 --burst-ms 30 --start-after 2 --seed 7'
LOSS_MIN_SHOWN=100
KIOSK_TIMEOUT=180
HDR_FIXTURE='hdr10-320x240.hevc'
HDR_MASTER_DISPLAY='$hdr_master'
HDR_MAX_CLL='$hdr_cll'
HDR_CHANGE_FIXTURE='hdr10-change-320x240.hevc'
HDR_MASTER_DISPLAY_2='$hdr_master2'
HDR_MAX_CLL_2='$hdr_cll2'
HDR_FRAMES='5,36'
HDR_STREAM_FIXTURE='hdr10-nosei-320x240.hevc'
SDR10_FIXTURE='sdr10-320x240.hevc'
HDR_STREAM_FRAMES='10,40'
HDR_STREAM_SECONDS=6
HDR_HOST_METADATA='c233c4864c1db80bd084803e133d4240808d5b00c80000005802fa00'
OVERLAY_FIXTURE='glass-1024x768.hevc'
OVERLAY_FRAMES='5,20'
OVERLAY_DEMO_FRAMES='60'
VT_FIXTURE='glass-1024x768.hevc'
AUDIO_SECONDS=30
AUDIO_CAPTURE_SKIP=14
AUDIO_CAPTURE_SECONDS=10
AUDIO_JITTER_BURST='16:1:20'
AUDIO_MIC_SECONDS=4
AUDIO_MARKER_EVERY=100
AUDIO_LOSS=1
AUDIO_JITTER_MS=2
AUDIO_51_SECONDS=8
AUDIO_51_SKIP=2
AUDIO_51_CAPTURE_SECONDS=2
AUTOCONNECT_SH='$here/guest/autoconnect.sh'
HOTPLUG_SH='$here/guest/hotplug.sh'
HOTPLUG_FIXTURE='glass-1024x768.hevc'
SHELL_SH='$here/guest/shell-check.sh'
SHELL_HOST_NAME='VM Living Room'
SHELL_PIN=4821
SHELL_MDNS_PORT=5354
SHELL_SECONDS=150
SHELL_STREAM_SHOTS='1,2'
CEC_SH='$here/guest/cec-check.sh'
CECTOOL='$cache/bin/cectool'
KMODS='$cache/$kver/kernel'
KVER='$kver'
EOF
verdict=0
if [ -n "$main_checks" ]; then
  sed -i "s/^CHECKS=.*/CHECKS='$main_checks'/" "$out/guest.env"
  echo "vm-harness: booting kernel $kver (TCG), kiosk $kiosk, evidence in $out" >&2
  vm_ok=1
  "$here/run-vm.py" --kernel "$cache/$kver/vmlinuz" --initrd "$cache/$kver/initrd.gz" \
    --script "$here/guest/checks.sh" --out "$out" --mem 256 --smp 2 \
    --timeout "${PF_VM_TIMEOUT:-900}" --quiet || vm_ok=0
  grep -E '@@T |@@HOST qemu exit|: exit|^devices' "$out/serial.log" | sed 's/^/vm-harness: /' >&2 || true
  [ $vm_ok = 1 ] || { tail -40 "$out/serial.log"; fail "the VM did not run the checks to the end (serial log: $out/serial.log)"; }
  python3 "$here/verify.py" --out "$out" --fixtures "$fixtures" || verdict=1
fi
# the second, short boot: Debian's backports 6.12 kernel with visl (run-v4l2.sh)
[ -n "${PF_VM_SKIP_V4L2:-}" ] || case " $checks " in *" v4l2 "*) "$here/run-v4l2.sh" "$cache" "$kiosk" || verdict=1 ;; esac
echo "vm-harness: $(( $(date +%s) - started )) s wall in total" >&2
exit $verdict

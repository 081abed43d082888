#!/usr/bin/env bash
# The VM harness's `v4l2` check, in its own short boot: Debian's bookworm-backports 6.12 kernel
# with visl (the kernel's virtual V4L2 stateless decoder, built here from linux-source-6.12),
# where every stream of the HEVC corpus (Tests/tools/hevc-corpus.sh) is decoded by the kiosk's V4L2 rung and by GStreamer's
# v4l2slh265dec, and visl's trace of every control is compared picture by picture
# (verify_v4l2.py). A second boot rather than moving the whole harness to 6.12: the other checks
# rely on vkms patched for 6.1 and on that kernel's timing; this boot takes about four minutes
# under TCG (each stream ~2-4 s per decoder), building its guest about one more on a fresh clone.
# Called by run.sh; prints PASS/FAIL lines and exits non-zero on any failure.
#   run-v4l2.sh CACHE_DIR KIOSK_BINARY
# Environment: PF_VM_TIMEOUT (seconds, default 900), PF_VM_HEVC_CORPUS_TOOL (a script with the
# interface of Tests/tools/hevc-corpus.sh: OUT_DIR → OUT_DIR/<name>.hevc + manifest.tsv; default
# that script).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=$1
kiosk=$2
started=$(date +%s)
fail() { echo "FAIL v4l2: $*"; exit 1; }
for tool in gst-launch-1.0 gst-inspect-1.0; do
  command -v "$tool" >/dev/null || fail "$tool not installed (Tests/tools/install-deps.sh installs gstreamer1.0-tools and gstreamer1.0-plugins-bad)"
done

kver=$("$here/build-v4l2-guest.sh" "$cache") || fail "building the 6.12 guest with visl failed"
k=$cache/v4l2/$kver

# --- the corpus (the HEVC corpus tool's streams, the check command's clips among them; the
# tool caches what it made)
corpus_tool=${PF_VM_HEVC_CORPUS_TOOL:-$repo/Tests/tools/hevc-corpus.sh}
[ -x "$corpus_tool" ] || fail "no HEVC corpus tool at $corpus_tool"
corpus=$cache/v4l2-corpus
"$corpus_tool" "$corpus" >&2 || fail "$corpus_tool failed"
streams=$(cut -f1 "$corpus/manifest.tsv" | tr '\n' ' ')
# frame-based with start codes: where the mode changes more than three bytes per slice — several
# slices or entry points in one buffer, a new sequence — and a plain P stream
frame_streams="lowdelay-p slices wpp size-depth-change check-slices-320x180"
for s in $frame_streams; do
  case " $streams " in *" $s "*) ;; *) fail "the corpus has no stream $s (manifest: $streams)" ;; esac
done

# --- two streams the rung must survive: a damaged copy of the P stream (slice data overwritten,
# then cut short) and pictures wider than visl takes (4160x64, each an IDR: the rung refuses the
# first, the ladder falls to software, which starts at the next IDR)
damaged=$cache/v4l2-damaged.hevc
python3 - "$corpus/lowdelay-p.hevc" "$damaged" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
for k in range(1, 40):  # every 1/40 of the stream, 16 bytes of 0xA5 (start codes survive rarely)
    at = k * len(data) // 40
    data[at:at + 16] = b"\xa5" * 16
open(sys.argv[2], "wb").write(bytes(data[: len(data) * 9 // 10]))
PY
wide=$cache/v4l2-wide-4160x64.hevc
[ -s "$wide" ] && [ "$wide" -nt "$here/run-v4l2.sh" ] || ffmpeg -loglevel error -y -f lavfi -i testsrc2=size=4160x64:rate=30 \
  -frames:v 3 -c:v libx265 -x265-params log-level=error:keyint=1 -f hevc "$wide" || fail "encoding the 4160x64 stream failed"

out=$cache/run-v4l2
rm -rf "$out" && mkdir -p "$out"
cat > "$out/guest.env" <<EOF
KIOSK='$kiosk'
CORPUS='$corpus'
STREAMS='$streams'
FRAME_STREAMS='$frame_streams'
DAMAGED='$damaged'
WIDE='$wide'
PASSES='${PF_VM_V4L2_PASSES:-slice frame}'
GST_KEEP='$cache/bin/gst-keep-entry-points.so'
KIOSK_TIMEOUT=120
EOF
echo "vm-harness: v4l2: booting kernel $kver (TCG) with visl, evidence in $out" >&2
vm_ok=1
"$here/run-vm.py" --kernel "$k/vmlinuz" --initrd "$k/initrd.gz" --script "$here/guest/v4l2-check.sh" --out "$out" \
  --mem 384 --smp 2 --timeout "${PF_VM_TIMEOUT:-900}" --quiet || vm_ok=0
grep -E '@@T |@@HOST qemu exit' "$out/serial.log" | sed 's/^/vm-harness: v4l2: /' >&2 || true
[ $vm_ok = 1 ] || { tail -40 "$out/serial.log"; fail "the 6.12 VM did not run the v4l2 check to the end (serial log: $out/serial.log)"; }
verdict=0
python3 "$here/verify_v4l2.py" --out "$out" --corpus "$corpus" || verdict=1
echo "vm-harness: v4l2: $(( $(date +%s) - started )) s wall" >&2
exit $verdict

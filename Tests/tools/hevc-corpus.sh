#!/usr/bin/env bash
# The HEVC test corpus: small, short libx265 streams (through ffmpeg) that each exercise one thing
# a stateless decoder's parameter buffers must get right, plus the `check` command's own clips.
#
#   Tests/tools/hevc-corpus.sh OUT_DIR
#
# writes OUT_DIR/<name>.hevc for every stream and OUT_DIR/manifest.tsv, one line per stream:
#   <name><TAB><what it exercises>
# Cached: a stream is made again only when it is missing or older than this script (or, for a
# copied clip, than its source). Every stream made is first decoded by ffmpeg with
# -xerror, so a broken encode fails here and not in a test that reads the corpus.
# The interface (arguments, file names, manifest columns) is shared by the VA-API and V4L2
# comparison tests; add streams, do not rename them.
set -euo pipefail

out="${1:?usage: hevc-corpus.sh OUT_DIR}"
here="$(cd "$(dirname "$0")" && pwd)"
self="$here/$(basename "$0")"
clips="$here/../../Sources/SelfCheckDecode/Resources"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

command -v ffmpeg >/dev/null || { echo "hevc-corpus: ffmpeg not on PATH" >&2; exit 1; }
case "$(ffmpeg -hide_banner -encoders 2>/dev/null)" in *libx265*) ;; *) echo "hevc-corpus: ffmpeg lacks libx265" >&2; exit 1 ;; esac

# x265 options every stream shares: parameter sets before every IRAP picture, no SEI chatter,
# one worker pool thread so the encode is the same on any machine.
base="repeat-headers=1:info=0:log-level=error:pools=1:frame-threads=1"

manifest="$out/manifest.tsv.tmp"
: > "$manifest"

fresh() {  # fresh FILE [SOURCE]: FILE exists and is newer than this script (and SOURCE)
  [ -s "$1" ] && [ "$1" -nt "$self" ] && { [ $# -lt 2 ] || [ "$1" -nt "$2" ]; }
}

verify() {  # libavcodec decodes every picture without an error
  ffmpeg -hide_banner -loglevel error -xerror -i "$1" -f null - \
    || { echo "hevc-corpus: ffmpeg cannot decode $1" >&2; rm -f "$1"; exit 1; }
}

# stream NAME "WHAT" FRAMES X265 [--part SIZE PIXFMT]... [--filter F] [--ffopt OPT]...
# One part per --part (default 192x108 yuv420p); parts are encoded separately and concatenated,
# so a second part is a new coded video sequence (size or bit-depth change).
stream() {
  local name="$1" what="$2" frames="$3" x265="$4"
  shift 4
  local parts=() filter="" ffopts=()
  while [ $# -gt 0 ]; do
    case "$1" in
      --part) parts+=("$2 $3"); shift 3 ;;
      --filter) filter="$2"; shift 2 ;;
      --ffopt) ffopts+=("$2"); shift 2 ;;
      *) echo "hevc-corpus: bad option $1" >&2; exit 2 ;;
    esac
  done
  [ ${#parts[@]} -gt 0 ] || parts=("192x108 yuv420p")
  printf '%s\t%s\n' "$name" "$what" >> "$manifest"
  local file="$out/$name.hevc"
  fresh "$file" && return 0
  local tmp="$out/.$name.tmp" k=0
  : > "$tmp"
  for p in "${parts[@]}"; do
    set -- $p
    ffmpeg -hide_banner -loglevel error -y -f lavfi -i "testsrc2=size=$1:rate=30$filter" -frames:v "$frames" \
      -pix_fmt "$2" -c:v libx265 ${ffopts[@]+"${ffopts[@]}"} -x265-params "$base:$x265" -f hevc "$tmp.$k"
    cat "$tmp.$k" >> "$tmp"
    rm -f "$tmp.$k"
    k=$((k + 1))
  done
  mv "$tmp" "$file"
  verify "$file"
}

# A scaling-list file for x265 (its format: a matrix name line, then the coefficients in raster
# order). Every matrix is asymmetric and differs from every other and from the defaults, and
# each 16x16/32x32 DC differs from its matrix's first coefficient, so any transposition, scan
# mix-up, list swap or DC loss in a decoder's IQ matrix shows.
scaling_list="$out/custom-scaling-list.txt"
if ! fresh "$scaling_list"; then
  {
    sizes=(4X4 8X8 16X16 32X32)
    for s in 0 1 2 3; do
      n=$([ $s -eq 0 ] && echo 4 || echo 8)
      if [ $s -eq 3 ]; then lists="INTRA32X32_LUMA INTER32X32_LUMA"
      else lists="INTRA${sizes[$s]}_LUMA INTRA${sizes[$s]}_CHROMAU INTRA${sizes[$s]}_CHROMAV INTER${sizes[$s]}_LUMA INTER${sizes[$s]}_CHROMAU INTER${sizes[$s]}_CHROMAV"
      fi
      m=0
      for l in $lists; do
        echo "$l ="
        for y in $(seq 0 $((n - 1))); do
          row=""
          for x in $(seq 0 $((n - 1))); do
            row="$row$((10 + 3 * x + 7 * y + (x * y) % 5 + 4 * m + 2 * s)),"
          done
          echo "$row"
        done
        if [ $s -ge 2 ]; then echo "${l}_DC ="; echo "$((30 + 5 * m + s)),"; fi
        m=$((m + 1))
      done
    done
  } > "$scaling_list.tmp"
  mv "$scaling_list.tmp" "$scaling_list"
fi

stream lowdelay-p "low-latency P-only, one IDR then P pictures (what a streaming host sends)" 20 \
  "keyint=60:min-keyint=60:bframes=0:scenecut=0:rc-lookahead=0"
stream b-pyramid "B-pyramid, 3 B-frames, 3 references: reordered output, RefPicList1, StCurrAfter" 12 \
  "keyint=12:bframes=3:b-pyramid=1:ref=3:open-gop=0"
stream main10 "Main10 (10-bit 4:2:0, P010 surfaces) with B-frames" 8 \
  "keyint=8:bframes=2:open-gop=0" --part 192x108 yuv420p10le
stream slices "3 slices per picture, 16x16 CTUs: slice_segment_address, LastSliceOfPic, one slice-data buffer per slice" 6 \
  "keyint=6:bframes=0:slices=3:ctu=16"
stream wpp "wavefront parallel processing with 16x16 CTUs: entropy_coding_sync_enabled_flag, 6 entry points per slice" 6 \
  "keyint=6:bframes=0:wpp=1:ctu=16"
stream weighted-p-fade "weighted prediction on P slices over a fade-out, 2 references: pred_weight_table, ChromaOffsetL0" 8 \
  "keyint=8:bframes=0:ref=2:weightp=1" --filter ",fade=out:0:8"
stream weighted-b-fade "weighted bi-prediction on a B-pyramid over a fade-in: both lists' weights" 10 \
  "keyint=10:bframes=3:b-pyramid=1:ref=3:weightp=1:weightb=1:open-gop=0" --filter ",fade=in:0:10"
stream scaling-default "scaling_list_enabled_flag with x265's default lists (H.265 Tables 7-5/7-6, nothing coded)" 6 \
  "keyint=6:bframes=0:scaling-list=default"
stream scaling-custom "custom scaling lists from a file (coded scaling_list_data, 16x16/32x32 DC values)" 6 \
  "keyint=6:bframes=2:scaling-list=$scaling_list"
stream odd-size "190x106: conformance-window cropping of the 192x112 coded picture" 6 \
  "keyint=6:bframes=2:open-gop=0" --part 190x106 yuv420p
stream open-gop "open GOP: a CRA picture with RASL leading pictures decoded after it" 12 \
  "keyint=8:min-keyint=8:bframes=3:open-gop=1:scenecut=0"
stream intra-non-irap "I pictures that are not IRAP (TRAIL_R with I slices, IntraPicFlag without RapPicFlag)" 9 \
  "keyint=60:min-keyint=60:bframes=0:open-gop=0:scenecut=0" \
  --ffopt -force_key_frames --ffopt "expr:eq(n,3)+eq(n,6)" --ffopt -forced-idr --ffopt 0
stream size-depth-change "mid-stream change of size and bit depth: 192x108 Main, then a new sequence at 128x72 Main10" 4 \
  "keyint=4:bframes=0" --part 192x108 yuv420p --part 128x72 yuv420p10le

# The check command's embedded clips, as they are (Sources/SelfCheckDecode/Resources/README.md).
for clip in main-320x180 main10-pq-320x180 resolution-change slices-320x180 rate-1920x1080; do
  src="$clips/$clip.hevc"
  [ -f "$src" ] || { echo "hevc-corpus: missing $src" >&2; exit 1; }
  printf '%s\t%s\n' "check-$clip" "the check command's clip $clip.hevc (Sources/SelfCheckDecode/Resources)" >> "$manifest"
  dst="$out/check-$clip.hevc"
  fresh "$dst" "$src" || { cp "$src" "$dst.tmp" && mv "$dst.tmp" "$dst"; }
done

mv "$manifest" "$out/manifest.tsv"

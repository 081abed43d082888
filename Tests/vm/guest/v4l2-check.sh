#!/bin/sh
# The `v4l2` check's guest side (POSIX sh, root in the second, short boot: Debian's backports
# 6.12 kernel with visl, the kernel's virtual stateless decoder). Only evidence; verify_v4l2.py
# judges it. Every corpus stream is decoded twice per pass — by the kiosk's V4L2 rung and by
# GStreamer's v4l2slh265dec — with visl's HEVC trace events on: a marker line in the trace says
# which pass, stream and decoder the events that follow belong to.
#   pass slice: visl's defaults, slice-based decoding without start codes
#   pass frame: frame-based decoding with Annex B start codes (visl-hevc-modes.patch's
#               module parameters; each new file handle starts with them), on FRAME_STREAMS: the
#               streams where the mode changes more than the start code's three bytes (several
#               slices, entry points, a new sequence) and a plain P stream
# Evidence in $PF_VM_OUT: v4l2-trace.txt (the whole trace, read once at the end), v4l2-stats.txt
# (per-CPU ring buffer counters: overruns lose events), v4l2-<pass>-<stream>-{kiosk,gst}.{log,rc},
# v4l2-probe.json, v4l2-check.{json,rc}, v4l2-steps.log.
. "$PF_VM_OUT/guest.env"     # KIOSK CORPUS STREAMS FRAME_STREAMS PASSES GST_KEEP KIOSK_TIMEOUT
O=$PF_VM_OUT
T=/sys/kernel/tracing
now() { cut -d' ' -f1 /proc/uptime; }
step() { echo "$(now) $*" >> "$O/v4l2-steps.log"; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
echo "@@T v4l2-start $(cut -d' ' -f1 /proc/uptime)"
: > "$O/v4l2-steps.log"
step "kernel $(uname -r)"

video=
for n in /sys/class/video4linux/video*; do
  [ "$(cat "$n/name" 2>/dev/null)" = visl ] && video=/dev/$(basename "$n") && break
done
step "visl video node: ${video:-none}; media: $(ls /dev/media* 2>/dev/null | tr '\n' ' ')"

mount -t tracefs tracefs $T 2>/dev/null || true
echo 8192 > $T/buffer_size_kb
# Enabled once for the whole run: toggling the events per case oopsed an -smp 2 guest.
echo 1 > $T/events/visl_hevc_controls/enable
step "trace events: $(cat $T/events/visl_hevc_controls/enable)"

# GStreamer: only the three plugins the pipeline needs, a registry in guest memory.
gst_plugins=$TMPDIR/gst-plugins
mkdir -p "$gst_plugins"
for p in coreelements videoparsersbad v4l2codecs; do
  ln -sf "/usr/lib/x86_64-linux-gnu/gstreamer-1.0/libgst$p.so" "$gst_plugins/"
done
export GST_PLUGIN_SYSTEM_PATH_1_0=$gst_plugins GST_PLUGIN_PATH_1_0= GST_REGISTRY_1_0=$TMPDIR/gst-registry.bin
gst-inspect-1.0 v4l2slh265dec > "$O/v4l2-gst-inspect.log" 2>&1
step "gst-inspect v4l2slh265dec: exit $?"

timeout "$KIOSK_TIMEOUT" "$KIOSK" probe > "$O/v4l2-probe.json" 2> "$O/v4l2-probe.stderr"
step "kiosk probe: exit $?"
timeout "$KIOSK_TIMEOUT" "$KIOSK" check --json --seconds 1 > "$O/v4l2-check.json" 2> "$O/v4l2-check.stderr"
echo $? > "$O/v4l2-check.rc"
step "kiosk check: exit $(cat "$O/v4l2-check.rc")"

for pass in $PASSES; do
  case $pass in
    slice) echo N > /sys/module/visl/parameters/hevc_frame_based; echo N > /sys/module/visl/parameters/hevc_annex_b ;;
    frame) echo Y > /sys/module/visl/parameters/hevc_frame_based; echo Y > /sys/module/visl/parameters/hevc_annex_b ;;
  esac
  streams=$STREAMS
  [ "$pass" = frame ] && streams=$FRAME_STREAMS
  for s in $streams; do
    f=$CORPUS/$s.hevc
    echo "@@case $pass $s kiosk" > $T/trace_marker
    t0=$(now)
    timeout "$KIOSK_TIMEOUT" "$KIOSK" decode "$f" --rung v4l2 --v4l2-device "$video" > "$O/v4l2-$pass-$s-kiosk.log" 2>&1
    echo $? > "$O/v4l2-$pass-$s-kiosk.rc"
    tk=$(since "$t0")
    echo "@@case $pass $s gst" > $T/trace_marker
    t0=$(now)
    LD_PRELOAD=$GST_KEEP timeout "$KIOSK_TIMEOUT" gst-launch-1.0 --no-fault -q filesrc location="$f" ! h265parse \
      ! v4l2slh265dec ! fakesink > "$O/v4l2-$pass-$s-gst.log" 2>&1
    echo $? > "$O/v4l2-$pass-$s-gst.rc"
    step "$pass $s: kiosk exit $(cat "$O/v4l2-$pass-$s-kiosk.rc") ($tk s), gst exit $(cat "$O/v4l2-$pass-$s-gst.rc") ($(since "$t0") s)"
  done
  echo "@@T v4l2-$pass $(cut -d' ' -f1 /proc/uptime)"
done
# what the rung must survive: damaged slice data (errors and keyframe asks, no crash), and a
# stream wider than the driver takes (the ladder falls to software at the first picture)
echo N > /sys/module/visl/parameters/hevc_frame_based; echo N > /sys/module/visl/parameters/hevc_annex_b
echo "@@case robust damaged kiosk" > $T/trace_marker
timeout "$KIOSK_TIMEOUT" "$KIOSK" decode "$DAMAGED" --rung v4l2 --v4l2-device "$video" > "$O/v4l2-damaged.log" 2>&1
echo $? > "$O/v4l2-damaged.rc"
echo "@@case robust wide kiosk" > $T/trace_marker
timeout "$KIOSK_TIMEOUT" "$KIOSK" decode "$WIDE" --rung auto --v4l2-device "$video" --framemd5 > "$O/v4l2-wide.framemd5" 2> "$O/v4l2-wide.log"
echo $? > "$O/v4l2-wide.rc"
step "robustness: damaged exit $(cat "$O/v4l2-damaged.rc"), wide exit $(cat "$O/v4l2-wide.rc")"
echo "@@case end" > $T/trace_marker
for c in $T/per_cpu/cpu*; do echo "$(basename "$c") $(tr '\n' ' ' < "$c/stats")"; done > "$O/v4l2-stats.txt"
t0=$(now)
cat $T/trace > "$O/v4l2-trace.txt"
step "trace read in $(since "$t0") s"
step "trace: $(wc -c < "$O/v4l2-trace.txt") bytes"
dmesg > "$O/v4l2-dmesg.txt"
echo "@@T v4l2-end $(cut -d' ' -f1 /proc/uptime)"

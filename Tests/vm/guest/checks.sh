#!/bin/sh
# The harness VM's check list (POSIX sh, runs as root in the guest, chrooted into the host root).
# It only produces evidence; Tests/vm/verify.py judges it on the host. Evidence goes to $PF_VM_OUT:
#   kmstool-probe.jsonl, kiosk-probe.{json,rc,stderr}       planes/formats/modifiers per device
#   kiosk-check{,-display}.{json,rc,stderr}, kiosk-check.txt  the self-test (`check`), JSON and text
#   glass-<driver>-<fixture>.{rc,stderr,stdout} + ...-frame-<n>.ppm   kiosk present + host screendumps
#   restore-<driver>-<case>-{before,after}.{ppm,state}, restore-<driver>-<case>.{rc,stderr,flips}
#     case = control | exit | term
#   pacing-{60,burst}[-again].{rc,stderr,flips}             kiosk present on vkms (real 60 Hz vblank), twice
#   overlay-{bochs-drm,demo-bochs-drm,vkms}.{rc,stderr,stdout} + ...-frame-<n>.{ppm,argb}
#     (vkms: ...-frame-<n>.planes + ...-frame-<n>-plane-<id>.argb instead of a .ppm)
#   vt-<driver>.{rc,stderr,flips,vt.jsonl,steps} + vt-<driver>-{console,before,on,away,back,after}.ppm
#   loss-*                                                 the loss check (guest/loss-check.sh)
# Talks to the host only through the console: "@@SCREENDUMP <name> <qmp-device>" then waits for ACK.
. "$PF_VM_OUT/guest.env"     # CHECKS KIOSK KMSTOOL FIXTURES GLASS_FIXTURES GLASS_FRAMES SMALL_FIXTURE PACING_FIXTURE KIOSK_TIMEOUT
O=$PF_VM_OUT
trap "" PIPE
exec 4<&0                    # the console: host acknowledgements arrive here

selected() { case " $CHECKS " in *" $1 "*) return 0 ;; esac; return 1; }
stamp() { echo "@@T $1 $(cut -d' ' -f1 /proc/uptime)"; }
shot() { echo "@@SCREENDUMP $1 $2"; read -r _ack <&4; }
# capture NAME TARGET: a host screendump of QMP device TARGET, or with TARGET kmstool:DEVICE the
# planes on DEVICE read back in the guest (NAME.planes, NAME-plane-<id>.argb; vkms has no QMP head)
capture() {
  case $2 in
    kmstool:*) "$KMSTOOL" planes "${2#kmstool:}" "$O/$1" > "$O/$1.planes" 2>&1 ;;
    *) shot "$1" "$2" ;;
  esac
}
# device node and "WxH@Hz" (first offered refresh for WxH) of a driver, from kmstool's probe
device_of() { grep "\"driver\":\"$1\"" "$O/kmstool-probe.jsonl" | head -1 | sed 's/.*"device":"\([^"]*\)".*/\1/'; }
mode_of() { grep "\"driver\":\"$1\"" "$O/kmstool-probe.jsonl" | head -1 | grep -o "\"$2@[0-9]*\"" | head -1 | tr -d '"'; }
size_of() { basename "$1" .hevc | sed 's/.*-\([0-9]*x[0-9]*\)$/\1/'; }
# wait_for FILE PATTERN SECONDS: until FILE has a line matching PATTERN
wait_for() {
  i=0
  while ! grep -q "$2" "$1" 2>/dev/null; do
    i=$((i + 1)); [ $i -gt $(($3 * 10)) ] && return 1; sleep 0.1
  done
}

# kiosk_run NAME QDEV SUBCOMMAND ARGS...: `kiosk SUBCOMMAND ARGS`; each "@@SCREENDUMP frame-<n>" the
# kiosk prints becomes a host screendump NAME-frame-<n> of QMP device QDEV, acknowledged on the
# kiosk's stdin. `present NAME QDEV ARGS` is `kiosk present`.
present() { name=$1 qdev=$2; shift 2; kiosk_run "$name" "$qdev" present "$@"; }
kiosk_run() {
  name=$1 qdev=$2; shift 2
  rm -f $TMPDIR/kiosk.in; mkfifo $TMPDIR/kiosk.in; exec 5<>$TMPDIR/kiosk.in
  { timeout "$KIOSK_TIMEOUT" "$KIOSK" "$@" < $TMPDIR/kiosk.in 2> "$O/$name.stderr"; echo $? > "$O/$name.rc"; } \
  | while IFS= read -r line; do
      case $line in
        "@@SCREENDUMP "*) capture "$name-${line#@@SCREENDUMP }" "$qdev"; echo ack >&5 ;;
        *) echo "$line" >> "$O/$name.stdout" ;;
      esac
    done
  exec 5>&-
  echo "$name: exit $(cat "$O/$name.rc") $(head -c 300 "$O/$name.stderr" | tr '\n' ' ')"
}

stamp checks-start
"$KMSTOOL" probe > "$O/kmstool-probe.jsonl"
BOCHS=$(device_of bochs-drm) VIRTIO=$(device_of virtio_gpu) VKMS=$(device_of vkms)
# vgem has no KMS (kmstool's probe skips it): found by its platform device
VGEM=$(for c in /dev/dri/card*; do [ "$(basename "$(readlink -f /sys/class/drm/${c##*/}/device)")" = vgem ] && echo "$c"; done | head -1)
echo "devices: bochs-drm=$BOCHS virtio_gpu=$VIRTIO vkms=$VKMS vgem=$VGEM"

# --- probe: what the kiosk would use on every device
if selected probe; then
  timeout "$KIOSK_TIMEOUT" "$KIOSK" probe > "$O/kiosk-probe.json" 2> "$O/kiosk-probe.stderr"
  echo $? > "$O/kiosk-probe.rc"
  stamp probe
fi

# --- check: the self-test, read-only (JSON and text), then with --display on vkms (real 60 Hz
# vblank timer; else the first card with a connected connector); the guest has no VA-API device
if selected check; then
  timeout "$KIOSK_TIMEOUT" "$KIOSK" check --json --seconds 1 > "$O/kiosk-check.json" 2> "$O/kiosk-check.stderr"
  echo $? > "$O/kiosk-check.rc"
  timeout "$KIOSK_TIMEOUT" "$KIOSK" check --seconds 1 > "$O/kiosk-check.txt" 2>> "$O/kiosk-check.stderr"
  echo $? > "$O/kiosk-check-text.rc"
  timeout "$KIOSK_TIMEOUT" "$KIOSK" check --json --display --seconds 2 ${VKMS:+--drm-device "$VKMS"} > "$O/kiosk-check-display.json" 2> "$O/kiosk-check-display.stderr"
  echo $? > "$O/kiosk-check-display.rc"
  echo "check: exit $(cat "$O/kiosk-check.rc") / text $(cat "$O/kiosk-check-text.rc") / --display $(cat "$O/kiosk-check-display.rc")"
  stamp check
fi

# --- glass: every glass fixture at its own size as the mode, on bochs-drm (vga) and virtio_gpu (vgpu),
# plus the small fixture in a larger mode, fitted (issue 29): no plane of either scales, so the CPU
# conversion scales it until that goes over its budget (TCG: it does), then 1:1 and centred; each
# screendump (FIT_FRAMES: the second picture, still fitted, and a later one) is judged where the
# kiosk's {"screendump":…} line says the picture lies
selected glass && for d in bochs-drm:vga:$BOCHS virtio_gpu:vgpu:$VIRTIO; do
  drv=${d%%:*} rest=${d#*:}; qdev=${rest%%:*} dev=${rest#*:}
  for f in $GLASS_FIXTURES; do
    size=$(size_of "$f")
    present "glass-$drv-$size" "$qdev" "$FIXTURES/$f" --drm-device "$dev" --mode "$(mode_of "$drv" "$size")" \
      --screendump-at "$GLASS_FRAMES"
  done
  present "glass-$drv-centred" "$qdev" "$FIXTURES/$SMALL_FIXTURE" --drm-device "$dev" \
    --mode "$(mode_of "$drv" 1024x768)" --screendump-at "$FIT_FRAMES"
  stamp "glass-$drv"
done

# --- demo: `connect --demo` — the embedded host, a real QUIC session over the guest's lo, the
# decode thread, the live present loop — on bochs-drm and virtio_gpu at 1024x768; screendumps of
# pictures DEMO_FRAMES (display order) are judged against every frame of the demo stream.
selected demo && for d in bochs-drm:vga:$BOCHS virtio_gpu:vgpu:$VIRTIO; do
  drv=${d%%:*} rest=${d#*:}; qdev=${rest%%:*} dev=${rest#*:}
  kiosk_run "demo-$drv" "$qdev" connect --demo --seconds "$DEMO_SECONDS" --drm-device "$dev" \
    --mode "$(mode_of "$drv" 1024x768)" --screendump-at "$DEMO_FRAMES" --flip-log "$O/demo-$drv.flips"
  stamp "demo-$drv"
done

# --- loss: a live anchor stream from pf-testhost through pf-relay's seeded burst loss to the kiosk
# on bochs-drm (software decode, a picture log); every picture the re-anchor gate shows must be the
# clean decode of its frame (Tests/vm/guest/loss-check.sh, judged by verify_loss.py)
if selected loss; then
  . "$(dirname "$0")/loss-check.sh"
  stamp loss
fi

# hold_pattern DEV NAME: kmstool shows its pattern at 1024x768 on DEV and drops master (fd 6 ends it)
hold_pattern() {
  rm -f $TMPDIR/hold.in; mkfifo $TMPDIR/hold.in; exec 6<>$TMPDIR/hold.in
  "$KMSTOOL" hold "$1" 1024x768 <&6 > "$O/$2-hold.log" 2>&1 &
  hold=$!
  wait_for "$O/$2-hold.log" '@@HELD' 20 || echo "$2: kmstool hold did not start: $(cat "$O/$2-hold.log")"
}
release_pattern() { echo release >&6; wait $hold; exec 6>&-; }

# --- restore: with kmstool's pattern on screen (foreign framebuffer, 1024x768), the kiosk presents
# at 1280x800 and then exits normally (case "exit") or is sent SIGTERM after 20 flips (case "term");
# afterwards the screen must show the pattern again. Each case starts from a fresh pattern; case
# "control" runs kmstool takeover (save, modeset, restore with plain libdrm) instead of the kiosk.
selected restore && for d in bochs-drm:vga:$BOCHS virtio_gpu:vgpu:$VIRTIO; do
  drv=${d%%:*} rest=${d#*:}; qdev=${rest%%:*} dev=${rest#*:}
  mode=$(mode_of "$drv" 1280x800)
  for case in control exit term; do
    n=restore-$drv-$case
    hold_pattern "$dev" "$n"
    shot "$n-before" "$qdev"
    "$KMSTOOL" state "$dev" > "$O/$n-before.state"
    if [ $case = control ]; then     # kmstool itself as the client: proves a restore is observable
      "$KMSTOOL" takeover "$dev" 1280x800 > /dev/null 2> "$O/$n.stderr"
      echo $? > "$O/$n.rc"
    elif [ $case = exit ]; then
      timeout "$KIOSK_TIMEOUT" "$KIOSK" present "$FIXTURES/$SMALL_FIXTURE" --drm-device "$dev" --mode "$mode" \
        < /dev/null > /dev/null 2> "$O/$n.stderr"
      echo $? > "$O/$n.rc"
    else
      timeout "$KIOSK_TIMEOUT" "$KIOSK" present "$FIXTURES/$SMALL_FIXTURE" --drm-device "$dev" --mode "$mode" \
        --loop 1000 --flip-log "$O/$n.flips" < /dev/null > /dev/null 2> "$O/$n.stderr" &
      kiosk=$!
      # SIGTERM once it has been flipping for a while (20 completed flips), or after 60 s regardless
      timeout 60 sh -c "while [ \$(wc -l < '$O/$n.flips' 2>/dev/null || echo 0) -lt 20 ] && kill -0 $kiosk 2>/dev/null; do sleep 0.2; done"
      kill -TERM $kiosk 2>/dev/null
      wait $kiosk
      echo $? > "$O/$n.rc"
    fi
    shot "$n-after" "$qdev"
    "$KMSTOOL" state "$dev" > "$O/$n-after.state"
    release_pattern
    echo "$n: exit $(cat "$O/$n.rc")"
  done
  stamp "restore-$drv"
done

# --- pacing on vkms (hrtimer vblank at the mode's refresh): paced at the refresh, then a burst
# at four frames per refresh where only the newest ready frame may be committed
[ -n "$VKMS" ] || echo "pacing: no vkms device (did 99-vkms.ko load?)"
if selected pacing && [ -n "$VKMS" ]; then
  # each twice: the verifier needs the timing to hold in one run of each (see check_pacing)
  for p in 60:60 burst:240 60-again:60 burst-again:240; do
    name=pacing-${p%%:*} fps=${p#*:}
    timeout "$KIOSK_TIMEOUT" "$KIOSK" present "$FIXTURES/$PACING_FIXTURE" --drm-device "$VKMS" \
      --mode "$(mode_of vkms 1024x768)" --fps "$fps" --flip-log "$O/$name.flips" --scaling native \
      < /dev/null > /dev/null 2> "$O/$name.stderr"
    echo $? > "$O/$name.rc"
    echo "$name: exit $(cat "$O/$name.rc"), $(wc -l < "$O/$name.flips" 2>/dev/null) flip-log lines"
  done
  stamp pacing
fi
# --- dmabuf: decoded frames handed to the presenter as real dma-bufs exported by vgem (the test
# fake standing in for VA-API exports). No guest plane scans out NV12, so the presenter must try the
# import (bochs-drm cannot import foreign buffers; vkms imports them but refuses an NV12
# framebuffer), fall back to reading the pixels through the CPU, and show the same picture as glass.
if selected dmabuf && [ -n "$VGEM" ]; then
  present "dmabuf-bochs-drm" vga "$FIXTURES/glass-1024x768.hevc" --drm-device "$BOCHS" \
    --mode "$(mode_of bochs-drm 1024x768)" --screendump-at "$GLASS_FRAMES" --dmabuf-via "$VGEM"
  [ -n "$VKMS" ] && kiosk_run "dmabuf-vkms" none present "$FIXTURES/glass-1024x768.hevc" --drm-device "$VKMS" \
    --mode "$(mode_of vkms 1024x768)" --dmabuf-via "$VGEM"
  stamp dmabuf
elif selected dmabuf; then
  echo "dmabuf: no vgem device"
fi

# --- hdr: on vkms (patched to offer HDR_OUTPUT_METADATA and Colorspace and an HDR10 TV's EDID), `kmstool hdr` records the
# connector's HDR signalling before, while frames HDR_FRAMES are on glass (the kiosk's screendump
# handshake runs kmstool instead of a screendump) and after: the two-sequence HDR10 fixture (metadata
# changes at frame 24) exiting normally ("pq"), the HDR10 fixture on SIGTERM ("pq-term"), then the
# BT.709 fixture at the first of HDR_FRAMES ("sdr"), and a Main10 BT.709 one ("sdr10"). Evidence: hdr-<case>-{before,after}.jsonl, hdr-<case>-during-frame-<n>.jsonl
# (pq-term: -during.jsonl), hdr-<case>.{rc,stderr}. Then `kiosk probe` (hdr-probe.json: the sink's
# HDR capability) and one `kiosk connect` session from pf-testhost in HDR10 ("stream"; also
# hdr-stream-host.stdout with the client_hello line).
# hdr_watch NAME FRAMES ARGS…: the kiosk (ARGS: its command) on vkms, `--screendump-at FRAMES`; the
# connector's HDR state before, at each @@SCREENDUMP (then ack) and after; other stdout lines to NAME.stdout
hdr_watch() {
  n=$1 frames=$2; shift 2
  "$KMSTOOL" hdr "$VKMS" > "$O/$n-before.jsonl"
  rm -f $TMPDIR/kiosk.in; mkfifo $TMPDIR/kiosk.in; exec 5<>$TMPDIR/kiosk.in
  { timeout "$KIOSK_TIMEOUT" "$KIOSK" "$@" --drm-device "$VKMS" --mode "$(mode_of vkms 1024x768)" \
      --screendump-at "$frames" < $TMPDIR/kiosk.in 2> "$O/$n.stderr"; echo $? > "$O/$n.rc"; } \
  | while IFS= read -r line; do
      case $line in
        "@@SCREENDUMP "*) "$KMSTOOL" hdr "$VKMS" > "$O/$n-during-${line#@@SCREENDUMP }.jsonl"; echo ack >&5 ;;
        *) echo "$line" >> "$O/$n.stdout" ;;
      esac
    done
  exec 5>&-
  "$KMSTOOL" hdr "$VKMS" > "$O/$n-after.jsonl"
}
# hdr_run CASE FIXTURE FRAMES: present FIXTURE on vkms (hdr_watch)
hdr_run() {
  hdr_watch "hdr-$1" "$3" present "$FIXTURES/$2"
  echo "hdr-$1: exit $(cat "$O/hdr-$1.rc")"
}
if selected hdr && [ -n "$VKMS" ]; then
  hdr_run pq "$HDR_CHANGE_FIXTURE" "$HDR_FRAMES"
  # SIGTERM while HDR10 is on glass (after 20 completed flips, or 60 s regardless)
  n=hdr-pq-term
  "$KMSTOOL" hdr "$VKMS" > "$O/$n-before.jsonl"
  timeout "$KIOSK_TIMEOUT" "$KIOSK" present "$FIXTURES/$HDR_FIXTURE" --drm-device "$VKMS" \
    --mode "$(mode_of vkms 1024x768)" --loop 1000 --flip-log "$O/$n.flips" < /dev/null > /dev/null 2> "$O/$n.stderr" &
  kiosk=$!
  timeout 60 sh -c "while [ \$(wc -l < '$O/$n.flips' 2>/dev/null || echo 0) -lt 20 ] && kill -0 $kiosk 2>/dev/null; do sleep 0.2; done"
  "$KMSTOOL" hdr "$VKMS" > "$O/$n-during.jsonl"
  kill -TERM $kiosk 2>/dev/null
  wait $kiosk
  echo $? > "$O/$n.rc"
  "$KMSTOOL" hdr "$VKMS" > "$O/$n-after.jsonl"
  echo "$n: exit $(cat "$O/$n.rc")"
  hdr_run sdr "$SMALL_FIXTURE" "${HDR_FRAMES%%,*}"
  # 10-bit SDR: Main10 BT.709 gets no HDR signalling
  hdr_run sdr10 "$SDR10_FIXTURE" "${HDR_FRAMES%%,*}"
  # the sink's HDR capability as the kiosk reads it from vkms's EDID (patched in: an HDR10 TV)
  timeout "$KIOSK_TIMEOUT" "$KIOSK" probe > "$O/hdr-probe.json" 2> "$O/hdr-probe.stderr"
  echo $? > "$O/hdr-probe.rc"
  # HDR10 end to end: pf-testhost streams the PQ fixture without SEI (ServerHello bit depth 10,
  # colour [9,16,9,0]) and sends HDR_HOST_METADATA as 0xCE before each keyframe; `kmstool hdr`
  # records the connector at pictures HDR_STREAM_FRAMES (the screendump handshake) and after exit
  n=hdr-stream
  timeout 90 "$TESTHOST" --port 0 --bind 127.0.0.1 --fps 30 --hevc "$FIXTURES/$HDR_STREAM_FIXTURE" \
    --hdr-metadata "$HDR_HOST_METADATA" --max-seconds 60 > "$O/$n-host.stdout" 2> "$O/$n-host.stderr" &
  hs_host=$!
  wait_for "$O/$n-host.stderr" 'fingerprint' 60 || echo "$n: pf-testhost did not start: $(cat "$O/$n-host.stderr")"
  hs_port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$O/$n-host.stderr" | head -1)
  hs_fp=$(sed -n 's/.*fingerprint \([0-9a-f]*\).*/\1/p' "$O/$n-host.stderr" | head -1)
  hdr_watch "$n" "$HDR_STREAM_FRAMES" connect "127.0.0.1:$hs_port" --fp "$hs_fp" --seconds "$HDR_STREAM_SECONDS"
  kill $hs_host 2>/dev/null; wait $hs_host 2>/dev/null
  echo "$n: exit $(cat "$O/$n.rc"), probe exit $(cat "$O/hdr-probe.rc")"
  stamp hdr
fi

# --- overlay: `--stats` with `--stats-dump` (the overlay image on glass at each screendump).
# bochs-drm has only a primary plane: the overlay is composited into the XRGB frame (present, and
# `kiosk demo` — the embedded demo stream, 1:1 (`--scaling native`) so the box lies on the black border). vkms (enable_overlay=1): the overlay
# rides its own AR24 plane above the video, read back with kmstool while the frame is shown.
if selected overlay; then
  present overlay-bochs-drm vga "$FIXTURES/$OVERLAY_FIXTURE" --drm-device "$BOCHS" \
    --mode "$(mode_of bochs-drm 1024x768)" --fps 10 --screendump-at "$OVERLAY_FRAMES" \
    --stats --stats-dump "$O/overlay-bochs-drm"
  kiosk_run overlay-demo-bochs-drm vga demo --seconds "$DEMO_SECONDS" --drm-device "$BOCHS" --scaling native \
    --mode "$(mode_of bochs-drm 1024x768)" --screendump-at "$OVERLAY_DEMO_FRAMES" \
    --stats --stats-dump "$O/overlay-demo-bochs-drm"
  if [ -n "$VKMS" ]; then
    present overlay-vkms "kmstool:$VKMS" "$FIXTURES/$OVERLAY_FIXTURE" --drm-device "$VKMS" \
      --mode "$(mode_of vkms 1024x768)" --fps 10 --screendump-at "$OVERLAY_FRAMES" \
      --stats --stats-dump "$O/overlay-vkms"
  else
    echo "overlay: no vkms device (did 99-vkms.ko load?)"
  fi
  stamp overlay
fi

# --- vt: the kiosk on a real VT. It runs in a session of its own whose controlling terminal is
# tty2 (setsid, then an open of /dev/tty2 makes it so), so it takes VT_PROCESS switching and
# KD_GRAPHICS there. Per device: the screens first (tty3's console, then tty2 before the kiosk),
# the kiosk presenting on tty2 for 20 flips, a SIGUSR1 sent with kill(2) (no VT switch: it must
# go on flipping, 10 more flips), `chvt 3` (it must put the screen back and drop master
# before the switch completes), a screendump and 3 s away, `chvt 2` (it must take master, modeset
# and flip again), 20 more flips, SIGTERM. `kmstool vt` snapshots (CLOCK_MONOTONIC, active VT,
# tty2's KD and VT modes, whether another client becomes master) mark each step in
# vt-<driver>.vt.jsonl; verify.py holds the flip log against them. bochs-drm carries fbcon, so
# while away it must show tty3's console; virtio_gpu has no console (fbcon stays on the primary
# VGA), so kmstool's pattern is the screen the kiosk found there and must get back.
# vt_snap NAME DEVICE STEP: one kmstool vt line, tagged with STEP
vt_snap() { "$KMSTOOL" vt "$2" /dev/tty2 2>&1 | sed "s/^{/{\"step\":\"$3\",/" >> "$O/$1.vt.jsonl"; }
lines_of() { wc -l < "$1" 2>/dev/null || echo 0; }
# wait_lines FILE N PID: until FILE has N lines, PID has ended, or 60 s
wait_lines() { timeout 60 sh -c "while [ \$(wc -l < '$1' 2>/dev/null || echo 0) -lt $2 ] && kill -0 $3 2>/dev/null; do sleep 0.2; done"; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }   # utime + stime, USER_HZ
if selected vt; then
  printf '\033[2J\033[Hpunktfunk-kiosk vt check: tty2, the VT the kiosk runs on\n' > /dev/tty2
  printf '\033[2J\033[Hpunktfunk-kiosk vt check: tty3, the console while the kiosk is away\n' > /dev/tty3
  for d in bochs-drm:vga:1024x768:$BOCHS virtio_gpu:vgpu:1280x800:$VIRTIO; do
    drv=${d%%:*} rest=${d#*:}; qdev=${rest%%:*} rest=${rest#*:}; size=${rest%%:*} dev=${rest#*:}
    n=vt-$drv
    [ $drv = virtio_gpu ] && hold_pattern "$dev" "$n"
    busybox chvt 3; shot "$n-console" "$qdev"
    busybox chvt 2; shot "$n-before" "$qdev"
    rm -f "$O/$n.flips" "$O/$n.vt.jsonl" $TMPDIR/vt.pid
    # fd 3 stays open in the kiosk: the last close of a tty clears it as the session's terminal
    setsid -w sh -c 'exec 3<>/dev/tty2; echo $$ > "$0"; exec "$@"' $TMPDIR/vt.pid \
      timeout "$KIOSK_TIMEOUT" "$KIOSK" present "$FIXTURES/$VT_FIXTURE" --drm-device "$dev" --scaling native \
      --mode "$(mode_of "$drv" "$size")" --loop 1000 --flip-log "$O/$n.flips" < /dev/null > /dev/null 2> "$O/$n.stderr" &
    job=$!
    wait_lines "$O/$n.flips" 20 $job
    kiosk=$(pgrep -P "$(cat $TMPDIR/vt.pid)" | head -1)
    k0=$(lines_of "$O/$n.flips"); kill -USR1 "$kiosk"
    wait_lines "$O/$n.flips" $((k0 + 10)) $job
    k1=$(lines_of "$O/$n.flips")
    vt_snap "$n" "$dev" on
    shot "$n-on" "$qdev"
    timeout 30 busybox chvt 3; r3=$?
    vt_snap "$n" "$dev" away
    shot "$n-away" "$qdev"
    c0=$(cpu_ticks "$kiosk")
    sleep 3
    c1=$(cpu_ticks "$kiosk")
    vt_snap "$n" "$dev" away-end
    # back to tty2 while another client still holds master (a compositor slow to let go): the
    # kiosk keeps running suspended and retries; once that client lets go it presents again
    rm -f $TMPDIR/master.in; mkfifo $TMPDIR/master.in; exec 7<>$TMPDIR/master.in
    "$KMSTOOL" master "$dev" <&7 > "$O/$n-master.log" 2>&1 &
    holder=$!
    wait_for "$O/$n-master.log" '@@MASTER' 20 || echo "$n: kmstool master did not start"
    timeout 30 busybox chvt 2; r2=$?
    vt_snap "$n" "$dev" contended
    sleep 1.5
    vt_snap "$n" "$dev" contended-end
    echo release >&7; wait $holder; exec 7>&-
    wait_lines "$O/$n.flips" $(($(lines_of "$O/$n.flips") + 20)) $job
    vt_snap "$n" "$dev" back
    shot "$n-back" "$qdev"
    kill -TERM "$(cat $TMPDIR/vt.pid)" 2>/dev/null
    wait $job
    echo $? > "$O/$n.rc"
    shot "$n-after" "$qdev"
    vt_snap "$n" "$dev" after
    echo "{\"stray_usr1_flips\":$((k1 - k0)),\"chvt3_rc\":$r3,\"chvt2_rc\":$r2,\"master_holder\":\"$(head -1 "$O/$n-master.log")\",\"away_cpu_ticks\":$((c1 - c0)),\"user_hz\":$(getconf CLK_TCK)}" > "$O/$n.steps"
    [ $drv = virtio_gpu ] && release_pattern
    echo "$n: exit $(cat "$O/$n.rc"), chvt 3 rc $r3, chvt 2 rc $r2, $(lines_of "$O/$n.flips") flip-log lines"
  done
  busybox chvt 1
  stamp vt
fi

# --- input: real evdev devices (uinput, uhid + hid-playstation) into a session with pf-testhost
if selected input; then
  . "$(dirname "$0")/input-check.sh"
  input_run
  stamp input
fi

# --- pointer: the host's pointer on vkms's cursor plane, moved by a uinput mouse at once
if selected pointer; then
  . "$(dirname "$0")/pointer-check.sh"
  pointer_run
  stamp pointer
fi

# --- wifi: a session over mac80211_hwsim (hostapd, wpa_supplicant in a namespace of its own):
# the link read over nl80211 and power save off while streaming (Tests/vm/guest/wifi-check.sh)
if selected wifi; then
  . "$(dirname "$0")/wifi-check.sh"
  wifi_run
  stamp wifi
fi

# --- audio: pf-testhost's Opus tone through the kiosk's ALSA sink into snd-aloop (guest/audio.sh)
if selected audio; then
  . "$(dirname "$0")/audio.sh"
  stamp audio
fi

# --- hotplug: the display goes away and comes back at another mode under a presenting kiosk
# (Tests/vm/guest/hotplug.sh, vkms with Tests/vm/vkms-hotplug.patch)
if selected hotplug && [ -n "$VKMS" ]; then
  . "$HOTPLUG_SH"
  hotplug_run
  stamp hotplug
fi

# --- autoconnect: boot-to-stream through mDNS discovery (Tests/vm/guest/autoconnect.sh); last,
# since it leaves loopback multicast switched on and ran the test host beside the kiosk
selected autoconnect && . "$AUTOCONNECT_SH"

# --- shell: a uinput pad drives the couch shell through mDNS discovery, PIN pairing, a stream,
# the in-stream menu and Disconnect (Tests/vm/guest/shell-check.sh); after autoconnect, whose
# loopback multicast it uses too
selected shell && . "$SHELL_SH"

# --- cec: the TV's remote and power over HDMI-CEC, vivid's TV and playback adapters
# (Tests/vm/guest/cec-check.sh); last, since it loads vivid (unloaded again at its end)
selected cec && . "$CEC_SH"

dmesg > "$O/dmesg.txt"
echo done > "$O/checks.done"
stamp checks-end

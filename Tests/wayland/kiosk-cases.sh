# The kiosk cases of the Wayland harness, sourced by Tests/wayland/run.sh once the kiosk has
# `--display wayland` (its helpers: result, judge, wait_for, wants, start_sway, start_weston,
# cage_run, on, stop, weston_shot, xdg_for, as_user; $KIOSK, $TESTHOST, $client, $out, $here,
# $repo, $user).
# Every case names its evidence in .build-wayland/run/kiosk-*.
# shellcheck shell=bash

fixture="$out/demo-640x360.hevc"   # judge.py/verify.py read the size from the name
cp "$repo/Sources/PunktfunkTestHost/Resources/demo.hevc" "$fixture"
chmod 644 "$fixture"
kiosk_seconds=10
# Timing-bound cases need an optimised kiosk (a debug build converts a 640x360 picture in ~0.4 s).
kiosk_build=release
case "$(realpath "$KIOSK")" in */debug/*) kiosk_build=debug ;; esac

check_judge() {  # check_judge NAME REPORT.json COMPOSITOR [+|-SUBJECT]…: check --json's display section under it
  local name="$1"; shift
  local figures
  if figures=$(python3 "$here/check_report.py" "$@" 2>&1); then result PASS "$name" "$figures"; else result FAIL "$name" "$figures"; fi
}

# stream10 WHO NAME LAYOUT BORDER [KIOSK-ARGS…]: a 10-bit libx265 stream from pf-testhost to the
# kiosk under the running weston ($xdg, $wl), software rung (P010 → wl_shm); the shot must be the
# right frame at its fitted place (judge.py demo, BORDER: black or any-border), the start line's shm_10bit must be
# LAYOUT (none: XRGB8888), and the summary must count 10-bit buffers (none: 0, else > 0).
fixture10="$out/main10-640x360.hevc"
stream10() {
  local who="$1" name="$2" want="$3" border="$4"; shift 4
  [ -s "$fixture10" ] || ffmpeg -loglevel error -y -f lavfi -i "testsrc2=size=640x360:rate=30" -frames:v 30 \
    -vf "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p10le" -c:v libx265 -preset ultrafast \
    -x265-params "log-level=error:bframes=0:keyint=30:colorprim=bt709:transfer=bt709:colormatrix=bt709:range=limited" \
    -f hevc "$fixture10" 2> "$out/main10-ffmpeg.log"
  local port10=$((20000 + RANDOM % 20000)) ev="$out/kiosk-$who-10bit"
  timeout 60 "$TESTHOST" --bind 127.0.0.1 --port $port10 --hevc "$fixture10" --fps 30 --max-seconds 40 \
    > "$ev-host.stdout" 2> "$ev-host.stderr" &
  local host10=$!
  if ! wait_for "$ev-host.stderr" 'fingerprint' 20; then
    result FAIL "$name" "pf-testhost did not start: $(head -c 300 "$ev-host.stderr")"; stop $host10; return
  fi
  local fp10 k rc layout deep shm figures
  fp10=$(sed -n 's/.*fingerprint \([0-9a-f]*\).*/\1/p' "$ev-host.stderr" | head -1)
  XDG_RUNTIME_DIR="$xdg" WAYLAND_DISPLAY="$wl" XDG_CONFIG_HOME="$xdg/config" "$KIOSK" connect "127.0.0.1:$port10" --fp "$fp10" \
    --display wayland --decoder software --seconds 7 "$@" > "$ev.stdout" 2> "$ev.stderr" &
  k=$!
  wait_for "$ev.stdout" '"second"' 30 || true
  sleep 1
  WESTON_TRIES=3 weston_shot "$ev.png" demo "$fixture10" fit "$border"
  wait $k; rc=$?
  stop $host10
  layout=$(sed -n 's/.*"shm_10bit":"\([A-Za-z0-9]*\)".*/\1/p' "$ev.stderr" | head -1)
  shm=$(sed -n 's/.*"summary":true.*"shm":\([0-9]*\),"shm_10bit":\([0-9]*\).*/\1/p' "$ev.stderr" | tail -1)
  deep=$(sed -n 's/.*"summary":true.*"shm":\([0-9]*\),"shm_10bit":\([0-9]*\).*/\2/p' "$ev.stderr" | tail -1)
  figures=$(python3 "$here/judge.py" demo "$ev.png" "$fixture10" fit "$border" 2>&1); local shown=$?
  local counted=1
  if [ "$want" = none ]; then [ "${deep:-x}" = 0 ] && counted=0; else [ "${deep:-0}" -gt 0 ] 2>/dev/null && counted=0; fi
  if [ $shown -eq 0 ] && [ "$layout" = "$want" ] && [ $counted -eq 0 ] && [ "${shm:-0}" -gt 0 ] 2>/dev/null; then
    result PASS "$name" "$figures; 10-bit buffers: $layout, $deep of $shm wl_shm pictures (kiosk exit $rc)"
  else
    result FAIL "$name" "$figures; 10-bit buffers: ${layout:-not said} (want $want), ${deep:-?} of ${shm:-?} wl_shm pictures (kiosk exit $rc) $(tail -c 300 "$ev.stderr")"
  fi
}

# presentation_agrees WHO KIOSK-STDERR RUNNER…: the kiosk's wp_presentation answers (its summary's
# `presented`) and those of weston's own client (weston-presentation-shm, 3 s, run through RUNNER)
# are both some or both none: a compositor that answers the reference client answers the kiosk.
presentation_agrees() {
  local who="$1" log="$2"; shift 2
  local lines presented
  lines=$("$@" timeout 3 weston-presentation-shm -f 2>/dev/null | grep -c 'c2p')
  presented=$(sed -n 's/.*"summary":true.*"presented":\([0-9]*\).*/\1/p' "$log" | tail -1)
  local name="$who: the kiosk's presentation feedback agrees with weston-presentation-shm's"
  if [ -z "$presented" ]; then
    result FAIL "$name" "no summary line with a presented count from the kiosk in $log"
  elif { [ "$lines" -gt 0 ] && [ "$presented" -gt 0 ]; } || { [ "$lines" -eq 0 ] && [ "$presented" -eq 0 ]; }; then
    result PASS "$name" "weston-presentation-shm: $lines presented in 3 s; the kiosk's demo: $presented presented$([ "$lines" -eq 0 ] && echo " (this compositor answers no feedback at all)")"
  else
    result FAIL "$name" "weston-presentation-shm: $lines presented in 3 s; the kiosk's demo: $presented presented"
  fi
}

# demo_shown WHO SHOT STDERR MODE FEEDBACK SCALING RC [LOGICAL]: the demo's picture judged at
# FFmpeg's fitted place on the shot (SHOT "-": no screenshot, mutter), and the kiosk's own summary
# (judge.py summary: asked for MODE — and a window of LOGICAL surface units —, counters, not
# hidden, the same place).
demo_shown() {
  local who="$1" shot="$2" log="$3" mode="$4" feedback="$5" scaling="${6:-fit}" rc="$7" logical="${8:-}"
  if [ "$shot" != - ]; then
    judge "$who: demo --display wayland fills the screen at the fitted place, black around (kiosk exit $rc)" \
      demo "$shot" "$fixture" "$scaling" black
  fi
  judge "$who: the kiosk asked for ${mode}${logical:+ (a $logical window)} and its counters say what happened" \
    summary "$log" "$fixture" "$mode" "$feedback" "$scaling" $logical
}

# ---------------------------------------------------------------- demo on sway, weston, cage, KWin, mutter
if wants sway && start_sway kiosk-sway 1280x720; then
  on "$KIOSK" demo --display wayland --seconds $kiosk_seconds > "$out/kiosk-sway-demo.stdout" 2> "$out/kiosk-sway-demo.stderr" &
  k=$!
  sleep 5   # (on glass `demo` prints no stats lines to wait for)
  on grim - > "$out/kiosk-sway-demo.png" 2>> "$out/grim.log"
  wait $k; rc=$?
  # Headless sway 1.7 presents without feedback (presented 0, as weston-presentation-shm sees).
  demo_shown sway "$out/kiosk-sway-demo.png" "$out/kiosk-sway-demo.stderr" 1280x720 silent fit $rc
  on "$KIOSK" check --json --seconds 1 > "$out/kiosk-sway-check.json" 2> "$out/kiosk-sway-check.stderr"
  check_judge "sway: check names sway, lacks dma-buf and the content hint, has the seat" "$out/kiosk-sway-check.json" sway \
    +zwp_linux_dmabuf_v1 +wp_content_type_manager_v1 +wp_fractional_scale_manager_v1 -wl_seat -wp_presentation -wp_viewporter \
    -zwp_pointer_constraints_v1
  presentation_agrees sway "$out/kiosk-sway-demo.stderr" on
  stop $pid
elif wants sway; then
  result FAIL "sway: demo --display wayland fills the screen" "sway did not start: $(tail -c 300 "$out/kiosk-sway.log")"
fi

# sway_demo NAME WHO MODE LOGICAL OUTPUT-SETTINGS…: `demo --display wayland` under a sway whose
# output has these settings, a grim shot, judged by demo_shown (MODE pixels, a LOGICAL window).
sway_demo() {
  local name="$1" who="$2" mode="$3" logical="$4"; shift 4
  if start_sway "$name" "$@"; then
    on "$KIOSK" demo --display wayland --seconds $kiosk_seconds > "$out/$name.stdout" 2> "$out/$name.stderr" &
    k=$!
    sleep 5
    on grim - > "$out/$name.png" 2>> "$out/grim.log"
    wait $k; rc=$?
    demo_shown "$who" "$out/$name.png" "$out/$name.stderr" "$mode" silent fit $rc "$logical"
    stop $pid
  else
    result FAIL "$who: demo fills the screen" "sway did not start: $(tail -c 300 "$out/$name.log")"
  fi
}
# A fractional scale: sway 1.7 at 1.5 says `wl_output.scale` 2 and has no fractional-scale
# protocol; the window is 1280x720 logical, 1920x1080 pixels — what the host must be asked for
# (not 1280x720 × 2).
wants sway && sway_demo kiosk-sway-scaled "sway at scale 1.5" 1920x1080 1280x720 1920x1080 scale 1.5
# A rotated output: 1280x720 turned 90° is a 720x1280 portrait screen; the demo is letterboxed on
# the video subsurface.
wants sway && sway_demo kiosk-sway-rotated "sway turned 90°" 720x1280 720x1280 1280x720 transform 90

if wants weston && start_weston kiosk-weston 1024x768; then
  # 4:3: the 16:9 demo is letterboxed on the video subsurface above the toplevel's black.
  on_root "$KIOSK" demo --display wayland --seconds $kiosk_seconds > "$out/kiosk-weston-demo.stdout" 2> "$out/kiosk-weston-demo.stderr" &
  k=$!
  sleep 4
  WESTON_TRIES=3 weston_shot "$out/kiosk-weston-demo.png" demo "$fixture" fit black
  wait $k; rc=$?
  demo_shown weston "$out/kiosk-weston-demo.png" "$out/kiosk-weston-demo.stderr" 1024x768 presented fit $rc
  on_root "$KIOSK" check --json --seconds 1 > "$out/kiosk-weston-check.json" 2> "$out/kiosk-weston-check.stderr"
  check_judge "weston: check names weston, lacks the seat and dma-buf" "$out/kiosk-weston-check.json" weston \
    +wl_seat +zwp_linux_dmabuf_v1 -wp_presentation -wp_viewporter
  presentation_agrees weston "$out/kiosk-weston-demo.stderr" on_root
  # A 10-bit stream (software rung: P010) under weston's pixman renderer: it lists XRGB2101010
  # but shows such buffers black, and composites in 8 bits anyway; auto keeps XRGB8888 (no
  # linux-dmabuf = no GPU compositing) and the frames must show.
  stream10 weston "weston (pixman): a 10-bit stream stays XRGB8888 and shows its frames" none black
  stop $pid
elif wants weston; then
  result FAIL "weston: demo --display wayland fills the screen" "weston did not start: $(tail -c 300 "$out/kiosk-weston.log")"
fi

# Pacing: commit → presented of the kiosk against weston's own reference client at the same size
# (250x250: weston-presentation-shm's window; a fixture of that size at 60 fps filling a 250x250
# output), one after the other under the same weston (docs/PERFORMANCE.md).
pacing_fixture="$out/pacing-250x250.hevc"
if wants weston && [ "$kiosk_build" != release ]; then
  result SKIP "weston: commit → presented no worse than weston-presentation-shm's at the same size" \
    "$KIOSK is a $kiosk_build build: its CPU conversion (~100× slower than release) would be measured, not the commits (PF_WL_KIOSK=.build/release/punktfunk-kiosk)"
elif wants weston && ffmpeg -loglevel error -y -f lavfi -i "testsrc2=size=250x250:rate=60" -frames:v 300 \
     -vf "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p" -c:v libx265 -preset ultrafast \
     -x265-params "log-level=error:bframes=0:keyint=60" -f hevc "$pacing_fixture" 2> "$out/pacing-ffmpeg.log" \
   && chmod 644 "$pacing_fixture" && start_weston kiosk-pacing 250x250; then
  on_root timeout -s TERM 6 weston-presentation-shm -f > "$out/pacing-reference.log" 2>&1
  on_root "$KIOSK" present "$pacing_fixture" --fps 60 --display wayland > "$out/pacing-kiosk.stdout" 2> "$out/pacing-kiosk.stderr"
  judge "weston: commit → presented no worse than weston-presentation-shm's at the same size (250x250, 60 fps; kiosk exit $?)" \
    pacing "$out/pacing-kiosk.stderr" "$out/pacing-reference.log"
  stop $pid
elif wants weston; then
  result FAIL "weston: commit → presented no worse than weston-presentation-shm's at the same size" \
    "no fixture or no weston: $(head -c 200 "$out/pacing-ffmpeg.log") $(tail -c 200 "$out/kiosk-pacing.log" 2>/dev/null)"
fi

# KWin 5.27 at a fractional scale (1.5, through wp_fractional_scale_v1): 1280x800 logical, a
# 1920x1200 screen; it puts a smaller surface in the top-left corner, so the window must cover it.
if wants kwin && start_kwin kiosk-kwin 1280x800 1.5; then
  on "$KIOSK" demo --display wayland --seconds $kiosk_seconds > "$out/kiosk-kwin-demo.stdout" 2> "$out/kiosk-kwin-demo.stderr" &
  k=$!
  sleep 6
  on "$bin/pf-kwinshot" "$xdg/shot.ppm" > "$out/kiosk-kwinshot.log" 2>&1 && cp "$xdg/shot.ppm" "$out/kiosk-kwin-demo.ppm"
  wait $k; rc=$?
  if [ -s "$out/kiosk-kwin-demo.ppm" ]; then
    demo_shown "KWin at scale 1.5" "$out/kiosk-kwin-demo.ppm" "$out/kiosk-kwin-demo.stderr" 1920x1200 none fit $rc 1280x800
  else
    result FAIL "KWin at scale 1.5: demo --display wayland fills the screen" "no screenshot: $(head -c 300 "$out/kiosk-kwinshot.log")"
  fi
  on "$KIOSK" check --json --seconds 1 > "$out/kiosk-kwin-check.json" 2> "$out/kiosk-kwin-check.stderr"
  check_judge "KWin: check names kwin_wayland, lacks presentation-time and dma-buf" "$out/kiosk-kwin-check.json" kwin_wayland \
    +wp_presentation +zwp_linux_dmabuf_v1 -wp_viewporter -wp_fractional_scale_manager_v1 -wl_seat
  stop_session
elif wants kwin; then
  result FAIL "KWin: demo --display wayland fills the screen" "KWin did not start: $(tail -c 300 "$out/kiosk-kwin.log")"
fi

# mutter 43 (no screenshot without GNOME Shell): the kiosk's counters and its protocol log.
if wants mutter && start_mutter kiosk-mutter 1024x768; then
  on_root env WAYLAND_DEBUG=1 "$KIOSK" demo --display wayland --seconds $kiosk_seconds \
    > "$out/kiosk-mutter-demo.stdout" 2> "$out/kiosk-mutter-demo.stderr"
  rc=$?
  demo_shown mutter - "$out/kiosk-mutter-demo.stderr" 1024x768 presented fit $rc
  judge "mutter: the protocol log places the picture at FFmpeg's fitted place (kiosk exit $rc)" \
    protocol "$out/kiosk-mutter-demo.stderr" "$fixture" 1024x768 1024x768
  on_root "$KIOSK" check --json --seconds 1 > "$out/kiosk-mutter-check.json" 2> "$out/kiosk-mutter-check.stderr"
  check_judge "mutter: check names mutter, lacks dma-buf and fractional scales" "$out/kiosk-mutter-check.json" mutter \
    +zwp_linux_dmabuf_v1 +wp_fractional_scale_manager_v1 -wp_presentation -wp_viewporter
  stop_session
elif wants mutter; then
  result FAIL "mutter: demo --display wayland fills the screen" "mutter did not start: $(tail -c 300 "$out/kiosk-mutter.log")"
fi

# weston's GL renderer (llvmpipe, headless) lists XBGR2101010 and composites it right; it offers no
# linux-dmabuf without a GPU, so `--wayland-10bit on` asks for the 10-bit buffers auto would not.
if wants weston && start_weston kiosk-weston-gl 1280x720 --use-gl; then
  stream10 weston-gl "weston (GL): a 10-bit stream goes as XBGR2101010 and shows its frames" XBGR2101010 black \
    --wayland-10bit on
  stop $pid
elif wants weston; then
  result FAIL "weston (GL): a 10-bit stream goes as XBGR2101010 and shows its frames" "weston --use-gl did not start: $(tail -c 300 "$out/kiosk-weston-gl.log")"
fi

# cage turned 180° (cage_run, run.sh): it composites, so grim shows what the kiosk committed.
if wants cage; then
  # The first picture took 6 to more than 12 s to show under cage here (debug build, loaded machine).
  cage_run kiosk-cage "'$KIOSK' demo --display wayland --seconds 22 > \"\$XDG_RUNTIME_DIR/kiosk.stdout\" 2> \"\$XDG_RUNTIME_DIR/kiosk.stderr\" & for i in 1 2 3 4 5; do sleep 4; grim \"\$XDG_RUNTIME_DIR/demo-\$i.png\"; done; wait \$!; echo \$? > \"\$XDG_RUNTIME_DIR/kiosk.rc\"; '$KIOSK' check --json --seconds 1 > \"\$XDG_RUNTIME_DIR/check.json\" 2> \"\$XDG_RUNTIME_DIR/check.stderr\""
  for f in kiosk.stdout kiosk.stderr kiosk.rc check.json check.stderr demo-{1,2,3,4,5}.png; do
    cp "$xdg/$f" "$out/kiosk-cage-$f" 2>/dev/null
  done
  check_judge "cage: check names cage, lacks the viewporter and presentation-time" "$out/kiosk-cage-check.json" cage \
    +wp_viewporter +wp_presentation +zwp_pointer_constraints_v1 -wl_seat
  # The newest shot that is not all black (shots at 4, 8, 12, 16, 20 s): before the first
  # picture the screen is black, not wrong.
  for i in 5 4 3 2 1; do
    [ -f "$xdg/demo-$i.png" ] || continue
    cp "$xdg/demo-$i.png" "$out/kiosk-cage-demo.png"
    python3 "$here/judge.py" colour "$xdg/demo-$i.png" 000000 0.99 > /dev/null 2>&1 || break
  done
  if [ "$kiosk_build" != release ]; then
    result SKIP "cage (no viewporter, no presentation-time): demo fills the screen" \
      "$KIOSK is a $kiosk_build build: without a viewporter the CPU scales the picture, within half a refresh per picture only when optimised (PF_WL_KIOSK=.build/release/punktfunk-kiosk)"
  elif [ -f "$out/kiosk-cage-demo.png" ]; then
    # No viewporter: the CPU conversion draws the picture at its place in a window-sized buffer.
    demo_shown "cage (no viewporter, no presentation-time)" "$out/kiosk-cage-demo.png" "$out/kiosk-cage-kiosk.stderr" 1280x720 none fit \
      "$(cat "$out/kiosk-cage-kiosk.rc" 2>/dev/null)"
  else
    result FAIL "cage (no viewporter, no presentation-time): demo still shows frames" "no screenshot: $(tail -c 300 "$out/kiosk-cage.log")"
  fi

  # The shell's home screen: a canvas committed once and then left alone.
  cage_run kiosk-cage-shell "'$KIOSK' --display wayland > \"\$XDG_RUNTIME_DIR/shell.stdout\" 2> \"\$XDG_RUNTIME_DIR/shell.stderr\" & sleep 6; grim \"\$XDG_RUNTIME_DIR/home.png\"; kill \$!; wait \$!"
  for f in shell.stdout shell.stderr; do cp "$xdg/$f" "$out/kiosk-cage-$f" 2>/dev/null; done
  if cp "$xdg/home.png" "$out/kiosk-cage-home.png" 2>/dev/null; then
    judge "cage: the shell's home screen (OCR)" ocr "$out/kiosk-cage-home.png" "Hosts"
  else
    result FAIL "cage: the shell's home screen (OCR)" "no screenshot: $(tail -c 300 "$out/kiosk-cage-shell.log")"
  fi
fi

# ---------------------------------------------------------------- the shell's home screen, standby
# The shell idle for --standby-after goes to standby: the window stays, black; a key on the box
# (injected through the compositor's seat) wakes it to home. (The kiosk says both on stderr.)
if wants sway && start_sway kiosk-shell 1280x720; then
  on "$KIOSK" --display wayland --standby-after 12s > "$out/kiosk-shell.stdout" 2> "$out/kiosk-shell.stderr" &
  k=$!
  sleep 6
  on grim - > "$out/kiosk-shell-home.png" 2>> "$out/grim.log"
  judge "sway: the shell's home screen (OCR)" ocr "$out/kiosk-shell-home.png" "Hosts"
  if wait_for "$out/kiosk-shell.stderr" 'standby: nothing on glass' 30; then
    sleep 1
    on grim - > "$out/kiosk-shell-standby.png" 2>> "$out/grim.log"
    windows=$(on swaymsg -t get_tree 2>/dev/null | grep -c '"app_id": "punktfunk-kiosk"')
    if kill -0 $k 2>/dev/null && [ "$windows" -gt 0 ]; then
      judge "sway: standby keeps the window, black (the kiosk's window in sway's tree)" \
        colour "$out/kiosk-shell-standby.png" 000000 0.99
    else
      result FAIL "sway: standby keeps the window, black" "kiosk $(kill -0 $k 2>/dev/null && echo running || echo gone); $windows windows of punktfunk-kiosk in sway's tree"
    fi
    { printf 'sleep 1500\nkey 28 1\nkey 28 0\nsync\n'; } | on "$client" inject 2> "$out/inject-wake.log"
    if wait_for "$out/kiosk-shell.stderr" '^punktfunk-kiosk: awake' 10; then
      sleep 1
      on grim - > "$out/kiosk-shell-woken.png" 2>> "$out/grim.log"
      judge "sway: a key on the box wakes the shell from standby (OCR)" ocr "$out/kiosk-shell-woken.png" "Hosts"
    else
      result FAIL "sway: a key on the box wakes the shell from standby" "no wake within 10 s: $(tail -c 300 "$out/kiosk-shell.stderr")"
    fi
  else
    result FAIL "sway: standby keeps the window, black" "no standby within 30 s: $(tail -c 300 "$out/kiosk-shell.stderr")"
  fi
  stop $k
  stop $pid
elif wants sway; then
  result FAIL "sway: the shell's home screen (OCR)" "sway did not start: $(tail -c 300 "$out/kiosk-shell.log")"
fi

# ---------------------------------------------------------------- a stream on sway: input, focus, resize, kill
wants sway || return 0 2>/dev/null || exit 0   # (the last group: the rest is sway's)
port=$((20000 + RANDOM % 20000))
# A decodable stream (the demo's HEVC): synthetic AUs end a stream on glass ("no picture that
# could be decoded").
# The host forwards its pointer (a 16x16 magenta square on its 1920x1080 desktop, 0xD0 each frame).
timeout 120 "$TESTHOST" --bind 127.0.0.1 --port $port --hevc "$fixture" --fps 30 --max-seconds 100 \
  --input-caps cursor,snapshots,edges,scroll \
  --input-log "$out/kiosk-host-input.jsonl" > "$out/kiosk-host.stdout" 2> "$out/kiosk-host.stderr" &
host=$!
if ! wait_for "$out/kiosk-host.stderr" 'fingerprint' 20; then
  for c in "keys injected reach pf-testhost's input log exactly" "focus loss releases held keys on the host" \
           "the host's pointer is the kiosk's cursor at the picture's scale, where sway's pointer is, and the host hears its place" \
           "output resize reaches the host as a mode request" "compositor killed mid-stream ends the kiosk cleanly"; do
    result FAIL "sway: $c" "pf-testhost did not start: $(head -c 300 "$out/kiosk-host.stderr")"
  done
  return 0 2>/dev/null || exit 0
fi
fp=$(sed -n 's/.*fingerprint \([0-9a-f]*\).*/\1/p' "$out/kiosk-host.stderr" | head -1)
if start_sway kiosk-stream 1280x720; then
  on "$KIOSK" connect "127.0.0.1:$port" --fp "$fp" --display wayland --seconds 60 \
    > "$out/kiosk-stream.stdout" 2> "$out/kiosk-stream.stderr" &
  k=$!
  wait_for "$out/kiosk-stream.stdout" '"second"' 40 || true
  sleep 1
  # Keys: letters, modifiers (never the whole escape chord), arrows, Enter, Space, Backspace.
  : > "$out/kiosk-keys.txt"
  for code in 30 48 17 31 32 42 54 29 56 103 108 105 106 28 57 14; do
    printf 'key %s 1\nkey %s 0\n' "$code" "$code" >> "$out/kiosk-keys.txt"
  done
  # One injector for the whole stream (its virtual devices stay): sway 1.7 segfaulted here when
  # a second injector's devices came and went while the kiosk streamed captured.
  fifo="$xdg/inject.fifo"
  mkfifo -m 600 "$fifo" && chown "$user" "$fifo"
  on sh -c "exec '$client' inject < '$fifo'" 2> "$out/kiosk-inject.log" &
  injector=$!
  exec 9> "$fifo"
  # The kiosk binds the new keyboard and gets its enter on its own schedule: wait before typing.
  { echo "sleep 1500"; cat "$out/kiosk-keys.txt"; echo sync; } >&9
  sleep 3
  judge "sway: keys injected reach pf-testhost's input log exactly" hostkeys "$out/kiosk-host-input.jsonl" "$out/kiosk-keys.txt"

  # The host's pointer drawn by the box (desktop mode): sway shows pf-testhost's pointer as the
  # kiosk's cursor surface where the virtual pointer put sway's pointer — its 16 px drawn at the
  # picture's scale (the 1920-wide desktop shown 1280 wide: 11x11 magenta at the hot spot, 1000,200)
  # — and the host hears the place in video pixels through the picture's place (§6.2 MouseMoveAbs:
  # (1000.5·640/1280, 200.5·360/720) → (500, 100) on 640x360). grim -c shoots it with the cursor.
  lines=$(wc -l < "$out/kiosk-host-input.jsonl")
  printf 'abs 640 360 1280 720\nsleep 300\nabs 1000 200 1280 720\nsync\n' >&9
  sleep 1.5
  on grim -c "$xdg/kiosk-pointer.png" 2>> "$out/grim.log"; cp "$xdg/kiosk-pointer.png" "$out/kiosk-pointer.png" 2>/dev/null
  judge "sway: the host's pointer is the kiosk's cursor at the picture's scale, where sway's pointer is, and the host hears its place" \
    pointer "$out/kiosk-pointer.png" ff00ff 1000 200 11 11 "$out/kiosk-host-input.jsonl" "$lines" 640 360 500 100

  # Focus loss: S held, a window takes the focus: the host gets S's release from the kiosk.
  lines=$(wc -l < "$out/kiosk-host-input.jsonl")
  printf 'key 31 1\nsync\n' >&9
  i=0; while ! tail -n +$((lines + 1)) "$out/kiosk-host-input.jsonl" | grep -q '"kind":0'; do
    i=$((i + 1)); [ $i -gt 50 ] && break; sleep 0.1
  done
  on swaymsg workspace number 2 > "$out/kiosk-swaymsg-ws.log" 2>&1   # (a new window would not take a fullscreen one's focus)
  sleep 1.5
  printf 'key 31 1\nkey 31 0\n' > "$out/kiosk-hold.txt"
  judge "sway: focus loss releases held keys on the host (S held, workspace switched)" \
    hostkeys "$out/kiosk-host-input.jsonl" "$out/kiosk-hold.txt" "$lines"
  printf 'key 31 0\nsync\n' >&9
  on swaymsg workspace number 1 >> "$out/kiosk-swaymsg-ws.log" 2>&1
  sleep 0.5

  # Output resize → Reconfigure to the host.
  on swaymsg output HEADLESS-1 resolution 1024x768 > "$out/kiosk-swaymsg.log" 2>&1
  if wait_for "$out/kiosk-host.stderr" 'asks for the mode 1024x768' 10; then
    result PASS "sway: output resize reaches the host as a mode request" "$(grep 'asks for the mode' "$out/kiosk-host.stderr" | tail -1)"
  else
    result FAIL "sway: output resize reaches the host as a mode request" \
      "no Reconfigure for 1024x768 within 10 s; host: $(grep 'asks for the mode' "$out/kiosk-host.stderr" | tr '\n' ';')"
  fi

  # The compositor killed mid-stream: the kiosk ends, non-zero, with a sentence, nothing held.
  printf 'key 32 1\nsync\n' >&9
  sleep 1
  sway_pid=$(for p in $(descendants "$pid"); do [ "$(ps -o comm= -p "$p")" = sway ] && echo "$p"; done | head -1)
  if [ -n "$sway_pid" ]; then kill -9 "$sway_pid"; wait "$pid" 2>/dev/null; else stop "$pid"; fi
  i=0; while kill -0 $k 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
  if kill -0 $k 2>/dev/null; then
    stop $k; rc="still running 10 s after"
  else
    wait $k; rc=$?
  fi
  exec 9>&-
  stop $injector
  # (the JSON lines — the stream's summary — are for scripts; the sentence is the last word to a person)
  last=$(grep -v '^\s*$' "$out/kiosk-stream.stderr" | grep -v '^{' | tail -1)
  held=$(python3 - "$out/kiosk-host-input.jsonl" <<'PY'
import json, sys
held = set()
for line in open(sys.argv[1]):
    try:
        e = json.loads(line)
    except ValueError:
        continue
    if e.get("kind") == 0: held.add(e["code"])
    if e.get("kind") == 1: held.discard(e["code"])
print(" ".join(hex(v) for v in sorted(held)) or "nothing")
PY
)
  # A sentence about the compositor (not a crash, not the start-up line) as the last word.
  if [[ "$rc" =~ ^[0-9]+$ ]] && [ "$rc" -ne 0 ] && [ "$rc" -lt 128 ] && echo "$last" | grep -qiE 'compositor|gone|lost' \
     && [ "$held" = nothing ]; then
    result PASS "sway: compositor killed mid-stream ends the kiosk cleanly" "exit $rc; last line: ${last:0:160}; held on the host: $held"
  else
    result FAIL "sway: compositor killed mid-stream ends the kiosk cleanly" "exit $rc; last line: ${last:0:160}; held on the host: $held"
  fi
else
  result FAIL "sway: keys injected reach pf-testhost's input log exactly" "sway did not start: $(tail -c 300 "$out/kiosk-stream.log")"
fi
stop $host

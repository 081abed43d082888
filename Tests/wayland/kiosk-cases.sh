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

check_judge() {  # check_judge NAME REPORT.json COMPOSITOR [+|-SUBJECT]…: check --json's display section under it
  local name="$1"; shift
  local figures
  if figures=$(python3 "$here/check_report.py" "$@" 2>&1); then result PASS "$name" "$figures"; else result FAIL "$name" "$figures"; fi
}

# ---------------------------------------------------------------- demo on sway, weston, cage
if wants sway && start_sway kiosk-sway 1280x720; then
  on "$KIOSK" demo --display wayland --seconds $kiosk_seconds > "$out/kiosk-sway-demo.stdout" 2> "$out/kiosk-sway-demo.stderr" &
  k=$!
  sleep 5   # (on glass `demo` prints no stats lines to wait for)
  on grim - > "$out/kiosk-sway-demo.png" 2>> "$out/grim.log"
  wait $k; rc=$?
  judge "sway: demo --display wayland shows demo frames (kiosk exit $rc)" demo "$out/kiosk-sway-demo.png" "$fixture"
  on "$KIOSK" check --json --seconds 1 > "$out/kiosk-sway-check.json" 2> "$out/kiosk-sway-check.stderr"
  check_judge "sway: check names sway, lacks dma-buf and the content hint, has the seat" "$out/kiosk-sway-check.json" sway \
    +zwp_linux_dmabuf_v1 +wp_content_type_manager_v1 -wl_seat -wp_presentation -wp_viewporter -zwp_pointer_constraints_v1
  stop $pid
elif wants sway; then
  result FAIL "sway: demo --display wayland shows demo frames" "sway did not start: $(tail -c 300 "$out/kiosk-sway.log")"
fi

if wants weston && start_weston kiosk-weston 1280x720; then
  XDG_RUNTIME_DIR="$xdg" WAYLAND_DISPLAY="$wl" XDG_CONFIG_HOME="$xdg/config" "$KIOSK" demo --display wayland \
    --seconds $kiosk_seconds > "$out/kiosk-weston-demo.stdout" 2> "$out/kiosk-weston-demo.stderr" &
  k=$!
  sleep 4
  WESTON_TRIES=3 weston_shot "$out/kiosk-weston-demo.png" demo "$fixture"
  wait $k; rc=$?
  judge "weston: demo --display wayland shows demo frames (kiosk exit $rc)" demo "$out/kiosk-weston-demo.png" "$fixture"
  XDG_RUNTIME_DIR="$xdg" WAYLAND_DISPLAY="$wl" XDG_CONFIG_HOME="$xdg/config" "$KIOSK" check --json --seconds 1 \
    > "$out/kiosk-weston-check.json" 2> "$out/kiosk-weston-check.stderr"
  check_judge "weston: check names weston, lacks the seat and dma-buf" "$out/kiosk-weston-check.json" weston \
    +wl_seat +zwp_linux_dmabuf_v1 -wp_presentation -wp_viewporter
  stop $pid
elif wants weston; then
  result FAIL "weston: demo --display wayland shows demo frames" "weston did not start: $(tail -c 300 "$out/kiosk-weston.log")"
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
  if [ -f "$out/kiosk-cage-demo.png" ]; then
    judge "cage (no viewporter, no presentation-time): demo still shows frames (kiosk exit $(cat "$out/kiosk-cage-kiosk.rc" 2>/dev/null))" \
      demo "$out/kiosk-cage-demo.png" "$fixture"
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

# ---------------------------------------------------------------- the shell's home screen
if wants sway && start_sway kiosk-shell 1280x720; then
  on "$KIOSK" --display wayland > "$out/kiosk-shell.stdout" 2> "$out/kiosk-shell.stderr" &
  k=$!
  sleep 6
  on grim - > "$out/kiosk-shell-home.png" 2>> "$out/grim.log"
  judge "sway: the shell's home screen (OCR)" ocr "$out/kiosk-shell-home.png" "Hosts"
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
timeout 120 "$TESTHOST" --bind 127.0.0.1 --port $port --hevc "$fixture" --fps 30 --max-seconds 100 \
  --input-log "$out/kiosk-host-input.jsonl" > "$out/kiosk-host.stdout" 2> "$out/kiosk-host.stderr" &
host=$!
if ! wait_for "$out/kiosk-host.stderr" 'fingerprint' 20; then
  for c in "keys injected reach pf-testhost's input log exactly" "focus loss releases held keys on the host" \
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

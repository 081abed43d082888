# The X11 cases of the Wayland harness (`--display x11`), sourced by Tests/wayland/run.sh after
# kiosk-cases.sh (its helpers: result, judge, wait_for, wants, start_xvfb, stop_xvfb, start_weston,
# weston_shot, stop, descendants; $KIOSK, $TESTHOST, $out, $here, $repo, $bin, $x11_cases,
# $x11_missing; kiosk-cases.sh's $fixture).
# X servers no one here wrote judge the window: Xvfb 1280x720x24 bare (no window manager: the
# kiosk sizes its window to the root itself), Xvfb with matchbox-window-manager (EWMH: the window
# manager fullscreens it through _NET_WM_STATE_FULLSCREEN) and Xwayland inside headless weston
# (weston's XWM fullscreens it; no seat, so no X focus). Pictures: the root as the server holds
# it (xwd), decoded by FFmpeg's xwd decoder, judged at FFmpeg's fitted place (judge.py demo), or
# weston's own screenshot. Keys: XTEST through pf-xinject into the server, judged in pf-testhost's
# input log. Every case names its evidence in .build-wayland/run/x11-*. Runs as whoever runs the
# harness (root in CI: Xvfb, matchbox and weston do not refuse it).
# shellcheck shell=bash

wants x11 || return 0
x11_started=$(date +%s)
if [ ${#x11_missing[@]} -gt 0 ]; then
  for c in "${x11_cases[@]}"; do result SKIP "$c" "missing ${x11_missing[*]} (Tests/tools/install-deps.sh installs them)"; done
  return 0
fi
if ! "$KIOSK" demo --help 2>&1 | grep -- 'x11' > /dev/null; then  # (not grep -q: SIGPIPE under pipefail)
  for c in "${x11_cases[@]}"; do result SKIP "$c" "$KIOSK demo --help names no x11 for --display: the X11 backend is not wired into the executable yet"; done
  return 0
fi
fixture="${fixture:-$out/demo-640x360.hevc}"
[ -s "$fixture" ] || { cp "$repo/Sources/PunktfunkTestHost/Resources/demo.hevc" "$fixture"; chmod 644 "$fixture"; }

xhome="/tmp/pf-wl-$(id -u)-$$-x11"   # HOME, XDG_RUNTIME_DIR (no Wayland socket in it) and config of the kiosk
rm -rf "$xhome"; install -d -m 700 "$xhome"
onx() {  # onx COMMAND…: in a clean environment on the X server $xdisp (no WAYLAND_DISPLAY, no config of the box's)
  env -i PATH="$PATH" HOME="$xhome" XDG_RUNTIME_DIR="$xhome" XDG_CONFIG_HOME="$xhome/config" DISPLAY="$xdisp" "$@"
}
x11_shot() {  # x11_shot PNG TRIES JUDGE-ARGS-AFTER-THE-PICTURE…: the root of $xdisp (xwd, then FFmpeg's xwd
  # decoder to PNG) once a second until judge.py agrees, at most TRIES times; the last shot stays
  local png="$1" tries="$2" i; shift 2
  for i in $(seq "$tries"); do
    xwd -root -silent -display "$xdisp" -out "${png%.png}.xwd" 2>> "$out/x11-xwd.log" \
      && ffmpeg -loglevel error -y -i "${png%.png}.xwd" "$png" 2>> "$out/x11-xwd.log" && rm -f "${png%.png}.xwd" \
      && python3 "$here/judge.py" "$1" "$png" "${@:2}" > /dev/null 2>&1 && return 0
    sleep 1
  done
  return 1
}
x11_window() {  # x11_window: the focused window and the kiosk's windows' geometry, as xdotool reads them
  local f
  f=$(DISPLAY="$xdisp" xdotool getwindowfocus getwindowname 2>/dev/null | head -1)
  echo "focus: ${f:-none};" $(for w in $(DISPLAY="$xdisp" xdotool search --name punktfunk 2>/dev/null); do
    DISPLAY="$xdisp" xdotool getwindowname "$w" getwindowgeometry "$w" 2>/dev/null | tr '\n' ' '; done)
}

# x11_pointer_judge NAME desktop|captured CURSOR-LINE HOST-INPUT: the window's cursor as XFixes read
# it (pf-xinject cursor) and what reached pf-testhost's input log meanwhile. desktop: the cursor is
# pf-testhost's, scaled to 11x11, at the X pointer's place (1000, 200), and the host's last MouseMoveAbs
# is (500, 100) on 640x360; captured: no pixel of the cursor has alpha and the host got MouseMove
# counts summing to (30, 0), no MouseMoveAbs.
x11_pointer_judge() {
  local name="$1" figures; shift
  if figures=$(python3 - "$@" 2>&1 <<'PY'
import json, sys
mode, cursor_path, host_path = sys.argv[1:4]
line = open(cursor_path).read().split()
host = []
for raw in open(host_path):
    try:
        e = json.loads(raw)
    except ValueError:
        continue
    if e.get("kind") in (2, 3):
        i32 = lambda v: v - (1 << 32) if v >= 1 << 31 else v
        host.append((e["kind"], i32(e["x"]), i32(e["y"]), e.get("flags", 0)))
fig = f"cursor {' '.join(line[1:]) if line[:1] == ['cursor'] else 'unread: ' + ' '.join(line)[:120]}; host {host[-4:]}"
ok = line[:1] == ["cursor"]
if mode == "desktop":
    absolute = [h for h in host if h[0] == 3]
    ok = ok and line[1:] == ["1000", "200", "11", "11", "0", "0", "121", "ffff00ff"] \
        and bool(absolute) and absolute[-1] == (3, 500, 100, 640 << 16 | 360) and not any(h[0] == 2 for h in host)
else:
    rel = [h for h in host if h[0] == 2]
    ok = ok and line[-2:] == ["0", "none"] and bool(rel) and sum(h[1] for h in rel) == 30 \
        and sum(h[2] for h in rel) == 0 and not any(h[0] == 3 for h in host)
print(fig)
sys.exit(0 if ok else 1)
PY
); then
    result PASS "$name" "$figures"
  else
    result FAIL "$name" "$figures"
  fi
}

# x11_counters NAME STDERR MODE: the kiosk's own word on the demo (its stderr): a start line
# {"x11":{…}}, and a summary {"summary":true,"display":{"backend":"x11",…}} that committed pictures,
# had some presented and counts no more completions (presented) and discards than commits — the
# Present counters count only what the server's events said; where it names the window's pixels and
# the picture's place, the place is FFmpeg's fit (verify.fit_place) and the pixels are MODE.
x11_counters() {
  local name="$1" figures; shift
  if figures=$(python3 - "$here" "$fixture" "$@" 2>&1 <<'PY'
import json, os, sys
here, fixture, path, mode = sys.argv[1:5]
sys.path.insert(0, os.path.join(here, "..", "vm"))
import verify  # noqa: E402
objs = []
for line in open(path, errors="replace"):
    line = line.strip()
    if line.startswith("{"):
        try:
            objs.append(json.loads(line))
        except ValueError:
            pass
starts = [o["x11"] for o in objs if isinstance(o.get("x11"), dict)]
sums = [o["display"] for o in objs if o.get("summary") is True and isinstance(o.get("display"), dict)]
if not starts or not sums:
    print(f"no start line {{\"x11\":…}} ({len(starts)}) or summary with a display ({len(sums)}) in {path}")
    sys.exit(1)
start, d = starts[-1], sums[-1]
problems = []
if d.get("backend") != "x11":
    problems.append(f"backend {d.get('backend')!r}, not x11")
c, p, x = d.get("committed"), d.get("presented"), d.get("discarded")
if not all(isinstance(v, int) for v in (c, p, x)):
    problems.append(f"counters committed {c}, presented {p}, discarded {x} are not all counts")
else:
    if c <= 0:
        problems.append("nothing committed")
    if p <= 0:
        problems.append("nothing presented")
    if p + x > c:
        problems.append(f"presented + discarded = {p + x} > committed {c}: completions the server did not send")
if "mode" in start and not str(start["mode"]).startswith(mode + "@") and start["mode"] != mode:
    problems.append(f"asked for {start['mode']}, not {mode}")
fw, fh = map(int, os.path.basename(fixture)[:-5].rsplit("-", 1)[1].split("x"))
where = ""
if "pixels" in d and "place" in d:
    sw, sh = map(int, str(d["pixels"]).split("x"))
    x0, y0, rw, rh = verify.fit_place(fw, fh, sw, sh, "fit")
    want = f"{rw}x{rh}+{x0}+{y0}"
    where = f"; {d.get('picture', 'the picture')} at {d['place']} in {d['pixels']} (FFmpeg's place {want})"
    if d["pixels"] != mode:
        problems.append(f"the window's pixels are {d['pixels']}, not {mode}")
    if d["place"] != want:
        problems.append(f"placed {d['place']}, FFmpeg's place {want}")
brief = json.dumps(start, separators=(",", ":"))
print(f"start {brief[:220]}; committed {c}, presented {p}, discarded {x}{where}" + ("; " + "; ".join(problems) if problems else ""))
sys.exit(1 if problems else 0)
PY
  ); then result PASS "$name" "$figures"; else result FAIL "$name" "$figures"; fi
}

# x11_demo WHO EVIDENCE: `demo --display x11` on the running $xdisp, the root shot from 4 s on until
# it shows the demo (at most 5 shots), judged (x11_counters judges its stderr after).
x11_demo() {
  local who="$1" ev="$2" rc
  onx "$KIOSK" demo --display x11 --seconds 10 > "$ev.stdout" 2> "$ev.stderr" &
  local k=$!
  sleep 4
  x11_shot "$ev.png" 5 demo "$fixture" fit black
  x11_window > "$ev.window"
  wait $k; rc=$?
  if [ -s "$ev.png" ]; then
    judge "$who: demo --display x11 fills the screen at the fitted place, black around (kiosk exit $rc; $(cut -d';' -f1 "$ev.window"))" \
      demo "$ev.png" "$fixture" fit black
  else
    result FAIL "$who: demo --display x11 fills the screen" "no shot (xwd/ffmpeg: $(tail -c 200 "$out/x11-xwd.log")); kiosk exit $rc: $(tail -c 300 "$ev.stderr")"
  fi
}

# ---------------------------------------------------------------- Xvfb, no window manager
if start_xvfb x11-xvfb; then
  # a. demo, the root judged, the counters
  x11_demo "x11 (Xvfb, no window manager)" "$out/x11-xvfb-demo"
  x11_counters "x11 (Xvfb, no window manager): the start line and honest Present counters" "$out/x11-xvfb-demo.stderr" 1280x720

  # f. auto: DISPLAY set, XDG_RUNTIME_DIR an empty directory (no Wayland socket), no WAYLAND_DISPLAY
  install -d -m 700 "$xhome/empty"
  env -i PATH="$PATH" HOME="$xhome" XDG_RUNTIME_DIR="$xhome/empty" XDG_CONFIG_HOME="$xhome/config" DISPLAY="$xdisp" \
    timeout 30 "$KIOSK" demo --display auto --seconds 2 > "$out/x11-auto.stdout" 2> "$out/x11-auto.stderr"
  rc=$?
  line=$(grep -m1 'display: ' "$out/x11-auto.stderr")
  if [[ "$line" == *"display: x11, "?* ]]; then
    result PASS "x11: --display auto with DISPLAY set and no Wayland socket picks x11, saying why" "exit $rc; ${line:0:200}"
  else
    result FAIL "x11: --display auto with DISPLAY set and no Wayland socket picks x11, saying why" \
      "exit $rc; display line: '${line:0:200}'; $(grep -v '^{' "$out/x11-auto.stderr" | tail -3 | cut -c1-200 | tr '\n' ';')"
  fi

  # g. check --json names the X server: its vendor and release as the server tells xdpyinfo
  xdpyinfo -display "$xdisp" > "$out/x11-xdpyinfo.txt" 2>&1
  server="$(sed -n 's/^vendor string: *//p' "$out/x11-xdpyinfo.txt"), release $(sed -n 's/^vendor release number: *//p' "$out/x11-xdpyinfo.txt")"
  onx "$KIOSK" check --json --seconds 1 > "$out/x11-check.json" 2> "$out/x11-check.stderr"
  if figures=$(python3 "$here/check_report.py" "$out/x11-check.json" "x11=$server" 2>&1); then
    result PASS "x11 (Xvfb): check names the X server" "$figures"
  else
    result FAIL "x11 (Xvfb): check names the X server" "$figures"
  fi

  # d. the shell's home screen
  onx "$KIOSK" --display x11 > "$out/x11-shell.stdout" 2> "$out/x11-shell.stderr" &
  k=$!
  sleep 4
  x11_shot "$out/x11-shell-home.png" 4 ocr "Hosts"
  stop $k
  if [ -s "$out/x11-shell-home.png" ]; then
    judge "x11 (Xvfb): the shell's home screen (OCR)" ocr "$out/x11-shell-home.png" "Hosts"
  else
    result FAIL "x11 (Xvfb): the shell's home screen (OCR)" "no shot: $(tail -c 200 "$out/x11-xwd.log"); $(tail -c 300 "$out/x11-shell.stderr")"
  fi
  stop_xvfb
else
  result FAIL "x11 (Xvfb, no window manager): demo --display x11 fills the screen" "Xvfb did not start: $(tail -c 300 "$out/x11-xvfb.log")"
fi

# ---------------------------------------------------------------- Xwayland inside headless weston
# Xwayland starts on the first X client; weston's log names its display.
if start_weston x11-weston 1280x720 --use-pixman --xwayland && wait_for "$out/x11-weston.log" 'xserver listening on display' 10; then
  xdisp=$(sed -n 's/.*xserver listening on display \(:[0-9]*\).*/\1/p' "$out/x11-weston.log" | head -1)
  onx "$KIOSK" demo --display x11 --seconds 10 > "$out/x11-xwayland-demo.stdout" 2> "$out/x11-xwayland-demo.stderr" &
  k=$!
  sleep 4
  WESTON_TRIES=5 weston_shot "$out/x11-xwayland-demo.png" demo "$fixture" fit black
  wait $k; rc=$?
  if [ -s "$out/x11-xwayland-demo.png" ]; then
    judge "x11 (Xwayland in weston): demo fills the screen at the fitted place, black around (Xwayland $xdisp; kiosk exit $rc)" \
      demo "$out/x11-xwayland-demo.png" "$fixture" fit black
  else
    result FAIL "x11 (Xwayland in weston): demo fills the screen" "no screenshot: $(head -c 300 "$out/weston-screenshooter.log"); kiosk exit $rc: $(tail -c 300 "$out/x11-xwayland-demo.stderr")"
  fi
  x11_counters "x11 (Xwayland in weston): the start line and honest Present counters" "$out/x11-xwayland-demo.stderr" 1280x720
  # The server is Xwayland because weston says it spawned it; the kiosk's start line must know it
  # (its keyboard grab asks the compositor first under Xwayland).
  spawned=$(grep -m1 'Spawned Xwayland server' "$out/x11-weston.log" | cut -c1-80)
  said=$(grep '^{"x11":' "$out/x11-xwayland-demo.stderr" | tail -1 | grep -o '"xwayland":[a-z]*')
  if [ -n "$spawned" ] && [ "$said" = '"xwayland":true' ]; then
    result PASS "x11 (Xwayland in weston): the start line says the server is Xwayland" "$said; weston's log: $spawned"
  else
    result FAIL "x11 (Xwayland in weston): the start line says the server is Xwayland" \
      "start line ${said:-without xwayland}; weston's log: ${spawned:-no Spawned Xwayland line}; $(grep '^{"x11":' "$out/x11-xwayland-demo.stderr" | tail -1 | grep -o '"release":[0-9]*')"
  fi
  stop $pid
else
  result FAIL "x11 (Xwayland in weston): demo fills the screen" "weston --xwayland did not start or named no X display: $(tail -c 300 "$out/x11-weston.log")"
fi

# ---------------------------------------------------------------- Xwayland inside headless sway
# sway 1.7 starts Xwayland when the first X client connects (`xwayland enable`, its default) and
# fullscreens X windows through its XWM; `swaymsg exec` runs the kiosk in sway's own environment
# (its DISPLAY), as the compositor's user. grim shoots the output.
if start_sway x11-sway 1280x720; then
  ev="$xdg/x11-sway-demo"
  on swaymsg exec "sh -c '\"$KIOSK\" demo --display x11 --seconds 10 > $ev.stdout 2> $ev.stderr; echo \$? > $ev.rc'" \
    > "$out/x11-sway-exec.log" 2>&1
  wait_for "$ev.stderr" '^{"x11":' 30 || true
  sleep 3
  on grim "$ev.png" 2> "$out/x11-sway-grim.log"
  wait_for "$ev.rc" '[0-9]' 30 || true
  cp "$ev.stderr" "$out/x11-sway-demo.stderr" 2>/dev/null; cp "$ev.png" "$out/x11-sway-demo.png" 2>/dev/null
  rc=$(cat "$ev.rc" 2>/dev/null)
  if [ -s "$out/x11-sway-demo.png" ]; then
    judge "x11 (Xwayland in sway): demo fills the screen at the fitted place, black around (kiosk exit ${rc:-?})" \
      demo "$out/x11-sway-demo.png" "$fixture" fit black
  else
    result FAIL "x11 (Xwayland in sway): demo fills the screen" "no screenshot: $(head -c 200 "$out/x11-sway-grim.log"); kiosk: $(tail -c 300 "$out/x11-sway-demo.stderr" 2>/dev/null) $(head -c 200 "$out/x11-sway-exec.log")"
  fi
  x11_counters "x11 (Xwayland in sway): the start line and honest Present counters" "$out/x11-sway-demo.stderr" 1280x720
  stop $pid
else
  result FAIL "x11 (Xwayland in sway): demo fills the screen" "sway did not start: $(tail -c 300 "$out/x11-sway.log")"
fi

# ---------------------------------------------------------------- Xvfb + matchbox: demo, then a stream
if start_xvfb x11-mb matchbox; then
  # b. the window manager fullscreens the window (EWMH)
  x11_demo "x11 (Xvfb + matchbox, EWMH fullscreen)" "$out/x11-mb-demo"
  x11_counters "x11 (Xvfb + matchbox, EWMH fullscreen): the start line and honest Present counters" "$out/x11-mb-demo.stderr" 1280x720

  # e. a stream from pf-testhost: keys, focus loss, the server killed
  port=$((20000 + RANDOM % 20000))
  # The host forwards its pointer (a 16x16 magenta square, 0xD0 each frame) and captures it from
  # frame 360 on (12 s: after the pointer, key and focus cases below).
  timeout 90 "$TESTHOST" --bind 127.0.0.1 --port $port --hevc "$fixture" --fps 30 --max-seconds 80 \
    --input-caps cursor,snapshots,edges,scroll --pointer-captured-from 360 \
    --input-log "$out/x11-host-input.jsonl" > "$out/x11-host.stdout" 2> "$out/x11-host.stderr" &
  host=$!
  if wait_for "$out/x11-host.stderr" 'fingerprint' 20; then
    fp=$(sed -n 's/.*fingerprint \([0-9a-f]*\).*/\1/p' "$out/x11-host.stderr" | head -1)
    onx "$KIOSK" connect "127.0.0.1:$port" --fp "$fp" --display x11 --seconds 60 > "$out/x11-stream.stdout" 2> "$out/x11-stream.stderr" &
    k=$!
    wait_for "$out/x11-stream.stdout" '"second"' 40 || true
    sleep 1
    x11_window > "$out/x11-stream.window"
    # The host's pointer drawn by the box (desktop mode): the X server shows pf-testhost's pointer
    # as the window's cursor — 16x16 pixels of its 1920x1080 desktop (its ServerHello mode) drawn at
    # the picture's scale (the mode shown 1280 wide: 16·1280/1920 = 10.7, so 11x11 magenta
    # ff ff 00 ff, hot spot 0,0) — where XTEST put the X pointer, with no round trip;
    # the host hears that place in video pixels through the picture's place (§6.2 MouseMoveAbs:
    # (1000.5·640/1280, 200.5·360/720) → (500, 100), reference 640x360). XFixes is the judge.
    lines=$(wc -l < "$out/x11-host-input.jsonl")
    printf 'abs 640 360 1280 720\nsync\nsleep 300\nabs 1000 200 1280 720\nsync\n' | onx "$bin/pf-xinject" inject 2>> "$out/x11-inject.log"
    i=0; until [ "$(onx "$bin/pf-xinject" cursor 2>&1 | tee "$out/x11-cursor-desktop.txt" | cut -d' ' -f2-)" = "1000 200 11 11 0 0 121 ffff00ff" ] \
      || [ $i -gt 30 ]; do sleep 0.1; i=$((i + 1)); done
    sleep 0.5
    tail -n +$((lines + 1)) "$out/x11-host-input.jsonl" > "$out/x11-host-pointer.jsonl"
    x11_pointer_judge "x11 (Xvfb + matchbox): the host's pointer is the window's cursor at the picture's scale, where the X pointer is, and the host hears its place" \
      desktop "$out/x11-cursor-desktop.txt" "$out/x11-host-pointer.jsonl"
    # Keys: the sway case's (letters, modifiers, arrows, Enter, Space, Backspace), into the focused window.
    : > "$out/x11-keys.txt"
    for code in 30 48 17 31 32 42 54 29 56 103 108 105 106 28 57 14; do
      printf 'key %s 1\nkey %s 0\n' "$code" "$code" >> "$out/x11-keys.txt"
    done
    { cat "$out/x11-keys.txt"; echo sync; } | onx "$bin/pf-xinject" inject 2> "$out/x11-inject.log"
    i=0; while [ "$(grep -c '"kind":[01][,}]' "$out/x11-host-input.jsonl" 2>/dev/null)" -lt 32 ] && [ $i -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
    sleep 0.5
    judge "x11 (Xvfb + matchbox): keys injected (XTEST) reach pf-testhost's input log exactly ($(cut -d';' -f1 "$out/x11-stream.window"))" \
      hostkeys "$out/x11-host-input.jsonl" "$out/x11-keys.txt"

    # Focus loss: S held, another client's window takes the input focus: the host gets S's release.
    lines=$(wc -l < "$out/x11-host-input.jsonl")
    printf 'key 31 1\nsync\n' | onx "$bin/pf-xinject" inject 2>> "$out/x11-inject.log"
    i=0; while ! tail -n +$((lines + 1)) "$out/x11-host-input.jsonl" | grep '"kind":0' > /dev/null; do
      i=$((i + 1)); [ $i -gt 30 ] && break; sleep 0.1
    done
    onx "$bin/pf-xinject" steal-focus > "$out/x11-steal.log" 2>&1 &
    steal=$!
    wait_for "$out/x11-steal.log" '^focused' 5
    sleep 1.5
    x11_window > "$out/x11-steal.window"
    printf 'key 31 1\nkey 31 0\n' > "$out/x11-hold.txt"
    judge "x11 (Xvfb + matchbox): focus loss releases held keys on the host (S held, pf-xinject steal-focus; $(cut -d';' -f1 "$out/x11-steal.window"))" \
      hostkeys "$out/x11-host-input.jsonl" "$out/x11-hold.txt" "$lines"
    printf 'key 31 0\nsync\n' | onx "$bin/pf-xinject" inject 2>> "$out/x11-inject.log"   # (to the thief)
    stop $steal
    sleep 0.5   # matchbox gives the kiosk the focus back

    # The host captured its pointer (frame 360 on, 0xD0's relative-mode hint): the window's cursor
    # is blank again (the pointer grabbed) and XTEST's motion reaches the host as relative counts.
    i=0; until onx "$bin/pf-xinject" cursor 2>&1 | tee "$out/x11-cursor-captured.txt" | grep ' 0 none$' > /dev/null \
      || [ $i -gt 150 ]; do sleep 0.1; i=$((i + 1)); done
    sleep 0.3
    lines=$(wc -l < "$out/x11-host-input.jsonl")
    printf 'motion 30 0\nsync\n' | onx "$bin/pf-xinject" inject 2>> "$out/x11-inject.log"
    sleep 1
    tail -n +$((lines + 1)) "$out/x11-host-input.jsonl" > "$out/x11-host-captured.jsonl"
    x11_pointer_judge "x11 (Xvfb + matchbox): once the host captures its pointer the cursor is blank and motion is relative" \
      captured "$out/x11-cursor-captured.txt" "$out/x11-host-captured.jsonl"

    # The X server killed mid-stream (D held): the kiosk ends, non-zero, with a sentence, nothing held.
    lines=$(wc -l < "$out/x11-host-input.jsonl")
    x11_window > "$out/x11-stream-before-kill.window"
    printf 'key 32 1\nsync\n' | onx "$bin/pf-xinject" inject 2>> "$out/x11-inject.log"
    i=0; while ! tail -n +$((lines + 1)) "$out/x11-host-input.jsonl" | grep '"kind":0' > /dev/null && [ $i -lt 20 ]; do sleep 0.1; i=$((i + 1)); done
    d_down=$(tail -n +$((lines + 1)) "$out/x11-host-input.jsonl" | grep -c '"kind":0')
    kill -9 "$xpid"; wait "$xpid" 2>/dev/null
    killed=$(date +%s%N)
    rm -f "/tmp/.X${xdisp#:}-lock" "/tmp/.X11-unix/X${xdisp#:}"   # (Xvfb killed leaves them)
    i=0; while kill -0 $k 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    if kill -0 $k 2>/dev/null; then
      stop $k; rc="still running 10 s after"
    else
      wait $k; rc=$?
    fi
    took=$(( ($(date +%s%N) - killed) / 1000000 ))
    stop "$wm_pid"
    # (the JSON lines are for scripts; the sentence is the last word to a person)
    last=$(grep -v '^\s*$' "$out/x11-stream.stderr" | grep -v '^{' | tail -1)
    held=$(python3 - "$out/x11-host-input.jsonl" <<'PY'
import json, sys
down = set()
for line in open(sys.argv[1]):
    try:
        e = json.loads(line)
    except ValueError:
        continue
    if e.get("kind") == 0:
        down.add(e["code"])
    elif e.get("kind") == 1:
        down.discard(e["code"])
print(" ".join(hex(v) for v in sorted(down)) or "nothing")
PY
)
    # One sentence: one line, about the X server, one full stop at most (its end), no crash report.
    sentence=${last#punktfunk-kiosk: }
    ends=$(grep -o '[.!?]\( \|$\)' <<< "$sentence" | wc -l)
    gone=$(grep -v '^{' "$out/x11-stream.stderr" | grep -m1 -iE 'x server|display is gone' | cut -c1-120)
    [ "$gone" != "$last" ] && [ -n "$gone" ] && last="$last (before it: $gone)"
    figures="exit $rc after ${took} ms; last line: ${last:0:240}; D's press reached the host: $([ "$d_down" -gt 0 ] && echo yes || echo no); held on the host: $held"
    if [[ "$rc" =~ ^[0-9]+$ ]] && [ "$rc" -ne 0 ] && [ "$rc" -lt 128 ] && [ "$ends" -le 1 ] \
       && grep -iE 'x server|x11|display|connection' <<< "$sentence" > /dev/null && ! grep -iE 'fatal error|stack|backtrace' <<< "$sentence" > /dev/null \
       && [ "$d_down" -gt 0 ] && [ "$held" = nothing ]; then
      result PASS "x11 (Xvfb + matchbox): X server killed mid-stream ends the kiosk cleanly" "$figures"
    else
      result FAIL "x11 (Xvfb + matchbox): X server killed mid-stream ends the kiosk cleanly" "$figures"
    fi
  else
    for c in "the host's pointer is the window's cursor at the picture's scale, where the X pointer is, and the host hears its place" \
             "keys injected (XTEST) reach pf-testhost's input log exactly" "focus loss releases held keys on the host" \
             "once the host captures its pointer the cursor is blank and motion is relative" \
             "X server killed mid-stream ends the kiosk cleanly"; do
      result FAIL "x11 (Xvfb + matchbox): $c" "pf-testhost did not start: $(head -c 300 "$out/x11-host.stderr")"
    done
    stop_xvfb
  fi
  stop $host
else
  result FAIL "x11 (Xvfb + matchbox, EWMH fullscreen): demo fills the screen" \
    "Xvfb or matchbox-window-manager did not start: $(tail -c 200 "$out/x11-mb.log") $(tail -c 200 "$out/x11-mb-wm.log" 2>/dev/null)"
fi
echo "x11 cases: $(($(date +%s) - x11_started)) s"

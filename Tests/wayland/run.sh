#!/usr/bin/env bash
# The kiosk under real compositors, headless, software rendering (issue 20, item 6; issue 29):
# sway 1.7, weston 10, cage 0.1.4, KWin 5.27 (`--virtual`) and mutter 43 (`--headless
# --virtual-monitor`), as research/wayland.md §3 runs them. Tests/tools/test.sh runs it after
# the unit tests; it takes well under a minute while the kiosk cases skip, about three with them.
#
#   Tests/wayland/run.sh            every case; exit 1 if any failed (skips do not fail)
#   PF_WL_KIOSK=path                the kiosk binary (default .build/debug/punktfunk-kiosk; test.sh
#                                   passes the release build: the pacing case and cage's CPU-scaled
#                                   picture need release speed and skip, saying so, with a debug one)
#   PF_WL_TESTHOST=path             pf-testhost (default: beside the kiosk)
#   PF_WL_ONLY="cage weston"        only the cases under these compositors (sway, weston, cage, kwin,
#                                   mutter, x11), machinery and kiosk alike; e.g. PF_WL_ONLY=cage takes ~40 s
#
# cage runs with its output turned 180° (`-r -r`); why, at the cage machinery case below.
#
# sway and cage refuse to run as root, so as root the harness creates the user `wltest` and runs
# them (and everything that talks to them) through runuser; weston and mutter run as root, KWin as
# the test user. Not root: all of it runs as you. Evidence (logs, screenshots) in .build-wayland/run/.
#
# KWin and mutter each run in a D-Bus session of their own (a dbus-daemon on a socket in their
# runtime directory). kwin_wayland carries a file capability (cap_sys_resource) that a container
# cannot grant, so the harness runs a copy of the binary without it. KWin's screenshots come from
# its org.kde.KWin.ScreenShot2 D-Bus interface (pf-kwinshot.c, gio; KWin started with
# KWIN_SCREENSHOT_NO_PERMISSION_CHECKS=1); mutter has no screenshot without GNOME Shell, so its
# cases judge the kiosk's own counters and its protocol log (WAYLAND_DEBUG=1).
#
# Two groups of cases:
# - machinery (always): the compositors start headless; on sway our client (pf-wlclient.c, built
#   here with gcc against wayland-client + xkbcommon; protocol code from wayland-scanner, the
#   virtual-keyboard and wlr virtual-pointer XML hand-declared in protocols/) injects exact evdev
#   key codes and pointer events that a listening window sees exactly; focus moves to a second
#   window (the first gets keyboard leave, the second keyboard enter with the held key already
#   down); an output resize reaches the window as a configure; screenshots (grim on sway and cage,
#   weston-screenshooter on weston) show the window's colour;
# - kiosk (once `punktfunk-kiosk --display wayland` exists; until then each SKIPs saying so):
#   `demo --display wayland` shows demo frames on sway, weston and cage (no viewporter, no
#   presentation-time), judged against the decoded frames as Tests/vm/verify.py judges
#   screendumps; the shell's home screen read with tesseract on sway and cage; keys injected on
#   sway arrive in pf-testhost's input log exactly; focus loss releases held keys; an output
#   resize reaches the host as a mode request (Reconfigure); the compositor killed mid-stream ends
#   the kiosk with a sentence and a non-zero exit.
# The X11 cases (x11; x11-cases.sh: `--display x11` under Xvfb, bare and with matchbox-window-manager,
# and under Xwayland in weston and sway) need Xvfb, xwd, xprop, xev, xdpyinfo, xdotool, matchbox-window-manager and
# xcb's headers; without them only they SKIP. Their injector, pf-xinject.c (gcc against xcb +
# xcb-xtest), reads pf-wlclient's inject lines and sends them through XTEST; xev judges it here.
set -uo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)
here="$repo/Tests/wayland"
out="$repo/.build-wayland/run"
bin="$repo/.build-wayland/bin"
KIOSK="${PF_WL_KIOSK:-$repo/.build/debug/punktfunk-kiosk}"
TESTHOST="${PF_WL_TESTHOST:-$(dirname "$KIOSK")/pf-testhost}"
started=$(date +%s)
rm -rf "$out"
mkdir -p "$out" "$bin"
chmod 755 "$repo/.build-wayland" "$out" "$bin"

passed=0 failed=0 skipped=0
wants() {  # wants COMPOSITOR: its cases run (PF_WL_ONLY empty, or naming it)
  [ -z "${PF_WL_ONLY:-}" ] || [[ " $PF_WL_ONLY " == *" $1 "* ]]
}
result() {  # result PASS|FAIL|SKIP NAME FIGURES
  case "$1" in PASS) passed=$((passed + 1)) ;; FAIL) failed=$((failed + 1)) ;; SKIP) skipped=$((skipped + 1)) ;; esac
  echo "$1 $2: $3" | tee -a "$out/results.txt"
}
judge() {  # judge NAME JUDGE-ARGS…: judge.py's verdict and figures as a result
  local name="$1"; shift
  local figures
  if figures=$(python3 "$here/judge.py" "$@" 2>&1); then result PASS "$name" "$figures"; else result FAIL "$name" "$figures"; fi
}
wait_for() {  # wait_for FILE PATTERN SECONDS
  local i=0
  while ! grep -q -- "$2" "$1" 2>/dev/null; do
    i=$((i + 1)); [ $i -gt $(($3 * 10)) ] && return 1; sleep 0.1
  done
}
ours="/tmp/pf-wl-[0-9]+-$$-"   # what every process this run starts in a runtime dir names (pkill -f's regex)
finish() {
  for p in $(jobs -p); do pkill -TERM -P "$p" 2>/dev/null; kill "$p" 2>/dev/null; done
  wait 2>/dev/null
  # What outlived its parent (a session bus whose runuser went first, a case that failed or timed
  # out half-way) still names this run's runtime directory: it ends here, and if it will not, the
  # run fails saying what was left.
  local i=0
  while pgrep -f -- "$ours" > /dev/null && [ $i -lt 20 ]; do pkill -TERM -f -- "$ours"; sleep 0.1; i=$((i + 1)); done
  pkill -KILL -f -- "$ours" 2>/dev/null; sleep 0.1
  local left; left=$(pgrep -a -f -- "$ours" | head -5)
  if [ -n "$left" ]; then result FAIL "nothing left behind" "still running: $left"; else result PASS "nothing left behind" "no process of this run outlives it"; fi
  rm -rf /tmp/pf-wl-*-$$-*
  echo "wayland-harness: $passed passed, $failed failed, $skipped skipped in $(($(date +%s) - started)) s (evidence in $out)"
  [ "$failed" -eq 0 ]
  exit $?
}
trap finish EXIT

# ---------------------------------------------------------------- prerequisites
missing=()
for tool in sway weston cage grim swaymsg weston-screenshooter weston-presentation-shm wayland-scanner gcc pkg-config python3 ffmpeg tesseract \
            kwin_wayland mutter dbus-daemon; do
  command -v "$tool" > /dev/null || missing+=("$tool")
done
pkg-config --exists wayland-client xkbcommon gio-unix-2.0 || missing+=("libwayland-dev/libxkbcommon-dev/libglib2.0-dev")
if [ ${#missing[@]} -gt 0 ]; then
  result SKIP "wayland harness" "missing ${missing[*]} (Tests/tools/install-deps.sh installs them)"
  exit 0
fi
# The X11 cases' own (their absence skips only them): tool → Debian package.
x11_missing=()
for tool in Xvfb:xvfb xwd:x11-apps xprop:x11-utils xev:x11-utils xdpyinfo:x11-utils xdotool:xdotool matchbox-window-manager:matchbox-window-manager; do
  command -v "${tool%%:*}" > /dev/null || x11_missing+=("${tool%%:*} (package ${tool#*:})")
done
pkg-config --exists xcb xcb-xtest xcb-xfixes || x11_missing+=("xcb's headers (packages libxcb1-dev libxcb-xtest0-dev libxcb-xfixes0-dev)")

# Who runs sway and cage.
if [ "$(id -u)" -eq 0 ]; then
  user=wltest
  if ! id "$user" > /dev/null 2>&1 && ! useradd --system --create-home --home-dir /var/lib/wltest --shell /usr/sbin/nologin "$user" 2> "$out/useradd.log"; then
    result SKIP "wayland harness" "running as root, and the test user $user could not be made ($(head -c 200 "$out/useradd.log")): sway and cage refuse root"
    exit 0
  fi
  as_user() { runuser -u "$user" -- "$@"; }
else
  user=$(id -un)
  as_user() { "$@"; }
fi
uid=$(id -u "$user")
xdg_for() {  # xdg_for NAME: a fresh runtime dir owned by the compositor's user, this run's own
  local d="/tmp/pf-wl-$uid-$$-$1"   # (the pid: two harness runs at once must not share sockets)
  rm -rf "$d"; install -d -m 700 -o "$user" "$d"; echo "$d"
}

# ---------------------------------------------------------------- the test client
gen="$bin/gen"
mkdir -p "$gen"
for xml in "$here/protocols/virtual-keyboard-unstable-v1.xml" "$here/protocols/wlr-virtual-pointer-unstable-v1.xml" \
           /usr/share/wayland-protocols/stable/xdg-shell/xdg-shell.xml; do
  b=$(basename "$xml" .xml)
  wayland-scanner client-header "$xml" "$gen/$b-client-protocol.h" && wayland-scanner private-code "$xml" "$gen/$b-protocol.c" \
    || { result FAIL "test client" "wayland-scanner failed on $xml"; exit 1; }
done
# shellcheck disable=SC2046
if ! gcc -O1 -Wall -Wno-missing-field-initializers -o "$bin/pf-wlclient" "$here/pf-wlclient.c" "$gen"/*-protocol.c -I"$gen" \
     $(pkg-config --cflags --libs wayland-client xkbcommon) 2> "$out/gcc.log"; then
  result FAIL "test client" "gcc: $(head -c 400 "$out/gcc.log")"; exit 1
fi
chmod 755 "$bin/pf-wlclient"
client="$bin/pf-wlclient"
# shellcheck disable=SC2046
if ! gcc -O1 -Wall -o "$bin/pf-kwinshot" "$here/pf-kwinshot.c" $(pkg-config --cflags --libs gio-unix-2.0) 2> "$out/gcc-kwinshot.log"; then
  result FAIL "test client" "gcc pf-kwinshot: $(head -c 400 "$out/gcc-kwinshot.log")"; exit 1
fi
# shellcheck disable=SC2046
if [ ${#x11_missing[@]} -eq 0 ] && ! gcc -O1 -Wall -o "$bin/pf-xinject" "$here/pf-xinject.c" $(pkg-config --cflags --libs xcb xcb-xtest xcb-xfixes) \
     2> "$out/gcc-xinject.log"; then
  result FAIL "test client" "gcc pf-xinject: $(head -c 400 "$out/gcc-xinject.log")"
  x11_missing+=("a working pf-xinject (gcc failed: $out/gcc-xinject.log)")
fi
# kwin_wayland without its file capability (see the top): a copy the test user can run.
install -m 755 "$(command -v kwin_wayland)" "$bin/kwin_wayland"
chmod 755 "$bin/pf-kwinshot"

# ---------------------------------------------------------------- compositors
# Each start_* sets $xdg, $wl (WAYLAND_DISPLAY) and $pid; the compositor's log is $out/NAME.log.
start_sway() {  # start_sway NAME WxH [OUTPUT-SETTINGS…]: e.g. `scale 1.5`, `transform 90`
  xdg=$(xdg_for "$1")
  # `seat *`: sway 1.7 activates no pointer lock without a seat block (sway_cursor_constrain
  # returns when seat_get_config finds none).
  printf 'output HEADLESS-1 resolution %s %s\ndefault_border none\nfocus_follows_mouse no\nseat * pointer_constraint enable\n' \
    "$2" "${*:3}" > "$out/$1.cfg"
  chmod 644 "$out/$1.cfg"
  as_user env -i PATH="$PATH" XDG_RUNTIME_DIR="$xdg" WLR_BACKENDS=headless WLR_RENDERER=pixman WLR_LIBINPUT_NO_DEVICES=1 \
    sway -c "$out/$1.cfg" > "$out/$1.log" 2>&1 &
  pid=$!
  wait_socket "$1"
}
start_weston() {  # start_weston NAME WxH [--use-gl|--use-pixman [MORE…]] (as root when root: it has no root check, and no seat)
  xdg="/tmp/pf-wl-$(id -u)-$$-$1"; rm -rf "$xdg"; install -d -m 700 "$xdg"
  XDG_RUNTIME_DIR="$xdg" weston --backend=headless-backend.so "${3:---use-pixman}" "${@:4}" --idle-time=0 --width="${2%x*}" --height="${2#*x}" \
    --socket=wayland-pf --debug --no-config --log="$out/$1.log" > "$out/$1.stdout" 2>&1 &
  pid=$!
  wait_socket "$1"
}
session_bus() {  # session_bus: a dbus-daemon of its own on $xdg/bus, as $2 (root or the test user); $bus_pid
  local runner=(); [ "${1:-}" = user ] && runner=(as_user)
  "${runner[@]}" env -i PATH="$PATH" HOME="$xdg" XDG_RUNTIME_DIR="$xdg" dbus-daemon --session --address="unix:path=$xdg/bus" \
    --nofork --nopidfile > "$out/dbus-$(basename "$xdg").log" 2>&1 &
  bus_pid=$!
  local i=0; while [ ! -S "$xdg/bus" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
}
start_kwin() {  # start_kwin NAME WxH [SCALE]: KWin 5.27 --virtual as the test user, its own session bus
  xdg=$(xdg_for "$1")
  session_bus user
  as_user env -i PATH="$PATH" HOME="$xdg" XDG_RUNTIME_DIR="$xdg" DBUS_SESSION_BUS_ADDRESS="unix:path=$xdg/bus" \
    QT_QPA_PLATFORM=offscreen KWIN_SCREENSHOT_NO_PERMISSION_CHECKS=1 "$bin/kwin_wayland" --virtual --width "${2%x*}" \
    --height "${2#*x}" --scale "${3:-1}" --socket wayland-kwin --no-lockscreen --no-global-shortcuts --no-kactivities \
    > "$out/$1.log" 2>&1 &
  pid=$!
  wait_socket "$1"
}
start_mutter() {  # start_mutter NAME WxH: mutter 43 headless with one virtual monitor, as root, its own session bus
  xdg="/tmp/pf-wl-$(id -u)-$$-$1"; rm -rf "$xdg"; install -d -m 700 "$xdg"
  session_bus
  env -i PATH="$PATH" HOME="$xdg" XDG_RUNTIME_DIR="$xdg" DBUS_SESSION_BUS_ADDRESS="unix:path=$xdg/bus" \
    mutter --headless --wayland --no-x11 --virtual-monitor "$2" --wayland-display=wayland-mutter > "$out/$1.log" 2>&1 &
  pid=$!
  wait_socket "$1"
}
start_xvfb() {  # start_xvfb NAME [matchbox]: Xvfb 1280x720x24 on the first free display ($xdisp, its pid $xpid;
  # log $out/NAME.log), with matchbox-window-manager (EWMH) when asked ($wm_pid; ready once it has
  # set _NET_SUPPORTING_WM_CHECK on the root). As whoever runs the harness: Xvfb has no root check.
  wm_pid=""
  : > "$out/$1.display"
  Xvfb -displayfd 3 -screen 0 1280x720x24 -nolisten tcp -noreset 3> "$out/$1.display" > "$out/$1.log" 2>&1 &
  xpid=$!
  wait_for "$out/$1.display" '^[0-9]' 15 || return 1
  xdisp=":$(head -1 "$out/$1.display")"
  [ "${2:-}" = matchbox ] || return 0
  DISPLAY="$xdisp" matchbox-window-manager -use_titlebar no > "$out/$1-wm.log" 2>&1 &
  wm_pid=$!
  local i=0
  until xprop -display "$xdisp" -root _NET_SUPPORTING_WM_CHECK 2>/dev/null | grep 'window id' > /dev/null; do
    i=$((i + 1)); [ $i -gt 100 ] && return 1; sleep 0.1
  done
}
stop_xvfb() {  # stop_xvfb: the window manager ($wm_pid) and Xvfb ($xpid)
  [ -n "$wm_pid" ] && stop "$wm_pid"
  stop "$xpid"
}
stop_session() {  # stop_session: the compositor ($pid) and its session bus ($bus_pid, and the dbus-daemon on $xdg/bus
  # itself: runuser may go before the daemon it started, which then outlives the case)
  stop "$pid"; stop "$bus_pid"
  pkill -TERM -f -- "--address=unix:path=$xdg/bus" 2>/dev/null
}
wait_socket() {
  local i=0
  while [ $i -lt 100 ]; do
    wl=$(cd "$xdg" 2>/dev/null && ls wayland-* 2>/dev/null | grep -v '\.lock$' | head -1)
    [ -n "$wl" ] && [ -S "$xdg/$wl" ] && return 0
    kill -0 "$pid" 2>/dev/null || break
    i=$((i + 1)); sleep 0.1
  done
  return 1
}
on() {  # on COMMAND…: as the compositor's user, in its session ($xdg, $wl; its session bus when it has one)
  as_user env -i PATH="$PATH" HOME="$xdg" XDG_RUNTIME_DIR="$xdg" XDG_CONFIG_HOME="$xdg/config" WAYLAND_DISPLAY="$wl" \
    SWAYSOCK="$(ls "$xdg"/sway-ipc.*.sock 2>/dev/null | head -1)" DBUS_SESSION_BUS_ADDRESS="unix:path=$xdg/bus" "$@"
}
on_root() {  # on_root COMMAND…: as root (weston, mutter), in the compositor's session
  env XDG_RUNTIME_DIR="$xdg" WAYLAND_DISPLAY="$wl" XDG_CONFIG_HOME="$xdg/config" DBUS_SESSION_BUS_ADDRESS="unix:path=$xdg/bus" "$@"
}
stop() {  # stop PID: a background job (a subshell running runuser) and what runs under it
  pkill -TERM -P "$1" 2>/dev/null; kill "$1" 2>/dev/null; wait "$1" 2>/dev/null
}
descendants() { local c; for c in $(pgrep -P "$1"); do echo "$c"; descendants "$c"; done; }
weston_shot() {  # weston_shot PNG JUDGE-ARGS-AFTER-THE-PICTURE…: shoot until judge.py agrees (WESTON_TRIES, 10)
  local png="$1" i; shift
  local dir="$out/weston-shot"
  for i in $(seq "${WESTON_TRIES:-10}"); do
    rm -rf "$dir"; mkdir -p "$dir"
    (cd "$dir" && XDG_RUNTIME_DIR="$xdg" WAYLAND_DISPLAY="$wl" weston-screenshooter > "$out/weston-screenshooter.log" 2>&1)
    mv "$(ls "$dir"/*.png 2>/dev/null | head -1)" "$png" 2>/dev/null
    [ -f "$png" ] && python3 "$here/judge.py" "$1" "$png" "${@:2}" > /dev/null 2>&1 && return 0
    sleep 1
  done
  return 1
}

# ---------------------------------------------------------------- machinery: sway
if wants sway && start_sway sway 1280x720; then
  result PASS "sway starts headless as $user" "WLR_BACKENDS=headless WLR_RENDERER=pixman; socket $wl"
  on "$client" listen pf-listen-1 3060c0 > "$out/listen-1.log" 2>&1 &
  l1=$!
  wait_for "$out/listen-1.log" "seat-capabilities" 5
  sleep 0.5
  on grim - > "$out/sway-listener.png" 2> "$out/grim.log"
  judge "sway screenshot (grim) shows the window" colour "$out/sway-listener.png" 3060c0 0.95
  # Exact keys: letters, modifiers, arrows, Enter, Esc, Space, both Ctrls and Alts.
  : > "$out/keys.txt"
  for code in 30 48 16 17 31 32 42 54 29 97 56 100 103 108 105 106 28 1 57 14 15; do
    printf 'key %s 1\nkey %s 0\n' "$code" "$code" >> "$out/keys.txt"
  done
  printf 'abs 640 360 1280 720\nbutton 272 1\nbutton 272 0\nbutton 273 1\nbutton 273 0\nmotion 7 -4\naxis 0 15 1\nsync\n' > "$out/pointer.txt"
  on "$client" inject < "$out/keys.txt" 2> "$out/inject-keys.log"
  on "$client" inject < "$out/pointer.txt" 2> "$out/inject-pointer.log"
  sleep 0.3
  judge "sway: evdev codes injected (zwp_virtual_keyboard_v1) reach a window exactly" keys "$out/listen-1.log" "$out/keys.txt"
  if grep -q '^button 272 1$' "$out/listen-1.log" && grep -q '^button 273 0$' "$out/listen-1.log" \
     && grep -q '^motion ' "$out/listen-1.log" && grep -q '^axis 0 15.00$' "$out/listen-1.log"; then
    result PASS "sway: pointer injected (zwlr_virtual_pointer_v1) reaches the window" "$(grep -c -E '^(button|motion|axis) ' "$out/listen-1.log") pointer events: $(grep -E '^(button|axis) ' "$out/listen-1.log" | tr '\n' ';')"
  else
    result FAIL "sway: pointer injected (zwlr_virtual_pointer_v1) reaches the window" "listener saw: $(grep -v '^key' "$out/listen-1.log" | tr '\n' ';' | head -c 400)"
  fi
  # Focus loss: A held, a second window takes the focus.
  presses=$(grep -c '^key 30 1$' "$out/listen-1.log")
  { printf 'key 30 1\nsync\nsleep 6000\nkey 30 0\nsync\n'; } | on "$client" inject 2> "$out/inject-hold.log" &
  inj=$!
  i=0; while [ "$(grep -c '^key 30 1$' "$out/listen-1.log")" -le "$presses" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
  on "$client" listen pf-listen-2 c06030 > "$out/listen-2.log" 2>&1 &
  l2=$!
  wait_for "$out/listen-2.log" "keyboard-enter" 5   # (under load the new window may take seconds)
  wait $inj
  sleep 0.2
  after=$(awk '/^key 30 1$/ { n = NR } { line[NR] = $0 } END { for (i = n + 1; i <= NR; i++) printf "%s;", line[i] }' "$out/listen-1.log")
  if [[ "$after" == keyboard-leave* ]] && grep -q '^keyboard-enter 30$' "$out/listen-2.log"; then
    result PASS "sway: focus moves while A is held" "window 1 after its 'key 30 1': ${after:0:80}; window 2: $(grep '^keyboard-enter' "$out/listen-2.log" | head -1) (A already down at enter)"
  else
    result FAIL "sway: focus moves while A is held" "window 1 after 'key 30 1': ${after:0:200}; window 2: $(tr '\n' ';' < "$out/listen-2.log" | head -c 200)"
  fi
  stop $l2
  sleep 0.5   # window 1 has the whole output again
  # Output resize → the window is configured anew.
  before=$(grep -c '^configure' "$out/listen-1.log")
  on swaymsg output HEADLESS-1 resolution 1024x768 > "$out/swaymsg.log" 2>&1
  sleep 0.5
  last=$(grep '^configure' "$out/listen-1.log" | tail -1)
  if [ "$(grep -c '^configure' "$out/listen-1.log")" -gt "$before" ] && [ "$last" = "configure 1024 768" ]; then
    result PASS "sway: output resize (swaymsg output HEADLESS-1 resolution 1024x768) configures the window" "$last"
  else
    result FAIL "sway: output resize configures the window" "last: '$last'; swaymsg: $(head -c 200 "$out/swaymsg.log")"
  fi
  stop $l1
  stop $pid
elif wants sway; then
  result FAIL "sway starts headless as $user" "$(tail -c 400 "$out/sway.log")"
fi

# ---------------------------------------------------------------- the kiosk's seat code, live on sway
# WaylandSeat (Sources/WaylandDisplay) on a bare window of the test bundle, streaming-captured:
# the injected keys must arrive exactly, the lock must take hold, relative motion must follow,
# and the same events through SeatInput must give the host exactly the VKs, nothing held.
tests="${PF_WL_TESTS:-$repo/.build/debug/punktfunk-kioskPackageTests.xctest}"
if ! wants sway; then
  :
elif [ ! -x "$tests" ]; then
  result SKIP "sway: WaylandSeat live (keys, lock, relative motion, focus loss)" "no test bundle at $tests (swift build --build-tests)"
elif ! as_user test -x "$tests"; then
  result SKIP "sway: WaylandSeat live (keys, lock, relative motion, focus loss)" "$user cannot execute $tests"
elif start_sway seat-live 1280x720; then
  printf 'key %s 1\nkey %s 0\n' 30 30 42 42 > "$out/seat-live-keys.txt"
  printf 'key 42 1\nkey 48 1\nkey 48 0\nkey 42 0\nkey 29 1\nkey 56 1\nkey 56 0\nkey 29 0\nkey 28 1\nkey 28 0\n' >> "$out/seat-live-keys.txt"
  chmod 644 "$out/seat-live-keys.txt"
  marks="$xdg/seat-live.marks"   # written by the test (as $user)
  on env PF_WL_SEAT_LIVE="$out/seat-live-keys.txt" PF_WL_SEAT_LIVE_FOCUS=1 PF_WL_SEAT_LIVE_MARKS="$marks" timeout 60 "$tests" --testing-library swift-testing \
    --filter WaylandSeatLiveTests > "$out/seat-live.log" 2>&1 &
  t=$!
  wait_for "$marks" "seat-live: ready" 30
  { cat "$out/seat-live-keys.txt"
    printf 'abs 640 360 1280 720\nmotion 5 3\nsleep 300\nmotion 5 3\nsleep 300\nmotion -7 2\nbutton 272 1\nbutton 272 0\nsync\nsleep 500\n'
  } | on "$client" inject 2> "$out/seat-live-inject.log"
  # Focus loss: S held on the kiosk's window, then the workspace changes (a new window would not
  # take the focus from a fullscreen one on sway).
  if wait_for "$marks" "seat-live: hold now" 20; then
    printf 'key 31 1\nsync\nsleep 3000\nkey 31 0\nsync\n' | on "$client" inject 2> "$out/seat-live-hold.log" &
    hold=$!
    wait_for "$marks" "seat-live: holding" 10
    on swaymsg workspace number 2 > "$out/seat-live-swaymsg.log" 2>&1
  fi
  wait $t; rc=$?
  [ -n "${hold:-}" ] && wait "$hold"
  if [ $rc -eq 0 ] && grep -q 'passed' "$out/seat-live.log"; then
    result PASS "sway: WaylandSeat live (keys, lock, relative motion, focus loss)" "$(grep -E 'seat-live: ([0-9]|S held)' "$out/seat-live.log" | tr '\n' ' ')"
  else
    result FAIL "sway: WaylandSeat live (keys, lock, relative motion, focus loss)" "exit $rc: $(grep -E 'seat-live: [0-9]|Expectation failed' "$out/seat-live.log" | cut -c1-300 | tr '\n' ';')"
  fi
  stop $pid
else
  result FAIL "sway: WaylandSeat live" "sway did not start: $(tail -c 300 "$out/seat-live.log")"
fi

# ---------------------------------------------------------------- machinery: weston
if wants weston && start_weston weston 1280x720; then
  result PASS "weston starts headless" "--use-pixman --debug; socket $wl"
  XDG_RUNTIME_DIR="$xdg" WAYLAND_DISPLAY="$wl" "$client" listen pf-listen-w 30c060 > "$out/listen-w.log" 2>&1 &
  lw=$!
  wait_for "$out/listen-w.log" "configure" 5
  # weston's desktop shell (its own client) takes a few seconds to come up under load: shoot
  # until the window shows, at most 10 times.
  if weston_shot "$out/weston-listener.png" colour 30c060 0.2; then
    judge "weston screenshot (weston-screenshooter) shows the window" colour "$out/weston-listener.png" 30c060 0.2
  else
    result FAIL "weston screenshot (weston-screenshooter) shows the window" "$(python3 "$here/judge.py" colour "$out/weston-listener.png" 30c060 0.2 2>&1 | head -c 300) $(head -c 300 "$out/weston-screenshooter.log")"
  fi
  stop $lw
  stop $pid
elif wants weston; then
  result FAIL "weston starts headless" "$(tail -c 400 "$out/weston.log" "$out/weston.stdout" 2>/dev/null)"
fi

# ---------------------------------------------------------------- machinery: cage
# cage 0.1.4 (on wlroots 0.15) offers the focused window's buffer for direct scan-out on every
# output frame (output.c scan_out_primary_view; its surface count never counts, so subsurfaces do
# not stop it). The headless backend accepts any buffer of the output's size, shm included (DRM
# would not: it needs a dma-buf to import), so the output's own buffers are never drawn. grim's
# screencopy disables scan-out while it waits (wlr_output_lock_attach_render, logged as "Basic
# output test failed for HEADLESS-1") and copies what cage then renders: only the damage since
# that buffer was last drawn (wlr_output_damage files what changed during scan-out under the
# buffers older than that one), so nothing for a window that has not changed since: a black or
# stale shot, though the window is on the output. Turned 180° (`-r -r`), the output's transform differs from every surface's, cage
# never scans out and always composites, as it does for shm on DRM: screenshots then show what
# the window shows. (The unturned run, with the same client: black or its first, smaller buffer.)
cage_run() {  # cage_run NAME COMMAND: cage headless, turned, COMMAND inside (as $user); log $out/NAME.log
  xdg=$(xdg_for "$1")
  as_user env -i PATH="$PATH" HOME="$xdg" XDG_RUNTIME_DIR="$xdg" XDG_CONFIG_HOME="$xdg/config" WLR_BACKENDS=headless \
    WLR_RENDERER=pixman WLR_LIBINPUT_NO_DEVICES=1 cage -r -r -- sh -c "$2" > "$out/$1.log" 2>&1
}
if wants cage; then
  cage_run cage "'$client' listen pf-listen-c c0c030 > \"\$XDG_RUNTIME_DIR/listen.log\" 2>&1 & sleep 2; grim \"\$XDG_RUNTIME_DIR/cage.png\"; kill \$!"
  cp "$xdg/listen.log" "$out/listen-cage.log" 2>/dev/null
  if cp "$xdg/cage.png" "$out/cage-listener.png" 2>/dev/null; then
    judge "cage runs its client as $user; grim shows it" colour "$out/cage-listener.png" c0c030 0.95
  else
    result FAIL "cage runs its client as $user" "no screenshot: $(tail -c 300 "$out/cage.log")"
  fi
fi

# ---------------------------------------------------------------- machinery: KWin, mutter
if wants kwin && start_kwin kwin 1280x720; then
  result PASS "KWin 5.27 starts --virtual as $user" "a copy of kwin_wayland without its file capability; socket $wl"
  on "$client" listen pf-listen-k 6030c0 > "$out/listen-kwin.log" 2>&1 &
  lk=$!
  wait_for "$out/listen-kwin.log" "configure" 10
  sleep 1
  if on "$bin/pf-kwinshot" "$xdg/shot.ppm" > "$out/kwinshot.log" 2>&1 && cp "$xdg/shot.ppm" "$out/kwin-listener.ppm"; then
    judge "KWin screenshot (org.kde.KWin.ScreenShot2) shows the window" colour "$out/kwin-listener.ppm" 6030c0 0.2
  else
    result FAIL "KWin screenshot (org.kde.KWin.ScreenShot2) shows the window" "$(head -c 300 "$out/kwinshot.log")"
  fi
  stop $lk
  stop_session
elif wants kwin; then
  result FAIL "KWin 5.27 starts --virtual as $user" "$(tail -c 400 "$out/kwin.log")"
fi
if wants mutter && start_mutter mutter 1280x720; then
  on_root "$client" listen pf-listen-m 30c0c0 > "$out/listen-mutter.log" 2>&1 &
  lm=$!
  if wait_for "$out/listen-mutter.log" "configure" 10; then
    result PASS "mutter 43 starts --headless --virtual-monitor; a window is configured" "$(grep -m1 '^configure' "$out/listen-mutter.log"); socket $wl"
  else
    result FAIL "mutter 43 starts --headless --virtual-monitor; a window is configured" "$(tail -c 300 "$out/listen-mutter.log") $(tail -c 300 "$out/mutter.log")"
  fi
  stop $lm
  stop_session
elif wants mutter; then
  result FAIL "mutter 43 starts --headless --virtual-monitor" "$(tail -c 400 "$out/mutter.log")"
fi

# ---------------------------------------------------------------- machinery: X11
# pf-xinject's XTEST keys and buttons against xev (x11-utils): the X server's own report of them.
if wants x11 && [ ${#x11_missing[@]} -gt 0 ]; then
  result SKIP "x11 (Xvfb): pf-xinject's keys and buttons reach xev exactly" "missing ${x11_missing[*]} (Tests/tools/install-deps.sh installs them)"
elif wants x11 && start_xvfb x11-machinery; then
  DISPLAY="$xdisp" xev -geometry 1280x720+0+0 -event keyboard -event button > "$out/x11-xev.log" 2>&1 &
  xe=$!
  # (no window manager: the keyboard follows the pointer, put on xev's window first)
  i=0; until DISPLAY="$xdisp" xdotool search --name 'Event Tester' > /dev/null 2>&1; do i=$((i + 1)); [ $i -gt 50 ] && break; sleep 0.1; done
  { echo "abs 640 360 1280 720"
    for code in 30 48 16 17 31 32 42 54 29 97 56 100 103 108 105 106 28 1 57 14 15; do printf 'key %s 1\nkey %s 0\n' "$code" "$code"; done
    printf 'button 272 1\nbutton 272 0\nbutton 273 1\nbutton 273 0\nbutton 274 1\nbutton 274 0\nsync\n'
  } > "$out/x11-xinject.txt"
  DISPLAY="$xdisp" "$bin/pf-xinject" inject < "$out/x11-xinject.txt" 2> "$out/x11-xinject.log"
  sleep 0.3
  stop $xe
  # xev's "KeyPress event … keycode N …" → `key N-8 1`, "ButtonRelease … button N," → `button N 0`
  awk '/^(KeyPress|ButtonPress)/ { s = 1 } /^(KeyRelease|ButtonRelease)/ { s = 0 }
       match($0, /keycode [0-9]+/) { print "key", substr($0, RSTART + 8, RLENGTH - 8) - 8, s }
       match($0, /button [0-9]+,/) { print "button", substr($0, RSTART + 7, RLENGTH - 8), s }' "$out/x11-xev.log" > "$out/x11-xev-edges.txt"
  buttons=$(grep '^button' "$out/x11-xev-edges.txt" | tr '\n' ';')
  if figures=$(python3 "$here/judge.py" keys "$out/x11-xev-edges.txt" "$out/x11-xinject.txt" 2>&1) \
     && [ "$buttons" = "button 1 1;button 1 0;button 3 1;button 3 0;button 2 1;button 2 0;" ]; then
    result PASS "x11 (Xvfb): pf-xinject's keys and buttons reach xev exactly" "$figures; evdev buttons 272/273/274 as X buttons: $buttons"
  else
    result FAIL "x11 (Xvfb): pf-xinject's keys and buttons reach xev exactly" "$figures; buttons: $buttons $(head -c 200 "$out/x11-xinject.log")"
  fi
  stop_xvfb
elif wants x11; then
  result FAIL "x11 (Xvfb): pf-xinject's keys and buttons reach xev exactly" "Xvfb did not start: $(tail -c 300 "$out/x11-machinery.log")"
fi

# ---------------------------------------------------------------- kiosk cases
x11_cases=("x11 (Xvfb, no window manager): demo --display x11 fills the screen"
           "x11 (Xvfb, no window manager): the start line and honest Present counters"
           "x11 (Xvfb + matchbox, EWMH fullscreen): demo fills the screen"
           "x11 (Xwayland in weston): demo fills the screen" "x11 (Xwayland in weston): the start line says the server is Xwayland"
           "x11 (Xwayland in sway): demo fills the screen" "x11 (Xwayland in sway): the start line and honest Present counters"
           "x11 (Xvfb): the shell's home screen (OCR)"
           "x11 (Xvfb + matchbox): the host's pointer is the window's cursor at the picture's scale, where the X pointer is, and the host hears its place"
           "x11 (Xvfb + matchbox): keys injected (XTEST) reach pf-testhost's input log exactly"
           "x11 (Xvfb + matchbox): focus loss releases held keys on the host"
           "x11 (Xvfb + matchbox): once the host captures its pointer the cursor is blank and motion is relative"
           "x11 (Xvfb + matchbox): X server killed mid-stream ends the kiosk cleanly"
           "x11: --display auto with DISPLAY set and no Wayland socket picks x11, saying why"
           "x11 (Xvfb): check names the X server")
kiosk_cases=("sway: demo --display wayland fills the screen" "sway at scale 1.5: demo fills the screen"
             "sway turned 90°: demo fills the screen" "weston: demo --display wayland fills the screen"
             "cage (no viewporter, no presentation-time): demo fills the screen" "KWin at scale 1.5: demo fills the screen"
             "mutter: demo fills the screen (counters and protocol log)" "sway: the shell's home screen (OCR)"
             "cage: the shell's home screen (OCR)"
             "sway: keys injected reach pf-testhost's input log exactly" "sway: focus loss releases held keys on the host"
             "sway: the host's pointer is the kiosk's cursor at the picture's scale, where sway's pointer is, and the host hears its place"
             "sway: output resize reaches the host as a mode request" "sway: compositor killed mid-stream ends the kiosk cleanly"
             "sway: check names sway" "weston: check names weston" "cage: check names cage" "KWin: check names kwin_wayland"
             "mutter: check names mutter"
             "sway: the kiosk's presentation feedback agrees with weston-presentation-shm's"
             "weston: the kiosk's presentation feedback agrees with weston-presentation-shm's"
             "weston: commit → presented no worse than weston-presentation-shm's at the same size"
             "weston (pixman): a 10-bit stream stays XRGB8888 and shows its frames"
             "weston (GL): a 10-bit stream goes as XBGR2101010 and shows its frames" "${x11_cases[@]}")
why=""
if [ ! -x "$KIOSK" ]; then
  why="no kiosk binary at $KIOSK (swift build --product punktfunk-kiosk, or set PF_WL_KIOSK)"
elif ! "$KIOSK" demo --help 2>&1 | grep -- '--display' > /dev/null; then  # (grep -q would end the pipe early: SIGPIPE, pipefail)
  why="$KIOSK has no --display option yet: the Wayland backend is not wired into the runner (issue 20, item 1)"
elif [ ! -x "$TESTHOST" ]; then
  why="no pf-testhost at $TESTHOST (set PF_WL_TESTHOST)"
elif ! as_user test -x "$KIOSK"; then
  why="$user cannot execute $KIOSK (a directory on its path is not searchable by others)"
fi
if [ -z "$why" ] && start_sway kiosk-probe 1280x720; then
  # A build whose --display wayland is still the seam's stub says so at once.
  on timeout 30 "$KIOSK" demo --display wayland --seconds 1 > "$out/kiosk-probe.stdout" 2> "$out/kiosk-probe.stderr"
  probe_rc=$?
  if grep -q "no Wayland backend" "$out/kiosk-probe.stderr"; then
    why="$KIOSK --display wayland answers \"$(grep -m1 'no Wayland backend' "$out/kiosk-probe.stderr" | cut -c1-120)\" (exit $probe_rc): the backend is not wired into the executable yet"
  fi
  stop $pid
fi
if [ -n "$why" ]; then
  for c in "${kiosk_cases[@]}"; do result SKIP "$c" "$why"; done
  exit 0
fi
source "$here/kiosk-cases.sh"
source "$here/x11-cases.sh"

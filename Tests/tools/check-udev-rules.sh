#!/usr/bin/env bash
# Fails when udev rules give a seat's active user (`uaccess`) a keyboard, a mouse or any input
# node that is not a game controller: whoever is active on the seat — any desktop user, not only
# the kiosk — could then read every keystroke (issue 20, item 5). Allowed `uaccess` tags: DRM
# nodes, evdev nodes matched as ENV{ID_INPUT_JOYSTICK}=="1" (and not as a keyboard or mouse), and
# hidraw nodes matched by Sony's vendor id (the DualSense).
#   Tests/tools/check-udev-rules.sh FILE...     check these rules files (exit 1 on a finding)
#   Tests/tools/check-udev-rules.sh --self-test  prove the check catches the rules it must refuse
# build-deb.sh --check runs both, on the rules inside the built package.
set -uo pipefail

check() {
  # One logical rule per line (backslash continuations joined); comments and blanks skipped.
  awk '
    function fail(why) { printf "%s:%d: %s\n    %s\n", FILENAME, start, why, rule; bad = 1 }
    FNR == 1 { rule = ""; start = 0 }
    {
      line = $0
      if (rule == "") start = FNR
      if (line ~ /\\$/) { sub(/\\$/, "", line); rule = rule line; next }
      rule = rule line
      r = rule; rule = ""
      if (r ~ /^[ \t]*(#|$)/) next
      if (r !~ /TAG\+?=[^,]*uaccess/) next
      rule = r
      if (r ~ /ID_INPUT_(KEYBOARD|KEY|MOUSE|TOUCHPAD|POINTINGSTICK|TABLET|TOUCHSCREEN)\}=="1"/) {
        fail("uaccess on a keyboard, mouse or pointer: any active seat user could read it"); rule = ""; next
      }
      if (r ~ /SUBSYSTEM=="input"/ || r ~ /KERNEL=="(event|mouse|js)/) {
        if (r !~ /ENV\{ID_INPUT_JOYSTICK\}=="1"/) { fail("uaccess on input nodes that are not only game controllers"); rule = ""; next }
        if (r !~ /ENV\{ID_INPUT_KEYBOARD\}!="1"/ || r !~ /ENV\{ID_INPUT_MOUSE\}!="1"/) {
          fail("uaccess on a controller node without excluding keyboards and mice (ENV{ID_INPUT_KEYBOARD}!=\"1\", ENV{ID_INPUT_MOUSE}!=\"1\")"); rule = ""; next
        }
      } else if (r ~ /hidraw/) {
        if (r !~ /054[cC]/) { fail("uaccess on a hidraw node that is not matched as a Sony pad (a keyboard hidraw leaks keystrokes)"); rule = ""; next }
      } else if (r !~ /SUBSYSTEM=="drm"/) {
        fail("uaccess on a node this check does not know to be safe (only drm, game-controller evdev and Sony hidraw are)"); rule = ""; next
      }
      rule = ""
    }
    END { exit bad }
  ' "$@"
}

if [ "${1:-}" = "--self-test" ]; then
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
  refused=(
    'SUBSYSTEM=="input", KERNEL=="event[0-9]*", ENV{ID_INPUT_KEYBOARD}=="1", TAG+="uaccess"'
    'SUBSYSTEM=="input", KERNEL=="event[0-9]*", ENV{ID_INPUT_MOUSE}=="1", TAG+="uaccess"'
    'SUBSYSTEM=="input", KERNEL=="event[0-9]*", TAG+="uaccess"'
    'SUBSYSTEM=="input", ENV{ID_INPUT_JOYSTICK}=="1", TAG+="uaccess"'
    'KERNEL=="hidraw*", SUBSYSTEM=="hidraw", TAG+="uaccess"'
    'KERNEL=="event*", \
       ENV{ID_INPUT_KEYBOARD}=="1", TAG+="uaccess"'
    'ACTION=="add", TAG+="uaccess"'
  )
  i=0
  for rule in "${refused[@]}"; do
    i=$((i + 1))
    printf '%s\n' "$rule" > "$dir/bad$i.rules"
    if check "$dir/bad$i.rules" > /dev/null; then
      echo "check-udev-rules: self-test: this rule was not refused: $rule" >&2
      exit 1
    fi
  done
  printf '%s\n' 'SUBSYSTEM=="drm", KERNEL=="card[0-9]*", TAG+="uaccess"' \
    'SUBSYSTEM=="input", KERNEL=="event[0-9]*", ENV{ID_INPUT_JOYSTICK}=="1", ENV{ID_INPUT_KEYBOARD}!="1", ENV{ID_INPUT_MOUSE}!="1", TAG+="uaccess"' \
    'SUBSYSTEM=="input", KERNEL=="event[0-9]*", ENV{ID_INPUT_KEYBOARD}=="1", GROUP="input", MODE="0660"' \
    'KERNEL=="hidraw*", SUBSYSTEM=="hidraw", ATTRS{idVendor}=="054c", ATTRS{idProduct}=="0ce6", TAG+="uaccess"' > "$dir/good.rules"
  if ! check "$dir/good.rules"; then
    echo "check-udev-rules: self-test: safe rules were refused" >&2
    exit 1
  fi
  echo "check-udev-rules: self-test passed (${#refused[@]} unsafe rules refused, safe rules accepted)" >&2
  exit 0
fi

[ $# -gt 0 ] || { echo "usage: $0 FILE... | --self-test" >&2; exit 2; }
if ! check "$@"; then
  echo "check-udev-rules: keyboards and mice must not be tagged uaccess (see udev/README.md)" >&2
  exit 1
fi
echo "check-udev-rules: no keyboard or mouse uaccess in $*" >&2

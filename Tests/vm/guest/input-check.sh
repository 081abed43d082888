#!/bin/sh
# The `input` check (sourced by checks.sh; POSIX sh, root in the guest). Real kernel devices:
# inputtool makes a uinput keyboard, mouse, tablet (QEMU's usb-tablet) and Xbox 360-style pad (force feedback) and two uhid
# DualSenses (USB and Bluetooth descriptors) bound by hid-playstation; pf-testhost (release) serves a session on lo and logs every
# input item it receives; the kiosk (`connect --headless`, input on by default) reads the devices.
# Scripted: key, mouse, wheel, tablet and pad input (the tablet again in a second session whose host
# says its pointer is captured); the host's rumble and DualSense output (pf-testhost
# --script); the DualSense unplugged mid-press and plugged back; SIGTERM with a key and a pad
# button held. Evidence (verify.py judges): input-host.jsonl (host's input log), input-tool.jsonl
# (FF uploads/plays, DualSense output reports), input-kiosk.{stderr,stdout,rc}, input-steps.log.
# input_run
input_run() {
  n=input
  port=9790
  rm -f $TMPDIR/it.in; mkfifo $TMPDIR/it.in; exec 8<>$TMPDIR/it.in
  "$INPUTTOOL" <&8 > "$O/$n-tool.jsonl" 2> "$O/$n-tool.stderr" &
  tool=$!
  say() { echo "$1" >&8; }
  for d in kbd mouse tablet pad ds dsbt; do say "create $d"; done
  wait_for "$O/$n-tool.jsonl" '@@CREATED dsbt' 10 || echo "$n: inputtool did not create the DualSenses: $(cat "$O/$n-tool.stderr")"
  # hid-playstation binds within ~0.7 s; its touchpad and motion nodes come last
  i=0; while [ $i -lt 50 ] && ! ls /sys/bus/hid/devices/0005:054C:0CE6.*/input/input*/name 2>/dev/null | grep -q .; do sleep 0.1; i=$((i + 1)); done
  sleep 1
  # rumble v2 (pad, low 0x4000, high 0x8000, seq 1, ttl 500 ms) and DualSense output for pads 0
  # and 1, from frame 45 (1.5 s at 30 fps after the session started)
  : > "$O/$n-script.jsonl"
  for p in 00 01 02; do
    cat >> "$O/$n-script.jsonl" <<EOS
{"frame":45,"datagram":"05ca${p}000040008001f401"}
{"frame":48,"datagram":"06cd01${p}0a141e"}
{"frame":51,"datagram":"06cd02${p}04"}
{"frame":54,"datagram":"06cd03${p}01210102030405060708090a"}
{"frame":57,"datagram":"06cd07${p}01"}
EOS
  done
  timeout 120 "$TESTHOST" --bind 127.0.0.1 --port $port --fps 30 --au-bytes 2000 --max-seconds 100 \
    --input-log "$O/$n-host.jsonl" --script "$O/$n-script.jsonl" > /dev/null 2> "$O/$n-host.stderr" &
  host=$!
  wait_for "$O/$n-host.stderr" 'fingerprint' 20 || echo "$n: pf-testhost did not start: $(cat "$O/$n-host.stderr")"
  fp=$(sed -n 's/.*fingerprint \([0-9a-f]*\).*/\1/p' "$O/$n-host.stderr" | head -1)
  XDG_CONFIG_HOME=$TMPDIR/input-config timeout "$KIOSK_TIMEOUT" "$KIOSK" connect 127.0.0.1:$port --fp "$fp" --headless \
    --seconds 60 < /dev/null > "$O/$n-kiosk.stdout" 2> "$O/$n-kiosk.stderr" &
  kiosk=$!
  wait_for "$O/$n-kiosk.stdout" '"second"' 40 || echo "$n: no stats line from the kiosk: $(head -c 400 "$O/$n-kiosk.stderr")"
  i=0; while [ "$(grep -c 'pad motion sensor' "$O/$n-kiosk.stderr")" -lt 2 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
  stamp input-session
  step() { echo "$1" >> "$O/$n-steps.log"; say "mark $1"; }
  ev() { say "ev $*"; }
  sleep 0.5
  step keys;  ev kbd 1 30 1; ev kbd 0 0 0; ev kbd 1 30 0; ev kbd 0 0 0; sleep 0.4
  step mouse; ev mouse 2 0 5; ev mouse 2 1 -3; ev mouse 0 0 0; ev mouse 1 272 1; ev mouse 0 0 0
              ev mouse 1 272 0; ev mouse 0 0 0; ev mouse 2 8 1; ev mouse 2 11 120; ev mouse 0 0 0; sleep 0.4
  step tablet; ev tablet 3 0 16384; ev tablet 3 1 8192; ev tablet 0 0 0; ev tablet 1 272 1; ev tablet 0 0 0
               ev tablet 1 272 0; ev tablet 0 0 0; sleep 0.4
  step pad;   ev pad 1 304 1; ev pad 0 0 0; sleep 0.2; ev pad 3 0 32767; ev pad 0 0 0; sleep 0.2
              ev pad 1 304 0; ev pad 3 0 0; ev pad 0 0 0; sleep 0.4
  step ds;    say "ds 28 00 00"; sleep 0.3; say "ds 08 00 00"; sleep 0.4
  step dsbt;  say "dsbt 28 00 00"; sleep 0.3; say "dsbt 08 00 00"; sleep 0.4
  sleep 2     # the scripted rumble and DualSense output arrive meanwhile
  step unplug; say "ds 28 00 00"; sleep 0.3; say "destroy ds"; sleep 1
  step replug; say "create ds"
  i=0; while [ "$(grep -c 'gamepad (dualsense)' "$O/$n-kiosk.stderr")" -lt 3 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
  sleep 1.5
  step term;  ev kbd 1 42 1; ev kbd 0 0 0; ev pad 1 305 1; ev pad 0 0 0; sleep 0.5
  kill -TERM $kiosk 2>/dev/null
  wait $kiosk; echo $? > "$O/$n-kiosk.rc"
  sleep 0.5
  kill $host 2>/dev/null; wait $host
  # the escape chord: a second session; Ctrl+Alt+Shift+Q ends it (exit 0) on the last release.
  # Left Shift is still down from the SIGTERM step: held before the stream started, it is never
  # sent, but it counts for the chord. Its host says from frame 15 that its pointer is captured
  # (0xD0, flags visible | relative-mode hint): the tablet's motion then goes as deltas.
  echo '{"frame":15,"datagram":"07d001000000030000000000000000"}' > "$O/$n-chord-script.jsonl"
  timeout 60 "$TESTHOST" --bind 127.0.0.1 --port $((port + 1)) --fps 30 --au-bytes 2000 --max-seconds 50 \
    --input-log "$O/$n-chord-host.jsonl" --script "$O/$n-chord-script.jsonl" > /dev/null 2> "$O/$n-chord-host.stderr" &
  host=$!
  wait_for "$O/$n-chord-host.stderr" 'fingerprint' 20
  fp=$(sed -n 's/.*fingerprint \([0-9a-f]*\).*/\1/p' "$O/$n-chord-host.stderr" | head -1)
  XDG_CONFIG_HOME=$TMPDIR/input-config timeout "$KIOSK_TIMEOUT" "$KIOSK" connect 127.0.0.1:$((port + 1)) --fp "$fp" \
    --headless --seconds 40 < /dev/null > "$O/$n-chord-kiosk.stdout" 2> "$O/$n-chord-kiosk.stderr" &
  kiosk=$!
  wait_for "$O/$n-chord-kiosk.stdout" '"second"' 40 || echo "$n: no stats line from the chord kiosk"
  sleep 0.5
  step tablet-captured; ev tablet 3 0 19661; ev tablet 3 1 4915; ev tablet 0 0 0; sleep 0.3
  step chord
  ev kbd 1 29 1; ev kbd 0 0 0; ev kbd 1 56 1; ev kbd 0 0 0; ev kbd 1 42 1; ev kbd 0 0 0; sleep 0.2
  ev kbd 1 16 1; ev kbd 0 0 0; sleep 0.2; ev kbd 1 16 0; ev kbd 0 0 0
  ev kbd 1 42 0; ev kbd 0 0 0; ev kbd 1 56 0; ev kbd 0 0 0; sleep 0.2; ev kbd 1 29 0; ev kbd 0 0 0
  wait $kiosk; echo $? > "$O/$n-chord-kiosk.rc"
  kill $host 2>/dev/null; wait $host
  say quit; wait $tool; exec 8>&-
  echo "$n: kiosk exit $(cat "$O/$n-kiosk.rc"), $(wc -l < "$O/$n-host.jsonl") input items at the host; chord kiosk exit $(cat "$O/$n-chord-kiosk.rc")"
}

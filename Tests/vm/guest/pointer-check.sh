#!/bin/sh
# The `pointer` check (sourced by checks.sh; POSIX sh, root in the guest): the box draws the host's
# pointer on vkms's cursor plane. pf-testhost forwards its pointer (--input-caps cursor: a 16x16
# magenta CursorShape, 0xD0 with every frame, moved by the client's input) while it streams
# glass-1024x768.hevc under a 1920x1080 ServerHello mode; the kiosk (`connect`, 1024x768 on vkms)
# draws it; a uinput mouse then moves it by (+100, +50). From frame 100 (10 s) the host says its
# pointer is captured (0xD0's relative-mode hint): the drawn pointer goes and the mouse's next
# motion (+30, 0) reaches the host as relative counts. kmstool reads the planes back (the kernel's
# state, not the kiosk's word) with the pointer at the host's centre, after the move and once
# captured. Six more moves between give the latency figures: each uinput report (inputtool's @@SYN
# time) to the flip that moved the cursor plane (the kiosk's flip log), beside the host's path —
# the host's receipt, its next captured frame (pf-testhost's frame log) and that frame's flip.
# Evidence (verify_pointer.py judges): pointer-{centre,moved,captured}.planes and their plane dumps,
# pointer-host.jsonl (the host's input log), pointer-host-frames.jsonl, pointer-kiosk.flips,
# pointer-tool.jsonl, pointer-kiosk.{stderr,stdout,rc}.
# pointer_run
pointer_run() {
  n=pointer
  port=9796
  if [ -z "$VKMS" ]; then echo "$n: no vkms device (did 99-vkms.ko load?)"; return; fi
  rm -f $TMPDIR/pt.in; mkfifo $TMPDIR/pt.in; exec 8<>$TMPDIR/pt.in
  "$INPUTTOOL" <&8 > "$O/$n-tool.jsonl" 2> "$O/$n-tool.stderr" &
  tool=$!
  echo "create mouse" >&8
  wait_for "$O/$n-tool.jsonl" '@@CREATED mouse' 10 || echo "$n: inputtool did not create the mouse: $(cat "$O/$n-tool.stderr")"
  timeout 100 "$TESTHOST" --bind 127.0.0.1 --port $port --fps 10 --hevc "$FIXTURES/glass-1024x768.hevc" --max-seconds 80 \
    --input-caps cursor,snapshots,edges,scroll --pointer-captured-from 100 --input-log "$O/$n-host.jsonl" \
    --frame-log "$O/$n-host-frames.jsonl" > /dev/null 2> "$O/$n-host.stderr" &
  host=$!
  wait_for "$O/$n-host.stderr" 'fingerprint' 20 || echo "$n: pf-testhost did not start: $(cat "$O/$n-host.stderr")"
  fp=$(sed -n 's/.*fingerprint \([0-9a-f]*\).*/\1/p' "$O/$n-host.stderr" | head -1)
  XDG_CONFIG_HOME=$TMPDIR/pointer-config timeout "$KIOSK_TIMEOUT" "$KIOSK" connect 127.0.0.1:$port --fp "$fp" \
    --drm-device "$VKMS" --mode "$(mode_of vkms 1024x768)" --audio none --seconds 40 --flip-log "$O/$n-kiosk.flips" \
    < /dev/null > "$O/$n-kiosk.stdout" 2> "$O/$n-kiosk.stderr" &
  kiosk=$!
  wait_for "$O/$n-kiosk.stdout" '"second"' 40 || echo "$n: no stats line from the kiosk: $(head -c 400 "$O/$n-kiosk.stderr")"
  sleep 1.5
  "$KMSTOOL" planes "$VKMS" "$O/$n-centre" > "$O/$n-centre.planes" 2>&1
  echo "ev mouse 2 0 100" >&8; echo "ev mouse 2 1 50" >&8; echo "ev mouse 0 0 0" >&8
  sleep 1.5
  "$KMSTOOL" planes "$VKMS" "$O/$n-moved" > "$O/$n-moved.planes" 2>&1
  # The latency figures (verify_pointer.py; docs/PERFORMANCE.md): six more moves of (+8, +4),
  # 0.3 s apart, well before the host captures its pointer (frame 100).
  for i in 1 2 3 4 5 6; do
    echo "ev mouse 2 0 8" >&8; echo "ev mouse 2 1 4" >&8; echo "ev mouse 0 0 0" >&8; sleep 0.3
  done
  # frame 100 is 10 s into the host's stream; the kiosk's second 15 is well after it
  wait_for "$O/$n-kiosk.stdout" '"second":15' 40 || echo "$n: the kiosk's stats did not reach second 15"
  "$KMSTOOL" planes "$VKMS" "$O/$n-captured" > "$O/$n-captured.planes" 2>&1
  echo "ev mouse 2 0 30" >&8; echo "ev mouse 0 0 0" >&8
  sleep 1
  kill -TERM $kiosk 2>/dev/null
  wait $kiosk; echo $? > "$O/$n-kiosk.rc"
  kill $host 2>/dev/null; wait $host
  echo quit >&8; wait $tool; exec 8>&-
  echo "$n: kiosk exit $(cat "$O/$n-kiosk.rc")"
}

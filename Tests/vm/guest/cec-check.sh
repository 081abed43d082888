# Sourced by checks.sh (POSIX sh, root in the guest): the `cec` check. vivid (loaded here from the
# kernel package, so no other check sees /dev/cec*) with two HDMI outputs wires a "TV" adapter on
# its HDMI input (/dev/cec0, cec-ctl --tv) to two playback adapters: /dev/cec2 (2.0.0.0) is
# configured first as another playback device and takes Playback 1 (4), so the kiosk on /dev/cec1
# (1.0.0.0) has to take Playback 2 (8) — the address-conflict case. The kiosk runs the couch shell
# on bochs-drm at 1024x768 with a saved host (pf-testhost on lo, its fingerprint pinned), a uinput
# pad (the box's own button) and `standby-after = 15s`. The TV side is judged from a monitor of
# all traffic on the TV's adapter (cec-ctl -M), never from the kiosk's log. Scripted from the TV:
#   idle: the shell sits idle 15 s, the kiosk sends <Standby> to the TV and reports standby; the
#   pad's A wakes it (<Image View On>, <Active Source>, power on); the remote turns Sleep after off
#   in Settings. remote: select (host page), select (Connect) → streaming; the TV logs <Image View
#   On> and <Active Source>; up down left right select 5 0 play back (press+release) reach the host
#   as keys; right pressed with no release is auto-released; the menu key opens the in-stream
#   menu; down down select (Disconnect) → home. Then Connect again and the TV's <Standby> ends the
#   stream: the screen goes black, the kiosk reports standby; the TV's <Active Source> does not
#   wake it; each wake path wakes it (Set Stream Path, Routing Change, Routing Information, the
#   remote's Power On, Power Toggle, Power), each followed by One Touch Play and power status on,
#   and each standby path (broadcast and directed <Standby>, Power Off, Power Toggle) puts it back.
#   The other playback device becomes active source: <Request Active Source> gets no answer from
#   the kiosk until the TV's <Set Stream Path> picks it again. Queries from the unregistered
#   address 15 get no directed-only answer (nothing to 15 but broadcast messages). Hostile frames
#   (unknown opcodes, truncated and wrongly addressed raw frames, a flood of queries) are sent by
#   cectool; cec-compliance runs the playback groups against the kiosk, standby-resume included;
#   SIGTERM: the kiosk's <Standby> reaches the TV.
# Evidence (verify_cec.py judges): cec.stdout (--shell-trace), cec-kiosk.{stderr,rc,la},
#   cec-tv-monitor.log (cec-ctl -M -v -r on the TV), cec-host.{jsonl,stderr}, cec-steps.log,
#   cec-keys.jsonl (each remote frame and its send time), cec-tv.jsonl (every other TV frame, in
#   order), cec-wake.log (the wake cycles: name, trigger, standby frame), cec-hostile.jsonl,
#   cec-compliance.{log,rc}, cec-config.txt (the config after Settings), cec-other.log,
#   cec-{idle,standby,woken,menu,home}.ppm
ce_dir=$TMPDIR/cec
rm -rf "$ce_dir"; mkdir -p "$ce_dir/cfg/punktfunk-kiosk"
ce_started=$(cut -d' ' -f1 /proc/uptime)
ce_step() { echo "$(cut -d' ' -f1 /proc/uptime) $*" >> "$O/cec-steps.log"; }
: > "$O/cec-steps.log"; : > "$O/cec-wake.log"; : > "$O/cec-tv.jsonl"

modprobe -d "$KMODS" -S "$KVER" vivid n_devs=1 num_outputs=2 output_types=0x3 > "$O/cec-modprobe.log" 2>&1 \
  || ce_step "modprobe vivid failed: $(cat "$O/cec-modprobe.log")"
i=0; while [ ! -e /dev/cec2 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
ce_step "vivid loaded: $(ls /dev/cec* 2>/dev/null | tr '\n' ' ')"
cec-ctl -d /dev/cec0 --tv --osd-name TV > "$O/cec-tv-config.log" 2>&1 || ce_step "cec-ctl --tv failed"
cec-ctl -d /dev/cec0 --monitor-all -v --show-raw > "$O/cec-tv-monitor.log" 2>&1 &
ce_mon=$!
# the other playback device, before the kiosk: it takes Playback 1
cec-ctl -d /dev/cec2 --playback --osd-name Other > "$O/cec-other.log" 2>&1 || ce_step "cec-ctl --playback on /dev/cec2 failed"
cec-ctl -d /dev/cec2 >> "$O/cec-other.log" 2>&1

# the box's own pad (inputtool's scripted commands on fd 9)
rm -f $TMPDIR/cec-pad.in; mkfifo $TMPDIR/cec-pad.in; exec 9<>$TMPDIR/cec-pad.in
"$INPUTTOOL" <&9 > "$O/cec-pad.jsonl" 2> "$O/cec-pad.stderr" &
ce_tool=$!
echo "create pad" >&9
wait_for "$O/cec-pad.jsonl" '@@CREATED pad' 10 || ce_step "inputtool did not create the pad: $(cat "$O/cec-pad.stderr")"

ce_port=9795
"$TESTHOST" --bind 127.0.0.1 --port $ce_port --sessions 0 --max-seconds 440 --hevc "$FIXTURES/$DEMO_FIXTURE" \
  --input-log "$O/cec-host.jsonl" > /dev/null 2> "$O/cec-host.stderr" &
ce_host=$!
wait_for "$O/cec-host.stderr" 'fingerprint' 30 || ce_step "pf-testhost did not start: $(cat "$O/cec-host.stderr")"
ce_fp=$(sed -n 's/.*fingerprint \([0-9a-f]*\).*/\1/p' "$O/cec-host.stderr" | head -1)
ce_cfg=$ce_dir/cfg/punktfunk-kiosk/config
cat > "$ce_cfg" <<EOC
decoder = software
cec-device = /dev/cec1
standby-after = 15s
host.cecvm.name = CEC Host
host.cecvm.addresses = 127.0.0.1
host.cecvm.port = $ce_port
host.cecvm.fp = $ce_fp
EOC
ce_trace=$O/cec.stdout
XDG_CONFIG_HOME=$ce_dir/cfg timeout 440 "$KIOSK" --drm-device "$BOCHS" --mode "$(mode_of bochs-drm 1024x768)" \
  --mdns-port 5356 --shell-trace --seconds 420 < /dev/null > "$ce_trace" 2> "$O/cec-kiosk.stderr" &
ce_kiosk=$!

ce_lines() { ce_n=$(grep -c '"shell"' "$ce_trace" 2>/dev/null); echo "${ce_n:-0}"; }
ce_last() { grep '"shell"' "$ce_trace" 2>/dev/null | tail -1 | sed 's/.*"shell" *: *"\([^"]*\)".*/\1/'; }
# ce_wait SCREENS SECONDS [AFTER]: as shell-check.sh's sh_wait
ce_wait() {
  i=0
  while :; do
    if [ "$(ce_lines)" -gt "${3:-0}" ]; then
      case " $1 " in *" $(ce_last) "*) return 0 ;; esac
    fi
    kill -0 $ce_kiosk 2>/dev/null || { ce_step "kiosk ended while waiting for '$1'"; return 1; }
    i=$((i + 1)); [ $i -gt $(($2 * 10)) ] && { ce_step "no '$1' within $2 s (last screen '$(ce_last)')"; return 1; }
    sleep 0.1
  done
}
# ce_quiet SECONDS: until no new trace line came for SECONDS (1/10 s resolution; at most 20 s)
ce_quiet() {
  n=$(ce_lines) q=0 i=0
  while [ $q -lt $(($1 * 10)) ] && [ $i -lt 200 ]; do
    sleep 0.1; i=$((i + 1))
    m=$(ce_lines); if [ "$m" = "$n" ]; then q=$((q + 1)); else n=$m q=0; fi
  done
}
# the kiosk's logical address, as it claimed it (8 when the other device holds 4)
ce_la() {
  wait_for "$O/cec-kiosk.stderr" 'as logical address' 60 || { ce_step "the kiosk claimed no logical address"; return 1; }
  K=$(sed -n 's/.*as logical address \([0-9]*\).*/\1/p' "$O/cec-kiosk.stderr" | head -1)
  K=$(printf '%x' "$K")
  echo "$K" > "$O/cec-kiosk.la"
  ce_step "the kiosk is logical address $K"
}
K=4
# ce_tv FRAME...: raw frames from the TV's adapter (cectool: cec-ctl takes seconds to start under
# TCG), logged in order to cec-tv.jsonl
ce_tv() { "$CECTOOL" /dev/cec0 "$@" >> "$O/cec-tv.jsonl" 2>> "$O/cec-hostile.stderr"; }
# ce_remote KEY [hold]: a remote key from the TV (0) to the kiosk, its release right after unless
# "hold" (a press and its release must be closer than the 550 ms auto-release). cec-keys.jsonl
# gets each frame with its CLOCK_MONOTONIC send time (the latency's start).
ce_ui() {
  case $1 in
    select) echo 00 ;; up) echo 01 ;; down) echo 02 ;; left) echo 03 ;; right) echo 04 ;;
    root-menu) echo 09 ;; back) echo 0d ;; 0) echo 20 ;; 5) echo 25 ;; play) echo 44 ;;
  esac
}
ce_remote() {
  if [ "$2" = hold ]; then
    "$CECTOOL" /dev/cec0 "0$K:44:$(ce_ui "$1")" | sed "s/^{/{\"key\":\"$1\",/" >> "$O/cec-keys.jsonl"
  else
    "$CECTOOL" /dev/cec0 "0$K:44:$(ce_ui "$1")" "0$K:45" | sed "s/^{/{\"key\":\"$1\",/" >> "$O/cec-keys.jsonl"
  fi
}
# ce_press UI-CMD SCREENS: a remote key, then the frame it causes showing one of SCREENS
ce_press() {
  before=$(ce_lines)
  ce_step "remote $1 (expect $2)"
  ce_remote "$1"
  ce_wait "$2" 30 "$before"
}
# ce_power: the TV asks the kiosk's power status (the answer is judged from the monitor)
ce_power() { ce_tv "0$K:8f"; sleep 0.3; }
# ce_sleep FRAME...: the TV (or its remote) puts the kiosk to standby; the screen goes black
ce_sleep() {
  before=$(ce_lines)
  ce_tv "$@"
  ce_wait standby 20 "$before" || return 1
  ce_power
}
# ce_cycle NAME TRIGGER STANDBY: from standby, TRIGGER (frames, ':'-joined bytes, ','-separated)
# wakes the kiosk back to the shell page it slept on (the host's page: the stream was started
# there); STANDBY (same form, or "none") puts it to standby again
ce_cycle() {
  echo "$1 $2 $3" >> "$O/cec-wake.log"
  before=$(ce_lines)
  ce_step "wake by $1"
  ce_tv $(echo "$2" | tr ',' ' ')
  ce_wait "home host" 20 "$before" || return 1
  ce_step "woken by $1"
  [ "$1" = set-stream-path ] && { sleep 0.5; shot cec-woken vga; }
  ce_power
  [ "$3" = none ] || ce_sleep $(echo "$3" | tr ',' ' ')
}

ce_walk() {
  ce_wait "home standby" 90 || return 1
  ce_la || return 1
  # the idle shell goes to standby by itself after 15 s and asks the TV too
  ce_wait standby 40 || return 1
  ce_step "idle standby"
  sleep 0.5
  shot cec-idle vga
  ce_power
  # the box's own button wakes it
  before=$(ce_lines)
  ce_step "wake by the pad"
  echo "tap pad BTN_SOUTH" >&9
  ce_wait home 20 "$before" || return 1
  ce_step "woken by the pad"
  ce_power
  # Settings → Sleep after: Off. Sleep after is three entries above the page's last (HDR, Sound
  # channels, Audio repair follow it): 20 downs in one go (more than it takes; the last entry
  # holds the focus), 3 ups, then select cycles from the saved 15 s (the list's last option) to Off.
  ce_press down home || return 1
  ce_press right home || return 1
  ce_press select settings || return 1
  ce_step "remote down x20 up x3 (to Sleep after)"
  set --; n=0; while [ $n -lt 20 ]; do set -- "$@" "0$K:44:02" "0$K:45"; n=$((n + 1)); done
  "$CECTOOL" /dev/cec0 "$@" | sed 's/^{/{"key":"down",/' >> "$O/cec-keys.jsonl"
  ce_quiet 1
  set --; n=0; while [ $n -lt 3 ]; do set -- "$@" "0$K:44:01" "0$K:45"; n=$((n + 1)); done
  "$CECTOOL" /dev/cec0 "$@" | sed 's/^{/{"key":"up",/' >> "$O/cec-keys.jsonl"
  ce_quiet 1
  ce_press select settings || return 1
  sleep 0.5
  cp "$ce_cfg" "$O/cec-config.txt"
  ce_press back home || return 1
  ce_press up home || return 1
  sleep 1
  shot cec-home vga
  ce_press select host || return 1
  ce_press select "connecting streaming error" || return 1
  ce_wait "streaming error" 60 || return 1
  [ "$(ce_last)" = error ] && { ce_step "connecting failed"; return 1; }
  ce_step "streaming"
  sleep 2
  echo '{"mark":"stream"}' >> "$O/cec-keys.jsonl"
  # keys to the host: each press and release
  for k in up down left right select 5 0 play back; do
    ce_step "key $k"; ce_remote "$k"; sleep 0.3
  done
  # a press whose release never comes: released by the kiosk 550 ms after it
  ce_step "key right (no release)"; ce_remote right hold; sleep 1.5
  # the remote's menu key opens the in-stream menu; down, down, select = Disconnect
  ce_press root-menu menu || return 1
  shot cec-menu vga
  ce_press down menu || return 1
  ce_press down menu || return 1
  ce_press select "home host" || return 1
  ce_step "disconnected"
  # again, and the TV's standby ends it: black, the kiosk reports standby
  [ "$(ce_last)" = home ] && { ce_press select host || return 1; }
  ce_press select "connecting streaming error" || return 1
  ce_wait "streaming error" 60 || return 1
  sleep 1.5
  ce_step "standby from the TV"
  ce_sleep 0f:36 || return 1
  sleep 0.5
  shot cec-standby vga
  ce_step "standby ended the stream"
  # the TV's <Active Source> does not wake it
  ce_step "active source from the TV"
  ce_tv 0f:82:00:00
  sleep 2
  ce_power
  [ "$(ce_last)" = standby ] && ce_step "still in standby" || ce_step "WOKE on active source ($(ce_last))"
  # every wake path, each followed by a standby path
  ce_cycle set-stream-path 0f:86:10:00 0f:36 || return 1
  ce_cycle routing-change 0f:80:20:00:10:00 "0$K:36" || return 1
  ce_cycle routing-information 0f:81:10:00 "0$K:44:6c,0$K:45" || return 1
  ce_cycle power-on-function "0$K:44:6d,0$K:45" "0$K:44:6b,0$K:45" || return 1
  ce_cycle power-toggle-function "0$K:44:6b,0$K:45" 0f:36 || return 1
  ce_cycle power "0$K:44:40,0$K:45" none || return 1
  ce_step "wake paths done"
}
ce_walk || ce_step "walk failed"

# another source takes over; Request Active Source is not ours to answer until the TV picks us
ce_step "the other device becomes active source"
"$CECTOOL" /dev/cec2 4f:82:20:00 >> "$O/cec-tv.jsonl" 2>> "$O/cec-hostile.stderr"
sleep 0.5
ce_tv 0f:85; sleep 1
ce_tv 0f:86:10:00; sleep 1
ce_tv 0f:85; sleep 1
ce_step "active source switched back"

# the unregistered address asks: nothing directed-only may go back to 15
ce_step "queries from the unregistered address"
ce_tv "f$K:5b" "f$K:8d:02" "f$K:8f" "f$K:46" "f$K:fe" "f$K:ff"
sleep 1
ce_tv 0f:85   # a marker: the end of the window
sleep 0.5

# hostile frames from the TV: unknown opcodes (directed: Feature Abort each), truncated frames
# (Active Source without its address, User Control Pressed without its command), a broadcast
# query (wrong addressing), a Give OSD Name flood, and 40 unknown broadcasts
ce_step "hostile frames"
"$CECTOOL" /dev/cec0 "0$K:89:01:02" "0$K:64:00:41" "0$K:41:24" 0f:f5:01 > "$O/cec-hostile.jsonl" 2>> "$O/cec-hostile.stderr"
"$CECTOOL" /dev/cec0 0f:82:10 "0$K:44" 0f:46 "0$K:a0:00" >> "$O/cec-hostile.jsonl" 2>> "$O/cec-hostile.stderr"
"$CECTOOL" /dev/cec0 -n 40 "0$K:46" >> "$O/cec-hostile.jsonl" 2>> "$O/cec-hostile.stderr"
"$CECTOOL" /dev/cec0 -n 40 0f:f6:00 >> "$O/cec-hostile.jsonl" 2>> "$O/cec-hostile.stderr"
sleep 1
kill -0 $ce_kiosk 2>/dev/null && ce_step "kiosk alive after the hostile frames" || ce_step "kiosk DIED after the hostile frames"

# cec-compliance: every feature group a playback device implements, against the kiosk, with
# standby-resume (non-interactive; -t 6: each wait for a power change that must not come, e.g.
# "Repeated Standby message does not wake up", lasts 6 s; the kiosk's own changes take < 1 s). Skipped: fuzzing (minutes under TCG) and the groups a
# playback box does not implement (deck, tuner, record, timer, audio, ARC, CDC).
ce_step "cec-compliance"
timeout 200 cec-compliance -d /dev/cec0 -r $((0x$K)) -s -t 6 --test-core --test-system-information \
  --test-device-osd-transfer --test-osd-display --test-one-touch-play --test-routing-control \
  --test-remote-control-passthrough --test-device-menu-control --test-power-status \
  --test-vendor-specific-commands --test-standby-resume > "$O/cec-compliance.log" 2>&1
echo $? > "$O/cec-compliance.rc"
ce_step "cec-compliance exit $(cat "$O/cec-compliance.rc")"

ce_step "SIGTERM"
kill -TERM $ce_kiosk 2>/dev/null; wait $ce_kiosk; echo $? > "$O/cec.rc"
sleep 1
kill $ce_mon 2>/dev/null; wait $ce_mon 2>/dev/null
kill -TERM $ce_host 2>/dev/null; wait $ce_host 2>/dev/null
echo quit >&9; wait $ce_tool 2>/dev/null; exec 9>&-
rmmod vivid 2>/dev/null
echo "cec: $(tail -1 "$O/cec-steps.log"), kiosk exit $(cat "$O/cec.rc"), $(ce_lines) shell frames, $(grep -c . "$O/cec-host.jsonl" 2>/dev/null) host input items, $(awk "BEGIN{printf \"%.1f\", $(cut -d' ' -f1 /proc/uptime) - $ce_started}") s"
stamp cec

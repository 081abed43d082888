#!/bin/sh
# The audio check's evidence (sourced by checks.sh; POSIX sh, root in the guest). pf-testhost sends
# a real-time 5 ms Opus 997 Hz tone with a 3 kHz marker packet every AUDIO_MARKER_EVERY packets to
# a headless kiosk on 127.0.0.1, which plays it to hw:Loopback,0; pf-testhost records
# hw:Loopback,1 itself (same process clock as its marker log). A second session then sends only the
# mic uplink from hw:Loopback,1,1 (aplay feeds that cable a 440 Hz tone), which pf-testhost logs as
# "kind":"mic". Leaves in $O (audio-mic-kiosk.* for the second session):
#   audio-host.{stdout,stderr,rc}   {"audio_marker":…} per marker, {"capture":…} at the end
#   audio-kiosk.{stdout,stderr,rc}  stats lines with "audio":{…}, the start-up line on stderr
#   audio-capture.raw               S16_LE stereo 48 kHz (copied from guest tmpfs)
a_cap=$TMPDIR/audio-capture.raw
rm -f "$a_cap" "$O/audio-host.stderr"
timeout 120 "$TESTHOST" --port 9790 --bind 127.0.0.1 --fps 30 --au-bytes 1200 --max-seconds 90 --sessions 2 \
  --audio --audio-marker-every "$AUDIO_MARKER_EVERY" --audio-loss "$AUDIO_LOSS" --audio-jitter-ms "$AUDIO_JITTER_MS" \
  --capture plughw:Loopback,1 --capture-seconds "$AUDIO_CAPTURE_SECONDS" --capture-skip "$AUDIO_CAPTURE_SKIP" --capture-file "$a_cap" \
  > "$O/audio-host.stdout" 2> "$O/audio-host.stderr" &
a_host=$!
wait_for "$O/audio-host.stderr" 'listening on' 30 || echo "audio: pf-testhost did not start"
a_fp=$(sed -n 's/.*fingerprint \([0-9a-f]*\).*/\1/p' "$O/audio-host.stderr" | head -1)
timeout "$KIOSK_TIMEOUT" "$KIOSK" connect 127.0.0.1:9790 --headless --fp "$a_fp" --seconds "$AUDIO_SECONDS" \
  --audio-device hw:Loopback,0 > "$O/audio-kiosk.stdout" 2> "$O/audio-kiosk.stderr"
echo $? > "$O/audio-kiosk.rc"
# second session: the mic uplink alone (Opus encoding is heavy for the emulated CPUs), its source a
# 440 Hz tone played into the second cable (hw:Loopback,0,1 → hw:Loopback,1,1)
python3 -c "
import math, struct, wave
w = wave.open('$TMPDIR/mic-tone.wav', 'wb'); w.setnchannels(1); w.setsampwidth(2); w.setframerate(48000)
w.writeframes(b''.join(struct.pack('<h', int(6000 * math.sin(2 * math.pi * 440 * i / 48000))) for i in range(4800)) * 100)"
aplay -q -D hw:Loopback,0,1 "$TMPDIR/mic-tone.wav" 2> "$O/audio-mic-aplay.stderr" &
a_mic=$!
timeout "$KIOSK_TIMEOUT" "$KIOSK" connect 127.0.0.1:9790 --headless --fp "$a_fp" --seconds "$AUDIO_MIC_SECONDS" \
  --audio none --mic hw:Loopback,1,1 > "$O/audio-mic-kiosk.stdout" 2> "$O/audio-mic-kiosk.stderr"
echo $? > "$O/audio-mic-kiosk.rc"
kill $a_mic 2>/dev/null; wait $a_mic 2>/dev/null
wait $a_host
echo $? > "$O/audio-host.rc"
cp "$a_cap" "$O/audio-capture.raw" 2>/dev/null
echo "audio: kiosk exit $(cat "$O/audio-kiosk.rc"), host exit $(cat "$O/audio-host.rc"), $(grep -c audio_marker "$O/audio-host.stdout") markers, $(stat -c %s "$O/audio-capture.raw" 2>/dev/null) capture bytes"

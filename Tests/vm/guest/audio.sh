#!/bin/sh
# The audio check's evidence (sourced by checks.sh; POSIX sh, root in the guest). pf-testhost sends
# a real-time 5 ms Opus 997 Hz tone with a 3 kHz marker packet every AUDIO_MARKER_EVERY packets,
# a burst of heavier send jitter (AUDIO_JITTER_BURST) and a 64x64 HEVC at 10 fps (little: the
# emulated CPUs must still play the sound in time) with a video frame captured at each marker's
# due time, to a kiosk on 127.0.0.1 that plays the sound to hw:Loopback,0 and presents the video
# on vkms (its 60 Hz vblank; headless without vkms), logging each flip with the picture's pts.
# pf-testhost records hw:Loopback,1 itself (same CLOCK_MONOTONIC as its marker log and the flips'
# timestamps). A second session then sends only the mic uplink
# from hw:Loopback,1,1 (aplay feeds that cable a 440 Hz tone), which pf-testhost logs as
# "kind":"mic". Leaves in $O (audio-mic-kiosk.* for the second session):
#   audio-host.{stdout,stderr,rc}   {"audio_marker":…} and {"video_marker":…} per marker,
#                                   {"audio_jitter_burst":…}, {"capture":…} at the end
#   audio-kiosk.{stdout,stderr,rc}  stats lines with "audio":{…}, the start-up line on stderr
#   audio-kiosk.flips               the flip log on vkms (flip_ns, pts_ns per presented frame)
#   audio-capture.raw               S16_LE stereo 48 kHz (copied from guest tmpfs)
a_cap=$TMPDIR/audio-capture.raw
rm -f "$a_cap" "$O/audio-host.stderr"
timeout 120 "$TESTHOST" --port 9790 --bind 127.0.0.1 --fps 10 --hevc "$FIXTURES/$PACING_FIXTURE" --max-seconds 90 --sessions 2 \
  --audio --audio-marker-every "$AUDIO_MARKER_EVERY" --audio-loss "$AUDIO_LOSS" --audio-jitter-ms "$AUDIO_JITTER_MS" \
  --audio-jitter-burst "$AUDIO_JITTER_BURST" --video-at-audio-markers \
  --capture plughw:Loopback,1 --capture-seconds "$AUDIO_CAPTURE_SECONDS" --capture-skip "$AUDIO_CAPTURE_SKIP" --capture-file "$a_cap" \
  > "$O/audio-host.stdout" 2> "$O/audio-host.stderr" &
a_host=$!
wait_for "$O/audio-host.stderr" 'listening on' 30 || echo "audio: pf-testhost did not start"
a_fp=$(sed -n 's/.*fingerprint \([0-9a-f]*\).*/\1/p' "$O/audio-host.stderr" | head -1)
rm -f "$O/audio-kiosk.flips"
if [ -n "$VKMS" ]; then
  set -- --drm-device "$VKMS" --mode "$(mode_of vkms 1024x768)" --flip-log "$O/audio-kiosk.flips"
else
  echo "audio: no vkms device, the kiosk runs headless (no A/V skew at glass)"; set -- --headless
fi
timeout "$KIOSK_TIMEOUT" "$KIOSK" connect 127.0.0.1:9790 "$@" --fp "$a_fp" --seconds "$AUDIO_SECONDS" \
  --audio-device hw:Loopback,0 < /dev/null > "$O/audio-kiosk.stdout" 2> "$O/audio-kiosk.stderr"
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
# third: one short 5.1 session (issue 34) — the kiosk asks 6 channels (--audio-channels 6), a
# second pf-testhost grants what the hello asks and sends a different tone per channel; the kiosk
# plays 6 channels to hw:Loopback,0 and arecord captures 6 channels from the far end.
#   audio-51-host.{stdout,stderr,rc}   {"client_hello":…}, {"audio_session":{"channels":6,…}}
#   audio-51-kiosk.{stdout,stderr,rc}  the start-up line names the device's channel map
#   audio-51-capture.raw               S16_LE, 6 channels, 48 kHz
rm -f "$O/audio-51-host.stderr" "$TMPDIR/audio-51.raw"
timeout 60 "$TESTHOST" --port 9791 --bind 127.0.0.1 --fps 10 --hevc "$FIXTURES/$PACING_FIXTURE" --max-seconds 45 \
  --audio --audio-channels auto > "$O/audio-51-host.stdout" 2> "$O/audio-51-host.stderr" &
a51_host=$!
wait_for "$O/audio-51-host.stderr" 'listening on' 30 || echo "audio 5.1: pf-testhost did not start"
a51_fp=$(sed -n 's/.*fingerprint \([0-9a-f]*\).*/\1/p' "$O/audio-51-host.stderr" | head -1)
timeout "$KIOSK_TIMEOUT" "$KIOSK" connect 127.0.0.1:9791 --headless --fp "$a51_fp" --seconds "$AUDIO_51_SECONDS" \
  --audio-device hw:Loopback,0 --audio-channels 6 < /dev/null > "$O/audio-51-kiosk.stdout" 2> "$O/audio-51-kiosk.stderr" &
a51_kiosk=$!
# record once the sound runs (the kiosk's start-up line), after it settled
wait_for "$O/audio-51-kiosk.stderr" 'audio on ' 40 && sleep "$AUDIO_51_SKIP"
timeout 20 arecord -q -D plughw:Loopback,1 -c 6 -f S16_LE -r 48000 -t raw -d "$AUDIO_51_CAPTURE_SECONDS" "$TMPDIR/audio-51.raw" \
  2> "$O/audio-51-arecord.stderr"
wait $a51_kiosk
echo $? > "$O/audio-51-kiosk.rc"
wait $a51_host
echo $? > "$O/audio-51-host.rc"
cp "$TMPDIR/audio-51.raw" "$O/audio-51-capture.raw" 2>/dev/null
echo "audio: kiosk exit $(cat "$O/audio-kiosk.rc"), host exit $(cat "$O/audio-host.rc"), 5.1 session exit $(cat "$O/audio-51-kiosk.rc") ($(stat -c %s "$O/audio-51-capture.raw" 2>/dev/null) capture bytes), $(grep -c audio_marker "$O/audio-host.stdout") markers, $(grep -c video_marker "$O/audio-host.stdout") marked frames, $(wc -l < "$O/audio-kiosk.flips" 2>/dev/null) flips, $(stat -c %s "$O/audio-capture.raw" 2>/dev/null) capture bytes"

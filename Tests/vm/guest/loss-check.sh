#!/bin/sh
# The loss check's evidence (sourced by checks.sh; POSIX sh, root in the guest). pf-testhost streams
# its live anchor stream (LOSS_SIZE synthetic HEVC, P pictures padded with LOSS_PADDING filler bytes,
# RFI asks answered by honest anchors) and writes every access unit it sent to a file; the kiosk
# dials it through pf-relay, which drops datagrams in seeded bursts (LOSS_RELAY_ARGS, from 2 s after
# the first datagram), decodes in software, presents on bochs-drm at a small mode 1:1 (--scaling
# native: no CPU scale to try, ~175 ms a picture under TCG) and logs every decoded picture
# (wire frame, framemd5, whether the re-anchor gate showed it). verify_loss.py holds every shown
# picture against ffmpeg's decode of the stream the host sent. Leaves in $O:
#   loss-host.{stdout,stderr,rc}    {"sent":…} per AU, {"ask":…,"answer":…} per ask, {"host_summary":…}
#   loss-sent.hevc                  the AUs the host sent, in send order (copied from guest tmpfs)
#   loss-relay.{stdout,stderr,rc}   the relay's counters (one JSON line at exit)
#   loss-drops.jsonl                each dropped media datagram
#   loss-kiosk.{stdout,stderr,rc}   stats lines ("picture":{…,"held_total_ms":…}), the summary line
#   loss-pictures.jsonl             the picture log
#   loss.times                      guest uptime at start and end of the check
lo=$TMPDIR/loss
rm -rf "$lo" && mkdir -p "$lo/home"
lo_t0=$(cut -d' ' -f1 /proc/uptime)
timeout $((LOSS_SECONDS + 90)) "$TESTHOST" --port 0 --bind 127.0.0.1 --identity-dir "$lo/host" --anchor-stream \
  --anchor-size "$LOSS_SIZE" --p-frame-padding "$LOSS_PADDING" --sent-stream "$lo/sent.hevc" \
  --max-seconds $((LOSS_SECONDS + 60)) > "$O/loss-host.stdout" 2> "$O/loss-host.stderr" &
lo_host=$!
wait_for "$O/loss-host.stderr" 'fingerprint' 60 || echo "loss: pf-testhost did not start: $(cat "$O/loss-host.stderr")"
lo_hport=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$O/loss-host.stderr" | head -1)
lo_fp=$(sed -n 's/.*fingerprint \([0-9a-f]*\).*/\1/p' "$O/loss-host.stderr" | head -1)
# shellcheck disable=SC2086  # LOSS_RELAY_ARGS is a word list
timeout $((LOSS_SECONDS + 90)) "$RELAY" --listen 127.0.0.1:0 --to "127.0.0.1:$lo_hport" $LOSS_RELAY_ARGS \
  --seconds $((LOSS_SECONDS + 60)) --drop-log "$lo/drops.jsonl" > "$O/loss-relay.stdout" 2> "$O/loss-relay.stderr" &
lo_relay=$!
wait_for "$O/loss-relay.stderr" 'listening on' 60 || echo "loss: pf-relay did not start: $(cat "$O/loss-relay.stderr")"
lo_rport=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$O/loss-relay.stderr" | head -1)
lo_mode=$(mode_of bochs-drm "$LOSS_MODE")
[ -n "$lo_mode" ] || lo_mode=$(mode_of bochs-drm 1024x768)
HOME=$lo/home timeout "$KIOSK_TIMEOUT" "$KIOSK" connect "127.0.0.1:$lo_rport" --fp "$lo_fp" --seconds "$LOSS_SECONDS" \
  --picture-log "$lo/pictures.jsonl" --decoder software --audio none --drm-device "$BOCHS" --mode "$lo_mode" --scaling native \
  < /dev/null > "$O/loss-kiosk.stdout" 2> "$O/loss-kiosk.stderr"
echo $? > "$O/loss-kiosk.rc"
# the host ends its session when the kiosk leaves (then writes its summary); the relay on SIGTERM
kill -TERM $lo_relay 2>/dev/null; wait $lo_relay; echo $? > "$O/loss-relay.rc"
timeout 20 sh -c "while kill -0 $lo_host 2>/dev/null; do sleep 0.2; done" || kill -TERM $lo_host 2>/dev/null
wait $lo_host; echo $? > "$O/loss-host.rc"
cp "$lo/sent.hevc" "$O/loss-sent.hevc" 2>/dev/null
cp "$lo/pictures.jsonl" "$O/loss-pictures.jsonl" 2>/dev/null
cp "$lo/drops.jsonl" "$O/loss-drops.jsonl" 2>/dev/null
rm -rf "$lo"
echo "{\"t0\":$lo_t0,\"t1\":$(cut -d' ' -f1 /proc/uptime),\"mode\":\"$lo_mode\"}" > "$O/loss.times"
echo "loss: kiosk exit $(cat "$O/loss-kiosk.rc"), relay exit $(cat "$O/loss-relay.rc"), host exit $(cat "$O/loss-host.rc"), $(grep -c '"sent"' "$O/loss-host.stdout") AUs sent, $(wc -l < "$O/loss-pictures.jsonl" 2>/dev/null) pictures logged, $(grep -c '"answer"' "$O/loss-host.stdout") asks answered; $(head -c 300 "$O/loss-kiosk.stderr" | tr '\n' ' ')"

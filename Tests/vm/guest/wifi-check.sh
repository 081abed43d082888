#!/bin/sh
# The `wifi` check (sourced by checks.sh; POSIX sh, root in the guest): a session over Wi-Fi.
# mac80211_hwsim (from the kernel package, like vivid) makes two radios: hostapd runs a WPA2 access
# point on phy0/wlan0 in the root namespace (10.77.0.1, pf-testhost behind it); phy1 moves into a
# network namespace of its own (unshare -n; a sleeping process holds it), where wpa_supplicant
# associates wlan1 (10.77.0.2) and the kiosk runs `connect` headless through nsenter, so its route
# to the host is the radio. The station's power save is set on first (iw), so the kiosk has
# something to turn off:
#   a. as root: the stream ends by itself — power save off while it streams, on again after; while
#      it streams (at 30 fps) a reconnect (wpa_cli disconnect, reconnect), three 6-channel scans
#      ≈ 5 s apart (iw scan trigger: the radio leaves the channel), then the station's downlink
#      held 0.5 s at the AP (hwsim's debugfs `ps` knob: no nl80211 event) — the stall ledger
#      must name the scans' stalls and their period, blame the held one on nothing and name the
#      reconnect's a roam; `iw event -t` (its own nl80211 socket) times every event for the judge;
#      then `check --json` on the station with a's profile: its Wi-Fi section's link and a's stalls;
#   b. as root, SIGTERM mid-stream — on again after;
#   c. as root without CAP_NET_ADMIN (setpriv drops it from the bounding set) — power save stays
#      on, the box says so, the stream runs.
# iw is the oracle: `iw dev wlan1 get power_save` during and after each run, and `iw dev wlan1
# station dump` beside the kiosk's own reading (`probe`'s "wifi", the stream's {"wifi":…} line).
# Evidence (verify_wifi.py judges): wifi-steps.log, wifi-a.stdout (stats and stall lines),
# wifi-check.json with wifi-iw-station-check.txt,
# wifi-iw-events.txt, wifi-marks.log (wall-clock times of the scans asked and the hold), wifi-{a,b,c}.{stderr,rc,ps-during,ps-after},
# wifi-host-{a,b,c}.stdout (pf-testhost's client_hello line), wifi-probe.{json,rc}, wifi-iw-station.txt,
# wifi-iw-link.txt, wifi-hostapd.log, wifi-wpa.log.
wifi_run() {
  w=$TMPDIR/wifi
  rm -rf "$w"; mkdir -p "$w"
  step() { echo "$(cut -d' ' -f1 /proc/uptime) $*" >> "$O/wifi-steps.log"; }
  : > "$O/wifi-steps.log"
  for m in ccm ctr; do modprobe -d "$KMODS" -S "$KVER" "$m" >> "$w/modprobe.log" 2>&1; done
  if ! modprobe -d "$KMODS" -S "$KVER" mac80211_hwsim radios=2 >> "$w/modprobe.log" 2>&1; then
    step "modprobe mac80211_hwsim failed: $(cat "$w/modprobe.log")"; return
  fi
  i=0; while [ ! -e /sys/class/net/wlan1 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
  step "radios: $(ls /sys/class/ieee80211 | tr '\n' ' ')"
  cat > "$w/hostapd.conf" <<EOF
interface=wlan0
driver=nl80211
ssid=pf-wifi
hw_mode=g
channel=6
wpa=2
wpa_passphrase=punktfunk-wifi
wpa_key_mgmt=WPA-PSK
rsn_pairwise=CCMP
EOF
  hostapd -B -P "$w/hostapd.pid" -f "$O/wifi-hostapd.log" "$w/hostapd.conf" > /dev/null 2>&1 || step "hostapd did not start"
  ip addr add 10.77.0.1/24 dev wlan0 2>> "$O/wifi-steps.log"
  ip link set wlan0 up 2>> "$O/wifi-steps.log"
  # the station's namespace, held by a sleeping process
  unshare -n sh -c "echo \$\$ > $w/sta.pid; exec sleep 600" &
  i=0; while [ ! -s "$w/sta.pid" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
  sta=$(cat "$w/sta.pid")
  iw phy phy1 set netns "$sta" 2>> "$O/wifi-steps.log" || step "iw could not move phy1 into the station's namespace"
  in_sta() { nsenter -t "$sta" -n "$@"; }
  cat > "$w/wpa.conf" <<EOF
ctrl_interface=$w/ctrl
network={
  ssid="pf-wifi"
  psk="punktfunk-wifi"
  key_mgmt=WPA-PSK
}
EOF
  in_sta ip link set lo up
  in_sta wpa_supplicant -B -i wlan1 -c "$w/wpa.conf" -f "$O/wifi-wpa.log" -P "$w/wpa.pid" > /dev/null 2>&1 || step "wpa_supplicant did not start"
  in_sta ip addr add 10.77.0.2/24 dev wlan1
  i=0; until in_sta iw dev wlan1 link 2>/dev/null | grep -q '^Connected'; do
    i=$((i + 1)); [ $i -gt 200 ] && { step "wlan1 did not associate within 20 s"; break; }; sleep 0.1
  done
  in_sta iw dev wlan1 link > "$O/wifi-iw-link.txt" 2>&1
  step "associated: $(head -1 "$O/wifi-iw-link.txt")"

  # The AP radio's rx_rssi (hwsim's debugfs knob, two's complement of -67 dBm) moves the station's
  # signal away from hwsim's default -30 dBm, so the reading compared with iw's is a moving one.
  mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug 2>> "$O/wifi-steps.log"
  if echo 18446744073709551549 > /sys/kernel/debug/ieee80211/phy0/hwsim/rx_rssi 2>> "$O/wifi-steps.log"; then
    step "rx_rssi set to -67"; sleep 1.5
  fi
  # probe in the station's namespace, beside iw's station dump of the same moment
  in_sta "$KIOSK" probe > "$O/wifi-probe.json" 2> "$w/probe.stderr"; echo $? > "$O/wifi-probe.rc"
  in_sta iw dev wlan1 station dump > "$O/wifi-iw-station.txt" 2>&1

  # iw's own record of the station's nl80211 events, wall-clock stamped like the kiosk's stall lines
  in_sta iw event -t > "$O/wifi-iw-events.txt" 2>&1 &
  iwev=$!
  : > "$O/wifi-marks.log"
  mark() { echo "$(date +%s.%N) $*" >> "$O/wifi-marks.log"; }
  port=9797
  for run in a b c; do
    in_sta iw dev wlan1 set power_save on 2>> "$O/wifi-steps.log"
    step "$run: power save before: $(in_sta iw dev wlan1 get power_save 2>&1)"
    # a at 30 fps: a frame every 33 ms, so an off-channel dwell of 83 ms or more delays one by 50 ms
    timeout 60 "$TESTHOST" --bind 10.77.0.1 --port $port --fps $([ $run = a ] && echo 30 || echo 10) --hevc "$FIXTURES/$SMALL_FIXTURE" --max-seconds 45 \
      > "$O/wifi-host-$run.stdout" 2> "$O/wifi-host-$run.stderr" &
    host=$!
    wait_for "$O/wifi-host-$run.stderr" 'fingerprint' 20 || step "$run: pf-testhost did not start"
    fp=$(sed -n 's/.*fingerprint \([0-9a-f]*\).*/\1/p' "$O/wifi-host-$run.stderr" | head -1)
    as=""
    [ $run = c ] && as="setpriv --bounding-set=-net_admin --inh-caps=-net_admin"
    env XDG_CONFIG_HOME="$w/cfg-$run" HOME="$w" nsenter -t "$sta" -n $as timeout 60 "$KIOSK" connect 10.77.0.1:$port --fp "$fp" --headless \
      --audio none --seconds $([ $run = a ] && echo 26 || echo 3) < /dev/null > "$O/wifi-$run.stdout" 2> "$O/wifi-$run.stderr" &
    kiosk=$!
    wait_for "$O/wifi-$run.stdout" '"second"' 30 || step "$run: no stats line from the kiosk"
    in_sta iw dev wlan1 get power_save > "$O/wifi-$run.ps-during" 2>&1
    if [ $run = a ]; then
      # a reconnect (nl80211 DISCONNECT, then CONNECT; through wpa_supplicant, which owns the
      # connection: iw may not end it; -s: wpa_cli's own socket beside the control socket, its
      # default /tmp being read-only here): the ledger's roam
      mark "disconnect"
      in_sta wpa_cli -p "$w/ctrl" -s "$w" -i wlan1 disconnect >> "$O/wifi-steps.log" 2>&1
      in_sta wpa_cli -p "$w/ctrl" -s "$w" -i wlan1 reconnect >> "$O/wifi-steps.log" 2>&1
      i=0; until in_sta iw dev wlan1 link 2>/dev/null | grep -q '^Connected'; do
        i=$((i + 1)); [ $i -gt 150 ] && { step "a: wlan1 did not reconnect within 15 s"; break; }; sleep 0.1
      done
      mark "reconnected"
      sleep 1.5
      for k in 1 2 3; do
        mark "scan $k"
        in_sta iw dev wlan1 scan trigger freq 2412 2422 2432 2442 2452 2462 > /dev/null 2>> "$O/wifi-steps.log" || step "a: scan $k not triggered"
        [ $k -lt 3 ] && sleep 4.7
      done
      # 3 s after the last scan's trigger (it lasts about 1 s): over 1 s after it ends
      sleep 3
      mark "hold begins"
      echo 1 > /sys/kernel/debug/ieee80211/phy1/hwsim/ps 2>> "$O/wifi-steps.log"
      sleep 0.5
      echo 0 > /sys/kernel/debug/ieee80211/phy1/hwsim/ps 2>> "$O/wifi-steps.log"
      mark "hold ends"
    fi
    if [ $run = b ]; then
      kill -TERM $kiosk 2>/dev/null
      step "b: SIGTERM sent"
    fi
    wait $kiosk; echo $? > "$O/wifi-$run.rc"
    in_sta iw dev wlan1 get power_save > "$O/wifi-$run.ps-after" 2>&1
    kill $host 2>/dev/null; wait $host
    step "$run: kiosk exit $(cat "$O/wifi-$run.rc"); during: $(cat "$O/wifi-$run.ps-during"); after: $(cat "$O/wifi-$run.ps-after")"
    if [ $run = a ]; then
      # check on the station, with a's profile (its stalls.json), beside iw's station dump
      in_sta iw dev wlan1 station dump > "$O/wifi-iw-station-check.txt" 2>&1
      env XDG_CONFIG_HOME="$w/cfg-a" HOME="$w" nsenter -t "$sta" -n "$KIOSK" check --json --seconds 1 \
        > "$O/wifi-check.json" 2> "$w/check.stderr" < /dev/null
    fi
    port=$((port + 1))
  done

  kill $iwev 2>/dev/null
  kill "$(cat "$w/wpa.pid" 2>/dev/null)" "$(cat "$w/hostapd.pid" 2>/dev/null)" "$sta" 2>/dev/null
  # the radios go, so no later check sees a wlan0 (rmmod waits for hostapd to let go)
  i=0; until rmmod mac80211_hwsim 2>/dev/null || [ $i -gt 30 ]; do sleep 0.1; i=$((i + 1)); done
  [ -e /sys/class/net/wlan0 ] && step "mac80211_hwsim is still loaded: $(rmmod mac80211_hwsim 2>&1)"
  echo "wifi: $(tail -1 "$O/wifi-steps.log")"
}

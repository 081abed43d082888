# The hotplug check (sourced by checks.sh): a display that changes under a presenting kiosk.
# vkms carries Tests/vm/vkms-hotplug.patch: its preferred mode and connection state are module
# parameters and writing "hotplug" sends the card's hot-plug uevent (ACTION=change, HOTPLUG=1).
# The kiosk presents a looping 1024x768 file at vkms's preferred mode (no --mode); the display
# goes away, then comes back preferring 1280x720. Evidence: hotplug.{rc,stderr,flips,steps} and
# hotplug-{before,off,after}.state (kmstool state: the CRTC's mode), hotplug-after.planes.
hp_lines() { wc -l < "$1" 2>/dev/null || echo 0; }
hp_wait_lines() { timeout 60 sh -c "while [ \$(wc -l < '$1' 2>/dev/null || echo 0) -lt $2 ] && kill -0 $3 2>/dev/null; do sleep 0.2; done"; }
hotplug_run() {
  n=hotplug p=/sys/module/vkms/parameters
  if [ ! -w $p/hotplug ]; then echo "$n: vkms has no hotplug parameter (Tests/vm/vkms-hotplug.patch)"; return; fi
  echo 1024 > $p/preferred_width; echo 768 > $p/preferred_height; echo 1 > $p/connected; echo 1 > $p/hotplug
  "$KIOSK" present "$FIXTURES/$HOTPLUG_FIXTURE" --drm-device "$VKMS" --loop 1000 --seconds 40 \
    --flip-log "$O/$n.flips" < /dev/null > /dev/null 2> "$O/$n.stderr" &
  job=$!
  hp_wait_lines "$O/$n.flips" 30 $job
  "$KMSTOOL" state "$VKMS" > "$O/$n-before.state"
  f0=$(hp_lines "$O/$n.flips")
  t_off=$(cut -d' ' -f1 /proc/uptime)
  echo 0 > $p/connected; echo 1 > $p/hotplug
  wait_for "$O/$n.stderr" 'went away' 10
  sleep 1
  "$KMSTOOL" state "$VKMS" > "$O/$n-off.state"
  f1=$(hp_lines "$O/$n.flips")
  sleep 1
  f2=$(hp_lines "$O/$n.flips")
  echo 1280 > $p/preferred_width; echo 720 > $p/preferred_height; echo 1 > $p/connected
  t_on=$(cut -d' ' -f1 /proc/uptime)
  echo 1 > $p/hotplug
  wait_for "$O/$n.stderr" 'changed to 1280' 10
  t_said=$(cut -d' ' -f1 /proc/uptime)
  f3=$(hp_lines "$O/$n.flips")
  hp_wait_lines "$O/$n.flips" $((f3 + 60)) $job
  "$KMSTOOL" state "$VKMS" > "$O/$n-after.state"
  "$KMSTOOL" planes "$VKMS" "$O/$n-after" > "$O/$n-after.planes" 2>&1
  f4=$(hp_lines "$O/$n.flips")
  alive=0; kill -0 $job 2>/dev/null && alive=1
  kill -TERM $job 2>/dev/null
  wait $job
  echo $? > "$O/$n.rc"
  echo "{\"flips_before_off\":$f0,\"flips_off_1s\":$f1,\"flips_off_2s\":$f2,\"flips_at_change\":$f3,\"flips_after\":$f4,\"alive_after\":$alive,\"t_off\":$t_off,\"t_on\":$t_on,\"t_said\":$t_said}" > "$O/$n.steps"
  echo "$n: exit $(cat "$O/$n.rc"), flips $f0/$f1/$f2/$f3/$f4, $(tr '\n' ' ' < "$O/$n.stderr" | head -c 400)"
  echo 1024 > $p/preferred_width; echo 768 > $p/preferred_height; echo 1 > $p/hotplug
}

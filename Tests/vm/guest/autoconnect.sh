# Sourced by checks.sh (POSIX sh, in the guest): the `autoconnect` check. Boot-to-stream end to
# end: pf-testhost announces itself over mDNS on the guest's loopback (multicast on, 224.0.0.0/4
# routed there) and streams the demo fixture; the kiosk with no subcommand and a config holding
# `autoconnect = vm-host` and the host's pinned fingerprint (nothing about its address or port)
# finds it by discovery and streams it on bochs-drm. Evidence:
#   autoconnect-bochs-drm.{rc,stderr,stdout,flips} + ...-frame-<n>.ppm, autoconnect-config.txt,
#   autoconnect-host.stderr
ac=$TMPDIR/autoconnect
rm -rf "$ac"; mkdir -p "$ac/cfg/punktfunk-kiosk" "$ac/host"
ip link set lo up; ip link set lo multicast on; ip route add 224.0.0.0/4 dev lo 2>/dev/null
# The host's identity first, so the config can pin its fingerprint.
"$TESTHOST" --port 0 --bind 127.0.0.1 --identity-dir "$ac/host" --max-seconds 30 2> "$ac/identity.stderr" > /dev/null &
idhost=$!
wait_for "$ac/identity.stderr" fingerprint 60
kill -KILL $idhost 2>/dev/null; wait $idhost 2>/dev/null
fp=$(sed -n 's/.*fingerprint \([0-9a-f]*\).*/\1/p' "$ac/identity.stderr" | head -1)
printf 'autoconnect = vm-host\ndecoder = software\nhost.vm-host.fp = %s\n' "$fp" > "$ac/cfg/punktfunk-kiosk/config"
"$TESTHOST" --port 0 --bind 127.0.0.1 --identity-dir "$ac/host" --sessions 0 --max-seconds 300 \
  --hevc "$FIXTURES/$DEMO_FIXTURE" --mdns "VM Host" --mdns-id vm-host > /dev/null 2> "$O/autoconnect-host.stderr" &
host=$!
export XDG_CONFIG_HOME="$ac/cfg"
kiosk_run autoconnect-bochs-drm vga --seconds "$DEMO_SECONDS" --drm-device "$BOCHS" \
  --mode "$(mode_of bochs-drm 1024x768)" --screendump-at "$DEMO_FRAMES" --flip-log "$O/autoconnect-bochs-drm.flips"
unset XDG_CONFIG_HOME
kill -TERM $host 2>/dev/null; wait $host 2>/dev/null
cp "$ac/cfg/punktfunk-kiosk/config" "$O/autoconnect-config.txt"
ps -eo pid,stat,pcpu,args > "$O/autoconnect-ps.txt" 2>&1
stamp autoconnect

"""The `wifi` check's judgement (imported by verify.py): a session over mac80211_hwsim, judged by
iw (the kernel's nl80211 answers as the iw tool prints them) and by pf-testhost's decoded
ClientHello, never by the kiosk's word alone. Evidence from Tests/vm/guest/wifi-check.sh.

- probe (in the station's namespace) reads wlan1's link: its signal equals iw's station dump's
  within 1 dB, and it names power save;
- each run's ClientHello carries tag 22 kind 2 (Wi-Fi, control-plane.md §3.2);
- a (the stream ends by itself) and b (SIGTERM mid-stream): power save off while streaming, on
  again after (iw), the kiosk saying both;
- c (no CAP_NET_ADMIN): power save stays on, the kiosk says it needs CAP_NET_ADMIN, and the stream
  runs to its end (exit 0)."""
import json
import os
import re


def _read(out, name):
    try:
        return open(os.path.join(out, name)).read()
    except OSError:
        return ""


def _power_save(text):
    m = re.search(r"Power save:\s*(on|off)", text)
    return m.group(1) if m else None


def _hello_link(out, run):
    for line in _read(out, f"wifi-host-{run}.stdout").splitlines():
        if line.startswith('{"client_hello"'):
            try:
                return json.loads(line)["client_hello"].get("link")
            except ValueError:
                return None
    return None


def check_wifi(out, report):
    steps = _read(out, "wifi-steps.log").strip().splitlines()
    if not any("associated: Connected" in s for s in steps):
        report(False, "wifi: a session over Wi-Fi (mac80211_hwsim)", "no association: " + " | ".join(steps[-4:])[:600])
        return
    problems, figures = [], []

    # probe against iw's station dump
    iw_signal = re.search(r"^\s*signal:\s*(-?\d+)", _read(out, "wifi-iw-station.txt"), re.M)
    try:
        wifi = json.loads(_read(out, "wifi-probe.json")).get("wifi", [])
    except ValueError:
        wifi = []
    link = next((w for w in wifi if w.get("interface") == "wlan1"), None)
    if link is None or iw_signal is None:
        problems.append(f"probe: wlan1 {link}; iw's station dump signal {iw_signal and iw_signal.group(1)}")
    else:
        ours, theirs = link.get("signal_dbm"), int(iw_signal.group(1))
        if ours is None or abs(ours - theirs) > 1:
            problems.append(f"probe's signal {ours} dBm, iw's {theirs} dBm")
        # (6.1's GET_INTERFACE names no SSID for a station; a newer kernel's must be hostapd's)
        if link.get("power_save") is None or link.get("frequency_mhz") != 2437 or link.get("channel") != 6 \
                or link.get("ssid") not in (None, "pf-wifi"):
            problems.append(f"probe's link {link} (want 2437 MHz, channel 6, ssid pf-wifi or none, power save named)")
        figures.append(f"probe: signal {ours} dBm (iw {theirs}), {link.get('frequency_mhz')} MHz channel {link.get('channel')}, "
                       f"tx {link.get('tx_kbps')} kbit/s, power save {link.get('power_save')}")

    for run in ("a", "b", "c"):
        stderr = _read(out, f"wifi-{run}.stderr")
        rc = _read(out, f"wifi-{run}.rc").strip()
        during, after = _power_save(_read(out, f"wifi-{run}.ps-during")), _power_save(_read(out, f"wifi-{run}.ps-after"))
        hello = _hello_link(out, run)
        if not hello or hello.get("kind") != 2:
            problems.append(f"{run}: ClientHello link {hello} (want kind 2, Wi-Fi)")
        if "link: wlan1 is Wi-Fi" not in stderr:
            problems.append(f"{run}: no 'link: wlan1 is Wi-Fi' line: {stderr[-300:]!r}")
        if run in ("a", "b"):
            if during != "off" or after != "on":
                problems.append(f"{run}: power save during {during}, after {after} (want off, then on)")
            if "off while streaming (it was on)" not in stderr or "power save on wlan1 back on" not in stderr:
                problems.append(f"{run}: the kiosk did not say it turned power save off and back on: {stderr[-400:]!r}")
        else:
            if during != "on" or after != "on":
                problems.append(f"c: power save during {during}, after {after} (want on throughout)")
            if "stays on" not in stderr or "CAP_NET_ADMIN" not in stderr:
                problems.append(f"c: no sentence naming CAP_NET_ADMIN: {stderr[-400:]!r}")
            if rc != "0":
                problems.append(f"c: kiosk exit {rc}: the stream should run on without the privilege")
        figures.append(f"{run}: exit {rc}, power save during {during} after {after}, hello link {hello}")
    report(not problems, "wifi: a session over Wi-Fi reads the link and holds power save off",
           "; ".join(problems) if problems else "; ".join(figures))

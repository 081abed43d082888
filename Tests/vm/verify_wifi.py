"""The `wifi` check's judgement (imported by verify.py): a session over mac80211_hwsim, judged by
iw (the kernel's nl80211 answers as the iw tool prints them) and by pf-testhost's decoded
ClientHello, never by the kiosk's word alone. Evidence from Tests/vm/guest/wifi-check.sh.

- probe (in the station's namespace) reads wlan1's link: its signal equals iw's station dump's
  within 1 dB, and it names power save;
- each run's ClientHello carries tag 22 kind 2 (Wi-Fi, control-plane.md §3.2);
- a (the stream ends by itself) and b (SIGTERM mid-stream): power save off while streaming, on
  again after (iw), the kiosk saying both;
- c (no CAP_NET_ADMIN): power save stays on, the kiosk says it needs CAP_NET_ADMIN, and the stream
  runs to its end (exit 0).
- a's stall ledger against `iw event -t` (wall-clock times from its own nl80211 socket): a stall
  the kiosk logged within ±1 s of events iw saw (a scan from started to finished/aborted; connected,
  disconnected, roamed: a roam; channel switches; beacon loss) is named one of them, and a stall
  with no iw event within ±1 s is blamed on none (events within 0.1 s of the ±1 s edge are not
  judged: two programs' clocks read apart). The reconnect (wpa_cli disconnect, reconnect: the link
  down from iw's disconnected to its connected) has a stall named a roam over at least half of it. At least two of the three scans have a stall named a scan; the stall of the 0.5 s held
  downlink (hwsim's `ps`, no nl80211 event) is logged and named none; the period is said with its
  spacing within ±2 s of the scans' and named a scan's; the stats lines carry the link (signal
  within 1 dB of probe's, which iw judged) and the ledger.
- check --json on the station after a: its Wi-Fi section's wlan1 (2.4 GHz channel 6, signal within
  1 dB of iw's station dump just before) and the last stream's stalls from a's profile (degraded,
  the scans' period named)."""
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


NEAR = 1.0      # the issue's ±1 s
EDGE = 0.1      # not judged this close to NEAR


def _iw_events(out):
    """iw event -t lines → (scan intervals [(start, end)], other instants [(t, words)]), wall-clock s."""
    scans, others, open_scan = [], [], None
    for line in _read(out, "wifi-iw-events.txt").splitlines():
        m = re.match(r"\s*(\d+\.\d+):\s*(\S+) \(phy #\d+\):\s*(.*)", line)
        if not m or m.group(2) != "wlan1":
            continue
        t, what = float(m.group(1)), m.group(3)
        if what.startswith("scan started"):
            open_scan = t
        elif what.startswith("scan finished") or what.startswith("scan aborted"):
            scans.append((open_scan if open_scan is not None else t, t))
            open_scan = None
        elif re.match(r"(connected|disconnected|roamed|ch_switch|.*beacon loss)", what):
            others.append((t, what))
    if open_scan is not None:
        scans.append((open_scan, open_scan + 15))
    return scans, others


def _distance(a0, a1, b0, b1):
    return max(0.0, b0 - a1, a0 - b1)


def _judge_stalls(out, problems, figures):
    stdout = _read(out, "wifi-a.stdout").splitlines()
    stalls, stats = [], []
    for line in stdout:
        try:
            j = json.loads(line)
        except ValueError:
            continue
        if "stall" in j:
            stalls.append(j["stall"])
        elif "second" in j:
            stats.append(j)
    scans, others = _iw_events(out)
    marks = {}
    for line in _read(out, "wifi-marks.log").splitlines():
        t, _, what = line.partition(" ")
        marks[what.strip()] = float(t)
    if len(scans) < 3:
        problems.append(f"a: iw saw {len(scans)} scans of wlan1 (3 asked, and wpa_supplicant's): {_read(out, 'wifi-iw-events.txt')[-400:]!r}")
    def kind(words):
        return "roam" if re.match(r"(connected|disconnected|roamed)", words) else \
            "channel_switch" if words.startswith("ch_switch") else "beacon_loss"

    named_scans = set()
    for s in stalls:
        t0 = s["start_unix_ms"] / 1000
        t1 = t0 + s["ms"] / 1000
        near = [(_distance(t0, t1, a, b), "scan", i) for i, (a, b) in enumerate(scans)] + \
               [(_distance(t0, t1, t, t), kind(w), None) for t, w in others]
        inside = {k for d, k, _ in near if d < NEAR - EDGE}
        around = {k for d, k, _ in near if d < NEAR + EDGE}
        where = f"stall at {t0:.3f} ({s['ms']} ms, {s['symptoms']}) named {s['cause']}; iw events within 1 s: {sorted(inside)}"
        if inside:
            if s["cause"] not in inside:
                problems.append("a: " + where)
            elif s["cause"] == "scan":
                named_scans.update(i for d, k, i in near if k == "scan" and d < NEAR - EDGE)
        elif not around and s["cause"] not in ("none", "waking_receiver"):
            problems.append("a: blamed with no event near: " + where)
    if len(named_scans) < 2:
        problems.append(f"a: {len(named_scans)} of iw's {len(scans)} scans have a stall named a scan; stalls: "
                        + "; ".join(f"{x['start_unix_ms']} {x['ms']} ms {x['cause']}" for x in stalls)[:600])
    hold = marks.get("hold begins"), marks.get("hold ends")
    if None in hold:
        problems.append(f"a: the hold was not marked: {marks}")
    else:
        held = [s for s in stalls if _distance(s["start_unix_ms"] / 1000, s["start_unix_ms"] / 1000 + s["ms"] / 1000, hold[0], hold[1] + 0.3) == 0]
        if not held:
            problems.append(f"a: no stall logged for the 0.5 s held downlink at {hold[0]:.3f}")
        elif any(x["cause"] != "none" for x in held):
            problems.append(f"a: the held downlink's stall was blamed: {held}")
    # the reconnect: iw's disconnected … connected, a stall within ±1 s of them named a roam
    cut = next((t for t, w in others if w.startswith("disconnected")), None)
    back = next((t for t, w in others if w.startswith("connected") and cut is not None and t >= cut), None)
    if cut is None or back is None:
        problems.append(f"a: iw saw no disconnect and reconnect: {[w for _, w in others]}")
    else:
        # the link was down from the disconnect to the connect: a stall named a roam covers most of it
        roamed = [s for s in stalls if _distance(s["start_unix_ms"] / 1000, s["start_unix_ms"] / 1000 + s["ms"] / 1000, cut, back) == 0]
        if not any(x["cause"] == "roam" and x["ms"] / 1000 >= (back - cut) / 2 for x in roamed):
            problems.append(f"a: no stall named a roam over the reconnect ({cut:.3f}…{back:.3f}, {back - cut:.2f} s): {roamed}")
    stderr = _read(out, "wifi-a.stderr")
    m = re.search(r"stalls every ([\d.]+) s follow background scans", stderr)
    # the scans asked for (iw's start within 1 s of each mark; wpa_supplicant scans on its own too)
    asked = [a for a, _ in scans if any(0 <= a - t <= 1 for w, t in marks.items() if w.startswith("scan "))]
    spacing = (asked[-1] - asked[0]) / (len(asked) - 1) if len(asked) >= 2 else None
    if not m or spacing is None or abs(float(m.group(1)) - spacing) > 2:
        problems.append(f"a: the period: {m and m.group(0)!r} against iw's scans {spacing and round(spacing, 2)} s apart")
    # the newest reading with a station (one taken while the link was down names none)
    last = next((x for x in reversed(stats) if (x.get("wifi") or {}).get("signal_dbm") is not None), stats[-1] if stats else {})
    probe_signal = None
    try:
        probe_signal = next((w for w in json.loads(_read(out, "wifi-probe.json")).get("wifi", []) if w.get("interface") == "wlan1"), {}).get("signal_dbm")
    except ValueError:
        pass
    wifi = last.get("wifi") or {}
    if "stalls" not in last or wifi.get("interface") != "wlan1" or probe_signal is None or wifi.get("signal_dbm") is None \
            or abs(wifi["signal_dbm"] - probe_signal) > 1:
        problems.append(f"a: the last stats line's link {wifi} and ledger {last.get('stalls')} (probe's signal {probe_signal})")
    figures.append(f"a: {len(stalls)} stalls ({', '.join(str(x['ms']) + ' ms ' + x['cause'] for x in stalls)}); "
                   f"iw: {len(scans)} scans, the 3 asked {spacing and round(spacing, 2)} s apart, {len(others)} other events; "
                   f"said: {m and m.group(0)!r}; ledger {last.get('stalls')}")


def _judge_check(out, problems, figures):
    """check --json on the station after run a: its Wi-Fi section reads wlan1 (signal within 1 dB
    of iw's station dump taken just before) and a's stalls from the profile's stalls.json."""
    try:
        doc = json.loads(_read(out, "wifi-check.json"))
    except ValueError:
        problems.append(f"check: no JSON report: {_read(out, 'wifi-check.json')[:200]!r}")
        return
    section = next((x for x in doc.get("sections", []) if x.get("id") == "wifi"), {})
    findings = {f.get("subject"): f for f in section.get("findings", [])}
    link, last = findings.get("wlan1", {}), findings.get("last stream", {})
    theirs = re.search(r"^\s*signal:\s*(-?\d+)", _read(out, "wifi-iw-station-check.txt"), re.M)
    ours = re.search(r"signal (-?\d+) dBm", link.get("why", ""))
    if not theirs or not ours or abs(int(ours.group(1)) - int(theirs.group(1))) > 1 or "2.4 GHz channel 6" not in link.get("why", ""):
        problems.append(f"check: wlan1 {link} against iw's signal {theirs and theirs.group(1)}")
    if not last.get("why", "").startswith("stalls ") or "follow background scans" not in last.get("why", "") \
            or last.get("verdict") != "degraded":
        problems.append(f"check: the last stream's stalls {last}")
    figures.append(f"check: wlan1 {link.get('verdict')}: {link.get('why')} (iw {theirs and theirs.group(1)}); "
                   f"last stream {last.get('verdict')}: {last.get('why', '')[:120]}")


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
        # the SSID is hostapd's (6.1's GET_INTERFACE names none for a station: the associated BSS's elements do)
        if link.get("power_save") is None or link.get("frequency_mhz") != 2437 or link.get("channel") != 6 \
                or link.get("ssid") != "pf-wifi":
            problems.append(f"probe's link {link} (want 2437 MHz, channel 6, ssid pf-wifi, power save named)")
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
    _judge_stalls(out, problems, figures)
    _judge_check(out, problems, figures)
    report(not problems, "wifi: a session over Wi-Fi reads the link and holds power save off",
           "; ".join(problems) if problems else "; ".join(figures))

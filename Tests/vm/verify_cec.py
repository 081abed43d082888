#!/usr/bin/env python3
"""The `cec` check's judgement (imported by verify.py; evidence from Tests/vm/guest/cec-check.sh):
vivid's TV adapter (cec-ctl, cectool, cec-compliance) against the kiosk on vivid's first playback
adapter, with a second playback device on the bus. Judged from the TV side — the monitor of all
traffic on the TV's adapter (cec-ctl -M -v -r), the screendumps and pf-testhost's input log —
never from the kiosk's own log:
- address conflict: the other device holds Playback 1 (4), the kiosk reported itself as Playback 2
  (8) at 1.0.0.0;
- idle standby: the idle shell sent <Standby> to the TV and answered power status standby, the
  screen was black; the box's pad woke it (<Image View On>, <Active Source>, power status on); the
  remote turned Sleep after off in Settings (the saved config has no standby-after);
- one touch play at the stream's start; the remote walked the shell; keys reached the host;
- the TV's standby: the stream ended, the screen went black, power status standby; the TV's
  <Active Source> did not wake it; every wake path (Set Stream Path, Routing Change, Routing
  Information, the remote's Power On, Power Toggle, Power) brought One Touch Play and power status
  on, every standby path (broadcast and directed <Standby>, Power Off, Power Toggle) standby again;
- active source switching: after the other device's <Active Source> the kiosk did not answer
  <Request Active Source> until the TV's <Set Stream Path> picked it;
- the unregistered address: nothing directed-only went to 15;
- hostile frames; cec-compliance over the playback groups, standby-resume included; the kiosk's
  <Standby> at SIGTERM.
"""
import json
import os
import re

from verify_shell import judge_text, _trace, _passes_through, _read

PATH = ("home", "settings", "home", "host", "connecting", "streaming", "menu", "host", "connecting", "streaming",
        "standby")
# remote key (cec-ctl ui-cmd) → the VK the host must get
KEYS = (("up", 0x26), ("down", 0x28), ("left", 0x25), ("right", 0x27), ("select", 0x0D), ("5", 0x35),
        ("0", 0x30), ("play", 0xB3), ("back", 0x1B), ("right", 0x27))
SHOTS = (("cec-menu", ("Resume", "Disconnect")), ("cec-woken", ("CEC Host", "Pair with PIN")))
# directed-only opcodes the kiosk could answer with (Feature Abort, Menu Status, Report Power
# Status, Set OSD Name, CEC Version): never to 15
DIRECTED_ONLY_ANSWERS = {0x00, 0x8E, 0x90, 0x47, 0x9E}


def _lines(path):
    return _read(path).splitlines()


def monitor_frames(text):
    """The monitor's frames in order: dicts with `tx` (sent by the TV's adapter), `frm`, `to` and
    the raw bytes (cec-ctl --show-raw)."""
    frames, cur = [], None
    for line in text.splitlines():
        m = re.match(r"(Received from|Transmitted by) .*\((\d+) to (\d+)\):", line)
        if m:
            cur = {"tx": m.group(1) == "Transmitted by", "frm": int(m.group(2)), "to": int(m.group(3)), "raw": None,
                   "text": line.strip()}
            frames.append(cur)
            continue
        r = re.match(r"\s*Raw:((?: 0x[0-9a-f]{2})+)", line)
        if r and cur is not None and cur["raw"] is None:
            cur["raw"] = [int(b, 16) for b in r.group(1).split()]
    return [f for f in frames if f["raw"]]


def hexbytes(text):
    return [int(b, 16) for b in text.split(":")]


def find(frames, start, pred, stop=None):
    """The index of the first frame from `start` on that `pred` accepts, before one `stop` accepts."""
    for i in range(start, len(frames)):
        if stop is not None and stop(frames[i]):
            return None
        if pred(frames[i]):
            return i
    return None


def is_black(read_ppm, path):
    try:
        w, h, px = read_ppm(path)
    except (OSError, ValueError) as e:
        return False, f"{path}: {e}"
    lit = sum(1 for i in range(0, len(px), 3) if px[i] | px[i + 1] | px[i + 2])
    return lit == 0, f"{w}x{h}, {lit} pixels not black"


def check_cec(out, report, read_ppm):
    steps = _read(os.path.join(out, "cec-steps.log")).strip()
    last_step = steps.splitlines()[-1] if steps else "none"
    stderr = _read(os.path.join(out, "cec-kiosk.stderr"))
    mon = monitor_frames(_read(os.path.join(out, "cec-tv-monitor.log")))
    k = int(_read(os.path.join(out, "cec-kiosk.la")).strip() or "4", 16)

    def frm(la, b0=None, dest=None, payload=None):
        def p(f):
            r = f["raw"]
            return (f["frm"] == la and len(r) > 1 and (b0 is None or r[1] == b0) and (dest is None or f["to"] == dest)
                    and (payload is None or r[2:2 + len(payload)] == payload))
        return p

    def sent(bytes_):
        return lambda f: f["tx"] and f["raw"] == bytes_
    ivo, asrc = frm(k, 0x04, 0), frm(k, 0x82, 15, [0x10, 0x00])
    power = lambda state: frm(k, 0x90, 0, [state])

    # the address conflict: the other device at 4 (2.0.0.0), the kiosk at 8 (1.0.0.0)
    other = find(mon, 0, frm(4, 0x84, 15, [0x20, 0x00, 0x04])) is not None
    ours = find(mon, 0, frm(k, 0x84, 15, [0x10, 0x00, 0x04])) is not None
    report(k == 8 and other and ours, "cec address conflict: the kiosk takes Playback 2 when Playback 1 is taken",
           f"kiosk at logical address {k}; Report Physical Address 2.0.0.0 from 4 {'seen' if other else 'MISSING'}, "
           f"1.0.0.0 from {k} {'seen' if ours else 'MISSING'} (TV-side monitor, {len(mon)} frames)")

    # idle standby and the pad's wake: the first STANDBY the kiosk sends, then standby, then woken
    i_sb = find(mon, 0, frm(k, 0x36, 0))
    i_st = find(mon, i_sb, power(0x01)) if i_sb is not None else None
    i_ivo = find(mon, i_st, ivo) if i_st is not None else None
    i_as = find(mon, i_ivo, asrc) if i_ivo is not None else None
    i_on = find(mon, i_as, power(0x00)) if i_as is not None else None
    idle_black, idle_fig = is_black(read_ppm, os.path.join(out, "cec-idle.ppm"))
    config = _read(os.path.join(out, "cec-config.txt"))
    off = bool(config) and "standby-after" not in config
    report(None not in (i_sb, i_st, i_ivo, i_as, i_on) and idle_black and off and "woken by the pad" in steps,
           "cec the box's own standby after 15 s idle, woken by its pad, Sleep after set off with the remote",
           f"<Standby> to the TV {'seen' if i_sb is not None else 'MISSING'}, power status standby "
           f"{'seen' if i_st is not None else 'MISSING'}, screen {idle_fig}; after the pad: <Image View On> "
           f"{'seen' if i_ivo is not None else 'MISSING'}, <Active Source> {'seen' if i_as is not None else 'MISSING'}, "
           f"power status on {'seen' if i_on is not None else 'MISSING'}; saved config "
           f"{'without standby-after' if off else 'still has standby-after' if config else 'not copied'}")

    # one touch play at the first stream's start (after the pad's wake)
    start = (i_on or 0) + 1
    s_ivo = find(mon, start, ivo)
    s_as = find(mon, s_ivo, asrc) if s_ivo is not None else None
    report(s_as is not None, "cec one touch play at the stream's start (TV side)",
           f"Image View On {'seen' if s_ivo is not None else 'MISSING'}, Active Source 1.0.0.0 "
           f"{'seen' if s_as is not None else 'MISSING'}; kiosk: "
           f"{' | '.join(l for l in stderr.splitlines() if 'cec:' in l and 'logical address' in l)[:200]}")

    # the shell walked with the remote
    screens = [s for s, _ in _trace(out, "cec.stdout")]
    folded = [s for i, s in enumerate(screens) if i == 0 or s != screens[i - 1]]
    reached = _passes_through(folded, PATH)
    report(reached == len(PATH), "cec remote walks the shell (settings → host → stream → menu → Disconnect → stream → TV standby)",
           f"screens {' → '.join(folded[:40]) or 'none'}; guest steps: {last_step}")
    for name, phrases in SHOTS:
        image = os.path.join(out, name + ".ppm")
        if not os.path.exists(image):
            report(False, f"cec OCR {name}", f"no screendump (guest steps: {last_step})")
            continue
        ok, figures = judge_text(image, list(phrases))
        report(ok, f"cec OCR {name}", f"{image}: {figures}")

    check_keys(out, report, stderr)

    # the TV's standby ends the stream: black, standby; its Active Source does not wake the box
    i_tsb = find(mon, start, sent([0x0F, 0x36]))
    t_st = find(mon, i_tsb, power(0x01)) if i_tsb is not None else None
    black, fig = is_black(read_ppm, os.path.join(out, "cec-standby.ppm"))
    i_na = find(mon, t_st or 0, sent([0x0F, 0x82, 0x00, 0x00])) if t_st is not None else None
    woke = None if i_na is None else find(mon, i_na + 1, lambda f: ivo(f) or asrc(f), stop=lambda f: f["tx"] and f["raw"][1:2] == [0x86])
    still = i_na is not None and find(mon, i_na, power(0x01), stop=lambda f: f["tx"] and f["raw"][1:2] == [0x86]) is not None
    ended = "standby ended the stream" in steps and "still in standby" in steps
    report(i_tsb is not None and t_st is not None and black and ended and woke is None and still,
           "cec the TV's standby: the stream ends, nothing on glass, power status standby; its Active Source does not wake",
           f"<Standby> from the TV {'seen' if i_tsb is not None else 'MISSING'}, power status standby "
           f"{'seen' if t_st is not None else 'MISSING'}, screen {fig}; after the TV's <Active Source>: "
           f"{'no One Touch Play' if woke is None else 'WOKE: ' + mon[woke]['text']}, "
           f"{'still standby' if still else 'power status NOT standby'}")

    # the wake cycles: trigger → One Touch Play → power on → standby path → power standby
    cur = i_na or 0
    results, ok_all = [], True
    for line in _lines(os.path.join(out, "cec-wake.log")):
        name, trigger, standby = line.split()
        first = hexbytes(trigger.split(",")[0])
        it = find(mon, cur, sent(first))
        if it is None:
            results.append(f"{name}: trigger MISSING")
            ok_all = False
            continue
        w_ivo = find(mon, it, ivo)
        w_as = find(mon, w_ivo, asrc) if w_ivo is not None else None
        w_on = find(mon, w_as, power(0x00)) if w_as is not None else None
        okc = w_on is not None
        detail = f"{name}: IVO {'✓' if w_ivo is not None else '✗'} AS {'✓' if w_as is not None else '✗'} on {'✓' if okc else '✗'}"
        cur = (w_on or it) + 1
        if standby != "none":
            i_s = find(mon, cur, sent(hexbytes(standby.split(",")[0])))
            w_st = find(mon, i_s, power(0x01)) if i_s is not None else None
            okc = okc and w_st is not None
            detail += f", then {standby.split(',')[0]} → standby {'✓' if w_st is not None else '✗'}"
            cur = (w_st or i_s or cur) + 1
        ok_all = ok_all and okc
        results.append(detail)
    report(ok_all and len(results) == 6 and "wake paths done" in steps,
           "cec every wake path wakes the box (One Touch Play, power on), every standby path sends it back",
           f"{len(results)} cycles (TV-side monitor): {'; '.join(results)}")

    # active source switching with the other playback device
    i_oas = find(mon, cur, frm(4, 0x82, 15, [0x20, 0x00]))
    i_req = find(mon, i_oas, sent([0x0F, 0x85])) if i_oas is not None else None
    unanswered = i_req is not None and find(mon, i_req + 1, asrc, stop=lambda f: f["tx"] and f["frm"] == 0) is None
    i_ssp = find(mon, (i_req or 0) + 1, sent([0x0F, 0x86, 0x10, 0x00])) if i_req is not None else None
    picked = i_ssp is not None and find(mon, i_ssp + 1, asrc, stop=lambda f: f["tx"] and f["frm"] == 0) is not None
    i_req2 = find(mon, (i_ssp or 0) + 1, sent([0x0F, 0x85])) if i_ssp is not None else None
    answered = i_req2 is not None and find(mon, i_req2 + 1, asrc, stop=lambda f: f["tx"] and f["frm"] == 0) is not None
    report(unanswered and picked and answered, "cec active source switching with a second playback device",
           f"other's <Active Source> 2.0.0.0 {'seen' if i_oas is not None else 'MISSING'}; <Request Active Source> "
           f"{'unanswered by the kiosk' if unanswered else 'ANSWERED by the kiosk'}; <Set Stream Path> 1.0.0.0 → "
           f"{'<Active Source> 1.0.0.0' if picked else 'NO Active Source'}; <Request Active Source> → "
           f"{'answered' if answered else 'NOT answered'}")

    # the unregistered address: nothing directed-only to 15 from the kiosk, ever
    to15 = [f["text"] for f in mon if f["frm"] == k and f["to"] == 15 and f["raw"][1] in DIRECTED_ONLY_ANSWERS]
    i_u = find(mon, 0, sent([0xF0 | k, 0x8D, 0x02]))
    report(i_u is not None and not to15, "cec no directed-only message to the unregistered address 15",
           f"queries from 15 {'sent' if i_u is not None else 'MISSING'}; directed-only frames from the kiosk to 15: "
           f"{to15[:4] or 'none'} (over {sum(1 for f in mon if f['frm'] == k)} frames from the kiosk)")

    # hostile frames: alive, counted
    alive = "kiosk alive after the hostile frames" in steps
    counters = next((l.split("counters ", 1)[1] for l in stderr.splitlines() if "cec: counters" in l), None)
    report(alive and counters is not None, "cec hostile frames ignored with counters, no crash",
           f"{'alive' if alive else 'NOT alive'} after "
           f"{sum(1 for _ in _lines(os.path.join(out, 'cec-hostile.jsonl')))} raw frames; kiosk counters: {counters or 'none printed'}")

    # cec-compliance
    log = _read(os.path.join(out, "cec-compliance.log"))
    total = re.search(r"Total for .*: (\d+), Succeeded: (\d+), Failed: (\d+), Warnings: (\d+)", log)
    fails = [l.strip() for l in log.splitlines() if re.search(r": FAIL", l)]
    standby_ran = re.search(r"\n\s*Standby: OK", log) is not None and re.search(r"\n\s*Wake up: OK", log) is not None
    report(total is not None and total.group(3) == "0" and standby_ran,
           "cec-compliance, the playback groups with standby-resume",
           (f"{total.group(1)} tests, {total.group(2)} succeeded, {total.group(3)} failed, {total.group(4)} warnings"
            if total else f"no summary (exit {_read(os.path.join(out, 'cec-compliance.rc')).strip() or '?'})")
           + f"; Standby and Wake up {'OK' if standby_ran else 'NOT OK'}"
           + (f"; failed: {' | '.join(fails[:8])}" if fails else "")
           + "; skipped: fuzzing (minutes under TCG), deck/tuner/record/timer/audio/ARC/CDC (not a playback box's features)")

    # the kiosk's standby at SIGTERM: its last frame
    last = next((f for f in reversed(mon) if f["frm"] == k), None)
    report(last is not None and last["raw"][1:2] == [0x36] and last["to"] == 0, "cec the box's exit puts the TV to standby",
           f"the kiosk's last frame: {last['text'] if last else 'none'}; kiosk exit "
           f"{_read(os.path.join(out, 'cec.rc')).strip() or '?'}")


def check_keys(out, report, stderr):
    """While streaming each remote key arrived at pf-testhost as its key, pressed once and
    released; the press without a release was released by the kiosk (auto-release); the latency
    from the TV's transmit (cectool, CLOCK_MONOTONIC) to the host's receipt (p50/max)."""
    items = []
    for line in _lines(os.path.join(out, "cec-host.jsonl")):
        try:
            items.append(json.loads(line))
        except ValueError:
            pass
    edges = [(i["kind"], i["code"], i["t_ns"]) for i in items if i.get("kind") in (0, 1)]
    pairs, problems, i = [], [], 0
    for key, vk in KEYS:
        # the next press of vk, then its release
        while i < len(edges) and not (edges[i][0] == 0 and edges[i][1] == vk):
            problems.append(f"unexpected {'down' if edges[i][0] == 0 else 'up'} 0x{edges[i][1]:02x}")
            i += 1
        if i >= len(edges):
            problems.append(f"no press of {key} (0x{vk:02x})")
            break
        down_t = edges[i][2]
        i += 1
        if i < len(edges) and edges[i][0] == 1 and edges[i][1] == vk:
            pairs.append((key, down_t, edges[i][2]))
            i += 1
        else:
            problems.append(f"{key} (0x{vk:02x}) not released next")
    held = {}
    for kind, code, _ in edges:
        held[code] = held.get(code, 0) + (1 if kind == 0 else -1)
    still = [f"0x{c:02x}" for c, n in held.items() if n != 0]
    # the presses sent while streaming: after the script's mark (the shell's own presses before it)
    presses, streaming = [], False
    for line in _lines(os.path.join(out, "cec-keys.jsonl")):
        try:
            j = json.loads(line)
        except ValueError:
            continue
        streaming = streaming or j.get("mark") == "stream"
        if streaming and re.match(r"0[0-9a-f]:44:", j.get("frame", "")):
            presses.append(j)
    start = 0 if presses and presses[0].get("key") == "up" else None
    lat = []
    if start is not None:
        for (key, down_t, _), j in zip(pairs, presses[start:]):
            if j.get("key") == key:
                lat.append((down_t - j["sent_ns"]) / 1e9)
    # the last press had no release from the TV: the kiosk's own, 550 ms after the press reached it,
    # measured from the TV's send (so ≥ 550 ms, plus the bus and the way to the host)
    auto = None
    if len(pairs) == len(KEYS) and start is not None and len(presses) >= start + len(KEYS) \
            and presses[start + len(KEYS) - 1].get("key") == KEYS[-1][0]:
        auto = pairs[-1][2] - presses[start + len(KEYS) - 1]["sent_ns"]
    auto_logged = any("remote right released (no release came: auto-release)" in l for l in stderr.splitlines())
    lat_text = (f"remote press → host key p50 {sorted(lat)[len(lat) // 2] * 1000:.0f} ms, max {max(lat) * 1000:.0f} ms "
                f"over {len(lat)} keys (cectool's send → pf-testhost's receipt, TCG guest)") if lat else "no latency figures"
    ok = (len(pairs) == len(KEYS) and not still and not problems and auto is not None and auto_logged
          and 0.55 <= auto / 1e9 <= 2.5)
    report(ok, "cec remote keys reach the host while streaming, each released",
           f"{len(pairs)}/{len(KEYS)} press+release pairs; the unreleased press released by the kiosk "
           f"{'(logged)' if auto_logged else '(NOT logged)'}, at the host {'%.0f ms' % (auto / 1e6) if auto is not None else '?'} "
           f"after the TV sent it; held at the end: {still or 'none'}; {lat_text}"
           + (f"; problems: {'; '.join(problems[:6])}" if problems else ""))

"""The `input` check's judgement (imported by verify.py): what pf-testhost received from the
kiosk's real evdev devices, and what the devices received back (FF on the uinput pad, output
reports on the uhid DualSense). Evidence from Tests/vm/guest/input-check.sh."""
import json
import os
import re
import zlib

GAMEPAD_STATE, GAMEPAD_REMOVE, GAMEPAD_ARRIVAL = 12, 13, 14
BTN_A, BTN_B = 0x1000, 0x2000


def _jsonl(path):
    out = []
    try:
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line.startswith("{"):
                    try:
                        out.append(json.loads(line))
                    except ValueError:
                        pass
    except OSError:
        pass
    return out


def _i32(v):
    return v - (1 << 32) if v >= 1 << 31 else v


def _i16(v):
    v &= 0xFFFF
    return v - 0x10000 if v >= 0x8000 else v


def _state(e):
    x, y = e["x"] & 0xFFFFFFFF, e["y"] & 0xFFFFFFFF
    f = e["flags"]
    return (e["code"], _i16(x >> 16), _i16(x), _i16(y >> 16), _i16(y), (f >> 16) & 0xFF, (f >> 8) & 0xFF)


NEUTRAL = (0, 0, 0, 0, 0, 0, 0)


def _report(**fields):
    r = bytearray(63)
    r[0] = 0x02
    for k, v in fields.items():
        for i, b in enumerate(v if isinstance(v, (bytes, bytearray, list)) else [v]):
            r[int(k[1:]) + i] = b
    return bytes(r).hex()


def check_input(out, report):
    host = _jsonl(os.path.join(out, "input-host.jsonl"))
    tool = _jsonl(os.path.join(out, "input-tool.jsonl"))
    rc = open(os.path.join(out, "input-kiosk.rc")).read().strip() if os.path.exists(os.path.join(out, "input-kiosk.rc")) else "?"
    events = [e for e in host if "kind" in e]
    problems = []

    # slots by the arrivals' pad kinds (1 Xbox 360, 2 DualSense)
    arrivals = [(e["code"], e["flags"] & 0xFF, i) for i, e in enumerate(events) if e["kind"] == GAMEPAD_ARRIVAL]
    xslot = next((s for k, s, _ in arrivals if k == 1), None)
    stderr = open(os.path.join(out, "input-kiosk.stderr"), errors="replace").read() if os.path.exists(os.path.join(out, "input-kiosk.stderr")) else ""
    m = re.search(r'Controller BT" is a gamepad \(dualsense\) in slot (\d+)', stderr)
    bslot = int(m.group(1)) if m else None
    dslot = next((s for k, s, _ in arrivals if k == 2 and s != bslot), None)
    if xslot is None or dslot is None or bslot is None:
        problems.append(f"arrivals {[(k, s) for k, s, _ in arrivals]} lack the Xbox pad or a DualSense (Bluetooth slot {bslot})")

    # keys: exactly A down/up, then left shift down/up (the release at SIGTERM), all on the control stream
    keys = [(e["via"], e["kind"], e["code"]) for e in events if e["kind"] in (0, 1)]
    want_keys = [("control", 0, 0x41), ("control", 1, 0x41), ("control", 0, 0xA0), ("control", 1, 0xA0)]
    if keys != want_keys:
        problems.append(f"keys {keys} != {want_keys}")

    # mouse: motion summed per frame, left click, one detent as normalised wheel scroll (v120 × 256);
    # then the tablet (QEMU's usb-tablet, 0…32767): its place as MouseMoveAbs (kind 3) on its own
    # range as the reference surface (flags = ref_w << 16 | ref_h, data-plane.md §6.2), a left click
    mouse = [(e["kind"], e["code"], _i32(e["x"]), _i32(e["y"]), e["flags"]) for e in events if e["kind"] in (2, 3, 4, 5, 6, 16)]
    want_mouse = [(2, 0, 5, -3, 0), (4, 1, 0, 0, 0), (5, 1, 0, 0, 0), (16, 0, 30720, 0, 1),
                  (3, 0, 16384, 8192, 32768 << 16 | 32768), (4, 1, 0, 0, 0), (5, 1, 0, 0, 0)]
    if mouse != want_mouse:
        problems.append(f"mouse {mouse} != {want_mouse}")

    def states(slot):
        seq, last = [], None
        for e in events:
            if e["kind"] == GAMEPAD_STATE and e["flags"] & 0xFF == slot:
                s = _state(e)
                if s != last:
                    seq.append(s)
                last = s
            elif e["kind"] == GAMEPAD_REMOVE and e["flags"] & 0xFF == slot:
                if last != "removed":
                    seq.append("removed")
                last = "removed"
        return seq

    if xslot is not None:
        xs = states(xslot)
        want = [(BTN_A, 0, 0, 0, 0, 0, 0), (BTN_A, 32767, 0, 0, 0, 0, 0), NEUTRAL, (BTN_B, 0, 0, 0, 0, 0, 0), NEUTRAL]
        if xs != want:
            problems.append(f"xbox pad states {xs} != {want}")
    if dslot is not None:
        ds = states(dslot)
        want = [(BTN_A, 0, 0, 0, 0, 0, 0), NEUTRAL, (BTN_A, 0, 0, 0, 0, 0, 0), "removed"]
        # the kernel releases a vanishing device's keys (input_dev_release_keys) before its fd
        # fails: the host may see that neutral state before the removal
        if ds == want[:3] + [NEUTRAL, "removed"]:
            ds = want
        if ds != want:
            problems.append(f"DualSense states {ds} != {want}")
        removed_at = next((i for i, e in enumerate(events) if e["kind"] == GAMEPAD_REMOVE and e["flags"] & 0xFF == dslot), None)
        back = [s for k, s, i in arrivals if k == 2 and removed_at is not None and i > removed_at]
        if not back or back[0] != dslot:
            problems.append(f"the replugged DualSense came back in slots {back}, not {dslot}")
    if bslot is not None:
        bs = states(bslot)
        if bs != [(BTN_A, 0, 0, 0, 0, 0, 0), NEUTRAL]:
            problems.append(f"Bluetooth DualSense states {bs} != [A, neutral]")

    # nothing held at the end: keys and mouse buttons balanced, every pad neutral or removed
    held = set()
    for e in events:
        if e["kind"] in (0, 4):
            held.add((e["kind"], e["code"]))
        elif e["kind"] in (1, 5):
            held.discard((e["kind"] - 1, e["code"]))
    if held:
        problems.append(f"left held: {sorted(held)}")

    # force feedback on the uinput pad: the v2 rumble for its slot (low → strong, high → weak, ttl
    # as the effect length) uploaded and played; stopped at the session end
    ff = [t for t in tool if "ff" in t]
    up = next((t for t in ff if t["ff"] == "upload" and t["strong"] == 0x4000 and t["weak"] == 0x8000 and t["length_ms"] == 500), None)
    played = up is not None and any(t["ff"] == "play" and t["id"] == up["id"] for t in ff)
    stopped = up is not None and any(t["ff"] == "stop" and t["id"] == up["id"] and t["t_ms"] > up["t_ms"] for t in ff)
    if not (up and played and stopped):
        problems.append(f"force feedback {ff[:8]} lacks the upload/play of 0x4000/0x8000 for 500 ms or the final stop")

    # DualSense output reports: each host datagram as one report carrying only its flags, in order
    outputs = [t["ds_output"] for t in tool if "ds_output" in t and t.get("pad") == "usb"]
    bt = [bytes.fromhex(t["ds_output"]) for t in tool if "ds_output" in t and t.get("pad") == "bt"]
    want_reports = [
        ("rumble", _report(b1=0x03, b3=[0x80, 0x40], b39=0x04)),
        ("lightbar", _report(b2=0x04, b45=[0x0A, 0x14, 0x1E])),
        ("player LEDs", _report(b2=0x10, b44=0x04)),
        ("R2 effect", _report(b1=0x04, b11=[0x21, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10])),
        ("mic LED", _report(b2=0x01, b9=0x01)),
    ]
    pos = 0
    for name, hexr in want_reports:
        try:
            pos = outputs.index(hexr, pos) + 1
        except ValueError:
            problems.append(f"no {name} report {hexr[:24]}… in order among {len(outputs)} DualSense output reports")
            break
    lease_end = _report(b1=0x03, b39=0x04)
    if lease_end not in outputs:
        problems.append("the 500 ms rumble lease did not end with a motors-off report")
    # after the replug the pad gets its whole state back in one report
    reapplied = [o for o in outputs if o.startswith("02") and bytes.fromhex(o)[45:48] == bytes([0x0A, 0x14, 0x1E])
                 and bytes.fromhex(o)[2] & 0x15 == 0x15]
    if not reapplied:
        problems.append("no report re-applied lightbar, player LEDs and mic LED together after the replug")
    end = _report(b1=0x0F, b2=0x08, b39=0x04)
    if end not in outputs:
        problems.append("no session-end report (motors off, both trigger effects released, LEDs released)")

    # Bluetooth: report 0x31, sequence in the high nibble, tag 0x10, the same block at byte 3, and
    # a CRC-32 over 0xA2 + bytes 0…73 in the last four (checked with zlib)
    bad_crc = [r.hex()[:16] for r in bt if len(r) != 78 or r[0] != 0x31
               or zlib.crc32(bytes([0xA2]) + r[:74]) != int.from_bytes(r[74:78], "little")]
    if bad_crc or not bt:
        problems.append(f"{len(bad_crc)} of {len(bt)} Bluetooth output reports are not 78-byte 0x31 reports with a valid CRC")
    blocks = [r[3:50].hex() for r in bt if len(r) == 78]
    pos = 0
    for name, hexr in want_reports:
        block = bytes.fromhex(hexr)[1:48].hex()
        try:
            pos = blocks.index(block, pos) + 1
        except ValueError:
            problems.append(f"no Bluetooth {name} report in order among {len(blocks)}")
            break
    if bytes.fromhex(end)[1:48].hex() not in blocks:
        problems.append("no Bluetooth session-end report")
    # (up to the session-end report: afterwards the driver's own reports, as the LEDs are handed
    # back, may repeat a block under the driver's sequence)
    end_block = bytes.fromhex(end)[1:48].hex()
    until = next((i for i, r in enumerate(bt) if r[3:50].hex() == end_block), len(bt))
    ours = [r[1] >> 4 for r in bt[:until] if len(r) == 78 and r[3:50].hex() in {bytes.fromhex(h)[1:48].hex() for _, h in want_reports}]
    if len(set(ours)) < len(ours):
        problems.append(f"Bluetooth sequence numbers repeat: {ours}")

    # the escape chord (second session): Ctrl and Alt went down and were let go when Q armed the
    # chord; Shift, down since before the stream, and Q never reached the host; the stream ended
    # by itself (exit 0) on the last release
    chord = [(e["kind"], e["code"]) for e in _jsonl(os.path.join(out, "input-chord-host.jsonl")) if e.get("kind") in (0, 1)]
    chord_rc = open(os.path.join(out, "input-chord-kiosk.rc")).read().strip() if os.path.exists(os.path.join(out, "input-chord-kiosk.rc")) else "?"
    downs, ups = chord[:2], sorted(chord[2:])
    # the tablet in the second session, after its host said (0xD0 relative-mode hint) that its
    # pointer is captured: a tenth of the range right and up as one MouseMove, the range spanning
    # the host's 1920×1080 (3277 · 1920 / 32767 = 192.01, 3277 · 1080 / 32767 = 108.006)
    captured = [(e["kind"], _i32(e["x"]), _i32(e["y"])) for e in _jsonl(os.path.join(out, "input-chord-host.jsonl"))
                if e.get("kind") in (2, 3)]
    if captured != [(2, 192, -108)]:
        problems.append(f"tablet with the host's pointer captured: host saw {captured}, want one MouseMove (2, 192, -108)")
    if downs != [(0, 0xA2), (0, 0xA4)] or ups != [(1, 0xA2), (1, 0xA4)] or chord_rc != "0":
        problems.append(f"escape chord: host saw {chord}, kiosk exit {chord_rc} (want Ctrl and Alt down then up, no Shift, no Q, exit 0)")

    if rc != "143":
        problems.append(f"kiosk exit {rc}, expected 143 (SIGTERM)")
    report(not problems, "input", "; ".join(problems) if problems else
           f"{len(events)} input events (keys {len(keys)}, the tablet absolute then as deltas once captured, pad slots xbox {xslot} / DualSense {dslot}, replug kept the slot), "
           f"{len(ff)} FF records, {len(outputs)} USB / {len(bt)} Bluetooth DualSense output reports (CRC valid), nothing held after SIGTERM; the escape chord ended the second stream with nothing held")

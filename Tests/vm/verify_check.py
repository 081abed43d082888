"""The `check` step of the VM harness: `punktfunk-kiosk check --json` read-only (the connector is
bochs-drm's, the first card with one connected) and with --display on vkms (a real 60 Hz vblank
timer), and the text report.
The guest has no VA-API device, so decode must say so cleanly ("not available", never "ok"); the
JSON must parse, list the eight sections in order and carry the exit status the process returned.
"""
import json
import os

SECTIONS = ["decode", "display", "sound", "input", "network", "wifi", "box", "hello"]


def _read(out, name):
    try:
        return open(os.path.join(out, name)).read()
    except OSError:
        return ""


def _rc(out, name):
    t = _read(out, name + ".rc").strip()
    return int(t) if t.lstrip("-").isdigit() else None


def _finding(section, subject):
    return next((f for f in section.get("findings", []) if f.get("subject") == subject), None)


def _judge_json(out, name, report):
    rc = _rc(out, name)
    text = _read(out, name + ".json")
    try:
        doc = json.loads(text)
    except ValueError:
        report(False, f"{name}: --json parses", f"exit {rc}, not JSON: {text[:160]!r} {_read(out, name + '.stderr')[:200]!r}")
        return None
    sections = {s["id"]: s for s in doc.get("sections", [])}
    ids = [s["id"] for s in doc.get("sections", [])]
    ok = ids == SECTIONS and rc in (0, 1) and doc.get("exit_code") == rc
    report(ok, f"{name}: --json parses, eight sections, exit status as documented",
           f"exit {rc}, exit_code {doc.get('exit_code')}, verdict {doc.get('verdict')}, sections "
           + ", ".join(f"{s['id']}={s['verdict']}" for s in doc.get("sections", [])))
    decode = sections.get("decode", {})
    first = (decode.get("findings") or [{}])[0]
    va = [f for f in decode.get("findings", []) if f["subject"] not in ("software rung", "V4L2")]
    sw = _finding(decode, "software rung") or {}
    # the 6.1 guest has no media controller device: the V4L2 finding says so, as a side fact
    v4l2 = _finding(decode, "V4L2") or {}
    report(v4l2.get("verdict") == "not available" and v4l2.get("why", "").startswith("no V4L2 stateless HEVC decoder"),
           f"{name}: decode says \"no V4L2 stateless HEVC decoder\" cleanly", f"{v4l2.get('verdict')}: {v4l2.get('why', '')[:160]}")
    # every VA finding says "no VA-API device" (not available); the section is never "ok" (it is
    # "degraded" when the software rung is slow, as it is under TCG) and nothing failed
    ok = bool(va) and all(f["verdict"] == "not available" and f["why"].startswith("no VA-API device") for f in va) \
        and decode.get("verdict") in ("not available", "degraded") and sw.get("verdict") in ("ok", "degraded")
    report(ok, f"{name}: decode says \"no VA-API device\" cleanly",
           f"{decode.get('verdict')}: {first.get('why', '')[:160]}; software rung {sw.get('verdict')}: {sw.get('why', '')[:120]}")
    # the hello section: every capability the hello decides, each with its value and reason
    hello = sections.get("hello", {})
    subjects = [f["subject"] for f in hello.get("findings", [])]
    want = ["10-bit video", "HDR10", "multi-slice frames", "streamed frames", "host timing", "media cipher",
            "sound channels", "redundant audio", "pointer drawn by the box", "device name"]
    report(subjects == want and all(f["verdict"] == "ok" and " — " in f["why"] for f in hello.get("findings", [])),
           f"{name}: the hello section says what the box asks a host for and why",
           "; ".join(f"{f['subject']}: {f['why'][:70]}" for f in hello.get("findings", []))[:600])
    failed = [f"{s['id']}/{f['subject']}: {f['why']}" for s in doc.get("sections", []) for f in s["findings"] if f["verdict"] == "failed"]
    if failed:
        print(f"     {name} failed findings: " + " | ".join(failed)[:600], flush=True)
    return doc


def check_check(out, report):
    doc = _judge_json(out, "kiosk-check", report)
    if doc:
        display = next(s for s in doc["sections"] if s["id"] == "display")
        conn = next((f for f in display["findings"] if "is connected; preferred mode" in f["why"]), None)
        ok = conn is not None and conn["verdict"] == "ok"
        report(ok, "kiosk-check: display names the connector and its preferred mode (read-only)",
               f"{conn['subject'] + ': ' + conn['why'] if conn else 'no connector finding'}")
    doc = _judge_json(out, "kiosk-check-display", report)
    if doc:
        display = next(s for s in doc["sections"] if s["id"] == "display")
        flip = _finding(display, "flip run") or {}
        planes = [_finding(display, f"{f} plane") or {} for f in ("NV12", "P010")]
        facts = flip.get("facts", {})
        flips = int(facts.get("flips", "0"))
        ok = bool(flip) and flip.get("verdict") != "failed" and flips >= 10 \
            and all(p.get("facts", {}).get("tested with") for p in planes)
        report(ok, "kiosk-check-display: --display ran the TEST_ONLY plane checks and a flip run",
               f"flip run {flip.get('verdict')}: {flip.get('why', '')[:200]} "
               f"(mode period {facts.get('mode period')}, mean {facts.get('mean interval')}, jitter {facts.get('jitter (standard deviation)')}, "
               f"missed {facts.get('missed vblanks')}); "
               + "; ".join(f"{p.get('subject')} {p.get('verdict')}: {p.get('why', '')[:120]}" for p in planes))
    text = _read(out, "kiosk-check.txt")
    rc = _rc(out, "kiosk-check-text")
    lines = text.splitlines()
    decode_line = next((i for i, l in enumerate(lines) if l.startswith("Decode: ")), None)
    ok = text.startswith("punktfunk-kiosk check") and decode_line is not None \
        and lines[decode_line] in ("Decode: not available", "Decode: degraded") \
        and "no VA-API device" in lines[decode_line + 1] and f"exit {rc}." in text
    report(ok, "kiosk-check: the text report", f"exit {rc}, {len(text.splitlines())} lines, last: {text.strip().splitlines()[-1] if text.strip() else ''!r}")

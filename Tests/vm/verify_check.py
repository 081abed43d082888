"""The `check` step of the VM harness: `punktfunk-kiosk check --json` read-only and with
--display (bochs-drm is the first card with a connected connector), and the text report.
The guest has no VA-API device, so decode must say so cleanly ("not available", never "ok"); the
JSON must parse, list the six sections in order and carry the exit status the process returned.
"""
import json
import os

SECTIONS = ["decode", "display", "sound", "input", "network", "box"]


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
    report(ok, f"{name}: --json parses, six sections, exit status as documented",
           f"exit {rc}, exit_code {doc.get('exit_code')}, verdict {doc.get('verdict')}, sections "
           + ", ".join(f"{s['id']}={s['verdict']}" for s in doc.get("sections", [])))
    decode = sections.get("decode", {})
    first = (decode.get("findings") or [{}])[0]
    ok = decode.get("verdict") == "not available" and first.get("why", "").startswith("no VA-API device") \
        and not any(f["verdict"] == "ok" and f["subject"] != "software rung" for f in decode.get("findings", []))
    sw = _finding(decode, "software rung") or {}
    report(ok, f"{name}: decode says \"no VA-API device\" cleanly",
           f"{decode.get('verdict')}: {first.get('why', '')[:160]}; software rung {sw.get('verdict')}: {sw.get('why', '')[:120]}")
    failed = [f"{s['id']}/{f['subject']}: {f['why']}" for s in doc.get("sections", []) for f in s["findings"] if f["verdict"] == "failed"]
    if failed:
        print(f"     {name} failed findings: " + " | ".join(failed)[:600], flush=True)
    return doc


def check_check(out, report):
    doc = _judge_json(out, "kiosk-check", report)
    if doc:
        display = next(s for s in doc["sections"] if s["id"] == "display")
        conn = next((f for f in display["findings"] if f["subject"] not in ("KMS", "HDR", "NV12 plane", "P010 plane", "flip run", "compositor")), None)
        ok = conn is not None and conn["verdict"] == "ok" and "preferred mode" in conn["why"]
        report(ok, "kiosk-check: display names the connector and its preferred mode (read-only)",
               f"{conn['subject'] + ': ' + conn['why'] if conn else 'no connector finding'}")
    doc = _judge_json(out, "kiosk-check-display", report)
    if doc:
        display = next(s for s in doc["sections"] if s["id"] == "display")
        flip = _finding(display, "flip run") or {}
        planes = [_finding(display, f"{f} plane") or {} for f in ("NV12", "P010")]
        ok = bool(flip) and flip.get("verdict") != "failed" and "flips" in flip.get("facts", {}) \
            and all(p.get("facts", {}).get("tested with") for p in planes)
        report(ok, "kiosk-check-display: --display ran the TEST_ONLY plane checks and a flip run",
               f"flip run {flip.get('verdict')}: {flip.get('why', '')[:200]}; "
               + "; ".join(f"{p.get('subject')} {p.get('verdict')}: {p.get('why', '')[:120]}" for p in planes))
    text = _read(out, "kiosk-check.txt")
    rc = _rc(out, "kiosk-check-text")
    ok = text.startswith("punktfunk-kiosk check") and "Decode: not available" in text and f"exit {rc}." in text
    report(ok, "kiosk-check: the text report", f"exit {rc}, {len(text.splitlines())} lines, last: {text.strip().splitlines()[-1] if text.strip() else ''!r}")

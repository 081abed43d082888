#!/usr/bin/env python3
"""Judges `punktfunk-kiosk check --json` run under a compositor: the display section's
compositor finding must be ok and name the compositor; each `+SUBJECT` must be a degraded
finding (a missing optional protocol), each `-SUBJECT` must be absent (the protocol is there).
Under an X server, NAME `x11=SERVER`: the "X server" finding must be ok and its server fact begin
with SERVER (e.g. the vendor string and release xdpyinfo reads from the server).

    check_report.py REPORT.json NAME [+SUBJECT|-SUBJECT]...

Exit 0 with one line of figures, else 1 with why."""
import json
import sys


def main() -> int:
    path, name, *wants = sys.argv[1:]
    try:
        report = json.load(open(path))
    except Exception as e:  # noqa: BLE001 — any unreadable report is the failure
        print(f"unreadable report {path}: {e}")
        return 1
    display = next((s for s in report["sections"] if s["id"] == "display"), None)
    if display is None:
        print("no display section")
        return 1
    findings = {f["subject"]: f for f in display["findings"]}
    subject, fact, prefix = ("X server", "server", name[4:]) if name.startswith("x11=") else ("compositor", "compositor", name + " ")
    c = findings.get(subject)
    if c is None or c["verdict"] != "ok":
        print(f"{subject} finding not ok: {c}")
        return 1
    who = c["facts"].get(fact, "")
    if not who.startswith(prefix):
        print(f"{subject} named {who!r}, expected {prefix.strip()}")
        return 1
    problems = []
    for w in wants:
        subject = w[1:]
        f = findings.get(subject)
        if w[0] == "+" and (f is None or f["verdict"] != "degraded"):
            problems.append(f"{subject} should be degraded: {f}")
        if w[0] == "-" and f is not None:
            problems.append(f"{subject} should be absent: {f['why']}")
    if problems:
        print("; ".join(problems))
        return 1
    degraded = [s for s, f in findings.items() if f["verdict"] == "degraded"]
    clock = c["facts"].get("presentation clock", "none")
    print(f"{who}; degraded: {', '.join(degraded) or 'none'}; presentation clock {clock}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

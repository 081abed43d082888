"""The `loss` check of the VM harness (guest/loss-check.sh): pf-testhost's live anchor stream through
pf-relay's seeded burst loss to the kiosk on bochs-drm, software decode, with a picture log.

Judged: the session streamed (at least LOSS_MIN_SHOWN pictures shown), not one shown picture
differs from ffmpeg's decode of the same frame of the stream the host sent (a picture the
re-anchor gate let through after loss is either clean or a bug), the relay really dropped
host → client datagrams, and at least one ask was answered with an anchor (the recovery the
gate waits for). Figures: pictures shown/held, asks by answer, anchors and IDRs sent, the
kiosk's frozen time (its last stats line's "picture":{…"held_total_ms"…}), the check's guest time.
Stdlib only (ffmpeg for the reference decode).
"""
import collections
import json
import os
import subprocess

from verify_check import _rc, _read  # the evidence readers every check shares


def _jsonl(text):
    for line in text.splitlines():
        if line.startswith("{"):
            try:
                yield json.loads(line)
            except ValueError:
                pass


def _framemd5(path):
    """ffmpeg's framemd5 of every decoded picture of path, in output (= send) order."""
    if not os.path.exists(path):
        return [], "no sent stream"
    run = subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-i", path, "-f", "framemd5", "-"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    md5 = [l.rsplit(",", 1)[1].strip() for l in run.stdout.splitlines() if l and not l.startswith("#")]
    return md5, run.stderr.strip()[:200]


def check_loss(out, env, report):
    label = "loss bochs-drm: live anchor stream through burst loss, every shown picture is the clean decode"
    min_shown = int(env.get("LOSS_MIN_SHOWN", "100"))
    host = list(_jsonl(_read(out, "loss-host.stdout")))
    sent = [h for h in host if "sent" in h]
    asks = [h for h in host if "answer" in h]
    summary = next((h["host_summary"] for h in host if "host_summary" in h), None)
    relay = next(iter(_jsonl(_read(out, "loss-relay.stdout"))), None)
    pictures = list(_jsonl(_read(out, "loss-pictures.jsonl")))
    kiosk_lines = list(_jsonl(_read(out, "loss-kiosk.stdout")))
    stats = [k for k in kiosk_lines if "picture" in k]
    final = next((k for k in reversed(kiosk_lines) if "decoded" in k), {})
    rc = _rc(out, "loss-kiosk")
    try:
        times = json.loads(_read(out, "loss.times"))
        guest_s = float(times["t1"]) - float(times["t0"])
        mode = times.get("mode")
    except (ValueError, KeyError):
        guest_s, mode = float("nan"), None

    md5, ffmpeg_err = _framemd5(os.path.join(out, "loss-sent.hevc"))
    aligned = len(md5) == len(sent) and len(sent) > 0
    clean = {s["sent"]: m for s, m in zip(sent, md5)}
    shown = [p for p in pictures if p.get("shown")]
    held = [p for p in pictures if not p.get("shown")]
    wrong = [p["frame"] for p in shown if clean.get(p["frame"]) != p.get("md5")]
    held_clean = sum(1 for p in held if clean.get(p["frame"]) == p.get("md5"))

    # asks before the relay's first drop: the kiosk's decoder fell behind (an AU evicted from its
    # input counts as a loss), not the link (guest CLOCK_MONOTONIC on both sides)
    drops = [d["mono_ns"] for d in _jsonl(_read(out, "loss-drops.jsonl")) if d.get("dir") == "h2c"]
    first_drop = min(drops) if drops else None
    early = sum(1 for a in asks if first_drop is not None and a.get("mono_ns", 0) < first_drop)
    answers = collections.Counter(a.get("answer") for a in asks)
    keyframe_asks = sum(1 for a in asks if a.get("keyframe"))
    h2c = (relay or {}).get("h2c", {})
    c2h = (relay or {}).get("c2h", {})
    dropped = h2c.get("dropped_loss", 0)
    pic = stats[-1]["picture"] if stats else {}
    last = stats[-1] if stats else {}
    anchors = summary["anchors"] if summary else answers.get("anchor", 0)

    problems = []
    if rc != 0:
        problems.append(f"kiosk exit {rc}")
    if not aligned:
        problems.append(f"ffmpeg decoded {len(md5)} pictures of {len(sent)} AUs sent ({ffmpeg_err or 'no error'})")
    if len(shown) < min_shown:
        problems.append(f"only {len(shown)} pictures shown (need >= {min_shown})")
    if wrong:
        problems.append(f"{len(wrong)} shown pictures differ from the clean decode (frames {wrong[:10]})")
    if dropped <= 0:
        problems.append("the relay dropped no host → client datagram")
    if anchors <= 0 or answers.get("anchor", 0) <= 0:
        problems.append("no ask was answered with an anchor")
    if summary is None:
        problems.append("no host summary")
    figures = (
        f"{len(sent)} AUs sent ({summary['media_bytes'] if summary else '?'} B), {len(pictures)} pictures logged: "
        f"{len(shown)} shown ({len(shown) - len(wrong)} equal to ffmpeg's decode, {len(wrong)} differ), "
        f"{len(held)} held ({held_clean} of them clean); relay dropped h2c {dropped}/{h2c.get('received', 0)}, "
        f"c2h {c2h.get('dropped_loss', 0)}/{c2h.get('received', 0)} datagrams; "
        f"asks {len(asks)} answered {dict(answers)} ({keyframe_asks} keyframe asks, {early} before the first drop); kiosk asks rfi "
        f"{last.get('rfi_asks')}, keyframe {last.get('keyframe_asks')}, nack {last.get('nack_asks')}, given up "
        f"{last.get('asks_given_up')}; host sent {anchors} anchors, {summary['idrs'] if summary else '?'} IDRs "
        f"({summary['keyframes_forced'] if summary else '?'} forced); frozen {pic.get('held_total_ms')} ms in "
        f"{pic.get('holds')} holds, the longest {pic.get('longest_hold_ms')} ms (pictures held {pic.get('pictures_held')}, "
        f"AUs withheld from the decoder {pic.get('withheld')}); "
        + (f"decoded {final.get('decoded')}, skipped {final.get('skipped')}, rung {final.get('rung')}; " if final else "")
        + f"mode {mode}, scaling native; "
        f"guest time {guest_s:.1f} s")
    if problems:
        figures += "; " + "; ".join(problems)
        err = _read(out, "loss-kiosk.stderr").strip().splitlines()
        if err:
            figures += f"; kiosk stderr: {' | '.join(err[-3:])[:300]}"
    report(not problems, label, figures)

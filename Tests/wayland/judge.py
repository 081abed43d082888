#!/usr/bin/env python3
"""Judgements of the Wayland harness (Tests/wayland/run.sh), one per call; prints its figures and
exits 0 (pass) or 1 (fail). Pictures are judged as the VM harness judges screendumps
(Tests/vm/verify.py, verify_shell.py are imported, not copied).

  judge.py colour SHOT RRGGBB MIN_SHARE      share of SHOT's pixels within ±2 of the colour
  judge.py demo SHOT DEMO_FIXTURE [fit|native] [black|any-border]
                                            SHOT shows some frame of the demo stream at the place
                                            the scaling rule gives it (FFmpeg's fit), black around
                                            it; any-border: the surroundings are not judged
  judge.py summary STDERR FIXTURE WxH [presented|silent|none] [fit|native] [LOGICAL_WxH]
                                            the kiosk's start line asked for WxH and its summary
                                            counts commits (and presentations where the compositor
                                            answers), not hidden, the picture at FFmpeg's place
  judge.py protocol STDERR FIXTURE WxH LOGICAL_WxH
                                            the WAYLAND_DEBUG log's viewport/subsurface requests
                                            put the picture at FFmpeg's place in surface units
  judge.py pacing STDERR REFERENCE_LOG [REFRESH_MS]
                                            the kiosk's commit → presented no worse than
                                            weston-presentation-shm's, discards explained
  judge.py ocr SHOT PHRASE...               every phrase read on SHOT by tesseract
  judge.py keys LISTENER_LOG SCRIPT         the listener saw exactly the script's key edges
  judge.py hostkeys INPUT_LOG SCRIPT        pf-testhost's input log holds exactly the script's
                                            key edges as VKs (evdev→VK by the kiosk's table)
  judge.py pointer SHOT RRGGBB X Y W H INPUT_LOG SKIP REF_W REF_H HOST_X HOST_Y
                                            the box-drawn pointer: the colour's pixels fill a WxH
                                            box at X,Y (±2 px) and the host's last MouseMoveAbs
                                            after line SKIP is HOST_X,HOST_Y on REF_WxREF_H
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "vm"))
import verify  # noqa: E402  (the VM harness's picture judgement)
import verify_shell  # noqa: E402  (its OCR)

# evdev code → Windows VK for the keys the harness injects (Sources/Input/EvdevKeyMap.swift,
# pinned there by upstream's evdev-vk-vectors.json).
VK = {1: 0x1B, 14: 0x08, 15: 0x09, 16: 0x51, 17: 0x57, 28: 0x0D, 29: 0xA2, 30: 0x41, 31: 0x53, 32: 0x44,
      42: 0xA0, 48: 0x42, 54: 0xA1, 56: 0xA4, 57: 0x20, 97: 0xA3, 100: 0xA5, 103: 0x26, 105: 0x25,
      106: 0x27, 108: 0x28}


def rgb(shot):
    """(w, h, rgb24 bytes) of a PNG/PPM screenshot, decoded by ffmpeg."""
    with tempfile.TemporaryDirectory(prefix="pf-wl-") as d:
        ppm = os.path.join(d, "shot.ppm")
        subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-i", shot, "-frames:v", "1", "-pix_fmt", "rgb24", ppm],
                       check=True)
        return verify.read_ppm(ppm)


def colour(shot, hexcolour, min_share):
    w, h, px = rgb(shot)
    want = bytes.fromhex(hexcolour)
    n = sum(1 for i in range(0, len(px), 3)
            if abs(px[i] - want[0]) <= 2 and abs(px[i + 1] - want[1]) <= 2 and abs(px[i + 2] - want[2]) <= 2)
    share = n / (w * h)
    print(f"{os.path.basename(shot)} {w}x{h}: {share:.3f} of the pixels are #{hexcolour} (at least {min_share} wanted)")
    return share >= float(min_share)


def reference_frames(fixture):
    """The fixture's frames as the kiosk converts them. 10-bit fixtures (main10-*): libswscale
    interpolates their chroma unless told `neighbor`, while the kiosk (and swscale's unscaled 8-bit
    path, verify.reference_frames) takes each 4:2:0 chroma sample for its 2x2 block."""
    if not os.path.basename(fixture).startswith("main10-"):
        return verify.reference_frames(fixture, range(100000))
    fw, fh = map(int, os.path.basename(fixture)[:-5].rsplit("-", 1)[1].split("x"))
    raw = subprocess.run(["ffmpeg", "-loglevel", "error", "-i", fixture, "-vf",
                          "scale=in_color_matrix=bt709:in_range=tv:out_range=pc:flags=neighbor+accurate_rnd+full_chroma_int,"
                          "format=rgb24", "-f", "rawvideo", "-"], check=True, stdout=subprocess.PIPE).stdout
    fs = fw * fh * 3
    return fw, fh, {n: raw[n * fs:(n + 1) * fs] for n in range(len(raw) // fs)}


# A picture scaled by the compositor (bilinear in pixman and GL) or the kiosk's CPU (nearest)
# against the decoded frame scaled by FFmpeg (bilinear) to the same rectangle: the two filters
# part at every edge of the test pattern. Limits from the runs of 2026-11-28 (sway, weston, KWin,
# cage; Tests/wayland/run.sh evidence): mean 1.1-3.9 where the right frame is judged.
SCALED_MEAN_ABS = 8


def demo(shot, fixture, scaling="fit", border="black"):
    """SHOT shows a frame of the demo stream at the place the rule gives it (FFmpeg's, `verify.fit_place`), with black
    around it. The frame is found at the stream's size (the shot's rectangle scaled back, by
    area), then judged at the rectangle's size against the decoded frame scaled there (a scaled
    reference); unscaled pictures are judged with the glass limits. border "any-border": the
    surroundings are the compositor's and not judged (weston's GL renderer on llvmpipe fills
    them with the picture's corner colour around a centred surface)."""
    w, h, px = rgb(shot)
    fw, fh, ref = reference_frames(fixture)
    x0, y0, rw, rh = verify.fit_place(fw, fh, w, h, scaling)
    shown = verify.crop(w, px, x0, y0, rw, rh)
    # Outside the rectangle grown by one pixel (a compositor rounds a fractional edge either way).
    gx, gy = max(0, x0 - 1), max(0, y0 - 1)
    bad = verify.outside_is_black(w, h, px, gx, gy, min(w, x0 + rw + 1) - gx, min(h, y0 + rh + 1) - gy) if border == "black" else 0
    if (rw, rh) == (fw, fh):
        best, mean, p999, top, second, runner = verify.best_frame(shown, ref)
        ok = (mean <= verify.GLASS_MEAN_ABS and p999 <= verify.GLASS_P999_ABS and top <= verify.GLASS_MAX_ABS
              and runner > mean and bad == 0)
        print(f"screen {w}x{h}: 1:1 at ({x0},{y0}) is demo frame {best}: |err| mean {mean:.3f} p99.9 {p999} max {top}; "
              f"next best frame {second} {runner:.2f}; non-black bytes around it {bad}")
        return ok
    back = verify.rescaled(shown, rw, rh, fw, fh, "area")
    best, small_mean, _, _, second, runner = verify.best_frame(back, ref)
    reference = verify.rescaled(ref[best], fw, fh, rw, rh, "bilinear")
    mean, p999, top = verify.summarize(verify.abs_error_histogram(shown, reference))
    ok = mean <= SCALED_MEAN_ABS and runner > small_mean and bad == 0
    print(f"screen {w}x{h}: {scaling} place {rw}x{rh}+{x0}+{y0} (FFmpeg's) is demo frame {best} "
          f"(at {fw}x{fh}: mean {small_mean:.2f}, next best frame {second} {runner:.2f}); against it scaled to "
          f"{rw}x{rh}: |err| mean {mean:.2f} (limit {SCALED_MEAN_ABS}) p99.9 {p999} max {top}; non-black bytes around it {bad}")
    return ok


def json_lines(path, key):
    """The JSON objects of a log (the kiosk's stderr) that have `key`, in order."""
    found = []
    for line in open(path, errors="replace"):
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if key in obj:
            found.append(obj)
    return found


def summary(stderr, fixture, mode, feedback="presented", scaling="fit", logical=None):
    """The kiosk's own word on a stream under a compositor: its start line asked for MODE (the
    window's pixels, `WxH`), and its summary counts the pictures committed (> 0), presented where
    the compositor gives feedback (FEEDBACK `presented`: > 0; `silent`: wp_presentation that
    answers nothing, headless sway 1.7 — a count, not hidden; `none`: no wp_presentation, so no
    presented count at all), says not hidden, and places the picture where FFmpeg's fit does."""
    starts = json_lines(stderr, "wayland")
    sums = [o["display"] for o in json_lines(stderr, "summary")]
    if not starts or not sums:
        print(f"no start line ({len(starts)}) or summary ({len(sums)}) in {stderr}")
        return False
    start, d = starts[-1]["wayland"], sums[-1]
    fw, fh = map(int, os.path.basename(fixture)[:-5].rsplit("-", 1)[1].split("x"))
    sw, sh = map(int, mode.split("x"))
    x0, y0, rw, rh = verify.fit_place(fw, fh, sw, sh, scaling)
    want_place = f"{rw}x{rh}+{x0}+{y0}"
    problems = []
    if not start.get("mode", "").startswith(mode + "@"):
        problems.append(f"asked for {start.get('mode')}, not {mode}")
    # (the window as it ended: a compositor may configure the fullscreen size only once the
    # window is mapped — sway sends 0x0 first — so the start line may hold a placeholder)
    if logical and d.get("window") != logical:
        problems.append(f"the window is {d.get('window')} logical, not {logical}")
    if d.get("pixels") != mode:
        problems.append(f"the window's pixels are {d.get('pixels')}, not {mode}")
    if d.get("committed", 0) <= 0:
        problems.append("nothing committed")
    if feedback == "none":
        if d.get("feedback") != "none" or "presented" in d:
            problems.append(f"feedback {d.get('feedback')} with presented {d.get('presented')} where the compositor has no wp_presentation")
    elif d.get("feedback") != "wp_presentation" or "presented" not in d:
        problems.append(f"feedback {d.get('feedback')} where the compositor has wp_presentation")
    elif feedback == "presented" and d["presented"] <= 0:
        problems.append("nothing presented")
    if d.get("hidden") is not False:
        problems.append(f"hidden {d.get('hidden')}")
    if d.get("place") != want_place:
        problems.append(f"placed {d.get('place')} ({d.get('scaler')}), FFmpeg's place {want_place}")
    print(f"asked {start.get('mode')}; window {d.get('window')} ({d.get('pixels')} pixels); committed {d.get('committed')}, feedback "
          f"{d.get('feedback')}, presented {d.get('presented', '-')}, discarded {d.get('discarded', '-')}, hidden {d.get('hidden')}; "
          f"{d.get('picture')} at {d.get('place')} by {d.get('scaler')}" + ("; " + "; ".join(problems) if problems else ""))
    return not problems


def protocol(stderr, fixture, mode, logical):
    """The kiosk's requests in its WAYLAND_DEBUG=1 log (stderr) put the picture at FFmpeg's place
    in surface units: the video subsurface (the first wl_subsurface it makes) last positioned at
    the place's corner and its viewport's last destination the place's size — or, when the place
    is the whole window, the toplevel's viewport (the first) sized to the window."""
    import re
    fw, fh = map(int, os.path.basename(fixture)[:-5].rsplit("-", 1)[1].split("x"))
    sw, sh = map(int, mode.split("x"))
    lw, lh = map(int, logical.split("x"))
    x0, y0, rw, rh = verify.fit_place(fw, fh, sw, sh)
    # Pixels → surface units, each edge to the nearest unit (PlaneGeometry.rescale's rule).
    def edge(v, p, l):
        return (2 * v * l + p) // (2 * p)
    lx0, lx1, ly0, ly1 = edge(x0, sw, lw), edge(x0 + rw, sw, lw), edge(y0, sh, lh), edge(y0 + rh, sh, lh)
    want = (lx0, ly0, lx1 - lx0, ly1 - ly0)
    text = open(stderr, errors="replace").read()
    viewports = re.findall(r"-> wp_viewporter@\d+\.get_viewport\(new id wp_viewport@(\d+), wl_surface@(\d+)\)", text)
    subs = re.findall(r"-> wl_subcompositor@\d+\.get_subsurface\(new id wl_subsurface@(\d+), wl_surface@(\d+), wl_surface@\d+\)", text)
    if not viewports:
        print("no wp_viewporter.get_viewport in the protocol log")
        return False
    def last(pattern):
        found = re.findall(pattern, text)
        return tuple(map(int, found[-1])) if found else None
    if (rw, rh) == (sw, sh):
        top = viewports[0][0]
        dest = last(rf"-> wp_viewport@{top}\.set_destination\((-?\d+), (-?\d+)\)")
        ok = dest == (lw, lh)
        print(f"whole window: the toplevel's viewport (wp_viewport@{top}) last set to {dest}, the window is {lw}x{lh}")
        return ok
    if not subs:
        print("no wl_subcompositor.get_subsurface in the protocol log")
        return False
    sub, surf = subs[0]
    vp = next((v for v, s in viewports if s == surf), None)
    pos = last(rf"-> wl_subsurface@{sub}\.set_position\((-?\d+), (-?\d+)\)")
    dest = last(rf"-> wp_viewport@{vp}\.set_destination\((-?\d+), (-?\d+)\)") if vp else None
    got = (pos or (None, None)) + (dest or (None, None))
    print(f"video subsurface wl_subsurface@{sub} last at {pos}, its viewport wp_viewport@{vp} last {dest}; "
          f"FFmpeg's place {rw}x{rh}+{x0}+{y0} in {sw}x{sh} pixels is {want[2]}x{want[3]}+{want[0]}+{want[1]} in the {lw}x{lh} window")
    return got == want


def pacing(stderr, reference_log, refresh_ms="16.67"):
    """Commit → presented of the kiosk (its summary: the mean over every presented commit) against
    weston's own reference client at the same size in the same compositor (weston-presentation-shm
    -f: its c2p lines, whole ms). Passes when the kiosk is no worse, every discarded commit is
    explained (superseded by a newer one: newest wins), and — where the reference stays within
    one refresh — so does the kiosk."""
    import re
    ref = [int(v) for v in re.findall(r"c2p\s+(\d+) ms", open(reference_log, errors="replace").read())[1:]]  # (the first waits for the window)
    sums = [o["display"] for o in json_lines(stderr, "summary")]
    if not ref or not sums or "presented" not in sums[-1]:
        print(f"reference c2p lines {len(ref)}, kiosk summaries {len(sums)}: nothing to compare")
        return False
    d = sums[-1]
    ref_mean = sum(ref) / len(ref)
    kiosk = float(d["commit_to_present_ms"])
    refresh = float(refresh_ms)
    explained = d["discarded"] == d.get("superseded", -1)
    within = ref_mean > refresh or kiosk <= refresh
    ok = d["presented"] > 0 and kiosk <= ref_mean and explained and within
    print(f"commit → presented: kiosk {kiosk:.2f} ms mean over {d['presented']} presented (discarded {d['discarded']}, "
          f"superseded by a newer commit {d.get('superseded')}), weston-presentation-shm -f {ref_mean:.2f} ms over {len(ref)}; "
          f"ratio {kiosk / ref_mean:.2f}; one refresh {refresh} ms")
    return ok


def ocr(shot, phrases):
    ok, figures = verify_shell.judge_text(shot, phrases)
    print(figures)
    return ok


def script_keys(script):
    keys = []
    for line in open(script):
        f = line.split()
        if len(f) == 3 and f[0] == "key":
            keys.append((int(f[1]), int(f[2])))
    return keys


def keys(log, script):
    want = script_keys(script)
    seen = [(int(f[1]), int(f[2])) for f in (line.split() for line in open(log)) if len(f) == 3 and f[0] == "key"]
    print(f"injected {len(want)} key edges, the listener saw {len(seen)}" + ("" if seen == want else f": {seen} != {want}"))
    return seen == want


def hostkeys(log, script, skip="0"):
    want = [(0 if s else 1, VK[c]) for c, s in script_keys(script)]
    seen = []
    for line in list(open(log))[int(skip):]:
        try:
            e = json.loads(line)
        except ValueError:
            continue
        if e.get("kind") in (0, 1):
            seen.append((e["kind"], e["code"]))
    print(f"injected {len(want)} key edges, the host got {len(seen)}" + ("" if seen == want else f": {seen} != {want}"))
    return seen == want


def pointer(shot, hexcolour, x, y, w, h, host_log, skip, ref_w, ref_h, host_x, host_y):
    """The box-drawn pointer in a screenshot: the pixels of `hexcolour` (±8 per channel) span
    exactly a `w`×`h` box at (`x`, `y`) (±2 px: the spec's place after the fit), and the host's
    last MouseMoveAbs (kind 3) after line `skip` of its input log is (`host_x`, `host_y`) on a
    `ref_w`×`ref_h` reference."""
    sw, sh, px = rgb(shot)
    want = bytes.fromhex(hexcolour)
    xs, ys = [], []
    for i in range(0, len(px), 3):
        if abs(px[i] - want[0]) <= 8 and abs(px[i + 1] - want[1]) <= 8 and abs(px[i + 2] - want[2]) <= 8:
            xs.append((i // 3) % sw)
            ys.append((i // 3) // sw)
    box = (min(xs), min(ys), max(xs) - min(xs) + 1, max(ys) - min(ys) + 1) if xs else None
    moves = []
    with open(host_log) as f:
        for line in list(f)[int(skip):]:
            try:
                e = json.loads(line)
            except ValueError:
                continue
            if e.get("kind") == 3:
                i32 = lambda v: v - (1 << 32) if v >= 1 << 31 else v
                moves.append((i32(e["x"]), i32(e["y"]), e.get("flags", 0) >> 16, e.get("flags", 0) & 0xFFFF))
    want_box = (int(x), int(y), int(w), int(h))
    want_move = (int(host_x), int(host_y), int(ref_w), int(ref_h))
    print(f"{os.path.basename(shot)} {sw}x{sh}: #{hexcolour} spans {box} ({len(xs)} pixels), want {want_box} ±2; "
          f"host's last MouseMoveAbs {moves[-1] if moves else None}, want {want_move}")
    return box is not None and len(xs) == box[2] * box[3] and box[2:] == want_box[2:] \
        and all(abs(a - b) <= 2 for a, b in zip(box[:2], want_box[:2])) and bool(moves) and moves[-1] == want_move


def main(argv):
    what, args = argv[1], argv[2:]
    ok = {"colour": lambda: colour(*args), "demo": lambda: demo(*args), "ocr": lambda: ocr(args[0], args[1:]),
          "keys": lambda: keys(*args), "hostkeys": lambda: hostkeys(*args), "summary": lambda: summary(*args),
          "protocol": lambda: protocol(*args), "pacing": lambda: pacing(*args), "pointer": lambda: pointer(*args)}[what]()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))

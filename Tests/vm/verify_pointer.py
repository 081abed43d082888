"""The `pointer` check's judgement (imported by verify.py): the host's pointer on vkms's cursor
plane as the kernel holds it (kmstool planes: plane type, CRTC_X/Y, the framebuffer's pixels read
back), first where the host put it, then after a local mouse moved it; and what the host was told.
Once the host says its pointer is captured (0xD0's relative-mode hint) no cursor plane carries a
framebuffer and the mouse's motion reaches the host as relative counts. Evidence from
Tests/vm/guest/pointer-check.sh.

Expected places follow the spec's text: 0xD0 carries the hot spot in host output pixels
(data-plane.md §7.3), here a 1920x1080 mode whose pictures fill the 1024x768 screen, so host
(x, y) lands at (x·1024/1920, y·768/1080), within 2 px; MouseMoveAbs (§6.2 kind 3) carries the
place on a reference surface of the mode's size, flags = ref_w << 16 | ref_h. pf-testhost's shape is
a 16x16 opaque magenta square with its hot spot at the top-left, drawn at the picture's scale
(16·1024/1920 ≈ 8.5 px: 8 or 9)."""
import json
import os

from verify_input import _i32, _jsonl

MODE, SCREEN = (1920, 1080), (1024, 768)
MAGENTA = bytes([255, 0, 255, 255])   # AR24 bytes B, G, R, A (premultiplied, opaque)


def _cursor_plane(out, name):
    """The cursor-type plane with a framebuffer in NAME.planes, and its pixels (or a problem)."""
    try:
        state = json.loads(open(os.path.join(out, f"{name}.planes")).read())
    except (OSError, ValueError) as e:
        return None, None, f"no plane state ({e})"
    cursors = [p for p in state.get("planes", []) if p.get("type") == "cursor"]
    if len(cursors) != 1:
        return None, None, f"want one cursor plane with a framebuffer, kmstool saw {state.get('planes')}"
    p = cursors[0]
    try:
        pixels = open(p["dump"], "rb").read()
    except (KeyError, OSError) as e:
        return p, None, f"cursor plane {p.get('id')} ({p.get('format')}) not read back ({e})"
    return p, pixels, None


def _square(p, pixels):
    """Side of the magenta square at the buffer's top-left (0 when none), and whether everything
    outside it is transparent."""
    w, h = p["width"], p["height"]
    px = lambda x, y: pixels[(y * w + x) * 4:(y * w + x) * 4 + 4]
    side = 0
    while side < min(w, h) and px(side, side) == MAGENTA:
        side += 1
    inside = all(px(x, y) == MAGENTA for y in range(side) for x in range(side))
    clear = all(px(x, y) == b"\0\0\0\0" for y in range(h) for x in range(w) if x >= side or y >= side)
    return side, inside and clear


def check_pointer(out, report):
    rc = open(os.path.join(out, "pointer-kiosk.rc")).read().strip() if os.path.exists(os.path.join(out, "pointer-kiosk.rc")) else "?"
    host = [e for e in _jsonl(os.path.join(out, "pointer-host.jsonl")) if e.get("kind") in (2, 3)]
    moves = [(e["kind"], _i32(e["x"]), _i32(e["y"]), e["flags"]) for e in host]
    # the host moved its pointer where the kiosk said: from the centre (960, 540) by (+100, +50)
    # and by (+8, +4) six times more (the latency figures' moves), then (+30, 0) once captured
    ref = MODE[0] << 16 | MODE[1]
    want_moves = [(3, 1060, 590, ref)] + [(3, 1060 + 8 * i, 590 + 4 * i, ref) for i in range(1, 7)] + [(2, 30, 0, 0)]
    problems = []
    if moves != want_moves:
        problems.append(f"host input {moves} != {want_moves} (MouseMoveAbs, then relative once captured)")
    latency, why = pointer_latency(out)
    if why:
        problems.append(f"latency: {why}")
    figures = []
    for name, (hx, hy) in (("pointer-centre", (960, 540)), ("pointer-moved", (1060, 590))):
        p, pixels, why = _cursor_plane(out, name)
        if why:
            problems.append(f"{name}: {why}")
            continue
        ex, ey = hx * SCREEN[0] / MODE[0], hy * SCREEN[1] / MODE[1]
        side, clean = _square(p, pixels)
        at = (p["crtc_x"], p["crtc_y"])
        if abs(at[0] - ex) > 2 or abs(at[1] - ey) > 2:
            problems.append(f"{name}: cursor plane {p['id']} at {at}, host ({hx}, {hy}) lands at ({ex:.1f}, {ey:.1f})")
        if p.get("format") != "AR24" or side not in (8, 9) or not clean:
            problems.append(f"{name}: cursor plane {p['id']} {p.get('format')} {p['width']}x{p['height']} holds a magenta square "
                            f"of side {side} (want 8 or 9, the rest transparent: {clean})")
        figures.append(f"{name.split('-')[1]} at {at} (want ({ex:.1f}, {ey:.1f})), {side}x{side} magenta on a "
                       f"{p['width']}x{p['height']} AR24 cursor plane {p['id']}")
    try:
        captured = json.loads(open(os.path.join(out, "pointer-captured.planes")).read())
        shown = [p for p in captured.get("planes", []) if p.get("type") == "cursor"]
        if shown:
            problems.append(f"captured: the cursor plane still carries a framebuffer: {shown}")
        else:
            figures.append("captured: no cursor plane shown")
    except (OSError, ValueError) as e:
        problems.append(f"captured: no plane state ({e})")
    if rc != "143":
        problems.append(f"kiosk exit {rc}, expected 143 (SIGTERM)")
    report(not problems, "pointer: the host's pointer on the cursor plane, moved by a local mouse",
           "; ".join(problems) if problems else "; ".join(figures) + f"; the host got {moves}; {latency}")


def _median(v):
    v = sorted(v)
    return v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2


def pointer_latency(out):
    """Local mouse report → glass, for the box-drawn pointer and for the path a host-composited
    pointer takes, over the desktop-mode moves (all times CLOCK_MONOTONIC of the one guest, except
    the pts, which is the host's realtime capture time and only matched, never subtracted):

    - box: inputtool's write of the report (@@SYN) → the first flip after it that moved the cursor
      plane (the kiosk's flip log pointer line);
    - host path: the same report → the host's receipt of the MouseMoveAbs (its input log) → the
      first frame the host captured after that (its frame log: the first picture that could show
      the moved pointer composited) → that picture's flip (the flip line with its pts).
      pf-testhost streams a file, so no encode time is in it; it captures at the check's 10 fps.

    Returns (figures, problem): a problem when a move reached no flip."""
    syns = []
    try:
        for line in open(os.path.join(out, "pointer-tool.jsonl")):
            parts = line.split()
            if len(parts) == 3 and parts[0] == "@@SYN" and parts[1] == "mouse":
                syns.append(int(parts[2]))
    except (OSError, ValueError) as e:
        return "", f"no inputtool times ({e})"
    flips = _jsonl(os.path.join(out, "pointer-kiosk.flips"))
    pointer_flips = [f["pointer"]["flip_ns"] for f in flips if "pointer" in f]
    frame_flips = {f["pts_ns"]: f["flip_ns"] for f in flips if "flip_ns" in f and "pts_ns" in f}
    host = [e for e in _jsonl(os.path.join(out, "pointer-host.jsonl")) if e.get("kind") == 3]
    frames = sorted((f["capture_mono_ns"], f["pts_ns"]) for f in _jsonl(os.path.join(out, "pointer-host-frames.jsonl")))
    moves = min(len(syns), len(host), 7)   # the desktop-mode moves: the first and the six more
    if moves < 3:
        return "", f"{len(syns)} reports written, {len(host)} MouseMoveAbs received: too few moves to time"
    box, to_host, to_capture, to_glass, path = [], [], [], [], []
    for t, h in zip(syns[:moves], host[:moves]):
        shown = next((f for f in pointer_flips if f > t), None)
        if shown is None:
            return "", f"the report written at {t} ns reached no pointer flip (flip log: {len(pointer_flips)} pointer lines)"
        box.append((shown - t) / 1e6)
        captured = next(((c, pts) for c, pts in frames if c >= h["t_ns"]), None)
        if captured is None or captured[1] not in frame_flips:
            continue   # (the stream ended, or that picture was superseded before glass)
        to_host.append((h["t_ns"] - t) / 1e6)
        to_capture.append((captured[0] - h["t_ns"]) / 1e6)
        to_glass.append((frame_flips[captured[1]] - captured[0]) / 1e6)
        path.append((frame_flips[captured[1]] - t) / 1e6)
    figures = f"latency over {moves} moves, median: box-drawn {_median(box):.1f} ms (max {max(box):.1f})"
    if path:
        figures += (f"; host-composited path {_median(path):.1f} ms over {len(path)} = to the host {_median(to_host):.1f}"
                    f" + to its next capture {_median(to_capture):.1f} + capture to glass {_median(to_glass):.1f};"
                    f" {_median(path) / max(_median(box), 0.001):.1f}x the box-drawn")
    else:
        figures += "; host-composited path: no captured picture reached glass"
    return figures, None

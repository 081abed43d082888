#!/usr/bin/env python3
"""Judgements of the Wayland harness (Tests/wayland/run.sh), one per call; prints its figures and
exits 0 (pass) or 1 (fail). Pictures are judged as the VM harness judges screendumps
(Tests/vm/verify.py, verify_shell.py are imported, not copied).

  judge.py colour SHOT RRGGBB MIN_SHARE      share of SHOT's pixels within ±2 of the colour
  judge.py demo SHOT DEMO_FIXTURE [any-border]
                                            SHOT shows some frame of the demo stream (centred
                                            1:1 on black as on KMS, or scaled to fit the screen);
                                            any-border: what surrounds a 1:1 picture is the
                                            compositor's and not judged
  judge.py ocr SHOT PHRASE...               every phrase read on SHOT by tesseract
  judge.py keys LISTENER_LOG SCRIPT         the listener saw exactly the script's key edges
  judge.py hostkeys INPUT_LOG SCRIPT        pf-testhost's input log holds exactly the script's
                                            key edges as VKs (evdev→VK by the kiosk's table)
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


def demo(shot, fixture, border="black"):
    """The demo picture as shown: 1:1 centred on black (the KMS rule: never scale), else scaled to
    fit the screen with its aspect kept (a compositor's viewport). The closer geometry is judged
    with the glass limits (1:1) or scaled limits (a bilinear scale of ours vs the compositor's).
    border "any-border": the surroundings of a 1:1 picture are not judged (weston's GL renderer on
    llvmpipe fills them with the picture's corner colour around a centred fullscreen surface)."""
    w, h, px = rgb(shot)
    fw, fh, ref = reference_frames(fixture)
    candidates = []
    if w >= fw and h >= fh:
        x0, y0 = (w - fw) // 2, (h - fh) // 2
        shown = verify.crop(w, px, x0, y0, fw, fh)
        best, mean, p999, top, second, runner = verify.best_frame(shown, ref)
        border = verify.outside_is_black(w, h, px, x0, y0, fw, fh) if border == "black" else 0
        ok = (mean <= verify.GLASS_MEAN_ABS and p999 <= verify.GLASS_P999_ABS and top <= verify.GLASS_MAX_ABS
              and runner > mean and border == 0)
        candidates.append((ok, mean, f"1:1 at ({x0},{y0}) is demo frame {best}: |err| mean {mean:.3f} p99.9 {p999} "
                                     f"max {top}; next best frame {second} {runner:.2f}; non-black border bytes {border}"))
    scale = min(w / fw, h / fh)
    sw, sh = int(fw * scale) // 2 * 2, int(fh * scale) // 2 * 2
    if (sw, sh) != (fw, fh) and sw > 0 and sh > 0:
        # The shown picture scaled back to the stream's size (area average), against the decoded
        # frames: cheap, and the compositor's filter matters less after averaging.
        x0, y0 = (w - sw) // 2, (h - sh) // 2
        shown = subprocess.run(["ffmpeg", "-loglevel", "error", "-i", shot, "-vf",
                                f"crop={sw}:{sh}:{x0}:{y0},scale={fw}:{fh}:flags=area,format=rgb24",
                                "-frames:v", "1", "-f", "rawvideo", "-"], check=True, stdout=subprocess.PIPE).stdout
        best, mean, p999, top, second, runner = verify.best_frame(shown[:fw * fh * 3], ref)
        ok = mean <= 6 and runner > mean   # two scalers apart: a looser mean, no p99.9 bound
        candidates.append((ok, mean, f"scaled to {sw}x{sh} at ({x0},{y0}), scaled back, is demo frame {best}: "
                                     f"|err| mean {mean:.3f} p99.9 {p999} max {top}; next best frame {second} {runner:.2f}"))
    if not candidates:
        print(f"screen {w}x{h} is smaller than the demo's {fw}x{fh} and cannot hold it scaled")
        return False
    ok, _, figures = min(candidates, key=lambda c: (not c[0], c[1]))
    print(f"screen {w}x{h}: {figures}")
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


def main(argv):
    what, args = argv[1], argv[2:]
    ok = {"colour": lambda: colour(*args), "demo": lambda: demo(*args), "ocr": lambda: ocr(args[0], args[1:]),
          "keys": lambda: keys(*args), "hostkeys": lambda: hostkeys(*args)}[what]()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))

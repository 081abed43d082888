#!/usr/bin/env python3
"""The `shell` check's judgement (imported by verify.py; evidence from Tests/vm/guest/shell-check.sh):
a uinput pad drove the shell from the home screen through PIN pairing with pf-testhost, a stream,
the in-stream menu and Disconnect back to home. The text on each screendump is read with
tesseract (Debian tesseract-ocr) and matched loosely; the stream screendumps are judged against
the demo stream like the demo check's. Also writes shell-home.png and shell-pairing.png (the
README's pictures; docs/images holds a copy refreshed by hand).

As a program: `verify_shell.py ocr IMAGE PHRASE... [IMAGE PHRASE...]...` reads each IMAGE
(.ppm/.png) and exits 1 unless every phrase after it is found, printing what was read.
"""
import json
import os
import subprocess
import sys
import tempfile

# the screens the guest script waits for in turn (the kiosk's --shell-trace names), with the
# screendump taken there and the phrases that must be on it; a phrase ending in "…" may be shown
# cut short with an ellipsis (a host card fits about 12 characters of a name at this size)
SHOTS = (
    ("home", "shell-home", ("Hosts", "{host}…")),
    ("host", "shell-host", ("{host}", "Pair with PIN")),
    ("pin", "shell-pin", ("Pair with {host}", "shows in its console's pairing prompt")),
    ("pin", "shell-pin-typed", ("Pair with {host}", "{pin_spaced}")),
    ("menu", "shell-menu", ("Resume", "Disconnect", "Quit")),
    ("home", "shell-end", ("Hosts", "{host}…")),
)
# the README's pictures: PNG name -> screendump
PICTURES = {"shell-home": "shell-home", "shell-pairing": "shell-pin-typed"}
# the order of screens the trace must pass through (others may come between)
PATH = ("home", "host", "pin", "pairing", "host", "connecting", "streaming", "menu", "home")


# ---------------------------------------------------------------- OCR

def _edit_distance_in(pattern, text):
    """The fewest edits turning `pattern` into some substring of `text` (Sellers)."""
    prev = [0] * (len(text) + 1)
    for i, pc in enumerate(pattern, 1):
        cur = [i] + [0] * len(text)
        for j, tc in enumerate(text, 1):
            cur[j] = min(prev[j - 1] + (pc != tc), prev[j] + 1, cur[j - 1] + 1)
        prev = cur
    return min(prev)


def _normalised(text):
    """Lower case without whitespace: OCR splits and joins words and wraps lines unpredictably;
    curly and straight quotes are read interchangeably."""
    text = text.replace("\u2019", "'").replace("\u2018", "'")
    return "".join(text.lower().split())


def allowed_errors(phrase):
    """Character errors tolerated in a phrase (whitespace not counted): none in a number (a PIN
    must be read exactly) or up to 3 characters, 1 up to 10, 2 beyond."""
    p = _normalised(phrase)
    return 0 if p.isdigit() or len(p) <= 3 else 1 if len(p) <= 10 else 2


def found(phrase, text):
    """(ok, edits) whether `phrase` is in OCR `text`, case-insensitive, within allowed_errors.
    A phrase ending in "…" also counts when at least its first 9 characters (whitespace not
    counted) are there followed by an ellipsis."""
    t = _normalised(text.replace("\u2026", "..."))
    if not phrase.endswith("\u2026"):
        d = _edit_distance_in(_normalised(phrase), t)
        return d <= allowed_errors(phrase), d
    whole = phrase[:-1]
    best = _edit_distance_in(_normalised(whole), t)
    if best <= allowed_errors(whole):
        return True, best
    p = _normalised(whole)
    for n in range(len(p) - 1, 8, -1):
        d = _edit_distance_in(p[:n] + "...", t)
        if d <= allowed_errors(p[:n] + "..."):
            return True, d
        best = min(best, d)
    return False, best


def ocr(image):
    """The text tesseract reads on a screendump: the picture upscaled 2x in grey, read in both
    polarities (light text on the dark shell, dark text on focused/light elements), joined."""
    texts = []
    with tempfile.TemporaryDirectory(prefix="pf-ocr-") as d:
        for name, vf in (("negated", "scale=iw*2:ih*2:flags=lanczos,format=gray,negate"),
                         ("plain", "scale=iw*2:ih*2:flags=lanczos,format=gray")):
            png = os.path.join(d, name + ".png")
            subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-i", image, "-vf", vf, png], check=True)
            r = subprocess.run(["tesseract", png, "stdout", "-l", "eng", "--psm", "11"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            if r.returncode != 0:
                raise RuntimeError(f"tesseract failed on {image}: {r.stderr.strip()[:200]}")
            texts.append(r.stdout)
    return "\n".join(texts)


def judge_text(image, phrases):
    """(ok, figures): every phrase read on `image`; on failure the figures say what was read."""
    try:
        text = ocr(image)
    except (OSError, subprocess.CalledProcessError, RuntimeError) as e:
        return False, f"OCR of {os.path.basename(image)} failed: {e}"
    results = [(p, *found(p, text)) for p in phrases]
    missing = [f"{p!r} (best {d} edits, {allowed_errors(p)} allowed)" for p, ok, d in results if not ok]
    figures = "read " + (", ".join(f"{p!r} ({d} edits)" for p, ok, d in results if ok) or "none of them")
    if missing:
        figures += "; NOT read " + ", ".join(missing) + f"; tesseract read: {' '.join(text.split())[:600]!r}"
    return not missing, figures


# ---------------------------------------------------------------- PNG

def ppm_to_png(ppm, png):
    """A lossless PNG of a screendump (ffmpeg, a dependency of the harness already)."""
    subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-i", ppm, "-frames:v", "1", png], check=True)


# ---------------------------------------------------------------- the check

def _trace(out, name="shell.stdout"):
    """The kiosk's --shell-trace lines (in NAME): [(screen, flip)] in order."""
    screens = []
    try:
        with open(os.path.join(out, name)) as f:
            for line in f:
                line = line.strip()
                if not line.startswith("{"):
                    continue
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue
                if "shell" in rec:
                    screens.append((rec["shell"], rec.get("flip")))
    except OSError:
        pass
    return screens


def _passes_through(screens, path):
    """How far along `path` the trace got (all of it: len(path))."""
    k = 0
    for s in screens:
        if k < len(path) and s == path[k]:
            k += 1
    return k


def _read(path, default=""):
    try:
        return open(path).read()
    except OSError:
        return default


def check_shell(out, env, report, judge_stream):
    """`judge_stream(out, name, label_prefix, frames)` is verify.py's demo-picture judgement of
    screendumps NAME-frame-<n>.ppm (here shell-frame-<n>: taken while the stream played)."""
    host, pin = env.get("SHELL_HOST_NAME", "VM Living Room"), env.get("SHELL_PIN", "4821")
    steps = _read(os.path.join(out, "shell-steps.log")).strip()
    rc = _read(os.path.join(out, "shell.rc")).strip()
    hint = " | ".join(_read(os.path.join(out, "shell.stderr")).strip().splitlines()[-4:])[:300]
    screens = [s for s, _ in _trace(out)]
    # consecutive repeats (focus moves, typed digits) folded for the report
    folded = [s for i, s in enumerate(screens) if i == 0 or s != screens[i - 1]]
    reached = _passes_through(folded, PATH)
    report(reached == len(PATH), "shell pad walk (home → host → PIN → pairing → stream → menu → Disconnect → home)",
           f"screens {' → '.join(folded) or 'none'} ({len(screens)} frames); "
           + ("every step reached" if reached == len(PATH) else f"stopped before {PATH[reached]!r} (step {reached + 1} of {len(PATH)})")
           + f"; guest steps: {steps.splitlines()[-1] if steps else 'none'}; kiosk exit {rc or '?'}"
           + ("" if reached == len(PATH) else f"; kiosk stderr: {hint}"))
    values = {"host": host, "pin_spaced": " ".join(pin)}
    for screen, name, phrases in SHOTS:
        image = os.path.join(out, name + ".ppm")
        label = f"shell OCR {name} ({screen})"
        if not os.path.exists(image):
            report(False, label, f"no screendump {name}.ppm (the walk stopped earlier; guest steps: {steps.splitlines()[-1] if steps else 'none'})")
            continue
        ok, figures = judge_text(image, [p.format(**values) for p in phrases])
        report(ok, label, f"{image}: {figures}")
    frames = [int(x) for x in env.get("SHELL_STREAM_SHOTS", "1,2").split(",")]
    judge_stream(out, "shell", "shell stream (paired, via the shell)", frames)
    written = []
    for png, ppm in PICTURES.items():
        src = os.path.join(out, ppm + ".ppm")
        if os.path.exists(src):
            ppm_to_png(src, os.path.join(out, png + ".png"))
            written.append(png + ".png")
    if written:
        print(f"vm-harness: shell pictures {', '.join(os.path.join(out, w) for w in written)} "
              "(the README's copies are docs/images/, refreshed by hand)", flush=True)


def main(argv):
    if len(argv) < 3 or argv[1] != "ocr":
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    ok_all, image, phrases = True, None, []

    def flush():
        nonlocal ok_all
        if image is not None:
            ok, figures = judge_text(image, phrases)
            print(f"{'PASS' if ok else 'FAIL'} {image}: {figures}", flush=True)
            ok_all = ok_all and ok

    for arg in argv[2:]:
        if os.path.splitext(arg)[1].lower() in (".ppm", ".png") and os.path.exists(arg):
            flush()
            image, phrases = arg, []
        else:
            phrases.append(arg)
    flush()
    return 0 if ok_all else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))

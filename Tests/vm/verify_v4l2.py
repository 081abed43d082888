#!/usr/bin/env python3
"""The `v4l2` check's judgement (evidence from Tests/vm/guest/v4l2-check.sh, booted by run-v4l2.sh).

visl, the kernel's virtual stateless decoder, traces every HEVC control of every decode job
(visl_hevc_controls: sps, pps, slice_params, scaling_matrix, decode_params, 16 dpb entries,
pred_weight_table). Each corpus stream was decoded by the kiosk's V4L2 rung and by GStreamer's
v4l2slh265dec (the oracle: an implementation of the same uAPI no one here wrote), in two passes
(slice-based without start codes on every stream; frame-based with Annex B start codes on the
streams where the mode matters). Judged per pass and stream:
- both decoders ran to the end (exit 0); the kiosk's run had no VIDIOC_S_EXT_CTRLS refusal (the
  kernel validates the controls: a refusal is a decode error, hence a non-zero exit);
- both sent the same pictures (matched by POC and its occurrence, in decode order) with the same
  number of jobs;
- every traced field is equal, job by job: DPB entries as a set of (POC, flags, field_pic) —
  timestamps name buffers and differ by design —, and every DPB index (poc_st_curr_before/after,
  poc_lt_curr, ref_idx_l0/l1) resolved to the POC it names.
Two more: a damaged stream ends in errors and keyframe asks, not a crash; pictures wider than
visl takes are refused at once and the ladder's software rung decodes them as ffmpeg does.
Fields where GStreamer 1.22 is itself wrong are listed in ORACLE_EXCEPTIONS with the reason; for
them the kiosk's value is checked against the rule the kernel's uAPI documentation states.
"""
import argparse
import collections
import json
import os
import re
import sys

from verify import RESULTS, report  # one PASS/FAIL line and one count for both boots


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


# ---------------------------------------------------------------- trace parsing

HEADER = re.compile(r"^\s*.+?-\d+\s+(?:\(\s*[\d-]+\)\s+)?\[\d+\]\s+\S+\s+[\d.]+:\s+(\w+):\s?(.*)$")


def events(text):
    """(name, body lines) for every event of a `trace` dump, in order."""
    current = None
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        m = HEADER.match(line)
        if m:
            if current:
                yield current
            current = (m.group(1), [m.group(2)] if m.group(2).strip() else [])
        elif current:
            current[1].append(line)
    if current:
        yield current


def value(text):
    """A traced value: int, list of ints ({0x1,0x2} arrays and {xx xx} hex dumps), or a set of flag names."""
    t = text.strip()
    if t.startswith("{") and t.endswith("}"):
        inner = t[1:-1].replace("\n", " ").strip()
        if not inner:
            return []
        if "," in inner:
            return [int(x, 0) for x in inner.split(",") if x.strip()]
        return [int(x, 16) for x in inner.split()]
    if re.fullmatch(r"-?\d+", t):
        return int(t)
    if re.fullmatch(r"0x[0-9a-fA-F]+", t):
        return int(t, 16)
    return frozenset(x for x in t.split("|") if x)


def fields(lines):
    """key → value of one event's body (`key value` lines; braces may span lines)."""
    out = {}
    pending = None
    for line in lines:
        if pending:
            pending[1].append(line)
            if "}" in line:
                out[pending[0]] = value("\n".join(pending[1]))
                pending = None
            continue
        line = line.strip()
        if not line:
            continue
        key, _, rest = line.partition(" ")
        if rest.startswith("{") and "}" not in rest:
            pending = (key, [rest])
            continue
        out[key] = value(rest)
    return out


def cases(text):
    """{(pass, stream, decoder): [job]} — a job is one decode run's controls:
    {'sps': {}, 'pps': {}, 'slice': {}, 'scaling': {}, 'decode': {}, 'dpb': [{}…], 'pwt': {}}."""
    out = collections.defaultdict(list)
    key = None
    job = None
    names = {"v4l2_ctrl_hevc_sps": "sps", "v4l2_ctrl_hevc_pps": "pps", "v4l2_ctrl_hevc_slice_params": "slice",
             "v4l2_ctrl_hevc_scaling_matrix": "scaling", "v4l2_ctrl_hevc_decode_params": "decode",
             "v4l2_hevc_pred_weight_table": "pwt"}
    for name, body in events(text):
        if name == "tracing_mark_write":
            words = " ".join(body).split()
            key = tuple(words[1:4]) if len(words) >= 4 and words[0] == "@@case" else None
            job = None
            continue
        if key is None:
            continue
        if name == "v4l2_ctrl_hevc_sps":
            job = {"dpb": []}
            out[key].append(job)
        if job is None:
            continue
        if name == "v4l2_hevc_dpb_entry":
            job["dpb"].append(fields(body))
        elif name in names:
            job[names[name]] = fields(body)
    return out


# ---------------------------------------------------------------- comparison

# Fields where GStreamer 1.22.0's v4l2slh265dec does not do what the uAPI documentation says;
# the kiosk's value is judged against the documented rule instead (see docs/architecture.md,
# "The V4L2 stateless rung").
ORACLE_EXCEPTIONS = {}


def pictures(jobs, frame_based):
    """Jobs grouped per picture (a picture starts at slice_segment_addr 0; frame-based: every job),
    keyed by (POC, occurrence of that POC so far) in decode order."""
    pics = []
    for j in jobs:
        first = frame_based or j.get("slice", {}).get("slice_segment_addr", 0) == 0 or not pics
        if first:
            pics.append([j])
        else:
            pics[-1].append(j)
    keyed = collections.OrderedDict()
    seen = collections.Counter()
    for p in pics:
        poc = p[0].get("decode", {}).get("pic_order_cnt_val")
        keyed[(poc, seen[poc])] = p
        seen[poc] += 1
    return keyed


def resolve(job, index):
    """The POC a DPB index names in `job` (None for 0xff; 'bad N' beyond the active entries)."""
    if index == 0xFF:
        return None
    n = job["decode"].get("num_active_dpb_entries", 0)
    if index >= n or index >= len(job["dpb"]):
        return f"bad {index}"
    return job["dpb"][index].get("pic_order_cnt_val")


def normalised(job):
    """The job's fields as compared: timestamps dropped, DPB indices resolved to POCs."""
    d = dict(job.get("decode", {}))
    n = d.get("num_active_dpb_entries", 0)
    for name, count in (("poc_st_curr_before", "num_poc_st_curr_before"),
                        ("poc_st_curr_after", "num_poc_st_curr_after"), ("poc_lt_curr", "num_poc_lt_curr")):
        d[name] = [resolve(job, i) for i in d.get(name, [])[:d.get(count, 0)]]
    dpb = sorted((e.get("pic_order_cnt_val"), tuple(sorted(e.get("flags", frozenset()))), e.get("field_pic"))
                 for e in job.get("dpb", [])[:n])
    s = dict(job.get("slice", {}))
    for name, count in (("ref_idx_l0", "num_ref_idx_l0_active_minus1"), ("ref_idx_l1", "num_ref_idx_l1_active_minus1")):
        used = s.get(count, 0) + 1
        if name == "ref_idx_l0" and s.get("slice_type") == 2:
            used = 0
        if name == "ref_idx_l1" and s.get("slice_type") != 0:
            used = 0
        entries = s.get(name, [])
        s[name] = [resolve(job, i) for i in entries[:used]]
        s[name + " (unused entries)"] = entries[used:]
    out = {}
    for part in ("sps", "pps", "scaling", "pwt"):
        for k, v in job.get(part, {}).items():
            out[f"{part}.{k}"] = v
    for k, v in d.items():
        out[f"decode.{k}"] = v
    out["decode.dpb"] = dpb
    for k, v in s.items():
        out[f"slice.{k}"] = v
    return out


def compare(kiosk_jobs, gst_jobs, frame_based):
    """(pictures compared, jobs compared, fields compared, [difference text])."""
    k, g = pictures(kiosk_jobs, frame_based), pictures(gst_jobs, frame_based)
    diffs = []
    only_k = [key for key in k if key not in g]
    only_g = [key for key in g if key not in k]
    if only_k:
        diffs.append(f"pictures only the kiosk sent (POC, n): {only_k[:6]}")
    if only_g:
        diffs.append(f"pictures only GStreamer sent (POC, n): {only_g[:6]}")
    jobs = nfields = 0
    for key in k:
        if key not in g:
            continue
        kp, gp = k[key], g[key]
        if len(kp) != len(gp):
            diffs.append(f"POC {key[0]}#{key[1]}: {len(kp)} jobs from the kiosk, {len(gp)} from GStreamer")
            continue
        for n, (kj, gj) in enumerate(zip(kp, gp)):
            jobs += 1
            a, b = normalised(kj), normalised(gj)
            for name in sorted(set(a) | set(b)):
                nfields += 1
                if a.get(name) == b.get(name):
                    continue
                rule = ORACLE_EXCEPTIONS.get(name)
                if rule and rule[1](kj, a.get(name)):
                    continue
                diffs.append(f"POC {key[0]}#{key[1]} job {n} {name}: kiosk {a.get(name)!r}, GStreamer {b.get(name)!r}")
    return len(k), jobs, nfields, diffs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--corpus", required=True)
    a = ap.parse_args()
    env = dict(line.split("=", 1) for line in read(os.path.join(a.out, "guest.env")).splitlines() if "=" in line)
    env = {k: v.strip("'") for k, v in env.items()}
    streams = {"slice": env["STREAMS"].split(), "frame": env["FRAME_STREAMS"].split()}
    passes = env["PASSES"].split()
    what = dict(line.split("\t", 1) for line in read(os.path.join(a.corpus, "manifest.tsv")).splitlines() if "\t" in line)

    trace = read(os.path.join(a.out, "v4l2-trace.txt"))
    stats = read(os.path.join(a.out, "v4l2-stats.txt"))
    overruns = sum(int(x) for x in re.findall(r"overrun: (\d+)", stats))
    steps = read(os.path.join(a.out, "v4l2-steps.log")).strip()
    report(bool(trace) and overruns == 0, "v4l2 visl trace complete",
           f"{len(trace)} bytes, {overruns} events overrun; {steps.splitlines()[1] if len(steps.splitlines()) > 1 else steps}")
    traced = cases(trace)

    totals = collections.Counter()
    for p in passes:
        for s in streams[p]:
            base = os.path.join(a.out, f"v4l2-{p}-{s}")
            krc, grc = read(base + "-kiosk.rc").strip(), read(base + "-gst.rc").strip()
            klog, glog = read(base + "-kiosk.log"), read(base + "-gst.log")
            kj, gj = traced.get((p, s, "kiosk"), []), traced.get((p, s, "gst"), [])
            name = f"v4l2 {p} {s} ({what.get(s, '?')})"
            if grc != "0" or not gj:
                report(False, name, f"the oracle failed: gst-launch exit {grc or '?'}, {len(gj)} jobs traced; "
                       + " ".join(glog.split())[-300:])
                continue
            if krc != "0" or not kj:
                report(False, name, f"kiosk decode exit {krc or '?'}, {len(kj)} jobs traced; " + " ".join(klog.split())[-400:])
                continue
            npics, njobs, nfields, diffs = compare(kj, gj, p == "frame")
            totals["pictures"] += npics
            totals["jobs"] += njobs
            totals["fields"] += nfields
            report(not diffs, name, f"{npics} pictures, {njobs} jobs, {nfields} fields equal to GStreamer's"
                   if not diffs else f"{len(diffs)} differences: " + "; ".join(diffs[:8]))

    # damaged slice data: the rung reports errors (exit 1 from `decode`), never a crash or a hang
    rc, log = read(os.path.join(a.out, "v4l2-damaged.rc")).strip(), read(os.path.join(a.out, "v4l2-damaged.log"))
    summary = next((l for l in log.splitlines() if "access units" in l), "")
    report(rc in ("0", "1") and "keyframe requests" in summary and "Fatal error" not in log,
           "v4l2 damaged stream: errors and keyframe asks, no crash", f"exit {rc or '?'}; {summary or log[-300:]}")
    # pictures wider than visl's 4096, each an IDR: the rung refuses the stream at its first picture,
    # software decodes from the next IDR on (those frames equal ffmpeg's last two)
    rc, log = read(os.path.join(a.out, "v4l2-wide.rc")).strip(), read(os.path.join(a.out, "v4l2-wide.log"))
    got = [l.split(",")[-1].strip() for l in read(os.path.join(a.out, "v4l2-wide.framemd5")).splitlines() if l and not l.startswith("#")]
    want = []
    try:
        import subprocess
        ff = subprocess.run(["ffmpeg", "-v", "error", "-i", env["WIDE"], "-f", "framemd5", "-"], capture_output=True, text=True)
        want = [l.split(",")[-1].strip() for l in ff.stdout.splitlines() if l and not l.startswith("#")]
    except OSError:
        pass
    demoted = "demoted from v4l2" in log and "exceeds the driver's" in log
    report(demoted and len(want) == 3 and got == want[1:], "v4l2 refused stream falls to software",
           f"exit {rc or '?'}, {len(got)} frames ({'equal to' if got == want[1:] else 'differ from'} ffmpeg's last {len(want) - 1}); "
           + " ".join(l for l in log.splitlines() if "v4l2" in l)[:300])

    check = read(os.path.join(a.out, "v4l2-check.json"))
    probe = read(os.path.join(a.out, "v4l2-probe.json"))
    try:
        devices = json.loads(probe).get("v4l2", {}).get("devices", [])
    except ValueError:
        devices = []
    visl = [d for d in devices if d.get("driver") == "visl"]
    report(bool(visl) and visl[0].get("is_virtual") is True, "v4l2 probe lists visl",
           f"{[(d.get('video_path'), d.get('driver'), d.get('decode_modes')) for d in devices]}")
    try:
        decode = next(s for s in json.loads(check).get("sections", []) if s.get("id") == "decode")
        findings = [f for f in decode.get("findings", []) if "V4L2" in f.get("subject", "") or "visl" in f.get("subject", "")]
    except (ValueError, StopIteration):
        findings = []
    said = [f"{f.get('subject')}: {f.get('verdict')} — {f.get('why')}" for f in findings]
    report(any(f.get("verdict") == "not available" and "visl" in f.get("why", "") for f in findings),
           "v4l2 check reports visl as a virtual test decoder (not available)", "; ".join(said)[:600] or "no V4L2 finding")
    print(f"vm-harness: v4l2: {totals['pictures']} pictures, {totals['jobs']} jobs, {totals['fields']} fields compared",
          flush=True)
    failed = RESULTS.count(False)
    print(f"vm-harness: v4l2: {len(RESULTS) - failed} passed, {failed} failed", flush=True)
    return 1 if failed or not RESULTS else 0


if __name__ == "__main__":
    sys.exit(main())

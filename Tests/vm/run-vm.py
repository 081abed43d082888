#!/usr/bin/env python3
"""Boots the harness VM once and services its serial console until it powers off.

QEMU runs under TCG with two display devices: VGA (bochs-drm in the guest, QMP device "vga") and
virtio-gpu-pci (virtio_gpu, QMP device "vgpu"). The host root is exported read-only (9p tag
hostroot), OUT read-write (tag out); init mounts OUT at the same path inside the guest and runs
SCRIPT there. Console protocol, one line each way:
    guest: @@SCREENDUMP <name> <qmp-device> [<head>]
    host:  QMP screendump of that device/head into OUT/<name>.ppm, then writes "ACK" to the console
Every console line is logged to OUT/serial.log with the host wall-clock offset in seconds.
Exit status: 0 when the guest script ran to the end, 1 otherwise (timeout, QEMU failure, no end).
"""
import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time


class QMP:
    """Minimal QMP client: one command at a time, asynchronous events skipped."""

    def __init__(self, path, deadline_s=10.0):
        end = time.monotonic() + deadline_s
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX)
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                if time.monotonic() > end:
                    raise
                time.sleep(0.05)
        self.stream = self.sock.makefile("rwb", buffering=0)
        self.stream.readline()  # greeting
        self.execute("qmp_capabilities")

    def execute(self, command, **arguments):
        msg = {"execute": command}
        if arguments:
            msg["arguments"] = arguments
        self.stream.write(json.dumps(msg).encode() + b"\n")
        while True:
            reply = json.loads(self.stream.readline())
            if "return" in reply or "error" in reply:
                return reply


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--initrd", required=True)
    ap.add_argument("--script", required=True, help="absolute path of the guest script")
    ap.add_argument("--out", required=True, help="output directory (created)")
    ap.add_argument("--mem", default="256", help="guest RAM in MiB (>= 256; less thrashes 9p)")
    ap.add_argument("--smp", default="2")
    ap.add_argument("--timeout", type=float, default=600.0, help="wall-clock limit in seconds")
    ap.add_argument("--quiet", action="store_true", help="do not echo the console to stdout")
    a = ap.parse_args()

    out = os.path.abspath(a.out)
    # the guest mounts fresh tmpfs/proc/sysfs/devtmpfs over these, hiding the host's files
    # (/tmp is left as the host's, read-only: CI checkouts live there)
    for path in (out, a.script):
        if path.split("/")[1] in ("run", "proc", "sys", "dev"):
            print(f"run-vm: {path} is hidden in the guest (under a guest-side mount)", file=sys.stderr)
            return 1
    os.makedirs(out, exist_ok=True)
    # host-side only, so /tmp is fine; a short path keeps it under the 108-byte AF_UNIX limit
    qmp_dir = tempfile.mkdtemp(prefix="pf-vm-")
    qmp_path = os.path.join(qmp_dir, "qmp.sock")
    cmd = [
        "qemu-system-x86_64",
        "-accel", "tcg,thread=multi,tb-size=256",   # 256 MiB TB cache: ~650 MB host RSS instead of ~1.5 GB
        "-cpu", "max", "-smp", a.smp, "-m", a.mem,
        "-nodefaults", "-no-user-config", "-nic", "none", "-no-reboot",
        "-device", "VGA,id=vga,vgamem_mb=64",
        "-device", "virtio-gpu-pci,id=vgpu",
        "-display", "none", "-serial", "stdio", "-monitor", "none",
        "-qmp", f"unix:{qmp_path},server=on,wait=off",
        "-kernel", a.kernel, "-initrd", a.initrd,
        "-append", f"console=ttyS0 quiet vt.global_cursor_default=0 pf.run={a.script} pf.out={out}",
        "-virtfs", "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap",
        "-virtfs", f"local,path={out},mount_tag=out,security_model=none,multidevs=remap",
    ]
    t0 = time.monotonic()
    log = open(os.path.join(out, "serial.log"), "w")
    log.write("QEMU: " + " ".join(cmd) + "\n")
    try:
        qemu = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, bufsize=0)
    except FileNotFoundError:
        print("run-vm: qemu-system-x86_64 not found (install qemu-system-x86)", file=sys.stderr)
        shutil.rmtree(qmp_dir, ignore_errors=True)
        return 1

    timed_out = threading.Event()

    def kill_after_timeout():
        try:
            qemu.wait(timeout=a.timeout)
        except subprocess.TimeoutExpired:
            timed_out.set()
            qemu.kill()

    threading.Thread(target=kill_after_timeout, daemon=True).start()

    def emit(text):
        line = f"[{time.monotonic() - t0:7.2f}] {text}"
        log.write(line + "\n")
        log.flush()
        if not a.quiet:
            print(line, flush=True)

    qmp = None
    script_ended = False
    for raw in iter(qemu.stdout.readline, b""):
        line = raw.decode("utf-8", "replace").rstrip("\r\n")
        emit(line)
        if line.startswith("@@VM script-exit"):
            script_ended = True
        if not line.startswith("@@SCREENDUMP "):
            continue
        fields = line.split()
        if len(fields) < 3:
            emit("@@HOST malformed screendump request")
            qemu.stdin.write(b"ACK\n")
            continue
        name, device = fields[1], fields[2]
        head = int(fields[3]) if len(fields) > 3 else 0
        started = time.monotonic()
        try:
            if qmp is None:
                qmp = QMP(qmp_path)
            reply = qmp.execute("screendump", filename=os.path.join(out, name + ".ppm"),
                                device=device, head=head)
        except (OSError, ValueError) as e:
            reply = {"error": str(e)}
        emit(f"@@HOST screendump {name} device={device} head={head} "
             f"{'ok' if 'return' in reply else reply} {1000 * (time.monotonic() - started):.1f} ms")
        qemu.stdin.write(b"ACK\n")
    qemu.wait()
    wall = time.monotonic() - t0
    emit(f"@@HOST qemu exit {qemu.returncode} wall {wall:.1f} s"
         + (f" TIMEOUT after {a.timeout:.0f} s" if timed_out.is_set() else ""))
    log.close()
    shutil.rmtree(qmp_dir, ignore_errors=True)
    return 0 if script_ended and not timed_out.is_set() else 1


if __name__ == "__main__":
    sys.exit(main())

internal import CDRM
#if canImport(Glibc)
import Glibc
#endif

/// Process-controlled VT switching on the controlling virtual terminal (mpv's scheme):
/// `VT_SETMODE {VT_PROCESS, relsig SIGUSR1, acqsig SIGUSR2}` plus `KD_GRAPHICS` so the console
/// stops drawing. The kernel then asks before switching away (SIGUSR1; answer `VT_RELDISP 1` after
/// dropping master) and tells us when we are back (SIGUSR2; answer `VT_RELDISP VT_ACKACQ`).
///
/// Owned: `restore()` (also run by deinit) puts back the VT mode and KD mode found at start.
/// Not a VT (a serial console, ssh, a pipe) → `init` returns nil and nothing is changed.
public final class VTSwitch {
    private let fd: Int32
    private var savedMode = vt_mode()
    private var savedKD: Int = Int(KD_TEXT)
    private var restored = false

    public init?() {
        let f = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard f >= 0 else { return nil }
        var mode = vt_mode()
        guard drmIoctl(f, UInt(VT_GETMODE), &mode) == 0 else { close(f); return nil }
        fd = f
        savedMode = mode
        var kd: Int32 = 0
        if drmIoctl(f, UInt(KDGETMODE), &kd) == 0 { savedKD = Int(kd) }
        var process = vt_mode()
        process.mode = CChar(VT_PROCESS)
        process.relsig = Int16(SIGUSR1)
        process.acqsig = Int16(SIGUSR2)
        _ = drmIoctl(f, UInt(VT_SETMODE), &process)
        _ = ioctlValue(UInt(KDSETMODE), Int(KD_GRAPHICS))
    }

    deinit {
        restore()
        close(fd)
    }

    /// Allows the pending switch away (after the caller restored the display and dropped master).
    public func acknowledgeRelease() { _ = ioctlValue(UInt(VT_RELDISP), 1) }

    /// Acknowledges getting the VT back (before the caller re-takes master and modesets).
    public func acknowledgeAcquire() { _ = ioctlValue(UInt(VT_RELDISP), Int(VT_ACKACQ)) }

    /// Asks the kernel to switch to VT `number` (1…63; VT_ACTIVATE): the release request
    /// (SIGUSR1) follows as for a switch the console started. For Ctrl+Alt+F`n` typed on a
    /// grabbed keyboard, which the console's own keyboard handler never sees.
    public func activate(_ number: Int) {
        guard number >= 1, number <= 63 else { return }
        _ = ioctlValue(UInt(VT_ACTIVATE), number)
    }

    /// Puts back the VT and KD modes found at start (idempotent).
    public func restore() {
        guard !restored else { return }
        restored = true
        _ = ioctlValue(UInt(KDSETMODE), savedKD)
        _ = drmIoctl(fd, UInt(VT_SETMODE), &savedMode)
    }

    /// ioctls whose argument is an integer value, not a pointer (KDSETMODE, VT_RELDISP).
    private func ioctlValue(_ request: UInt, _ value: Int) -> Int32 {
        drmIoctl(fd, request, UnsafeMutableRawPointer(bitPattern: value))
    }
}

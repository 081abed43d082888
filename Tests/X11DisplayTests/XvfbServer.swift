import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real X server for a test: `Xvfb -displayfd 1` on the first free display number (it prints
/// the number it took), a 24-bit root of the given size, no TCP. Optionally an EWMH window
/// manager beside it (`matchbox-window-manager -use_titlebar no`). `stop()` (or deinit) kills both.
/// nil from `start` with a sentence when Xvfb is not installed or does not come up.
final class XvfbServer {
    let display: String
    let process: Process
    private(set) var windowManager: Process?

    private init(display: String, process: Process) {
        self.display = display; self.process = process
    }

    /// Why live X11 tests cannot run here (nil: they can).
    static var unavailableReason: String? {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/Xvfb") ? nil
            : "no /usr/bin/Xvfb (Debian package xvfb; Tests/tools/install-deps.sh installs it)"
    }

    static func start(width: Int = 1280, height: Int = 720) throws -> XvfbServer {
        if let why = unavailableReason { throw XvfbError(why) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/Xvfb")
        p.arguments = ["-displayfd", "1", "-screen", "0", "\(width)x\(height)x24", "-nolisten", "tcp", "-noreset"]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try p.run()
        // The display number, then a newline, once the server accepts connections.
        var text = ""
        let deadline = Date().addingTimeInterval(15)
        let fd = out.fileHandleForReading.fileDescriptor
        while !text.contains("\n"), Date() < deadline {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 200) > 0 else { if !p.isRunning { break }; continue }
            var byte: UInt8 = 0
            guard read(fd, &byte, 1) == 1 else { break }
            text.append(Character(UnicodeScalar(byte)))
        }
        guard let n = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            Glibc.kill(p.processIdentifier, SIGKILL)
            throw XvfbError("Xvfb did not start (it printed \(text.debugDescription))")
        }
        return XvfbServer(display: ":\(n)", process: p)
    }

    /// Starts matchbox-window-manager on this server and waits until it claims the root
    /// (`_NET_SUPPORTING_WM_CHECK` set, read with xprop).
    func startWindowManager() throws {
        let path = "/usr/bin/matchbox-window-manager"
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw XvfbError("no \(path) (Debian package matchbox-window-manager)")
        }
        let wm = Process()
        wm.executableURL = URL(fileURLWithPath: path)
        wm.arguments = ["-use_titlebar", "no"]
        wm.environment = ["DISPLAY": display, "PATH": "/usr/bin:/bin"]
        wm.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        wm.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try wm.run()
        windowManager = wm
        for _ in 0..<100 {
            let q = Process()
            q.executableURL = URL(fileURLWithPath: "/usr/bin/xprop")
            q.arguments = ["-display", display, "-root", "_NET_SUPPORTING_WM_CHECK"]
            let o = Pipe(); q.standardOutput = o; q.standardError = FileHandle(forWritingAtPath: "/dev/null")
            if (try? q.run()) != nil {
                q.waitUntilExit()
                let s = String(decoding: o.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                if s.contains("window id") { return }
            }
            usleep(100_000)
        }
        throw XvfbError("matchbox-window-manager did not claim the root within 10 s")
    }

    /// Ends the window manager and the server with SIGKILL: a child started from a test's worker
    /// thread inherits that thread's blocked signals (SIGTERM among them), so only SIGKILL is sure.
    func stop() {
        if let wm = windowManager, wm.isRunning { Glibc.kill(wm.processIdentifier, SIGKILL); wm.waitUntilExit() }
        kill()
    }

    /// Kills the server at once (SIGKILL): what a crash looks like to its clients.
    func kill() {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
    }

    deinit { stop() }
}

struct XvfbError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

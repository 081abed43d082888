import Foundation
import Screen
import SystemClock
import VideoFrames
import X11Display

/// How long handing one full-screen picture to an X server takes, MIT-SHM against PutImage (the
/// baseline, measured in the same run on the same server): a 1920×1080 NV12 picture converted
/// into a pixmap's memory and presented, then one round trip so the server has taken it — with
/// MIT-SHM it reads our memory at the copy; with PutImage 8.3 MB cross the socket first. A private
/// `Xvfb` (1920×1080×24) is started for the run; without one the bench says so and skips.
/// Medians over `frames` pictures each, alternating the two screens.
struct X11HandOverBench {
    let frames: Int

    func report() -> [String] {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/Xvfb") else {
            return ["x11 hand-over: skipped (no /usr/bin/Xvfb; Debian package xvfb)"]
        }
        let xvfb = Process()
        xvfb.executableURL = URL(fileURLWithPath: "/usr/bin/Xvfb")
        xvfb.arguments = ["-displayfd", "1", "-screen", "0", "1920x1080x24", "-nolisten", "tcp"]
        let out = Pipe()
        xvfb.standardOutput = out
        xvfb.standardError = FileHandle(forWritingAtPath: "/dev/null")
        guard (try? xvfb.run()) != nil else { return ["x11 hand-over: Xvfb did not start"] }
        defer { kill(xvfb.processIdentifier, SIGKILL); xvfb.waitUntilExit() }
        var number = ""
        let fd = out.fileHandleForReading.fileDescriptor
        var byte: UInt8 = 0
        while read(fd, &byte, 1) == 1, byte != 10 { number.append(Character(UnicodeScalar(byte))) }
        let display = ":\(number)"
        do {
            let shm = try X11Screen(display: display, sharedMemory: true)
            let put = try X11Screen(display: display, sharedMemory: false)
            defer { shm.close(); put.close() }
            let frame = Self.frame(width: 1920, height: 1080)
            var samples: [[Double]] = [[], []], beyond: [[Double]] = [[], []]
            var id: UInt64 = 0
            for _ in 0..<frames {
                for (k, screen) in [shm, put].enumerated() {
                    while screen.outstanding > 0 { screen.serviceEvents(timeoutMs: 5) }
                    id += 1
                    let converted = screen.stats.convertNsSum
                    let t0 = MonotonicClock.nowNs()
                    screen.show(.cpu(frame), frameID: id, readyNs: t0)
                    screen.sync()
                    let total = MonotonicClock.nowNs() - t0
                    samples[k].append(Double(total) / 1e6)
                    beyond[k].append(Double(total - (screen.stats.convertNsSum - converted)) / 1e6)
                }
            }
            func median(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }
            let a = median(samples[0]), b = median(samples[1])
            return [String(format: "x11 hand-over, 1920x1080 picture (convert + present + round trip, median of %d): MIT-SHM %.2f ms, "
                           + "PutImage %.2f ms (×%.2f); beyond the conversion: MIT-SHM %.2f ms, PutImage %.2f ms",
                           frames, a, b, b / a, median(beyond[0]), median(beyond[1]))]
        } catch {
            return ["x11 hand-over: \(error)"]
        }
    }

    /// A 1920×1080 NV12 luma ramp, neutral chroma.
    static func frame(width: Int, height: Int) -> DecodedFrame {
        var y = [UInt8](repeating: 0, count: width * height)
        for r in 0..<height { for c in 0..<width { y[r * width + c] = UInt8(16 + (c + r) % 220) } }
        return DecodedFrame(pts: 0, width: width, height: height, crop: FrameCrop(), pixelFormat: .nv12,
                            planes: [FramePlane(bytes: y, stride: width, rowBytes: width, height: height),
                                     FramePlane(bytes: [UInt8](repeating: 128, count: width * height / 2), stride: width,
                                                rowBytes: width, height: height / 2)],
                            colour: FrameColour())
    }
}

import Foundation
import HEVC
import VideoDecode
import SystemClock

/// Decode figures, each against a baseline measured in the same run:
/// - the libavcodec rung (SoftwareDecoder: slice threads, NV12/P010 output) on a 1080p stream
///   against `ffmpeg -threads N -thread_type slice -f null -` on the same file (its `-benchmark`
///   rtime: decode only, no process start), reported as a frame-rate ratio (target ≥ 0.95);
/// - the HEVC planner (parse + plan, what the VA-API rung adds on the CPU per access unit) on a
///   4K stream, in µs per access unit, next to the time to merely split it into NAL units.
/// Streams are generated with ffmpeg + libx265 (-preset ultrafast) into a temp directory.
struct DecodeBench {
    let seconds: Int
    let passes: Int

    struct BenchError: Error, CustomStringConvertible { var description: String }

    func report() throws -> [String] {
        guard let ffmpeg = Self.ffmpegPath() else { throw BenchError(description: "ffmpeg not on PATH") }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("decode-bench-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var lines = ["decode (\(seconds) s streams, best of \(passes)):"]

        let hd = dir.appendingPathComponent("1080p.hevc").path
        try Self.encode(ffmpeg, size: "1920x1080", frames: 30 * seconds, to: hd)
        let hdBytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: hd)))
        let aus = AccessUnitSplitter.split(hdBytes)
        SoftwareDecoder.setLibraryLogging(enabled: false)
        let threads = try SoftwareDecoder().threadCount
        // Passes alternate between the rung and ffmpeg so machine load hits both alike; the
        // best wall time of each counts, and CPU time (all threads) is compared as well.
        var best = Double.infinity, ffBest = Double.infinity
        var cpuBest = Double.infinity, ffCPUBest = Double.infinity, readBest = Double.infinity
        var frames = 0
        // Per pass, rung and ffmpeg run back to back: their ratio is the least load-sensitive figure.
        var pairedRatios: [Double] = []
        for _ in 0..<passes {
            let decoder = try SoftwareDecoder(threads: threads)
            let cpuStart = Self.processCPUSeconds()
            let start = MonotonicClock.nowNs()
            var n = 0
            for (i, au) in aus.enumerated() { n += try decoder.decode(accessUnit: au, pts: Int64(i)).count }
            n += decoder.flush().count
            let wall = Double(MonotonicClock.nowNs() - start) / 1e9
            best = min(best, wall)
            cpuBest = min(cpuBest, Self.processCPUSeconds() - cpuStart)
            frames = n
            // The same, reading every frame's planes on the decode thread (8-bit chroma is
            // interleaved on first read, normally by the present thread's copy).
            let decoder2 = try SoftwareDecoder(threads: threads)
            let start2 = MonotonicClock.nowNs()
            var touched = 0
            for (i, au) in aus.enumerated() {
                for f in try decoder2.decode(accessUnit: au, pts: Int64(i)) {
                    touched &+= f.planes.reduce(0) { acc, p in acc &+ p.bytes.withUnsafeBytes { Int($0[$0.count - 1]) } }
                }
            }
            _ = decoder2.flush()
            readBest = min(readBest, Double(MonotonicClock.nowNs() - start2) / 1e9)
            precondition(touched >= 0)
            let ff = try Self.ffmpegDecodeSeconds(ffmpeg, file: hd, threads: threads)
            ffBest = min(ffBest, ff.real)
            pairedRatios.append((Double(n) / wall) / (Double(aus.count) / ff.real))
            ffCPUBest = min(ffCPUBest, ff.cpu)
        }
        let ours = Double(frames) / best
        let theirs = Double(aus.count) / ffBest
        lines.append("  software rung 1080p (\(frames) frames, \(threads) slice threads): \(fmt(ours, 1)) fps, "
                     + "\(fmt(cpuBest / Double(frames) * 1e3, 2)) ms CPU/frame")
        lines.append("  the same reading every plane on the decode thread: \(fmt(Double(frames) / readBest, 1)) fps")
        lines.append("  ffmpeg -threads \(threads) -thread_type slice -f null: \(fmt(theirs, 1)) fps, "
                     + "\(fmt(ffCPUBest / Double(aus.count) * 1e3, 2)) ms CPU/frame")
        pairedRatios.sort()
        lines.append("  ratio software rung / ffmpeg: \(fmt(pairedRatios[pairedRatios.count / 2], 3)) by frame rate "
                     + "(median of \(passes) back-to-back pairs; \(fmt(pairedRatios.first!, 3))–\(fmt(pairedRatios.last!, 3))), "
                     + "\(fmt(ours / theirs, 3)) best vs best, \(fmt(ffCPUBest / cpuBest, 3)) by CPU time (target ≥ 0.95)")

        let uhd = dir.appendingPathComponent("2160p.hevc").path
        try Self.encode(ffmpeg, size: "3840x2160", frames: 30 * seconds, to: uhd)
        let uhdBytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: uhd)))
        let uhdAUs = AccessUnitSplitter.split(uhdBytes)
        var planBest = Double.infinity, splitBest = Double.infinity
        var warnings = 0
        for _ in 0..<passes {
            var parser = HEVCParser()
            var planner = DecodePlanner()
            let start = MonotonicClock.nowNs()
            for au in uhdAUs {
                var units: [HEVCParser.ParsedNALUnit] = []
                for r in AnnexB.nalUnitRanges(in: au) {
                    if let u = try? parser.parseNALUnit(Array(au[r])) { units.append(u) }
                }
                warnings += planner.plan(units).warnings.count
            }
            planBest = min(planBest, Double(MonotonicClock.nowNs() - start) / 1e9)
            let s2 = MonotonicClock.nowNs()
            var count = 0
            for au in uhdAUs { count += AnnexB.nalUnitRanges(in: au).count }
            splitBest = min(splitBest, Double(MonotonicClock.nowNs() - s2) / 1e9)
            precondition(count > 0)
        }
        let avgBytes = uhdBytes.count / max(1, uhdAUs.count)
        lines.append("  planner 4K (\(uhdAUs.count) AUs, mean \(avgBytes / 1000) kB): \(fmt(planBest / Double(uhdAUs.count) * 1e6, 1)) µs/AU"
                     + " (Annex-B split alone \(fmt(splitBest / Double(uhdAUs.count) * 1e6, 1)) µs/AU, \(warnings) warnings)")
        return lines
    }

    static func encode(_ ffmpeg: String, size: String, frames: Int, to path: String) throws {
        let status = try run(ffmpeg, ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi",
                                      "-i", "testsrc2=size=\(size):rate=30", "-frames:v", "\(frames)",
                                      "-pix_fmt", "yuv420p", "-c:v", "libx265", "-preset", "ultrafast",
                                      "-x265-params", "keyint=60:bframes=0:repeat-headers=1:info=0:log-level=none",
                                      "-f", "hevc", path]).status
        guard status == 0 else { throw BenchError(description: "encoding \(size) failed") }
    }

    /// ffmpeg's own decode time for the file: `-benchmark` rtime (wall) and utime + stime.
    static func ffmpegDecodeSeconds(_ ffmpeg: String, file: String, threads: Int) throws -> (real: Double, cpu: Double) {
        let out = try run(ffmpeg, ["-hide_banner", "-nostats", "-benchmark", "-threads", "\(threads)", "-thread_type", "slice",
                                   "-i", file, "-f", "null", "-"])
        guard let line = out.stderr.split(separator: "\n").first(where: { $0.contains("bench:") && $0.contains("rtime=") }) else {
            throw BenchError(description: "no -benchmark line from ffmpeg")
        }
        func value(_ key: String) -> Double? {
            guard let f = line.split(separator: " ").first(where: { $0.hasPrefix(key + "=") }) else { return nil }
            return Double(f.dropFirst(key.count + 1).filter { $0 != "s" })
        }
        guard let real = value("rtime"), let user = value("utime"), let sys = value("stime") else {
            throw BenchError(description: "unreadable -benchmark line: \(line)")
        }
        return (real, user + sys)
    }

    /// User + system CPU seconds of this process (every thread).
    static func processCPUSeconds() -> Double {
        var u = rusage()
        getrusage(RUSAGE_SELF.rawValue, &u)
        return Double(u.ru_utime.tv_sec) + Double(u.ru_utime.tv_usec) / 1e6 + Double(u.ru_stime.tv_sec) + Double(u.ru_stime.tv_usec) / 1e6
    }

    static func ffmpegPath() -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
            let p = "\(dir)/ffmpeg"
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return nil
    }

    static func run(_ tool: String, _ args: [String]) throws -> (status: Int32, stderr: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = args
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = FileHandle.nullDevice
        let errURL = FileManager.default.temporaryDirectory.appendingPathComponent("decode-bench-\(UUID().uuidString).err")
        FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errURL) }
        p.standardError = try FileHandle(forWritingTo: errURL)
        try p.run()
        p.waitUntilExit()
        return (p.terminationStatus, (try? String(contentsOf: errURL, encoding: .utf8)) ?? "")
    }

    private func fmt(_ v: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", v) }
}

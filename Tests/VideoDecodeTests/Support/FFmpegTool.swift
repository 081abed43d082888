import Foundation
import Testing

/// Runs the `ffmpeg` CLI (copied in spirit from HEVCTests/Support/FFmpeg.swift, which another
/// test target cannot import). Tests that need it are gated on `isAvailable`.
enum FFmpegTool {
    static let path: String? = {
        let dirs = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/usr/local/bin").split(separator: ":")
        for dir in dirs {
            let candidate = "\(dir)/ffmpeg"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }()

    /// ffmpeg exists and has the libx265 encoder.
    static let isAvailable: Bool = {
        guard path != nil, let out = try? run(["-hide_banner", "-encoders"]) else { return false }
        return out.stdout.contains("libx265")
    }()

    static let skipReason: Comment = "needs ffmpeg with libx265 on PATH"

    struct Output { var status: Int32; var stdout: String; var stderr: String }

    /// Runs ffmpeg, collecting stdout/stderr through temp files (no pipe dead-lock).
    static func run(_ arguments: [String]) throws -> Output {
        guard let ffmpeg = path else { throw CocoaError(.fileNoSuchFile) }
        let dir = FileManager.default.temporaryDirectory
        let id = UUID().uuidString
        let outURL = dir.appendingPathComponent("vd-ffmpeg-\(id).out"), errURL = dir.appendingPathComponent("vd-ffmpeg-\(id).err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: ffmpeg)
        p.arguments = arguments
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = try FileHandle(forWritingTo: outURL)
        p.standardError = try FileHandle(forWritingTo: errURL)
        try p.run()
        p.waitUntilExit()
        let out = (try? String(contentsOf: outURL, encoding: .utf8)) ?? ""
        let err = (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
        return Output(status: p.terminationStatus, stdout: out, stderr: err)
    }
}

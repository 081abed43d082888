import Foundation

/// Runs the `ffmpeg` CLI for the oracle tests of every test target (HEVC trace_headers,
/// framemd5, output order). Tests that need it are gated on `isAvailable`.
public enum FFmpeg {
    /// The ffmpeg binary on PATH, if any.
    public static let path: String? = {
        let dirs = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/usr/local/bin").split(separator: ":")
        for dir in dirs {
            let candidate = "\(dir)/ffmpeg"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }()

    /// ffmpeg exists and has the libx265 encoder.
    public static let isAvailable: Bool = {
        guard path != nil, let out = try? run(["-hide_banner", "-encoders"]) else { return false }
        return out.stdout.contains("libx265")
    }()

    public struct Output { public var status: Int32; public var stdout: String; public var stderr: String }

    /// Runs ffmpeg with `arguments`, collecting stdout and stderr (via temp files, so a large
    /// trace cannot dead-lock on a full pipe).
    public static func run(_ arguments: [String], tool: String = "ffmpeg") throws -> Output {
        guard let ffmpeg = path else { throw CocoaError(.fileNoSuchFile) }
        let path = tool == "ffmpeg" ? ffmpeg : ffmpeg.replacingOccurrences(of: "/ffmpeg", with: "/\(tool)")
        let dir = FileManager.default.temporaryDirectory
        let id = UUID().uuidString
        let outURL = dir.appendingPathComponent("ffmpeg-\(id).out"), errURL = dir.appendingPathComponent("ffmpeg-\(id).err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
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

    /// The order in which ffmpeg's HEVC decoder outputs the pictures of a raw Annex-B file, as
    /// indices of its access units in decoding order.
    ///
    /// A raw .hevc has no timestamps (`frame=pts` prints N/A), and `coded_picture_number` is 0
    /// for every frame in ffmpeg 5.1. What works: each output frame's `pkt_pos` is the byte
    /// offset of the packet (access unit) it was decoded from, and `-show_entries packet=pos`
    /// lists those offsets in decoding order; ranking one in the other gives the order.
    public static func outputOrder(of file: String) throws -> [Int] {
        func column(_ entries: String) throws -> [Int] {
            let out = try run(["-v", "error", "-select_streams", "v", "-show_entries", entries, "-of", "csv=p=0", file],
                              tool: "ffprobe")
            guard out.status == 0 else { throw CocoaError(.fileReadUnknown) }
            return out.stdout.split(separator: "\n").compactMap { Int($0.split(separator: ",").first ?? "") }
        }
        let packets = try column("packet=pos")
        let index = Dictionary(packets.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        return try column("frame=pkt_pos").map { index[$0] ?? -1 }
    }
}

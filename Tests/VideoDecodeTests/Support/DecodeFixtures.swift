import Foundation
import FFmpegOracle
import Testing

/// Small x265 fixtures generated at test time, with ffmpeg's own framemd5 of each.
struct DecodeFixture: Sendable, CustomTestStringConvertible {
    var name: String
    var x265 = "keyint=4:bframes=0:repeat-headers=1:info=0:log-level=none"
    var pixelFormat = "yuv420p"
    var frames = 6
    /// Extra ffmpeg output options (colour description).
    var options: [String] = []
    /// Encoded one after the other and concatenated (a mid-stream SPS change).
    var sizes = ["192x108"]
    var testDescription: String { name }

    static let all: [DecodeFixture] = [
        DecodeFixture(name: "main-8bit"),
        DecodeFixture(name: "main10-bt2020-pq", pixelFormat: "yuv420p10le",
                      options: ["-color_primaries", "bt2020", "-color_trc", "smpte2084", "-colorspace", "bt2020nc"]),
        DecodeFixture(name: "resolution-change", frames: 3, sizes: ["192x108", "128x72"]),
        DecodeFixture(name: "two-slices", x265: "keyint=4:bframes=0:slices=2:ctu=16:repeat-headers=1:info=0:log-level=none"),
        DecodeFixture(name: "b-frames-odd-size", x265: "keyint=8:bframes=3:repeat-headers=1:info=0:log-level=none",
                      frames: 8, sizes: ["190x106"]),
    ]

    struct Generated: Sendable {
        var bytes: [UInt8]
        /// ffmpeg's framemd5 lines (no comments), with `-autoscale 0` so a resolution change is
        /// hashed at the decoded size.
        var ffmpegLines: [String]
        /// ffmpeg's `#` header lines without `#software`.
        var ffmpegHeader: [String]
    }

    struct FixtureError: Error, CustomStringConvertible { var description: String }

    private static let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("videodecode-fixtures-\(ProcessInfo.processInfo.processIdentifier)")

    /// All fixtures, generated serially on first use.
    static let generated: [String: Result<Generated, FixtureError>] = {
        var out: [String: Result<Generated, FixtureError>] = [:]
        for f in all { out[f.name] = f.generate() }
        try? FileManager.default.removeItem(at: directory)
        return out
    }()

    func load() throws -> Generated {
        guard let r = DecodeFixture.generated[name] else { throw FixtureError(description: "unknown fixture \(name)") }
        return try r.get()
    }

    private func generate() -> Result<Generated, FixtureError> {
        let dir = DecodeFixture.directory
        do {
            let (bytes, path) = try FFmpeg.encodeTestStream(name: name, in: dir, sizes: sizes, frames: frames,
                                                            pixelFormat: pixelFormat, x265: x265, options: options)
            let md5 = try FFmpeg.run(["-hide_banner", "-v", "error", "-i", path, "-autoscale", "0", "-f", "framemd5", "-"])
            guard md5.status == 0 else { return .failure(FixtureError(description: "framemd5 \(name): \(md5.stderr)")) }
            let lines = md5.stdout.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") && !$0.isEmpty }
            let header = md5.stdout.split(separator: "\n").map(String.init).filter { $0.hasPrefix("#") && !$0.hasPrefix("#software") }
            return .success(Generated(bytes: bytes, ffmpegLines: lines, ffmpegHeader: header))
        } catch {
            return .failure(FixtureError(description: "\(name): \(error)"))
        }
    }
}


import Foundation

/// Test HEVC streams made by ffmpeg + libx265 from the `testsrc2` pattern, shared by the test
/// targets (which cannot import each other).
extension FFmpeg {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Encodes one part per entry of `sizes` (`frames` frames each, 30 fps, `filter` appended to
    /// the lavfi source, `options` before the output) and concatenates them — so several sizes
    /// make a resolution change — into `directory/name.hevc`.
    /// - Returns: the stream's bytes and its path.
    public static func encodeTestStream(name: String, in directory: URL, sizes: [String], frames: Int,
                                        pixelFormat: String, x265: String, filter: String = "",
                                        options: [String] = []) throws -> (bytes: [UInt8], path: String) {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var bytes: [UInt8] = []
        for (k, size) in sizes.enumerated() {
            let part = directory.appendingPathComponent("\(name)-\(k).hevc")
            let enc = try run(["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi",
                               "-i", "testsrc2=size=\(size):rate=30" + filter, "-frames:v", "\(frames)",
                               "-pix_fmt", pixelFormat, "-c:v", "libx265", "-x265-params", x265]
                              + options + ["-f", "hevc", part.path])
            guard enc.status == 0 else { throw Failure(description: "encode \(name): \(enc.stderr)") }
            bytes += [UInt8](try Data(contentsOf: part))
        }
        let url = directory.appendingPathComponent("\(name).hevc")
        try Data(bytes).write(to: url)
        return (bytes, url.path)
    }

    /// `ffmpeg -bsf:v trace_headers` output (stderr) for the file.
    public static func traceHeaders(of path: String) throws -> String {
        let trace = try run(["-hide_banner", "-nostats", "-i", path, "-c", "copy", "-bsf:v", "trace_headers", "-f", "null", "-"])
        guard trace.status == 0 else { throw Failure(description: "trace \(path): \(trace.stderr)") }
        return trace.stderr
    }
}

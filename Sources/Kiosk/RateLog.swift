import Foundation

/// `--rate-log FILE`: the rate loop's line for every closed Feedback window (`RateLoop.logLine`:
/// `{"t_ms","asked","granted","delivered_kbps","owd_rise_ms","loss_ppm","verdict","reason"}`),
/// one per line, flushed as written. Written on the pump thread only; a resumed session goes on
/// in the same file.
public final class RateLog: @unchecked Sendable {
    private let handle: FileHandle
    public private(set) var lines = 0

    /// Creates (truncates) `path`. - Throws: a sentence naming the file when it cannot be written.
    public init(path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil),
              let handle = FileHandle(forWritingAtPath: path) else {
            throw LogFileError(sentence: "Cannot write the rate log \(path).")
        }
        self.handle = handle
    }

    deinit { try? handle.close() }

    public func log(_ line: String) {
        handle.write(Data((line + "\n").utf8))
        lines += 1
    }
}

import Foundation

/// A log of one JSON object per line (`--picture-log`, `--rate-log`): created (truncated) when
/// opened, each line written as it comes. One writer thread.
public final class JSONLinesFile: @unchecked Sendable {
    private let handle: FileHandle
    /// Lines written.
    public private(set) var lines = 0

    /// - Parameter what: the log's name in the error sentence ("picture log").
    /// - Throws: `LogFileError`, a sentence naming the file, when it cannot be written.
    public init(path: String, what: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil),
              let handle = FileHandle(forWritingAtPath: path) else {
            throw LogFileError(sentence: "Cannot write the \(what) \(path).")
        }
        self.handle = handle
    }

    deinit { try? handle.close() }

    /// One line (`line` without its newline).
    public func write(_ line: String) {
        handle.write(Data((line + "\n").utf8))
        lines += 1
    }
}

/// A log file that cannot be written: one sentence naming it.
public struct LogFileError: Error, CustomStringConvertible {
    public let sentence: String
    public var description: String { sentence }
}

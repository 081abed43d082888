/// A log file (`--picture-log`, `--rate-log`) that cannot be written: one sentence naming it.
public struct LogFileError: Error, CustomStringConvertible {
    public let sentence: String
    public var description: String { sentence }
}

/// Why an audio operation failed. `description` is one sentence.
public enum AudioError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A libopus call returned an error code (OPUS_BAD_ARG = -1, OPUS_INVALID_PACKET = -4, …).
    case opus(call: String, code: Int32)

    public var description: String {
        switch self {
        case .opus(let call, let code): return "\(call) failed with Opus error \(code)."
        }
    }
}

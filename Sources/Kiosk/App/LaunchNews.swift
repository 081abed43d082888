import PunktfunkWire

/// What a person is told about the title a session asked for: one sentence per LaunchOutcome
/// (control-plane.md §5, 0x34), ending in the host's own message when it sent one.
public enum LaunchNews {
    /// The line said when the session is dialled.
    public static func asking(title: String, id: String, host: String) -> String {
        title == id ? "asking \(host) to start \(id)" : "asking \(host) to start \(title) (\(id))"
    }

    /// - Parameters:
    ///   - title: the title's name (the pinned title's, else its library id).
    ///   - host: the host's name.
    public static func sentence(_ outcome: LaunchOutcome, title: String, host: String) -> String {
        let base: String
        switch outcome.kind {
        case .spawned: base = "\(host) started \(title)"
        case .adopted: base = "\(title) was already running on \(host); the stream shows it"
        case .adoptedUnknown: base = "\(host) showed a game that was already running instead of starting \(title)"
        case .refused: base = "\(host) refused to start \(title)"
        case .failed: base = "\(title) did not start on \(host)"
        case .signInNeeded: base = "\(host) needs a sign-in to its store before it can start \(title)"
        }
        let message = outcome.message
        guard !message.isEmpty else { return base + "." }
        return base + ": " + message + (message.last.map { ".!?".contains($0) } == true ? "" : ".")
    }
}

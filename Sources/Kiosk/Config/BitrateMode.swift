/// Whether the stream's rate follows the line (`bitrate-mode` in the config, `--bitrate-mode`).
public enum BitrateMode: String, Sendable, Equatable, CaseIterable {
    /// The rate loop adapts the rate to what the line carries; a chosen bitrate is its ceiling.
    case auto
    /// The rate is the chosen bitrate (else the host's) and never moves.
    case fixed
}

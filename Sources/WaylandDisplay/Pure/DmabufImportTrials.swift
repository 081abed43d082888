/// Which dma-buf imports the compositor has taken, refused, or is still being asked about.
///
/// `create_immed` is fatal on some compositors when the import fails (linux-dmabuf: "the client
/// is terminated with … INVALID_WL_BUFFER" is allowed), even for a pair its feedback lists — a
/// size beyond its limits, a driver that cannot map the layout. So the first picture of each
/// (format, modifier, size) is asked for with the asynchronous `create`, which answers `created`
/// or `failed`, and goes the CPU way meanwhile; only an accepted combination is imported with
/// `create_immed` after that, and a refused one is never tried again. Pure.
public struct DmabufImportTrials: Sendable, Equatable {
    public struct Key: Sendable, Hashable, CustomStringConvertible {
        public var pair: FormatModifier
        public var width: Int, height: Int
        public init(pair: FormatModifier, width: Int, height: Int) {
            self.pair = pair; self.width = width; self.height = height
        }
        public var description: String { "\(pair) \(width)x\(height)" }
    }

    public enum Step: Sendable, Equatable {
        /// Accepted before: import with `create_immed`.
        case importNow
        /// Never asked: send `create` and show this picture the CPU way.
        case askFirst
        /// Asked and not answered yet, or refused: the CPU way.
        case readBack
    }

    public enum Verdict: Sendable, Equatable { case pending, accepted, refused }

    public private(set) var verdicts: [Key: Verdict] = [:]

    public init() {}

    /// What to do with a picture of `key`; `askFirst` marks it pending (the caller sends `create`).
    public mutating func step(for key: Key) -> Step {
        switch verdicts[key] {
        case nil:
            verdicts[key] = .pending
            return .askFirst
        case .accepted: return .importNow
        case .pending, .refused: return .readBack
        }
    }

    /// The compositor's answer to the `create` for `key`.
    public mutating func record(_ key: Key, accepted: Bool) {
        verdicts[key] = accepted ? .accepted : .refused
    }
}

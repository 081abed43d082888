import PunktfunkWire

/// A title a host can start as the session opens (ClientHello tag 8, control-plane.md §3.2): a
/// store-qualified library id such as `steam:570` — a store, a colon, the store's id for the title
/// (upstream's library-id rule) — and the name a person sees on the host page.
///
/// Invariant: `id` passed `LaunchTitle.problem(id:)` — store-qualified, 1…128 UTF-8 bytes, no
/// control characters, no surrounding whitespace — so the hello carries it whole (the wire
/// truncates nothing of it).
public struct LaunchTitle: Sendable, Equatable {
    public var id: String
    public var name: String

    /// nil when `id` is not a launch id (`problem(id:)` says why).
    public init?(id: String, name: String? = nil) {
        guard Self.problem(id: id) == nil else { return nil }
        self.id = id
        let shown = (name ?? "").pfSanitisedLabel(maxBytes: 64)
        self.name = shown.isEmpty ? id : shown
    }

    /// Why `id` cannot go into a hello as tag 8, as one sentence; nil when it can.
    public static func problem(id: String) -> String? {
        let bytes = id.utf8.count
        if bytes == 0 { return "The launch id is empty; give a library id such as steam:570." }
        if bytes > ClientHello.launchMaxBytes {
            return "The launch id \"\(id.prefix(40))…\" is \(bytes) bytes; a host takes at most \(ClientHello.launchMaxBytes) (UTF-8)."
        }
        if id.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "The launch id holds a control character; give a library id such as steam:570."
        }
        if id.first!.isWhitespace || id.last!.isWhitespace {
            return "The launch id \"\(id)\" starts or ends with a space; give a library id such as steam:570."
        }
        guard let colon = id.firstIndex(of: ":"), colon != id.startIndex, id.index(after: colon) != id.endIndex else {
            return "The launch id \"\(id)\" names no store; a library id is the store, a colon and its id, such as steam:570."
        }
        return nil
    }

    /// The separator of the config's form of a pinned title, `ID | NAME`.
    static let separator = " | "

    /// The config's form of a pinned title: `ID | NAME` (without ` | NAME`, the name is the id).
    public init?(configValue: String) {
        let parts = Self.configParts(configValue)
        self.init(id: parts.id, name: parts.name)
    }

    /// `init(configValue:)`'s input for this title.
    public var configValue: String { name == id ? id : id + Self.separator + name }

    /// A config value split at the first ` | `: the id, and the name (nil without one), trimmed.
    static func configParts(_ value: String) -> (id: String, name: String?) {
        let trimmed = value.trimmingWhitespace()
        guard let bar = trimmed.range(of: separator) else { return (trimmed, nil) }
        return (String(trimmed[..<bar.lowerBound]).trimmingWhitespace(), String(trimmed[bar.upperBound...]))
    }
}

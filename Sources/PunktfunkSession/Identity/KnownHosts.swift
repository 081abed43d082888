import Foundation

/// Hosts this client trusts, by the SHA-256 fingerprint of their leaf certificate
/// (control-plane.md §1.4, §6.6). Written by pairing and by `--tofu`, read before every connect.
///
/// File format (`known-hosts`, mode 0600), one host a line, `#` starts a comment:
/// `<64 lowercase hex fingerprint> <host>[:port]`. Unparseable lines are kept out of the table
/// but never rewritten away silently: `load` reports them in `ignoredLines`.
///
/// A value type; `store(in:)` writes atomically (temp file + rename).
public struct KnownHosts: Sendable, Equatable {
    public static let fileName = "known-hosts"

    /// host key (as given, e.g. `192.168.1.20:9777`) → fingerprint.
    public private(set) var entries: [String: String] = [:]
    /// 1-based numbers of lines `load` could not parse.
    public private(set) var ignoredLines: [Int] = []

    public init() {}

    /// The pinned fingerprint for `host`, if known.
    public func fingerprint(for host: String) -> String? { entries[host] }

    /// Records (or replaces) `host`'s fingerprint.
    /// - Precondition: `host` contains no whitespace.
    /// - Throws: `IdentityError.malformed` unless `fingerprint` is 32 bytes of hex.
    public mutating func trust(host: String, fingerprint: String) throws(IdentityError) {
        precondition(!host.isEmpty && !host.contains(where: \.isWhitespace), "host keys contain no whitespace")
        guard let normalized = CertificateFingerprint.normalize(fingerprint) else {
            throw .malformed("\"\(fingerprint)\" is not a SHA-256 fingerprint")
        }
        entries[host] = normalized
    }

    public mutating func forget(host: String) { entries[host] = nil }

    /// Parses the file text.
    public init(text: String) {
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let fields = line.split(whereSeparator: \.isWhitespace)
            if fields.isEmpty { continue }
            guard fields.count == 2, let fp = CertificateFingerprint.normalize(String(fields[0])) else {
                ignoredLines.append(index + 1)
                continue
            }
            entries[String(fields[1])] = fp
        }
    }

    /// The file text, sorted by host.
    public var text: String {
        "# punktfunk-kiosk known hosts: <sha256 of the leaf certificate DER> <host[:port]>\n"
            + entries.keys.sorted().map { "\(entries[$0]!) \($0)\n" }.joined()
    }

    /// Loads `directory/known-hosts`; an absent file is an empty table.
    public static func load(from directory: URL) throws(IdentityError) -> KnownHosts {
        let url = directory.appendingPathComponent(fileName)
        guard FileManager.default.fileExists(atPath: url.path) else { return KnownHosts() }
        do {
            return KnownHosts(text: try String(contentsOf: url, encoding: .utf8))
        } catch {
            throw .io("cannot read \(url.path): \(error)")
        }
    }

    /// Writes `directory/known-hosts` with mode 0600 (directory created 0700 if missing).
    public func store(in directory: URL) throws(IdentityError) {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw .io("cannot create \(directory.path): \(error)")
        }
        try PrivateFile.write(text, to: directory.appendingPathComponent(Self.fileName), mode: 0o600)
    }
}

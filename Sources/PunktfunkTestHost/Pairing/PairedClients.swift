import Foundation
import PunktfunkSession

/// A host's trust store of paired client devices, by the SHA-256 fingerprint of their client
/// certificate (control-plane.md §1.5, §6.2 step 5, §6.5). Written by a successful PIN ceremony
/// and by an approved knock; read by the require-pairing gate.
///
/// Shared by every connection of a host (thread-safe behind a lock). With a `file`, each change
/// is written through atomically (mode 0600): one device a line, `<64 hex fingerprint> <name>`,
/// `#` comments; unparseable lines are skipped on load.
public final class PairedClients: @unchecked Sendable {
    /// Default file name beside the host identity.
    public static let fileName = "paired-clients"

    /// Where changes are written; nil = memory only.
    public let file: URL?
    private let lock = NSLock()
    /// fingerprint (64 lowercase hex) → device name (sanitised, may be empty).
    private var devices: [String: String] = [:]

    /// An empty in-memory store.
    public init() { file = nil }

    /// Loads `file` (an absent file is an empty store) and writes every later change back to it.
    public init(file: URL) throws(IdentityError) {
        self.file = file
        guard FileManager.default.fileExists(atPath: file.path) else { return }
        let text: String
        do { text = try String(contentsOf: file, encoding: .utf8) } catch {
            throw .io("cannot read \(file.path): \(error)")
        }
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            guard let first = parts.first, let fp = CertificateFingerprint.normalize(String(first)) else { continue }
            devices[fp] = parts.count > 1 ? String(parts[1]) : ""
        }
    }

    /// Whether the device with this certificate fingerprint is paired.
    public func contains(_ fingerprint: String) -> Bool {
        guard let fp = CertificateFingerprint.normalize(fingerprint) else { return false }
        return lock.withLock { devices[fp] != nil }
    }

    /// Number of paired devices.
    public var count: Int { lock.withLock { devices.count } }

    /// The stored name of a paired device.
    public func name(of fingerprint: String) -> String? {
        guard let fp = CertificateFingerprint.normalize(fingerprint) else { return nil }
        return lock.withLock { devices[fp] }
    }

    /// Records (or renames) a device and writes the file through.
    /// - Throws: `.malformed` for a fingerprint that is not 32 bytes of hex, `.io` when the
    ///   file cannot be written (the device stays trusted in memory).
    public func add(_ fingerprint: String, name: String) throws(IdentityError) {
        guard let fp = CertificateFingerprint.normalize(fingerprint) else {
            throw .malformed("\"\(fingerprint)\" is not a SHA-256 fingerprint")
        }
        let label = String(name.unicodeScalars.filter { !CharacterSet.controlCharacters.contains($0) })
        let text: String = lock.withLock {
            devices[fp] = label
            return "# punktfunk paired clients: <sha256 of the client certificate DER> <name>\n"
                + devices.keys.sorted().map { "\($0) \(devices[$0]!)\n" }.joined()
        }
        if let file { try PrivateFile.write(text, to: file, mode: 0o600) }
    }
}

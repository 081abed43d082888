import Foundation
import PunktfunkWire
import PunktfunkSession

/// A host's PIN arming state and its global pairing cooldown (control-plane.md §6.2 step 2, §6.3).
///
/// One window at a time: armed with a PIN, optionally bound to one client fingerprint. Any
/// ceremony that passes the gates and reaches the challenge consumes it (`consume`), so each
/// arming allows exactly one online PIN guess. The cooldown is global and charged on every
/// attempt that presents a certificate, whether or not it is then refused.
///
/// Shared by every connection of a host (thread-safe behind a lock). Times are the caller's
/// monotonic clock in ns (`MonotonicClock.nowNs()`).
public final class PairingWindow: @unchecked Sendable {
    /// §6.2: 2 s between pairing attempts.
    public static let defaultCooldownNs: UInt64 = 2_000_000_000

    /// What the gates decided for one attempt.
    public enum Gate: Equatable, Sendable {
        /// Run the ceremony with this PIN; pass `generation` to `consume`.
        case proceed(pin: String, generation: UInt64)
        /// Close the connection with this code (§3.5: 0x60…0x63).
        case refuse(CloseCode)
    }

    public let cooldownNs: UInt64
    private let lock = NSLock()
    private var pin: String?
    private var boundTo: String?
    /// Bumped by every `arm`/`disarm`, so a consume of a lapsed or re-armed window fails.
    private var generation: UInt64 = 0
    private var lastAttempt: UInt64?
    private var _consumed = 0

    public init(cooldownNs: UInt64 = PairingWindow.defaultCooldownNs) {
        self.cooldownNs = cooldownNs
    }

    /// Arms a window with `pin` (four digits, as `PairingCeremony.normalizedPIN`), optionally
    /// bound to one client certificate fingerprint.
    public func arm(pin: String, boundTo fingerprint: String? = nil) throws(PairingError) {
        let normalized = try PairingCeremony.normalizedPIN(pin)
        let bound = fingerprint.flatMap(CertificateFingerprint.normalize)
        lock.withLock {
            self.pin = normalized
            boundTo = bound
            generation &+= 1
        }
    }

    /// A uniformly random PIN, 0000…9999 (§6.3).
    public static func randomPIN() -> String {
        var rng = SystemRandomNumberGenerator()
        let n = Int.random(in: 0...9999, using: &rng)
        return String(repeating: "0", count: 4 - String(n).count) + String(n)
    }

    public func disarm() {
        lock.withLock {
            pin = nil
            boundTo = nil
            generation &+= 1
        }
    }

    public var isArmed: Bool { lock.withLock { pin != nil } }

    /// Windows consumed by a ceremony reaching the challenge (guesses spent).
    public var consumed: Int { lock.withLock { _consumed } }

    /// The §6.2 step 2 gates, in order: certificate present (else 0x63), cooldown (else 0x62),
    /// armed (else 0x60), not bound to another fingerprint (else 0x61; the window is kept).
    public func admit(clientFingerprint: String?, now: UInt64) -> Gate {
        guard let client = clientFingerprint.flatMap(CertificateFingerprint.normalize) else {
            return .refuse(.identityRequired)
        }
        return lock.withLock { () -> Gate in
            defer { lastAttempt = now }
            if let last = lastAttempt, now < last &+ cooldownNs { return .refuse(.pairingRateLimited) }
            guard let pin else { return .refuse(.pairingNotArmed) }
            if let boundTo, boundTo != client { return .refuse(.pairingBoundToOther) }
            return .proceed(pin: pin, generation: generation)
        }
    }

    /// Disarms the window the gate passed, before the challenge goes out (§6.2 step 3).
    /// - Returns: false if that window lapsed or was re-armed meanwhile (the ceremony must stop).
    public func consume(generation: UInt64) -> Bool {
        lock.withLock {
            guard pin != nil, self.generation == generation else { return false }
            pin = nil
            boundTo = nil
            self.generation &+= 1
            _consumed += 1
            return true
        }
    }
}

import PunktfunkWire
import PunktfunkSession

/// Who may open a session on a host, decided after ClientHello (control-plane.md §6.5).
///
/// With `requirePairing`, a client certificate listed in `trusted` is admitted; no certificate is
/// closed 0x63; an unknown certificate "knocks": the host sends Pending at once and every
/// `pendingEvery`, and the console (here: `knock`, a test-host policy) approves — the device is
/// added to `trusted` and the same connection goes on to ServerHello — or denies (0x64); nobody
/// deciding within `approvalWait` closes 0x65. An `access_only` hello (tag 26) is closed 0x72
/// once admitted instead of streaming. Without `requirePairing` everyone is admitted (`--open`).
public struct HostAdmission: Sendable {
    /// How the (simulated) console answers a knock.
    public enum KnockPolicy: Sendable, Equatable {
        /// Approve this many ns after the knock.
        case approveAfter(UInt64)
        /// Deny this many ns after the knock.
        case denyAfter(UInt64)
        /// Never answer: the knock ends in the approval timeout.
        case ignore
    }

    /// The gate's answer for one ClientHello.
    public enum Verdict: Equatable, Sendable {
        case admit
        case refuse(CloseCode)
        case knock
    }

    public var requirePairing: Bool
    public var trusted: PairedClients
    public var knock: KnockPolicy
    /// §3.4 PENDING_EVERY, ns.
    public var pendingEvery: UInt64
    /// §3.4 PENDING_APPROVAL_WAIT, ns.
    public var approvalWait: UInt64

    public init(requirePairing: Bool, trusted: PairedClients, knock: KnockPolicy = .ignore,
                pendingEvery: UInt64 = HandshakeLimits.pendingEveryNs,
                approvalWait: UInt64 = HandshakeLimits.approvalWaitNs) {
        self.requirePairing = requirePairing
        self.trusted = trusted
        self.knock = knock
        self.pendingEvery = pendingEvery
        self.approvalWait = approvalWait
    }

    /// The gate for a client that presented `fingerprint` (nil: anonymous).
    public func verdict(fingerprint: String?) -> Verdict {
        guard requirePairing else { return .admit }
        guard let fingerprint else { return .refuse(.identityRequired) }
        return trusted.contains(fingerprint) ? .admit : .knock
    }
}

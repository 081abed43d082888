internal import CSodium
import Crypto
import Foundation
import PunktfunkWire

/// The PIN pairing ceremony's cryptography (control-plane.md §6.1–§6.2): SPAKE2 (client = side A,
/// host = side B) over the typed PIN, identities bound to both certificate fingerprints, then
/// HMAC key confirmation in both directions. Transport and framing (PairRequest, PairChallenge,
/// PairProof, PairResult in PunktfunkWire) are the caller's.
///
/// ```
/// client                                   host
/// Client(pin:…).requestMessage  ──spake_a──▶  Host(pin:…).respond(spakeA:)
/// finish(challengeSpakeB:hostConfirm:) ◀──spake_b, host_confirm──
///                               ──client_confirm──▶  verify(clientConfirm:)
/// ```
///
/// Both parties are single-use reference types, not `Sendable`: one task drives a ceremony.
public enum PairingCeremony {
    /// Length of a certificate fingerprint (SHA-256 of the certificate DER), §6.1.
    public static let fingerprintBytes = 32
    /// Domain labels of the two key confirmations, §6.1.
    static let hostLabel = Array("punktfunk-pair-host".utf8)
    static let clientLabel = Array("punktfunk-pair-client".utf8)

    /// The PIN as typed: surrounding whitespace trimmed, then exactly four ASCII digits
    /// (zero-padded, e.g. "0042"); its bytes are the SPAKE2 password (§6.1).
    /// - Throws: `.invalidPIN` otherwise.
    public static func normalizedPIN(_ typed: String) throws(PairingError) -> String {
        let trimmed = typed.trimmingCharacters(in: .whitespacesAndNewlines)
        let bytes = Array(trimmed.utf8)
        guard bytes.count == 4, bytes.allSatisfy({ (0x30...0x39).contains($0) }) else { throw .invalidPIN }
        return trimmed
    }

    /// `HMAC-SHA256(key, label ‖ client_fp ‖ host_fp)` (§6.1).
    static func confirmation(key: SymmetricKey, label: [UInt8],
                             clientFingerprint: [UInt8], hostFingerprint: [UInt8]) -> [UInt8] {
        var mac = HMAC<SHA256>(key: key)
        mac.update(data: label)
        mac.update(data: clientFingerprint)
        mac.update(data: hostFingerprint)
        return Array(mac.finalize())
    }

    /// Constant-time comparison of a received confirmation with the expected one.
    static func verify(_ received: [UInt8], expected: [UInt8]) throws(PairingError) {
        guard received.count == PairingSizes.confirmation else {
            throw .malformedConfirmation(byteCount: received.count)
        }
        guard sodium_memcmp(received, expected, expected.count) == 0 else { throw .confirmationMismatch }
    }

    static func checkFingerprint(_ fp: [UInt8], role: String) throws(PairingError) {
        guard fp.count == fingerprintBytes else { throw .invalidFingerprint(role: role, byteCount: fp.count) }
    }

    /// Builds one SPAKE2 side from a typed PIN; the PIN bytes are wiped after derivation.
    static func party(side: SPAKE2Party.Side, pin: String, clientFingerprint: [UInt8],
                      hostFingerprint: [UInt8], secretScalar: [UInt8]?) throws(PairingError) -> SPAKE2Party {
        try checkFingerprint(clientFingerprint, role: "client")
        try checkFingerprint(hostFingerprint, role: "host")
        var password = Array(try normalizedPIN(pin).utf8)
        defer { sodium_memzero(&password, password.count) }
        return try SPAKE2Party(side: side, password: password, idA: clientFingerprint,
                               idB: hostFingerprint, secretScalar: secretScalar)
    }

    /// The client's side (SPAKE2 side A, control-plane.md §6.2 steps 1 and 4).
    public final class Client {
        private let party: SPAKE2Party
        private let clientFingerprint: [UInt8]
        private let hostFingerprint: [UInt8]
        private var finished = false

        /// - Parameters:
        ///   - pin: as typed; see `PairingCeremony.normalizedPIN`.
        ///   - clientFingerprint: SHA-256 of this client's certificate DER (idA).
        ///   - hostFingerprint: SHA-256 of the host certificate DER observed in this TLS
        ///     handshake (idB), which the client pins on success.
        /// - Throws: `.invalidPIN`, `.invalidFingerprint`, `.sodiumUnavailable`.
        public convenience init(pin: String, clientFingerprint: [UInt8], hostFingerprint: [UInt8]) throws(PairingError) {
            try self.init(pin: pin, clientFingerprint: clientFingerprint, hostFingerprint: hostFingerprint,
                          secretScalar: nil)
        }

        /// Tests only: `secretScalar` fixes x (32 bytes little-endian, canonical, non-zero).
        init(pin: String, clientFingerprint: [UInt8], hostFingerprint: [UInt8],
             secretScalar: [UInt8]?) throws(PairingError) {
            party = try PairingCeremony.party(side: .a, pin: pin, clientFingerprint: clientFingerprint,
                                              hostFingerprint: hostFingerprint, secretScalar: secretScalar)
            self.clientFingerprint = clientFingerprint
            self.hostFingerprint = hostFingerprint
        }

        /// PairRequest `spake_a`: 'A' ‖ X, 33 bytes.
        public var requestMessage: [UInt8] { party.message }

        /// Finishes SPAKE2 with the PairChallenge and checks the host's confirmation.
        /// - Returns: `client_confirm` for PairProof (32 bytes).
        /// - Throws: `.confirmationMismatch` for a wrong PIN or a MITM (abort, close 1, §6.2 step 4);
        ///   `.malformedMessage`, `.wrongSide`, `.invalidPoint`, `.reflectedMessage`,
        ///   `.degenerateExchange`, `.malformedConfirmation` for a broken challenge;
        ///   `.outOfOrder` on a second call.
        public func finish(challengeSpakeB: [UInt8], hostConfirm: [UInt8]) throws(PairingError) -> [UInt8] {
            guard !finished else { throw .outOfOrder("Client.finish") }
            finished = true
            let key = try party.finish(peerMessage: challengeSpakeB)
            let expected = PairingCeremony.confirmation(key: key, label: PairingCeremony.hostLabel,
                                                        clientFingerprint: clientFingerprint,
                                                        hostFingerprint: hostFingerprint)
            try PairingCeremony.verify(hostConfirm, expected: expected)
            return PairingCeremony.confirmation(key: key, label: PairingCeremony.clientLabel,
                                                clientFingerprint: clientFingerprint,
                                                hostFingerprint: hostFingerprint)
        }
    }

    /// The host's side (SPAKE2 side B, control-plane.md §6.2 steps 3 and 5). This client uses it
    /// in tests; it is complete so a loopback host or a test harness can run the real ceremony.
    public final class Host {
        private enum State {
            case fresh
            case responded(expectedClientConfirm: [UInt8])
            case done
        }

        private let party: SPAKE2Party
        private let clientFingerprint: [UInt8]
        private let hostFingerprint: [UInt8]
        private var state = State.fresh

        /// - Parameters: as `Client`; the host binds the client certificate it saw and its own.
        public convenience init(pin: String, clientFingerprint: [UInt8], hostFingerprint: [UInt8]) throws(PairingError) {
            try self.init(pin: pin, clientFingerprint: clientFingerprint, hostFingerprint: hostFingerprint,
                          secretScalar: nil)
        }

        /// Tests only: `secretScalar` fixes y (32 bytes little-endian, canonical, non-zero).
        init(pin: String, clientFingerprint: [UInt8], hostFingerprint: [UInt8],
             secretScalar: [UInt8]?) throws(PairingError) {
            party = try PairingCeremony.party(side: .b, pin: pin, clientFingerprint: clientFingerprint,
                                              hostFingerprint: hostFingerprint, secretScalar: secretScalar)
            self.clientFingerprint = clientFingerprint
            self.hostFingerprint = hostFingerprint
        }

        /// Finishes SPAKE2 with PairRequest's `spake_a`.
        /// - Returns: PairChallenge's `spake_b` ('B' ‖ Y, 33 bytes) and `host_confirm` (32 bytes).
        /// - Throws: the malformed-message cases of `Client.finish`; `.outOfOrder` on a second call.
        public func respond(spakeA: [UInt8]) throws(PairingError) -> (spakeB: [UInt8], hostConfirm: [UInt8]) {
            guard case .fresh = state else { throw .outOfOrder("Host.respond") }
            state = .done
            let key = try party.finish(peerMessage: spakeA)
            let hostConfirm = PairingCeremony.confirmation(key: key, label: PairingCeremony.hostLabel,
                                                           clientFingerprint: clientFingerprint,
                                                           hostFingerprint: hostFingerprint)
            let expected = PairingCeremony.confirmation(key: key, label: PairingCeremony.clientLabel,
                                                        clientFingerprint: clientFingerprint,
                                                        hostFingerprint: hostFingerprint)
            state = .responded(expectedClientConfirm: expected)
            return (party.message, hostConfirm)
        }

        /// Checks PairProof's `client_confirm` in constant time. One attempt only.
        /// - Throws: `.confirmationMismatch`, `.malformedConfirmation`, or `.outOfOrder` before
        ///   `respond` or on a second call.
        public func verify(clientConfirm: [UInt8]) throws(PairingError) {
            guard case .responded(let expected) = state else { throw .outOfOrder("Host.verify") }
            state = .done
            try PairingCeremony.verify(clientConfirm, expected: expected)
        }
    }
}

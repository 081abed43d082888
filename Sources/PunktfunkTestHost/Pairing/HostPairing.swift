import PunktfunkWire
import PunktfunkSession

/// What a host needs to answer PairRequests (control-plane.md §6.2): its arming window and the
/// trust store a successful ceremony writes. Both are shared by all of the host's connections.
public struct HostPairing: Sendable {
    public let window: PairingWindow
    public let trusted: PairedClients

    public init(window: PairingWindow, trusted: PairedClients) {
        self.window = window
        self.trusted = trusted
    }
}

/// The host's side of one pairing connection (control-plane.md §6.2 steps 2–5), without I/O:
/// `request` runs the gates and SPAKE2-B and yields the PairChallenge or a close; `proof` checks
/// the client's confirmation and stores the device. Single use, one thread.
public final class HostPairingResponder {
    /// The answer to a PairRequest.
    public enum Step: Equatable {
        /// Send this challenge; the window is already consumed.
        case challenge(PairChallenge)
        /// Close the connection with this code and reason.
        case refuse(CloseCode, reason: String)
    }

    public let pairing: HostPairing
    /// SHA-256 of the host certificate DER (idB), 64 hex.
    public let hostFingerprint: String
    /// SHA-256 of the client certificate seen in TLS (idA), nil for an anonymous client.
    public let clientFingerprint: String?
    /// The device name from PairRequest, stored on success.
    public private(set) var deviceName = ""

    private var ceremony: PairingCeremony.Host?

    public init(pairing: HostPairing, hostFingerprint: String, clientFingerprint: String?) {
        self.pairing = pairing
        self.hostFingerprint = hostFingerprint
        self.clientFingerprint = clientFingerprint
    }

    /// §6.2 steps 2–3: gates in order, SPAKE2-B over `spake_a` (a malformed one refuses without
    /// consuming the window), then disarm, then the challenge.
    public func request(_ request: PairRequest, now: UInt64) -> Step {
        guard ceremony == nil else { return .refuse(.normal, reason: "pairing request repeated") }
        let gate = pairing.window.admit(clientFingerprint: clientFingerprint, now: now)
        guard case .proceed(let pin, let generation) = gate else {
            if case .refuse(let code) = gate { return .refuse(code, reason: code.token ?? "refused") }
            return .refuse(.pairingNotArmed, reason: "not-armed")
        }
        guard let client = clientFingerprint.flatMap(CertificateFingerprint.bytes),
              let host = CertificateFingerprint.bytes(hostFingerprint) else {
            return .refuse(.identityRequired, reason: "identity-required")
        }
        let answer: (spakeB: [UInt8], hostConfirm: [UInt8])
        do {
            let party = try PairingCeremony.Host(pin: pin, clientFingerprint: client, hostFingerprint: host)
            answer = try party.respond(spakeA: request.spakeA)
            ceremony = party
        } catch {
            return .refuse(.normal, reason: "pairing failed: \(error)")
        }
        guard pairing.window.consume(generation: generation) else {
            ceremony = nil
            return .refuse(.pairingNotArmed, reason: "not-armed")
        }
        deviceName = request.name
        return .challenge(PairChallenge(spakeB: answer.spakeB, confirm: answer.hostConfirm))
    }

    /// §6.2 step 5: verifies `client_confirm` in constant time and, if it matches, stores the
    /// device. `ok` = verified and stored.
    public func proof(_ proof: PairProof) -> PairResult {
        guard let ceremony, let clientFingerprint else { return PairResult(ok: false) }
        self.ceremony = nil
        do { try ceremony.verify(clientConfirm: proof.confirm) } catch { return PairResult(ok: false) }
        do { try pairing.trusted.add(clientFingerprint, name: deviceName) } catch { return PairResult(ok: false) }
        return PairResult(ok: true)
    }
}

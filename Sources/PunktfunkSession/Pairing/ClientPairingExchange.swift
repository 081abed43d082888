import PunktfunkWire

/// The client's PIN pairing ceremony on the wire (control-plane.md §6.2) as a sans-I/O state
/// machine over its own `QuicConnection`, which must have completed TLS with the client
/// certificate and no pin (TOFU: the host fingerprint it observed is idB and is what gets pinned).
///
/// Feed every connection event to `handle(_:now:)`, call `handleTimeout(now:)` at `nextDeadline`,
/// and send what the connection then has to transmit. `now` is the QUIC monotonic clock, ns.
///
/// Sequence: `start` opens the control stream and writes `00` + PairRequest {name, spake_a,
/// empty device_key}; PairChallenge → finish SPAKE2-A and check host_confirm (mismatch: close 1,
/// `.wrongPIN`) → PairProof; PairResult ok → close 0 "pair done" and return the host fingerprint;
/// ok = false → close 1, `.pairingRejected`. A host close (0x60 not armed, 0x61 bound to another
/// device, 0x62 rate limited, 0x63 identity required, …) becomes `.closedByPeer` with its sentence.
public final class ClientPairingExchange {
    public enum State: Equatable, Sendable {
        case idle
        case awaitingChallenge
        case awaitingResult
        case finished
    }

    public let connection: QuicConnection
    /// The device label sent in PairRequest (≤ 64 UTF-8 bytes; longer is cut on a character).
    public let name: String
    /// §6.2: per-step bound, ns.
    public let stepTimeout: UInt64
    public private(set) var state: State = .idle
    public private(set) var error: HandshakeError?
    /// The host fingerprint observed in TLS and bound into the ceremony (64 hex).
    public private(set) var hostFingerprint: String?

    private let pin: String
    private var ceremony: PairingCeremony.Client?
    private var stream: Int64?
    private var reader = FrameReader()
    private var deadline: UInt64?
    private var streamEndedDeadline: UInt64?

    public init(connection: QuicConnection, pin: String, name: String, stepTimeout: UInt64 = 60_000_000_000) {
        self.connection = connection
        self.pin = pin
        var label = name
        while label.utf8.count > PairRequest.nameMaxBytes { label.removeLast() }
        self.name = label
        self.stepTimeout = stepTimeout
    }

    /// Opens the control stream and sends PairRequest. Call once TLS is established.
    public func start(now: UInt64) throws(HandshakeError) {
        guard state == .idle else { return }
        guard let hostFP = connection.peerFingerprint, let host = CertificateFingerprint.bytes(hostFP) else {
            throw fail(.transport(.noPeerCertificate), closeCode: CloseCode.pairingAborted.code)
        }
        guard let identity = connection.configuration.identity,
              let client = CertificateFingerprint.bytes(identity.fingerprint) else {
            // §1.5: an anonymous client cannot pair; the host would close 0x63.
            throw fail(.closedByPeer(code: .identityRequired, reason: "this client has no certificate"))
        }
        let party: PairingCeremony.Client
        do { party = try PairingCeremony.Client(pin: pin, clientFingerprint: client, hostFingerprint: host) } catch {
            throw fail(.pairing(error), closeCode: CloseCode.pairingAborted.code)
        }
        ceremony = party
        hostFingerprint = hostFP
        do {
            let id = try connection.openBidirectionalStream()
            stream = id
            let request = PairRequest(name: name, spakeA: party.requestMessage)
            try connection.write(stream: id, [UInt8(StreamType.control.rawValue)] + ControlMessage.pairRequest(request).encoded)
        } catch {
            throw fail(.transport(error))
        }
        state = .awaitingChallenge
        deadline = now + stepTimeout
    }

    public var nextDeadline: UInt64? {
        guard state != .idle, state != .finished else { return nil }
        return [deadline, streamEndedDeadline].compactMap { $0 }.min()
    }

    /// Feeds one connection event. Returns the host fingerprint once paired.
    public func handle(_ event: QuicEvent, now: UInt64) throws(HandshakeError) -> String? {
        guard state != .idle, state != .finished else { return nil }
        switch event {
        case .streamData(let id, let bytes, let fin) where id == stream:
            reader.append(bytes)
            if let paired = try drain(now: now) { return paired }
            if fin, streamEndedDeadline == nil { streamEndedDeadline = now + HandshakeLimits.closeGraceNs }
        case .streamClosed(let id, _) where id == stream:
            if streamEndedDeadline == nil { streamEndedDeadline = now + HandshakeLimits.closeGraceNs }
        case .closed:
            throw fail(closeError())
        default:
            break
        }
        return nil
    }

    public func handleTimeout(now: UInt64) throws(HandshakeError) {
        guard state != .idle, state != .finished else { return }
        if connection.state == .closed || connection.state == .draining { throw fail(closeError()) }
        if let d = streamEndedDeadline, now >= d {
            throw fail(connection.peerClose != nil ? closeError() : .controlStreamEnded(code: nil),
                       closeCode: CloseCode.pairingAborted.code)
        }
        if let d = deadline, now >= d {
            throw fail(.timeout(phase: state == .awaitingChallenge ? "pairing challenge" : "pairing result"),
                       closeCode: CloseCode.pairingAborted.code)
        }
    }

    // MARK: private

    private func drain(now: UInt64) throws(HandshakeError) -> String? {
        for _ in 0..<64 {
            let frame: ControlFrame?
            do { frame = try reader.next() } catch { throw fail(.malformed(error), closeCode: CloseCode.pairingAborted.code) }
            guard let frame else { return nil }
            if let paired = try process(frame, now: now) { return paired }
            if state == .finished { return nil }
        }
        return nil
    }

    private func process(_ frame: ControlFrame, now: UInt64) throws(HandshakeError) -> String? {
        let message: ControlMessage
        do { message = try ControlMessage(frame: frame) } catch {
            throw fail(.malformed(error), closeCode: CloseCode.pairingAborted.code)
        }
        switch (state, message) {
        case (.awaitingChallenge, .pairChallenge(let challenge)):
            guard let ceremony, let stream else { throw fail(.unexpected("no ceremony")) }
            let confirm: [UInt8]
            do { confirm = try ceremony.finish(challengeSpakeB: challenge.spakeB, hostConfirm: challenge.confirm) } catch {
                // §6.2 step 4: a mismatch means a wrong PIN or a MITM; anything else is a broken challenge.
                if error == .confirmationMismatch {
                    throw fail(.wrongPIN, closeCode: CloseCode.pairingAborted.code, reason: "wrong PIN")
                }
                throw fail(.pairing(error), closeCode: CloseCode.pairingAborted.code)
            }
            do { try connection.write(stream: stream, ControlMessage.pairProof(PairProof(confirm: confirm)).encoded) } catch {
                throw fail(.transport(error))
            }
            state = .awaitingResult
            deadline = now + stepTimeout
            return nil
        case (.awaitingResult, .pairResult(let result)):
            guard result.ok else {
                throw fail(.pairingRejected, closeCode: CloseCode.pairingAborted.code, reason: "pairing rejected")
            }
            connection.close(applicationCode: CloseCode.normal.code, reason: "pair done")
            state = .finished
            return hostFingerprint
        default:
            throw fail(.unexpected("frame 0x\(String(frame.type, radix: 16)) during pairing"),
                       closeCode: CloseCode.pairingAborted.code)
        }
    }

    private func closeError() -> HandshakeError {
        if let close = connection.peerClose, close.isApplication {
            return .closedByPeer(code: CloseCode(code: close.code), reason: close.reason)
        }
        if let error = connection.error { return .transport(error) }
        return .controlStreamEnded(code: nil)
    }

    private func fail(_ error: HandshakeError, closeCode: UInt64? = nil, reason: String = "") -> HandshakeError {
        if let closeCode, connection.state == .established || connection.state == .handshaking {
            connection.close(applicationCode: closeCode, reason: reason)
        }
        self.error = error
        state = .finished
        return error
    }
}

import PunktfunkWire
import PunktfunkSession

/// The host half of the punktfunk/2 handshake (control-plane.md §3.1–§3.5, §4.1), scripted for
/// test hosts, as a sans-I/O state machine over an accepted `QuicConnection`.
///
/// Feed it every event of the connection (`handle(_:now:hostNs:)`) and call
/// `handleTimeout(now:hostNs:)` at `nextDeadline`; `now` is the QUIC monotonic clock, `hostNs`
/// the host clock stamped into ClockEcho t2/t3 (§4.1: host wall time on the session media clock).
///
/// Sequence: accept the first client bidi stream, require stream type 0x00 (§2.1), read
/// ClientHello (≤10 s, §3.1) — or, when the first frame is a PairRequest, run the pairing
/// ceremony of §6.2 instead (`Script.pairing`; none ⇒ close 0x60). After ClientHello the
/// admission gate of §6.5 runs (`Script.admission`: 0x63 without a certificate, a knock with
/// Pending frames then approve / 0x64 / 0x65 for an unknown one, 0x72 for an admitted
/// `access_only` hello); then per `Script`: Pending `pendingCount` times (first at once, then
/// every `pendingEvery`), then the decision — ServerHello (with a fresh random 16-byte session
/// id), Redirect (then close 0x51 after `redirectLinger`), a close with a reject code (§3.5), or
/// silence. After ServerHello: read Ready (≤10 s from the start), send StreamConfig epoch 0 (the
/// host control task's first frame) and answer every ClockProbe with a ClockEcho.
public final class HostHandshake {
    /// What the host does once the Pending frames are out.
    public enum Decision {
        /// Admit: ServerHello with this content; its session id is replaced by a random one.
        case serverHello(ServerHello)
        /// Send this exact frame as the ServerHello (tests: an unknown suite id).
        case rawServerHello(ControlFrame)
        /// Send Redirect, then close 0x51 "redirected".
        case redirect(Redirect)
        /// Close the connection with this code and reason phrase.
        case refuse(CloseCode, reason: String)
        /// Never answer.
        case silence
    }

    public struct Script {
        public var pendingCount: Int
        public var pendingEvery: UInt64
        public var decision: Decision
        /// Sent right after Ready (§3.1: first frame of the host control task); nil = none.
        public var streamConfig: StreamConfig?
        /// How long the host lingers after Redirect before closing 0x51 (§3.4: 2 s).
        public var redirectLinger: UInt64
        /// Bound on ClientHello arrival and on the negotiation up to Ready, ns.
        public var negotiation: UInt64
        /// The require-pairing gate after ClientHello (§6.5); nil admits everyone.
        public var admission: HostAdmission?
        /// Answers a PairRequest-first connection (§6.2); nil closes it 0x60 (not armed).
        public var pairing: HostPairing?
        /// §6.2: per-step bound of the ceremony, ns (60 s).
        public var pairingStep: UInt64 = 60_000_000_000
        /// §6.2 step 5: after PairResult and FIN, wait this long for the client's close, ns (5 s).
        public var pairingLinger: UInt64 = 5_000_000_000
        /// Fits a `.serverHello` decision to the client's ClientHello just before it is sent
        /// (what the host grants depends on what the client asked: channels, redundant audio, …).
        public var answerHello: ((ClientHello, inout ServerHello) -> Void)?

        public init(decision: Decision, pendingCount: Int = 0, pendingEvery: UInt64 = HandshakeLimits.pendingEveryNs,
                    streamConfig: StreamConfig? = StreamConfig(epoch: 0),
                    redirectLinger: UInt64 = 2_000_000_000, negotiation: UInt64 = HandshakeLimits.negotiationNs,
                    admission: HostAdmission? = nil, pairing: HostPairing? = nil) {
            self.admission = admission
            self.pairing = pairing
            self.decision = decision
            self.pendingCount = pendingCount
            self.pendingEvery = pendingEvery
            self.streamConfig = streamConfig
            self.redirectLinger = redirectLinger
            self.negotiation = negotiation
        }
    }

    public enum State: Equatable, Sendable {
        case awaitingStream
        case awaitingClientHello
        /// An unknown device knocked (§6.5); `sent` Pending frames are out, the console decides.
        case knocking(sent: Int)
        /// The first frame was a PairRequest: the §6.2 ceremony runs (or ran) on this connection.
        case pairing
        /// `sent` Pending frames are out.
        case pending(sent: Int)
        case awaitingReady
        /// Ready arrived; the session runs (clock probes answered).
        case serving
        /// Redirected / refused / silent / failed: nothing more to do.
        case finished
    }

    public let connection: QuicConnection
    public let script: Script
    public private(set) var state: State = .awaitingStream
    public private(set) var error: HandshakeError?
    public private(set) var controlStream: Int64?
    public private(set) var clientHello: ClientHello?
    /// The session id sent in ServerHello.
    public private(set) var sessionID: SessionID?
    /// ClockEchoes sent.
    public private(set) var probesAnswered = 0
    /// Frames after Ready other than ClockProbe, in order.
    public private(set) var received: [ControlFrame] = []
    /// The PairResult sent on a pairing connection.
    public private(set) var pairResult: PairResult?

    private var reader = FrameReader()
    private var sawStreamType = false
    private var prefix: [UInt8] = []
    private var startedAt: UInt64
    private var deadline: UInt64?
    /// A close scheduled after a linger (Redirect: 0x51, pairing: 0).
    private var closeAt: UInt64?
    private var closeWith: (code: UInt64, reason: String) = (CloseCode.quit.code, "redirected")
    /// Knock: when the console's answer (`HostAdmission.knock`) and the approval timeout fall due.
    private var knockDecisionAt: UInt64?
    private var knockGiveUpAt: UInt64?
    private var pairingResponder: HostPairingResponder?

    public init(connection: QuicConnection, script: Script, now: UInt64) {
        self.connection = connection
        self.script = script
        startedAt = now
        deadline = now + script.negotiation
    }

    /// The media exporter for the session (data-plane.md §8.4), once ServerHello went out.
    public func mediaExporter() throws(QuicError) -> [UInt8]? {
        guard let sessionID else { return nil }
        return try connection.mediaExporter(sessionID: sessionID.bytes)
    }

    public var nextDeadline: UInt64? { [deadline, closeAt, knockDecisionAt, knockGiveUpAt].compactMap { $0 }.min() }

    public func handle(_ event: QuicEvent, now: UInt64, hostNs: UInt64) throws(HandshakeError) {
        switch event {
        case .streamOpened(let stream):
            // The first client-initiated bidi stream is the control stream; anything else is stopped.
            if controlStream == nil && stream & 0x3 == 0 && state == .awaitingStream {
                controlStream = stream
                state = .awaitingClientHello
            } else if stream != controlStream {
                try? connection.resetStream(stream, applicationCode: HandshakeLimits.stopUnknownStream)
            }
        case .streamData(let stream, let bytes, _):
            if controlStream == nil && stream & 0x3 == 0 && state == .awaitingStream {
                controlStream = stream
                state = .awaitingClientHello
            }
            guard stream == controlStream else { return }
            try consume(bytes, now: now, hostNs: hostNs)
        case .closed:
            if state != .finished && state != .serving && pairResult == nil {
                if let close = connection.peerClose, close.isApplication {
                    fail(.closedByPeer(code: CloseCode(code: close.code), reason: close.reason))
                } else if let e = connection.error {
                    fail(.transport(e))
                }
            }
            state = .finished
        default:
            break
        }
    }

    public func handleTimeout(now: UInt64, hostNs: UInt64) throws(HandshakeError) {
        if let closeAt, now >= closeAt {
            self.closeAt = nil
            connection.close(applicationCode: closeWith.code, reason: closeWith.reason)
            state = .finished
        }
        if case .knocking = state, try knockTimeout(now: now) { return }
        guard let d = deadline, now >= d else { return }
        switch state {
        case .knocking(let sent):
            send(ControlMessage.pending(Pending()))
            state = .knocking(sent: sent + 1)
            deadline = now + (script.admission?.pendingEvery ?? HandshakeLimits.pendingEveryNs)
        case .pairing:
            deadline = nil
            connection.close(applicationCode: CloseCode.normal.code, reason: "pairing timeout")
            throw fail(.timeout(phase: "pairing"))
        case .pending(let sent) where sent < script.pendingCount:
            send(ControlMessage.pending(Pending()))
            state = .pending(sent: sent + 1)
            deadline = now + script.pendingEvery
        case .pending:
            deadline = nil
            try decide(now: now)
        case .awaitingStream, .awaitingClientHello, .awaitingReady:
            deadline = nil
            connection.close(applicationCode: 0x00, reason: "handshake timeout")
            throw fail(.timeout(phase: state == .awaitingReady ? "ready" : "client hello"))
        default:
            deadline = nil
        }
    }

    // MARK: private

    private func consume(_ bytes: [UInt8], now: UInt64, hostNs: UInt64) throws(HandshakeError) {
        var bytes = bytes[...]
        if !sawStreamType {
            prefix += bytes
            var r = WireReader(prefix)
            guard let type = try? r.readVarInt() else { return }
            guard type == StreamType.control.rawValue else {
                connection.close(applicationCode: 0x00, reason: "expected the control stream")
                throw fail(.unexpected("stream type \(type) instead of control (0x00)"))
            }
            sawStreamType = true
            bytes = prefix[r.offset...]
            prefix = []
        }
        reader.append(bytes)
        for _ in 0..<10_000 {
            let frame: ControlFrame?
            do { frame = try reader.next() } catch {
                connection.close(applicationCode: 0x00, reason: "malformed frame")
                throw fail(.malformed(error))
            }
            guard let frame else { return }
            try process(frame, now: now, hostNs: hostNs)
        }
    }

    private func process(_ frame: ControlFrame, now: UInt64, hostNs: UInt64) throws(HandshakeError) {
        switch state {
        case .awaitingClientHello:
            if frame.type == ControlMessageType.pairRequest.rawValue {
                try beginPairing(frame, now: now)
                return
            }
            guard frame.type == ControlMessageType.clientHello.rawValue else {
                throw fail(.unexpected("first frame 0x\(String(frame.type, radix: 16))"))
            }
            do { clientHello = try ClientHello(body: frame.body) } catch { throw fail(.malformed(error)) }
            try admit(now: now)
        case .pairing:
            try continuePairing(frame, now: now)
        case .awaitingReady:
            guard frame.type == ControlMessageType.ready.rawValue else {
                throw fail(.unexpected("expected Ready, got 0x\(String(frame.type, radix: 16))"))
            }
            state = .serving
            deadline = nil
            if let config = script.streamConfig { send(.streamConfig(config)) }
        case .serving:
            if frame.type == ControlMessageType.clockProbe.rawValue {
                let probe: ClockProbe
                do { probe = try ClockProbe(body: frame.body) } catch { throw fail(.malformed(error)) }
                // §4.1: t2 = receive time, t3 = send time, both on the host clock.
                send(.clockEcho(ClockEcho(t1Ns: probe.t1Ns, t2Ns: hostNs, t3Ns: hostNs)))
                probesAnswered += 1
            } else {
                received.append(frame)
            }
        default:
            break  // pending / finished: the client has nothing to say yet
        }
    }

    /// §6.5: the admission gate after ClientHello.
    private func admit(now: UInt64) throws(HandshakeError) {
        guard let admission = script.admission else { return try admitted(now: now) }
        switch admission.verdict(fingerprint: connection.peerFingerprint) {
        case .admit:
            try admitted(now: now)
        case .refuse(let code):
            connection.close(applicationCode: code.code, reason: code.token ?? "refused")
            state = .finished
        case .knock:
            send(ControlMessage.pending(Pending()))
            state = .knocking(sent: 1)
            deadline = now + admission.pendingEvery
            knockGiveUpAt = now + admission.approvalWait
            switch admission.knock {
            case .approveAfter(let ns), .denyAfter(let ns): knockDecisionAt = now + ns
            case .ignore: knockDecisionAt = nil
            }
        }
    }

    /// Handles the knock's decision and its approval timeout. Returns true when the knock ended.
    private func knockTimeout(now: UInt64) throws(HandshakeError) -> Bool {
        guard let admission = script.admission else { return false }
        if let at = knockDecisionAt, now >= at {
            knockDecisionAt = nil
            knockGiveUpAt = nil
            deadline = nil
            if case .approveAfter = admission.knock, let fp = connection.peerFingerprint {
                try? admission.trusted.add(fp, name: clientHello?.name ?? "")
                try admitted(now: now)
            } else {
                connection.close(applicationCode: CloseCode.denied.code, reason: "denied")
                state = .finished
            }
            return true
        }
        if let giveUp = knockGiveUpAt, now >= giveUp {
            knockGiveUpAt = nil
            knockDecisionAt = nil
            deadline = nil
            connection.close(applicationCode: CloseCode.approvalTimeout.code, reason: "approval-timeout")
            state = .finished
            return true
        }
        return false
    }

    /// Admitted: an access-only hello ends here with 0x72 (§3.2 tag 26); otherwise the script's
    /// Pending frames, then its decision.
    private func admitted(now: UInt64) throws(HandshakeError) {
        if clientHello?.accessOnly == true {
            connection.close(applicationCode: CloseCode.accessGranted.code, reason: "access granted")
            state = .finished
            return
        }
        if script.pendingCount > 0 {
            send(ControlMessage.pending(Pending()))
            state = .pending(sent: 1)
            deadline = now + script.pendingEvery
        } else {
            try decide(now: now)
        }
    }

    /// §6.2 steps 2–3 on a PairRequest-first connection.
    private func beginPairing(_ frame: ControlFrame, now: UInt64) throws(HandshakeError) {
        state = .pairing
        deadline = nil
        let request: PairRequest
        do { request = try PairRequest(body: frame.body) } catch {
            connection.close(applicationCode: CloseCode.normal.code, reason: "malformed pairing request")
            throw fail(.malformed(error))
        }
        guard let pairing = script.pairing, let hostFingerprint = connection.configuration.identity?.fingerprint else {
            connection.close(applicationCode: CloseCode.pairingNotArmed.code, reason: "not-armed")
            state = .finished
            return
        }
        let responder = HostPairingResponder(pairing: pairing, hostFingerprint: hostFingerprint,
                                             clientFingerprint: connection.peerFingerprint)
        pairingResponder = responder
        switch responder.request(request, now: now) {
        case .challenge(let challenge):
            send(.pairChallenge(challenge))
            deadline = now + script.pairingStep
        case .refuse(let code, let reason):
            connection.close(applicationCode: code.code, reason: reason)
            state = .finished
        }
    }

    /// §6.2 step 5: PairProof → PairResult, FIN, then close 0 "pairing done" after the linger
    /// unless the client closes first.
    private func continuePairing(_ frame: ControlFrame, now: UInt64) throws(HandshakeError) {
        guard let responder = pairingResponder, pairResult == nil else { return }
        guard frame.type == ControlMessageType.pairProof.rawValue else {
            connection.close(applicationCode: CloseCode.normal.code, reason: "expected PairProof")
            throw fail(.unexpected("expected PairProof, got 0x\(String(frame.type, radix: 16))"))
        }
        let proof: PairProof
        do { proof = try PairProof(body: frame.body) } catch {
            connection.close(applicationCode: CloseCode.normal.code, reason: "malformed PairProof")
            throw fail(.malformed(error))
        }
        let result = responder.proof(proof)
        pairResult = result
        send(.pairResult(result))
        if let stream = controlStream { try? connection.write(stream: stream, [], fin: true) }
        deadline = nil
        closeWith = (CloseCode.normal.code, "pairing done")
        closeAt = now + script.pairingLinger
    }

    private func decide(now: UInt64) throws(HandshakeError) {
        switch script.decision {
        case .serverHello(var hello):
            if let answerHello = script.answerHello, let clientHello { answerHello(clientHello, &hello) }
            // §3.8: a launch asked without GRANT_LAUNCH ends the connection with 0x6A.
            if clientHello?.launch != nil, !hello.grants.contains(.launch) {
                connection.close(applicationCode: CloseCode.launchNotPermitted.code, reason: CloseCode.launchNotPermitted.token ?? "")
                state = .finished
                return
            }
            var rng = SystemRandomNumberGenerator()
            let id = SessionID(bytes: (0..<SessionID.length).map { _ in UInt8.random(in: 0...255, using: &rng) })!
            hello.sessionID = id
            sessionID = id
            send(.serverHello(hello))
            state = .awaitingReady
            deadline = startedAt + script.negotiation
        case .rawServerHello(let frame):
            if let id = try? ServerHello(body: frame.body).sessionID { sessionID = id }
            write(frame.encoded)
            state = .awaitingReady
            deadline = startedAt + script.negotiation
        case .redirect(let r):
            send(.redirect(r))
            closeAt = now + script.redirectLinger
            state = .finished
        case .refuse(let code, let reason):
            connection.close(applicationCode: code.code, reason: reason)
            state = .finished
        case .silence:
            state = .finished
        }
    }

    private func send(_ message: ControlMessage) { write(message.encoded) }

    private func write(_ bytes: [UInt8]) {
        guard let stream = controlStream else { return }
        do { try connection.write(stream: stream, bytes) } catch { fail(.transport(error)) }
    }

    @discardableResult
    private func fail(_ error: HandshakeError) -> HandshakeError {
        if self.error == nil { self.error = error }
        state = .finished
        return error
    }
}

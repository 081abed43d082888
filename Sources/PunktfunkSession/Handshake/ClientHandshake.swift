import PunktfunkWire

/// What a finished punktfunk/2 client handshake hands to the session (control-plane.md §3.1).
public struct SessionParameters: Equatable {
    /// The host's ServerHello (§3.3); `serverHello.sessionID` names the session.
    public var serverHello: ServerHello
    /// Host − client, ns, from the minimum-RTT clock round (§4.1); 0 when no round was answered.
    public var clockOffsetNs: Int64
    /// RTT of that round, ns; nil when no round was answered ("shared clock", re-sync disabled).
    public var clockRttNs: UInt64?
    /// Every answered round, in order.
    public var clockSamples: [ClockSample]
    /// Non-echo frames that arrived during the clock rounds, in order, for the control task
    /// (§3.1: e.g. StreamConfig epoch 0).
    public var heldFrames: [ControlFrame]
    /// The control stream (bidirectional, opened by the client, type 0x00).
    public var controlStream: Int64
    /// The reader holding any partial frame after the last held one; keep feeding it.
    public var controlReader: FrameReader
    /// TLS exporter, label `EXPORTER-punktfunk/2 media`, context = session id, 32 bytes
    /// (data-plane.md §8.4 step 1).
    public var mediaExporter: [UInt8]

    public static func == (a: SessionParameters, b: SessionParameters) -> Bool {
        a.serverHello == b.serverHello && a.clockOffsetNs == b.clockOffsetNs && a.clockRttNs == b.clockRttNs
            && a.clockSamples == b.clockSamples && a.heldFrames == b.heldFrames
            && a.controlStream == b.controlStream && a.mediaExporter == b.mediaExporter
    }
}

/// The client half of the punktfunk/2 handshake (control-plane.md §3.1–§3.5, §4.1) as a sans-I/O
/// state machine over a `QuicConnection` whose TLS handshake has completed.
///
/// The caller owns the socket and the clocks: it feeds every `QuicEvent` of the connection to
/// `handle(_:now:wallNs:)`, calls `handleTimeout(now:wallNs:)` at `nextDeadline`, and sends what
/// the connection then has to transmit. `now` is the monotonic clock of the QUIC layer
/// (`MonotonicClock.nowNs()`), `wallNs` the client wall clock in Unix ns (t1/t4 of §4.1). The machine
/// writes to the connection (stream bytes, close) but never touches a socket.
///
/// Sequence: `start` opens the control stream and writes `00` + ClientHello; Pending frames move
/// to `.waitingForApproval` (the reply deadline restarts with each); Redirect closes with 0x51
/// and returns `.redirect`; ServerHello is validated (suite present and known, 16-byte session
/// id), Ready is sent and 8 sequential clock rounds run (2 s each; a timeout ends them); then
/// `.established`. A host close becomes `HandshakeError.closedByPeer` with the §3.5 sentence.
public final class ClientHandshake {
    public enum State: Equatable, Sendable {
        /// Not started.
        case idle
        /// ClientHello written; waiting for the host's answer.
        case awaitingReply
        /// The host sent `count` Pending frames: it waits for console approval (§3.4). Show it.
        case waitingForApproval(count: Int)
        /// Ready sent; clock round `round` (0-based) is in flight.
        case clockRounds(round: Int)
        /// Finished with an outcome or an error; the machine ignores further input.
        case finished
    }

    /// How the handshake ended when it did not fail.
    public enum Outcome: Equatable {
        /// ServerHello accepted, Ready sent, clock rounds done.
        case established(SessionParameters)
        /// The host redirected: re-dial `addr:port` (empty addr = same address) once with the same
        /// ClientHello, pinning `pin` if it is non-empty (§3.4). The connection was closed 0x51.
        case redirect(addr: String, port: UInt16, pin: String)
    }

    /// Time bounds, ns (defaults from control-plane.md §3.1, §3.4, §4.1).
    public struct Timeouts: Sendable {
        /// ClientHello → first answer (and the whole negotiation without Pending).
        public var negotiation = HandshakeLimits.negotiationNs
        /// After a Pending: the host re-sends every 10 s; give it this long for the next frame.
        public var afterPending = HandshakeLimits.pendingEveryNs + 5_000_000_000
        /// Upper bound on the whole approval wait.
        public var approval = HandshakeLimits.approvalWaitNs + 10_000_000_000
        /// One clock round.
        public var echo = ClockSync.echoTimeoutNs
        /// Grace for the typed close after a stream error.
        public var closeGrace = HandshakeLimits.closeGraceNs
        public init() {}
    }

    public let connection: QuicConnection
    public let hello: ClientHello
    public let timeouts: Timeouts
    public private(set) var state: State = .idle
    /// The error that ended the handshake, if one did.
    public private(set) var error: HandshakeError?
    public private(set) var controlStream: Int64?

    private var reader = FrameReader()
    private var startedAt: UInt64 = 0
    private var replyDeadline: UInt64 = 0
    private var serverHello: ServerHello?
    private var pendingT1: UInt64?
    private var roundDeadline: UInt64 = 0
    private var samples: [ClockSample] = []
    private var held: [ControlFrame] = []
    private var streamEndedDeadline: UInt64?
    private var streamEndCode: UInt64?

    public init(connection: QuicConnection, hello: ClientHello, timeouts: Timeouts = Timeouts()) {
        self.connection = connection
        self.hello = hello
        self.timeouts = timeouts
    }

    /// Opens the control stream and writes `00` (STREAM_CONTROL) + ClientHello (§2.1, §3.1).
    public func start(now: UInt64) throws(HandshakeError) {
        guard state == .idle else { return }
        do {
            let stream = try connection.openBidirectionalStream()
            controlStream = stream
            try connection.write(stream: stream, [UInt8(StreamType.control.rawValue)] + ControlMessage.clientHello(hello).encoded)
        } catch {
            throw fail(.transport(error))
        }
        startedAt = now
        replyDeadline = now + timeouts.negotiation
        state = .awaitingReply
    }

    /// The next instant `handleTimeout` must run, nil when finished.
    public var nextDeadline: UInt64? {
        let phase: UInt64?
        switch state {
        case .idle, .finished: return nil
        case .awaitingReply, .waitingForApproval: phase = replyDeadline
        case .clockRounds: phase = roundDeadline
        }
        return [phase, streamEndedDeadline].compactMap { $0 }.min()
    }

    /// Feeds one connection event. Returns the outcome once the handshake finished.
    public func handle(_ event: QuicEvent, now: UInt64, wallNs: UInt64) throws(HandshakeError) -> Outcome? {
        guard state != .idle, state != .finished else { return nil }
        switch event {
        case .streamData(let stream, let bytes, let fin) where stream == controlStream:
            reader.append(bytes)
            if let outcome = try drain(now: now, wallNs: wallNs) { return outcome }
            if fin { noteStreamEnded(code: nil, now: now) }
        case .streamClosed(let stream, let code) where stream == controlStream:
            noteStreamEnded(code: code, now: now)
        case .streamOpened(let stream):
            // Nothing but the control stream exists during the handshake (§2.1).
            try? connection.resetStream(stream, applicationCode: HandshakeLimits.stopUnknownStream)
        case .closed:
            throw fail(closeError())
        default:
            break
        }
        return nil
    }

    /// Runs due timers. Returns the outcome when the clock rounds end by timeout.
    public func handleTimeout(now: UInt64, wallNs: UInt64) throws(HandshakeError) -> Outcome? {
        guard state != .idle, state != .finished else { return nil }
        if connection.state == .closed || connection.state == .draining {
            throw fail(closeError())
        }
        if let d = streamEndedDeadline, now >= d {
            throw fail(connection.peerClose != nil ? closeError() : .controlStreamEnded(code: streamEndCode))
        }
        switch state {
        case .awaitingReply where now >= replyDeadline:
            throw fail(.timeout(phase: "reply"), closeCode: 0x00)
        case .waitingForApproval where now >= replyDeadline:
            throw fail(.timeout(phase: "approval"), closeCode: 0x00)
        case .clockRounds where now >= roundDeadline:
            // §4.1: a timeout ends the rounds; the samples so far decide.
            return try finishEstablished()
        default:
            return nil
        }
    }

    // MARK: private

    private func drain(now: UInt64, wallNs: UInt64) throws(HandshakeError) -> Outcome? {
        for _ in 0..<10_000 {
            let frame: ControlFrame?
            do { frame = try reader.next() } catch { throw fail(.malformed(error), closeCode: 0x00) }
            guard let frame else { return nil }
            if let outcome = try process(frame, now: now, wallNs: wallNs) { return outcome }
            if state == .finished { return nil }
        }
        return nil
    }

    private func process(_ frame: ControlFrame, now: UInt64, wallNs: UInt64) throws(HandshakeError) -> Outcome? {
        if case .clockRounds(let round) = state {
            guard frame.type == ControlMessageType.clockEcho.rawValue else {
                held.append(frame)  // §3.1: hold non-echo frames for the control task
                return nil
            }
            let echo: ClockEcho
            do { echo = try ClockEcho(body: frame.body) } catch { throw fail(.malformed(error), closeCode: 0x00) }
            guard let t1 = pendingT1, echo.t1Ns == t1 else { return nil }  // stale echo
            samples.append(ClockSample(t1: t1, t2: echo.t2Ns, t3: echo.t3Ns, t4: wallNs))
            if round + 1 >= ClockSync.rounds { return try finishEstablished() }
            try sendProbe(round: round + 1, now: now, wallNs: wallNs)
            return nil
        }
        let message: ControlMessage
        do { message = try ControlMessage(frame: frame) } catch {
            if frame.type == ControlMessageType.serverHello.rawValue, case .valueOutOfRange(tag: 3, let v) = error {
                throw fail(.unsupportedSuite(UInt8(truncatingIfNeeded: v)), closeCode: CloseCode.quit.code,
                           reason: "unsupported media suite")
            }
            throw fail(.malformed(error), closeCode: 0x00)
        }
        switch message {
        case .pending:
            let count: Int
            if case .waitingForApproval(let c) = state { count = c + 1 } else { count = 1 }
            state = .waitingForApproval(count: count)
            replyDeadline = min(now + timeouts.afterPending, startedAt + timeouts.approval)
            return nil
        case .redirect(let r):
            guard r.port != 0 else { throw fail(.unexpected("Redirect with port 0"), closeCode: 0x00) }
            connection.close(applicationCode: CloseCode.quit.code, reason: "redirected")
            state = .finished
            return .redirect(addr: r.addr, port: r.port, pin: r.pin)
        case .refused(let r):
            // Browser-plane message (§3.4); treat it like the close it stands for.
            throw fail(.closedByPeer(code: r.closeCode, reason: r.reason), closeCode: 0x00)
        case .serverHello(let sh):
            // §3.3 tag 3: absent (WebTransport only) is unsupported for a native client; unknown ids
            // were refused while decoding above.
            guard sh.suite != nil else {
                throw fail(.unsupportedSuite(nil), closeCode: CloseCode.quit.code, reason: "unsupported media suite")
            }
            serverHello = sh
            guard let stream = controlStream else { return nil }
            do { try connection.write(stream: stream, ControlMessage.ready(Ready()).encoded) } catch {
                throw fail(.transport(error))
            }
            try sendProbe(round: 0, now: now, wallNs: wallNs)
            return nil
        default:
            throw fail(.unexpected("frame 0x\(String(frame.type, radix: 16)) before ServerHello"), closeCode: 0x00)
        }
    }

    private func sendProbe(round: Int, now: UInt64, wallNs: UInt64) throws(HandshakeError) {
        guard let stream = controlStream else { return }
        pendingT1 = wallNs
        state = .clockRounds(round: round)
        roundDeadline = now + timeouts.echo
        do { try connection.write(stream: stream, ControlMessage.clockProbe(ClockProbe(t1Ns: wallNs)).encoded) } catch {
            throw fail(.transport(error))
        }
    }

    private func finishEstablished() throws(HandshakeError) -> Outcome {
        guard let sh = serverHello, let stream = controlStream else { throw fail(.unexpected("no ServerHello")) }
        let exporter: [UInt8]
        do { exporter = try connection.mediaExporter(sessionID: sh.sessionID.bytes) } catch {
            throw fail(.transport(error))
        }
        let best = ClockSync.best(of: samples)
        state = .finished
        return .established(SessionParameters(
            serverHello: sh, clockOffsetNs: best?.offset ?? 0, clockRttNs: best?.rtt, clockSamples: samples,
            heldFrames: held, controlStream: stream, controlReader: reader, mediaExporter: exporter))
    }

    private func noteStreamEnded(code: UInt64?, now: UInt64) {
        guard streamEndedDeadline == nil else { return }
        streamEndCode = code
        streamEndedDeadline = now + timeouts.closeGrace
    }

    private func closeError() -> HandshakeError {
        if let close = connection.peerClose, close.isApplication {
            return .closedByPeer(code: CloseCode(code: close.code), reason: close.reason)
        }
        if let error = connection.error { return .transport(error) }
        return .controlStreamEnded(code: streamEndCode)
    }

    /// Records `error`, ends the machine, and optionally closes the connection.
    private func fail(_ error: HandshakeError, closeCode: UInt64? = nil, reason: String = "") -> HandshakeError {
        if let closeCode { connection.close(applicationCode: closeCode, reason: reason) }
        self.error = error
        state = .finished
        return error
    }
}

import Foundation
import Glibc
import PunktfunkWire

/// A single-session test host pump (issue 3 item 4) on the calling thread: listen with
/// `QuicListener` (Retry), run `HostHandshake`, then send `accessUnits` in a loop at `fps` through
/// `MediaSender` (exporter keys, system AEAD, `fecPercent` FEC, 1408-byte shards) on the shared
/// socket, dropping each media datagram with probability `lossPercent` (SplitMix64, `seed`).
/// Every client datagram (input, feedback, …) is reported to `onClientDatagram`.
///
/// Invariants: serves one connection, then returns when it closes, when `frames` were sent and the
/// client left (or 3 s passed), when `stop()` is called, or after `maxSeconds`. Thread-safe only for
/// `stop()` and the counters read after `run()` returned.
public final class HostSession: @unchecked Sendable {
    public struct Options: Sendable {
        public var identity: TLSIdentity
        /// Bind address (port 0 = ephemeral; read `localAddress`).
        public var bind: SocketAddress
        /// AUs to stream, looped. Frame n carries `accessUnits[n % count]`; frame 0 is a keyframe.
        public var accessUnits: [[UInt8]]
        /// Total frames to send; 0 = until the client leaves.
        public var frames: Int = 0
        public var fps: Double = 60
        public var fecPercent: Int = 10
        public var shardBytes: Int = 1408
        public var maxDataPerBlock: Int = 4096
        /// Media datagrams dropped on purpose, percent (0…100).
        public var lossPercent: Double = 0
        public var seed: UInt64 = 1
        /// Close with this code right after ClientHello instead of admitting.
        public var refuse: CloseCode?
        public var suite: MediaSuite = .aes128GCM
        /// Upper bound on the whole run, seconds.
        public var maxSeconds: Double = 3600

        public init(identity: TLSIdentity, bind: SocketAddress, accessUnits: [[UInt8]]) {
            self.identity = identity
            self.bind = bind
            self.accessUnits = accessUnits
        }
    }

    public let options: Options
    public let socket: UDPSocket
    public var localAddress: SocketAddress { socket.localAddress }
    /// Each decoded client datagram with the host monotonic time (ns); the raw bytes if undecodable.
    public var onClientDatagram: ((Result<ClientDatagram, WireError>, UInt64) -> Void)?

    private let lock = NSLock()
    private var stopRequested = false
    private var _framesSent = 0
    private var _feedbackReceived = 0
    private var _datagramsDropped = 0
    private var _error: SessionError?

    /// Frames handed to the packetizer (whether or not loss dropped their packets).
    public var framesSent: Int { lock.withLock { _framesSent } }
    /// Feedback datagrams received.
    public var feedbackReceived: Int { lock.withLock { _feedbackReceived } }
    /// Media datagrams dropped by injected loss.
    public var datagramsDropped: Int { lock.withLock { _datagramsDropped } }
    /// Why the session failed, if it did.
    public var error: SessionError? { lock.withLock { _error } }

    public init(options: Options) throws(SessionError) {
        self.options = options
        do { socket = try UDPSocket(bind: options.bind) } catch { throw .transport(error) }
    }

    /// Asks `run()` to return soon (any thread).
    public func stop() { lock.withLock { stopRequested = true } }
    private var stopping: Bool { lock.withLock { stopRequested } }

    private func hostNs() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Serves one session. Errors are also kept in `error`.
    public func run() throws(SessionError) {
        do { try serve() } catch {
            lock.withLock { _error = error }
            throw error
        }
    }

    private func serve() throws(SessionError) {
        var config = QuicConfiguration()
        config.identity = options.identity
        let listener = QuicListener(configuration: config, localAddress: socket.localAddress, requiresRetry: true)
        let limit = QuicClock.now() + UInt64(options.maxSeconds * 1e9)
        var buffer = [UInt8](repeating: 0, count: 65_536)

        // Accept.
        var accepted: QuicConnection?
        while accepted == nil {
            if stopping || QuicClock.now() > limit { return }
            var fd = pollfd(fd: socket.fileDescriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&fd, 1, 20)
            for _ in 0..<64 where accepted == nil {
                let got: (count: Int, from: SocketAddress)?
                do {
                    got = try buffer.withUnsafeMutableBytes { raw in
                        Result { () throws(QuicError) in try socket.receive(into: raw) }
                    }.get()
                } catch { throw .transport(error) }
                guard let (n, from) = got else { break }
                let outcome = try? buffer.withUnsafeBytes { raw in
                    Result { () throws(QuicError) in
                        try listener.handle(datagram: UnsafeRawBufferPointer(rebasing: raw[0..<n]), from: from, now: QuicClock.now())
                    }
                }.get()
                switch outcome {
                case .retry(let packet)?: _ = try? socket.send(packet, to: from)
                case .accepted(let connection)?: accepted = connection
                default: break
                }
            }
        }
        guard let connection = accepted else { return }
        let driver = QuicSocketDriver(socket: socket, connection: connection)
        var hello = ServerHello(sessionID: SessionID(bytes: [UInt8](repeating: 0, count: 16))!)
        hello.suite = options.suite
        hello.mode = Mode(width: 1920, height: 1080, refreshHz: UInt32(options.fps.rounded()))
        hello.shardPayload = UInt16(options.shardBytes)
        hello.maxDataPerBlock = UInt16(options.maxDataPerBlock)
        hello.fecPercent = UInt8(options.fecPercent)
        let decision: HostHandshake.Decision = options.refuse.map { .refuse($0, reason: "refused by pf-testhost") } ?? .serverHello(hello)
        let handshake = HostHandshake(connection: connection, script: .init(decision: decision), now: QuicClock.now())

        var sender: MediaSender?
        var rng = SplitMix64(seed: options.seed)
        let threshold = UInt64(min(max(options.lossPercent, 0), 100) / 100 * Double(UInt64.max))
        let frameNs = UInt64(1e9 / max(options.fps, 1))
        var nextFrame: UInt64 = 0
        var frame: UInt32 = 0
        var doneAt: UInt64?

        while !stopping {
            let now = QuicClock.now()
            if now > limit { break }
            if let doneAt, now > doneAt { break }
            let timeout = sender == nil ? 5_000_000 : (nextFrame > now ? min(nextFrame - now, 5_000_000) : 0)
            let events: [QuicEvent]
            do { events = try driver.wait(timeout: timeout) } catch { throw .transport(error) }
            for event in events {
                if case .datagram(let bytes) = event {
                    let decoded = Result { () throws(WireError) in try ClientDatagram(decoding: bytes) }
                    if case .success(.feedback) = decoded { lock.withLock { _feedbackReceived += 1 } }
                    onClientDatagram?(decoded, QuicClock.now())
                }
                try? handshake.handle(event, now: QuicClock.now(), hostNs: hostNs())
                if event == .closed { return }
            }
            if let d = handshake.nextDeadline, d <= QuicClock.now() {
                try? handshake.handleTimeout(now: QuicClock.now(), hostNs: hostNs())
            }
            if connection.state == .closed || connection.state == .draining { return }
            if sender == nil, handshake.state == .serving {
                let exporter: [UInt8]?
                do { exporter = try handshake.mediaExporter() } catch { throw .transport(error) }
                guard let exporter else { continue }
                sender = MediaSender(exporter: exporter, suite: options.suite,
                                     packetizer: Packetizer(shardBytes: options.shardBytes, maxDataPerBlock: options.maxDataPerBlock,
                                                            fecPercent: options.fecPercent),
                                     aead: GnuTLSMediaAEAD.factory)
                nextFrame = QuicClock.now()
            }
            guard let sender, !options.accessUnits.isEmpty, doneAt == nil else { continue }
            let t = QuicClock.now()
            if t >= nextFrame {
                nextFrame += frameNs
                if nextFrame < t { nextFrame = t + frameNs }  // fell behind: do not burst
                let au = options.accessUnits[Int(frame) % options.accessUnits.count]
                let remote = connection.remoteAddress
                var dropped = 0
                do {
                    try au.withUnsafeBytes { raw in
                        try sender.send(raw, frame: frame, epoch: 0, userFlags: frame == 0 ? AccessUnit.keyframeFlag : 0,
                                        ptsMicros: UInt32(truncatingIfNeeded: UInt64(frame) * frameNs / 1000)) { datagram in
                            if threshold > 0 && rng.next() < threshold { dropped += 1; return }
                            _ = try socket.send(datagram, to: remote)
                        }
                    }
                } catch let e as QuicError { throw .transport(e) } catch {
                    throw .transport(.invalidState("send: \(error)"))
                }
                frame &+= 1
                lock.withLock { _framesSent += 1; _datagramsDropped += dropped }
                if options.frames > 0 && Int(frame) >= options.frames { doneAt = QuicClock.now() + 3_000_000_000 }
            }
        }
        connection.close(applicationCode: CloseCode.normal.code, reason: "host stopped")
        _ = try? driver.step()
    }
}

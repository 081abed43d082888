import Foundation
import Glibc
import PunktfunkWire

/// Why a pump session (client or host) ended abnormally. `description` is one sentence for a user.
public enum SessionError: Error, CustomStringConvertible {
    /// `HOST[:PORT]` could not be parsed or resolved (getaddrinfo's message).
    case resolve(String)
    /// The handshake failed, or the host closed the session with a code (the close-code sentence).
    case handshake(HandshakeError)
    /// QUIC/TLS/socket failure outside the handshake machine (e.g. `.pinMismatch`).
    case transport(QuicError)
    /// The host redirected us; following redirects is not built in this slice.
    case redirected(addr: String, port: UInt16)

    public var description: String {
        switch self {
        case .resolve(let what): return "Cannot resolve the host: \(what)."
        case .handshake(let e): return e.description
        case .transport(.pinMismatch(let expected, let actual)):
            return "The host's certificate does not match the pinned fingerprint (expected \(expected), got \(actual)); refusing to connect."
        case .transport(let e): return "The connection to the host failed: \(e)."
        case .redirected(let addr, let port): return "The host redirected the session to \(addr):\(port); redirects are not followed yet."
        }
    }

    /// The QUIC error if this is a transport failure (tests: pin mismatch).
    public var quicError: QuicError? {
        switch self {
        case .transport(let e): return e
        case .handshake(.transport(let e)): return e
        default: return nil
        }
    }
}

/// One second of client pump statistics (issue 3 item 5: one JSON line per second).
public struct PumpStats: Sendable, Equatable {
    /// Seconds since the session was established (1, 2, …).
    public var second: Int
    /// Complete video AUs delivered in this interval, per second.
    public var fps: Double
    /// Media datagram bytes received in this interval, megabits per second.
    public var mbps: Double
    /// Cumulative frames the reassembler gave up on.
    public var framesLost: UInt64
    /// Cumulative data shards rebuilt by FEC.
    public var shardsRecovered: UInt64
    /// Cumulative media datagrams received.
    public var packets: UInt64
    /// Round-trip time of the best clock round, milliseconds (nil if no round was answered).
    public var rttMs: Double?
    /// Host clock minus client clock, nanoseconds (from the handshake's clock rounds).
    public var clockOffsetNs: Int64

    /// One JSON object, no trailing newline.
    public var json: String {
        let rtt = rttMs.map { String(format: "%.3f", $0) } ?? "null"
        return "{\"second\":\(second),\"fps\":\(String(format: "%.2f", fps)),\"mbps\":\(String(format: "%.3f", mbps)),"
            + "\"frames_lost\":\(framesLost),\"shards_recovered\":\(shardsRecovered),\"packets\":\(packets),"
            + "\"rtt_ms\":\(rtt),\"clock_offset_ns\":\(clockOffsetNs)}"
    }
}

/// Splits `HOST[:PORT]`, `[V6]:PORT` or a bare IPv6 literal and resolves it with getaddrinfo.
public enum HostResolver {
    public static let defaultPort: UInt16 = 9777

    /// - Returns: the host text (no brackets) and the port (default 9777).
    public static func split(_ text: String) throws(SessionError) -> (host: String, port: UInt16) {
        var host = text
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw .resolve("unbalanced '[' in \(text)") }
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if rest.hasPrefix(":") { portText = rest.dropFirst() } else if !rest.isEmpty { throw .resolve("junk after ']' in \(text)") }
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            host = String(text[..<colon])
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty else { throw .resolve("empty host name in \(text)") }
        guard let portText else { return (host, defaultPort) }
        guard let port = UInt16(portText), port != 0 else { throw .resolve("bad port '\(portText)'") }
        return (host, port)
    }

    /// Resolves `HOST[:PORT]` to the first address getaddrinfo returns (UDP).
    public static func resolve(_ text: String) throws(SessionError) -> SocketAddress {
        let (host, port) = try split(text)
        if let literal = SocketAddress(ip: host, port: port) { return literal }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, nil, &hints, &list)
        guard rc == 0, let first = list else {
            throw .resolve("\(host): \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(list) }
        var name = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(first.pointee.ai_addr, first.pointee.ai_addrlen, &name, socklen_t(name.count), nil, 0, NI_NUMERICHOST) == 0,
              let address = SocketAddress(ip: String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), port: port) else {
            throw .resolve("\(host): no usable address")
        }
        return address
    }
}

/// A blocking punktfunk/2 client pump on the calling thread (no Swift concurrency): dial, run
/// `ClientHandshake`, then receive media over the shared socket into a `MediaReceiver` keyed from
/// the TLS exporter, hand out complete AUs, send a Feedback datagram every `feedbackEveryNs`, and
/// quit with close code 0x51 after `seconds`.
///
/// Invariants: every loop is bounded by wall time (handshake ≤ 12 s, session ≤ `seconds`, close
/// flush ≤ 200 ms); callbacks run on the calling thread; the `AccessUnit` bytes are valid only
/// during `onAccessUnit`.
public final class ClientSession {
    public struct Options {
        /// Where to dial.
        public var remote: SocketAddress
        /// Our identity (mutual TLS) and how the host's certificate is checked.
        public var identity: TLSIdentity?
        public var trust: HostTrust
        /// Session length after establishment, seconds; then close 0x51.
        public var seconds: Double
        /// What we ask for.
        public var hello: ClientHello
        /// Feedback report window, ns (~750 ms, data-plane.md feedback).
        public var feedbackEveryNs: UInt64 = 750_000_000
        /// Stats interval, ns.
        public var statsEveryNs: UInt64 = 1_000_000_000

        public init(remote: SocketAddress, identity: TLSIdentity?, trust: HostTrust, seconds: Double,
                    hello: ClientHello = ClientSession.defaultHello) {
            self.remote = remote
            self.identity = identity
            self.trust = trust
            self.seconds = seconds
            self.hello = hello
        }
    }

    /// Native 1080p60 HEVC, both media suites.
    public static var defaultHello: ClientHello {
        var h = ClientHello(mode: Mode(width: 1920, height: 1080, refreshHz: 60))
        h.suites = [.aes128GCM, .chaCha20Poly1305]
        return h
    }

    public let options: Options
    /// Each complete video AU, in delivery order. Bytes valid during the call only.
    public var onAccessUnit: ((AccessUnit) -> Void)?
    /// Once per `statsEveryNs` after establishment.
    public var onStats: ((PumpStats) -> Void)?
    /// Set after the handshake.
    public private(set) var parameters: SessionParameters?
    /// The host's certificate fingerprint as seen in TLS (for TOFU recording).
    public private(set) var peerFingerprint: String?
    /// Feedback datagrams sent.
    public private(set) var feedbackSent = 0
    /// Receiver counters at the end of the run.
    public private(set) var counters = MediaCounters()
    /// Media datagrams the receiver rejected.
    public private(set) var mediaErrors = 0

    public init(options: Options) { self.options = options }

    /// Media datagrams kept while the handshake finishes (≈ 12 MB at 1.5 kB each).
    public static let earlyMediaLimit = 8192

    private static func wallNs() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Runs the whole session. Returns normally after `seconds` with a deliberate quit.
    public func run() throws(SessionError) {
        var config = QuicConfiguration()
        config.identity = options.identity
        config.hostTrust = options.trust
        let wildcard = SocketAddress(ip: options.remote.isIPv6 ? "::" : "0.0.0.0", port: 0)!
        let socket: UDPSocket
        let connection: QuicConnection
        do {
            socket = try UDPSocket(bind: wildcard)
            connection = try QuicConnection(client: config, local: socket.localAddress, remote: options.remote, now: QuicClock.now())
        } catch { throw .transport(error) }
        let driver = QuicSocketDriver(socket: socket, connection: connection)
        defer { socket.close() }

        // Phase 1: TLS + punktfunk handshake, bounded.
        let handshake = ClientHandshake(connection: connection, hello: options.hello)
        // The host streams from Ready on, while our clock rounds still run: keep that media
        // (bounded) and replay it once the keys are known, so the first keyframe is not lost.
        var early: [[UInt8]] = []
        driver.onMedia = { datagram in if early.count < Self.earlyMediaLimit { early.append(Array(datagram)) } }
        let handshakeLimit = QuicClock.now() + 12_000_000_000
        var established: SessionParameters?
        while established == nil {
            let now = QuicClock.now()
            if now > handshakeLimit { throw .handshake(.timeout(phase: "connect")) }
            let events: [QuicEvent]
            do { events = try driver.wait(timeout: 10_000_000) } catch { throw .transport(error) }
            if handshake.state == .idle {
                if connection.state == .established {
                    peerFingerprint = connection.peerFingerprint
                    do { try handshake.start(now: QuicClock.now()) } catch { throw .handshake(error) }
                } else if connection.state == .closed || connection.state == .draining || events.contains(.closed) {
                    throw .transport(connection.error ?? driver.connectionErrors.last ?? .invalidState("closed during TLS"))
                }
            }
            do {
                for event in events where established == nil {
                    if let outcome = try handshake.handle(event, now: QuicClock.now(), wallNs: Self.wallNs()) {
                        established = try accept(outcome)
                    }
                }
                if established == nil, handshake.state != .idle, let d = handshake.nextDeadline, d <= QuicClock.now(),
                   let outcome = try handshake.handleTimeout(now: QuicClock.now(), wallNs: Self.wallNs()) {
                    established = try accept(outcome)
                }
            } catch let e as HandshakeError {
                throw .handshake(e)
            } catch let e as SessionError {
                throw e
            } catch { throw .transport(.invalidState("\(error)")) }
        }
        guard let params = established, let suite = params.serverHello.suite else {
            throw .handshake(.unsupportedSuite(nil))
        }
        parameters = params

        // Phase 2: media.
        let hello = params.serverHello
        let limits = MediaLimits(shardBytes: hello.shardPayload == 0 ? 1408 : Int(hello.shardPayload),
                                 maxDataPerBlock: hello.maxDataPerBlock == 0 ? 4096 : Int(hello.maxDataPerBlock))
        let receiver = MediaReceiver(exporter: params.mediaExporter, suite: suite, limits: limits,
                                     clockOriginNs: Int64(hello.clockOriginNs), aead: GnuTLSMediaAEAD.factory)
        let deliver = onAccessUnit
        receiver.video.onAccessUnit = { au in deliver?(au) }
        var rejected = 0
        driver.onMedia = { datagram in
            do { try receiver.receive(datagram) } catch { rejected += 1 }
        }
        for datagram in early {
            datagram.withUnsafeBytes { raw in
                do { try receiver.receive(raw) } catch { rejected += 1 }
            }
        }
        early = []
        let start = QuicClock.now()
        let end = start + UInt64(max(0, options.seconds) * 1e9)
        var nextFeedback = start + options.feedbackEveryNs
        var nextStats = start + options.statsEveryNs
        var window: UInt32 = 0
        var lastFeedback = receiver.counters
        var lastStats = receiver.counters
        var second = 0
        let rttMs = params.clockRttNs.map { Double($0) / 1e6 }
        defer { counters = receiver.counters; mediaErrors = rejected }

        while true {
            let now = QuicClock.now()
            if now >= end { break }
            let events: [QuicEvent]
            do { events = try driver.wait(timeout: min(end - now, 5_000_000)) } catch { throw .transport(error) }
            if events.contains(.closed) || connection.state == .closed || connection.state == .draining {
                counters = receiver.counters
                if let close = connection.peerClose, close.isApplication {
                    throw .handshake(.closedByPeer(code: CloseCode(code: close.code), reason: close.reason))
                }
                throw .transport(connection.error ?? .invalidState("the connection closed"))
            }
            let after = QuicClock.now()
            if after >= nextFeedback {
                nextFeedback += options.feedbackEveryNs
                let c = receiver.counters
                let packets = c.packetsReceived - lastFeedback.packetsReceived
                let repaired = c.shardsRecovered - lastFeedback.shardsRecovered
                // Loss estimate: shards FEC had to rebuild over shards that should have arrived.
                let expected = packets + repaired
                let ppm = expected == 0 ? 0 : UInt32(repaired * 1_000_000 / expected)
                window &+= 1
                let feedback = FeedbackDatagram(window: .init(number: window, lossPPM: ppm, packetsReceived: packets))
                if (try? connection.sendDatagram(ClientDatagram.feedback(feedback).encoded)) != nil { feedbackSent += 1 }
                lastFeedback = c
            }
            if after >= nextStats {
                let interval = Double(options.statsEveryNs) / 1e9 + Double(after - nextStats) / 1e9
                nextStats = after + options.statsEveryNs
                second += 1
                let c = receiver.counters
                onStats?(PumpStats(second: second,
                                   fps: Double(c.framesDelivered - lastStats.framesDelivered) / interval,
                                   mbps: Double(c.bytesReceived - lastStats.bytesReceived) * 8 / 1e6 / interval,
                                   framesLost: c.framesLost, shardsRecovered: c.shardsRecovered,
                                   packets: c.packetsReceived, rttMs: rttMs, clockOffsetNs: params.clockOffsetNs))
                lastStats = c
            }
        }
        // Deliberate quit (control-plane §3.5: 0x51), flushed within 200 ms.
        connection.close(applicationCode: CloseCode.quit.code, reason: "quit")
        let flushLimit = QuicClock.now() + 200_000_000
        while QuicClock.now() < flushLimit, connection.state != .closed {
            _ = try? driver.wait(timeout: 20_000_000)
            if connection.state == .closing || connection.state == .draining { break }
        }
    }

    private func accept(_ outcome: ClientHandshake.Outcome) throws(SessionError) -> SessionParameters {
        switch outcome {
        case .established(let p): return p
        case .redirect(let addr, let port, _): throw .redirected(addr: addr, port: port)
        }
    }
}

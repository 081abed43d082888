import Foundation
import Glibc
import PunktfunkWire
import SystemClock

/// Why a pump session (client or host) ended abnormally. `description` is one sentence for a user.
public enum SessionError: Error, CustomStringConvertible {
    /// `HOST[:PORT]` could not be parsed or resolved (getaddrinfo's message).
    case resolve(String)
    /// The handshake failed, or the host closed the session with a code (the close-code sentence).
    case handshake(HandshakeError)
    /// QUIC/TLS/socket failure outside the handshake machine (e.g. `.pinMismatch`).
    case transport(QuicError)
    /// The host redirected us (§3.4): re-dial `addr:port` (empty addr = same address), pinning
    /// `pin` when it is non-empty. `SessionDialer` follows one.
    case redirected(addr: String, port: UInt16, pin: String)
    /// A second Redirect within one connect (§3.1: only one is followed).
    case redirectedTwice(addr: String, port: UInt16)

    public var description: String {
        switch self {
        case .resolve(let what): return "Cannot resolve the host: \(what)."
        case .handshake(let e): return e.description
        case .transport(let e): return HandshakeError.sentence(for: e)
        case .redirected(let addr, let port, _):
            return "The host redirected the session to \(addr.isEmpty ? "the same address" : addr) port \(port)."
        case .redirectedTwice(let addr, let port):
            return "The host redirected the session a second time (to \(addr.isEmpty ? "the same address" : addr) port \(port)); only one redirect is followed."
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
    /// Host clock minus client clock, nanoseconds (the handshake's, then each admitted re-sync).
    public var clockOffsetNs: Int64
    /// Cumulative audio datagrams received.
    public var audioPackets: UInt64 = 0
    /// Cumulative keyframe asks (a lost range wider than RFI can repair, or the decoder's).
    public var keyframeAsks: UInt64 = 0
    /// Cumulative reference-frame-invalidation asks, NACK asks, and asks given up unanswered.
    public var rfiAsks: UInt64 = 0
    public var nackAsks: UInt64 = 0
    public var asksGivenUp: UInt64 = 0
    /// The rate loop's state (nil when none runs).
    public var rate: RateStats?
    /// The stall ledger's counts, last stall and period (`StallLedger.json`), and its overlay words.
    public var stalls: String?
    public var stallSummary: String?
    /// The Wi-Fi link as last read (nil off Wi-Fi).
    public var wifi: WiFiLink?

    /// What the rate loop asked, what the host granted, and its last decision.
    public struct RateStats: Sendable, Equatable {
        public var askedKbps: UInt32
        public var grantedKbps: UInt32
        /// Feedback tag 8 (0: no wall known) and tag 16.
        public var linkKbps: UInt32
        public var shape: UInt8
        public var cuts: Int
        public var climbs: Int
        /// The last decision's kind (`cut`, `climb`, …) and reason, nil before the first.
        public var decision: String?
        public var reason: String?

        public init(askedKbps: UInt32, grantedKbps: UInt32, linkKbps: UInt32, shape: UInt8, cuts: Int, climbs: Int,
                    decision: String?, reason: String?) {
            self.askedKbps = askedKbps
            self.grantedKbps = grantedKbps
            self.linkKbps = linkKbps
            self.shape = shape
            self.cuts = cuts
            self.climbs = climbs
            self.decision = decision
            self.reason = reason
        }

        /// One JSON object.
        public var json: String {
            "{\"asked_kbps\":\(askedKbps),\"granted_kbps\":\(grantedKbps),\"link_kbps\":\(linkKbps),\"shape\":\(shape),"
                + "\"cuts\":\(cuts),\"climbs\":\(climbs),\"decision\":\(Self.quoted(decision)),\"reason\":\(Self.quoted(reason))}"
        }

        static func quoted(_ s: String?) -> String { s.map(JSONString.quoted) ?? "null" }
    }

    /// One JSON object, no trailing newline.
    public var json: String {
        let rtt = rttMs.map { String(format: "%.3f", $0) } ?? "null"
        return "{\"second\":\(second),\"fps\":\(String(format: "%.2f", fps)),\"mbps\":\(String(format: "%.3f", mbps)),"
            + "\"frames_lost\":\(framesLost),\"shards_recovered\":\(shardsRecovered),\"packets\":\(packets),"
            + "\"rtt_ms\":\(rtt),\"clock_offset_ns\":\(clockOffsetNs),\"audio_packets\":\(audioPackets),"
            + "\"keyframe_asks\":\(keyframeAsks),\"rfi_asks\":\(rfiAsks),\"nack_asks\":\(nackAsks),\"asks_given_up\":\(asksGivenUp)"
            + (rate.map { ",\"rate\":" + $0.json } ?? "") + (stalls.map { ",\"stalls\":" + $0 } ?? "")
            + (wifi.map { ",\"wifi\":" + $0.json } ?? "") + "}"
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
        /// QUIC idle timeout, ns (control-plane.md §1.1: 8 s; keep-alive PINGs at min(idle/2, 4 s)).
        public var idleTimeoutNs: UInt64 = 8_000_000_000
        /// Bound on dialling through the end of the handshake when no Pending arrives, ns.
        public var dialTimeoutNs: UInt64 = 12_000_000_000
        /// Mid-stream clock re-sync period, ns (control-plane.md §4.2: 60 s).
        public var clockResyncEveryNs: UInt64 = ClockResync.intervalNs
        /// Called with the count of Pending frames so far while the host waits for console
        /// approval (§3.4, §6.5): show "waiting for approval on the host".
        public var onPending: ((Int) -> Void)?
        /// The rate loop (control-plane.md §5.1–5.2): nil runs none (the rate never moves and the
        /// hello's tag 20 is not set). Its start rate is the host's (ServerHello tag 13), else the
        /// hello's ask, else `RateLoop.Configuration.startKbps`.
        public var rate: RateLoop.Configuration?
        /// The Wi-Fi interface's events (scans, roams, channel switches, beacon loss) for the stall
        /// ledger; the session starts and stops it. nil: not on Wi-Fi (the ledger still runs).
        public var wifiEvents: WiFiEventWatch?

        public init(remote: SocketAddress, identity: TLSIdentity?, trust: HostTrust, seconds: Double,
                    hello: ClientHello = ClientSession.defaultHello) {
            self.remote = remote
            self.identity = identity
            self.trust = trust
            self.seconds = seconds
            self.hello = hello
        }
    }

    /// Native 1080p60 HEVC (the display path replaces the mode with the panel's), AES-128-GCM
    /// alone without VIDEO_CAP_CHACHA20 (control-plane.md §3.2 tag 2), and only what every
    /// box running this client honours: StreamConfig epochs (bit 32), Redirect-following (bit
    /// 34), speed-test results (`probeSeq`), host timing (0xCF) and streamed AUs (§2.3),
    /// CLIENT_CAP_EXT, stereo Opus. What depends on the box (10-bit, HDR, surround, redundant
    /// audio, multi-slice, ChaCha20, its name) the kiosk's `HelloPlan` adds.
    public static var defaultHello: ClientHello {
        var h = ClientHello(mode: Mode(width: 1920, height: 1080, refreshHz: 60))
        h.suites = [.aes128GCM]
        h.videoCodecs = .hevc
        h.audioChannels = 2
        h.features = FeatureSet(videoCaps: [.probeSeq, .hostTiming, .streamedAU], clientCaps: [.ext],
                                bits: [FeatureBit.streamConfig, FeatureBit.profiles])
        h.clientLabel = "punktfunk-kiosk"
        return h
    }

    public let options: Options
    /// Each complete video AU, in delivery order. Bytes valid during the call only.
    public var onAccessUnit: ((AccessUnit) -> Void)?
    /// Each complete video AU with where it falls in the frame order (a gap before it: frames
    /// were lost; a straggler: behind a frame already delivered), after `onAccessUnit`. The
    /// decoder's feed. Bytes valid during the call only.
    public var onVideoFrame: ((AccessUnit, LossAsks.FrameOrder) -> Void)?
    /// Once per `statsEveryNs` after establishment.
    public var onStats: ((PumpStats) -> Void)?
    /// Set after the handshake.
    public private(set) var parameters: SessionParameters?
    /// The host's certificate fingerprint as seen in TLS (for TOFU recording).
    public private(set) var peerFingerprint: String?
    /// Audio datagrams (Opus/PCM/redundant), in arrival order. Valid during the call.
    public var onAudio: ((AudioPacket) -> Void)?
    /// Every other host datagram: rumble, HID output, cursor, host timing, HDR metadata, unknown.
    public var onHostDatagram: ((HostDatagram) -> Void)?
    /// Each complete video AU's pre-client time split (host share from its 0xCF, joined by pts;
    /// network share from its packets' arrival on the session clock), once known — in arrival
    /// order, a frame waiting for its 0xCF up to `HostTimingJoin.slots` AUs. Pump thread.
    public var onFrameTiming: ((HostTimingJoin.Frame) -> Void)?
    /// Control-stream messages after the handshake (StreamConfig epochs, Reconfigured,
    /// BitrateChanged, ProbeResult, …), including those held during the clock rounds.
    public var onControl: ((ControlMessage) -> Void)?
    /// The host's answer to each mode request made through `outbox.requestMode` (pump thread).
    public var onModeAnswer: ((ModeAnswer) -> Void)?
    /// The result of each speed test (a ProbeRequest sent through `outbox`, answered by ProbeResult).
    public var onProbeReport: ((ProbeMeter.Report) -> Void)?
    /// Once, when the handshake finished (`parameters` and `peerFingerprint` are set), before any
    /// media is handed out.
    public var onEstablished: ((SessionParameters) -> Void)?
    /// True when the session was established and then lost without a close from the host (path
    /// gone, idle timeout): the host keeps it for a resume (control-plane.md §5.6).
    public internal(set) var sessionLost = false
    /// The newest speed-test result.
    public internal(set) var lastProbe: ProbeMeter.Report?
    /// Input and control messages from other threads; sent on the next pump pass.
    public let outbox = ClientOutbox()
    /// Feedback datagrams sent.
    public internal(set) var feedbackSent = 0
    /// Feedback datagrams that carried an open ask.
    public internal(set) var askFeedbackSent = 0
    /// Receiver counters at the end of the run.
    public internal(set) var counters = MediaCounters()
    /// Media datagrams the receiver rejected.
    public internal(set) var mediaErrors = 0
    /// Loss detection and recovery asks (RFI, keyframe, NACK), as at the end of the run.
    public internal(set) var asks = LossAsks()
    /// The rate loop as at the end of the run (nil without `Options.rate`).
    public internal(set) var rate: RateLoop?
    /// One JSON line per closed Feedback window of the rate loop (`RateLoop.logLine`), pump thread.
    public var onRateWindow: ((String) -> Void)?
    /// Each settled stall with the ledger as it stands after it (pump thread).
    public var onStall: ((StallLedger.Stall, StallLedger) -> Void)?
    /// Frames held for their epoch's StreamConfig, and dropped because that hold overflowed.
    public internal(set) var epochFramesHeld = 0
    public internal(set) var epochFramesDropped = 0
    /// Audio datagrams received.
    public internal(set) var audioPackets = 0
    /// Host − client clock offset in force (ns): the handshake's, then each admitted re-sync.
    public internal(set) var clockOffsetNs: Int64 = 0
    /// Mid-stream clock re-sync batches completed (admitted or not).
    public internal(set) var clockResyncs = 0
    /// The newest StreamConfig (epoch 0 from the handshake, then each change).
    public internal(set) var streamConfig: StreamConfig?
    /// Client datagrams and control messages from `outbox` that reached the connection.
    public internal(set) var outboxSent = 0
    /// Input items (events, key edges, rich input) that reached the connection.
    public internal(set) var inputsSent = 0

    public init(options: Options) { self.options = options }

    /// Media datagrams kept while the handshake finishes (≈ 12 MB at 1.5 kB each).
    public static let earlyMediaLimit = 8192
    /// Host datagrams (not audio) kept while the handshake finishes.
    public static let earlyHostDatagramLimit = 256

    /// Runs the whole session. Returns normally after `seconds` with a deliberate quit.
    public func run() throws(SessionError) {
        var options = self.options
        // A running rate loop reads BitrateChanged's reason (tag 20 bit0).
        if options.rate.map({ $0.mode == .automatic }) ?? false { options.hello.abrFeatures.insert(.ackReason) }
        var config = QuicConfiguration()
        config.idleTimeout = options.idleTimeoutNs
        config.keepAliveInterval = min(options.idleTimeoutNs / 2, 4_000_000_000)
        config.identity = options.identity
        config.hostTrust = options.trust
        let wildcard = SocketAddress(ip: options.remote.isIPv6 ? "::" : "0.0.0.0", port: 0)!
        let socket: UDPSocket
        let connection: QuicConnection
        do {
            socket = try UDPSocket(bind: wildcard)
            connection = try QuicConnection(client: config, local: socket.localAddress, remote: options.remote, now: MonotonicClock.nowNs())
        } catch { throw .transport(error) }
        let driver = QuicSocketDriver(socket: socket, connection: connection)
        defer { socket.close() }

        // Phase 1: TLS + punktfunk handshake, bounded.
        let handshake = ClientHandshake(connection: connection, hello: options.hello)
        // The host streams from Ready on, while our clock rounds still run: keep that media
        // (bounded) and replay it once the keys are known, so the first keyframe is not lost.
        var early: [[UInt8]] = []
        driver.onMedia = { datagram in if early.count < Self.earlyMediaLimit { early.append(Array(datagram)) } }
        // Host datagrams that arrive then are kept too (as the control frames are, §3.1): the
        // first keyframe's 0xCE HDR metadata comes right before it, and a host sends it again
        // only with the next keyframe. Audio is not kept (stale by the time it could play).
        var earlyHost: [HostDatagram] = []
        // 12 s for TLS and the host's first answer; a Pending extends it to the handshake's own
        // approval bound (§3.4: up to 180 s), which then ends the wait.
        var handshakeLimit = MonotonicClock.nowNs() + options.dialTimeoutNs
        var pendingSeen = 0
        var established: SessionParameters?
        while established == nil {
            let now = MonotonicClock.nowNs()
            if now > handshakeLimit { throw .handshake(.timeout(phase: "connect")) }
            let events: [QuicEvent]
            do { events = try driver.wait(timeout: 10_000_000) } catch { throw .transport(error) }
            if handshake.state == .idle {
                if connection.state == .established {
                    peerFingerprint = connection.peerFingerprint
                    do { try handshake.start(now: MonotonicClock.nowNs()) } catch { throw .handshake(error) }
                } else if connection.state == .closed || connection.state == .draining || events.contains(.closed) {
                    throw .transport(connection.error ?? driver.connectionErrors.last ?? .invalidState("closed during TLS"))
                }
            }
            for event in events {
                guard case .datagram(let bytes) = event, earlyHost.count < Self.earlyHostDatagramLimit,
                      let datagram = try? HostDatagram(decoding: bytes) else { continue }
                switch datagram {
                case .audio, .media, .clockEcho: continue
                default: earlyHost.append(datagram)
                }
            }
            do {
                for event in events where established == nil {
                    if let outcome = try handshake.handle(event, now: MonotonicClock.nowNs(), wallNs: MonotonicClock.realtimeNs()) {
                        established = try accept(outcome)
                    }
                }
                if established == nil, handshake.state != .idle, let d = handshake.nextDeadline, d <= MonotonicClock.nowNs(),
                   let outcome = try handshake.handleTimeout(now: MonotonicClock.nowNs(), wallNs: MonotonicClock.realtimeNs()) {
                    established = try accept(outcome)
                }
            } catch let e as HandshakeError {
                throw .handshake(e)
            } catch let e as SessionError {
                throw e
            } catch { throw .transport(.invalidState("\(error)")) }
            if case .waitingForApproval(let count) = handshake.state, count != pendingSeen {
                if pendingSeen == 0 { handshakeLimit = MonotonicClock.nowNs() + handshake.timeouts.approval }
                pendingSeen = count
                options.onPending?(count)
            }
        }
        guard let params = established, let suite = params.serverHello.suite else {
            throw .handshake(.unsupportedSuite(nil))
        }
        parameters = params
        onEstablished?(params)

        // Phase 2: the session.
        try stream(params, suite: suite, connection: connection, driver: driver, early: early, earlyHost: earlyHost)
        early = []
        earlyHost = []
    }

    private func accept(_ outcome: ClientHandshake.Outcome) throws(SessionError) -> SessionParameters {
        switch outcome {
        case .established(let p): return p
        case .redirect(let addr, let port, let pin): throw .redirected(addr: addr, port: port, pin: pin)
        }
    }
}

import Foundation
import Glibc
import PunktfunkWire
import SystemClock
import PunktfunkSession
import Audio

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
        /// The require-pairing gate after ClientHello (control-plane.md §6.5); nil admits everyone.
        public var admission: HostAdmission?
        /// Answers PairRequest-first connections (§6.2); nil refuses them 0x60 (not armed).
        public var pairing: HostPairing?
        /// Pending frames sent after admission, before the decision (§3.4), every `pendingEveryNs`.
        public var pendingCount = 0
        public var pendingEveryNs: UInt64 = HandshakeLimits.pendingEveryNs
        /// Answer with this Redirect instead of ServerHello (§3.4).
        public var redirect: Redirect?
        public var suite: MediaSuite = .aes128GCM
        /// Upper bound on the whole run, seconds.
        public var maxSeconds: Double = 3600
        /// Indices into `accessUnits` that are keyframes (IRAP): sent with the keyframe flag, and
        /// where a keyframe ask makes the stream jump to (the next one, wrapping). Default: [0].
        public var keyframeIndices: [Int] = [0]
        /// Keep the AU index sent for every frame in `schedule` (tests compare received AUs with it).
        public var recordSchedule = false
        /// Frames come from a live `AnchorStream` (honest RFI anchors, IDRs on request) instead of
        /// `accessUnits`.
        public var anchorStream: AnchorStream.Configuration?
        /// With `anchorStream`: answer an RFI ask with an anchor (false: with an IDR, the
        /// keyframe-only baseline).
        public var answersRFI = true
        /// Called for every video frame handed to the packetizer: frame number, the AU, its user
        /// flags (session thread).
        public var onFrameSent: (@Sendable (UInt32, [UInt8], UInt32) -> Void)?
        /// Fault injection for the lost-answer case: every packet of the first `loseAnswers`
        /// frames that answer an ask (the IDR or anchor sent next) is dropped.
        public var loseAnswers = 0
        /// Called for every Feedback ask acted on (a number newer than the last): the ask and
        /// what answered it (session thread).
        public var onAsk: (@Sendable (FeedbackDatagram.Ask, HostAskAnswer) -> Void)?
        /// Cut the network path (drop every datagram both ways) once this many frames were sent,
        /// for `blackoutSeconds`. Frames keep being produced and are lost meanwhile.
        public var blackoutAfterFrames: Int?
        public var blackoutSeconds: Double = 3
        /// Audio: called every `audioFrameNs` with the packet sequence number; returns one Opus
        /// packet (or nil to skip), sent as an 0xC9 audio datagram.
        public var audioSource: (@Sendable (UInt32) -> [UInt8]?)?
        public var audioFrameNs: UInt64 = 5_000_000
        /// Sound channels the ServerHello grants (2, 6, 8; tag 17); nil follows the client's ask.
        /// 6 and 8 need `makeAudioSource` (`HostAudioPlan`).
        public var audioChannels: UInt8?
        /// Builds the audio source for the layout granted to the client (replaces `audioSource`).
        public var makeAudioSource: (@Sendable (OpusLayout) -> (@Sendable (UInt32) -> [UInt8]?))?
        /// Send 0xD2 (the packet and its predecessor, data-plane.md §5.2) with HOST_CAP_AUDIO_RED
        /// to a client that set CLIENT_CAP_AUDIO_RED.
        public var audioRedundancy = true
        /// The audio clock's error against CLOCK_MONOTONIC, ppm: packets are produced every
        /// `audioFrameNs × (1 + ppm/10⁶)` (a host DAC clock running slow for > 0), pts stamped on
        /// that clock.
        public var audioSkewPPM: Double = 0
        /// Audio datagrams dropped on purpose, percent (seeded, independent of `lossPercent`).
        public var audioLossPercent: Double = 0
        /// Each audio datagram is held back a uniform random 0…`audioJitterNs` before it is sent
        /// (so later packets may overtake it).
        public var audioJitterNs: UInt64 = 0
        /// Called for each audio packet produced: its seq and the CLOCK_MONOTONIC time it is due
        /// (before loss or jitter), on the session thread.
        public var onAudioProduced: (@Sendable (UInt32, UInt64) -> Void)?
        /// A burst of heavier audio send jitter at a set time after the first audio packet.
        public var audioJitterBurst: AudioJitterBurst?
        /// Nonzero: every Nth audio packet (seq 0, N, 2N, … — the tone's markers) has a video
        /// frame captured at its due time. Video frames are then captured on a `VideoFrameGrid`
        /// that is anchored on each marker's due time, and stamped with their slot's time rather
        /// than their send time (the A/V skew pair); the marker's own slot is sent however late
        /// the host runs, other late slots are skipped as before.
        public var videoAtAudioMarkers: UInt32 = 0
        /// Called for each video frame sent: frame number, capture time (CLOCK_MONOTONIC ns) and
        /// the pts a client derives from it (the session's realtime origin + whole µs), on the
        /// session thread.
        public var onVideoFrame: (@Sendable (UInt32, UInt64, Int64) -> Void)?
        /// Stream each AU slice by slice (data-plane.md §2.3) to a client whose hello has
        /// STREAMED_AU (slice mode with MULTI_SLICE too, else full-K blocks).
        public var streamedAU = false
        /// Simulated encode time per slice, ns: the AU's slices come out of the "encoder" one per
        /// this interval (0: all at once), whether sent streamed or whole.
        public var sliceEncodeNs: UInt64 = 0
        /// Streamed slice-mode blocks wait for this many whole shards (the host's
        /// MIN_STREAM_BLOCK_SHARDS, §2.3: 16).
        public var minStreamBlockShards = Packetizer.defaultMinStreamBlockShards
        /// Video datagrams leave paced at this link rate, bits/s (0: as fast as the socket takes them).
        public var paceBitsPerSecond: UInt64 = 0
        /// Each 0xCF host-timing datagram sent (to a client with HOST_TIMING), with its frame.
        public var onHostTiming: (@Sendable (UInt32, HostTiming) -> Void)?
        /// Host datagrams (rumble, HID output, cursor, …) and control messages (StreamConfig,
        /// Reconfigured, …) sent when the frame counter reaches `frame`.
        public var events: [ScriptedEvent] = []
        /// Input capabilities and access grants the ServerHello advertises.
        public var hostCaps: HostCaps = []
        public var hostCaps2: HostCaps2 = []
        public var grants: AccessGrants = .all
        /// Sent once after Ready to a client whose hello asked for a title (tag 8); nil: none.
        public var launchOutcome: LaunchOutcome?
        /// With HOST_CAP_CURSOR: from this frame on the forwarded pointer is captured (0xD0's
        /// relative-mode hint), as when a game takes the mouse.
        public var pointerCapturedFrom: Int?
        /// HDR10 (data-plane.md §7.4): ServerHello and StreamConfig say bit depth 10 and BT.2020/PQ
        /// `[9,16,9,0]`, and this 0xCE body is sent as a datagram right before every keyframe.
        public var hdrMetadata: HDRMetadata?
        /// The host's default rate, kbit/s (control-plane.md §5.1): ServerHello tag 13, the grant
        /// for SetBitrate 0 (and a ClientHello asking 0), the start rate. 0 = none: SetBitrate 0
        /// is granted as 0 and nothing is padded.
        public var bitrateKbps: UInt32 = 0
        /// Grow each AU with an HEVC filler-data NAL unit to the granted rate's per-frame budget
        /// (`HostFrameBudget`), so the wire rate follows SetBitrate. AUs over the budget are sent as
        /// they are (never cut).
        public var followBitrate = false
        /// How SetBitrate is answered (grant and reason).
        public var bitratePolicy: HostBitratePolicy = .granted
        /// Advertise HOST_CAP2_RAMP and serve bring-up ramp steps (≤ 50 ms probes) without the
        /// 10 s probe spacing from the data-plane start until the first frame (held back
        /// `rampWindowNs`) and for 1 s after the last step in that window.
        public var rampProbes = false
        public var rampWindowNs: UInt64 = 250_000_000
        /// PipelineGaps to play (`PipelineGapEvent`), times after the first video frame.
        public var pipelineGaps: [PipelineGapEvent] = []
        /// Each SetBitrate received, BitrateChanged and PipelineGap sent (session thread).
        public var onBitrateEvent: (@Sendable (HostBitrateEvent) -> Void)?
        /// Each whole second of media wire output from the data-plane start (session thread).
        public var onWireSecond: (@Sendable (HostWireSecond) -> Void)?

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
    /// Each control message the client sends after Ready (e.g. INPUT_EVENT key edges), with the
    /// host monotonic time (ns).
    public var onClientControl: ((ControlMessage, UInt64) -> Void)?
    /// The client's ClientHello, once per session as soon as the handshake has decoded it.
    public var onClientHello: ((ClientHello) -> Void)?

    private let lock = NSLock()
    private var stopRequested = false
    private var _framesSent = 0
    private var _feedbackReceived = 0
    private var _datagramsDropped = 0
    private var _error: SessionError?

    /// IDRs and RFI anchors sent (a live `AnchorStream` only), and media datagram bytes sent
    /// (after loss injection).
    public var idrsSent: Int { lock.withLock { _idrsSent } }
    public var anchorsSent: Int { lock.withLock { _anchorsSent } }
    public var mediaBytesSent: UInt64 { lock.withLock { _mediaBytesSent } }
    private var _idrsSent = 0
    private var _anchorsSent = 0
    private var _mediaBytesSent: UInt64 = 0

    /// Frames handed to the packetizer (whether or not loss dropped their packets).
    public var framesSent: Int { lock.withLock { _framesSent } }
    /// Of those, AUs streamed (§2.3: sentinel blocks left before the last slice was encoded), and
    /// 0xCF datagrams sent.
    public var streamedSent: Int { lock.withLock { _streamedSent } }
    public var hostTimingsSent: Int { lock.withLock { _hostTimingsSent } }
    private var _streamedSent = 0
    private var _hostTimingsSent = 0
    /// Feedback datagrams received.
    public var feedbackReceived: Int { lock.withLock { _feedbackReceived } }
    /// Media datagrams dropped by injected loss.
    public var datagramsDropped: Int { lock.withLock { _datagramsDropped } }
    /// Why the session failed, if it did.
    public var error: SessionError? { lock.withLock { _error } }
    /// Keyframe asks acted on (newer ask numbers with keyframe or invalidation).
    public var keyframesForced: Int { lock.withLock { _keyframesForced } }
    /// AU index sent for each frame, when `recordSchedule` is set.
    public var schedule: [Int] { lock.withLock { _schedule } }
    /// Audio datagrams sent, and datagrams dropped by the blackout.
    public var audioSent: Int { lock.withLock { _audioSent } }
    public var blackoutDropped: Int { lock.withLock { _blackoutDropped } }
    /// Scripted events sent.
    public var eventsSent: Int { lock.withLock { _eventsSent } }
    /// The session id this host gave the client, and the one the client asked to resume (if any).
    public var sessionID: SessionID? { lock.withLock { _sessionID } }
    public var resumeRequested: SessionID? { lock.withLock { _resumeRequested } }
    private var _sessionID: SessionID?
    private var _resumeRequested: SessionID?
    private var _keyframesForced = 0
    private var _schedule: [Int] = []
    private var _audioSent = 0
    private var _audioPlan: HostAudioPlan?
    /// What the ServerHello granted the client's sound (nil before it was sent).
    public var audioPlan: HostAudioPlan? { lock.withLock { _audioPlan } }
    private var _blackoutDropped = 0
    private var _eventsSent = 0
    private var _startKbps: UInt32 = 0
    private var _grantedKbps: UInt32 = 0
    /// The rate in force (the start rate, then each BitrateChanged), kbit/s.
    public var grantedKbps: UInt32 { lock.withLock { _grantedKbps } }

    public init(options: Options) throws(SessionError) {
        self.options = options
        do { socket = try UDPSocket(bind: options.bind) } catch { throw .transport(error) }
    }

    /// Asks `run()` to return soon (any thread).
    public func stop() { lock.withLock { stopRequested = true } }
    private var stopping: Bool { lock.withLock { stopRequested } }

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
        let limit = MonotonicClock.nowNs() + UInt64(options.maxSeconds * 1e9)
        var buffer = [UInt8](repeating: 0, count: 65_536)

        // Accept.
        var accepted: QuicConnection?
        while accepted == nil {
            if stopping || MonotonicClock.nowNs() > limit { return }
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
                        try listener.handle(datagram: UnsafeRawBufferPointer(rebasing: raw[0..<n]), from: from, now: MonotonicClock.nowNs())
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
        // Session media clock (data-plane.md §8.6): origin = the wall clock now, a video pts =
        // origin + monotonic µs since then (its capture = send time here). The clock echoes stay
        // on the wall clock, which this clock tracks, so a client maps pts onto its own clocks.
        let clockOriginMonoNs = MonotonicClock.nowNs()
        hello.clockOriginNs = MonotonicClock.realtimeNs()
        hello.suite = options.suite
        hello.mode = Mode(width: 1920, height: 1080, refreshHz: UInt32(options.fps.rounded()))
        hello.shardPayload = UInt16(options.shardBytes)
        hello.maxDataPerBlock = UInt16(options.maxDataPerBlock)
        hello.fecPercent = UInt8(options.fecPercent)
        hello.features.hostCaps = options.hostCaps
        hello.features.hostCaps2 = options.rampProbes ? options.hostCaps2.union(.ramp) : options.hostCaps2
        hello.bitrateKbps = options.bitrateKbps
        hello.grants = options.grants
        // This host sends StreamConfig per epoch (the handshake's epoch 0, then each change).
        hello.features.insert(FeatureBit.streamConfig)
        if options.hdrMetadata != nil {
            hello.bitDepth = 10
            hello.color = .hdr10
        }
        let decision: HostHandshake.Decision = options.refuse.map { .refuse($0, reason: "refused by pf-testhost") }
            ?? options.redirect.map { .redirect($0) } ?? .serverHello(hello)
        var handshakeScript = HostHandshake.Script(decision: decision, pendingCount: options.pendingCount,
                                                   pendingEvery: options.pendingEveryNs,
                                                   admission: options.admission, pairing: options.pairing)
        if options.hdrMetadata != nil { handshakeScript.streamConfig = StreamConfig(epoch: 0, bitDepth: 10, color: .hdr10) }
        // Sound: channels, layout and redundancy as the client asked and this host can (HostAudioPlan).
        let audioOptions = options
        handshakeScript.answerHello = { [self] client, hello in
            // §3.2 tag 6: 0 = the host default; a non-zero ask is the start rate, echoed.
            if client.bitrateKbps != 0 { hello.bitrateKbps = client.bitrateKbps }
            let start = hello.bitrateKbps
            lock.withLock { _startKbps = start }
            let plan = HostAudioPlan(client: client, fixedChannels: audioOptions.audioChannels,
                                     surround: audioOptions.makeAudioSource != nil, redundancy: audioOptions.audioRedundancy)
            plan.apply(to: &hello)
            lock.withLock { _audioPlan = plan }
        }
        let handshake = HostHandshake(connection: connection, script: handshakeScript, now: MonotonicClock.nowNs())

        var sender: MediaSender?
        var rng = SplitMix64(seed: options.seed)
        let threshold = UInt64(min(max(options.lossPercent, 0), 100) / 100 * Double(UInt64.max))
        let frameNs = UInt64(1e9 / max(options.fps, 1))
        let keyframes = Set(options.keyframeIndices)
        let script = options.events.sorted { $0.frame < $1.frame }
        var nextEvent = 0
        var nextFrame: UInt64 = 0
        var nextAudio: UInt64 = 0
        var audioSeq: UInt32 = 0
        var audioStart: UInt64 = 0
        /// Packets produced since `audioStart` (the audio clock's count).
        var audioIndex: UInt64 = 0
        var audioStartRealtime: UInt64 = 0
        var audioRNG = SplitMix64(seed: options.seed &+ 0xA0D10)
        /// The session's audio source (`makeAudioSource` for the granted layout, else `audioSource`),
        /// whether 0xD2 is in use, and the previous packet produced (its redundant copy).
        var audioSource = options.makeAudioSource == nil ? options.audioSource : nil
        var audioRedundant = false
        var previousAudio: [UInt8] = []
        let audioLossThreshold = UInt64(min(max(options.audioLossPercent, 0), 100) / 100 * Double(UInt64.max))
        let audioPeriod = Double(options.audioFrameNs) * (1 + options.audioSkewPPM / 1e6)
        /// Audio datagrams held back by the jitter injection: (send time, bytes), unordered.
        var heldAudio: [(at: UInt64, bytes: [UInt8])] = []
        /// The first audio packet's due time (the jitter burst's origin).
        var audioFirstDue: UInt64 = 0
        /// Video capture slots when they follow the audio markers; whether the next frame is a
        /// marker's (slot 0 of a grid anchored on it).
        var videoGrid: VideoFrameGrid?
        var markerFramePending = false
        var frame: UInt32 = 0
        var auIndex = 0
        var forceKeyframe = false
        var live = options.anchorStream.map { AnchorStream(configuration: $0) }
        /// The newest sent AUs (for NACK resends), oldest first, and NACKs to serve.
        var recentAUs: [(frame: UInt32, bytes: [UInt8], flags: UInt32, ptsMicros: UInt32, epoch: UInt8)] = []
        var resends: [FeedbackDatagram.Nack] = []
        /// The next frame answers an ask; answers still to lose (`loseAnswers`).
        var answerPending = false
        var answersToLose = options.loseAnswers
        var lastAsk: UInt64 = 0
        var blackoutEnds: UInt64?
        var doneAt: UInt64?
        var epoch: UInt8 = 0
        var mode = Mode(width: 1920, height: 1080, refreshHz: UInt32(options.fps.rounded()))
        var controlHandled = 0
        // The forwarded pointer (HOST_CAP_CURSOR toward a client that draws it), from the first frame.
        var pointer: TestHostPointer?
        var pointerDecided = false
        var probe: ProbeBurst?
        var helloReported = false
        // Rate (§5.1): the grant in force, the probe gate (§5.3), pipeline gaps, wire seconds.
        var granted = options.bitrateKbps
        var probeGate = ProbeGate(rampAdvertised: options.rampProbes)
        var dataPlaneStart: UInt64 = 0
        var firstFrameAt: UInt64?
        var nextGap = 0
        var pendingGapMs: UInt32?
        let gaps = options.pipelineGaps.sorted { $0.atNs < $1.atNs }
        var wire = HostWireSecond(second: 0, monoNs: 0)
        var lastAudioBytes = 0
        func tMs(_ t: UInt64) -> UInt64 { dataPlaneStart == 0 ? 0 : (t &- min(t, dataPlaneStart)) / 1_000_000 }

        while !stopping {
            let now = MonotonicClock.nowNs()
            if now > limit { break }
            if let doneAt, now > doneAt { break }
            if let ends = blackoutEnds, now >= ends { driver.blackout = false; blackoutEnds = nil }
            var timeout: UInt64 = probe == nil ? 5_000_000 : 500_000
            if sender != nil {
                timeout = nextFrame > now ? min(nextFrame - now, timeout) : 0
                if audioSource != nil { timeout = nextAudio > now ? min(nextAudio - now, timeout) : 0 }
                if let due = heldAudio.map(\.at).min() { timeout = due > now ? min(due - now, timeout) : 0 }
            }
            let events: [QuicEvent]
            do { events = try driver.wait(timeout: timeout) } catch { throw .transport(error) }
            for event in events {
                if case .datagram(let bytes) = event {
                    let decoded = Result { () throws(WireError) in try ClientDatagram(decoding: bytes) }
                    if case .success(.feedback(let feedback)) = decoded {
                        lock.withLock { _feedbackReceived += 1 }
                        // §5.2: act on an ask number only if newer in wrap order. A keyframe ask ⇒
                        // the next frame is an IDR; an RFI ⇒ an anchor from a live AnchorStream
                        // (which falls back to an IDR itself), else a keyframe of the file.
                        if let ask = feedback.ask, FeedbackDatagram.isNewer(UInt64(ask.number), than: lastAsk, max: FeedbackDatagram.askMax) {
                            lastAsk = UInt64(ask.number)
                            var answer: HostAskAnswer = .nothing
                            if let nack = ask.nack {
                                if recentAUs.contains(where: { $0.frame == nack.frame }) {
                                    resends.append(nack)
                                    answer = .resent
                                }
                            } else if ask.keyframe {
                                answer = .keyframe
                            } else if let range = ask.invalidate {
                                if live != nil, options.answersRFI {
                                    answer = live!.invalidate(first: range.first, last: range.last) ? .anchor : .keyframe
                                } else {
                                    answer = .keyframe
                                }
                            }
                            if answer == .keyframe {
                                if live != nil { live!.forceKeyframe() } else { forceKeyframe = true }
                                lock.withLock { _keyframesForced += 1 }
                            }
                            if answer == .keyframe || answer == .anchor { answerPending = true }
                            options.onAsk?(ask, answer)
                        }
                    }
                    if case .success(.input(let e)) = decoded { pointer?.apply(e) }
                    onClientDatagram?(decoded, MonotonicClock.nowNs())
                }
                try? handshake.handle(event, now: MonotonicClock.nowNs(), hostNs: MonotonicClock.realtimeNs())
                if !helloReported, let clientHello = handshake.clientHello {
                    helloReported = true
                    onClientHello?(clientHello)
                }
                if event == .closed { return }
            }
            if let d = handshake.nextDeadline, d <= MonotonicClock.nowNs() {
                try? handshake.handleTimeout(now: MonotonicClock.nowNs(), hostNs: MonotonicClock.realtimeNs())
            }
            if connection.state == .closed || connection.state == .draining { return }
            // Client control messages after Ready (§5.1): answer what a test host can.
            while controlHandled < handshake.received.count {
                let frame = handshake.received[controlHandled]
                controlHandled += 1
                guard let message = try? ControlMessage(frame: frame) else { continue }
                onClientControl?(message, MonotonicClock.nowNs())
                var replies: [ControlMessage] = []
                switch message {
                case .reconfigure(let request):
                    // Accept any non-zero mode: a new epoch at that mode, starting with a keyframe.
                    let ok = request.mode.width > 0 && request.mode.height > 0 && request.mode.refreshHz > 0
                    replies.append(.reconfigured(Reconfigured(accepted: ok, mode: ok ? request.mode : mode)))
                    if ok {
                        mode = request.mode
                        epoch &+= 1
                        forceKeyframe = true
                        replies.append(.streamConfig(options.hdrMetadata == nil ? StreamConfig(epoch: epoch, mode: mode)
                                                     : StreamConfig(epoch: epoch, mode: mode, bitDepth: 10, color: .hdr10)))
                    }
                case .setBitrate(let request):
                    let t = MonotonicClock.nowNs()
                    options.onBitrateEvent?(HostBitrateEvent(kind: .setBitrate(kbps: request.kbps), monoNs: t, tMs: tMs(t)))
                    let asked = request.kbps == 0 ? options.bitrateKbps : request.kbps
                    let answer = options.bitratePolicy.answer(asked: asked, current: granted)
                    granted = answer.kbps
                    lock.withLock { _grantedKbps = granted }
                    let withReason = handshake.clientHello?.abrFeatures.contains(.ackReason) ?? false
                    replies.append(.bitrateChanged(BitrateChanged(kbps: answer.kbps, reason: withReason ? answer.reason : nil)))
                    options.onBitrateEvent?(HostBitrateEvent(kind: .bitrateChanged(kbps: answer.kbps, asked: asked, reason: answer.reason,
                                                                                   reasonSent: withReason),
                                                             monoNs: t, tMs: tMs(t)))
                case .probeRequest(let request):
                    // §5.3: one burst per 10 s but ramp steps; clamp to 5 s and 10 Gbps; bursts
                    // beside the live video. A declined probe gets an empty ProbeResult.
                    let t = MonotonicClock.nowNs()
                    probeGate.probeOnly = handshake.clientHello?.probeOnly ?? false
                    if probeGate.decide(durationMs: request.durationMs, now: t, windowOpen: firstFrameAt == nil) == .declined {
                        replies.append(.probeResult(ProbeResult()))
                        break
                    }
                    if let running = probe { replies.append(.probeResult(running.result)) }  // cut short by the new one
                    let ms = min(request.durationMs, 5_000)
                    probe = ProbeBurst(kbps: min(request.targetKbps, 10_000_000), start: t,
                                       durationNs: UInt64(ms) * 1_000_000)
                default: break
                }
                if let stream = handshake.controlStream {
                    for reply in replies { _ = try? connection.write(stream: stream, reply.encoded) }
                }
            }
            if sender == nil, handshake.state == .serving {
                let exporter: [UInt8]?
                do { exporter = try handshake.mediaExporter() } catch { throw .transport(error) }
                guard let exporter else { continue }
                if let outcome = options.launchOutcome, handshake.clientHello?.launch != nil, let stream = handshake.controlStream {
                    _ = try? connection.write(stream: stream, ControlMessage.launchOutcome(outcome).encoded)
                }
                lock.withLock {
                    _sessionID = handshake.sessionID
                    _resumeRequested = handshake.clientHello?.resume
                }
                sender = MediaSender(exporter: exporter, suite: options.suite,
                                     packetizer: Packetizer(shardBytes: options.shardBytes, maxDataPerBlock: options.maxDataPerBlock,
                                                            fecPercent: options.fecPercent),
                                     aead: GnuTLSMediaAEAD.factory)
                sender?.packetizer.minStreamBlockShards = options.minStreamBlockShards
                nextFrame = MonotonicClock.nowNs()
                dataPlaneStart = nextFrame
                wire = HostWireSecond(second: 0, monoNs: dataPlaneStart)
                granted = lock.withLock { _startKbps } == 0 ? options.bitrateKbps : lock.withLock { _startKbps }
                lock.withLock { _grantedKbps = granted }
                nextAudio = nextFrame
                // The ramp window: the first frame waits while the client's ramp steps run.
                if options.rampProbes { nextFrame += options.rampWindowNs }
                audioStart = nextFrame
                audioStartRealtime = MonotonicClock.realtimeNs()
                audioFirstDue = audioStart
                // No plan: the ServerHello was not built here (a raw one): stereo, no 0xD2.
                let plan = lock.withLock { _audioPlan }
                audioRedundant = plan?.redundant ?? false
                if let make = options.makeAudioSource { audioSource = make(plan?.opusLayout ?? .stereo) }
                if options.videoAtAudioMarkers > 0 { videoGrid = VideoFrameGrid(anchorNs: nextFrame, fps: options.fps) }
                markerFramePending = false
            }
            guard let sender, doneAt == nil else { continue }
            let remote = connection.remoteAddress
            let blackedOut = driver.blackout
            let loopNow = MonotonicClock.nowNs()
            while loopNow >= dataPlaneStart &+ (wire.second + 1) &* 1_000_000_000 {
                wire.grantedKbps = granted
                options.onWireSecond?(wire)
                wire = HostWireSecond(second: wire.second + 1, monoNs: dataPlaneStart &+ (wire.second + 1) &* 1_000_000_000)
            }
            // A pipeline rebuild: no video for gap_ms, then PipelineGap and a keyframe.
            if let first = firstFrameAt, pendingGapMs == nil, nextGap < gaps.count, loopNow >= first &+ gaps[nextGap].atNs {
                pendingGapMs = gaps[nextGap].gapMs
                nextFrame = loopNow &+ UInt64(gaps[nextGap].gapMs) &* 1_000_000
                nextGap += 1
            }
            // NACK (§8.7): the named shards again — index within the AU, data first then parity,
            // which is the packetizer's emission order — newly sealed.
            for nack in resends {
                guard let old = recentAUs.first(where: { $0.frame == nack.frame }) else { continue }
                let wanted = Set(nack.shards.map(Int.init))
                var index = 0
                try? old.bytes.withUnsafeBytes { raw in
                    try sender.send(raw, frame: old.frame, epoch: old.epoch, userFlags: old.flags, ptsMicros: old.ptsMicros) { datagram in
                        defer { index += 1 }
                        guard wanted.contains(index), !blackedOut else { return }
                        wire.videoBytes += UInt64(datagram.count)
                        _ = try socket.send(datagram, to: remote)
                    }
                }
            }
            resends.removeAll()
            if var burst = probe {
                let finished = burst.pump(now: MonotonicClock.nowNs(), sender: sender, epoch: epoch) { datagram in
                    if blackedOut { return false }
                    let ok = try socket.send(datagram, to: remote)
                    if ok { wire.probeBytes += UInt64(datagram.count) }
                    return ok
                }
                probe = burst
                if finished, let stream = handshake.controlStream {
                    _ = try? connection.write(stream: stream, ControlMessage.probeResult(burst.result).encoded)
                    probe = nil
                }
            }
            // Audio every `audioFrameNs` on the (skewed) audio clock, stamped on it; dropped with
            // everything else during a blackout, and by the audio loss/jitter injection.
            if let source = audioSource, MonotonicClock.nowNs() >= nextAudio {
                let due = nextAudio
                let ptsNs = audioStartRealtime &+ (due &- audioStart)
                audioIndex += 1
                nextAudio = audioStart &+ UInt64(Double(audioIndex) * audioPeriod)
                if nextAudio &+ 100_000_000 < MonotonicClock.nowNs() {  // stalled: the audio clock starts again from now
                    audioStart = MonotonicClock.nowNs()
                    audioStartRealtime = MonotonicClock.realtimeNs()
                    audioIndex = 0
                    nextAudio = audioStart
                }
                if let payload = source(audioSeq) {
                    options.onAudioProduced?(audioSeq, due)
                    // A marker: the grid is anchored on its due time, its slot sent next.
                    if videoGrid != nil, audioSeq % options.videoAtAudioMarkers == 0 {
                        videoGrid = VideoFrameGrid(anchorNs: due, fps: options.fps)
                        markerFramePending = true
                        nextFrame = due
                    }
                    // §5.2: 0xD2 carries the previous packet produced, whether or not it was lost.
                    let packet = audioRedundant
                        ? HostDatagram.audio(.redundant(RedundantAudioFrame(seq: audioSeq, ptsNs: ptsNs, primary: payload, previous: previousAudio)))
                        : HostDatagram.audio(.opus(AudioFrame(seq: audioSeq, ptsNs: ptsNs, payload: payload)))
                    previousAudio = payload
                    lastAudioBytes = packet.encoded.count
                    if audioLossThreshold == 0 || audioRNG.next() >= audioLossThreshold {
                        let bound = options.audioJitterBurst?.bound(sinceFirstNs: due &- audioFirstDue, steadyJitterNs: options.audioJitterNs)
                            ?? options.audioJitterNs
                        let hold = bound == 0 ? 0 : audioRNG.next() % (bound + 1)
                        heldAudio.append((at: MonotonicClock.nowNs() + hold, bytes: packet.encoded))
                    }
                } else {
                    previousAudio = []
                }
                audioSeq &+= 1
            }
            if !heldAudio.isEmpty {
                let t = MonotonicClock.nowNs()
                var kept = 0
                for i in heldAudio.indices {
                    if heldAudio[i].at <= t {
                        if !blackedOut, (try? connection.sendDatagram(heldAudio[i].bytes)) != nil { lock.withLock { _audioSent += 1 } }
                    } else {
                        heldAudio[kept] = heldAudio[i]
                        kept += 1
                    }
                }
                heldAudio.removeLast(heldAudio.count - kept)
            }
            guard !options.accessUnits.isEmpty || live != nil else { continue }
            let t = MonotonicClock.nowNs()
            if t >= nextFrame {
                let capture: UInt64
                if var grid = videoGrid, let slot = markerFramePending ? grid.takeNext() : grid.take(nowNs: t) {
                    capture = slot
                    markerFramePending = false
                    nextFrame = grid.nextDueNs
                    videoGrid = grid
                } else {
                    capture = t
                    nextFrame += frameNs
                    if nextFrame < t { nextFrame = t + frameNs }  // fell behind: do not burst
                }
                let ptsMicros = UInt32(truncatingIfNeeded: (capture &- clockOriginMonoNs) / 1000)
                if let gap = pendingGapMs {
                    pendingGapMs = nil
                    if !blackedOut, let stream = handshake.controlStream {
                        _ = try? connection.write(stream: stream, ControlMessage.pipelineGap(PipelineGap(gapMs: gap)).encoded)
                    }
                    options.onBitrateEvent?(HostBitrateEvent(kind: .pipelineGap(gapMs: gap), monoNs: t, tMs: tMs(t)))
                    if live != nil { live!.forceKeyframe() } else { forceKeyframe = true }
                }
                if firstFrameAt == nil { firstFrameAt = t }
                if !pointerDecided {
                    pointerDecided = true
                    if options.hostCaps.contains(.cursor), handshake.clientHello?.features.clientCaps.contains(.cursor) == true {
                        pointer = TestHostPointer(width: Int(mode.width), height: Int(mode.height))
                        send(.control(.cursorShape(TestHostPointer.shape)), connection: connection, handshake: handshake)
                    }
                }
                if pointer != nil, let from = options.pointerCapturedFrom, Int(frame) >= from { pointer!.captured = true }
                if let p = pointer, !blackedOut {
                    _ = try? connection.sendDatagram(HostDatagram.cursor(p.state).encoded)
                }
                while nextEvent < script.count, script[nextEvent].frame <= Int(frame) {
                    if !blackedOut { send(script[nextEvent].action, connection: connection, handshake: handshake) }
                    nextEvent += 1
                }
                if forceKeyframe {
                    forceKeyframe = false
                    if !keyframes.contains(auIndex) {
                        auIndex = options.keyframeIndices.sorted().first { $0 > auIndex } ?? options.keyframeIndices.min() ?? 0
                    }
                }
                var au: [UInt8]
                let userFlags: UInt32
                if live != nil {
                    let made = live!.next(frame: frame)
                    au = made.bytes
                    userFlags = made.userFlags
                    lock.withLock {
                        if made.kind == .idr { _idrsSent += 1 }
                        if case .anchor = made.kind { _anchorsSent += 1 }
                    }
                } else {
                    au = options.accessUnits[auIndex]
                    userFlags = frame == 0 || keyframes.contains(auIndex) ? AccessUnit.keyframeFlag : 0
                }
                // Follow the granted rate: filler up to the frame's budget (never a cut).
                if options.followBitrate, granted > 0 {
                    // Audio's wire share set aside: packets per second × (last packet + ~40 B of QUIC, UDP, IP).
                    let audioKbps = audioSource == nil || lastAudioBytes == 0 ? 0
                        : UInt32(1e9 / audioPeriod * Double(lastAudioBytes + 40) * 8 / 1000)
                    let budget = HostFrameBudget.videoBytesPerFrame(kbps: granted, fps: options.fps, shardPayload: options.shardBytes,
                                                                    fecPercent: options.fecPercent, audioKbps: audioKbps)
                    let real = au.count
                    au = HostFrameBudget.pad(au, to: budget)
                    wire.fillerBytes += UInt64(au.count - real)
                    if real > budget { wire.framesOverBudget += 1 }
                }
                wire.frames += 1
                options.onFrameSent?(frame, au, userFlags)
                if let m = options.hdrMetadata, userFlags & AccessUnit.keyframeFlag != 0, !blackedOut {
                    _ = try? connection.sendDatagram(HostDatagram.hdrMetadata(m).encoded)
                }
                if live != nil {
                    if recentAUs.count == 32 { recentAUs.removeFirst() }
                    recentAUs.append((frame, au, userFlags, ptsMicros, epoch))
                }
                var loseThis = false
                if answerPending {
                    answerPending = false
                    if answersToLose > 0 { answersToLose -= 1; loseThis = true }
                }
                var dropped = 0
                var bytesOut: UInt64 = 0
                // Streamed (§2.3) only toward a client with STREAMED_AU; slice mode with MULTI_SLICE.
                let caps = handshake.clientHello?.features.videoCaps ?? []
                let streamed: Packetizer.StreamedMode? = options.streamedAU && caps.contains(.streamedAU)
                    ? (caps.contains(.multiSlice) ? .slices : .fullBlocks) : nil
                let sent: SlicedSend.Times
                do {
                    sent = try SlicedSend.send(au, sender: sender, frame: frame, epoch: epoch, userFlags: userFlags,
                                               ptsMicros: ptsMicros, streamed: streamed, sliceEncodeNs: options.sliceEncodeNs,
                                               paceBitsPerSecond: options.paceBitsPerSecond) { datagram in
                        if blackedOut || loseThis || (threshold > 0 && rng.next() < threshold) { dropped += 1; return }
                        bytesOut += UInt64(datagram.count)
                        wire.videoBytes += UInt64(datagram.count)
                        _ = try socket.send(datagram, to: remote)
                    }
                } catch let e as QuicError { throw .transport(e) } catch {
                    throw .transport(.invalidState("send: \(error)"))
                }
                if sent.sentEarly > 0 { lock.withLock { _streamedSent += 1 } }
                let ptsNs = Int64(hello.clockOriginNs) &+ Int64((capture &- clockOriginMonoNs) / 1000) &* 1000
                // 0xCF (§7.5) to a client with HOST_TIMING: capture → last packet sent, split into
                // queue (capture → encode start), encode, pace (first → last packet).
                if caps.contains(.hostTiming), !blackedOut {
                    func us(_ ns: UInt64) -> UInt32 { UInt32(clamping: ns / 1000) }
                    let timing = HostTiming(ptsNs: UInt64(ptsNs), hostUs: us(sent.lastSentNs &- capture),
                                            stages: .init(queueUs: us(sent.encodeStartNs &- capture),
                                                          encodeUs: us(sent.encodedNs &- sent.encodeStartNs),
                                                          paceUs: us(sent.lastSentNs &- sent.firstSentNs)))
                    if (try? connection.sendDatagram(HostDatagram.hostTiming(timing).encoded)) != nil {
                        lock.withLock { _hostTimingsSent += 1 }
                    }
                    options.onHostTiming?(frame, timing)
                }
                options.onVideoFrame?(frame, capture, ptsNs)
                let index = auIndex
                lock.withLock {
                    _framesSent += 1
                    _mediaBytesSent += bytesOut
                    if blackedOut { _blackoutDropped += dropped } else { _datagramsDropped += dropped }
                    if options.recordSchedule { _schedule.append(index) }
                }
                frame &+= 1
                auIndex = options.accessUnits.isEmpty ? 0 : (auIndex + 1) % options.accessUnits.count
                if let after = options.blackoutAfterFrames, Int(frame) == after {
                    driver.blackout = true
                    blackoutEnds = MonotonicClock.nowNs() + UInt64(options.blackoutSeconds * 1e9)
                }
                if options.frames > 0 && Int(frame) >= options.frames { doneAt = MonotonicClock.nowNs() + 3_000_000_000 }
            }
        }
        connection.close(applicationCode: CloseCode.normal.code, reason: "host stopped")
        _ = try? driver.step()
    }

    private func send(_ action: ScriptedEvent.Action, connection: QuicConnection, handshake: HostHandshake) {
        let sent: Bool
        switch action {
        case .datagram(let datagram): sent = (try? connection.sendDatagram(datagram.encoded)) != nil
        case .control(let message):
            guard let stream = handshake.controlStream else { return }
            sent = (try? connection.write(stream: stream, message.encoded)) != nil
        }
        if sent { lock.withLock { _eventsSent += 1 } }
    }
}

/// How a test host answered a recovery ask.
public enum HostAskAnswer: String, Sendable {
    /// The next frame is an IDR.
    case keyframe
    /// The next frame is an RFI anchor (a P-frame from a picture before the invalidated range).
    case anchor
    /// A NACK: the named shards of that frame were sent again.
    case resent
    /// Nothing to do (a NACK for a frame no longer kept).
    case nothing
}

/// Something a test host sends at a scripted point of the stream.
public struct ScriptedEvent: Sendable {
    public enum Action: Sendable {
        /// A host datagram: rumble, HID output, cursor, HDR metadata, …
        case datagram(HostDatagram)
        /// A control-stream message: StreamConfig (new epoch), Reconfigured, BitrateChanged, …
        case control(ControlMessage)
    }
    /// Sent just before this frame number.
    public var frame: Int
    public var action: Action
    public init(frame: Int, action: Action) { self.frame = frame; self.action = action }
}

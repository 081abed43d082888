import Glibc
import PunktfunkWire
import SystemClock

/// The established half of `ClientSession.run()`: media on the shared socket, host datagrams and
/// control frames, Feedback windows and keyframe asks, clock re-sync, the outbox, stats, and the
/// deliberate quit. Same thread and same bounds as `run()`.
extension ClientSession {
    func stream(_ params: SessionParameters, suite: MediaSuite, connection: QuicConnection,
                driver: QuicSocketDriver, early: [[UInt8]], earlyHost: [HostDatagram]) throws(SessionError) {
        let hello = params.serverHello
        let limits = MediaLimits(shardBytes: hello.shardPayload == 0 ? 1408 : Int(hello.shardPayload),
                                 maxDataPerBlock: hello.maxDataPerBlock == 0 ? 4096 : Int(hello.maxDataPerBlock))
        let receiver = MediaReceiver(exporter: params.mediaExporter, suite: suite, limits: limits,
                                     clockOriginNs: Int64(hello.clockOriginNs), aead: GnuTLSMediaAEAD.factory)
        // Local state the reassembler callbacks update (they run inside `receiver.receive`).
        var asks = LossAsks(refreshHz: hello.mode.refreshHz)
        // The rate loop starts at the rate the host streams at (its hello's, else our ask).
        var rate = options.rate.map { c -> RateLoop in
            var c = c
            let start = hello.bitrateKbps != 0 ? hello.bitrateKbps : self.options.hello.bitrateKbps
            if start != 0 { c.startKbps = start }
            c.fps = max(1, hello.mode.refreshHz)
            c.hostServesRamp = hello.features.hostCaps2.contains(.ramp)
            return RateLoop(configuration: c)
        }
        // Every stall of the stream with its nearest cause (the Wi-Fi interface's events when the
        // stream runs over one); a named Wi-Fi outage is no capacity verdict for the rate loop.
        var ledger = StallLedger()
        var stallsReported = 0
        func reportStalls() {
            guard ledger.total > stallsReported else { return }
            if let onStall {
                for stall in ledger.settled.suffix(min(ledger.total - stallsReported, ledger.settled.count)) { onStall(stall, ledger) }
            }
            stallsReported = ledger.total
        }
        let wifi = options.wifiEvents
        wifi?.start()
        // Media wire bytes and the longest arrival gap, counted per datagram for the rate loop.
        var mediaBytes: UInt64 = 0
        var mediaBytesAtLastFrame: UInt64 = 0
        var lastMediaArrival: UInt64 = 0
        var longestGapNs: UInt64 = 0
        var epochHold = EpochHold<HeldFrame>(active: hello.features.contains(FeatureBit.streamConfig))
        var lastEpoch: UInt8?
        let deliver = onAccessUnit
        let feed = onVideoFrame
        /// One complete AU into the frame order, the observers and the decoder's feed.
        func process(_ au: AccessUnit) {
            // A new epoch starts its own frame sequence (its first frame is a keyframe).
            if let last = lastEpoch, last != au.epoch { asks.restartSequence() }
            lastEpoch = au.epoch
            let order = asks.delivered(frame: au.frame, userFlags: au.userFlags, now: MonotonicClock.nowNs())
            deliver?(au)
            feed?(au, order)
        }
        // A NACKed frame holds the frames after it back (in arrival order) until it completes or
        // the hold expires, so the decoder still gets them in order (data-plane.md §4.3 NACK).
        var nackHold: (frame: UInt32, until: UInt64)?
        var nackHeld: [HeldFrame] = []
        func releaseNackHold() {
            nackHold = nil
            let held = nackHeld
            nackHeld.removeAll(keepingCapacity: true)
            for frame in held { frame.withAccessUnit(process) }
        }
        func inOrder(_ au: AccessUnit) {
            guard let hold = nackHold else { process(au); return }
            if au.frame == hold.frame {
                process(au)
                releaseNackHold()
            } else if nackHeld.count < Self.nackHoldFrames {
                nackHeld.append(HeldFrame(au))
            } else {
                releaseNackHold()
                process(au)
            }
        }
        // 0xCF host timing joined to each AU by pts (data-plane.md §7.5); arrivals are taken to
        // the session media clock: monotonic + (realtime − monotonic) + (host − client offset).
        var timingJoin = HostTimingJoin()
        let frameTiming = onFrameTiming
        let realtimeMinusMonotonic = MonotonicClock.realtimeMinusMonotonicNs()
        receiver.video.onAccessUnit = { au in
            if let frameTiming, au.lastArrivalNs != 0 {
                let toSession = realtimeMinusMonotonic &+ self.clockOffsetNs
                timingJoin.accessUnit(.init(frame: au.frame, ptsNs: au.ptsNs, host: nil,
                                            firstArrivalNs: Int64(bitPattern: au.firstArrivalNs) &+ toSession,
                                            lastArrivalNs: Int64(bitPattern: au.lastArrivalNs) &+ toSession), emit: frameTiming)
            }
            if epochHold.mustHold(epoch: au.epoch) {
                epochHold.hold(HeldFrame(au), epoch: au.epoch, bytes: au.data.count)
                return
            }
            inOrder(au)
        }
        // Each frame's first shard to arrive, complete later or not: its one-way delay, up to a
        // constant (the host's pts clock against ours) — the loop reads only its rise over the
        // rolling minimum — and the wire bytes since the previous frame began.
        receiver.video.onFirstShard = { frame, ptsNs, arrivalNs in
            guard arrivalNs != 0 else { return }
            ledger.frameArrived(frame: frame, ptsNs: ptsNs, now: arrivalNs)
            guard rate != nil else { return }
            rate!.frameArrived(firstShardOWDNs: Int64(bitPattern: arrivalNs) &- ptsNs,
                               wireBytes: UInt32(clamping: mediaBytes &- mediaBytesAtLastFrame), now: arrivalNs)
            mediaBytesAtLastFrame = mediaBytes
        }
        receiver.video.onFrameLost = { frame in
            let now = MonotonicClock.nowNs()
            asks.agedOut(frame: frame, now: now)
            ledger.frameLost(now: now)
        }
        let periodNs = LossAsks.interval(hello.mode.refreshHz)
        let rttNs = params.clockRttNs ?? 0
        receiver.video.onShortTail = { frame, missing, absent in
            let now = MonotonicClock.nowNs()
            // A short whole AU on a path quicker than a frame: ask for its shards again.
            if missing <= Self.nackShort, !absent.isEmpty, rttNs > 0, rttNs <= periodNs, nackHold == nil {
                asks.nack(frame: frame, shards: absent, now: now)
                nackHold = (frame, now &+ min(rttNs * 3 / 2, periodNs))
                return
            }
            asks.tailShort(frame: frame, now: now)
        }
        var rejected = 0
        var probe = ProbeMeter()
        driver.onMedia = { datagram in
            let packets = receiver.probePackets, bytes = receiver.probeBytes
            let arrival = MonotonicClock.nowNs()
            mediaBytes &+= UInt64(datagram.count)
            if lastMediaArrival != 0, arrival > lastMediaArrival { longestGapNs = max(longestGapNs, arrival - lastMediaArrival) }
            lastMediaArrival = arrival
            do { try receiver.receive(datagram, arrivalNs: arrival) } catch { rejected += 1 }
            if receiver.probePackets != packets {
                probe.arrived(count: receiver.probePackets - packets, wireBytes: receiver.probeBytes - bytes, now: MonotonicClock.nowNs())
            }
        }
        /// One QUIC datagram from the host (data-plane.md §8.1 kinds), on this thread.
        func hostDatagram(_ datagram: HostDatagram) {
            switch datagram {
            case .audio(let packet):
                audioPackets += 1
                onAudio?(packet)
            case .media, .clockEcho: break
            case .hostTiming(let timing):
                if let frameTiming { timingJoin.hostTiming(timing, emit: frameTiming) }
                onHostDatagram?(datagram)
            default: onHostDatagram?(datagram)
            }
        }
        // What came while the clock rounds ran: the host's datagrams first (a keyframe's 0xCE is
        // sent before it), then the media, each in arrival order.
        for datagram in earlyHost { hostDatagram(datagram) }
        for datagram in early {
            datagram.withUnsafeBytes { raw in
                do { try receiver.receive(raw) } catch { rejected += 1 }
            }
        }
        driver.wakeDescriptor = outbox.wakeDescriptor
        clockOffsetNs = params.clockOffsetNs
        defer {
            counters = receiver.counters
            mediaErrors = rejected
            self.asks = asks
            self.rate = rate
            wifi?.stop()
            epochFramesHeld = epochHold.framesHeld
            epochFramesDropped = epochHold.framesDropped
            driver.wakeDescriptor = -1
        }

        // The bring-up ramp (control-plane.md §5.3, HOST_CAP2_RAMP): 25 ms probe steps while the
        // host holds the first frame; its verdict sets the rate the stream starts at. A step
        // unanswered for `rampStepLimitNs` ends it without a wall.
        var ramp = rate?.makeRamp()
        var rampDeadline: UInt64?
        func rampStep(_ step: RampProbe.Step) {
            let now = MonotonicClock.nowNs()
            switch step {
            case .probe(let request):
                if (try? connection.write(stream: params.controlStream, ControlMessage.probeRequest(request).encoded)) != nil {
                    probe.begin(request)
                    rampDeadline = now + Self.rampStepLimitNs
                    try? driver.flush()
                } else {
                    rampStep(.done(.noWall))
                }
            case .done(let verdict):
                rate?.applyRamp(verdict, now: now)
                ramp = nil
                rampDeadline = nil
            }
        }
        if ramp != nil { rampStep(ramp!.next()) }

        // Control stream: frames held during the clock rounds first, then the live stream.
        var control = params.controlReader
        var resync = params.clockRttNs.map { ClockResync(connectRTT: $0) }
        var batch = ClockBatch()
        var modeRequests = ModeRequests()
        var batchDeadline: UInt64?
        func handle(_ frame: ControlFrame, now: UInt64) {
            guard let message = try? ControlMessage(frame: frame) else { return }
            switch message {
            case .clockEcho(let echo):
                guard batchDeadline != nil else { return }
                switch batch.handleEcho(t1: echo.t1Ns, t2: echo.t2Ns, t3: echo.t3Ns, now: MonotonicClock.realtimeNs()) {
                case .ignored: return
                case .moreRounds:
                    let t1 = batch.nextProbe(now: MonotonicClock.realtimeNs())
                    _ = try? connection.write(stream: params.controlStream, ControlMessage.clockProbe(ClockProbe(t1Ns: t1)).encoded)
                    batchDeadline = now + ClockSync.echoTimeoutNs
                case .done(let best):
                    batchDeadline = nil
                    clockResyncs += 1
                    if let estimate = resync?.admit(best.estimate).estimateToApply { clockOffsetNs = estimate.offset }
                }
                return
            case .probeResult(let result) where probe.request != nil:
                let report = probe.finish(result)
                if rampDeadline != nil, ramp != nil {
                    rampStep(ramp!.delivered(kbps: UInt32(clamping: Int(report.throughputKbps.rounded()))))
                    return
                }
                lastProbe = report
                onProbeReport?(report)
            case .bitrateChanged(let changed):
                rate?.acknowledged(kbps: changed.kbps, reason: changed.reason, now: MonotonicClock.nowNs())
            case .pipelineGap:
                rate?.pipelineGap(now: MonotonicClock.nowNs())
            case .reconfigured(let reply):
                if let answer = modeRequests.answered(reply) { onModeAnswer?(answer) }
            case .streamConfig(let config):
                streamConfig = config
                // Frames of this epoch that came before its config go on now, in arrival order.
                let released = epochHold.releaseOnConfig(epoch: config.epoch)
                for frame in released.units { frame.withAccessUnit(process) }
                if released.needsKeyframe { asks.keyframeNeeded(now: MonotonicClock.nowNs()) }
            default: break
            }
            onControl?(message)
        }
        for frame in params.heldFrames { handle(frame, now: MonotonicClock.nowNs()) }

        let start = MonotonicClock.nowNs()
        let end = start + UInt64(max(0, options.seconds) * 1e9)
        var nextWindow = start + options.feedbackEveryNs
        var acks = DecodedAcks()
        var ackNews = false
        var nextAckAt: UInt64 = 0
        var nextStats = start + options.statsEveryNs
        var nextResync = resync == nil ? UInt64.max : start + options.clockResyncEveryNs
        var window: FeedbackDatagram.Window?
        var windowNumber: UInt32 = 0
        var lastWindow = receiver.counters
        var windowOpenedAt = start
        var windowMediaBytes = mediaBytes
        var windowFramesLost = asks.framesLost
        var lastStats = receiver.counters
        var second = 0
        let rttMs = params.clockRttNs.map { Double($0) / 1e6 }
        var outDatagrams: [[UInt8]] = []
        var outControls: [ControlFrame] = []
        var outInputs: [ClientOutbox.QueuedInput] = []
        outDatagrams.reserveCapacity(64)
        outInputs.reserveCapacity(ClientOutbox.capacity)

        while true {
            let now = MonotonicClock.nowNs()
            if now >= end { break }
            var timeout = min(end - now, 5_000_000)
            if let due = asks.nextDeadline() { timeout = min(timeout, due > now ? due - now : 0) }
            let events: [QuicEvent]
            do { events = try driver.wait(timeout: timeout) } catch { throw .transport(error) }
            for event in events {
                switch event {
                case .datagram(let bytes):
                    guard let datagram = try? HostDatagram(decoding: bytes) else { continue }
                    hostDatagram(datagram)
                case .streamData(let stream, let bytes, _) where stream == params.controlStream:
                    control.append(bytes)
                    do {
                        while let frame = try control.next() { handle(frame, now: MonotonicClock.nowNs()) }
                    } catch {
                        connection.close(applicationCode: 0x01, reason: "malformed control frame")
                        throw .transport(.invalidState("the host sent a malformed control frame: \(error)"))
                    }
                default: break
                }
            }
            if events.contains(.closed) || connection.state == .closed || connection.state == .draining {
                if let close = connection.peerClose, close.isApplication {
                    throw .handshake(.closedByPeer(code: CloseCode(code: close.code), reason: close.reason))
                }
                sessionLost = true
                throw .transport(connection.error ?? .invalidState("the connection closed"))
            }

            // Outbox: input and control from other threads, in queue order per kind.
            if outbox.drain(datagrams: &outDatagrams, controls: &outControls) { asks.keyframeNeeded(now: MonotonicClock.nowNs()) }
            // Checked before this pass's items go, acted on after: what was queued before the quit
            // (the input thread's last releases) still leaves.
            let quitting = outbox.quitRequested
            outbox.drainInputs(into: &outInputs)
            for item in outInputs { sendInput(item, connection: connection, controlStream: params.controlStream) }
            let handedOver = !outInputs.isEmpty || !outDatagrams.isEmpty || !outControls.isEmpty
            var handedOverAsk = false
            outInputs.removeAll(keepingCapacity: true)
            for datagram in outDatagrams where (try? connection.sendDatagram(datagram)) != nil { outboxSent += 1 }
            for frame in outControls where (try? connection.write(stream: params.controlStream, frame.encoded)) != nil {
                outboxSent += 1
                if frame.type == ControlMessageType.probeRequest.rawValue, case .probeRequest(let request)? = try? ControlMessage(frame: frame) {
                    probe.begin(request)
                }
            }
            outDatagrams.removeAll(keepingCapacity: true)
            outControls.removeAll(keepingCapacity: true)
            if let kbps = rate?.takeAsk(now: MonotonicClock.nowNs()),
               (try? connection.write(stream: params.controlStream, ControlMessage.setBitrate(SetBitrate(kbps: kbps)).encoded)) != nil {
                outboxSent += 1
                handedOverAsk = true
            }
            if let mode = outbox.takeWantedMode() { modeRequests.want(mode) }
            if let mode = modeRequests.due(nowNs: MonotonicClock.nowNs()),
               (try? connection.write(stream: params.controlStream, ControlMessage.reconfigure(Reconfigure(mode: mode)).encoded)) != nil {
                outboxSent += 1
            }
            // Input (and a rate ask) leaves now, not at the next wake-up (up to 5 ms away).
            if handedOver || handedOverAsk { try? driver.flush() }
            if quitting {
                // Let the last items (key releases on the control stream) reach the host before
                // the close: until acknowledged, at most 200 ms.
                let lingerEnd = MonotonicClock.nowNs() + 200_000_000
                repeat {
                    _ = try? driver.wait(timeout: 5_000_000)
                } while connection.hasUnacknowledgedStreamData && connection.state == .established
                    && MonotonicClock.nowNs() < lingerEnd
                break
            }

            let after = MonotonicClock.nowNs()
            wifi?.drain { $0.feed(&ledger) }
            ledger.settle(now: after)
            reportStalls()
            if ledger.takeOutageNews() { rate?.outageNamed(now: after) }
            if let hold = nackHold, after >= hold.until { releaseNackHold() }
            asks.tick(now: after)
            if let d = rampDeadline, after >= d { rampStep(.done(.noWall)) }
            // Feedback (§5.2): at each window close, every frame interval while an ask is open,
            // and after cleanly decoded frames (the ACK); every datagram repeats the last closed
            // window and carries the open ask.
            var sendFeedback = false
            if let decoded = outbox.takeDecodedAcks() {
                acks = decoded
                ackNews = true
            }
            // ACKs coalesce: at most one ACK-only datagram per `ackEveryFrames` intervals (its
            // mask names the 16 frames before the newest, so none goes unacknowledged).
            if ackNews, after >= nextAckAt {
                ackNews = false
                nextAckAt = after &+ periodNs * Self.ackEveryFrames
                sendFeedback = true
            }
            if after >= nextWindow {
                nextWindow += options.feedbackEveryNs
                if nextWindow <= after { nextWindow = after + options.feedbackEveryNs }
                let c = receiver.counters
                let received = c.packetsReceived - lastWindow.packetsReceived
                let recovered = c.shardsRecovered - lastWindow.shardsRecovered
                let late = c.late - lastWindow.late
                let repaired = recovered > late ? recovered - late : 0
                let denominator = received + repaired
                let ppm = denominator == 0 ? 0 : min(1_000_000, repaired * 1_000_000 / denominator)
                windowNumber &+= 1
                if windowNumber == 0 { windowNumber = 1 }
                func delta(_ a: UInt64, _ b: UInt64) -> UInt32 { UInt32(clamping: a >= b ? a - b : 0) }
                window = .init(number: windowNumber, lossPPM: UInt32(ppm), packetsReceived: c.packetsReceived,
                               head: delta(c.lostHead, lastWindow.lostHead), mid: delta(c.lostMid, lastWindow.lostMid),
                               tail: delta(c.lostTail, lastWindow.lostTail))
                if let w = window {
                    let signals = RateWindow(lossPPM: w.lossPPM, unrecoverableFrames: UInt32(clamping: max(0, asks.framesLost - windowFramesLost)),
                                             head: w.head, mid: w.mid, tail: w.tail, socketDrops: w.socketDrops,
                                             wireBytes: mediaBytes &- windowMediaBytes, durationNs: after &- windowOpenedAt,
                                             longestArrivalGapNs: longestGapNs)
                    // A waking receiver's head loss is a cause the ledger names (the rate loop
                    // answers it with its shape, not the rate).
                    if signals.isHeadSignature { ledger.event(.wakingReceiver, at: after) }
                    if rate != nil {
                        rate!.windowClosed(signals, now: after)
                        onRateWindow?(rate!.logLine(now: after))
                    }
                }
                windowOpenedAt = after
                windowMediaBytes = mediaBytes
                windowFramesLost = asks.framesLost
                longestGapNs = 0
                lastWindow = c
                sendFeedback = true
            }
            if asks.takeDueCopy(now: after) != nil { sendFeedback = true }
            if sendFeedback {
                let feedback = FeedbackDatagram(window: window, linkKbps: rate?.linkKbps ?? 0, shape: rate?.shape ?? 0,
                                                ask: asks.ask, ack: acks.ack)
                if (try? connection.sendDatagram(ClientDatagram.feedback(feedback).encoded)) != nil {
                    feedbackSent += 1
                    if feedback.ask != nil { askFeedbackSent += 1 }
                }
            }
            // Clock re-sync (§4.2): a batch every interval; an unanswered round ends the batch.
            if after >= nextResync {
                nextResync = after + options.clockResyncEveryNs
                let t1 = batch.begin(now: MonotonicClock.realtimeNs())
                if (try? connection.write(stream: params.controlStream, ControlMessage.clockProbe(ClockProbe(t1Ns: t1)).encoded)) != nil {
                    batchDeadline = after + ClockSync.echoTimeoutNs
                }
            }
            if let deadline = batchDeadline, after >= deadline { batchDeadline = nil }
            if after >= nextStats {
                let interval = Double(options.statsEveryNs) / 1e9 + Double(after - nextStats) / 1e9
                nextStats = after + options.statsEveryNs
                second += 1
                let c = receiver.counters
                var stats = PumpStats(second: second,
                                      fps: Double(c.framesDelivered - lastStats.framesDelivered) / interval,
                                      mbps: Double(c.bytesReceived - lastStats.bytesReceived) * 8 / 1e6 / interval,
                                      framesLost: UInt64(asks.framesLost), shardsRecovered: c.shardsRecovered,
                                      packets: c.packetsReceived, rttMs: rttMs, clockOffsetNs: clockOffsetNs)
                stats.audioPackets = UInt64(audioPackets)
                stats.keyframeAsks = UInt64(asks.keyframeAsks)
                stats.rfiAsks = UInt64(asks.rfiAsks)
                stats.nackAsks = UInt64(asks.nackAsks)
                stats.asksGivenUp = UInt64(asks.asksGivenUp)
                if let rate {
                    stats.rate = .init(askedKbps: rate.askedKbps, grantedKbps: rate.grantedKbps, linkKbps: rate.linkKbps,
                                       shape: rate.shape, cuts: rate.cuts, climbs: rate.climbs,
                                       decision: rate.lastDecision.map { "\($0.kind)" }, reason: rate.lastDecision?.reason.text)
                }
                stats.stalls = ledger.json
                stats.stallSummary = ledger.summary
                stats.wifi = wifi?.link
                onStats?(stats)
                lastStats = c
            }
        }
        // The stalls of the last second are named with the events known by now.
        ledger.settle(now: .max)
        reportStalls()
        // Deliberate quit (control-plane §3.5: 0x51), flushed within 200 ms.
        connection.close(applicationCode: CloseCode.quit.code, reason: "quit")
        let flushLimit = MonotonicClock.nowNs() + 200_000_000
        while MonotonicClock.nowNs() < flushLimit, connection.state != .closed {
            _ = try? driver.wait(timeout: 20_000_000)
            if connection.state == .closing || connection.state == .draining { break }
        }
    }
}

extension ClientSession {
    /// NACK_SHORT: a short tail missing at most this many shards beyond parity is NACKed.
    static let nackShort = 2
    /// Frames a NACK hold keeps back at most (beyond it the hold is released).
    static let nackHoldFrames = 16
    /// Frame intervals between ACK-only Feedback datagrams (the mask covers 16 frames).
    static let ackEveryFrames: UInt64 = 4
    /// A bring-up ramp step's answer may take this long (25 ms of probe, a round trip, the host's
    /// result), ns; past it the ramp ends without a wall.
    static let rampStepLimitNs: UInt64 = 500_000_000
}

/// A complete AU copied off the reassembler's buffer, waiting for its epoch's StreamConfig or a
/// NACKed frame before it.
struct HeldFrame: Sendable {
    let bytes: [UInt8]
    let frame: UInt32
    let epoch: UInt8
    let userFlags: UInt32
    let ptsNs: Int64
    let recoveredShards: Int
    let packets: Int

    init(_ au: AccessUnit) {
        bytes = Array(au.data)
        frame = au.frame
        epoch = au.epoch
        userFlags = au.userFlags
        ptsNs = au.ptsNs
        recoveredShards = au.recoveredShards
        packets = au.packets
    }

    /// Calls `body` with the frame as an `AccessUnit` (its bytes valid during the call).
    func withAccessUnit(_ body: (AccessUnit) -> Void) {
        bytes.withUnsafeBytes { raw in
            body(AccessUnit(data: raw, stream: .video, frame: frame, epoch: epoch, userFlags: userFlags, ptsNs: ptsNs,
                            recoveredShards: recoveredShards, packets: packets))
        }
    }
}

import Glibc
import PunktfunkWire
import SystemClock

/// The established half of `ClientSession.run()`: media on the shared socket, host datagrams and
/// control frames, Feedback windows and keyframe asks, clock re-sync, the outbox, stats, and the
/// deliberate quit. Same thread and same bounds as `run()`.
extension ClientSession {
    func stream(_ params: SessionParameters, suite: MediaSuite, connection: QuicConnection,
                driver: QuicSocketDriver, early: [[UInt8]]) throws(SessionError) {
        let hello = params.serverHello
        let limits = MediaLimits(shardBytes: hello.shardPayload == 0 ? 1408 : Int(hello.shardPayload),
                                 maxDataPerBlock: hello.maxDataPerBlock == 0 ? 4096 : Int(hello.maxDataPerBlock))
        let receiver = MediaReceiver(exporter: params.mediaExporter, suite: suite, limits: limits,
                                     clockOriginNs: Int64(hello.clockOriginNs), aead: GnuTLSMediaAEAD.factory)
        // Local state the reassembler callbacks update (they run inside `receiver.receive`).
        var recovery = LossRecovery()
        let deliver = onAccessUnit
        receiver.video.onAccessUnit = { au in
            recovery.delivered(frame: au.frame, keyframe: au.isKeyframe, now: MonotonicClock.nowNs())
            deliver?(au)
        }
        receiver.video.onFrameLost = { frame in recovery.declaredLost(frame: frame) }
        var rejected = 0
        var probe = ProbeMeter()
        driver.onMedia = { datagram in
            let packets = receiver.probePackets, bytes = receiver.probeBytes
            do { try receiver.receive(datagram) } catch { rejected += 1 }
            if receiver.probePackets != packets {
                probe.arrived(count: receiver.probePackets - packets, wireBytes: receiver.probeBytes - bytes, now: MonotonicClock.nowNs())
            }
        }
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
            self.recovery = recovery
            driver.wakeDescriptor = -1
        }

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
                lastProbe = report
                onProbeReport?(report)
            case .reconfigured(let reply):
                if let answer = modeRequests.answered(reply) { onModeAnswer?(answer) }
            case .streamConfig(let config):
                if let old = streamConfig, old.epoch != config.epoch {
                    // A new epoch restarts the picture stream: old losses are moot.
                    recovery = LossRecovery()
                }
                streamConfig = config
            default: break
            }
            onControl?(message)
        }
        for frame in params.heldFrames { handle(frame, now: MonotonicClock.nowNs()) }

        let start = MonotonicClock.nowNs()
        let end = start + UInt64(max(0, options.seconds) * 1e9)
        let frameIntervalNs = UInt64(1e9 / Double(max(hello.mode.refreshHz, 1)))
        var nextWindow = start + options.feedbackEveryNs
        var nextAskRepeat: UInt64 = 0
        var nextStats = start + options.statsEveryNs
        var nextResync = resync == nil ? UInt64.max : start + options.clockResyncEveryNs
        var window: FeedbackDatagram.Window?
        var windowNumber: UInt32 = 0
        var lastWindow = receiver.counters
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
            if recovery.ask != nil { timeout = min(timeout, nextAskRepeat > now ? nextAskRepeat - now : 0) }
            let events: [QuicEvent]
            do { events = try driver.wait(timeout: timeout) } catch { throw .transport(error) }
            for event in events {
                switch event {
                case .datagram(let bytes):
                    guard let datagram = try? HostDatagram(decoding: bytes) else { continue }
                    switch datagram {
                    case .audio(let packet):
                        audioPackets += 1
                        onAudio?(packet)
                    case .media, .clockEcho: break
                    default: onHostDatagram?(datagram)
                    }
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
            if outbox.drain(datagrams: &outDatagrams, controls: &outControls) { recovery.decoderNeedsKeyframe() }
            // Checked before this pass's items go, acted on after: what was queued before the quit
            // (the input thread's last releases) still leaves.
            let quitting = outbox.quitRequested
            outbox.drainInputs(into: &outInputs)
            for item in outInputs { sendInput(item, connection: connection, controlStream: params.controlStream) }
            let handedOver = !outInputs.isEmpty || !outDatagrams.isEmpty || !outControls.isEmpty
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
            if let mode = outbox.takeWantedMode() { modeRequests.want(mode) }
            if let mode = modeRequests.due(nowNs: MonotonicClock.nowNs()),
               (try? connection.write(stream: params.controlStream, ControlMessage.reconfigure(Reconfigure(mode: mode)).encoded)) != nil {
                outboxSent += 1
            }
            // Input leaves now, not at the next wake-up (up to 5 ms away).
            if handedOver { try? driver.flush() }
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
            recovery.tick(now: after)
            // Feedback (§5.2): at each window close, and every frame interval while an ask is open;
            // every datagram repeats the last closed window.
            var sendFeedback = false
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
                window = .init(number: windowNumber, lossPPM: UInt32(ppm), packetsReceived: c.packetsReceived)
                lastWindow = c
                sendFeedback = true
            }
            if recovery.ask != nil && after >= nextAskRepeat { sendFeedback = true }
            if sendFeedback {
                let feedback = FeedbackDatagram(window: window, ask: recovery.ask)
                if (try? connection.sendDatagram(ClientDatagram.feedback(feedback).encoded)) != nil {
                    feedbackSent += 1
                    if feedback.ask != nil { askFeedbackSent += 1 }
                }
                nextAskRepeat = after + frameIntervalNs
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
                                      framesLost: UInt64(recovery.framesLost), shardsRecovered: c.shardsRecovered,
                                      packets: c.packetsReceived, rttMs: rttMs, clockOffsetNs: clockOffsetNs)
                stats.audioPackets = UInt64(audioPackets)
                stats.keyframeAsks = UInt64(recovery.asksOpened)
                onStats?(stats)
                lastStats = c
            }
        }
        // Deliberate quit (control-plane §3.5: 0x51), flushed within 200 ms.
        connection.close(applicationCode: CloseCode.quit.code, reason: "quit")
        let flushLimit = MonotonicClock.nowNs() + 200_000_000
        while MonotonicClock.nowNs() < flushLimit, connection.state != .closed {
            _ = try? driver.wait(timeout: 20_000_000)
            if connection.state == .closing || connection.state == .draining { break }
        }
    }
}

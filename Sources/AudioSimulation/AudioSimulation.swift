import Audio

/// Runs a `PlayoutModel` over an `AudioTrace`: arrivals in time order, and a DAC that asks for
/// its next 240 frames (+ the previous period's stretch) exactly when the previous period has
/// played, at 48000 × (1 + dacPpm·1e-6) frames per second of the client's clock, from a seeded
/// phase. `nowNs` of a poll is when that period starts playing. Pure numbers: an hour of audio
/// runs in seconds.
///
/// Measured per played (or RED-recovered) packet: *added playout delay* = the time its period
/// starts playing − (its send time + the scenario's base network delay), i.e. the delay beyond
/// the fastest possible delivery, ns. *Concealed* = PLC and quiet periods where audio was due
/// (after playout started), over all periods after playout started.
///
/// Checked on the adaptive buffer (`violations`): the settled sequence numbers form one
/// contiguous run, each exactly once; nothing is played before it arrived, nothing that never
/// arrived is played, RED recovery only from a received successor; every handed-back payload is
/// its packet's; after playout started every period is audio, concealment or — only past the
/// concealment bound — quiet (no stall); the buffer's counters add up.
public enum AudioSimulation {
    public static let frameSamples = 240
    public static let sampleRate = 48_000.0

    /// Runs `model` over `trace`. `phaseSeed` picks the DAC's phase against the packets.
    public static func run<M: PlayoutModel>(_ trace: AudioTrace, model: inout M, phaseSeed: UInt64) -> AudioSimulationResult {
        let s = trace.scenario
        var rng = TraceRandom(seed: phaseSeed ^ 0x5EED_DAC0)
        var r = AudioSimulationResult()
        r.sent = trace.sent
        r.delivered = trace.delivered.lazy.filter { $0 }.count
        r.seconds = s.seconds
        let rate = sampleRate * (1 + s.dacPpm * 1e-6)
        let dacStart = (trace.sendNs.first ?? 0) + rng.uniform(0...(AudioTrace.frameNs - 1))
        let endNs = (trace.sendNs.last ?? 0) + s.baseDelayNs  // the last packet's earliest playout
        var emitted = 0.0
        var k = 0
        var arrivedAt = [Int64](repeating: -1, count: trace.sent)
        /// Per packet: 0 unsettled, 1 played (or recovered), 2 lost (concealed or covered), 3 dropped.
        var fate = [UInt8](repeating: 0, count: trace.sent)
        var nextDecided: Int?
        var concealRun = 0
        var started = false
        let warmupNs = dacStart + 10_000_000_000
        let minuteNs: Int64 = 60_000_000_000
        var minuteSum = 0.0
        var minuteCount = 0
        var minuteIndex = 0

        func index(_ seq: UInt32) -> Int { Int(seq &- s.firstSeq) }
        func violate(_ text: String) {
            r.violationCount += 1
            if r.violations.count < 8 { r.violations.append(text) }
        }

        while true {
            let now = dacStart + Int64((emitted * 1e9 / rate).rounded())
            if now > endNs { break }
            while k < trace.arrivals.count && trace.arrivals[k].arrivalNs <= now {
                let a = trace.arrivals[k]
                let firstCopy = arrivedAt[a.index] < 0
                if firstCopy { arrivedAt[a.index] = a.arrivalNs }
                let flags: AudioPacketFlags = s.red && a.index > 0 ? [.carriesPrevious] : []
                let verdict = model.handle(seq: trace.seq(a.index), ptsNs: UInt64(trace.sendNs[a.index]), flags: flags, nowNs: a.arrivalNs)
                if let verdict {
                    // Ground truth: a first copy of an unsettled packet is buffered; a copy of a
                    // packet buffered or played is a duplicate; one given up on is late.
                    let expected: PacketVerdict = switch fate[a.index] {
                    case 0: firstCopy ? .buffered : .duplicate
                    case 1: firstCopy ? .late : .duplicate  // first copy after a RED recovery is late
                    default: .late
                    }
                    if verdict != expected, !(fate[a.index] == 1 && !firstCopy && verdict == .late && r.recoveredSeqs.contains(a.index)) {
                        violate("packet \(a.index) arriving at \(a.arrivalNs): \(verdict), expected \(expected)")
                    }
                    if verdict == .late { r.lateArrivals += 1 }
                    if verdict == .duplicate { r.duplicateArrivals += 1 }
                }
                k += 1
            }
            let p = model.poll(nowNs: now)
            emitted += Double(frameSamples + p.stretchFrames)
            r.insertedFrames += max(0, p.stretchFrames)
            r.droppedFrames += max(0, -p.stretchFrames)
            if p.payloadMismatch { violate("payload of \(p.seq.map(String.init) ?? "?") is another packet's") }
            if p.fade == .in { r.fadeIns += 1 }
            if p.fade == .out { r.fadeOuts += 1 }

            switch p.kind {
            case .idle:
                r.idlePeriods += 1
                if started { violate("stall: idle period at \(now) after playout started") }
                continue
            case .play, .recover, .dtx:
                started = true
                concealRun = 0
                let i = index(p.seq!)
                if p.kind == .recover {
                    r.recovered += 1
                    if !(s.red && i + 1 < trace.sent && arrivedAt[i + 1] >= 0) { violate("seq \(p.seq!) recovered without a received successor") }
                } else {
                    r.played += 1
                    if i >= trace.sent || arrivedAt[i] < 0 { violate("seq \(p.seq!) played but never arrived") }
                }
                let delay = now - (trace.sendNs[min(i, trace.sent - 1)] + s.baseDelayNs)
                r.delaysNs.append(delay)
                if now >= warmupNs {
                    r.delayAfterWarmupMaxNs = max(r.delayAfterWarmupMaxNs, delay)
                    minuteSum += Double(delay)
                    minuteCount += 1
                }
            case .conceal:
                r.concealed += 1
                concealRun += 1
                if let bound = model.muteAfterPeriods, concealRun > bound {
                    violate("concealment at \(now) ran \(concealRun) periods, past its bound")
                }
            case .mute:
                r.muted += 1
                if let bound = model.muteAfterPeriods, concealRun < bound {
                    violate("quiet at \(now) after only \(concealRun) concealed periods")
                }
            }
            r.periodsAfterStart += 1
            if let e = p.levelErrorNs, now >= warmupNs {
                r.levelErrorMinNs = min(r.levelErrorMinNs, e)
                r.levelErrorMaxNs = max(r.levelErrorMaxNs, e)
            }
            if now >= warmupNs + Int64(minuteIndex + 1) * minuteNs {
                if minuteCount > 0 { r.minuteMeanDelayMs.append(minuteSum / Double(minuteCount) / 1e6) }
                minuteSum = 0
                minuteCount = 0
                minuteIndex += 1
            }

            // Fates (the adaptive buffer reports which sequence numbers it settled).
            if p.decidedCount > 0 {
                let first = index(p.decidedFirst)
                if let expected = nextDecided, first != expected {
                    violate("settled from \(first), expected \(expected)")
                }
                if nextDecided == nil {  // packets before the stream's first are not part of it
                    for j in 0..<min(max(0, first), trace.sent) { fate[j] = 2 }
                }
                nextDecided = first + p.decidedCount
                if r.settledFirst == nil { r.settledFirst = first }
                r.settledEnd = first + p.decidedCount
                let stepSeq = p.seq != nil ? 1 : 0
                if p.covered + p.dropped + stepSeq != p.decidedCount {
                    violate("at \(now): \(p.decidedCount) settled ≠ \(p.covered) covered + \(p.dropped) dropped + \(stepSeq)")
                }
                if let seq = p.seq, index(seq) != first + p.decidedCount - 1 {
                    violate("step for \(seq) is not the last settled")
                }
                if p.kind == .conceal || p.kind == .mute, p.seq != nil { r.lostConcealed += 1 }
                r.lostCovered += p.covered
                r.overflowDropped += p.dropped
                let last = first + p.decidedCount - 1
                for j in first...last where j >= 0 && j < trace.sent {
                    let stepFate: UInt8 = p.kind == .conceal || p.kind == .mute ? 2 : 1
                    // Without drops the order is: covered lost packets, then the step's packet.
                    fate[j] = p.seq != nil && j == last ? stepFate : (p.dropped == 0 ? 2 : 3)
                    if p.kind == .recover && j == last { r.recoveredSeqs.insert(j) }
                    if fate[j] == 2 {
                        if arrivedAt[j] >= 0 { violate("packet \(j) given up at \(now) though it arrived at \(arrivedAt[j])") }
                        if trace.delivered[j] { r.lostButDelivered += 1 } else { r.lostInNetwork += 1 }
                    }
                    if !trace.delivered[j] && fate[j] == 1 && p.kind != .recover { violate("packet \(j) played but never sent through") }
                }
            }
        }
        r.late = model.lateCount
        r.duplicates = model.duplicateCount
        r.overflowDrops = model.overflowCount
        if minuteCount > 0 && r.minuteMeanDelayMs.isEmpty { r.minuteMeanDelayMs.append(minuteSum / Double(minuteCount) / 1e6) }
        return r
    }

    /// Runs the adaptive buffer and checks its counters against what the simulation saw.
    public static func runAdaptive(_ trace: AudioTrace, phaseSeed: UInt64, configuration: JitterConfiguration = .init()) -> AudioSimulationResult {
        var model = AdaptiveModel(configuration)
        var r = run(trace, model: &model, phaseSeed: phaseSeed)
        let st = model.buffer.stats
        let f = model.buffer.frameNs
        r.stats = st
        func violate(_ text: String) {
            r.violationCount += 1
            if r.violations.count < 8 { r.violations.append(text) }
        }
        if st.concealedNs != Int64(r.concealed) * f || st.mutedNs != Int64(r.muted) * f {
            violate("counters: concealed \(st.concealedNs / f) / muted \(st.mutedNs / f) periods, seen \(r.concealed) / \(r.muted)")
        }
        let waiting = Int64(model.buffer.waitingPeriods) * f
        if st.concealedNs + st.mutedNs != Int64(st.lostPackets) * f + st.insertedNs + waiting {
            violate("counters: concealed + muted ≠ lost + inserted + waiting")
        }
        if st.lostPackets != r.lostConcealed + r.lostCovered {
            violate("counters: \(st.lostPackets) lost, seen \(r.lostConcealed) concealed + \(r.lostCovered) covered")
        }
        if st.playedPackets != r.played || st.recoveredPackets != r.recovered {
            violate("counters: played \(st.playedPackets) / recovered \(st.recoveredPackets), seen \(r.played) / \(r.recovered)")
        }
        return r
    }

    /// Runs the fixed 60 ms baseline.
    public static func runBaseline(_ trace: AudioTrace, phaseSeed: UInt64) -> AudioSimulationResult {
        var model = FixedDelayBaseline()
        return run(trace, model: &model, phaseSeed: phaseSeed)
    }
}

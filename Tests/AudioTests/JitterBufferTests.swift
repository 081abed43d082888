import Testing
@testable import Audio

/// Drives one buffer by hand: packets at chosen arrival times (ms), a poll at `pollMs`, the
/// next one when the (stretched) period has played. The payload is the packet's own sequence
/// number.
private struct Driver {
    var buffer: AudioJitterBuffer<UInt32>
    /// Sorted by time when `deliver` runs (appends leave it unsorted until then).
    var pending: [(ms: Double, seq: UInt32, flags: AudioPacketFlags)] = []
    var sorted = true
    var next = 0
    var pollMs = 3.0
    var verdicts: [(UInt32, PacketVerdict)] = []

    init(_ configuration: JitterConfiguration = .init()) { buffer = AudioJitterBuffer(configuration) }

    static func ns(_ ms: Double) -> UInt64 { UInt64(1_000_000_000 + (ms * 1e6).rounded()) }

    /// Packet `seq` arrives at `ms`.
    mutating func send(_ seq: UInt32, at ms: Double, flags: AudioPacketFlags = []) {
        pending.append((ms, seq, flags))
        sorted = false
    }

    /// Packets `seqs`, each at its on-time arrival: 1 ms after `(seq − first) × 5 ms`.
    mutating func sendOnTime(_ seqs: ClosedRange<UInt32>, first: UInt32, extraMs: Double = 0) {
        for s in seqs { send(s, at: Double(s &- first) * 5 + 1 + extraMs) }
    }

    mutating func deliver(until ms: Double) {
        if !sorted {
            pending.removeFirst(next)
            next = 0
            pending.sort { $0.ms < $1.ms }  // stable enough: equal times keep no order promise
            sorted = true
        }
        while next < pending.count, pending[next].ms <= ms {
            let p = pending[next]
            next += 1
            verdicts.append((p.seq, buffer.handlePacket(seq: p.seq, ptsNs: UInt64(p.seq), payload: p.seq, flags: p.flags, nowNs: Self.ns(p.ms))))
        }
    }

    mutating func poll() -> Playout<UInt32> {
        deliver(until: pollMs)
        let out = buffer.pollPlayout(nowNs: Self.ns(pollMs))
        pollMs += Double(240 + out.stretchFrames) / 48  // the DAC plays the stretched period
        return out
    }

    /// Polls until the first step that is not idle silence.
    mutating func pollUntilPlaying() -> Playout<UInt32> {
        while true {
            let out = poll()
            if case .silence(nil) = out.step, !buffer.isPlaying { continue }
            return out
        }
    }
}

@Suite struct JitterBufferTests {
    @Test func playsInOrderOnceTheInitialTargetIsBuffered() {
        var d = Driver()
        d.sendOnTime(100...160, first: 100)
        let first = d.pollUntilPlaying()
        #expect(first.step == .play(seq: 100, ptsNs: 100, payload: 100))
        #expect(d.pollMs >= 20 && d.pollMs <= 30)  // waited out ~20 ms (the initial target)
        for seq in UInt32(101)...150 {
            #expect(d.poll().step == .play(seq: seq, ptsNs: UInt64(seq), payload: seq))
        }
        let s = d.buffer.stats
        #expect(s.playedPackets == 51 && s.concealedNs == 0 && s.idleNs > 0)
        #expect(d.verdicts.allSatisfy { $0.1 == .buffered })
    }

    @Test func dtxPacketsPlayAsSilenceNotConcealment() {
        var d = Driver()
        d.sendOnTime(0...3, first: 0)
        d.send(4, at: 21, flags: .silent)
        d.sendOnTime(5...20, first: 0)
        _ = d.pollUntilPlaying()
        for _ in 1...3 { _ = d.poll() }
        #expect(d.poll().step == .silence(seq: 4))
        #expect(d.poll().step == .play(seq: 5, ptsNs: 5, payload: 5))
        #expect(d.buffer.stats.silentPackets == 1 && d.buffer.stats.concealedNs == 0)
    }

    @Test func aLostPacketIsConcealedForExactlyItsFrame() {
        var d = Driver()
        d.sendOnTime(0...9, first: 0)
        d.sendOnTime(11...30, first: 0)
        _ = d.pollUntilPlaying()
        for seq in UInt32(1)...9 { #expect(d.poll().step == .play(seq: seq, ptsNs: UInt64(seq), payload: seq)) }
        // 11 is already here (the delay is ~20 ms, above target): 10 is lost.
        #expect(d.poll().step == .conceal(seq: 10))
        #expect(d.poll().step == .play(seq: 11, ptsNs: 11, payload: 11))
        let s = d.buffer.stats
        #expect(s.lostPackets == 1 && s.concealedNs == 5_000_000 && s.insertedNs == 0)
        // The original turning up now is late.
        d.send(10, at: d.pollMs)
        _ = d.poll()
        #expect(d.verdicts.last! == (10, .late))
        #expect(d.buffer.stats.latePackets == 1)
    }

    @Test func redCopyInTheSuccessorRecoversALostPacket() {
        var d = Driver()
        d.sendOnTime(0...9, first: 0)
        d.send(11, at: 56, flags: .carriesPrevious)
        d.sendOnTime(12...30, first: 0)
        _ = d.pollUntilPlaying()
        for _ in 1...9 { _ = d.poll() }
        #expect(d.poll().step == .recover(seq: 10, ptsNs: 11 &- 5_000_000, payload: 11))
        #expect(d.poll().step == .play(seq: 11, ptsNs: 11, payload: 11))
        #expect(d.buffer.stats.recoveredPackets == 1 && d.buffer.stats.concealedNs == 0)
    }

    @Test func anUnderrunWaitsWithConcealmentAndThePacketStillPlays() {
        var d = Driver()
        d.sendOnTime(0...9, first: 0)
        _ = d.pollUntilPlaying()
        var waits = 0
        while true {
            let out = d.poll()
            if out.step == .conceal(seq: nil) { waits += 1 }
            if waits == 2 { break }
        }
        // Packet 10 arrives late: played, the two waiting periods were inserted delay.
        d.send(10, at: d.pollMs - 1)
        d.sendOnTime(11...20, first: 0, extraMs: 10)
        #expect(d.poll().step == .play(seq: 10, ptsNs: 10, payload: 10))
        let s = d.buffer.stats
        #expect(s.underruns == 1 && s.insertedNs == 10_000_000 && s.lostPackets == 0 && s.concealedNs == 10_000_000)
        #expect(d.verdicts.allSatisfy { $0.1 == .buffered })
    }

    @Test func waitingConcealmentCoversPacketsFoundLostLater() {
        var d = Driver()
        d.sendOnTime(0...9, first: 0)
        _ = d.pollUntilPlaying()
        while d.poll().step != .conceal(seq: nil) {}
        _ = d.poll()  // two waiting periods
        #expect(d.buffer.concealmentRunNs == 10_000_000)
        // 10 and 11 never come; 12 does.
        d.send(12, at: d.pollMs - 1)
        let out = d.poll()
        #expect(d.buffer.concealmentRunNs == 0)  // a real period ends the run
        #expect(out.step == .play(seq: 12, ptsNs: 12, payload: 12))
        #expect(out.coveredLost == 2)
        let s = d.buffer.stats
        #expect(s.lostPackets == 2 && s.insertedNs == 0 && s.concealedNs == 10_000_000)
    }

    @Test func outageConcealsBrieflyThenFadesToQuietAndResumesWithAFadeIn() {
        var d = Driver()
        d.sendOnTime(0...39, first: 0)
        d.sendOnTime(140...200, first: 0)  // 40...139 lost: 500 ms
        _ = d.pollUntilPlaying()
        var concealed = 0, quiet = 0, covered = 0, lostSteps = 0
        var fadeOut: Int?
        var resumed: Playout<UInt32>?
        while resumed == nil {
            let out = d.poll()
            covered += out.coveredLost
            switch out.step {
            case .conceal(let seq):
                concealed += 1
                if seq != nil { lostSteps += 1 }
                if out.fade == .out { fadeOut = concealed }
            case .silence(let seq):
                quiet += 1
                if seq != nil { lostSteps += 1 }
            case .play(let seq, _, _) where seq >= 140:
                resumed = out
            default:
                break
            }
        }
        #expect(concealed == 16 && fadeOut == 16)  // 80 ms of PLC, the last one fading out
        #expect(d.buffer.concealmentRunNs == 0)
        #expect(quiet >= 80)
        #expect(resumed?.step == .play(seq: 140, ptsNs: 140, payload: 140))
        #expect(resumed?.fade == .in)
        #expect(covered + lostSteps == 100)
        let s = d.buffer.stats
        #expect(s.lostPackets == 100 && s.concealedNs == 80_000_000 && s.overflowDrops == 0)
        #expect(s.insertedNs <= 10_000_000)
    }

    @Test func duplicatesAndLatePacketsAreDroppedAndCounted() {
        var d = Driver()
        d.sendOnTime(0...20, first: 0)
        d.send(3, at: 2)       // duplicate while buffered
        _ = d.pollUntilPlaying()
        _ = d.poll()
        d.send(0, at: d.pollMs)  // duplicate after playing
        _ = d.poll()
        #expect(d.verdicts.filter { $0.1 == .duplicate }.map(\.0) == [3, 0])
        #expect(d.buffer.stats.duplicatePackets == 2 && d.buffer.stats.latePackets == 0)
    }

    @Test func sequenceNumbersWrap() {
        var d = Driver()
        let first = UInt32.max - 5
        for i in UInt32(0)...30 { d.send(first &+ i, at: Double(i) * 5 + 1) }
        _ = d.pollUntilPlaying()
        var expected = first &+ 1
        for _ in 0..<20 {
            #expect(d.poll().step == .play(seq: expected, ptsNs: UInt64(expected), payload: expected))
            expected &+= 1
        }
        #expect(d.buffer.stats.lostPackets == 0 && d.buffer.stats.resyncs == 0)
    }

    @Test func aFarJumpRestartsTheStream() {
        var d = Driver()
        d.sendOnTime(0...10, first: 0)
        _ = d.pollUntilPlaying()
        for _ in 0..<5 { _ = d.poll() }
        let base = d.pollMs
        for i in UInt32(0)...30 { d.send(50_000 + i, at: base + Double(i) * 5) }
        // The old stream's 6…10 are dropped; the new one starts over with its own prefill.
        #expect(d.pollUntilPlaying().step == .play(seq: 50_000, ptsNs: 50_000, payload: 50_000))
        #expect(d.poll().step == .play(seq: 50_001, ptsNs: 50_001, payload: 50_001))
        #expect(d.buffer.stats.resyncs == 1 && d.buffer.stats.overflowDrops == 5)
    }

    @Test func aPauseWithoutSequenceGapPrefillsAgainInsteadOfPlayingLate() {
        var d = Driver()
        d.sendOnTime(0...20, first: 0)
        // The host pauses for 10 s and resumes with the next sequence number.
        for s in UInt32(21)...60 { d.send(s, at: 10_000 + Double(s) * 5 + 1) }
        _ = d.pollUntilPlaying()
        var resumed: Playout<UInt32>?
        while resumed == nil {
            let out = d.poll()
            if case .play(21, _, _) = out.step { resumed = out }
        }
        #expect(d.buffer.stats.resyncs == 1)
        #expect(resumed?.fade == .in)
        // Played at the fresh initial target, not 10 s late; nothing was dropped.
        #expect(d.buffer.stats.delayNs <= 25_000_000)
        #expect(d.buffer.stats.overflowDrops == 0 && d.buffer.stats.lostPackets == 0)
        for seq in UInt32(22)...40 { #expect(d.poll().step == .play(seq: seq, ptsNs: UInt64(seq), payload: seq)) }
    }

    @Test func aPacketBeyondTheWindowPushesTheOldestOut() {
        var d = Driver()
        d.send(0, at: 1)
        d.send(70, at: 2)  // capacity 64: 0…6 leave the window
        d.deliver(until: 2)
        #expect(d.buffer.nextSeq == 7)
        #expect(d.buffer.stats.overflowDrops == 7)
        #expect(d.verdicts.map(\.1) == [.buffered, .buffered])
    }

    @Test func targetGrowsAtOnceUnderABurstAndShrinksOverSeconds() {
        var d = Driver()
        // A steady stream; packets 1000…1007 are held and delivered with 1008 (a 40 ms stall).
        let end = 1008.0 * 5 + 1
        for s in UInt32(0)..<5000 {
            d.send(s, at: (1000...1007).contains(s) ? end : Double(s) * 5 + 1)
        }
        _ = d.pollUntilPlaying()
        while d.pollMs < 4500 { _ = d.poll() }  // settled after the 20 ms start
        #expect(d.buffer.stats.targetNs <= 6_000_000)
        #expect(d.buffer.stats.delayNs <= d.buffer.stats.targetNs + 1_500_000)
        // Poll past the stall's end.
        while d.pollMs < end + 10 { _ = d.poll() }
        let after = d.buffer.stats
        #expect(after.targetNs >= 40_000_000)
        #expect(after.underruns >= 1)  // the stall itself was concealed
        // The delay grew with it: the burst was played, not dropped.
        #expect(after.lostPackets == 0 && after.latePackets == 0)
        #expect(after.delayNs >= 35_000_000)
        while d.pollMs < end + 1900 { _ = d.poll() }
        #expect(d.buffer.stats.targetNs >= 40_000_000)  // held
        while d.pollMs < end + 12_000 { _ = d.poll() }
        #expect(d.buffer.stats.targetNs <= 6_000_000)  // decayed
    }
}

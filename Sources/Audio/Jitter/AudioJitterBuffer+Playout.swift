extension AudioJitterBuffer {
    /// The output needs its next period, which starts playing at `nowNs` (see the type's doc).
    /// - Returns: what to output for the period (never nothing: an underrun is concealed),
    ///   how to stretch and fade it, and how many lost packets earlier concealment covered.
    public mutating func pollPlayout(nowNs: UInt64) -> Playout<Payload> {
        let now = Int64(nowNs)
        lastNowNs = max(lastNowNs, now)
        guard hasStream else { return idle() }
        jitter.advance(nowNs: now)
        let target = targetNs(nowNs: now)
        counters.targetNs = target
        if !started {
            guard isBuffered(nextExt), jitter.playoutDelayNs(extSeq: nextExt, nowNs: now) >= target else {
                return idle()
            }
            started = true
        }

        // Packets lost while the output waited: the waited periods were their concealment.
        var covered = pendingCovered
        pendingCovered = 0
        while waited > 0 && newestExt > nextExt && !isBuffered(nextExt) {
            release(nextExt, as: .lost)
            counters.lostPackets += 1
            lossSeenNs = now
            nextExt += 1
            waited -= 1
            covered += 1
        }
        if waited > 0 && isBuffered(nextExt) { attributeWaitAsInserted() }

        // Far too deep (a burst delivered long after an outage): drop back to the target.
        while newestExt > nextExt, jitter.playoutDelayNs(extSeq: nextExt, nowNs: now) - target > configuration.overflowNs {
            release(nextExt, as: .lost)
            counters.overflowDrops += 1
            nextExt += 1
            if waited > 0 { attributeWaitAsInserted() }
        }

        let delay = jitter.playoutDelayNs(extSeq: nextExt, nowNs: now)
        let seq = UInt32(truncatingIfNeeded: nextExt)
        let i = index(nextExt)
        if isBuffered(nextExt) {
            let slot = slots[i]
            let step: PlayoutStep<Payload>
            if slot.flags.contains(.silent) {
                counters.silentPackets += 1
                step = .silence(seq: seq)
            } else {
                step = .play(seq: seq, ptsNs: slot.ptsNs, payload: slot.payload!)
            }
            counters.playedPackets += 1
            release(nextExt, as: .played)
            nextExt += 1
            return real(step, delay: delay, target: target, covered: covered)
        }
        if newestExt > nextExt {
            let successor = slots[index(nextExt + 1)]
            if successor.ext == nextExt + 1 && successor.state == .buffered && successor.flags.contains(.carriesPrevious) {
                counters.recoveredPackets += 1
                lossSeenNs = now
                release(nextExt, as: .lost)
                nextExt += 1
                let step = PlayoutStep<Payload>.recover(seq: seq, ptsNs: successor.ptsNs &- UInt64(frameNs),
                                                        payload: successor.payload!)
                return real(step, delay: delay, target: target, covered: covered)
            }
            if delay >= target {
                counters.lostPackets += 1
                lossSeenNs = now
                release(nextExt, as: .lost)
                nextExt += 1
                return concealed(seq: seq, covered: covered)
            }
        } else if waited == 0 {
            counters.underruns += 1
        }
        waited += 1
        return concealed(seq: nil, covered: covered)
    }

    /// The jitter target (at least `delayFloorNs`), plus one packet while RED is on and packets are being lost (so the
    /// successor carrying a lost packet's copy has arrived when the lost packet is due).
    private func targetNs(nowNs: Int64) -> Int64 {
        var t = jitter.targetNs
        if let red = redSeenNs, let loss = lossSeenNs, nowNs - red < 1_000_000_000,
           nowNs - loss < configuration.redLossMemoryNs {
            t = min(configuration.maxTargetNs, t + frameNs)
        }
        return max(t, min(delayFloorNs, configuration.maxTargetNs))
    }

    private mutating func idle() -> Playout<Payload> {
        counters.idleNs += frameNs
        return Playout(step: .silence(seq: nil))
    }

    /// A period of real audio (a packet, its RED copy, or DTX silence): ends a concealment run
    /// (fading in after quiet) and carries the drift/target correction.
    private mutating func real(_ step: PlayoutStep<Payload>, delay: Int64, target: Int64, covered: Int) -> Playout<Payload> {
        concealRunNs = 0
        counters.delayNs = delay
        let fade: PlayoutFade = muted ? .in : .none
        muted = false
        return Playout(step: step, stretchFrames: stretch(errorNs: delay - target), fade: fade, coveredLost: covered,
                       delayErrorNs: delay - target)
    }

    /// A period with no packet: PLC while the run is within `maxConcealNs` (the last of those
    /// fading out), quiet after.
    private mutating func concealed(seq: UInt32?, covered: Int) -> Playout<Payload> {
        if concealRunNs >= configuration.maxConcealNs {
            counters.mutedNs += frameNs
            muted = true
            return Playout(step: .silence(seq: seq), coveredLost: covered)
        }
        concealRunNs += frameNs
        counters.concealedNs += frameNs
        let last = concealRunNs >= configuration.maxConcealNs
        if last { muted = true }  // the output ends this period at zero; the next real one fades in
        return Playout(step: .conceal(seq: seq), fade: last ? .out : .none, coveredLost: covered)
    }

    /// Frames to repeat (> 0) or drop (< 0) this period for a delay error of `errorNs` (delay −
    /// target): proportional, `(|err| − deadband) / controlTimeNs × frameSamples` frames per
    /// period, fractions carried to the next period, at most `maxStretchFrames`.
    private mutating func stretch(errorNs: Int64) -> Int {
        let c = configuration
        let excess = abs(errorNs) - c.deadbandNs
        if excess > 0 {
            let rate = Double(excess) / Double(c.controlTimeNs) * Double(c.frameSamples)
            stretchCarry += errorNs > 0 ? -rate : rate
        } else {
            stretchCarry = 0
        }
        let limit = Double(c.maxStretchFrames)
        stretchCarry = min(limit, max(-limit, stretchCarry))
        let frames = Int(stretchCarry.rounded(.towardZero))
        stretchCarry -= Double(frames)
        if frames > 0 { counters.stretchInsertedFrames += frames }
        if frames < 0 { counters.stretchDroppedFrames -= frames }
        return frames
    }
}

import Audio

/// `OpusToneSource`'s packets encoded once and replayed: the host's audio without an Opus encoder
/// on its send path.
///
/// Under TCG (the VM harness) libopus' encoder costs the emulated CPUs about half of what the
/// whole test host costs; the host then falls behind its 5 ms audio clock and the kiosk's sink
/// conceals what never came, so the check measured the host rather than the sink. A real host
/// encodes on real hardware; the kiosk cannot tell a replayed packet from a fresh one.
///
/// Invariant: the signal repeats every `period` packets (the tone's phase and the marker spacing
/// both come round: packet `i` of the replay carries the signal of packet `i` of the source). The
/// replay starts with the encoder's first `settlePeriods` periods as encoded, then plays the next
/// period over and over. libopus' VBR output never repeats byte for byte, so the replay is not the
/// bytes a continuous encoder would send; decoded, it is as close to the tone
/// (`OpusToneLoopTests`). Where the signal has no period of at most `maxPeriod` packets, `init`
/// returns nil and the caller encodes live. Not thread-safe.
public final class OpusToneLoop {
    /// The packets sent once, first: the encoder settling from its initial state.
    public let lead: [[UInt8]]
    /// The period replayed after `lead`.
    public let cycle: [[UInt8]]
    private var index = 0

    /// The signal's period in packets, or nil if it has none of at most `maxPeriod`.
    public static func period(frequencyHz: Double, frameSamples: Int, markerEvery: Int, maxPeriod: Int = 2_000) -> Int? {
        let rate = Double(OpusToneSource.sampleRate)
        var n = 1
        while n <= maxPeriod {
            let cycles = frequencyHz * Double(n * frameSamples) / rate
            if abs(cycles - cycles.rounded()) < 1e-9, markerEvery <= 0 || n % markerEvery == 0 { return n }
            n += 1
        }
        return nil
    }

    /// - Parameter source: a fresh source (nothing encoded yet).
    public init?(_ source: OpusToneSource, maxPeriod: Int = 2_000, settlePeriods: Int = 1) throws(AudioError) {
        guard let period = Self.period(frequencyHz: source.frequencyHz, frameSamples: source.frameSamples,
                                       markerEvery: source.markerEvery, maxPeriod: maxPeriod) else { return nil }
        var lead: [[UInt8]] = [], cycle: [[UInt8]] = []
        lead.reserveCapacity(period * settlePeriods)
        cycle.reserveCapacity(period)
        for _ in 0..<(period * settlePeriods) { lead.append(try source.nextPacket()) }
        for _ in 0..<period { cycle.append(try source.nextPacket()) }
        self.lead = lead
        self.cycle = cycle
    }

    public var period: Int { cycle.count }

    /// The next packet: `lead`, then `cycle` over and over.
    public func nextPacket() -> [UInt8] {
        defer { index += 1 }
        if index < lead.count { return lead[index] }
        return cycle[(index - lead.count) % cycle.count]
    }
}

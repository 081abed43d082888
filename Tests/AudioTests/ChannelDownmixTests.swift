import Testing
import Audio

/// `ChannelDownmix` channel by channel. Expected gains: ITU-R BS.775's −3 dB (k = 1/√2) for the
/// centre and surrounds, the LFE left out, every coefficient divided by the largest row sum —
/// the values libswresample prints for the same conversions (`ffmpeg -v debug … -ac 2`:
/// "FL: FL:0.414214 … FC:0.292893 … BL:0.292893"; 7.1 → 5.1: "BL: BL:0.585786 … SL:0.414214").
@Suite struct ChannelDownmixTests {
    static let k = 0.5.squareRoot()

    /// The output frame for a unit impulse on input channel `channel`.
    static func impulse(_ mix: ChannelDownmix, channel: Int, value: Float = 1) -> [Float] {
        var input = [Float](repeating: 0, count: mix.inputChannels)
        input[channel] = value
        var out = [Float](repeating: .nan, count: mix.outputChannels)
        input.withUnsafeBufferPointer { i in out.withUnsafeMutableBufferPointer { mix.mix(i, into: $0, frames: 1) } }
        return out
    }

    static func close(_ a: [Float], _ b: [Double]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { abs(Double($0) - $1) < 1e-6 }
    }

    @Test func fivePointOneToStereoFollowsBS775() throws {
        let mix = try #require(ChannelDownmix(from: 6, to: 2))
        let s = 1 + 2 * Self.k  // L = FL + k·FC + k·RL
        // Wire order FL FR FC LFE RL RR.
        #expect(Self.close(Self.impulse(mix, channel: 0), [1 / s, 0]))
        #expect(Self.close(Self.impulse(mix, channel: 1), [0, 1 / s]))
        #expect(Self.close(Self.impulse(mix, channel: 2), [Self.k / s, Self.k / s]))
        #expect(Self.close(Self.impulse(mix, channel: 3), [0, 0]), "LFE left out")
        #expect(Self.close(Self.impulse(mix, channel: 4), [Self.k / s, 0]))
        #expect(Self.close(Self.impulse(mix, channel: 5), [0, Self.k / s]))
        // libswresample's figures for the same matrix.
        #expect(abs(Self.impulse(mix, channel: 0)[0] - 0.414214) < 1e-6)
        #expect(abs(Self.impulse(mix, channel: 2)[0] - 0.292893) < 1e-6)
    }

    @Test func sevenPointOneToStereoAddsTheSidePairToItsSide() throws {
        let mix = try #require(ChannelDownmix(from: 8, to: 2))
        let s = 1 + 3 * Self.k
        #expect(Self.close(Self.impulse(mix, channel: 0), [1 / s, 0]))
        #expect(Self.close(Self.impulse(mix, channel: 2), [Self.k / s, Self.k / s]))
        #expect(Self.close(Self.impulse(mix, channel: 3), [0, 0]))
        #expect(Self.close(Self.impulse(mix, channel: 4), [Self.k / s, 0]))
        #expect(Self.close(Self.impulse(mix, channel: 5), [0, Self.k / s]))
        #expect(Self.close(Self.impulse(mix, channel: 6), [Self.k / s, 0]))
        #expect(Self.close(Self.impulse(mix, channel: 7), [0, Self.k / s]))
    }

    @Test func sevenPointOneToFivePointOneFoldsTheSidesIntoTheRears() throws {
        let mix = try #require(ChannelDownmix(from: 8, to: 6))
        let s = 1 + Self.k
        for c in 0..<6 {
            var expected = [Double](repeating: 0, count: 6)
            expected[c] = 1 / s
            #expect(Self.close(Self.impulse(mix, channel: c), expected), "channel \(c)")
        }
        #expect(Self.close(Self.impulse(mix, channel: 6), [0, 0, 0, 0, Self.k / s, 0]))
        #expect(Self.close(Self.impulse(mix, channel: 7), [0, 0, 0, 0, 0, Self.k / s]))
        #expect(abs(Self.impulse(mix, channel: 4)[4] - 0.585786) < 1e-6)
        #expect(abs(Self.impulse(mix, channel: 6)[4] - 0.414214) < 1e-6)
    }

    /// Every channel at full scale with the same sign — the worst case — reaches exactly full
    /// scale on the busiest output and never beyond.
    @Test(arguments: [(6, 2), (8, 2), (8, 6)])
    func fullScaleOnEveryChannelNeverClips(_ pair: (Int, Int)) throws {
        let mix = try #require(ChannelDownmix(from: pair.0, to: pair.1))
        for sign: Float in [1, -1] {
            let input = [Float](repeating: sign, count: pair.0 * 4)
            var out = [Float](repeating: 0, count: pair.1 * 4)
            input.withUnsafeBufferPointer { i in out.withUnsafeMutableBufferPointer { mix.mix(i, into: $0, frames: 4) } }
            #expect(out.allSatisfy { abs($0) <= 1.000001 })
            #expect(abs(out.map { abs($0) }.max()! - 1) < 1e-6)
        }
    }

    @Test func onlyFoldsDownTheWireLayouts() {
        #expect(ChannelDownmix(from: 2, to: 2) == nil)
        #expect(ChannelDownmix(from: 6, to: 6) == nil)
        #expect(ChannelDownmix(from: 2, to: 6) == nil)
        #expect(ChannelDownmix.outputChannels(stream: 8, device: 8) == 8)
        #expect(ChannelDownmix.outputChannels(stream: 2, device: 8) == 2)
        #expect(ChannelDownmix.outputChannels(stream: 8, device: 6) == 6)
        #expect(ChannelDownmix.outputChannels(stream: 8, device: 7) == 6)
        #expect(ChannelDownmix.outputChannels(stream: 6, device: 4) == 2)
        #expect(ChannelDownmix.outputChannels(stream: 8, device: 2) == 2)
    }
}

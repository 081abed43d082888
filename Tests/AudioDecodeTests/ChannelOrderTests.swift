import Audio
import Testing

/// Multistream channel order: a distinct tone per wire channel (FL FR FC LFE RL RR SL SR),
/// encoded with libopus' multistream encoder and the layout's mapping as the host does,
/// decoded by `AudioDecoder`, must come out on the same channel.
@Suite struct ChannelOrderTests {
    static let layouts: [OpusLayout] = [
        .stereo, .surround51Legacy, .surround51Standard, .surround51Uncoupled,
        .surround71Legacy, .surround71Standard, .surround71Uncoupled,
    ]
    /// 100 ms apart in frequency from each other, all well inside CELT's coded band.
    static let tones: [Double] = [400, 600, 800, 1_000, 1_200, 1_400, 1_600, 1_800]

    /// Decodes 300 ms of the tones encoded with `encodeLayout` using `decodeLayout`, and
    /// returns, per output channel, the index of the strongest tone.
    static func strongestTones(encodeLayout: OpusLayout, decodeLayout: OpusLayout) throws -> (strongest: [Int], ratio: [Double]) {
        let channels = encodeLayout.channels
        let encoder = try ToneEncoder(layout: encodeLayout, frequencies: Array(tones.prefix(channels)))
        let decoder = try AudioDecoder(format: .opus(decodeLayout))
        let pcm = try decoder.decodeAll(try encoder.packets(60))
        let settled = Array(pcm.dropFirst(2_400 * channels))   // skip the codec's start-up
        var strongest: [Int] = [], ratio: [Double] = []
        for c in 0..<channels {
            let magnitudes = (0..<channels).map { Tone.magnitude(of: tones[$0], channel: c, channels: channels, in: settled) }
            let best = magnitudes.indices.max { magnitudes[$0] < magnitudes[$1] }!
            let runnerUp = magnitudes.enumerated().filter { $0.offset != best }.map(\.element).max() ?? 0
            strongest.append(best)
            ratio.append(magnitudes[best] / max(runnerUp, 1e-9))
        }
        return (strongest, ratio)
    }

    @Test(arguments: layouts)
    func eachWireChannelCarriesItsOwnTone(_ layout: OpusLayout) throws {
        let (strongest, ratio) = try Self.strongestTones(encodeLayout: layout, decodeLayout: layout)
        #expect(strongest == Array(0..<layout.channels), "\(layout): strongest tone per channel \(strongest)")
        for (c, r) in ratio.enumerated() {
            #expect(r > 10, "\(layout): channel \(c) tone only \(r)× the next strongest")
        }
    }

    /// The check can fail: Standard-coupled packets decoded with the Legacy mapping put FC/LFE
    /// and the rear/side pairs on the wrong speakers.
    @Test(arguments: [(OpusLayout.surround51Standard, OpusLayout.surround51Legacy),
                      (.surround71Standard, .surround71Legacy)])
    func theWrongMappingMovesTones(_ encoded: OpusLayout, _ decodedAs: OpusLayout) throws {
        let (strongest, _) = try Self.strongestTones(encodeLayout: encoded, decodeLayout: decodedAs)
        #expect(strongest != Array(0..<encoded.channels))
        #expect(Array(strongest.prefix(2)) == [0, 1], "FL/FR are the first coupled pair in both layouts")
    }
}

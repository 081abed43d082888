import Audio
import FFmpegOracle
import Foundation
import Testing

/// Decoded PCM against ffmpeg's libopus decode of the same packets (`-c:a libopus` before
/// `-i`, so libopusdec, not ffmpeg's native Opus decoder). ffmpeg makes the packets too
/// (libopus, 5 ms frames, `-application lowdelay`), and the test reads them out of the Ogg
/// file itself.
@Suite(.enabled(if: OpusOracle.isAvailable, OpusOracle.skipReason))
struct OracleTests {
    static let cases: [(layout: String, channels: Int)] = [("stereo", 2), ("5.1", 6), ("7.1", 8)]

    struct Run {
        var channels: Int
        var ours: [Float]
        /// ffmpeg's decode starts after the pre-skip; this is where it lines up in `ours`.
        var skip: Int
        var ogg: [UInt8]
        var dir: URL
    }

    /// Encodes 0.5 s of tones with ffmpeg and decodes its packets with `AudioDecoder`.
    static func run(_ index: Int, _ body: (Run) throws -> Void) throws {
        let (name, channels) = cases[index]
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("audio-oracle-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }

        let ogg = try OpusOracle.encodeTones(name: "tones-\(channels)", layout: name, channels: channels, seconds: 0.5, in: dir)
        let stream = try OggOpus(ogg)
        #expect(stream.head.channels == channels)
        #expect(stream.packets.count >= 100, "\(stream.packets.count) packets for 0.5 s of 5 ms frames")
        // libopusdec permutes the OpusHead (Vorbis-order) mapping into ffmpeg's channel order;
        // build the same layout so both write each channel to the same slot.
        let offsets = try #require(OpusOracle.vorbisOffsets[channels])
        let mapping = channels > 2 ? offsets.map { stream.head.mapping[$0] } : stream.head.mapping
        let layout = try OpusLayout(channels: channels, streams: stream.head.streams,
                                    coupledStreams: stream.head.coupledStreams, mapping: mapping)
        let decoder = try AudioDecoder(format: .opus(layout))
        let ours = try decoder.decodeAll(stream.packets)
        #expect(decoder.counters.decodedPackets == UInt64(stream.packets.count))
        #expect(decoder.counters.malformedPackets == 0)
        #expect(ours.count == stream.packets.count * 240 * channels, "every packet is 5 ms")
        try body(Run(channels: channels, ours: ours, skip: stream.head.preSkip * channels, ogg: ogg, dir: dir))
    }

    /// ffmpeg's float output is `opus_multistream_decode_float` of the same libopus on the same
    /// packets, so it must be bit-identical to ours — no ±1 LSB allowance.
    @Test(arguments: cases.indices)
    func floatOutputIsBitIdenticalToFFmpegLibopus(_ index: Int) throws {
        try Self.run(index) { r in
            let theirs = try OpusOracle.decodeFloat(r.ogg, name: "float", in: r.dir)
            try Self.expectAligned(theirs.count, r)
            let first = theirs.indices.first { r.ours[r.skip + $0].bitPattern != theirs[$0].bitPattern }
            #expect(first == nil, "sample \(first ?? 0): ours \(r.ours[r.skip + (first ?? 0)]) ffmpeg \(theirs[first ?? 0])")
            // Not silence: every channel carries its tone at about the encoded 0.3.
            for c in 0..<r.channels {
                let m = Tone.magnitude(of: Double(300 + 150 * c), channel: c, channels: r.channels,
                                       in: Array(theirs.suffix(9_600 * r.channels)))
                #expect(m > 0.2, "channel \(c) tone magnitude \(m)")
            }
        }
    }

    /// libopusdec's default is 16-bit (`opus_multistream_decode`). In a float build of libopus
    /// that is the float decode soft-clipped (only above full scale) and rounded to nearest-even
    /// after × 32768 — so our float rounded the same way matches exactly; a plain
    /// `rounded()` (ties away from zero) differs by 1 LSB on exact ties (measured: 26 of 48 000
    /// samples in the stereo case). A 16-bit sink must round to nearest-even too.
    @Test(arguments: cases.indices)
    func int16OutputIsOurFloatRoundedToNearestEven(_ index: Int) throws {
        try Self.run(index) { r in
            let theirs = try OpusOracle.decodeInt16(r.ogg, name: "s16", in: r.dir)
            try Self.expectAligned(theirs.count, r)
            var differing = 0, worst = 0
            for i in theirs.indices {
                let x = r.ours[r.skip + i] * 32_768
                let mine = Int(max(-32_768, min(32_767, x.rounded(.toNearestOrEven))))
                let d = abs(mine - Int(theirs[i]))
                if d != 0 { differing += 1 }
                worst = max(worst, d)
            }
            #expect(differing == 0, "\(differing) of \(theirs.count) samples differ, by up to \(worst) LSB")
        }
    }

    static func expectAligned(_ count: Int, _ r: Run) throws {
        #expect(count % r.channels == 0)
        // ffmpeg drops the pre-skip and the last page's padding; it can have no more than we do.
        try #require(count <= r.ours.count - r.skip, "ffmpeg gave \(count) samples, we have \(r.ours.count - r.skip)")
        #expect(count >= (24_000 - 240) * r.channels, "0.5 s, give or take a frame")
    }
}

import Audio
import PunktfunkWire
import Testing

@Suite struct OpusLayoutTests {
    /// data-plane.md §5.1 multistream table: (channels, layout id) → streams, coupled, mapping.
    static let table: [(UInt8, UInt8, Int, Int, [UInt8])] = [
        (2, 0, 1, 1, [0, 1]), (2, 1, 1, 1, [0, 1]), (2, 2, 1, 1, [0, 1]),
        (6, 0, 4, 2, [0, 1, 2, 3, 4, 5]),
        (6, 1, 4, 2, [0, 1, 4, 5, 2, 3]),
        (6, 2, 6, 0, [0, 1, 2, 3, 4, 5]),
        (8, 0, 5, 3, [0, 1, 2, 3, 4, 5, 6, 7]),
        (8, 1, 5, 3, [0, 1, 6, 7, 2, 3, 4, 5]),
        (8, 2, 8, 0, [0, 1, 2, 3, 4, 5, 6, 7]),
    ]

    @Test(arguments: table.indices)
    func sessionFieldsGiveTheSpecTableRow(_ row: Int) throws {
        let (channels, id, streams, coupled, mapping) = Self.table[row]
        let layout = try OpusLayout(channels: channels, layout: AudioLayout(rawValue: id))
        #expect(layout.channels == Int(channels))
        #expect(layout.streams == streams)
        #expect(layout.coupledStreams == coupled)
        #expect(layout.mapping == mapping)
        // libopus: channels = 2 × coupled + (streams − coupled); the mapping is a permutation.
        #expect(2 * coupled + (streams - coupled) == Int(channels))
        #expect(Set(mapping).count == mapping.count)
        // The checked initialiser accepts it and libopus builds a decoder for it.
        #expect(try OpusLayout(channels: Int(channels), streams: streams, coupledStreams: coupled, mapping: mapping) == layout)
        #expect(try AudioDecoder(format: .opus(layout)).channels == Int(channels))
    }

    @Test(arguments: [UInt8(0), 1, 3, 4, 5, 7, 9, 255])
    func otherChannelCountsAreStereo(_ channels: UInt8) throws {
        for id: UInt8 in 0...2 {
            #expect(try OpusLayout(channels: channels, layout: AudioLayout(rawValue: id)) == .stereo)
        }
    }

    @Test func anUnknownLayoutIdIsRefusedNotGuessed() {
        for channels: UInt8 in [2, 6, 8] {
            for id: UInt8 in [3, 9, 255] {
                #expect(throws: AudioError.unknownLayout(id)) {
                    try OpusLayout(channels: channels, layout: AudioLayout(rawValue: id))
                }
            }
        }
    }

    @Test func theCheckedInitialiserRejectsWhatLibopusWouldRefuse() {
        let bad: [(Int, Int, Int, [UInt8])] = [
            (2, 1, 1, [0]),            // mapping shorter than channels
            (2, 1, 2, [0, 1]),         // more coupled than streams
            (2, 0, 0, [0, 1]),         // no stream
            (3, 1, 1, [0, 1, 2]),      // entry 2 ≥ streams + coupled
            (0, 1, 0, []),             // no channel
        ]
        for (c, s, k, m) in bad {
            #expect(throws: AudioError.invalidLayout(channels: c, streams: s, coupledStreams: k, mapping: m)) {
                try OpusLayout(channels: c, streams: s, coupledStreams: k, mapping: m)
            }
        }
        // 255 marks a silent output channel and is allowed.
        #expect((try? OpusLayout(channels: 3, streams: 1, coupledStreams: 1, mapping: [0, 1, 255])) != nil)
    }

    @Test func theFormatComesFromTheServerHello() throws {
        var hello = ServerHello(sessionID: try #require(SessionID(bytes: Array(repeating: 7, count: 16))))
        #expect(try AudioStreamFormat(serverHello: hello) == .opus(.stereo))
        hello.audioChannels = 8
        hello.audioLayout = .standard
        hello.audioRateHz = 96_000   // ignored on the Opus plane
        let opus = try AudioDecoder(serverHello: hello)
        #expect(opus.format == .opus(.surround71Standard))
        #expect(opus.sampleRate == 48_000 && opus.maxFramesPerPacket == 5_760 && opus.maxSamplesPerPacket == 5_760 * 8)

        hello.audioCodec = .pcm
        hello.audioChannels = 6
        hello.audioBits = 24
        hello.audioLayout = AudioLayout(rawValue: 7)   // PCM has no coupling to refuse
        let pcm = try AudioDecoder(serverHello: hello)
        #expect(pcm.format == .pcm(channels: 6, rateHz: 96_000, bits: 24))
        #expect(pcm.sampleRate == 96_000 && pcm.maxFramesPerPacket == 11_520)

        hello.audioCodec = .flacReserved
        #expect(throws: AudioError.unsupportedCodec(1)) { try AudioDecoder(serverHello: hello) }
        #expect(throws: AudioError.unsupportedPCM(channels: 2, rateHz: 48_000, bits: 20)) {
            try AudioStreamFormat(codec: .pcm, channels: 2, layout: .legacy, rateHz: 48_000, bits: 20)
        }
        #expect(throws: AudioError.unsupportedPCM(channels: 2, rateHz: 1_000, bits: 16)) {
            try AudioStreamFormat(codec: .pcm, channels: 2, layout: .legacy, rateHz: 1_000, bits: 16)
        }
        // A hand-built format is checked by the decoder: no channels would divide by zero.
        #expect(throws: AudioError.unsupportedPCM(channels: 0, rateHz: 48_000, bits: 16)) {
            try AudioDecoder(format: .pcm(channels: 0, rateHz: 48_000, bits: 16))
        }
        #expect(throws: AudioError.unsupportedPCM(channels: 2, rateHz: 48_000, bits: 32)) {
            try AudioDecoder(format: .pcm(channels: 2, rateHz: 48_000, bits: 32))
        }
    }
}

import Testing
@testable import PunktfunkWire

/// Frame reading on a control stream (control-plane.md §2.1): split delivery, per-type bounds
/// checked from the header alone, unknown types skipped, longer varint forms accepted.
@Suite struct ControlFrameTests {
    static func sampleStream() -> (frames: [ControlFrame], bytes: [UInt8]) {
        var r = SplitMix64(seed: 0xF7A3E)
        var frames = ControlMessageType.allCases.map { ControlSamples.make($0, &r).frame }
        frames.append(ControlFrame(type: 0x7F, body: [1, 2, 3]))   // unknown type
        frames.append(ControlFrame(type: 0x2D, body: []))          // retired PhaseReport
        return (frames, frames.flatMap(\.encoded))
    }

    @Test func byteByByteDeliveryYieldsEveryFrame() throws {
        let (frames, bytes) = Self.sampleStream()
        var reader = FrameReader()
        var out: [ControlFrame] = []
        for b in bytes {
            reader.append(CollectionOfOne(b))
            while let f = try reader.next() { out.append(f) }
        }
        #expect(out == frames)
        #expect(reader.bufferedCount == 0)
    }

    @Test func randomChunkDeliveryYieldsEveryFrame() throws {
        let (frames, bytes) = Self.sampleStream()
        var r = SplitMix64(seed: 42)
        var reader = FrameReader()
        var out: [ControlFrame] = []
        var i = 0
        while i < bytes.count {
            let n = min(r.int(in: 1...300), bytes.count - i)
            reader.append(bytes[i..<i + n])
            i += n
            while let f = try reader.next() { out.append(f) }
        }
        #expect(out == frames)
    }

    /// Only the header is fed: the bound is enforced before any body byte arrives.
    static let oversizedHeaders: [([UInt8], UInt64, UInt64, Int)] = [
        ([0x24, 0x41, 0x01], 0x24, 257, 256),                       // SetBitrate > 256
        ([0x01, 0x80, 0x00, 0x40, 0x01], 0x01, 16_385, 16_384),     // ClientHello > 16 KiB
        ([0x30, 0x80, 0x02, 0x00, 0x01], 0x30, 131_073, 131_072),   // CursorShape > 128 KiB
        ([0x40, 0x7F, 0x80, 0x01, 0x00, 0x01], 0x7F, 65_537, 65_536),  // unknown > 64 KiB
    ]

    @Test(arguments: oversizedHeaders)
    func oversizedLengthIsRejectedFromTheHeader(header: [UInt8], type: UInt64, length: UInt64, limit: Int) {
        var reader = FrameReader()
        reader.append(header)
        #expect(throws: WireError.frameTooLong(type: type, length: length, limit: limit)) { try reader.next() }
    }

    @Test func everyKnownTypeHasItsRegistryBound() {
        let expected: [ControlMessageType: Int] = [
            .clientHello: 16_384, .serverHello: 16_384, .ready: 256, .pending: 1024, .redirect: 1024,
            .refused: 1024, .pairRequest: 4096, .pairChallenge: 1024, .pairProof: 256, .pairResult: 256,
            .authChallenge: 256, .authResponse: 1024, .reconfigure: 1024, .reconfigured: 1024,
            .streamConfig: 4096, .audioConfig: 1024, .cursorShape: 131_072, .launchOutcome: 1024,
            .clipOffer: 8192, .clipFetch: 1024, .padIdentity: 8192,
        ]
        for t in ControlMessageType.allCases {
            #expect(t.bodyLimit == expected[t, default: 256], "\(t)")
        }
    }

    @Test func unknownTypesDecodeAsUnknownAndReEncodeExactly() throws {
        for (type, body) in [(UInt64(0x7F), [UInt8]([9, 9])), (0x2D, []), (0x27, [1, 4, 1, 0, 0, 0]), (0x3FFF, [0xFF])] {
            let bytes = ControlFrame(type: type, body: body).encoded
            let m = try ControlMessage(decoding: bytes)
            #expect(m == .unknown(type: type, body: body))
            #expect(m.message == nil && m.type == type && m.encoded == bytes)
        }
    }

    /// Frame type, frame length, tag and field length all in longer-than-needed varint forms.
    @Test func nonCanonicalVarintsAreAccepted() throws {
        // type 0x24 (2 B) | length 10 (4 B) | tag 1 (2 B) | field length 4 (4 B) | 80000 LE
        let bytes = hex("40 24 | 80 00 00 0a | 40 01 | 80 00 00 04 | 80 38 01 00")
        let m = try ControlMessage(decoding: bytes)
        #expect(m == .setBitrate(SetBitrate(kbps: 80_000)))
        #expect(m.encoded == hex("24 06 01 04 80 38 01 00"))
    }

    @Test func highTypesNeedTwoByteVarints() {
        #expect(Array(ClipControl(enabled: true).encoded.prefix(2)) == [0x40, 0x40])
        #expect(Array(InputEdge(event: [0xC8] + [UInt8](repeating: 0, count: 17))!.encoded.prefix(3)) == [0x40, 0x50, 0x12])
    }

    @Test func streamTypesAreTheSpecValues() {
        #expect(StreamType.allCases.map(\.rawValue) == [0, 1, 2, 3])
    }
}
